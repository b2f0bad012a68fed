"""The schemas of the setting, cast and scenario files, and what each file is read into."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Any, Mapping

from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from ..engine.parties import TIE_POLICIES, Move, PartySheet, Settings
from ..errors import Position, did_you_mean, one_of
from .fields import (
    BAD, Bad, Field, Schema, describe, expect_field, expect_int, expect_mapping, expect_path, expect_str,
    known_keys, party_id_ok, take, SHEET_NAME_FORBIDDEN,
)
from .yamlnodes import Context, Fatal, Skip, YamlFile, read_text

# ---------------------------------------------------------------------------
# The fields of each file: the one place they are declared

_DEFAULT = Settings()      # the engine's defaults, written once there

DICE = Schema((
    Field("sides", "integer", "the faces of a quintessence die", default=_DEFAULT.sides, minimum=2,
          label="the number of sides"),
    Field("high", "integer", "a die showing this or more is high; at most `sides`, the top face when left out",
          default=_DEFAULT.high, minimum=2, label="'high'"),
))

SETTING = Schema((
    Field("name", "text", "the setting's name, recorded in the event log", default=_DEFAULT.name,
          label="the setting's name"),
    Field("round", "duration", "in-world time of one round, more than 0 and not in rounds (R13)",
          default=_DEFAULT.round),
    Field("recovery", "duration", "a party may recover at most once in this much in-world time (R14)",
          default=_DEFAULT.recovery),
    Field("calm", "duration", "time that must pass after a dramatic situation before a recovery (R14)",
          default=_DEFAULT.calm),
    Field("full_rest", "duration", "a rest at least this long restores every party's quintessence (R16)",
          default=_DEFAULT.full_rest),
    Field("dice", "mapping", "the quintessence dice (R1)", items=DICE),
    Field("ties", "choice", "who wins a tie the script does not settle (R11)", default=_DEFAULT.ties,
          choices=TIE_POLICIES),
))

# a move written as a mapping: what it uses, and the words that narrate it
MOVE = Schema((
    Field("use", "text", "the 'Trait + Treasure' it uses when the script does not say"),
    Field("says", "words", "what the party does, after its name: `hurls a gout of flame at {target}`"),
    Field("hit", "words", "the outcome when it works: `{target} is engulfed`"),
    Field("miss", "words", "the outcome when it fails: `{target} ducks behind a pillar`"),
))

PARTY = Schema((
    Field("name", "text", "the party's full name; the id when left out"),
    Field("quintessence", "integer", "the party's maximum (and starting) quintessence", required=True,
          default=0, minimum=0, example="quintessence: a whole number of 0 or more (its maximum quintessence)"),
    Field("traits", "table", "the party's traits and their levels (0 or more)", items="integer",
          names="sheet", empty_ok=True),
    Field("treasures", "table", "the party's treasures and their values (0 or more)", items="integer",
          names="sheet", empty_ok=True),
    Field("members", "list", "the members of a group, for narration only (R17)", items="text", empty_ok=True),
    Field("moves", "table", "intent -> the 'Trait + Treasure' it uses when the script does not say, or a "
          "mapping of `use` and the words that narrate it (`says`, `hit`, `miss`)",
          items=Field("move", "either", "'Trait + Treasure', or `use` and the words of the move", items=MOVE),
          empty_ok=True),
    Field("hidden", "boolean", "true: the player board of `drama play` shows no numbers for this party",
          default=False),
    Field("short", "words", "the name for later mentions in a transcript (`Kara`); for narration only"),
    Field("pronouns", "text", "the pronouns of narration: she/her, he/him, they/them, it/its or your own "
          "three (xe/xem/xyr); they/them for a group when left out; never guessed from the name"),
    Field("clauses", "table", "a qualifier as written (`but not tapestries`) -> the clause that narrates it",
          items="words"),
    Field("names", "table", "the full name in other languages of a transcript (`fr: la bande de gobelins`)",
          items="text"),
))
# (`short`, the words of a move and a clause may also be a table of languages:
# `short: {en: the goblins, fr: les gobelins}`, for `drama run --lang`)

# pronouns: subject/object/possessive, and whether a verb after them is plural
PRONOUNS = {"she": ("she", "her", "her"), "he": ("he", "him", "his"), "they": ("they", "them", "their"),
            "it": ("it", "it", "its")}

CAST = Schema((
    Field("parties", "table", "each party's id -> its sheet", required=True, items=PARTY, names="party",
          example="parties: followed by one mapping per party"),
    Field("state", "table", "the starting values of the script's flags (true or false) and counters "
          "(whole numbers), for this group", items="state"),
))

SCENARIO = Schema((
    Field("title", "text", "the title, printed at the top of the output and recorded in the event log",
          required=True, default="", example="title: The Fall of Emberfall", label="the title"),
    Field("setting", "path", "the setting file; every setting key has its default without it"),
    Field("cast", "paths", "the cast file, or a list of cast files", required=True,
          example="cast: cast.yaml (or a list of cast files)"),
    Field("script", "script", "a .drama file, or the script written inline (`script: |`)", required=True,
          example="script: a .drama file, or an inline block `script: |`"),
    Field("roles", "table", "an adventure's roles, each bound to a party id of the cast or left empty",
          items=Field("role", "text", "the party id the role is bound to; left empty, it is bound with --role",
                      empty_ok=True),
          names="party", empty_ok=True),
))

SETTING_KEYS = SETTING.keys
DICE_KEYS = DICE.keys
CAST_KEYS = CAST.keys
PARTY_KEYS = PARTY.keys
SCENARIO_KEYS = SCENARIO.keys



@dataclass(frozen=True)
class ScriptSource:
    """The text of a scenario's script and where it was written.

    Line n of `text` is line `line_offset + n` of `file`. For a `.drama` file the
    offset is 0; for an inline `script: |` block, `file` is the scenario YAML and
    the offset is the line of the `|`. `column_offset` is what to add to a column
    of the text to get the column in `file`: exact for a `.drama` file, a `|`
    block and a value on one line.
    """

    file: str
    text: str
    line_offset: int
    column_offset: int = 0

    def position(self, line: int, column: int = 1) -> Position:
        """Where line:column of `text` (both 1-based) is in `file`."""
        return Position(self.file, self.line_offset + line, self.column_offset + column)


@dataclass(frozen=True)
class Scenario:
    """A scenario YAML with everything it names loaded."""

    title: str
    path: str
    setting: Settings
    cast: tuple[PartySheet, ...]
    script: ScriptSource
    files: tuple[str, ...] = ()     # every file it was read from: scenario, setting, casts, script
    cast_files: tuple[str, ...] = ()
    # an adventure's roles: role -> the party id it is bound to, or None (unbound)
    roles: Mapping[str, str | None] = field(default_factory=dict)
    role_positions: Mapping[str, Position] = field(default_factory=dict)
    # the starting values of flags and counters, given by the cast (`state:`)
    state: Mapping[str, bool | int] = field(default_factory=dict)


# ---------------------------------------------------------------------------
# Setting

def read_setting(f: YamlFile, ctx: Context) -> Settings:
    root = f.root
    if root is None or (isinstance(root, ScalarNode) and f.value(root) is None and not f.is_bad(root)):
        return Settings()
    if not isinstance(root, MappingNode):
        if not f.is_bad(root):
            ctx.report("E104", f"a setting file must be a mapping of keys to values, not {describe(f, root)}",
                       f.pos(root), expected=f"keys among {one_of(SETTING_KEYS)}")
        raise Skip
    values: dict[str, Any] = {}
    for key, (key_node, node) in known_keys(f, root, ctx, SETTING, "the setting").items():
        if SETTING[key].items is DICE:
            value = _dice(f, key_node, node, ctx)
            if not isinstance(value, Bad):
                values.update(value)
            continue
        value = expect_field(f, key_node, node, ctx, SETTING[key])
        if not isinstance(value, Bad):
            values[key] = value
    return Settings(**values)


def _dice(f: YamlFile, key: Node, node: Node, ctx: Context) -> dict | Bad:
    mapping = expect_mapping(f, key, node, ctx, "'dice'")
    if mapping is None or isinstance(mapping, Bad):
        return BAD
    found = known_keys(f, mapping, ctx, DICE, "'dice'")
    out: dict[str, int] = {}
    sides: int | Bad = DICE["sides"].default
    if "sides" in found:
        sides = expect_field(f, *found["sides"], ctx, DICE["sides"])
        if not isinstance(sides, Bad):
            out["sides"] = sides
    if "high" in found:
        high_field = DICE["high"]
        high = expect_int(f, *found["high"], ctx, high_field.label, low=high_field.minimum,
                          high=sides if not isinstance(sides, Bad) else None,
                          high_why=" (the number of sides)")
        if not isinstance(high, Bad) and not isinstance(sides, Bad):
            out["high"] = high     # (with bad sides, a high beyond the default's would be a second error)
    if "sides" in out and "high" not in out:
        out["high"] = out["sides"]   # with only `sides` (or a bad `high`), the top face is high
    return out


# ---------------------------------------------------------------------------
# Cast

def read_cast(files: list[YamlFile], ctx: Context, state: dict | None = None) -> tuple[PartySheet, ...]:
    """The parties of the cast files; `state`, when given, gets their `state:` values."""
    sheets: list[PartySheet] = []
    first: dict[str, Position] = {}
    for f in files:
        try:
            sheets.extend(_cast_file(f, ctx, first))
        except Skip:   # collecting: this file was reported; go on with the others
            pass
        if state is not None:
            _cast_state(f, ctx, state)
    return tuple(sheets)


def _cast_state(f: YamlFile, ctx: Context, state: dict) -> None:
    """`state: {gold: 5, satchel_lost: false}`: flags and counters to start with."""
    from ..interpreter.state import MAX_COUNTER
    from ..syntax.vocabulary import WORD
    root = f.root
    if not isinstance(root, MappingNode):
        return
    pair = next(((k, v) for kv, k, v in f.items(root, ctx) if kv == "state"), None)
    if pair is None:
        return
    mapping = expect_mapping(f, pair[0], pair[1], ctx, "'state'", none_ok=True)
    if mapping is None or isinstance(mapping, Bad):
        return
    for name, key, node in f.items(mapping, ctx):
        value = f.value(node)
        if not isinstance(name, str) or not WORD.fullmatch(name):
            ctx.report("E104", f"'{name}' is not a name a script can give a flag or counter", f.pos(key),
                       expected="one word, such as gold or satchel_lost")
        elif not isinstance(value, (bool, int)) or not isinstance(node, ScalarNode) \
                or not isinstance(value, bool) and abs(value) > MAX_COUNTER:
            ctx.report("E104", f"the starting value of '{name}' must be true, false or a whole number",
                       f.value_pos(key, node), expected=f"true or false (a flag), or a whole number from "
                       f"{-MAX_COUNTER} to {MAX_COUNTER} (a counter)")
        else:
            state[name] = value


def _cast_file(f: YamlFile, ctx: Context, first: dict[str, Position]) -> list[PartySheet]:
    root = f.root
    if root is None or (isinstance(root, ScalarNode) and f.value(root) is None and not f.is_bad(root)):
        ctx.report("E105", "a cast file needs 'parties'", Position(f.path, 1, 1),
                   expected=CAST["parties"].example)
        raise Skip
    if not isinstance(root, MappingNode):
        if not f.is_bad(root):
            ctx.report("E104", f"a cast file must be a mapping with 'parties', not {describe(f, root)}",
                       f.pos(root), expected=CAST["parties"].example)
        raise Skip
    found = known_keys(f, root, ctx, CAST, "the cast")
    parties = take(found, CAST, "parties", ctx, "the cast", f.pos(root))
    if parties is None:
        raise Skip
    mapping = expect_mapping(f, parties[0], parties[1], ctx, "'parties'")
    if isinstance(mapping, Bad) or mapping is None:
        raise Skip
    sheets = []
    for party_id, key_node, node in f.items(mapping, ctx):
        if not party_id_ok(f, party_id, key_node, ctx):
            continue
        position = f.pos(key_node)
        if party_id in first:
            ctx.report("E109", f"the party '{party_id}' is defined twice", position,
                       notes=[f"'{party_id}' is first defined at {first[party_id]}"],
                       hint="give each party one id, defined in one place")
            continue
        first[party_id] = position
        sheet = _party(f, party_id, key_node, node, ctx)
        if sheet is not None:
            sheets.append(sheet)
    return sheets


def _party(f: YamlFile, party_id: str, key_node: Node, node: Node, ctx: Context) -> PartySheet | None:
    where = f"the party '{party_id}'"
    position = f.pos(key_node)
    mapping = expect_mapping(f, key_node, node, ctx, where, none_ok=True)
    if isinstance(mapping, Bad):
        return None
    found = known_keys(f, mapping, ctx, PARTY, where) if mapping is not None else {}
    name: str | Bad = party_id
    if "name" in found:
        name = expect_field(f, *found["name"], ctx, PARTY["name"], f"the name of '{party_id}'")
    quintessence: int | Bad = PARTY["quintessence"].default
    pair = take(found, PARTY, "quintessence", ctx, where, position)
    if pair is not None:
        quintessence = expect_field(f, *pair, ctx, PARTY["quintessence"], f"the quintessence of '{party_id}'")
    traits = _levels(f, found.get("traits"), ctx, party_id, "trait")
    treasures = _levels(f, found.get("treasures"), ctx, party_id, "treasure")
    for treasure, (tkey, _value) in list(treasures.items()):
        if treasure in traits:
            ctx.report("E104", f"'{treasure}' is both a trait and a treasure of '{party_id}'", f.pos(tkey),
                       notes=[f"the trait '{treasure}' is at {f.pos(traits[treasure][0])}"],
                       hint="a name can be one or the other; rename one of them")
            del treasures[treasure]
    members = _members(f, found.get("members"), ctx, party_id)
    words: dict[str, dict[str, str]] = {}
    moves = _moves(f, found.get("moves"), ctx, party_id, traits, treasures, words)
    short = None
    if "short" in found:
        value = _words(f, *found["short"], ctx, f"the short name of '{party_id}'")
        short = value if not isinstance(value, Bad) else None
    names = {}
    if "names" in found:
        value = _words(f, *found["names"], ctx, f"the names of '{party_id}'", table=True)
        names = value if isinstance(value, dict) else {}
    pronouns = _pronouns(f, found.get("pronouns"), ctx, party_id)
    clauses = _clauses(f, found.get("clauses"), ctx, party_id)
    hidden = expect_field(f, *found["hidden"], ctx, PARTY["hidden"], f"'hidden' of '{party_id}'") \
        if "hidden" in found else False
    return PartySheet(
        id=party_id,
        name=name if isinstance(name, str) else party_id,
        quintessence=quintessence if isinstance(quintessence, int) else 0,
        traits={k: v for k, (_n, v) in traits.items() if not isinstance(v, Bad)},
        treasures={k: v for k, (_n, v) in treasures.items() if not isinstance(v, Bad)},
        members=members,
        moves=moves,
        hidden=hidden is True,
        pos=position,
        short=short,
        pronouns=pronouns,
        words=words,
        clauses=clauses,
        names=names,
    )


def _words(f: YamlFile, key: Node, node: Node, ctx: Context, what: str, table: bool = False
           ) -> str | dict[str, str] | Bad:
    """Narration words: text, or a table of languages -> text (`{en: ..., fr: ...}`)."""
    if isinstance(node, MappingNode):
        out: dict[str, str] = {}
        for lang, lang_key, value_node in f.items(node, ctx):
            value = expect_str(f, lang_key, value_node, ctx, f"{what} in '{lang}'")
            if not isinstance(value, Bad):
                out[str(lang)] = value
        return out
    if table:
        expect_mapping(f, key, node, ctx, what)
        return BAD
    return expect_str(f, key, node, ctx, what)

def _pronouns(f: YamlFile, pair: tuple[Node, Node] | None, ctx: Context, party_id: str) -> str | None:
    """`she/her`, `he/him`, `they/them`, `it/its` (or the three forms written out),
    or three forms of the writer's own: `xe/xem/xyr` (E120)."""
    if pair is None:
        return None
    value = expect_field(f, *pair, ctx, PARTY["pronouns"], f"the pronouns of '{party_id}'")
    if isinstance(value, Bad):
        return None
    parts = [part.strip() for part in value.split("/")]
    known = PRONOUNS.get(parts[0].lower()) if parts else None
    if known is not None and len(parts) in (2, 3) and all(p.lower() in known for p in parts[1:]):
        return "/".join(known)
    if len(parts) == 3 and all(p and " " not in p for p in parts):
        return "/".join(parts)
    ctx.report("E120", f"the pronouns of '{party_id}' cannot be read: {value!r}", f.value_pos(*pair),
               expected="she/her, he/him, they/them, it/its, or three forms of your own such as xe/xem/xyr",
               hint=did_you_mean(value, ["she/her", "he/him", "they/them", "it/its"]))
    return None


_PLACEHOLDER = re.compile(r"\{([^{}]*)\}")


def _clauses(f: YamlFile, pair: tuple[Node, Node] | None, ctx: Context, party_id: str) -> dict[str, str]:
    """A qualifier as written in the script (`but not tapestries`, `so that ...`) ->
    the clause that narrates it (E122 for a key that is not a qualifier)."""
    out: dict[str, str] = {}
    if pair is None:
        return out
    mapping = expect_mapping(f, pair[0], pair[1], ctx, f"the clauses of '{party_id}'", none_ok=True)
    if mapping is None or isinstance(mapping, Bad):
        return out
    for key, key_node, node in f.items(mapping, ctx):
        text = " ".join(str(key).split()) if isinstance(key, str) else ""
        if not (text.startswith("but not ") or text.startswith("so that ")):
            ctx.report("E122", f"a clause of '{party_id}' must be keyed by a qualifier as the script writes it, "
                       f"not {key!r}", f.pos(key_node),
                       expected="`but not PHRASE` or `so that PHRASE`, e.g. `but not tapestries: taking care "
                                "not to set the tapestries alight`")
            continue
        value = _words(f, key_node, node, ctx, f"the clause '{text}' of '{party_id}'")
        texts = value.values() if isinstance(value, dict) else [value]
        if not isinstance(value, Bad) and all(_words_ok(f, key_node, node, ctx, t, f"the clause '{text}'", ())
                                              for t in texts):
            out[text] = value
    return out


def _words_ok(f: YamlFile, key_node: Node, node: Node, ctx: Context, text: str, what: str,
              allowed: tuple[str, ...]) -> bool:
    """Narration words with only the placeholders allowed (`{target}`) (E121)."""
    for match in _PLACEHOLDER.finditer(text):
        if match.group(1) not in allowed:
            ctx.report("E121", f"{what} has the placeholder {{{match.group(1)}}}, which narration cannot fill",
                       f.value_pos(key_node, node),
                       expected=f"only {', '.join('{' + a + '}' for a in allowed)}" if allowed
                       else "plain words, without { }",
                       hint=did_you_mean(match.group(1), allowed) if allowed else None)
            return False
    if "{" in _PLACEHOLDER.sub("", text) or "}" in _PLACEHOLDER.sub("", text):
        ctx.report("E121", f"{what} has an unmatched brace", f.value_pos(key_node, node),
                   expected="`{target}` written whole, or no braces")
        return False
    return True


def _levels(f: YamlFile, pair: tuple[Node, Node] | None, ctx: Context, party_id: str, kind: str
            ) -> dict[str, tuple[Node, int | Bad]]:
    """Traits or treasures: name -> (key node, level); a bad level is kept as BAD (the name exists)."""
    out: dict[str, tuple[Node, int | Bad]] = {}
    if pair is None:
        return out
    mapping = expect_mapping(f, pair[0], pair[1], ctx, f"the {kind}s of '{party_id}'",
                             none_ok=PARTY[f"{kind}s"].empty_ok)
    if mapping is None or isinstance(mapping, Bad):
        return out
    for name, key_node, node in f.items(mapping, ctx):
        if not _sheet_name_ok(f, name, key_node, ctx, kind):
            continue
        level = expect_int(f, key_node, node, ctx, f"the {kind} '{name}' of '{party_id}'")
        out[name] = (key_node, level)
    return out


def _sheet_name_ok(f: YamlFile, name: Any, key_node: Node, ctx: Context, kind: str) -> bool:
    if not isinstance(name, str):
        shown = key_node.value if isinstance(key_node, ScalarNode) else "..."
        ctx.report("E104", f"a {kind} must be a name, not {describe(f, key_node)}", f.pos(key_node),
                   hint=f"quote it to make it a name: \"{shown}\"" if isinstance(key_node, ScalarNode) else None)
        return False
    bad = sorted({c for c in name if c in SHEET_NAME_FORBIDDEN})
    if bad or not name.strip() or name != name.strip():
        what = f"contains {', '.join(repr(c) for c in bad)}" if bad else "is empty or starts or ends with spaces"
        ctx.report("E104", f"the {kind} name {name!r} {what}", f.pos(key_node),
                   expected="a name without + , # quotes or line breaks")
        return False
    return True


def _members(f: YamlFile, pair: tuple[Node, Node] | None, ctx: Context, party_id: str) -> tuple[str, ...]:
    if pair is None:
        return ()
    key, node = pair
    if f.is_bad(node) or (PARTY["members"].empty_ok and isinstance(node, ScalarNode) and f.value(node) is None):
        return ()
    if not isinstance(node, SequenceNode):
        ctx.report("E104", f"the members of '{party_id}' must be a list of names, not {describe(f, node)}",
                   f.value_pos(key, node), expected="a list such as [Snik, Grub, Mox]")
        return ()
    members = []
    for item in node.value:
        value = expect_str(f, key, item, ctx, f"a member of '{party_id}'", expected="a name")
        if not isinstance(value, Bad):
            members.append(value)
    return tuple(members)


def _moves(f: YamlFile, pair: tuple[Node, Node] | None, ctx: Context, party_id: str,
           traits: dict, treasures: dict, words: dict[str, dict[str, str]]) -> dict[str, Move]:
    out: dict[str, Move] = {}
    if pair is None:
        return out
    mapping = expect_mapping(f, pair[0], pair[1], ctx, f"the moves of '{party_id}'",
                             none_ok=PARTY["moves"].empty_ok)
    if mapping is None or isinstance(mapping, Bad):
        return out
    names = list(traits) + list(treasures)
    form = "'Trait + Treasure', 'Trait' or 'Treasure', from the party's traits and treasures"
    for intent, key_node, node in f.items(mapping, ctx):
        if not isinstance(intent, str) or not intent.strip():
            ctx.report("E104", f"a move's intent must be a name, not {describe(f, key_node)}", f.pos(key_node))
            continue
        if isinstance(node, MappingNode):
            found = known_keys(f, node, ctx, MOVE, f"the move '{intent}' of '{party_id}'")
            said: dict[str, str] = {}
            for key in ("says", "hit", "miss"):
                if key in found:
                    value = _words(f, *found[key], ctx, f"the words '{key}' of '{intent}'")
                    texts = value.values() if isinstance(value, dict) else [value]
                    if not isinstance(value, Bad) and all(_words_ok(f, *found[key], ctx, text,
                                                                    f"'{key}' of the move '{intent}'", ("target",))
                                                          for text in texts):
                        said[key] = value
            if said:
                words[intent] = said
            if "use" not in found:
                continue
            key_node, node = found["use"]
        text = expect_str(f, key_node, node, ctx, f"the move '{intent}' of '{party_id}'", expected=form)
        if isinstance(text, Bad):
            continue
        parts, index, ok = [], 0, True
        for raw in text.split("+"):
            part = raw.strip()
            start = index + (len(raw) - len(raw.lstrip()))
            index += len(raw) + 1
            if not part:
                ok = False
                break
            parts.append((part, start))
        if not ok or len(parts) > 2:
            ctx.report("E104", f"the move '{intent}' of '{party_id}' is not of the form 'Trait + Treasure': "
                       f"{text!r}", f.value_pos(key_node, node), expected=form)
            continue
        chosen: dict[str, str | None] = {"trait": None, "treasure": None}
        for part, start in parts:
            where = f.sub_pos(node, start, len(part))
            kind = "trait" if part in traits else "treasure" if part in treasures else None
            if kind is None:
                ctx.report("E110", f"'{party_id}' has no trait or treasure '{part}'", where,
                           hint=did_you_mean(part, names),
                           expected=one_of(names) if names else "a trait or treasure listed for the party")
                ok = False
                continue
            if chosen[kind] is not None:
                ctx.report("E104", f"the move '{intent}' of '{party_id}' names two {kind}s "
                           f"('{chosen[kind]}' and '{part}')", where,
                           expected="at most one trait and one treasure (R2)")
                ok = False
            chosen[kind] = part
        if ok:
            out[intent] = Move(chosen["trait"], chosen["treasure"])
    return out


# ---------------------------------------------------------------------------
# Scenario

def read_scenario(f: YamlFile, ctx: Context) -> Scenario:
    root = f.root
    expected = "the keys 'title', 'cast' and 'script' (and 'setting')"
    if root is None or (isinstance(root, ScalarNode) and f.value(root) is None and not f.is_bad(root)):
        ctx.report("E105", "the scenario file is empty: it needs 'title', 'cast' and 'script'",
                   Position(f.path, 1, 1), expected=expected)
        raise Fatal
    if not isinstance(root, MappingNode):
        if not f.is_bad(root):
            ctx.report("E104", f"a scenario file must be a mapping of keys to values, not {describe(f, root)}",
                       f.pos(root), expected=expected)
        raise Fatal
    found = known_keys(f, root, ctx, SCENARIO, "the scenario")
    folder = os.path.dirname(f.path)
    hint = f"paths are relative to the scenario's folder ('{folder or '.'}')"

    def given(key: str) -> tuple[Node, Node] | None:
        return take(found, SCENARIO, key, ctx, "the scenario", f.pos(root))

    title: str | Bad = SCENARIO["title"].default
    if (pair := given("title")) is not None:
        title = expect_field(f, *pair, ctx, SCENARIO["title"])

    setting_node = None
    if (pair := given("setting")) is not None:
        path = expect_path(f, *pair, ctx, "'setting'", "a path to a setting YAML file")
        if not isinstance(path, Bad):
            setting_node = (path, pair)

    cast_paths: list[tuple[str, Position]] = []
    if (pair := given("cast")) is not None:
        cast_paths = _cast_paths(f, *pair, ctx, folder)

    script_spec = None
    if (pair := given("script")) is not None:
        script_spec = _script_spec(f, *pair, ctx)

    roles: dict[str, str | None] = {}
    role_positions: dict[str, Position] = {}
    if (pair := given("roles")) is not None:
        key_node, node = pair
        if isinstance(node, MappingNode):
            for role, role_key, value_node in f.items(node, ctx):
                if not party_id_ok(f, role, role_key, ctx):
                    continue
                value = f.value(value_node) if isinstance(value_node, ScalarNode) else BAD
                if not (isinstance(value, str) or (value is None and SCENARIO["roles"].items.empty_ok)):
                    ctx.report("E104", f"the role '{role}' must name a party id of the cast, or be empty "
                               "(bound with --role)", f.value_pos(role_key, value_node),
                               expected=f"{role}: PARTY")
                    continue
                roles[role] = value
                role_positions[role] = f.pos(role_key)
        elif not (SCENARIO["roles"].empty_ok and isinstance(node, ScalarNode) and f.value(node) is None):
            ctx.report("E104", f"'roles' must be a mapping of role names to party ids, not {describe(f, node)}",
                       f.value_pos(key_node, node), expected="roles: {hero: Kara, villain: Overlord}")

    setting = Settings()
    read = [f.path]
    if setting_node is not None:
        value, (key_node, node) = setting_node
        read.append(os.path.join(folder, value))
        try:
            sf = YamlFile.read(os.path.join(folder, value), ctx, what="setting file",
                            named_at=f.value_pos(key_node, node), hint=hint)
            setting = read_setting(sf, ctx)
        except Skip:
            pass

    files = []
    for path, named_at in cast_paths:
        read.append(path)
        try:
            files.append(YamlFile.read(path, ctx, what="cast file", named_at=named_at, hint=hint))
        except Skip:
            pass
    state: dict = {}
    cast = read_cast(files, ctx, state)

    script = ScriptSource(f.path, "", 0)
    if script_spec is not None:
        script = _script(f, script_spec, folder, ctx, hint)

    if script.file not in read:
        read.append(script.file)
    return Scenario(title=title if isinstance(title, str) else "", path=f.path, setting=setting,
                    cast=cast, script=script, files=tuple(read),
                    cast_files=tuple(path for path, _ in cast_paths), roles=roles,
                    role_positions=role_positions, state=state)



def _cast_paths(f: YamlFile, key: Node, node: Node, ctx: Context, folder: str) -> list[tuple[str, Position]]:
    expected = "a path to a cast YAML file, or a list of them"
    if f.is_bad(node):
        return []
    items: list[tuple[Node, Node]]
    if isinstance(node, SequenceNode):
        items = [(key, item) for item in node.value]
        if not items:
            ctx.report("E104", "'cast' names no file", f.value_pos(key, node), expected=expected)
    else:
        items = [(key, node)]
    out: list[tuple[str, Position]] = []
    seen: dict[str, Position] = {}
    for k, item in items:
        value = expect_path(f, k, item, ctx, "'cast'", expected)
        if isinstance(value, Bad):
            continue
        path = os.path.join(folder, value)
        where = f.value_pos(k, item)
        norm = os.path.normpath(path)
        if norm in seen:
            ctx.report("E104", f"the cast file '{value}' is listed twice", where,
                       notes=[f"first listed at {seen[norm]}"])
            continue
        seen[norm] = where
        out.append((path, where))
    return out


# An inline script or a path? `script:` names a `.drama` file when its value is
# one line, written plain or quoted (not as a `|` block), and ends in `.drama`.
# Anything else -- a `|` block, a value with a line break, or one not ending in
# `.drama` -- is the script's text itself. A folded block (`>`) is refused: it
# would join the script's lines, which are one statement each.
def _script_spec(f: YamlFile, key: Node, node: Node, ctx: Context):
    form = "a path to a .drama file, or the script inline as a block: `script: |`"
    if f.is_bad(node):
        return None
    value = f.value(node) if isinstance(node, ScalarNode) else None
    if not isinstance(value, str):
        ctx.report("E104", f"'script' must be a .drama file or the script's text, not {describe(f, node)}",
                   f.value_pos(key, node), expected=form)
        return None
    style = node.style
    if style == ">":
        ctx.report("E104", "an inline script must be a literal block (`|`), not a folded one (`>`)",
                   f.pos(node), expected=form, hint="a folded block joins the script's lines; write `script: |`")
        return None
    inline = style == "|" or "\n" in value or not value.strip().endswith(".drama")
    if inline and style != "|" and re.fullmatch(r"[\w./\\-]+\.\w+", value.strip()):
        ctx.report("E104", f"'script' names the file '{value.strip()}', but a script file must end in .drama",
                   f.value_pos(key, node), expected=form,
                   hint="rename the file to end in .drama, or write the script inline with `script: |`")
        return None
    return (inline, value, key, node)


def _script(f: YamlFile, spec, folder: str, ctx: Context, hint: str) -> ScriptSource:
    inline, value, key, node = spec
    if not inline:
        path = os.path.join(folder, value.strip())
        try:
            text = read_text(path, ctx, what="script file", named_at=f.value_pos(key, node), hint=hint,
                              yaml=False)
        except Skip:
            return ScriptSource(path, "", 0)
        return ScriptSource(path, text, 0)
    start = node.start_mark
    if node.style == "|":
        # the text begins on the line after the `|`: its line n is file line (start.line + 1) + n
        line_offset = start.line + 1
        column_offset = 0
        for n, text_line in enumerate(value.split("\n")):
            if text_line.strip():
                file_index = start.line + 1 + n
                if file_index < len(f.lines):
                    src = f.lines[file_index]
                    indent = (len(src) - len(src.lstrip(" "))) - (len(text_line) - len(text_line.lstrip(" ")))
                    column_offset = max(indent, 0)
                break
    else:
        # a plain or quoted value: its first line is on the key's line (or where it starts)
        line_offset = start.line
        column_offset = start.column + (1 if node.style in ('"', "'") else 0)
    return ScriptSource(f.path, value, line_offset, column_offset)
