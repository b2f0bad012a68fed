"""What the table is asked (`DiceAsk`, `TieAsk` ...): the one hook, `Calls`, through which a session at the table asks for what the rules leave to it.

A script says what happens; the table says how it fell. Where a statement of
the script rolls (`roll`), the dice may be the ones rolled at the table; where
a tie is settled by the vote, the table names the winner; a double win's
option, a joint side's split, an initiative and a `choose` block's option are
the table's too. Every such
question is one `Ask` (a frozen dataclass), put to a `Calls` object:

    answer = calls(DiceAsk("Kara", "Kara may roll up to 3 dice: Sorcery 3", 3, 6))

`EngineCalls` answers as `drama run` does: the engine rolls with the seeded
source, ties go to the setting's policy, no option, no split. `drama play`
asks the game master (`dsl/table/prompts.py`); the tests give answers in
advance. A caller that wants to stop building an entry (the game
master typed a statement or a table command instead of an answer) raises
`Typed`: nothing has changed yet when a call is made.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol


@dataclass(frozen=True)
class DiceAsk:
    """The dice of one party: faces as rolled (a tuple), or None for the engine to roll them."""

    party: str
    why: str                  # "Kara may roll up to 3 dice: Sorcery 3"
    most: int | None          # how many dice it may roll now; None when the engine knows best
    sides: int
    recovery: bool = False    # a recovery check: the answer may also be the dice as written after
                              # `rolled`, with the chosen re-rolls (`6 5 5 2, rerolling 2 to 4`, R14)
    exactly: int | None = None    # how many dice it rolls, when the rules say (a damage pool, a reroll)


@dataclass(frozen=True)
class TieAsk:
    """Who won the vote on a tie: one of `choices` (a party id, or "GM")."""

    attacker: str
    defender: str
    value: int
    choices: tuple[str, ...]


@dataclass(frozen=True)
class SplitAsk:
    """How a joint side's loss is spread: {party: share}, or None for lead first (R10)."""

    side: tuple[str, ...]
    amount: int


@dataclass(frozen=True)
class OptionAsk:
    """A double win's option (R8): ("dictate", text), ("reroll", None), or None for none."""

    parties: tuple[str, ...]


@dataclass(frozen=True)
class InitiativeAsk:
    """Initiative results for the parties, in order ({party: result}), or None for the engine (R12);
    `why` says what is asked when it is the re-rolls of a tie ("Kara and Bren tie at 5")."""

    parties: tuple[str, ...]
    why: str = ""


@dataclass(frozen=True)
class ChoiceAsk:
    """Which option a `choose` block takes: the label of an available one, or None to pass
    (the choice is then refused, E330). `question` is the interpreter's own
    (`dsl/interpreter/choices.py`): every option, available or not, and why not."""

    question: Any             # choices.Question


Ask = DiceAsk | TieAsk | SplitAsk | OptionAsk | InitiativeAsk | ChoiceAsk


class Calls(Protocol):
    def __call__(self, ask: Ask) -> Any: ...


class Typed(Exception):
    """The game master typed something else than an answer: a statement or a table command."""

    def __init__(self, text: str):
        super().__init__(text)
        self.text = text


class EngineCalls:
    """What `drama run` does with every call: the engine rolls, the policy settles, nothing more."""

    def __call__(self, ask: Ask) -> Any:
        return None              # a tie goes to the setting's policy (an error under `vote`, as in `drama run`)
