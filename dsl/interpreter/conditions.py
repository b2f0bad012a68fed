"""Conditions: whether an `if` or `repeat` condition holds in the state of the game now."""

from __future__ import annotations

from typing import Protocol

from ..frozen import frozen
from ..syntax import nodes as n


class Run(Protocol):
    """What a condition reads of a run (an `Interpreter`, declared here rather than
    guessed): the game table, the names, the flags and counters, the choices made,
    who fell in the latest situation, and the engine's result of its last exchange."""

    game: object
    names: object
    state: object
    chosen: dict
    fallen: set
    last: object

COMPARE = {"<": int.__lt__, "<=": int.__le__, ">": int.__gt__, ">=": int.__ge__,
           "=": int.__eq__, "!=": int.__ne__}


def holds(c: n.Condition, run: Run) -> bool:
    """Whether `c` holds for an interpreter `run` (its game, names, the parties
    that fell in the latest situation and its last exchange)."""
    kind = type(c)
    if kind is n.Compare:
        return COMPARE[c.op](value(c.left, run), value(c.right, run))
    if kind is n.Flag:
        return run.state.get(c.name, "flag")
    if kind is n.ChoiceIs:
        taken = run.chosen.get(c.choice.text)
        return (taken == c.option.text) == (c.op == "=") if taken is not None else c.op == "!="
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


def value(v: n.Quantity | n.Sum, run: Run) -> int:
    """The value of one side of a comparison, or of a `set`, now."""
    if type(v) is n.Quantity:
        return quantity(v, run)
    return sum(sign * quantity(q, run) for sign, q in v.terms)


def quantity(q: n.Quantity, run: Run) -> int:
    """The value of one quantity now."""
    if q.kind == "number":
        return q.value
    if q.kind == "round":
        return run.game.round or 0
    if q.kind == "counter":
        return run.state.get(q.name, "counter")
    state = run.game.state(run.names.possessed(q.party))
    return state.quintessence if q.kind == "quintessence" else state.damage_pool


@frozen
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


def actual(c: n.Condition, run: Run) -> list[str]:
    """What the parts of a condition are now, for the message of a failed `expect`:
    `gold is 3`, `Overlord is not defeated`, `the choice "At the river" took "Wade across"`."""
    out: list[str] = []
    _actual(c, run, out)
    return list(dict.fromkeys(out))


def _actual(c: n.Condition, run, out: list[str]) -> None:
    kind = type(c)
    if kind is n.Compare:
        for side in (c.left, c.right):
            for _, q in (side.terms if type(side) is n.Sum else ((1, side),)):
                if q.kind == "number":
                    continue
                what = {"counter": lambda: q.name.text, "round": lambda: "round",
                        "quintessence": lambda: f"{q.party.text} quintessence",
                        "damage": lambda: f"{q.party.text} damage"}[q.kind]()
                out.append(f"{what} is {quantity(q, run)}")
    elif kind is n.Defeated:
        down = holds(n.Defeated(c.pos, c.party, False, c.was), run)
        verb = "was" if c.was else "is"
        out.append(f"{c.party.text} {verb}{'' if down else ' not'} defeated")
    elif kind is n.Flag:
        out.append(f"{c.name.text} is {'true' if run.state.get(c.name, 'flag') else 'false'}")
    elif kind is n.ChoiceIs:
        taken = run.chosen.get(c.choice.text)
        out.append(f'the choice "{c.choice.text}" ' + (f'took "{taken}"' if taken is not None else "was not made"))
    elif kind is n.Not:
        _actual(c.operand, run, out)
    elif kind is n.And or kind is n.Or:
        _actual(c.left, run, out)
        _actual(c.right, run, out)
    elif kind is n.CanRecover:
        out.append(f"{c.party.text} can{'' if holds(c, run) else 'not'} recover")
    elif kind is n.InDrama:
        out.append("a dramatic situation is running" if holds(c, run) else "no dramatic situation is running")
    elif kind is n.LastExchange:
        out.append(f"the last exchange: {'yes' if holds(c, run) else 'no'}")
