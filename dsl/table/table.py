"""The table at the terminal: the loop of `drama play`, statement after statement, free play, completion, and the table commands' answers.

The script drives: each of its statements is shown, and played when the game
master presses Enter; where it rolls, the prompt says how many dice may be
rolled and why, and takes the dice as rolled at the table (Enter: the engine
rolls them, from the seeded source). A tie under the vote, a double win's
option, a joint side's split and a `choose` block's option (by number or label;
the unavailable ones are shown greyed, with why, and never taken) are asked for the same way: these prompts
(`dsl/table/prompts.py`) answer the `Calls` of `dsl/table/asks.py`. At any prompt the game master may type a
statement of the language instead (free play), or a table command:

    /undo /redo /board /odds ACTION [| DEFENCE ...] /state PARTY /skip /help /save /quit

Ctrl-C asks whether to quit, Ctrl-D quits: the journal is already safe.
"""

from __future__ import annotations

import linecache
import os
import sys
from typing import Callable

from ..collector import settle
from ..engine.checks import plural
from ..errors import DramaError, one_of
from ..messages import shown
from ..syntax import nodes as n
from . import board as boards
from . import commands
from .asks import Typed
from .commands import Quit, dispatch
from .core import Table
from .prompts import Prompts
from .screen import Lines


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
        # the answers: the screen's own prompt, or `read` over it (`Front`: the screen shared with the pages)
        self.read = read if screen is not None and read is not None else self.screen.read
        self.prompts = Prompts(self)         # the table's calls, asked of the game master
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

    def __call__(self, ask):
        """The table's calls, asked of the game master (`dsl/table/prompts.py`)."""
        return self.prompts(ask)

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
        settle()                    # the night so far out of the cyclic collector's walks (dsl/collector.py)

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
                self.table.trials.declare(list(statements))
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
                    self.table.trials.declare([s for s in added if not isinstance(s, (n.Tie, n.Split))])
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
