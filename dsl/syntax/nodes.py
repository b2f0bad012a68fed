"""The script's syntax tree: one frozen dataclass per statement, each with its position."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from itertools import repeat
from typing import Iterable

from ..durations import Duration
from ..errors import Position


@dataclass(frozen=True)
class Name:
    """A party, trait or treasure name as written, bare (`Ember Staff`) or quoted."""

    text: str
    pos: Position

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True)
class Swap:
    """`2 to 4` in `rerolling 2 to 4`: a die that showed 2, re-rolled, shows 4 (R14)."""

    face: int
    new: int
    pos: Position


@dataclass(frozen=True)
class Rerolling:
    """`rerolling 2 to 4 and 1 to 6`, or `rerolling none`: which dice of a
    recovery check the party chose to re-roll, and what they showed (point 13).
    `swaps` is empty for `rerolling none`."""

    swaps: tuple[Swap, ...]
    pos: Position


@dataclass(frozen=True)
class Dice:
    """Where a step's dice come from.

    - `given`: the faces as rolled at the table (`rolled 6 6 4`); `rerolled` holds
      the faces of recovery re-rolls (`rolled 4 2 rerolled 5`), else None;
    - `roll`: the engine rolls `count` dice (`roll 2`), or as many as allowed when
      `count` is None (`roll`);
    - `none`: no dice were mentioned.

    `rerolling` is a recovery check's chosen re-rolls (`, rerolling 2 to 4`), or
    None when the script leaves them to the default (the lowest dice first).
    """

    kind: str  # "given" | "roll" | "none"
    pos: Position | None = None
    faces: tuple[int, ...] = ()
    count: int | None = None
    rerolled: tuple[int, ...] | None = None
    rerolling: Rerolling | None = None

    @property
    def is_given(self) -> bool:
        return self.kind == "given"


NO_DICE = Dice("none")


@dataclass(frozen=True)
class Uses:
    """`with A + B`: one or two names, each a trait or a treasure of the party.

    The parser does not know which is which; the interpreter looks them up on
    the party's sheet. `names` is empty when there is no `with`.
    """

    names: tuple[Name, ...] = ()
    pos: Position | None = None


# no `with`: one object, shared by every node that has none
NO_USES = Uses()


@dataclass(frozen=True)
class Qualifier:
    """`but not PHRASE` (kind "not") or `so that PHRASE` (kind "so"): costs 1 (R4)."""

    kind: str
    text: str
    pos: Position


@dataclass(frozen=True)
class Participant:
    """One indented line of a joint action or defence: `  Kara with Sorcery, rolled 6 5`."""

    party: Name
    uses: Uses
    gm: int
    dice: Dice
    pos: Position


# ---------------------------------------------------------------- statements

@dataclass(frozen=True)
class Statement:
    pos: Position


@dataclass(frozen=True)
class Scene(Statement):
    """`scene "Title"`: a heading in the transcript."""

    title: str
    column: int = 0      # where the text starts on the line (for placeholders' errors)


@dataclass(frozen=True)
class Narration(Statement):
    """`> text`: narration, passed through to the transcript."""

    text: str
    column: int = 0      # where the text starts on the line (for placeholders' errors)


@dataclass(frozen=True)
class DramaBegin(Statement):
    """`drama "Name" with A, B, C`: a dramatic situation begins; `, rounds of 1 hour`
    gives its own round length (`round`, R13 and point 14), else None: the setting's;
    `, a debate` its kind (fight, chase, debate, race, escape, contest), for the
    transcript's words only."""

    name: str
    parties: tuple[Name, ...]
    round: Duration | None = None
    kind: str = "fight"


@dataclass(frozen=True)
class InitiativeEntry:
    """One party in an `initiative` line: `Kara 5`, or `Kara 5 3` (5, then 3 on a re-roll
    of a tie), or `Kara with Agility` (rolled by the engine with a bonus)."""

    party: Name
    uses: Uses
    results: tuple[int, ...]
    pos: Position


@dataclass(frozen=True)
class Initiative(Statement):
    """`initiative` (everyone rolls) or `initiative Kara 5, Bren 2, ...` (R12)."""

    entries: tuple[InitiativeEntry, ...]


@dataclass(frozen=True)
class Round(Statement):
    """`round`: the next round begins (R13)."""


@dataclass(frozen=True)
class Action(Statement):
    """An aggressive action (R2-R5).

    `actors` has one name, or several for a joint action (`Kara & Bren ...`), whose
    per-party lines are in `participants`. `uses`, `gm` and `dice` are those of the
    first line (for a single actor, its own). Exactly one of `target` and
    `gm_target` is set.
    """

    actors: tuple[Name, ...]
    intent: str
    target: Name | None
    gm_target: int | None
    qualifiers: tuple[Qualifier, ...]
    extra_targets: tuple[Name, ...]
    uses: Uses
    gm: int
    dice: Dice
    participants: tuple[Participant, ...] = ()
    intent_quoted: bool = False     # written in quotes: the writer's verb phrase (`"drives them back"`)


@dataclass(frozen=True)
class Defence(Statement):
    """`Overlord defends with Cunning, rolled 5 1`, or a joint defence with participants."""

    parties: tuple[Name, ...]
    uses: Uses
    gm: int
    dice: Dice
    participants: tuple[Participant, ...] = ()


@dataclass(frozen=True)
class Hold(Statement):
    """`Kara holds`: the party lets its turn pass and may act later this round (R9)."""

    party: Name


@dataclass(frozen=True)
class MemberLost(Statement):
    """`Goblins lose member "Old Sal"`: a member of a group falls, for narration (R17);
    the transcript names the member no more."""

    party: Name
    member: Name


@dataclass(frozen=True)
class Tie(Statement):
    """`tie Kara` or `tie GM`: who won the vote on a tie (R11). `winner` is None for GM."""

    winner: Name | None


@dataclass(frozen=True)
class Split(Statement):
    """`split Goblins 2, Overlord 1`: how the winner spreads a side's loss (R10)."""

    shares: tuple[tuple[Name, int], ...]


@dataclass(frozen=True)
class Dictate(Statement):
    """`Kara dictates "the chandelier crashes down"` (R8)."""

    party: Name
    text: str
    column: int = 0      # where the text starts on the line (for placeholders' errors)


@dataclass(frozen=True)
class Reroll(Statement):
    """`Goblins rerolls, rolled 3 1 5 2` or `Goblins rerolls, roll` (R8)."""

    party: Name
    dice: Dice


@dataclass(frozen=True)
class Helper:
    """`helped by Bren with Healing`: a helper's bonus to a recovery (R14)."""

    party: Name
    uses: Uses


@dataclass(frozen=True)
class Recover(Statement):
    """`Bren recovers, rolled 6 4 2, then 5 3` (R14, R15).

    `first` is the recovery check; `second` is the second check of a rushed
    recovery (`then ...`), or NO_DICE when not written. Each may carry the
    party's chosen re-rolls (`Dice.rerolling`).
    """

    party: Name
    uses: Uses
    helpers: tuple[Helper, ...]
    first: Dice
    second: Dice = NO_DICE


@dataclass(frozen=True)
class EndDrama(Statement):
    """`end drama "The Overlord falls."`: the dramatic situation ends."""

    text: str | None
    column: int = 0      # where the text starts on the line (for placeholders' errors)


@dataclass(frozen=True)
class Calm(Statement):
    """`calm 1 hour`: in-world time passes."""

    duration: Duration


@dataclass(frozen=True)
class Rest(Statement):
    """`rest 2 days`: every party rests (R16)."""

    duration: Duration


@dataclass(frozen=True)
class Include(Statement):
    """`include "file.drama"`: another script's statements, read in its place."""

    path: str


# ---------------------------------------------------------------- conditions

@dataclass(frozen=True)
class Condition:
    """A condition of `if` or `repeat until`; `pos` spans its text on the line."""

    pos: Position


@dataclass(frozen=True)
class Defeated(Condition):
    """`Overlord is defeated`, or `is not defeated` (`negated`); `Overlord was
    defeated` (`was`): in the running dramatic situation or, when none runs, in
    the last one (defeats end with their situation, R7)."""

    party: Name
    negated: bool = False
    was: bool = False


@dataclass(frozen=True)
class Quantity:
    """One side of a comparison: a party's `quintessence` (available) or `damage`
    (its damage pool), the `round` number, or a `number`."""

    kind: str  # "quintessence" | "damage" | "round" | "number" | "counter"
    pos: Position
    party: Name | None = None
    value: int = 0
    name: Name | None = None     # the counter (kind "counter")


@dataclass(frozen=True)
class Sum:
    """An arithmetic value: `gold + 3`, `gold - Kara damage`, `-2`: each term with its sign."""

    pos: Position
    terms: tuple[tuple[int, Quantity], ...]     # (+1 or -1, quantity)


@dataclass(frozen=True)
class Compare(Condition):
    """`Kara quintessence < 3`, `Kara damage >= Bren damage`, `round > 4`."""

    left: Quantity | Sum
    op: str  # one of < <= > >= = !=
    right: Quantity | Sum


@dataclass(frozen=True)
class LastExchange(Condition):
    """`last exchange won` (`lost`, `tied`, `double`), from the acting side's view,
    or `Kara won last exchange` / `Kara lost last exchange` (`party` set)."""

    outcome: str  # "won" | "lost" | "tied" | "double"
    party: Name | None = None


@dataclass(frozen=True)
class CanRecover(Condition):
    """`Bren can recover`: the rules allow its recovery action now (R14, R15)."""

    party: Name


@dataclass(frozen=True)
class InDrama(Condition):
    """`in drama`: a dramatic situation is running."""


@dataclass(frozen=True)
class Flag(Condition):
    """`satchel_lost`: a flag set with `set` (or given by the cast) holds."""

    name: Name


@dataclass(frozen=True)
class ChoiceIs(Condition):
    """`choice "At the river" = "Look for the ford"` (or `!=`): the option taken
    at that choice, the last time it was made (false before it is made)."""

    choice: Name
    op: str  # "=" or "!="
    option: Name


@dataclass(frozen=True)
class Not(Condition):
    operand: Condition


@dataclass(frozen=True)
class And(Condition):
    left: Condition
    right: Condition


@dataclass(frozen=True)
class Or(Condition):
    left: Condition
    right: Condition


# ---------------------------------------------------------------- control flow
# The parser reads these one line at a time (If, ElseIf, Else, End, Repeat) and
# then nests the lines between them into IfBlock and Loop statements.

@dataclass(frozen=True)
class If(Statement):
    """`if CONDITION`: opens an IfBlock."""

    condition: Condition
    text: str


@dataclass(frozen=True)
class ElseIf(Statement):
    """`else if CONDITION`."""

    condition: Condition
    text: str


@dataclass(frozen=True)
class Else(Statement):
    """`else`."""


@dataclass(frozen=True)
class End(Statement):
    """`end`: closes the innermost `if` or `repeat`."""


@dataclass(frozen=True)
class Repeat(Statement):
    """`repeat until CONDITION, at most N rounds` or `repeat N times`: opens a Loop.

    `condition` is None for `repeat N times`; `unit` is "rounds" or "times" (or
    "" when the bound is missing, an error reported with the loop kept in place)."""

    condition: Condition | None
    text: str | None
    bound: int
    unit: str


@dataclass(frozen=True)
class Arm:
    """One arm of an IfBlock: its condition (None for `else`), as written, and its body."""

    pos: Position
    condition: Condition | None
    text: str
    body: tuple[Statement, ...]


@dataclass(frozen=True)
class IfBlock(Statement):
    """`if` ... `else if` ... `else` ... `end`: the first arm whose condition holds runs."""

    arms: tuple[Arm, ...]
    end: Position


@dataclass(frozen=True)
class Loop(Statement):
    """`repeat until CONDITION, at most N rounds` ... `end`, or `repeat N times` ... `end`.

    Before each pass the condition is tested: the loop ends when it holds, or
    when `bound` passes have run."""

    condition: Condition | None
    text: str | None
    bound: int
    unit: str
    body: tuple[Statement, ...]
    end: Position


# ---------------------------------------------------------------- choices, state, expectations

@dataclass(frozen=True)
class Choose(Statement):
    """`choose "At the river"` (or `choose "At the river", chose "Wade across"`): opens a ChoiceBlock."""

    label: Name
    given: Name | None = None


@dataclass(frozen=True)
class OptionLine(Statement):
    """`option "Wade across" once weight 2 if hero is not defeated`: one option of a ChoiceBlock."""

    label: Name
    once: bool = False
    weight: int = 1
    condition: Condition | None = None
    text: str | None = None


@dataclass(frozen=True)
class Option:
    """One option of a ChoiceBlock, with its body."""

    pos: Position
    label: Name
    once: bool
    weight: int
    condition: Condition | None
    text: str | None
    body: tuple[Statement, ...]


@dataclass(frozen=True)
class ChoiceBlock(Statement):
    """`choose "LABEL"` ... `option "LABEL"` ... `end`: one available option is taken,
    and its body runs. `given` is the option named with `, chose "..."`."""

    label: Name
    given: Name | None
    options: tuple[Option, ...]
    end: Position


@dataclass(frozen=True)
class SetState(Statement):
    """`set satchel_lost`, `set satchel_lost = false`, `set gold = gold + 3`.

    `value` is True or False for a flag, a Sum (or Quantity) for a counter."""

    name: Name
    value: "bool | Sum | Quantity"


@dataclass(frozen=True)
class Expect(Statement):
    """`expect CONDITION`: the run stops with E801 when it does not hold."""

    condition: Condition
    text: str


@dataclass(frozen=True, eq=False)
class Script:
    """A parsed script: its statements in order, and the file they came from.

    A statement written several times is one node, shared by its occurrences
    (the parse reads each distinct statement once): `shared` holds the nodes
    in order, a repeated one each time it occurs, with the positions of its
    first occurrence, and `shifts` how many lines further down each
    occurrence is (empty when none is). `occurrences()` gives both, for the
    readers that add the shift themselves (the interpreter);
    `statements` is each statement with its own positions, copied on first
    use (`moving.py`), for every other reader. Two scripts are equal when
    their statements are.
    """

    file: str
    shared: tuple[Statement, ...] = field(default_factory=tuple)
    shifts: tuple[int, ...] = ()

    @cached_property
    def statements(self) -> tuple[Statement, ...]:
        if not self.shifts:
            return self.shared
        from .moving import moved
        return tuple([moved(s, shift) if shift else s for s, shift in zip(self.shared, self.shifts)])

    def occurrences(self) -> Iterable[tuple[Statement, int]]:
        """(node, shift) for each statement in order: its place is the node's, `shift` lines down."""
        return zip(self.shared, self.shifts) if self.shifts else zip(self.shared, repeat(0))

    def __eq__(self, other) -> bool:
        if not isinstance(other, Script):
            return NotImplemented
        return self.file == other.file and self.statements == other.statements

    def __hash__(self) -> int:
        return hash((self.file, self.statements))
