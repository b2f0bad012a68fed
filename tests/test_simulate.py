"""`drama simulate`: many runs with fresh dice, summarised with confidence intervals.

Through the `drama` command (click's CliRunner, and a real process for Ctrl-C)
and the package API (`dsl.simulate`). Every scenario is written here, into
tmp_path."""

from __future__ import annotations

import json
import math
import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import ROOT, drama, write
from dsl import DramaError
from dsl.simulate import (Aggregate, prepare, render, report, run_seed, simulate, summarise, wilson,
                          Simulation)

SETTING = """\
name: Test setting
round: 6 seconds
dice: {sides: 6, high: 6}
ties: random
"""

CAST = """\
parties:
  Ash:
    name: Ash the Sellsword
    quintessence: 9
    traits: {Blades: 2}
    treasures: {Longsword: 1}
  Raiders:
    name: the raiders
    members: [Gall, Brisk]
    quintessence: 9
    traits: {Numbers: 2}
  Weak:
    name: the weakling
    quintessence: 1
  Coin:
    name: the coin
    quintessence: 3
    traits: {Luck: 1}
"""

# a random but sturdy fight: nobody can be defeated in two rounds
FIGHT = """\
drama "Fight" with Ash, Raiders
initiative
Ash strikes -> Raiders with Blades + Longsword, roll
Raiders defend with Numbers, roll
round
Raiders stab -> Ash with Numbers, roll
Ash defends with Blades, roll
end drama
"""

# worked out by hand: Weak spends its only quintessence on `but not loudly`
# (R4), then fails a target it cannot reach: defeated (R7, point 5), every run.
# Coin rolls one die against a target it always beats, losing 1 on a one (R6).
BY_HAND = """\
drama "Gate" with Weak, Coin
Weak lifts vs 100 but not loudly
round
round
end drama
drama "Toss" with Weak, Coin
Coin tosses vs 0 with Luck, roll
end drama
"""

# a sixth of the runs stop on E304: Weak rolls a one (and loses its only
# quintessence), then cannot pay for the qualifier; outside drama, so nobody
# is defeated.
SOMETIMES_FAILS = """\
Ash waits vs 0
Weak tries vs 0, roll
Weak tries again vs 0 but not carelessly
"""


# run_seed(0, 0), run_seed(1, 0), run_seed(12345, 999): BLAKE2b("S:i"), 63 bits
PINNED = (7689419447139100721, 2964727883954193085, 7803586460377127473)


def scenario(folder: Path, script: str, name: str = "scenario.yaml") -> Path:
    write(folder, "setting.yaml", SETTING)
    write(folder, "cast.yaml", CAST)
    write(folder, "script.drama", script)
    return write(folder, name, "title: Simulated\nsetting: setting.yaml\ncast: cast.yaml\nscript: script.drama\n")


def simulate_json(path: Path, *args: str) -> tuple[str, dict]:
    outcome = drama("simulate", path, "--format", "json", *args)
    assert outcome.code == 0, outcome.output
    return outcome.stdout, json.loads(outcome.stdout)


def party(data: dict, pid: str) -> dict:
    return next(p for p in data["parties"] if p["id"] == pid)


def drama_of(data: dict, name: str) -> dict:
    return next(d for d in data["dramas"] if d["name"] == name)


def defeat(d: dict, pid: str) -> dict:
    return next(x for x in d["defeat"] if x["party"] == pid)


# ---------------------------------------------------------------------------
# determinism

def test_the_same_seed_gives_byte_identical_json_whatever_the_jobs(tmp_path):
    path = scenario(tmp_path, FIGHT)
    one, data = simulate_json(path, "--runs", "200", "--seed", "5", "--jobs", "1")
    two, _ = simulate_json(path, "--runs", "200", "--seed", "5", "--jobs", "2")
    again, _ = simulate_json(path, "--runs", "200", "--seed", "5")
    assert one == two == again
    assert data["completed"] == 200 and data["failed"] == 0 and not data["interrupted"]


def test_every_format_is_the_same_whatever_the_jobs(tmp_path):
    path = scenario(tmp_path, SOMETIMES_FAILS)
    for fmt in ("text", "md", "html"):
        outputs = {drama("simulate", path, "--runs", "40", "--seed", "3", "--jobs", jobs, "--format", fmt).stdout
                   for jobs in ("1", "2", "auto")}
        assert len(outputs) == 1, fmt


def test_different_seeds_give_different_results(tmp_path):
    path = scenario(tmp_path, FIGHT)
    _, first = simulate_json(path, "--runs", "200", "--seed", "1")
    _, second = simulate_json(path, "--runs", "200", "--seed", "2")
    assert party(first, "Ash")["quintessence"] != party(second, "Ash")["quintessence"]


def test_run_seeds_are_a_stable_derivation():
    # pinned: a change here changes every published simulation
    assert run_seed(0, 0) == run_seed(0, 0)
    assert [run_seed(7, i) for i in range(3)] == [run_seed(7, 0), run_seed(7, 1), run_seed(7, 2)]
    assert len({run_seed(s, i) for s in range(10) for i in range(100)}) == 1000
    assert all(0 <= run_seed(s, i) < 2 ** 63 for s in (0, 1, 10 ** 12) for i in (0, 5))
    assert (run_seed(0, 0), run_seed(1, 0), run_seed(12345, 999)) == PINNED


def test_a_run_is_the_run_that_drama_run_prints(tmp_path):
    """Run i of a simulation is `drama run --seed run_seed(S, i) --lenient --roll-given`,
    given dice included (they are rolled afresh)."""
    path = scenario(tmp_path, FIGHT.replace("Raiders defend with Numbers, roll", "Raiders defend with Numbers, rolled 6 6"))
    prepared = prepare(str(path))
    seed = run_seed(4, 17)
    events = prepared.run(seed, lean=False)
    outcome = drama("run", path, "--seed", seed, "--lenient", "--roll-given", "--format", "json")
    assert outcome.code == 0, outcome.output
    assert [json.loads(line) for line in outcome.stdout.splitlines()] == json.loads(json.dumps(events))
    # a simulation's lean log (no exchange mechanics) counts the same
    for index in range(40):
        seed = run_seed(4, index)
        assert summarise(prepared.run(seed)) == summarise(prepared.run(seed, lean=False))
    defence = [e for e in events if e["type"] == "exchange"][0]["sides"]["defender"]["efforts"][0]
    assert defence["rolled_by"] == "engine"


# ---------------------------------------------------------------------------
# the figures

def test_a_scenario_worked_out_by_hand(tmp_path):
    _, data = simulate_json(scenario(tmp_path, BY_HAND), "--runs", "1200", "--seed", "9")
    assert data["completed"] == 1200 and data["failed"] == 0
    assert [d["name"] for d in data["dramas"]] == ["Gate", "Toss"]
    gate, toss = drama_of(data, "Gate"), drama_of(data, "Toss")
    # Weak is defeated in every run of the Gate, never in the Toss
    assert defeat(gate, "Weak")["count"] == 1200 and defeat(gate, "Weak")["p"] == 1.0
    assert defeat(gate, "Coin")["count"] == 0 and defeat(gate, "Coin")["p"] == 0.0
    assert defeat(toss, "Weak")["count"] == 0
    assert gate["rounds"]["mean"] == 3 and gate["rounds"]["sd"] == 0 and gate["rounds"]["histogram"] == [[3, 1200]]
    assert toss["rounds"]["histogram"] == [[1, 1200]]
    assert gate["runs"]["count"] == 1200 and gate["runs"]["p"] == 1.0
    weak = party(data, "Weak")
    assert weak["quintessence"]["histogram"] == [[0, 1200]] and weak["damage_pool"]["mean"] == 1
    assert weak["maximum"] == 1 and weak["name"] == "the weakling"
    # Coin loses 1 on a one: damage pool 1 with chance 1/6, inside the interval
    pool = party(data, "Coin")["damage_pool"]
    assert pool["min"] == 0 and pool["max"] == 1 and pool["n"] == 1200
    low, high = pool["ci"]
    assert low < 1 / 6 < high
    ones = dict(map(tuple, pool["histogram"]))[1]
    assert pool["mean"] == round(ones / 1200, 4)
    sd = math.sqrt((ones * (1200 - ones)) / (1200 * 1199))
    assert pool["sd"] == round(sd, 4)
    assert high - low == pytest.approx(2 * 1.96 * sd / math.sqrt(1200), abs=2e-4)
    # the Wilson interval of 0 of n and n of n
    assert defeat(gate, "Coin")["ci"] == [0.0, round(wilson(0, 1200)[1], 4)]
    assert defeat(gate, "Weak")["ci"][1] == 1.0


def test_wilson_interval():
    low, high = wilson(50, 100)
    assert (round(low, 4), round(high, 4)) == (0.4038, 0.5962)
    assert wilson(0, 10)[0] == 0.0 and wilson(10, 10)[1] == 1.0
    low, high = wilson(1, 3)
    assert (round(low, 4), round(high, 4)) == (0.0615, 0.7923)


def test_rounds_of_a_situation_that_the_script_leaves_open(tmp_path):
    _, data = simulate_json(scenario(tmp_path, 'drama "Open" with Ash, Raiders\nAsh waits vs 0\nround\nAsh waits vs 0\nround\n'), "--runs", "3")
    assert drama_of(data, "Open")["rounds"]["histogram"] == [[3, 3]]


def test_rounds_of_a_situation_with_its_own_round_length_R13_point_14(tmp_path):
    script = ('drama "Council" with Ash, Raiders, rounds of 2 hours\nAsh waits vs 0\nround\nend drama\n'
              'drama "Brawl" with Ash, Raiders\nend drama\n')
    path = scenario(tmp_path, script)
    _, data = simulate_json(path, "--runs", "3")
    council, brawl = drama_of(data, "Council"), drama_of(data, "Brawl")
    assert (council["round_seconds"], council["round_length"], council["rounds"]["mean"]) == (7200, "2 h", 2)
    assert (brawl["round_seconds"], brawl["round_length"]) == (None, None)
    text = drama("simulate", path, "--runs", "3").stdout
    assert "Rounds (of 2 h): 2" in text and "\nRounds: 1" in text


def test_a_situation_met_twice_in_a_run_is_counted_apart(tmp_path):
    script = 'drama "Bout" with Ash, Coin\nend drama\ndrama "Bout" with Ash, Coin\nAsh waits vs 0\nround\nend drama\n'
    _, data = simulate_json(scenario(tmp_path, script), "--runs", "4")
    assert [(d["name"], d["rounds"]["mean"]) for d in data["dramas"]] == [("Bout", 1), ("Bout (2)", 2)]


# ---------------------------------------------------------------------------
# branches, loops and skipped statements, from event logs made by hand

def log(*middle: dict, final: dict | None = None) -> list[dict]:
    start = {"type": "start", "line": None, "parties": {}}
    end = {"type": "final", "line": None, "parties": final or {"A": {"quintessence": 2, "damage_pool": 1,
                                                                      "defeated": False}}}
    return [start, *middle, end]


def branch(line: int, taken: int | None, condition: str | None, file: str = "s.drama") -> dict:
    return {"type": "branch", "line": line, "file": file, "taken": taken, "condition": condition}


def test_branch_counting_from_event_lists():
    runs = [
        log(branch(10, 10, "A is defeated"), branch(10, 12, "else"), branch(20, 20, "x")),
        log(branch(10, 10, "A is defeated")),
        log(branch(10, None, None)),
        log(),
    ]
    total = Aggregate()
    for index, events in enumerate(runs):
        total.add(index, summarise(events))
    assert total.completed == 4
    first = total.branches[("s.drama", 10)]
    assert first["evaluations"] == 4 and first["runs"] == 3
    assert first["arms"][10] == ["A is defeated", 2, 2]
    assert first["arms"][12] == ["else", 1, 1]
    assert first["arms"][None] == [None, 1, 1]
    assert total.branches[("s.drama", 20)]["arms"][20] == ["x", 1, 1]


def test_branches_in_the_report(tmp_path):
    """The report of hand-made runs: arms in line order, `(no arm)` last, shares of
    the times the `if` was decided and of the runs it was decided in."""
    prepared = prepare(str(scenario(tmp_path, "Weak waits vs 0\n")))
    total = Aggregate()
    runs = [log(branch(5, 7, "else"), branch(5, 5, "Ash's quintessence < 3")), log(branch(5, 5, "Ash's quintessence < 3")),
            log(branch(5, None, None)), log()]
    for index, events in enumerate(runs):
        total.add(index, summarise(events))
    data = report(Simulation(prepared, 0, 4, total))
    (b,) = data["branches"]
    assert (b["file"], b["line"], b["evaluations"], b["runs"]["count"], b["runs"]["of"]) == ("s.drama", 5, 4, 3, 4)
    assert [(a["taken"], a["condition"], a["times"]["count"], a["times"]["of"], a["runs"]["count"], a["runs"]["of"])
            for a in b["arms"]] == [(5, "Ash's quintessence < 3", 2, 4, 2, 3), (7, "else", 1, 4, 1, 3),
                                    (None, None, 1, 4, 1, 3)]
    assert b["arms"][0]["times"]["p"] == 0.5
    for fmt in ("text", "md", "html"):
        text = render(data, fmt)
        assert "s.drama:5" in text and "quintessence &lt; 3" in text if fmt != "text" else "quintessence < 3" in text


def test_loops_and_skipped_statements_from_event_lists(tmp_path):
    prepared = prepare(str(scenario(tmp_path, "Weak waits vs 0\n")))
    loop = {"type": "loop", "line": 3, "file": "s.drama", "passes": 4, "ended": "until", "bound": 10}
    bound = dict(loop, passes=10, ended="bound")
    skipped = {"type": "skipped", "line": 6, "file": "s.drama", "drama": "D", "round": 2, "parties": ["A"],
               "why": "defeated"}
    total = Aggregate()
    for index, events in enumerate([log(loop), log(bound, skipped, skipped), log(loop)]):
        total.add(index, summarise(events))
    data = report(Simulation(prepared, 0, 3, total))
    (l,) = data["loops"]
    assert l["executions"] == 3 and l["passes"]["histogram"] == [[4, 2], [10, 1]] and l["passes"]["mean"] == 6
    assert l["ended"]["until"]["count"] == 2 and l["ended"]["bound"]["count"] == 1 and l["bound"] == [10]
    assert data["skipped"] == [{"file": "s.drama", "line": 6, "times": 2,
                                "runs": {"count": 1, "of": 3, "p": 0.3333, "ci": data["skipped"][0]["runs"]["ci"]}}]
    for fmt in ("text", "md", "html", "json"):
        assert "s.drama:3" in render(data, fmt) or fmt == "json"


def test_merging_is_order_independent(tmp_path):
    prepared = prepare(str(scenario(tmp_path, FIGHT)))
    whole = simulate(prepared, 60, seed=3).aggregate
    parts = [simulate(prepared, 60, seed=3).aggregate]
    from dsl.simulate import run_range
    pieces = [run_range(prepared, 3, a, b) for a, b in [(40, 60), (0, 25), (25, 40)]]
    merged = Aggregate()
    for piece in pieces:
        merged.merge(piece)
    assert report(Simulation(prepared, 3, 60, merged)) == report(Simulation(prepared, 3, 60, whole)) \
        == report(Simulation(prepared, 3, 60, parts[0]))


# ---------------------------------------------------------------------------
# failed runs

def test_failed_runs_are_counted_with_a_command_to_reproduce_the_first(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = scenario(Path("."), SOMETIMES_FAILS)
    _, data = simulate_json(path, "--runs", "300", "--seed", "1", "--jobs", "2")
    assert data["failed"] > 0 and data["completed"] + data["failed"] == 300
    assert 0.1 < data["failed"] / 300 < 0.25            # a sixth
    (error,) = data["errors"]
    assert error["code"] == "E304" and error["runs"] == data["failed"]
    assert error["error"].startswith("script.drama:3:") and "error[E304]" in error["error"]
    assert error["seed"] == run_seed(1, error["first_run"])
    # the first failing run is the one with the lowest number: no earlier run fails
    prepared = prepare(str(path))
    for index in range(error["first_run"]):
        prepared.run(run_seed(1, index))
    words = shlex.split(error["reproduce"])
    assert words[:2] == ["drama", "run"] and "--roll-given" in words and "--lenient" in words
    outcome = drama(*words[1:])
    assert outcome.code == 1
    assert outcome.stderr.splitlines()[0] == error["error"]
    text = drama("simulate", path, "--runs", "300", "--seed", "1").stdout
    assert "Failed runs" in text and error["reproduce"] in text and "E304" in text


def test_a_run_that_always_fails(tmp_path):
    _, data = simulate_json(scenario(tmp_path, "Nobody waits vs 0\n"), "--runs", "5")
    assert data["completed"] == 0 and data["failed"] == 5
    assert data["errors"][0]["code"] == "E201" and data["errors"][0]["first_run"] == 0
    assert party(data, "Ash")["quintessence"]["mean"] is None
    for fmt in ("text", "md", "html"):
        assert drama("simulate", tmp_path / "scenario.yaml", "--runs", "5", "--format", fmt).code == 0


# ---------------------------------------------------------------------------
# output

def test_each_format_renders(tmp_path):
    path = scenario(tmp_path, FIGHT)
    text = drama("simulate", path, "--runs", "50", "--seed", "2")
    assert text.code == 0 and text.stderr == ""
    assert "Fight" in text.stdout and "Ash (9)" in text.stdout and "defeated" in text.stdout
    assert "95% confidence intervals" in text.stdout
    md = drama("simulate", path, "--runs", "50", "--seed", "2", "--format", "md").stdout
    assert md.startswith("# Simulated: 50 simulated runs") and "| party | defeated |" in md
    html = drama("simulate", path, "--runs", "50", "--seed", "2", "--format", "html").stdout
    assert html.startswith("<!DOCTYPE html>") and html.rstrip().endswith("</html>")
    assert html.count("<svg") == 1 + 2 * 4          # the rounds, and two per party
    assert "<script" not in html and "http" not in html.replace("http-equiv", "")
    out = tmp_path / "report.html"
    assert drama("simulate", path, "--runs", "50", "--seed", "2", "--format", "html", "-o", out).stdout == ""
    assert out.read_text(encoding="utf-8") == html


def test_output_never_overwrites_an_input(tmp_path):
    path = scenario(tmp_path, FIGHT)
    outcome = drama("simulate", path, "--runs", "2", "-o", tmp_path / "script.drama")
    assert outcome.code == 1 and "E501" in outcome.stderr


def test_usage_errors_exit_2(tmp_path):
    path = scenario(tmp_path, FIGHT)
    for args in (["--runs", "0"], ["--runs", "-3"], ["--jobs", "-1"], ["--jobs", "many"], ["--seed", "-1"],
                 ["--format", "pdf"], ["--role", "nonsense"]):
        outcome = drama("simulate", path, *args)
        assert outcome.code == 2, (args, outcome.output)


def test_bad_input_is_a_clean_error(tmp_path):
    outcome = drama("simulate", tmp_path / "missing.yaml")
    assert outcome.code == 1 and "error[E108]" in outcome.stderr
    path = scenario(tmp_path, "Ash strikes ->\n")
    outcome = drama("simulate", path, "--runs", "3")
    assert outcome.code == 1 and "error[E001]" in outcome.stderr and outcome.stdout == ""
    with pytest.raises(DramaError):
        prepare(str(path))


# ---------------------------------------------------------------------------
# Ctrl-C

@pytest.mark.parametrize("how", ["raise", "signal"])
@pytest.mark.parametrize("jobs", [1, 2])
def test_an_interrupt_keeps_the_runs_done(tmp_path, jobs, how):
    """A KeyboardInterrupt raised by the progress hook, or a real SIGINT, stops the
    simulation between two runs (or two chunks) with the runs done counted."""
    prepared = prepare(str(scenario(tmp_path, FIGHT)))
    done = []

    def progress(count):
        done.append(count)
        if sum(done) >= 30 and how == "raise":
            raise KeyboardInterrupt
        if sum(done) >= 30 > sum(done[:-1]):            # once, as the 30th run is done
            os.kill(os.getpid(), signal.SIGINT)

    result = simulate(prepared, 5000, seed=1, jobs=jobs, progress=progress)
    data = result.report()
    assert result.interrupted and data["interrupted"]
    assert data["completed"] == sum(done) and 30 <= data["completed"] < 5000
    if jobs == 1:
        assert data["completed"] == 30
        # the runs done are runs 0..29: the same figures as a simulation of 30 runs
        thirty = simulate(prepared, 30, seed=1).report()
        assert {k: v for k, v in data.items() if k not in ("runs", "interrupted")} == \
            {k: v for k, v in thirty.items() if k not in ("runs", "interrupted")}
    assert "INTERRUPTED" in render(data, "text") and "Interrupted" in render(data, "md")
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def _children(pid: int) -> list[str]:
    try:
        return Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return []


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs Linux /proc to see the workers start")
def test_ctrl_c_prints_the_summary_so_far(tmp_path):
    path = scenario(tmp_path, FIGHT)
    process = subprocess.Popen([sys.executable, "-m", "dsl", "simulate", str(path), "--runs", "10000000",
                                "--jobs", "2", "--format", "json"], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, cwd=ROOT)
    deadline = time.monotonic() + 30
    while len(_children(process.pid)) < 2 and time.monotonic() < deadline:    # the workers are running
        time.sleep(0.05)
    time.sleep(1.5)
    process.send_signal(signal.SIGINT)
    stdout, stderr = process.communicate(timeout=30)
    assert process.returncode == 130, stderr
    data = json.loads(stdout)
    assert data["interrupted"] and data["done"] < 10000000 and data["runs"] == 10000000
    assert f"interrupted: {data['done']:,} of 10,000,000 runs done" in stderr
    assert "Traceback" not in stderr


def test_a_scenario_that_a_worker_cannot_read_is_an_error(tmp_path, monkeypatch):
    monkeypatch.setattr("dsl.simulate.INHERIT", False)     # each worker reads the scenario itself
    prepared = prepare(str(scenario(tmp_path, FIGHT)))
    (tmp_path / "cast.yaml").unlink()                   # gone before the workers read it
    with pytest.raises(DramaError) as caught:
        simulate(prepared, 20, seed=1, jobs=2)
    assert caught.value.code == "E108"
    assert simulate(prepared, 3, seed=1, jobs=1).aggregate.completed == 3     # this process has it


# ---------------------------------------------------------------------------
# control flow, end to end

LOOPS_AND_BRANCHES = """\
drama "Gate" with Weak, Coin
repeat until Weak is defeated, at most 4 rounds
round
Weak lifts vs 100 but not loudly
end
repeat until Coin is defeated, at most 2 rounds
round
Coin tosses vs 0 with Luck, roll
end
if Coin's quintessence < 3
> Coin lost some.
else if Weak is defeated
> Only Weak fell.
end
end drama
"""


def test_branches_and_loops_of_a_script(tmp_path):
    """Worked out by hand: Weak is defeated in the first pass of the first loop;
    the second reaches its bound (Coin always succeeds); the `if` takes its first
    arm when Coin rolled a one in either toss (11/36), else the `else if`."""
    _, data = simulate_json(scenario(tmp_path, LOOPS_AND_BRANCHES), "--runs", "900", "--seed", "4")
    assert data["completed"] == 900
    first, second = data["loops"]
    assert (first["line"], first["passes"]["histogram"], first["ended"]["until"]["count"], first["bound"]) == \
        (2, [[1, 900]], 900, [4])
    assert (second["line"], second["passes"]["histogram"], second["ended"]["bound"]["count"], second["bound"]) == \
        (6, [[2, 900]], 900, [2])
    assert first["file"].endswith("script.drama") and first["runs"]["p"] == 1.0
    (b,) = data["branches"]
    assert b["line"] == 10 and b["evaluations"] == 900
    one, other = b["arms"]
    assert (one["taken"], one["condition"], other["taken"], other["condition"]) == \
        (10, "Coin's quintessence < 3", 12, "Weak is defeated")
    assert one["times"]["count"] + other["times"]["count"] == 900
    assert one["times"]["ci"][0] < 11 / 36 < one["times"]["ci"][1]
    gate = drama_of(data, "Gate")
    assert gate["rounds"]["histogram"] == [[3, 900]] and defeat(gate, "Weak")["p"] == 1.0
    text = drama("simulate", tmp_path / "scenario.yaml", "--runs", "50").stdout
    assert "== Branches ==" in text and "line 10: Coin's quintessence < 3" in text and "== Loops ==" in text
    html = drama("simulate", tmp_path / "scenario.yaml", "--runs", "50", "--format", "html").stdout
    assert "Passes of the loop at line 6" in html and "Coin&#39;s quintessence &lt; 3" in html


def test_lines_of_a_defeated_party_are_skipped_in_a_simulation(tmp_path):
    script = 'drama "Gate" with Weak, Coin\nWeak lifts vs 100 but not loudly\nround\nWeak lifts vs 0\nend drama\n'
    _, data = simulate_json(scenario(tmp_path, script), "--runs", "20")
    assert data["completed"] == 20
    assert [(s["line"], s["times"], s["runs"]["count"]) for s in data["skipped"]] == [(4, 20, 20)]


def test_an_error_in_a_branch_refuses_the_scenario_before_any_run(tmp_path):
    script = 'drama "Gate" with Weak, Coin\nif Weak is defeated\nNobody waits vs 0\nend\nend drama\n'
    outcome = drama("simulate", scenario(tmp_path, script), "--runs", "5")
    assert outcome.code == 1 and outcome.stdout == ""
    assert "error[E201]" in outcome.stderr and "script.drama:3:" in outcome.stderr


# ---------------------------------------------------------------------------
# the fast path (dsl/interpreter/fastpath.py, dsl/engine/duel.py)

SKIRMISH = ROOT / "scenarios" / "skirmish" / "scenario.yaml"


def test_the_fast_path_gives_the_interpreters_report_byte_for_byte(monkeypatch):
    from dsl.pipeline import Program
    from dsl.simulate import Prepared
    planned, _ = simulate_json(SKIRMISH, "--runs", "300", "--seed", "11")
    monkeypatch.setattr(Prepared, "plan", lambda self: (None, "turned off"))
    fast, _ = simulate_json(SKIRMISH, "--runs", "300", "--seed", "11")
    monkeypatch.setattr(Program, "fast_path", lambda self: (None, "turned off"))
    slow, _ = simulate_json(SKIRMISH, "--runs", "300", "--seed", "11")
    assert planned == fast == slow


def test_a_fast_run_replays_with_roll_given():
    """Each run of the skirmish, taken by the fast path, is the run that
    `drama run --seed ... --lenient --roll-given` prints."""
    prepared = prepare(str(SKIRMISH))
    assert prepared.program.fast_path()[0] is not None
    for index in (0, 7):
        seed = run_seed(4, index)
        outcome = drama("run", SKIRMISH, "--seed", seed, "--lenient", "--roll-given", "--format", "json")
        replayed = [json.loads(line) for line in outcome.stdout.splitlines()]
        assert summarise(replayed) == summarise(prepared.run(seed))


def test_verbose_says_which_path_the_runs_take(tmp_path):
    taken = drama("simulate", SKIRMISH, "--runs", "5", "--verbose")
    assert taken.code == 0 and taken.stderr.startswith("plan: taken; 8 of the script's exchanges are duels")
    path = scenario(tmp_path, FIGHT.replace("round\n", "tie Ash\nround\n", 1))
    fallen_back = drama("simulate", path, "--runs", "5", "-v")
    assert fallen_back.code == 0
    where = tmp_path / 'script.drama'
    assert fallen_back.stderr.startswith(f"plan: not taken ({where}:5: a `tie` line in an exchange)\n"
                                         f"fast path: not taken ({where}:5: a `tie` line "
                                         "in an exchange); every run goes through the interpreter")
