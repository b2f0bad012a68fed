"""The fallen are out of the situation (R7): what is left of a line when some of the parties it names are defeated.

Inside `if`, `repeat` and `choose` a line written for parties that are
defeated in the running dramatic situation is skipped, and a joint action or
defence goes on with the parties still standing, a recovery without its
defeated helpers. The interpreter asks `without_defeated` for each line it
may skip (`MAY_SKIP`) and logs a `skipped` event for what was left out; the
table asks `standing` for the lines it is about to play, so that it offers
only what the run will play.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable, Iterable

from ..syntax import nodes as n

# the statements a defeated party's line is skipped for, inside control flow (their trait)
MAY_SKIP = n.kinds("may_skip")
# the lines that belong to an aggressive action: skipped with it
_OF_AN_ACTION = tuple(kind for kind in MAY_SKIP if kind.part_of_exchange)


@dataclass(frozen=True)
class Standing:
    """What is left of one line: the line to run, or None when it is skipped whole."""

    statement: n.Statement | None
    down: tuple[str, ...] = ()              # the defeated parties it was written for (a `skipped` event)
    helpers_down: tuple[str, ...] = ()      # a recovery's defeated helpers, left out (a `skipped` event)


def without_defeated(s: n.Statement, game, party: Callable[[n.Name], str]) -> Standing:
    """The line `s` (one of `MAY_SKIP`) without its defeated parties, on the state of
    `game` now (`party` gives a name's party id): skipped whole when all the
    parties it is for are defeated."""
    helpers_down: tuple[str, ...] = ()
    if isinstance(s, n.Recover) and s.helpers:
        helping = [h for h in s.helpers if not game.state(party(h.party)).defeated]
        if len(helping) < len(s.helpers):
            helpers_down = tuple(party(h.party) for h in s.helpers if h not in helping)
            s = replace(s, helpers=tuple(helping))
    names = s.actors if isinstance(s, n.Action) else s.parties if isinstance(s, n.Defence) else (s.party,)
    ids = [party(name) for name in names]
    down = tuple(pid for pid in ids if game.state(pid).defeated)
    if not down:
        return Standing(s, (), helpers_down)
    if len(down) == len(ids):
        return Standing(None, down, helpers_down)
    # a joint side goes on with the parties still standing
    keep = tuple(name for name, pid in zip(names, ids) if pid not in down)
    lines = tuple(line for line in s.participants if party(line.party) not in down)
    side = "actors" if isinstance(s, n.Action) else "parties"
    if len(lines) == 1:      # one party left: its own line, with the first line's GM modifier (R10)
        line = lines[0]
        s = replace(s, **{side: keep}, uses=line.uses, gm=line.gm + s.gm, dice=line.dice, participants=())
    else:
        s = replace(s, **{side: keep}, participants=lines)
    return Standing(s, down, helpers_down)


def standing(lines: Iterable[n.Statement], game, party: Callable[[n.Name], str]) -> list[n.Statement]:
    """The lines of one entry (an action with what answers it, say) as a run plays them
    inside control flow: each without its defeated parties, and the lines of an action
    skipped whole left out with it."""
    out: list[n.Statement] = []
    skipped_action = False
    for s in lines:
        if isinstance(s, n.Action):
            skipped_action = False
        elif skipped_action and isinstance(s, _OF_AN_ACTION):
            continue
        if isinstance(s, MAY_SKIP):
            left = without_defeated(s, game, party).statement
            if left is None:
                skipped_action = skipped_action or isinstance(s, n.Action)
                continue
            s = left
        out.append(s)
    return out
