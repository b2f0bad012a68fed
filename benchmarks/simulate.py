"""Benchmark: `drama simulate` on the bundled skirmish, on one core and on two.

    python benchmarks/simulate.py [--runs N] [--repeat K] [--scenario PATH]

The encounter is `scenarios/skirmish/scenario.yaml`: four parties, initiative,
then a loop of at most ten rounds (about nine on average) in which every party
still standing strikes (`roll`) and its target defends (`roll`): about 35
exchanges an encounter. It prints:

- **jobs 1** and **jobs 2**: simulated encounters per second through
  `dsl.simulate.simulate` (what `drama simulate --jobs J` runs, without the
  command's start-up and the rendering), the best of K repeats of N runs,
  the two alternating; and the scaling, jobs 2 over jobs 1;
- where one encounter's time goes, on one core: the interpreter and engine
  (`Prepared.run`), the reduction of its events (`summarise`) and the counting
  (`Aggregate.add`);
- the fixed cost of the second process: a pool of 2 that runs 2 encounters
  (fork, loading the scenario in each worker, sending the counts back).

It also checks that jobs 1 and jobs 2 give the same report.
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

from dsl.simulate import Aggregate, prepare, run_seed, simulate, summarise  # noqa: E402


def best(function, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        began = time.perf_counter()
        function()
        times.append(time.perf_counter() - began)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--scenario", default=str(ROOT / "scenarios" / "skirmish" / "scenario.yaml"))
    args = parser.parse_args()
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

    # where one encounter's time goes (one core)
    n = min(args.runs, 1000)
    seeds = [run_seed(1, i) for i in range(n)]
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
    print(f"one encounter ({events:.0f} events): run {1e6 * run / n:,.0f} µs, summarise {1e6 * reduce / n:,.0f} µs, "
          f"count {1e6 * add / n:,.0f} µs")
    startup = best(lambda: simulate(prepared, 2, seed=1, jobs=2), args.repeat)
    print(f"a pool of 2 processes running 2 encounters: {1e3 * startup:,.0f} ms")


if __name__ == "__main__":
    main()
