"""The cursor of a run: where control flow is (how many blocks and loops deep, the loops' budget spent), and how a block goes on, written once for the interpreter, the fast path and the table.

`drama run` walks a script inside the interpreter (`core.Interpreter`), the
fast path of `drama simulate` runs it compiled (`fastpath`), and the table
walks it a statement at a time (`dsl/table/script_position.py`). All three ask the same
questions here: which arm of an `if` runs (`arm_taken`), and whether a
`repeat` makes another pass or how it ended (`loop_ended`); and the first
two keep their position in a `Cursor`.
"""

from __future__ import annotations

from typing import Callable, Sequence, TypeVar

from ..syntax import nodes as n

Arm = TypeVar("Arm")


class Cursor:
    """How deep the statement being run is: in how many blocks (`if`, `repeat`,
    `choose`: a fallen party's line is skipped inside one, R7) and how many
    loops (their passes and statements count against the budget, E012)."""

    __slots__ = ("depth", "looping", "steps", "budget")

    def __init__(self, budget: int):
        self.depth = 0
        self.looping = 0
        self.steps = 0              # passes and statements inside loops counted so far
        self.budget = budget

    def enter(self) -> None:
        """Into the body of a block."""
        self.depth += 1

    def leave(self) -> None:
        self.depth -= 1

    def enter_loop(self) -> None:
        """Into a `repeat`: what runs now counts against the budget."""
        self.looping += 1

    def leave_loop(self) -> None:
        self.looping -= 1

    def count(self) -> bool:
        """Count one pass or one statement inside a loop; whether the budget is spent."""
        self.steps += 1
        return self.steps > self.budget


def arm_taken(arms: Sequence[Arm], holds: Callable[[Arm], bool]) -> Arm | None:
    """The `if` arm that runs: the first whose condition holds (`holds(arm)`, true for an
    `else`), or None when none does."""
    for arm in arms:
        if holds(arm):
            return arm
    return None


def arm_holds(arm: n.Arm, holds: Callable[[n.Condition], bool]) -> bool:
    """Whether an `if` arm runs now: an `else`, or its condition holds."""
    return arm.condition is None or holds(arm.condition)


def loop_ended(condition_holds: bool, passes: int, bound: int, conditional: bool) -> str | None:
    """Whether a `repeat` stops before pass number `passes` + 1, and why: "until" (its
    condition holds, tested first), "bound" (a `repeat until` at its bound), "count"
    (`repeat N times` done); None for another pass."""
    if condition_holds:
        return "until"
    if passes >= bound:
        return "bound" if conditional else "count"
    return None
