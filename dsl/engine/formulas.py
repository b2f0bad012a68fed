"""The exchange's formulas as pure functions: the R3 dice cap, R6's owed loss, the R8 double win, the R11 roll-off and R10's lead-first spread.

They are written once, here, and used by the exchange (`exchange.py`), its
duel specialisation (`duel.py`) and the exact odds (`dsl/odds.py`), so that
the three cannot drift apart: `tests/test_duel.py` and `tests/test_odds.py`
compare them outcome for outcome.
"""

from __future__ import annotations

from typing import Callable, Sequence


def cap(trait_level: int | None, gm: int) -> int:
    """R3 and RULES.md point 4: the most dice a party may roll: its trait's level plus
    the GM modifier (never below 0); one die with no trait, whatever the modifier."""
    if trait_level is None:
        return 1
    total = trait_level + gm
    return total if total > 0 else 0


def allowed(cap: int, available: int) -> int:
    """R3: the dice a party may roll now: its cap, and no more than its available quintessence."""
    return cap if cap < available else available


def owed(winning_dice: Sequence[int], high: int) -> int:
    """R6: what the loser of a comparison owes beyond its ones: 1, plus one for each
    of the winner's dice showing `high` or more."""
    return 1 + sum([die >= high for die in winning_dice])


def double_win(value: int, needed: int) -> bool:
    """R8 and RULES.md point 7: a win is double when the value is more than what was
    needed and at least twice it (never on a tie: the caller checks)."""
    return value > needed and value >= 2 * needed


def doubled_up_to(value: int) -> int:
    """R8 in the other direction: the highest value needed that `value` beats double
    (`double_win(value, needed)` exactly when `needed <= doubled_up_to(value)`), for
    counting double wins over a distribution of values (`dsl/odds.py`)."""
    half = value // 2
    return value - 1 if value - 1 < half else half


def roll_off(roll: Callable[[int, int], tuple[int, ...]], sides: int) -> tuple[bool, tuple[tuple[int, int], ...]]:
    """R11: a tie nobody settles is rolled off with the seeded dice, two dice at a time
    until they differ: whether the acting side won, and every pair rolled."""
    rolls = []
    while True:
        a, b = roll(2, sides)
        rolls.append((a, b))
        if a != b:
            return a > b, tuple(rolls)


def lead_first(available: Sequence[int], amount: int) -> list[int]:
    """R10: how a loss falls on a side of several parties with no split: the lead
    pays what it has, then the next, and the last pays the rest (a party never
    loses more than it has: the caller takes what is there)."""
    out = []
    last = len(available) - 1
    for i, have in enumerate(available):
        take = amount if i == last else (amount if amount < have else have)
        if take < 0:
            take = 0
        out.append(take)
        amount -= take
    return out
