"""The duel: `exchange.resolve` specialised for one party against one, inside drama, every die rolled (the hot path of `drama simulate`).

A simulated encounter is mostly exchanges of one party's action against one
defence, with nothing given: no dice, no ties named, no split, no qualifiers,
no extra targets. For those, `duel` applies the very steps of
`exchange.resolve` (R2-R8, in RULES.md's order of play, drawing the same dice
from the same source in the same order, changing the table the same way),
without building the result objects that nobody reads in a simulation: it
returns only the defeats.

It refuses nothing: wherever `resolve` would check something that may fail
(a party that cannot act, a trait it lacks, more dice than it may roll, a
tie that needs a vote), `duel` returns None before touching anything, and
the caller runs `Game.exchange`, which raises the error that applies.
`tests/test_duel.py` runs the same seeded dice through both, over random
tables, and compares every outcome; this keeps the two from drifting apart.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import results as r
from .dice import SeededDice
from .formulas import allowed, cap, double_win, owed, roll_off
from .inputs import Part
from .turns import take_turn

if TYPE_CHECKING:
    from .game import Game


def duel(game: Game, attack: Part, defence: Part) -> tuple[str, ...] | None:
    """Resolve `attack` (one party's part of an aggressive action at the
    defender) against `defence` (the target's own defence) as `Game.exchange`
    would; the parties defeated, or None (nothing changed) when this is not a
    case the duel takes."""
    planned = Duel.plan(attack, defence, game.sheets)
    return planned(game) if planned is not None else None


class Duel:
    """One duel planned once, from the parties' sheets (what `_plan_effort`
    reads there: levels, caps, how the dice are asked for), to be run on any
    table with those sheets: `duel(game)` is `duel(game, attack, defence)`."""

    __slots__ = ("a", "d", "sheet_a", "sheet_d", "plan_a", "plan_d")

    def __init__(self, attack: Part, defence: Part, sheet_a, sheet_d, plan_a: tuple, plan_d: tuple):
        self.a, self.d = attack.party, defence.party
        self.sheet_a, self.sheet_d = sheet_a, sheet_d
        self.plan_a, self.plan_d = plan_a, plan_d

    @classmethod
    def plan(cls, attack: Part, defence: Part, sheets) -> "Duel | None":
        """The duel of these parts, or None when its parts are not the duel's to take."""
        sheet_a, sheet_d = sheets.get(attack.party), sheets.get(defence.party)
        if sheet_a is None or sheet_d is None or attack.party == defence.party:
            return None
        plan_a, plan_d = _plan(sheet_a, attack), _plan(sheet_d, defence)
        if plan_a is None or plan_d is None:
            return None
        return cls(attack, defence, sheet_a, sheet_d, plan_a, plan_d)

    def __call__(self, game: Game) -> tuple[str, ...] | None:
        drama = game.drama
        if drama is None:
            return None
        parties = game.parties
        attacker, defender = parties.get(self.a), parties.get(self.d)
        if not self._takes(game, drama, attacker, defender):
            return None
        settings = game.settings
        # R3: how many dice each side rolls, with the quintessence available now
        count_a = _count(self.plan_a, attacker.available)
        count_d = _count(self.plan_d, defender.available)
        if count_a is None or count_d is None:
            return None                 # more dice than it may roll: resolve raises E301
        # ---------------------------------------------------------- nothing refuses below
        dice_a, dice_d = _roll(game.dice, count_a, count_d, settings.sides)     # R2
        value_a = self.plan_a[0] + sum(dice_a)
        value_d = self.plan_d[0] + sum(dice_d)
        tie = value_a == value_d                                               # R5, R11
        if not tie:
            attacker_won = value_a > value_d
        elif settings.ties == "actor":
            attacker_won = True
        elif settings.ties == "defender":
            attacker_won = False
        else:                                       # a roll-off with the seeded dice
            attacker_won = roll_off(game.dice.roll, settings.sides)[0]
        take_turn(game, (self.a,))                                             # R9
        drama.acted_any = True
        return self._settle(game, attacker, defender, dice_a, dice_d, attacker_won,
                            value_a, value_d, tie)

    def _takes(self, game: Game, drama, attacker, defender) -> bool:
        """Whether the duel takes this exchange on the table now (else `resolve` does,
        and raises what applies): both in the situation, the attacker free to act, the
        defender standing, the sheets those it was planned with, no vote on a tie."""
        members = drama.parties
        if self.a not in members or self.d not in members:
            return False
        if attacker.defeated or attacker.acted or defender.defeated \
                or attacker.sheet is not self.sheet_a or defender.sheet is not self.sheet_d:
            return False
        return game.settings.ties != "vote" or game.lenient     # a vote would raise E311

    def _settle(self, game: Game, attacker, defender, dice_a, dice_d, attacker_won: bool,
                value_a: int, value_d: int, tie: bool) -> tuple[str, ...]:
        """R6-R8 once the dice are rolled: ones, the loss, a defeat, a double win."""
        owed_now = owed(dice_a if attacker_won else dice_d, game.settings.high)  # R6
        at_zero_a = not attacker.available                                     # for R7
        at_zero_d = not defender.available
        ones = dice_a.count(1)                                                 # R6: ones
        if ones:
            attacker.lost_this_round += attacker.lose(ones)
        ones = dice_d.count(1)
        if ones:
            defender.lost_this_round += defender.lose(ones)
        loser = defender if attacker_won else attacker
        loser.lost_this_round += loser.lose(owed_now)
        defeats: tuple[str, ...] = ()
        if at_zero_d if attacker_won else at_zero_a:                           # R7
            loser.defeated = True
            defeats = (self.d,) if attacker_won else (self.a,)
        if tie:                                                                # R8
            game.options = []
        elif attacker_won:
            game.options = [r.Option(0, (self.a,))] if double_win(value_a, value_d) else []
        else:
            game.options = [r.Option(0, (self.d,))] if double_win(value_d, value_a) else []
        return defeats


def _count(plan: tuple[int, bool, int], available: int) -> int | None:
    """R3: how many dice a side of the duel rolls with `available` quintessence: as
    many as it may, up to its limit, or its fixed number (None: more than it may)."""
    _, most, limit = plan
    if most:
        return allowed(limit, available)
    return None if limit > available else limit


def _roll(dice, count_a: int, count_d: int, sides: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """R2: both sides' dice, the attacker's first, as `resolve` draws them."""
    roll = dice.roll
    if count_a and count_d and type(dice) is SeededDice:
        # one draw of both sides' dice: the same faces, in the same order, as two
        both = roll(count_a + count_d, sides)
        return both[:count_a], both[count_a:]
    return (roll(count_a, sides) if count_a else ()), (roll(count_d, sides) if count_d else ())


def _plan(sheet, part: Part) -> tuple[int, bool, int] | None:
    """What R3 (`_plan_effort`) reads from the sheet for a lone party, the lead
    of its side, spending nothing: what it adds to its side's value besides its
    dice, whether it rolls as many dice as it may (up to a limit) or a fixed
    number, and that limit or number; None where `_plan_effort` (or the check
    of its uses) refuses whatever the party has available."""
    trait, treasure = part.trait, part.treasure
    if trait is not None and trait not in sheet.traits:
        return None
    if treasure is not None and treasure not in sheet.treasures:
        return None
    throw = part.throw
    if throw.faces is not None:
        return None
    level = sheet.traits[trait] if trait is not None else 0
    gm = part.gm
    most = cap(level if trait is not None else None, gm)
    base = level + (sheet.treasures[treasure] if treasure is not None else 0) + gm
    if throw.most:
        return base, True, most if throw.count is None else min(most, throw.count)
    count = throw.count or 0
    if count > most:
        return None
    return base, False, count
