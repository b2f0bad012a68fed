"""Includes: each `include "file.drama"` replaced by the statements of that file."""

from __future__ import annotations

import os

from .syntax import nodes as n
from .errors import Diagnostics, DramaError
from .inputs import check_path, read_text
from .limits import MAX_NESTING, MAX_SCRIPT, too_deep
from .source import SourceMap


def expand(script: n.Script, root: str, errors: Diagnostics | list | None = None,
           sources: SourceMap | None = None) -> n.Script:
    """Read in every `include` of `script`, recursively.

    Paths are relative to the including file, and may not lead out of `root`
    (the scenario's folder) nor back into a file that is being included (a
    cycle, shown with its chain). Each included file's chain of includes is
    noted in `sources`, so that its errors say where it was included from. A
    bad include is reported to `errors` (a collecting sink skips it).
    Blocks and includes one inside another count together towards MAX_NESTING
    (E010; a collecting sink skips what is deeper). A script with includes
    comes back with each statement's own positions, its repeated lines copied
    (`Script.statements`); one without shares them still.
    """
    if not any(type(s) is n.Include or s.is_block for s in script.shared):
        return script      # (its repeated lines still shared)
    reading = _Reading(root, Diagnostics.of(errors), sources if sources is not None else SourceMap())
    statements = reading.expand(script.statements, script.file, [(script.file, os.path.realpath(script.file))], [], 0)
    return n.Script(script.file, tuple(statements))


class _Reading:
    """One expansion: the scenario's folder, the sink, and the chains of includes."""

    def __init__(self, root: str, sink: Diagnostics, sources: SourceMap):
        self.root = os.path.realpath(root or ".")
        self.sink = sink
        self.sources = sources
        self.size = 0           # characters read from included files (each include counted)

    def expand(self, statements, file: str, stack: list[tuple[str, str]], chain: list[str],
               depth: int) -> list[n.Statement]:
        """The statements with their includes read in; `depth` is how many blocks
        and includes they are inside (the recursion is as deep, and bounded by MAX_NESTING)."""
        out: list[n.Statement] = []
        for statement in statements:
            include = type(statement) is n.Include
            if (include or statement.is_block) and depth >= MAX_NESTING:
                self.sink.report(too_deep("an include" if include else "a block", statement.pos))
                continue
            if statement.is_block:     # includes inside a block (any block) are read in place
                out.append(statement.with_bodies(tuple(self.expand(body, file, stack, chain, depth + 1))
                                                 for body in statement.bodies()))
                continue
            if not include:
                out.append(statement)
                continue
            try:
                out.extend(self.include(statement, file, stack, chain, depth))
            except DramaError as error:
                self.sink.report(error.at(statement.pos))
        return out

    def include(self, statement: n.Include, file: str, stack, chain, depth: int) -> list[n.Statement]:
        root = self.root
        check_path(statement.path, what="included file", position=statement.pos)
        path = os.path.normpath(os.path.join(os.path.dirname(file), statement.path))
        real = os.path.realpath(path)
        if os.path.commonpath([real, root]) != root:
            raise DramaError("E003", f"'{statement.path}' is outside the scenario's folder", position=statement.pos,
                             expected=f"a file inside the scenario's folder ({os.path.relpath(root)})",
                             hint="copy the shared scenes into the adventure's folder, or move the scenario up")
        if real in (seen for _, seen in stack):
            names = [shown for shown, _ in stack] + [path]
            raise DramaError("E003", f"'{statement.path}' includes itself: {' -> '.join(names)}",
                             position=statement.pos, expected="includes that do not lead back to a file being read")
        try:
            text = read_text(path, what="included file")
        except DramaError as error:
            if error.code == "E108":           # named as the script names it
                shown = f"the included file '{path}'"
                reason = ("no such file or directory" if error.message.startswith("cannot find") else
                          "it is a folder" if error.message.endswith("is a folder, not a file") else
                          error.message.partition(f"{shown}: ")[2] or error.message)
                error.message = f"cannot read the included file '{statement.path}': {reason}"
                error.hint = error.hint or "paths are relative to the file that includes them"
            raise error.at(statement.pos) from None
        self.size += len(text) + 1
        if self.size > MAX_SCRIPT:
            raise DramaError("E014", f"the included files come to more than the limit of {MAX_SCRIPT:,} "
                             "characters", position=statement.pos,
                             expected="fewer includes, or shorter included files",
                             notes=["each include counts, however often the same file is included"])
        here = chain + [f"{statement.pos.file}:{statement.pos.line}"]
        self.sources.included(path, here)
        from .syntax import parse
        script = parse(text, path, errors=self.sink)
        return self.expand(script.statements, path, stack + [(path, real)], here, depth + 1)
