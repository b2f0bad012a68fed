"""The interpreter: walks a script's statements, drives the engine, and emits the event log."""

from __future__ import annotations

import gc
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Callable, Iterable

from . import events as ev
from . import nodes as n
from .engine import GM, Action, Defence, Game, Helping, Part, PartySheet, SeededDice, Settings, Throw
from .errors import DramaError, Position, did_you_mean, one_of


# the keywords that end a multi-word name (see grammar/drama.lark)
NAME_ENDING_KEYWORDS = ("with", "but", "so", "vs")


@dataclass
class _Pending:
    """An exchange being declared: its action and what belongs to it so far."""

    action: n.Action
    defences: list[n.Defence] = field(default_factory=list)
    ties: list[n.Tie] = field(default_factory=list)
    split: n.Split | None = None
    resolved: bool = False


class Interpreter:
    """Runs scripts on one game table and collects the events.

    With `errors` set to a list (as `drama check` does), an error in a statement is
    recorded and the run goes on with the next statement, so that one pass finds
    as many errors as it can; otherwise the first error is raised.
    """

    def __init__(self, settings: Settings, sheets: Iterable[PartySheet], *, title: str = "",
                 seed: int = 0, lenient: bool = False, errors: list[DramaError] | None = None,
                 roles: dict[str, str] | None = None, roll_given: bool = False):
        self.settings = settings
        # `drama simulate`: every die given in the script is rolled afresh instead
        self.roll_given = roll_given
        self.sheets = {sheet.id: sheet for sheet in sheets}
        self.roles = dict(roles or {})          # an adventure's role -> the party bound to it
        self.seed = seed
        self.game = Game(self.sheets.values(), settings, SeededDice(seed), lenient=lenient)
        self.errors = errors
        self.events: list[dict] = [ev.start(title, settings, self.sheets.values(), self.game.states(), seed)]
        self._pending: _Pending | None = None
        self._handlers: dict[type, Callable] = {
            n.Scene: self._scene, n.Narration: self._narration, n.DramaBegin: self._drama,
            n.Initiative: self._initiative, n.Round: self._round, n.Hold: self._hold,
            n.Action: self._action, n.Defence: self._defence, n.Tie: self._tie, n.Split: self._split,
            n.Dictate: self._option, n.Reroll: self._option, n.Recover: self._recover,
            n.EndDrama: self._end_drama, n.Calm: self._time, n.Rest: self._time,
        }

    # ------------------------------------------------------------ running

    def run(self, script: n.Script) -> list[dict]:
        """Run every statement, then close the log with the `final` event."""
        with _few_collections():
            for statement in script.statements:
                self.step(statement)
            self.finish()
        return self.events

    def step(self, statement: n.Statement) -> None:
        handler = self._handlers[type(statement)]
        if not isinstance(statement, (n.Defence, n.Tie, n.Split, n.Dictate, n.Reroll)):
            self._resolve()          # the exchange being declared ends here
            self._pending = None
        try:
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
            hint = did_you_mean(words[index], NAME_ENDING_KEYWORDS)
            if hint is not None:
                keyword = hint.split("'")[1]
                rest = " ".join([keyword, *words[index + 1:]])
                return f"did you mean '{head} {rest}'?"
        return None

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
                                 hint=did_you_mean(name.text, known))
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

    # ------------------------------------------------------------ statements

    def _scene(self, s: n.Scene) -> None:
        self.events.append({"type": "scene", "line": s.pos.line, "title": s.title})

    def _narration(self, s: n.Narration) -> None:
        self.events.append({"type": "narration", "line": s.pos.line, "text": s.text})

    def _drama(self, s: n.DramaBegin) -> None:
        ids = [self._party(name) for name in s.parties]
        self.events.append(ev.drama_begun(self.game.begin_drama(s.name, ids), s.pos.line))

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
        if pending.resolved:
            raise DramaError("E002", f"{what} must come before the double-win options of its exchange")
        return pending

    def _defence(self, s: n.Defence) -> None:
        self._attach(s, "a defence").defences.append(s)

    def _tie(self, s: n.Tie) -> None:
        self._attach(s, "a `tie` line").ties.append(s)

    def _split(self, s: n.Split) -> None:
        pending = self._attach(s, "a `split` line")
        if pending.split is not None:
            raise DramaError("E002", "an exchange has one `split` line", position=s.pos)
        pending.split = s

    def _option(self, s: n.Dictate | n.Reroll) -> None:
        pending = self._pending
        if pending is not None and not pending.resolved:
            self._resolve()
            if self._pending is None:       # the exchange itself failed (drama check goes on)
                return
        pid = self._party(s.party)
        game = self.game
        if isinstance(s, n.Dictate):
            result = game.take_option(pid, "dictate", text=s.text)
        else:
            throw = self._throw(s.dice)
            if s.dice.kind == "none" or self.roll_given:
                throw = Throw.roll()
            result = game.take_option(pid, "reroll", throw)
        self.events.append(ev.option(result, s.pos.line, game.drama.name if game.drama else None, game.round))

    def _resolve(self) -> None:
        """Resolve the exchange being declared, if any (its defences, ties and split are in)."""
        pending = self._pending
        if pending is None or pending.resolved:
            return
        s = pending.action
        where: dict[str, dict[str, Position]] = {}
        try:
            parts = self._parts(s.actors, s.participants, s.gm, s.uses, s.dice, s.pos,
                                s.intent if len(s.actors) == 1 else None, where)
            target = self._party(s.target) if s.target is not None else None
            extras = tuple(self._party(name) for name in s.extra_targets)
            action = Action(s.intent, parts, target, s.gm_target, tuple(q.text for q in s.qualifiers), extras)
            defences = []
            for d in pending.defences:
                defences.append(Defence(self._parts(d.parties, d.participants, d.gm, d.uses, d.dice, d.pos,
                                                    "defend", where)))
            ties = [GM if t.winner is None else self._party(t.winner) for t in pending.ties]
            split = None
            if pending.split is not None:
                split = {}
                for name, amount in pending.split.shares:
                    pid = self._party(name)
                    if pid in split:
                        raise DramaError("E310", f"the split names {pid} twice (R10)", position=name.pos)
                    split[pid] = amount
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
        qualifiers = [{"kind": q.kind, "text": q.text} for q in s.qualifiers]
        self.events.extend(ev.exchange(result, s.pos.line, qualifiers, split))

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
        self.events.append(ev.drama_ended(self.game.end_drama(s.text), s.pos.line))

    def _time(self, s: n.Calm | n.Rest) -> None:
        kind = "rest" if isinstance(s, n.Rest) else "calm"
        result = self.game.pass_time(kind, self.settings.seconds(s.duration))
        self.events.append(ev.time_passed(result, s.pos.line, str(s.duration)))


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
