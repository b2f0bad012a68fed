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
import os
import random
import re
import shutil
import signal
import threading
import time
import traceback
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
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
KINDS = ("bytes", "soup", "script", "yaml", "template", "shape")
# the kind of each case, in turn: the costly shapes one case in 24, templates one in 12
_TURNS = ("bytes", "soup", "script", "yaml", "bytes", "soup", "script", "yaml", "template", "script", "yaml",
          "shape", "bytes", "soup", "script", "yaml", "bytes", "soup", "script", "yaml", "template", "script",
          "yaml", "soup")

# the text of the file outside every folder a case may read: seen in an output, it was read
SECRET = "drama-fuzz-secret-7f3a91"
# what a printed Python object looks like (an address, a class, a module path)
INTERNALS = re.compile(r" at 0x[0-9a-f]{4,}|<(?:function|class|module|built-in|bound method|generator|"
                       r"jinja2\.|dsl\.)|jinja2\.(?:runtime|utils|sandbox)|TemplateReference|LoopContext")
# a control character a terminal would obey (all but the line break and the tab)
CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
# the peak memory a template case may trace while rendering (every value is capped far below)
TEMPLATE_MEMORY = 512 * 2**20

# pieces of templates: values built with ~, %, format and loops, Python's internals, includes
TEMPLATE_PIECES = [
    "{% set a = 'x' * N %}", "{% set b = a ~ a ~ a ~ a ~ a %}", "{{ (a ~ a)|length }}",
    "{{ ('%s%s%s%s' % (a, a, a, a))|length }}", "{{ '{}{}{}'.format(a, a, a)|length }}",
    "{{ '%-*s'|format(N, 'x')|length }}", "{{ '%*d' % (N, 1) }}", "{{ '{:{}}'.format(1, N)|length }}",
    "{% set l = [] %}{% for i in range(K) %}{% set _ = l.append(a ~ i) %}{% endfor %}{{ l|length }}",
    "{% set d = {} %}{% for i in range(K) %}{% set _ = d.update({i: a ~ i}) %}{% endfor %}{{ d|length }}",
    "{{ ([a] * K)|tojson|length }}", "{{ ([a] * K)|join|length }}", "{{ ([a] * K)|string|length }}",
    "{{ lipsum }}", "{{ namespace }}", "{{ cycler }}", "{{ joiner }}", "{{ events.append }}", "{{ self }}",
    "{% for e in events %}{{ loop }}{% endfor %}", "{{ [lipsum, cycler] }}", "{{ lipsum|string }}",
    "{{ '%s' % self }}", "{{ range }}", "{{ dict }}", "{% macro m() %}x{% endmacro %}{{ m }}",
    "{% include 'inner.j2' %}", "{% include 'linked.j2' %}", "{% import 'linked.j2' as x %}",
    "{% extends 'linked.j2' %}", "{% include 'sub/linked.j2' %}", "{% include 'fifo.j2' %}",
    "{% for e in events %}{{ e.type }} {% endfor %}", "{{ events|length }} {{ '%d'|format(999999999) }}",
    "{% set ns = namespace(t='') %}{% for i in range(K) %}{% set ns.t = ns.t ~ a %}{% endfor %}{{ ns.t|length }}",
    "{{ a * K }}", "{{ (a|list)|length }}", "{{ a|center(N) }}", "{{ a|indent(N) }}", "{{ a|wordwrap(5) }}",
]



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
    # more files put in the scenario's folder for the case (path -> text; "-> TARGET" makes a
    # symbolic link, TARGET relative to the workspace, `@SECRET` the file outside every folder)
    extra: dict = field(default_factory=dict)
    template: str = ""       # a template file (one of `extra`) to render the run's events with
    log: str = ""            # a saved event log (one of `extra`) to read and render

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


def _control(rng: random.Random) -> str:
    """A string with terminal escapes in it (OSC 52, OSC 0, CSI, C1 controls)."""
    return rng.choice(["\x1b]52;c;aGk=\x07", "\x1b]0;title\x07", "\x1b[2J", "\x9b31m", "\x85", "\x1b",
                       "\x07", "\x08", "\u2028", "\x7f"])


def _controlled_yaml(rng: random.Random, text: str) -> str:
    """Control characters put into the YAML's strings (names, titles), as escapes YAML reads."""
    lines = text.split("\n")
    for i, line in enumerate(lines):
        key, colon, value = line.partition(": ")
        if colon and value.strip() and not value.strip()[0] in "[{|>&*!#" and rng.random() < 0.5:
            escaped = json.dumps(value.strip().strip('"') + _control(rng))
            lines[i] = key + ": " + escaped
    return "\n".join(lines)


def _template(rng: random.Random) -> str:
    pieces = [rng.choice(TEMPLATE_PIECES) for _ in range(rng.randint(1, 4))]
    if any(" a " in p or "(a" in p or "a ~" in p or "a|" in p or "[a]" in p for p in pieces):
        pieces.insert(0, "{% set a = 'x' * N %}")
    text = "\n".join(pieces) + "\n"
    text = text.replace("N", str(rng.choice([10, 1000, 99999, 100001, 10**6, 19_999_999, 10**9])), )
    return text.replace("K", str(rng.choice([3, 100, 1000, 100000])))


def _shape(rng: random.Random, base: str, entry: str, scripts: list[str], yamls: list[str]) -> tuple[str, str, dict, str]:
    """The costly shapes of an input within the limits: (file, content, extra files, saved log)."""
    folder = SCENARIOS / base
    script = rng.choice(scripts)
    original = (folder / script).read_text(encoding="utf-8")
    shape = rng.randrange(8)
    extra: dict = {}
    log = ""
    if shape == 0:          # includes shaped like a diamond
        depth, width = rng.choice([(5, 2), (9, 2), (12, 2), (6, 4)])
        body = rng.choice([1, 20, 400, 4000])
        for level in range(depth):
            lines = [f"> level {level}, line {j}" for j in range(body)]
            if level + 1 < depth:
                lines += [f'include "dm{level + 1}.drama"'] * width
            extra[f"dm{level}.drama"] = "\n".join(lines) + "\n"
        content = original + '\ninclude "dm0.drama"\n'
        return script, content, extra, log
    if shape == 1:          # many names: misspelt ones in a long script
        words = ["Kara", "Bren", "Overlord", "Goblins", "Ysolde", "Anselm"]
        lines = [f"{rng.choice(words)[:-1]}{rng.choice('xyz')} {rng.choice(['strike', 'attacks'])} -> "
                 f"{rng.choice(words)}{rng.choice(['', 'e', 's'])}" for _ in range(rng.choice([100, 2000, 20000]))]
        return script, "\n".join(lines) + "\n", extra, log
    if shape == 2:          # long damaged lines, up to the limit and past it
        lines = original.split("\n")
        for _ in range(rng.randint(1, 20)):
            i = rng.randrange(len(lines))
            width = rng.choice([3990, 4000, 4001, 10000])
            lines[i] = (lines[i] + " " + _soup(rng).replace("\n", " ") * 400)[:width]
        return script, "\n".join(lines), extra, log
    if shape == 3:          # many errors
        line = rng.choice(["round", "Kara", "end", "else", "> {nowhere}", "Kara strike -> Nobody",
                           "set gold += 1", "choose At the door"])
        return script, "\n".join([line] * rng.choice([1000, 20000, 100000])) + "\n", extra, log
    if shape == 4:          # large YAML within the size limit
        yaml = rng.choice(yamls)
        form = rng.randrange(3)
        if form == 0:
            content = "x: [" + ",".join(["1"] * rng.choice([10000, 300000, 900000])) + "]\n"
        elif form == 1:
            depth = rng.choice([20, 90, 99])
            content = ("- " + "[" * depth + "]" * depth + "\n") * (1_900_000 // (2 * depth + 3))
        else:
            count = rng.choice([500, 5000, 60000])
            content = "parties:\n" + "".join(f"  P{i}: {{quintessence: {i % 9}}}\n" for i in range(count))
        return yaml, content, extra, log
    if shape == 5:          # control characters in every YAML string
        yaml = rng.choice(yamls)
        return yaml, _controlled_yaml(rng, (folder / yaml).read_text(encoding="utf-8")), extra, log
    if shape == 6:          # a long play log: the script repeated (a large event log to render)
        times = rng.choice([5, 50, 200])
        content = "\n".join([original] * times) if "drama" in original else original
        return script, content, extra, log
    # a saved event log, made from the bundled run and damaged: huge numbers, controls, long texts
    events = _bundled_events(base, entry)
    lines = list(events)
    for _ in range(rng.randint(1, 4)):
        i = rng.randrange(len(lines))
        op = rng.randrange(4)
        if op == 0:
            lines[i] = re.sub(r": (\d+)", lambda m: ": " + rng.choice(["9" * 400, "1e400", "-1e308", "100001",
                                                                      "999999999"]), lines[i], count=1)
        elif op == 1:
            lines[i] = lines[i].replace('"text": "', '"text": "' + json.dumps(_control(rng))[1:-1], 1)
        elif op == 2:
            lines[i] = lines[i].replace('"line": ', '"line": 1000', 1)
        else:
            lines.insert(i, lines[i])
    extra["saved.jsonl"] = "\n".join(lines) + "\n"
    return script, original, extra, "saved.jsonl"


_EVENTS: dict[tuple[str, str], list[str]] = {}


def _bundled_events(base: str, entry: str) -> list[str]:
    """The JSON lines of the bundled scenario's run (made once)."""
    if (base, entry) not in _EVENTS:
        import dsl
        from dsl.events import to_json_lines
        _EVENTS[(base, entry)] = to_json_lines(dsl.run(SCENARIOS / base / entry)).rstrip("\n").split("\n")
    return _EVENTS[(base, entry)]


def generate(seed: int, index: int) -> Case:
    """The case number `index` of a run with `seed`: always the same."""
    rng = random.Random(f"{seed}:{index}")
    kind = _TURNS[index % len(_TURNS)]
    base, entry = rng.choice(ENTRIES)
    scripts, yamls = _files(base, entry)
    folder = SCENARIOS / base
    if kind == "yaml":
        file = rng.choice(yamls)
    else:
        file = rng.choice(scripts)
    original = (folder / file).read_text(encoding="utf-8")
    if kind == "template":
        extra = {"case.j2": _template(rng), "inner.j2": "inner {{ events|length }}\n",
                 "linked.j2": "-> @SECRET", "sub": "-> @OUTSIDE", "fifo.j2": "-> @FIFO"}
        return Case(kind, base, entry, file, original.encode("utf-8"), seed=rng.randrange(100),
                    command=index % 50 == 0, origin=f"{seed}:{index}", extra=extra, template="case.j2")
    if kind == "shape":
        file, text, extra, log = _shape(rng, base, entry, scripts, yamls)
        return Case(kind, base, entry, file, text.encode("utf-8", "surrogatepass"), seed=rng.randrange(100),
                    command=index % 50 == 0, origin=f"{seed}:{index}", extra=extra, log=log)
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


class Broken(Exception):
    """A promise broken without a traceback: `kind` is `replay` (a recorded log that does
    not replay), `leak` (a file outside the folders, or Python's internals, in an output),
    `control` (a control character printed) or `over` (a template's value over the caps)."""

    def __init__(self, kind: str, detail: str):
        super().__init__(detail)
        self.kind = kind


def _replays(scenario: Path, events: list[dict], seed: int, clock: "_Clock") -> None:
    """record -> replay gives the same events, or the recording is refused (ValueError)."""
    from dsl.errors import DramaError
    from dsl.pipeline import replay
    from dsl.syntax.printer import normalise, record
    with clock("record"):
        try:
            text = record(events, scenario=scenario)
        except ValueError:
            return                      # refused at recording time, with a clear error
    with clock("replay"):
        try:
            again = replay(scenario, text, seed=seed)
        except DramaError as error:
            raise Broken("replay", f"the recorded script does not replay: {error.format()}") from None
    if normalise(again) != normalise(events):
        first = next((i for i, (a, b) in enumerate(zip(normalise(events), normalise(again))) if a != b),
                     min(len(events), len(again)))
        raise Broken("replay", f"the recorded script replays to other events (from event {first})")


def _shown(text: str, what: str) -> None:
    """An output holds nothing read outside the folders and no description of a Python object."""
    if SECRET in text:
        raise Broken("leak", f"{what} shows a file outside the template folders")
    found = INTERNALS.search(text)
    if found:
        raise Broken("leak", f"{what} shows Python's internals: {text[max(0, found.start() - 40):found.end() + 40]!r}")


def _rendered(case: Case, scenario: Path, events: list[dict], clock: "_Clock") -> None:
    """The case's template rendered with the run's events: E601 or text, nothing read outside,
    no internals, its peak memory (traced) under TEMPLATE_MEMORY."""
    import tracemalloc
    from dsl.errors import DramaError
    from dsl.render import render
    template = scenario.parent / case.template
    tracemalloc.start()
    try:
        with clock("dsl.render, a template"):
            try:
                text = render(events, template=template)
            except DramaError as error:
                text = error.format()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    _shown(text, "a template's output")
    if peak > TEMPLATE_MEMORY:
        raise Broken("over", f"a template traced {peak / 2**20:.0f} MiB while rendering")


def _saved_log(case: Case, scenario: Path, clock: "_Clock") -> None:
    from dsl.errors import CODES, DramaError
    from dsl.render import read_event_log, render
    with clock("read_event_log"):
        try:
            events = read_event_log(scenario.parent / case.log)
        except DramaError as error:
            assert error.code in CODES
            error.format()
            return
    for fmt in ("text", "html"):
        with clock(f"dsl.render, a saved log ({fmt})"):
            try:
                render(events, format=fmt)
            except DramaError as error:
                error.format()


@dataclass
class Outcome:
    kind: str               # ok, error, traceback, hang, memory; replay, leak, control, over
    seconds: float          # the slowest call of the case
    detail: str = ""        # the traceback, or what hung
    slowest: str = ""       # which call that was


class Workspace:
    """A copy of the bundled scenarios, where each case's file is put in place and taken back."""

    def __init__(self, folder: Path):
        self.folder = Path(folder)
        if not (self.folder / "emberfall").exists():
            shutil.copytree(SCENARIOS, self.folder, dirs_exist_ok=True)
        # outside every scenario's and template's folder: what no case may show
        self.outside = self.folder.parent / (self.folder.name + "-outside")
        (self.outside / "sub").mkdir(parents=True, exist_ok=True)
        for name in ("secret.j2", "sub/linked.j2"):
            (self.outside / name).write_text(SECRET + "\n", encoding="utf-8")
        self.fifo = self.outside / "fifo"
        if hasattr(os, "mkfifo") and not self.fifo.exists():
            os.mkfifo(self.fifo)

    def _target(self, text: str) -> Path:
        target = text[3:].strip()
        return {"@SECRET": self.outside / "secret.j2", "@OUTSIDE": self.outside / "sub",
                "@FIFO": self.fifo}.get(target, self.folder / target)

    @contextmanager
    def placed(self, case: Case):
        path = self.folder / case.base / case.file
        original = path.read_bytes()
        path.write_bytes(case.content)
        made: list[Path] = []
        try:
            for name, text in case.extra.items():
                extra = self.folder / case.base / name
                extra.parent.mkdir(parents=True, exist_ok=True)
                if extra.is_symlink() or extra.exists():
                    continue            # (never over a bundled file)
                if text.startswith("-> "):
                    extra.symlink_to(self._target(text))
                else:
                    extra.write_text(text, encoding="utf-8", errors="surrogatepass")
                made.append(extra)
            yield self.folder / case.base / case.entry
        finally:
            path.write_bytes(original)
            for extra in made:
                extra.unlink()


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
    if case.log:
        _saved_log(case, scenario, clock)
    if not full:
        try:
            with clock("Program.compile"):
                program = dsl.Program.compile(scenario)
            with clock("Program.run"):
                events = program.run(seed=case.seed)
        except DramaError as error:
            clean(error)
            return outcome
        _replays(scenario, events, case.seed, clock)
        if case.template:
            _rendered(case, scenario, events, clock)
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
    except DramaError as error:
        clean(error)
    else:
        _replays(scenario, events, case.seed, clock)
        if case.template:
            _rendered(case, scenario, events, clock)
        try:
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
    commands = [["check", str(scenario)], ["run", str(scenario), "--seed", str(case.seed)]]
    if case.template:
        commands.append(["run", str(scenario), "--seed", str(case.seed), "--template",
                         str(scenario.parent / case.template)])
    if case.log:
        commands.append(["render", str(scenario.parent / case.log)])
    for args in commands:
        with clock(f"drama {args[0]}"):
            result = CliRunner().invoke(main, args, prog_name="drama", catch_exceptions=True)
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            raise result.exception
        output = result.stdout + result.stderr
        if "Traceback" in output:
            raise AssertionError(f"drama {' '.join(args)} printed a traceback:\n{output[-3000:]}")
        if result.exit_code not in (0, 1, 2):
            raise AssertionError(f"drama {' '.join(args)} exited with {result.exit_code}")
        control = CONTROL.search(output)
        if control:
            raise Broken("control", f"drama {args[0]} printed the control character "
                                    f"U+{ord(control.group()):04X}: {output[max(0, control.start() - 60):control.end() + 20]!r}")
        _shown(output, f"drama {args[0]}")
        if result.exit_code:
            outcome = "error"
    return outcome


def _through_command_too(case: Case) -> bool:
    return case.command or (case.kind == "shape" and CONTROL.search(case.content.decode("utf-8", "replace"))
                            is not None)


def run_case(case: Case, workspace: Workspace, *, seconds: float = 10, full: bool = True) -> Outcome:
    """Run one case through the API (and the command, if `case.command`), and classify it;
    each call has `seconds` (a hang), and the outcome gives the slowest. Not `full`:
    only `dsl.check` and a compiled run (the long run's quick cases)."""
    clock = _Clock(seconds)
    try:
        with workspace.placed(case) as scenario:
            kind = _through_api(case, scenario, clock, full)
            if _through_command_too(case):
                kind = max(kind, _through_command(case, scenario, clock), key=["ok", "error"].index)
    except Hang as hang:
        return Outcome("hang", clock.slowest[0], str(hang), clock.slowest[1])
    except Broken as broken:
        return Outcome(broken.kind, clock.slowest[0], str(broken), clock.slowest[1])
    except MemoryError:
        return Outcome("memory", clock.slowest[0], traceback.format_exc(limit=-8), clock.slowest[1])
    except Exception:       # noqa: BLE001 - anything but a DramaError is what we look for
        return Outcome("traceback", clock.slowest[0], traceback.format_exc(limit=-12), clock.slowest[1])
    return Outcome(kind, clock.slowest[0], "", clock.slowest[1])


def kept_cases() -> list[tuple[str, Case]]:
    """The regression cases kept in tests/fuzz/cases/ (name, case)."""
    return [(path.stem, Case.from_json(path.read_text(encoding="utf-8")))
            for path in sorted(CASES.glob("*.json"))]
