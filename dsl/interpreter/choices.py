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

from dataclasses import dataclass
from typing import Callable, Mapping

from ..errors import DramaError, Position, did_you_mean, one_of

__all__ = ["Offered", "Question", "Answer", "Ask", "pick", "parse_answers", "check_answers"]


@dataclass(frozen=True)
class Offered:
    """One option as the choice offers it: available or not (and why not)."""

    label: str
    available: bool
    weight: int = 1
    why: str | None = None        # why it is unavailable


@dataclass(frozen=True)
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


@dataclass(frozen=True)
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
