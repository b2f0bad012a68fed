"""The game table: parties' quintessence, dramatic situations, turns, exchanges and recovery (R1-R17)."""

from __future__ import annotations

from typing import Iterable, Sequence

from ..errors import DramaError, RuleError, did_you_mean, one_of
from ..durations import format_seconds
from .dice import NO_THROW, DiceSource, SeededDice, Throw, check_faces
from .frozen import frozen
from .parties import PartySheet, PartyState, Settings
from . import results as r


# ------------------------------------------------------------------ inputs

@frozen
class Part:
    """One party's part in an action or defence: the trait and treasure it uses,
    its dice and its GM modifier (R2, R3)."""

    party: str
    trait: str | None = None
    treasure: str | None = None
    throw: Throw = NO_THROW
    gm: int = 0


@frozen
class Action:
    """An aggressive action: the acting side (lead first), its intent and its target,
    a party (`target`) or a GM target number (`gm_target`)."""

    intent: str
    parts: tuple[Part, ...]
    target: str | None = None
    gm_target: int | None = None
    qualifiers: tuple[str, ...] = ()
    extra_targets: tuple[str, ...] = ()


@frozen
class Defence:
    """A stated defence: one target of the action, maybe joined by other parties."""

    parts: tuple[Part, ...]


@frozen
class Helping:
    """A helper's bonus to a recovery (R14)."""

    party: str
    trait: str | None = None
    treasure: str | None = None


GM = "GM"


# ------------------------------------------------------------------ state

class _Party:
    """A party's mutable state at the table."""

    __slots__ = ("sheet", "traits", "treasures", "available", "damage", "defeated", "acted",
                 "lost_this_round", "last_recovery", "_states")

    def __init__(self, sheet: PartySheet):
        self.sheet = sheet
        self.traits = dict(sheet.traits)            # plain dicts: quicker to read than the
        self.treasures = dict(sheet.treasures)      # sheet's read-only views
        self.available = sheet.quintessence
        self.damage = 0
        self.defeated = False
        self.acted = False
        self.lost_this_round = 0
        self.last_recovery: int | None = None
        self._states: dict[tuple, PartyState] = {}

    def state(self) -> PartyState:
        # a PartyState is immutable: each distinct state is built once and shared
        key = (self.available, self.damage, self.defeated)
        state = self._states.get(key)
        if state is None:
            state = self._states[key] = PartyState(*key)
        return state

    def lose(self, amount: int) -> int:
        """Move up to `amount` from available to the damage pool; what really moved (R6)."""
        taken = min(amount, self.available)
        self.available -= taken
        self.damage += taken
        return taken

    def regain(self, amount: int) -> int:
        """Move up to `amount` back from the damage pool; what really moved."""
        given = min(amount, self.damage)
        self.damage -= given
        self.available += given
        return given


class _Drama:
    __slots__ = ("name", "parties", "round", "began", "order", "rank", "pointer", "held", "acted_any")

    def __init__(self, name: str, parties: tuple[str, ...], began: int):
        self.name = name
        self.parties = parties
        self.round = 1
        self.began = began
        self.order: tuple[str, ...] | None = None
        self.rank: dict[str, int] = {}              # party -> its place in `order`
        self.pointer = 0
        self.held: set[str] = set()
        self.acted_any = False


class Game:
    """The state of a game table and every step the rules allow on it.

    It does no I/O: each step checks the rules, changes the state and returns an
    immutable result (see `results`). A step that breaks a rule raises a
    `RuleError` naming the rule, and changes nothing.
    """

    def __init__(self, sheets: Iterable[PartySheet], settings: Settings | None = None,
                 dice: DiceSource | None = None, *, lenient: bool = False):
        self.settings = settings or Settings()
        self.dice = dice if dice is not None else SeededDice(0)
        self.lenient = lenient
        self.sheets = {sheet.id: sheet for sheet in sheets}
        self._parties = {pid: _Party(sheet) for pid, sheet in self.sheets.items()}
        self.time = 0                       # in-world seconds
        self.drama: _Drama | None = None
        self.last_drama_end: int | None = None
        self.last_drama_name: str | None = None
        self._options: list[r.Option] = []

    # ------------------------------------------------------------ queries

    def state(self, party: str) -> PartyState:
        return self._party(party).state()

    def states(self, parties: Iterable[str] | None = None) -> dict[str, PartyState]:
        ids = self._parties if parties is None else parties
        return {pid: self._parties[pid].state() for pid in ids}

    @property
    def round(self) -> int | None:
        return self.drama.round if self.drama else None

    @property
    def open_options(self) -> tuple[r.Option, ...]:
        return tuple(self._options)

    def has_acted(self, party: str) -> bool:
        return self._party(party).acted

    # ------------------------------------------------------------ dramatic situations

    def begin_drama(self, name: str, parties: Sequence[str]) -> r.DramaBegun:
        if self.drama is not None:
            raise DramaError("E002", f"'{name}' cannot begin while '{self.drama.name}' is still running",
                             expected=f"end drama before a new dramatic situation")
        seen: set[str] = set()
        for pid in parties:
            self._party(pid)
            if pid in seen:
                raise DramaError("E002", f"{pid} is named twice in '{name}'")
            seen.add(pid)
        if not parties:
            raise DramaError("E002", f"'{name}' needs at least one party")
        self.drama = _Drama(name, tuple(parties), self.time)
        for pid in parties:
            party = self._parties[pid]
            party.defeated = False
            party.acted = False
            party.lost_this_round = 0
        self._options = []
        return r.DramaBegun(name, tuple(parties), self.time)

    def end_drama(self, text: str | None = None) -> r.DramaEnded:
        drama = self._in_drama("end drama")
        self.time += self.settings.round_seconds        # the last round (R13)
        for pid in drama.parties:
            party = self._parties[pid]
            party.defeated = False
            party.acted = False
            party.lost_this_round = 0
        self.drama = None
        self.last_drama_end = self.time
        self.last_drama_name = drama.name
        self._options = []
        return r.DramaEnded(drama.name, drama.round, self.time, text, self.states(drama.parties))

    def roll_initiative(self, entries: Sequence[tuple[str, str | None, str | None, tuple[int, ...]]] = ()) -> r.Initiative:
        """R12: each party rolls a die (+ trait + treasure), or its results are given.

        `entries` holds (party, trait, treasure, given results); with no entries,
        every party of the situation rolls a plain die. A party with given results
        gives its result first, then the result of each re-roll of a tie.
        """
        drama = self._in_drama("initiative")
        if drama.acted_any:
            raise RuleError("R12", "E312", f"initiative is rolled at the start of a round, before anyone acts")
        if not entries:
            entries = [(pid, None, None, ()) for pid in drama.parties]
        by_party: dict[str, tuple] = {}
        for pid, trait, treasure, given in entries:
            self._member(pid)
            if pid in by_party:
                raise RuleError("R12", "E312", f"{pid} has two initiative results")
            self._check_uses(pid, trait, treasure)
            by_party[pid] = (trait, treasure, tuple(given))
        missing = [pid for pid in drama.parties if pid not in by_party and not self._parties[pid].defeated]
        if missing:
            raise RuleError("R12", "E312", f"initiative needs a result for {one_of(missing)}",
                            expected="a result for every party of the situation, or `initiative` alone")
        bonus = {pid: self._level(pid, t, "trait") + self._level(pid, tr, "treasure")
                 for pid, (t, tr, _) in by_party.items()}
        dice: dict[str, list[int]] = {pid: [] for pid in by_party}

        def roll_for(pid: str, index: int) -> int | None:
            """The party's result for its roll number `index` (0 is the first
            roll, then each re-roll of a tie); None when a given list runs out."""
            given = by_party[pid][2]
            if given:
                if index >= len(given):
                    return None
                return given[index]
            face = self.dice.roll(1, self.settings.sides)[0]
            dice[pid].append(face)
            return face + bonus[pid]

        # re-roll ties among those tied until everyone has a place (R12);
        # a party's results, in order, are its key in the initiative order
        pending = [(list(by_party), 0)]
        keys: dict[str, list[int]] = {pid: [] for pid in by_party}
        while pending:
            group, index = pending.pop()
            for pid in group:
                value = roll_for(pid, index)
                if value is None:
                    raise RuleError("R12", "E312",
                                    f"{' and '.join(group)} tie at {keys[pid][-1]}: give their re-rolls",
                                    expected="a re-roll after the results, e.g. `initiative "
                                             f"{group[0]} {' '.join(map(str, keys[group[0]]))} 4`")
                keys[pid].append(value)
            buckets: dict[int, list[str]] = {}
            for pid in group:
                buckets.setdefault(keys[pid][-1], []).append(pid)
            for value, tied in buckets.items():
                if len(tied) > 1:
                    pending.append((tied, index + 1))
            if index > 1000:
                raise RuleError("R12", "E312", "initiative ties could not be broken")
        for pid in by_party:
            given = by_party[pid][2]
            if given and len(given) > len(keys[pid]):
                raise RuleError("R12", "E312", f"{pid} gives {len(given)} initiative results but only "
                                f"{len(keys[pid])} {'was' if len(keys[pid]) == 1 else 'were'} needed")
        order = sorted(by_party, key=lambda pid: keys[pid], reverse=True)
        drama.order = tuple(order)
        drama.rank = {pid: place for place, pid in enumerate(order)}
        drama.pointer = 0
        drama.held = set()
        rolls = tuple(r.InitiativeRoll(pid, by_party[pid][0], by_party[pid][1], bonus[pid],
                                       tuple(dice[pid]), tuple(keys[pid]),
                                       "table" if by_party[pid][2] else "engine")
                      for pid in by_party)
        return r.Initiative(drama.name, drama.round, rolls, drama.order)

    def next_round(self) -> r.RoundBegun:
        drama = self._in_drama("round")
        if drama.round == 1 and not drama.acted_any and not drama.held:
            # nobody has acted since the situation began: this is round 1 (so a
            # loop of rounds may begin each pass with `round`)
            return r.RoundBegun(drama.name, 1, self.time, ())
        unused = tuple(pid for pid in drama.parties
                       if not self._parties[pid].acted and not self._parties[pid].defeated)
        drama.round += 1
        self.time += self.settings.round_seconds       # R13
        drama.pointer = 0
        drama.held = set()
        drama.acted_any = False
        for pid in drama.parties:
            self._parties[pid].acted = False
            self._parties[pid].lost_this_round = 0
        self._options = []
        return r.RoundBegun(drama.name, drama.round, self.time, unused)

    def hold(self, party: str) -> r.Held:
        """R9: the party lets its turn pass, keeping its action for later this round."""
        drama = self._in_drama("holds")
        self._can_act(party, "hold its action")
        turn = self._take_turn((party,), acting=False)
        drama.held.add(party)
        return r.Held(drama.name, drama.round, party, turn.passed if turn else ())

    # ------------------------------------------------------------ exchanges

    def exchange(self, action: Action, defences: Sequence[Defence] = (),
                 ties: Sequence[str] = (), split: dict[str, int] | None = None) -> r.Exchange:
        """Resolve one aggressive action with its defences, ties and split (R2-R10).

        `ties` names the winner of each vote, in order (`GM` for the GM); `split`
        says how the winner spreads a losing side's loss. The steps follow
        RULES.md's order of play: spend, roll, compare, ones, losses, defeats,
        double wins. Every check comes before the first change.
        """
        drama = self.drama
        parties = self._parties
        attackers, targets, defence_of = self._check_exchange(action, defences)
        spending = self._plan_spending(action, attackers)                         # R4
        attack_plans = self._plan_side(action.parts, spending)                    # R3
        defence_plans = {}
        for pid, defence in defence_of.items():
            defence_plans[pid] = self._plan_side(defence.parts, {})
        attacker = self._roll_side(attack_plans)                                  # R2
        sides: list[r.Side] = []
        if action.gm_target is not None:
            sides.append(r.Side(GM, (), (), action.gm_target))
        for pid in targets:
            plans = defence_plans.get(pid)
            if plans is not None:
                sides.append(self._roll_side(plans))
            else:
                sides.append(r.Side(pid, (pid,), (), 0, False))   # R5: undefended, not stated
        winners, settled_by, tie_dice = self._compare(attacker, sides, ties)      # R5, R11
        owed, lost_by_side = self._losses_owed(attacker, sides, winners)          # R6
        shares = self._plan_split(split, lost_by_side, [attacker, *sides]) if split else {}

        # ---------------------------------------------------------- nothing refuses below
        turn = self._take_turn(attackers)
        everyone = (attacker, *sides)
        if drama is not None:
            drama.acted_any = True
        else:                       # outside drama every exchange is a round of its own (R8)
            for side in everyone:
                for pid in side.parties:
                    parties[pid].lost_this_round = 0
        losses: list[r.Loss] = []
        for pid, amount in spending.items():                                       # R4
            party = parties[pid]
            losses.append(r.Loss(pid, party.lose(amount), amount, "spend", None, party.state()))
        at_zero = [pid for side in everyone for pid in side.parties if not parties[pid].available]   # for R7
        for side in everyone:                                                       # R6: ones
            for effort in side.efforts:
                ones = effort.dice.count(1)
                if ones:
                    losses.append(self._lose(effort.party, ones, "ones", None))
        paid: dict[str, int] = {}
        for index, side in enumerate(sides):                                        # R6, R10
            if owed[index]:
                loser = side if winners[index] == attacker.name else attacker
                for pid, share in self._spread(loser, owed[index], shares.get(loser.name), paid):
                    losses.append(self._lose(pid, share, "loss", index))
        defeats = self._defeats(attacker, sides, winners, at_zero) if drama is not None and at_zero else ()  # R7
        comparisons, options = self._double_wins(action, attacker, sides, winners, settled_by,  # R8
                                                 tie_dice, owed)
        self._options = options
        states = {}
        for side in everyone:
            for pid in side.parties:
                states[pid] = parties[pid].state()
        return r.Exchange(
            drama.name if drama else None, drama.round if drama else None, action.intent,
            attacker, action.gm_target, tuple(action.qualifiers), tuple(action.extra_targets),
            tuple(sides), comparisons, tuple(losses), defeats, tuple(options), turn,
            states, action.target)

    def _check_exchange(self, action: Action, defences: Sequence[Defence]
                        ) -> tuple[tuple[str, ...], tuple[str, ...], dict[str, Defence]]:
        """Who is who in an exchange: the attackers, the targets, and the defence
        stated for each target; refuses what the rules do not allow."""
        drama = self.drama
        parties = self._parties
        members = parties if drama is None else drama.parties      # who may take part
        attackers = tuple([part.party for part in action.parts])
        if not attackers:
            raise DramaError("E305", "an action needs at least one acting party")
        for pid in attackers:
            party = parties.get(pid)
            if party is None or pid not in members or party.defeated or party.acted:
                self._can_act(pid, "act")   # raises the error that applies, if any
        if len(attackers) > 1 and len(set(attackers)) != len(attackers):
            raise DramaError("E305", f"a party is named twice among {one_of(attackers)}")
        if (action.target is None) == (action.gm_target is None):
            raise DramaError("E305", "an action has either a target party or a GM target (`vs N`)")
        targets = ((action.target,) if action.target is not None else ()) + tuple(action.extra_targets)
        for pid in targets:
            if pid not in members:
                self._member(pid)           # raises E201 or E203
            if pid in attackers:
                raise DramaError("E305", f"{pid} cannot be the target of an action it takes part in")
        if len(targets) > 1 and len(set(targets)) != len(targets):
            raise DramaError("E305", f"{one_of(sorted(set(t for t in targets if targets.count(t) > 1)))} "
                             "is a target more than once")
        if action.gm_target is not None and action.extra_targets:
            raise DramaError("E305", "an action against a GM target cannot have extra targets",
                             expected="`-> TARGET +EXTRA` for extra targets")
        defence_of: dict[str, Defence] = {}
        defenders_seen: set[str] = set()
        for defence in defences:
            pids = tuple([part.party for part in defence.parts])
            aimed = [pid for pid in pids if pid in targets]
            if not aimed:
                raise DramaError("E305", f"{one_of(pids)} {'is' if len(pids) == 1 else 'are'} not a target of "
                                 f"{' & '.join(attackers)}'s action", party=pids[0],
                                 expected=f"a defence by {one_of(targets)}" if targets
                                 else "no defence: the action is against a GM target")
            if len(aimed) > 1:
                raise DramaError("E305", f"{' and '.join(aimed)} are separate targets and defend separately",
                                 party=pids[0])
            for pid in pids:
                if pid in attackers:
                    raise DramaError("E305", f"{pid} cannot defend against its own action", party=pid)
                if pid in defenders_seen:
                    raise DramaError("E305", f"{pid} already defends in this exchange", party=pid)
                defenders_seen.add(pid)
                if pid not in members:
                    self._member(pid)       # raises E201 or E203
                if drama is not None and parties[pid].defeated:
                    raise RuleError("R7", "E307", f"{pid} is defeated in {drama.name} and cannot defend",
                                    party=pid)
            defence_of[aimed[0]] = defence
        for part in action.parts:
            self._check_part_uses(part)
        for defence in defences:
            for part in defence.parts:
                self._check_part_uses(part)
        return attackers, targets, defence_of

    def _plan_spending(self, action: Action, attackers: tuple[str, ...]) -> dict[str, int]:
        """R4 and RULES.md point 9: what each attacker pays for qualifiers and extra
        targets, the lead first; refused when the side cannot pay."""
        cost = len(action.qualifiers) + len(action.extra_targets)
        if not cost:
            return {}
        have = sum(self._parties[pid].available for pid in attackers)
        if cost > have:
            what = []
            if action.qualifiers:
                what.append(_count(len(action.qualifiers), "qualifier"))
            if action.extra_targets:
                what.append(_count(len(action.extra_targets), "extra target"))
            one = len(attackers) == 1
            raise RuleError("R4", "E304", f"{' & '.join(attackers)} {'needs' if one else 'need'} "
                            f"{cost} quintessence for {' and '.join(what)} but {'has' if one else 'have'} {have}")
        spending: dict[str, int] = {}
        for pid in attackers:
            take = min(cost, self._parties[pid].available)
            if take:
                spending[pid] = take
            cost -= take
        return spending

    def _compare(self, attacker: r.Side, sides: list[r.Side], ties: Sequence[str]) -> tuple[list, list, list]:
        """R5 and R11: the winner of each comparison, and how each tie was settled."""
        winners: list[str | None] = []
        for side in sides:
            if attacker.value > side.value:
                winners.append(attacker.name)
            elif attacker.value < side.value:
                winners.append(side.name)
            else:
                winners.append(None)
        settled_by: list[str | None] = [None] * len(sides)
        tie_dice: list[tuple] = [()] * len(sides)
        for named in ties:
            self._settle_named_tie(named, attacker, sides, winners, settled_by)
        for index, side in enumerate(sides):
            if winners[index] is None:
                winners[index], settled_by[index], tie_dice[index] = self._settle_tie(attacker, side)
        return winners, settled_by, tie_dice

    def _losses_owed(self, attacker: r.Side, sides: list[r.Side], winners: list[str]
                     ) -> tuple[list[int], dict[str, int]]:
        """R6: each comparison's loss beyond the ones (1 + the winner's high dice;
        nothing for a GM target), and the total each losing side owes."""
        high = self.settings.high
        owed: list[int] = []
        lost_by_side: dict[str, int] = {}
        for index, side in enumerate(sides):
            if side.name == GM:
                owed.append(0)              # failing a GM target costs only the ones
                continue
            won = winners[index] == attacker.name
            winning, loser = (attacker, side) if won else (side, attacker)
            amount = 1 + sum([die >= high for effort in winning.efforts for die in effort.dice])
            owed.append(amount)
            lost_by_side[loser.name] = lost_by_side.get(loser.name, 0) + amount
        return owed, lost_by_side

    def _lose(self, pid: str, amount: int, kind: str, comparison: int | None) -> r.Loss:
        party = self._parties[pid]
        taken = party.lose(amount)
        party.lost_this_round += taken
        return r.Loss(pid, taken, amount, kind, comparison, party.state())

    def _defeats(self, attacker: r.Side, sides: list[r.Side], winners: list[str],
                 at_zero: list[str]) -> tuple[str, ...]:
        """R7 and RULES.md points 5 and 6: every party of a side that failed while it
        had 0 available before the exchange's losses (`at_zero`) is defeated."""
        defeats: list[str] = []
        for index, side in enumerate(sides):
            winner = winners[index]
            if side.name == GM:
                losers = attacker.parties if winner == GM else ()
            else:
                losers = side.parties if winner == attacker.name else attacker.parties
            for pid in losers:
                if pid in at_zero and pid not in defeats and not self._parties[pid].defeated:
                    defeats.append(pid)
        for pid in defeats:
            self._parties[pid].defeated = True
        return tuple(defeats)

    @staticmethod
    def _double_wins(action: Action, attacker: r.Side, sides: list[r.Side], winners: list[str],
                     settled_by: list, tie_dice: list, owed: list[int]
                     ) -> tuple[tuple[r.Comparison, ...], list[r.Option]]:
        """R8 and RULES.md point 7: the comparisons, and an option for each double
        win (value > needed and value >= 2 x needed; never on a tie)."""
        comparisons: list[r.Comparison] = []
        options: list[r.Option] = []
        for index, side in enumerate(sides):
            winner = winners[index]
            tie = settled_by[index] is not None
            if winner == attacker.name:
                value, needed, winning = attacker.value, side.value, attacker
            else:
                value, needed, winning = side.value, attacker.value, side
            # only a party wins double: the GM beating a party is an ordinary failure
            double = bool(winning.parties) and not tie and value > needed and value >= 2 * needed
            if double:
                options.append(r.Option(index, winning.parties))
            values = {attacker.name: attacker.value}
            if side.name != GM:
                values[side.name] = side.value
            comparisons.append(r.Comparison(
                attacker.name, side.name, values, action.gm_target, winner, tie,
                settled_by[index], tie_dice[index], double, owed[index]))
        return tuple(comparisons), options

    def take_option(self, party: str, kind: str, throw: Throw = NO_THROW, text: str | None = None) -> r.OptionTaken:
        """R8: the winner of a double win rerolls this round's losses, or dictates."""
        if kind not in ("reroll", "dictate"):
            raise ValueError(f"an option is 'reroll' or 'dictate', not {kind!r}")
        self._party(party)
        option = next((o for o in self._options if party in o.parties), None)
        if option is None:
            holders = sorted({p for o in self._options for p in o.parties})
            raise RuleError("R8", "E308", f"{party} has no double win to take an option from",
                            expected=f"an option taken by {one_of(holders)}" if holders
                            else "a double win in the exchange just before")
        state = self._parties[party]
        if kind == "dictate":
            self._options.remove(option)
            return r.OptionTaken(party, kind, option.comparison, text, state.lost_this_round, (), "none", 0,
                                 self.states([party]))
        lost = state.lost_this_round
        dice, rolled_by = self._exact_throw(throw, lost, f"{party} rerolls the {_count(lost, 'die', 'dice')} "
                                            "it lost this round")
        ones = dice.count(1)
        returned = state.regain(lost - ones)
        state.lost_this_round = lost - returned
        self._options.remove(option)
        return r.OptionTaken(party, kind, option.comparison, text, lost, dice, rolled_by, returned,
                             self.states([party]))

    # ------------------------------------------------------------ recovery and time

    def may_recover(self, party: str) -> bool:
        """Whether the party may take a recovery action now (R14, R15), without help."""
        self._party(party)
        drama = self.drama
        try:
            self._check_recovery(party, (), drama is not None and party in drama.parties)
        except DramaError:
            return False
        return True

    def _check_recovery(self, party: str, helper_ids: tuple[str, ...], rushed: bool) -> None:
        """R14 and R15: refuse a recovery that the rules do not allow now."""
        settings = self.settings
        drama = self.drama
        if rushed:                                           # R15
            for pid in (party, *helper_ids):
                self._can_act(pid, "recover" if pid == party else f"help {party} recover")
        else:
            if drama is not None:
                raise DramaError("E203", f"{party} is not in the dramatic situation {drama.name}")
            if self.last_drama_end is not None:
                calm = settings.seconds(settings.calm)
                since = self.time - self.last_drama_end
                if since < calm:
                    raise RuleError("R14", "E314",
                                    f"{party} needs {settings.calm} ({format_seconds(calm)}) of calm after "
                                    f"{self.last_drama_name} to recover, and only {format_seconds(since)} have passed",
                                    expected="a `calm DURATION` first, or a rushed recovery inside drama")
        last = self._parties[party].last_recovery
        if last is not None:
            interval = settings.seconds(settings.recovery)
            since = self.time - last
            if since < interval:
                raise RuleError("R14", "E314",
                                f"{party} recovered {format_seconds(since)} ago and may recover once every "
                                f"{settings.recovery}", expected=f"{format_seconds(interval - since)} more of in-world time")

    def recover(self, party: str, trait: str | None = None, treasure: str | None = None,
                helpers: Sequence[Helping] = (), first: Throw = Throw.roll(),
                second: Throw | None = None) -> r.Recovery:
        """R14 (and R15 inside drama): roll the damage pool; sixes and the highest
        dice below them return. `second` gives the dice of a rushed recovery's
        second check."""
        settings = self.settings
        state = self._party(party)
        self._check_uses(party, trait, treasure)
        drama = self.drama
        rushed = drama is not None and party in drama.parties
        helper_ids = tuple(h.party for h in helpers)
        for helping in helpers:
            self._party(helping.party)
            if helping.party == party:
                raise DramaError("E305", f"{party} cannot help its own recovery")
            self._check_uses(helping.party, helping.trait, helping.treasure)
        if len(set(helper_ids)) != len(helper_ids):
            raise DramaError("E305", "a helper is named twice")
        turn = None
        self._check_recovery(party, helper_ids, rushed)
        if second is not None and (second.is_given or second.most or second.count) and not rushed:
            raise DramaError("E305", f"only a rushed recovery inside drama has a second check (`then ...`)")
        bonus = self._level(party, trait, "trait") + self._level(party, treasure, "treasure")
        bonus += sum(self._level(h.party, h.trait, "trait") + self._level(h.party, h.treasure, "treasure")
                     for h in helpers)
        checks = [self._recovery_check(state.damage, first, bonus,
                                       f"{party}'s recovery rolls its damage pool of {state.damage}")]
        returning = checks[0].returning
        if rushed:                                           # R15: a second check
            if second is None or (not second.is_given and second.count == 0 and not second.most):
                if first.is_given and returning:
                    raise DramaError("E401", f"{party}'s rushed recovery makes a second check with "
                                     f"{_count(returning, 'die', 'dice')}: give {'it' if returning == 1 else 'them'}",
                                     expected="`then N ...` after the first check's dice (R15)")
                second = Throw.roll()
            checks.append(self._recovery_check(
                returning, second, bonus,
                f"the second check of {party}'s rushed recovery rolls the {returning} returning"))
            returning = checks[1].returning
        # nothing refuses below
        if rushed:
            turn = self._take_turn((party, *helper_ids))
            drama.acted_any = True
        returned = state.regain(returning)
        state.lost_this_round = max(0, state.lost_this_round - returned)   # R8: what came back is not lost
        state.last_recovery = self.time
        return r.Recovery(party, rushed, trait, treasure,
                          tuple((h.party, h.trait, h.treasure) for h in helpers), bonus,
                          tuple(checks), returned, self.time, turn, self.states([party, *helper_ids]))

    def pass_time(self, kind: str, seconds: int) -> r.TimePassed:
        """`calm` or `rest`: in-world time passes outside drama; a rest of at least
        `full_rest` restores every party fully (R16)."""
        if self.drama is not None:
            raise RuleError("R16", "E316",
                            f"there is no {kind} during the dramatic situation {self.drama.name}",
                            expected="`end drama` first")
        if seconds < 0:
            raise DramaError("E104", "time cannot run backwards")
        self.time += seconds
        for party in self._parties.values():
            party.lost_this_round = 0
        restored: list[str] = []
        if kind == "rest" and seconds >= self.settings.seconds(self.settings.full_rest):
            for pid, party in self._parties.items():
                if party.damage:
                    party.regain(party.damage)
                    restored.append(pid)
        return r.TimePassed(kind, seconds, self.time, tuple(restored), self.states(restored))

    # ------------------------------------------------------------ helpers

    def _party(self, pid: str) -> _Party:
        try:
            return self._parties[pid]
        except KeyError:
            raise DramaError("E201", f"there is no party '{pid}' in the cast",
                             hint=did_you_mean(pid, self._parties),
                             expected=f"one of {one_of(self._parties)}") from None

    def _member(self, pid: str) -> _Party:
        party = self._party(pid)
        if self.drama is not None and pid not in self.drama.parties:
            raise DramaError("E203", f"{pid} is not in the dramatic situation {self.drama.name}",
                             expected=f"one of {one_of(self.drama.parties)}",
                             hint=did_you_mean(pid, self.drama.parties), party=pid)
        return party

    def _in_drama(self, what: str) -> _Drama:
        if self.drama is None:
            raise RuleError("R13", "E313", f"`{what}` needs a dramatic situation",
                            expected='`drama "Name" with ...` first')
        return self.drama

    def _can_act(self, pid: str, doing: str) -> _Party:
        party = self._member(pid)
        drama = self.drama
        if drama is None:
            return party
        if party.defeated:
            raise RuleError("R7", "E307", f"{pid} is defeated in {drama.name} and cannot {doing}", party=pid)
        if party.acted:
            raise RuleError("R9", "E309", f"{pid} already took an aggressive action this round",
                            expected="`round` before its next aggressive action")
        return party

    def _check_part_uses(self, part: Part) -> None:
        party = self._parties[part.party]
        if (part.trait is not None and part.trait not in party.traits
                or part.treasure is not None and part.treasure not in party.treasures):
            self._check_uses(part.party, part.trait, part.treasure)    # raises E202

    def _check_uses(self, pid: str, trait: str | None, treasure: str | None) -> None:
        sheet = self._party(pid).sheet
        if trait is not None and trait not in sheet.traits:
            raise DramaError("E202", f"{pid} has no trait '{trait}'",
                             expected=f"one of {one_of(sheet.traits)}",
                             hint=did_you_mean(trait, sheet.traits), party=pid)
        if treasure is not None and treasure not in sheet.treasures:
            raise DramaError("E202", f"{pid} has no treasure '{treasure}'",
                             expected=f"one of {one_of(sheet.treasures)}",
                             hint=did_you_mean(treasure, sheet.treasures), party=pid)

    def _level(self, pid: str, name: str | None, kind: str) -> int:
        if name is None:
            return 0
        sheet = self._parties[pid].sheet
        return (sheet.traits if kind == "trait" else sheet.treasures)[name]

    def _plan_side(self, parts: Sequence[Part], spending: dict[str, int]) -> list[tuple]:
        """R3 for each part of a side, the lead first."""
        plans = []
        lead = True
        for part in parts:
            plans.append(self._plan_effort(part, lead, spending.get(part.party, 0) if spending else 0))
            lead = False
        return plans

    def _plan_effort(self, part: Part, lead: bool, spending: int) -> tuple:
        """Check R3 for one part; returns what `_throw` needs."""
        party = self._parties[part.party]
        level = party.traits[part.trait] if part.trait is not None else 0
        treasure = party.treasures[part.treasure] if part.treasure is not None else 0
        available = party.available - spending
        if part.trait is None:
            cap = 1
        else:
            cap = level + part.gm if level + part.gm > 0 else 0
        allowed = cap if cap < available else available
        throw = part.throw
        if throw.faces is not None:         # given
            count = len(throw.faces)
            try:
                check_faces(throw.faces, self.settings.sides)
            except DramaError as error:
                error.party = part.party
                raise
        elif throw.most:
            count = allowed if throw.count is None else min(allowed, throw.count)
        else:
            count = throw.count or 0
        if count > allowed:
            if count > cap:
                if part.trait is None:
                    why = "with no trait"
                else:
                    gm = f" and GM {part.gm:+d}" if part.gm else ""
                    why = f"with {part.trait} {level}{gm}"
                raise RuleError("R3", "E301", f"{part.party} may roll at most {cap} "
                                f"{'die' if cap == 1 else 'dice'} {why}, not {count}", party=part.party)
            raise RuleError("R3", "E301", f"{part.party} may roll at most {allowed} "
                            f"{'die' if allowed == 1 else 'dice'}: it has {available} quintessence available"
                            + (f" after spending {spending}" if spending else "") + f", not {count}",
                            party=part.party)
        return (part, lead, level, treasure, cap, count)

    def _roll_side(self, plans: list[tuple]) -> r.Side:
        """R2, R10: each party's dice, as planned by `_plan_effort`, and the side's value."""
        efforts = []
        for part, lead, level, treasure, cap, count in plans:
            if part.throw.faces is not None:
                dice, rolled_by = tuple(part.throw.faces), "table"
            elif count:
                dice, rolled_by = tuple(self.dice.roll(count, self.settings.sides)), "engine"
            else:
                dice, rolled_by = (), "none"
            efforts.append(r.Effort(part.party, part.trait, level, lead, part.treasure, treasure, part.gm, cap,
                                    dice, rolled_by))
        if len(efforts) == 1:
            effort = efforts[0]
            return r.Side(effort.party, (effort.party,), (effort,), effort.value)
        parties = tuple([e.party for e in efforts])
        return r.Side(" & ".join(parties), parties, tuple(efforts), sum([e.value for e in efforts]))

    def _exact_throw(self, throw: Throw, count: int, what: str) -> tuple[tuple[int, ...], str]:
        """Dice for a step whose number of dice the rules fix (rerolls, recovery).

        Given dice must be exactly `count`; `roll N` must ask for `count`; `roll`
        or no dice at all rolls `count` dice from the source."""
        if throw.is_given:
            if len(throw.faces) != count:
                raise DramaError("E401", f"{what}, but {_count(len(throw.faces), 'die is', 'dice are')} given",
                                 expected=_count(count, "die", "dice"))
            check_faces(throw.faces, self.settings.sides)
            return tuple(throw.faces), "table"
        if not throw.most and throw.count not in (None, 0) and throw.count != count:
            raise DramaError("E401", f"{what}, not {throw.count}", expected=_count(count, "die", "dice"))
        if not count:
            return (), "none"
        return self.dice.roll(count, self.settings.sides), "engine"

    def _recovery_check(self, count: int, throw: Throw, bonus: int, what: str) -> r.RecoveryCheck:
        """One recovery roll (R14): roll, re-roll the lowest dice below the top face
        (one per point of bonus), count what returns."""
        sides = self.settings.sides
        dice, rolled_by = self._exact_throw(throw, count, what)
        below_top = sorted((i for i, d in enumerate(dice) if d < sides), key=lambda i: dice[i])
        rerolled = tuple(below_top[:bonus])
        if throw.is_given:
            rerolls = throw.rerolls
            if len(rerolls) != len(rerolled):
                raise DramaError("E401", f"{what}: a bonus of {bonus} re-rolls "
                                 f"{_count(len(rerolled), 'die', 'dice')} here, but "
                                 f"{_count(len(rerolls), 're-roll is', 're-rolls are')} given",
                                 expected=f"`rerolled` with {_count(len(rerolled), 'face', 'faces')}"
                                 if rerolled else "no `rerolled`")
            check_faces(rerolls, sides)
        else:
            rerolls = self.dice.roll(len(rerolled), sides) if rerolled else ()
        final = list(dice)
        for index, face in zip(rerolled, rerolls):
            final[index] = face
        return r.RecoveryCheck(tuple(dice), rerolled, tuple(rerolls), tuple(final),
                               _returning(final, sides), rolled_by)

    def _take_turn(self, parties: tuple[str, ...], acting: bool = True) -> r.Turn | None:
        """R9, R10: mark the parties' aggressive action used (unless they only
        hold), and work out who acts on their turn, who on a held action, and
        whose turn passed unused."""
        drama = self.drama
        if drama is None:
            return None
        if acting:
            for pid in parties:
                self._parties[pid].acted = True
        order = drama.order
        if order is None:
            return r.Turn(tuple(parties), (), ())
        rank, pointer, held_before = drama.rank, drama.pointer, drama.held
        position = rank[parties[0]] if len(parties) == 1 else max([rank[pid] for pid in parties])
        passed = []
        on_turn: tuple[str, ...] = ()
        if position >= pointer:
            for pid in order[pointer:position]:
                if pid in parties or pid in held_before:
                    continue
                party = self._parties[pid]
                if party.acted or party.defeated:
                    continue
                passed.append(pid)
            on_turn = tuple([pid for pid in parties if rank[pid] == position and pid not in held_before])
        held = tuple([pid for pid in parties if pid not in on_turn])
        drama.held.update(passed)
        if acting:
            drama.held.difference_update(parties)
        drama.pointer = max(pointer, position + 1)
        return r.Turn(on_turn, held, tuple(passed))

    def _settle_named_tie(self, named: str, attacker: r.Side, sides: list[r.Side],
                          winners: list, settled_by: list) -> None:
        """RULES.md point 8: which tied comparison a `tie NAME` line settles."""
        tied = [i for i, w in enumerate(winners) if w is None]
        if named == GM:
            hits = [i for i in tied if sides[i].name == GM]
            if not hits:
                raise RuleError("R11", "E311", "there is no tie against a GM target to settle here",
                                expected=self._tie_names(attacker, sides, tied), party=GM)
            for i in hits:
                winners[i], settled_by[i] = GM, "vote"
            return
        self._party(named)
        if named in attacker.parties:
            if not tied:
                raise RuleError("R11", "E311", f"there is no tie for {named} to win here",
                                expected=self._tie_names(attacker, sides, tied), party=named)
            for i in tied:
                winners[i], settled_by[i] = attacker.name, "vote"
            return
        hits = [i for i in tied if named in sides[i].parties]
        if not hits:
            raise RuleError("R11", "E311", f"there is no tie for {named} to win here",
                            expected=self._tie_names(attacker, sides, tied), party=named)
        for i in hits:
            winners[i], settled_by[i] = sides[i].name, "vote"

    @staticmethod
    def _tie_names(attacker: r.Side, sides: list[r.Side], tied: list[int]) -> str:
        if not tied:
            return "no `tie` line: no comparison of this exchange is tied"
        names = [attacker.parties[0]] + [sides[i].parties[0] if sides[i].parties else GM for i in tied]
        return "`tie` naming " + one_of(dict.fromkeys(names))

    def _settle_tie(self, attacker: r.Side, side: r.Side) -> tuple[str, str, tuple]:
        """R11: a tie nobody named is settled by the setting's policy."""
        policy = self.settings.ties
        if policy == "actor":
            return attacker.name, "actor", ()
        if policy == "defender":
            return side.name, "defender", ()
        if policy == "vote" and not self.lenient:
            first = attacker.parties[0]
            other = side.parties[0] if side.parties else GM
            raise RuleError("R11", "E311",
                            f"{attacker.name} and {side.name} tie at {attacker.value}: say who won the vote",
                            expected=f"`tie {first}` or `tie {other}` after the exchange, "
                                     "or run with --lenient to let the dice decide")
        rolls = []
        while True:                                        # a roll-off with the seeded dice
            a, b = self.dice.roll(2, self.settings.sides)
            rolls.append((a, b))
            if a != b:
                return (attacker.name if a > b else side.name), "random", tuple(rolls)

    def _plan_split(self, split: dict[str, int], lost_by_side: dict[str, int],
                    sides: list[r.Side]) -> dict[str, dict[str, int]]:
        """R10: check a `split` against the losses of the losing sides."""
        shares: dict[str, dict[str, int]] = {}
        for pid, amount in split.items():
            self._party(pid)
            side = next((s for s in sides if pid in s.parties and s.name in lost_by_side), None)
            if side is None:
                raise RuleError("R10", "E310", f"the split names {pid}, which is not on a losing side",
                                expected=f"parties of {one_of(lost_by_side)}" if lost_by_side
                                else "no split: nobody lost")
            if amount < 0:
                raise RuleError("R10", "E310", f"the split gives {pid} a negative share")
            shares.setdefault(side.name, {})[pid] = amount
        for name, given in shares.items():
            total = sum(given.values())
            if total != lost_by_side[name]:
                listed = ", ".join(f"{pid} {n}" for pid, n in given.items())
                raise RuleError("R10", "E310", f"the split ({listed}) spreads {total}, but {name} "
                                f"lost {lost_by_side[name]}", expected=f"shares that add up to {lost_by_side[name]}")
        return shares

    def _spread(self, side: r.Side, amount: int, shares: dict[str, int] | None,
                paid: dict[str, int]) -> list[tuple[str, int]]:
        """R10: how one comparison's loss falls on a side: as split, or lead first."""
        if shares is None and len(side.parties) == 1:
            return [(side.parties[0], amount)] if amount > 0 else []
        if shares is not None:
            out = []
            for pid, share in shares.items():
                owed = share - paid.get(pid, 0)
                take = min(owed, amount)
                if take > 0:
                    out.append((pid, take))
                    paid[pid] = paid.get(pid, 0) + take
                    amount -= take
            return out
        out = []
        for i, pid in enumerate(side.parties):
            if amount <= 0:
                break
            last = i == len(side.parties) - 1
            take = amount if last else min(amount, self._parties[pid].available)
            if take > 0:
                out.append((pid, take))
                amount -= take
        return out


def _returning(dice: Sequence[int], sides: int) -> int:
    """R14: every die on the top face, and every die tied for the highest below it."""
    top = sum(1 for d in dice if d == sides)
    below = [d for d in dice if d < sides]
    if below:
        best = max(below)
        top += below.count(best)
    return top


def _count(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else (many or one + 's')}"
