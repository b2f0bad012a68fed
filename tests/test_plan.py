"""The compiled plan of `drama simulate` (`dsl/simulation_plan.py`) against the interpreter, run for run.

Random scripts of what the plan takes (duels rolled or with dice given, `round`,
`initiative`, `if` and `repeat` on defeats, quintessence, damage, rounds,
flags and counters, `set`, `end drama` in every arm of an `if`, `calm` and
`rest` after it, a second situation) with random pools, tie policies and
starting state: each run's counts through the plan (`Tally.into`) must be
the `Aggregate` that the interpreter's summary of the same seed makes, and
whole ranges of runs the same counts either way; a run the plan gives up on
(`Bail`: a party acting twice in a round, an `initiative` after an action)
is counted by the interpreter, with its error if it has one. The bundled
skirmish, planned, gives the report of the interpreter byte for byte, and
its runs are those of `drama run --seed`.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from conftest import ROOT, drama, write
from dsl.errors import DramaError
from dsl.simulate import Aggregate, _one_run, prepare, render, run_range, run_seed, simulate, summarise
from dsl.simulation_plan import Bail

SKIRMISH = ROOT / "scenarios" / "skirmish" / "scenario.yaml"

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
    moves: {{strike: Brutality + Axe, defend: Brutality}}
  Raiders:
    members: [Gall, Brisk]
    quintessence: {q[3]}
    traits: {{Numbers: 1}}
    moves: {{strike: Numbers, defend: Numbers}}
{state}"""
SETTING = "name: Test\nround: 6 seconds\ndice: {{sides: {sides}, high: {high}}}\nties: {ties}\n"
PARTIES = ("Ash", "Wren", "Chief", "Raiders")

party = st.sampled_from(PARTIES)
dice = st.sampled_from(["roll"] * 10 + ["roll 1", "roll 2", "rolled 6 1", "rolled 3"])


@st.composite
def duel(draw, actor):
    target = draw(st.sampled_from([p for p in PARTIES if p != actor]))
    return f"{actor} strike -> {target}, {draw(dice)}\n{target} defends, {draw(dice)}"


@st.composite
def turns(draw):
    """`round`, then a few parties strike (each once, mostly)."""
    actors = draw(st.lists(party, min_size=1, max_size=4, unique=draw(st.integers(0, 6)) > 0))
    head = ["round"] if draw(st.integers(0, 5)) else []
    return "\n".join(head + [draw(duel(actor)) for actor in actors])


@st.composite
def condition(draw, depth=0):
    kind = draw(st.integers(0, 8 if depth < 1 else 6))
    if kind == 0:
        return f"{draw(party)} is {draw(st.sampled_from(['', 'not ']))}defeated"
    if kind == 1:
        return f"{draw(party)} was defeated"
    if kind == 2:
        what = draw(st.sampled_from(["quintessence", "damage"]))
        return f"{draw(party)} {what} {draw(st.sampled_from(['<', '>=', '=', '!=']))} {draw(st.integers(0, 6))}"
    if kind == 3:
        return f"round > {draw(st.integers(1, 4))}"
    if kind == 4:
        return f"{draw(party)} quintessence + {draw(party)} quintessence > {draw(st.integers(0, 9))}"
    if kind == 5:
        return draw(st.sampled_from(["lost", "not lost", "spotted"]))       # flags, set or not
    if kind == 6:
        return f"gold {draw(st.sampled_from(['<', '>=']))} {draw(st.integers(0, 6))}"    # a counter, set or not
    if kind == 7:
        return f"{draw(condition(depth + 1))} and {draw(condition(depth + 1))}"
    return f"not {draw(condition(depth + 1))} or {draw(condition(depth + 1))}"


@st.composite
def body(draw, depth=0):
    lines = []
    for _ in range(draw(st.integers(1, 5))):
        kind = draw(st.integers(0, 8 if depth < 2 else 4))
        if kind <= 2:
            lines.append(draw(turns()))
        elif kind == 3:
            lines.append("round")
        elif kind == 4:
            lines.append(draw(st.sampled_from(["initiative", "round", "set lost", "set lost = false",
                                               "set gold = gold + 1", f"set gold = {draw(party)} quintessence",
                                               "set gold = 3", "set spotted = true"])))
        elif kind <= 6:
            arms = [f"if {draw(condition())}", draw(body(depth + 1))]
            if draw(st.booleans()):
                arms += [f"else if {draw(condition())}", draw(body(depth + 1))]
            if draw(st.booleans()):
                arms += ["else", draw(body(depth + 1))]
            lines += arms + ["end"]
        else:
            head = draw(st.sampled_from([f"repeat until {draw(condition())}, at most {draw(st.integers(1, 5))} rounds",
                                         f"repeat {draw(st.integers(0, 3))} times"]))
            lines += [head, draw(body(depth + 1)), "end"]
    return "\n".join(lines)


@st.composite
def scripts(draw):
    parts = []
    for number in range(draw(st.integers(1, 2))):
        who = draw(st.sampled_from(["Ash, Wren, Chief, Raiders"] * 3 + ["Ash, Chief, Raiders, Wren",
                                                                     "Ash, Wren, Chief, Raiders, rounds of 1 hour"]))
        parts += ['scene "The Ford"', f'drama "Fight" with {who}', "initiative", draw(body())]
        if draw(st.booleans()):
            parts += [f"if {draw(condition())}", 'end drama "won"', "else", "end drama", "end"]
        else:
            parts += ["end drama"]
        if draw(st.booleans()):     # after the situation: `was` is not `is` any more
            parts += [f"if {draw(condition())}", "> The mist lifts.", "end"]
        parts += draw(st.lists(st.sampled_from(["rest 1 day", "rest 2 days", "calm 1 hour", "rest 1 hour"]),
                               max_size=2))
    return "\n".join(parts) + "\n"


def planned(folder: Path, script: str, quintessence, setting: tuple, state: str = ""):
    sides, high, ties = setting
    write(folder, "setting.yaml", SETTING.format(sides=sides, high=high, ties=ties))
    write(folder, "cast.yaml", CAST.format(q=quintessence, state=state))
    write(folder, "script.drama", script)
    path = write(folder, "scenario.yaml", "title: T\nsetting: setting.yaml\ncast: cast.yaml\nscript: script.drama\n")
    try:
        return prepare(str(path))
    except DramaError:
        return None         # a script the checker refuses


def interpreted(prepared, index: int, seed: int) -> Aggregate:
    total = Aggregate()
    _one_run(prepared, total, index, seed)
    return total


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scripts(), st.lists(st.integers(0, 7), min_size=4, max_size=4),
       st.sampled_from([(6, 6, "random"), (6, 5, "actor"), (6, 6, "defender"), (6, 6, "vote"), (8, 7, "random"),
                        (20, 18, "random")]),
       st.integers(0, 2 ** 32), st.sampled_from(["state: {gold: 2, lost: false, spotted: false}\n",
                                                 "state: {lost: true, gold: 0, spotted: true}\n"] * 4 + [""]))
def test_a_planned_run_counts_what_the_interpreters_run_counts(script, quintessence, setting, seed, state):
    with tempfile.TemporaryDirectory() as folder:
        prepared = planned(Path(folder), script, quintessence, setting, state)
        if prepared is None:
            event("a script the checker refuses")
            return
        plan, why = prepared.plan()
        assert plan is not None, why
        for index in range(6):
            engine_seed = run_seed(seed, index)
            tally = plan.tally()
            try:
                plan.runner(tally)(engine_seed)
            except Bail:
                assert tally.completed == 0         # nothing counted: the interpreter runs it
                event("a run given up on")
                continue
            event("a run planned")
            tally.first = index
            mine = Aggregate()
            tally.into(mine)
            assert mine == interpreted(prepared, index, engine_seed), plan.source
        # a range of runs, given up on or not, counts the same either way
        with_plan = run_range(prepared, seed, 0, 8)
        prepared._plan = (None, "turned off")
        assert with_plan == run_range(prepared, seed, 0, 8)


def test_a_run_the_plan_gives_up_on_is_the_interpreters(tmp_path):
    """Ash acting twice in a round (E309) and an `initiative` after an action (E312):
    the plan gives up, and the interpreter counts the run, with its error."""
    for script in ('drama "Fight" with Ash, Wren\nAsh strike -> Wren, roll\nWren defends, roll\n'
                   'Ash strike -> Wren, roll\nWren defends, roll\nend drama\n',
                   'drama "Fight" with Ash, Wren\nAsh strike -> Wren, roll\nWren defends, roll\ninitiative\n'):
        prepared = planned(tmp_path, script, [9, 9, 9, 9], (6, 6, "random"))
        plan, _ = prepared.plan()
        try:
            plan.runner(plan.tally())(run_seed(1, 0))
        except Bail:
            pass
        else:
            raise AssertionError("the plan took a run the interpreter stops")
        total = run_range(prepared, 1, 0, 3)
        assert total.failed == 3 and set(total.errors) <= {"E309", "E312"}


def test_what_the_plan_does_not_take_goes_the_old_way(tmp_path):
    prepared = planned(tmp_path, 'drama "Fight" with Ash, Wren\nAsh holds\nend drama\n', [5, 5, 5, 5],
                       (6, 6, "random"))
    plan, why = prepared.plan()
    assert plan is None and why == f"{tmp_path / 'script.drama'}:2: a `holds` line"
    assert run_range(prepared, 3, 0, 4).completed == 4


def test_a_script_too_long_to_plan_goes_the_old_way(tmp_path):
    """A long play log would be a plan of millions of lines: past MAX_LINES it is not planned."""
    exchanges = "round\nAsh strike -> Wren, roll\nWren defends, roll\n" * 1200
    prepared = planned(tmp_path, f'drama "Fight" with Ash, Wren\n{exchanges}end drama\n', [60, 60, 5, 5],
                       (6, 6, "random"))
    plan, why = prepared.plan()
    assert plan is None and why.startswith("a script too long to plan")
    assert run_range(prepared, 3, 0, 2).completed == 2


def test_the_skirmish_planned_gives_the_interpreters_report_byte_for_byte():
    prepared = prepare(str(SKIRMISH))
    assert prepared.plan()[0] is not None
    fast = render(simulate(prepared, 400, seed=5).report(), "json")
    slow = prepare(str(SKIRMISH))
    slow._plan = (None, "turned off")
    assert render(simulate(slow, 400, seed=5).report(), "json") == fast
    assert render(simulate(prepared, 400, seed=5, jobs=2).report(), "json") == fast


def test_each_planned_run_of_the_skirmish_is_the_run_of_drama_run_seed():
    """Run i of the skirmish through the plan counts what `drama run --seed
    run_seed(S, i) --lenient --roll-given` prints, for many seeds."""
    prepared = prepare(str(SKIRMISH))
    plan, _ = prepared.plan()
    for index in range(3):
        seed = run_seed(9, index)
        outcome = drama("run", SKIRMISH, "--seed", seed, "--lenient", "--roll-given", "--format", "json")
        assert outcome.code == 0, outcome.output
        printed = Aggregate()
        printed.add(index, summarise([json.loads(line) for line in outcome.stdout.splitlines()]))
        tally = plan.tally()
        plan.runner(tally)(seed)
        tally.first = index
        mine = Aggregate()
        tally.into(mine)
        assert mine == printed
    for index in range(300):
        seed = run_seed(2, index)
        tally = plan.tally()
        plan.runner(tally)(seed)        # (the skirmish never makes the plan give up)
        tally.first = index
        mine = Aggregate()
        tally.into(mine)
        assert mine == interpreted(prepared, index, seed)
