"""A scenario checked again and again, as the language server does on every edit: the
cost with the composed YAML files kept (`dsl/loader/yamlnodes.py`) against composing
them anew each time, side by side in one run (docs/performance.md, "Checking again").

    python benchmarks/recheck.py [SCENARIO] [--times N]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import dsl  # noqa: E402
from dsl.loader import yamlnodes  # noqa: E402


def _timed(scenario: str, times: int, keep: bool) -> float:
    best = float("inf")
    for _ in range(3):                      # the best of three rounds: the least disturbed
        start = time.perf_counter()
        for _ in range(times):
            if not keep:
                yamlnodes._COMPOSED.clear()
            dsl.check(scenario)
        best = min(best, (time.perf_counter() - start) / times)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scenario", nargs="?", default="scenarios/ashen-pass/with-embers.yaml")
    parser.add_argument("--times", type=int, default=20)
    args = parser.parse_args()
    dsl.check(args.scenario)                # the imports and the grammar, before timing
    anew = _timed(args.scenario, args.times, keep=False)
    kept = _timed(args.scenario, args.times, keep=True)
    print(f"{args.scenario}: composed anew {anew * 1000:.1f} ms a check, kept {kept * 1000:.1f} ms "
          f"({kept / anew:.2f}x); load {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
