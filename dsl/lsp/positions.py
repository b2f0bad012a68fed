"""Places in a document as the protocol counts them: lines split at LF, CRLF or CR, characters in UTF-16 units."""

from __future__ import annotations

import re

from lsprotocol import types as lsp

from ..errors import Position

__all__ = ["split_lines", "character", "column", "range_of", "whole", "word_at", "line_range"]

# LSP 3.17: "a line ends with \n, \r\n or \r" -- the same three that the parser reads (parse.normalise)
_LINE_END = re.compile(r"\r\n|\r|\n")
_WORD_CHARS = re.compile(r"[\w'-]")


def split_lines(text: str) -> list[str]:
    """The lines of a document, as the client numbers them."""
    return _LINE_END.split(text)


def character(line: str, column: int) -> int:
    """A 1-based code-point column as an LSP character (UTF-16 code units, 0-based)."""
    return len(line[: max(column - 1, 0)].encode("utf-16-le")) // 2


def column(line: str, character: int) -> int:
    """An LSP character (UTF-16 units) as a 0-based index into the line."""
    units = 0
    for index, char in enumerate(line):
        if units >= character:
            return index
        units += 2 if ord(char) > 0xFFFF else 1
    return len(line)


def _units(line: str) -> int:
    return len(line.encode("utf-16-le")) // 2


def word_at(line: str, index: int) -> tuple[str, int, int]:
    """The word of a line around a 0-based index (letters, digits, ', -): (word, start, end)."""
    start = index
    while start > 0 and _WORD_CHARS.match(line[start - 1]):
        start -= 1
    end = index
    while end < len(line) and _WORD_CHARS.match(line[end]):
        end += 1
    word = line[start:end]
    if word.endswith("-") or "->" in word:          # the arrow is no part of a word
        cut = word.find("->") if "->" in word else len(word) - 1
        word, end = word[:cut], start + cut
    return word, start, end


def line_range(lines: list[str], first: int, last: int | None = None) -> lsp.Range:
    """Lines `first`..`last` (0-based, inclusive) whole."""
    last = first if last is None else last
    last = min(max(last, 0), len(lines) - 1)
    return lsp.Range(lsp.Position(first, 0), lsp.Position(last, _units(lines[last])))


def whole(lines: list[str]) -> lsp.Range:
    """The whole document (for an edit that replaces it)."""
    return lsp.Range(lsp.Position(0, 0), lsp.Position(len(lines) - 1, _units(lines[-1])))


def range_of(position: Position | None, lines: list[str]) -> lsp.Range:
    """The range of an error's position: its caret, or the word at its column."""
    if position is None:
        return lsp.Range(lsp.Position(0, 0), lsp.Position(0, 0))
    index = max(position.line - 1, 0)
    line = lines[index] if index < len(lines) else ""
    start = character(line, position.column)
    if position.end_column:
        end = character(line, position.end_column)
    else:
        _word, _, stop = word_at(line, column(line, start))
        stop = character(line, stop + 1)
        end = stop if stop > start else _units(line)
    return lsp.Range(lsp.Position(index, start), lsp.Position(index, max(end, start)))
