"""Benchmark: the cost of the one reader's limits on reading a saved event log.

    python benchmarks/event_log.py [REPEATS]

It runs the Emberfall play log (scenarios/emberfall) with `drama run --format
json`, repeats its middle events into a log of about 15 MB (31,000 events), and
times `dsl.render.read_event_log` on it (regular file, size limit, NUL, depth,
number and escape checks, E602 positions) against the floor: reading the file
and `json.loads` of each line, nothing checked. It prints the best of REPEATS
runs of each (default 7, alternating) and their ratio.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    sys.path.insert(0, str(ROOT))
    from dsl.render import read_event_log
    log = subprocess.run([sys.executable, "-m", "dsl", "run", str(ROOT / "scenarios/emberfall/scenario.yaml"),
                          "--format", "json"], capture_output=True, text=True, check=True, cwd=ROOT).stdout
    lines = log.splitlines()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "big.jsonl"
        path.write_text("\n".join([lines[0], *lines[1:-1] * 1000, lines[-1]]) + "\n", encoding="utf-8")

        def floor() -> int:
            with open(path, encoding="utf-8") as handle:
                return len([json.loads(line) for line in handle.read().split("\n") if line.strip()])

        def checked() -> int:
            return len(read_event_log(path))

        best = {"json.loads per line": float("inf"), "read_event_log": float("inf")}
        for _ in range(repeats):
            for name, work in (("json.loads per line", floor), ("read_event_log", checked)):
                began = time.perf_counter()
                count = work()
                best[name] = min(best[name], time.perf_counter() - began)
        size = path.stat().st_size
    print(f"{count:,} events, {size / 2**20:.1f} MiB, best of {repeats}")
    for name, seconds in best.items():
        print(f"  {name:<22} {seconds:.3f} s")
    print(f"  ratio                  {best['read_event_log'] / best['json.loads per line']:.2f}x")


if __name__ == "__main__":
    main()
