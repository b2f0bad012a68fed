"""The script's position at the table: a walk through its statements that stops at each one the table plays.

`drama run` walks a script inside the interpreter, in one go. At the table the
walk stops at every statement and waits for the game master, so it is kept
here as plain data: a stack of frames (the body of the script, of an `if` arm
of a `repeat` or of a `choose` block's option taken, and how far each has come). An `if` or `repeat` condition is
tested when the walk reaches it (`peek`), on the state of the table at that
moment, exactly as the interpreter tests it after the statement before.

Replaying a journal calls `peek` and `advance` at the very same points as the
live session did (after every accepted entry), so the position is rebuilt
exactly: see `Table.resume` in `dsl/table/core.py`; undo goes back to a `mark`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ..interpreter.cursor import arm_holds, arm_taken, loop_ended
from ..syntax import nodes as n

# the statements that answer an action and are played with it, as one entry
PART_OF_ACTION = (n.Defence, n.Tie, n.Split)


@dataclass
class _Frame:
    body: tuple[n.Statement, ...]
    index: int = 0
    loop: n.Loop | None = None
    passes: int = 0


class ScriptPosition:
    """Where the table is in the script, and what comes next."""

    def __init__(self, script: n.Script):
        self._stack = [_Frame(tuple(script.statements))]

    @property
    def depth(self) -> int:
        """How many `if` and `repeat` blocks the next statement is in."""
        return len(self._stack) - 1

    def peek(self, holds: Callable[[n.Condition], bool]) -> n.Statement | None:
        """The next statement the script plays (None at its end), entering
        `if` arms and `repeat` passes as their conditions say now. Once it has
        stopped at a statement, calling it again changes nothing."""
        stack = self._stack
        while stack:
            frame = stack[-1]
            if frame.index >= len(frame.body):
                if frame.loop is not None:
                    frame.passes += 1
                    if not _ends(frame.loop, frame.passes, holds):
                        frame.index = 0
                        continue
                stack.pop()
                if stack:
                    stack[-1].index += 1
                continue
            statement = frame.body[frame.index]
            if isinstance(statement, n.IfBlock):
                arm = arm_taken(statement.arms, lambda a: arm_holds(a, holds))
                if arm is None:
                    frame.index += 1
                else:
                    stack.append(_Frame(tuple(arm.body)))
                continue
            if isinstance(statement, n.Loop):
                if _ends(statement, 0, holds):
                    frame.index += 1
                else:
                    stack.append(_Frame(tuple(statement.body), loop=statement))
                continue
            return statement
        return None

    def group(self) -> list[n.Statement]:
        """The statement `peek` stopped at, with, for an action, the defences,
        `tie` and `split` lines right after it in the same block."""
        if not self._stack:
            return []
        frame = self._stack[-1]
        if frame.index >= len(frame.body):
            return []
        first = frame.body[frame.index]
        out = [first]
        if isinstance(first, n.Action):
            for statement in frame.body[frame.index + 1:]:
                if not isinstance(statement, PART_OF_ACTION):
                    break
                out.append(statement)
        return out

    def enter(self, body: tuple[n.Statement, ...]) -> None:
        """Into the body of the option a `choose` block (where `peek` stopped) took;
        past the block once the body is played."""
        self._stack.append(_Frame(tuple(body)))

    def mark(self) -> tuple:
        """Where the walk is now, for `rewind` (the frames copied, their bodies shared)."""
        return tuple((f.body, f.index, f.loop, f.passes) for f in self._stack)

    def rewind(self, mark: tuple) -> None:
        """Back to a `mark` of this walk."""
        self._stack = [_Frame(*frame) for frame in mark]

    def advance(self, count: int) -> None:
        """Past `count` statements of the block `peek` stopped in."""
        self._stack[-1].index += count


def _ends(loop: n.Loop, passes: int, holds: Callable[[n.Condition], bool]) -> bool:
    """Whether a `repeat` stops before pass number `passes` + 1 (the interpreter's rule, `cursor.loop_ended`)."""
    conditional = loop.condition is not None
    return loop_ended(conditional and holds(loop.condition), passes, loop.bound, conditional) is not None
