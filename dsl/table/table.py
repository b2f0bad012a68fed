"""The table at the terminal: the loop of `drama play`, its prompts, completion and history, and the table commands.

The script drives: each of its statements is shown, and played when the game
master presses Enter; where it rolls, the prompt says how many dice may be
rolled and why, and takes the dice as rolled at the table (Enter: the engine
rolls them, from the seeded source). A tie under the vote, a double win's
option, a joint side's split and a `choose` block's option (by number or label;
the unavailable ones are shown greyed, with why, and never taken) are asked for the same way: these prompts are
the `Calls` of `dsl/table/calls.py`. At any prompt the game master may type a
statement of the language instead (free play), or a table command:

    /undo /redo /board /odds ACTION [| DEFENCE ...] /state PARTY /skip /help /save /quit

Ctrl-C asks whether to quit, Ctrl-D quits: the journal is already safe.
"""

from __future__ import annotations

import linecache
import os
import re
import sys
from typing import Callable

from ..engine.checks import plural
from ..errors import DramaError, did_you_mean, one_of
from ..messages import shown
from ..syntax import nodes as n
from . import board as boards
from .calls import ChoiceAsk, DiceAsk, InitiativeAsk, OptionAsk, SplitAsk, TieAsk, Typed
from ..syntax.printer import actor_text
from . import commands
from .commands import Quit, dispatch, looks
from .core import Table
from .screen import Lines

REROLLING = re.compile(r"^\s*\d+(?:[\s,]+\d+)*\s*,?\s*(?:re-?rolling|rerolled)\b")
DICE = re.compile(r"^\s*\d+(?:[\s,]+\d+)*\s*$")


def completion_words(table: Table, line: str) -> list[str]:
    """What may complete the last word of `line`: table commands, keywords, party ids and roles,
    the acting party's traits, treasures and moves, and the dice forms."""
    from ..syntax.vocabulary import KEYWORDS
    if line.startswith("/"):
        return commands.names()
    names = table.session.interpreter.names
    words = line.split()
    words_out = [*names.sheets, *names.roles]
    if words:
        first = words[0]
        try:
            pid = names.party(n.Name(first, None))
        except DramaError:
            pid = None
        if pid is not None:
            words_out += names.words_of(pid)
    words_out += sorted(KEYWORDS) + ["roll", "rolled", "GM +1", "GM -1"]
    return list(dict.fromkeys(words_out))


# ---------------------------------------------------------------------------- the loop

class TableLoop:
    """`drama play` at the terminal."""

    def __init__(self, table: Table, read: Callable[[str], str] | None = None, *, out=None, color: bool | None = None,
                 on_change: Callable[[Table], None] | None = None, title: str = "", scenario_file: str = "",
                 scenario: str = "SCENARIO", screen=None):
        self.table = table
        # where the loop says things and reads its answers: line after line, or in full screen (`dsl/table/screen.py`)
        self.screen = screen or Lines(read, out, color=color)
        self.read = self.screen.read
        self.color = color
        self.on_change = on_change or (lambda table: None)
        self.title = title
        self.scenario_file = scenario_file
        self.scenario = scenario
        self.refused = False                 # the script's next statement was refused by the rules
        self.exchange: tuple[str, list[str]] | None = None    # the action being played and its defences, for /odds

    # ------------------------------------------------------------ output

    def say(self, text: str = "", dim: bool = False) -> None:
        """A line of the story (its control characters shown as symbols, `dsl.terminal.printable`)."""
        self.screen.say(text, dim)

    def show_board(self) -> None:
        self.screen.board(boards.render(self.table.board(), color=self.color, title=self.title,
                                        values=self.table.values()))

    def show_error(self, error: DramaError, source: str | None = None) -> None:
        self.say(shown(error, source if error.position is not None and error.position.file == "<table>" else None))

    # ------------------------------------------------------------ the calls

    def ask(self, prompt: str) -> str:
        """A line for a call. A table command that only looks (/board, /state, /odds, /help, /save)
        is answered in place and the call asked again; one that changes the table stops the entry
        (`Typed`), as a statement typed instead of an answer does."""
        while True:
            line = self.read(prompt).strip()
            if not line.startswith("/"):
                return line
            if not looks(line):
                raise Typed(line)
            self.command(line[1:])

    def not_an_answer(self, line: str, what: str) -> None:
        """A line that is no answer: a statement of the language stops the entry (free play), else say what is asked."""
        try:
            self.table.program.read(line, "<table>")
        except DramaError:
            self.say(f"  {what}")
            return
        raise Typed(line)

    def __call__(self, ask):
        """The table's calls, asked of the game master (see `dsl/table/calls.py`)."""
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
                    self.table.program.read(f"{actor_text(ask.party)} recovers, rolled {line}", "<dice>")
                except DramaError as error:
                    self.show_error(error)
                    continue
                return line
            if faces is None:
                self.not_an_answer(line, f"dice are faces from 1 to {ask.sides}, e.g. `6 4 1`"
                                   + (", or `6 5 2, rerolling 2 to 4`" if ask.recovery else ""))
                continue
            bad = [f for f in faces if not 1 <= f <= ask.sides]
            if bad:
                self.say(f"  a d{ask.sides} has no face {bad[0]}: faces from 1 to {ask.sides}")
                continue
            if ask.exactly is not None and len(faces) != ask.exactly:
                self.say(f"  {ask.party} rolls {plural(ask.exactly, 'die', 'dice')} here, not {len(faces)}")
                continue
            if ask.most is not None and len(faces) > ask.most:
                self.say(f"  {ask.party} may roll at most {ask.most}, not {len(faces)} (R3)")
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
                self.say(f"  the shares add up to {sum(shares.values())}, not {ask.amount} (R10)")
                continue
            return shares

    def _option(self, ask: OptionAsk):
        who = " & ".join(ask.parties)
        while True:
            line = self.read(f"{who} won double: `reroll`, `dictate TEXT`, or Enter for none> ").strip()
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
        self.say(f"  the choice {question.choice!r}:")
        number = 0
        for option in question.options:
            if option.available:
                number += 1
                self.say(f"    {number}. {option.label}")
            else:
                self.say(f"    -  {option.label} (not available: {option.why})", dim=True)
        while True:
            numbers = f"1-{len(available)}" if len(available) > 1 else "1"
            line = self.ask(f"which option? {numbers} or its label> ")
            if not line:
                self.say(f"  a number from 1 to {len(available)}, or one of {one_of(available)}")
                continue
            if line.isdigit() and 1 <= int(line) <= len(available):
                return available[int(line) - 1]
            found = next((label for label in available if label.lower() == line.strip('"').lower()), None)
            if found is not None:
                return found
            closed = next((o for o in question.options if not o.available
                           and o.label.lower() == line.strip('"').lower()), None)
            if closed is not None:
                self.say(f"  '{closed.label}' is not available: {closed.why}")
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

    # ------------------------------------------------------------ the loop

    def run(self) -> None:
        """The night: the screen shown, the loop played until the game master quits, then where the journal is
        (on the terminal's normal screen, after a full screen has gone)."""
        full = not isinstance(self.screen, Lines)
        getattr(self.screen, "run", lambda play: play())(self.play)
        if full:
            self.screen = Lines(self.read, sys.stdout, color=self.color)
            self.show_board()
        self.goodbye()

    def play(self) -> None:
        """The loop: one prompt after another, until /quit, Ctrl-D, or Ctrl-C and yes."""
        self.show_board()
        while True:
            try:
                self.turn()
            except Quit:
                break
            except EOFError:
                self.say()
                break
            except KeyboardInterrupt:
                self.say()
                try:
                    answer = self.read("quit? the journal is safe (y/N)> ").strip().lower()
                except (EOFError, KeyboardInterrupt):
                    answer = "y"
                if answer in ("y", "yes"):
                    break

    def turn(self) -> None:
        """One prompt: the script's next statement, an option, or free play at the script's end."""
        table = self.table
        try:
            option = table.open_option()
            if option is not None:
                answer = self(option)
                if answer is None:
                    table.take_option(None)
                    self.say("  no option taken")
                    return
                self.accepted(table.take_option(answer, self))
                return
            down = table.skippable()
            if down:
                entry = table.skip(f"{one_of(down)} {'is' if len(down) == 1 else 'are'} defeated")
                self.say(f"  skipped line {entry.marker.line}: {entry.marker.note}")
                self.on_change(table)
                return
            group = table.next_group()
            if not group:
                line = self.read("the script has ended: type a statement, or /quit> ").strip()
                self.typed(line)
                return
            self.say(self.shown(group))
            self.exchange = _exchange_of([_source(s) for s in group], group)
            if self.refused or not _asks(group):
                line = self.read("Enter tries it again, /skip passes over it> " if self.refused
                                 else "Enter plays it> ").strip()
                if line:
                    self.typed(line)
                    return
            self.refused = False
            self.accepted(table.play_script(self))
        except Typed as typed:
            self.typed(typed.text)
        except DramaError as error:
            self.show_error(error)
            self.refused = True             # the script's statement is not tried again unasked

    def shown(self, group: list[n.Statement]) -> str:
        lines = []
        for statement in group:
            text = linecache.getline(statement.pos.file, statement.pos.line).rstrip()
            lines.append(f"  {os.path.basename(statement.pos.file)}:{statement.pos.line}  {text.strip()}")
            for part in getattr(statement, "participants", ()) or ():
                more = linecache.getline(part.pos.file, part.pos.line).rstrip()
                lines.append(f"  {os.path.basename(part.pos.file)}:{part.pos.line}    {more.strip()}")
        return "\n".join(lines)

    def accepted(self, entry) -> None:
        self.exchange = None
        if entry is None:
            return
        self.refused = False
        for line in entry.text.strip("\n").splitlines():
            self.say(f"  + {line}")
        self.show_board()
        self.on_change(self.table)

    def typed(self, line: str) -> None:
        """A table command, or a statement of the language (free play)."""
        if not line:
            return
        if line.startswith("/"):
            self.command(line[1:])
            return
        text = line
        try:
            statements = self.table.program.read(text, "<table>")
        except DramaError as error:
            self.show_error(error, text)
            return
        if statements and isinstance(statements[-1], n.Action):
            try:                       # what is refused is told now, before the defences are typed
                self.table.declare(list(statements))
            except DramaError as error:
                self.show_error(error, text)
                return
            while True:               # the defences, ties and split of a typed action, each checked as typed
                more = self.read("  ... a defence, `tie`, `split` (Enter: done)> ")
                if not more.strip():
                    break
                if more.strip().startswith("/"):       # a table command: the action is not played
                    self.say("  (the action was not played)")
                    self.command(more.strip()[1:])
                    return
                try:
                    added = self.table.program.read(text + "\n" + more, "<table>")
                    if not isinstance(added[-1], (n.Defence, n.Tie, n.Split)):
                        raise DramaError("E002", "a line that does not answer the action",
                                         position=added[-1].pos,
                                         expected="a defence (`PARTY defends with ...`), `tie PARTY` or "
                                                  "`split PARTY N, ...`; Enter when done")
                    self.table.declare([s for s in added if not isinstance(s, (n.Tie, n.Split))])
                except DramaError as error:
                    self.show_error(error, text + "\n" + more)
                    self.say("  (that line was not taken: type it again, or Enter when done)")
                    continue
                text += "\n" + more
        typed_statements = self.table.program.read(text, "<table>")
        lines = text.split("\n")
        self.exchange = _exchange_of(["\n".join(lines[s.pos.line - 1:]) if i == len(typed_statements) - 1 else
                                      "\n".join(lines[s.pos.line - 1:typed_statements[i + 1].pos.line - 1])
                                      for i, s in enumerate(typed_statements)], list(typed_statements))
        try:
            self.accepted(self.table.play_text(text, self))
        except Typed as again:
            self.say("  (not played)")
            self.typed(again.text)
        except DramaError as error:
            self.show_error(error, text)

    # ------------------------------------------------------------ commands

    def command(self, line: str) -> None:
        """A table command (the line without its `/`): see `dsl/table/commands.py`."""
        dispatch(self, line)

    def take_back(self, which: str) -> None:
        """`/undo` or `/redo`."""
        table = self.table
        entry = table.undo() if which == "undo" else table.redo()
        if entry is None:
            self.say(f"  nothing to {which}")
            return
        first = entry.text.strip("\n").splitlines()
        what = first[0] if first else entry.marker.text(len(table.entries) + (1 if which == "undo" else 0))
        self.say(f"  {'undone' if which == 'undo' else 'redone'}: {what}")
        self.show_board()
        self.on_change(table)

    def state(self, name: str) -> None:
        """`/state PARTY`: one party's sheet and state; `/state` alone: every party, and the flags and counters."""
        names = self.table.session.interpreter.names
        if not name:
            for pid in names.sheets:
                self._party_state(pid, short=True)
            values = self.table.values()
            self.say("  " + (boards.values_line(values) if values else "flags: none set"))
            return
        try:
            pid = names.party(n.Name(name, None))
        except DramaError as error:
            self.say(f"  {error.message}" + (f" ({error.hint})" if error.hint else ""))
            return
        self._party_state(pid)

    def _party_state(self, pid: str, short: bool = False) -> None:
        sheet = self.table.session.interpreter.names.sheets[pid]
        party = self.table.board().party(pid)
        self.say(f"  {pid} ({sheet.name}): {party.available} available, damage pool {party.damage_pool}, "
                 f"maximum {party.maximum}" + (", defeated" if party.defeated else ""))
        if short:
            return
        if sheet.traits:
            self.say("  traits: " + ", ".join(f"{k} {v}" for k, v in sheet.traits.items()))
        if sheet.treasures:
            self.say("  treasures: " + ", ".join(f"{k} {v}" for k, v in sheet.treasures.items()))
        if sheet.moves:
            self.say("  moves: " + ", ".join(f"{k}: {' + '.join(x for x in (m.trait, m.treasure) if x)}"
                                              for k, m in sheet.moves.items()))

    def odds(self, text: str) -> None:
        from .. import odds as exact
        if not text and self.exchange is not None:      # the exchange being rolled now
            action, defences = self.exchange
        elif not text:
            self.say("  /odds ACTION [| DEFENCE ...], e.g. /odds Kara strike -> wolves, roll | wolves defend, roll"
                     " (alone, at a dice prompt: the exchange being rolled)")
            return
        else:
            action, *defences = [part.strip() for part in text.split(" | ")]
        board = self.table.board()
        state = {p.id: p.available for p in board.parties}
        try:
            result = exact.odds(self.table.program.scenario, action, defences, state=state)
        except DramaError as error:
            errors = getattr(error, "errors", [error])
            sources = {exact.ACTION_FILE: action}
            sources.update({exact.defence_file(i): t for i, t in enumerate(defences)})
            for one in errors:
                self.say(shown(one, sources.get(one.position.file) if one.position else None))
            return
        self.say(exact.FORMATS["text"](result).rstrip("\n"))

    def goodbye(self) -> None:
        table = self.table
        self.say(f"journal: {table.journal.path} ({plural(len(table.entries), 'entry', 'entries')}, all saved)")
        if self.scenario_file:
            self.say(f"  the log:        drama run {self.scenario_file}")
            self.say(f"  the transcript: drama run {self.scenario_file} --as transcript")
            self.say(f"  go on:          drama play {self.scenario} --resume --journal {table.journal.path}")


def _source(statement: n.Statement) -> str:
    """A statement of the script as written: its line, and its participants' lines."""
    lines = [linecache.getline(statement.pos.file, statement.pos.line).rstrip()]
    for part in getattr(statement, "participants", ()) or ():
        lines.append(linecache.getline(part.pos.file, part.pos.line).rstrip())
    return "\n".join(lines)


def _exchange_of(texts: list[str], statements: list[n.Statement]) -> tuple[str, list[str]] | None:
    """The action and defence texts of an exchange about to be played (None: it is no exchange)."""
    if not statements or not isinstance(statements[0], n.Action):
        return None
    return texts[0].strip(), [t.strip() for t, s in zip(texts, statements) if isinstance(s, n.Defence)]


def _numbers(line: str) -> list[int] | None:
    if not DICE.match(line):
        return None
    return [int(x) for x in re.split(r"[\s,]+", line.strip())]


def _even(amount: int, parts: int) -> list[int]:
    return [amount // parts + (1 if i < amount % parts else 0) for i in range(parts)]


def _asks(group: list[n.Statement]) -> bool:
    """Whether playing the statement asks the table for something (its prompts are then the prompt)."""
    for statement in group:
        for part in [statement, *(getattr(statement, "participants", ()) or ())]:
            dice = getattr(part, "dice", None)
            if isinstance(statement, (n.Action, n.Defence)) and dice is not None and dice.kind == "roll":
                return True
        if isinstance(statement, n.Recover) and statement.first.kind != "given":
            return True
        if isinstance(statement, n.Reroll) and statement.dice.kind != "given":
            return True
        if isinstance(statement, n.Initiative) and not any(e.results for e in statement.entries):
            return True
        if isinstance(statement, n.ChoiceBlock) and statement.given is None:
            return True
    return False
