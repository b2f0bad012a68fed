"""What a step is asked to do: the parts, actions, defences and helpers the engine takes."""

from __future__ import annotations

from .dice import NO_THROW, Throw
from ..frozen import frozen

# the GM's side of a comparison against a target number, and the GM as a tie's winner (R11)
GM = "GM"


@frozen
class Part:
    """One party's part in an action or defence: the trait and treasure it uses,
    its dice and its GM modifier (R2, R3)."""

    party: str
    trait: str | None = None
    treasure: str | None = None
    throw: Throw = NO_THROW
    gm: int = 0


@frozen
class Action:
    """An aggressive action: the acting side (lead first), its intent and its target,
    a party (`target`) or a GM target number (`gm_target`)."""

    intent: str
    parts: tuple[Part, ...]
    target: str | None = None
    gm_target: int | None = None
    qualifiers: tuple[tuple[str, str], ...] = ()     # (kind, text): ("not", "tapestries") for `but not tapestries`
    extra_targets: tuple[str, ...] = ()


@frozen
class Defence:
    """A stated defence: one target of the action, maybe joined by other parties."""

    parts: tuple[Part, ...]


@frozen
class Helping:
    """A helper's bonus to a recovery (R14)."""

    party: str
    trait: str | None = None
    treasure: str | None = None
