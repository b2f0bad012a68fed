"""The compiled plan of `drama simulate`: a whole script turned once into one Python function of a run, which draws the dice `drama run --seed` draws and counts its outcome straight into a `Tally`, with no events and no interpreter.

What a run of the skirmish does that depends on the dice is small: a few
dozen duels, which arm of each `if` runs, how many passes a `repeat` makes.
Everything else is known before the first die: which dramatic situation is
running at each line (a `drama` and `end drama` are top-level lines), who
its members are, each party's pool, trait and treasure (R3, read by
`engine.duel.Duel.plan`, the duel of the fast path), the conditions'
parties. `compile_plan` resolves all of that once and writes the rest as the
source of one function, compiled once per scenario, whose locals are the
table: each party's available quintessence, whether it fell, whether it
acted this round, the round, the rest taken, each flag and counter.

The dice come from the run's own `random.Random(seed)`, as `SeededDice`
draws them, but drawn in bulk (`simulation_run.drawer`): a duel's dice are a
slice of the run's stream of faces.

Anything a run might do that the plan does not do itself, it does not
guess: a statement it does not know makes `compile_plan` raise `Unsupported`
(the script then runs on the fast path or the interpreter, as before), and a
run that meets a case it does not take (a party acting twice in a round,
more dice than the rules allow, an `initiative` after someone acted: the
cases where the interpreter would raise) raises `Bail`, and that run is run
again by the interpreter from its seed, so that a run's outcome never
depends on what the plan covers. `tests/test_plan.py` checks the counts of
generated scripts against the interpreter's, seed for seed.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Callable

from .engine.duel import Duel
from .errors import DramaError
from .interpreter.exchanges import ExchangeBuilder, Pending
from .interpreter.fastpath import Unsupported, first_word, take_exchange
from .interpreter.modes import SIMULATE
from .limits import MAX_DICE, MAX_STEPS
from .names import Names
from .placeholders import GLOBALS, has_placeholders
from .simulation_run import Bail, counter, drawer, flag, initiative, refill, set_counter, set_flag
from .simulation_tally import Slot, Tally
from .syntax import nodes as n

__all__ = ["Bail", "Plan", "Unsupported", "compile_plan"]

MAX_DEPTH = 12              # blocks nested deeper: not planned (Python's own limit is 20)
MAX_LINES = 30_000          # a longer run's source (a long play log, say) is not planned: compiling it would cost more
_OPS = {"<": "<", "<=": "<=", ">": ">", ">=": ">=", "=": "==", "!=": "!="}


class _Drama:
    """A dramatic situation as the plan knows it before the dice: its place among the
    run's situations, its members (party indexes) and its summary's key."""

    def __init__(self, index: int, key: str, ids: tuple[str, ...], members: tuple[int, ...], own):
        self.index, self.key, self.ids, self.members, self.own = index, key, ids, members, own


class Plan:
    """A script compiled for SIMULATE runs: `runner(tally)` gives `run(seed)`, which
    counts one run into the tally, or raises `Bail` having counted nothing."""

    def __init__(self, source: str, factory: Callable, slots: list[Slot], dramas: list[_Drama],
                 duels: int, parties: tuple[str, ...], maxima: tuple[int, ...], state: tuple[str, ...]):
        self.source = source
        self._factory = factory
        self.slots = slots
        self.dramas = dramas
        self.duels = duels
        self.parties = parties
        self.maxima = maxima
        self.state = state              # the flags and counters, in the order of the tally's counts

    def tally(self) -> Tally:
        return Tally(self)

    def runner(self, tally: Tally) -> Callable[[int], None]:
        return self._factory(tally)


def compile_plan(script: n.Script, names: Names, settings, state: dict | None = None) -> Plan:
    """The plan of `script` with this cast and setting; raises Unsupported."""
    return _Compiler(names, settings, dict(state or {})).plan(script)


class _Compiler:
    """Writes the source of a run, statement by statement, knowing which
    situation is running at each (`drama`), and collects the tally's slots."""

    def __init__(self, names: Names, settings, state: dict):
        self.names = names
        self.settings = settings
        self.state = {name: k for k, name in enumerate(state)}     # flag or counter -> its local `v{k}`
        self.initial = state
        self.ids = tuple(names.sheets)
        self.index = {pid: k for k, pid in enumerate(self.ids)}
        self.builder = ExchangeBuilder(names, SIMULATE)
        self.lines: list[str] = []
        self.slots: list[Slot] = []
        self.dramas: list[_Drama] = []
        self.seen: Counter = Counter()
        self.drama: _Drama | None = None
        self.loops = 0
        self.duels = 0

    # ------------------------------------------------------------ the whole run

    def plan(self, script: n.Script) -> Plan:
        if self.settings.ties not in ("actor", "defender", "random", "vote"):
            raise Unsupported(f"ties: {self.settings.ties}")
        draw = drawer(self.settings.sides)
        if draw is None:
            raise Unsupported(f"dice of {self.settings.sides} sides")
        if _ticks(script.statements, False) > MAX_STEPS:
            raise Unsupported("loops that may run past the step budget")
        self._body(script.statements, 2, top=True)
        if self.drama is not None:
            self._close(self.drama, 2)
        body = self.lines
        self.lines = []
        parties = range(len(self.ids))
        emit = self._emit
        emit("def factory(tally):", 0)
        emit("vectors, loop_ends, finals, rounds, masks, states = tally.vectors, tally.loop_ends, "
             "tally.finals, tally.rounds, tally.masks, tally.states", 1)
        emit("def run(seed):", 1)
        emit("bits = Random(seed).getrandbits", 2)
        emit("F = draw(bits); nf = len(F); i = 0", 2)
        emit(f"c = [0] * {len(self.slots) or 1}; ends = []", 2)
        emit("rnd = 1; any_ = False; rested = 0", 2)
        for name, k in self.state.items():
            emit(f"v{k} = {self.initial.get(name)!r}", 2)
        for k in parties:
            emit(f"a{k} = {self.names.sheets[self.ids[k]].quintessence}; f{k} = False; x{k} = False", 2)
        self.lines.extend(body)
        emit("vectors[tuple(c)] += 1", 2)
        emit("for e in ends: loop_ends[e] += 1", 2)
        for k in parties:
            emit(f"finals[{k}][a{k}] += 1", 2)
        for d in self.dramas:
            emit(f"rounds[{d.index}][r{d.index}] += 1; masks[{d.index}][m{d.index}] += 1", 2)
        for k in self.state.values():
            emit(f"if v{k} is not None: states[{k}][v{k}] += 1", 2)
        emit("return run", 1)
        source = "\n".join(self.lines) + "\n"
        scope = {"Random": random.Random, "Bail": Bail, "draw": draw, "initiative": initiative,
                 "refill": refill, "flag": flag, "counter": counter, "set_flag": set_flag,
                 "set_counter": set_counter}
        exec(compile(source, "<simulation plan>", "exec"), scope)
        maxima = tuple(self.names.sheets[pid].quintessence for pid in self.ids)
        return Plan(source, scope["factory"], self.slots, self.dramas, self.duels, self.ids, maxima,
                    tuple(self.state))

    def _emit(self, text: str, depth: int) -> None:
        if len(self.lines) >= MAX_LINES:
            raise Unsupported(f"a script too long to plan (more than {MAX_LINES:,} lines of plan)")
        self.lines.append("    " * depth + text)

    def _slot(self, slot: Slot) -> int:
        self.slots.append(slot)
        return len(self.slots) - 1

    # ------------------------------------------------------------ statements

    def _body(self, statements: tuple[n.Statement, ...], depth: int, top: bool = False) -> None:
        if depth > MAX_DEPTH:
            raise Unsupported("blocks nested too deep")
        before = len(self.lines)
        i = 0
        while i < len(statements):
            s = statements[i]
            kind = type(s)
            if kind is n.Action:
                group, i = take_exchange(statements, i)
                self._duel(group, depth)
                continue
            if kind is n.IfBlock:
                self._if(s, depth)
            elif kind is n.Loop:
                self._loop(s, depth)
            elif kind is n.Round:
                self._round(s, depth)
            elif kind is n.Initiative:
                self._initiative(s, depth)
            elif kind is n.SetState:
                self._set(s, depth)
            elif kind in (n.Calm, n.Rest):
                self._time(s, depth)
            elif kind in (n.Scene, n.Narration):
                if has_placeholders(s.title if kind is n.Scene else s.text):
                    raise Unsupported("a text with placeholders", s.pos)
            elif kind is n.DramaBegin and top:
                self._begin(s, depth)
            elif kind is n.EndDrama:
                self._end(s, depth)
            else:
                raise Unsupported(f"a `{first_word(s)}` line", s.pos)
            i += 1
        if len(self.lines) == before:
            self._emit("pass", depth)

    def _party(self, name: n.Name, possessed: bool = False) -> int:
        try:
            pid = self.names.possessed(name) if possessed else self.names.party(name)
        except DramaError as error:
            raise Unsupported(error.message, name.pos)
        return self.index[pid]

    def _begin(self, s: n.DramaBegin, depth: int) -> None:
        if self.drama is not None:
            raise Unsupported("a situation begun while another runs", s.pos)
        members = tuple(self._party(name) for name in s.parties)
        if not members or len(set(members)) != len(members) or s.quarry:
            raise Unsupported("a `drama` line the plan does not take", s.pos)
        if s.round is None:
            own = None
        elif s.round.unit == "round" or s.round.seconds(0) <= 0:
            raise Unsupported("a round of no length", s.pos)
        else:
            own = s.round.seconds(0)
        self.seen[s.name] += 1
        key = s.name if self.seen[s.name] == 1 else f"{s.name} ({self.seen[s.name]})"
        self.drama = _Drama(len(self.dramas), key, tuple(self.ids[k] for k in members), members, own)
        self.dramas.append(self.drama)
        # (the fallen of the last situation are forgotten; its members stand and have not acted)
        self._emit("rnd = 1; any_ = False; " + "; ".join(f"f{k} = False" for k in range(len(self.ids))), depth)
        self._emit("; ".join(f"x{k} = False" for k in members), depth)

    def _close(self, drama: _Drama, depth: int) -> None:
        mask = " | ".join(f"f{k} << {place}" for place, k in enumerate(drama.members))
        self._emit(f"r{drama.index} = rnd; m{drama.index} = {mask}", depth)

    def _end(self, s: n.EndDrama, depth: int) -> None:
        if self.drama is None or has_placeholders(s.text):
            raise Unsupported("an `end drama` the plan does not take", s.pos)
        self._close(self.drama, depth)
        self._emit("rested = 0", depth)        # (the rest counts from here, point 12)
        self.drama = None       # (its fallen stay fallen: `was defeated`)

    def _in_drama(self, s: n.Statement) -> _Drama:
        if self.drama is None:
            raise Unsupported(f"a `{first_word(s)}` line outside a dramatic situation", s.pos)
        return self.drama

    def _round(self, s: n.Round, depth: int) -> None:
        drama = self._in_drama(s)
        # R13: round 1 while nobody has acted (nobody holds in a plan); else the next
        self._emit("if rnd != 1 or any_:", depth)
        self._emit("rnd += 1; any_ = False; " + "; ".join(f"x{k} = False" for k in drama.members), depth + 1)

    def _initiative(self, s: n.Initiative, depth: int) -> None:
        drama = self._in_drama(s)
        if s.entries:
            raise Unsupported("an `initiative` with results or traits", s.pos)
        self._emit("if any_: raise Bail", depth)           # E312: after someone acted
        self._emit(f"F, i = initiative(F, i, {len(drama.members)}, bits, draw); nf = len(F)", depth)

    def _time(self, s: n.Calm | n.Rest, depth: int) -> None:
        """`calm` and `rest` (`Game.pass_time`): only a full rest changes what a simulation
        counts, every party restored (R16, point 12: the rests since the last situation add up)."""
        seconds = self.settings.seconds(s.duration)
        if self.drama is not None or seconds < 0:
            raise Unsupported(f"a `{first_word(s)}` the plan does not take", s.pos)
        if type(s) is n.Rest:
            full = self.settings.seconds(self.settings.full_rest)
            self._emit(f"rested += {seconds}", depth)
            self._emit(f"if rested >= {full}:", depth)
            self._emit("rested = 0; " + "; ".join(f"a{k} = {self.names.sheets[pid].quintessence}"
                                                  for k, pid in enumerate(self.ids)), depth + 1)
        else:
            self._emit("pass", depth)

    def _variable(self, name: str) -> str:
        if name not in self.state:
            self.state[name] = len(self.state)
        return f"v{self.state[name]}"

    def _set(self, s: n.SetState, depth: int) -> None:
        """`set`: a flag or a counter (`Interpreter._set`, `State.set`)."""
        name = s.name.text
        if name in self.names.known() or name in GLOBALS:
            self._emit("raise Bail", depth)         # E208
            return
        value = self._value(s.value) if not isinstance(s.value, bool) else None
        variable = self._variable(name)
        if value is None:
            self._emit(f"{variable} = set_flag({variable}, {s.value!r})", depth)
        else:
            self._emit(f"{variable} = set_counter({variable}, {value})", depth)

    # ------------------------------------------------------------ duels

    def _duel(self, group: list[n.Statement], depth: int) -> None:
        """An action against one party defended by it alone: R2-R8 as `engine.duel` applies them."""
        action = group[0]
        drama = self._in_drama(action)
        if len(group) != 2 or len(action.actors) != 1 or action.participants or action.target is None \
                or action.extra_targets or action.qualifiers or action.gm_target is not None:
            raise Unsupported("an exchange that is not a duel", action.pos)
        try:
            engine_action, defences, _, _ = self.builder.inputs(Pending(action, [group[1]]), {}, cached=False)
        except DramaError as error:
            raise Unsupported(error.message, action.pos)
        if len(engine_action.parts) != 1 or len(defences) != 1 or len(defences[0].parts) != 1:
            raise Unsupported("an exchange that is not a duel", action.pos)
        attack, guard = engine_action.parts[0], defences[0].parts[0]
        if guard.party != engine_action.target:
            raise Unsupported("an exchange that is not a duel", action.pos)
        duel = Duel.plan(attack, guard, self.names.sheets)
        a, d = self.index[attack.party], self.index[guard.party]
        if duel is None or a not in drama.members or d not in drama.members:
            # what the duel refuses whatever the table (a trait it lacks, more dice than its cap):
            # the interpreter raises what applies, or skips it
            self._emit("raise Bail", depth)
            return
        self.duels += 1
        skip = self._slot(Slot("skip", action.pos.file, action.pos.line))
        emit = self._emit
        emit(f"if f{a} or f{d}:", depth)                 # R7, point 15: skipped
        emit(f"c[{skip}] += 1", depth + 1)
        emit(f"elif x{a}:", depth)                       # E309: it acted this round
        emit("raise Bail", depth + 1)
        emit("else:", depth)
        body = depth + 1
        (base_a, most_a, limit_a), (base_d, most_d, limit_d) = duel.plan_a, duel.plan_d
        for name, party, most, limit in (("n1", a, most_a, limit_a), ("n2", d, most_d, limit_d)):   # R3
            if most:
                emit(f"{name} = {limit} if {limit} < a{party} else a{party}", body)
            else:
                if limit:
                    emit(f"if {limit} > a{party}: raise Bail", body)     # E301
                emit(f"{name} = {limit}", body)
        if limit_a + limit_d > MAX_DICE:
            emit(f"if n1 + n2 > {MAX_DICE}: raise Bail", body)          # E015
        emit("s = i; k = s + n1 + n2", body)                            # R2: both sides' dice
        emit("if k > nf: F = refill(F, s, k - s, bits, draw); nf = len(F); s = 0; k = n1 + n2", body)
        emit("j = s + n1; i = k", body)
        emit(f"va = {base_a} + sum(F[s:j]); vd = {base_d} + sum(F[j:k])", body)
        emit(f"x{a} = True; any_ = True; z1 = not a{a}; z2 = not a{d}", body)      # R9; R7 at zero
        emit("o = F.count(1, s, j)", body)                              # R6: ones
        emit(f"if o: a{a} = a{a} - o if o < a{a} else 0", body)
        emit("o = F.count(1, j, k)", body)
        emit(f"if o: a{d} = a{d} - o if o < a{d} else 0", body)
        high_a, high_d = self._highs("s", "j"), self._highs("j", "k")
        ties = self.settings.ties
        if ties == "actor":                                             # R5, R11
            emit(f"w = va >= vd; h = {high_a} if w else {high_d}", body)
        elif ties == "defender":
            emit(f"w = va > vd; h = {high_a} if w else {high_d}", body)
        else:                                                           # a roll-off of the seeded dice
            emit(f"if va > vd: w = True; h = {high_a}", body)
            emit(f"elif va < vd: w = False; h = {high_d}", body)
            emit("else:", body)
            emit(f"h1 = {high_a}; h2 = {high_d}", body + 1)
            emit("while True:", body + 1)
            emit("if i + 2 > nf: F = refill(F, i, 2, bits, draw); nf = len(F); i = 0", body + 2)
            emit("p = F[i]; q = F[i + 1]; i += 2", body + 2)
            emit("if p != q: break", body + 2)
            emit("w = p > q; h = h1 if w else h2", body + 1)
        emit("o = 1 + h", body)                                         # R6: the loss, R7: a defeat
        emit("if w:", body)
        emit(f"a{d} = a{d} - o if o < a{d} else 0", body + 1)
        emit(f"if z2: f{d} = True", body + 1)
        emit("else:", body)
        emit(f"a{a} = a{a} - o if o < a{a} else 0", body + 1)
        emit(f"if z1: f{a} = True", body + 1)

    def _highs(self, start: str, stop: str) -> str:
        """The count of dice showing `high` or more among F[start:stop] (R6)."""
        sides, high = self.settings.sides, self.settings.high
        return " + ".join(f"F.count({face}, {start}, {stop})" for face in range(high, sides + 1))

    # ------------------------------------------------------------ control flow

    def _if(self, s: n.IfBlock, depth: int) -> None:
        file, line = s.pos.file, s.pos.line
        before = self.drama
        after = set() if s.arms[-1].condition is None else {id(before)}
        for place, arm in enumerate(s.arms):
            self.drama = before
            if arm.condition is None and place != len(s.arms) - 1:
                raise Unsupported("an `else` before another arm", arm.pos)
            slot = self._slot(Slot("arm", file, line, arm.pos.line, arm.text))
            if arm.condition is None:
                self._emit("else:", depth)
            else:
                self._emit(f"{'if' if place == 0 else 'elif'} {self._condition(arm.condition)}:", depth)
            self._emit(f"c[{slot}] += 1", depth + 1)
            self._body(arm.body, depth + 1)
            after.add(id(self.drama))
        if len(after) > 1:          # (an `end drama` in some arms only: which situation runs after it is not known)
            raise Unsupported("an `end drama` in some ways through an `if` only", s.pos)
        if s.arms[-1].condition is not None:                # no arm ran
            slot = self._slot(Slot("arm", file, line, None, None))
            self._emit("else:", depth)
            self._emit(f"c[{slot}] += 1", depth + 1)

    def _loop(self, s: n.Loop, depth: int) -> None:
        slot = self._slot(Slot("loop", s.pos.file, s.pos.line, bound=s.bound))
        passes = f"p{self.loops}"
        self.loops += 1
        self._emit(f"{passes} = 0", depth)
        self._emit("while True:", depth)
        if s.condition is not None:
            self._emit(f"if {self._condition(s.condition)}: e = 'until'; break", depth + 1)
        self._emit(f"if {passes} >= {s.bound}: e = '{'bound' if s.condition is not None else 'count'}'; break",
                   depth + 1)
        before = self.drama
        self._body(s.body, depth + 1)
        if self.drama is not before:
            raise Unsupported("an `end drama` inside a loop", s.pos)
        self._emit(f"{passes} += 1", depth + 1)
        self._emit(f"c[{slot}] += 1; ends.append(({slot}, {passes}, e))", depth)

    def _condition(self, c: n.Condition) -> str:
        """A condition as a Python expression of the run's locals (`conditions.holds`)."""
        kind = type(c)
        if kind is n.Defeated:
            k = self._party(c.party)
            if c.was:
                down = f"f{k}"          # the fallen of the running, or else the last, situation
            else:
                down = f"f{k}" if self.drama is not None and k in self.drama.members else "False"
            return f"(not {down})" if c.negated else down
        if kind is n.And:
            return f"({self._condition(c.left)} and {self._condition(c.right)})"
        if kind is n.Or:
            return f"({self._condition(c.left)} or {self._condition(c.right)})"
        if kind is n.Not:
            return f"(not {self._condition(c.operand)})"
        if kind is n.InDrama:
            return "True" if self.drama is not None else "False"
        if kind is n.Compare:
            return f"({self._value(c.left)} {_OPS[c.op]} {self._value(c.right)})"
        if kind is n.Flag:
            return f"flag({self._variable(c.name.text)})"
        raise Unsupported(f"a condition `{type(c).__name__}`", c.pos)

    def _value(self, v) -> str:
        if type(v) is n.Sum:
            return "(" + " ".join(f"{'+' if sign > 0 else '-'} {self._value(q)}" for sign, q in v.terms) + ")"
        if v.kind == "number":
            return str(int(v.value))
        if v.kind == "round":
            return "rnd" if self.drama is not None else "0"
        if v.kind == "counter":
            return f"counter({self._variable(v.name.text)})"
        if v.kind in ("quintessence", "damage"):
            k = self._party(v.party, possessed=True)
            return f"a{k}" if v.kind == "quintessence" else f"({self.names.sheets[self.ids[k]].quintessence} - a{k})"
        raise Unsupported(f"a quantity `{v.kind}`", v.pos)




def _ticks(statements: tuple[n.Statement, ...], looping: bool) -> int:
    """The most the statements can count against the run's step budget (E012,
    `Interpreter.tick`): inside a loop each line once, and each pass once."""
    total = 0
    for s in statements:
        kind = type(s)
        own = 1 if looping else 0
        if kind is n.IfBlock:
            total += own + max((_ticks(arm.body, looping) for arm in s.arms), default=0)
        elif kind is n.Loop:
            total += own + s.bound * (1 + _ticks(s.body, True))
        else:
            total += own
    return total
