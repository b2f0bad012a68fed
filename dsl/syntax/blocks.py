"""Blocks: the lines between `if`/`repeat` and their `end` nested into IfBlock and Loop statements (E004)."""

from __future__ import annotations

from typing import Sequence

from ..errors import Diagnostics, DramaError, Position
from ..limits import MAX_NESTING, too_deep
from . import nodes

__all__ = ["nest"]

_OPENERS = (nodes.If, nodes.Repeat)


class _Open:
    """A block being read: its opening line, and its arms (an `if`) or body (a loop)."""

    def __init__(self, opener: nodes.Statement):
        self.opener = opener
        self.arms: list[list] = []          # [pos, condition, text, body]
        if isinstance(opener, nodes.If):
            self.arms.append([opener.pos, opener.condition, opener.text, []])
        self.body: list[nodes.Statement] = [] if isinstance(opener, nodes.Repeat) else self.arms[0][3]
        self.has_else = False

    def close(self, end: Position) -> nodes.Statement:
        opener = self.opener
        if isinstance(opener, nodes.Repeat):
            return nodes.Loop(opener.pos, opener.condition, opener.text, opener.bound, opener.unit,
                              tuple(self.body), end)
        return nodes.IfBlock(opener.pos, tuple(nodes.Arm(pos, cond, text, tuple(body))
                                               for pos, cond, text, body in self.arms), end)


def nest(statements: Sequence[nodes.Statement], errors: Diagnostics) -> tuple[nodes.Statement, ...]:
    """Nest the lines between `if`/`repeat` and their `end` into IfBlock and Loop
    statements. A stray `else` or `end`, or a block without its `end`, is E004,
    reported to `errors`: raised by a stopping sink; else the stray line is
    dropped, an unclosed block closed at the end of the file.

    A block more than MAX_NESTING deep is E010; a collecting sink keeps its
    lines, without the block's own `if`, `else` and `end` lines, in the block
    around it, so that the tree stays within the limit."""
    root: list[nodes.Statement] = []
    stack: list[_Open] = []
    fail = errors.report
    flattened = 0           # blocks past the limit whose lines are read into the deepest allowed

    for statement in statements:
        kind = type(statement)
        if flattened and kind in _OPENERS:
            flattened += 1
        elif flattened and (kind is nodes.ElseIf or kind is nodes.Else):
            continue
        elif flattened and kind is nodes.End:
            flattened -= 1
        elif kind in _OPENERS:
            if len(stack) >= MAX_NESTING:
                fail(too_deep("a block", statement.pos))
                flattened = 1
                continue
            stack.append(_Open(statement))
        elif kind is nodes.ElseIf or kind is nodes.Else:
            word = "else if" if kind is nodes.ElseIf else "else"
            top = stack[-1] if stack else None
            if top is None or not isinstance(top.opener, nodes.If):
                fail(DramaError("E004", f"`{word}` without an `if`", position=statement.pos,
                                expected="`if CONDITION` on an earlier line, and `end` after the block"))
            elif top.has_else:
                fail(DramaError("E004", f"`{word}` after the `else` of this `if`", position=statement.pos,
                                expected="`else` last, just before `end`",
                                notes=[f"the `else` is at line {top.arms[-1][0].line}"]))
            else:
                if kind is nodes.ElseIf:
                    top.arms.append([statement.pos, statement.condition, statement.text, []])
                else:
                    top.arms.append([statement.pos, None, "else", []])
                    top.has_else = True
                top.body = top.arms[-1][3]
        elif kind is nodes.End:
            if not stack:
                fail(DramaError("E004", "`end` without an `if` or `repeat`", position=statement.pos,
                                expected="`if` or `repeat` on an earlier line",
                                hint="a dramatic situation ends with `end drama`"))
                continue
            block = stack.pop().close(statement.pos)
            (stack[-1].body if stack else root).append(block)
        else:
            (stack[-1].body if stack else root).append(statement)
    while stack:
        top = stack.pop()
        word = "if" if isinstance(top.opener, nodes.If) else "repeat"
        fail(DramaError("E004", f"this `{word}` has no `end`", position=top.opener.pos,
                        expected="`end` on a line of its own after the block"))
        block = top.close(top.opener.pos)
        (stack[-1].body if stack else root).append(block)
    return tuple(root)
