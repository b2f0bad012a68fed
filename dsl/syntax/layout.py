"""The canonical layout of a script (`drama fmt`): each statement written back by the statement writer, comments and blank lines kept."""

# How a script is laid out
# ------------------------
# Every statement is written as `drama run --record` writes it (by
# dsl/syntax/writer.py, which both use: a name bare when it reads back as the same name,
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
from .writer import statement_lines

__all__ = ["layout", "comment_of"]

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

def _lines(s: nodes.Statement, source: str) -> list[str]:
    """The statement's lines as the writer writes them; `source` is its first line as
    written, for what a node does not keep (a defence's `defend` or `defends`)."""
    verb = None
    if type(s) is nodes.Defence:
        match = _DEFENCE_VERB.match(source)
        verb = match[1] if match else None
    return statement_lines(s, verb=verb)


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
            candidate = _lines(s, lines[index])
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
