"""Shared fixtures and helpers of the end-to-end tests (test_cli, test_language,
test_errors, test_fuzz).

The Emberfall sample (setting, cast, play log) is copied here inline: the tests
never read ../shared. Scenarios are written into pytest's tmp_path and run
through the public surface: the `drama` command (click's CliRunner on
`dsl.cli.main`, or a real `python -m dsl` subprocess) and the package API.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner

from dsl.cli import main

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = ROOT / "scenarios"

# the Emberfall sample, copied inline (tests/samples.py)
from samples import EMBERFALL_CAST, EMBERFALL_SCENARIO, EMBERFALL_SETTING, THRONE_HALL  # noqa: E402,F401

# the head of every error: `file:line:col: error[CODE]: message`
# (or of a warning: `file:line:col: warning[W001]: message`)
ERROR_HEAD = re.compile(r"^(?P<where>.+?):(?P<line>\d+):(?P<col>\d+): (?:error\[(?P<code>E\d{3})|warning\[(?P<warning>W\d{3}))\]: "
                        r"(?P<message>.+)$")
# an error without a position (a missing scenario file, an output file)
ERROR_BARE = re.compile(r"^error\[(?P<code>E\d{3})\]: (?P<message>.+)$")


# ---------------------------------------------------------------------------
# files

def write(folder: Path, name: str, text: str | bytes) -> Path:
    """Write a file (UTF-8 text, or bytes) under `folder`, making folders."""
    path = Path(folder) / name
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        with open(path, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
    return path


def scenario_yaml(script: str = "script.drama", *, title: str = "Test", setting: str | None = "setting.yaml",
                  cast: str | list[str] = "cast.yaml") -> str:
    lines = [f"title: {title}"]
    if setting is not None:
        lines.append(f"setting: {setting}")
    if isinstance(cast, list):
        lines.append(f"cast: [{', '.join(cast)}]")
    else:
        lines.append(f"cast: {cast}")
    lines.append(f"script: {script}")
    return "\n".join(lines) + "\n"


def make_scenario(folder: Path, script: str, *, setting: str = EMBERFALL_SETTING,
                  cast: str = EMBERFALL_CAST, name: str = "scenario.yaml",
                  script_name: str = "script.drama") -> Path:
    """A scenario in `folder`: the Emberfall setting and cast, and `script` in a .drama file."""
    write(folder, "setting.yaml", setting)
    write(folder, "cast.yaml", cast)
    write(folder, script_name, script)
    return write(folder, name, scenario_yaml(script_name))


def copy_emberfall(folder: Path) -> Path:
    write(folder, "setting.yaml", EMBERFALL_SETTING)
    write(folder, "cast.yaml", EMBERFALL_CAST)
    write(folder, "throne-hall.drama", THRONE_HALL)
    return write(folder, "scenario.yaml", EMBERFALL_SCENARIO)


def copy_repo_file(relative: str, folder: Path, name: str | None = None) -> Path:
    """Copy a file of the repository's scenarios/ as a writable file (the originals
    may be read-only)."""
    source = SCENARIOS / relative
    return write(folder, name or source.name, source.read_text(encoding="utf-8"))


# ---------------------------------------------------------------------------
# running the command

@dataclass
class Outcome:
    code: int
    stdout: str
    stderr: str
    exception: BaseException | None

    @property
    def output(self) -> str:
        return self.stdout + self.stderr


def drama(*args: str | os.PathLike) -> Outcome:
    """Run `drama ARGS...` in-process with click's CliRunner."""
    runner = CliRunner()
    result = runner.invoke(main, [str(a) for a in args], prog_name="drama", catch_exceptions=True)
    outcome = Outcome(result.exit_code, result.stdout, result.stderr, result.exception)
    # no Python exception may escape, whatever the input
    assert outcome.exception is None or isinstance(outcome.exception, SystemExit), (
        f"drama {' '.join(map(str, args))} raised {outcome.exception!r}\n{outcome.output}")
    assert "Traceback" not in outcome.output, outcome.output
    return outcome


def drama_process(*args: str | os.PathLike, cwd: str | os.PathLike | None = None,
                  timeout: float = 60) -> subprocess.CompletedProcess:
    """Run `python -m dsl ARGS...` as a real process."""
    return subprocess.run([sys.executable, "-m", "dsl", *map(str, args)], cwd=cwd, capture_output=True,
                          text=True, timeout=timeout, encoding="utf-8")


def run_events(path: str | os.PathLike, *args: str) -> list[dict]:
    """`drama run PATH --format json ARGS...`: the events, after checking the run
    succeeded and every line is one JSON object with a type and a line."""
    outcome = drama("run", path, "--format", "json", *args)
    assert outcome.code == 0, outcome.output
    assert outcome.stderr == ""
    events = []
    for text in outcome.stdout.splitlines():
        event = json.loads(text)
        assert isinstance(event, dict)
        assert "type" in event and "line" in event, event
        events.append(event)
    assert events[0]["type"] == "start"
    assert events[-1]["type"] == "final"
    return events


def of_type(events: list[dict], kind: str) -> list[dict]:
    return [e for e in events if e["type"] == kind]


def exchanges(events: list[dict]) -> list[dict]:
    return of_type(events, "exchange")


def qd(state: dict) -> tuple[int, int]:
    """(available quintessence, damage pool) of a party's state."""
    return state["quintessence"], state["damage_pool"]


def final_states(events: list[dict]) -> dict[str, tuple[int, int]]:
    return {pid: qd(s) for pid, s in events[-1]["parties"].items()}


def states_after(events: list[dict], line: int) -> dict[str, tuple[int, int]]:
    """Every party's (available, damage pool) once everything up to and including
    script line `line` is resolved, rebuilt from the `parties` of the events."""
    state = {pid: qd(s) for pid, s in events[0]["parties"].items()}
    for event in events[1:-1]:
        if event["line"] is not None and event["line"] > line:
            break
        for pid, s in event.get("parties", {}).items():
            state[pid] = qd(s)
    return state


def efforts(exchange: dict, side: str) -> list[dict]:
    return exchange["sides"][side]["efforts"]


def dice_of(exchange: dict, side: str = "attacker") -> list[int]:
    return [d for e in efforts(exchange, side) for d in e["dice"]]


# ---------------------------------------------------------------------------
# errors as printed

@dataclass
class Printed:
    """One printed error: its head and the lines below it."""

    where: str
    line: int
    col: int
    code: str
    message: str
    body: list[str]

    def field(self, name: str) -> str | None:
        for text in self.body:
            if text.startswith(f"  {name}: "):
                return text[len(name) + 4:]
        return None

    @property
    def expected(self) -> str | None:
        return self.field("expected")

    @property
    def help(self) -> str | None:
        return self.field("help")


def printed_errors(text: str) -> list[Printed]:
    """Every error block of `drama` output (heads with a position)."""
    out: list[Printed] = []
    for line in text.split("\n"):
        match = ERROR_HEAD.match(line)
        if match:
            out.append(Printed(match["where"], int(match["line"]), int(match["col"]), match["code"] or match["warning"],
                               match["message"], []))
        elif out and (line.startswith(" ") or not line.strip()):
            out[-1].body.append(line)
    return out


def assert_caret(error: Printed, source_line: str) -> None:
    """The block shows `source_line` and puts a caret under column `error.col`."""
    shown = f" {error.line} | {source_line.expandtabs(4)}"
    assert error.body and error.body[0] == shown, (error.body, shown)
    caret = error.body[1]
    bar = caret.index("|")
    assert caret[:bar].strip() == ""
    carets = caret[bar + 2:]
    start = len(source_line[: error.col - 1].expandtabs(4))
    assert carets[:start].strip() == "" and carets[start] == "^", (caret, error.col)


def only_error_lines(text: str) -> None:
    """Every line of an error report is a head, a source/caret line, an indented
    expected/help/note line, or the `N errors` summary."""
    for line in text.split("\n"):
        if not line.strip():
            continue
        assert (ERROR_HEAD.match(line) or ERROR_BARE.match(line) or line.startswith(" ")
                or re.fullmatch(r"(?:\d+ errors?)?(?:, )?(?:\d+ warnings?)?", line)), line


@pytest.fixture
def in_tmp(tmp_path, monkeypatch) -> Path:
    """tmp_path as the working directory, so that positions print as `script.drama:3:18`."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


# ---------------------------------------------------------------------------
# golden files (tests/test_render.py)

def pytest_addoption(parser):
    parser.addoption("--update-goldens", action="store_true", default=False,
                     help="rewrite the golden files of tests/goldens/ from the current output "
                          "(python -m pytest tests/test_render.py --update-goldens)")
