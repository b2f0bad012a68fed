"""What `drama lsp` knows of a document, without the protocol: its diagnostics (`drama check`'s), its cast, the words at a place, its outline."""

# Every answer reads the editor's unsaved buffers through `inputs.overlay`, so
# it is what `drama check` would say if the files were saved. A script is
# checked through the scenarios that read it: the YAML files with a `script:`
# key in its folder and the two folders above, each checked with
# `pipeline.check` while the reads are tracked (`inputs.tracking`); those that
# read the document are its scenarios. A script no scenario reads is only
# parsed.

from __future__ import annotations

import dataclasses
import os
import re
from pathlib import Path

from .. import inputs
from ..errors import DramaError, Diagnostics, Position
from ..syntax import nodes

__all__ = ["Workspace", "Symbol", "word_at", "ERRORS_DOC"]

# where the errors are documented, for the links of diagnostics and hovers
ERRORS_DOC = "docs/errors.md"
_INCLUDED_FROM = re.compile(r"^included from (?P<file>.+):(?P<line>\d+)(?::(?P<column>\d+))?$")
_SCENARIO_KEY = re.compile(r"^script:", re.MULTILINE)
_WORD_CHARS = re.compile(r"[\w'-]")


def word_at(line: str, column: int) -> tuple[str, int, int]:
    """The word of a line around a 0-based column (letters, digits, ', -): (word, start, end)."""
    start = column
    while start > 0 and _WORD_CHARS.match(line[start - 1]):
        start -= 1
    end = column
    while end < len(line) and _WORD_CHARS.match(line[end]):
        end += 1
    word = line[start:end]
    if word.endswith("-") or "->" in word:          # the arrow is no part of a word
        cut = word.find("->") if "->" in word else len(word) - 1
        word, end = word[:cut], start + cut
    return word, start, end


@dataclasses.dataclass(frozen=True)
class Symbol:
    """An outline entry: a scene or a dramatic situation, with the lines it spans (1-based)."""

    name: str
    kind: str                      # "scene" | "drama"
    line: int
    end_line: int
    children: tuple["Symbol", ...] = ()


class Workspace:
    """The open documents (path -> text) and what is known of the files around them."""

    def __init__(self) -> None:
        self.texts: dict[str, str] = {}
        self._memo: dict[tuple, object] = {}      # answers for the buffers as they are (cleared on a change)

    def open(self, path: str, text: str) -> None:
        self.texts[os.path.realpath(path)] = text
        self._memo.clear()

    def close(self, path: str) -> None:
        self.texts.pop(os.path.realpath(path), None)
        self._memo.clear()

    def changed(self) -> None:
        """A file may have changed on disk (saved, or edited elsewhere): forget the answers."""
        self._memo.clear()

    def text(self, path: str) -> str:
        real = os.path.realpath(path)
        if real in self.texts:
            return self.texts[real]
        try:
            return inputs.read_text(path, what="file")
        except DramaError:
            return ""

    # ------------------------------------------------------------------ scenarios

    def _candidates(self, path: str) -> list[str]:
        folder = Path(path).resolve().parent
        found = []
        for up in (folder, folder.parent, folder.parent.parent):
            for yaml in sorted(up.glob("*.yaml")):
                if yaml.name.endswith(".schema.json"):
                    continue
                if _SCENARIO_KEY.search(self.text(str(yaml))):
                    found.append(str(yaml))
        return found

    def _check(self, scenario: str) -> tuple[list[DramaError], set[str]]:
        """`drama check` of a scenario over the buffers: its errors, and every file it read."""
        from ..pipeline import check
        with inputs.overlay(self.texts), inputs.tracking() as reads:
            errors = check(scenario)
        return errors, reads

    def _checks(self, path: str) -> dict[str, list[DramaError]]:
        """The scenarios that read `path` (itself, for a scenario), each with its errors."""
        key = ("checks", os.path.realpath(path))
        if key not in self._memo:
            self._memo[key] = self._checks_now(path)
        return self._memo[key]

    def _checks_now(self, path: str) -> dict[str, list[DramaError]]:
        real = os.path.realpath(path)
        if path.endswith((".yaml", ".yml")) and _SCENARIO_KEY.search(self.text(path)):
            return {path: self._check(path)[0]}
        out = {}
        for candidate in self._candidates(path):
            errors, reads = self._check(candidate)
            if real in reads:
                out[candidate] = errors
        return out

    def scenarios(self, path: str) -> list[str]:
        """The scenario files that read `path` (itself, for a scenario)."""
        return list(self._checks(path))

    def diagnostics(self, path: str) -> list[DramaError]:
        """What `drama check` says about the file at `path`, through every scenario that reads it."""
        real = os.path.realpath(path)
        errors: list[DramaError] = []
        checks = self._checks(path)
        for scenario, found in checks.items():
            for error in found:
                if error.position is None:
                    if os.path.realpath(scenario) == real:
                        errors.append(error)
                elif os.path.realpath(error.position.file) == real:
                    errors.append(error)
        if not checks:
            errors = self._alone(path)
        seen, unique = set(), []
        for error in errors:
            key = (error.code, error.position, error.message)
            if key not in seen:
                seen.add(key)
                unique.append(error)
        return unique

    def _alone(self, path: str) -> list[DramaError]:
        """A file no scenario reads: a script parsed, a cast or a setting loaded."""
        found: list[DramaError] = []
        text = self.text(path)
        try:
            if path.endswith(".drama"):
                from ..syntax.parse import parse
                parse(text, path, errors=Diagnostics(into=found))
            elif re.search(r"^parties:", text, re.MULTILINE):
                from ..loader import loads_cast
                loads_cast(text, path, errors=found)
            elif path.endswith((".yaml", ".yml")):
                from ..loader import loads_setting
                loads_setting(text, path, errors=found)
        except DramaError as error:
            if not any(e is error for e in found):
                found.append(error)
        return found

    @staticmethod
    def included_from(error: DramaError) -> list[Position]:
        """The `include` lines that brought an error's file in (its `included from` notes)."""
        out = []
        for note in error.notes:
            match = _INCLUDED_FROM.match(note)
            if match:
                out.append(Position(match["file"], int(match["line"]), int(match["column"] or 1)))
        return out

    # ------------------------------------------------------------------ the cast

    def scenario(self, path: str):
        """The first scenario that reads `path`, loaded (its cast and roles), or None."""
        from ..loader import load_scenario
        key = ("scenario", os.path.realpath(path))
        if key in self._memo:
            return self._memo[key]
        found = None
        for candidate in self.scenarios(path):
            with inputs.overlay(self.texts):
                try:
                    found = load_scenario(candidate, errors=[])
                    break
                except DramaError:
                    continue
        self._memo[key] = found
        return found

    # ------------------------------------------------------------------ the outline

    def symbols(self, path: str) -> list[Symbol]:
        """The scenes of a script, each with its dramatic situations (a situation before any scene
        stands alone)."""
        from ..syntax.parse import parse
        text = self.text(path)
        script = parse(text, path, errors=[])
        last = max(len(text.split("\n")), 1)
        flat = list(nodes.walk(script.statements))     # inside every block: arms, loops, options
        scenes = [s for s in flat if isinstance(s, nodes.Scene)]
        dramas = []
        for i, statement in enumerate(flat):
            if isinstance(statement, nodes.DramaBegin):
                end = next((s.pos.line for s in flat[i + 1:] if isinstance(s, (nodes.EndDrama, nodes.DramaBegin))),
                           last)
                dramas.append(Symbol(f"drama {statement.name}", "drama", statement.pos.line, end))
        out: list[Symbol] = [d for d in dramas if not scenes or d.line < scenes[0].pos.line]
        for k, scene in enumerate(scenes):
            end = scenes[k + 1].pos.line - 1 if k + 1 < len(scenes) else last
            inside = tuple(d for d in dramas if scene.pos.line <= d.line <= end)
            out.append(Symbol(scene.title, "scene", scene.pos.line, end, inside))
        return out
