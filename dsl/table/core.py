"""The table: a scenario played live, entry by entry, on a `Session`, with its journal, exact undo and redo, and resuming.

    table = Table.start(program, "journal/2026-12-01-1.drama", seed=7)
    table.play_script(calls)          # the script's next statement, the table's calls asked
    table.play_text("Kara recovers with Sorcery, roll", calls)     # a statement typed at the table
    table.undo(); table.redo()
    Table.resume(program, "journal/2026-12-01-1.drama")           # after a crash

An *entry* is what the table accepts at once: one statement, or an action with
its defences, ties and split. Before an entry changes anything it is tried on
a fork of the session (`Session.fork`), with the dice the table gave and the
engine's dice rolled from the seeded source; the trial's events are written
back by the printer (`syntax.printer.record`) as the entry's lines, every die
given and every tie named; those lines are appended to the journal (fsynced)
and only then fed, parsed from the journal's own text, to the live session.
So the live events *are* the events of `drama run` on the journal, line
numbers included, and undo ("drop the last entry and replay") and resuming
("replay the journal") are exact by construction.

A `choose` block of the script is one entry: the block with the option taken
(`chose`, from the script or asked of the table with `ChoiceAsk`) and no
bodies; the walk then enters the taken option's body, played entry by entry.
The journal holds the block as `--record` writes it, so `drama run` of the
journal makes the same choice without asking.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from ..engine import SeededDice
from ..errors import DramaError, Position
from ..interpreter import fallen
from ..pipeline import Board, Program, Session
from ..syntax import nodes as n
from ..syntax.printer import actor_text, record
from . import journal as j
from . import anchors, printing
from .answers import Answers
from .asks import Calls, EngineCalls, OptionAsk
from .script_position import ScriptPosition
from .trials import Trials

# how the dice of entry N are seeded: each entry has its own stream, so a resumed session,
# or an entry undone and played again, rolls what it would have rolled
_STREAM = 1_000_003


@dataclass
class Entry:
    """One accepted entry: its journal text, its statements (placed in the journal), where it came from."""

    text: str
    marker: j.Marker
    statements: tuple[n.Statement, ...]
    events: list[dict] = field(default_factory=list)
    before: "_Mark | None" = None       # the table just before it was applied: what undo goes back to


@dataclass(frozen=True)
class _Mark:
    """The table at one moment between entries: the session's snapshot, the script's position, and
    what the journal's writer needs to go on from there. Undo goes back to the mark of the entry
    undone, at a cost that does not grow with the night."""

    session: object                 # pipeline.Snapshot
    walk: object                    # ScriptPosition.mark()
    once: frozenset
    lines: int
    declined: int
    printing: printing.Context


class Table:
    """A live session: the `Session`, the walk through the script, the journal, and the undone entries."""

    def __init__(self, program: Program, journal: j.Journal, header: str, *, seed: int = 0):
        self.program = program
        self.journal = journal
        self.header = header
        self.seed = seed
        self.entries: list[Entry] = []
        self.undone: list[Entry] = []       # for /redo, until a new entry is accepted
        self.declined = -1                   # the entry whose double-win option the table declined
        self.trials = Trials(self)           # entries tried on the live session, given back as it was
        self.answers = Answers(self)         # the table's answers put into an entry's statements
        self._reset()

    # ------------------------------------------------------------ opening

    @classmethod
    def start(cls, program: Program, path: str, *, seed: int = 0) -> "Table":
        """A new session with a new journal at `path` (E901 when it exists)."""
        import os
        if os.path.exists(path):
            raise DramaError("E901", f"the journal {path} exists already", position=Position(path, 1, 1),
                             hint="continue it with --resume, or name another with --journal")
        header = record(program.session().events, scenario=program.path) + j.header_line(seed)
        journal = j.Journal(path)
        j.write_atomically(path, header)
        return cls(program, journal, header, seed=seed)

    @classmethod
    def resume(cls, program: Program, path: str, *, seed: int | None = None) -> tuple["Table", DramaError | None]:
        """The session of a journal, replayed: its state and the script's position, and the seed of its
        header (`seed` only for a journal whose header has none). A torn tail is dropped: the journal as it was is
        kept in `PATH.N.bak`, then rewritten without it, and the tail returned as a warning (W030)."""
        from ..collector import paused_collector
        contents = j.read(path)
        table = cls(program, j.Journal(path), contents.header,
                    seed=contents.seed if contents.seed is not None else seed or 0)
        with paused_collector():         # the replay makes many objects that live, and no cycles
            read = _entries_read(program, path, contents)
            for raw, statements in zip(contents.entries, read):
                if statements is None:   # the whole journal could not be read at once: this entry alone
                    statements = program.read(raw.text, path, raw.first_line) if raw.text.strip() else ()
                entry = Entry(raw.text, raw.marker, tuple(statements))
                try:
                    table._apply(entry, replaying=True)
                except DramaError as error:
                    if error.code == "E904":
                        error.at(Position(path, raw.first_line + raw.text.count("\n") + 1, 1))
                    error.notes.append(f"replaying entry {len(table.entries) + 1} of the journal {path}")
                    raise
        warning = None
        if contents.torn:
            # an entry begins with the blank line that parts it from the one before: name its first words
            lines = contents.torn.splitlines()
            blank = next(index for index, line in enumerate(lines) if line.strip())
            kept = j.backup(path)
            warning = DramaError("W030", f"the journal ended in a torn entry (a write cut short); it was dropped: "
                                 f"{lines[blank][:60]!r}", position=Position(path, contents.torn_line + blank, 1),
                                 hint=f"nothing before it was touched, and the journal as it was is in {kept}; "
                                      f"play that statement again")
            warning.source = contents.kept + contents.torn      # the journal as it was, for the caret line
            table.journal.rewrite(contents.kept)
        elif contents.blank_tail:        # blank space after the last entry: the next would start on the wrong line
            table.journal.rewrite(contents.kept)
        return table, warning

    # ------------------------------------------------------------ reading the state

    @property
    def session(self) -> Session:
        return self._session

    @property
    def events(self) -> list[dict]:
        return self._session.events

    def board(self) -> Board:
        return self._session.board()

    def values(self) -> dict[str, bool | int]:
        """The run's flags and counters now, by name, in the order they were first set."""
        return dict(self._session.interpreter.state.values)

    def text(self, count: int | None = None) -> str:
        """The journal's text for the entries accepted now (or for the first `count` of them)."""
        entries = self.entries if count is None else self.entries[:count]
        return self.header + "".join(e.text + e.marker.text(i + 1) + "\n" for i, e in enumerate(entries))

    def next_statement(self) -> n.Statement | None:
        """The statement the script plays next (None at its end)."""
        return self._walk.peek(self._session.holds)

    def next_group(self) -> list[n.Statement]:
        self.next_statement()
        return self._walk.group()

    def skippable(self) -> list[str]:
        """The defeated parties the next statement is for, when the interpreter would skip it (R7)."""
        group = self.next_group()
        if not group or self._walk.depth == 0 or self._session.interpreter.game.drama is None:
            return []
        first = group[0]
        if not isinstance(first, fallen.MAY_SKIP):
            return []
        return list(fallen.without_defeated(first, self._session.interpreter.game, self.party).skipped_for)

    def open_option(self) -> OptionAsk | None:
        """The double win the last entry opened, when the table still has to say what it takes (R8)."""
        if not self.entries or self.declined == len(self.entries):
            return None
        if not any(e.get("type") == "exchange" for e in self.entries[-1].events):
            return None
        options = self._session.interpreter.game.open_options
        if not options:
            return None
        statement = self.next_statement()
        names = self._session.interpreter.names
        if isinstance(statement, (n.Dictate, n.Reroll)) and \
                any(names.party(statement.party) in o.parties for o in options):
            return None                       # the script takes it
        return OptionAsk(tuple(options[0].parties))

    # ------------------------------------------------------------ playing

    def play_script(self, calls: Calls = EngineCalls()) -> Entry | None:
        """Play the script's next statement (an action with what answers it), asking `calls`."""
        group = self.next_group()
        if not group:
            return None
        if isinstance(group[0], n.ChoiceBlock):       # the block alone: the walk plays the option's body
            block = group[0]
            bare = replace(block, options=tuple(replace(o, body=()) for o in block.options))
            return self._accept([bare], j.Marker("script", block.pos.line, 1), calls)
        return self._accept(self._standing(group), j.Marker("script", group[0].pos.line, len(group)), calls)

    def _standing(self, group: list[n.Statement]) -> list[n.Statement]:
        """Inside `if` and `repeat`, the lines as the interpreter runs them when some of their parties
        are defeated (R7): a joint side goes on without its defeated members, a defence of defeated
        parties is left out: the interpreter's own rule (`fallen.standing`)."""
        game = self._session.interpreter.game
        if self._walk.depth == 0 or game.drama is None:
            return group
        return fallen.standing(group, game, self.party)

    def skip(self, note: str = "") -> Entry | None:
        """Pass over the script's next statement (an action with its defences) without playing it."""
        group = self.next_group()
        if not group:
            return None
        entry = Entry("", j.Marker("skip", group[0].pos.line, len(group), note), ())
        self._commit(entry)
        return entry

    def play_text(self, text: str, calls: Calls = EngineCalls()) -> Entry:
        """Play a piece of script typed at the table (free play)."""
        statements = self.program.read(text, "<table>")
        blocks = [s for s in statements if isinstance(s, (n.IfBlock, n.Loop))]
        if blocks:
            raise DramaError("E002", "`if` and `repeat` cannot be typed at the table", position=blocks[0].pos,
                             expected="one statement of the language, or an action with its defences")
        return self._accept(list(statements), j.Marker("free"), calls)

    def take_option(self, answer, calls: Calls = EngineCalls()) -> Entry | None:
        """The table's answer to `open_option`: ("dictate", text), ("reroll", None) or None (declined)."""
        ask = self.open_option()
        if ask is None:
            return None
        if answer is None:
            self.declined = len(self.entries)
            return None
        from ..syntax.printer import quoted
        party = actor_text(ask.parties[0])
        kind, text = answer
        line = f"{party} dictates {quoted(text or '')}" if kind == "dictate" else f"{party} rerolls, roll"
        return self._accept(list(self.program.read(line, "<table>")), j.Marker("free"), calls)

    def undo(self) -> Entry | None:
        """Drop the last entry: the journal is cut where it began (`Journal.take_back`), and the table
        goes back to where it was before the entry (its mark: no replay)."""
        if not self.entries:
            return None
        entry = self.entries[-1]
        self.journal.take_back(entry.text + entry.marker.text(len(self.entries)) + "\n",
                               lambda: self.text(len(self.entries) - 1))
        self.entries.pop()
        self.undone.append(entry)
        self._rewind(entry.before)
        return entry

    def redo(self) -> Entry | None:
        """Play the last undone entry again, as it was."""
        if not self.undone:
            return None
        entry = self.undone.pop()
        undone = self.undone
        self._commit(Entry(entry.text, entry.marker, entry.statements))
        self.undone = undone
        return self.entries[-1]

    # ------------------------------------------------------------ keeping it exact

    def _reset(self) -> None:
        self._session = self.program.session()
        self._walk = ScriptPosition(self.program.script)
        self._walk.peek(self._session.holds)
        self._lines = self.header.count("\n")
        self.declined = -1
        # the script's `once` options taken so far, as the interpreter keys them (the journal's
        # copy of a block has no `once`: it names the option taken)
        self.once_taken: set[tuple[str, int]] = set()
        self._printing = printing.Context()     # what the printer needs for the next entry's lines

    def _mark(self) -> _Mark:
        return _Mark(self._session.snapshot(), self._walk.mark(), frozenset(self.once_taken), self._lines,
                     self.declined, self._printing)

    def _rewind(self, mark: _Mark) -> None:
        self._session.restore(mark.session)
        self._walk.rewind(mark.walk)
        self.once_taken = set(mark.once)
        self._lines = mark.lines
        self.declined = mark.declined
        self._printing = mark.printing

    def _apply(self, entry: Entry, replaying: bool = False) -> None:
        """Feed an entry to the live session and move the walk, as when it was accepted (`replaying`
        a journal: checking that the script still has the entry's statement there, E904)."""
        session = self._session
        entry.before = self._mark()
        mark = len(session.events)
        for statement in entry.statements:
            session.feed(statement)
        session.resolve()
        entry.events = session.events[mark:]
        marker = entry.marker
        if marker.kind in ("script", "skip"):
            statement = self._walk.peek(session.holds)
            if replaying:
                standing = self._standing([statement]) if statement is not None else []
                anchors.check(entry, len(self.entries) + 1, statement, standing, len(self._walk.group()), self.party)
            if marker.kind == "script" and isinstance(statement, n.ChoiceBlock):
                self._enter(statement, entry)
            else:
                self._walk.advance(marker.count)
        self.entries.append(entry)
        self._printing = self._printing.after(entry.events)
        self._lines += (entry.text + marker.text(len(self.entries)) + "\n").count("\n")
        self._walk.peek(session.holds)

    def _enter(self, block: n.ChoiceBlock, entry: Entry) -> None:
        """Into the body of the option the entry took at the script's `choose` block."""
        taken = next(e["taken"] for e in entry.events if e.get("type") == "choice")
        option = next(o for o in block.options if o.label.text == taken)
        if option.once:
            self.once_taken.add((option.pos.file, option.pos.line))
        self._walk.enter(option.body)

    def _commit(self, entry: Entry) -> None:
        """Write an entry to the journal (whole, fsynced), then apply it."""
        self.journal.append(entry.text + entry.marker.text(len(self.entries) + 1) + "\n")
        self._apply(entry)
        self.undone = []

    def _accept(self, statements: list[n.Statement], marker: j.Marker, calls: Calls) -> Entry:
        """Complete the statements with the table's calls, try them, write them, play them."""
        dice = SeededDice(self.seed * _STREAM + len(self.entries) + 1)
        self.trials.precheck(statements, dice.seed)
        statements = self.answers.complete(statements, calls, dice)
        trial = self.trials.trial(statements, dice)
        split = self.answers.split(trial, statements, calls)
        if split is not None:
            statements = [*statements, split]
            trial = self.trials.trial(statements, dice)
        try:
            text = self._printing.lines(self._session.events[:1], trial.events)
        except DramaError as error:      # E013: placed at the entry's first statement
            error.position = statements[0].pos
            raise
        expects = [s for s in statements if isinstance(s, n.Expect)]
        if expects:                      # an expectation makes no event: the journal keeps its line, so
            text += ("" if text.strip() else "\n") + "".join(f"expect {s.text}\n" for s in expects)   # `drama run` checks it
        printing.fits(text, statements[0])
        placed = self.program.read(text, self.journal.path, self._lines) if text.strip() else ()
        entry = Entry(text, marker, tuple(placed))
        self._commit(entry)
        return entry

    # ------------------------------------------------------------ small helpers

    @property
    def sides(self) -> int:
        """How many sides the setting's dice have."""
        return self.program.scenario.setting.sides

    def party(self, name: n.Name) -> str:
        """The party id a name (an id or a role) stands for (E201 when none)."""
        return self._session.interpreter.names.party(name)


def _entries_read(program: Program, path: str, contents: j.Contents) -> list:
    """The statements of each entry of a journal, from one read of all of them (as `drama run` reads it:
    each line repeated through the night parsed once); a list of None when the whole cannot be read at
    once, so that each entry is read alone and an error is placed in its entry."""
    import bisect
    entries = contents.entries
    if not entries:
        return []
    body = contents.kept[len(contents.header):]
    try:
        statements = program.read(body, path, contents.header.count("\n"))
    except DramaError:
        return [None] * len(entries)
    starts = [raw.first_line for raw in entries]
    out: list[list[n.Statement]] = [[] for _ in entries]
    for statement in statements:
        out[bisect.bisect_left(starts, statement.pos.line) - 1].append(statement)
    return out
