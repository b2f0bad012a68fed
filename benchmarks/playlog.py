"""Benchmark: parse and run generated play logs of 1,000, 10,000 and 100,000 actions.

    python benchmarks/playlog.py [--distinct] [SIZES ...]
    python benchmarks/playlog.py --compare OLD_TREE,NEW_TREE [--repeat K] [SIZES ...]
    python benchmarks/playlog.py --compare-in-process OLD_TREE,NEW_TREE [--repeat K] [SIZES ...]
    PYTHONPATH=TREE python benchmarks/playlog.py --in-process N     (from outside the trees)

An action is an aggressive action or a defence, as in the ruleset. Each size runs
in a fresh process, so that its peak memory is its own. It prints the parse time,
the run time (interpreter + engine), the time to write the event log as JSON
Lines, and the peak memory (max RSS) of that process.

With --compare it runs the whole command instead, `python -m dsl run
scenario.yaml --format json` with PYTHONPATH set to each tree in turn (a
worktree of an older commit, say), reading its output through a pipe: the
time to the first byte, the time to the end, and the peak memory, the best
of K runs of each (1,000, 10,000, 100,000 and 300,000 actions by default).

A script file is read up to 8 MiB (E014, E520; dsl/limits.py), about 125,000
actions: `drama run` refuses the longer logs. The in-process measures (the
default, and --in-process) lift that limit, and a run's statement budget
where a tree has one for every statement (E012), so that 300,000 actions can
be timed; --compare-in-process runs --in-process in a fresh process under
each tree in turn, alternating, and prints the best of K.

With --distinct every action line is different (its intent carries a serial
number), so the parser cannot reuse a line it has already read: the worst case.
"""

from __future__ import annotations

import json
import os
import random
import resource
import subprocess
import sys
import time
from pathlib import Path

CAST = """\
parties:
  Kara:
    quintessence: 6
    traits: {Sorcery: 3, Agility: 1}
    treasures: {Ember Staff: 2, Lucky Coin: 1}
  Bren:
    quintessence: 5
    traits: {Strength: 2, Healing: 2}
    treasures: {Iron Shield: 2, Rope: 1}
  Overlord:
    quintessence: 7
    traits: {Cunning: 3, Brutality: 2}
    treasures: {Obsidian Crown: 2}
  Goblins:
    members: [Snik, Grub, Mox]
    quintessence: 4
    traits: {Numbers: 2}
    treasures: {Rusty Spears: 1}
"""

ATTACKS = [
    ("Kara", "fireball", "Overlord", "Sorcery + Ember Staff", "Overlord", "Cunning + Obsidian Crown"),
    ("Overlord", "crush", "Bren", "Brutality + Obsidian Crown", "Bren", "Strength + Iron Shield"),
    ("Goblins", "stab", "Kara", "Numbers + Rusty Spears", "Kara", "Agility + Lucky Coin"),
    ("Bren", "charge", "Goblins", "Strength + Rope", "Goblins", "Numbers"),
]


def play_log(actions: int, seed: int = 1, distinct: bool = False) -> str:
    """A legal play log of `actions` actions (aggressive actions and defences):
    dramatic situations of one round, every die given, each party acting once
    and defending once, then two days of rest."""
    rng = random.Random(seed)
    lines = ['scene "The Endless War"']
    fight = 0
    serial = 0
    while actions > 0:
        fight += 1
        lines.append(f'drama "Battle {fight}" with Kara, Bren, Overlord, Goblins')
        lines.append("initiative Kara 5, Bren 2, Overlord 6, Goblins 3")
        for actor, intent, target, uses, defender, guard in ATTACKS[:(actions + 1) // 2]:
            serial += 1
            attack = " ".join(str(rng.randint(2, 5)) for _ in range(rng.randint(0, 2)))
            defence = " ".join(str(rng.randint(2, 5)) for _ in range(rng.randint(0, 1)))
            named = f"{intent} {serial}" if distinct else intent
            lines.append(f"{actor} {named} -> {target} with {uses}" + (f", rolled {attack}" if attack else ""))
            lines.append(f"{defender} defends with {guard}" + (f", rolled {defence}" if defence else ""))
            actions -= 2
        lines.append("end drama")
        lines.append("rest 2 days")
    return "\n".join(lines) + "\n"


def _without_limits(text: str) -> dict:
    """Lift the script-size limit for this process's parse of `text`, and give the
    keyword arguments that lift the run's statement budget (where it has one)."""
    import importlib
    import inspect
    from dsl.interpreter import Interpreter
    parsing = importlib.import_module("dsl.syntax.parse")      # (the package's `parse` is the function)
    if hasattr(parsing, "MAX_SCRIPT"):
        parsing.MAX_SCRIPT = max(parsing.MAX_SCRIPT, len(text) + 1)
    return {"budget": 10 ** 9} if "budget" in inspect.signature(Interpreter.__init__).parameters else {}


def measure(actions: int, folder: Path, distinct: bool) -> dict:
    from dsl.engine import Settings
    from dsl.events import to_json_lines
    from dsl.interpreter import Interpreter
    from dsl.loader import loads_cast
    from dsl.syntax import parse

    text = play_log(actions, distinct=distinct)
    (folder / f"log-{actions}.drama").write_text(text)
    sheets = loads_cast(CAST, file="cast.yaml")
    unlimited = _without_limits(text)
    started = time.perf_counter()
    script = parse(text, f"log-{actions}.drama")
    parsed = time.perf_counter()
    settings = Settings(ties="actor")
    events = Interpreter(settings, sheets, title="bench", **unlimited).run(script)
    ran = time.perf_counter()
    to_json_lines(events)
    written = time.perf_counter()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    return {"actions": actions, "lines": text.count("\n"), "events": len(events),
            "parse_s": parsed - started, "run_s": ran - parsed, "json_s": written - ran,
            "peak_mib": peak / 1024}


def main() -> None:
    args = sys.argv[1:]
    distinct = "--distinct" in args
    args = [a for a in args if a != "--distinct"]
    if args and args[0] == "--compare":
        # --compare TREE1,TREE2 [--repeat K] SIZES...: the command, tree against tree
        trees = args[1].split(",")
        rest = args[2:]
        repeat = 1
        if rest and rest[0] == "--repeat":
            repeat, rest = int(rest[1]), rest[2:]
        compare([int(a) for a in rest] or [1_000, 10_000, 100_000, 300_000], trees, repeat)
        return
    if args and args[0] == "--compare-in-process":
        rest = args[2:]
        repeat = 1
        if rest and rest[0] == "--repeat":
            repeat, rest = int(rest[1]), rest[2:]
        compare([int(a) for a in rest] or [10_000, 100_000, 300_000], args[1].split(","), repeat, in_process=True)
        return
    if args and args[0] == "--in-process":
        print(json.dumps(in_process(int(args[1]))))
        return
    if args and args[0] == "--one":
        import tempfile
        with tempfile.TemporaryDirectory() as folder:
            print(json.dumps(measure(int(args[1]), Path(folder), distinct)))
        return
    sizes = [int(a) for a in args] or [1_000, 10_000, 100_000]
    print("every line distinct" if distinct else "lines as a play log repeats them")
    print(f"{'actions':>8} {'lines':>8} {'events':>8} {'parse s':>8} {'run s':>8} {'json s':>8} "
          f"{'total s':>8} {'peak MiB':>9}")
    for size in sizes:
        out = subprocess.run([sys.executable, __file__, "--one", str(size)] + (["--distinct"] if distinct else []),
                             capture_output=True, text=True, check=True)
        m = json.loads(out.stdout)
        total = m["parse_s"] + m["run_s"] + m["json_s"]
        print(f"{m['actions']:>8} {m['lines']:>8} {m['events']:>8} {m['parse_s']:>8.2f} {m['run_s']:>8.2f} "
              f"{m['json_s']:>8.2f} {total:>8.2f} {m['peak_mib']:>9.0f}")


# ---------------------------------------------------------------------------
# the whole command, as a user runs it

SETTING = "name: Bench\nround: 6 seconds\ndice: {sides: 6, high: 6}\nties: actor\n"


def command(actions: int, folder: Path, distinct: bool = False) -> dict:
    """`drama run scenario.yaml --format json` on a play log of `actions`
    actions, in a fresh process, its output read through a pipe: the time to
    its first byte and to its end, and the process's peak memory. The command
    is `python -m dsl` of whatever `dsl` PYTHONPATH names (to compare two trees)."""
    import os
    (folder / "cast.yaml").write_text(CAST)
    (folder / "setting.yaml").write_text(SETTING)
    (folder / "log.drama").write_text(play_log(actions, distinct=distinct))
    (folder / "scenario.yaml").write_text("title: bench\nsetting: setting.yaml\ncast: cast.yaml\nscript: log.drama\n")
    began = time.perf_counter()
    child = subprocess.Popen([sys.executable, "-m", "dsl", "run", str(folder / "scenario.yaml"), "--format", "json"],
                             stdout=subprocess.PIPE, cwd=folder)     # (not the tree of the script)
    first = child.stdout.read(1)
    first_at = time.perf_counter()
    size = len(first)
    while True:
        block = child.stdout.read(1 << 16)
        if not block:
            break
        size += len(block)
    _, status, usage = os.wait4(child.pid, 0)
    ended = time.perf_counter()
    assert status == 0, status
    return {"actions": actions, "first_byte_s": first_at - began, "total_s": ended - began,
            "peak_mib": usage.ru_maxrss / 1024, "bytes": size}


def in_process(actions: int) -> dict:
    """Parse, run and write the log as JSON Lines (to /dev/null) in this process,
    past the command's reader and its 8 MiB limit on a script: streamed where
    the interpreter takes an event sink (`events.Streamed`), else as a list
    written at the end (an older tree)."""
    import inspect
    from dsl.engine import Settings
    from dsl.events import to_json_lines
    from dsl.interpreter import Interpreter
    from dsl.loader import loads_cast
    from dsl.syntax import parse
    text = play_log(actions)
    sheets = loads_cast(CAST, file="cast.yaml")
    unlimited = _without_limits(text)
    out = open(os.devnull, "w")
    first = []
    began = time.perf_counter()
    script = parse(text, "log.drama")
    parsed = time.perf_counter()
    if "events" in inspect.signature(Interpreter.__init__).parameters:
        from dsl.events import Streamed

        def write(line: str) -> None:
            if not first:
                first.append(time.perf_counter())
            out.write(line)
        Interpreter(Settings(ties="actor"), sheets, title="bench", events=Streamed(write), **unlimited).run(script)
    else:
        events = Interpreter(Settings(ties="actor"), sheets, title="bench", **unlimited).run(script)
        first.append(time.perf_counter())
        out.write(to_json_lines(events))
    ended = time.perf_counter()
    return {"actions": actions, "parse_s": parsed - began, "first_byte_s": first[0] - began,
            "total_s": ended - began, "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def in_process_under(tree: str, actions: int) -> dict:
    """--in-process in a fresh process whose `dsl` is the tree's (run from outside it)."""
    import tempfile
    with tempfile.TemporaryDirectory() as folder:
        out = subprocess.run([sys.executable, os.path.abspath(__file__), "--in-process", str(actions)],
                             capture_output=True, text=True, check=True, cwd=folder,
                             env={**os.environ, "PYTHONPATH": tree})
    return json.loads(out.stdout)


def compare(sizes: list[int], trees: list[str], repeat: int, in_process: bool = False) -> None:
    """Each size, each tree in turn (PYTHONPATH=tree), `repeat` times; the best of each,
    and every run's figures (to see the noise)."""
    import tempfile
    keys = ("parse_s", "first_byte_s", "total_s", "peak_mib") if in_process else ("first_byte_s", "total_s", "peak_mib")
    print(f"{'actions':>8} {'tree':>24} " + " ".join(f"{k:>12}" for k in keys), flush=True)
    for size in sizes:
        best: dict[str, dict] = {}
        for _ in range(repeat):
            for tree in trees:
                if in_process:
                    m = in_process_under(tree, size)
                else:
                    os.environ["PYTHONPATH"] = tree
                    with tempfile.TemporaryDirectory() as folder:
                        m = command(size, Path(folder))
                print(f"  (run) {size:>8} {tree[-24:]:>24} " + " ".join(f"{m[k]:>12.2f}" for k in keys), flush=True)
                b = best.setdefault(tree, dict(m))
                for key in keys:
                    b[key] = min(b[key], m[key])
        for tree in trees:
            m = best[tree]
            print(f"{size:>8} {tree[-24:]:>24} " + " ".join(f"{m[k]:>12.2f}" for k in keys), flush=True)


if __name__ == "__main__":
    main()
