"""The parser: script text -> the syntax tree of dsl.nodes, with positions."""

from __future__ import annotations

import dataclasses
import gc
import hashlib
import importlib.util
import os
import re
import threading
from pathlib import Path
from typing import Sequence

from lark import Lark
from lark.exceptions import LarkError, UnexpectedInput, UnexpectedToken

from . import nodes
from .durations import Duration, unit_name
from .errors import DramaError, Position, did_you_mean

__all__ = ["parse", "MAX_ERRORS"]

# how many syntax errors one pass collects (parse(..., errors=[])) before it stops
MAX_ERRORS = 100
# numbers in a script have at most this many digits
_MAX_DIGITS = 9

NO_USES = nodes.Uses()

# ------------------------------------------------------------------ the Lark parser

_GRAMMAR_NAME = "drama.lark"
_build_lock = threading.Lock()
_parse_lock = threading.RLock()
_lark: Lark | None = None


def _grammar_path() -> Path:
    """The grammar file: installed beside the package (dsl/grammar/), or in the source tree."""
    here = Path(__file__).resolve().parent
    for folder in (here / "grammar", here.parent / "grammar"):
        path = folder / _GRAMMAR_NAME
        if path.is_file():
            return path
    raise FileNotFoundError(f"cannot find {_GRAMMAR_NAME} in {here / 'grammar'} or {here.parent / 'grammar'}")


def _cache_file(grammar: str) -> str | None:
    """A file in the user's cache folder for Lark's analysis of the grammar, or None."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    folder = Path(base) / "drama"
    digest = hashlib.sha256(grammar.encode("utf-8")).hexdigest()[:16]
    try:
        folder.mkdir(parents=True, exist_ok=True)
        if not os.access(folder, os.W_OK | os.X_OK):
            return None
    except OSError:
        return None
    return str(folder / f"grammar-{digest}.lark-cache")


def _get_lark() -> Lark:
    global _lark
    if _lark is None:
        with _build_lock:
            if _lark is None:
                grammar = _grammar_path().read_text(encoding="utf-8")
                options = dict(
                    parser="lalr",
                    lexer="contextual",
                    # strict mode checks regex collisions with `interegular`
                    strict=importlib.util.find_spec("interegular") is not None,
                    transformer=_BUILDER,
                    maybe_placeholders=False,
                    propagate_positions=False,
                )
                cache = _cache_file(grammar)
                try:
                    _lark = Lark(grammar, cache=cache or False, **options)
                except (OSError, EOFError):  # an unreadable cache file
                    _lark = Lark(grammar, cache=False, **options)
    return _lark


# ------------------------------------------------------------------ helpers

_ESCAPE = re.compile(r'\\([\\"])')
# what a line holds before its comment: quoted text may contain '#'
_BEFORE_COMMENT = re.compile(r'(?:"(?:[^"\\\n]|\\.)*"|[^#\n])*')
# one lexeme, for error messages
_LEXEME = re.compile(r'"(?:[^"\\\n]|\\.)*"|->|[\w\'](?:[\w\']|-(?!>))*|\S')
_WORD = re.compile(r"[\w'](?:[\w']|-(?!>))*")


# how `last exchange ...` may say its outcome
_OUTCOMES = {"won": "won", "lost": "lost", "tied": "tied", "a tie": "tied", "double": "double",
             "a double win": "double", "double win": "double", "doubled": "double"}
# `at most N rounds`: the bound counts passes through the loop, whichever word says so
_LOOP_UNITS = {"rounds": "rounds", "round": "rounds", "times": "times", "time": "times",
               "passes": "times", "pass": "times"}


def _text_column(token) -> int:
    """Where the text of a bare or quoted text token starts."""
    return token.column + 1 if token.type == "STRING" else token.column


def _unquote(token: str) -> str:
    text = token[1:-1]
    return _ESCAPE.sub(r"\1", text) if "\\" in text else text


def _content_end(line: str) -> int:
    """The column just after the last character of a line that is not comment or space."""
    if "#" in line:
        line = line[: _BEFORE_COMMENT.match(line).end()]
    return len(line.rstrip()) + 1


def _is_top_level(line: str) -> bool:
    """A line that starts a statement: not blank, not indented, not a comment."""
    return bool(line) and line[0] not in " \t#"


# a line that the grammar skips: only spaces, tabs and a comment
_BLANK = re.compile(r"[ \t]*(?:#.*)?\Z")


def _show(text: str, limit: int = 40) -> str:
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


# ------------------------------------------------------------------ building the nodes

class _Builder:
    """The callbacks Lark calls as it reduces each rule (the transformer, applied inline).

    Holds the state of the parse in progress: the file name, `line_map` (the line
    in the file of each line of the text Lark reads), the lines of that text, the
    lines of the file, and the statements built so far (kept even when a later
    line fails, for error recovery).
    """

    def __init__(self) -> None:
        self.file = "<script>"
        self.line_map: Sequence[int] = range(0)
        self.lines: list[str] = []
        self.source_lines: list[str] = []
        self.offset = 0
        self.out: list[nodes.Statement] = []
        self.control = False      # an `if` or `repeat` was read: the statements need nesting
        # errors in a statement that is still read (a loop without a bound keeps its
        # place, so that its `end` is not reported too)
        self.soft: list[DramaError] = []

    # positions -----------------------------------------------------------

    def _pos(self, first, last=None) -> Position:
        return Position(self.file, self.line_map[first.line], first.column,
                        (last or first).end_column)

    def _line_pos(self, line: int, column: int) -> Position:
        """From (Lark line, column) to the end of that line's content."""
        return Position(self.file, self.line_map[line], column, _content_end(self.lines[line - 1]))

    def _name_line_pos(self, name: nodes.Name) -> Position:
        """From a name to the end of its line's content."""
        line = name.pos.line
        return Position(self.file, line, name.pos.column,
                        _content_end(self.source_lines[line - self.offset - 1]))

    def _error(self, message: str, token, last=None, **kwargs) -> DramaError:
        return DramaError("E001", message, position=self._pos(token, last), **kwargs)

    def _int(self, token) -> int:
        if len(token) > _MAX_DIGITS:
            raise self._error(f"the number {_show(str(token), 16)} is too large", token,
                              hint=f"numbers in a script have at most {_MAX_DIGITS} digits")
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
            return _unquote(c[0])
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
        return tuple(self._int(token) for token in c), c[-1]

    def dice(self, c):
        first = c[0]
        if first.type == "ROLLED":
            values, last = c[1]
            return nodes.Dice("given", self._pos(first, last), faces=values)
        if len(c) == 1:
            return nodes.Dice("roll", self._pos(first))
        return nodes.Dice("roll", self._pos(first, c[1]), count=self._int(c[1]))

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
        return nodes.Dice("roll", self._pos(start, c[1]), count=self._int(c[1]))

    def second(self, c):
        return ("then", self.rdice(c))

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
        parties = tuple(c[3:])
        return self._add(nodes.DramaBegin(self._line_pos(keyword.line, keyword.column), title.text, parties))

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
        return self._add(nodes.Action(self._name_line_pos(actor), (actor,), intent, target, gm_target,
                                      quals, extras, uses, gm, dice))

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
        return self._add(nodes.Action(self._name_line_pos(actors[0]), actors, intent, target, gm_target,
                                      quals, extras, uses, gm, dice, participants))

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
            "E001", f"unexpected 'with' after '{_show(party.text)}'",
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
            raise self._error(f"unknown unit of time '{_show(str(unit))}'", unit,
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
            raise self._error(f"'{_show(said)}' is not an outcome of an exchange", first, c[-1],
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

    def if_(self, c):
        keyword, cond = c
        self.control = True
        return self._add(nodes.If(self._line_pos(keyword.line, keyword.column), cond,
                                  self._cond_text(keyword, cond)))

    def else_(self, c):
        keyword = c[0]
        pos = self._line_pos(keyword.line, keyword.column)
        if len(c) == 1:
            return self._add(nodes.Else(pos))
        cond = c[2]
        return self._add(nodes.ElseIf(pos, cond, self._cond_text(keyword, cond)))

    def block_end(self, c):
        keyword = c[0]
        return self._add(nodes.End(self._line_pos(keyword.line, keyword.column)))

    def repeat(self, c):
        keyword = c[0]
        self.control = True
        pos = self._line_pos(keyword.line, keyword.column)
        if c[1].type == "INT":          # repeat N times
            count, unit = c[1], c[2]
            return self._add(nodes.Repeat(pos, None, None, self._int(count), self._unit(unit)))
        cond = c[2]
        text = self._cond_text(keyword, cond)
        if len(c) == 3:
            column = _content_end(self.lines[keyword.line - 1])
            # the loop is kept (with no passes), so that its `end` still closes it
            self.soft.append(DramaError(
                "E005", "a loop needs an upper bound", position=Position(
                    self.file, self.line_map[keyword.line], column, column + 1),
                expected="', at most N rounds' (or 'times') after the condition",
                hint=f"repeat until {text}, at most 20 rounds"))
            return self._add(nodes.Repeat(pos, cond, text, 0, ""))
        count, unit = c[-2], c[-1]
        return self._add(nodes.Repeat(pos, cond, text, self._int(count), self._unit(unit)))

    def _unit(self, token) -> str:
        unit = _LOOP_UNITS.get(str(token))
        if unit is None:
            self.soft.append(DramaError(
                "E005", f"a loop counts rounds or times, not '{_show(str(token))}'",
                position=self._pos(token), expected="'rounds' or 'times'",
                hint=did_you_mean(str(token), _LOOP_UNITS)))
            return "times"
        return unit

    def start(self, c):
        return None


_BUILDER = _Builder()


# ------------------------------------------------------------------ syntax errors

# how each terminal reads in an `expected:` line, in the order they are listed
_SHOW_TERMINAL = {
    "WORD": "a word",
    "STRING": "a quoted name",
    "INT": "a number",
    "TEXT": "text",
    "ARROW": "'->'",
    "_VS": "'vs'",
    "AMP": "'&'",
    "_DEFENDS": "'defends'",
    "_HOLDS": "'holds'",
    "_RECOVERS": "'recovers'",
    "_DICTATES": "'dictates'",
    "_REROLLS": "'rerolls'",
    "SCENE": "'scene'",
    "DRAMA": "'drama'",
    "INITIATIVE": "'initiative'",
    "ROUND": "'round'",
    "TIE": "'tie'",
    "SPLIT": "'split'",
    "END": "'end drama'",
    "CALM": "'calm'",
    "REST": "'rest'",
    "INCLUDE": "'include'",
    "NARRATION": "'>' and narration",
    "BUT": "'but not'",
    "NOT": "'not'",
    "IF": "'if'",
    "ELSE": "'else'",
    "REPEAT": "'repeat'",
    "UNTIL": "'until'",
    "AT": "'at most'",
    "MOST": "'most'",
    "OR": "'or'",
    "AND": "'and'",
    "IS": "'is'",
    "DEFEATED": "'defeated'",
    "THE": "'the'",
    "LAST": "'last exchange'",
    "EXCHANGE": "'exchange'",
    "WAS": "'was'",
    "WON": "'won'",
    "LOST": "'lost'",
    "IN": "'in drama'",
    "QUINTESSENCE": "'quintessence'",
    "DAMAGE": "'damage'",
    "POOL": "'pool'",
    "CAN": "'can recover'",
    "RECOVER": "'recover'",
    "CMP": "a comparison (<, <=, >, >=, = or !=)",
    "LPAR": "'('",
    "RPAR": "')'",
    "SO": "'so that'",
    "_THAT": "'that'",
    "PLUS": "'+'",
    "MINUS": "'-'",
    "WITH": "'with'",
    "_HELPED": "'helped by'",
    "_BY": "'by'",
    "COMMA": "','",
    "_GM": "'GM'",
    "ROLLED": "'rolled'",
    "ROLL": "'roll'",
    "_REROLLED": "'rerolled'",
    "THEN": "'then'",
    "_INDENT": "an indented line",
    "_NL": "end of line",
    "$END": "end of file",
}
_ORDER = {name: i for i, name in enumerate(_SHOW_TERMINAL)}

# the words of each keyword terminal, for 'did you mean'
_KEYWORD_WORDS = {
    "SCENE": ("scene",), "DRAMA": ("drama",), "WITH": ("with",), "INITIATIVE": ("initiative",),
    "ROUND": ("round",), "_DEFENDS": ("defends", "defend"), "_HOLDS": ("holds",), "_VS": ("vs",),
    "BUT": ("but",), "NOT": ("not",), "SO": ("so",), "_THAT": ("that",), "_GM": ("GM",),
    "ROLLED": ("rolled",), "ROLL": ("roll",), "TIE": ("tie",), "SPLIT": ("split",),
    "_DICTATES": ("dictates",), "_REROLLS": ("rerolls",), "_RECOVERS": ("recovers",),
    "_HELPED": ("helped",), "_BY": ("by",), "THEN": ("then",), "_REROLLED": ("rerolled",),
    "END": ("end",), "CALM": ("calm",), "REST": ("rest",), "INCLUDE": ("include",),
    "IF": ("if",), "ELSE": ("else",), "REPEAT": ("repeat",), "UNTIL": ("until",), "AT": ("at",),
    "MOST": ("most",), "OR": ("or",), "AND": ("and",), "IS": ("is",), "DEFEATED": ("defeated",),
    "THE": ("the",), "LAST": ("last",), "EXCHANGE": ("exchange",), "WAS": ("was",), "WON": ("won",),
    "LOST": ("lost",), "IN": ("in",), "QUINTESSENCE": ("quintessence",), "DAMAGE": ("damage",),
    "POOL": ("pool",), "CAN": ("can",), "RECOVER": ("recover",),
}
_INDENTED_LINE = "an indented line must follow a joint action or defence"
_STATEMENT_WORDS = ("scene", "drama", "initiative", "round", "tie", "split", "end", "calm", "rest", "include",
                    "if", "else", "repeat")
_VERBS = ("defends", "defend", "holds", "recovers", "dictates", "rerolls")


def _expected_text(accepts: set[str]) -> str | None:
    if "SCENE" in accepts:
        return ("a statement: a party's name, 'scene', 'drama', 'initiative', 'round', 'tie', "
                "'split', 'end drama', 'calm', 'rest', 'include' or '>' and narration")
    accepts = set(accepts)
    if "_DEFENDS" in accepts and "AMP" in accepts:
        accepts.discard("WITH")  # only there to catch a participant line that lost its indentation
    names = sorted((n for n in accepts if n in _SHOW_TERMINAL), key=_ORDER.__getitem__)
    shown = [_SHOW_TERMINAL[n] for n in names]
    if "WORD" in accepts and "STRING" in accepts:
        shown.remove("a quoted name")
        # right after the actor(s) a name is the intent
        shown[shown.index("a word")] = "an intent such as 'fireball'" if "_DEFENDS" in accepts else "a name"
    elif "TEXT" in accepts and "STRING" in accepts:
        shown.remove("a quoted name")
        shown[shown.index("text")] = "text, quoted or not"
    if not shown:
        return None
    if len(shown) == 1:
        return shown[0]
    return ", ".join(shown[:-1]) + " or " + shown[-1]


def _accepts(e: UnexpectedInput) -> set[str]:
    parser = getattr(e, "interactive_parser", None)
    if parser is not None:
        try:
            return set(parser.accepts())
        except (LarkError, DramaError, KeyError, AssertionError):
            pass
    if isinstance(e, UnexpectedToken):
        return set(e.expected)
    return set(getattr(e, "allowed", None) or ())


def _line_words(line: str) -> list[str]:
    return [m.group() for m in _LEXEME.finditer(line[: _BEFORE_COMMENT.match(line).end()])]


def _line_hint(line: str) -> str | None:
    """A hint from the shape of a line that failed: a misspelt keyword, an unquoted intent."""
    words = _line_words(line)
    if not words:
        return None
    first = words[0]
    if first in _STATEMENT_WORDS or first.startswith(">"):
        return None
    if _WORD.fullmatch(first):
        hint = did_you_mean(first, _STATEMENT_WORDS)
        if hint:
            return hint
    # the word after the actor(s): a statement verb, or the first word of the intent
    i = 1
    while i + 1 < len(words) and words[i] == "&":
        i += 2
    if i >= len(words):
        return None
    verb = words[i]
    if verb in _VERBS:
        rest = words[i + 1:]
        if "->" in rest or "vs" in rest:
            return f"an intent that starts with '{verb}' must be quoted, as in \"{verb} ...\" -> ..."
        return None
    if _WORD.fullmatch(verb):
        return did_you_mean(verb, _VERBS)
    return None


def _mapped(line_map: Sequence[int], line: int) -> int:
    """The line in the file of line `line` of the text Lark read."""
    return line_map[min(max(line, 0), len(line_map) - 1)]


def _syntax_error(e: UnexpectedInput, lines: list[str], line_map: Sequence[int], file: str) -> DramaError:
    """A DramaError for a GM from a Lark exception, positioned in the original file."""
    accepts = _accepts(e)
    token = getattr(e, "token", None)
    kind = token.type if isinstance(e, UnexpectedToken) and token is not None else None

    if kind == "_INDENT" and ("_NL" in accepts or "$END" in accepts):
        line = token.end_line
        text = lines[line - 1] if 0 < line <= len(lines) else ""
        words = _line_words(text)
        if words and ("->" in words or "vs" in words or words[0] in _STATEMENT_WORDS or words[0][0] == ">"
                      or len(words) > 1 and words[1] in _VERBS):
            # a whole statement, indented: as the lines of a block might be in other languages
            hint = ("write it flush left: only a joint side's participant lines are indented, "
                    "not the lines of an `if` or `repeat`")
        else:
            hint = ("join the parties with '&' on the line above (Kara & Bren \"pin him down\" -> Overlord) "
                    "or remove the indentation")
        return DramaError(
            "E002", _INDENTED_LINE,
            position=Position(file, _mapped(line_map, line), token.end_column, max(_content_end(text), token.end_column + 1)),
            hint=hint)

    if kind in ("_NL", "_INDENT", "$END"):
        if kind == "$END" or token.line is None or token.line < 1 or token.line > len(lines):
            line = len(lines)
            while line > 1 and not lines[line - 1].strip():
                line -= 1
        else:
            line = token.line
        text = lines[line - 1] if 0 < line <= len(lines) else ""
        column = _content_end(text)
        before = _line_words(text)
        after = f" after '{_show(before[-1])}'" if before else ""
        what = "end of the script" if kind == "$END" else "end of line"
        message = f"unexpected {what}{after}"
        hint = _line_hint(text)
        expected = _expected_text(accepts)
        if accepts == {"WORD"} and before[:1] in (["calm"], ["rest"]):
            expected = "a unit of time: seconds, minutes, hours, days, weeks or rounds"
        return DramaError("E001", message, position=Position(file, _mapped(line_map, line), column, column + 1),
                          expected=expected, hint=hint)

    # an unexpected word or character inside a line
    line, column = e.line, e.column
    if not isinstance(line, int) or not 0 < line <= len(lines):
        line, column = len(lines), 1
    text = lines[line - 1]
    index = max(column - 1, 0)
    match = _LEXEME.match(text, index)
    lexeme = match.group() if match else (text[index:index + 1] or "?")
    before = _line_words(text[:index])
    after = f" after '{_show(before[-1])}'" if before else ""
    end = column + len(lexeme)
    expected = _expected_text(accepts)
    hint = None
    if lexeme == '"':
        message = f"unterminated quote{after}"
        hint = 'end the quoted text with " on the same line'
        end = _content_end(text[:index] + text[index:].replace("#", " "))
        end = max(end, column + 1)
    else:
        message = f"unexpected '{_show(lexeme)}'{after}" if after else f"unexpected '{_show(lexeme)}'"
        if _WORD.fullmatch(lexeme):
            keywords = [w for n in accepts for w in _KEYWORD_WORDS.get(n, ())]
            hint = did_you_mean(lexeme, keywords) if keywords else None
        if hint is None:
            hint = _line_hint(text)
    return DramaError("E001", message, position=Position(file, _mapped(line_map, line), column, end),
                      expected=expected, hint=hint)


# ------------------------------------------------------------------ the public API

def _normalise(text: str) -> str:
    if text.startswith("\ufeff"):
        text = text[1:]
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text


def _read(text: str, line_map: Sequence[int]) -> None:
    """Run Lark on `text` (a script with an empty line put in front); the statements
    go to _BUILDER.out. `line_map[k]` is the line in the file of Lark's line k."""
    lark = _get_lark()
    builder = _BUILDER
    builder.line_map = line_map
    builder.lines = text.split("\n")
    try:
        lark.parse(text)
    except UnexpectedInput as e:
        try:
            error = _syntax_error(e, builder.lines, line_map, builder.file)
        except Exception:  # pragma: no cover - a bug in the error reporting itself
            error = _fallback_error(e, line_map, builder.file)
        raise error from None
    except LarkError as e:  # pragma: no cover - Lark has no other error for an input
        raise _fallback_error(e, line_map, builder.file) from None


def _fallback_error(e: Exception, line_map: Sequence[int], file: str) -> DramaError:
    line = getattr(e, "line", None)
    column = getattr(e, "column", None)
    if not isinstance(line, int):
        line = 1
    if not isinstance(column, int) or column < 1:
        column = 1
    return DramaError("E001", "this line cannot be read", position=Position(file, _mapped(line_map, line), column))


def parse(text: str, file: str, line_offset: int = 0, errors=None) -> nodes.Script:
    """(temporary: a Diagnostics sink is taken as well as a list)"""
    from .errors import Diagnostics
    if not isinstance(errors, Diagnostics):
        return _parse_list(text, file, line_offset, errors)
    found: list[DramaError] | None = [] if errors.collecting else None
    try:
        script = _parse_list(text, file, line_offset, found)
    except DramaError as error:
        errors.report(error)
        raise
    for error in found or ():
        errors.report(error)
    return script


def _parse_list(text: str, file: str, line_offset: int = 0, errors: list[DramaError] | None = None) -> nodes.Script:
    """Parse a script into a `nodes.Script`.

    `line_offset` is added to every line number (for a script inlined in a YAML
    file). A syntax error raises a DramaError (E001, or E002 for a line in the
    wrong place), unless `errors` is a list: then each bad line's error is
    appended to it, the line (with a joint action's indented lines) is skipped,
    and parsing goes on, up to MAX_ERRORS errors; the Script holds the
    statements that could be read.

    A statement written several times (play logs repeat many lines) is read
    once, and copied with its line numbers moved.
    """
    if not isinstance(text, str):
        raise TypeError("parse() needs the script as a str")
    source_lines = _normalise(text).split("\n")
    with _parse_lock:
        # the parse makes many small objects and no cycles: the cyclic garbage
        # collector would only slow it down
        collecting = gc.isenabled()
        gc.disable()
        builder = _BUILDER
        builder.file = file
        builder.offset = line_offset
        builder.source_lines = source_lines
        builder.control = False
        builder.soft = []
        try:
            try:
                script = _parse_grouped(source_lines, file, line_offset)
            except DramaError:
                if errors is None:
                    raise
                builder.control = False
                builder.soft = []
                script = _parse_plain(source_lines, file, line_offset, errors)
            if builder.soft:
                if errors is None:
                    raise builder.soft[0]
                errors.extend(builder.soft)
            if builder.control or errors is not None:
                script = nodes.Script(file, _nest(script.statements, errors))
            return script
        finally:
            builder.out = []
            builder.lines = []
            builder.source_lines = []
            if collecting:
                gc.enable()


# ------------------------------------------------------------------ blocks

_OPENERS = (nodes.If, nodes.Repeat)
_CONTROL = (nodes.If, nodes.ElseIf, nodes.Else, nodes.End, nodes.Repeat)


class _Open:
    """A block being read: its opening line, and its arms (an `if`) or body (a loop)."""

    def __init__(self, opener: nodes.Statement):
        self.opener = opener
        self.arms: list[list] = []          # [pos, condition, text, body]
        if isinstance(opener, nodes.If):
            self.arms.append([opener.pos, opener.condition, opener.text, []])
        self.body: list[nodes.Statement] = [] if isinstance(opener, nodes.Repeat) else self.arms[0][3]
        self.has_else = False

    def close(self, end: Position) -> nodes.Statement:
        opener = self.opener
        if isinstance(opener, nodes.Repeat):
            return nodes.Loop(opener.pos, opener.condition, opener.text, opener.bound, opener.unit,
                              tuple(self.body), end)
        return nodes.IfBlock(opener.pos, tuple(nodes.Arm(pos, cond, text, tuple(body))
                                               for pos, cond, text, body in self.arms), end)


def _nest(statements: Sequence[nodes.Statement], errors: list[DramaError] | None) -> tuple[nodes.Statement, ...]:
    """Nest the lines between `if`/`repeat` and their `end` into IfBlock and Loop
    statements. A stray `else` or `end`, or a block without its `end`, is E004:
    raised, or with `errors` a list recorded (the stray line is dropped, an
    unclosed block closed at the end of the file)."""
    root: list[nodes.Statement] = []
    stack: list[_Open] = []

    def fail(error: DramaError) -> None:
        if errors is None:
            raise error
        errors.append(error)

    for statement in statements:
        kind = type(statement)
        if kind in _OPENERS:
            stack.append(_Open(statement))
        elif kind is nodes.ElseIf or kind is nodes.Else:
            word = "else if" if kind is nodes.ElseIf else "else"
            top = stack[-1] if stack else None
            if top is None or not isinstance(top.opener, nodes.If):
                fail(DramaError("E004", f"`{word}` without an `if`", position=statement.pos,
                                expected="`if CONDITION` on an earlier line, and `end` after the block"))
            elif top.has_else:
                fail(DramaError("E004", f"`{word}` after the `else` of this `if`", position=statement.pos,
                                expected="`else` last, just before `end`",
                                notes=[f"the `else` is at line {top.arms[-1][0].line}"]))
            else:
                if kind is nodes.ElseIf:
                    top.arms.append([statement.pos, statement.condition, statement.text, []])
                else:
                    top.arms.append([statement.pos, None, "else", []])
                    top.has_else = True
                top.body = top.arms[-1][3]
        elif kind is nodes.End:
            if not stack:
                fail(DramaError("E004", "`end` without an `if` or `repeat`", position=statement.pos,
                                expected="`if` or `repeat` on an earlier line",
                                hint="a dramatic situation ends with `end drama`"))
                continue
            block = stack.pop().close(statement.pos)
            (stack[-1].body if stack else root).append(block)
        else:
            (stack[-1].body if stack else root).append(statement)
    while stack:
        top = stack.pop()
        word = "if" if isinstance(top.opener, nodes.If) else "repeat"
        fail(DramaError("E004", f"this `{word}` has no `end`", position=top.opener.pos,
                        expected="`end` on a line of its own after the block"))
        block = top.close(top.opener.pos)
        (stack[-1].body if stack else root).append(block)
    return tuple(root)


def _parse_plain(source_lines: list[str], file: str, line_offset: int,
                 errors: list[DramaError] | None) -> nodes.Script:
    """Parse every line as it is, recovering from errors when `errors` is a list."""
    _BUILDER.out = statements = []
    start = 0
    found = 0
    while True:
        text = "\n" + "\n".join(source_lines[start:]) + "\n"
        # Lark's line 1 is the "\n" put in front; its line k is the file's line start + k - 1
        shift = start - 1 + line_offset
        try:
            _read(text, range(shift, shift + text.count("\n") + 2))
            break
        except DramaError as error:
            if errors is None:
                raise
            errors.append(error)
            found += 1
            if found >= MAX_ERRORS or error.position is None:
                break
            start = _skip(source_lines, start, error, line_offset)
            if start is None:
                break
            # the statements from `start` on are read again
            while statements and statements[-1].pos.line - line_offset - 1 >= start:
                statements.pop()
    return nodes.Script(file, tuple(statements))


def _parse_grouped(source_lines: list[str], file: str, line_offset: int) -> nodes.Script:
    """Parse each distinct statement once: the fast way for long, repetitive play logs.

    A statement is its first line and the indented lines below it; its syntax
    tree depends on nothing else, so a statement written again later (the same
    text) is not read again: its tree is copied with the line numbers moved.
    The first error raised is the first of the file, as it is in the first
    statement with that text.
    """
    # the statements, as (first, end) line indexes, without trailing blank/comment lines
    groups = []
    first = None
    last_content = -1
    blank = _BLANK.match
    for index, line in enumerate(source_lines):
        if line and line[0] not in " \t#":  # the first line of a statement
            if first is not None:
                groups.append((first, last_content + 1))
            first = last_content = index
        elif line and blank(line) is None:  # an indented line
            if first is None:
                first = index  # before any statement: an error
            last_content = index
    if first is not None:
        groups.append((first, last_content + 1))

    known: dict[str, int] = {}
    unique: list[int] = []           # the first line index of each distinct statement
    placed: list[tuple[int, int]] = []  # (distinct statement, first line index) in file order
    parts: list[str] = []
    # Lark reads "\n" + the distinct statements + "\n": its line 1 is the "\n" in front
    line_map = [line_offset, line_offset]
    for first, end in groups:
        key = source_lines[first] if end == first + 1 else "\n".join(source_lines[first:end])
        number = known.get(key)
        if number is None:
            number = known[key] = len(unique)
            unique.append(first)
            parts.append(key)
            line_map.extend(range(first + 1 + line_offset, end + 1 + line_offset))
        placed.append((number, first))
    line_map.append(line_map[-1] + 1)

    builder = _BUILDER
    builder.out = read = []
    _read("\n" + "\n".join(parts) + "\n", line_map)
    if len(read) != len(unique):  # pragma: no cover - each group is one statement
        return _parse_plain(source_lines, file, line_offset, None)
    statements = []
    for number, first in placed:
        statement = read[number]
        moved = first - unique[number]
        statements.append(_moved(statement, moved) if moved else statement)
    return nodes.Script(file, tuple(statements))


# Moving a tree: the fields of each node class that hold positions (found from
# their annotations), and copies made the way copy.copy makes them (a new
# object given the old one's __dict__), twice as fast as calling the
# constructors; the nodes are frozen dataclasses without slots.
_NODE_CLASSES = [cls for cls in vars(nodes).values()
                 if isinstance(cls, type) and dataclasses.is_dataclass(cls) and cls.__module__ == nodes.__name__]
_POSITIONED = re.compile(r"\b(?:Position|%s)\b" % "|".join(cls.__name__ for cls in _NODE_CLASSES))
_MOVING = {
    cls: tuple(f.name for f in dataclasses.fields(cls)
               if not isinstance(f.type, str) or _POSITIONED.search(f.type))
    for cls in _NODE_CLASSES
}
_new = object.__new__
_Name = nodes.Name


def _moved_position(position: Position, lines: int) -> Position:
    copy = _new(Position)
    state = copy.__dict__
    state.update(position.__dict__)
    state["line"] += lines
    return copy


def _moved_name(name: nodes.Name, lines: int) -> nodes.Name:
    copy = _new(_Name)
    state = copy.__dict__
    state.update(name.__dict__)
    state["pos"] = _moved_position(name.pos, lines)
    return copy


def _moved(value, lines: int):
    """A copy of a syntax tree (or part of it) `lines` lines further down."""
    kind = type(value)
    if kind is tuple:
        if not value:
            return value
        return tuple([_moved_name(item, lines) if type(item) is _Name else _moved(item, lines) for item in value])
    if kind is _Name:
        return _moved_name(value, lines)
    if kind is Position:
        return _moved_position(value, lines)
    moving = _MOVING.get(kind)
    if moving is None or value is nodes.NO_DICE or value is NO_USES:
        return value  # str, int, None, Duration, or a node without positions
    copy = _new(kind)
    state = copy.__dict__
    state.update(value.__dict__)
    for name in moving:
        item = state[name]
        if item is None:
            continue
        kind = type(item)
        if kind is Position:
            state[name] = _moved_position(item, lines)
        elif kind is _Name:
            state[name] = _moved_name(item, lines)
        elif kind is not tuple or item:
            state[name] = _moved(item, lines)
    return copy


def _skip(lines: list[str], start: int, error: DramaError, line_offset: int) -> int | None:
    """Blank out the lines of a bad statement; the index to parse from next, or None.

    An indented line in the wrong place: its indented block is blanked and the
    statement above it is read again. Any other error: the statement's lines (its
    first line and the indented lines below it) are blanked.
    """
    bad = error.position.line - line_offset - 1
    if not start <= bad < len(lines):
        return None
    head = bad
    while head > start and not _is_top_level(lines[head]):
        head -= 1
    first = bad if error.message == _INDENTED_LINE else head
    changed = False
    i = first
    while i < len(lines) and (i == first or not _is_top_level(lines[i])):
        if lines[i]:
            lines[i] = _STAND_IN.get(lines[i].split(" ", 1)[0], "") if i == first else ""
            changed = True
        i += 1
    return head if changed else None


# a bad line that opens or continues a block is read again as a line that does the
# same, so that its `end` is not reported as well
_STAND_IN = {"if": "if in drama", "else": "else if in drama", "repeat": "repeat 1 times"}
