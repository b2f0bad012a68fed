"""Exact odds of one exchange: its dice pools convolved into win, tie, double-win and loss chances (R2-R11)."""

from __future__ import annotations

import dataclasses
import json
from bisect import bisect_left, bisect_right
from fractions import Fraction
from typing import Mapping, Sequence

from .frozen import frozen
from .engine import formulas
from .pools import SideCounts, field_bits, pool_distribution, side_outcomes, unpack  # noqa: F401  (pool_distribution: the API of a pool's counts)
from .syntax import nodes as n
from .errors import DramaError, Position, did_you_mean, one_of
from .interpreter import Interpreter
from .syntax import parse

# how a tie is counted: all to the actor, all to the defender, or half to each
TIE_CHOICES = ("actor", "defender", "half")
ACTION_FILE = "<action>"


# ------------------------------------------------------------------ what is rolled

@frozen
class Pool:
    """One party's part in a side, as the engine planned it (R2, R3, R10)."""

    party: str
    trait: str | None
    trait_level: int
    trait_counts: bool        # only the lead's trait adds (R10)
    treasure: str | None
    treasure_value: int
    gm: int
    cap: int                  # the most dice it may roll (R3)
    dice: int                 # dice the engine rolls
    given: tuple[int, ...]    # dice given as rolled (`rolled 6 4`)
    value: int                # what it adds to its side before the rolled dice
    available: int            # quintessence it can lose, after spending (R4, R6)


@frozen
class SidePlan:
    """A side of the exchange: the acting side, a target's side, or the GM's target number."""

    name: str
    pools: tuple[Pool, ...]   # lead first; empty for the GM
    value: int                # the side's value before the rolled dice
    stated: bool = True       # False: an undefended target (value 0, R5)

    @property
    def is_gm(self) -> bool:
        return not self.pools


@frozen
class Plan:
    """One exchange, ready to count: its sides, what was spent, and the dice."""

    intent: str
    attacker: SidePlan
    targets: tuple[SidePlan, ...]        # one per comparison, in order (R5)
    spent: Mapping[str, int]             # R4
    sides: int                           # R1
    high: int                            # R1

    @property
    def rolls(self) -> int:
        """How many equally likely rolls there are."""
        return self.sides ** sum(p.dice for side in (self.attacker, *self.targets) for p in side.pools)


# ------------------------------------------------------------------ results

@frozen
class Chance:
    """`count` of `total` equally weighted outcomes."""

    count: int
    total: int

    @property
    def fraction(self) -> Fraction:
        return Fraction(self.count, self.total)

    @property
    def probability(self) -> float:
        return self.count / self.total


@frozen
class ComparisonOdds:
    """The chances of one comparison (R5, R8): the action against one target."""

    attacker: str
    defender: str             # a party's side, or "GM"
    gm_target: int | None
    win: Chance               # the attacking side wins outright
    tie: Chance               # equal values (R11)
    lose: Chance              # the defending side (or the GM) wins outright
    attacker_double: Chance   # the attacking side wins double (R8)
    defender_double: Chance   # the defending side wins double (never the GM)


@frozen
class LossTable:
    """How much quintessence a party (or a side) loses: `counts[k]` of `total` lose k (R6)."""

    name: str
    parties: tuple[str, ...]
    available: int
    counts: tuple[int, ...]
    total: int

    def chance(self, lost: int) -> Chance:
        return Chance(self.counts[lost] if 0 <= lost < len(self.counts) else 0, self.total)

    @property
    def mean(self) -> Fraction:
        return Fraction(sum(k * c for k, c in enumerate(self.counts)), self.total)


@frozen
class Odds:
    """Everything `drama odds` reports about one exchange."""

    action: str
    defences: tuple[str, ...]
    plan: Plan
    tie: str                  # how ties were counted for the losses: one of TIE_CHOICES
    tie_setting: str          # the setting's `ties` policy
    comparisons: tuple[ComparisonOdds, ...]
    parties: tuple[LossTable, ...]      # every party of the exchange, attackers first
    sides: tuple[LossTable, ...]        # every side of several parties


# ------------------------------------------------------------------ reading the question

def read_statement(text: str, file: str, kind: type, what: str) -> n.Statement:
    """The one statement of `kind` that `text` holds (E701 for anything else)."""
    script = parse(text, file)
    statements = script.statements
    example = ('`Kara fireball -> Overlord with Sorcery + Ember Staff, roll 3`' if kind is n.Action
               else '`Overlord defends with Cunning, roll 2`')
    if not statements:
        raise DramaError("E701", f"no {what} given", position=_start(file),
                         expected=f"one {what}, e.g. {example}")
    first = statements[0]
    if not isinstance(first, kind):
        raise DramaError("E701", f"`drama odds` needs {_a(what)} here", position=first.pos,
                         expected=f"one {what}, e.g. {example}")
    if len(statements) > 1:
        defence = kind is n.Defence or isinstance(statements[1], n.Defence)
        raise DramaError("E701", f"{len(statements)} statements given; `drama odds` takes one {what}",
                         position=statements[1].pos, expected=f"one {what}",
                         hint="give each defence with its own --defence" if defence else None)
    return first


def defence_file(index: int) -> str:
    """The pseudo-file of the index-th --defence (0-based) in positions."""
    return "<defence>" if index == 0 else f"<defence {index + 1}>"


def _start(file: str) -> Position:
    return Position(file, 1, 1)


def _a(what: str) -> str:
    return ("an " if what[0] in "aeiou" else "a ") + what


def plan_exchange(scenario, action: n.Action, defences: Sequence[n.Defence] = (),
                  state: Mapping[str, int] | None = None) -> Plan:
    """Plan one exchange through the interpreter and the engine themselves: names,
    moves and roles resolve as in a script, and the engine checks R3-R5 and
    works out each party's cap, dice and value (`Game.plan`), rolling nothing."""
    settings = scenario.setting
    sheets = {sheet.id: sheet for sheet in scenario.cast}
    for pid, available in _states(scenario, state).items():
        sheets[pid] = dataclasses.replace(sheets[pid], quintessence=available)
    interpreter = Interpreter(settings, sheets.values(), title=getattr(scenario, "title", ""),
                              roles=dict(scenario.roles))
    game = interpreter.game
    inputs, answers, _, _ = interpreter.engine_inputs(action, defences)
    planned = game.plan(inputs, answers)
    spent = dict(planned.spending)

    def side(planned_side) -> SidePlan:
        efforts = {e.party: e for e in planned_side.efforts}
        pools = []
        for pid in planned_side.parties:
            e = efforts.get(pid)
            available = game.state(pid).quintessence - spent.get(pid, 0)
            if e is None:               # an undefended target (R5)
                pools.append(Pool(pid, None, 0, False, None, 0, 0, 0, 0, (), 0, available))
                continue
            pools.append(Pool(pid, e.trait, e.trait_level, e.trait_counts, e.treasure, e.treasure_value, e.gm,
                              e.cap, e.rolled, e.faces or (), e.value, available))
        return SidePlan(planned_side.name, tuple(pools), planned_side.value, planned_side.stated)

    return Plan(planned.intent, side(planned.attacker), tuple(side(d) for d in planned.defences), spent,
                settings.sides, settings.high)


def _states(scenario, state: Mapping[str, int] | None) -> dict[str, int]:
    """`--state PARTY=N`: the party's available quintessence, by party id or role."""
    sheets = {sheet.id: sheet for sheet in scenario.cast}
    roles = dict(scenario.roles)
    out: dict[str, int] = {}
    for name, available in (state or {}).items():
        pid = roles.get(name, name)
        if pid not in sheets:
            raise DramaError("E201", f"there is no party '{name}' in the cast (--state)",
                             expected=f"one of {one_of(sheets)}", hint=did_you_mean(name, [*sheets, *roles]))
        maximum = sheets[pid].quintessence
        if not 0 <= available <= maximum:
            raise DramaError("E104", f"{pid} can have from 0 to {maximum} quintessence available, "
                             f"not {available} (--state)", expected=f"--state {name}=N with N from 0 to {maximum}")
        out[pid] = available
    return out


def tie_rule(setting_policy: str, choice: str | None = None) -> str:
    """How ties count for the losses (R11): the choice, else the setting's `actor`
    or `defender`; `vote` and `random` count a tie as half to each side."""
    if choice is not None:
        if choice not in TIE_CHOICES:
            raise ValueError(f"tie must be one of {TIE_CHOICES}, not {choice!r}")
        return choice
    return setting_policy if setting_policy in ("actor", "defender") else "half"


def odds(scenario, action: str, defences: Sequence[str] = (), *, tie: str | None = None,
         state: Mapping[str, int] | None = None) -> Odds:
    """The exact odds of the exchange that `action` (and each of `defences`)
    declares in the language, against `scenario`'s cast and setting.

    `tie` is one of TIE_CHOICES (None: from the setting's policy); `state` sets
    a party's available quintessence (party id or role -> N; else its maximum).
    """
    statement = read_statement(action, ACTION_FILE, n.Action, "aggressive action")
    answers = [read_statement(text, defence_file(i), n.Defence, "defence") for i, text in enumerate(defences)]
    plan = plan_exchange(scenario, statement, answers, state)
    rule = tie_rule(scenario.setting.ties, tie)
    comparisons, parties, sides = compute(plan, rule)
    return Odds(action, tuple(defences), plan, rule, scenario.setting.ties, comparisons, parties, sides)


# ------------------------------------------------------------------ counting

def _side_outcomes(side: SidePlan, sides: int, high: int) -> SideCounts:
    """The side's outcomes by value: by its high dice, and by each party's ones (R2, R6, R10)."""
    return side_outcomes(side.value, [(p.dice, p.given, p.available) for p in side.pools], sides, high)


class _Cumulative:
    """A side's outcomes by value, with running totals, for counting what beats a
    value; and by value and each party's ones (`counts.ones`), for what the side loses."""

    def __init__(self, counts: SideCounts):
        self.counts = counts
        by_value = counts.highs
        top = max((h for row in by_value.values() for h in row), default=0)
        self.values = sorted(by_value)
        self.count = {v: sum(row.values()) for v, row in by_value.items()}
        self.prefix = [0]                     # prefix[i]: outcomes of the i lowest values
        self.prefix_highs = [[0] * (top + 1)]  # the same, by number of high dice
        for v in self.values:
            self.prefix.append(self.prefix[-1] + self.count[v])
            row = list(self.prefix_highs[-1])
            for h, ways in by_value[v].items():
                row[h] += ways
            self.prefix_highs.append(row)
        self.total = self.prefix[-1]

    def below(self, value: int) -> int:
        """Outcomes with a value under `value`."""
        return self.prefix[bisect_left(self.values, value)]

    def at(self, value: int) -> int:
        return self.count.get(value, 0)

    def owed(self, value: int, tie_lost: int, weight: int) -> dict[int, int]:
        """What a side of value `value` owes against this side beyond its ones (R6):
        1 + this side's high dice when this side wins, else 0; each outcome weighs
        `weight`, of which a tie gives `tie_lost` to this side."""
        above_from = bisect_right(self.values, value)
        at_from = bisect_left(self.values, value)
        last, upto, before = self.prefix_highs[-1], self.prefix_highs[above_from], self.prefix_highs[at_from]
        out: dict[int, int] = {}
        lost = 0
        for h in range(len(last)):
            ways = weight * (last[h] - upto[h]) + tie_lost * (upto[h] - before[h])
            if ways:
                out[1 + h] = ways
                lost += ways
        if weight * self.total - lost:
            out[0] = weight * self.total - lost
        return out


def _convolve(a: dict[int, int], b: dict[int, int]) -> dict[int, int]:
    out: dict[int, int] = {}
    for x, wx in a.items():
        for y, wy in b.items():
            out[x + y] = out.get(x + y, 0) + wx * wy
    return out


def _spread(firsts: Sequence[int], lefts: Sequence[int], owed: int) -> list[int]:
    """What each party of a side loses (R6, R10): its own ones first (`firsts`, no
    more than it has), then the side's loss falls on the lead first, then the
    next, as the engine's `_spread` does, out of what each has left (`lefts`)."""
    return [first + min(take, left) for first, take, left in zip(firsts, formulas.lead_first(lefts, owed), lefts)]


class _Tally:
    """Loss counts for the parties of one side and for the side as a whole.

    What a side owes, for one value of the side, is packed into one Python
    integer (a polynomial: the count of owing k in the k-th field), so that
    adding up over values is integer arithmetic. A side of one party loses
    min(available, ones + owed): its ones are packed too, and multiplying the
    two polynomials adds ones and owed. A side of several parties keeps one
    polynomial per combination of its parties' ones (`SideCounts.ones`), spread
    over the parties at the end (R6, R10)."""

    def __init__(self, side: SidePlan, counts: SideCounts, total: int):
        self.side = side
        self.counts = counts
        self.available = [p.available for p in side.pools]
        self.total = total
        self.bits = field_bits(total)                       # room for any sum of counts
        self.single = len(side.pools) == 1
        self.packed = 0                                     # one party: ones and owed, before the cap
        self.by_ones: dict[tuple[int, ...], int] = {}      # several: what is owed, by each party's ones

    def add(self, value: int, owed: dict[int, int]) -> None:
        """The side's rolls of `value` against `owed` (what it owes beyond its ones -> ways)."""
        bits = self.bits
        debt = 0
        for amount, ways in owed.items():
            debt += ways << (bits * amount)
        if self.single:        # its ones packed too: the product adds ones and owed
            ones = 0
            for (rolled,), ways in self.counts.ones[value].items():
                ones += ways << (bits * rolled)
            self.packed += ones * debt
            return
        by_ones = self.by_ones
        for ones, ways in self.counts.ones[value].items():
            by_ones[ones] = by_ones.get(ones, 0) + ways * debt

    def tables(self) -> tuple[list[LossTable], LossTable | None]:
        side, available = self.side, self.available
        counts = [[0] * (a + 1) for a in available]
        whole = [0] * (sum(available) + 1)
        single = self.single
        if single:                                          # min(available, ones + owed)
            have, row = available[0], counts[0]
            for lost, ways in unpack(self.packed, self.bits):
                row[lost if lost < have else have] += ways
        for ones, packed in self.by_ones.items():
            firsts = [min(have, rolled) for have, rolled in zip(available, ones)]
            lefts = [have - first for have, first in zip(available, firsts)]
            for amount, ways in unpack(packed, self.bits):
                lost = _spread(firsts, lefts, amount)
                for row, k in zip(counts, lost):
                    row[k] += ways
                whole[sum(lost)] += ways
        parties = [LossTable(pool.party, (pool.party,), pool.available, tuple(row), self.total)
                   for pool, row in zip(side.pools, counts)]
        if single:
            return parties, None
        return parties, LossTable(side.name, tuple(p.party for p in side.pools), sum(available),
                                  tuple(whole), self.total)


def compute(plan: Plan, tie: str = "half") -> tuple[tuple[ComparisonOdds, ...], tuple[LossTable, ...],
                                                     tuple[LossTable, ...]]:
    """The comparisons' chances and the loss tables of an exchange, counted exactly.

    Each side's outcomes are grouped by value; a comparison is counted from
    running totals over the other side's values, and what a side owes is
    counted once per value of its own, not once per pair of rolls.
    """
    if tie not in TIE_CHOICES:
        raise ValueError(f"tie must be one of {TIE_CHOICES}, not {tie!r}")
    sides, high = plan.sides, plan.high
    # every outcome weighs `weight`; a tie gives `to_actor` of it to the actor, the rest to the defender
    weight, to_actor = {"actor": (1, 1), "defender": (1, 0), "half": (2, 1)}[tie]
    to_defender = weight - to_actor
    a_cum = _Cumulative(_side_outcomes(plan.attacker, sides, high))
    t_cums = [_Cumulative(_side_outcomes(t, sides, high)) for t in plan.targets]

    comparisons = []
    for target, cum in zip(plan.targets, t_cums):
        total = a_cum.total * cum.total
        win = tie_ways = double = 0
        for value in a_cum.values:
            ways = a_cum.count[value]
            win += ways * cum.below(value)
            tie_ways += ways * cum.at(value)
            double += ways * cum.below(formulas.doubled_up_to(value) + 1)    # R8
        against = 0
        if not target.is_gm:                                            # only a party wins double
            for value in cum.values:
                against += cum.count[value] * a_cum.below(formulas.doubled_up_to(value) + 1)
        comparisons.append(ComparisonOdds(
            plan.attacker.name, target.name, target.value if target.is_gm else None,
            Chance(win, total), Chance(tie_ways, total), Chance(total - win - tie_ways, total),
            Chance(double, total), Chance(against, total)))

    # the acting side: its ones, and what it owes for each comparison it loses
    tallies = [_Tally(plan.attacker, a_cum.counts, a_cum.total * _product(weight * c.total for c in t_cums))]
    for value in a_cum.counts.ones:
        owed = {0: 1}
        for target, cum in zip(plan.targets, t_cums):
            step = {0: weight * cum.total} if target.is_gm else cum.owed(value, to_defender, weight)
            owed = _convolve(owed, step)
        tallies[0].add(value, owed)

    # each target's side: its ones, and what it owes when the action beats it
    for target, cum in zip(plan.targets, t_cums):
        if target.is_gm:
            continue
        tally = _Tally(target, cum.counts, weight * a_cum.total * cum.total)
        for value in cum.counts.ones:
            tally.add(value, a_cum.owed(value, to_actor, weight))
        tallies.append(tally)

    parties: list[LossTable] = []
    joint: list[LossTable] = []
    for tally in tallies:
        tables, whole = tally.tables()
        parties += tables
        if whole is not None:
            joint.append(whole)
    return tuple(comparisons), tuple(parties), tuple(joint)


def _product(numbers) -> int:
    out = 1
    for x in numbers:
        out *= x
    return out


# ------------------------------------------------------------------ output

def _fraction(chance: Chance) -> str:
    f = chance.fraction
    return f"{f.numerator}/{f.denominator}"


def _exact(chance: Chance) -> dict:
    return {"fraction": _fraction(chance), "probability": chance.probability}


def as_dict(result: Odds) -> dict:
    """The odds as JSON-ready data: each chance an exact "num/den" and a float."""
    plan = result.plan

    def side(s: SidePlan) -> dict:
        if s.is_gm:
            return {"name": "GM", "gm_target": s.value}
        return {"name": s.name, "value": s.value, "stated": s.stated,
                "parties": [{"party": p.party, "trait": p.trait, "trait_level": p.trait_level,
                             "trait_counts": p.trait_counts, "treasure": p.treasure,
                             "treasure_value": p.treasure_value, "gm": p.gm, "cap": p.cap, "dice": p.dice,
                             "given": list(p.given), "value": p.value, "available": p.available}
                            for p in s.pools]}

    def table(t: LossTable) -> dict:
        m = t.mean
        return {"name": t.name, "parties": list(t.parties), "available": t.available,
                "mean": {"fraction": f"{m.numerator}/{m.denominator}", "probability": float(m)},
                "lost": [{"lost": k, **_exact(t.chance(k))} for k in range(len(t.counts))]}

    return {
        "action": result.action, "defences": list(result.defences), "intent": plan.intent,
        "dice": {"sides": plan.sides, "high": plan.high}, "rolls": plan.rolls,
        "ties": {"counted": result.tie, "setting": result.tie_setting},
        "attacker": side(plan.attacker), "targets": [side(t) for t in plan.targets],
        "spent": dict(plan.spent),
        "comparisons": [{"attacker": c.attacker, "defender": c.defender, "gm_target": c.gm_target,
                         "win": _exact(c.win), "tie": _exact(c.tie), "lose": _exact(c.lose),
                         "attacker_double": _exact(c.attacker_double),
                         "defender_double": _exact(c.defender_double)} for c in result.comparisons],
        "losses": {"parties": [table(t) for t in result.parties], "sides": [table(t) for t in result.sides]},
    }


def render(result: Odds, fmt: str = "text") -> str:
    """The odds as text for a terminal, Markdown tables or JSON: the data of
    `as_dict` through the renderer (dsl/render/, the templates `odds.*.j2`)."""
    data = as_dict(result)
    if fmt == "json":
        return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    from .render import render_report
    return render_report("odds", data, fmt, raw_markdown=True)


def format_text(result: Odds) -> str:
    """The odds for a terminal."""
    return render(result, "text")


def format_markdown(result: Odds) -> str:
    """The odds as Markdown tables."""
    return render(result, "md")


def format_json(result: Odds) -> str:
    return render(result, "json")


FORMATS = {"text": format_text, "md": format_markdown, "json": format_json}
