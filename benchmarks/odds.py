"""Benchmark `drama odds`, before (6fa1b91) and after, in one run: 10 dice against 10, and a joint side of 10+10 dice against 10.

    python benchmarks/odds.py                 # both questions, both trees, 5 fresh processes each
    python benchmarks/odds.py --dice 6 --runs 3
    python benchmarks/odds.py --no-before --no-icepool

The tree before is a temporary git worktree of 6fa1b91 (benchmarks/baseline.py);
the two trees alternate. Each measurement runs in a fresh Python process, which
reports:

- start-up: importing the command and the package, loading the scenario, and
  the parser's first parse;
- first call: what `dsl.odds.odds(...)` does, once, in that fresh process:
  reading the action and the defence (the parser), planning the exchange
  (the interpreter and the engine), counting; the figure the goal is about
  (issue 28: a joint side of 10+10 dice against 10 within 50 ms);
- again: the same call repeated with the counting's caches cleared (median).

Then the whole command, `python -m dsl odds ...`, is timed as a process.

icepool computes the same opposed pools (one party a side): win, tie and lose,
and the distribution of what each party loses (ties half to each side). It is
timed two ways: the plain way (`icepool.map` over both pools' (sum, ones, high
dice) outcomes), and a leaner way that maps each party's loss over only what it
depends on. Both are checked to give exactly the fractions `drama odds` gives.
"""

from __future__ import annotations

import argparse
import contextlib
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
sys.path.insert(0, str(Path(__file__).resolve().parent))

from baseline import BASE, base_tree, environment, load_average  # noqa: E402

SETTING = "name: Bench\nround: 6 seconds\ndice: {sides: 6, high: 6}\nties: vote\n"
CAST = """\
parties:
  Titan:
    name: the Titan
    quintessence: 10
    traits: {Might: 10}
  Giant:
    name: the Giant
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


def texts(dice: int, joint: bool = False) -> tuple[str, str]:
    """The action and the defence: the Titan alone, or the Titan and the Giant together (R10)."""
    if joint:
        return (f"Titan & Giant smash -> Colossus\n  Titan with Might, roll {dice}\n  Giant with Might, roll {dice}",
                f"Colossus defends with Bulk, roll {dice}")
    return (f"Titan smash -> Colossus with Might, roll {dice}", f"Colossus defends with Bulk, roll {dice}")


# the part that runs in a fresh process, with either tree's package
CHILD = r"""
import json, statistics, sys, time
t0 = time.perf_counter()
import dsl.cli, dsl.odds
from dsl import load, parse
from dsl.odds import odds
scenario = load(sys.argv[1])
parse("round\n", "<warm-up>")
t1 = time.perf_counter()
odds(scenario, sys.argv[2], [sys.argv[3]])
t2 = time.perf_counter()

def clear():                  # the counting's caches (not the parser's)
    for name, module in list(sys.modules.items()):
        if name in ("dsl.odds", "dsl.pools"):
            for value in list(vars(module).values()):
                if callable(getattr(value, "cache_clear", None)):
                    value.cache_clear()

again = []
for _ in range(int(sys.argv[4])):
    clear()
    t = time.perf_counter(); odds(scenario, sys.argv[2], [sys.argv[3]]); again.append(time.perf_counter() - t)
print(json.dumps({"startup": t1 - t0, "first": t2 - t1, "again": statistics.median(again)}))
"""


def measure(tree: Path, scenario: Path, dice: int, joint: bool, again: int) -> dict:
    """One fresh process of `tree`'s package: start-up, first call, again."""
    action, defence = texts(dice, joint)
    out = subprocess.run([sys.executable, "-c", CHILD, str(scenario), action, defence, str(again)],
                         capture_output=True, text=True, check=True, cwd=tree, env=environment(tree))
    return json.loads(out.stdout)


def command(tree: Path, scenario: Path, dice: int, joint: bool) -> float:
    """The whole `drama odds` as a process."""
    action, defence = texts(dice, joint)
    began = time.perf_counter()
    subprocess.run([sys.executable, "-m", "dsl", "odds", str(scenario), action, "--defence", defence],
                   capture_output=True, check=True, cwd=tree, env=environment(tree))
    return time.perf_counter() - began


def compare(trees: dict[str, Path], scenario: Path, dice: int, runs: int) -> dict:
    """Both questions, in every tree, alternating; medians of `runs` fresh processes."""
    rows: dict = {}
    for joint in (False, True):
        samples = {name: [] for name in trees}
        processes = {name: [] for name in trees}
        for _ in range(runs):
            for name, tree in trees.items():
                samples[name].append(measure(tree, scenario, dice, joint, 3))
                processes[name].append(command(tree, scenario, dice, joint))
        for name in trees:
            summary = {key: statistics.median(r[key] for r in samples[name]) for key in samples[name][0]}
            summary["first_max"] = max(r["first"] for r in samples[name])
            summary["process"] = statistics.median(processes[name])
            rows[(joint, name)] = summary
    bare = []
    for _ in range(runs):
        began = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        bare.append(time.perf_counter() - began)
    rows["python"] = statistics.median(bare)
    return rows


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
    parser.add_argument("--dice", type=int, default=10, help="dice on each side, and on each party of the joint side "
                                                            "(default 10)")
    parser.add_argument("--runs", type=int, default=5, help="fresh processes to measure (default 5)")
    parser.add_argument("--no-before", action="store_true", help=f"measure this tree only, not {BASE}")
    parser.add_argument("--no-icepool", action="store_true", help="skip the side by side with icepool")
    parser.add_argument("--icepool", choices=["plain", "lean"], help=argparse.SUPPRESS)
    parser.add_argument("--scenario", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.icepool:
        icepool_child(args.icepool, args.dice, args.scenario)
        return
    with tempfile.TemporaryDirectory() as folder, contextlib.ExitStack() as stack:
        scenario = write_scenario(Path(folder))
        trees = {"after": ROOT}
        if not args.no_before:
            trees = {"before": stack.enter_context(base_tree()), "after": ROOT}
        print(f"drama odds, {args.runs} fresh processes each, the trees alternating "
              f"(before: {BASE}, after: this tree); {load_average()} at the start")
        rows = compare(trees, scenario, args.dice, args.runs)
        for joint in (False, True):
            action, defence = texts(args.dice, joint)
            print(f"\ndrama odds SCENARIO {json.dumps(action)} --defence {json.dumps(defence)}")
            print(f"  {'':44}" + "".join(f"{name:>12}" for name in trees) + ("       ratio" if len(trees) > 1 else ""))
            for key, label in (("startup", "start-up (imports, scenario, grammar)"),
                               ("first", "first call, fresh process (the goal)"),
                               ("first_max", f"  slowest first call of {args.runs}"),
                               ("again", "again, caches cleared"),
                               ("process", "whole command as a process")):
                figures = [rows[(joint, name)][key] for name in trees]
                ratio = f"{figures[0] / figures[-1]:11.1f}x" if len(figures) > 1 else ""
                print(f"  {label:44}" + "".join(f"{f * 1000:9.1f} ms" for f in figures) + ratio)
        print(f"\n  python doing nothing: {rows['python'] * 1000:.1f} ms; {load_average()} at the end")
        if args.no_icepool:
            return
        try:
            import icepool
        except ImportError:
            print("icepool is not installed: pip install -e '.[test]'")
            return
        first = rows[(False, "after")]
        print(f"icepool {icepool.__version__}, the same opposed pools as the first question (win/tie/lose, "
              "each party's loss), each in a fresh process")
        for name in ("plain", "lean"):
            out = subprocess.run([sys.executable, __file__, "--icepool", name, "--dice", str(args.dice),
                                  "--scenario", str(scenario)], capture_output=True, text=True, check=True)
            row = json.loads(out.stdout)
            seconds = row["seconds"]
            print(f"  icepool {name + ':':<6} {seconds * 1000:10.1f} ms   "
                  f"{seconds / first['first']:6.0f} x the first call, {seconds / first['again']:6.0f} x again"
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
