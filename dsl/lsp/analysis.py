"""What `drama lsp` knows of the files, without the protocol: which are drama's, their checks (`drama check`'s), their casts."""

# Every answer reads the editor's unsaved buffers through `inputs.overlay`, so
# it is what `drama check` would say if the files were saved. A script is
# checked through the scenarios that read it: the scenario files (YAML with
# top-level `script:` and `cast:` keys) in its folder and the two folders
# above, each checked with `pipeline.check` while the reads are tracked
# (`inputs.tracking`); those that read the document are its scenarios. A
# script no scenario reads is only parsed.
#
# A check is remembered with the buffers of the files it read: it stays good
# until one of those changes, so an edit re-checks only the scenarios that
# read the edited file. Checks run in a process of their own (`live.py`) over a
# `Snapshot` of the buffers; everything else here runs on the server's loop.

from __future__ import annotations

import dataclasses
import os
import re
from pathlib import Path

from .. import inputs
from ..errors import Diagnostics, DramaError, Position
from .incremental import DryRuns

__all__ = ["Workspace", "Snapshot", "Check", "kind_of_name", "ERRORS_DOC"]

# where the errors are documented, for the links of diagnostics and hovers
ERRORS_DOC = "docs/errors.md"
_INCLUDED_FROM = re.compile(r"^included from (?P<file>.+):(?P<line>\d+)(?::(?P<column>\d+))?$")
_TOP_KEY = re.compile(r"^(?P<key>[A-Za-z_]+)[ \t]*:", re.MULTILINE)
_MODELINE = re.compile(r"^# yaml-language-server: \$schema=\S*?(?P<kind>setting|cast|scenario|test)\.schema\.json[ \t]*$",
                       re.MULTILINE)
# the names the extension's schemas claim on their own: `NAME.setting.yaml` and the like
_OWN_PATTERN = re.compile(r"\.(?P<kind>setting|cast|scenario|test)\.ya?ml$")
_KIND_OF_SCHEMA = {"setting": "setting", "cast": "cast", "scenario": "scenario", "test": "plan"}


def kind_of_name(path: str) -> str | None:
    """The kind a file's name alone gives: a script, or `NAME.setting.yaml`, `.cast.yaml`, `.scenario.yaml`, `.test.yaml`."""
    if path.endswith(".drama"):
        return "script"
    match = _OWN_PATTERN.search(path)
    return _KIND_OF_SCHEMA[match["kind"]] if match else None


def _is_yaml(path: str) -> bool:
    return path.endswith((".yaml", ".yml"))


def _looks_like_scenario(text: str) -> bool:
    """A scenario file: its top level has the required `script:` and `cast:` (a CI file's `script:` is not enough)."""
    keys = {match["key"] for match in _TOP_KEY.finditer(text)}
    return {"script", "cast"} <= keys


@dataclasses.dataclass(frozen=True)
class Snapshot:
    """The buffers at one moment (real path -> text, and each one's version)."""

    texts: dict[str, str]
    versions: dict[str, int]


@dataclasses.dataclass(frozen=True)
class Check:
    """`drama check` of one scenario: its errors, the files it read, and the buffers of those it was made from."""

    scenario: str
    errors: tuple[DramaError, ...]
    reads: frozenset[str]
    buffers: tuple[tuple[str, str | None], ...]


# the dry runs of this process's checks, to resume the next ones from (incremental.py)
_DRY_RUNS = DryRuns()


def check_scenario(scenario: str, texts: dict[str, str]) -> Check:
    """`drama check` of a scenario over the buffers (in the checking process, worker.py), its dry run
    resumed from the last ones where the buffers begin to differ."""
    from ..pipeline import check
    real = os.path.realpath(scenario)
    with inputs.overlay(texts), inputs.tracking() as reads:
        errors = check(scenario, dry_run=_DRY_RUNS.run)
    reads.add(real)
    return Check(scenario, tuple(errors), frozenset(reads), tuple((path, texts.get(path)) for path in sorted(reads)))


def check_scenarios(scenarios: list[str], texts: dict[str, str]) -> list[Check]:
    """`check_scenario` of each (the job the checking process is given, worker.py)."""
    return [check_scenario(scenario, texts) for scenario in scenarios]


def check_alone(path: str, text: str) -> list[DramaError]:
    """A drama file no scenario reads: a script parsed, a cast or a setting loaded."""
    found: list[DramaError] = []
    try:
        if path.endswith(".drama"):
            from ..syntax.parse import parse
            parse(text, path, errors=Diagnostics(into=found))
        elif re.search(r"^parties:", text, re.MULTILINE):
            from ..loader import loads_cast
            loads_cast(text, path, errors=found)
        elif _is_yaml(path) and not _looks_like_scenario(text):
            from ..loader import loads_setting
            loads_setting(text, path, errors=found)
    except DramaError as error:
        if not any(e is error for e in found):
            found.append(error)
    return found


# a line whose text changes nothing of a check but its own errors: narration without
# placeholders, a comment, nothing
_INERT = re.compile(r"[ \t]*(?:>[^{}#\r\n]*)?(?:#.*)?")


def _inert_kind(line: str) -> str | None:
    """"narration" or "comment" for a line that only tells or comments (no placeholder), else None."""
    if not _INERT.fullmatch(line):
        return None
    return "narration" if line.lstrip().startswith(">") else "comment" if line.strip() else "blank"


def carried(check: Check, texts: dict[str, str]) -> Check | None:
    """The check still good for the buffers of now, when every line that changed in the files it
    read is narration that stays narration (or a comment that stays one), and the new lines parse
    cleanly: such a line changes nothing else of the check. None when it must be made again."""
    from ..syntax.parse import parse
    buffers = []
    for path, old in check.buffers:
        new = texts.get(path)
        if new != old:
            if old is None or new is None or not path.endswith(".drama"):
                return None
            before, after = old.split("\n"), new.split("\n")
            if len(before) != len(after):
                return None
            for number, (a, b) in enumerate(zip(before, after)):
                if a != b:
                    if any(e.position is not None and e.position.line == number + 1
                           and os.path.realpath(e.position.file) == path for e in check.errors):
                        return None                # an error on the line: it may have been skipped
                    kind = _inert_kind(a)
                    if kind is None or kind != _inert_kind(b):
                        return None
                    found: list[DramaError] = []
                    parse(b, path, line_offset=number, errors=found)
                    if found:
                        return None
        buffers.append((path, new))
    return dataclasses.replace(check, buffers=tuple(buffers))


class Workspace:
    """The open documents (real path -> text and version) and what is known of the files around them."""

    def __init__(self) -> None:
        self.texts: dict[str, str] = {}
        self.versions: dict[str, int] = {}
        self.checks: dict[str, Check] = {}          # scenario (real path) -> its last check
        self._loaded: dict[str, tuple[tuple, object]] = {}   # scenario -> (the buffers it read, Scenario)
        self._candidates: dict[str, list[str]] = {}     # folder -> the scenarios around it (until a YAML changes)
        self._lines: dict[str, tuple[str, list[str]]] = {}

    # ------------------------------------------------------------------ the buffers

    def open(self, path: str, text: str, version: int = 0) -> None:
        real = os.path.realpath(path)
        if _is_yaml(real) and self.texts.get(real) != text:
            self._candidates.clear()
        self.texts[real] = text
        self.versions[real] = version

    def close(self, path: str) -> None:
        real = os.path.realpath(path)
        self.texts.pop(real, None)
        self.versions.pop(real, None)
        self._candidates.clear()

    def changed(self) -> None:
        """A file may have changed on disk (saved, or edited elsewhere): forget every check."""
        self.checks.clear()
        self._loaded.clear()
        self._candidates.clear()

    def snapshot(self) -> Snapshot:
        return Snapshot(dict(self.texts), dict(self.versions))

    def text(self, path: str) -> str:
        real = os.path.realpath(path)
        if real in self.texts:
            return self.texts[real]
        try:
            return inputs.read_text(path, what="file")
        except DramaError:
            return ""

    # ------------------------------------------------------------------ which files are drama's

    def kind(self, path: str) -> str | None:
        """"script", "scenario", "setting", "cast", "plan", or None for a file that is not drama's.

        A YAML file is drama's when it says so (the modeline of one of our
        schemas), when its name does (`NAME.cast.yaml` ...), when it is a
        scenario (top-level `script:` and `cast:`), or when a scenario nearby
        names it as its setting or a cast. A `setting.yaml` of another project is
        none of these."""
        by_name = kind_of_name(path)
        if by_name is not None or not _is_yaml(path):
            return by_name
        text = self.text(path)
        match = _MODELINE.search(text)
        if match:
            return _KIND_OF_SCHEMA[match["kind"]]
        if _looks_like_scenario(text):
            return "scenario"
        real = os.path.realpath(path)
        for candidate in self.candidates(path):
            scenario = self.scenario_at(candidate)
            if scenario is None:
                continue
            if real in {os.path.realpath(f) for f in scenario.cast_files}:
                return "cast"
            if real in {os.path.realpath(f) for f in scenario.files}:
                return "setting"
        return None

    def lines(self, path: str) -> list[str]:
        """The lines of a file as the client numbers them (the buffer's when it is open)."""
        from .positions import split_lines
        real = os.path.realpath(path)
        text = self.text(real)
        known = self._lines.get(real)
        if known is None or known[0] is not text:
            known = self._lines[real] = (text, split_lines(text))
        return known[1]

    def candidates(self, path: str) -> list[str]:
        """The scenario files of the folder of `path` and of the two folders above."""
        folder = Path(path).resolve().parent
        key = str(folder)
        if key not in self._candidates:
            self._candidates[key] = self._candidates_now(folder)
        return self._candidates[key]

    def _candidates_now(self, folder: Path) -> list[str]:
        found = []
        for up in (folder, folder.parent, folder.parent.parent):
            try:
                names = sorted({*up.glob("*.yaml"), *up.glob("*.yml")})
            except OSError:
                continue
            found += [str(yaml) for yaml in names if _looks_like_scenario(self.text(str(yaml)))]
        for real, text in self.texts.items():          # a scenario not yet saved
            if _is_yaml(real) and real not in found and os.path.dirname(real) in {
                    str(folder), str(folder.parent), str(folder.parent.parent)} and _looks_like_scenario(text):
                found.append(real)
        return found

    # ------------------------------------------------------------------ checks

    def fresh(self, check: Check) -> bool:
        """Whether the buffers a check was made from are still the buffers of now."""
        return all(self.texts.get(path) == text for path, text in check.buffers)

    def stale_scenarios(self, paths: list[str]) -> list[str]:
        """The scenarios that the documents `paths` need, whose remembered check is missing or stale."""
        out: list[str] = []
        for path in paths:
            for scenario in self._scenarios_for(path):
                real = os.path.realpath(scenario)
                check = self.checks.get(real)
                if (check is None or not self.fresh(check)) and scenario not in out:
                    out.append(scenario)
        return out

    def _scenarios_for(self, path: str) -> list[str]:
        """The scenarios that may read `path`: itself for a scenario, else the candidates around it."""
        kind = self.kind(path)
        if kind == "scenario":
            return [path]
        if kind is None or kind == "plan":
            return []
        return self.candidates(path)

    def carry(self) -> None:
        """Keep each stale check that an edit of narration or comments alone leaves good (`carried`)."""
        for real, check in list(self.checks.items()):
            if not self.fresh(check):
                kept = carried(check, self.texts)
                if kept is not None:
                    self.checks[real] = kept

    def remember(self, check: Check) -> None:
        self.checks[os.path.realpath(check.scenario)] = check

    def checks_of(self, path: str) -> list[Check]:
        """The remembered checks of the scenarios that read `path`."""
        real = os.path.realpath(path)
        out = []
        for scenario in self._scenarios_for(path):
            check = self.checks.get(os.path.realpath(scenario))
            if check is not None and real in check.reads:
                out.append(check)
        return out

    def diagnostics(self, path: str) -> list[tuple[DramaError, list[Check]]]:
        """What `drama check` says about the file at `path`, through every scenario that reads it
        (after `stale_scenarios` were checked): each error with the checks that found it."""
        real = os.path.realpath(path)
        if self.kind(path) in (None, "plan"):
            return []
        checks = self.checks_of(path)
        if not checks:
            return [(error, []) for error in check_alone(path, self.text(path))]
        found: dict[tuple, tuple[DramaError, list[Check]]] = {}
        for check in checks:
            for error in check.errors:
                if error.position is None:
                    mine = os.path.realpath(check.scenario) == real
                else:
                    mine = os.path.realpath(error.position.file) == real
                if mine:
                    key = (error.code, error.position, error.message)
                    found.setdefault(key, (error, []))[1].append(check)
        return list(found.values())

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

    def scenario_at(self, scenario: str):
        """The scenario file loaded (setting, cast, roles; the script only read), or None: remembered
        until one of the YAML files it read changes, so completion never waits for a check."""
        from ..loader import load_scenario
        real = os.path.realpath(scenario)
        known = self._loaded.get(real)
        if known is not None and all(self.texts.get(p) == t for p, t in known[0]):
            return known[1]
        found = None
        with inputs.overlay(self.texts), inputs.tracking() as reads:
            try:
                found = load_scenario(scenario, errors=[])
            except DramaError:
                found = None
        yaml = tuple((p, self.texts.get(p)) for p in sorted(reads) if _is_yaml(p))
        self._loaded[real] = (yaml, found)
        return found

    def scenario(self, path: str):
        """The first scenario that reads `path`, loaded (its cast and roles), or None: the scenarios
        whose last check read it, else those that name it as their script."""
        real = os.path.realpath(path)
        if self.kind(path) == "scenario":
            return self.scenario_at(path)
        checked = [check.scenario for check in self.checks_of(path)]
        for candidate in checked or self.candidates(path):
            found = self.scenario_at(candidate)
            if found is not None and (checked or real in {os.path.realpath(f) for f in found.files}):
                return found
        return None
