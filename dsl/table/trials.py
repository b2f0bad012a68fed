"""Trials of an entry at the table: statements tried on the live session, whose snapshot is restored afterwards, at the cost of the entry alone however long the night.

Before an entry changes anything, it is tried: checked before any prompt
(`precheck`: what the rules refuse whatever the table answers), checked as it
is typed (`declare`), played with the table's dice to print its journal lines
(`trial`), or asked what a `choose` block offers (`question`). Each runs on
the live `Session` with the entry's own dice, and the session is given back
as it was (`Session.snapshot` and `restore`).
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass, replace

from ..engine import SeededDice
from ..errors import DramaError
from ..syntax import nodes as n

# what only the table's answers settle: a tie under the vote, a choice, how many dice are given
_ANSWERS_SETTLE = ("E311", "E330", "E401")


def _asks_table(statements: list[n.Statement]) -> bool:
    """Whether completing the statements may ask the table something (dice, initiative, a choice)."""
    for statement in statements:
        for part in [statement, *(getattr(statement, "participants", ()) or ())]:
            dice = getattr(part, "dice", None)
            if isinstance(dice, n.Dice) and dice.kind != "given":
                return True
        if isinstance(statement, n.Recover) and statement.first.kind != "given":
            return True
        if isinstance(statement, n.Initiative) and not any(e.results for e in statement.entries):
            return True
    return False


class Trials:
    """The trials of a table's entries (`table`: the `Table` whose live session they run on)."""

    def __init__(self, table):
        self.table = table

    @contextmanager
    def trying(self, dice=None):
        """The live session for a trial, given back as it was afterwards (its snapshot restored, at
        the cost of the trial alone, however long the night): `dice` replaces its source of rolled
        dice, and it knows the script's `once` options already taken."""
        session = self.table.session
        before = session.snapshot()
        game = session.interpreter.game
        own = game.dice
        if dice is not None:
            game.dice = dice
        session.interpreter.used_once |= self.table.once_taken
        try:
            yield session
        finally:
            game.dice = own
            session.restore(before)

    def question(self, block: n.ChoiceBlock):
        """The interpreter's question for a `choose` block of the script now (each option, available
        or not and why), asked on a fork that is then dropped; None when the run answers it itself
        (`--choose`). E331 when no option is available."""
        asked = []

        def capture(question):
            asked.append(question)
            raise _Asked

        with self.trying() as trial:
            interpreter = trial.interpreter
            own, interpreter.ask = interpreter.ask, capture
            try:
                trial.feed(replace(block, given=None, options=tuple(replace(o, body=()) for o in block.options)))
            except _Asked:
                pass
            finally:
                interpreter.ask = own
        return asked[0] if asked else None

    def declare(self, statements: list[n.Statement]) -> None:
        """Check statements being typed (an action, then its defences one by one) as far as they go,
        on a fork: a party that already acted, a defence of a party outside the situation, a
        misspelt name are refused now, before the rest is asked (DramaError)."""
        try:
            self.trial(statements, SeededDice(0))
        except DramaError as error:
            if error.code not in _ANSWERS_SETTLE:
                error.notes = [note for note in error.notes if "was not played" not in note]
                raise

    def precheck(self, statements: list[n.Statement], seed: int) -> None:
        """What the rules refuse whatever the table answers, refused before it is asked anything:
        the statements tried on a fork with the engine's dice. What only the answers settle (a tie
        under the vote, E311; a choice, E330; the count of given dice, E401) is left to them."""
        if not _asks_table(statements):
            return
        try:
            self.trial(statements, SeededDice(seed))
        except DramaError as error:
            if error.code not in _ANSWERS_SETTLE:
                raise

    def trial(self, statements: list[n.Statement], dice: SeededDice) -> Trial:
        """What the statements would do now, with these dice: their events and the exchange's result."""
        with self.trying(_Continue(dice)) as session:
            mark = len(session.events)
            for statement in statements:
                session.feed(statement)
            session.resolve()
            return Trial(session.events[mark:], session.interpreter.last)


@dataclass(frozen=True)
class Trial:
    """What a trial of an entry did: its events, and the engine's result of its last exchange."""

    events: list[dict]
    last: object


class _Asked(Exception):
    """The question of a choice was caught (`Trials.question`): the trial stops there."""


class _Continue:
    """The dice source of a trial: the entry's own seeded stream, continued where the table's calls left it."""

    def __init__(self, dice: SeededDice):
        self.dice = dice

    def roll(self, count: int, sides: int) -> tuple[int, ...]:
        return self.dice.roll(count, sides)
