"""Dice: the one injectable source of randomness, and what a step asks of it."""

from __future__ import annotations

import random
from typing import Protocol, Sequence

from ..errors import DramaError
from ..limits import MAX_DICE, too_many_dice
from ..frozen import frozen


class DiceSource(Protocol):
    """Where rolled dice come from: `roll(count, sides)` gives `count` faces."""

    def roll(self, count: int, sides: int) -> tuple[int, ...]: ...


class SeededDice:
    """Dice from a seeded generator of its own (never the global `random`)."""

    def __init__(self, seed: int = 0):
        self.seed = seed
        self._random = random.Random(seed)

    def roll(self, count: int, sides: int) -> tuple[int, ...]:
        if count > MAX_DICE:        # (a cast's quintessence may be large; the work is not)
            raise too_many_dice(count)
        # the draws of `randrange(sides)` (for sides > 0), inlined: getrandbits of
        # the bit length of `sides`, drawn again while out of range; same faces, 3x faster
        bits = self._random.getrandbits
        width = sides.bit_length()
        faces = []
        for _ in range(count):
            face = bits(width)
            while face >= sides:
                face = bits(width)
            faces.append(face + 1)
        return tuple(faces)

    def save(self) -> tuple:
        """Where the generator is now (frozen data), for a snapshot of the game."""
        return self._random.getstate()

    def load(self, saved: tuple) -> None:
        """Back to where `save` was taken: the same dice come again."""
        self._random.setstate(saved)


class GivenDice:
    """Dice given in advance, as a play log gives them; refuses when they run out."""

    def __init__(self, faces: Sequence[int]):
        self._faces = list(faces)
        self._next = 0

    def roll(self, count: int, sides: int) -> tuple[int, ...]:
        left = len(self._faces) - self._next
        if count > left:
            raise DramaError("E401", f"{count} dice are needed but only {left} given dice are left")
        faces = tuple(self._faces[self._next:self._next + count])
        self._next += count
        check_faces(faces, sides)
        return faces

    @property
    def left(self) -> int:
        return len(self._faces) - self._next


def check_faces(faces: Sequence[int], sides: int) -> None:
    """Refuse a face that is not on a die of `sides` faces (E402)."""
    for face in faces:
        if not 1 <= face <= sides:
            raise DramaError("E402", f"a d{sides} has no face {face}",
                             expected=f"faces from 1 to {sides}")


@frozen
class Throw:
    """What one party rolls for one step.

    - `Throw.given(6, 6, 4)`: the faces as rolled at the table;
    - `Throw.roll(2)`: the engine rolls 2 dice from its source;
    - `Throw.roll()`: the engine rolls as many dice as the rules allow;
    - `Throw.at_most(3)`: as many as the rules allow, up to 3;
    - `Throw.none()`: no dice.

    For a recovery check (R14, point 13): `rerolls` are the given faces of its
    re-rolls; `chosen` the faces, as first rolled, of the dice the party chose
    to re-roll (matched in order to `rerolls`; `()` declines every re-roll),
    None for the default (the lowest dice first); `reroll_limit` re-rolls at
    most that many dice, the lowest first (for dice the engine rolls).

    - `Throw.given(6, 5, 5, 2, chosen=(2,), rerolls=(4,))`: the 2 re-rolled to a 4;
    - `Throw.given(6, 5, 5, 2, chosen=())`: no re-roll;
    - `Throw.roll().rerolling_at_most(0)`: the engine rolls, and nothing is re-rolled.
    """

    faces: tuple[int, ...] | None = None
    count: int | None = None
    most: bool = False
    rerolls: tuple[int, ...] = ()   # given faces of a recovery's re-rolls (R14)
    chosen: tuple[int, ...] | None = None      # the faces chosen to re-roll (point 13)
    reroll_limit: int | None = None            # at most this many re-rolls (point 13)

    @staticmethod
    def given(*faces: int, rerolls: Sequence[int] = (), chosen: Sequence[int] | None = None) -> "Throw":
        return Throw(faces=tuple(faces), rerolls=tuple(rerolls),
                     chosen=None if chosen is None else tuple(chosen))

    def rerolling_at_most(self, limit: int) -> "Throw":
        """This throw, re-rolling at most `limit` dice of a recovery check."""
        return Throw(self.faces, self.count, self.most, self.rerolls, self.chosen, limit)

    @staticmethod
    def roll(count: int | None = None) -> "Throw":
        if count is None:
            return _MOST          # a Throw is immutable: one instance serves every `roll`
        return Throw(count=count)

    @staticmethod
    def at_most(count: int) -> "Throw":
        """As many dice as the rules allow, up to `count` (a simulation's stand-in
        for `count` given dice, when the state differs from the table's)."""
        return Throw(count=count, most=True)

    @staticmethod
    def none() -> "Throw":
        return NO_THROW

    @property
    def is_given(self) -> bool:
        return self.faces is not None


NO_THROW = Throw(count=0)
_MOST = Throw(most=True)
