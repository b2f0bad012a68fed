"""Limits: how much one script may ask for, each with its own error code (docs/language.md, "Limits").

A scenario shared between game masters is untrusted input: these bounds keep
the work of reading, checking and running it small enough to wait for, and
keep every walk of the syntax tree well inside Python's stack. Each is checked
once, where the input first shows it, and gives an error at that line.
"""

from __future__ import annotations

from .errors import DramaError, Position

__all__ = ["MAX_NESTING", "MAX_LOOP_BOUND", "MAX_STEPS", "CHECK_STEPS", "check_budget", "MAX_LINE", "MAX_SCRIPT",
           "MAX_DICE", "MAX_NUMBER", "MAX_COUNTER", "too_deep", "too_many_dice"]

# blocks (`if`, `repeat`) and includes, one inside another; and the operators
# (`not`, `and`, `or`) one inside another in one condition (E010)
MAX_NESTING = 100
# the bound of a loop: `repeat N times`, `at most N rounds` (E011)
MAX_LOOP_BOUND = 10_000
# statements that loops repeat, all the loops of a run together (E012): each
# pass through a loop, and each statement run inside one. A statement outside
# every loop runs at most once, so that work is bounded by the script's length
# (a play log of 300,000 actions is fine); loops one inside another multiply
# their bounds, and this bounds them. `drama check`'s dry run stops there with
# a warning (W020)
MAX_STEPS = 100_000
# `drama check`'s dry run repeats this many statements in loops, and two more
# for each statement of the script (its includes read in), up to MAX_STEPS: a
# check's time grows with the script's length, not with its loops' bounds
CHECK_STEPS = 20_000


def check_budget(statements: int) -> int:
    """The statements `drama check`'s dry run of a script of `statements` may repeat in loops."""
    return min(MAX_STEPS, CHECK_STEPS + 2 * statements)
# characters in one line of a script (E013), and in one script with the files
# it includes, each include counted (E014): as much as a script file may hold
# (8 MiB, dsl/inputs.py), so that a play log of a long campaign is read
MAX_LINE = 4_000
MAX_SCRIPT = 8 * 2**20
# dice one statement gives or rolls (E015)
MAX_DICE = 1_000
# the largest whole number a setting or cast file may hold (E104); a script's
# numbers have at most 9 digits (E001), the same bound
MAX_NUMBER = 999_999_999
# a counter stays within ±MAX_COUNTER: a runaway stops there (E333), and every
# value can still be written in a script (numbers have at most 9 digits)
MAX_COUNTER = 999_999_999


def too_deep(what: str, position: Position | None) -> DramaError:
    """E010: `what` (a block, an include, a condition) nested past MAX_NESTING."""
    return DramaError("E010", f"{what} nested more than {MAX_NESTING} deep", position=position,
                      expected=f"at most {MAX_NESTING} blocks and includes one inside another",
                      hint="move the inner part into a block of its own at a shallower level")


def too_many_dice(count: int) -> DramaError:
    """E015: a statement that gives or rolls more than MAX_DICE dice."""
    return DramaError("E015", f"{count:,} dice in one statement, more than the limit of {MAX_DICE:,}",
                      expected=f"at most {MAX_DICE:,} dice given or rolled by one statement")
