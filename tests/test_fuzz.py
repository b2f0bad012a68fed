"""Fuzzing `drama check` end to end: random text, random bytes, random mutations
of valid scripts, and random mutations of the YAML files. Whatever the input, the
only outcomes are exit 0 (`... ok`) or exit 1 with well-formed error reports
(`file:line:col: error[E...]: ...`), never a traceback, never another exception,
never a hang.

Budget: a few hundred examples in all, well under 40 s on a slow 2-core machine.
"""

from __future__ import annotations

import json
import re
import signal
import threading
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings, strategies as st

import dsl
from conftest import (EMBERFALL_CAST, EMBERFALL_SETTING, ERROR_HEAD, THRONE_HALL, drama, scenario_yaml, write)
from dsl.errors import CODES, DramaError

# a slow example is a failure long before it is a hang
FUZZ = settings(deadline=timedelta(seconds=5), suppress_health_check=[HealthCheck.too_slow])


def fuzz(examples: int) -> settings:
    return settings(FUZZ, max_examples=examples)
# a hard limit per example, for a real hang (deadline only measures examples that end)
HANG_SECONDS = 30

CANONICAL = """\
scene "The Throne Hall of Emberfall"          # a heading in the transcript
> Torches gutter as the heroes kick open the doors.   # narration, passed through

drama "Throne Hall" with Kara, Bren, Overlord, Goblins   # a dramatic situation begins
initiative                                    # everyone rolls (R12)
initiative Kara 5 4, Bren 5 2, Overlord 6, Goblins 3
round                                         # the next round begins (R13)
Kara fireball -> Overlord but not tapestries +Goblins
round
Kara fireball -> Overlord but not tapestries +Goblins with Sorcery + Ember Staff, rolled 6 6 4
Overlord defends with Cunning + Obsidian Crown, rolled 5 1       # a defence (R9)
Goblins defend with Numbers                                      # `defend` or `defends`
Kara dictates "the chandelier crashes down"   # double-win option (R8)
round
Kara "leaps the chasm" vs 7 with Agility, GM +1, roll 1          # against a GM target (R5)
tie GM
Kara & Bren "pin the Overlord to his throne" -> Overlord
  Kara with Sorcery + Lucky Coin, rolled 6 5
  Bren with Strength + Iron Shield, rolled 3
Goblins & Overlord defend                     # a joint defence takes the same indented form
  Goblins with Numbers + Rusty Spears, rolled 4
  Overlord with Cunning
split Goblins 2, Overlord 1                   # how the winner spreads a side's loss (R10)
Bren recovers, rolled 6 4 2, then 5 3         # recovery (R14); inside drama it is rushed (R15)
Kara recovers with Sorcery, helped by Bren with Healing, roll   # with re-roll bonuses
end drama "The Overlord falls."               # the dramatic situation ends
calm 1 hour                                   # in-world time passes
rest 2 days                                   # rest (R16)
"""

KEYWORDS = ["scene", "drama", "with", "initiative", "round", "defends", "defend", "holds", "vs", "but", "not",
            "so", "that", "GM", "rolled", "roll", "tie", "split", "dictates", "rerolls", "recovers", "helped",
            "by", "then", "rerolled", "end", "calm", "rest", "->", "&", "+", "-", ",", ">", "#", '"', "\\",
            "Kara", "Bren", "Overlord", "Goblins", "Sorcery", "Ember Staff", "Numbers", "hour", "days", "rounds"]
WORDS = st.one_of(
    st.sampled_from(KEYWORDS),
    st.integers(-10**12, 10**12).map(str),
    st.text(alphabet=st.characters(codec="utf-8"), min_size=1, max_size=8),
    st.from_regex(r"[A-Za-z][a-z']{0,8}", fullmatch=True),
)

YAML_VALUES = ["0", "-1", "3", "1e9", "99999999999999999999", "~", "null", "true", "no", "''", '""', "[]", "{}",
               "[1, 2", "{a: 1", "&a x", "*a", "*nowhere", "!!python/object:os.system x", "!!binary aGk=",
               "!custom x", "|", ">", "- x", ": x", "?", "%YAML 1.1", "---", "...", "'unterminated", "\t",
               "6 seconds", "0 seconds", "1 fortnight", "vote", "random", "Sorcery + Ember Staff", "Sorcery +",
               "+ Ember Staff", "Sorcery + Sorcery", "Numbers + Rusty Spears + Rope", "{sides: 1, high: 1}",
               "{sides: 6, high: 7}", "[Snik, [Grub]]", "Kara", "GM", "a & b", "<<: *a", "\u00e9\u4e2d\U0001F600"]


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("fuzz")
    write(path, "setting.yaml", EMBERFALL_SETTING)
    write(path, "cast.yaml", EMBERFALL_CAST)
    write(path, "script.drama", THRONE_HALL)
    write(path, "scenario.yaml", scenario_yaml("script.drama"))
    # build the parser (and its cache) before any timed example
    assert drama("check", path / "scenario.yaml").code == 0
    return path


@contextmanager
def time_limit(seconds: int):
    """Fail an example that runs longer than `seconds` (Unix, main thread only)."""
    usable = hasattr(signal, "SIGALRM") and threading.current_thread() is threading.main_thread()
    if not usable:
        yield
        return

    def hang(signum, frame):
        raise TimeoutError(f"drama check ran for more than {seconds} s: a hang")

    previous = signal.signal(signal.SIGALRM, hang)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


# the count after several errors and warnings: `3 errors`, `1 error, 2 warnings`, `2 warnings`
_SUMMARY = r"\d+ errors?(?:, \d+ warnings?)?|\d+ warnings?"


def check_cli(folder: Path) -> None:
    """`drama check` on the folder's scenario: exit 0 with `ok`, or exit 1 with
    well-formed error reports only."""
    scenario = folder / "scenario.yaml"
    with time_limit(HANG_SECONDS):
        outcome = drama("check", scenario)       # asserts: no exception but SystemExit, no traceback
    if outcome.code == 0:
        # warnings only (W004 comes with any `roll` under `ties: vote`)
        assert outcome.stdout == f"{scenario}: ok\n"
        for line in outcome.stderr.splitlines():
            head = ERROR_HEAD.match(line)
            assert (head and head["warning"]) or line.startswith(" ") or re.fullmatch(r"\d+ warnings", line), line
        return
    assert outcome.code == 1, outcome.output
    assert outcome.stdout == ""
    # KNOWN BUG (test_errors.py::test_unknown_key_with_a_line_break_stays_on_one_line):
    # an unknown YAML key with a line break is printed raw over two lines. Such
    # examples are set aside so that the fuzzing goes on looking for other faults.
    assume(not re.search(r"error\[E103\]: unknown key '[^'\n]*\n", outcome.stderr))
    lines = [line for line in outcome.stderr.split("\n") if line.strip()]
    heads = [ERROR_HEAD.match(line) for line in lines]
    heads = [h for h in heads if h]
    assert heads, outcome.stderr
    assert ERROR_HEAD.match(lines[0]), outcome.stderr
    for head in heads:
        assert (head["code"] or head["warning"]) in CODES, head.group()
        assert int(head["line"]) >= 1 and int(head["col"]) >= 1, head.group()
    for line in lines:
        assert ERROR_HEAD.match(line) or line.startswith(" ") or re.fullmatch(_SUMMARY, line), line
    summary = [line for line in lines if re.fullmatch(_SUMMARY, line)]
    errors = sum(1 for h in heads if h["code"])
    warnings = len(heads) - errors
    if len(heads) > 1:
        said = ([f"{errors} {'error' if errors == 1 else 'errors'}"] if errors else []) + \
            ([f"{warnings} {'warning' if warnings == 1 else 'warnings'}"] if warnings else [])
        assert summary == [", ".join(said)], outcome.stderr
    else:
        assert summary == []


def check_api(folder: Path) -> None:
    """`dsl.check`: a list of DramaError with known codes, each of which formats."""
    with time_limit(HANG_SECONDS):
        errors = dsl.check(str(folder / "scenario.yaml"))
    assert isinstance(errors, list)
    for error in errors:
        assert isinstance(error, DramaError) and error.code in CODES
        text = error.format()
        kind = "warning" if error.is_warning else "error"
        assert f"{kind}[{error.code}]: " in text.split("\n")[0]


def put_script(folder: Path, text: str | bytes) -> None:
    write(folder, "script.drama", text)
    write(folder, "scenario.yaml", scenario_yaml("script.drama"))


# ---------------------------------------------------------------------------
# random text and bytes

ANY_TEXT = st.text(alphabet=st.characters(codec="utf-8"), max_size=200)
# control characters, odd line breaks and keywords, in pieces
CONTROL_TEXT = st.lists(st.one_of(
    st.characters(min_codepoint=0, max_codepoint=0x1F), st.sampled_from("\u0085\u2028\u2029\ufeff\u200b\x7f"),
    st.sampled_from(["\n", "\r\n", "\r", "\t", " ", "  ", '"', "#", ">", "->", "&", ",", "+", "-"]),
    st.sampled_from(KEYWORDS)), max_size=60).map(" ".join)


@fuzz(80)
@given(text=st.one_of(st.text(max_size=200), ANY_TEXT, CONTROL_TEXT))
def test_random_text(folder, text):
    put_script(folder, text)
    check_cli(folder)


@fuzz(40)
@given(data=st.binary(max_size=120))
def test_random_bytes(folder, data):
    put_script(folder, data)
    check_cli(folder)


@fuzz(40)
@given(text=st.one_of(st.text(max_size=120), CONTROL_TEXT))
def test_random_text_through_the_api(folder, text):
    put_script(folder, text)
    check_api(folder)


# ---------------------------------------------------------------------------
# mutations of valid scripts

@st.composite
def mutated_lines(draw, base: str) -> str:
    lines = base.split("\n")
    for _ in range(draw(st.integers(1, 4))):
        if not lines:
            lines = [""]
        op = draw(st.sampled_from(["delete", "duplicate", "swap", "replace", "insert", "truncate", "indent",
                                   "join"]))
        i = draw(st.integers(0, len(lines) - 1))
        line = lines[i]
        if op == "delete":
            del lines[i]
        elif op == "duplicate":
            lines.insert(draw(st.integers(0, len(lines))), line)
        elif op == "swap":
            j = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
        elif op in ("replace", "insert"):
            tokens = line.split(" ")
            k = draw(st.integers(0, len(tokens) - (1 if op == "replace" else 0)))
            word = draw(WORDS)
            if op == "replace":
                tokens[k] = word
            else:
                tokens.insert(k, word)
            lines[i] = " ".join(tokens)
        elif op == "truncate":
            cut = draw(st.integers(0, len(line)))
            if draw(st.booleans()):
                lines[i] = line[:cut]
            else:
                lines = lines[:i] + [line[:cut]]
        elif op == "indent":
            lines[i] = draw(st.sampled_from(["  ", "\t", " "])) + line if not line[:1].isspace() else line.lstrip()
        elif op == "join" and i + 1 < len(lines):
            lines[i:i + 2] = [line + draw(st.sampled_from([" ", ", ", " # ", ""])) + lines[i + 1]]
    return "\n".join(lines)


@fuzz(70)
@given(text=st.one_of(mutated_lines(THRONE_HALL), mutated_lines(CANONICAL)))
def test_mutated_scripts(folder, text):
    put_script(folder, text)
    check_cli(folder)


@fuzz(30)
@given(text=mutated_lines(THRONE_HALL))
def test_mutated_scripts_lenient_run(folder, text):
    """`drama run --lenient` as well: exit 0 with events, or exit 1 with an error."""
    put_script(folder, text)
    with time_limit(HANG_SECONDS):
        outcome = drama("run", folder / "scenario.yaml", "--lenient", "--format", "json")
    assert outcome.code in (0, 1), outcome.output
    if outcome.code == 1:
        assert ERROR_HEAD.match(outcome.stderr.split("\n")[0]), outcome.stderr
        # the JSON event log is streamed: what was written before the error is
        # whole events, one a line, and never the `final` one
        streamed = [json.loads(line) for line in outcome.stdout.splitlines()]
        assert outcome.stdout == "" or outcome.stdout.endswith("\n")
        assert all(event["type"] != "final" for event in streamed)
    else:
        assert outcome.stdout.startswith('{"type": "start"') and outcome.stderr == ""


@fuzz(30)
@given(text=st.one_of(mutated_lines(THRONE_HALL), mutated_lines(CANONICAL)), lenient=st.booleans(),
       seed=st.integers(0, 5))
def test_check_finds_an_error_exactly_when_run_fails(folder, text, lenient, seed):
    """`drama check` is clean if and only if `drama run` succeeds (same seed and
    mode), and the error `run` stops at is one of those `check` prints."""
    put_script(folder, text)
    args = ["--seed", str(seed)] + (["--lenient"] if lenient else [])
    with time_limit(HANG_SECONDS):
        checked = drama("check", folder / "scenario.yaml", *args)
        ran = drama("run", folder / "scenario.yaml", *args)
    assert (checked.code == 0) == (ran.code == 0), (checked.output, ran.output)
    if ran.code:
        first = ran.stderr.split("\n")[0]
        assert ERROR_HEAD.match(first) and first in checked.stderr.split("\n"), (checked.stderr, ran.stderr)


# ---------------------------------------------------------------------------
# mutations of the YAML files

@st.composite
def mutated_yaml(draw, base: str) -> str:
    lines = base.split("\n")
    for _ in range(draw(st.integers(1, 3))):
        if not lines:
            lines = [""]
        op = draw(st.sampled_from(["delete", "duplicate", "swap", "value", "key", "indent", "truncate", "insert"]))
        i = draw(st.integers(0, len(lines) - 1))
        line = lines[i]
        if op == "delete":
            del lines[i]
        elif op == "duplicate":
            lines.insert(draw(st.integers(0, len(lines))), line)
        elif op == "swap":
            j = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
        elif op == "value" and ":" in line:
            key = line.split(":", 1)[0]
            lines[i] = f"{key}: {draw(st.one_of(st.sampled_from(YAML_VALUES), WORDS))}"
        elif op == "key" and ":" in line:
            key, rest = line.split(":", 1)
            indent = key[: len(key) - len(key.lstrip())]
            new = draw(st.one_of(st.sampled_from(["name", "quintesence", "traits", "moves", "ties", "parties",
                                                  "Kara", "<<", "? x", "- y", "round", "dice", ""]), WORDS))
            lines[i] = f"{indent}{new}:{rest}"
        elif op == "indent":
            lines[i] = draw(st.sampled_from(["", " ", "  ", "    ", "\t"])) + line.lstrip()
        elif op == "truncate":
            lines[i] = line[: draw(st.integers(0, len(line)))]
        elif op == "insert":
            lines.insert(i, draw(st.sampled_from(YAML_VALUES)))
    return "\n".join(lines)


@fuzz(60)
@given(cast=mutated_yaml(EMBERFALL_CAST))
def test_mutated_cast(folder, cast):
    put_script(folder, THRONE_HALL)
    write(folder, "cast.yaml", cast)
    try:
        check_cli(folder)
    finally:
        write(folder, "cast.yaml", EMBERFALL_CAST)


@fuzz(40)
@given(setting=mutated_yaml(EMBERFALL_SETTING))
def test_mutated_setting(folder, setting):
    put_script(folder, THRONE_HALL)
    write(folder, "setting.yaml", setting)
    try:
        check_cli(folder)
    finally:
        write(folder, "setting.yaml", EMBERFALL_SETTING)


INLINE = "title: Inline\nsetting: setting.yaml\ncast: cast.yaml\nscript: |\n" + "".join(
    f"  {line}\n" if line else "\n" for line in THRONE_HALL.split("\n")[:20])


@fuzz(40)
@given(scenario=mutated_yaml(INLINE))
def test_mutated_scenario_with_an_inline_script(folder, scenario):
    write(folder, "scenario.yaml", scenario)
    check_cli(folder)
