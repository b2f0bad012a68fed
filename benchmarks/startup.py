"""Benchmark the start-up of `drama`: `--version`, `check` and `run` of a scenario, each over a bare `python -c pass` of the same interpreter, before (6fa1b91) and after, in one run.

    python benchmarks/startup.py                  # 15 rounds, both trees
    python benchmarks/startup.py --rounds 30 --no-before
    python benchmarks/startup.py --importtime check   # where `drama check` spends its imports (this tree)

Each round runs, in fresh processes and in turn: `python -c pass`, then for
each tree `python -m dsl --version`, `python -m dsl check SCENARIO` and
`python -m dsl run SCENARIO` (its session log to a pipe). Every process has the
same environment (`PYTHONPATH` on its tree, see benchmarks/baseline.py), so the
bare interpreter pays what the commands pay before `dsl` is imported. It prints
the median and the best of each, in wall time and in CPU time (user and
system: less sensitive to a shared machine's load), and each command's median
over the bare interpreter's median: the goal of issue 28 is 5× or less for the
three.
"""

from __future__ import annotations

import argparse
import resource
import contextlib
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from baseline import BASE, ROOT, base_tree, environment, load_average  # noqa: E402

GOAL = 5.0


def commands(scenario: str) -> dict[str, list[str]]:
    return {"--version": ["-m", "dsl", "--version"],
            "check": ["-m", "dsl", "check", scenario],
            "run": ["-m", "dsl", "run", scenario]}


def timed(arguments: list[str], tree: Path) -> tuple[float, float]:
    """The wall time and the CPU time (user and system) of one fresh process."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    began = time.perf_counter()
    subprocess.run([sys.executable, *arguments], cwd=tree, env=environment(tree), check=True,
                   stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    wall = time.perf_counter() - began
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - used.ru_utime) + (after.ru_stime - used.ru_stime)


def importtime(name: str, scenario: str, top: int) -> None:
    """The slowest imports of one command in this tree, from `python -X importtime`."""
    arguments = commands(scenario)[name]
    out = subprocess.run([sys.executable, "-X", "importtime", *arguments], cwd=ROOT, env=environment(ROOT),
                         capture_output=True, text=True)
    rows = []
    for line in out.stderr.splitlines():
        if line.startswith("import time:") and "|" in line and "self" not in line:
            parts = line[len("import time:"):].split("|")
            own, total, module = int(parts[0]), int(parts[1]), parts[2].rstrip()
            rows.append((own, total, module))
    everything = sum(own for own, _, _ in rows)
    print(f"python -X importtime -m dsl {' '.join(arguments[2:])}: {len(rows)} modules, {everything / 1000:.1f} ms "
          f"of imports; the {top} slowest by their own time (and with what they import):")
    for own, total, module in sorted(rows, reverse=True)[:top]:
        print(f"  {own / 1000:7.1f} ms  {total / 1000:7.1f} ms  {module.strip()}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--scenario", default="scenarios/skirmish/scenario.yaml",
                        help="relative to each tree (default: the bundled skirmish)")
    parser.add_argument("--no-before", action="store_true", help=f"measure this tree only, not {BASE}")
    parser.add_argument("--before", type=Path, metavar="TREE", help=f"another tree to compare with, instead of {BASE}")
    parser.add_argument("--importtime", choices=["--version", "check", "run"], metavar="COMMAND",
                        help="print where COMMAND's imports go in this tree, and stop")
    parser.add_argument("--top", type=int, default=25)
    args = parser.parse_args()
    if args.importtime:
        importtime(args.importtime, args.scenario, args.top)
        return
    with contextlib.ExitStack() as stack:
        if args.no_before:
            trees = {"after": ROOT}
        else:
            trees = {"before": args.before or stack.enter_context(base_tree()), "after": ROOT}
        print(f"{args.rounds} rounds, fresh processes; before: {args.before or BASE}, after: this tree; "
              f"Python {sys.version.split()[0]}; {load_average()} at the start")
        names = list(commands(args.scenario))
        bare: list[tuple[float, float]] = []
        samples = {(tree, name): [] for tree in trees for name in names}
        for tree, path in trees.items():          # a first, unmeasured round: bytecode compiled, files cached
            for arguments in commands(args.scenario).values():
                timed(arguments, path)
        for _ in range(args.rounds):
            bare.append(timed(["-c", "pass"], ROOT))
            for tree, path in trees.items():
                for name, arguments in commands(args.scenario).items():
                    samples[(tree, name)].append(timed(arguments, path))
        for kind, index in (("wall time", 0), ("CPU time (user + system)", 1)):
            python = statistics.median(b[index] for b in bare)
            print(f"\n{kind}: python -c pass median {python * 1000:.1f} ms, best "
                  f"{min(b[index] for b in bare) * 1000:.1f} ms")
            print(f"  {'':22}" + "".join(f"{tree + ' median':>16}{'best':>10}{'÷ python':>10}" for tree in trees)
                  + ("   after ÷ before" if len(trees) > 1 else ""))
            for name in names:
                row = f"  drama {name:16}"
                medians = []
                for tree in trees:
                    times = [t[index] for t in samples[(tree, name)]]
                    median = statistics.median(times)
                    medians.append(median)
                    row += f"{median * 1000:13.1f} ms{min(times) * 1000:7.1f} ms{median / python:9.1f}×"
                if len(medians) > 1:
                    row += f"{medians[-1] / medians[0]:12.2f}"
                print(row)
        print(f"\n  goal: each command within {GOAL:g}× python -c pass; {load_average()} at the end")


if __name__ == "__main__":
    main()
