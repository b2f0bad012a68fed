"""In-world time: durations such as `6 seconds`, `2 days` or `10 rounds`."""

from __future__ import annotations

import re

from .frozen import frozen

# seconds per unit; `rounds` depends on the setting and is resolved with `seconds()`
UNITS: dict[str, int | None] = {
    "second": 1, "minute": 60, "hour": 3600, "day": 86400, "week": 7 * 86400, "round": None,
}

_PATTERN = re.compile(r"^\s*(\d+)\s*([A-Za-z]+)\s*$")


@frozen
class Duration:
    """An amount of in-world time in one unit (singular form: second, ..., round)."""

    amount: int
    unit: str

    def seconds(self, round_seconds: int) -> int:
        """The duration in seconds, with one round lasting `round_seconds`."""
        per = UNITS[self.unit]
        return self.amount * (round_seconds if per is None else per)

    def __str__(self) -> str:
        return f"{self.amount} {self.unit}{'' if self.amount == 1 else 's'}"


def unit_name(word: str) -> str | None:
    """The singular unit for `word` (`days` -> `day`), or None if it is not a unit."""
    word = word.lower()
    if word in UNITS:
        return word
    if word.endswith("s") and word[:-1] in UNITS:
        return word[:-1]
    return None


def parse_duration(text: str) -> Duration | None:
    """`'3 hours'` -> Duration(3, 'hour'); None when the text is not a duration."""
    match = _PATTERN.match(text)
    if not match:
        return None
    unit = unit_name(match.group(2))
    if unit is None:
        return None
    return Duration(int(match.group(1)), unit)


def format_seconds(total: int) -> str:
    """A short human form of a number of seconds: `1 h 6 s`, `2 d`."""
    if total == 0:
        return "0 s"
    parts = []
    for name, size in (("d", 86400), ("h", 3600), ("min", 60), ("s", 1)):
        if total >= size:
            count, total = divmod(total, size)
            parts.append(f"{count} {name}")
    return " ".join(parts)
