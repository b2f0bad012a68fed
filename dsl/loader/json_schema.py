"""JSON Schemas (draft 2020-12) of the setting, cast and scenario files, made from the loader's own fields."""

# Nothing here declares a key: each schema is read off the `Schema`s of
# `dsl/loader/schemas.py` (kinds, required keys, defaults, descriptions,
# choices, minimums, what a table's keys may be). A schema is never stricter
# than the loader: whatever it rejects, `drama check` rejects too
# (tests/test_schema.py checks it on bad files). Some checks only the loader
# makes (a move naming a trait the party has, `high` at most `sides`, tags,
# duplicate keys); an editor reports those through `drama lsp`.

from __future__ import annotations

import json
import re
from typing import Any

from ..durations import UNITS, Duration
from ..limits import MAX_NUMBER
from .fields import NAME_RULES, Field, Schema
from .schemas import CAST, SCENARIO, SETTING

__all__ = ["KINDS_OF_FILE", "schema", "schema_text", "MODELINE", "modeline"]

DIALECT = "https://json-schema.org/draft/2020-12/schema"

# each kind of file: (its schema, its title, its description)
KINDS_OF_FILE: dict[str, tuple[Schema, str, str]] = {
    "setting": (SETTING, "drama setting",
                "A setting file of drama: the rules' knobs (round length, recovery, dice, ties). "
                "Every key is optional."),
    "cast": (CAST, "drama cast", "A cast file of drama: the parties and their sheets."),
    "scenario": (SCENARIO, "drama scenario",
                 "A scenario file of drama: its title, and the setting, cast and script it names."),
}

# the modeline that tells the YAML language server which schema a file follows
MODELINE = "# yaml-language-server: $schema="
_MODELINE = re.compile(r"^# yaml-language-server: \$schema=(?P<where>\S+)[ \t]*$", re.MULTILINE)


def modeline(where: str) -> str:
    """The first line of a YAML file whose schema is at `where` (a path relative to the file, or a URL)."""
    return MODELINE + where


def modeline_target(text: str) -> str | None:
    """Where the modeline of a YAML file's text says its schema is, or None."""
    match = _MODELINE.search(text)
    return match["where"] if match else None


def _any_case(word: str) -> str:
    return "".join(f"[{c.lower()}{c.upper()}]" if c.isalpha() else re.escape(c) for c in word)


def _duration_pattern(*, rounds: bool, zero: bool) -> str:
    """What dsl/durations.py reads: a whole number, then a unit (any case, `s` optional)."""
    units = [unit for unit in UNITS if rounds or UNITS[unit] is not None]
    number = r"\d+" if zero else r"0*[1-9]\d*"
    return rf"^\s*{number}\s*(?:{'|'.join(_any_case(unit) for unit in units)})[sS]?\s*$"


def _names(kind: str) -> dict[str, Any]:
    """What the keys of a table of `kind` ("party" or "sheet") may be (fields.NAME_RULES)."""
    forbidden, reserved = NAME_RULES[kind]
    # escaped for a character class in both Python's and ECMA-262's (`u` flag) regexes
    chars = "".join({"\n": r"\n", "\r": r"\r", "\\": r"\\", "]": r"\]", "^": r"\^", "-": r"\-"}.get(c, c)
                    for c in forbidden)
    one = rf"[^{chars} \t]"
    names: dict[str, Any] = {"pattern": rf"^{one}(?:[^{chars}]*{one})?$"}
    if reserved:
        names["not"] = {"enum": list(reserved)}
    return names


def _default(value: Any) -> Any:
    return str(value) if isinstance(value, Duration) else value


def _kind(kind: str, field: Field | None = None) -> dict[str, Any]:
    """The schema of a value of a scalar kind."""
    if kind == "integer":                        # (dsl/limits.py: the size of numbers, as the loader checks)
        return {"type": "integer", "minimum": (field.minimum if field and field.minimum is not None else 0),
                "maximum": MAX_NUMBER}
    if kind == "text":
        return {"type": "string"} if field and field.empty_ok else {"type": "string", "minLength": 1}
    if kind == "duration":
        round_length = field is not None and field.name == "round"
        return {"type": "string", "pattern": _duration_pattern(rounds=not round_length, zero=not round_length),
                "examples": ["6 seconds", "1 hour", "10 rounds"] if not round_length else ["6 seconds", "1 minute"]}
    if kind == "path":
        return {"type": "string", "minLength": 1}
    if kind == "boolean":
        return {"type": "boolean"}
    if kind == "script":
        return {"type": "string"}
    if kind == "words":
        return {"anyOf": [{"type": "string", "minLength": 1},
                          {"type": "object", "additionalProperties": {"type": "string", "minLength": 1}}]}
    if kind == "state":          # a flag or a counter (dsl/interpreter/named_values.py)
        return {"type": ["boolean", "integer"], "minimum": -MAX_NUMBER, "maximum": MAX_NUMBER}
    if kind == "paths":
        return {"anyOf": [{"type": "string", "minLength": 1},
                          {"type": "array", "items": {"type": "string", "minLength": 1}, "minItems": 1,
                           "uniqueItems": True}]}
    raise ValueError(f"no JSON Schema for a {kind}")  # pragma: no cover - a schema's mistake


def _items(items: str | Schema | Field | None) -> dict[str, Any]:
    if isinstance(items, Schema):
        return _object(items)
    if isinstance(items, Field):
        return _field(items)
    return _kind(items or "text")


def _field(field: Field) -> dict[str, Any]:
    """The schema of one key's value, with its description and default."""
    if field.kind == "choice":
        out: dict[str, Any] = {"enum": list(field.choices)}
    elif field.kind == "mapping":
        out = _object(field.items)
    elif field.kind == "either":
        out = {"anyOf": [{"type": "string", "minLength": 1}, _object(field.items)]}
    elif field.kind == "table":
        out = {"type": "object", "additionalProperties": _items(field.items)}
        if field.names:
            out["propertyNames"] = _names(field.names)
    elif field.kind == "list":
        out = {"type": "array", "items": _items(field.items)}
    else:
        out = _kind(field.kind, field)
    if field.empty_ok and field.kind in ("table", "list", "mapping"):
        out["type"] = [out["type"], "null"]
    elif field.empty_ok and out.get("type") == "string":
        out["type"] = ["string", "null"]
    out = {"description": field.description, **out}
    if field.default is not None and not field.required:
        out["default"] = _default(field.default)
    return out


def _object(schema: Schema) -> dict[str, Any]:
    out: dict[str, Any] = {
        "type": "object",
        "properties": {field.name: _field(field) for field in schema.fields},
        "additionalProperties": False,
    }
    required = [field.name for field in schema.fields if field.required]
    if required:
        out["required"] = required
    return out


def _plan() -> dict[str, Any]:
    """The schema of a test plan (`NAME.test.yaml`), its keys read off `dsl/testing.py`'s."""
    from ..testing import _PLAN_KEYS, _PROPERTY_KEYS, _TEST_KEYS, MAX_SEEDS
    text = {"type": "string", "minLength": 1}
    conditions = {"anyOf": [text, {"type": "array", "items": text}]}
    every = {
        "name": {"description": "What the case checks, as the report names it.", **text},
        "seed": {"description": "The seed of the run (`drama run --seed`).", "type": "integer", "minimum": 0},
        "choose": {"description": "The option taken at each choice (`--choose`): choice label -> option label.",
                   "type": "object", "additionalProperties": {"type": "string"}},
        "lenient": {"description": "Let the seeded dice settle what the script leaves open (`--lenient`).",
                    "type": "boolean"},
        "script": {"description": "A play log to run instead of the scenario's script.", **text},
        "expect": {"description": "Conditions that must hold at the end of the run ('gold >= 5').", **conditions},
        "seeds": {"description": f"How many seeds (0 .. N-1) the property runs with, 1 to {MAX_SEEDS}.",
                  "type": "integer", "minimum": 1, "maximum": MAX_SEEDS},
        "rounds": {"description": "No dramatic situation may last more rounds than this.", "type": "integer",
                   "minimum": 0},
        "scenario": {"description": "The scenario file the plan tests, relative to the plan.", **text},
        "cast": {"description": "A cast file (or a list) to run with instead of the scenario's (`--cast`).",
                 "anyOf": [text, {"type": "array", "items": text}]},
        "roles": {"description": "The adventure's roles bound to parties (`--role`).", "type": "object",
                  "additionalProperties": {"type": "string"}},
    }

    def cases(keys, description, required=()):
        item = {"type": "object", "properties": {key: every[key] for key in keys}, "additionalProperties": False}
        if required:
            item["required"] = list(required)
        return {"description": description, "type": "array", "items": item}
    every["tests"] = cases(_TEST_KEYS, "Runs, each with expectations at its end.")
    every["properties"] = cases(_PROPERTY_KEYS, "Expectations over many seeds, with the dice choosing.", ("seeds",))
    return {"$schema": DIALECT, "title": "drama test plan",
            "description": "A test plan of drama (`drama test`): a scenario, and tests and properties of its runs.",
            "type": "object", "properties": {key: every[key] for key in _PLAN_KEYS}, "required": ["scenario"],
            "additionalProperties": False}


def schema(kind: str) -> dict[str, Any]:
    """The JSON Schema of a kind of file: "setting", "cast", "scenario" or "test" (a test plan)."""
    if kind == "test":
        return _plan()
    fields, title, description = KINDS_OF_FILE[kind]
    out: dict[str, Any] = {"$schema": DIALECT, "title": title, "description": description}
    out.update(_object(fields))
    if kind == "setting":
        out["type"] = ["object", "null"]          # an empty setting file gives every default
    return out


def schema_text(kind: str) -> str:
    """`schema(kind)` as the text of a JSON file (2-space indents, a final newline)."""
    return json.dumps(schema(kind), indent=2, ensure_ascii=False) + "\n"
