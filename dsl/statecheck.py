"""The static check of flags and counters: every use is set before, on every path, and each name keeps one kind.

The script is walked once, in order, with the names that are surely set at
each point (and whether each is a flag or a counter). An `if` without an
`else` may run no arm, a loop may run no pass, and a choice runs exactly one
option: after a block, a name is surely set only if it is set on every path
through it. Starting values given by the cast are set from the start.
"""

from __future__ import annotations

from typing import Mapping

from .errors import DramaError, did_you_mean
from .flags import wrong_kind
from .syntax import nodes as n
from . import placeholders

__all__ = ["check_state", "uses_state"]

_RESERVED = ("round", "drama")


def uses_state(statements) -> bool:
    """Whether a script sets or tests flags or counters (or makes choices)."""
    return any(s.uses_state for s in n.walk(statements))


def check_state(statements, names, start: Mapping[str, bool | int]) -> list[DramaError]:
    """E206 (used before it is set), E208 (a name taken) and E209 (the wrong kind) in every branch."""
    walker = _Walker(names, statements, start)
    walker.block(statements, {name: _kind(value) for name, value in start.items()})
    return walker.found


def _kind(value) -> str:
    return "flag" if isinstance(value, bool) else "counter"


class _Walker:
    def __init__(self, names, statements, start):
        self.names = names
        self.found: list[DramaError] = []
        self.seen: set = set()
        # every name that some `set` gives a value (or the cast), with its first kind
        self.everywhere: dict[str, str] = {name: _kind(v) for name, v in start.items()}
        self._collect(statements)
        self.taken = set(names.known()) | set(_RESERVED)

    def _collect(self, statements) -> None:
        for s in n.walk(statements):
            if type(s) is n.SetState:
                self.everywhere.setdefault(s.name.text, "flag" if isinstance(s.value, bool) else "counter")

    def add(self, error: DramaError) -> None:
        key = (error.code, error.position, error.message)
        if key not in self.seen:
            self.seen.add(key)
            self.found.append(error)

    # ------------------------------------------------------------ paths

    def block(self, statements, known: dict[str, str]) -> dict[str, str]:
        """Walk statements with `known` set before them; what is surely set after them."""
        known = dict(known)
        for s in statements:
            visit = getattr(self, "visit_" + type(s).__name__, None)
            if visit is not None:
                known = visit(s, known)
            elif s.texts:
                self.text(s, known)
        return known

    # each visit takes what is surely set before the statement, and gives what is after it

    def visit_SetState(self, s: n.SetState, known: dict[str, str]) -> dict[str, str]:
        self.set(s, known)
        return known

    def visit_Expect(self, s: n.Expect, known: dict[str, str]) -> dict[str, str]:
        self.condition(s.condition, known)
        return known

    def visit_IfBlock(self, s: n.IfBlock, known: dict[str, str]) -> dict[str, str]:
        after = []
        for arm in s.arms:
            if arm.condition is not None:
                self.condition(arm.condition, known)
            after.append(self.block(arm.body, known))
        if s.arms[-1].condition is not None:
            after.append(known)          # no arm may run
        return _meet(after)

    def visit_Loop(self, s: n.Loop, known: dict[str, str]) -> dict[str, str]:
        if s.condition is not None:
            self.condition(s.condition, known)
        inside = self.block(s.body, known)
        if s.condition is not None:      # tested again after each pass
            self.condition(s.condition, inside)
        return known                     # a loop may run no pass

    def visit_ChoiceBlock(self, s: n.ChoiceBlock, known: dict[str, str]) -> dict[str, str]:
        after = []
        for option in s.options:
            if option.condition is not None:
                self.condition(option.condition, known)
            after.append(self.block(option.body, known))
        return _meet(after) if after else known

    def set(self, s: n.SetState, known: dict[str, str]) -> None:
        name = s.name
        if name.text in self.taken:
            what = "a placeholder" if name.text in _RESERVED else "a party or role"
            self.add(DramaError("E208", f"'{name.text}' is {what}: a flag or counter needs a name of its own",
                                position=name.pos, hint=f"call it, say, '{name.text}_count' or 'has_{name.text}'"))
            return
        kind = "flag" if isinstance(s.value, bool) else "counter"
        found = len(self.found)
        if kind == "counter":
            self.value(s.value, known)
        was = known.get(name.text) or self.everywhere.get(name.text)
        if was is not None and was != kind and len(self.found) == found:
            self.add(wrong_kind(name, was, kind))
            return
        known[name.text] = kind

    # ------------------------------------------------------------ uses

    def use(self, name: n.Name, want: str, known: dict[str, str]) -> None:
        if name.text in known:
            if known[name.text] != want:
                self.add(wrong_kind(name, known[name.text], want))
            return
        if name.text in self.everywhere:
            self.add(DramaError("E206", f"'{name.text}' may be used before it is set", position=name.pos,
                                expected=f"a `set {name.text}` on every path that leads here",
                                hint=f"set it before the block that may leave it unset, say `set {name.text}"
                                     f"{' = false' if want == 'flag' else ' = 0'}` near the top of the script"))
            return
        parties = self.names.known()
        hint = did_you_mean(name.text, [*self.everywhere, *parties])
        if name.text in parties:
            hint = (f"'{name.text}' is a party: test it with `{name.text} is defeated` or "
                    f"`{name.text} quintessence > 0`")
        self.add(DramaError("E206", f"'{name.text}' is never set: there is no flag or counter of that name",
                            position=name.pos,
                            expected=f"`set {name.text}` (a flag) or `set {name.text} = 0` (a counter) before it",
                            hint=hint))

    def value(self, v, known) -> None:
        for _, q in (v.terms if type(v) is n.Sum else ((1, v),)):
            if q.kind == "counter":
                self.use(q.name, "counter", known)

    def condition(self, condition: n.Condition, known) -> None:
        for c in condition.tests():
            kind = type(c)
            if kind is n.Flag:
                self.use(c.name, "flag", known)
            elif kind is n.Compare:
                self.value(c.left, known)
                self.value(c.right, known)

    def text(self, s, known) -> None:
        text = getattr(s, s.texts[0])
        if not placeholders.has_placeholders(text):
            return
        from .errors import Position
        parties = set(self.names.known())
        for one in placeholders.placeholders(text, Position(s.pos.file, s.pos.line, s.column)):
            if isinstance(one, DramaError):
                continue            # reported by the checker of names
            inside, at = one
            if "." in inside or inside in parties or inside in _RESERVED:
                continue
            if inside in self.everywhere:
                self.use(n.Name(inside, at), self.everywhere[inside], known)


def _meet(paths: list[dict[str, str]]) -> dict[str, str]:
    """The names surely set after one of several paths: those set on all of them."""
    first, *rest = paths
    return {name: kind for name, kind in first.items() if all(name in other for other in rest)}

