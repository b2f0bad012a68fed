"""The canonical layout of a script (`drama fmt`): each statement written back by the record's printer, comments and blank lines kept."""

# How a script is laid out
# ------------------------
# Every statement is written as `drama run --record` writes it (the quoting of
# dsl/syntax/printer.py: a name bare when it reads back as the same name,
# quoted otherwise; `, GM +N` before the dice; qualifiers before extra
# targets), on a line of its own starting in column 1, a joint action's or
# defence's participants indented by two spaces. What the printer cannot know
# is kept as written: the condition of an `if`, `else if` or `repeat until`
# (its text is in the event log), and `defend` or `defends`. Around the
# statements:
#
# - a comment on its own line is kept, at column 1 (two spaces in among a
#   joint statement's participants); a comment after a statement is kept after
#   it, two spaces away;
# - blank lines are kept, a run of them as one; none at the start or the end;
# - spaces at the end of a line go, tabs of indentation become spaces; the
#   text ends with one newline, and line ends are LF.
#
# It is safe by construction: each statement written back is read again and
# must give the same statement (positions aside), else it keeps its text as
# written; then the whole result must read as the same script with the same
# comments, else `layout` raises a DramaError (E511) and nothing is written.

from __future__ import annotations

import dataclasses
import re

from ..errors import Diagnostics, DramaError, Position
from . import nodes
from .parse import Reading, normalise, parse
from .printer import actor_text, intent_text, name_text, phrase_text, quoted

__all__ = ["layout", "statement_lines", "comment_of"]

# the part of a line before its comment: quoted text may hold a '#' (the
# grammar's NARRATION and TEXT terminals read a line the same way)
_BEFORE_COMMENT = re.compile(r'(?:"(?:[^"\\\n]|\\.)*"|[^\n#])*')
# the verb of a defence as written, after its party or parties
_DEFENCE_VERB = re.compile(r'^\s*(?:"(?:[^"\\\n]|\\.)*"|[^\s"&]+)(?:\s*&\s*(?:"(?:[^"\\\n]|\\.)*"|[^\s"&]+))*'
                           r'\s+(defends?)(?![\w\'])')


def _code(line: str) -> str:
    """A line of a script without its comment."""
    return line[:_BEFORE_COMMENT.match(line).end()].rstrip()


def comment_of(line: str) -> str | None:
    """The comment at the end of a line of a script (from its '#'), or None."""
    rest = line[_BEFORE_COMMENT.match(line).end():]
    return rest.rstrip() if rest.startswith("#") else None


# ------------------------------------------------------------------ one statement

def _number(value: int) -> str:
    return str(value)


def _signed(value: int) -> str:
    return ("-" if value < 0 else "+") + str(abs(value))


def _uses(uses: nodes.Uses) -> str:
    return " with " + " + ".join(name_text(name.text) for name in uses.names) if uses.names else ""


def _dice(dice: nodes.Dice, given: str = "rolled") -> str:
    """`rolled 6 4` (`rerolled 5`), `roll`, `roll 2`, or nothing."""
    if dice.kind == "given":
        text = f"{given} {' '.join(map(str, dice.faces))}".strip()
        if dice.rerolled is not None:
            text += " rerolled " + " ".join(map(str, dice.rerolled))
        return text
    if dice.kind == "roll":
        return "roll" if dice.count is None else f"roll {dice.count}"
    return ""


def _tail(gm: int, dice: nodes.Dice) -> str:
    out = f", GM {_signed(gm)}" if gm else ""
    return out + (", " + _dice(dice) if dice.kind != "none" else "")


def _participants(participants: tuple[nodes.Participant, ...]) -> list[str]:
    return ["  " + actor_text(p.party.text, line_start=False) + _uses(p.uses) + _tail(p.gm, p.dice)
            for p in participants]


def _parties(names: tuple[nodes.Name, ...]) -> str:
    return " & ".join(actor_text(name.text, line_start=(i == 0)) for i, name in enumerate(names))


def _action(s: nodes.Action) -> list[str]:
    # a quoted intent stays quoted: it is the writer's verb phrase (the transcript reads it so)
    head = _parties(s.actors) + " " + (quoted(s.intent) if s.intent_quoted else intent_text(s.intent))
    if s.target is not None:
        head += " -> " + name_text(s.target.text)
    else:
        head += " vs " + ("-" if s.gm_target < 0 else "") + str(abs(s.gm_target))
    for qualifier in s.qualifiers:
        head += (" but not " if qualifier.kind == "not" else " so that ") + phrase_text(qualifier.text)
    for extra in s.extra_targets:
        head += " +" + name_text(extra.text)
    return [head + _uses(s.uses) + _tail(s.gm, s.dice)] + _participants(s.participants)


def _defence(s: nodes.Defence, source: str) -> list[str]:
    match = _DEFENCE_VERB.match(source)
    verb = match[1] if match else ("defend" if s.participants or len(s.parties) > 1 else "defends")
    return [_parties(s.parties) + " " + verb + _uses(s.uses) + _tail(s.gm, s.dice)] + _participants(s.participants)


def _recover(s: nodes.Recover) -> str:
    out = actor_text(s.party.text) + " recovers" + _uses(s.uses)
    for helper in s.helpers:
        out += ", helped by " + name_text(helper.party.text) + _uses(helper.uses)
    if s.first.kind != "none":
        out += ", " + _dice(s.first)
    if s.second.kind != "none":
        out += ", then " + _dice(s.second, given="")
    return out


def _initiative(s: nodes.Initiative) -> str:
    entries = [name_text(e.party.text) + _uses(e.uses) + "".join(f" {n}" for n in e.results) for e in s.entries]
    return "initiative " + ", ".join(entries) if entries else "initiative"


def _repeat(s: nodes.Repeat) -> str:
    if s.condition is None:
        return f"repeat {s.bound} {s.unit}"
    return f"repeat until {s.text}, at most {s.bound} {s.unit}"


def _narration(text: str) -> str:
    return f"> {text}" if text else ">"


def statement_lines(s: nodes.Statement, source: str = "") -> list[str]:
    """A statement (one line of the script, not a nested block) in the canonical
    layout: its line, and its participants' lines. `source` is its first line as
    written (for what a node does not keep). Raises ValueError when it cannot be
    written (a type of statement this printer does not know)."""
    kind = type(s)
    if kind is nodes.Action:
        return _action(s)
    if kind is nodes.Defence:
        return _defence(s, source)
    simple = _SIMPLE.get(kind)
    if simple is None:
        raise ValueError(f"no layout for a {kind.__name__}")
    return [simple(s)]


_SIMPLE = {
    nodes.Scene: lambda s: "scene " + quoted(s.title),
    nodes.Narration: lambda s: _narration(s.text),
    nodes.DramaBegin: lambda s: f"drama {quoted(s.name)} with " + ", ".join(name_text(p.text) for p in s.parties),
    nodes.Initiative: _initiative,
    nodes.Round: lambda s: "round",
    nodes.Hold: lambda s: actor_text(s.party.text) + " holds",
    nodes.Tie: lambda s: "tie " + (name_text(s.winner.text, tie=True) if s.winner is not None else "GM"),
    nodes.Split: lambda s: "split " + ", ".join(f"{name_text(name.text)} {n}" for name, n in s.shares),
    nodes.Dictate: lambda s: actor_text(s.party.text) + " dictates " + quoted(s.text),
    nodes.Reroll: lambda s: actor_text(s.party.text) + " rerolls" + (", " + _dice(s.dice) if s.dice.kind != "none"
                                                                     else ""),
    nodes.Recover: _recover,
    nodes.EndDrama: lambda s: "end drama" + ("" if s.text is None else " " + quoted(s.text)),
    nodes.Calm: lambda s: f"calm {s.duration}",
    nodes.Rest: lambda s: f"rest {s.duration}",
    nodes.Include: lambda s: "include " + quoted(s.path),
    nodes.If: lambda s: "if " + s.text,
    nodes.ElseIf: lambda s: "else if " + s.text,
    nodes.Else: lambda s: "else",
    nodes.End: lambda s: "end",
    nodes.Repeat: _repeat,
}


# ------------------------------------------------------------------ comparing statements

def _shape(value):
    """A node without its positions (and the columns where texts start), to compare two readings."""
    if isinstance(value, Position):
        return None
    if isinstance(value, tuple):
        return tuple(_shape(item) for item in value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return (type(value).__name__,) + tuple(
            _shape(getattr(value, f.name)) for f in dataclasses.fields(value) if f.name not in ("pos", "column"))
    return value


def _lines_read(lines: list[str], file: str) -> list[nodes.Statement] | None:
    """The statements of these lines, one line each (no blocks nested), or None when they do not read."""
    try:
        return list(Reading(file, 0, lines).plain(Diagnostics.of(None)).statements)
    except DramaError:
        return None


# ------------------------------------------------------------------ a whole script

def layout(text: str, file: str = "<script>") -> str:
    """The script's text in the canonical layout.

    Raises the script's first DramaError when it does not parse (E0xx), and
    E511 if the result would not read as the same script, with the same
    comments (a bug of the layout: nothing should be written then)."""
    parse(text, file)                                   # refuses a script that does not read
    lines = normalise(text).split("\n")
    statements = _lines_read(lines, file) or []
    heads = {s.pos.line - 1: s for s in statements}     # line index -> the statement that starts there
    member_of: dict[int, int] = {}                      # a participant's line index -> its statement's
    for index, s in heads.items():
        for p in getattr(s, "participants", ()):
            member_of[p.pos.line - 1] = index

    printed: dict[int, list[str]] = {}
    inside: set[int] = set()                           # the line indexes within a joint statement
    for index, s in heads.items():
        participants = getattr(s, "participants", ())
        if participants:
            inside.update(range(index + 1, participants[-1].pos.line - 1))
        try:
            candidate = statement_lines(s, lines[index])
            again = _lines_read(candidate, file)
            good = again is not None and len(again) == 1 and _shape(again[0]) == _shape(s)
        except ValueError:
            good = False
        if not good:   # kept as written, spaces tidied
            candidate = [_code(lines[index]).strip()] + ["  " + _code(lines[p.pos.line - 1]).strip()
                                                         for p in participants]
        printed[index] = candidate

    out: list[str] = []
    blank = False
    for index, line in enumerate(lines):
        comment = comment_of(line)
        if index in heads:
            code = printed[index][0]
        elif index in member_of:
            owner = member_of[index]
            position = [p.pos.line - 1 for p in heads[owner].participants].index(index)
            code = printed[owner][1 + position]
        elif not line.strip():
            blank = bool(out)
            continue
        else:   # a comment line: every other line belongs to a statement, as the script parsed
            code, comment = ("  " if index in inside and line[:1] in " \t" else ""), line.strip()
        if blank:
            out.append("")
            blank = False
        out.append(code + ("  " if code.strip() and comment else "") + (comment or ""))
    result = "\n".join(out) + "\n" if out else ""
    _same_script(text, result, file)
    return result


def _same_script(before: str, after: str, file: str) -> None:
    """E511 unless `after` reads as the same statements as `before`, with the same comments."""
    def reading(text: str):
        script = parse(text, file)
        comments = [c for c in map(comment_of, normalise(text).split("\n")) if c]
        return _shape(script.statements), comments
    try:
        same = reading(before) == reading(after)
    except DramaError:
        same = False
    if not same:
        raise DramaError("E511", "the script cannot be laid out without changing what it says",
                         position=Position(file, 1, 1),
                         hint="the file was left as it is; please report this script as a bug of `drama fmt`")
