"""The fallen are out of the situation (R7, RULES.md point 15): what is left of a line when some of the parties it names are defeated.

Inside `if`, `repeat` and `choose` a line written for parties that are
defeated in the running dramatic situation is skipped, and a joint action or
defence goes on with the parties still standing, a recovery without its
defeated helpers. A defeated party is no longer a party to strike at either
(point 15): an aggressive action aimed only at defeated parties is skipped
too, with its defences, ties, splits and options, and one that names
standing and defeated targets goes on against the standing ones only, the
first of them its target, each other an extra target (R4). At the top level
of a script the first is an error (E321, `aimed_at_the_fallen`), the second
the same as inside control flow.

The interpreter asks `without_defeated` for each line it may skip
(`MAY_SKIP`) and logs a `skipped` event for what was left out; the table
asks `standing` for the lines it is about to play, so that it offers only
what the run will play.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Callable, Iterable

from ..frozen import frozen
from .. import events as ev
from ..errors import DramaError, RuleError
from ..syntax import nodes as n
from .exchanges import Pending

# the statements a defeated party's line is skipped for, inside control flow (their trait)
MAY_SKIP = n.kinds("may_skip")
# the lines that belong to an aggressive action: skipped with it
_OF_AN_ACTION = n.kinds("part_of_exchange")      # its defences, ties, split and options (point 15)
# the `why` of the `skipped` event of an action's defeated targets (point 15)
TARGET_DEFEATED = "target defeated"


@frozen
class Standing:
    """What is left of one line: the line to run, or None when it is skipped whole."""

    statement: n.Statement | None
    down: tuple[str, ...] = ()              # the defeated parties it was written for (a `skipped` event)
    helpers_down: tuple[str, ...] = ()      # a recovery's defeated helpers, left out (a `skipped` event)
    targets_down: tuple[str, ...] = ()      # an action's defeated targets, left out (point 15)

    @property
    def skipped_for(self) -> tuple[str, ...]:
        """The defeated parties the line is skipped for, when it is skipped whole."""
        return () if self.statement is not None else self.down or self.targets_down


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
    if down and len(down) == len(ids):
        return Standing(None, down, helpers_down)
    targets_down: tuple[str, ...] = ()
    if isinstance(s, n.Action):
        s, targets_down = against_the_standing(s, game, party)
        if s is None:
            return Standing(None, (), helpers_down, targets_down)
    if not down:
        return Standing(s, (), helpers_down, targets_down)
    # a joint side goes on with the parties still standing
    keep = tuple(name for name, pid in zip(names, ids) if pid not in down)
    lines = tuple(line for line in s.participants if party(line.party) not in down)
    side = "actors" if isinstance(s, n.Action) else "parties"
    if len(lines) == 1:      # one party left: its own line, with the first line's GM modifier (R10)
        line = lines[0]
        s = replace(s, **{side: keep}, uses=line.uses, gm=line.gm + s.gm, dice=line.dice, participants=())
    else:
        s = replace(s, **{side: keep}, participants=lines)
    return Standing(s, down, helpers_down, targets_down)


def against_the_standing(s: n.Action, game, party: Callable[[n.Name], str]
                         ) -> tuple[n.Action | None, tuple[str, ...]]:
    """An aggressive action against its standing targets only (point 15): the first
    standing target is its target, each other standing one an extra target (R4);
    None when every target it names is defeated. Also returns the defeated targets."""
    if s.target is None:
        return s, ()            # the GM's target number: nobody to fall
    named = (s.target, *s.extra_targets)
    down = tuple(pid for pid in map(party, named) if game.state(pid).defeated)
    if not down:
        return s, ()
    standing = [name for name in named if party(name) not in down]
    if not standing:
        return None, down
    return replace(s, target=standing[0], extra_targets=tuple(standing[1:])), down


def aimed_at_the_fallen(s: n.Action, down: tuple[str, ...], drama: str) -> DramaError:
    """E321: at the top level of a script, an aggressive action aimed only at defeated parties."""
    who = down[0] if len(down) == 1 else ", ".join(down[:-1]) + " and " + down[-1]
    return RuleError("point 15", "E321", f"{who} {'is' if len(down) == 1 else 'are'} defeated in {drama}, "
                     "out of the situation: no longer a party to strike at",
                     position=s.target.pos, expected="a target that is still standing",
                      hint="inside `if` or `repeat` such an action is skipped; at the top level, "
                           "strike at someone still standing or leave the line out")


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


class SkipsTheFallen:
    """The interpreter's part that applies the rules above to the line being run, with
    its `skipped` events; mixed into `core.Interpreter`."""

    def without_defeated(self, s: n.Statement) -> n.Statement | None:
        """Inside `if` or `repeat`, a line for parties that are defeated (R7) is
        skipped, with a `skipped` event; a joint action or defence goes on
        without its defeated participants, a recovery without its defeated
        helpers (`without_defeated`). Returns the line to run, or None."""
        game = self.game
        pending = self.pending
        if isinstance(s, (n.Defence, n.Dictate, n.Reroll)) and pending is not None and pending.skipped:
            return None          # part of an exchange that was skipped
        standing = without_defeated(s, game, self.names.party)
        if standing.helpers_down:
            self.events.append(ev.skipped(s.pos.file, self.line(s), list(standing.helpers_down), game.drama.name,
                                          game.round))
        if standing.down:
            event = ev.skipped(s.pos.file, self.line(s), list(standing.down), game.drama.name, game.round)
            if isinstance(s, n.Defence) and pending is not None and not pending.resolved:
                pending.later.append(event)          # logged after the exchange it belongs to
            else:
                self.events.append(event)
        if standing.targets_down:
            self.events.append(ev.skipped(s.pos.file, self.line(s), list(standing.targets_down), game.drama.name,
                                          game.round, TARGET_DEFEATED))
        if standing.statement is None and isinstance(s, n.Action):
            self.pending = Pending(s, skipped=True, shift=self.shift)
        return standing.statement

    def against_the_standing(self, s: n.Action) -> n.Action:
        """At the top level, an action goes on against its standing targets only, with a
        `skipped` event for the defeated ones; aimed only at the fallen, it is E321 (point 15)."""
        game = self.game
        left, down = against_the_standing(s, game, self.names.party)
        if left is None:        # (what answers it goes with it: no more errors for its defences)
            self.pending = Pending(s, skipped=True, shift=self.shift)
            raise aimed_at_the_fallen(s, down, game.drama.name)
        if down:
            self.events.append(ev.skipped(s.pos.file, self.line(s), list(down), game.drama.name, game.round,
                                          TARGET_DEFEATED))
        return left
