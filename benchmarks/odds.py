"""Benchmark `drama odds`: 10 dice against 10 dice, after start-up, and side by side with icepool.

    python benchmarks/odds.py                 # 10 against 10, 5 fresh processes
    python benchmarks/odds.py --dice 6 --runs 3
    python benchmarks/odds.py --no-icepool

Each measurement of `drama odds` runs in a fresh Python process, which reports:

- start-up: importing the command and the package, loading the scenario, and
  the parser's first parse (Lark's cached grammar);
- first call: what `dsl.odds.odds(...)` does, once, in that fresh process:
  reading the action and the defence (the parser), planning the exchange
  (the interpreter and the engine), counting; the figure the goal is about;
- again: the same call repeated with the pools' caches cleared (median of 20);
- counting: `dsl.odds.compute` alone (median of 20, caches cleared).

Then the whole command, `python -m dsl odds ...`, is timed as a process.

icepool computes the same opposed pools: win, tie and lose, and the
distribution of what each party loses (ties half to each side). It is timed
two ways: the plain way (`icepool.map` over both pools' (sum, ones, high dice)
outcomes), and a leaner way that maps each party's loss over only what it
depends on. Both are checked to give exactly the fractions `drama odds` gives.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from fractions import Fraction
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

SETTING = "name: Bench\nround: 6 seconds\ndice: {sides: 6, high: 6}\nties: vote\n"
CAST = """\
parties:
  Titan:
    name: the Titan
    quintessence: 10
    traits: {Might: 10}
  Colossus:
    name: the Colossus
    quintessence: 12
    traits: {Bulk: 10}
"""


def write_scenario(folder: Path) -> Path:
    (folder / "setting.yaml").write_text(SETTING)
    (folder / "cast.yaml").write_text(CAST)
    (folder / "script.drama").write_text("# odds only\n")
    path = folder / "scenario.yaml"
    path.write_text("title: Bench\nsetting: setting.yaml\ncast: cast.yaml\nscript: script.drama\n")
    return path


def texts(dice: int) -> tuple[str, str]:
    return (f"Titan smash -> Colossus with Might, roll {dice}", f"Colossus defends with Bulk, roll {dice}")


# the part that runs in a fresh process
CHILD = r"""
import json, statistics, sys, time
t0 = time.perf_counter()
import dsl.cli.odds, dsl.odds
from dsl import load
from dsl.syntax import nodes
from dsl.syntax import parse
from dsl.odds import compute, odds, plan_exchange, pool_distribution, read_statement, tie_rule, _sums
scenario = load(sys.argv[1])
parse("round\n", "<warm-up>")
t1 = time.perf_counter()
# the first call, step by step: what odds() does
action = read_statement(sys.argv[2], "<action>", nodes.Action, "aggressive action")
defence = read_statement(sys.argv[3], "<defence>", nodes.Defence, "defence")
t2 = time.perf_counter()
plan = plan_exchange(scenario, action, [defence])
t3 = time.perf_counter()
compute(plan, tie_rule(scenario.setting.ties))
t4 = time.perf_counter()
again, counting = [], []
for _ in range(20):
    pool_distribution.cache_clear(); _sums.cache_clear()
    t = time.perf_counter(); odds(scenario, sys.argv[2], [sys.argv[3]]); again.append(time.perf_counter() - t)
    pool_distribution.cache_clear(); _sums.cache_clear()
    t = time.perf_counter(); compute(plan, "half"); counting.append(time.perf_counter() - t)
print(json.dumps({"startup": t1 - t0, "first": t4 - t1, "read": t2 - t1, "plan": t3 - t2, "count": t4 - t3,
                  "again": statistics.median(again), "counting": statistics.median(counting)}))
"""


def measure_drama(scenario: Path, dice: int, runs: int) -> dict:
    action, defence = texts(dice)
    rows = []
    for _ in range(runs):
        out = subprocess.run([sys.executable, "-c", CHILD, str(scenario), action, defence],
                             capture_output=True, text=True, check=True, cwd=ROOT)
        rows.append(json.loads(out.stdout))
    process = []
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run([sys.executable, "-m", "dsl", "odds", str(scenario), action, "--defence", defence],
                       capture_output=True, check=True, cwd=ROOT)
        process.append(time.perf_counter() - t)
    bare = []
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        bare.append(time.perf_counter() - t)
    summary = {key: statistics.median(r[key] for r in rows) for key in rows[0]}
    summary["first_max"] = max(r["first"] for r in rows)
    summary["process"] = statistics.median(process)
    summary["python"] = statistics.median(bare)
    return summary


def icepool_plain(dice: int, available: tuple[int, int]):
    """icepool.map over every pair of (sum, ones, high dice) outcomes."""
    import icepool
    die = icepool.d6.map(lambda f: icepool.Vector((f, int(f == 1), int(f >= 6))))
    attacker, defender = dice @ die, dice @ die
    value_a, value_d = 10 + dice @ icepool.d6, 10 + dice @ icepool.d6
    win, tie, lose = value_a > value_d, value_a == value_d, value_a < value_d

    def play(a, d):
        va, vd = 10 + a[0], 10 + d[0]

        def outcome(attacker_won):
            return (min(available[0], a[1] + (0 if attacker_won else 1 + d[2])),
                    min(available[1], d[1] + (1 + a[2] if attacker_won else 0)))
        if va != vd:
            return outcome(va > vd)
        return icepool.Die([outcome(True), outcome(False)])

    losses = icepool.map(play, attacker, defender)
    lost_a = losses.marginals[0]
    lost_d = losses.marginals[1]
    return win, tie, lose, lost_a, lost_d


def icepool_lean(dice: int, available: tuple[int, int]):
    """Each party's loss mapped over only what it depends on: its own (sum, ones)
    and the other side's (sum, high dice)."""
    import icepool
    die = icepool.d6.map(lambda f: icepool.Vector((f, int(f == 1), int(f >= 6))))
    pool = dice @ die
    sum_ones = pool.map(lambda v: icepool.Vector((v[0], v[1])))
    sum_highs = pool.map(lambda v: icepool.Vector((v[0], v[2])))
    value_a, value_d = 10 + dice @ icepool.d6, 10 + dice @ icepool.d6
    win, tie, lose = value_a > value_d, value_a == value_d, value_a < value_d

    def loss(available):
        def lost(own, other):                # own (sum, ones) against other (sum, high dice)
            if own[0] > other[0]:
                return min(available, own[1])
            if own[0] < other[0]:
                return min(available, own[1] + 1 + other[1])
            return icepool.Die([min(available, own[1]), min(available, own[1] + 1 + other[1])])
        return lost

    lost_a = icepool.map(loss(available[0]), sum_ones, sum_highs)
    lost_d = icepool.map(loss(available[1]), sum_ones, sum_highs)
    return win, tie, lose, lost_a, lost_d


def same_as_drama(scenario: Path, dice: int, computed) -> bool:
    from dsl import load
    from dsl.odds import odds
    action, defence = texts(dice)
    result = odds(load(scenario), action, [defence])
    (c,) = result.comparisons
    win, tie, lose, lost_a, lost_d = computed

    def p(die, outcome):
        return Fraction(die.quantity(outcome), die.denominator())

    ok = (c.win.fraction, c.tie.fraction, c.lose.fraction) == (p(win, True), p(tie, True), p(lose, True))
    tables = {t.name: t for t in result.parties}
    for name, die in (("Titan", lost_a), ("Colossus", lost_d)):
        for k in range(len(tables[name].counts)):
            ok = ok and tables[name].chance(k).fraction == p(die, k)
    return ok


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dice", type=int, default=10, help="dice on each side (default 10)")
    parser.add_argument("--runs", type=int, default=5, help="fresh processes to measure (default 5)")
    parser.add_argument("--no-icepool", action="store_true", help="skip the side by side with icepool")
    parser.add_argument("--icepool", choices=["plain", "lean"], help=argparse.SUPPRESS)
    parser.add_argument("--scenario", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.icepool:
        icepool_child(args.icepool, args.dice, args.scenario)
        return
    with tempfile.TemporaryDirectory() as folder:
        scenario = write_scenario(Path(folder))
        action, defence = texts(args.dice)
        print(f"drama odds SCENARIO {json.dumps(action)} --defence {json.dumps(defence)}")
        ours = measure_drama(scenario, args.dice, args.runs)
        print(f"  start-up (imports, scenario, grammar):  {ours['startup'] * 1000:8.1f} ms")
        print(f"  first call, fresh process:              {ours['first'] * 1000:8.1f} ms"
              f"  (slowest of {args.runs}: {ours['first_max'] * 1000:.1f} ms)")
        print(f"    reading the texts (parser):           {ours['read'] * 1000:8.1f} ms")
        print(f"    planning (interpreter and engine):    {ours['plan'] * 1000:8.1f} ms")
        print(f"    counting:                             {ours['count'] * 1000:8.1f} ms")
        print(f"  again, caches cleared:                  {ours['again'] * 1000:8.1f} ms")
        print(f"  counting alone (dsl.odds.compute):      {ours['counting'] * 1000:8.1f} ms")
        print(f"  whole command as a process:             {ours['process'] * 1000:8.1f} ms"
              f"  (python doing nothing: {ours['python'] * 1000:.1f} ms)")
        if args.no_icepool:
            return
        try:
            import icepool
        except ImportError:
            print("icepool is not installed: pip install -e '.[test]'")
            return
        print(f"icepool {icepool.__version__}, the same opposed pools (win/tie/lose, each party's loss), "
              "each in a fresh process")
        for name in ("plain", "lean"):
            out = subprocess.run([sys.executable, __file__, "--icepool", name, "--dice", str(args.dice),
                                  "--scenario", str(scenario)], capture_output=True, text=True, check=True)
            row = json.loads(out.stdout)
            seconds = row["seconds"]
            print(f"  icepool {name + ':':<6} {seconds * 1000:10.1f} ms   "
                  f"{seconds / ours['first']:6.0f} x the first call, {seconds / ours['again']:6.0f} x again"
                  f"   same fractions: {'yes' if row['agree'] else 'NO'}")


def icepool_child(name: str, dice: int, scenario: Path) -> None:
    """Time one icepool way in this (fresh) process, then check its fractions."""
    import icepool  # noqa: F401  (imported before the clock starts)
    function = {"plain": icepool_plain, "lean": icepool_lean}[name]
    start = time.perf_counter()
    computed = function(dice, (10, 12))
    seconds = time.perf_counter() - start
    print(json.dumps({"seconds": seconds, "agree": same_as_drama(scenario, dice, computed)}))

if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    main()
