"""Run modes: what a run does with the dice, ties and splits that a script gives.

A play log gives every die as rolled at the table, and names every tie and
split. `drama run` plays them as written (`PLAY`). `drama simulate` runs the
same script many times with fresh dice (`SIMULATE`): every die given is rolled
afresh, as many as were given if the rules still allow them; ties and splits
give way to the setting's policy, since fresh dice need not tie where the table
did; a double-win option is taken only where the fresh dice gave a double
win; and an exchange logs only its defeats. `drama run --roll-given` is
`FRESH`: the simulation's dice with the whole event log, to replay one run.
Every such decision is a method here, so no other module tests a mode's flags.
"""

from __future__ import annotations


from ..frozen import frozen
from ..syntax import nodes as n
from ..engine import Throw


@frozen
class RunMode:
    """How one run reads the dice and table calls of its script."""

    name: str
    fresh_dice: bool = False     # every die the script gives is rolled afresh
    lean: bool = False           # an exchange logs only its defeats, not its mechanics

    def throw(self, dice: n.Dice) -> Throw:
        """The engine's throw for dice written in a statement."""
        if dice.kind == "given":
            if self.fresh_dice:      # as many dice as were given, if the rules still allow them
                return Throw.at_most(len(dice.faces))
            return Throw.given(*dice.faces, rerolls=dice.rerolled or ())
        if dice.kind == "roll":
            return Throw.roll(dice.count)
        return Throw.none()

    def rolled(self, dice: n.Dice) -> Throw:
        """The throw of a recovery check or a reroll: rolled unless given (and kept).

        A recovery check's chosen re-rolls (point 13) go with it: as written
        when the dice are kept; with fresh dice, whose faces differ, as many
        re-rolls at most as were chosen (none for `rerolling none`), the
        lowest dice first."""
        choice = dice.rerolling
        if dice.kind == "none" or self.fresh_dice:
            throw = Throw.roll()
            return throw if choice is None else throw.rerolling_at_most(len(choice.swaps))
        throw = self.throw(dice)
        if choice is None:
            return throw
        if throw.is_given:
            return Throw.given(*throw.faces, rerolls=[s.new for s in choice.swaps],
                               chosen=[s.face for s in choice.swaps])
        return throw.rerolling_at_most(0)      # `roll, rerolling none` (the parser allows no faces)

    def second_check(self, dice: n.Dice) -> Throw | None:
        """The throw of a recovery's second check, if the script asks for one."""
        return None if dice.kind == "none" else self.rolled(dice)

    def initiative_results(self, results: tuple[int, ...]) -> tuple[int, ...]:
        """The initiative results kept as given (none: the engine rolls them)."""
        return () if self.fresh_dice else tuple(results)

    @property
    def keeps_table_calls(self) -> bool:
        """Whether the `tie` and `split` lines of the table are played as written."""
        return not self.fresh_dice

    @property
    def options_need_a_double_win(self) -> bool:
        """Whether an option the script takes is skipped where no double win opened it."""
        return self.fresh_dice

    @property
    def skips_fallen_everywhere(self) -> bool:
        """Whether a defeated party's line is skipped outside blocks too (fresh
        dice can defeat a party earlier than the table did)."""
        return self.fresh_dice


PLAY = RunMode("play")
FRESH = RunMode("fresh", fresh_dice=True)
SIMULATE = RunMode("simulate", fresh_dice=True, lean=True)
