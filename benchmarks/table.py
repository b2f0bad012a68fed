"""`drama play` on a long night, through a pseudo-terminal: the cost of an entry, of `/undo` and of
`--resume` at 1,000 entries against 50 (issue 24, "Speed: flat costs").

    python benchmarks/table.py [--entries 1000] [--screen | --both] [--before DIR]

A scenario of two parties with a deep quintessence plays a `repeat` of rounds, each a `round` and
two exchanges whose dice are typed at the table (every prompt answered as a game master would).
Each figure is the time from the answer that completes an entry (or from `/undo`) to the next
prompt on the screen: what the game master waits for (`/undo`: the median of five, each redone). At the end the session is killed (SIGKILL),
`--resume` is timed to its first prompt and compared with `drama run` of the same journal plus the
start-up of a session (`drama play` of a new journal, to its first prompt). First, the same night
through the package API: the table's own work, without a terminal.

The session is played line after line (`--plain`, the default here: the prompt found in the output)
or in full screen (`--screen`: the screen read as a terminal shows it, with pyte, the prompt at its
bottom line); `--both` plays one night in each, one after the other, in one run. An entry is counted
when the journal has one more `# play N:` line. Each figure is given as the wall time the game master
waits (the median over the 30 entries up to 50, and up to 1,000) and as the CPU time the `drama play`
process spent on an entry there (from /proc), with the load average of the machine during the night.
The table alone also gives what the journal's fsync costs an entry, timed apart.

`--before DIR` plays every night first with the code of DIR (a checkout of the project before a
change), then with this one, in the same run, and prints the ratios after/before.
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

sys.path[:0] = [str(Path(__file__).resolve().parent.parent), str(Path(__file__).resolve().parent.parent / "tests")]

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
ACCEPTED = "\x1b[?2004l"          # prompt_toolkit turns bracketed paste off once it has taken a line


def scenario(folder: Path) -> Path:
    (folder / "setting.yaml").write_text(SETTING)
    (folder / "cast.yaml").write_text(CAST)
    (folder / "night.drama").write_text(SCRIPT)
    path = folder / "night.yaml"
    path.write_text("title: Long Night\nsetting: setting.yaml\ncast: cast.yaml\nscript: night.drama\n")
    return path


def environment(screen: bool, source: Path = ROOT) -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=str(source), PROMPT_TOOLKIT_NO_CPR="1", TERM="xterm", NO_COLOR="1")
    if screen:
        env.pop("NO_COLOR")
    return env


class Plain:
    """A session line after line through a pseudo-terminal: the prompt found in the output (pexpect)."""

    def __init__(self, folder: Path, source: Path, *args: str):
        self.child = pexpect.spawn(sys.executable, ["-m", "dsl", "play", "night.yaml", "--plain", *args],
                                   env=environment(False, source), cwd=str(folder), encoding="utf-8", timeout=120,
                                   dimensions=(50, 200), maxread=1 << 16)
        self.child.delaybeforesend = None
        self.pid = self.child.pid
        self.child.expect(PROMPT)

    def prompt(self) -> str:
        lines = self.child.before.splitlines()
        return (lines[-1] if lines else "") + self.child.after

    def answer(self, line: str) -> None:
        """Send a line and wait for the next prompt (after the line was taken, not its echo)."""
        self.child.sendline(line)
        self.child.expect_exact(ACCEPTED)
        self.child.expect(PROMPT)

    def kill(self) -> None:
        os.kill(self.child.pid, signal.SIGKILL)
        self.child.expect(pexpect.EOF)
        self.child.close()


class Screen:
    """A session in full screen: the screen read as a terminal shows it (pyte), the prompt at the bottom."""

    def __init__(self, folder: Path, source: Path, *args: str):
        from play_helpers import Screen as Terminal
        self.terminal = Terminal("night.yaml", "--screen", *args, rows=50, columns=200, timeout=120,
                                 cwd=str(folder), path=str(source))
        self.pid = self.terminal.child.pid
        self.shown = ""
        self.terminal.wait(self._ready, "the first prompt")
        self.shown = self.terminal.text()

    def _ready(self, lines: list[str]) -> bool:
        bottom = lines[-1].rstrip()
        return bool(PROMPT.search(bottom)) and bottom.endswith(">") and self.terminal.text() != self.shown

    def prompt(self) -> str:
        return self.terminal.lines()[-1]

    def answer(self, line: str) -> None:
        self.shown = self.terminal.text()
        self.terminal.child.sendline(line)
        self.terminal.wait(self._ready, "the next prompt")

    def kill(self) -> None:
        os.kill(self.terminal.child.pid, signal.SIGKILL)
        self.terminal.finish()


class Night:
    """The session: answers each prompt, counts the entries in the journal, times what completes one."""

    def __init__(self, front, journal: Path):
        self.front = front
        self.journal = journal
        self.entries = 0
        self.times: dict[int, float] = {}     # entry number -> seconds from its last answer to the next prompt
        self.cpu: dict[int, float] = {}       # entry number -> CPU seconds of the `drama play` process so far

    def count(self) -> int:
        return self.journal.read_text(encoding="utf-8").count("\n# play ")

    def step(self) -> None:
        rolls = UP_TO.search(self.front.prompt())
        answer = " ".join(FACES.split()[:int(rolls.group(1))]) if rolls else ""
        started = time.perf_counter()
        self.front.answer(answer)
        took = time.perf_counter() - started
        entries = self.count()
        if entries > self.entries:            # the answer completed an entry
            self.entries = entries
            self.times[entries] = took
            self.cpu[entries] = cpu_seconds(self.front.pid)

    def command(self, line: str) -> float:
        started = time.perf_counter()
        self.front.answer(line)
        took = time.perf_counter() - started
        self.entries = self.count()
        return took


def cpu_seconds(pid: int) -> float:
    """The CPU time (user and system) a process has used so far, from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


WINDOW = 30          # the entries a figure is taken over: the 30 up to 50, and the 30 up to the last


def around(times: dict[int, float], at: int, width: int = WINDOW) -> float:
    """The median cost of the entries just before `at`."""
    return statistics.median(v for k, v in times.items() if at - width < k <= at)


def cpu_around(cpu: dict[int, float], at: int, width: int = WINDOW) -> float:
    """The CPU time an entry took, on average, over the entries just before `at`."""
    return (cpu[at] - cpu[at - width]) / width


def load() -> str:
    return "{:.1f}".format(os.getloadavg()[0])


def night(folder: Path, entries: int, screen: bool, source: Path) -> dict[str, float]:
    """One night of `entries` entries, killed, resumed, and its journal run: its figures."""
    front = Screen if screen else Plain
    for old in folder.glob("night-1*"):
        old.unlink()
    loads = [load()]
    started = time.perf_counter()
    playing = Night(front(folder, source, "--journal", "night-1.drama", "--seed", "1"), folder / "night-1.drama")
    startup = time.perf_counter() - started
    undo: dict[int, float] = {}
    while playing.entries < entries:
        playing.step()
        at = playing.entries
        if at in (50, entries) and at not in undo:          # five undos, each redone: their median
            times = []
            for _ in range(5):
                times.append(playing.command("/undo"))
                playing.command("/redo")
            undo[at] = statistics.median(times)
    playing.front.kill()
    started = time.perf_counter()
    again = front(folder, source, "--journal", "night-1.drama", "--resume")
    resume = time.perf_counter() - started
    again.kill()
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "dsl", "run", "night-1.yaml"], cwd=folder, env=environment(False, source),
                   stdout=subprocess.DEVNULL, check=True)
    run = time.perf_counter() - started
    loads.append(load())
    return {"entry 50": around(playing.times, 50), "entry n": around(playing.times, entries),
            "cpu 50": cpu_around(playing.cpu, 50), "cpu n": cpu_around(playing.cpu, entries),
            "undo 50": undo[50], "undo n": undo[entries], "resume": resume, "run": run, "startup": startup,
            "load": " to ".join(loads)}


def show_night(name: str, n: int, figures: dict, before: dict | None = None) -> None:
    def ratio(key: str) -> str:
        return f"   after/before {figures[key] / before[key]:.2f}x" if before else ""
    f = figures
    print(f"{name} (load {f['load']}):")
    print(f"  an entry at 50:        {f['entry 50'] * 1000:7.1f} ms wall, {f['cpu 50'] * 1000:5.1f} ms CPU{ratio('entry 50')}")
    print(f"  an entry at {n}:      {f['entry n'] * 1000:7.1f} ms wall, {f['cpu n'] * 1000:5.1f} ms CPU"
          f"   ({f['entry n'] / f['entry 50']:.2f}x at 50){ratio('entry n')}")
    print(f"  /undo at 50:           {f['undo 50'] * 1000:7.1f} ms{ratio('undo 50')}")
    print(f"  /undo at {n}:         {f['undo n'] * 1000:7.1f} ms   ({f['undo n'] / f['undo 50']:.2f}x at 50)"
          f"{ratio('undo n')}")
    print(f"  --resume at {n}:      {f['resume']:7.2f} s{ratio('resume')}")
    print(f"  drama run + start-up:  {f['run'] + f['startup']:7.2f} s   (drama run {f['run']:.2f} s, "
          f"start-up {f['startup']:.2f} s)")


def in_process(folder: Path, entries: int) -> None:
    """The table's own work, through the package API (no terminal): an entry, and `/undo`, at 50 and at
    `entries`; the journal's fsync timed apart (it is in an entry's wall time, not in its CPU time)."""
    from dsl.pipeline import Program
    from dsl.table.asks import DiceAsk
    from dsl.table.core import Table

    def calls(ask):
        return tuple(int(x) for x in FACES.split()[:ask.most]) if isinstance(ask, DiceAsk) and ask.most else None

    from dsl.table import journal

    synced: list[float] = []
    sync = journal.sync

    def timed_sync(fd: int) -> None:
        started = time.perf_counter()
        sync(fd)
        synced.append(time.perf_counter() - started)

    journal.sync = timed_sync
    try:
        table = Table.start(Program.compile(str(folder / "night.yaml")), str(folder / "api.drama"), seed=1)
        times: dict[int, float] = {}
        cpu: dict[int, float] = {}
        undo: dict[int, float] = {}
        while len(table.entries) < entries:
            started, used = time.perf_counter(), time.process_time()
            table.play_script(calls)
            times[len(table.entries)] = time.perf_counter() - started
            cpu[len(table.entries)] = time.process_time() - used
            at = len(table.entries)
            if at in (50, entries) and at not in undo:
                samples = []
                for _ in range(5):
                    started = time.perf_counter()
                    table.undo()
                    samples.append(time.perf_counter() - started)
                    table.redo()
                undo[at] = statistics.median(samples)
    finally:
        journal.sync = sync
    entry_50, entry_n = around(times, 50), around(times, entries)
    print(f"the table alone (package API, no terminal; load {load()}):")
    print(f"  an entry at 50:        {entry_50 * 1000:7.1f} ms wall, {around(cpu, 50) * 1000:5.1f} ms CPU")
    print(f"  an entry at {entries}:      {entry_n * 1000:7.1f} ms wall, {around(cpu, entries) * 1000:5.1f} ms CPU"
          f"   ({entry_n / entry_50:.2f}x)")
    print(f"  the journal's sync:    {statistics.median(synced) * 1000:7.1f} ms an entry (fdatasync, median of "
          f"{len(synced)})")
    fsync, fdatasync = syncs(folder / "sync.drama")
    print(f"  fsync, fdatasync:      {fsync * 1000:7.1f} ms, {fdatasync * 1000:.1f} ms (an entry's lines appended, "
          f"each the median of 100, one after the other)")
    print(f"  /undo at 50:           {undo[50] * 1000:7.1f} ms")
    print(f"  /undo at {entries}:         {undo[entries] * 1000:7.1f} ms   ({undo[entries] / undo[50]:.2f}x)")


def syncs(path: Path, times: int = 100) -> tuple[float, float]:
    """What `os.fsync` and `os.fdatasync` cost after appending an entry's lines to a file, taken in turns."""
    line = ("Kara bolt -> Overlord with Sorcery, rolled 6 4 3\n" * 4 + "# play 7: from the script\n\n").encode()
    taken: dict[str, list[float]] = {"fsync": [], "fdatasync": []}
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)
    try:
        for _ in range(times):
            for name in taken:
                os.write(fd, line)
                started = time.perf_counter()
                getattr(os, name)(fd)
                taken[name].append(time.perf_counter() - started)
    finally:
        os.close(fd)
    return statistics.median(taken["fsync"]), statistics.median(taken["fdatasync"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=1000)
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--screen", action="store_true", help="play in full screen (read with pyte)")
    mode.add_argument("--both", action="store_true", help="a night line after line, then one in full screen")
    parser.add_argument("--before", type=Path, default=None, metavar="DIR",
                        help="a checkout of the code before a change: each night is played with it too, first")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        scenario(folder)
        in_process(folder, args.entries)
        for screen in ((False, True) if args.both else (args.screen,)):
            name = "full screen" if screen else "plain"
            before = night(folder, args.entries, screen, args.before.resolve()) if args.before else None
            if before:
                show_night(f"{name}, before", args.entries, before)
            show_night(name, args.entries, night(folder, args.entries, screen, ROOT), before)


if __name__ == "__main__":
    main()
