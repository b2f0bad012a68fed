"""Benchmark: a four-party encounter run many times with the seeded dice (Monte Carlo).

    python benchmarks/encounter.py [--seeds N] [--profile]

The encounter is written in the scenario language: a dramatic situation of four
parties, `initiative`, then ten rounds in which each party attacks once (`roll`)
and its target defends (`roll`), written out as straight-line statements: 40
exchanges an encounter. It prints:

- **Game.exchange**: exchanges per second of the engine alone, driving a `Game`
  directly with the same actions (a new table per encounter, as a simulation
  would), and again with the events built from each result (`dsl.events`);
- **interpreter**: encounters per second through the interpreter, the script
  parsed once and run for each seed (`Interpreter(...).run(script)`);
- **simulate**: encounters per second as `drama simulate` runs them
  (`dsl.simulate.prepare(...).run(seed)`, lenient, with the collector paused);
- **dsl.play**: encounters per second through `dsl.play(scenario, seed=...)`,
  which also parses the script each time.

Times are CPU times of this process, the best of five batches (the machine is
shared; see docs/performance.md).

With --profile it runs the interpreter workload under cProfile and prints the
top functions by own time.
"""

from __future__ import annotations

import gc
import sys
import tempfile
import time
from pathlib import Path

SETTING = """\
name: Bench
ties: random              # unnamed ties are settled by the seeded dice
"""

# quintessence high enough that nobody is defeated in ten rounds, whatever the seed
CAST = """\
parties:
  Kara:
    quintessence: 40
    traits: {Sorcery: 3, Agility: 1}
    treasures: {Ember Staff: 2, Lucky Coin: 1}
  Bren:
    quintessence: 40
    traits: {Strength: 2, Healing: 2}
    treasures: {Iron Shield: 2, Rope: 1}
  Overlord:
    quintessence: 40
    traits: {Cunning: 3, Brutality: 2}
    treasures: {Obsidian Crown: 2}
  Goblins:
    members: [Snik, Grub, Mox]
    quintessence: 40
    traits: {Numbers: 2}
    treasures: {Rusty Spears: 1}
"""

# attacker, intent, target, attacker's uses, defender's uses
ATTACKS = [
    ("Kara", "fireball", "Overlord", ("Sorcery", "Ember Staff"), ("Cunning", "Obsidian Crown")),
    ("Overlord", "crush", "Bren", ("Brutality", "Obsidian Crown"), ("Strength", "Iron Shield")),
    ("Goblins", "stab", "Kara", ("Numbers", "Rusty Spears"), ("Agility", "Lucky Coin")),
    ("Bren", "charge", "Goblins", ("Strength", "Rope"), ("Numbers", None)),
]
ROUNDS = 10
EXCHANGES = ROUNDS * len(ATTACKS)


def _uses(trait: str | None, treasure: str | None) -> str:
    return " + ".join(x for x in (trait, treasure) if x)


def script() -> str:
    lines = ['drama "Skirmish" with Kara, Bren, Overlord, Goblins', "initiative"]
    for number in range(ROUNDS):
        if number:
            lines.append("round")
        for actor, intent, target, uses, guard in ATTACKS:
            verb = "defend" if target == "Goblins" else "defends"
            lines.append(f"{actor} {intent} -> {target} with {_uses(*uses)}, roll")
            lines.append(f"{target} {verb} with {_uses(*guard)}, roll")
    lines.append('end drama "The dust settles."')
    return "\n".join(lines) + "\n"


def scenario_in(folder: Path):
    import dsl
    (folder / "setting.yaml").write_text(SETTING)
    (folder / "cast.yaml").write_text(CAST)
    indented = "".join("  " + line + "\n" for line in script().splitlines())
    (folder / "scenario.yaml").write_text(
        "title: Bench skirmish\nsetting: setting.yaml\ncast: cast.yaml\nscript: |\n" + indented)
    return dsl.load(folder / "scenario.yaml")


def rate(run, count: int, repeat: int = 5) -> float:
    """The best of `repeat` timings of `run(count)`, as runs per second. The time
    is the CPU time of this process, so that other work on the machine counts less."""
    run(max(1, count // 10))                  # warm up
    best = float("inf")
    for _ in range(repeat):
        started = time.process_time()
        run(count)
        best = min(best, time.process_time() - started)
    return count / best


def engine_runner(scenario, with_events: bool):
    """Encounters driven through `Game` directly, with the actions built once."""
    from dsl import events as ev
    from dsl.engine import Action, Defence, Game, Part, SeededDice, Throw

    plan = [(Action(intent, (Part(actor, *uses, Throw.roll()),), target),
             [Defence((Part(target, *guard, Throw.roll()),))])
            for actor, intent, target, uses, guard in ATTACKS]
    sheets, settings = scenario.cast, scenario.setting

    def run(encounters: int) -> None:
        gc.disable()                     # as the interpreter does while it runs a script
        try:
            for seed in range(encounters):
                encounter(seed)
        finally:
            gc.enable()

    def encounter(seed: int) -> None:
        game = Game(sheets, settings, SeededDice(seed))
        game.begin_drama("Skirmish", ("Kara", "Bren", "Overlord", "Goblins"))
        game.roll_initiative()
        for number in range(ROUNDS):
            if number:
                game.next_round()
            for action, defences in plan:
                result = game.exchange(action, defences)
                if with_events:
                    ev.exchange(result, 1, [], None)
        game.end_drama()
    return run


def interpreter_runner(scenario):
    from dsl import parse
    from dsl.interpreter import Interpreter
    parsed = parse(scenario.script.text, scenario.script.file, scenario.script.line_offset)

    def run(encounters: int) -> None:
        for seed in range(encounters):
            Interpreter(scenario.setting, scenario.cast, title=scenario.title, seed=seed).run(parsed)
    return run


def simulate_runner(folder: Path):
    """Runs as `drama simulate` makes them (`dsl.simulate.prepare(...).run(seed)`:
    lenient, given dice rolled afresh), the collector paused for the whole batch."""
    from dsl.simulate import prepare
    prepared = prepare(str(folder / "scenario.yaml"))

    def run(encounters: int) -> None:
        gc.disable()
        try:
            for seed in range(encounters):
                prepared.run(seed)
        finally:
            gc.enable()
    return run


def play_runner(scenario):
    import dsl

    def run(encounters: int) -> None:
        for seed in range(encounters):
            dsl.play(scenario, seed=seed)
    return run


def main() -> None:
    args = sys.argv[1:]
    seeds = int(args[args.index("--seeds") + 1]) if "--seeds" in args else 200
    with tempfile.TemporaryDirectory() as folder:
        scenario = scenario_in(Path(folder))
        events = __import__("dsl").play(scenario, seed=0)
        assert sum(e["type"] == "exchange" for e in events) == EXCHANGES, "the encounter did not run"
        if "--profile" in args:
            import cProfile
            import pstats
            run = interpreter_runner(scenario)
            profile = cProfile.Profile()
            profile.runcall(run, seeds)
            pstats.Stats(profile).sort_stats("tottime").print_stats(30)
            return
        engine = rate(engine_runner(scenario, False), seeds)
        built = rate(engine_runner(scenario, True), seeds)
        interp = rate(interpreter_runner(scenario), seeds)
        try:
            simulated = rate(simulate_runner(Path(folder)), seeds)
        except ImportError:             # a version without `drama simulate`
            simulated = None
        play = rate(play_runner(scenario), max(1, seeds // 3))
    print(f"{EXCHANGES} exchanges an encounter, {seeds} seeds, best of 5 (CPU time)")
    print(f"Game.exchange alone       {engine * EXCHANGES:>9,.0f} exchanges/s  {engine:>7,.0f} encounters/s")
    print(f"Game.exchange + events    {built * EXCHANGES:>9,.0f} exchanges/s  {built:>7,.0f} encounters/s")
    print(f"interpreter (parsed once) {interp * EXCHANGES:>9,.0f} exchanges/s  {interp:>7,.0f} encounters/s")
    if simulated is not None:
        print(f"simulate's Prepared.run   {simulated * EXCHANGES:>9,.0f} exchanges/s  {simulated:>7,.0f} encounters/s")
    print(f"dsl.play (parse each run) {play * EXCHANGES:>9,.0f} exchanges/s  {play:>7,.0f} encounters/s")


if __name__ == "__main__":
    main()
