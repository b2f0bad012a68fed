"""The pipeline: a scenario compiled once into a `Program`, then run, checked, or played a statement at a time in a `Session`.

    scenario.yaml ─► load ─► bind (--cast, --role) ─► parse ─► includes ─► checker ─► Program
    Program.run(seed, mode)        the event log of one run (`drama run`, `drama simulate`)
    check(path)                    every error and warning, collected (`drama check`)
    Program.session(seed)          one statement at a time, with undo by replay (`drama play`)

This is the one place the stages are put together: every command and tool
(`run`, `check`, `simulate`, `odds`, the replay of a record) goes through it.
Errors go to a `Diagnostics` sink that places each one in its file
(`source.SourceMap`) when it is reported.
"""

from __future__ import annotations

import os
from typing import Iterable, Mapping, Sequence

from .frozen import frozen
from .syntax import nodes as n
from .checker import check_script, choice_blocks, has_blocks
from .errors import MAX_COLLECTED, stopped_after, Diagnostics, DramaError
from .includes import expand
from .interpreter import FRESH, PLAY, SIMULATE, Interpreter, RunMode
from .limits import check_budget
from .interpreter.choices import Ask, check_answers
from .interpreter.runstate import History, Mark, RunState
from .loader import Scenario, bind, load_scenario
from .followons import without_follow_ons
from .names import Names
from .syntax import parse
from .source import SourceMap
from .statement_cache import StatementCache


class Program:
    """A scenario loaded, bound, parsed, its includes read in and every branch
    checked: ready to run any number of times, with any seed."""

    def __init__(self, scenario: Scenario, script: n.Script, sources: SourceMap):
        self.scenario = scenario
        self.script = script
        self.sources = sources
        self.names = Names(scenario.cast, scenario.roles)
        # the engine's inputs of each exchange, shared by the runs of this program
        self.cache = StatementCache()
        self._fast: tuple | None = None         # (Compiled or None, why not), made on first use

    @classmethod
    def compile(cls, scenario: Scenario | str | os.PathLike, *, cast: Sequence[str] | None = None,
                roles: dict[str, str] | None = None) -> "Program":
        """Compile a scenario file, or a loaded one (bound already, unless
        `cast` or `roles` are given). Raises the first DramaError;
        a script with `if` or `repeat` is refused for an error in any branch,
        even one a run would not reach (warnings are for `drama check`)."""
        if not isinstance(scenario, Scenario):
            scenario = bind(load_scenario(scenario), list(cast) if cast else None, roles)
        elif cast or roles:
            scenario = bind(scenario, list(cast) if cast else None, roles)
        source = scenario.script
        sources = SourceMap.of(source)
        return cls(scenario, _read_script(scenario, source.text, source.line_offset, sources, keep=True), sources)

    @property
    def path(self) -> str:
        return self.scenario.path

    @property
    def files(self) -> list[str]:
        """Every file the program was read from: the scenario's, and each included script."""
        return [*self.scenario.files, *self.sources.chains]

    def interpreter(self, *, seed: int = 0, lenient: bool = False, mode: RunMode = PLAY,
                    errors: Diagnostics | None = None, choices: Mapping[str, str] | None = None,
                    ask: Ask | None = None, events=None) -> Interpreter:
        """A fresh interpreter for this program, reporting errors to `errors`
        (by default: raise the first, placed in its file). `choices` answers
        choices by label (`--choose`); `ask` is asked the others (`drama play`,
        see `Interpreter.answer`). Its events go into `events` (a list by
        default, or an `events.Streamed`)."""
        scenario = self.scenario
        sink = errors if errors is not None else Diagnostics(collect=False, place=self.sources.place)
        if choices:
            check_answers(choices, self.choices)
        return Interpreter(scenario.setting, self.names, title=scenario.title, seed=seed, lenient=lenient,
                           errors=sink, mode=mode, cache=self.cache, choices=choices, ask=ask,
                           state=scenario.state, events=events)

    def run(self, *, seed: int = 0, lenient: bool = False, mode: RunMode = PLAY,
            choices: Mapping[str, str] | None = None, ask: Ask | None = None, events=None) -> list[dict]:
        """The events of one run. Raises the first DramaError, placed in its file.
        With `events` (an `events.Streamed`) each event goes there as it is made.

        A SIMULATE run takes the compiled fast path when the script allows it
        (`fast_path`): the same events, sooner."""
        interpreter = self.interpreter(seed=seed, lenient=lenient, mode=mode, choices=choices, ask=ask,
                                       events=events)
        if mode is SIMULATE:
            fast, _ = self.fast_path()
            if fast is not None:
                return fast.run(interpreter)
        return interpreter.run(self.script)

    def fast_path(self) -> tuple:
        """(the script compiled for SIMULATE runs, None) or (None, why it cannot
        be): see `dsl/interpreter/fastpath.py`."""
        if self._fast is None:
            from .interpreter.fastpath import Unsupported, compile_script
            try:
                self._fast = (compile_script(self.script, self.names), None)
            except Unsupported as why:
                self._fast = (None, str(why))
        return self._fast

    @property
    def choices(self) -> dict[str, list[str]]:
        """Each choice the script can make (its label) -> the labels of its options."""
        found: dict[str, list[str]] = {}
        for block in choice_blocks(self.script.shared):     # (labels only: the nodes will do)
            labels = found.setdefault(block.label.text, [])
            labels.extend(o.label.text for o in block.options if o.label.text not in labels)
        return found

    def session(self, *, seed: int = 0, lenient: bool = False, ask: Ask | None = None) -> "Session":
        """A session on this program's table, to be fed statements one at a time;
        `ask` answers its choices (see `Interpreter.answer`)."""
        return Session(self, seed=seed, lenient=lenient, ask=ask)

    def read(self, text: str, file: str = "<table>", line_offset: int = 0) -> tuple[n.Statement, ...]:
        """The statements of a piece of script (a line typed at the table, say),
        with its includes read in. Raises the first DramaError."""
        return _read_script(self.scenario, text, line_offset, SourceMap(file)).statements


def _read_script(scenario: Scenario, text: str, line_offset: int, sources: SourceMap, *,
                 keep: bool = False) -> n.Script:
    """A script of the scenario parsed, its includes read in, and, with `if` or
    `repeat`, refused for an error in any branch, even one a run would not
    reach (warnings are for `drama check`). Raises the first DramaError.
    `keep`: the scenario's own script, kept parsed for the next start (syntax/kept.py)."""
    stop = Diagnostics(collect=False, place=sources.place)
    script = parse(text, sources.file, line_offset, errors=stop, keep=keep)
    script = expand(script, os.path.dirname(scenario.path), stop, sources)
    if has_blocks(script):
        found = Diagnostics(place=sources.place)
        for error in check_script(script, Names(scenario.cast, scenario.roles), scenario.state):
            if not error.is_warning:
                found.report(error)
        found.raise_first()
    return script


def check(path, *, seed: int = 0, lenient: bool = False, cast=None, roles=None,
          dry_run=None, langs: Sequence[str] | None = None) -> list[DramaError]:
    """Every error found in one pass over a scenario: YAML, syntax, names and
    rules, then the warnings.

    With `langs` (`drama check` gives it, even empty), a scenario without errors is
    also checked for transcripts in those languages and in those it has catalogues
    for (`catalogue.check_languages`: W040, W041), on the script checked here.

    `dry_run(interpreter, script)`, if given, runs the dry run in place of
    `interpreter.run(script)` (the language server resumes it where an edit
    begins, dsl/lsp/incremental.py). The script is dry-run only when the cast loaded cleanly: with a broken cast
    every name would look unknown, and those errors would be false ones.
    """
    errors: list[DramaError] = []
    try:
        scenario = load_scenario(path, errors=errors)
    except DramaError as error:
        Diagnostics(into=errors).report(error)     # (the loader may have kept it already)
        return errors
    if scenario is None:
        return errors
    cast_files = {scenario.path, *scenario.cast_files}
    cast_ok = not any(e.position is None or e.position.file in cast_files and e.code != "E103"
                      for e in errors)
    if cast_ok and (cast or roles or scenario.roles):
        try:
            scenario = bind(scenario, cast, roles)
        except DramaError as error:
            Diagnostics(into=errors).report(error)
            return errors
    read: list[tuple[n.Script, SourceMap]] = []
    errors += _findings(scenario, scenario.script, cast_ok, seed=seed, lenient=lenient, dry_run=dry_run, read=read)
    errors[:] = without_follow_ons(errors, scenario.script, lambda fixed: _findings(
        scenario, fixed, cast_ok, seed=seed, lenient=lenient, dry_run=dry_run))
    errors.sort(key=lambda e: e.is_warning)        # warnings after the errors
    if langs is not None and cast_ok and read and not any(not e.is_warning for e in errors):
        from .catalogue import check_languages
        errors += check_languages(Program(scenario, *read[0]), langs)
    return errors


def _findings(scenario: Scenario, source, cast_ok: bool, *, seed: int, lenient: bool,
              dry_run=None, read: list | None = None) -> list[DramaError]:
    """What `drama check` finds in a scenario's script: syntax, includes, and (with a good cast)
    every branch checked and the dry run; the script read, and its source map, are added to `read`."""
    errors: list[DramaError] = []
    sources = SourceMap.of(source)
    sink = Diagnostics(into=errors, place=sources.place)
    try:
        script = parse(source.text, source.file, source.line_offset, errors=sink, keep=True)
    except DramaError as error:
        sink.report(error)
        return errors
    script = expand(script, os.path.dirname(scenario.path), sink, sources)
    if read is not None:
        read.append((script, sources))
    if cast_ok:
        names = Names(scenario.cast, scenario.roles)
        # (with --lenient, unnamed ties are settled: no W004)
        statically = check_script(script, names, scenario.state, None if lenient else scenario.setting)
        met = Diagnostics(limit=MAX_COLLECTED)     # what the dry run meets, before it is placed
        budget = check_budget(_count(script.shared))
        interpreter = Interpreter(scenario.setting, names, title=scenario.title, seed=seed,
                                  lenient=lenient, errors=met, state=scenario.state, ask=_dry_run_pick,
                                  budget=budget)
        interpreter.checks_expectations = False
        try:
            if dry_run is None:
                interpreter.run(script)
            else:
                dry_run(interpreter, script)
        except DramaError as error:        # not expected with a collecting sink, but never lose one
            met.report(error)
        if interpreter.spent is not None:  # the dry run stopped: what it did not reach is unchecked
            met.report(DramaError(
                "W020", f"the dry run stopped here, after {budget:,} statements in loops: what comes "
                "later was not run (the names inside blocks were still checked)", position=interpreter.spent.position,
                hint="a run of this script may stop at the limit of the statements loops repeat (E012)"))
        if interpreter.full_at is not None:
            met.limit = None
            met.report(stopped_after(interpreter.full_at, "the dry run"))
        # what the run met is reported once, at the place the run met it
        seen = {(e.code, e.position) for e in met}
        for error in [*met, *(e for e in statically if (e.code, e.position) not in seen)]:
            sink.report(error)
    return errors


def _count(statements) -> int:
    """How many statements there are, those inside blocks included."""
    return sum(1 for _ in n.walk(statements))
def _dry_run_pick(question) -> str:
    """`drama check` runs past every choice: it takes the first available option
    (the other options are checked statically, in every branch)."""
    return question.available[0]


def replay(scenario_path: str | os.PathLike, script_text: str, *, seed: int = 0,
           file: str = "recorded.drama") -> list[dict]:
    """Run a recorded script with the setting, cast and title of the scenario it
    was recorded from; return the events. Raises DramaError.

    The seed changes nothing but `start.seed` (every die is given); pass the
    recorded run's seed to get its `start` event back exactly.
    """
    sources = SourceMap(file)
    scenario = load_scenario(scenario_path)
    return Program(scenario, _read_script(scenario, script_text, 0, sources), sources).run(seed=seed)


# ---------------------------------------------------------------------------
# a session at the table

@frozen
class PartyOnBoard:
    """One party as the board shows it."""

    id: str
    name: str
    available: int
    damage_pool: int
    maximum: int
    defeated: bool
    in_drama: bool          # one of the parties of the running dramatic situation
    acted: bool             # has taken its aggressive action this round (R9)
    holding: bool           # let its turn pass, and may act later this round (R9)


@frozen
class Board:
    """The state of the table after the statements accepted so far."""

    drama: str | None                  # the running dramatic situation, if any
    round: int | None
    time: int                          # in-world seconds
    order: tuple[str, ...] | None      # the initiative order of the situation, once rolled
    turn: str | None                   # whose turn it is in that order
    parties: tuple[PartyOnBoard, ...]
    pending: bool                      # an aggressive action waits for its defences
    last_exchange: dict | None         # the event of the last exchange of the situation

    def party(self, pid: str) -> PartyOnBoard:
        return next(p for p in self.parties if p.id == pid)


@frozen
class Snapshot:
    """A session at one moment, as frozen data (`Session.snapshot`): opaque to its users,
    valid for `Session.restore` and `Session.from_snapshot` of the same program, whatever
    the session does next."""

    run: RunState
    events: Mark | None
    statements: Mark | None
    pending_from: int | None
    before_pending: "Snapshot | None"
    finished: bool


class Session:
    """A program played one statement at a time: the API of `drama play`, its undo and its forks.

    `feed` takes a statement (text, or a node) and returns the events it made,
    or raises a DramaError and changes nothing. An exchange is resolved when
    a statement that is not part of it comes (or at `resolve`): if it cannot
    be, its action and the lines that answer it are refused together, and
    the session is as before the action.

    `snapshot` gives the state now as frozen data and `restore` goes back to
    one, both in time independent of the length of the night (the events and
    statements in between are what it costs): feeding the same statements after
    `restore` gives the very same events (tests/test_snapshots.py). Because a run
    is also a pure function of its statements and seed, `rebuild` from the
    accepted statements gives the same state too: that is how a journal resumes."""

    def __init__(self, program: Program, *, seed: int = 0, lenient: bool = False, ask: Ask | None = None):
        self.program = program
        self.seed = seed
        self.lenient = lenient
        self.ask = ask
        self.statements: list[n.Statement] = []     # accepted, in order
        self._pending_from: int | None = None        # where the pending exchange's statements begin
        self._before_pending: Snapshot | None = None  # the session before the pending exchange's action
        self._interpreter = program.interpreter(seed=seed, lenient=lenient, ask=ask)
        self._events = History(self._interpreter.events)
        self._statements = History(self.statements)
        self.finished = False

    @classmethod
    def rebuild(cls, program: Program, statements: Iterable[n.Statement], *, seed: int = 0,
                lenient: bool = False, ask: Ask | None = None) -> "Session":
        """A session fed these statements, one by one."""
        session = cls(program, seed=seed, lenient=lenient, ask=ask)
        for statement in statements:
            session.feed(statement)
        return session

    @classmethod
    def from_snapshot(cls, program: Program, snapshot: Snapshot, *, seed: int = 0, lenient: bool = False,
                      ask: Ask | None = None) -> "Session":
        """A new session at the state of `snapshot` (of a session of `program` with this seed)."""
        session = cls(program, seed=seed, lenient=lenient, ask=ask)
        session.restore(snapshot)
        return session

    @property
    def events(self) -> list[dict]:
        """Every event so far (the `start` event first)."""
        return self._interpreter.events

    @property
    def interpreter(self) -> Interpreter:
        """The interpreter at the table now (its game, names and last exchange); read, never fed directly."""
        return self._interpreter

    # ------------------------------------------------------------ snapshots

    def snapshot(self) -> Snapshot:
        """The session now, as frozen data: cheap, whatever the length of the night."""
        return Snapshot(self._interpreter.snapshot(), self._events.mark(), self._statements.mark(),
                        self._pending_from, self._before_pending, self.finished)

    def restore(self, snapshot: Snapshot) -> None:
        """Back to the state of `snapshot` (taken of this session, or of one of the same
        program and seed it was forked from), its events and accepted statements included."""
        self._interpreter.restore(snapshot.run)
        self._events.rewind(snapshot.events)
        self._statements.rewind(snapshot.statements)
        self._pending_from = snapshot.pending_from
        self._before_pending = snapshot.before_pending
        self.finished = snapshot.finished

    def fork(self, dice=None) -> "Session":
        """An independent session at the very same state: a trial of what a statement
        would do. `dice` replaces its source of rolled dice (a `SeededDice`)."""
        snapshot = self.snapshot()
        again = Session(self.program, seed=self.seed, lenient=self.lenient)
        # the fork's own lists, holding the same items: neither's growth changes the other
        del again._interpreter.events[:]
        again.restore(snapshot)
        if dice is not None:
            again._interpreter.game.dice = dice
        return again

    def holds(self, condition: n.Condition) -> bool:
        """Whether an `if` or `repeat` condition holds now (what the table's walk through the script asks)."""
        from .interpreter import conditions
        return conditions.holds(condition, self._interpreter)

    def feed(self, statement: str | n.Statement, *, file: str = "<table>", line_offset: int = 0) -> list[dict]:
        """Run a statement (or each statement of a piece of text); return the new events."""
        if self.finished:
            raise DramaError("E002", "the session is finished: nothing more can be played")
        statements = self.program.read(statement, file, line_offset) if isinstance(statement, str) \
            else (statement,)
        interpreter = self._interpreter
        mark = len(interpreter.events)
        for one in statements:
            if interpreter.pending is not None and not interpreter.pending.resolved \
                    and not isinstance(one, Interpreter.PART_OF_EXCHANGE):
                self._settle()
            accepted = len(self.statements)
            before = self.snapshot()
            try:
                interpreter.step(one)
            except DramaError:
                self.restore(before)
                raise
            self.statements.append(one)
            if isinstance(one, n.Action) and interpreter.pending is not None:
                self._pending_from = accepted
                self._before_pending = before
            elif interpreter.pending is None or interpreter.pending.resolved:
                self._pending_from = self._before_pending = None
        return interpreter.events[mark:]

    def resolve(self) -> list[dict]:
        """Resolve the exchange being declared now (no more defences will come)."""
        mark = len(self.events)
        if self._interpreter.pending is not None and not self._interpreter.pending.resolved:
            self._settle()
        return self.events[mark:]

    def finish(self) -> list[dict]:
        """Resolve what is pending and close the log with the `final` event."""
        mark = len(self.events)
        self.resolve()
        self._interpreter.finish()
        self.finished = True
        return self.events[mark:]

    def board(self) -> Board:
        """The state of the table now."""
        interpreter = self._interpreter
        game = interpreter.game
        drama = game.drama
        order = tuple(drama.order) if drama is not None and drama.order is not None else None
        holding = set(drama.held) if drama is not None else set()
        parties = []
        for pid, sheet in interpreter.names.sheets.items():
            state = game.state(pid)
            parties.append(PartyOnBoard(pid, sheet.name, state.quintessence, state.damage_pool,
                                        sheet.quintessence, state.defeated,
                                        drama is not None and pid in drama.parties,
                                        drama is not None and game.has_acted(pid), pid in holding))
        turn = None
        if order is not None:
            for pid in order[drama.pointer:]:
                if not game.has_acted(pid) and not game.state(pid).defeated and pid not in holding:
                    turn = pid
                    break
        last = None
        if drama is not None and interpreter.last is not None:
            last = next((e for e in reversed(interpreter.events) if e.get("type") == "exchange"), None)
        pending = interpreter.pending is not None and not interpreter.pending.resolved \
            and not interpreter.pending.skipped
        return Board(drama.name if drama is not None else None, game.round, game.time, order, turn,
                     tuple(parties), pending, last)

    # ------------------------------------------------------------ keeping it exact

    def _settle(self) -> None:
        """Resolve the pending exchange; if it cannot be, refuse its statements: the
        session goes back to where it was before the exchange's action."""
        try:
            self._interpreter.resolve()
            self._pending_from = self._before_pending = None
        except DramaError as error:
            start = self._pending_from if self._pending_from is not None else len(self.statements)
            refused = self.statements[start:]
            if self._before_pending is not None:
                self.restore(self._before_pending)
            if refused:
                error.notes.append(f"the exchange of line {refused[0].pos.line} was not played")
            raise


# ---------------------------------------------------------------------------
# the package's short forms

def run(path, *, seed: int = 0, lenient: bool = False, cast=None, roles=None) -> list[dict]:
    """Load, parse and run a scenario; return its events. Raises DramaError.

    `cast` (a list of cast files) replaces the scenario's cast, and `roles`
    (role -> party id) binds an adventure's roles, as `--cast` and `--role` do.
    """
    return Program.compile(path, cast=cast, roles=roles).run(seed=seed, lenient=lenient)


def play(scenario: Scenario, *, seed: int = 0, lenient: bool = False, roll_given: bool = False) -> list[dict]:
    """Parse and run a loaded (and bound) scenario; return its events.

    With `roll_given`, the dice a script gives are rolled afresh (as many as
    were given, if the rules still allow them), as `drama simulate` does."""
    return Program.compile(scenario).run(seed=seed, lenient=lenient, mode=FRESH if roll_given else PLAY)
