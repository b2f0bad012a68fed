"""Conditions: whether an `if` or `repeat` condition holds in the state of the game now."""

from __future__ import annotations

from dataclasses import dataclass

from ..syntax import nodes as n

COMPARE = {"<": int.__lt__, "<=": int.__le__, ">": int.__gt__, ">=": int.__ge__,
           "=": int.__eq__, "!=": int.__ne__}


def holds(c: n.Condition, run) -> bool:
    """Whether `c` holds for an interpreter `run` (its game, names, the parties
    that fell in the latest situation and its last exchange)."""
    kind = type(c)
    if kind is n.Compare:
        return COMPARE[c.op](quantity(c.left, run), quantity(c.right, run))
    if kind is n.Defeated:
        pid = run.names.party(c.party)
        down = pid in run.fallen if c.was else run.game.state(pid).defeated
        return down != c.negated
    if kind is n.And:
        return holds(c.left, run) and holds(c.right, run)
    if kind is n.Or:
        return holds(c.left, run) or holds(c.right, run)
    if kind is n.Not:
        return not holds(c.operand, run)
    if kind is n.InDrama:
        return run.game.drama is not None
    if kind is n.CanRecover:
        return run.game.may_recover(run.names.party(c.party))
    if kind is n.LastExchange:
        if run.last is None:
            return False
        last = LastExchange.of(run.last)
        if c.party is None:
            return c.outcome in last.outcomes
        pid = run.names.party(c.party)
        return pid in (last.winners if c.outcome == "won" else last.losers)
    raise TypeError(f"not a condition: {c!r}")  # pragma: no cover


def quantity(q: n.Quantity, run) -> int:
    """The value of one side of a comparison now."""
    if q.kind == "number":
        return q.value
    if q.kind == "round":
        return run.game.round or 0
    state = run.game.state(run.names.possessed(q.party))
    return state.quintessence if q.kind == "quintessence" else state.damage_pool


@dataclass(frozen=True)
class LastExchange:
    """What `last exchange ...` conditions ask of the latest exchange."""

    outcomes: frozenset[str]       # of "won", "lost" (the acting side's view), "tied", "double"
    winners: frozenset[str]        # parties on the winning side of one of its comparisons
    losers: frozenset[str]

    @staticmethod
    def of(result) -> "LastExchange":
        attacker = result.attacker
        winners: set[str] = set()
        losers: set[str] = set()
        won = lost = 0
        for comparison, defence in zip(result.comparisons, result.defences):
            if comparison.winner == comparison.attacker:
                won += 1
                winners.update(attacker.parties)
                losers.update(defence.parties)
            else:
                lost += 1
                winners.update(defence.parties)
                losers.update(attacker.parties)
        outcomes = set()
        if won and not lost:
            outcomes.add("won")
        if lost and not won:
            outcomes.add("lost")
        if any(c.tie for c in result.comparisons):
            outcomes.add("tied")
        if any(c.double for c in result.comparisons):
            outcomes.add("double")
        return LastExchange(frozenset(outcomes), frozenset(winners), frozenset(losers))
