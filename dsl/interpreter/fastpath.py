"""The fast path of `drama simulate`: a script compiled once into steps, its duels run by `engine.duel`, everything else by the interpreter's own handlers.

A simulation runs one script thousands of times in the `SIMULATE` mode. Most
of its time would go into exchanges of one party against one, every die
rolled, and into the walk over `if` and `repeat` blocks. `compile_script`
turns the script into a tree of small functions, once per program:

- an action of one party, followed by the target's own defence (one party,
  no `tie`, `split` or option lines after them), becomes a **duel**: its
  engine inputs are built once, and each run resolves it with
  `engine.duel.duel`, the engine's exchange specialised for that case. When
  the duel does not take the case (a party that cannot act, too many dice,
  a defeated defender ...), that exchange runs as the interpreter runs it,
  through `Game.exchange`, with the same dice still undrawn;
- `if` and `repeat` run their compiled bodies, with the interpreter's own
  rules for which arm runs and when a loop ends (`cursor.arm_taken`,
  `cursor.loop_ended`), keeping their depth in the interpreter's `Cursor` and
  logging their `branch` and `loop` events through `Interpreter.log`, with
  conditions on defeats read from the table directly and any other condition
  through `conditions.holds`;
- every other statement is handed to `Interpreter.step`, the interpreter's
  own code.

A statement it does not know (`tie`, `split`, a double-win option, a
condition on the last exchange, or any statement added to the language
later) makes `compile_script` raise `Unsupported` with the reason: the
script then runs in the interpreter (`drama simulate --verbose` says so).
Either way the events are the interpreter's, event for event:
`tests/test_compiled.py` runs random scripts both ways with the same seeds.
"""

from __future__ import annotations

from typing import Callable

from .. import events as ev
from ..engine.duel import Duel
from ..errors import DramaError, Position
from ..names import Names
from ..collector import paused_collector
from ..syntax import nodes as n
from . import conditions
from .core import Interpreter
from .cursor import arm_taken, loop_ended
from .exchanges import ExchangeBuilder, Pending
from .modes import SIMULATE

Step = Callable[[Interpreter], None]

# statements run by the interpreter's own step, whatever they do
_HANDED_OVER = n.kinds("handed_over")


class Unsupported(Exception):
    """The script has something the fast path does not take: `reason`, at `position`."""

    def __init__(self, reason: str, position: Position | None = None):
        super().__init__(reason)
        self.reason = reason
        self.position = position

    def __str__(self) -> str:
        where = f"{self.position.file}:{self.position.line}: " if self.position is not None else ""
        return where + self.reason


class Compiled:
    """A script compiled for `SIMULATE` runs; `run` gives the interpreter's events."""

    def __init__(self, steps: list[Step], duels: int):
        self.steps = steps
        self.duels = duels          # how many exchanges of the script are duels

    def run(self, interpreter: Interpreter) -> list[dict]:
        """Run the script on a fresh SIMULATE interpreter, as `Interpreter.run` would."""
        with paused_collector():
            for step in self.steps:
                step(interpreter)
            interpreter.finish()
        return interpreter.events


def compile_script(script: n.Script, names: Names) -> Compiled:
    """The script compiled for SIMULATE runs with this cast; raises Unsupported."""
    builder = ExchangeBuilder(names, SIMULATE)
    counted = [0]
    steps = _body(script.statements, names, builder, counted)
    return Compiled(steps, counted[0])


def _body(statements: tuple[n.Statement, ...], names: Names, builder: ExchangeBuilder, counted: list) -> list[Step]:
    steps: list[Step] = []
    i = 0
    while i < len(statements):
        s = statements[i]
        kind = type(s)
        if kind is n.Action:
            group, i = take_exchange(statements, i)
            one = _duel(group, builder)
            if one is not None:
                counted[0] += 1
            steps.append(one or _exchange(tuple(group)))
            continue
        if kind is n.IfBlock:
            steps.append(_if(s, names, builder, counted))
        elif kind is n.Loop:
            steps.append(_loop(s, names, builder, counted))
        elif kind in _HANDED_OVER:
            steps.append(_handed_over(s))
        else:
            raise Unsupported(f"a `{first_word(s)}` line", s.pos)
        i += 1
    return steps


def take_exchange(statements: tuple[n.Statement, ...], i: int) -> tuple[list[n.Statement], int]:
    """The action at `i` and the defences after it, and the index after them; a line that
    would change the exchange (tie, split, dictate, reroll, option) is Unsupported."""
    group = [statements[i]]
    i += 1
    while i < len(statements) and type(statements[i]) is n.Defence:
        group.append(statements[i])
        i += 1
    if i < len(statements) and type(statements[i]).part_of_exchange:
        raise Unsupported(f"a `{first_word(statements[i])}` line in an exchange", statements[i].pos)
    return group, i


def first_word(s: n.Statement) -> str:
    """The statement's first word, for the reason a fast path does not take it."""
    words = type(s).words
    return words[0] if words else type(s).__name__


def _handed_over(s: n.Statement) -> Step:
    def step(it: Interpreter) -> None:
        it.step(s)
    return step


def _exchange(group: tuple[n.Statement, ...]) -> Step:
    """An exchange as the interpreter runs it: its lines stepped, then resolved
    (what the next statement, or the end of the block, would do)."""
    def step(it: Interpreter) -> None:
        for s in group:
            it.step(s)
        it.resolve()
        it.pending = None
    return step


def _duel(group: list[n.Statement], builder: ExchangeBuilder) -> Step | None:
    """The step of an action of one party against one, defended by its target
    alone; None when the exchange is not of that kind."""
    if len(group) != 2:
        return None
    action, defence = group
    if len(action.actors) != 1 or action.participants or action.target is None or action.extra_targets \
            or action.qualifiers or action.gm_target is not None:
        return None
    try:
        built = builder.inputs(Pending(action, [defence]), {})
    except DramaError:
        return None             # the interpreter meets the error in each run, where it should
    engine_action, defences, _, _ = built
    if len(engine_action.parts) != 1 or len(defences) != 1 or len(defences[0].parts) != 1:
        return None
    attack, guard = engine_action.parts[0], defences[0].parts[0]
    a, d = attack.party, guard.party
    if d != engine_action.target:
        return None
    duel = Duel.plan(attack, guard, builder.names.sheets)
    if duel is None:
        return None
    file, line = action.pos.file, action.pos.line
    general = _exchange(tuple(group))

    def step(it: Interpreter) -> None:
        # (no exchange is pending between the steps of a compiled script)
        if it.cursor.looping:                   # its two lines, as `Interpreter.step` counts them
            it.tick(action.pos)
            it.tick(defence.pos)
        game = it.game
        drama = game.drama
        if it.fallen and drama is not None and game.parties[a].defeated:
            # the action and its defence are skipped (R7); (a defeated defender: the duel
            # does not take it, the interpreter does, RULES.md point 15)
            it.log(ev.skipped(file, line, [a], drama.name, drama.round))
            return
        defeats = duel(game)
        if defeats is None:
            general(it)
        elif defeats:
            it.fell(line, defeats)
    return step


def _block(it: Interpreter, steps: list[Step]) -> None:
    """The body of a block, as `Interpreter._block` runs it (its last exchange is
    resolved already: no exchange is pending between the steps of a compiled script)."""
    cursor = it.cursor
    cursor.enter()
    try:
        for step in steps:
            step(it)
    finally:
        cursor.leave()


def _if(s: n.IfBlock, names: Names, builder: ExchangeBuilder, counted: list) -> Step:
    arms = [(arm.pos.line, arm.text, None if arm.condition is None else _condition(arm.condition, names),
             _body(arm.body, names, builder, counted)) for arm in s.arms]
    file, line, pos = s.pos.file, s.pos.line, s.pos

    def step(it: Interpreter) -> None:
        if it.cursor.looping:                   # its own line, as `Interpreter.step` counts it
            it.tick(pos)
        try:
            arm = arm_taken(arms, lambda arm: arm[2] is None or arm[2](it))
            if arm is None:
                it.log(ev.branch(file, line, None, None))
                return
            taken, text, _, body = arm
            it.log(ev.branch(file, line, taken, text))
            _block(it, body)
        except DramaError as error:
            it.fail(error, pos)
    return step


def _loop(s: n.Loop, names: Names, builder: ExchangeBuilder, counted: list) -> Step:
    holds = None if s.condition is None else _condition(s.condition, names)
    conditional = holds is not None
    body = _body(s.body, names, builder, counted)
    file, line, bound, pos = s.pos.file, s.pos.line, s.bound, s.pos

    def step(it: Interpreter) -> None:
        cursor = it.cursor
        if cursor.looping:                      # its own line, as `Interpreter.step` counts it
            it.tick(pos)
        try:
            passes = 0
            cursor.enter_loop()
            try:
                while True:
                    ended = loop_ended(conditional and holds(it), passes, bound, conditional)
                    if ended is not None:
                        break
                    it.tick(pos)        # each pass counts against the budget (dsl/limits.py)
                    _block(it, body)
                    passes += 1
            finally:
                cursor.leave_loop()
            it.log(ev.loop_ended(file, line, passes, ended, bound))
        except DramaError as error:
            it.fail(error, pos)
    return step


def _condition(c: n.Condition, names: Names) -> Callable[[Interpreter], bool]:
    """A condition as a function of the interpreter: `conditions.holds`, with
    defeats read from the table directly."""
    kind = type(c)
    if kind is n.LastExchange:
        raise Unsupported("a condition on the last exchange", c.pos)
    if kind is n.Defeated:
        try:
            pid = names.party(c.party)
        except DramaError:
            return lambda it: conditions.holds(c, it)
        negated = c.negated
        if c.was:
            return lambda it: (pid in it.fallen) != negated
        return lambda it: it.game.parties[pid].defeated != negated
    if kind is n.And:
        left, right = _condition(c.left, names), _condition(c.right, names)
        return lambda it: left(it) and right(it)
    if kind is n.Or:
        left, right = _condition(c.left, names), _condition(c.right, names)
        return lambda it: left(it) or right(it)
    if kind is n.Not:
        operand = _condition(c.operand, names)
        return lambda it: not operand(it)
    return lambda it: conditions.holds(c, it)
