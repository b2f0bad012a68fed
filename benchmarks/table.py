"""`drama play` on a long night, through a pseudo-terminal: the cost of an entry, of `/undo` and of
`--resume` at 1,000 entries against 50 (issue 24, "Speed: flat costs").

    python benchmarks/table.py [--entries 1000]

A scenario of two parties with a deep quintessence plays a `repeat` of rounds, each a `round` and
two exchanges whose dice are typed at the table (every prompt answered as a game master would).
Each figure is the time from the answer that completes an entry (or from `/undo`) to the next
prompt on the screen: what the game master waits for. At the end the session is killed (SIGKILL),
`--resume` is timed to its first prompt and compared with `drama run` of the same journal plus the
start-up of a session (`drama play` of a new journal, to its first prompt).
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pexpect

ROOT = Path(__file__).resolve().parent.parent

SETTING = """\
name: Long Night
round: 6 seconds
recovery: 1 hour
calm: 10 minutes
full_rest: 1 day
dice: {sides: 6, high: 6}
ties: actor
"""
CAST = """\
parties:
  Kara:
    name: Kara
    quintessence: 50000
    traits: {Sorcery: 3, Agility: 2}
  Overlord:
    name: Overlord
    quintessence: 50000
    traits: {Cunning: 3, Brutality: 2}
"""
SCRIPT = """\
drama "Long" with Kara, Overlord
initiative Kara 9, Overlord 7
repeat 2000 times
round
Kara bolt -> Overlord with Sorcery, roll
Overlord defends with Cunning, roll
Overlord crush -> Kara with Brutality, roll
Kara defends with Agility, roll
end
"""
PROMPT = re.compile(r"Enter plays it>|dice \(Enter: the engine rolls\)>|or Enter for none>")
UP_TO = re.compile(r"may roll up to (\d+) di")
FACES = "6 4 3 2 1 5"


def scenario(folder: Path) -> Path:
    (folder / "setting.yaml").write_text(SETTING)
    (folder / "cast.yaml").write_text(CAST)
    (folder / "night.drama").write_text(SCRIPT)
    path = folder / "night.yaml"
    path.write_text("title: Long Night\nsetting: setting.yaml\ncast: cast.yaml\nscript: night.drama\n")
    return path


def spawn(folder: Path, *args: str) -> pexpect.spawn:
    env = dict(os.environ, PYTHONPATH=str(ROOT), PROMPT_TOOLKIT_NO_CPR="1", TERM="xterm", NO_COLOR="1")
    child = pexpect.spawn(sys.executable, ["-m", "dsl", "play", "night.yaml", *args], env=env, cwd=str(folder),
                          encoding="utf-8", timeout=120, dimensions=(50, 200), maxread=1 << 16)
    child.delaybeforesend = None
    return child


class Night:
    """The session: answers each prompt, counts the entries, times what completes one."""

    def __init__(self, child: pexpect.spawn):
        self.child = child
        self.entries = 0
        self.times: dict[int, float] = {}     # entry number -> seconds from its last answer to the next prompt
        self.child.expect(PROMPT)

    def step(self) -> None:
        lines = self.child.before.splitlines()
        rolls = UP_TO.search(lines[-1]) if lines else None
        answer = " ".join(FACES.split()[:int(rolls.group(1))]) if rolls else ""
        started = time.perf_counter()
        self.child.sendline(answer)
        self.child.expect(PROMPT)
        took = time.perf_counter() - started
        if "  + " in self.child.before:        # the answer completed an entry: it is on the board
            self.entries += 1
            self.times[self.entries] = took

    def command(self, line: str) -> float:
        started = time.perf_counter()
        self.child.sendline(line)
        self.child.expect(PROMPT)
        return time.perf_counter() - started


def around(times: dict[int, float], at: int, width: int = 15) -> float:
    """The median cost of the entries just before `at`."""
    return statistics.median(v for k, v in times.items() if at - width < k <= at)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=1000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        scenario(folder)
        started = time.perf_counter()
        night = Night(spawn(folder, "--journal", "night-1.drama", "--seed", "1"))
        startup = time.perf_counter() - started
        undo: dict[int, float] = {}
        while night.entries < args.entries:
            night.step()
            if night.entries in (50, args.entries) and night.entries not in undo:
                undo[night.entries] = night.command("/undo")
                night.entries -= 1
        os.kill(night.child.pid, signal.SIGKILL)
        night.child.expect(pexpect.EOF)
        night.child.close()
        started = time.perf_counter()
        again = spawn(folder, "--journal", "night-1.drama", "--resume")
        again.expect(PROMPT)
        resume = time.perf_counter() - started
        again.sendline("/quit")
        again.expect(pexpect.EOF)
        again.close()
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        started = time.perf_counter()
        subprocess.run([sys.executable, "-m", "dsl", "run", "night-1.yaml"], cwd=folder, env=env,
                       stdout=subprocess.DEVNULL, check=True)
        run = time.perf_counter() - started
        n = args.entries
        entry_50, entry_n = around(night.times, 50), around(night.times, n)
        print(f"an entry at 50:       {entry_50 * 1000:7.1f} ms")
        print(f"an entry at {n}:    {entry_n * 1000:7.1f} ms   ({entry_n / entry_50:.2f}x)")
        print(f"/undo at 50:          {undo[50] * 1000:7.1f} ms")
        print(f"/undo at {n}:       {undo[n] * 1000:7.1f} ms   ({undo[n] / undo[50]:.2f}x)")
        print(f"--resume at {n}:    {resume:7.2f} s")
        print(f"drama run + start-up: {run + startup:7.2f} s   (drama run {run:.2f} s, start-up {startup:.2f} s)")


if __name__ == "__main__":
    main()
