"""Parsing an edited script again: the statements of the lines an edit left alone are kept from an earlier parse (moved down or up as lines come and go), and only the statements the edit touched are read."""

# The language server parses the same file after every edit (each check, each
# semantic-token request). `parse.remember()` turns this memory on for the
# process; `parse()` then asks it first, with the lines of the new text.
#
# A parse is remembered when it was *clean*: Lark read every line (no E001,
# E002) and the builder met no error of its own (E005, E011); the errors of
# nesting (E004, E006, E010) may be there, each kept with its place. For a new
# text of the same file, against each remembered text:
#
# - the lines the two have in common at the start and at the end are found;
#   the lines between changed;
# - the top-level statements (after nesting: an `if` ... `end` is one) are
#   split in three: those before the first statement the change touches
#   (the statement of the line before the change included, as an added
#   indented line belongs to it), those after the last one it touches (the
#   one of the line after the change included), and the region in between;
# - the region's lines of the new text are parsed alone (the region begins and
#   ends where the nesting is back at the top level). When that parse is clean
#   and nests with no error, the script is the statements before, the new
#   region's, and those after, moved by the lines added or removed (their nodes
#   kept as they are when none was); the errors are the remembered ones before
#   and after the region (moved the same way), in their order. Otherwise the
#   whole text is parsed as it always is.
#
# That is exactly a fresh parse: a top-level statement's node depends on its
# own lines only (the grouped parse of parse.py rests on the same fact), the
# nesting is at the top level at each end of the region in both texts, and an
# error of nesting outside the region depends on the lines before it, or on
# the block it is in, which are unchanged. tests/test_reparse.py holds it to a
# fresh parse, node for node and error for error, over random edits of the
# bundled scripts.

from __future__ import annotations

import bisect
import itertools
from typing import Callable

from ..errors import DramaError
from . import nodes
from .occurrences import moved

__all__ = ["Memory", "copied"]

# Reads the regions (line indexes [low, high) of the new lines), each alone: for each, (its script,
# whether the read was clean, the errors of its lines in the order found, its errors of nesting).
Read = Callable[[list[str], str, int, list], "list[tuple[nodes.Script, bool, list[DramaError], list[DramaError]]]"]
# a region of more than this share of the lines is not worth reading apart: the whole text is read
_MOST = 0.5


def copied(error: DramaError, lines: int = 0) -> DramaError:
    """A copy of a remembered error, `lines` lines further down (a sink places what it is given: the
    memory keeps its own untouched)."""
    copy = type(error).__new__(type(error), *error.args)
    copy.__dict__.update(error.__dict__)
    copy.notes = list(error.notes)
    if lines:
        copy.position = moved(error.position, lines)
    return copy


class _Parsed:
    """A clean parse remembered: its lines, its script, its errors of nesting, where each top-level
    statement begins."""

    def __init__(self, lines: list[str], script: nodes.Script, errors: list[DramaError], offset: int):
        self.lines = lines
        self.script = script
        self.errors = [copied(e) for e in errors]
        self.nested = not script.shifts and any(s.is_block for s in script.shared)
        shifts = script.shifts or (0,) * len(script.shared)
        self.starts = [s.pos.line + k - offset - 1 for s, k in zip(script.shared, shifts)]


class Memory:
    """The last clean parses of each file (a few of them: the follow-on check parses a text with its
    typos fixed between two edits)."""

    def __init__(self, files: int = 64, each: int = 3) -> None:
        self.files = files
        self.each = each
        self._parses: dict[tuple[str, int], list[_Parsed]] = {}
        self.last: str | None = None          # (for the tests: "same", "region" or "fresh", how the last parse went)

    def keep(self, lines: list[str], file: str, offset: int, script: nodes.Script, errors: list[DramaError]) -> None:
        # (built first, then put in one step: a check that a newer edit stops, by an exception raised
        # anywhere in it, dsl/lsp/worker.py, must not leave the file with nothing remembered)
        key = (file, offset)
        parses = [_Parsed(lines, script, errors, offset), *self._parses.get(key, ())][:self.each]
        self._parses[key] = parses
        while len(self._parses) > self.files:
            del self._parses[next(iter(self._parses))]

    def parse(self, lines: list[str], file: str, offset: int, read: Read, most_errors: int) \
            -> tuple[nodes.Script, list[DramaError]] | None:
        """The script and errors of `lines` from a remembered parse and a parse of each region that
        changed (`read`), or None when the whole text is to be read. Syntax errors may be in one
        region only, fewer than `most_errors` (a fresh parse stops at that many, before the end)."""
        self.last = "fresh"
        best = None
        for old in self._parses.get((file, offset), ()):
            if old.lines == lines:
                self.last = "same"
                return old.script, [copied(e) for e in old.errors]
            regions = _regions(old, lines)
            size = sum(high - low + delta for low, high, delta in regions) if regions else None
            if size is not None and size <= _MOST * len(lines) and (best is None or size < best[0]):
                best = size, old, regions
        if best is None:
            return None
        _, old, regions = best
        parts = []
        found: list[DramaError] = []
        clean = True
        ranges = []
        moved_by = 0
        for low, high, delta in regions:
            ranges.append((low + moved_by, high + moved_by + delta))
            moved_by += delta
        # (a region that reaches the end of the file may have errors of nesting, a block with no `end`
        # among them: they come after every other, as in a fresh parse, which reports those last)
        last_nesting: list[DramaError] = []
        for k, (region, region_clean, errors, nesting) in enumerate(read(lines, file, offset, ranges)):
            if nesting and (k < len(regions) - 1 or regions[k][1] < len(old.lines)) or errors and found:
                return None
            clean = clean and region_clean
            found = found or errors
            last_nesting = nesting
            parts.append(region)
        if len(found) >= most_errors or any(e.position is None for e in found):
            return None
        joined = _joined(old, regions, parts, offset)
        if joined is None:
            return None
        script, errors = joined
        errors += last_nesting
        self.last = "region"
        if clean:
            self.keep(lines, file, offset, script, errors)
        # (the errors of the region's lines come first, as a fresh parse reports its syntax errors
        # before those of nesting; the region's own are new objects, reported as they are)
        return script, found + [copied(e) for e in errors]


def _changes(before: list[str], after: list[str]) -> list[tuple[int, int, int]]:
    """The lines that changed, as (first old line, end, lines added): the lines between those the two
    texts share at the start and at the end; when as many lines are there in both, each that differs."""
    most = min(len(before), len(after))
    first = 0
    while first < most and before[first] == after[first]:
        first += 1
    last = 0                                   # lines in common at the end
    while last < most - first and before[-1 - last] == after[-1 - last]:
        last += 1
    end, new_end = len(before) - last, len(after) - last
    if end - first != new_end - first:
        return [(first, end, new_end - end)]
    return [(k, k + 1, 0) for k in range(first, end) if before[k] != after[k]]


def _regions(old: _Parsed, lines: list[str]) -> list[tuple[int, int, int]] | None:
    """The old lines [low, high) of the top-level statements each change touches (the statement of
    the line before it and that of the line after it included), with the lines the change adds
    there; regions that overlap are merged. None when nothing is left out of them."""
    starts = old.starts
    if not starts:
        return None
    count = len(old.lines)
    regions: list[list[int]] = []
    for first, end, added in _changes(old.lines, lines):
        # the statement of the line before the change, and that of the line after it
        at = bisect.bisect_right(starts, max(first - 1, 0)) - 1
        low = starts[at] if at >= 0 else 0
        after = bisect.bisect_right(starts, min(end, count - 1))
        high = starts[after] if after < len(starts) else count
        if regions and low < regions[-1][1]:
            regions[-1][1] = max(regions[-1][1], high)
            regions[-1][2] += added
        else:
            regions.append([low, high, added])
    if not regions or regions[0][0] == 0 and regions[0][1] == count:
        return None
    return [tuple(region) for region in regions]


def _joined(old: _Parsed, regions: list[tuple[int, int, int]], parts: list[nodes.Script], offset: int) \
        -> tuple[nodes.Script, list[DramaError]] | None:
    """The remembered statements outside the regions (each moved by the lines added above it) around
    the regions' new ones; the remembered errors outside the regions, moved the same way. None when an
    error cannot be moved (one that names other lines, or has no place in the file)."""
    lows = [low for low, _, _ in regions]
    # the lines added above each region's end: what comes after region k moves by moves[k]
    moves = list(itertools.accumulate(delta for _, _, delta in regions))
    errors = []
    for error in old.errors:
        position = error.position
        if position is None or position.file != old.script.file:
            return None
        index = position.line - offset - 1
        k = bisect.bisect_right(lows, index) - 1
        if k < 0:
            errors.append(error)
        elif index >= regions[k][1]:
            if moves[k] and error.notes:
                return None                       # ("the first is at line N": the note would be wrong)
            errors.append(copied(error, moves[k]))
    script = old.script
    starts = old.starts
    # the old statements between the regions: [0, low 0), [high 0, low 1) ... [high last, end)
    cuts = [0]
    for low, high, _ in regions:
        cuts += [bisect.bisect_left(starts, low), bisect.bisect_left(starts, high)]
    cuts.append(len(starts))
    pieces = [(cuts[2 * k], cuts[2 * k + 1], moves[k - 1] if k else 0) for k in range(len(regions) + 1)]
    nested = old.nested or any(s.is_block for part in parts for s in part.shared)
    if not nested and (script.shifts or any(part.shifts for part in parts)):
        # the nodes stay shared by their occurrences: only the shifts change
        old_shifts = script.shifts or (0,) * len(script.shared)
        shared: tuple = ()
        shifts: tuple = ()
        for k, (begin, end, lines) in enumerate(pieces):
            shared += script.shared[begin:end]
            shifts += tuple(s + lines for s in old_shifts[begin:end])
            if k < len(parts):
                shared += parts[k].shared
                shifts += parts[k].shifts or (0,) * len(parts[k].shared)
        return nodes.Script(script.file, shared, shifts if any(shifts) else ()), errors
    statements = script.statements
    out: list = []
    for k, (begin, end, lines) in enumerate(pieces):
        out += statements[begin:end] if not lines else [moved(s, lines) for s in statements[begin:end]]
        if k < len(parts):
            out += parts[k].statements
    return nodes.Script(script.file, tuple(out)), errors
