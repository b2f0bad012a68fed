"""How a mention agrees in a language that agrees words: its grammatical gender and number."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Form:
    """How a mention agrees: its gender (`m`, `f`, `n` or `` unknown) and number
    (a CLDR plural category: `one` or `other`)."""

    gender: str = ""
    number: str = "one"

    @property
    def plural(self) -> bool:
        return self.number != "one"
