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

from contextlib import contextmanager
from dataclasses import dataclass, field, replace

from ..engine import SeededDice
from ..engine.checks import plural
from ..errors import DramaError, Position
from ..interpreter import fallen
from ..pipeline import Board, Program, Session
from ..syntax import nodes as n
from ..syntax.printer import actor_text, record
from . import journal as j
from .calls import Calls, ChoiceAsk, DiceAsk, EngineCalls, InitiativeAsk, OptionAsk, SplitAsk, TieAsk
from .walk import Walk

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
    walk: object                    # Walk.mark()
    once: frozenset
    lines: int
    declined: int
    context: tuple[dict, ...]
    drama: dict | None


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
        contents = j.read(path)
        table = cls(program, j.Journal(path), contents.header,
                    seed=contents.seed if contents.seed is not None else seed or 0)
        for raw in contents.entries:
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

    def final_events(self) -> list[dict]:
        """The events so far, closed with the `final` event: what `drama run` of the journal gives."""
        trial = self._session.fork()
        trial.finish()
        return trial.events

    def text(self) -> str:
        """The journal's text for the entries accepted now."""
        return self.header + "".join(e.text + e.marker.text(i + 1) + "\n" for i, e in enumerate(self.entries))

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
        return list(fallen.without_defeated(first, self._session.interpreter.game, self._party).skipped_for)

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

    def question(self, block: n.ChoiceBlock):
        """The interpreter's question for a `choose` block of the script now (each option, available
        or not and why), asked on a fork that is then dropped; None when the run answers it itself
        (`--choose`). E331 when no option is available."""
        asked = []

        def capture(question):
            asked.append(question)
            raise _Asked

        with self._trying() as trial:
            interpreter = trial.interpreter
            own, interpreter.ask = interpreter.ask, capture
            try:
                trial.feed(replace(block, given=None, options=tuple(replace(o, body=()) for o in block.options)))
            except _Asked:
                pass
            finally:
                interpreter.ask = own
        return asked[0] if asked else None

    def _standing(self, group: list[n.Statement]) -> list[n.Statement]:
        """Inside `if` and `repeat`, the lines as the interpreter runs them when some of their parties
        are defeated (R7): a joint side goes on without its defeated members, a defence of defeated
        parties is left out: the interpreter's own rule (`fallen.standing`)."""
        game = self._session.interpreter.game
        if self._walk.depth == 0 or game.drama is None:
            return group
        return fallen.standing(group, game, self._party)

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
        """Drop the last entry: the journal is rewritten atomically, and the table goes back to
        where it was before the entry (its mark: no replay)."""
        if not self.entries:
            return None
        entry = self.entries.pop()
        self.journal.rewrite(self.text())
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
        self._walk = Walk(self.program.script)
        self._walk.peek(self._session.holds)
        self._lines = self.header.count("\n")
        self.declined = -1
        # the script's `once` options taken so far, as the interpreter keys them (the journal's
        # copy of a block has no `once`: it names the option taken)
        self._once: set[tuple[str, int]] = set()
        # what the printer needs to write the next entry as `record` writes the whole journal: the
        # `start` event, the running situation's `drama` event, and the last entry that wrote a line
        self._context: tuple[dict, ...] = ()
        self._drama: dict | None = None

    def _mark(self) -> _Mark:
        return _Mark(self._session.snapshot(), self._walk.mark(), frozenset(self._once), self._lines,
                     self.declined, self._context, self._drama)

    def _rewind(self, mark: _Mark) -> None:
        self._session.restore(mark.session)
        self._walk.rewind(mark.walk)
        self._once = set(mark.once)
        self._lines = mark.lines
        self.declined = mark.declined
        self._context = mark.context
        self._drama = mark.drama

    def _text_of(self, events: list[dict]) -> str:
        """The journal's lines for the events of an entry, as `record` of the whole journal writes
        them, from the short context of the entries before (never the whole night)."""
        start = self._session.events[:1]
        context = [*start, *([self._drama] if self._drama is not None and self._drama not in self._context else []),
                   *self._context]
        head = record(context)
        try:
            whole = record(context + list(events))
        except ValueError:               # the printer's own check: a line the reader would refuse (E013)
            raise _too_long(events[0] if events else None) from None
        assert whole.startswith(head), "the printer wrote the context differently"
        return whole[len(head):]

    def _after(self, events: list[dict]) -> None:
        """Keep the context of the next entry's lines up to date with an entry's events."""
        for event in events:
            kind = event.get("type")
            if kind == "drama":
                self._drama = event
            elif kind == "drama_end":
                self._drama = None
        if record(events[:0]) != record(events):          # the entry wrote a line
            self._context = tuple(events)

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
                self._anchor(entry, statement)
            if marker.kind == "script" and isinstance(statement, n.ChoiceBlock):
                self._enter(statement, entry)
            else:
                self._walk.advance(marker.count)
        self.entries.append(entry)
        self._after(entry.events)
        self._lines += (entry.text + marker.text(len(self.entries)) + "\n").count("\n")
        self._walk.peek(session.holds)

    def _anchor(self, entry: Entry, statement: n.Statement | None) -> None:
        """Check that an entry of the journal that came from the script is the statement the script
        has at this point now: anchored by what it is (its kind, parties and intent), not by its line,
        so that a script edited above, below or beside the part played still resumes (E904)."""
        marker = entry.marker
        number = len(self.entries) + 1
        first = (entry.text.strip("\n").splitlines() or [""])[0]
        was = f"its entry {number} (`{first}`, line {marker.line} of the script then)" if marker.kind == "script" \
            else f"its entry {number} (line {marker.line} of the script then, skipped)"
        if statement is None:
            problem = "the script has ended there"
        elif marker.kind == "skip" or not entry.statements:
            return                 # what was skipped is not in the journal: it is the script's next statement
        elif _what(entry.statements[0], self._party) not in {_what(s, self._party)
                                                             for s in (statement, *self._standing([statement]))}:
            problem = f"the script has `{_what_line(statement) or type(statement).__name__}` there " \
                      f"(line {statement.pos.line})"
        elif len(self._walk.group()) != marker.count:
            group = len(self._walk.group())
            problem = (f"the statement of line {statement.pos.line} has {group - 1} line{'s' if group != 2 else ''} "
                       f"answering it now, not {marker.count - 1}")
        else:
            return
        raise DramaError("E904", f"the journal does not follow the script: {was}, but {problem}",
                         hint="the part of the script already played was changed since the session; "
                              "play the journal with `drama run`, or restore that part of the script")

    def _enter(self, block: n.ChoiceBlock, entry: Entry) -> None:
        """Into the body of the option the entry took at the script's `choose` block."""
        taken = next(e["taken"] for e in entry.events if e.get("type") == "choice")
        option = next(o for o in block.options if o.label.text == taken)
        if option.once:
            self._once.add((option.pos.file, option.pos.line))
        self._walk.enter(option.body)

    @contextmanager
    def _trying(self, dice=None):
        """The live session for a trial, given back as it was afterwards (its snapshot restored, at
        the cost of the trial alone, however long the night): `dice` replaces its source of rolled
        dice, and it knows the script's `once` options already taken."""
        session = self._session
        before = session.snapshot()
        game = session.interpreter.game
        own = game.dice
        if dice is not None:
            game.dice = dice
        session.interpreter.used_once |= self._once
        try:
            yield session
        finally:
            game.dice = own
            session.restore(before)

    def _commit(self, entry: Entry) -> None:
        """Write an entry to the journal (whole, fsynced), then apply it."""
        self.journal.append(entry.text + entry.marker.text(len(self.entries) + 1) + "\n")
        self._apply(entry)
        self.undone = []

    def _accept(self, statements: list[n.Statement], marker: j.Marker, calls: Calls) -> Entry:
        """Complete the statements with the table's calls, try them, write them, play them."""
        dice = SeededDice(self.seed * _STREAM + len(self.entries) + 1)
        self._precheck(statements, dice.seed)
        statements = self._complete(statements, calls, dice)
        trial = self._try(statements, dice)
        split = self._split(trial, statements, calls)
        if split is not None:
            statements = [*statements, split]
            trial = self._try(statements, dice)
        try:
            text = self._text_of(trial.events)
        except DramaError as error:      # E013: placed at the entry's first statement
            error.position = statements[0].pos
            raise
        expects = [s for s in statements if isinstance(s, n.Expect)]
        if expects:                      # an expectation makes no event: the journal keeps its line, so
            text += ("" if text.strip() else "\n") + "".join(f"expect {s.text}\n" for s in expects)   # `drama run` checks it
        _fits(text, statements[0])
        placed = self.program.read(text, self.journal.path, self._lines) if text.strip() else ()
        entry = Entry(text, marker, tuple(placed))
        self._commit(entry)
        return entry

    def declare(self, statements: list[n.Statement]) -> None:
        """Check statements being typed (an action, then its defences one by one) as far as they go,
        on a fork: a party that already acted, a defence of a party outside the situation, a
        misspelt name are refused now, before the rest is asked (DramaError)."""
        try:
            self._try(statements, SeededDice(0))
        except DramaError as error:
            if error.code not in _ANSWERS_SETTLE:
                error.notes = [note for note in error.notes if "was not played" not in note]
                raise

    def _precheck(self, statements: list[n.Statement], seed: int) -> None:
        """What the rules refuse whatever the table answers, refused before it is asked anything:
        the statements tried on a fork with the engine's dice. What only the answers settle (a tie
        under the vote, E311; a choice, E330; the count of given dice, E401) is left to them."""
        if not _asks_table(statements):
            return
        try:
            self._try(statements, SeededDice(seed))
        except DramaError as error:
            if error.code not in _ANSWERS_SETTLE:
                raise

    def _try(self, statements: list[n.Statement], dice: SeededDice) -> "_Trial":
        """What the statements would do now, with these dice: their events and the exchange's result."""
        with self._trying(_Continue(dice)) as session:
            mark = len(session.events)
            for statement in statements:
                session.feed(statement)
            session.resolve()
            return _Trial(session.events[mark:], session.interpreter.last)

    # ------------------------------------------------------------ the table's calls

    def _complete(self, statements: list[n.Statement], calls: Calls, dice: SeededDice) -> list[n.Statement]:
        """The statements with the table's dice, ties and initiative in."""
        first = statements[0]
        if isinstance(first, n.Action):
            return self._complete_exchange(statements, calls, dice)
        out = []
        for statement in statements:
            if isinstance(statement, n.Recover):
                statement = self._complete_recovery(statement, calls, dice)
            elif isinstance(statement, n.Reroll) and statement.dice.kind != "given":
                pid = self._party(statement.party)
                lost = self._session.interpreter.game.parties[pid].lost_this_round \
                    if pid in self._session.interpreter.game.parties else 0
                faces = calls(DiceAsk(pid, f"{pid} rerolls the {plural(lost, 'die', 'dice')} it lost this round",
                                      lost, self._sides, exactly=lost)) if lost else None
                if faces:
                    statement = replace(statement, dice=n.Dice("given", statement.dice.pos or statement.pos,
                                                                tuple(faces)))
            elif isinstance(statement, n.Initiative) and not any(e.results for e in statement.entries):
                statement = self._complete_initiative(statement, calls, dice)
            elif isinstance(statement, n.ChoiceBlock) and statement.given is None:
                question = self.question(statement)
                label = calls(ChoiceAsk(question)) if question is not None else None
                if label is not None:
                    statement = replace(statement, given=n.Name(label, statement.pos))
            out.append(statement)
        return out

    def _complete_recovery(self, statement: n.Recover, calls: Calls, dice: SeededDice) -> n.Recover:
        """The dice of a recovery check (R14), and of a rushed recovery's second check (R15): as many
        dice as the damage pool, then as many as came back."""
        pid = self._party(statement.party)
        game = self._session.interpreter.game
        if pid not in game.parties:
            return statement
        pos = statement.pos
        if statement.first.kind != "given":
            pool = game.state(pid).damage_pool
            if not pool:
                return statement                  # nothing to roll: the rules say what follows
            faces = calls(DiceAsk(pid, f"{pid} recovers: {plural(pool, 'die', 'dice')} of the damage pool", pool,
                                  self._sides, recovery=True, exactly=pool))
            if isinstance(faces, str):        # the dice with the chosen re-rolls, as written after `rolled`
                (read,) = self.program.read(f"{actor_text(pid)} recovers, rolled {faces}", "<dice>")
                statement = replace(statement, first=read.first)
            elif faces:
                statement = replace(statement, first=n.Dice("given", statement.first.pos or pos, tuple(faces)))
            else:
                return statement                  # the engine rolls both checks
        drama = game.drama
        if drama is None or pid not in drama.parties or statement.second.kind != "none":
            return statement
        # a rushed recovery: how many dice come back from the first check decides the second's
        trial = replace(statement, second=n.Dice("roll", pos))
        try:
            events = self._try([trial], SeededDice(dice.seed)).events
        except DramaError:
            return statement                      # the real trial names what is wrong
        recovery = next((e for e in reversed(events) if e.get("type") == "recovery"), None)
        back = recovery["checks"][0]["returning"] if recovery and recovery.get("checks") else 0
        if not back:
            return statement
        faces = calls(DiceAsk(pid, f"{plural(back, 'die comes', 'dice come')} back: the second check's dice", back,
                              self._sides, recovery=True, exactly=back))
        if isinstance(faces, str):
            (read,) = self.program.read(f"{actor_text(pid)} recovers, rolled {faces}", "<dice>")
            return replace(statement, second=read.first)
        if faces:
            return replace(statement, second=n.Dice("given", pos, tuple(faces)))
        return replace(trial, second=n.Dice("given", pos, tuple(dice.roll(back, self._sides))))

    def _complete_initiative(self, statement: n.Initiative, calls: Calls, dice: SeededDice) -> n.Initiative:
        """Initiative results asked of the table, then the re-rolls of each tie among them (R12)."""
        game = self._session.interpreter.game
        if game.drama is None:
            return statement
        names = self._session.interpreter.names
        by_id = {names.party(e.party): e for e in statement.entries}
        parties = tuple(pid for pid in (by_id or game.drama.parties) if not game.state(pid).defeated)
        answer = calls(InitiativeAsk(parties))
        if not answer:
            return statement
        results = {pid: [int(answer[pid])] for pid in parties}
        pos = statement.pos

        def bonus(pid: str) -> int:
            entry = by_id.get(pid)
            if entry is None:
                return 0
            sheet = names.sheets[pid]       # a trait or a treasure adds its level (R12)
            return sum(sheet.traits.get(name.text, 0) or sheet.treasures.get(name.text, 0)
                       for name in entry.uses.names)

        while True:
            keys: dict[tuple[int, ...], list[str]] = {}
            for pid in parties:
                keys.setdefault(tuple(r + bonus(pid) for r in results[pid]), []).append(pid)
            tied = next((group for group in keys.values() if len(group) > 1), None)
            if tied is None or len(results[tied[0]]) > 1000:
                break
            value = results[tied[0]][-1] + bonus(tied[0])
            again = calls(InitiativeAsk(tuple(tied), f"{' and '.join(tied)} tie at {value}: their re-rolls"))
            for pid in tied:
                results[pid].append(int(again[pid]) if again else dice.roll(1, self._sides)[0])
        entries = []
        for pid in parties:
            entry = by_id.get(pid) or n.InitiativeEntry(n.Name(pid, pos), n.Uses(), (), pos)
            entries.append(replace(entry, results=tuple(results[pid])))
        return replace(statement, entries=tuple(entries))

    def _complete_exchange(self, statements: list[n.Statement], calls: Calls, dice: SeededDice) -> list[n.Statement]:
        action = statements[0]
        rest = statements[1:]
        interpreter = self._session.interpreter
        game = interpreter.game

        def plan():
            defences = [s for s in [action, *rest] if isinstance(s, n.Defence)]
            ties = [s for s in rest if isinstance(s, n.Tie)]
            split = next((s for s in rest if isinstance(s, n.Split)), None)
            built = interpreter.engine_inputs(action, defences, ties, split)
            return game.plan(built[0], built[1])

        nodes = [action, *rest]
        for index, node in enumerate(nodes):
            if not isinstance(node, (n.Action, n.Defence)):
                continue
            lines = node.participants or (None,)
            for at, line in enumerate(lines):
                current = nodes[index]
                part = current.participants[at] if line is not None else current
                if part.dice.kind != "roll":
                    continue
                action, rest = nodes[0], nodes[1:]
                planned = plan()
                pid = self._party(part.party if line is not None else
                                  (current.actors[0] if isinstance(current, n.Action) else current.parties[0]))
                effort = next(e for side in (planned.attacker, *planned.defences) for e in side.efforts
                              if e.party == pid)
                available = game.state(pid).quintessence - planned.spending.get(pid, 0)
                faces = calls(DiceAsk(pid, _why(effort, available), effort.count, self._sides)) \
                    if effort.count else None           # a prompt that can take nothing is not asked
                if not faces:
                    faces = dice.roll(effort.count, self._sides) if effort.count else ()
                given = n.Dice("given", part.dice.pos or part.pos, tuple(faces)) if faces else \
                    n.Dice("none", part.dice.pos or part.pos)
                if line is not None:
                    lines_now = list(current.participants)
                    lines_now[at] = replace(line, dice=given)
                    nodes[index] = replace(current, participants=tuple(lines_now))
                else:
                    nodes[index] = replace(current, dice=given)
        action, rest = nodes[0], nodes[1:]
        if game.settings.ties == "vote" and not any(isinstance(s, n.Tie) for s in rest):
            planned = plan()
            attacker = planned.attacker
            mine = False
            ties = []
            for side in planned.defences:
                if side.value != attacker.value:
                    continue
                other = side.parties[0] if side.parties else "GM"
                winner = calls(TieAsk(attacker.name, side.name, attacker.value, (attacker.parties[0], other)))
                if winner is None:
                    continue
                if winner == attacker.parties[0]:
                    mine = True
                else:
                    ties.append(n.Tie(action.pos, None if winner == "GM" else n.Name(winner, action.pos)))
            if mine:
                ties.append(n.Tie(action.pos, n.Name(attacker.parties[0], action.pos)))
            nodes.extend(ties)
        return nodes

    def _split(self, trial: "_Trial", statements: list[n.Statement], calls: Calls) -> n.Split | None:
        """The table's split of a joint side's loss (R10), when the trial's exchange has one to give."""
        if not isinstance(statements[0], n.Action) or any(isinstance(s, n.Split) for s in statements):
            return None
        result = trial.last
        if result is None:
            return None
        owed: dict[tuple[str, ...], int] = {}
        for side, comparison in zip(result.defences, result.comparisons):
            if not comparison.loss:
                continue
            loser = side if comparison.winner == result.attacker.name else result.attacker
            if len(loser.parties) > 1:
                owed[loser.parties] = owed.get(loser.parties, 0) + comparison.loss
        shares = {}
        for side, amount in owed.items():
            answer = calls(SplitAsk(side, amount))
            if answer:
                shares.update(answer)
        if not shares:
            return None
        pos = statements[0].pos
        return n.Split(pos, tuple((n.Name(pid, pos), int(amount)) for pid, amount in shares.items()))

    # ------------------------------------------------------------ small helpers

    @property
    def _sides(self) -> int:
        return self.program.scenario.setting.sides

    def _party(self, name: n.Name) -> str:
        return self._session.interpreter.names.party(name)


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


def _fits(text: str, first: n.Statement) -> None:
    """E013 when an entry's journal text has a line longer than a script's line may be (`limits.MAX_LINE`)."""
    from ..limits import MAX_LINE
    if any(len(line) > MAX_LINE for line in text.split("\n")):
        error = _too_long(None)
        error.position = first.pos
        raise error


def _too_long(event: dict | None) -> DramaError:
    """The entry would write a line the journal's reader refuses (E013 on --resume): refused, nothing written."""
    from ..limits import MAX_LINE
    return DramaError("E013", f"this entry would write a line of more than {MAX_LINE:,} characters in the journal, "
                      f"which could not be read back", position=Position("<table>", 1, 1),
                      expected=f"an entry whose lines, as the journal writes them (placeholders filled in, every "
                               f"die given), have at most {MAX_LINE:,} characters",
                      hint="nothing was written: type it shorter, or as two statements")


def _what(statement: n.Statement, party) -> tuple:
    """What a statement is, apart from its place, its dice and its texts: its kind, the parties it
    names (by id: a role and its party are the same) and its intent or label (the anchor of a
    journal's entry in the script)."""
    names = []
    for field_name in ("actors", "target", "extra_targets", "parties", "party", "intent", "label", "name"):
        value = getattr(statement, field_name, None)
        for one in value if isinstance(value, tuple) else (value,):
            if isinstance(one, n.Name) and field_name not in ("intent", "label", "name"):
                try:
                    names.append((field_name, party(one)))
                    continue
                except DramaError:
                    pass
            text = getattr(one, "text", one)
            if isinstance(text, str):
                names.append((field_name, text))
    return (type(statement).__name__, tuple(names))


def _what_line(statement: n.Statement) -> str | None:
    """The statement's line of the script as written (None when it cannot be read)."""
    import linecache
    text = linecache.getline(statement.pos.file, statement.pos.line).strip()
    return text or None


@dataclass(frozen=True)
class _Trial:
    """What a trial of an entry did: its events, and the engine's result of its last exchange."""

    events: list[dict]
    last: object


class _Asked(Exception):
    """The question of a choice was caught (`Table.question`): the trial stops there."""


class _Continue:
    """The dice source of a trial: the entry's own seeded stream, continued where the table's calls left it."""

    def __init__(self, dice: SeededDice):
        self.dice = dice

    def roll(self, count: int, sides: int) -> tuple[int, ...]:
        return self.dice.roll(count, sides)


def _why(effort, available: int) -> str:
    """"Kara may roll up to 3 dice: Sorcery 3" (and why fewer, when quintessence is short)."""
    pid = effort.party
    if effort.trait is None:
        reason = "no trait"
    else:
        reason = f"{effort.trait} {effort.trait_level}" + (f", GM {effort.gm:+d}" if effort.gm else "")
    count = effort.count
    dice = f"{count} {'die' if count == 1 else 'dice'}"
    if count < effort.cap:
        reason += f", but {available} quintessence available"
    return f"{pid} may roll up to {dice}: {reason}"
