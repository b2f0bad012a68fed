"""The exchange: one aggressive action against its defences, planned, rolled and settled (R2-R11)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from ..errors import DramaError, RuleError, one_of
from . import checks, formulas
from . import results as r
from .checks import plural
from .dice import NO_THROW, Throw, check_faces
from .inputs import GM, Action, Defence, Part
from .turns import take_turn

if TYPE_CHECKING:
    from .game import Game


def resolve(game: Game, action: Action, defences: Sequence[Defence] = (),
            ties: Sequence[str] = (), split: dict[str, int] | None = None) -> r.Exchange:
    """Resolve one aggressive action with its defences, ties and split (R2-R10).

    `ties` names the winner of each vote, in order (`GM` for the GM); `split`
    says how the winner spreads a losing side's loss. The steps follow
    RULES.md's order of play: spend, roll, compare, ones, losses, defeats,
    double wins. Every check comes before the first change.
    """
    drama = game.drama
    parties = game.parties
    attackers, targets, spending, attack_plans, defence_plans = _planned(game, action, defences)
    attacker = _roll_side(game, attack_plans)                                 # R2
    sides: list[r.Side] = []
    if action.gm_target is not None:
        sides.append(r.Side(GM, (), (), action.gm_target))
    for pid in targets:
        plans = defence_plans.get(pid)
        if plans is not None:
            sides.append(_roll_side(game, plans))
        else:
            sides.append(r.Side(pid, (pid,), (), 0, False))   # R5: undefended, not stated
    winners, settled_by, tie_dice = _compare(game, attacker, sides, ties)      # R5, R11
    owed, lost_by_side = _losses_owed(game, attacker, sides, winners)          # R6
    shares = _plan_split(game, split, lost_by_side, [attacker, *sides]) if split else {}

    # ---------------------------------------------------------- nothing refuses below
    turn = take_turn(game, attackers)
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
                losses.append(_lose(game, effort.party, ones, "ones", None))
    paid: dict[str, int] = {}
    for index, side in enumerate(sides):                                        # R6, R10
        if owed[index]:
            loser = side if winners[index] == attacker.name else attacker
            for pid, share in _spread(game, loser, owed[index], shares.get(loser.name), paid):
                losses.append(_lose(game, pid, share, "loss", index))
    defeats = _defeats(game, attacker, sides, winners, at_zero) if drama is not None and at_zero else ()  # R7
    comparisons, options = _double_wins(action, attacker, sides, winners, settled_by,  # R8
                                        tie_dice, owed)
    game.options = options
    game.taken = []
    states = {}
    for side in everyone:
        for pid in side.parties:
            states[pid] = parties[pid].state()
    return r.Exchange(
        drama.name if drama else None, drama.round if drama else None, action.intent,
        attacker, action.gm_target, tuple(action.qualifiers), tuple(action.extra_targets),
        tuple(sides), comparisons, tuple(losses), defeats, tuple(options), turn,
        states, action.target)

def plan(game: Game, action: Action, defences: Sequence[Defence] = ()) -> r.ExchangePlan:
    """The exchange as `resolve` would roll it, checked the same way (R2-R5),
    without rolling a die or changing the state: every side, lead first, and
    what the acting parties spend."""
    attackers, targets, spending, attack_plans, defence_plans = _planned(game, action, defences)
    # as `resolve` lines them up: the GM's target number, then each target, undefended ones at 0 (R5)
    sides = [r.PlannedSide(GM, (), (), action.gm_target)] if action.gm_target is not None else []
    sides += [_planned_side(defence_plans[pid]) if pid in defence_plans else r.PlannedSide(pid, (pid,), (), 0, False)
              for pid in targets]
    return r.ExchangePlan(action.intent, _planned_side(attack_plans), tuple(sides), dict(spending))


def _planned_side(plans: list[r.EffortPlan]) -> r.PlannedSide:
    parties = tuple([p.party for p in plans])
    return r.PlannedSide(" & ".join(parties), parties, tuple(plans), sum([p.value for p in plans]))


def _planned(game: Game, action: Action, defences: Sequence[Defence]
             ) -> tuple[tuple[str, ...], tuple[str, ...], dict[str, int], list[r.EffortPlan],
                        dict[str, list[r.EffortPlan]]]:
    """Every check before the dice (R2-R5): the attackers, the targets, what
    each attacker spends (R4), and the efforts of the acting side and of each
    defended target (R3)."""
    attackers, targets, defence_of = _check_exchange(game, action, defences)
    spending = _plan_spending(game, action, attackers)                         # R4
    attack_plans = _plan_side(game, action.parts, spending)                    # R3
    defence_plans = {}
    for pid, defence in defence_of.items():
        defence_plans[pid] = _plan_side(game, defence.parts, {})
    return attackers, targets, spending, attack_plans, defence_plans


def _check_exchange(game: Game, action: Action, defences: Sequence[Defence]
                    ) -> tuple[tuple[str, ...], tuple[str, ...], dict[str, Defence]]:
    """Who is who in an exchange: the attackers, the targets, and the defence
    stated for each target; refuses what the rules do not allow."""
    drama = game.drama
    parties = game.parties
    members = parties if drama is None else drama.parties      # who may take part
    attackers = tuple([part.party for part in action.parts])
    if not attackers:
        raise DramaError("E305", "an action needs at least one acting party")
    for pid in attackers:
        party = parties.get(pid)
        if party is None or pid not in members or party.defeated or party.acted:
            checks.can_act(game, pid, "act")   # raises the error that applies, if any
    if len(attackers) > 1 and len(set(attackers)) != len(attackers):
        raise DramaError("E305", f"a party is named twice among {one_of(attackers)}")
    if (action.target is None) == (action.gm_target is None):
        raise DramaError("E305", "an action has either a target party or a GM target (`vs N`)")
    targets = ((action.target,) if action.target is not None else ()) + tuple(action.extra_targets)
    for pid in targets:
        if pid not in members:
            checks.member(game, pid)           # raises E201 or E203
        if pid in attackers:
            raise DramaError("E305", f"{pid} cannot be the target of an action it takes part in")
        if drama is not None and parties[pid].defeated:      # point 15: the fallen are out of the situation
            raise RuleError("point 15", "E321", f"{pid} is defeated in {drama.name}, out of the situation: "
                            "no longer a party to strike at", party=pid)
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
                checks.member(game, pid)       # raises E201 or E203
            if drama is not None and parties[pid].defeated:
                raise RuleError("R7", "E307", f"{pid} is defeated in {drama.name} and cannot defend",
                                party=pid)
        defence_of[aimed[0]] = defence
    for part in action.parts:
        checks.check_part_uses(game, part)
    for defence in defences:
        for part in defence.parts:
            checks.check_part_uses(game, part)
    return attackers, targets, defence_of


def _plan_spending(game: Game, action: Action, attackers: tuple[str, ...]) -> dict[str, int]:
    """R4 and RULES.md point 9: what each attacker pays for qualifiers and extra
    targets, the lead first; refused when the side cannot pay."""
    cost = len(action.qualifiers) + len(action.extra_targets)
    if not cost:
        return {}
    have = sum(game.parties[pid].available for pid in attackers)
    if cost > have:
        what = []
        if action.qualifiers:
            what.append(plural(len(action.qualifiers), "qualifier"))
        if action.extra_targets:
            what.append(plural(len(action.extra_targets), "extra target"))
        one = len(attackers) == 1
        raise RuleError("R4", "E304", f"{' & '.join(attackers)} {'needs' if one else 'need'} "
                        f"{cost} quintessence for {' and '.join(what)} but {'has' if one else 'have'} {have}")
    spending: dict[str, int] = {}
    for pid in attackers:
        take = min(cost, game.parties[pid].available)
        if take:
            spending[pid] = take
        cost -= take
    return spending


def _plan_side(game: Game, parts: Sequence[Part], spending: dict[str, int]) -> list[r.EffortPlan]:
    """R3 for each part of a side, the lead first."""
    plans = []
    lead = True
    for part in parts:
        plans.append(_plan_effort(game, part, lead, spending.get(part.party, 0) if spending else 0))
        lead = False
    return plans


def _plan_effort(game: Game, part: Part, lead: bool, spending: int) -> r.EffortPlan:
    """Check R3 for one part: its levels, its cap, and how many dice it rolls."""
    party = game.parties[part.party]
    level = party.traits[part.trait] if part.trait is not None else 0
    treasure = party.treasures[part.treasure] if part.treasure is not None else 0
    available = party.available - spending
    cap = formulas.cap(level if part.trait is not None else None, part.gm)
    allowed = formulas.allowed(cap, available)
    throw = part.throw
    if throw.faces is not None:         # given
        count = len(throw.faces)
        try:
            check_faces(throw.faces, game.settings.sides)
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
    return r.EffortPlan(part, lead, level, treasure, cap, count)


def _roll_side(game: Game, plans: list[r.EffortPlan]) -> r.Side:
    """R2, R10: each party's dice, as planned by `_plan_effort`, and the side's value."""
    efforts = []
    for plan in plans:
        part = plan.part
        if part.throw.faces is not None:
            dice, rolled_by = tuple(part.throw.faces), "table"
        elif plan.count:
            dice, rolled_by = tuple(game.dice.roll(plan.count, game.settings.sides)), "engine"
        else:
            dice, rolled_by = (), "none"
        efforts.append(r.Effort(part.party, part.trait, plan.trait_level, plan.trait_counts, part.treasure,
                                plan.treasure_value, part.gm, plan.cap, dice, rolled_by))
    if len(efforts) == 1:
        effort = efforts[0]
        return r.Side(effort.party, (effort.party,), (effort,), effort.value)
    parties = tuple([e.party for e in efforts])
    return r.Side(" & ".join(parties), parties, tuple(efforts), sum([e.value for e in efforts]))


def _compare(game: Game, attacker: r.Side, sides: list[r.Side], ties: Sequence[str]) -> tuple[list, list, list]:
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
        _settle_named_tie(game, named, attacker, sides, winners, settled_by)
    for index, side in enumerate(sides):
        if winners[index] is None:
            winners[index], settled_by[index], tie_dice[index] = _settle_tie(game, attacker, side)
    return winners, settled_by, tie_dice


def _settle_named_tie(game: Game, named: str, attacker: r.Side, sides: list[r.Side],
                      winners: list, settled_by: list) -> None:
    """RULES.md point 8: which tied comparison a `tie NAME` line settles."""
    tied = [i for i, w in enumerate(winners) if w is None]
    if named == GM:
        hits = [i for i in tied if sides[i].name == GM]
        if not hits:
            raise RuleError("R11", "E311", "there is no tie against a GM target to settle here",
                            expected=_tie_names(attacker, sides, tied), party=GM)
        for i in hits:
            winners[i], settled_by[i] = GM, "vote"
        return
    checks.party(game, named)
    if named in attacker.parties:
        if not tied:
            raise RuleError("R11", "E311", f"there is no tie for {named} to win here",
                            expected=_tie_names(attacker, sides, tied), party=named)
        for i in tied:
            winners[i], settled_by[i] = attacker.name, "vote"
        return
    hits = [i for i in tied if named in sides[i].parties]
    if not hits:
        raise RuleError("R11", "E311", f"there is no tie for {named} to win here",
                        expected=_tie_names(attacker, sides, tied), party=named)
    for i in hits:
        winners[i], settled_by[i] = sides[i].name, "vote"


def _tie_names(attacker: r.Side, sides: list[r.Side], tied: list[int]) -> str:
    if not tied:
        return "no `tie` line: no comparison of this exchange is tied"
    names = [attacker.parties[0]] + [sides[i].parties[0] if sides[i].parties else GM for i in tied]
    return "`tie` naming " + one_of(dict.fromkeys(names))


def _settle_tie(game: Game, attacker: r.Side, side: r.Side) -> tuple[str, str, tuple]:
    """R11: a tie nobody named is settled by the setting's policy."""
    policy = game.settings.ties
    if policy == "actor":
        return attacker.name, "actor", ()
    if policy == "defender":
        return side.name, "defender", ()
    if policy == "vote" and not game.lenient:
        first = attacker.parties[0]
        other = side.parties[0] if side.parties else GM
        raise RuleError("R11", "E311",
                        f"{attacker.name} and {side.name} tie at {attacker.value}: say who won the vote",
                        expected=f"`tie {first}` or `tie {other}` after the exchange, "
                                 "or run with --lenient to let the dice decide")
    won, rolls = formulas.roll_off(game.dice.roll, game.settings.sides)
    return (attacker.name if won else side.name), "random", rolls


def _losses_owed(game: Game, attacker: r.Side, sides: list[r.Side], winners: list[str]
                 ) -> tuple[list[int], dict[str, int]]:
    """R6: each comparison's loss beyond the ones (1 + the winner's high dice;
    nothing for a GM target), and the total each losing side owes."""
    high = game.settings.high
    owed: list[int] = []
    lost_by_side: dict[str, int] = {}
    for index, side in enumerate(sides):
        if side.name == GM:
            owed.append(0)              # failing a GM target costs only the ones
            continue
        won = winners[index] == attacker.name
        winning, loser = (attacker, side) if won else (side, attacker)
        amount = formulas.owed([die for effort in winning.efforts for die in effort.dice], high)
        owed.append(amount)
        lost_by_side[loser.name] = lost_by_side.get(loser.name, 0) + amount
    return owed, lost_by_side


def _lose(game: Game, pid: str, amount: int, kind: str, comparison: int | None) -> r.Loss:
    party = game.parties[pid]
    taken = party.lose(amount)
    party.lost_this_round += taken
    return r.Loss(pid, taken, amount, kind, comparison, party.state())


def _defeats(game: Game, attacker: r.Side, sides: list[r.Side], winners: list[str],
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
            if pid in at_zero and pid not in defeats and not game.parties[pid].defeated:
                defeats.append(pid)
    for pid in defeats:
        game.parties[pid].defeated = True
    return tuple(defeats)


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
        double = bool(winning.parties) and not tie and formulas.double_win(value, needed)
        if double:
            options.append(r.Option(index, winning.parties))
        values = {attacker.name: attacker.value}
        if side.name != GM:
            values[side.name] = side.value
        comparisons.append(r.Comparison(
            attacker.name, side.name, values, action.gm_target, winner, tie,
            settled_by[index], tie_dice[index], double, owed[index]))
    return tuple(comparisons), options


def _plan_split(game: Game, split: dict[str, int], lost_by_side: dict[str, int],
                sides: list[r.Side]) -> dict[str, dict[str, int]]:
    """R10: check a `split` against the losses of the losing sides."""
    shares: dict[str, dict[str, int]] = {}
    for pid, amount in split.items():
        checks.party(game, pid)
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


def _spread(game: Game, side: r.Side, amount: int, shares: dict[str, int] | None,
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
    if amount <= 0:
        return []
    takes = formulas.lead_first([game.parties[pid].available for pid in side.parties], amount)
    return [(pid, take) for pid, take in zip(side.parties, takes) if take > 0]


def _may_take(game: Game, option: r.Option) -> list[str]:
    """The parties of the winning side that may take `option`: those not
    defeated in the exchange (R7, RULES.md point 10)."""
    return [pid for pid in option.parties if not game.parties[pid].defeated]


def take_option(game: Game, party: str, kind: str, throw: Throw = NO_THROW, text: str | None = None) -> r.OptionTaken:
    """R8: the winner of a double win rerolls this round's losses, or dictates."""
    if kind not in ("reroll", "dictate"):
        raise ValueError(f"an option is 'reroll' or 'dictate', not {kind!r}")
    checks.party(game, party)
    option = next((o for o in game.options if party in o.parties), None)
    if option is None:
        took = next((who for o, who in game.taken if party in o.parties), None)
        if took is not None:
            raise RuleError("R8", "E308", f"{took} already took the option of this double win"
                            if took != party else f"{party} already took the option of its double win",
                            hint="a double win gives its side one option: a reroll or a dictate, not both")
        holders = sorted({p for o in game.options for p in _may_take(game, o)})
        raise RuleError("R8", "E308", f"{party} has no double win to take an option from",
                        expected=f"an option taken by {one_of(holders)}" if holders
                        else "a double win in the exchange just before")
    if game.drama is not None and game.parties[party].defeated:     # R7, RULES.md point 10
        others = _may_take(game, option)
        raise RuleError("R7", "E307", f"{party} is defeated in {game.drama.name} and cannot take "
                        "the double-win option of its side", party=party,
                        hint=f"did you mean {one_of(others)}?" if others else None,
                        expected=f"the option taken by {one_of(others)}" if others
                        else "no option: every party of the winning side is defeated")
    state = game.parties[party]
    if kind == "dictate":
        game.options.remove(option)
        game.taken.append((option, party))
        return r.OptionTaken(party, kind, option.comparison, text, state.lost_this_round, (), "none", 0,
                             game.states([party]))
    lost = state.lost_this_round
    dice, rolled_by = checks.exact_throw(game, throw, lost, f"{party} rerolls the {plural(lost, 'die', 'dice')} "
                                         "it lost this round")
    ones = dice.count(1)
    returned = state.regain(lost - ones)
    state.lost_this_round = lost - returned
    game.options.remove(option)
    game.taken.append((option, party))
    return r.OptionTaken(party, kind, option.comparison, text, lost, dice, rolled_by, returned,
                         game.states([party]))
