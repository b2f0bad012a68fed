"""The prompts of `drama play`: each of the table's calls (dice, a tie's vote, a split, a double win's option, initiative, a `choose` block's option) asked of the game master, a wrong answer said and asked again.

At any prompt the game master may type instead a table command that only looks
(`/board`, `/state` ...: answered, and the prompt asked again), one that
changes the table, or a statement of the language: those stop the entry being
built (`Typed`), and the loop plays them.
"""

from __future__ import annotations

import re

from ..engine.checks import plural
from ..errors import DramaError, did_you_mean, one_of
from ..syntax.printer import actor_text
from .asks import ChoiceAsk, DiceAsk, InitiativeAsk, OptionAsk, SplitAsk, TieAsk, Typed
from .commands import looks

REROLLING = re.compile(r"^\s*\d+(?:[\s,]+\d+)*\s*,?\s*(?:re-?rolling|rerolled)\b")
DICE = re.compile(r"^\s*\d+(?:[\s,]+\d+)*\s*$")


class Prompts:
    """The calls asked at the table's prompt (`loop`: the `TableLoop` that reads, says and runs commands)."""

    def __init__(self, loop):
        self.loop = loop

    def ask(self, prompt: str) -> str:
        """A line for a call. A table command that only looks (/board, /state, /odds, /help, /save)
        is answered in place and the call asked again; one that changes the table stops the entry
        (`Typed`), as a statement typed instead of an answer does."""
        while True:
            line = self.loop.read(prompt).strip()
            if not line.startswith("/"):
                return line
            if not looks(line):
                raise Typed(line)
            self.loop.command(line[1:])

    def not_an_answer(self, line: str, what: str) -> None:
        """A line that is no answer: a statement of the language stops the entry (free play), else say what is asked."""
        try:
            self.loop.table.program.read(line, "<table>")
        except DramaError:
            self.loop.say(f"  {what}")
            return
        raise Typed(line)

    def __call__(self, ask):
        """The answer to one of the table's calls (`dsl/table/asks.py`), asked of the game master."""
        if isinstance(ask, DiceAsk):
            return self._dice(ask)
        if isinstance(ask, TieAsk):
            return self._tie(ask)
        if isinstance(ask, SplitAsk):
            return self._split(ask)
        if isinstance(ask, OptionAsk):
            return self._option(ask)
        if isinstance(ask, InitiativeAsk):
            return self._initiative(ask)
        if isinstance(ask, ChoiceAsk):
            return self._choice(ask)
        return None

    def _dice(self, ask: DiceAsk):
        while True:
            line = self.ask(f"{ask.why}; dice (Enter: the engine rolls)> ")
            if not line:
                return None
            faces = _numbers(line)
            if faces is None and ask.recovery and REROLLING.match(line):
                try:                           # the chosen re-rolls of a recovery check (R14)
                    self.loop.table.program.read(f"{actor_text(ask.party)} recovers, rolled {line}", "<dice>")
                except DramaError as error:
                    self.loop.show_error(error)
                    continue
                return line
            if faces is None:
                self.not_an_answer(line, f"dice are faces from 1 to {ask.sides}, e.g. `6 4 1`"
                                   + (", or `6 5 2, rerolling 2 to 4`" if ask.recovery else ""))
                continue
            bad = [f for f in faces if not 1 <= f <= ask.sides]
            if bad:
                self.loop.say(f"  a d{ask.sides} has no face {bad[0]}: faces from 1 to {ask.sides}")
                continue
            if ask.exactly is not None and len(faces) != ask.exactly:
                self.loop.say(f"  {ask.party} rolls {plural(ask.exactly, 'die', 'dice')} here, not {len(faces)}")
                continue
            if ask.most is not None and len(faces) > ask.most:
                self.loop.say(f"  {ask.party} may roll at most {ask.most}, not {len(faces)} (R3)")
                continue
            return tuple(faces)

    def _tie(self, ask: TieAsk):
        choices = list(ask.choices)
        while True:
            line = self.ask(f"{ask.attacker} and {ask.defender} tie at {ask.value}: who won the vote? "
                            f"({' or '.join(choices)})> ")
            found = next((c for c in choices if c.lower() == line.lower()), None)
            if found is not None:
                return found
            hint = did_you_mean(line, choices) if line else None
            self.not_an_answer(line, f"the vote goes to {one_of(choices)}" + (f" ({hint})" if hint else ""))

    def _split(self, ask: SplitAsk):
        side = " & ".join(ask.side)
        example = ", ".join(f"{pid} {share}" for pid, share in zip(ask.side, _even(ask.amount, len(ask.side))))
        while True:
            line = self.ask(f"{side} lose {ask.amount}: the split, e.g. `{example}` (Enter: the lead first)> ")
            if not line:
                return None
            shares = {}
            ok = True
            for part in line.split(","):
                words = part.split()
                if len(words) < 2 or not words[-1].isdigit():
                    ok = False
                    break
                shares[" ".join(words[:-1])] = int(words[-1])
            unknown = [pid for pid in shares if pid not in ask.side]
            if not ok or unknown:
                self.not_an_answer(line, f"the shares are `PARTY N` of {one_of(ask.side)}, adding up to {ask.amount}")
                continue
            if sum(shares.values()) != ask.amount:
                self.loop.say(f"  the shares add up to {sum(shares.values())}, not {ask.amount} (R10)")
                continue
            return shares

    def _option(self, ask: OptionAsk):
        who = " & ".join(ask.parties)
        while True:
            line = self.loop.read(f"{who} won double: `reroll`, `dictate TEXT`, or Enter for none> ").strip()
            if not line:
                return None
            word, _, rest = line.partition(" ")
            if word in ("reroll", "rerolls", "r"):
                return ("reroll", None)
            if word in ("dictate", "dictates", "d") and rest.strip():
                return ("dictate", rest.strip().strip('"'))
            raise Typed(line)

    def _choice(self, ask: ChoiceAsk):
        """The option of a `choose` block: the available ones numbered, the others greyed with why."""
        question = ask.question
        available = question.available
        self.loop.say(f"  the choice {question.choice!r}:")
        number = 0
        for option in question.options:
            if option.available:
                number += 1
                self.loop.say(f"    {number}. {option.label}")
            else:
                self.loop.say(f"    -  {option.label} (not available: {option.why})", dim=True)
        while True:
            numbers = f"1-{len(available)}" if len(available) > 1 else "1"
            line = self.ask(f"which option? {numbers} or its label> ")
            if not line:
                self.loop.say(f"  a number from 1 to {len(available)}, or one of {one_of(available)}")
                continue
            if line.isdigit() and 1 <= int(line) <= len(available):
                return available[int(line) - 1]
            found = next((label for label in available if label.lower() == line.strip('"').lower()), None)
            if found is not None:
                return found
            closed = next((o for o in question.options if not o.available
                           and o.label.lower() == line.strip('"').lower()), None)
            if closed is not None:
                self.loop.say(f"  '{closed.label}' is not available: {closed.why}")
                continue
            hint = did_you_mean(line.strip('"'), available) if line else None
            self.not_an_answer(line, f"a number from 1 to {len(available)}, or one of {one_of(available)}"
                               + (f" ({hint})" if hint else ""))

    def _initiative(self, ask: InitiativeAsk):
        while True:
            line = self.ask(f"{ask.why} ({', '.join(ask.parties)}; Enter: the engine rolls)> " if ask.why else
                            f"initiative results for {', '.join(ask.parties)} (Enter: the engine rolls)> ")
            if not line:
                return None
            numbers = _numbers(line)
            if numbers is None or len(numbers) != len(ask.parties):
                self.not_an_answer(line, f"one result for each of {', '.join(ask.parties)}, in that order")
                continue
            return dict(zip(ask.parties, numbers))


def _numbers(line: str) -> list[int] | None:
    if not DICE.match(line):
        return None
    return [int(x) for x in re.split(r"[\s,]+", line.strip())]


def _even(amount: int, parts: int) -> list[int]:
    return [amount // parts + (1 if i < amount % parts else 0) for i in range(parts)]
