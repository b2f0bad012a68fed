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
        self.texts: dict[str, str] = {}         # each included file read once, parsed once
        self.scripts: dict[str, n.Script] = {}
        self.sizes: dict[str, int] = {}         # each file's size with all it includes
        self.found: dict[str, list[DramaError]] = {}    # each file's syntax errors
        self.over = False       # the size limit was reported

    def parsed(self, path: str) -> n.Script:
        """An included file, read and parsed the first time it is included. Raises DramaError."""
        if path not in self.scripts:
            text = read_text(path, what="included file")
            from .syntax import parse
            found = Diagnostics()       # (reported when the file is read in, not when it is counted)
            self.texts[path] = text
            self.scripts[path] = parse(text, path, errors=found)
            self.found[path] = list(found)
        return self.scripts[path]

    def inside(self, path: str) -> bool:
        """Whether a path, its links followed, is inside the scenario's folder."""
        return os.path.commonpath([os.path.realpath(path), self.root]) == self.root

    def expanded_size(self, path: str, visiting: set[str]) -> int:
        """The characters of a file and of everything it includes, each include counted
        (memoised: linear in the files, whatever the shape of their includes). A file
        that cannot be read, or that leads back into itself, counts for its own size only."""
        if path in self.sizes:
            return self.sizes[path]
        try:
            script = self.parsed(path)
        except DramaError:
            return 0
        total = len(self.texts[path]) + 1
        visiting = visiting | {path}
        for include in _includes(script.shared):
            child = os.path.normpath(os.path.join(os.path.dirname(path), include.path))
            if child in visiting or "\x00" in child or not self.inside(child):
                continue
            total += self.expanded_size(child, visiting)
            if total > MAX_SCRIPT:
                break
        self.sizes[path] = total
        return total

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
                bodies = [tuple(self.expand(body, file, stack, chain, depth + 1)) for body in statement.bodies()]
                # (a block with nothing read in is kept as it is: the language server's checks
                # know a statement an edit left alone by its identity, dsl/syntax/reparse.py)
                same = all(len(new) == len(body) and all(a is b for a, b in zip(new, body))
                           for new, body in zip(bodies, statement.bodies()))
                out.append(statement if same else statement.with_bodies(iter(bodies)))
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
            script = self.parsed(path)
        except DramaError as error:
            if error.code == "E108":           # named as the script names it
                shown = f"the included file '{path}'"
                reason = ("no such file or directory" if error.message.startswith("cannot find") else
                          "it is a folder" if error.message.endswith("is a folder, not a file") else
                          error.message.partition(f"{shown}: ")[2] or error.message)
                error.message = f"cannot read the included file '{statement.path}': {reason}"
                error.hint = error.hint or "paths are relative to the file that includes them"
            raise error.at(statement.pos) from None
        # the size of the file with everything it includes, counted before any of it is
        # read in: includes shaped like a diamond (a file included twice, which includes
        # another twice, ...) would grow exponentially
        if self.size + self.expanded_size(path, set()) > MAX_SCRIPT:
            if self.over:           # (said once: the later includes are past it as well)
                return []
            self.over = True
            raise DramaError("E014", f"the included files come to more than the limit of {MAX_SCRIPT:,} "
                             "characters", position=statement.pos,
                             expected="fewer includes, or shorter included files",
                             notes=["each include counts, however often the same file is included"])
        self.size += len(self.texts[path]) + 1      # (its includes add theirs as they are read in)
        for error in self.found[path]:
            self.sink.report(error)
        here = chain + [f"{statement.pos.file}:{statement.pos.line}"]
        self.sources.included(path, here)
        return self.expand(script.statements, path, stack + [(path, real)], here, depth + 1)


def _includes(statements):
    """Every `include` of a file, inside blocks too."""
    todo = [statements]
    while todo:
        for s in todo.pop():
            if isinstance(s, n.Include):
                yield s
            elif isinstance(s, n.Loop):
                todo.append(s.body)
            elif isinstance(s, n.IfBlock):
                todo.extend(arm.body for arm in s.arms)
            elif isinstance(s, n.ChoiceBlock):
                todo.extend(option.body for option in s.options)
