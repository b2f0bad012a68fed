"""The interpreter: walks a script's statements, drives the engine, and emits the event log.

Names are resolved by `dsl.names`, exchanges gathered and resolved by
`exchanges` (`ExchangeLines`), choices made by `choices` (`MakesChoices`),
the fallen skipped by `fallen` (`SkipsTheFallen`), placeholders filled by
`texts`, blocks walked with a `cursor.Cursor`, conditions tested by
`conditions`, and what a run does with the dice a script
gives is its `modes.RunMode`. Errors go to one `Diagnostics` sink: a stopping
sink (`drama run`) raises the first, a collecting one (`drama check`) keeps
each and the run goes on with the next statement.
"""

from __future__ import annotations

from typing import Iterable, Mapping

from .. import events as ev
from ..syntax import nodes as n
from .. import placeholders
from ..engine import Game, Helping, PartySheet, RerollError, SeededDice, Settings
from ..errors import Diagnostics, DramaError, Position
from ..limits import MAX_STEPS
from ..scenes import RUNNING_KINDS
from ..names import Names
from ..collector import paused_collector
from ..statement_cache import StatementCache
from ..syntax.occurrences import moved, moved_error
from . import choices as ch
from .choices import MakesChoices
from . import conditions, fallen
from .cursor import Cursor, arm_holds, arm_taken, loop_ended
from .runstate import RunState, copy_pending
from .named_values import State
from .exchanges import ExchangeBuilder, ExchangeLines, Pending
from .fallen import SkipsTheFallen
from .texts import Texts
from .modes import PLAY, RunMode

# the statements that belong to the exchange being declared: it is resolved
# before any other statement
_PART_OF_EXCHANGE = n.kinds("part_of_exchange")
# the statements a defeated party's line is skipped for, inside control flow
_MAY_SKIP = fallen.MAY_SKIP


class ErrorsFull(Exception):
    """A collecting run's sink holds as many errors as it may: the run stops there (W021)."""

    def __init__(self, position):
        super().__init__(position)
        self.position = position


class BudgetSpent(Exception):
    """The execution budget ran out in a collecting run: the run stops here (not a DramaError,
    so that no statement's handler catches it)."""

    def __init__(self, error: DramaError):
        super().__init__(error.message)
        self.error = error


def quarry(s: n.DramaBegin, ids: list[str], names: Names, sink: Diagnostics) -> list[str]:
    """The quarry a `drama` line names (`, a chase after Orm`), each a party of the
    situation, in a chase or an escape (E353: reported, and the situation begins
    without it, so that nothing after it fails for it)."""
    found = []
    for name in s.quarry:
        pid = names.party(name)
        if s.kind not in RUNNING_KINDS:
            sink.report(DramaError(
                "E353", f"a {s.kind} has no quarry: only a chase or an escape has one who runs",
                position=name.pos, expected="`, a chase after NAME` or `, an escape by NAME`, or no quarry"))
            return []
        if pid not in ids:
            sink.report(DramaError(
                "E353", f"the quarry {name.text} is not one of the parties of {s.name}", position=name.pos,
                expected="one of " + ", ".join(p.text for p in s.parties)))
            continue
        found.append(pid)
    return found


class Interpreter(Texts, MakesChoices, SkipsTheFallen, ExchangeLines):
    """Runs scripts on one game table and collects the events.

    `errors` is where errors go: None raises the first, a list (or a
    collecting `Diagnostics`) records each, and the run goes on with the next
    statement, so that one pass finds as many errors as it can.
    """

    # the statements that belong to the exchange being declared
    PART_OF_EXCHANGE = _PART_OF_EXCHANGE

    def __init__(self, settings: Settings, sheets: Iterable[PartySheet] | Names, *, title: str = "",
                 seed: int = 0, lenient: bool = False, errors: Diagnostics | list | None = None,
                 roles: dict[str, str] | None = None, mode: RunMode = PLAY,
                 cache: StatementCache | None = None, choices: Mapping[str, str] | None = None,
                 ask: ch.Ask | None = None, state: Mapping[str, bool | int] | None = None, events=None,
                 budget: int = MAX_STEPS):
        self.settings = settings
        self.names = sheets if isinstance(sheets, Names) else Names(sheets, roles)
        self.mode = mode
        self.seed = seed
        self.lenient = lenient
        self.dice = SeededDice(seed)     # the one seeded source: the engine's dice and the seeded picks
        self.game = Game(self.names.sheets.values(), settings, self.dice, lenient=lenient)
        self.answers = dict(choices or {})      # --choose: choice -> option
        self.ask = ask                  # the hook of `drama play` (see `answer`)
        self.state = State(state)       # flags and counters
        self.chosen: dict[str, str] = {}    # choice -> the option taken the last time it was made
        self.used_once: set[tuple[str, int]] = set()    # the `once` options taken (file, line)
        self.sink = Diagnostics.of(errors)
        self.exchanges = ExchangeBuilder(self.names, mode, cache)
        # the event log: a list, or where each event goes as it is made (`events.Streamed`)
        self.events: list[dict] = [] if events is None else events
        self.events.append(ev.start(title, settings, self.names.sheets.values(), self.game.states(), seed,
                                    self.state.values))
        self.checks_expectations = True     # `drama check`'s dry run does not (its choices are its own)
        self.pending: Pending | None = None     # the exchange being declared
        # how many lines below its node the statement being run is: a repeated line's node is
        # shared by its occurrences (nodes.Script); events add it (`line`), errors get it in `step`
        self.shift = 0
        self.cursor = Cursor(budget)     # how deep in blocks and loops, and the budget spent (E012)
        self.last = None             # the engine's result of the last exchange, for `last exchange`
        self.fallen: set[str] = set()    # defeated in the running, or else the last, situation
        self.spent: DramaError | None = None    # E012, when a collecting run stopped at the budget
        self.full_at = None         # where a collecting run stopped, its sink full (W021)
        self.members_lost: dict[str, list[str]] = {}     # party -> its members lost (for narration)

    # ------------------------------------------------------------ running

    def run(self, script: n.Script) -> list[dict]:
        """Run every statement, then close the log with the `final` event."""
        with paused_collector():
            try:
                step = self.step
                for statement, shift in script.occurrences():
                    step(statement, shift)
            except BudgetSpent as stop:
                self.spent = stop.error
            except ErrorsFull as full:
                self.full_at = full.position
            self.finish()
        return self.events

    def tick(self, pos: Position) -> None:
        """Count a pass through a loop, or a statement run inside one, against the
        budget: past it, E012 (a collecting run stops, keeping the error in `spent`).
        A statement outside every loop runs once at most: it is not counted."""
        if self.cursor.count():
            error = DramaError("E012", f"the run's loops executed more than {self.cursor.budget:,} statements, "
                               "the limit", position=pos,
                               expected="loops with smaller bounds, or fewer of them one inside another",
                               notes=["each pass through a loop counts, and each statement run inside one"])
            if self.sink.collecting:
                raise BudgetSpent(error)
            self.sink.report(error)

    def step(self, statement: n.Statement, shift: int = 0) -> None:
        """Run one statement (a block with everything in it), written `shift`
        lines below where its node says (a repeated line, see nodes.Script)."""
        self.shift = shift
        if self.cursor.looping:
            self.tick(moved(statement.pos, shift) if shift else statement.pos)
        kind = type(statement)
        handler = _HANDLERS.get(kind)
        if handler is None:         # a block's own line (`if`, `else`, `end`) outside nesting
            raise DramaError("E004", f"a line that only a block can hold: {kind.__name__}",
                             position=getattr(statement, "pos", None),
                             expected="`if` or `repeat` ... `end`, read as one block")
        if kind is n.IfBlock or kind is n.Loop or kind is n.ChoiceBlock:
            # the exchange being declared ends here, but its double-win options
            # may still come, inside the block
            self.resolve()
            if self.pending is not None:
                self.pending.closed_by_block = True
        elif kind not in _PART_OF_EXCHANGE:
            self.resolve()          # the exchange being declared ends here
            self.pending = None
        try:
            # (only defeats of the running situation matter, and they are in `fallen`)
            if self.fallen and kind in _MAY_SKIP and self.game.drama is not None:
                if self.cursor.depth or self.mode.skips_fallen_everywhere:
                    statement = self.without_defeated(statement)
                    if statement is None:
                        return
                elif kind is n.Action:
                    statement = self.against_the_standing(statement)
            handler(self, statement)
        except DramaError as error:
            self.fail(moved_error(error.at(statement.pos), statement, shift), None)

    def finish(self) -> None:
        """Resolve what is pending and close the log with the `final` event."""
        try:
            self.resolve()
        except ErrorsFull:      # (the last error was one too many: the log still closes)
            pass
        self.pending = None
        self.events.append(ev.final(self.game.states(), self.game.time, self.state.values))

    def log(self, event: dict) -> None:
        """Add an event to the log (the fast path's `branch`, `loop` and `skipped` events)."""
        self.events.append(event)

    def fell(self, line: int, defeats: tuple[str, ...]) -> None:
        """Parties defeated by an exchange at `line` that logged nothing else (a duel of the fast path)."""
        self.fallen.update(defeats)
        self.events.extend([ev.defeat(line, pid) for pid in defeats])

    def fail(self, error: DramaError, pos: Position | None) -> None:
        """Report an error of a statement at `pos`, unless it has a position of its own."""
        self.sink.report(error.at(pos))
        if self.sink.collecting and self.sink.full and self.full_at is None:
            self.full_at = error.position
            raise ErrorsFull(error.position)

    def line(self, s: n.Statement) -> int:
        """The line of the statement being run (its node's, moved by its shift), for its events."""
        return s.pos.line + self.shift

    # ------------------------------------------------------------ the run's state (runstate.py)

    def snapshot(self) -> RunState:
        """What the run has changed so far, as frozen data (the event log aside: the
        caller keeps its length, see `pipeline.Session`). Taken between statements;
        cheap, whatever the length of the run."""
        return RunState(self.game.snapshot(), tuple(self.state.values.items()), tuple(self.chosen.items()),
                        frozenset(self.used_once), copy_pending(self.pending), frozenset(self.fallen),
                        self.last, tuple((pid, tuple(lost)) for pid, lost in self.members_lost.items()),
                        self.cursor.steps, self.spent)

    def restore(self, saved: RunState) -> None:
        """Back to the state of a `snapshot` of a run of the same program (this
        interpreter's or another's): the same statements then give the same events."""
        self.game.restore(saved.game)
        self.state = State(dict(saved.flags))
        self.chosen = dict(saved.chosen)
        self.used_once = set(saved.used_once)
        self.pending = copy_pending(saved.pending)
        self.fallen = set(saved.fallen)
        self.last = saved.last
        self.members_lost = {pid: list(lost) for pid, lost in saved.members_lost}
        self.cursor = Cursor(self.cursor.budget)
        self.cursor.steps = saved.steps
        self.spent = saved.spent
        self.shift = 0

    # ------------------------------------------------------------ control flow

    def holds(self, condition: n.Condition) -> bool:
        """Whether a condition holds now."""
        return conditions.holds(condition, self)

    def _if(self, s: n.IfBlock) -> None:
        arm = arm_taken(s.arms, lambda arm: arm_holds(arm, self.holds))
        if arm is None:
            self.events.append(ev.branch(s.pos.file, s.pos.line, None, None))
            return
        self.events.append(ev.branch(s.pos.file, s.pos.line, arm.pos.line, arm.text))
        self._block(arm.body)

    def _loop(self, s: n.Loop) -> None:
        passes = 0
        cursor = self.cursor
        conditional = s.condition is not None
        cursor.enter_loop()
        try:
            while True:
                ended = loop_ended(conditional and conditions.holds(s.condition, self), passes, s.bound,
                                   conditional)
                if ended is not None:
                    break
                self.tick(s.pos)
                self._block(s.body)
                passes += 1
        finally:
            cursor.leave_loop()
        self.events.append(ev.loop_ended(s.pos.file, s.pos.line, passes, ended, s.bound))

    def _set(self, s: n.SetState) -> None:
        if s.name.text in self.names.known() or s.name.text in placeholders.GLOBALS:
            raise DramaError("E208", f"'{s.name.text}' is a party, a role or a placeholder: a flag or counter "
                             "needs a name of its own", position=s.name.pos)
        value = s.value if isinstance(s.value, bool) else conditions.value(s.value, self)
        before = self.state.set(s.name, value)
        self.events.append(ev.state_set(self.line(s), s.name.text, value, before))

    def _expect(self, s: n.Expect) -> None:
        if not self.checks_expectations or conditions.holds(s.condition, self):
            return
        actual = conditions.actual(s.condition, self)
        raise DramaError("E801", f"expected {s.text}", position=s.condition.pos,
                         notes=[f"actual: {'; '.join(actual)}"] if actual else [])

    def _block(self, body: tuple[n.Statement, ...]) -> None:
        self.cursor.enter()
        try:
            for statement in body:
                self.step(statement)
            # an exchange that ends the block resolves before what follows is tested
            self.resolve()
            if self.pending is not None:
                self.pending.closed_by_block = True
        finally:
            self.cursor.leave()

    # ------------------------------------------------------------ statements

    def _scene(self, s: n.Scene) -> None:
        self.events.append(ev.scene(self.line(s), self.fill(s.title, s)))

    def _narration(self, s: n.Narration) -> None:
        self.events.append(ev.narration(self.line(s), self.fill(s.text, s)))

    def _drama(self, s: n.DramaBegin) -> None:
        ids = [self.names.party(name) for name in s.parties]
        self.events.append(ev.drama_begun(self.game.begin_drama(s.name, ids, s.round), self.line(s), s.kind,
                                          quarry(s, ids, self.names, self.sink)))
        self.fallen = set()
        self.last = None       # `last exchange` is one of this situation

    def _initiative(self, s: n.Initiative) -> None:
        names = self.names
        entries = []
        for entry in s.entries:
            pid = names.party(entry.party)
            trait, treasure = names.uses(pid, entry.uses)
            entries.append((pid, trait, treasure, self.mode.initiative_results(entry.results)))
        self.events.append(ev.initiative(self.game.roll_initiative(entries), self.line(s)))

    def _round(self, s: n.Round) -> None:
        self.events.append(ev.round_begun(self.game.next_round(), self.line(s)))

    def _member_lost(self, s: n.MemberLost) -> None:
        pid = self.names.party(s.party)
        member = self.names.member(pid, s.member)
        lost = self.members_lost.setdefault(pid, [])
        if member in lost:
            raise DramaError("E352", f"{member} of {pid} is already lost", position=s.member.pos,
                             hint="a member is lost once; the transcript names it no more")
        lost.append(member)
        game = self.game
        self.events.append(ev.member_lost(self.line(s), pid, member, game.drama.name if game.drama else None,
                                          game.round))

    def _hold(self, s: n.Hold) -> None:
        self.events.append(ev.held(self.game.hold(self.names.party(s.party)), self.line(s)))

    def _recover(self, s: n.Recover) -> None:
        names = self.names
        pid = names.party(s.party)
        trait, treasure = names.uses(pid, s.uses)
        helpers = []
        for helper in s.helpers:
            hid = names.party(helper.party)
            htrait, htreasure = names.uses(hid, helper.uses)
            helpers.append(Helping(hid, htrait, htreasure))
        game = self.game
        try:
            result = game.recover(pid, trait, treasure, tuple(helpers), self.mode.rolled(s.first),
                                  self.mode.second_check(s.second))
        except RerollError as error:            # point at the re-roll that is refused
            choice = (s.first, s.second)[error.check].rerolling
            if choice is not None:
                swaps = choice.swaps
                error.at(swaps[error.swap].pos if error.swap is not None and error.swap < len(swaps)
                         else choice.pos)
            raise
        self.events.append(ev.recovery(result, self.line(s), game.drama.name if game.drama else None, game.round))

    def _end_drama(self, s: n.EndDrama) -> None:
        text = self.fill(s.text, s) if s.text is not None else None
        self.events.append(ev.drama_ended(self.game.end_drama(text), self.line(s)))
        self.last = None       # `last exchange` after a situation: none yet

    def _time(self, s: n.Calm | n.Rest) -> None:
        kind = "rest" if isinstance(s, n.Rest) else "calm"
        result = self.game.pass_time(kind, self.settings.seconds(s.duration))
        self.events.append(ev.time_passed(result, self.line(s), str(s.duration)))


# One handler per kind of statement. A table of the class's functions, not of
# bound methods kept by each interpreter: those would make every interpreter,
# and its whole event log, a reference cycle that only the cyclic collector
# could free (see dsl/collector.py).
_HANDLERS = {
    n.Scene: Interpreter._scene, n.Narration: Interpreter._narration, n.DramaBegin: Interpreter._drama,
    n.Initiative: Interpreter._initiative, n.Round: Interpreter._round, n.Hold: Interpreter._hold,
    n.MemberLost: Interpreter._member_lost,
    n.Action: Interpreter._action, n.Defence: Interpreter._defence, n.Tie: Interpreter._tie,
    n.Split: Interpreter._split, n.Dictate: Interpreter._option, n.Reroll: Interpreter._option,
    n.Recover: Interpreter._recover, n.EndDrama: Interpreter._end_drama, n.Calm: Interpreter._time,
    n.Rest: Interpreter._time, n.IfBlock: Interpreter._if, n.Loop: Interpreter._loop,
    n.ChoiceBlock: Interpreter._choice, n.SetState: Interpreter._set, n.Expect: Interpreter._expect,
}
