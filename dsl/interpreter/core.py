"""The interpreter: walks a script's statements, drives the engine, and emits the event log.

Names are resolved by `dsl.names`, exchanges gathered by `exchanges`,
conditions tested by `conditions`, and what a run does with the dice a script
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
from ..names import Names
from ..collector import paused_collector
from ..statement_cache import StatementCache
from ..syntax.occurrences import moved, moved_error
from . import choices as ch
from . import conditions, fallen
from .runstate import RunState, copy_pending
from .state import State, show
from .exchanges import ExchangeBuilder, Pending, error_position
from .modes import PLAY, RunMode

# the statements that belong to the exchange being declared: it is resolved
# before any other statement
_PART_OF_EXCHANGE = n.kinds("part_of_exchange")
# the statements a defeated party's line is skipped for, inside control flow
_MAY_SKIP = fallen.MAY_SKIP


class BudgetSpent(Exception):
    """The execution budget ran out in a collecting run: the run stops here (not a DramaError,
    so that no statement's handler catches it)."""

    def __init__(self, error: DramaError):
        super().__init__(error.message)
        self.error = error


class Interpreter:
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
        self.depth = 0               # how many `if` and `repeat` blocks the current statement is in
        self.last = None             # the engine's result of the last exchange, for `last exchange`
        self.fallen: set[str] = set()    # defeated in the running, or else the last, situation
        self.budget = budget         # statements loops may repeat: passes, and statements inside (E012)
        self.steps = 0
        self.looping = 0             # how many loops the current statement is in
        self.spent: DramaError | None = None    # E012, when a collecting run stopped at the budget
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
            self.finish()
        return self.events

    def tick(self, pos: Position) -> None:
        """Count a pass through a loop, or a statement run inside one, against the
        budget: past it, E012 (a collecting run stops, keeping the error in `spent`).
        A statement outside every loop runs once at most: it is not counted."""
        self.steps += 1
        if self.steps > self.budget:
            error = DramaError("E012", f"the run's loops executed more than {self.budget:,} statements, "
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
        if self.looping:
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
            if self.fallen and (self.depth or self.mode.skips_fallen_everywhere) and kind in _MAY_SKIP \
                    and self.game.drama is not None:
                statement = self.without_defeated(statement)
                if statement is None:
                    return
            handler(self, statement)
        except DramaError as error:
            self.fail(moved_error(error.at(statement.pos), statement, shift), None)

    def finish(self) -> None:
        """Resolve what is pending and close the log with the `final` event."""
        self.resolve()
        self.pending = None
        self.events.append(ev.final(self.game.states(), self.game.time, self.state.values))

    def fail(self, error: DramaError, pos: Position | None) -> None:
        """Report an error of a statement at `pos`, unless it has a position of its own."""
        self.sink.report(error.at(pos))

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
                        self.steps, self.spent)

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
        self.steps = saved.steps
        self.spent = saved.spent
        self.shift = self.depth = self.looping = 0

    # ------------------------------------------------------------ texts

    def fill(self, text: str, s: n.Statement) -> str:
        """The text with its placeholders filled in from the state now."""
        if not placeholders.has_placeholders(text):
            return text
        return placeholders.fill(text, Position(s.pos.file, s.pos.line, s.column), self._placeholder)

    def _placeholder(self, inside: str, at: Position) -> str:
        """The value of one placeholder: `{round}`, `{drama}`, `{hero}`, `{hero.quintessence}`..."""
        game, names = self.game, self.names
        if inside in self.state:
            return show(self.state.values[inside])
        name, field = placeholders.split(inside, at, names.known())
        if name not in names.sheets and name not in names.roles:      # one of placeholders.GLOBALS
            if name == "round":
                return str(game.round or 0)
            return game.drama.name if game.drama is not None else ""
        pid = names.party(n.Name(name, at))
        sheet = names.sheets[pid]
        if field == "name":
            return sheet.name
        if field == "id":
            return pid
        if field == "members":
            members = list(sheet.members)
            return (", ".join(members[:-1]) + " and " + members[-1]) if len(members) > 1 else \
                (members[0] if members else sheet.name)
        if field == "maximum":
            return str(sheet.quintessence)
        state = game.state(pid)
        return str(state.quintessence if field == "quintessence" else state.damage_pool)

    # ------------------------------------------------------------ control flow

    def _if(self, s: n.IfBlock) -> None:
        for arm in s.arms:
            if arm.condition is None or conditions.holds(arm.condition, self):
                self.events.append(ev.branch(s.pos.file, s.pos.line, arm.pos.line, arm.text))
                self._block(arm.body)
                return
        self.events.append(ev.branch(s.pos.file, s.pos.line, None, None))

    def _loop(self, s: n.Loop) -> None:
        passes = 0
        self.looping += 1
        try:
            while True:
                if s.condition is not None and conditions.holds(s.condition, self):
                    ended = "until"
                    break
                if passes >= s.bound:
                    ended = "bound" if s.condition is not None else "count"
                    break
                self.tick(s.pos)
                self._block(s.body)
                passes += 1
        finally:
            self.looping -= 1
        self.events.append(ev.loop_ended(s.pos.file, s.pos.line, passes, ended, s.bound))

    def _choice(self, s: n.ChoiceBlock) -> None:
        offered = []
        for option in s.options:
            why = None
            if option.once and (option.pos.file, option.pos.line) in self.used_once:
                why = "it was taken once already"
            elif option.condition is not None and not conditions.holds(option.condition, self):
                why = f"'{option.text}' does not hold"
            offered.append(ch.Offered(option.label.text, why is None, option.weight, why))
        question = ch.Question(s.label.text, tuple(offered), s.pos)
        if not question.available:
            raise DramaError("E331", f"no option of the choice '{s.label.text}' is available",
                             notes=[f"'{o.label}': {o.why}" for o in offered],
                             hint="add an option without a condition or `once`, taken when no other is")
        answer = self.answer(question, s.given)
        taken = next(o for o in s.options if o.label.text == answer.option)
        if taken.once:
            self.used_once.add((taken.pos.file, taken.pos.line))
        self.chosen[s.label.text] = answer.option
        game = self.game
        self.events.append(ev.choice(s.pos.file, s.pos.line, question, answer,
                                     game.drama.name if game.drama else None, game.round))
        self._block(taken.body)

    def answer(self, question: ch.Question, given: n.Name | None = None) -> ch.Answer:
        """The answer to a choice: the ONE place a run gets it (see dsl/interpreter/choices.py):
        the option given in the script, then --choose, then the `ask` hook (the table),
        then the seeded dice in a lenient run; else E330."""
        if given is not None and self.mode.keeps_table_calls:
            if given.text not in question.available:
                raise ch.unavailable(question, given.text, "in the script", given.pos)
            return ch.Answer(given.text, "given")
        label = self.answers.get(question.choice)
        if label is not None:
            if label not in question.available:
                raise ch.unavailable(question, label, "with --choose", None)
            return ch.Answer(label, "command")
        if self.ask is not None:
            label = self.ask(question)
            if label is not None:
                if label not in question.available:
                    raise ch.unavailable(question, label, "at the table", None)
                return ch.Answer(label, "table")
        if self.lenient:
            return ch.Answer(ch.pick(question, lambda total: self.dice.roll(1, total)[0]), "seeded")
        raise ch.refuse(question)

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
        self.depth += 1
        try:
            for statement in body:
                self.step(statement)
            # an exchange that ends the block resolves before what follows is tested
            self.resolve()
            if self.pending is not None:
                self.pending.closed_by_block = True
        finally:
            self.depth -= 1

    def without_defeated(self, s: n.Statement) -> n.Statement | None:
        """Inside `if` or `repeat`, a line for parties that are defeated (R7) is
        skipped, with a `skipped` event; a joint action or defence goes on
        without its defeated participants, a recovery without its defeated
        helpers (`fallen.without_defeated`). Returns the line to run, or None."""
        game = self.game
        pending = self.pending
        if isinstance(s, (n.Defence, n.Dictate, n.Reroll)) and pending is not None and pending.skipped:
            return None          # part of an exchange that was skipped
        standing = fallen.without_defeated(s, game, self.names.party)
        if standing.helpers_down:
            self.events.append(ev.skipped(s.pos.file, self.line(s), list(standing.helpers_down), game.drama.name,
                                          game.round))
        if standing.down:
            event = ev.skipped(s.pos.file, self.line(s), list(standing.down), game.drama.name, game.round)
            if isinstance(s, n.Defence) and pending is not None and not pending.resolved:
                pending.later.append(event)          # logged after the exchange it belongs to
            else:
                self.events.append(event)
            if standing.statement is None and isinstance(s, n.Action):
                self.pending = Pending(s, skipped=True, shift=self.shift)
        return standing.statement

    # ------------------------------------------------------------ statements

    def _scene(self, s: n.Scene) -> None:
        self.events.append(ev.scene(self.line(s), self.fill(s.title, s)))

    def _narration(self, s: n.Narration) -> None:
        self.events.append(ev.narration(self.line(s), self.fill(s.text, s)))

    def _drama(self, s: n.DramaBegin) -> None:
        ids = [self.names.party(name) for name in s.parties]
        self.events.append(ev.drama_begun(self.game.begin_drama(s.name, ids, s.round), self.line(s), s.kind))
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

    def _action(self, s: n.Action) -> None:
        self.pending = Pending(s, shift=self.shift)

    def _attach(self, statement: n.Statement, what: str) -> Pending:
        pending = self.pending
        if pending is None:
            raise DramaError("E002", f"{what} must follow the aggressive action it answers",
                             expected="an action (`NAME INTENT -> TARGET ...`) just before it")
        if pending.closed_by_block:
            raise DramaError("E002", f"{what} must follow its action directly, in the same block: an "
                             "`if`, `else`, `repeat` or `end` line in between ends the exchange",
                             hint="put the whole exchange (the action and its defences) in one block")
        if pending.resolved:
            raise DramaError("E002", f"{what} must come before the double-win options of its exchange")
        return pending

    def _defence(self, s: n.Defence) -> None:
        pending = self._attach(s, "a defence")
        if not pending.skipped:
            pending.defences.append(s)
            pending.defence_shifts.append(self.shift)

    def _tie(self, s: n.Tie) -> None:
        pending = self._attach(s, "a `tie` line")
        if self.mode.keeps_table_calls:
            pending.ties.append(s)
            pending.tie_shifts.append(self.shift)

    def _split(self, s: n.Split) -> None:
        pending = self._attach(s, "a `split` line")
        if pending.split is not None:
            raise DramaError("E002", "an exchange has one `split` line", position=s.pos)
        if self.mode.keeps_table_calls:
            pending.split = s
            pending.split_shift = self.shift

    def _option(self, s: n.Dictate | n.Reroll) -> None:
        pending = self.pending
        if pending is not None and not pending.resolved:
            self.resolve()
            if self.pending is None:       # the exchange itself failed (drama check goes on)
                return
        if pending is not None and pending.skipped:
            return
        pid = self.names.party(s.party)
        game = self.game
        drama = game.drama.name if game.drama else None
        if self.mode.options_need_a_double_win and not any(pid in option.parties for option in game.open_options):
            # a simulation's dice need not give the table's double win
            self.events.append(ev.skipped(s.pos.file, self.line(s), [pid], drama, game.round, "no double win"))
            return
        if isinstance(s, n.Dictate):
            result = game.take_option(pid, "dictate", text=self.fill(s.text, s))
        else:
            result = game.take_option(pid, "reroll", self.mode.rolled(s.dice))
        self.events.append(ev.option(result, self.line(s), drama, game.round))

    def engine_inputs(self, action: n.Action, defences=(), ties=(), split=None) -> tuple:
        """The engine's inputs (Action, Defences, ties, split) of an exchange as
        written, with names resolved, checked by `Game.plan` as the exchange
        would be (`drama odds` plans with them); an error points where it would
        in a run."""
        pending = Pending(action, list(defences), list(ties), split)
        where: dict[str, dict[str, Position]] = {}
        try:
            built = self.exchanges.inputs(pending, where)
            self.game.plan(built[0], built[1])
        except DramaError as error:
            error.at(error_position(error, pending, where))
            raise
        return built

    def resolve(self) -> None:
        """Resolve the exchange being declared, if any (its defences, ties and split are in)."""
        pending = self.pending
        if pending is None or pending.resolved or pending.skipped:
            return
        where: dict[str, dict[str, Position]] = {}
        try:
            action, defences, ties, split = self.exchanges.inputs(pending, where)
            result = self.game.exchange(action, defences, ties, split)
        except DramaError as error:
            self.pending = None
            if pending.moves:       # placed on the lines as written: the exchange read again from copies
                pending, where = pending.moved(), {}
                try:
                    self.exchanges.inputs(pending, where, cached=False)
                except DramaError as again:
                    error = again
            self.fail(error, error_position(error, pending, where))
            return
        pending.resolved = True
        self.last = result
        line = pending.action.pos.line + pending.shift
        if result.defeats:
            self.fallen.update(result.defeats)
        if self.mode.lean:
            self.events.extend(ev.defeat(line, pid) for pid in result.defeats)
        else:
            self.events.extend(ev.exchange(result, line, split, intent_quoted=pending.action.intent_quoted))
        if pending.later:
            self.events.extend(pending.later)

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
