"""The statement writer: one statement (a node) written back as the script's text, in the canonical layout.

One writer for both that write statements: `drama fmt` (syntax/layout.py,
nodes read from the script) and `drama run --record` (syntax/printer.py,
nodes built from the events). Every kind of statement has its method here
(`Writer.<Kind>`, tests/test_statements.py checks that none is missing).

The quoting follows grammar/drama.lark (its header comment) and was checked
against the parser: a name is written bare only when the parser reads it back
as the same name, and quoted otherwise. Quoted text is always a plain name.
The keywords and the grammar's WORD come from dsl.syntax.vocabulary.
"""

from __future__ import annotations

import re
from typing import Callable

from ..scenes import DEFAULT_KIND
from . import nodes
from .vocabulary import AFTER_ACTOR, KEYWORDS, MAX_DIGITS, NAME_ENDS, NARRATION, PHRASE_ENDS, STATEMENT_WORDS, WORD

__all__ = ["statement_lines", "writes", "quoted", "name_text", "actor_text", "intent_text", "phrase_text"]

# ------------------------------------------------------------------ quoting

# a number (INT)
_INT = re.compile(r"\d+")


def quoted(text: str) -> str:
    """`text` as quoted text: `"..."` with `\\"` and `\\\\` escaped. Quoted text
    ends on its line, so a line break cannot be written (ValueError)."""
    if "\n" in text or "\r" in text:
        raise ValueError(f"{text!r} has a line break: it cannot be written in a script")
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _words(text: str) -> list[str] | None:
    """The words of `text` if it is words joined by single spaces, else None."""
    words = text.split(" ")
    if not all(WORD.fullmatch(word) for word in words):
        return None
    return words


def name_text(name: str, *, tie: bool = False) -> str:
    """A name (target, extra target, trait, treasure, helper, a party of `drama`,
    `initiative`, `tie` or `split`): bare when it is words joined by single
    spaces, none of them after the first being `but`, `so`, `with` or `vs`
    (`tie=True`: and not `GM` first, which `tie` would read as the GM)."""
    words = _words(name)
    if (words is None or any(word in NAME_ENDS for word in words[1:])
            or (tie and words[0] == "GM")):
        return quoted(name)
    return name


def actor_text(party: str, *, line_start: bool = True) -> str:
    """The party at an actor position: one word, not a statement keyword where a
    statement starts; quoted otherwise."""
    if WORD.fullmatch(party) and not (line_start and party in STATEMENT_WORDS):
        return party
    return quoted(party)


def intent_text(intent: str) -> str:
    """An intent: bare when it is one word that is not a verb that may follow a
    party (`holds`, `defends`, `with`, ...); an intent of several words is quoted,
    as in every canonical example (`Kara "leaps the chasm" vs 7`)."""
    if WORD.fullmatch(intent) and intent not in AFTER_ACTOR:
        return intent
    return quoted(intent)


def phrase_text(phrase: str) -> str:
    """A qualifier's phrase: bare when it is a word, then words or numbers, none of
    them `but`, `so` or `with`; quoted otherwise."""
    words = phrase.split(" ")
    if (WORD.fullmatch(words[0])
            and all(WORD.fullmatch(word) or _INT.fullmatch(word) for word in words[1:])
            and not any(word in PHRASE_ENDS for word in words[1:])):
        return phrase
    return quoted(phrase)


def _subject(party: str) -> str:
    """The party of a condition's quantity (`Kara quintessence`): a word that is no keyword, or quoted."""
    return party if WORD.fullmatch(party) and party not in KEYWORDS else quoted(party)


def _number(value: int) -> str:
    if len(str(abs(value))) > MAX_DIGITS:
        raise ValueError(f"the number {value} has more than {MAX_DIGITS} digits: it cannot be written in a script")
    return str(value)


def _signed(value: int) -> str:
    return ("-" if value < 0 else "+") + _number(abs(value))


# ------------------------------------------------------------------ the parts of a statement

def _uses(uses: nodes.Uses) -> str:
    """` with TRAIT + TREASURE`, ` with A`, or nothing."""
    return " with " + " + ".join(name_text(name.text) for name in uses.names) if uses.names else ""


def _faces(faces) -> str:
    return " ".join(_number(face) for face in faces)


def _dice(dice: nodes.Dice, given: str = "rolled") -> str:
    """`rolled 6 4` (`rerolled 5`, `, rerolling 2 to 4`), `roll`, `roll 2`, or nothing."""
    if dice.kind == "given":
        text = f"{given} {_faces(dice.faces)}".strip()
        if dice.rerolled is not None:
            text += " rerolled " + _faces(dice.rerolled)
    elif dice.kind == "roll":
        text = "roll" if dice.count is None else f"roll {_number(dice.count)}"
    else:
        return ""
    if dice.rerolling is not None:
        swaps = [f"{_number(swap.face)} to {_number(swap.new)}" for swap in dice.rerolling.swaps]
        text += ", rerolling " + (" and ".join(swaps) if swaps else "none")
    return text


def _tail(gm: int, dice: nodes.Dice) -> str:
    """`, GM +N` and `, rolled N N ...`, each when there is one."""
    out = f", GM {_signed(gm)}" if gm else ""
    return out + (", " + _dice(dice) if dice.kind != "none" else "")


def _participants(participants: tuple[nodes.Participant, ...]) -> list[str]:
    return ["  " + actor_text(p.party.text, line_start=False) + _uses(p.uses) + _tail(p.gm, p.dice)
            for p in participants]


def _parties(names: tuple[nodes.Name, ...]) -> str:
    return " & ".join(actor_text(name.text, line_start=(i == 0)) for i, name in enumerate(names))


def _duration(duration) -> str:
    return f"{_number(duration.amount)} {duration.unit}{'' if duration.amount == 1 else 's'}"


def _quantity(q: nodes.Quantity) -> str:
    if q.kind == "quintessence":
        return _subject(q.party.text) + " quintessence"
    if q.kind == "damage":
        return _subject(q.party.text) + " damage"
    if q.kind == "round":
        return "round"
    if q.kind == "counter":
        return q.name.text
    return _number(q.value)


def _value(value: nodes.Sum | nodes.Quantity) -> str:
    if type(value) is not nodes.Sum:
        return _quantity(value)
    out = ""
    for i, (sign, q) in enumerate(value.terms):
        out += ("-" if sign < 0 else "") if i == 0 else (" - " if sign < 0 else " + ")
        out += _quantity(q)
    return out


# ------------------------------------------------------------------ one statement

class Writer:
    """The lines of each kind of statement: a method per kind, named as its class."""

    def __init__(self, verb: str | None = None):
        self.verb = verb        # a defence's `defend` or `defends` as written (the node does not keep it)

    def Scene(self, s: nodes.Scene) -> list[str]:
        return ["scene " + quoted(s.title)]

    def Narration(self, s: nodes.Narration) -> list[str]:
        line = f"> {s.text}" if s.text else ">"
        match = NARRATION.fullmatch(line)
        if match is None or line[1:].strip() != s.text:
            raise ValueError(f"the narration {s.text!r} cannot be written back as it is")
        return [line]

    def DramaBegin(self, s: nodes.DramaBegin) -> list[str]:
        # a party whose name starts with `rounds`, `a` or `an` is quoted after a comma,
        # where `rounds of` gives the round length and `a debate` the kind of scene
        parties = ", ".join(quoted(p.text) if i and p.text.split(" ")[0] in ("rounds", "a", "an")
                            else name_text(p.text) for i, p in enumerate(s.parties))
        line = f"drama {quoted(s.name)} with {parties}"
        if s.kind != DEFAULT_KIND:
            line += (", an " if s.kind[:1] in "aeiou" else ", a ") + s.kind
            if s.quarry:
                line += (" by " if s.kind == "escape" else " after ") + " & ".join(name_text(q.text) for q in s.quarry)
        if s.round is not None:
            line += ", rounds of " + _duration(s.round)
        return [line]

    def Initiative(self, s: nodes.Initiative) -> list[str]:
        entries = []
        for e in s.entries:
            if any(value < 0 for value in e.results):
                raise ValueError(f"an initiative result of {e.party.text} is negative: it cannot be given in a script")
            entries.append(name_text(e.party.text) + _uses(e.uses) + "".join(f" {_number(n)}" for n in e.results))
        return ["initiative " + ", ".join(entries) if entries else "initiative"]

    def Round(self, s: nodes.Round) -> list[str]:
        return ["round"]

    def Action(self, s: nodes.Action) -> list[str]:
        # a quoted intent stays quoted: it is the writer's verb phrase (the transcript reads it so)
        head = _parties(s.actors) + " " + (quoted(s.intent) if s.intent_quoted else intent_text(s.intent))
        if s.target is not None:
            head += " -> " + name_text(s.target.text)
        else:
            head += " vs " + ("-" if s.gm_target < 0 else "") + _number(abs(s.gm_target))
        for qualifier in s.qualifiers:
            head += (" but not " if qualifier.kind == "not" else " so that ") + phrase_text(qualifier.text)
        for extra in s.extra_targets:
            head += " +" + name_text(extra.text)
        return [head + _uses(s.uses) + _tail(s.gm, s.dice)] + _participants(s.participants)

    def Defence(self, s: nodes.Defence) -> list[str]:
        verb = self.verb or ("defend" if s.participants or len(s.parties) > 1 else "defends")
        return [_parties(s.parties) + " " + verb + _uses(s.uses) + _tail(s.gm, s.dice)] + _participants(s.participants)

    def Hold(self, s: nodes.Hold) -> list[str]:
        return [actor_text(s.party.text) + " holds"]

    def MemberLost(self, s: nodes.MemberLost) -> list[str]:
        return [actor_text(s.party.text) + " lose member " + quoted(s.member.text)]

    def Tie(self, s: nodes.Tie) -> list[str]:
        return ["tie " + (name_text(s.winner.text, tie=True) if s.winner is not None else "GM")]

    def Split(self, s: nodes.Split) -> list[str]:
        return ["split " + ", ".join(f"{name_text(name.text)} {_number(n)}" for name, n in s.shares)]

    def Dictate(self, s: nodes.Dictate) -> list[str]:
        return [actor_text(s.party.text) + " dictates " + quoted(s.text)]

    def Reroll(self, s: nodes.Reroll) -> list[str]:
        return [actor_text(s.party.text) + " rerolls" + (", " + _dice(s.dice) if s.dice.kind != "none" else "")]

    def Recover(self, s: nodes.Recover) -> list[str]:
        out = actor_text(s.party.text) + " recovers" + _uses(s.uses)
        for helper in s.helpers:
            out += ", helped by " + name_text(helper.party.text) + _uses(helper.uses)
        if s.first.kind != "none":
            out += ", " + _dice(s.first)
        if s.second.kind != "none":
            out += ", then " + _dice(s.second, given="")
        return [out]

    def EndDrama(self, s: nodes.EndDrama) -> list[str]:
        return ["end drama" + ("" if s.text is None else " " + quoted(s.text))]

    def Calm(self, s: nodes.Calm) -> list[str]:
        return ["calm " + _duration(s.duration)]

    def Rest(self, s: nodes.Rest) -> list[str]:
        return ["rest " + _duration(s.duration)]

    def Include(self, s: nodes.Include) -> list[str]:
        return ["include " + quoted(s.path)]

    def SetState(self, s: nodes.SetState) -> list[str]:
        if s.value is True or s.value is False:
            return [f"set {s.name.text}" + ("" if s.value else " = false")]
        return [f"set {s.name.text} = {_value(s.value)}"]

    def Expect(self, s: nodes.Expect) -> list[str]:
        return ["expect " + s.text]

    # -------------------------------------------------------------- the lines of blocks

    def If(self, s: nodes.If) -> list[str]:
        return ["if " + s.text]

    def ElseIf(self, s: nodes.ElseIf) -> list[str]:
        return ["else if " + s.text]

    def Else(self, s: nodes.Else) -> list[str]:
        return ["else"]

    def End(self, s: nodes.End) -> list[str]:
        return ["end"]

    def Repeat(self, s: nodes.Repeat) -> list[str]:
        if s.condition is None:
            return [f"repeat {_number(s.bound)} {s.unit}"]
        return [f"repeat until {s.text}, at most {_number(s.bound)} {s.unit}"]

    def Choose(self, s: nodes.Choose) -> list[str]:
        return ["choose " + quoted(s.label.text) + ("" if s.given is None else ", chose " + quoted(s.given.text))]

    def OptionLine(self, s: nodes.OptionLine) -> list[str]:
        line = "option " + quoted(s.label.text) + (" once" if s.once else "")
        line += f" weight {_number(s.weight)}" if s.weight != 1 else ""
        return [line + ("" if s.condition is None else " if " + s.text)]

    # -------------------------------------------------------------- blocks, with what they hold

    def _body(self, body) -> list[str]:
        return [line for statement in body for line in statement_lines(statement)]

    def IfBlock(self, s: nodes.IfBlock) -> list[str]:
        lines = []
        for i, arm in enumerate(s.arms):
            lines.append(("if " if i == 0 else "else if ") + arm.text if arm.condition is not None else "else")
            lines.extend(self._body(arm.body))
        return lines + ["end"]

    def Loop(self, s: nodes.Loop) -> list[str]:
        return self.Repeat(s) + self._body(s.body) + ["end"]

    def ChoiceBlock(self, s: nodes.ChoiceBlock) -> list[str]:
        lines = self.Choose(s)
        for option in s.options:
            lines.extend(self.OptionLine(option))
            lines.extend(self._body(option.body))
        return lines + ["end"]


def writes(kind: type) -> bool:
    """Whether the writer has the lines of this kind of statement."""
    return callable(getattr(Writer, kind.__name__, None))


def statement_lines(s: nodes.Statement, *, verb: str | None = None) -> list[str]:
    """A statement in the canonical layout: its line, its participants' lines (a block:
    its lines and those it holds). `verb` is a defence's `defend` or `defends` as
    written (else the plural for a joint defence). Raises ValueError when it cannot be
    written (text with a line break, a number of too many digits)."""
    write: Callable | None = getattr(Writer(verb), type(s).__name__, None)
    if write is None:
        raise ValueError(f"no layout for a {type(s).__name__}")
    return write(s)
