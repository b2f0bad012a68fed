"""Benchmark: `drama simulate` on the bundled skirmish, on one core and on two.

    python benchmarks/simulate.py [--runs N] [--repeat K] [--scenario PATH]
    python benchmarks/simulate.py --compare [--runs N] [--repeat K]   # against 6fa1b91, in one run
    python benchmarks/simulate.py --compare --before COMMIT ...        # against another commit

The encounter is `scenarios/skirmish/scenario.yaml`: four parties, initiative,
then a loop of at most ten rounds (about nine on average) in which every party
still standing strikes (`roll`) and its target defends (`roll`): about 35
exchanges an encounter. It prints:

- **jobs 1** and **jobs 2**: simulated encounters per second through
  `dsl.simulate.simulate` (what `drama simulate --jobs J` runs, without the
  command's start-up and the rendering), the best of K repeats of N runs,
  the two alternating; and the scaling, jobs 2 over jobs 1;
- where one encounter's time goes, on one core: through the compiled plan
  (`dsl/simulation_plan.py`, what the runs take); and through the fast path
  the plan replaced, the interpreter and engine (`Prepared.run`), the
  reduction of its events (`summarise`) and the counting (`Aggregate.add`);
- the fixed cost of the second process: a pool of 2 that runs 2 encounters
  (fork, loading the scenario in each worker, sending the counts back).

It also checks that jobs 1 and jobs 2 give the same report.

With `--compare`, it measures `--jobs 1` only, in fresh processes of each
tree in turn: the tree before the speed work of issue 28 (6fa1b91, checked
out into a temporary worktree: benchmarks/baseline.py) and this one, K rounds,
each on its own tree's copy of the scenario; it prints the best and the
median encounters a second of each, in wall and in CPU time, their ratios,
and the load average, and checks that both trees give the same JSON report.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if not os.environ.get("PYTHONPATH"):        # PYTHONPATH=TREE measures another tree's dsl
    sys.path.insert(0, str(ROOT))

from dsl.simulate import Aggregate, prepare, render, run_seed, simulate, summarise  # noqa: E402


def best(function, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        began = time.perf_counter()
        function()
        times.append(time.perf_counter() - began)
    return min(times)


def child(runs: int, scenario: str) -> None:
    """One tree's --jobs 1, in this (fresh) process: encounters a second, and the report."""
    import hashlib
    import json
    prepared = prepare(scenario)
    simulate(prepared, 50, seed=0)          # warm up
    began, began_cpu = time.perf_counter(), time.process_time()
    result = simulate(prepared, runs, seed=1, jobs=1)
    wall, cpu = time.perf_counter() - began, time.process_time() - began_cpu
    digest = hashlib.sha256(render(result.report(), "json").encode()).hexdigest()
    print(json.dumps({"wall": runs / wall, "cpu": runs / cpu, "report": digest}))


def compare(runs: int, repeat: int, commit: str | None = None) -> None:
    """--jobs 1 of 6fa1b91 (or `commit`) and of this tree, alternating, each in fresh processes."""
    import contextlib
    import json
    import statistics
    import subprocess
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from baseline import BASE, base_tree, environment, load_average
    with contextlib.ExitStack() as stack:
        trees = {"before": stack.enter_context(base_tree(commit or BASE)), "after": ROOT}
        print(f"drama simulate --jobs 1, the bundled skirmish, {runs:,} runs, {repeat} rounds alternating; "
              f"before: {commit or BASE}, after: this tree; {load_average()} at the start")
        rows: dict[str, list[dict]] = {name: [] for name in trees}
        for _ in range(repeat):
            for name, tree in trees.items():
                # (the path as the report prints it: the same in both trees)
                out = subprocess.run([sys.executable, __file__, "--child", "--runs", str(runs), "--scenario",
                                      "scenarios/skirmish/scenario.yaml"],
                                     capture_output=True, text=True, check=True, cwd=tree, env=environment(tree))
                rows[name].append(json.loads(out.stdout))
        print()
        print("| encounters/s, jobs 1 | before best | median | after best | median | after ÷ before (best) |")
        print("|---|---:|---:|---:|---:|---:|")
        for kind, label in (("wall", "wall time"), ("cpu", "CPU time")):
            best_of = {n: max(r[kind] for r in rows[n]) for n in trees}
            median = {n: statistics.median(r[kind] for r in rows[n]) for n in trees}
            print(f"| {label} | {best_of['before']:,.0f} | {median['before']:,.0f} | {best_of['after']:,.0f} | "
                  f"{median['after']:,.0f} | {best_of['after'] / best_of['before']:.2f}x |")
        same = len({r["report"] for name in trees for r in rows[name]}) == 1
        print(f"\nthe same JSON report in both trees: {same}; {load_average()} at the end")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--scenario", default=str(ROOT / "scenarios" / "skirmish" / "scenario.yaml"))
    parser.add_argument("--compare", action="store_true", help="--jobs 1 against 6fa1b91, in one run")
    parser.add_argument("--before", metavar="COMMIT", help="with --compare: against this commit instead")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.runs, args.scenario)
        return
    if args.compare:
        compare(args.runs, args.repeat, args.before)
        return
    prepared = prepare(args.scenario)
    # the mean number of exchanges of an encounter, from full (not lean) runs
    counted = [sum(1 for e in prepared.run(run_seed(0, i), lean=False) if e["type"] == "action")
               for i in range(50)]
    exchanges = f"{sum(counted) / len(counted):.1f}"
    print(f"{args.scenario}: {len(prepared.sheets)} parties, {exchanges} exchanges an encounter on average; "
          f"{os.cpu_count()} CPUs; Python {sys.version.split()[0]}")
    load = os.getloadavg()[0]
    if load > 0.5:
        print(f"warning: the load average is {load:.1f}: other processes share the CPUs, "
              "and the figures (jobs 2 most) will be low")
    simulate(prepared, 50, seed=0)          # warm up

    # jobs 1 and jobs 2 alternate, and the best of each is kept: on a shared
    # machine that catches the quiet moments for both
    ones, twos, cpu = [], [], []
    for _ in range(args.repeat):
        began, began_cpu = time.perf_counter(), time.process_time()
        simulate(prepared, args.runs, seed=1, jobs=1)
        ones.append(time.perf_counter() - began)
        cpu.append(time.process_time() - began_cpu)
        began = time.perf_counter()
        simulate(prepared, args.runs, seed=1, jobs=2)
        twos.append(time.perf_counter() - began)
    one, two = min(ones), min(twos)
    same = (simulate(prepared, 400, seed=2, jobs=1).report() == simulate(prepared, 400, seed=2, jobs=2).report())
    print()
    print("| jobs | runs | seconds | encounters/s |")
    print("|---:|---:|---:|---:|")
    print(f"| 1 | {args.runs:,} | {one:.2f} | {args.runs / one:,.0f} |")
    print(f"| 2 | {args.runs:,} | {two:.2f} | {args.runs / two:,.0f} |")
    print()
    print(f"scaling, jobs 2 over jobs 1: {one / two:.2f}x; same report with jobs 1 and 2: {same}")
    print(f"jobs 1 in CPU time (less sensitive to other processes): {args.runs / min(cpu):,.0f} encounters/s")

    # where one encounter's time goes (one core): the plan, then the fast path's parts
    n = min(args.runs, 1000)
    seeds = [run_seed(1, i) for i in range(n)]
    plan, why = prepared.plan()
    if plan is not None:
        runner = plan.runner(plan.tally())
        planned = best(lambda: [runner(s) for s in seeds], 3)
        print(f"\none encounter through the plan (dsl/simulation_plan.py): {1e6 * planned / n:,.1f} µs")
    else:
        print(f"\nthe plan is not taken: {why}")
    prepared._plan = (None, "measuring the fast path")
    logs = []
    gc.disable()                # as run_range does: the logs kept here would make collections slow
    run = best(lambda: logs.__setitem__(slice(None), [prepared.run(s) for s in seeds]), 1)
    summaries = []
    reduce = best(lambda: summaries.__setitem__(slice(None), [summarise(e) for e in logs]), 3)

    def count():
        total = Aggregate()
        for i, summary in enumerate(summaries):
            total.add(i, summary)
    add = best(count, 3)
    gc.enable()
    events = sum(map(len, logs)) / n
    print()
    print(f"one encounter through the fast path ({events:.0f} events): run {1e6 * run / n:,.0f} µs, summarise {1e6 * reduce / n:,.0f} µs, "
          f"count {1e6 * add / n:,.0f} µs")
    startup = best(lambda: simulate(prepared, 2, seed=1, jobs=2), args.repeat)
    print(f"a pool of 2 processes running 2 encounters: {1e3 * startup:,.0f} ms")


if __name__ == "__main__":
    main()
