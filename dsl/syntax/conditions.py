"""The conditions of `if`, `repeat until`, `option ... if` and `expect`, and the quantities they compare: syntax tree nodes, each with its position.

A condition's parts are found by `operands()` (`not`, `and`, `or`), its
plain tests by `tests()`: the one walk of a condition.
"""

from __future__ import annotations

from typing import Iterator

from ..frozen import frozen
from ..errors import Position
from .tree import Name, Node

__all__ = ["Condition", "Defeated", "Quantity", "Sum", "Compare", "LastExchange", "CanRecover", "InDrama",
           "Flag", "ChoiceIs", "Not", "And", "Or"]


@frozen
class Condition(Node):
    """A condition of `if` or `repeat until`; `pos` spans its text on the line."""

    pos: Position

    def operands(self) -> tuple["Condition", ...]:
        """The conditions this one is made of (`not`, `and`, `or`); none for a plain test."""
        return ()

    def tests(self) -> Iterator["Condition"]:
        """The plain tests this condition is made of, in order (`not`, `and` and `or` looked through)."""
        parts = self.operands()
        if not parts:
            yield self
        for part in parts:
            yield from part.tests()


@frozen
class Defeated(Condition):
    """`Overlord is defeated`, or `is not defeated` (`negated`); `Overlord was
    defeated` (`was`): in the running dramatic situation or, when none runs, in
    the last one (defeats end with their situation, R7)."""

    words = ("defeated", "is", "was")

    party: Name
    negated: bool = False
    was: bool = False


@frozen
class Quantity(Node):
    """One side of a comparison: a party's `quintessence` (available) or `damage`
    (its damage pool), the `round` number, or a `number`."""

    words = ("quintessence", "damage", "pool")

    kind: str  # "quintessence" | "damage" | "round" | "number" | "counter"
    pos: Position
    party: Name | None = None
    value: int = 0
    name: Name | None = None     # the counter (kind "counter")


@frozen
class Sum(Node):
    """An arithmetic value: `gold + 3`, `gold - Kara damage`, `-2`: each term with its sign."""

    pos: Position
    terms: tuple[tuple[int, Quantity], ...]     # (+1 or -1, quantity)


@frozen
class Compare(Condition):
    """`Kara quintessence < 3`, `Kara damage >= Bren damage`, `round > 4`."""

    left: Quantity | Sum
    op: str  # one of < <= > >= = !=
    right: Quantity | Sum


@frozen
class LastExchange(Condition):
    """`last exchange won` (`lost`, `tied`, `double`), from the acting side's view,
    or `Kara won last exchange` / `Kara lost last exchange` (`party` set)."""

    words = ("last", "exchange", "won", "lost", "the")

    outcome: str  # "won" | "lost" | "tied" | "double"
    party: Name | None = None


@frozen
class CanRecover(Condition):
    """`Bren can recover`: the rules allow its recovery action now (R14, R15)."""

    words = ("can", "recover")

    party: Name


@frozen
class InDrama(Condition):
    """`in drama`: a dramatic situation is running."""

    words = ("in",)


@frozen
class Flag(Condition):
    """`satchel_lost`: a flag set with `set` (or given by the cast) holds."""

    name: Name


@frozen
class ChoiceIs(Condition):
    """`choice "At the river" = "Look for the ford"` (or `!=`): the option taken
    at that choice, the last time it was made (false before it is made)."""

    words = ("choice",)

    choice: Name
    op: str  # "=" or "!="
    option: Name


@frozen
class Not(Condition):
    """`not CONDITION`."""

    words = ("not",)

    operand: Condition

    def operands(self) -> tuple[Condition, ...]:
        return (self.operand,)


@frozen
class And(Condition):
    """`CONDITION and CONDITION`."""

    words = ("and",)

    left: Condition
    right: Condition

    def operands(self) -> tuple[Condition, ...]:
        return (self.left, self.right)


@frozen
class Or(Condition):
    """`CONDITION or CONDITION`."""

    words = ("or",)

    left: Condition
    right: Condition

    def operands(self) -> tuple[Condition, ...]:
        return (self.left, self.right)
