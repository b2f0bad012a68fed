"""Flags and counters: the run's named state, set with `set`, tested by conditions and shown in placeholders."""

from __future__ import annotations

from ..errors import DramaError, did_you_mean
from ..flags import kind_of, show, wrong_kind
from ..limits import MAX_COUNTER
from ..syntax import nodes as n

__all__ = ["MAX_COUNTER", "State", "show", "wrong_kind"]


class State:
    """The flags (True/False) and counters (integers) of one run, by name."""

    def __init__(self, start: dict[str, bool | int] | None = None):
        self.values: dict[str, bool | int] = dict(start or {})

    def __contains__(self, name: str) -> bool:
        return name in self.values

    def get(self, name: n.Name, want: str | None = None) -> bool | int:
        """The value of a flag or counter; E206 when it is not set, E209 when it is
        the other kind than `want` ("flag" or "counter")."""
        value = self.values.get(name.text)
        if value is None:
            raise DramaError("E206", f"'{name.text}' is used before it is set", position=name.pos,
                             expected=f"`set {name.text}` (a flag) or `set {name.text} = 0` (a counter) "
                                      "on a line that runs before this one",
                             hint=did_you_mean(name.text, self.values))
        if want is not None and kind_of(value) != want:
            raise wrong_kind(name, kind_of(value), want)
        return value

    def set(self, name: n.Name, value: bool | int) -> bool | int | None:
        """Set a flag or counter; returns its value before (None when it was not set)."""
        before = self.values.get(name.text)
        if before is not None and kind_of(before) != kind_of(value):
            raise wrong_kind(name, kind_of(before), kind_of(value))
        if not isinstance(value, bool) and abs(value) > MAX_COUNTER:
            raise DramaError("E333", f"the counter '{name.text}' would be {value}, out of its bounds",
                             position=name.pos, expected=f"a value from {-MAX_COUNTER} to {MAX_COUNTER}",
                             hint="a counter that keeps growing is usually a loop that adds to it every pass")
        self.values[name.text] = value
        return before
