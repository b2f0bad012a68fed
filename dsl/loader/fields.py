"""The loader's validators: one YAML value checked against the kind of field it is, with its message."""

from __future__ import annotations

from typing import Any

from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from ..frozen import frozen
from ..durations import Duration, parse_duration
from ..errors import Position, did_you_mean, one_of
from ..limits import MAX_NUMBER
from .yamlnodes import Context, YamlFile

# characters a party id may not contain: they separate names in a script
PARTY_ID_FORBIDDEN = "&,#\"\n\r"
RESERVED_IDS = ("GM",)
# characters a trait or treasure name may not contain: `with A + B`, `, roll`, comments
SHEET_NAME_FORBIDDEN = "+,#\"\n\r"
# what the keys of a "table" are (its Field's `names`): the characters they may not
# contain and the words they may not be; the validators and the JSON Schema read them
NAME_RULES: dict[str, tuple[str, tuple[str, ...]]] = {
    "party": (PARTY_ID_FORBIDDEN, RESERVED_IDS),
    "sheet": (SHEET_NAME_FORBIDDEN, ()),
}

DURATION_FORM = ("a whole number and a unit: seconds, minutes, hours, days, weeks "
                 "or rounds (e.g. '6 seconds', '10 rounds')")
ROUND_FORM = "a whole number and a unit: seconds, minutes, hours, days or weeks (e.g. '6 seconds')"


# ---------------------------------------------------------------------------
# Declaring fields

# what a field may hold; a "mapping" has the keys of its `items` schema, a
# "table" maps names the user chooses to `items`, a "list" holds `items`
KINDS = ("text", "integer", "duration", "choice", "boolean", "mapping", "table", "list", "path", "paths", "script",
         "state", "words", "either")
# "words": narration text, or a table of languages -> text (`{en: ..., fr: ...}`);
# "either": text, or a mapping with the keys of `items`


@frozen
class Field:
    """One key of a YAML mapping, declared once: the validators read it (and a JSON Schema can)."""

    name: str
    kind: str                                   # one of KINDS
    description: str                            # one line, for the user
    required: bool = False
    default: Any = None                         # what the key gives when it is left out
    choices: tuple[str, ...] = ()               # a "choice": the values it may take
    minimum: int | None = None                  # an "integer": the least it may be
    items: "str | Schema | Field | None" = None  # what a "mapping", "table" or "list" holds: a kind, the
                                                 # keys of a mapping, or the declaration of each entry
    example: str | None = None                  # how to write it: `expected:` when it is missing
    label: str | None = None                    # how messages name the value, when not by its key
    names: str | None = None                    # a "table": what its keys are, "party" or "sheet" (see NAME_RULES)
    empty_ok: bool = False                      # the key may be written with no value (`traits:`)

    def __post_init__(self):
        assert self.kind in KINDS, self.kind


@frozen
class Schema:
    """The keys a mapping may have, in order, each a Field."""

    fields: tuple[Field, ...]

    @property
    def keys(self) -> tuple[str, ...]:
        return tuple(field.name for field in self.fields)

    def __getitem__(self, name: str) -> Field:
        for field in self.fields:
            if field.name == name:
                return field
        raise KeyError(name)


# ---------------------------------------------------------------------------
# Describing values in messages

def describe(f: YamlFile, node: Node) -> str:
    if isinstance(node, MappingNode):
        return "a mapping"
    if isinstance(node, SequenceNode):
        return "a list"
    value = f.value(node)
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return f"'{node.value}' (true/false)"
    if isinstance(value, (int, float)):
        return f"the number {node.value}"
    text = str(value)
    if len(text) > 40:
        text = text[:37] + "..."
    return repr(text) if "\n" in text or "'" in text else f"'{text}'"


class Bad:
    """A value that was reported (or cannot be used): keep the default."""


BAD = Bad()


def known_keys(f: YamlFile, node: MappingNode, ctx: Context, schema: Schema, where: str
               ) -> dict[str, tuple[Node, Node]]:
    """The known keys of a mapping: key -> (key node, value node); unknown ones are E103 with did-you-mean."""
    allowed = schema.keys
    known = {}
    for key, key_node, value_node in f.items(node, ctx):
        if isinstance(key, str) and key in allowed:
            known[key] = (key_node, value_node)
            continue
        name = key if isinstance(key, str) else (key_node.value if isinstance(key_node, ScalarNode) else "?")
        ctx.report("E103", f"unknown key '{name}' in {where}", f.pos(key_node),
                   hint=did_you_mean(str(name), allowed), expected=one_of(allowed))
    return known


def take(found: dict[str, tuple[Node, Node]], schema: Schema, key: str, ctx: Context, where: str,
         position: Position) -> tuple[Node, Node] | None:
    """A key's (key node, value node) from `known_keys`, or None when it is left out:
    E105 if the schema requires it."""
    if key in found:
        return found[key]
    field = schema[key]
    if field.required:
        ctx.report("E105", f"{where} needs '{key}'", position, expected=field.example)
    return None


def expect_field(f: YamlFile, key: Node, node: Node, ctx: Context, field: Field, what: str | None = None
                 ) -> Any | Bad:
    """A scalar value checked as its field's kind says; `what` names it in messages."""
    what = what or field.label or field.name
    if field.kind == "text":
        return expect_str(f, key, node, ctx, what)
    if field.kind == "integer":
        return expect_int(f, key, node, ctx, what, low=field.minimum or 0)
    if field.kind == "duration":
        return expect_duration(f, key, node, ctx, what)
    if field.kind == "choice":
        return expect_choice(f, key, node, ctx, what, field.choices)
    if field.kind == "boolean":
        return expect_bool(f, key, node, ctx, what)
    raise ValueError(f"no scalar validator for a {field.kind}")  # pragma: no cover - a schema's mistake


def expect_mapping(f: YamlFile, key: Node | None, node: Node, ctx: Context, what: str, *,
                    none_ok: bool = False) -> MappingNode | None | Bad:
    if f.is_bad(node):
        return BAD
    if isinstance(node, MappingNode):
        return node
    if none_ok and isinstance(node, ScalarNode) and f.value(node) is None:
        return None
    position = f.value_pos(key, node) if key is not None else f.pos(node)
    ctx.report("E104", f"{what} must be a mapping, not {describe(f, node)}", position,
               expected="a mapping of keys to values (`key: value` lines)")
    return BAD


def expect_int(f: YamlFile, key: Node, node: Node, ctx: Context, what: str, *, low: int = 0,
                high: int | None = None, high_why: str = "") -> int | Bad:
    if f.is_bad(node):
        return BAD
    value = f.value(node) if isinstance(node, ScalarNode) else None
    if isinstance(value, int) and not isinstance(value, bool):
        if value < low:
            ctx.report("E104", f"{what} must be {low} or more, not {value}", f.value_pos(key, node),
                       expected=f"a whole number of {low} or more")
            return BAD
        if high is None and value > MAX_NUMBER:     # (dsl/limits.py: the size of numbers)
            ctx.report("E104", f"{what} must be at most {MAX_NUMBER}, not {value}", f.value_pos(key, node),
                       expected=f"a whole number from {low} to {MAX_NUMBER}")
            return BAD
        if high is not None and value > high:
            ctx.report("E104", f"{what} must be at most {high}{high_why}, not {value}",
                       f.value_pos(key, node), expected=f"a whole number from {low} to {high}")
            return BAD
        return value
    expected = f"a whole number of {low} or more" if high is None else f"a whole number from {low} to {high}"
    ctx.report("E104", f"{what} must be a whole number, not {describe(f, node)}",
               f.value_pos(key, node), expected=expected)
    return BAD


def expect_str(f: YamlFile, key: Node, node: Node, ctx: Context, what: str, *, empty_ok: bool = False,
                expected: str = "text") -> str | Bad:
    if f.is_bad(node):
        return BAD
    value = f.value(node) if isinstance(node, ScalarNode) else None
    if isinstance(value, str) and (empty_ok or value.strip()):
        return value
    if isinstance(value, str):
        ctx.report("E104", f"{what} must not be empty", f.value_pos(key, node), expected=expected)
    else:
        ctx.report("E104", f"{what} must be text, not {describe(f, node)}", f.value_pos(key, node),
                   expected=expected, hint="quote it to make it text" if isinstance(node, ScalarNode)
                   and value is not None else None)
    return BAD



def expect_duration(f: YamlFile, key: Node, node: Node, ctx: Context, what: str) -> Duration | Bad:
    if f.is_bad(node):
        return BAD
    value = f.value(node) if isinstance(node, ScalarNode) else None
    position = f.value_pos(key, node)
    form = ROUND_FORM if what == "round" else DURATION_FORM     # a round is not measured in rounds
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        ctx.report("E104", f"'{what}' must be a duration, not {describe(f, node)}", position,
                   expected=form)
        return BAD
    if not isinstance(value, str):
        ctx.report("E107", f"'{what}' needs a unit: {node.value} what?", position, expected=form,
                   hint=f"write e.g. '{node.value} seconds'" if isinstance(value, int) else None)
        return BAD
    duration = parse_duration(value)
    if duration is None:
        ctx.report("E107", f"'{value}' is not a duration", position, expected=form)
        return BAD
    if what == "round":
        if duration.unit == "round":
            ctx.report("E107", "the round length cannot be given in rounds", position, expected=ROUND_FORM)
            return BAD
        if duration.amount == 0:
            ctx.report("E107", "a round must last longer than 0", position, expected="e.g. '6 seconds'")
            return BAD
    return duration


def expect_choice(f: YamlFile, key: Node, node: Node, ctx: Context, what: str, choices: tuple[str, ...]) -> str | Bad:
    if f.is_bad(node):
        return BAD
    value = f.value(node) if isinstance(node, ScalarNode) else None
    if isinstance(value, str) and value in choices:
        return value
    shown = value if isinstance(value, str) else describe(f, node)
    ctx.report("E104", f"'{shown}' is not a choice for '{what}'" if isinstance(value, str)
               else f"'{what}' must be one of the choices, not {shown}",
               f.value_pos(key, node), expected=one_of(choices),
               hint=did_you_mean(value, choices) if isinstance(value, str) else None)
    return BAD


def expect_bool(f: YamlFile, key: Node, node: Node, ctx: Context, what: str) -> bool | Bad:
    if f.is_bad(node):
        return BAD
    value = f.value(node) if isinstance(node, ScalarNode) else None
    if isinstance(value, bool):
        return value
    ctx.report("E104", f"{what} must be true or false, not {describe(f, node)}", f.value_pos(key, node),
               expected="true or false")
    return BAD


def party_id_ok(f: YamlFile, party_id: Any, key_node: Node, ctx: Context) -> bool:
    position = f.pos(key_node)
    if not isinstance(party_id, str):
        shown = key_node.value if isinstance(key_node, ScalarNode) else describe(f, key_node)
        ctx.report("E104", f"a party id must be a name, not {describe(f, key_node)}", position,
                   hint=f"quote it to make it a name: \"{shown}\"" if isinstance(key_node, ScalarNode) else None)
        return False
    if party_id in RESERVED_IDS:
        ctx.report("E104", f"'{party_id}' cannot be a party id: it is reserved for GM targets", position,
                   hint="choose another id, e.g. 'Overlord'")
        return False
    bad = sorted({c for c in party_id if c in PARTY_ID_FORBIDDEN})
    if bad:
        shown = ", ".join(repr(c) for c in bad)
        ctx.report("E104", f"the party id {party_id!r} contains {shown}, which scripts use to separate names",
                   position, expected="a name without & , # quotes or line breaks",
                   hint="put the full name in 'name:' and use a short id")
        return False
    if not party_id.strip() or party_id != party_id.strip():
        ctx.report("E104", f"the party id {party_id!r} is empty or starts or ends with spaces", position)
        return False
    return True


def expect_path(f: YamlFile, key: Node, node: Node, ctx: Context, what: str, expected: str) -> str | Bad:
    value = expect_str(f, key, node, ctx, what, expected=expected)
    if isinstance(value, str) and ("\n" in value or "\0" in value):
        ctx.report("E104", f"{what} must be a file path, on one line", f.value_pos(key, node), expected=expected)
        return BAD
    return value.strip() if isinstance(value, str) else value

