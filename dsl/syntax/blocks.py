"""Blocks: the lines between `if`/`repeat` and their `end` nested into IfBlock and Loop statements (E004)."""

from __future__ import annotations

from typing import Sequence

from ..errors import Diagnostics, DramaError, Position
from ..limits import MAX_NESTING, too_deep
from . import nodes

__all__ = ["nest"]

_OPENERS = (nodes.If, nodes.Repeat, nodes.Choose)


class _Open:
    """A block being read: its opening line, and its arms (an `if`) or body (a loop)."""

    def __init__(self, opener: nodes.Statement):
        self.opener = opener
        self.arms: list[list] = []          # [pos, condition, text, body]
        if isinstance(opener, nodes.If):
            self.arms.append([opener.pos, opener.condition, opener.text, []])
        self.body: list[nodes.Statement] = [] if not isinstance(opener, nodes.If) else self.arms[0][3]
        self.has_else = False
        self.options: list[list] = []       # [OptionLine, body] of a `choose`

    def close(self, end: Position) -> nodes.Statement:
        opener = self.opener
        if isinstance(opener, nodes.Choose):
            return nodes.ChoiceBlock(opener.pos, opener.label, opener.given, tuple(
                nodes.Option(o.pos, o.label, o.once, o.weight, o.condition, o.text, tuple(body))
                for o, body in self.options), end)
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
        elif flattened and (kind is nodes.ElseIf or kind is nodes.Else or kind is nodes.OptionLine):
            continue
        elif flattened and kind is nodes.End:
            flattened -= 1
        elif kind in _OPENERS:
            if len(stack) >= MAX_NESTING:
                fail(too_deep("a block", statement.pos))
                flattened = 1
                continue
            stack.append(_Open(statement))
        elif kind is nodes.OptionLine:
            top = stack[-1] if stack else None
            if top is None or not isinstance(top.opener, nodes.Choose):
                fail(DramaError("E006", "`option` outside a `choose` block", position=statement.pos,
                                expected="`choose \"LABEL\"` on an earlier line, then its options, then `end`",
                                hint="an `option` line stands directly in its `choose` block, not inside an "
                                     "`if` or `repeat` of it" if stack else None))
                continue
            same = next((o for o, _ in top.options if o.label.text == statement.label.text), None)
            if same is not None and statement.label.text != "?":   # ("?": stand-ins of options that failed)
                fail(DramaError("E006", f"the choice has two options labelled '{statement.label.text}'",
                                position=statement.label.pos, expected="a label of its own for each option",
                                notes=[f"the first is at line {same.pos.line}"]))
            top.options.append([statement, []])
            top.body = top.options[-1][1]
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
                fail(DramaError("E004", "`end` without an `if`, `repeat` or `choose`", position=statement.pos,
                                expected="`if`, `repeat` or `choose` on an earlier line",
                                hint="a dramatic situation ends with `end drama`"))
                continue
            top = stack.pop()
            if isinstance(top.opener, nodes.Choose):
                _check_choice(top, statement.pos, fail)
                if not top.options:
                    continue            # (reported; a choice with nothing to choose is dropped)
            block = top.close(statement.pos)
            (stack[-1].body if stack else root).append(block)
        else:
            if stack and isinstance(stack[-1].opener, nodes.Choose) and not stack[-1].options:
                fail(DramaError("E006", "a line of a `choose` block before its first `option`",
                                position=statement.pos,
                                expected="`option \"LABEL\"` right after the `choose` line"))
                continue
            (stack[-1].body if stack else root).append(statement)
    while stack:
        top = stack.pop()
        word = "if" if isinstance(top.opener, nodes.If) else "choose" if isinstance(top.opener, nodes.Choose) \
            else "repeat"
        fail(DramaError("E004", f"this `{word}` has no `end`", position=top.opener.pos,
                        expected="`end` on a line of its own after the block"))
        block = top.close(top.opener.pos)
        (stack[-1].body if stack else root).append(block)
    return tuple(root)


def _check_choice(top: _Open, end: Position, fail) -> None:
    """A `choose` block needs an option, and its `chose` must name one (E006, E207)."""
    opener = top.opener
    if not top.options:
        if opener.label.text == "?":    # (the stand-in of a `choose` line that failed: reported there)
            return
        fail(DramaError("E006", f"the choice '{opener.label.text}' has no options", position=opener.pos,
                        expected="one or more `option \"LABEL\"` lines before its `end`"))
        return
    if opener.given is not None:
        labels = [o.label.text for o, _ in top.options]
        if opener.given.text not in labels:
            from ..errors import did_you_mean, one_of
            fail(DramaError("E207", f"the choice '{opener.label.text}' has no option '{opener.given.text}'",
                            position=opener.given.pos, expected=f"one of {one_of(labels)}",
                            hint=did_you_mean(opener.given.text, labels)))
