"""The table commands of `drama play` (`/undo`, `/state`, `/odds` ...): one registry that drives `/help`, Tab completion and dispatch.

Each command is registered once, with what `/help` says of it and whether it
only looks (changes nothing: it may be typed at any prompt, which is then asked
again) or changes the table (typed at a prompt, it stops the entry being
built, as a statement typed instead of an answer does):

    @command("board", "show the board", looks=True)
    def _board(loop, rest): loop.show_board()
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from ..errors import did_you_mean


class Quit(Exception):
    """The game master asked to stop."""


@dataclass(frozen=True)
class Command:
    """One table command: `/NAME [ARGS]`."""

    name: str
    what: str                                   # the line of /help
    run: Callable[[Any, str], None]             # (the loop, the rest of the line)
    looks: bool = False                         # changes nothing


COMMANDS: dict[str, Command] = {}


def command(name: str, what: str, *, looks: bool = False):
    """Register the decorated function `(loop, rest)` as the table command /NAME."""
    def register(run: Callable[[Any, str], None]) -> Callable[[Any, str], None]:
        COMMANDS[name] = Command(name, what, run, looks)
        return run
    return register


def looks(line: str) -> bool:
    """Whether a `/...` line is a command that changes nothing (one this registry does not know may:
    the seats' loop adds its own)."""
    found = COMMANDS.get(line.lstrip("/").split(" ", 1)[0])
    return found is not None and found.looks


def names() -> list[str]:
    """The commands as typed, for completion."""
    return ["/" + name for name in COMMANDS]


def dispatch(loop, line: str) -> None:
    """Run the table command of `line` (without its `/`)."""
    name, _, rest = line.strip().partition(" ")
    found = COMMANDS.get(name)
    if found is None:
        hint = did_you_mean(name, list(COMMANDS))
        loop.say(f"  no table command /{name}" + (f": {hint}" if hint else "") + " (/help lists them)")
        return
    found.run(loop, rest.strip())


@command("undo", "take back the last entry (any number of times); the journal is cut back")
def _undo(loop, rest: str) -> None:
    loop.take_back("undo")


@command("redo", "play the last undone entry again (until a new entry is accepted)")
def _redo(loop, rest: str) -> None:
    loop.take_back("redo")


@command("board", "show the board", looks=True)
def _board(loop, rest: str) -> None:
    loop.show_board()


@command("odds", "[ACTION [| DEFENCE ...]]: the exact chances of an action now (as `drama odds`); "
                 "alone, at a dice prompt: the exchange being rolled", looks=True)
def _odds(loop, rest: str) -> None:
    loop.odds(rest)


@command("state", "[PARTY]: a party's quintessence, traits, treasures and moves (alone: everyone, "
                  "flags and counters)", looks=True)
def _state(loop, rest: str) -> None:
    loop.state(rest)


@command("skip", "pass over the script's next statement without playing it")
def _skip(loop, rest: str) -> None:
    entry = loop.table.skip("skipped at the table")
    if entry is None:
        loop.say("  the script has ended: nothing to skip")
        return
    loop.refused = False
    loop.say(f"  skipped line {entry.marker.line}")
    loop.on_change(loop.table)


@command("help", "this list", looks=True)
def _help(loop, rest: str) -> None:
    for one in COMMANDS.values():
        loop.say(f"  /{one.name:<6} {one.what}")
    loop.say("  anything else is a statement of the language, played at once")


@command("save", "say where the journal is (every entry is saved as it is accepted)", looks=True)
def _save(loop, rest: str) -> None:
    table = loop.table
    loop.say(f"  saved: every entry is in {table.journal.path} ({len(table.entries)} entries)"
             + (f"; replay it with `drama run {loop.scenario_file}`" if loop.scenario_file else ""))


@command("quit", "stop here; `drama play --resume` continues")
def _quit(loop, rest: str) -> None:
    raise Quit
