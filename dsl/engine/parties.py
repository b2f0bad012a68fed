"""Parties and settings: the character sheets, the rule knobs, and a party's state."""

from __future__ import annotations

from dataclasses import field
from types import MappingProxyType
from typing import Mapping

from ..frozen import frozen
from ..durations import Duration
from ..errors import Position

TIE_POLICIES = ("vote", "actor", "defender", "random")


@frozen
class Settings:
    """Every rule knob of RULES.md, with its default."""

    name: str = "Default"
    round: Duration = Duration(6, "second")        # R13
    recovery: Duration = Duration(1, "day")        # R14
    calm: Duration = Duration(10, "round")         # R14
    full_rest: Duration = Duration(2, "day")       # R16
    sides: int = 6                                 # R1
    high: int = 6                                  # R1
    ties: str = "vote"                             # R11

    def __post_init__(self):
        if self.ties not in TIE_POLICIES:
            raise ValueError(f"ties must be one of {TIE_POLICIES}, not {self.ties!r}")
        if self.sides < 2 or not 2 <= self.high <= self.sides:
            raise ValueError(f"dice must have 2 or more sides and high from 2 to sides, "
                             f"not sides={self.sides} high={self.high}")
        if self.round.unit == "round" or self.round.seconds(0) <= 0:
            raise ValueError("a round lasts a positive number of seconds, minutes, hours or days")

    @property
    def round_seconds(self) -> int:
        return self.round.seconds(0)

    def seconds(self, duration: Duration) -> int:
        """A duration in seconds, rounds counted at this setting's round length."""
        return duration.seconds(self.round_seconds)


@frozen
class Move:
    """A party's move: an intent and the trait and treasure it uses by default."""

    trait: str | None
    treasure: str | None


def _frozen(mapping: Mapping | None) -> Mapping:
    return MappingProxyType(dict(mapping or {}))


@frozen
class PartySheet:
    """A party as the cast describes it (R17): a character or a group acting as one."""

    id: str
    name: str
    quintessence: int
    traits: Mapping[str, int] = field(default_factory=dict)
    treasures: Mapping[str, int] = field(default_factory=dict)
    members: tuple[str, ...] = ()
    moves: Mapping[str, Move] = field(default_factory=dict)
    hidden: bool = False      # the player board shows no numbers for it (`drama play --board-port`)
    pos: Position | None = field(default=None, compare=False)
    # for narration only, never read by the rules: the short name for later
    # mentions, the pronouns (`she/her`), the writer's words for each move
    # (`says`, `hit`, `miss`) and for qualifiers (`but not tapestries` -> a clause)
    short: str | None = None
    pronouns: str | None = None
    words: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    clauses: Mapping[str, str] = field(default_factory=dict)
    names: Mapping[str, str] = field(default_factory=dict)      # the full name in other languages
    grammar: str | Mapping[str, str] | None = None      # gender and number of the name (`feminine`, per language)

    def __post_init__(self):
        object.__setattr__(self, "traits", _frozen(self.traits))
        object.__setattr__(self, "treasures", _frozen(self.treasures))
        object.__setattr__(self, "moves", _frozen(self.moves))
        object.__setattr__(self, "members", tuple(self.members))
        object.__setattr__(self, "words", _frozen({k: _frozen({w: _frozen(t) if isinstance(t, Mapping) else t
                                                                for w, t in v.items()})
                                                   for k, v in dict(self.words or {}).items()}))
        object.__setattr__(self, "clauses", _frozen({k: _frozen(v) if isinstance(v, Mapping) else v
                                                     for k, v in dict(self.clauses or {}).items()}))
        object.__setattr__(self, "names", _frozen(self.names))
        if isinstance(self.short, Mapping):
            object.__setattr__(self, "short", _frozen(self.short))
        if isinstance(self.grammar, Mapping):
            object.__setattr__(self, "grammar", _frozen(self.grammar))


@frozen
class PartyState:
    """A party's quintessence at one moment: available + damage pool = maximum (R6)."""

    quintessence: int
    damage_pool: int
    defeated: bool = False

    def as_dict(self) -> dict:
        return {"quintessence": self.quintessence, "damage_pool": self.damage_pool,
                "defeated": self.defeated}


class TableParty:
    """A party's mutable state at the table (the engine's own; `PartyState` is what it shows)."""

    __slots__ = ("sheet", "traits", "treasures", "available", "damage", "defeated", "acted",
                 "lost_this_round", "last_recovery", "_states")

    def __init__(self, sheet: PartySheet):
        self.sheet = sheet
        self.traits = dict(sheet.traits)            # plain dicts: quicker to read than the
        self.treasures = dict(sheet.treasures)      # sheet's read-only views
        self.available = sheet.quintessence
        self.damage = 0
        self.defeated = False
        self.acted = False
        self.lost_this_round = 0
        self.last_recovery: int | None = None
        self._states: dict[tuple, PartyState] = {}

    def state(self) -> PartyState:
        # a PartyState is immutable: each distinct state is built once and shared
        key = (self.available, self.damage, self.defeated)
        state = self._states.get(key)
        if state is None:
            state = self._states[key] = PartyState(*key)
        return state

    def lose(self, amount: int) -> int:
        """Move up to `amount` from available to the damage pool; what really moved (R6)."""
        taken = min(amount, self.available)
        self.available -= taken
        self.damage += taken
        return taken

    def regain(self, amount: int) -> int:
        """Move up to `amount` back from the damage pool; what really moved."""
        given = min(amount, self.damage)
        self.damage -= given
        self.available += given
        return given
