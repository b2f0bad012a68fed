"""How `drama check`'s time grows with a script's length, on generated scripts
(docs/performance.md, "drama check on generated scripts").

Each script is made of random blocks from the Emberfall cast: narration,
exchanges, `if` blocks and loops with bounds up to the limit (10,000), nested
up to four deep, so that many of them would run for hours without the
execution budget. For each length, the best of `--repeat` checks through
`dsl.check` (start-up excluded), the seconds per thousand lines, and the
slowest check of `--scripts` random scripts of that length.

    python benchmarks/check_scaling.py [--lines 250 500 1000 2000 4000 8000] [--scripts 5]
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import dsl  # noqa: E402
from samples import EMBERFALL_CAST, EMBERFALL_SETTING  # noqa: E402

PARTIES = ["Kara", "Bren", "Overlord", "Goblins"]
CONDITIONS = ["Overlord is defeated", "last exchange won", "round >= 3", "Kara quintessence < 2",
              "Goblins is defeated or Bren is defeated", "not in drama", "Kara can recover"]


def block(rng: random.Random, depth: int) -> list[str]:
    """One random statement or block, as lines."""
    roll = rng.random()
    if depth < 4 and roll < 0.15:
        bound = rng.choice([3, 20, 999, 10_000])
        head = (f"repeat {bound} times" if rng.random() < 0.5
                else f"repeat until {rng.choice(CONDITIONS)}, at most {bound} times")
        body = [line for _ in range(rng.randint(1, 4)) for line in block(rng, depth + 1)]
        return [head, *body, "end"]
    if depth < 4 and roll < 0.3:
        body = [line for _ in range(rng.randint(1, 3)) for line in block(rng, depth + 1)]
        return [f"if {rng.choice(CONDITIONS)}", *body, "else", "> nothing happens", "end"]
    if roll < 0.6:
        return [f"> {rng.choice(PARTIES)} {rng.choice(['waits', 'shouts', 'looks around'])}."]
    if roll < 0.7:
        return ["round"]
    attacker, target = rng.sample(PARTIES, 2)
    return [f"{attacker} strikes -> {target}, roll", f"{target} defends, roll"]


def script(rng: random.Random, lines: int) -> str:
    out = ['drama "Hall" with Kara, Bren, Overlord, Goblins', "initiative"]
    while len(out) < lines:
        out.extend(block(rng, 0))
    return "\n".join(out[:lines]) + "\n"


def timed_check(folder: Path, text: str, repeat: int) -> tuple[float, list[str]]:
    (folder / "script.drama").write_text(text, encoding="utf-8")
    best = float("inf")
    codes: list[str] = []
    for _ in range(repeat):
        start = time.perf_counter()
        found = dsl.check(folder / "scenario.yaml")
        best = min(best, time.perf_counter() - start)
        codes = sorted({e.code for e in found})
    return best, codes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, nargs="+", default=[250, 500, 1000, 2000, 4000, 8000])
    parser.add_argument("--scripts", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "setting.yaml").write_text(EMBERFALL_SETTING, encoding="utf-8")
        (folder / "cast.yaml").write_text(EMBERFALL_CAST, encoding="utf-8")
        (folder / "scenario.yaml").write_text("title: T\nsetting: setting.yaml\ncast: cast.yaml\n"
                                              "script: script.drama\n", encoding="utf-8")
        timed_check(folder, script(rng, 50), 1)         # warm up: imports, the grammar
        print(f"{'lines':>7} {'median s':>9} {'slowest s':>10} {'s per 1000 lines':>17}  codes of the slowest")
        for lines in args.lines:
            times = []
            for _ in range(args.scripts):
                text = script(rng, lines)
                # (unbalanced blocks at the cut are E004s: still a check to time)
                times.append(timed_check(folder, text, args.repeat))
            times.sort()
            median = times[len(times) // 2][0]
            slowest, codes = times[-1]
            print(f"{lines:>7} {median:>9.3f} {slowest:>10.3f} {1000 * median / lines:>17.3f}  {' '.join(codes)}")


if __name__ == "__main__":
    main()
