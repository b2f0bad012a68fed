"""Sources: where a script's text stands in the user's files, so an error is placed once, when it is reported.

A script is parsed from a `ScriptSource`: a `.drama` file, or an inline
`script: |` block of the scenario YAML, whose lines start at an offset in that
file and whose columns are counted from the block's indentation. The parser
already gives file lines; `SourceMap.place` moves the columns of an error in
an inline block to the YAML file's columns, and gives an error in an included
file the chain of includes that brought it in as notes. The `Diagnostics`
sink calls it exactly once for every error it is given.
"""

from __future__ import annotations

from .errors import DramaError, Position


class SourceMap:
    """The main script's place in its file, and the chain of each included file."""

    def __init__(self, file: str = "", line_offset: int = 0, column_offset: int = 0, lines: int = 0):
        self.file = file
        self.line_offset = line_offset
        self.column_offset = column_offset
        self.lines = lines
        self.chains: dict[str, list[str]] = {}      # an included file -> "file:line" of each include

    @classmethod
    def of(cls, source) -> "SourceMap":
        """The map of a `loader.ScriptSource`."""
        return cls(source.file, source.line_offset, source.column_offset, source.text.count("\n") + 1)

    def included(self, path: str, chain: list[str]) -> None:
        """Note the chain of includes that first brought `path` in."""
        self.chains.setdefault(path, chain)

    def place(self, error: DramaError) -> DramaError:
        """Move an error's columns into the file, and note its includes."""
        position = error.position
        if position is None:
            return error
        if (self.column_offset and position.file == self.file
                and self.line_offset < position.line <= self.line_offset + self.lines):
            end = position.end_column + self.column_offset if position.end_column else None
            error.position = Position(position.file, position.line, position.column + self.column_offset, end)
        chain = self.chains.get(position.file)
        if chain:
            error.notes.extend(f"included from {where}" for where in reversed(chain))
        return error
