"""Parsing a script: the text read by Lark (each distinct statement once, its node shared by its repeats), errors, blocks."""

from __future__ import annotations

import re
from typing import Sequence

from ..errors import Diagnostics, DramaError, Position
from ..limits import MAX_LINE, MAX_SCRIPT
from ..collector import paused_collector
from . import nodes
from .blocks import nest
from .reparse import Memory, copied

# (the parser's side, Lark's generated module with the builder and the syntax errors, is
# imported when a text is read: a start whose script was kept never loads it, kept.py)

__all__ = ["parse", "MAX_ERRORS", "normalise", "Reading", "remember"]

# how many syntax errors one pass collects (parse(..., errors=[])) before it stops
MAX_ERRORS = 100

# a line that the grammar skips: only spaces, tabs and a comment
_BLANK = re.compile(r"[ \t]*(?:#.*)?\Z")


def _is_top_level(line: str) -> bool:
    """A line that starts a statement: not blank, not indented, not a comment."""
    return bool(line) and line[0] not in " \t#"


def normalise(text: str) -> str:
    """The text with a BOM dropped and CRLF and CR turned into LF."""
    if text.startswith("\ufeff"):
        text = text[1:]
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text


def parse(text: str, file: str, line_offset: int = 0,
          errors: Diagnostics | list[DramaError] | None = None, *, keep: bool = False) -> nodes.Script:
    """Parse a script into a `nodes.Script`.

    `line_offset` is added to every line number (for a script inlined in a YAML
    file). A syntax error raises a DramaError (E001, or E002 for a line in the
    wrong place), unless `errors` collects (a list, or a collecting
    `Diagnostics`): then each bad line's error is reported to it, the line
    (with a joint action's indented lines) is skipped, and parsing goes on, up
    to MAX_ERRORS errors; the Script holds the statements that could be read.

    A statement written several times (play logs repeat many lines) is read
    once: its occurrences share its node, each with its shift (see
    `nodes.Script` and `occurrences.py`).

    With `keep` (a scenario's script, read at every start), a clean parse is kept
    in the user's cache folder for the next process, which reads it back instead
    of parsing the same text again (kept.py).
    """
    if not isinstance(text, str):
        raise TypeError("parse() needs the script as a str")
    sink = Diagnostics.of(errors)
    text = normalise(text)
    source_lines = text.split("\n")
    if len(text) > MAX_SCRIPT or (len(text) > MAX_LINE and max(map(len, source_lines)) > MAX_LINE):
        source_lines = _within_limits(source_lines, file, line_offset, sink)
    elif _memory is not None and sink.collecting and sink.limit is None:
        found = _memory.parse(source_lines, file, line_offset, _read_regions, MAX_ERRORS)
        if found is not None:
            script, found_errors = found
            for error in found_errors:
                sink.report(error)
            return script
        script, clean, nesting = _read(source_lines, file, line_offset, sink, Diagnostics())
        if clean:
            _memory.keep(source_lines, file, line_offset, script, nesting)
        for error in nesting:
            sink.report(copied(error) if clean else error)
        return script
    if keep and not sink.errors and (sink.limit is None or sink.limit > 0):
        from .kept import parsed

        def read() -> tuple[nodes.Script, bool]:
            script = _read(source_lines, file, line_offset, sink, sink)[0]
            return script, not sink.errors          # (it started empty: nothing reported is clean)
        return parsed(text, file, line_offset, read)
    return _read(source_lines, file, line_offset, sink, sink)[0]


# the parses this process remembers, to read an edited text again from (None: it remembers none)
_memory: Memory | None = None


def remember(on: bool = True) -> None:
    """Remember the last parses of each file, so that parsing an edited text reads only the statements
    the edit touched (the language server's processes, dsl/syntax/reparse.py); `remember(False)` forgets."""
    global _memory
    _memory = Memory() if on else None


def memory() -> Memory | None:
    """The parses remembered (None when off): for the tests and the benchmark."""
    return _memory


def _read(source_lines: list[str], file: str, line_offset: int, sink: Diagnostics,
          nesting: Diagnostics) -> tuple[nodes.Script, bool, list[DramaError]]:
    """The lines read by Lark and nested: (the script, whether the read was clean: Lark read every
    line and the builder met no error, the errors of nesting reported to `nesting`)."""
    # the parse makes many small objects and no cycles (dsl/collector.py)
    with paused_collector():
        reading = Reading(file, line_offset, source_lines)
        clean = True
        try:
            script = reading.grouped()
        except DramaError as error:
            if not sink.collecting:
                sink.report(error)          # placed in its file, and raised
            clean = False
            reading = Reading(file, line_offset, source_lines)
            script = reading.plain(sink)
        builder = reading.builder
        for error in builder.soft:
            clean = False
            sink.report(error)
        # (nesting gives back a script without `if`, `repeat` and `choose` as it was, but a
        # collecting sink has it report an `option` outside a `choose`)
        found = len(nesting.errors)
        if builder.control or sink.collecting and any(type(s) is nodes.OptionLine for s in script.shared):
            script = nodes.Script(file, nest(script.statements, nesting))
        return script, clean, nesting.errors[found:] if nesting is not sink else []


def _read_regions(lines: list[str], file: str, line_offset: int, ranges: list[tuple[int, int]]) \
        -> list[tuple[nodes.Script, bool, list[DramaError], list[DramaError]]]:
    """The regions of an edited text (line indexes [low, high) of `lines`) read alone (reparse.py),
    for each: (its script, whether the read was clean, the errors of its lines in the order found,
    its errors of nesting). Their distinct statements are read in one pass; when that pass meets an
    error, each region is read again on its own, to say which."""
    with paused_collector():
        reading = Reading(file, line_offset, lines)
        try:
            script = reading.grouped(ranges)
        except DramaError:
            script = None
        builder = reading.builder
        if script is None or builder.soft:
            return [_read_region(lines[low:high], file, line_offset + low) for low, high in ranges]
        out = []
        occurrences = list(script.occurrences())
        at = 0
        for low, high in ranges:
            shared, shifts = [], []
            while at < len(occurrences) and occurrences[at][0].pos.line + occurrences[at][1] - line_offset - 1 < high:
                shared.append(occurrences[at][0])
                shifts.append(occurrences[at][1])
                at += 1
            part = nodes.Script(file, tuple(shared), tuple(shifts) if any(shifts) else ())
            nesting = Diagnostics()
            if builder.control or any(type(s) is nodes.OptionLine for s in part.shared):
                part = nodes.Script(file, nest(part.statements, nesting))
            out.append((part, True, [], nesting.errors))
        return out


def _read_region(lines: list[str], file: str, line_offset: int) \
        -> tuple[nodes.Script, bool, list[DramaError], list[DramaError]]:
    """A region read alone (see `_read_regions`)."""
    found: list[DramaError] = []
    script, clean, nesting = _read(lines, file, line_offset, Diagnostics(into=found), Diagnostics())
    return script, clean, found, nesting


class Reading:
    """One parse of the lines of a file: its tree builder, and Lark reading with it."""

    def __init__(self, file: str, offset: int, source_lines: list[str]) -> None:
        self.file = file
        self.offset = offset
        self.source_lines = source_lines
        from .builder import Builder
        from .grammar import reader
        self.builder = Builder(file, offset, source_lines)
        self._lark_parse = reader(self.builder)

    def read(self, text: str, line_map: Sequence[int]) -> None:
        """Run Lark on `text` (a script with an empty line put in front); the statements
        go to the builder's `out`. `line_map[k]` is the line in the file of Lark's line k."""
        from .grammar import LarkError, UnexpectedInput
        from .syntax_errors import fallback_error, syntax_error
        builder = self.builder
        builder.line_map = line_map
        builder.lines = text.split("\n")
        try:
            self._lark_parse(text)
        except UnexpectedInput as e:
            try:
                error = syntax_error(e, builder.lines, line_map, self.file)
            except Exception:  # pragma: no cover - a bug in the error reporting itself
                error = fallback_error(e, line_map, self.file)
            raise error from None
        except LarkError as e:  # pragma: no cover - Lark has no other error for an input
            raise fallback_error(e, line_map, self.file) from None

    def plain(self, errors: Diagnostics) -> nodes.Script:
        """Parse every line as it is, recovering from errors when `errors` collects
        (up to MAX_ERRORS of them, or fewer when the sink is full before)."""
        source_lines, file, line_offset = self.source_lines, self.file, self.offset
        self.builder.out = statements = []
        start = 0
        found = 0
        while True:
            text = "\n" + "\n".join(source_lines[start:]) + "\n"
            # Lark's line 1 is the "\n" put in front; its line k is the file's line start + k - 1
            shift = start - 1 + line_offset
            try:
                self.read(text, range(shift, shift + text.count("\n") + 2))
                break
            except DramaError as error:
                errors.report(error)
                found += 1
                if found >= MAX_ERRORS or errors.full or error.position is None:
                    break
                start = _skip(source_lines, start, error, line_offset)
                if start is None:
                    break
                # the statements from `start` on are read again
                while statements and statements[-1].pos.line - line_offset - 1 >= start:
                    statements.pop()
        return nodes.Script(file, tuple(statements))

    def grouped(self, ranges: Sequence[tuple[int, int]] | None = None) -> nodes.Script:
        """Parse each distinct statement once: the fast way for long, repetitive play logs.

        A statement is its first line and the indented lines below it; its syntax
        tree depends on nothing else, so a statement written again later (the same
        text) is not read again: the occurrence shares its node, with a shift of
        as many lines as it is below the first (`nodes.Script`).
        The first error raised is the first of the file, as it is in the first
        statement with that text. `ranges` (line indexes [low, high), in order) reads
        only the statements of those lines, in one pass (the regions an edit changed,
        reparse.py).
        """
        source_lines, file, line_offset = self.source_lines, self.file, self.offset
        # the statements, as (first, end) line indexes, without trailing blank/comment lines
        groups = []
        blank = _BLANK.match
        for low, high in ranges if ranges is not None else ((0, len(source_lines)),):
            first = None
            last_content = -1
            for index in range(low, high):
                line = source_lines[index]
                if line and line[0] not in " \t#":  # the first line of a statement
                    if first is not None:
                        groups.append((first, last_content + 1))
                    first = last_content = index
                elif line and blank(line) is None:  # an indented line
                    if first is None:
                        first = index  # before any statement: an error
                    last_content = index
            if first is not None:
                groups.append((first, last_content + 1))

        known: dict[str, int] = {}
        unique: list[int] = []           # the first line index of each distinct statement
        placed: list[tuple[int, int]] = []  # (distinct statement, first line index) in file order
        parts: list[str] = []
        # Lark reads "\n" + the distinct statements + "\n": its line 1 is the "\n" in front
        line_map = [line_offset, line_offset]
        for first, end in groups:
            key = source_lines[first] if end == first + 1 else "\n".join(source_lines[first:end])
            number = known.get(key)
            if number is None:
                number = known[key] = len(unique)
                unique.append(first)
                parts.append(key)
                line_map.extend(range(first + 1 + line_offset, end + 1 + line_offset))
            placed.append((number, first))
        line_map.append(line_map[-1] + 1)

        self.builder.out = read = []
        self.read("\n" + "\n".join(parts) + "\n", line_map)
        if len(read) != len(unique):  # pragma: no cover - each group is one statement
            if ranges is not None:
                raise DramaError("E001", "a statement read as two", position=None)
            return self.plain(Diagnostics.of(None))
        statements = tuple([read[number] for number, _ in placed])
        shifts = tuple([first - unique[number] for number, first in placed])
        return nodes.Script(file, statements, shifts if any(shifts) else ())


def _within_limits(lines: list[str], file: str, line_offset: int, sink: Diagnostics) -> list[str]:
    """E013 for each line over MAX_LINE characters (a collecting sink reads it
    as blank), E014 for a script over MAX_SCRIPT (read up to the line that
    crosses it)."""
    kept: list[str] = []
    size = 0
    for index, line in enumerate(lines):
        size += len(line) + 1
        number = index + 1 + line_offset
        if size > MAX_SCRIPT + 1:
            sink.report(DramaError("E014", f"the script is longer than the limit of {MAX_SCRIPT:,} characters",
                                   position=Position(file, number, 1, 2),
                                   expected="a shorter script: split it into files read with `include`"))
            break
        if len(line) > MAX_LINE:
            sink.report(DramaError("E013", f"this line has {len(line):,} characters, more than the limit of "
                                   f"{MAX_LINE:,}", position=Position(file, number, MAX_LINE + 1, MAX_LINE + 2),
                                   expected=f"lines of at most {MAX_LINE:,} characters"))
            line = ""
        kept.append(line)
    return kept


def _skip(lines: list[str], start: int, error: DramaError, line_offset: int) -> int | None:
    """Blank out the lines of a bad statement; the index to parse from next, or None.

    An indented line in the wrong place: its indented block is blanked and the
    statement above it is read again. Any other error: the statement's lines (its
    first line and the indented lines below it) are blanked.
    """
    from .syntax_errors import FLUSH_LEFT, INDENTED_LINE
    bad = error.position.line - line_offset - 1
    if not start <= bad < len(lines):
        return None
    head = bad
    while head > start and not _is_top_level(lines[head]):
        head -= 1
    if error.message == INDENTED_LINE and (error.hint or "").startswith(FLUSH_LEFT):
        # the lines of a block written indented, as in other languages: one error, and the
        # lines are read on as if flush left, so the block keeps its body (no false W003)
        i = bad
        while i < len(lines) and lines[i] and not _is_top_level(lines[i]):
            lines[i] = lines[i].lstrip(" \t")
            i += 1
        return head
    first = bad if error.message == INDENTED_LINE else head
    changed = False
    i = first
    while i < len(lines) and (i == first or not _is_top_level(lines[i])):
        if lines[i]:
            lines[i] = _STAND_IN.get(lines[i].split(" ", 1)[0], "") if i == first else ""
            changed = True
        i += 1
    return head if changed else None


# a bad line that opens or continues a block is read again as a line that does the
# same, so that its `end` is not reported as well
_STAND_IN = {"if": "if in drama", "else": "else if in drama", "repeat": "repeat 1 times", "choose": "choose \"?\"",
             "option": "option \"?\""}
