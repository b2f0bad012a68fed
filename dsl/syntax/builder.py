"""The tree builder: the Lark transformer that turns each rule into the nodes of dsl.syntax.nodes, one per parse."""

from __future__ import annotations

import dataclasses
import re
from typing import Sequence

from ..durations import Duration, unit_name
from ..errors import DramaError, Position, did_you_mean
from ..limits import MAX_DICE, MAX_LOOP_BOUND, MAX_NESTING, too_deep, too_many_dice
from ..scenes import DEFAULT_KIND, KINDS_OF_SCENE
from . import nodes
from .vocabulary import MAX_DIGITS
from .syntax_errors import content_end, show

__all__ = ["Builder"]

NO_USES = nodes.NO_USES

_ESCAPE = re.compile(r'\\([\\"])')

# how `last exchange ...` may say its outcome
_OUTCOMES = {"won": "won", "lost": "lost", "tied": "tied", "a tie": "tied", "double": "double",
             "a double win": "double", "double win": "double", "doubled": "double"}
# `at most N rounds`: the bound counts passes through the loop, whichever word says so
_LOOP_UNITS = {"rounds": "rounds", "round": "rounds", "times": "times", "time": "times",
               "passes": "times", "pass": "times"}


def _text_column(token) -> int:
    """Where the text of a bare or quoted text token starts."""
    return token.column + 1 if token.type == "STRING" else token.column


class _Quoted(str):
    """An intent written in quotes (the writer's verb phrase)."""


def _unquote(token: str) -> str:
    text = token[1:-1]
    return _ESCAPE.sub(r"\1", text) if "\\" in text else text


class Builder:
    """The callbacks Lark calls as it reduces each rule (the transformer, applied
    inline), for one parse.

    Holds the state of that parse: the file name, the lines of the file and the
    line offset; for the text Lark reads now, `line_map` (the line in the file of
    each of its lines) and its lines; and the statements built so far (kept even
    when a later line fails, for error recovery).
    """

    def __init__(self, file: str, offset: int, source_lines: list[str]) -> None:
        self.file = file
        self.offset = offset
        self.source_lines = source_lines
        self.line_map: Sequence[int] = range(0)
        self.lines: list[str] = []
        self.out: list[nodes.Statement] = []
        self.control = False      # an `if` or `repeat` was read: the statements need nesting
        # errors in a statement that is still read (a loop without a bound keeps its
        # place, so that its `end` is not reported too)
        self.soft: list[DramaError] = []


    def _pos(self, first, last=None) -> Position:
        return Position(self.file, self.line_map[first.line], first.column,
                        (last or first).end_column)

    def _line_pos(self, line: int, column: int) -> Position:
        """From (Lark line, column) to the end of that line's content."""
        return Position(self.file, self.line_map[line], column, content_end(self.lines[line - 1]))

    def _name_line_pos(self, name: nodes.Name) -> Position:
        """From a name to the end of its line's content."""
        line = name.pos.line
        return Position(self.file, line, name.pos.column,
                        content_end(self.source_lines[line - self.offset - 1]))

    def _error(self, message: str, token, last=None, **kwargs) -> DramaError:
        return DramaError("E001", message, position=self._pos(token, last), **kwargs)

    def _int(self, token) -> int:
        if len(token) > MAX_DIGITS:
            raise self._error(f"the number {show(str(token), 16)} is too large", token,
                              hint=f"numbers in a script have at most {MAX_DIGITS} digits")
        return int(token)

    # names and small parts ------------------------------------------------

    def name(self, c):
        first = c[0]
        if len(c) == 1:
            text = _unquote(first) if first.type == "STRING" else str(first)
            return nodes.Name(text, Position(self.file, self.line_map[first.line], first.column, first.end_column))
        last = c[-1]
        return nodes.Name(" ".join(c), Position(self.file, self.line_map[first.line], first.column, last.end_column))

    actor = name

    def intent(self, c):
        if c[0].type == "STRING":
            return _Quoted(_unquote(c[0]))
        return " ".join(c)

    def phrase(self, c):
        if c[0].type == "STRING":
            return _unquote(c[0]), c[0].end_column
        return " ".join(c), c[-1].end_column

    def uses(self, c):
        first = c[0]  # the `with` keyword
        names = tuple(c[1:])
        return nodes.Uses(names, Position(self.file, self.line_map[first.line], first.column,
                                          names[-1].pos.end_column))

    def signed(self, c):
        value = self._int(c[-1])
        return -value if c[0].type == "MINUS" else value

    def gm(self, c):
        return ("gm", c[0])

    def gm_target(self, c):
        return ("vs", c[0])

    def target(self, c):
        return ("->", c[0])

    def extra(self, c):
        return ("+", c[0])

    def qualifier(self, c):
        keyword, (text, end) = c[0], c[-1]      # `but not PHRASE` or `so that PHRASE`
        kind = "not" if keyword.type == "BUT" else "so"
        return nodes.Qualifier(kind, text, Position(self.file, self.line_map[keyword.line], keyword.column, end))

    def faces(self, c):
        # a face that is not on the die (0, or 7 on a d6) is the engine's to refuse
        # (E402): only it knows the setting's dice
        if len(c) > MAX_DICE:
            raise too_many_dice(len(c)).at(self._pos(c[0], c[-1]))
        return tuple(self._int(token) for token in c), c[-1]

    def _count(self, token) -> int:
        """The N of `roll N`: at most MAX_DICE (E015)."""
        count = self._int(token)
        if count > MAX_DICE:
            raise too_many_dice(count).at(self._pos(token))
        return count

    def dice(self, c):
        first = c[0]
        if first.type == "ROLLED":
            values, last = c[1]
            return nodes.Dice("given", self._pos(first, last), faces=values)
        if len(c) == 1:
            return nodes.Dice("roll", self._pos(first))
        return nodes.Dice("roll", self._pos(first, c[1]), count=self._count(c[1]))

    def rdice(self, c):
        first = c[0]
        if first.type in ("ROLLED", "THEN") and len(c) > 1 and isinstance(c[1], tuple):
            values, last = c[1]
            rerolled = None
            if len(c) > 2:
                rerolled, last = c[2]
            return nodes.Dice("given", self._pos(first, last), faces=values, rerolled=rerolled)
        # `roll` or `roll N`, possibly after `then`
        start = first
        if first.type == "THEN":
            c = c[1:]
        if len(c) == 1:
            return nodes.Dice("roll", self._pos(start, c[0]))
        return nodes.Dice("roll", self._pos(start, c[1]), count=self._count(c[1]))

    def second(self, c):
        return ("then", self.rdice(c))

    def swap(self, c):
        face, new = c
        return nodes.Swap(self._int(face), self._int(new), self._pos(face, new))

    def choice(self, c):
        keyword, last = c[0], c[-1]
        swaps = tuple(item for item in c[1:] if type(item) is nodes.Swap)
        end = last.pos if type(last) is nodes.Swap else self._pos(last)
        return nodes.Rerolling(swaps, Position(self.file, self.line_map[keyword.line], keyword.column,
                                               end.end_column))

    def _with_choice(self, dice: nodes.Dice, choice: nodes.Rerolling) -> nodes.Dice:
        """A check's dice with the re-rolls the party chose (point 13): faces can
        be named only once they are given, and in one way (E319)."""
        if choice.swaps and not dice.is_given:
            raise DramaError("E319", "the dice of `roll` are not known yet, so the dice to re-roll cannot "
                             "be named", position=choice.pos,
                             expected="`rolled N N ...` before `rerolling F to N`, or `rerolling none`",
                             hint="give the dice as rolled at the table, or leave the re-rolls to the "
                                  "engine (the lowest dice first)")
        if dice.rerolled is not None:
            raise DramaError("E319", "the re-rolls are given twice, with `rerolled` and with `rerolling`",
                             position=choice.pos,
                             expected="`rolled 6 3 1 rerolled 5` (the lowest dice re-rolled) or "
                                      "`rolled 6 3 1, rerolling 1 to 5` (the dice chosen), not both")
        return dataclasses.replace(dice, rerolling=choice)

    def helper(self, c):
        return nodes.Helper(c[0], c[1] if len(c) > 1 else NO_USES)

    def share(self, c):
        return (c[0], self._int(c[1]))

    def init_entry(self, c):
        party = c[0]
        uses = NO_USES
        results = []
        end = party.pos.end_column
        for item in c[1:]:
            if isinstance(item, nodes.Uses):
                uses = item
                end = item.pos.end_column
            else:
                results.append(self._int(item))
                end = item.end_column
        pos = Position(self.file, party.pos.line, party.pos.column, end)
        return nodes.InitiativeEntry(party, uses, tuple(results), pos)

    def participant(self, c):
        party = c[0]
        uses, gm, dice = self._uses_gm_dice(c, 1)
        return nodes.Participant(party, uses, gm, dice, self._name_line_pos(party))

    @staticmethod
    def _uses_gm_dice(c, start):
        uses, gm, dice = NO_USES, 0, nodes.NO_DICE
        for item in c[start:]:
            kind = type(item)
            if kind is tuple:
                gm = item[1]
            elif kind is nodes.Dice:
                dice = item
            elif kind is nodes.Uses:
                uses = item
        return uses, gm, dice

    # statements ---------------------------------------------------------

    def _add(self, statement):
        self.out.append(statement)
        return statement

    def scene(self, c):
        keyword, title = c
        text = _unquote(title) if title.type == "STRING" else title.rstrip()
        return self._add(nodes.Scene(self._line_pos(keyword.line, keyword.column), text,
                                     _text_column(title)))

    def narration(self, c):
        token = c[0]
        body = token[1:]
        column = token.column + 1 + len(body) - len(body.lstrip())
        return self._add(nodes.Narration(self._line_pos(token.line, token.column), body.strip(), column))

    def drama(self, c):
        keyword, title = c[0], c[1]
        length = c[-1] if type(c[-1]) is Duration else None
        rest = c[3:-1] if length is not None else c[3:]
        kind, quarry = rest[-1] if rest and type(rest[-1]) is tuple else (DEFAULT_KIND, ())
        parties = tuple(x for x in rest if type(x) is nodes.Name)
        return self._add(nodes.DramaBegin(self._line_pos(keyword.line, keyword.column), title.text, parties,
                                          length, kind, quarry))

    def drama_kind(self, c):
        """The kind of scene, and the quarry it names: (kind, names)."""
        quarry = c[-1] if type(c[-1]) is tuple else ()
        word = c[-2] if quarry else c[-1]
        if str(word) not in KINDS_OF_SCENE:
            raise DramaError("E350", f"there is no kind of scene '{word}'", position=Position(
                self.file, self.line_map[word.line], word.column, word.end_column),
                expected="one of " + ", ".join(KINDS_OF_SCENE),
                hint=did_you_mean(str(word), KINDS_OF_SCENE))
        return str(word), quarry

    def quarry(self, c):
        return tuple(x for x in c if type(x) is nodes.Name)

    def member_lost(self, c):
        party, member = c[0], c[-1]
        return self._add(nodes.MemberLost(self._name_line_pos(party), party, member))
    def rounds_of(self, c):
        keyword, amount, unit = c
        length = self._duration(amount, unit)
        if length.unit == "round" or length.amount == 0:
            raise DramaError("E320", f"a round cannot last {length}", position=self._pos(keyword, unit),
                             expected="a length of in-world time above 0: `rounds of 6 seconds`, "
                                      "`rounds of 1 minute`, `rounds of 2 hours`, `rounds of 1 day`",
                             hint="a round is the unit the other durations count in, so it is given in "
                                  "seconds, minutes, hours, days or weeks")
        return length

    def initiative(self, c):
        keyword = c[0]
        return self._add(nodes.Initiative(self._line_pos(keyword.line, keyword.column), tuple(c[1:])))

    def round(self, c):
        keyword = c[0]
        return self._add(nodes.Round(self._line_pos(keyword.line, keyword.column)))

    def include(self, c):
        keyword, path = c[0], c[1]
        return self._add(nodes.Include(self._line_pos(keyword.line, keyword.column), _unquote(path)))

    def _action(self, c, actors_end):
        """(intent, target, gm_target, qualifiers, extras, uses, gm, dice, participants)."""
        intent = c[actors_end]
        target = gm_target = None
        qualifiers = []
        extras = []
        participants = []
        uses, gm, dice = NO_USES, 0, nodes.NO_DICE
        for item in c[actors_end + 1:]:
            kind = type(item)
            if kind is tuple:
                tag, value = item
                if tag == "->":
                    target = value
                elif tag == "+":
                    extras.append(value)
                elif tag == "vs":
                    gm_target = value
                else:
                    gm = value
            elif kind is nodes.Qualifier:
                qualifiers.append(item)
            elif kind is nodes.Uses:
                uses = item
            elif kind is nodes.Dice:
                dice = item
            elif kind is nodes.Participant:
                participants.append(item)
        return intent, target, gm_target, tuple(qualifiers), tuple(extras), uses, gm, dice, tuple(participants)

    def action(self, c):
        actor = c[0]
        intent, target, gm_target, quals, extras, uses, gm, dice, _ = self._action(c, 1)
        return self._add(nodes.Action(self._name_line_pos(actor), (actor,), str(intent), target, gm_target,
                                      quals, extras, uses, gm, dice, intent_quoted=type(intent) is _Quoted))

    def _joint_check(self, what, actors, participants):
        if not participants:
            names = ", ".join(a.text for a in actors)
            first = actors[0]
            raise DramaError(
                "E002", f"each party of a joint {what} needs its own indented line ({names})",
                position=self._name_line_pos(first),
                hint=f"add one indented line per party below it, such as '  {first.text} with ...'")

    def joint_action(self, c):
        n = 0
        while type(c[n]) is nodes.Name:
            n += 1
        actors = tuple(c[:n])
        intent, target, gm_target, quals, extras, uses, gm, dice, participants = self._action(c, n)
        self._joint_check("action", actors, participants)
        return self._add(nodes.Action(self._name_line_pos(actors[0]), actors, str(intent), target, gm_target,
                                      quals, extras, uses, gm, dice, participants,
                                      intent_quoted=type(intent) is _Quoted))

    def defence(self, c):
        party = c[0]
        uses, gm, dice = self._uses_gm_dice(c, 1)
        return self._add(nodes.Defence(self._name_line_pos(party), (party,), uses, gm, dice))

    def joint_defence(self, c):
        parties = tuple(x for x in c if type(x) is nodes.Name)
        participants = tuple(x for x in c if type(x) is nodes.Participant)
        uses, gm, dice = self._uses_gm_dice(c, len(parties))
        self._joint_check("defence", parties, participants)
        return self._add(nodes.Defence(self._name_line_pos(parties[0]), parties, uses, gm, dice, participants))

    def stray_participant(self, c):
        party, uses = c[0], c[1]
        raise DramaError(
            "E001", f"unexpected 'with' after '{show(party.text)}'",
            position=Position(self.file, uses.pos.line, uses.pos.column, uses.pos.column + 4),
            expected="an intent such as 'fireball' (then '->' or 'vs'), '&', 'defends', 'holds', "
                     "'recovers', 'dictates' or 'rerolls'",
            hint="a participant's line ('Kara with Sorcery, rolled 6 5') must be indented "
                 "below its joint action or defence")

    def hold(self, c):
        return self._add(nodes.Hold(self._name_line_pos(c[0]), c[0]))

    def tie(self, c):
        keyword = c[0]
        winner = c[1] if len(c) > 1 else None
        return self._add(nodes.Tie(self._line_pos(keyword.line, keyword.column), winner))

    def split(self, c):
        keyword = c[0]
        return self._add(nodes.Split(self._line_pos(keyword.line, keyword.column), tuple(c[1:])))

    def dictate(self, c):
        party, token = c
        text = _unquote(token) if token.type == "STRING" else token.rstrip()
        return self._add(nodes.Dictate(self._name_line_pos(party), party, text, _text_column(token)))

    def reroll(self, c):
        party = c[0]
        dice = c[1] if len(c) > 1 else nodes.NO_DICE
        return self._add(nodes.Reroll(self._name_line_pos(party), party, dice))

    def recover(self, c):
        party = c[0]
        uses = NO_USES
        helpers = []
        first = second = nodes.NO_DICE
        for item in c[1:]:
            kind = type(item)
            if kind is nodes.Uses:
                uses = item
            elif kind is nodes.Helper:
                helpers.append(item)
            elif kind is nodes.Dice:
                first = item
            elif kind is nodes.Rerolling:           # the choice of the check just before it
                if second is nodes.NO_DICE:
                    first = self._with_choice(first, item)
                else:
                    second = self._with_choice(second, item)
            else:
                second = item[1]
        return self._add(nodes.Recover(self._name_line_pos(party), party, uses, tuple(helpers), first, second))

    def end_drama(self, c):
        keyword = c[0]
        text = None
        column = 0
        if len(c) > 2:
            token = c[2]
            text = _unquote(token) if token.type == "STRING" else token.rstrip()
            column = _text_column(token)
        return self._add(nodes.EndDrama(self._line_pos(keyword.line, keyword.column), text, column))

    def _duration(self, amount, unit):
        singular = unit_name(str(unit))
        if singular is None:
            units = ["seconds", "minutes", "hours", "days", "weeks", "rounds"]
            known = units + [u[:-1] for u in units]
            hint = did_you_mean(str(unit), known)
            raise self._error(f"unknown unit of time '{show(str(unit))}'", unit,
                              expected="seconds, minutes, hours, days, weeks or rounds", hint=hint)
        return Duration(self._int(amount), singular)

    def calm(self, c):
        keyword, amount, unit = c
        return self._add(nodes.Calm(self._line_pos(keyword.line, keyword.column), self._duration(amount, unit)))

    def rest(self, c):
        keyword, amount, unit = c
        return self._add(nodes.Rest(self._line_pos(keyword.line, keyword.column), self._duration(amount, unit)))

    # control flow and conditions --------------------------------------------

    def _span(self, first, last) -> Position:
        """From the start of `first` to the end of `last` (tokens, names, conditions)."""
        start = first.pos if hasattr(first, "pos") else self._pos(first)
        end = last.pos if hasattr(last, "pos") else self._pos(last)
        return Position(start.file, start.line, start.column, end.end_column)

    def _cond_text(self, keyword, cond) -> str:
        line = self.lines[keyword.line - 1]
        return line[cond.pos.column - 1:cond.pos.end_column - 1]

    subject = name

    def quantity(self, c):
        first = c[0]
        if type(first) is nodes.Name:
            kind = "quintessence" if c[1].type == "QUINTESSENCE" else "damage"
            return nodes.Quantity(kind, self._span(first, c[-1]), party=first)
        if first.type == "ROUND":
            return nodes.Quantity("round", self._pos(first))
        return nodes.Quantity("number", self._pos(first), value=self._int(first))

    def counter(self, c):
        token = c[0]
        pos = self._pos(token)
        return nodes.Quantity("counter", pos, name=nodes.Name(str(token), pos))

    def _sum(self, c, sign):
        left, right = c[0], c[2]
        terms = left.terms if type(left) is nodes.Sum else ((1, left),)
        return nodes.Sum(self._span(left, right), terms + ((sign, right),))

    def plus(self, c):
        return self._sum(c, 1)

    def minus(self, c):
        return self._sum(c, -1)

    def negative(self, c):
        return nodes.Sum(self._span(c[0], c[1]), ((-1, c[1]),))

    def flag(self, c):
        token = c[0]
        pos = self._pos(token)
        return nodes.Flag(pos, nodes.Name(str(token), pos))

    def _label(self, token) -> nodes.Name:
        return nodes.Name(_unquote(token), self._pos(token))

    def choice_is(self, c):
        keyword, choice, op, option = c
        if str(op) not in ("=", "!="):
            raise self._error(f"a choice is compared with '=' or '!=', not '{op}'", op,
                              expected="'=' or '!='")
        return nodes.ChoiceIs(self._span(keyword, option), self._label(choice), str(op), self._label(option))

    def compare(self, c):
        left, op, right = c
        return nodes.Compare(self._span(left, right), left, str(op), right)

    def defeated(self, c):
        return nodes.Defeated(self._span(c[0], c[-1]), c[0], negated=len(c) == 4, was=c[1].type == "WAS")

    def last_exchange(self, c):
        words = [str(t) for t in c if t.type == "WORD"]
        said = " ".join(words)
        outcome = _OUTCOMES.get(said)
        if outcome is None:
            first = next(t for t in c if t.type == "WORD")
            raise self._error(f"'{show(said)}' is not an outcome of an exchange", first, c[-1],
                              expected="won, lost, tied or double",
                              hint=did_you_mean(said, _OUTCOMES))
        return nodes.LastExchange(self._span(c[0], c[-1]), outcome)

    def party_exchange(self, c):
        party, verb = c[0], c[1]
        return nodes.LastExchange(self._span(party, c[-1]), "won" if verb.type == "WON" else "lost", party)

    def can_recover(self, c):
        return nodes.CanRecover(self._span(c[0], c[-1]), c[0])

    def in_drama(self, c):
        return nodes.InDrama(self._span(c[0], c[-1]))

    def negation(self, c):
        return nodes.Not(self._span(c[0], c[1]), c[1])

    def both(self, c):
        return nodes.And(self._span(c[0], c[2]), c[0], c[2])

    def either(self, c):
        return nodes.Or(self._span(c[0], c[2]), c[0], c[2])

    def group(self, c):
        return dataclasses.replace(c[1], pos=self._span(c[0], c[2]))

    def _deep(self, cond) -> None:
        """E010 for a condition with its operators nested past MAX_NESTING (a
        walk with a stack of its own: the condition's depth is the input's)."""
        todo = [(cond, 0)]        # (a condition and the operators above it)
        while todo:
            c, depth = todo.pop()
            if depth > MAX_NESTING:
                raise DramaError("E010", too_deep("a condition", None).message, position=cond.pos,
                                 expected=f"at most {MAX_NESTING} operators (`not`, `and`, `or`) one inside another",
                                 hint="split the condition over nested `if` blocks")
            kind = type(c)
            if kind is nodes.Not:
                todo.append((c.operand, depth + 1))
            elif kind is nodes.And or kind is nodes.Or:
                todo.append((c.left, depth + 1))
                todo.append((c.right, depth + 1))

    def if_(self, c):
        keyword, cond = c
        self.control = True
        self._deep(cond)
        return self._add(nodes.If(self._line_pos(keyword.line, keyword.column), cond,
                                  self._cond_text(keyword, cond)))

    def else_(self, c):
        keyword = c[0]
        self.control = True         # (a stray one is E004, found by nesting)
        pos = self._line_pos(keyword.line, keyword.column)
        if len(c) == 1:
            return self._add(nodes.Else(pos))
        cond = c[2]
        self._deep(cond)
        return self._add(nodes.ElseIf(pos, cond, self._cond_text(keyword, cond)))

    def block_end(self, c):
        keyword = c[0]
        self.control = True         # (a stray one is E004, found by nesting)
        return self._add(nodes.End(self._line_pos(keyword.line, keyword.column)))

    def repeat(self, c):
        keyword = c[0]
        self.control = True
        pos = self._line_pos(keyword.line, keyword.column)
        if c[1].type == "INT":          # repeat N times
            count, unit = c[1], c[2]
            return self._add(nodes.Repeat(pos, None, None, self._bound(count), self._unit(unit)))
        cond = c[2]
        self._deep(cond)
        text = self._cond_text(keyword, cond)
        if len(c) == 3:
            column = content_end(self.lines[keyword.line - 1])
            # the loop is kept (with no passes), so that its `end` still closes it
            self.soft.append(DramaError(
                "E005", "a loop needs an upper bound", position=Position(
                    self.file, self.line_map[keyword.line], column, column + 1),
                expected="', at most N rounds' (or 'times') after the condition",
                hint=f"repeat until {text}, at most 20 rounds"))
            return self._add(nodes.Repeat(pos, cond, text, 0, ""))
        count, unit = c[-2], c[-1]
        return self._add(nodes.Repeat(pos, cond, text, self._bound(count), self._unit(unit)))

    def _bound(self, token) -> int:
        """A loop's bound; over MAX_LOOP_BOUND it is E011, and the loop is kept
        with the largest bound allowed (so that its `end` still closes it)."""
        bound = self._int(token)
        if bound > MAX_LOOP_BOUND:
            self.soft.append(DramaError(
                "E011", f"a loop's bound of {bound:,} is over the limit of {MAX_LOOP_BOUND:,}",
                position=self._pos(token), expected=f"a bound of at most {MAX_LOOP_BOUND:,}",
                hint="a loop of rounds ends long before that: `repeat until ..., at most 20 rounds`"))
            return MAX_LOOP_BOUND
        return bound

    def _unit(self, token) -> str:
        unit = _LOOP_UNITS.get(str(token))
        if unit is None:
            self.soft.append(DramaError(
                "E005", f"a loop counts rounds or times, not '{show(str(token))}'",
                position=self._pos(token), expected="'rounds' or 'times'",
                hint=did_you_mean(str(token), _LOOP_UNITS)))
            return "times"
        return unit

    def choose(self, c):
        keyword = c[0]
        self.control = True
        given = self._label(c[4]) if len(c) > 2 else None
        return self._add(nodes.Choose(self._line_pos(keyword.line, keyword.column), self._label(c[1]), given))

    def option(self, c):
        keyword = c[0]
        once = False
        weight = 1
        condition = text = None
        i = 2
        while i < len(c):
            item = c[i]
            kind = getattr(item, "type", None)
            if kind == "ONCE":
                once = True
            elif kind == "WEIGHT":
                i += 1
                weight = self._int(c[i])
                if weight < 1:
                    raise self._error("an option's weight is 1 or more", c[i], expected="a weight of 1 or more",
                                      hint="leave an option out of a simulation with a condition instead")
            elif kind == "IF":
                condition = c[i + 1]
                text = self._cond_text(keyword, condition)
                break
            i += 1
        return self._add(nodes.OptionLine(self._line_pos(keyword.line, keyword.column), self._label(c[1]),
                                          once, weight, condition, text))

    def set_(self, c):
        keyword, word = c[0], c[1]
        pos = self._line_pos(keyword.line, keyword.column)
        name = nodes.Name(str(word), self._pos(word))
        if len(c) == 2:
            return self._add(nodes.SetState(pos, name, True))
        op, value = c[2], c[3]
        if str(op) != "=":
            hint = None
            if str(op) in ("<=", ">=", "<", ">", "!="):
                hint = f"write 'set {word} = ...'; compare with 'if {word} {op} ...'"
            raise self._error(f"'set' gives a value with '=', not '{op}'", op, expected="'='", hint=hint)
        kind = getattr(value, "type", None)
        if kind == "TRUE" or kind == "FALSE":
            value = kind == "TRUE"
        return self._add(nodes.SetState(pos, name, value))

    def expect(self, c):
        keyword, cond = c
        return self._add(nodes.Expect(self._line_pos(keyword.line, keyword.column), cond,
                                      self._cond_text(keyword, cond)))

    def start(self, c):
        return None

