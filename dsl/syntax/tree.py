"""The syntax tree's node classes: one frozen dataclass per statement and part of one, each with its position and traits.

Every node has a child protocol, as Jinja's `Node.iter_child_nodes`: a
block's statements are found by `bodies()` (and put back by
`with_bodies()`); the conditions of `if`, `repeat` and `expect` are in
`conditions.py`. What each kind of
statement is to the rest of the package is said once, on its class, by its
traits (class attributes, not fields; see `Statement`). Read them through
`dsl.syntax.nodes`, which holds these classes with every kind listed and the
one walk.
"""

from __future__ import annotations

from dataclasses import fields, replace
from typing import TYPE_CHECKING, ClassVar, Iterable, Iterator

from ..frozen import frozen
from ..durations import Duration
from ..errors import Position
from ..scenes import DEFAULT_KIND

if TYPE_CHECKING:       # conditions.py builds on this module's Node
    from .conditions import Condition, Quantity, Sum

__all__ = ["Node", "Name", "Swap", "Rerolling", "Dice", "Uses", "Qualifier", "Participant", "Statement",
           "Scene", "Narration", "DramaBegin", "InitiativeEntry", "Initiative", "Round", "Action", "Defence",
           "Hold", "MemberLost", "Tie", "Split", "Dictate", "Reroll", "Helper", "Recover", "EndDrama", "Calm",
           "Rest", "Include", "If", "ElseIf", "Else", "End", "Repeat", "Arm", "IfBlock", "Loop", "Choose",
           "OptionLine", "Option", "ChoiceBlock", "SetState", "Expect", "NO_DICE", "NO_USES"]


class Node:
    """What every node of the tree shares: its children (the child protocol) and its traits."""

    # the keywords that begin or carry this node (hover: the first line of the class's docstring)
    words: ClassVar[tuple[str, ...]] = ()

    @classmethod
    def summary(cls) -> str:
        """The node's one line of reference: the first line of its docstring (hover)."""
        return (cls.__doc__ or "").strip().split("\n")[0]

    def iter_child_nodes(self) -> Iterator["Node"]:
        """Every node held by a field of this one, directly or in a tuple, in field order."""
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, Node):
                yield value
            elif isinstance(value, tuple):
                for item in value:
                    if isinstance(item, Node):
                        yield item
                    elif isinstance(item, tuple):       # (name, share) pairs, (sign, quantity) terms
                        yield from (part for part in item if isinstance(part, Node))


@frozen
class Name(Node):
    """A party, trait or treasure name as written, bare (`Ember Staff`) or quoted."""

    text: str
    pos: Position

    def __str__(self) -> str:
        return self.text


@frozen
class Swap(Node):
    """`2 to 4` in `rerolling 2 to 4`: a die that showed 2, re-rolled, shows 4 (R14)."""

    words = ("to",)

    face: int
    new: int
    pos: Position


@frozen
class Rerolling(Node):
    """`rerolling 2 to 4 and 1 to 6`, or `rerolling none`: which dice of a
    recovery check the party chose to re-roll, and what they showed (point 13).
    `swaps` is empty for `rerolling none`."""

    words = ("rerolling", "re-rolling", "none")

    swaps: tuple[Swap, ...]
    pos: Position


@frozen
class Dice(Node):
    """Where a step's dice come from.

    - `given`: the faces as rolled at the table (`rolled 6 6 4`); `rerolled` holds
      the faces of recovery re-rolls (`rolled 4 2 rerolled 5`), else None;
    - `roll`: the engine rolls `count` dice (`roll 2`), or as many as allowed when
      `count` is None (`roll`);
    - `none`: no dice were mentioned.

    `rerolling` is a recovery check's chosen re-rolls (`, rerolling 2 to 4`), or
    None when the script leaves them to the default (the lowest dice first).
    """

    words = ("rolled", "roll", "rerolled")

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


@frozen
class Uses(Node):
    """`with A + B`: one or two names, each a trait or a treasure of the party.

    The parser does not know which is which; the interpreter looks them up on
    the party's sheet. `names` is empty when there is no `with`.
    """

    words = ("with",)

    names: tuple[Name, ...] = ()
    pos: Position | None = None


# no `with`: one object, shared by every node that has none
NO_USES = Uses()


@frozen
class Qualifier(Node):
    """`but not PHRASE` (kind "not") or `so that PHRASE` (kind "so"): costs 1 (R4)."""

    words = ("but", "so", "that")

    kind: str
    text: str
    pos: Position


@frozen
class Participant(Node):
    """One indented line of a joint action or defence: `  Kara with Sorcery, rolled 6 5`."""

    party: Name
    uses: Uses
    gm: int
    dice: Dice
    pos: Position


# ---------------------------------------------------------------- statements

@frozen
class Statement(Node):
    """A statement: one line of the script (with its participants' lines), or a block of them.

    Its traits, read by the walks instead of lists of kinds kept by hand:

    - `words`: the keywords that begin or carry it (hover; `words[0]` names it in messages);
    - `events`: the types of the events its run emits (the transcript tells each);
    - `part_of_exchange`: it answers the action before it (a defence, `tie`, `split`,
      a double win's option): the exchange is resolved after it, not before;
    - `may_skip`: a line of a party, skipped when the party is defeated, inside
      control flow (RULES.md point 15);
    - `handed_over`: the fast path (`interpreter/compiled.py`) runs it by the
      interpreter's own step;
    - `block_line`: a line that only a block holds (`if`, `else`, `end`, `repeat`,
      `choose`, `option`), nested into its block by `syntax/blocks.py`;
    - `uses_state`: it sets or tests flags and counters, or makes a choice;
    - `texts`: the fields holding text with placeholders (`{Kara}`);
    - `is_block`: it holds statements, given by `bodies()`.
    """

    pos: Position

    events: ClassVar[tuple[str, ...]] = ()
    part_of_exchange: ClassVar[bool] = False
    may_skip: ClassVar[bool] = False
    handed_over: ClassVar[bool] = False
    block_line: ClassVar[bool] = False
    uses_state: ClassVar[bool] = False
    texts: ClassVar[tuple[str, ...]] = ()
    is_block: ClassVar[bool] = False        # it holds statements: `bodies()` gives them

    def bodies(self) -> tuple[tuple["Statement", ...], ...]:
        """The statements nested in this one (a block's arms, body or options), in order; none for a line."""
        return ()

    def with_bodies(self, bodies: Iterable[tuple["Statement", ...]]) -> "Statement":
        """The same statement with these bodies, one for each of `bodies()` (includes read in)."""
        return self



@frozen
class Scene(Statement):
    """`scene "Title"`: a heading in the transcript."""

    words = ("scene",)
    events = ("scene",)
    handed_over = True
    texts = ("title",)

    title: str
    column: int = 0      # where the text starts on the line (for placeholders' errors)


@frozen
class Narration(Statement):
    """`> text`: narration, passed through to the transcript."""

    words = (">",)
    events = ("narration",)
    handed_over = True
    texts = ("text",)

    text: str
    column: int = 0      # where the text starts on the line (for placeholders' errors)


@frozen
class DramaBegin(Statement):
    """`drama "Name" with A, B, C`: a dramatic situation begins; `, rounds of 1 hour`
    gives its own round length (`round`, R13 and point 14), else None: the setting's;
    `, a debate` its kind (fight, chase, debate, race, escape, contest), for the
    transcript's words only; `, a chase after Orm` (or `an escape by Orm`) names
    the quarry, who runs, for the transcript (E353 where it cannot be one)."""

    words = ("drama", "rounds", "of", "a", "an", "after", "by")
    events = ("drama",)
    handed_over = True

    name: str
    parties: tuple[Name, ...]
    round: Duration | None = None
    kind: str = DEFAULT_KIND
    quarry: tuple[Name, ...] = ()


@frozen
class InitiativeEntry(Node):
    """One party in an `initiative` line: `Kara 5`, or `Kara 5 3` (5, then 3 on a re-roll
    of a tie), or `Kara with Agility` (rolled by the engine with a bonus)."""

    party: Name
    uses: Uses
    results: tuple[int, ...]
    pos: Position


@frozen
class Initiative(Statement):
    """`initiative` (everyone rolls) or `initiative Kara 5, Bren 2, ...` (R12)."""

    words = ("initiative",)
    events = ("initiative",)
    handed_over = True

    entries: tuple[InitiativeEntry, ...]


@frozen
class Round(Statement):
    """`round`: the next round begins (R13)."""

    words = ("round",)
    events = ("round",)
    handed_over = True


@frozen
class Action(Statement):
    """An aggressive action (R2-R5).

    `actors` has one name, or several for a joint action (`Kara & Bren ...`), whose
    per-party lines are in `participants`. `uses`, `gm` and `dice` are those of the
    first line (for a single actor, its own). Exactly one of `target` and
    `gm_target` is set.
    """

    words = ("vs", "->")
    events = ("action", "exchange", "defeat")
    may_skip = True

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


@frozen
class Defence(Statement):
    """`Overlord defends with Cunning, rolled 5 1`, or a joint defence with participants."""

    words = ("defends", "defend")
    part_of_exchange = True
    may_skip = True

    parties: tuple[Name, ...]
    uses: Uses
    gm: int
    dice: Dice
    participants: tuple[Participant, ...] = ()


@frozen
class Hold(Statement):
    """`Kara holds`: the party lets its turn pass and may act later this round (R9)."""

    words = ("holds",)
    events = ("hold",)
    may_skip = True
    handed_over = True

    party: Name


@frozen
class MemberLost(Statement):
    """`Goblins lose member "Old Sal"`: a member of a group falls, for narration (R17).

    The transcript names the member no more."""

    words = ("lose", "loses", "member")
    events = ("member_lost",)

    party: Name
    member: Name


@frozen
class Tie(Statement):
    """`tie Kara` or `tie GM`: who won the vote on a tie (R11). `winner` is None for GM."""

    words = ("tie", "GM")
    part_of_exchange = True

    winner: Name | None


@frozen
class Split(Statement):
    """`split Goblins 2, Overlord 1`: how the winner spreads a side's loss (R10)."""

    words = ("split",)
    part_of_exchange = True

    shares: tuple[tuple[Name, int], ...]


@frozen
class Dictate(Statement):
    """`Kara dictates "the chandelier crashes down"` (R8)."""

    words = ("dictates",)
    events = ("option",)
    part_of_exchange = True
    may_skip = True
    texts = ("text",)

    party: Name
    text: str
    column: int = 0      # where the text starts on the line (for placeholders' errors)


@frozen
class Reroll(Statement):
    """`Goblins rerolls, rolled 3 1 5 2` or `Goblins rerolls, roll` (R8)."""

    words = ("rerolls",)
    events = ("option",)
    part_of_exchange = True
    may_skip = True

    party: Name
    dice: Dice


@frozen
class Helper(Node):
    """`helped by Bren with Healing`: a helper's bonus to a recovery (R14)."""

    words = ("helped", "by")

    party: Name
    uses: Uses


@frozen
class Recover(Statement):
    """`Bren recovers, rolled 6 4 2, then 5 3` (R14, R15).

    `first` is the recovery check; `second` is the second check of a rushed
    recovery (`then ...`), or NO_DICE when not written. Each may carry the
    party's chosen re-rolls (`Dice.rerolling`).
    """

    words = ("recovers", "then")
    events = ("recovery",)
    may_skip = True
    handed_over = True

    party: Name
    uses: Uses
    helpers: tuple[Helper, ...]
    first: Dice
    second: Dice = NO_DICE


@frozen
class EndDrama(Statement):
    """`end drama "The Overlord falls."`: the dramatic situation ends."""

    words = ("end", "drama")
    events = ("drama_end",)
    handed_over = True
    texts = ("text",)

    text: str | None
    column: int = 0      # where the text starts on the line (for placeholders' errors)


@frozen
class Calm(Statement):
    """`calm 1 hour`: in-world time passes."""

    words = ("calm",)
    events = ("calm",)
    handed_over = True

    duration: Duration


@frozen
class Rest(Statement):
    """`rest 2 days`: every party rests (R16)."""

    words = ("rest",)
    events = ("rest",)
    handed_over = True

    duration: Duration


@frozen
class Include(Statement):
    """`include "file.drama"`: another script's statements, read in its place."""

    words = ("include",)

    path: str


# ---------------------------------------------------------------- control flow
# The parser reads these one line at a time (If, ElseIf, Else, End, Repeat) and
# then nests the lines between them into IfBlock and Loop statements.

@frozen
class If(Statement):
    """`if CONDITION`: opens an IfBlock."""

    words = ("if",)
    block_line = True

    condition: Condition
    text: str


@frozen
class ElseIf(Statement):
    """`else if CONDITION`."""

    words = ("else", "if")
    block_line = True

    condition: Condition
    text: str


@frozen
class Else(Statement):
    """`else`."""

    words = ("else",)
    block_line = True


@frozen
class End(Statement):
    """`end`: closes the innermost `if`, `repeat` or `choose`."""

    words = ("end",)
    block_line = True


@frozen
class Repeat(Statement):
    """`repeat until CONDITION, at most N rounds` or `repeat N times`: opens a Loop.

    `condition` is None for `repeat N times`; `unit` is "rounds" or "times" (or
    "" when the bound is missing, an error reported with the loop kept in place)."""

    words = ("repeat", "until", "at", "most")
    block_line = True

    condition: Condition | None
    text: str | None
    bound: int
    unit: str


@frozen
class Arm(Node):
    """One arm of an IfBlock: its condition (None for `else`), as written, and its body."""

    pos: Position
    condition: Condition | None
    text: str
    body: tuple[Statement, ...]


@frozen
class IfBlock(Statement):
    """`if` ... `else if` ... `else` ... `end`: the first arm whose condition holds runs."""

    words = ("if", "else", "end")
    events = ("branch",)
    is_block = True

    arms: tuple[Arm, ...]
    end: Position

    def bodies(self) -> tuple[tuple[Statement, ...], ...]:
        return tuple(arm.body for arm in self.arms)

    def with_bodies(self, bodies) -> "IfBlock":
        return replace(self, arms=tuple(replace(arm, body=body) for arm, body in zip(self.arms, bodies)))


@frozen
class Loop(Statement):
    """`repeat until CONDITION, at most N rounds` ... `end`, or `repeat N times` ... `end`.

    Before each pass the condition is tested: the loop ends when it holds, or
    when `bound` passes have run."""

    words = ("repeat", "until", "end")
    events = ("loop",)
    is_block = True

    condition: Condition | None
    text: str | None
    bound: int
    unit: str
    body: tuple[Statement, ...]
    end: Position

    def bodies(self) -> tuple[tuple[Statement, ...], ...]:
        return (self.body,)

    def with_bodies(self, bodies) -> "Loop":
        body, = bodies
        return replace(self, body=body)


# ---------------------------------------------------------------- choices, state, expectations

@frozen
class Choose(Statement):
    """`choose "At the river"` (or `choose "At the river", chose "Wade across"`): opens a ChoiceBlock."""

    words = ("choose", "chose")
    block_line = True

    label: Name
    given: Name | None = None


@frozen
class OptionLine(Statement):
    """`option "Wade across" once weight 2 if hero is not defeated`: one option of a ChoiceBlock."""

    words = ("option", "once", "weight")
    block_line = True

    label: Name
    once: bool = False
    weight: int = 1
    condition: Condition | None = None
    text: str | None = None


@frozen
class Option(Node):
    """One option of a ChoiceBlock, with its body."""

    pos: Position
    label: Name
    once: bool
    weight: int
    condition: Condition | None
    text: str | None
    body: tuple[Statement, ...]


@frozen
class ChoiceBlock(Statement):
    """`choose "LABEL"` ... `option "LABEL"` ... `end`: one available option is taken,
    and its body runs. `given` is the option named with `, chose "..."`."""

    words = ("choose", "chose", "option", "end")
    events = ("choice",)
    uses_state = True
    is_block = True

    label: Name
    given: Name | None
    options: tuple[Option, ...]
    end: Position

    def bodies(self) -> tuple[tuple[Statement, ...], ...]:
        return tuple(option.body for option in self.options)

    def with_bodies(self, bodies) -> "ChoiceBlock":
        return replace(self, options=tuple(replace(o, body=body) for o, body in zip(self.options, bodies)))


@frozen
class SetState(Statement):
    """`set satchel_lost`, `set satchel_lost = false`, `set gold = gold + 3`.

    `value` is True or False for a flag, a Sum (or Quantity) for a counter."""

    words = ("set", "true", "false")
    events = ("set",)
    uses_state = True

    name: Name
    value: "bool | Sum | Quantity"


@frozen
class Expect(Statement):
    """`expect CONDITION`: the run stops with E801 when it does not hold."""

    words = ("expect",)
    uses_state = True

    condition: Condition
    text: str
