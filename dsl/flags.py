"""Flags and counters as values: which kind a value is, how it is shown, and the error of a name used as the other kind (E209)."""

from __future__ import annotations

from .errors import DramaError

__all__ = ["kind_of", "show", "wrong_kind"]


def kind_of(value: bool | int) -> str:
    """"flag" for True or False, "counter" for a whole number."""
    return "flag" if isinstance(value, bool) else "counter"


def show(value: bool | int) -> str:
    """A value as placeholders and messages show it: `true`, `false` or the number."""
    if value is True:
        return "true"
    if value is False:
        return "false"
    return str(value)


def wrong_kind(name, was: str, used_as: str) -> DramaError:
    """E209: a flag used as a counter, or the other way round (`name` a syntax tree Name):
    found by the run (`interpreter/state.py`) and by the static check (`statecheck.py`)."""
    fix = f"a counter's condition compares it: `{name.text} > 0`" if was == "counter" \
        else f"a flag is a condition by itself: `if {name.text}`, `if not {name.text}`"
    return DramaError("E209", f"'{name.text}' is a {was}, not a {used_as}", position=name.pos, hint=fix)
