"""The fuzz harness: generated inputs through the package API and the `drama` command, each outcome classified.

An input (a `Case`) is one file of a bundled scenario replaced: by random
bytes, by token soup, or by a mutation of the file (a script or a YAML file).
`run_case` puts it in place in a copy of the bundled scenarios and runs it
through `dsl.load`, `dsl.parse`, `dsl.check`, `Program.compile` and `run`, a
`Session` fed the script's lines, `render_text` of the events, and (for a part
of the cases) `drama check` and `drama run`. The outcome is one of:

- ``ok``: everything ran;
- ``error``: a clean error: a `DramaError` with a known code, or exit status 1
  or 2 with no traceback;
- ``traceback``: any other exception, or a traceback printed by the command;
- ``hang``: over the time limit, in CPU time (SIGPROF, Unix);
- ``memory``: a MemoryError (the long run caps each worker's memory).

The same seed and index give the same case (`generate(seed, index)`), so a
case that crashed can be made again, and is kept as JSON in tests/fuzz/cases/,
which the normal test suite runs (tests/test_fuzz_cases.py). The short run is
in the suite; the long run is benchmarks/fuzz.py.
"""

from __future__ import annotations

import base64
import json
import random
import shutil
import signal
import threading
import time
import traceback
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
SCENARIOS = ROOT / "scenarios"
CASES = Path(__file__).resolve().parent / "cases"

# (scenario folder, the scenario file run) of each bundled scenario
ENTRIES = [("emberfall", "scenario.yaml"), ("ambush", "scenario.yaml"), ("skirmish", "scenario.yaml"),
           ("grey-ford", "with-wanderers.yaml"), ("grey-ford", "with-embers.yaml"),
           ("ashen-pass", "with-embers.yaml"), ("ashen-pass", "with-wanderers.yaml")]

KEYWORDS = ["scene", "drama", "with", "initiative", "round", "defends", "defend", "holds", "vs", "but", "not",
            "so", "that", "GM", "rolled", "roll", "tie", "split", "dictates", "rerolls", "recovers", "helped",
            "by", "then", "rerolled", "end", "calm", "rest", "if", "else", "repeat", "until", "at", "most",
            "times", "rounds", "include", "and", "or", "is", "defeated", "last", "exchange", "won", "lost",
            "in", "can", "recover", "quintessence", "damage", "->", "&", "+", "-", ",", ">", "#", '"', "\\",
            "(", ")", "<", "<=", ">=", "=", "!=", "{", "}", "{round}", "{Kara}", "{hero.quintessence}",
            "Kara", "Bren", "Overlord", "Goblins", "hero", "ally", "Sorcery", "Ember Staff", "Numbers",
            "hour", "days", "seconds", "0", "1", "6", "999999999", "10000", "-3", "1e9", "\t", "  "]
YAML_VALUES = ["0", "-1", "3", "1e9", "99999999999999999999", "999999999", "1000000000", "~", "null", "true",
               "no", "''", '""', "[]", "{}", "[1, 2", "{a: 1", "&a x", "*a", "*nowhere", "!!python/object:os.system x",
               "!!binary aGk=", "!custom x", "|", ">", "- x", ": x", "?", "%YAML 1.1", "---", "...", "'unterminated",
               "\t", "6 seconds", "0 seconds", "1 fortnight", "999999999 days", "vote", "random",
               "Sorcery + Ember Staff", "Sorcery +", "+ Ember Staff", "Numbers + Rusty Spears + Rope",
               "{sides: 1, high: 1}", "{sides: 6, high: 7}", "{sides: 999999999}", "[Snik, [Grub]]", "Kara", "GM",
               "<<: *a", "\u00e9\u4e2d\U0001F600", "../../etc/passwd", "/dev/zero", "scene.drama"]
BLOCK_OPENERS = ["if in drama", "if Kara is defeated", "repeat 3 times", "repeat until last exchange won, at most 4 times",
                 "repeat 10000 times", "repeat until round > 2, at most 999999999 rounds", "else", "else if not in drama"]
KINDS = ("bytes", "soup", "script", "yaml")


@dataclass
class Case:
    """One input: the file `file` of the bundled scenario `base` replaced by `content`; run `entry`."""

    kind: str
    base: str
    entry: str
    file: str
    content: bytes
    seed: int = 0            # the seed of the runs
    command: bool = False    # through the `drama` command too
    origin: str = ""         # how it was made (`seed:index`), or why it is kept

    def to_json(self) -> str:
        data = asdict(self)
        try:
            data["text"] = self.content.decode("utf-8")
            del data["content"]
        except UnicodeDecodeError:
            data["content"] = base64.b64encode(self.content).decode("ascii")
        return json.dumps(data, ensure_ascii=False, indent=1) + "\n"

    @classmethod
    def from_json(cls, text: str) -> "Case":
        data = json.loads(text)
        if "text" in data:
            data["content"] = data.pop("text").encode("utf-8")
        else:
            data["content"] = base64.b64decode(data["content"])
        return cls(**data)


# ---------------------------------------------------------------------------
# making cases

def _files(base: str, entry: str) -> tuple[list[str], list[str]]:
    """The scripts and YAML files of a bundled scenario (paths inside its folder)."""
    folder = SCENARIOS / base
    scripts = sorted(str(p.relative_to(folder)) for p in folder.rglob("*.drama"))
    yamls = sorted(str(p.relative_to(folder)) for p in folder.rglob("*.yaml"))
    if not scripts:
        scripts = [entry]           # an inline script
    return scripts, yamls


def _soup(rng: random.Random) -> str:
    lines = []
    for _ in range(rng.randint(1, 30)):
        lines.append(" ".join(rng.choice(KEYWORDS) for _ in range(rng.randint(0, 12))))
    return "\n".join(lines)


def _noise(rng: random.Random) -> str:
    return "".join(chr(rng.choice([rng.randint(0, 0x7f), rng.randint(0x80, 0x2fff), rng.randint(0xd7ff, 0x10ffff)]))
                   if rng.random() < 0.3 else rng.choice(" \t\"#>&,-+\\{}()") for _ in range(rng.randint(1, 12)))


def _number(rng: random.Random) -> str:
    return rng.choice(["0", "-1", "7", "10001", "999999999", "1000000000", "9" * rng.randint(10, 40), "00", "1_0"])


def mutate_lines(rng: random.Random, lines: list[str], pool: list[str], script: bool) -> list[str]:
    """1 to 4 random edits of a file's lines (a script or YAML)."""
    lines = list(lines) or [""]
    for _ in range(rng.randint(1, 4)):
        i = rng.randrange(len(lines))
        op = rng.randrange(14)
        if op == 0 and len(lines) > 1:
            del lines[i]
        elif op == 1:
            lines.insert(i, lines[i])
        elif op == 2:
            j = rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        elif op == 3:
            lines.insert(i, rng.choice(pool))
        elif op == 4:
            lines.insert(i, _soup(rng).split("\n")[0])
        elif op == 5:
            words = lines[i].split(" ")
            k = rng.randrange(len(words))
            words[k] = _number(rng) if rng.random() < 0.5 else rng.choice(KEYWORDS if script else YAML_VALUES)
            lines[i] = " ".join(words)
        elif op == 6:
            cut = rng.randrange(len(lines[i]) + 1)
            lines[i] = lines[i][:cut] + _noise(rng) + lines[i][cut:]
        elif op == 7:
            lines[i] = lines[i][:rng.randrange(len(lines[i]) + 1)]
        elif op == 8 and script:
            # a region wrapped in blocks, sometimes hundreds deep
            depth = rng.choice([1, 2, 5, 50, 99, 100, 101, 300, 2000])
            j = rng.randrange(i, len(lines) + 1)
            opener = rng.choice(BLOCK_OPENERS[:6])
            lines[i:j] = [opener] * depth + lines[i:j] + ["end"] * (depth if rng.random() < 0.8 else depth - 1)
        elif op == 9 and script:
            lines.insert(i, rng.choice(["end", "else", "end drama", "if", "repeat", *BLOCK_OPENERS]))
        elif op == 10 and script:
            lines.insert(i, rng.choice(['include "scenes/far-bank.drama"', 'include "../emberfall/throne-hall.drama"',
                                        'include "nowhere.drama"', 'include "/etc/passwd"', 'include "."',
                                        'include "grey-ford.drama"', 'include "ashen-pass.drama"']))
        elif op == 11:
            j = rng.randrange(i, min(len(lines), i + 10) + 1)
            lines[i:i] = lines[i:j] * rng.choice([2, 10, 100])
        elif op == 12 and not script:
            lines[i] = lines[i].split(":")[0] + ": " + rng.choice(YAML_VALUES)
        elif op == 13 and not script:
            depth = rng.choice([10, 100, 1000, 5000])
            lines.insert(i, "deep: " + "[" * depth + "]" * depth if rng.random() < 0.5 else
                         "deep: " + "{a: " * depth + "1" + "}" * depth)
        else:
            lines.insert(i, _noise(rng))
    return lines


def generate(seed: int, index: int) -> Case:
    """The case number `index` of a run with `seed`: always the same."""
    rng = random.Random(f"{seed}:{index}")
    kind = KINDS[index % len(KINDS)]
    base, entry = rng.choice(ENTRIES)
    scripts, yamls = _files(base, entry)
    folder = SCENARIOS / base
    if kind == "yaml":
        file = rng.choice(yamls)
    else:
        file = rng.choice(scripts)
    original = (folder / file).read_text(encoding="utf-8")
    if kind == "bytes":
        content = bytes(rng.randrange(256) for _ in range(rng.randint(0, 300)))
        if rng.random() < 0.5:      # random bytes inside a valid file
            at = rng.randrange(len(original) + 1)
            content = original[:at].encode() + content + original[at:].encode()
    elif kind == "soup":
        content = _soup(rng).encode("utf-8", "surrogatepass")
        if file.endswith(".yaml"):   # (an inline script's scenario keeps its keys)
            content = original.encode() + b"".join(b"\n  " + line.encode() for line in _soup(rng).split("\n"))
    else:
        pool = [line for name in scripts for line in (folder / name).read_text(encoding="utf-8").split("\n")] \
            if kind == "script" else original.split("\n")
        content = "\n".join(mutate_lines(rng, original.split("\n"), pool, kind == "script")).encode("utf-8", "surrogatepass")
    return Case(kind, base, entry, file, content, seed=rng.randrange(100), command=index % 50 == 0,
                origin=f"{seed}:{index}")


# ---------------------------------------------------------------------------
# running a case

class Hang(BaseException):
    """The time limit of a case ran out (a BaseException, so that no `except Exception` swallows it)."""


@contextmanager
def time_limit(seconds: float):
    """Raise Hang after `seconds` of this process's CPU time (Unix, main thread;
    elsewhere no limit). CPU time, not wall time: on a shared machine a case's wall
    time grows with the other processes' load, its CPU time with its own work only."""
    usable = hasattr(signal, "SIGPROF") and threading.current_thread() is threading.main_thread()
    if not usable or not seconds:
        yield
        return

    def expire(signum, frame):
        raise Hang(f"over {seconds} s")

    previous = signal.signal(signal.SIGPROF, expire)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)


@dataclass
class Outcome:
    kind: str               # ok, error, traceback, hang, memory
    seconds: float          # the slowest call of the case
    detail: str = ""        # the traceback, or what hung
    slowest: str = ""       # which call that was


class Workspace:
    """A copy of the bundled scenarios, where each case's file is put in place and taken back."""

    def __init__(self, folder: Path):
        self.folder = Path(folder)
        if not (self.folder / "emberfall").exists():
            shutil.copytree(SCENARIOS, self.folder, dirs_exist_ok=True)

    @contextmanager
    def placed(self, case: Case):
        path = self.folder / case.base / case.file
        original = path.read_bytes()
        path.write_bytes(case.content)
        try:
            yield self.folder / case.base / case.entry
        finally:
            path.write_bytes(original)


class _Clock:
    """The time limit of each call of a case (a call of the API, a command), and the slowest (CPU time)."""

    def __init__(self, seconds: float):
        self.seconds = seconds
        self.slowest = (0.0, "")

    @contextmanager
    def __call__(self, what: str):
        start = time.process_time()
        try:
            with time_limit(self.seconds):
                yield
        except Hang:
            raise Hang(f"{what} ran for more than {self.seconds} s of CPU time") from None
        finally:
            took = time.process_time() - start
            if took > self.slowest[0]:
                self.slowest = (took, what)


def _through_api(case: Case, scenario: Path, clock: _Clock, full: bool = True) -> str:
    """Every public function on the case (`full`), or only `dsl.check` and a run;
    'ok' or 'error' (raises anything else)."""
    import dsl
    from dsl.errors import CODES, DramaError

    outcome = "ok"

    def clean(error: DramaError) -> None:
        nonlocal outcome
        assert error.code in CODES, error.code
        error.format()                  # formats, whatever the position
        if not error.is_warning:
            outcome = "error"

    if case.file.endswith(".drama") and full:
        try:
            text = case.content.decode("utf-8")
        except UnicodeDecodeError:
            text = case.content.decode("utf-8", "replace")
        try:
            with clock("dsl.parse"):
                dsl.parse(text, case.file)
        except DramaError as error:
            clean(error)
        found = []
        with clock("dsl.parse, collecting"):
            dsl.parse(text, case.file, errors=found)
        for error in found:
            clean(error)
    try:
        with clock("dsl.check"):
            for error in dsl.check(scenario, seed=case.seed):
                clean(error)
    except DramaError as error:
        clean(error)
    if not full:
        try:
            with clock("Program.compile"):
                program = dsl.Program.compile(scenario)
            with clock("Program.run"):
                program.run(seed=case.seed)
        except DramaError as error:
            clean(error)
        return outcome
    try:
        with clock("dsl.load"):
            scenario_loaded = dsl.load(scenario)
    except DramaError as error:
        clean(error)
        return outcome
    try:
        with clock("Program.compile"):
            program = dsl.Program.compile(scenario)
    except DramaError as error:
        clean(error)
        return outcome
    try:
        with clock("Program.run"):
            events = program.run(seed=case.seed)
        with clock("dsl.render_text"):
            dsl.render_text(events)
    except DramaError as error:
        clean(error)
    try:
        with clock("dsl.play"):
            dsl.play(scenario_loaded, seed=case.seed, roll_given=True)
    except DramaError as error:
        clean(error)
    session = program.session(seed=case.seed)
    if case.file.endswith(".drama"):
        with clock("Session.feed"):
            for line in text.split("\n")[:60]:
                try:
                    session.feed(line)
                except DramaError as error:
                    clean(error)
            try:
                session.finish()
            except DramaError as error:
                clean(error)
    return outcome


def _through_command(case: Case, scenario: Path, clock: _Clock) -> str:
    from click.testing import CliRunner
    from dsl.cli import main

    outcome = "ok"
    for args in (["check", str(scenario)], ["run", str(scenario), "--seed", str(case.seed)]):
        with clock(f"drama {args[0]}"):
            result = CliRunner().invoke(main, args, prog_name="drama", catch_exceptions=True)
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            raise result.exception
        output = result.stdout + result.stderr
        if "Traceback" in output:
            raise AssertionError(f"drama {' '.join(args)} printed a traceback:\n{output[-3000:]}")
        if result.exit_code not in (0, 1, 2):
            raise AssertionError(f"drama {' '.join(args)} exited with {result.exit_code}")
        if result.exit_code:
            outcome = "error"
    return outcome


def run_case(case: Case, workspace: Workspace, *, seconds: float = 10, full: bool = True) -> Outcome:
    """Run one case through the API (and the command, if `case.command`), and classify it;
    each call has `seconds` (a hang), and the outcome gives the slowest. Not `full`:
    only `dsl.check` and a compiled run (the long run's quick cases)."""
    clock = _Clock(seconds)
    try:
        with workspace.placed(case) as scenario:
            kind = _through_api(case, scenario, clock, full)
            if case.command:
                kind = max(kind, _through_command(case, scenario, clock), key=["ok", "error"].index)
    except Hang as hang:
        return Outcome("hang", clock.slowest[0], str(hang), clock.slowest[1])
    except MemoryError:
        return Outcome("memory", clock.slowest[0], traceback.format_exc(limit=-8), clock.slowest[1])
    except Exception:       # noqa: BLE001 - anything but a DramaError is what we look for
        return Outcome("traceback", clock.slowest[0], traceback.format_exc(limit=-12), clock.slowest[1])
    return Outcome(kind, clock.slowest[0], "", clock.slowest[1])


def kept_cases() -> list[tuple[str, Case]]:
    """The regression cases kept in tests/fuzz/cases/ (name, case)."""
    return [(path.stem, Case.from_json(path.read_text(encoding="utf-8")))
            for path in sorted(CASES.glob("*.json"))]
