"""The fast path of `drama simulate` (`dsl/interpreter/fastpath.py`) against the interpreter.

Random scripts of the statements a simulation meets (rounds, holds,
recoveries, actions with and without defences, dice rolled or given, `if`
and `repeat` on defeats, quintessence and rounds) run both ways with the same
seeds, in the SIMULATE mode: the events must be the same, event for event,
and an error the same error at the same place. Scripts with what the fast
path does not take (a `tie` line, a condition on the last exchange) run in
the interpreter, and `Program.fast_path` says why.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import drama, write
from dsl.errors import DramaError
from dsl.interpreter import SIMULATE
from dsl.pipeline import Program

CAST = """\
parties:
  Ash:
    quintessence: {q[0]}
    traits: {{Blades: 2, Grit: 1}}
    treasures: {{Longsword: 2}}
    moves: {{strike: Blades + Longsword, defend: Grit}}
  Wren:
    quintessence: {q[1]}
    traits: {{Aim: 2}}
    treasures: {{Bow: 1, Cloak: 1}}
    moves: {{strike: Aim + Bow, defend: Cloak}}
  Chief:
    quintessence: {q[2]}
    traits: {{Brutality: 3}}
    treasures: {{Axe: 1}}
    moves: {{strike: Brutality + Axe}}
  Raiders:
    members: [Gall, Brisk]
    quintessence: {q[3]}
    traits: {{Numbers: 1}}
"""
SETTING = "name: Test\nround: 6 seconds\ndice: {{sides: 6, high: 6}}\nties: {ties}\n"
PARTIES = ("Ash", "Wren", "Chief", "Raiders")

party = st.sampled_from(PARTIES)
dice = st.sampled_from(["roll"] * 12 + ["roll 1", "roll 2", "rolled 6 1", "rolled 3"])


USES = {"Ash": ["", "", " with Blades + Longsword", " with Grit"], "Wren": ["", " with Aim + Cloak"],
        "Chief": ["", " with Brutality"], "Raiders": ["", " with Numbers"]}


@st.composite
def exchange(draw, actor):
    target = draw(st.sampled_from([p for p in PARTIES if p != actor] * 20 + [actor]))
    uses = draw(st.sampled_from(USES[actor]))
    lines = [f"{actor} strike -> {target}{uses}, {draw(dice)}"]
    if draw(st.integers(0, 4)):
        defender = target if draw(st.integers(0, 25)) else draw(party)
        lines.append(f"{defender} defends, {draw(dice)}")
    return "\n".join(lines)


@st.composite
def turns(draw):
    """`round`, then a few parties strike (each once, mostly)."""
    actors = draw(st.lists(party, min_size=1, max_size=4, unique=draw(st.integers(0, 5)) > 0))
    head = ["round"] if draw(st.integers(0, 5)) else []
    return "\n".join(head + [draw(exchange(actor)) for actor in actors])


@st.composite
def condition(draw, depth=0):
    kind = draw(st.integers(0, 5 if depth < 1 else 3))
    if kind == 0:
        return f"{draw(party)} is {draw(st.sampled_from(['', 'not ']))}defeated"
    if kind == 1:
        return f"{draw(party)} was defeated"
    if kind == 2:
        return f"{draw(party)} quintessence {draw(st.sampled_from(['<', '>=', '=']))} {draw(st.integers(0, 6))}"
    if kind == 3:
        return f"round > {draw(st.integers(1, 4))}"
    if kind == 4:
        return f"{draw(condition(depth + 1))} and {draw(condition(depth + 1))}"
    return f"not {draw(condition(depth + 1))} or {draw(condition(depth + 1))}"


@st.composite
def body(draw, depth=0):
    lines = []
    for _ in range(draw(st.integers(1, 6))):
        kind = draw(st.integers(0, 9 if depth < 2 else 5))
        if kind <= 2:
            lines.append(draw(turns()))
        elif kind == 3:
            lines.append("round")
        elif kind == 4:
            lines.append(f"{draw(party)} holds")
        elif kind == 5:
            lines.append(f"{draw(party)} recovers")
        elif kind <= 7:
            arms = [f"if {draw(condition())}", draw(body(depth + 1))]
            if draw(st.booleans()):
                arms += [f"else if {draw(condition())}", draw(body(depth + 1))]
            if draw(st.booleans()):
                arms += ["else", draw(body(depth + 1))]
            lines += arms + ["end"]
        else:
            head = draw(st.sampled_from([f"repeat until {draw(condition())}, at most 4 rounds",
                                         f"repeat {draw(st.integers(0, 3))} times"]))
            lines += [head, draw(body(depth + 1)), "end"]
    return "\n".join(lines)


@st.composite
def scripts(draw):
    parts = []
    for _ in range(draw(st.integers(1, 2))):
        parts += ['drama "Fight" with Ash, Wren, Chief, Raiders', "initiative", "round", draw(body()), "end drama"]
        if draw(st.booleans()):     # after the situation: `was` is not `is` any more
            asked = draw(st.one_of(st.builds("{} was defeated".format, party), condition()))
            parts += [f"if {asked}", "rest 1 days", "else", "calm 2 rounds", "end"]
        if draw(st.booleans()):
            parts.append("rest 2 days")
    return "\n".join(parts) + "\n"


def outcome(run):
    """The events of a run, or the error it stops at."""
    try:
        return run()
    except DramaError as error:
        return (error.code, error.message, error.position)


def compiled_program(folder: Path, script: str, quintessence, ties: str) -> Program | None:
    write(folder, "setting.yaml", SETTING.format(ties=ties))
    write(folder, "cast.yaml", CAST.format(q=quintessence))
    write(folder, "script.drama", script)
    path = write(folder, "scenario.yaml", "title: T\nsetting: setting.yaml\ncast: cast.yaml\nscript: script.drama\n")
    try:
        return Program.compile(path)
    except DramaError:
        return None         # a script the checker refuses (an unknown name in a branch, say)


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scripts(), st.lists(st.integers(1, 6), min_size=4, max_size=4),
       st.sampled_from(["random", "actor", "defender", "vote"]))
def test_the_fast_path_gives_the_interpreters_events(script, quintessence, ties):
    with tempfile.TemporaryDirectory() as folder:
        program = compiled_program(Path(folder), script, quintessence, ties)
        if program is None:
            return
        fast, why = program.fast_path()
        assert fast is not None, why
        for seed in range(4):
            mine = outcome(lambda: program.run(seed=seed, lenient=True, mode=SIMULATE))
            theirs = outcome(lambda: program.interpreter(seed=seed, lenient=True, mode=SIMULATE)
                             .run(program.script))
            assert mine == theirs


def test_what_the_fast_path_does_not_take_runs_in_the_interpreter(tmp_path):
    script = ('drama "Fight" with Ash, Wren\ninitiative\nAsh strike -> Wren, roll\nWren defends, roll\n'
              "tie Ash\nend drama\n")
    program = compiled_program(tmp_path, script, [5, 5, 5, 5], "random")
    fast, why = program.fast_path()
    assert fast is None and why == f"{tmp_path / 'script.drama'}:5: a `tie` line in an exchange"
    events = program.run(seed=3, lenient=True, mode=SIMULATE)
    assert events == program.interpreter(seed=3, lenient=True, mode=SIMULATE).run(program.script)
