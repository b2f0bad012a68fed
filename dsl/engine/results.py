"""What happened, or would: the immutable results of the engine's steps (for logs and transcripts) and the plan of an exchange."""

from __future__ import annotations

from dataclasses import field
from typing import Mapping

from ..frozen import frozen
from .inputs import Part
from .parties import PartyState

States = Mapping[str, PartyState]


@frozen
class Effort:
    """One party's part in a side's value (R2, R3, R10): what it used and rolled."""

    party: str
    trait: str | None
    trait_level: int
    trait_counts: bool        # only the lead's trait adds to the value (R10)
    treasure: str | None
    treasure_value: int
    gm: int
    cap: int                  # the most dice it could roll (R3)
    dice: tuple[int, ...]
    rolled_by: str            # "table" (given), "engine" (seeded) or "none"

    @property
    def value(self) -> int:
        """What this party adds to its side's value."""
        return (self.trait_level if self.trait_counts else 0) + self.treasure_value + sum(self.dice) + self.gm


@frozen
class Side:
    """The one or more parties on one side of a comparison, or the GM."""

    name: str                 # "Kara", "Kara & Bren", or "GM"
    parties: tuple[str, ...]  # empty for the GM
    efforts: tuple[Effort, ...]
    value: int
    stated: bool = True       # False: an undefended target, meeting a value of 0 (R5)


@frozen
class Comparison:
    """One comparison of an exchange: the action against one target (R5)."""

    attacker: str
    defender: str
    values: Mapping[str, int]
    target: int | None        # the GM's target number, when there is one
    winner: str
    tie: bool
    tie_settled_by: str | None  # "vote" (named), "actor", "defender", "random"
    tie_dice: tuple[tuple[int, int], ...] = ()  # roll-offs of a tie settled by the dice
    double: bool = False
    loss: int = 0             # the loser's loss beyond its ones (R6)


@frozen
class Loss:
    """Quintessence moved from available to the damage pool."""

    party: str
    amount: int               # what it really lost (never below 0, R6)
    owed: int                 # what it should have lost
    kind: str                 # "spend" (R4), "ones" or "loss" (R6)
    comparison: int | None    # index of the comparison, for "loss"
    after: PartyState


@frozen
class Turn:
    """Who acts on their own turn, who acts on a held action, who let a turn pass (R9)."""

    on_turn: tuple[str, ...]
    held: tuple[str, ...]
    passed: tuple[str, ...]


@frozen
class Option:
    """A double win's option, open to one party of the winning side (R8)."""

    comparison: int
    parties: tuple[str, ...]


@frozen
class Exchange:
    """An aggressive action and everything that answered it."""

    drama: str | None
    round: int | None
    intent: str
    attacker: Side
    gm_target: int | None
    qualifiers: tuple[tuple[str, str], ...]     # (kind, text): kind "not" (`but not`) or "so" (`so that`)
    extra_targets: tuple[str, ...]
    defences: tuple[Side, ...]        # one per comparison, in order (a GM side for a GM target)
    comparisons: tuple[Comparison, ...]
    losses: tuple[Loss, ...]          # spends, then ones, then each comparison's loss
    defeats: tuple[str, ...]
    options: tuple[Option, ...]
    turn: Turn | None
    parties: States                   # every party involved, after the exchange
    target: str | None = None         # the party the action was aimed at (None for a GM target)


@frozen
class OptionTaken:
    """A double-win option taken: a reroll of this round's losses, or a dictated result."""

    party: str
    kind: str                 # "reroll" or "dictate"
    comparison: int
    text: str | None
    lost: int                 # what the party had lost this round before the reroll
    dice: tuple[int, ...]
    rolled_by: str
    returned: int
    parties: States


@frozen
class InitiativeRoll:
    """One party's initiative: its die or given result, then any re-rolls of ties (R12)."""

    party: str
    trait: str | None
    treasure: str | None
    bonus: int
    dice: tuple[int, ...]     # the die of each roll (empty when results were given)
    results: tuple[int, ...]  # the result of each roll: die + bonus, or as given
    rolled_by: str


@frozen
class Initiative:
    drama: str
    round: int
    rolls: tuple[InitiativeRoll, ...]
    order: tuple[str, ...]


@frozen
class DramaBegun:
    drama: str
    parties: tuple[str, ...]
    time: int
    round_seconds: int = 6          # the length of its rounds (R13)
    rounds_of: str | None = None    # its own round length as written (`1 hour`, point 14), or None


@frozen
class RoundBegun:
    drama: str
    round: int
    time: int                 # in-world seconds at the start of the round
    unused: tuple[str, ...]   # parties that neither acted nor recovered last round


@frozen
class Held:
    drama: str
    round: int
    party: str
    passed: tuple[str, ...] = ()   # parties whose turn went by before this one's


@frozen
class RecoveryCheck:
    """One roll of a recovery (R14): the dice, the re-rolls, and which dice return."""

    dice: tuple[int, ...]           # as first rolled
    rerolled: tuple[int, ...]       # indexes of the dice re-rolled
    rerolls: tuple[int, ...]        # their new faces
    final: tuple[int, ...]          # the dice after re-rolls
    returning: int
    rolled_by: str
    chosen: bool = False            # the party chose the re-rolls of its dice (point 13), not the default


@frozen
class Recovery:
    party: str
    rushed: bool                    # R15: inside a dramatic situation
    trait: str | None
    treasure: str | None
    helpers: tuple[tuple[str, str | None, str | None], ...]
    bonus: int
    checks: tuple[RecoveryCheck, ...]
    returned: int
    time: int
    turn: Turn | None
    parties: States


@frozen
class DramaEnded:
    drama: str
    rounds: int
    time: int
    text: str | None
    parties: States = field(default_factory=dict)


@frozen
class TimePassed:
    """`calm` or `rest`: in-world time passes; a long enough rest restores everyone (R16)."""

    kind: str                       # "calm" or "rest"
    seconds: int
    time: int                       # in-world seconds after it
    restored: tuple[str, ...]
    parties: States
    rested: int = 0                 # rest counted towards the full rest, this one included (point 12)
    full_rest: bool = False         # this line completed a full rest (R16)


# ------------------------------------------------------------------ plans (before any die is rolled)

@frozen
class EffortPlan:
    """One party's part in a side, checked and planned before any die is rolled (R2, R3, R10)."""

    part: Part                # what the party uses and how it rolls, as asked
    trait_counts: bool        # the lead: only its trait adds to the value (R10)
    trait_level: int
    treasure_value: int
    cap: int                  # the most dice it may roll (R3)
    count: int                # how many dice it rolls, or how many are given

    @property
    def party(self) -> str:
        return self.part.party

    @property
    def trait(self) -> str | None:
        return self.part.trait

    @property
    def treasure(self) -> str | None:
        return self.part.treasure

    @property
    def gm(self) -> int:
        return self.part.gm

    @property
    def faces(self) -> tuple[int, ...] | None:
        """The dice given as rolled (`rolled 6 4`); None when the engine rolls them."""
        faces = self.part.throw.faces
        return None if faces is None else tuple(faces)

    @property
    def rolled(self) -> int:
        """How many dice the engine rolls (none when they are given)."""
        return self.count if self.part.throw.faces is None else 0

    @property
    def value(self) -> int:
        """What this party adds to its side's value before the rolled dice (given dice count)."""
        faces = self.part.throw.faces
        return ((self.trait_level if self.trait_counts else 0) + self.treasure_value + self.part.gm
                + (sum(faces) if faces is not None else 0))


@frozen
class PlannedSide:
    """One side of a planned exchange: its parties' efforts, or the GM's target number."""

    name: str                 # "Kara", "Kara & Bren", or "GM"
    parties: tuple[str, ...]  # empty for the GM
    efforts: tuple[EffortPlan, ...]   # lead first; empty for the GM and an undefended target
    value: int                # the side's value before the rolled dice (the GM's target number)
    stated: bool = True       # False: an undefended target, meeting a value of 0 (R5)


@frozen
class ExchangePlan:
    """An exchange as it would be rolled (`Game.plan`): every side, and what the action costs."""

    intent: str
    attacker: PlannedSide
    defences: tuple[PlannedSide, ...]  # one per comparison, in order (a GM side for a GM target)
    spending: Mapping[str, int]        # quintessence each acting party spends (R4), lead first
