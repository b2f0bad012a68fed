"""The interpreter: walks a script's statements, drives the engine, and emits the event log."""

from __future__ import annotations

import gc
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Callable, Iterable

from . import events as ev
from . import placeholders
from .engine import GM, Action, Defence, Game, Helping, Part, PartySheet, SeededDice, Settings, Throw
from .errors import DramaError, Position, did_you_mean, one_of
from .syntax import NAME_ENDS
from .syntax import nodes as n


@dataclass
class _Pending:
    """An exchange being declared: its action and what belongs to it so far."""

    action: n.Action
    defences: list[n.Defence] = field(default_factory=list)
    ties: list[n.Tie] = field(default_factory=list)
    split: n.Split | None = None
    resolved: bool = False
    skipped: bool = False        # its actors are defeated: what belongs to it is skipped too
    later: list = field(default_factory=list)   # `skipped` events of its defences, logged after it
    closed_by_block: bool = False  # an `if` or `repeat` line resolved it


class Interpreter:
    """Runs scripts on one game table and collects the events.

    With `errors` set to a list (as `drama check` does), an error in a statement is
    recorded and the run goes on with the next statement, so that one pass finds
    as many errors as it can; otherwise the first error is raised.
    """

    def __init__(self, settings: Settings, sheets: Iterable[PartySheet], *, title: str = "",
                 seed: int = 0, lenient: bool = False, errors: list[DramaError] | None = None,
                 roles: dict[str, str] | None = None, roll_given: bool = False, lean: bool = False,
                 inputs: dict | None = None):
        self.settings = settings
        # `drama simulate`: every die given in the script is rolled afresh instead
        self.roll_given = roll_given
        # `drama simulate` again: an exchange logs only its defeats, not its mechanics
        self.lean = lean
        # the engine's inputs of each exchange as written, shared by the runs of one
        # script (see _declared); None: built every time
        self._inputs = inputs
        self.sheets = {sheet.id: sheet for sheet in sheets}
        self.roles = dict(roles or {})          # an adventure's role -> the party bound to it
        self.seed = seed
        self.game = Game(self.sheets.values(), settings, SeededDice(seed), lenient=lenient)
        self.errors = errors
        self.events: list[dict] = [ev.start(title, settings, self.sheets.values(), self.game.states(), seed)]
        self._pending: _Pending | None = None
        self._failed: set[tuple] = set()
        self._depth = 0              # how many `if` and `repeat` blocks the current statement is in
        self._last = None           # the engine's result of the last exchange, for `last exchange`
        self._fallen: set[str] = set()    # defeated in the running, or else the last, situation
        self._handlers: dict[type, Callable] = {
            n.Scene: self._scene, n.Narration: self._narration, n.DramaBegin: self._drama,
            n.Initiative: self._initiative, n.Round: self._round, n.Hold: self._hold,
            n.Action: self._action, n.Defence: self._defence, n.Tie: self._tie, n.Split: self._split,
            n.Dictate: self._option, n.Reroll: self._option, n.Recover: self._recover,
            n.EndDrama: self._end_drama, n.Calm: self._time, n.Rest: self._time,
            n.IfBlock: self._if, n.Loop: self._loop,
        }
        # the statements a defeated party's line is skipped for, inside control flow
        self._may_skip = (n.Action, n.Defence, n.Hold, n.Recover, n.Dictate, n.Reroll)

    # ------------------------------------------------------------ running

    def run(self, script: n.Script) -> list[dict]:
        """Run every statement, then close the log with the `final` event."""
        with _few_collections():
            for statement in script.statements:
                self.step(statement)
            self.finish()
        return self.events

    def step(self, statement: n.Statement) -> None:
        kind = type(statement)
        handler = self._handlers[kind]
        if kind is n.IfBlock or kind is n.Loop:
            # the exchange being declared ends here, but its double-win options
            # may still come, inside the block
            self._resolve()
            if self._pending is not None:
                self._pending.closed_by_block = True
        elif not isinstance(statement, (n.Defence, n.Tie, n.Split, n.Dictate, n.Reroll)):
            self._resolve()          # the exchange being declared ends here
            self._pending = None
        try:
            # (only defeats of the running situation matter, and they are in _fallen)
            if (self._depth or self.roll_given) and self._fallen and kind in self._may_skip \
                    and self.game.drama is not None:
                statement = self._without_defeated(statement)
                if statement is None:
                    return
            handler(statement)
        except DramaError as error:
            self._fail(error, statement.pos)

    def finish(self) -> None:
        self._resolve()
        self._pending = None
        self.events.append(ev.final(self.game.states(), self.game.time))

    def _fail(self, error: DramaError, pos: Position) -> None:
        error.at(pos)
        if self.errors is None:
            raise error
        # a statement in a loop may fail on every pass: once is enough
        key = (error.code, error.position, error.message)
        if key not in self._failed:
            self._failed.add(key)
            self.errors.append(error)

    # ------------------------------------------------------------ names

    def _party(self, name: n.Name) -> str:
        if name.text in self.sheets:
            return name.text
        if name.text in self.roles:
            return self.roles[name.text]
        raise DramaError("E201", f"there is no party '{name.text}' in the cast", position=name.pos,
                         expected=f"one of {one_of(self.sheets)}",
                         hint=did_you_mean(name.text, self.sheets) or self._misspelt_keyword(name.text))

    def _misspelt_keyword(self, text: str) -> str | None:
        """`Bren wiht Sorcery` reads as one long name: a party, then a word close
        to a keyword that would have ended the name."""
        words = text.split(" ")
        for index in range(1, len(words)):
            head = " ".join(words[:index])
            if head not in self.sheets:
                continue
            hint = did_you_mean(words[index], NAME_ENDS)
            if hint is not None:
                keyword = hint.split("'")[1]
                rest = " ".join([keyword, *words[index + 1:]])
                return f"did you mean '{head} {rest}'?"
        return None

    def _fill(self, text: str, s: n.Statement) -> str:
        """The text with its placeholders filled in from the state now."""
        if not placeholders.has_placeholders(text):
            return text
        return placeholders.fill(text, Position(s.pos.file, s.pos.line, s.column), self._placeholder)

    def _placeholder(self, inside: str, at: Position) -> str:
        """The value of one placeholder: `{round}`, `{drama}`, `{hero}`, `{hero.quintessence}`..."""
        game = self.game
        name, field = placeholders.split(inside, at, [*self.roles, *self.sheets])
        if name not in self.sheets and name not in self.roles:      # one of placeholders.GLOBALS
            if name == "round":
                return str(game.round or 0)
            return game.drama.name if game.drama is not None else ""
        pid = self._party(n.Name(name, at))
        sheet = self.sheets[pid]
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

    def _uses(self, pid: str, uses: n.Uses) -> tuple[str | None, str | None]:
        """Sort `with A + B` into the party's trait and treasure; `with MOVE` uses
        the trait and treasure of one of the party's moves."""
        sheet = self.sheets[pid]
        trait = treasure = None
        if len(uses.names) == 1:
            name = uses.names[0].text
            if name not in sheet.traits and name not in sheet.treasures and name in sheet.moves:
                move = sheet.moves[name]
                return move.trait, move.treasure
        for name in uses.names:
            if name.text in sheet.traits:
                if trait is not None:
                    raise DramaError("E202", f"{pid} may use one trait, not both {trait} and {name.text} (R2)",
                                     position=name.pos)
                trait = name.text
            elif name.text in sheet.treasures:
                if treasure is not None:
                    raise DramaError("E202", f"{pid} may use one treasure, not both {treasure} and {name.text} (R2)",
                                     position=name.pos)
                treasure = name.text
            else:
                known = [*sheet.traits, *sheet.treasures]
                raise DramaError("E202", f"{pid} has no trait or treasure '{name.text}'", position=name.pos,
                                 expected=f"one of {one_of(known)}" if known else "no `with`: "
                                 f"{pid} has no traits or treasures",
                                 hint=did_you_mean(name.text, [*known, *sheet.moves]))
        return trait, treasure

    def _throw(self, dice: n.Dice) -> Throw:
        if dice.kind == "given":
            if self.roll_given:      # as many dice as were given, if the rules still allow them
                return Throw.at_most(len(dice.faces))
            return Throw.given(*dice.faces, rerolls=dice.rerolled or ())
        if dice.kind == "roll":
            return Throw.roll(dice.count)
        return Throw.none()

    def _part(self, name: n.Name, uses: n.Uses, gm: int, dice: n.Dice, intent: str | None = None) -> Part:
        """One party's part; with no `with`, the party's move for the intent applies
        (for a defence, its `defend` move)."""
        pid = self._party(name)
        trait, treasure = self._uses(pid, uses)
        if not uses.names and intent is not None:
            move = self.sheets[pid].moves.get(intent)
            if move is not None:
                trait, treasure = move.trait, move.treasure
        return Part(pid, trait, treasure, self._throw(dice), gm)

    def _parts(self, names: tuple[n.Name, ...], participants: tuple[n.Participant, ...], gm: int,
               uses: n.Uses, dice: n.Dice, pos: Position, intent: str | None,
               where: dict[str, dict[str, Position]]) -> tuple[Part, ...]:
        """The parts of a side: one party's own line, or a joint side's indented lines."""
        if len(names) == 1 and not participants:
            part = self._part(names[0], uses, gm, dice, intent)
            where[part.party] = {"party": names[0].pos, "uses": uses.pos or pos, "dice": dice.pos or pos}
            return (part,)
        ids = [self._party(name) for name in names]
        if uses.names or dice.kind != "none":
            raise DramaError("E002", "in a joint action or defence each party's trait, treasure and dice "
                             "go on its own indented line", position=uses.pos or dice.pos or pos)
        lines: dict[str, n.Participant] = {}
        for line in participants:
            pid = self._party(line.party)
            if pid not in ids:
                raise DramaError("E002", f"{pid} is not one of {' & '.join(ids)}", position=line.party.pos,
                                 expected=f"a line for {one_of(ids)}", hint=did_you_mean(pid, ids))
            if pid in lines:
                raise DramaError("E002", f"{pid} has two lines in this joint side", position=line.pos)
            lines[pid] = line
        missing = [pid for pid in ids if pid not in lines]
        if missing:
            raise DramaError("E002", f"{one_of(missing)} {'needs' if len(missing) == 1 else 'need'} an indented "
                             "line of {} own".format("its" if len(missing) == 1 else "their"), position=pos,
                             expected="`  NAME with TRAIT + TREASURE, rolled N ...` under the first line")
        parts = []
        for index, pid in enumerate(ids):
            line = lines[pid]
            part = self._part(line.party, line.uses, line.gm + (gm if index == 0 else 0), line.dice)
            where[pid] = {"party": line.party.pos, "uses": line.uses.pos or line.pos,
                          "dice": line.dice.pos or line.pos}
            parts.append(part)
        return tuple(parts)

    # ------------------------------------------------------------ control flow

    def _if(self, s: n.IfBlock) -> None:
        for arm in s.arms:
            if arm.condition is None or self._test(arm.condition):
                self.events.append(ev.branch(s.pos.file, s.pos.line, arm.pos.line, arm.text))
                self._block(arm.body)
                return
        self.events.append(ev.branch(s.pos.file, s.pos.line, None, None))

    def _loop(self, s: n.Loop) -> None:
        passes = 0
        while True:
            if s.condition is not None and self._test(s.condition):
                ended = "until"
                break
            if passes >= s.bound:
                ended = "bound" if s.condition is not None else "count"
                break
            self._block(s.body)
            passes += 1
        self.events.append(ev.loop_ended(s.pos.file, s.pos.line, passes, ended, s.bound))

    def _block(self, body: tuple[n.Statement, ...]) -> None:
        self._depth += 1
        try:
            for statement in body:
                self.step(statement)
            # an exchange that ends the block resolves before what follows is tested
            self._resolve()
            if self._pending is not None:
                self._pending.closed_by_block = True
        finally:
            self._depth -= 1

    def _test(self, c: n.Condition) -> bool:
        """Whether a condition holds now (names are resolved as the script's are)."""
        kind = type(c)
        if kind is n.Compare:
            left, right = self._quantity(c.left), self._quantity(c.right)
            return _COMPARE[c.op](left, right)
        if kind is n.Defeated:
            pid = self._party(c.party)
            down = pid in self._fallen if c.was else self.game.state(pid).defeated
            return down != c.negated
        if kind is n.And:
            return self._test(c.left) and self._test(c.right)
        if kind is n.Or:
            return self._test(c.left) or self._test(c.right)
        if kind is n.Not:
            return not self._test(c.operand)
        if kind is n.InDrama:
            return self.game.drama is not None
        if kind is n.CanRecover:
            return self.game.may_recover(self._party(c.party))
        if kind is n.LastExchange:
            if self._last is None:
                return False
            last = _LastExchange.of(self._last)
            if c.party is None:
                return c.outcome in last.outcomes
            pid = self._party(c.party)
            return pid in (last.winners if c.outcome == "won" else last.losers)
        raise TypeError(f"not a condition: {c!r}")  # pragma: no cover

    def _quantity(self, q: n.Quantity) -> int:
        if q.kind == "number":
            return q.value
        if q.kind == "round":
            return self.game.round or 0
        state = self.game.state(self._possessed(q.party))
        return state.quintessence if q.kind == "quintessence" else state.damage_pool

    def _possessed(self, name: n.Name) -> str:
        """A party in a condition, also written `Kara's`."""
        text = name.text
        if text.endswith("'s") and text not in self.sheets and text not in self.roles:
            name = n.Name(text[:-2], name.pos)
        return self._party(name)

    def _without_defeated(self, s: n.Statement) -> n.Statement | None:
        """Inside `if` or `repeat`, a line for parties that are defeated (R7) is
        skipped, with a `skipped` event; a joint action or defence goes on
        without its defeated participants, a recovery without its defeated
        helpers. Returns the line to run, or None."""
        game = self.game
        pending = self._pending
        if isinstance(s, (n.Defence, n.Dictate, n.Reroll)) and pending is not None and pending.skipped:
            return None          # part of an exchange that was skipped
        if isinstance(s, n.Recover) and s.helpers:
            helping = [h for h in s.helpers if not game.state(self._party(h.party)).defeated]
            if len(helping) < len(s.helpers):
                fallen = [self._party(h.party) for h in s.helpers if h not in helping]
                self.events.append(ev.skipped(s.pos.file, s.pos.line, fallen, game.drama.name, game.round))
                s = replace(s, helpers=tuple(helping))
        names = s.actors if isinstance(s, n.Action) else s.parties if isinstance(s, n.Defence) else (s.party,)
        ids = [self._party(name) for name in names]
        down = [pid for pid in ids if game.state(pid).defeated]
        if not down:
            return s
        event = ev.skipped(s.pos.file, s.pos.line, down, game.drama.name, game.round)
        if isinstance(s, n.Defence) and pending is not None and not pending.resolved:
            pending.later.append(event)          # logged after the exchange it belongs to
        else:
            self.events.append(event)
        if len(down) == len(ids):
            if isinstance(s, n.Action):
                self._pending = _Pending(s, skipped=True)
            return None
        # a joint side goes on with the parties still standing
        keep = tuple(name for name, pid in zip(names, ids) if pid not in down)
        lines = tuple(line for line in s.participants if self._party(line.party) not in down)
        side = "actors" if isinstance(s, n.Action) else "parties"
        if len(lines) == 1:      # one party left: its own line, with the first line's GM modifier (R10)
            line = lines[0]
            return replace(s, **{side: keep}, uses=line.uses, gm=line.gm + s.gm, dice=line.dice, participants=())
        return replace(s, **{side: keep}, participants=lines)

    # ------------------------------------------------------------ statements

    def _scene(self, s: n.Scene) -> None:
        self.events.append({"type": "scene", "line": s.pos.line, "title": self._fill(s.title, s)})

    def _narration(self, s: n.Narration) -> None:
        self.events.append({"type": "narration", "line": s.pos.line, "text": self._fill(s.text, s)})

    def _drama(self, s: n.DramaBegin) -> None:
        ids = [self._party(name) for name in s.parties]
        self.events.append(ev.drama_begun(self.game.begin_drama(s.name, ids), s.pos.line))
        self._fallen = set()
        self._last = None       # `last exchange` is one of this situation

    def _initiative(self, s: n.Initiative) -> None:
        entries = []
        for entry in s.entries:
            pid = self._party(entry.party)
            trait, treasure = self._uses(pid, entry.uses)
            entries.append((pid, trait, treasure, () if self.roll_given else tuple(entry.results)))
        self.events.append(ev.initiative(self.game.roll_initiative(entries), s.pos.line))

    def _round(self, s: n.Round) -> None:
        self.events.append(ev.round_begun(self.game.next_round(), s.pos.line))

    def _hold(self, s: n.Hold) -> None:
        self.events.append(ev.held(self.game.hold(self._party(s.party)), s.pos.line))

    def _action(self, s: n.Action) -> None:
        self._pending = _Pending(s)

    def _attach(self, statement: n.Statement, what: str) -> _Pending:
        pending = self._pending
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

    def _tie(self, s: n.Tie) -> None:
        pending = self._attach(s, "a `tie` line")
        if not self.roll_given:      # a simulation settles ties by the setting's policy
            pending.ties.append(s)

    def _split(self, s: n.Split) -> None:
        pending = self._attach(s, "a `split` line")
        if pending.split is not None:
            raise DramaError("E002", "an exchange has one `split` line", position=s.pos)
        if not self.roll_given:      # a simulation's losses fall lead first
            pending.split = s

    def _option(self, s: n.Dictate | n.Reroll) -> None:
        pending = self._pending
        if pending is not None and not pending.resolved:
            self._resolve()
            if self._pending is None:       # the exchange itself failed (drama check goes on)
                return
        if pending is not None and pending.skipped:
            return
        pid = self._party(s.party)
        game = self.game
        if self.roll_given and not any(pid in option.parties for option in game.open_options):
            # a simulation's dice need not give the table's double win
            self.events.append(ev.skipped(s.pos.file, s.pos.line, [pid], game.drama.name if game.drama else None,
                                          game.round, "no double win"))
            return
        if isinstance(s, n.Dictate):
            result = game.take_option(pid, "dictate", text=self._fill(s.text, s))
        else:
            throw = self._throw(s.dice)
            if s.dice.kind == "none" or self.roll_given:
                throw = Throw.roll()
            result = game.take_option(pid, "reroll", throw)
        self.events.append(ev.option(result, s.pos.line, game.drama.name if game.drama else None, game.round))

    def _declared(self, pending: _Pending, where: dict) -> tuple:
        """The engine's inputs for an exchange: (Action, Defences, ties, split).

        They depend only on the statements (and the cast, roles and
        `roll_given`), so with a cache of inputs (`drama simulate`, which runs
        one script many times) they are built once per exchange as written."""
        cache = self._inputs
        if cache is not None:
            statements = (pending.action, *pending.defences, *pending.ties, pending.split)
            key = tuple(map(id, statements))
            hit = cache.get(key)
            # the cache holds the statements, so their ids cannot be reused while it does
            if hit is not None and all(a is b for a, b in zip(hit[0], statements)):
                where.update(hit[2])
                return hit[1]
        s = pending.action
        parts = self._parts(s.actors, s.participants, s.gm, s.uses, s.dice, s.pos,
                            s.intent if len(s.actors) == 1 else None, where)
        target = self._party(s.target) if s.target is not None else None
        extras = tuple(self._party(name) for name in s.extra_targets)
        action = Action(s.intent, parts, target, s.gm_target, tuple(q.text for q in s.qualifiers), extras)
        defences = tuple(Defence(self._parts(d.parties, d.participants, d.gm, d.uses, d.dice, d.pos,
                                             "defend", where))
                         for d in pending.defences)
        ties = tuple(GM if t.winner is None else self._party(t.winner) for t in pending.ties)
        split = None
        if pending.split is not None:
            split = {}
            for name, amount in pending.split.shares:
                pid = self._party(name)
                if pid in split:
                    raise DramaError("E310", f"the split names {pid} twice (R10)", position=name.pos)
                split[pid] = amount
        built = (action, defences, ties, split)
        if cache is not None and len(cache) < _MOST_CACHED:
            cache[key] = (statements, built, dict(where))
        return built

    def _resolve(self) -> None:
        """Resolve the exchange being declared, if any (its defences, ties and split are in)."""
        pending = self._pending
        if pending is None or pending.resolved or pending.skipped:
            return
        s = pending.action
        where: dict[str, dict[str, Position]] = {}
        try:
            action, defences, ties, split = self._declared(pending, where)
            result = self.game.exchange(action, defences, ties, split)
        except DramaError as error:
            self._pending = None
            position = s.pos
            if error.code == "E311" and error.party is not None:
                named = [t for t in pending.ties
                         if (t.winner.text if t.winner is not None else GM) == error.party]
                position = named[0].pos if named else s.pos
            elif error.party in where:
                aspect = {"E301": "dice", "E402": "dice", "E202": "uses"}.get(error.code, "party")
                position = where[error.party][aspect]
            elif error.code == "E310" and pending.split is not None:
                position = pending.split.pos
            self._fail(error, position)
            return
        pending.resolved = True
        self._last = result
        if result.defeats:
            self._fallen.update(result.defeats)
        if self.lean:
            self.events.extend({"type": "defeat", "line": s.pos.line, "party": pid} for pid in result.defeats)
        else:
            qualifiers = [{"kind": q.kind, "text": q.text} for q in s.qualifiers]
            self.events.extend(ev.exchange(result, s.pos.line, qualifiers, split))
        if pending.later:
            self.events.extend(pending.later)

    def _recover(self, s: n.Recover) -> None:
        pid = self._party(s.party)
        trait, treasure = self._uses(pid, s.uses)
        helpers = []
        for helper in s.helpers:
            hid = self._party(helper.party)
            htrait, htreasure = self._uses(hid, helper.uses)
            helpers.append(Helping(hid, htrait, htreasure))
        first = Throw.roll() if s.first.kind == "none" or self.roll_given else self._throw(s.first)
        second = None if s.second.kind == "none" else Throw.roll() if self.roll_given else self._throw(s.second)
        game = self.game
        result = game.recover(pid, trait, treasure, tuple(helpers), first, second)
        self.events.append(ev.recovery(result, s.pos.line, game.drama.name if game.drama else None, game.round))

    def _end_drama(self, s: n.EndDrama) -> None:
        text = self._fill(s.text, s) if s.text is not None else None
        self.events.append(ev.drama_ended(self.game.end_drama(text), s.pos.line))
        self._last = None       # `last exchange` after a situation: none yet

    def _time(self, s: n.Calm | n.Rest) -> None:
        kind = "rest" if isinstance(s, n.Rest) else "calm"
        result = self.game.pass_time(kind, self.settings.seconds(s.duration))
        self.events.append(ev.time_passed(result, s.pos.line, str(s.duration)))


# at most this many exchanges' engine inputs are cached (statements that a joint
# side rebuilt without its defeated participants are new each time)
_MOST_CACHED = 10_000

_COMPARE = {"<": int.__lt__, "<=": int.__le__, ">": int.__gt__, ">=": int.__ge__,
            "=": int.__eq__, "!=": int.__ne__}


@dataclass(frozen=True)
class _LastExchange:
    """What `last exchange ...` conditions ask of the latest exchange."""

    outcomes: frozenset[str]       # of "won", "lost" (the acting side's view), "tied", "double"
    winners: frozenset[str]        # parties on the winning side of one of its comparisons
    losers: frozenset[str]

    @staticmethod
    def of(result) -> "_LastExchange":
        attacker = result.attacker
        winners: set[str] = set()
        losers: set[str] = set()
        won = lost = 0
        for comparison, defence in zip(result.comparisons, result.defences):
            if comparison.winner == comparison.attacker:
                won += 1
                winners.update(attacker.parties)
                losers.update(defence.parties)
            else:
                lost += 1
                winners.update(defence.parties)
                losers.update(attacker.parties)
        outcomes = set()
        if won and not lost:
            outcomes.add("won")
        if lost and not won:
            outcomes.add("lost")
        if any(c.tie for c in result.comparisons):
            outcomes.add("tied")
        if any(c.double for c in result.comparisons):
            outcomes.add("double")
        return _LastExchange(frozenset(outcomes), frozenset(winners), frozenset(losers))


@contextmanager
def _few_collections():
    """Pause the cyclic garbage collector while a long log is built: the events
    form no cycles, and full collections over a growing log make a run quadratic."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def run_script(settings: Settings, sheets: Iterable[PartySheet], script: n.Script, *, title: str = "",
               seed: int = 0, lenient: bool = False) -> list[dict]:
    """Run a parsed script and return its events; the first error is raised."""
    return Interpreter(settings, sheets, title=title, seed=seed, lenient=lenient).run(script)
