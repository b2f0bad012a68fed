"""Exchanges: an aggressive action and the lines that answer it, gathered and turned into the engine's inputs.

An exchange is declared over several statements: the action, its defences,
`tie` lines and a `split` line. The interpreter keeps them in a `Pending`
until a statement that is not part of the exchange comes, then asks the
`ExchangeBuilder` for the engine's inputs (`Action`, `Defence`s, ties and a
split) and the engine for the result. `where` maps each party to the places
of its name, its `with` and its dice, so that an error of the engine is
reported at the very words at fault (`error_position`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..syntax import nodes as n
from ..engine import GM, Action, Defence, Part
from ..errors import DramaError, Position, did_you_mean, one_of
from ..names import Names
from ..statement_cache import StatementCache
from ..syntax.occurrences import moved
from .modes import RunMode


@dataclass
class Pending:
    """An exchange being declared: its action and what belongs to it so far."""

    action: n.Action
    defences: list[n.Defence] = field(default_factory=list)
    ties: list[n.Tie] = field(default_factory=list)
    split: n.Split | None = None
    resolved: bool = False
    skipped: bool = False        # its actors are defeated: what belongs to it is skipped too
    later: list = field(default_factory=list)   # `skipped` events of its defences, logged after it
    closed_by_block: bool = False  # an `if` or `repeat` line resolved it
    # how many lines below its node each of its lines is (a repeated line's node is shared,
    # see nodes.Script): the action's, and one for each defence and tie, the split's
    shift: int = 0
    defence_shifts: list[int] = field(default_factory=list)
    tie_shifts: list[int] = field(default_factory=list)
    split_shift: int = 0

    @property
    def moves(self) -> bool:
        """Whether any of its lines is below its node."""
        return bool(self.shift or self.split_shift or any(self.defence_shifts) or any(self.tie_shifts))

    def moved(self) -> "Pending":
        """The exchange as written, each line with its own positions (copies of the shared
        nodes): for placing an error of the exchange."""
        return Pending(moved(self.action, self.shift),
                       [moved(d, k) for d, k in zip(self.defences, self.defence_shifts)],
                       [moved(t, k) for t, k in zip(self.ties, self.tie_shifts)],
                       moved(self.split, self.split_shift) if self.split is not None else None)


# the engine's inputs of one exchange: (Action, Defences, ties, split)
Inputs = tuple


class ExchangeBuilder:
    """Turns the statements of an exchange into the engine's inputs, with names resolved."""

    def __init__(self, names: Names, mode: RunMode, cache: StatementCache | None = None):
        self.names = names
        self.mode = mode
        # the inputs depend only on the statements (and the cast, roles and
        # mode), so runs of one script share them (`drama simulate`)
        self.cache = cache

    def inputs(self, pending: Pending, where: dict, cached: bool = True) -> Inputs:
        """The engine's inputs for a declared exchange; fills `where`."""
        cache = self.cache if cached else None
        if cache is not None:
            statements = (pending.action, *pending.defences, *pending.ties, pending.split)
            hit = cache.get(statements)
            if hit is not None:
                built, places = hit
                where.update(places)
                return built
        s = pending.action
        names = self.names
        parts = self.parts(s.actors, s.participants, s.gm, s.uses, s.dice, s.pos,
                           s.intent if len(s.actors) == 1 else None, where)
        target = names.party(s.target) if s.target is not None else None
        extras = tuple(names.party(name) for name in s.extra_targets)
        action = Action(s.intent, parts, target, s.gm_target, tuple((q.kind, q.text) for q in s.qualifiers), extras)
        defences = tuple(Defence(self.parts(d.parties, d.participants, d.gm, d.uses, d.dice, d.pos,
                                            "defend", where))
                         for d in pending.defences)
        ties = tuple(GM if t.winner is None else names.party(t.winner) for t in pending.ties)
        split = None
        if pending.split is not None:
            split = {}
            for name, amount in pending.split.shares:
                pid = names.party(name)
                if pid in split:
                    raise DramaError("E310", f"the split names {pid} twice (R10)", position=name.pos)
                split[pid] = amount
        built = (action, defences, ties, split)
        if cache is not None:
            cache.put(statements, (built, dict(where)))
        return built

    def part(self, name: n.Name, uses: n.Uses, gm: int, dice: n.Dice, intent: str | None = None) -> Part:
        """One party's part; with no `with`, the party's move for the intent applies
        (for a defence, its `defend` move)."""
        names = self.names
        pid = names.party(name)
        trait, treasure = names.uses(pid, uses)
        if not uses.names:
            move = names.move(pid, intent)
            if move is not None:
                trait, treasure = move.trait, move.treasure
        return Part(pid, trait, treasure, self.mode.throw(dice), gm)

    def parts(self, names: tuple[n.Name, ...], participants: tuple[n.Participant, ...], gm: int,
              uses: n.Uses, dice: n.Dice, pos: Position, intent: str | None,
              where: dict[str, dict[str, Position]]) -> tuple[Part, ...]:
        """The parts of a side: one party's own line, or a joint side's indented lines."""
        if len(names) == 1 and not participants:
            part = self.part(names[0], uses, gm, dice, intent)
            where[part.party] = {"party": names[0].pos, "uses": uses.pos or pos, "dice": dice.pos or pos}
            return (part,)
        resolve = self.names.party
        ids = [resolve(name) for name in names]
        if uses.names or dice.kind != "none":
            raise DramaError("E002", "in a joint action or defence each party's trait, treasure and dice "
                             "go on its own indented line", position=uses.pos or dice.pos or pos)
        lines: dict[str, n.Participant] = {}
        for line in participants:
            pid = resolve(line.party)
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
            part = self.part(line.party, line.uses, line.gm + (gm if index == 0 else 0), line.dice)
            where[pid] = {"party": line.party.pos, "uses": line.uses.pos or line.pos,
                          "dice": line.dice.pos or line.pos}
            parts.append(part)
        return tuple(parts)


def error_position(error: DramaError, pending: Pending, where: dict) -> Position:
    """Where an error of the engine about an exchange is shown: its dice for
    E301 and E402, its `with` for E202, the party's name otherwise; the `tie`
    line naming the party for E311; the `split` line for E310."""
    if error.code == "E311" and error.party is not None:
        named = [t for t in pending.ties if (t.winner.text if t.winner is not None else GM) == error.party]
        return named[0].pos if named else pending.action.pos
    if error.party in where:
        aspect = {"E301": "dice", "E402": "dice", "E202": "uses"}.get(error.code, "party")
        return where[error.party][aspect]
    if error.code == "E310" and pending.split is not None:
        return pending.split.pos
    return pending.action.pos
