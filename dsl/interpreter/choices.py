"""Choices: the question a `choose` block asks, who answers it, and the seeded pick.

A run gets the answer to every choice through one method,
`Interpreter.answer(question, given)`, which asks in this order:

1. the option given in the script (`choose "At the river", chose "Wade across"`),
   when the run mode keeps the table's calls (not with fresh dice);
2. the answers of the command line (`drama run --choose "At the river=Wade across"`);
3. the `ask` hook, if the run has one (`drama play`: the game master at the table),
   which may return None to pass;
4. the seeded dice, weighted by each option's `weight`, in a lenient run (and in
   every run of `drama simulate`);
5. else a strict run stops with E330, naming the choice and its available options.
"""

from __future__ import annotations

from typing import Callable, Mapping

from ..frozen import frozen
from .. import events as ev
from ..errors import DramaError, Position, did_you_mean, one_of
from ..syntax import nodes as n
from . import conditions

__all__ = ["Offered", "Question", "Answer", "Ask", "pick", "parse_answers", "check_answers"]


@frozen
class Offered:
    """One option as the choice offers it: available or not (and why not)."""

    label: str
    available: bool
    weight: int = 1
    why: str | None = None        # why it is unavailable


@frozen
class Question:
    """A choice to answer: its label, its options in order, and where it is written."""

    choice: str
    options: tuple[Offered, ...]
    pos: Position | None = None

    @property
    def available(self) -> list[str]:
        return [o.label for o in self.options if o.available]

    def offered(self, label: str) -> Offered | None:
        return next((o for o in self.options if o.label == label), None)


@frozen
class Answer:
    """The option taken, and how: "given" (in the script), "command" (--choose),
    "table" (the `ask` hook) or "seeded" (the seeded dice)."""

    option: str
    by: str


# the hook of `drama play`: the label of an available option, or None to pass
Ask = Callable[[Question], "str | None"]


def pick(question: Question, roll: Callable[[int], int]) -> str:
    """An available option drawn by weight; `roll(n)` gives a number from 1 to n."""
    available = [o for o in question.options if o.available]
    total = sum(o.weight for o in available)
    drawn = roll(total)
    for option in available:
        drawn -= option.weight
        if drawn <= 0:
            return option.label
    return available[-1].label      # pragma: no cover - the weights add up to `total`


def unavailable(question: Question, label: str, how: str, at: Position | None) -> DramaError:
    """E332: the option `label` was named (`how`) but cannot be taken now."""
    offered = question.offered(label)
    available = question.available
    if offered is None:
        labels = [o.label for o in question.options]
        return DramaError("E207", f"the choice '{question.choice}' has no option '{label}'", position=at,
                          expected=f"one of {one_of(labels)}", hint=did_you_mean(label, labels),
                          notes=[f"named {how}"])
    return DramaError("E332", f"the option '{label}' of the choice '{question.choice}' is not available "
                      f"({offered.why})", position=at,
                      expected=f"one of {one_of(available)}" if available else None,
                      notes=[f"named {how}"])


def refuse(question: Question) -> DramaError:
    """E330: nobody made the choice in a strict run."""
    available = question.available
    example = available[0] if available else "..."
    unavailable_ = [f"'{o.label}' ({o.why})" for o in question.options if not o.available]
    notes = [f"not available: {', '.join(unavailable_)}"] if unavailable_ else []
    return DramaError("E330", f"nobody made the choice '{question.choice}'", position=question.pos,
                      expected=f"one of {one_of(available)}",
                      hint=f"give it in the script (choose \"{question.choice}\", chose \"{example}\"), "
                           f"on the command line (--choose \"{question.choice}={example}\"), "
                           "or let the seeded dice pick (--lenient)", notes=notes)


def parse_answers(items: tuple[str, ...] | list[str]) -> dict[str, str]:
    """`--choose "CHOICE=OPTION"` options as a mapping; ValueError for a malformed one."""
    answers: dict[str, str] = {}
    for item in items:
        choice, equals, option = item.partition("=")
        if not equals or not choice.strip() or not option.strip():
            raise ValueError(f"'{item}' is not CHOICE=OPTION, e.g. \"At the river=Wade across\"")
        answers[choice.strip()] = option.strip()
    return answers


def check_answers(answers: Mapping[str, str], offered: Mapping[str, list[str]]) -> None:
    """E207 for an answer naming a choice the script does not make, or an option it does
    not have; `offered` is each choice's labels (from every `choose` block of the script)."""
    for choice, option in answers.items():
        if choice not in offered:
            raise DramaError("E207", f"the script makes no choice '{choice}' (--choose)",
                             expected=f"one of {one_of(offered)}" if offered else "no --choose: it makes no choice",
                             hint=did_you_mean(choice, offered))
        if option not in offered[choice]:
            raise DramaError("E207", f"the choice '{choice}' has no option '{option}' (--choose)",
                             expected=f"one of {one_of(offered[choice])}",
                             hint=did_you_mean(option, offered[choice]))


class MakesChoices:
    """The interpreter's part that runs a `choose` block: the question, the ONE place its
    answer comes from (`answer`), the event, and the option's body; mixed into
    `core.Interpreter`."""

    def _choice(self, s: n.ChoiceBlock) -> None:
        offered = []
        for option in s.options:
            why = None
            if option.once and (option.pos.file, option.pos.line) in self.used_once:
                why = "it was taken once already"
            elif option.condition is not None and not conditions.holds(option.condition, self):
                why = f"'{option.text}' does not hold"
            offered.append(Offered(option.label.text, why is None, option.weight, why))
        question = Question(s.label.text, tuple(offered), s.pos)
        if not question.available:
            raise DramaError("E331", f"no option of the choice '{s.label.text}' is available",
                             notes=[f"'{o.label}': {o.why}" for o in offered],
                             hint="add an option without a condition or `once`, taken when no other is")
        answer = self.answer(question, s.given)
        taken = next(o for o in s.options if o.label.text == answer.option)
        if taken.once:
            self.used_once.add((taken.pos.file, taken.pos.line))
        self.chosen[s.label.text] = answer.option
        game = self.game
        self.events.append(ev.choice(s.pos.file, s.pos.line, question, answer,
                                     game.drama.name if game.drama else None, game.round))
        self._block(taken.body)

    def answer(self, question: Question, given: n.Name | None = None) -> Answer:
        """The answer to a choice: the ONE place a run gets it (see dsl/interpreter/choices.py):
        the option given in the script, then --choose, then the `ask` hook (the table),
        then the seeded dice in a lenient run; else E330."""
        if given is not None and self.mode.keeps_table_calls:
            if given.text not in question.available:
                raise unavailable(question, given.text, "in the script", given.pos)
            return Answer(given.text, "given")
        label = self.answers.get(question.choice)
        if label is not None:
            if label not in question.available:
                raise unavailable(question, label, "with --choose", None)
            return Answer(label, "command")
        if self.ask is not None:
            label = self.ask(question)
            if label is not None:
                if label not in question.available:
                    raise unavailable(question, label, "at the table", None)
                return Answer(label, "table")
        if self.lenient:
            return Answer(pick(question, lambda total: self.dice.roll(1, total)[0]), "seeded")
        raise refuse(question)
