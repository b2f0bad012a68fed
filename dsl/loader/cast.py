"""Reading cast files: each party's sheet (quintessence, traits, treasures, members, moves), its words for transcripts (short name, pronouns, clauses), and the cast's starting state."""

from __future__ import annotations

import re
from typing import Any

from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from ..engine.parties import Move, PartySheet
from ..errors import Position, did_you_mean, one_of
from .fields import (
    BAD, SHEET_NAME_FORBIDDEN, Bad, describe, expect_field, expect_int, expect_mapping, expect_str, known_keys,
    party_id_ok, take,
)
from .schemas import CAST, MOVE, PARTY, PRONOUNS
from .yamlnodes import Context, Skip, YamlFile


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
    from ..limits import MAX_COUNTER
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
    grammar = _grammar(f, found.get("grammar"), ctx, party_id)
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
        grammar=grammar,
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


def _grammar(f: YamlFile, pair: tuple[Node, Node] | None, ctx: Context, party_id: str
             ) -> str | dict[str, str] | None:
    """`feminine`, `masculine plural`, or a table of languages (`{fr: feminine, en:
    plural}`): the gender and number a name takes (E126)."""
    if pair is None:
        return None
    value = _words(f, *pair, ctx, f"the grammar of '{party_id}'")
    if isinstance(value, Bad):
        return None
    from ..render.grammar import GENDERS, NUMBERS, parse
    for lang, text in (value.items() if isinstance(value, dict) else [("", value)]):
        if parse(text) is None:
            where = f" in '{lang}'" if lang else ""
            ctx.report("E126", f"the grammar of '{party_id}'{where} cannot be read: {text!r}", f.value_pos(*pair),
                       expected="a gender and a number: " + ", ".join(
                           w for w in list(GENDERS) + list(NUMBERS) if len(w) > 2) + " (e.g. `feminine`, "
                           "`masculine plural`)",
                       hint=did_you_mean(str(text), ["feminine", "masculine", "plural", "singular"]))
            return None
    return value


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


