"""The long fuzz run: many generated inputs through the API and the command, counted by outcome (docs/reliability.md).

    nice python benchmarks/fuzz.py --cases 100000 --jobs 2 --seed 1 --found /tmp/fuzz-found

Cases come from tests/fuzz/harness.py (`generate(seed, index)`): random bytes,
token soup, mutations of the bundled scripts and YAML files. Every tenth case
goes through every function of the API, every fiftieth through the `drama`
command too; the others through `dsl.check` and a compiled run. Each worker
process caps its memory (RLIMIT_AS: its size at start plus `--memory` MB, so
that a run growing past it is a MemoryError, counted as `memory`) and each case
has a time limit in CPU time (`--seconds`, counted as `hang`). A worker serves
250 cases, then a fresh one takes over, and a hang or a memory error is run again
in a fresh process: one that does not come back there is counted apart, as
`hang (used worker)` or `memory (used worker)` (a worker grown by earlier
cases, not the case's own cost). Every case that ends in a
traceback, a hang, a memory error, a recorded log that does not replay (`replay`), a
file outside the folders or Python's internals shown (`leak`), a control character
printed (`control`) or a template over its caps (`over`) is written to `--found` as JSON, ready to
be copied into tests/fuzz/cases/ as a regression case. Progress goes to
stderr; the figures (counts, time per case, the slowest) to stdout, and as
JSON to `--json`.
"""

from __future__ import annotations

import argparse
import gc
import json
import multiprocessing
import os
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from fuzz.harness import Workspace, generate, run_case  # noqa: E402

_workspace: Workspace | None = None
_seconds = 10.0
_memory = 1024


def _start(memory_mb: int, seconds: float) -> None:
    global _workspace, _seconds, _memory
    _seconds, _memory = seconds, memory_mb
    try:
        import resource
        with open("/proc/self/statm") as handle:          # (Linux; elsewhere no cap is set)
            pages = int(handle.read().split()[0])
        size = pages * os.sysconf("SC_PAGE_SIZE")
        resource.setrlimit(resource.RLIMIT_AS, (size + memory_mb * 2**20, resource.RLIM_INFINITY))
    except (ImportError, OSError, ValueError):
        pass
    _workspace = Workspace(Path(tempfile.mkdtemp(prefix="drama-fuzz-")))
    import dsl                                   # the imports and the grammar, before any timed case
    dsl.check(_workspace.folder / "emberfall" / "scenario.yaml")


def _one(task: tuple[int, int]) -> tuple[int, str, float, str, str]:
    seed, index = task
    case = generate(seed, index)
    # every tenth case through every function of the API; the others through check and a run
    outcome = run_case(case, _workspace, seconds=_seconds, full=index % 10 == 0)
    kind = outcome.kind
    if kind in ("hang", "memory") and _fresh(seed, index) != kind:
        kind = f"{kind} (used worker)"
    kept = ""
    if outcome.kind not in ("ok", "error"):
        try:
            kept = case.to_json()
        except MemoryError:     # (a case that ran out of memory may leave too little to write it out)
            del case
            gc.collect()
            kept = json.dumps({"origin": f"{seed}:{index}", "regenerate": f"generate({seed}, {index})"}) + "\n"
    return index, kind, outcome.seconds, outcome.slowest + ": " + outcome.detail, kept


def _fresh(seed: int, index: int) -> str:
    """The outcome of case `index` run alone, in a new process with the same limits."""
    import subprocess
    done = subprocess.run([sys.executable, __file__, "--one", f"{seed}:{index}", "--seconds", str(_seconds),
                           "--memory", str(_memory)], capture_output=True, text=True)
    return done.stdout.strip().splitlines()[-1] if done.stdout.strip() else "traceback"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=1000)
    parser.add_argument("--start", type=int, default=0, help="the index of the first case")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--seconds", type=float, default=10.0, help="a call's time limit, in CPU seconds")
    parser.add_argument("--memory", type=int, default=1024, help="MB a worker may grow by")
    parser.add_argument("--found", type=Path, default=Path("fuzz-found"))
    parser.add_argument("--json", type=Path)
    parser.add_argument("--one", metavar="SEED:INDEX", help="run one case in this process and print its outcome")
    args = parser.parse_args()
    if args.one:
        seed, index = (int(part) for part in args.one.split(":"))
        _start(args.memory, args.seconds)
        print(run_case(generate(seed, index), _workspace, seconds=args.seconds, full=index % 10 == 0).kind)
        return
    args.found.mkdir(parents=True, exist_ok=True)

    counts: Counter = Counter()
    by_kind: dict[str, Counter] = {}
    times: list[float] = []
    slowest: list[tuple[float, int, str]] = []
    began = time.perf_counter()
    tasks = [(args.seed, i) for i in range(args.start, args.start + args.cases)]
    with multiprocessing.get_context("fork").Pool(args.jobs, _start, (args.memory, args.seconds),
                                                  maxtasksperchild=250) as pool:
        for done, (index, kind, seconds, detail, kept) in enumerate(pool.imap_unordered(_one, tasks, 8), 1):
            counts[kind] += 1
            case_kind = generate(args.seed, index).kind
            by_kind.setdefault(case_kind, Counter())[kind] += 1
            times.append(seconds)
            slowest = sorted([*slowest, (seconds, index, detail.split(":")[0])], reverse=True)[:5]
            if kept:
                (args.found / f"{kind}-{args.seed}-{index}.json").write_text(kept, encoding="utf-8")
                (args.found / f"{kind}-{args.seed}-{index}.txt").write_text(detail, encoding="utf-8")
                print(f"{kind} at case {index}: {detail.strip().splitlines()[-1] if detail.strip() else ''}",
                      file=sys.stderr, flush=True)
            if done % 1000 == 0:
                print(f"{done} cases, {dict(counts)}, {time.perf_counter() - began:.0f} s", file=sys.stderr,
                      flush=True)
    times.sort()
    report = {
        "cases": args.cases, "seed": args.seed, "start": args.start, "jobs": args.jobs,
        "seconds_limit": args.seconds, "memory_mb": args.memory,
        "outcomes": dict(counts), "by_kind": {k: dict(v) for k, v in sorted(by_kind.items())},
        "wall_seconds": round(time.perf_counter() - began, 1),
        "slowest_call_seconds": {"median": round(times[len(times) // 2], 4), "p99": round(times[int(len(times) * 0.99)], 3),
                         "max": round(times[-1], 3)},
        "slowest": [{"index": i, "seconds": round(s, 3), "call": c} for s, i, c in slowest],
    }
    print(json.dumps(report, indent=1))
    if args.json:
        args.json.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
