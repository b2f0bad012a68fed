"""`drama odds`: the exact chances of one exchange (R1-R11), checked against
independent computations: icepool (a dice probability package) to the last digit
of the fraction, every roll of small pools run through the real engine, and a
large seeded sample drawn through the engine. Then the edge cases, the output
formats and the errors, through the `drama` command and the package API.

The tests carry their own cast and setting; they never read ../shared.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import math
from fractions import Fraction
from pathlib import Path

import pytest

from conftest import (EMBERFALL_CAST, ERROR_HEAD, assert_caret, drama, make_scenario, only_error_lines,
                      printed_errors, write)
from dsl import load
from dsl.engine import Action, Defence, Game, Part, SeededDice, Throw
from dsl.odds import TIE_CHOICES, Odds, odds, pool_distribution

SETTING = """\
name: Odds
round: 6 seconds
dice: {sides: 6, high: 6}
ties: vote
"""

# the Emberfall cast, the goblins with a `defend` move, and three giants for ten dice a party
CAST = EMBERFALL_CAST.replace("    treasures: {Rusty Spears: 1}\n",
                              "    treasures: {Rusty Spears: 1}\n    moves:\n      defend: Numbers + Rusty Spears\n") + """\
  Titan:
    name: the Titan
    quintessence: 10
    traits: {Might: 10}
    treasures: {Club: 1}
  Giant:
    name: the Giant
    quintessence: 10
    traits: {Might: 10}
  Colossus:
    name: the Colossus
    quintessence: 12
    traits: {Bulk: 10}
"""
assert "defend: Numbers" in CAST


def scenario_at(folder: Path, *, setting: str = SETTING, cast: str = CAST) -> Path:
    return make_scenario(folder, "# odds only\n", setting=setting, cast=cast)


@pytest.fixture
def scenario(in_tmp) -> Path:
    return scenario_at(in_tmp)


def loaded(folder: Path, **kwargs):
    return load(scenario_at(folder, **kwargs))


def setting_with(**changes: str) -> str:
    text = SETTING
    for key, value in changes.items():
        text = "\n".join(f"{key}: {value}" if line.startswith(f"{key}:") else line
                         for line in text.split("\n"))
    return text


# ---------------------------------------------------------------------------
# independent computation 1: icepool

try:
    import icepool
except ImportError:                  # in the `test` extra: pip install -e '.[test]'
    icepool = None
needs_icepool = pytest.mark.skipif(icepool is None, reason="icepool is not installed")


def ice_pool(count: int, sides: int = 6, high: int = 6):
    """(sum, ones, high dice) of `count` dice, as an icepool die of vectors."""
    die = icepool.d(sides).map(lambda f: icepool.Vector((f, int(f == 1), int(f >= high))))
    return count @ die


def ice_exchange(att_dice, def_dice, att_const, def_const, *, att_available, def_available, tie: str,
                 gm_target: bool = False):
    """One party against one party (or a GM target), written from the rules as
    plainly as possible, computed by icepool: {quantity: Fraction}."""

    def play(a, d):
        va = att_const + a[0]
        vd = def_const if gm_target else def_const + d[0]

        def outcome(attacker_won: bool):
            owed = 0 if gm_target else 1 + (a[2] if attacker_won else d[2])          # R6
            la = min(att_available, a[1] + (0 if attacker_won else owed))
            ld = 0 if gm_target else min(def_available, d[1] + (owed if attacker_won else 0))
            return (la, ld)

        if va != vd:
            return outcome(va > vd)
        if tie == "actor":
            return outcome(True)
        if tie == "defender":
            return outcome(False)
        return icepool.Die([outcome(True), outcome(False)])                     # half to each

    attacker = ice_pool(att_dice)
    defender = ice_pool(0 if gm_target else def_dice)
    losses = icepool.map(play, attacker, defender)

    def values(a, d):
        return att_const + a[0], def_const if gm_target else def_const + d[0]

    value_pairs = icepool.map(values, attacker, defender)
    total = value_pairs.denominator()
    chance = {}
    for name, test in {
        "win": lambda va, vd: va > vd,
        "tie": lambda va, vd: va == vd,
        "lose": lambda va, vd: va < vd,
        "attacker_double": lambda va, vd: va > vd and va >= 2 * vd,                # R8
        "defender_double": lambda va, vd: not gm_target and vd > va and vd >= 2 * va,
    }.items():
        chance[name] = Fraction(sum(q for (va, vd), q in value_pairs.items() if test(va, vd)), total)
    for side, index in (("attacker", 0), ("defender", 1)):
        for k in range(max(att_available, def_available) + 1):
            chance[f"{side} loses {k}"] = Fraction(
                sum(q for outcome, q in losses.items() if outcome[index] == k), losses.denominator())
    return chance


def our_chances(result: Odds, side_names: tuple[str, str]) -> dict[str, Fraction]:
    (c,) = result.comparisons
    chance = {name: getattr(c, name).fraction
              for name in ("win", "tie", "lose", "attacker_double", "defender_double")}
    tables = {t.name: t for t in result.parties}
    for side, name in zip(("attacker", "defender"), side_names):
        for k in range(20):
            if name in tables:
                chance[f"{side} loses {k}"] = tables[name].chance(k).fraction
    return chance


POOLS = [
    # the action, the defence, how ties count, each side's dice and value before the dice
    ("Kara fireball -> Overlord, roll 3", "Overlord defends with Cunning, roll 2", "half", (3, 2), (5, 3)),
    ("Kara fireball -> Overlord, roll 1", "Overlord defends with Cunning + Obsidian Crown, roll 3", "actor",
     (1, 3), (5, 5)),
    ("Bren bash -> Goblins with Strength + Rope, roll 2", "Goblins defend, roll 2", "defender", (2, 2), (3, 3)),
    ("Kara fireball -> Bren, roll 2", "Bren defends with Healing, roll", "half", (2, 2), (5, 2)),
    ("Titan smash -> Colossus with Might + Club, roll 6", "Colossus defends with Bulk, roll 5", "half",
     (6, 5), (11, 10)),
    ("Goblins stab -> Kara with Rusty Spears, roll 1", "Kara defends with Agility, roll 1", "half", (1, 1), (1, 1)),
    ("Kara fireball -> Overlord", "Overlord defends with Brutality, roll 2", "actor", (0, 2), (5, 2)),
]


@needs_icepool
@pytest.mark.parametrize("action, defence, tie, dice, values", POOLS)
def test_R2_R5_R6_R8_agree_with_icepool_to_the_last_digit(tmp_path, action, defence, tie, dice, values):
    """Win, tie, lose, both double wins (R8) and every party's loss (R6), as
    exact fractions, equal icepool's for the same opposed pools."""
    result = odds(loaded(tmp_path), action, [defence], tie=tie)
    attacker, defender = result.plan.attacker.pools[0], result.plan.targets[0].pools[0]
    assert (attacker.dice, defender.dice) == dice            # R3: `roll` alone rolls the most allowed
    assert (attacker.value, defender.value) == values        # R2: trait + treasure (moves included)
    expected = ice_exchange(*dice, *values, tie=tie, att_available=attacker.available,
                            def_available=defender.available)
    ours = our_chances(result, (attacker.party, defender.party))
    for key, value in expected.items():
        assert ours.get(key, Fraction(0)) == value, key


@needs_icepool
def test_R5_R8_gm_target_agrees_with_icepool(tmp_path):
    """Against a GM target (R5): a failure costs only the ones (R6), and the GM never wins double."""
    result = odds(loaded(tmp_path), "Kara leaps vs 9 with Agility, GM +2, roll", tie="half")
    pool = result.plan.attacker.pools[0]
    assert (pool.dice, pool.value) == (3, 3)          # Agility 1 + GM 2 caps at 3 dice (R3)
    expected = ice_exchange(3, 0, 3, 9, att_available=6, def_available=0, tie="half", gm_target=True)
    ours = our_chances(result, ("Kara", "GM"))
    for key, value in expected.items():
        if key.startswith("defender loses"):
            continue
        assert ours[key] == value, key


@needs_icepool
def test_R1_pool_distribution_agrees_with_icepool_for_other_dice():
    """The joint (sum, ones, high dice) of a pool, for d6, d8 with high 7, d4 with high 2."""
    for count, sides, high in [(0, 6, 6), (1, 6, 6), (4, 6, 6), (10, 6, 6), (3, 8, 7), (5, 4, 2), (2, 10, 8)]:
        ours = pool_distribution(count, sides, high)
        theirs = ice_pool(count, sides, high)
        assert sum(ours.values()) == sides ** count
        assert {tuple(k): v * (sides ** count // theirs.denominator()) for k, v in theirs.items()} == ours


@needs_icepool
def test_ten_dice_against_ten_dice_agree_with_icepool_on_the_comparison(tmp_path):
    """10 dice against 10 dice: win, tie and lose to the last digit (the pools'
    sums computed by icepool, the comparison by exact counting)."""
    result = odds(loaded(tmp_path), "Titan smash -> Colossus with Might, roll 10",
                  ["Colossus defends with Bulk, roll 10"])
    (c,) = result.comparisons
    a = 10 + 10 @ icepool.d6
    d = 10 + 10 @ icepool.d6
    total = a.denominator() * d.denominator()
    win = sum(qa * qd for va, qa in a.items() for vd, qd in d.items() if va > vd)
    tie = sum(qa * qd for va, qa in a.items() for vd, qd in d.items() if va == vd)
    assert c.win.fraction == Fraction(win, total)
    assert c.tie.fraction == Fraction(tie, total)
    assert c.lose.fraction == 1 - Fraction(win + tie, total)
    assert c.win.fraction == c.lose.fraction         # equal pools: as likely to win as to lose


JOINT = "Titan & Giant smash -> Colossus\n  Titan with Might, roll {}\n  Giant with Might, roll {}"


@needs_icepool
@pytest.mark.parametrize("tie", ["half", "actor"])
def test_R10_a_joint_side_agrees_with_icepool_on_every_chance(tmp_path, tie):
    """A joint side (R10): its dice add to the lead's trait alone, each party loses its
    own ones, and what the side owes falls on the lead first, then the next, a party
    never losing more than it has. Written from the rules as plainly as possible and
    computed by icepool over every (sum, ones, high dice) of the three pools."""
    result = odds(loaded(tmp_path), JOINT.format(3, 2), ["Colossus defends with Bulk, roll 3"], tie=tie,
                  state={"Titan": 3, "Giant": 3})
    available = {"Titan": 3, "Giant": 3, "Colossus": 12}

    def play(titan, giant, colossus):
        attacking, defending = 10 + titan[0] + giant[0], 10 + colossus[0]

        def outcome(attacker_won: bool):
            owed = 1 + (titan[2] + giant[2] if attacker_won else colossus[2])       # R6
            ones = {"Titan": min(available["Titan"], titan[1]), "Giant": min(available["Giant"], giant[1])}
            lost = dict(ones)
            if not attacker_won:                                                   # R10: the lead first
                lead = min(owed, available["Titan"] - ones["Titan"])
                lost["Titan"] += lead
                lost["Giant"] += min(owed - lead, available["Giant"] - ones["Giant"])
            colossus_lost = min(available["Colossus"], colossus[1] + (owed if attacker_won else 0))
            return (lost["Titan"], lost["Giant"], lost["Titan"] + lost["Giant"], colossus_lost,
                    "win" if attacking > defending else "lose" if attacking < defending else "tie",
                    attacking > defending and attacking >= 2 * defending,           # R8
                    defending > attacking and defending >= 2 * attacking)
        if attacking != defending:
            return outcome(attacking > defending)
        if tie == "actor":
            return outcome(True)
        return icepool.Die([outcome(True), outcome(False)])                     # half to each

    theirs = icepool.map(play, ice_pool(3), ice_pool(2), ice_pool(3))
    total = theirs.denominator()

    def chance(test) -> Fraction:
        return Fraction(sum(q for outcome, q in theirs.items() if test(outcome)), total)

    (c,) = result.comparisons
    for name in ("win", "tie", "lose"):
        assert getattr(c, name).fraction == chance(lambda o: o[4] == name), name
    assert c.attacker_double.fraction == chance(lambda o: o[5])
    assert c.defender_double.fraction == chance(lambda o: o[6])
    tables = {t.name: t for t in (*result.parties, *result.sides)}
    assert set(tables) == {"Titan", "Giant", "Colossus", "Titan & Giant"}
    for index, name in enumerate(("Titan", "Giant", "Titan & Giant", "Colossus")):
        for k in range(len(tables[name].counts) + 1):
            assert tables[name].chance(k).fraction == chance(lambda o: o[index] == k), (name, k)


@needs_icepool
def test_R10_ten_and_ten_dice_against_ten_agree_with_icepool_on_the_comparison(tmp_path):
    """A joint side of 10+10 dice against 10 (issue 28): the side's 20 dice add, so its
    value is 10 + 20d6 against 10 + 10d6; win, tie, lose and both double wins to the
    last digit, and every loss table sums to all the rolls."""
    result = odds(loaded(tmp_path), JOINT.format(10, 10), ["Colossus defends with Bulk, roll 10"])
    (c,) = result.comparisons
    a, d = 10 + 20 @ icepool.d6, 10 + 10 @ icepool.d6
    total = a.denominator() * d.denominator()
    pairs = [(va, vd, qa * qd) for va, qa in a.items() for vd, qd in d.items()]
    assert c.win.fraction == Fraction(sum(q for va, vd, q in pairs if va > vd), total)
    assert c.tie.fraction == Fraction(sum(q for va, vd, q in pairs if va == vd), total)
    assert c.lose.fraction == Fraction(sum(q for va, vd, q in pairs if va < vd), total)
    assert c.attacker_double.fraction == Fraction(sum(q for va, vd, q in pairs if va > vd and va >= 2 * vd), total)
    assert c.defender_double.fraction == Fraction(sum(q for va, vd, q in pairs if vd > va and vd >= 2 * va), total)
    assert result.plan.rolls == 6 ** 30
    for table in (*result.parties, *result.sides):
        assert sum(table.counts) == table.total, table.name
        assert len(table.counts) == table.available + 1


# ---------------------------------------------------------------------------
# independent computation 2: every roll of small pools through the real engine

def outcome_keys(result) -> list[str]:
    """What happened in one `Game.exchange`, as keys: each comparison's outcome
    and double win, and what each party and each joint side lost (R6)."""
    keys = []
    for index, c in enumerate(result.comparisons):
        attacking, defending = c.values[c.attacker], c.target if c.target is not None else c.values[c.defender]
        keys.append(f"{index} " + ("tie" if attacking == defending else "win" if attacking > defending else "lose"))
        if c.double:
            keys.append(f"{index} {'attacker' if c.winner == c.attacker else 'defender'}_double")
    lost: dict[str, int] = {}
    for loss in result.losses:
        if loss.kind != "spend":
            lost[loss.party] = lost.get(loss.party, 0) + loss.amount
    for side in (result.attacker, *result.defences):
        keys += [f"{pid} loses {lost.get(pid, 0)}" for pid in side.parties]
        if len(side.parties) > 1:
            keys.append(f"{side.name} loses {sum(lost.get(p, 0) for p in side.parties)}")
    return keys


def engine_exact(folder: Path, build, dice: dict[str, int], tie: str, state: dict[str, int] | None = None,
                 setting: str = SETTING) -> dict[str, Fraction]:
    """Run `build(faces)` -> (Action, [Defence]) through `Game.exchange` for every
    roll of the parties' dice; a tie counted half to each runs every roll once
    with each policy. Returns each chance as an exact fraction."""
    scenario = load(scenario_at(folder, setting=setting))
    sheets = [dataclasses.replace(s, quintessence=(state or {}).get(s.id, s.quintessence)) for s in scenario.cast]
    policies = ["actor", "defender"] if tie == "half" else [tie]
    sides = scenario.setting.sides
    counts: dict[str, int] = {}
    total = 0
    parties = list(dice)
    for roll in itertools.product(range(1, sides + 1), repeat=sum(dice.values())):
        faces, at = {}, 0
        for pid in parties:
            faces[pid] = roll[at:at + dice[pid]]
            at += dice[pid]
        for policy in policies:
            game = Game(sheets, dataclasses.replace(scenario.setting, ties=policy))
            total += 1
            for key in outcome_keys(game.exchange(*build(faces))):
                counts[key] = counts.get(key, 0) + 1
    return {key: Fraction(count, total) for key, count in counts.items()}


def chances(result: Odds) -> dict[str, Fraction]:
    """Every chance of a result, keyed as engine_exact keys them (zeros left out)."""
    out: dict[str, Fraction] = {}
    for index, c in enumerate(result.comparisons):
        for name in ("win", "tie", "lose", "attacker_double", "defender_double"):
            out[f"{index} {name}"] = getattr(c, name).fraction
    for table in (*result.parties, *result.sides):
        for k in range(len(table.counts)):
            out[f"{table.name} loses {k}"] = table.chance(k).fraction
    return {k: v for k, v in out.items() if v}


def part(pid, trait=None, treasure=None, faces=(), gm=0):
    return Part(pid, trait, treasure, Throw.given(*faces), gm)


ENGINE_CASES = {
    "one against one, ties half (R5, R6, R11)": dict(
        action="Kara fireball -> Overlord, roll 2", defences=["Overlord defends with Cunning, roll 2"],
        tie="half", dice={"Kara": 2, "Overlord": 2},
        build=lambda f: (Action("fireball", (part("Kara", "Sorcery", "Ember Staff", f["Kara"]),), "Overlord"),
                         [Defence((part("Overlord", "Cunning", None, f["Overlord"]),))])),
    "a joint side, only the lead's trait adds, the loss falls lead first (R10)": dict(
        action="Kara & Bren pin -> Overlord\n  Kara with Sorcery, roll 2\n  Bren with Strength + Iron Shield, roll 1",
        defences=["Overlord defends with Cunning + Obsidian Crown, roll 1"], tie="actor", state={"Kara": 2},
        dice={"Kara": 2, "Bren": 1, "Overlord": 1},
        build=lambda f: (Action("pin", (part("Kara", "Sorcery", None, f["Kara"]),
                                        part("Bren", "Strength", "Iron Shield", f["Bren"])), "Overlord"),
                         [Defence((part("Overlord", "Cunning", "Obsidian Crown", f["Overlord"]),))])),
    "extra targets, each its own comparison and defence, paid for (R4, R5, point 2)": dict(
        action="Kara fireball -> Overlord +Goblins, roll 2",
        defences=["Goblins defend, roll 1", "Overlord defends with Brutality, roll 1"],
        tie="defender", state={"Kara": 3}, dice={"Kara": 2, "Overlord": 1, "Goblins": 1},
        build=lambda f: (Action("fireball", (part("Kara", "Sorcery", "Ember Staff", f["Kara"]),), "Overlord",
                                extra_targets=("Goblins",)),
                         [Defence((part("Goblins", "Numbers", "Rusty Spears", f["Goblins"]),)),
                          Defence((part("Overlord", "Brutality", None, f["Overlord"]),))])),
    "a joint defence with a weak lead (R10)": dict(
        action="Bren bash -> Goblins with Strength, roll 2",
        defences=["Goblins & Overlord defend\n  Goblins with Numbers, roll 1\n  Overlord with Cunning, roll 1"],
        tie="half", state={"Goblins": 1}, dice={"Bren": 2, "Goblins": 1, "Overlord": 1},
        build=lambda f: (Action("bash", (part("Bren", "Strength", None, f["Bren"]),), "Goblins"),
                         [Defence((part("Goblins", "Numbers", None, f["Goblins"]),
                                   part("Overlord", "Cunning", None, f["Overlord"])))])),
    "a GM target with a GM modifier (R3, R5, R6)": dict(
        action="Kara leaps vs 5 with Agility, GM +1, roll 2", defences=[], tie="half", dice={"Kara": 2},
        build=lambda f: (Action("leaps", (part("Kara", "Agility", None, f["Kara"], gm=1),), gm_target=5), [])),
    "an undefended target and an extra target, a penalty making values negative (R5, point 3)": dict(
        action="Goblins stab -> Kara +Bren with Numbers, GM -6, roll", defences=["Bren defends, roll 1"],
        tie="half", dice={"Goblins": 0, "Bren": 1},
        build=lambda f: (Action("stab", (part("Goblins", "Numbers", None, f["Goblins"], gm=-6),), "Kara",
                                extra_targets=("Bren",)),
                         [Defence((part("Bren", None, None, f["Bren"]),))])),
    "given dice on one side, rolled dice on the other": dict(
        action="Bren bash -> Overlord with Strength, rolled 6 1", defences=["Overlord defends, roll 1"],
        tie="actor", state={"Bren": 2}, dice={"Overlord": 1},
        build=lambda f: (Action("bash", (part("Bren", "Strength", None, (6, 1)),), "Overlord"),
                         [Defence((part("Overlord", None, None, f["Overlord"]),))])),
}


@pytest.mark.parametrize("case", list(ENGINE_CASES))
def test_R2_to_R11_agree_with_every_roll_through_the_engine(tmp_path, case):
    """For small pools, every roll is run through `Game.exchange` and counted:
    the odds equal those counts exactly, comparisons and losses (per party and per side)."""
    spec = ENGINE_CASES[case]
    result = odds(loaded(tmp_path), spec["action"], spec["defences"], tie=spec["tie"], state=spec.get("state"))
    assert {p.party: p.dice for side in (result.plan.attacker, *result.plan.targets) for p in side.pools
            if p.dice} == {k: v for k, v in spec["dice"].items() if v}
    expected = engine_exact(tmp_path, spec["build"], spec["dice"], spec["tie"], spec.get("state"))
    ours = chances(result)
    assert {k: v for k, v in ours.items() if not k.endswith("double")} == \
        {k: v for k, v in expected.items() if not k.endswith("double")}
    for key in [k for k in ours if k.endswith("double")]:
        assert ours[key] == expected.get(key, 0), key


def test_R1_other_dice_agree_with_the_engine(tmp_path):
    """A d8 whose high dice show 7 or 8 (R1)."""
    setting = setting_with(dice="{sides: 8, high: 7}")
    result = odds(loaded(tmp_path, setting=setting), "Kara fireball -> Overlord, roll 2",
                  ["Overlord defends with Cunning, roll 1"], tie="half")
    build = ENGINE_CASES["one against one, ties half (R5, R6, R11)"]["build"]
    assert chances(result) == engine_exact(tmp_path, build, {"Kara": 2, "Overlord": 1}, "half", setting=setting)


# ---------------------------------------------------------------------------
# independent computation 3: a large sample through the engine

def test_R5_R6_R8_a_large_engine_sample_falls_within_99_9_percent_intervals(tmp_path):
    """15,000 exchanges rolled by the engine's seeded dice (ties settled by its
    roll-off, `ties: random`): every chance of the odds lies within the sample's
    99.9% confidence interval."""
    setting = setting_with(ties="random")
    scenario = load(scenario_at(tmp_path, setting=setting))
    result = odds(scenario, "Kara fireball -> Overlord +Goblins, roll",
                  ["Overlord defends with Cunning, roll 2", "Goblins defend, roll 2"])
    assert result.tie == "half"
    samples = 15_000
    dice = SeededDice(2024)
    action = Action("fireball", (Part("Kara", "Sorcery", "Ember Staff", Throw.roll()),), "Overlord",
                    extra_targets=("Goblins",))
    defences = [Defence((Part("Overlord", "Cunning", None, Throw.roll(2)),)),
                Defence((Part("Goblins", "Numbers", "Rusty Spears", Throw.roll(2)),))]
    counts: dict[str, int] = {}
    for _ in range(samples):
        exchange = Game(scenario.cast, scenario.setting, dice).exchange(action, defences)
        for key in outcome_keys(exchange):
            counts[key] = counts.get(key, 0) + 1
    exact = chances(result)
    for key in set(exact) | set(counts):
        p = float(exact.get(key, 0))
        observed = counts.get(key, 0) / samples
        width = 3.2905 * math.sqrt(p * (1 - p) / samples)          # 99.9%, two-sided
        assert abs(observed - p) <= width + 1e-12, (key, observed, p)


# ---------------------------------------------------------------------------
# edge cases

def test_no_dice_is_certain(tmp_path):
    """With no dice at all the values are fixed (R2): one outcome, certain."""
    result = odds(loaded(tmp_path), "Kara fireball -> Overlord", ["Overlord defends with Cunning"])
    (c,) = result.comparisons
    assert result.plan.rolls == 1
    assert (c.win.fraction, c.attacker_double.fraction) == (1, 0)        # 5 against 3: not double
    tables = {t.name: t for t in result.parties}
    assert tables["Overlord"].chance(1).fraction == 1                    # 1 + no high dice (R6)
    assert tables["Kara"].chance(0).fraction == 1


def test_R6_given_dice_count_their_ones_and_high_dice(tmp_path):
    result = odds(loaded(tmp_path), "Kara fireball -> Overlord, rolled 6 6 1",
                  ["Overlord defends with Cunning, rolled 1 2"])
    tables = {t.name: t for t in result.parties}
    assert result.comparisons[0].win.fraction == 1                       # 5 + 13 against 3 + 3
    assert result.comparisons[0].attacker_double.fraction == 1           # 18 >= 2 x 6 (R8)
    assert tables["Kara"].chance(1).fraction == 1                        # its one
    assert tables["Overlord"].chance(4).fraction == 1                    # its one + 1 + two sixes


def test_R11_a_tie_is_never_a_double_win_and_ties_follow_the_policy(tmp_path):
    """Equal values: P(tie) = 1; the loss goes as the tie policy says; no double win (point 7)."""
    action, defence = "Kara fireball -> Overlord with Sorcery", "Overlord defends with Cunning"
    by_tie = {tie: odds(loaded(tmp_path), action, [defence], tie=tie) for tie in TIE_CHOICES}
    for result in by_tie.values():
        (c,) = result.comparisons
        assert (c.tie.fraction, c.attacker_double.fraction, c.defender_double.fraction) == (1, 0, 0)
    kara = {tie: {t.name: t for t in r.parties}["Kara"] for tie, r in by_tie.items()}
    assert kara["actor"].chance(0).fraction == 1
    assert kara["defender"].chance(1).fraction == 1
    assert (kara["half"].chance(0).fraction, kara["half"].chance(1).fraction) == (Fraction(1, 2), Fraction(1, 2))


@pytest.mark.parametrize("policy, counted", [("vote", "half"), ("random", "half"), ("actor", "actor"),
                                             ("defender", "defender")])
def test_R11_the_setting_tie_policy_decides_unless_tie_is_given(tmp_path, policy, counted):
    scenario = loaded(tmp_path, setting=setting_with(ties=policy))
    assert odds(scenario, "Kara fireball -> Overlord, roll 1").tie == counted
    assert odds(scenario, "Kara fireball -> Overlord, roll 1", tie="defender").tie == "defender"


def test_R3_the_gm_modifier_changes_the_cap(tmp_path):
    scenario = loaded(tmp_path)
    assert odds(scenario, "Kara leaps vs 7 with Agility, roll").plan.attacker.pools[0].dice == 1
    pool = odds(scenario, "Kara leaps vs 7 with Agility, GM +2, roll").plan.attacker.pools[0]
    assert (pool.dice, pool.cap, pool.value) == (3, 3, 3)
    pool = odds(scenario, "Kara leaps vs 7 with Agility, GM -1, roll").plan.attacker.pools[0]
    assert (pool.dice, pool.value) == (0, 0)
    assert odds(scenario, "Kara leaps vs 7, GM +3, roll").plan.attacker.pools[0].dice == 1   # point 4


def test_R3_R4_spending_reduces_the_cap_and_what_can_be_lost(tmp_path):
    """Two qualifiers and an extra target cost 3 (R4): with 4 available Kara keeps 1,
    so `roll` rolls 1 die and she can lose at most 1."""
    result = odds(loaded(tmp_path), "Kara fireball -> Overlord but not a but not b +Goblins, roll", state={"Kara": 4})
    pool = result.plan.attacker.pools[0]
    assert (dict(result.plan.spent), pool.dice, pool.available) == ({"Kara": 3}, 1, 1)
    assert len({t.name: t for t in result.parties}["Kara"].counts) == 2


def test_R6_a_party_with_no_quintessence_rolls_nothing_and_loses_nothing(tmp_path):
    result = odds(loaded(tmp_path), "Kara fireball -> Overlord, roll",
                  ["Overlord defends with Cunning, roll 3"], state={"Kara": 0})
    tables = {t.name: t for t in result.parties}
    assert result.plan.attacker.pools[0].dice == 0
    assert tables["Kara"].chance(0).fraction == 1
    assert result.comparisons[0].lose.fraction > 0


def test_R10_joint_side_tables_add_up(tmp_path):
    """A joint side has a table of its own: the sum of its parties' losses."""
    spec = ENGINE_CASES["a joint side, only the lead's trait adds, the loss falls lead first (R10)"]
    result = odds(loaded(tmp_path), spec["action"], spec["defences"], tie="half", state=spec["state"])
    (side,) = result.sides
    assert side.name == "Kara & Bren" and side.parties == ("Kara", "Bren")
    tables = {t.name: t for t in result.parties}
    assert side.mean == tables["Kara"].mean + tables["Bren"].mean
    assert result.plan.attacker.value == 3 + 0 + 2          # Sorcery 3 (lead) + Iron Shield 2; Strength not added


def test_a_role_names_a_party(in_tmp):
    make_scenario(in_tmp, "# roles\n", setting=SETTING, cast=CAST)
    write(in_tmp, "scenario.yaml", "title: T\nsetting: setting.yaml\ncast: cast.yaml\n"
                                   "script: script.drama\nroles:\n  hero: Kara\n")
    outcome = drama("odds", "scenario.yaml", "hero fireball -> Overlord, roll 1", "--state", "hero=2")
    assert outcome.code == 0, outcome.output
    assert "Kara (2 available" in outcome.stdout


# ---------------------------------------------------------------------------
# the command

def test_the_command_prints_fractions_and_percentages(scenario):
    outcome = drama("odds", scenario, "Kara fireball -> Overlord with Sorcery + Ember Staff, roll 3",
                    "--defence", "Overlord defends with Cunning, roll 2")
    assert outcome.code == 0, outcome.output
    assert outcome.stderr == ""
    text = outcome.stdout
    assert "counted exactly over 7,776 equally likely rolls" in text
    assert "Kara wins                  1169/1296   90.20%" in text
    assert "tie                         305/7776    3.92%" in text
    assert "a tie counts as half won by each side (the setting's ties: vote" in text
    assert "  Kara (6 available, mean 0.64)\n    0  4409/7776   56.70%\n" in text


def test_json_holds_exact_fractions_and_floats(scenario):
    outcome = drama("odds", scenario, "Kara fireball -> Overlord, roll 2", "--defence",
                    "Overlord defends with Cunning, roll 1", "--format", "json", "--tie", "actor")
    assert outcome.code == 0, outcome.output
    data = json.loads(outcome.stdout)
    (c,) = data["comparisons"]
    for name in ("win", "tie", "lose", "attacker_double", "defender_double"):
        assert Fraction(c[name]["fraction"]) == pytest.approx(c[name]["probability"])
    assert sum(Fraction(c[n]["fraction"]) for n in ("win", "tie", "lose")) == 1
    assert data["ties"] == {"counted": "actor", "setting": "vote"}
    for table in data["losses"]["parties"]:
        assert sum(Fraction(row["fraction"]) for row in table["lost"]) == 1
        assert [row["lost"] for row in table["lost"]] == list(range(table["available"] + 1))
    assert data["rolls"] == 216


def test_markdown_is_a_table(scenario):
    outcome = drama("odds", scenario, "Kara fireball -> Overlord, roll 2", "--format", "md")
    assert outcome.code == 0, outcome.output
    assert "| outcome | chance | % |" in outcome.stdout
    assert "| lost | Kara | Overlord |" in outcome.stdout


def test_output_file(scenario, in_tmp):
    outcome = drama("odds", scenario, "Kara fireball -> Overlord, roll 2", "-o", "odds.txt")
    assert (outcome.code, outcome.stdout) == (0, "")
    assert (in_tmp / "odds.txt").read_text().startswith("Odds of one exchange")
    outcome = drama("odds", scenario, "Kara fireball -> Overlord, roll 2", "-o", "cast.yaml")
    assert outcome.code == 1 and "error[E501]" in outcome.stderr


# ---------------------------------------------------------------------------
# errors

ERRORS = {
    "E201: an unknown party, did you mean": (
        ["Kara fireball -> Overlrod, roll 2"], "<action>:1:18", "there is no party 'Overlrod' in the cast",
        "did you mean 'Overlord'?"),
    "E201 in a defence": (
        ["Kara fireball -> Overlord", "--defence", "Overlrd defends, roll 1"], "<defence>:1:1",
        "there is no party 'Overlrd' in the cast", "did you mean 'Overlord'?"),
    "E701: not an action": (
        ['drama "Duel" with Kara, Bren'], "<action>:1:1", "`drama odds` needs an aggressive action here", None),
    "E701: an action given as the defence": (
        ["Kara fireball -> Overlord", "--defence", "Kara fireball -> Overlord"], "<defence>:1:1",
        "`drama odds` needs a defence here", None),
    "E701: two statements": (
        ["Kara fireball -> Overlord, roll 1\nOverlord defends with Cunning, roll 1"], "<action>:2:1",
        "2 statements given; `drama odds` takes one aggressive action", "give each defence with its own --defence"),
    "E701: nothing given": ([""], "<action>:1:1", "no aggressive action given", None),
    "E001: a syntax error": (
        ["Kara fireball -> Overlord, roled 2"], "<action>:1:28", "unexpected 'roled' after ','",
        "did you mean 'rolled'?"),
    "E301: too many dice, pointed at in the defence (R3)": (
        ["Kara fireball -> Overlord", "--defence", "Overlord defends with Cunning, roll 4"], "<defence>:1:32",
        "Overlord may roll at most 3 dice with Cunning 3, not 4 (R3)", None),
}


@pytest.mark.parametrize("case", list(ERRORS))
def test_errors_point_into_the_action_or_the_defence(scenario, case):
    """The error's position is in `<action>` or `<defence>`, whose text is shown with a caret."""
    args, where, message, help_ = ERRORS[case]
    outcome = drama("odds", scenario, *args)
    assert outcome.code == 1, outcome.output
    assert outcome.stdout == ""
    only_error_lines(outcome.stderr)
    (error,) = printed_errors(outcome.stderr)
    assert (f"{error.where}:{error.line}:{error.col}", error.code, error.message) == \
        (where, case.split(":")[0].split(" ")[0], message)
    source = args[0] if where.startswith("<action>") else args[args.index("--defence") + 1]
    assert_caret(error, source.split("\n")[error.line - 1])
    assert error.help == help_
    if error.code == "E701" and "given" not in message:
        assert error.expected.startswith("one ")


def test_e305_a_defence_by_a_party_that_is_not_a_target(scenario):
    outcome = drama("odds", scenario, "Kara fireball -> Overlord", "--defence", "Overlord defends",
                    "--defence", "Bren defends")
    assert outcome.code == 1 and "error[E305]" in outcome.stderr
    assert ERROR_HEAD.match(outcome.stderr.splitlines()[0]).group("where").startswith("<")


def test_e304_not_enough_quintessence_to_spend(scenario):
    outcome = drama("odds", scenario, "Kara fireball -> Overlord but not a +Goblins", "--state", "Kara=1")
    assert outcome.code == 1 and "error[E304]" in outcome.stderr


def test_state_errors(scenario):
    outcome = drama("odds", scenario, "Kara fireball -> Overlord", "--state", "Karra=1")
    assert outcome.code == 1 and "error[E201]: there is no party 'Karra' in the cast (--state)" in outcome.stderr
    assert "help: did you mean 'Kara'?" in outcome.stderr
    outcome = drama("odds", scenario, "Kara fireball -> Overlord", "--state", "Kara=9")
    assert outcome.code == 1 and "error[E104]: Kara can have from 0 to 6 quintessence available" in outcome.stderr
    outcome = drama("odds", scenario, "Kara fireball -> Overlord", "--state", "Kara")
    assert outcome.code == 2 and "'Kara' is not PARTY=N" in outcome.stderr


def test_usage_errors_exit_2(scenario):
    assert drama("odds", scenario).code == 2
    assert drama("odds", scenario, "Kara fireball -> Overlord", "--tie", "vote").code == 2
    assert drama("odds", scenario, "Kara fireball -> Overlord", "--format", "html").code == 2


def test_a_missing_scenario(in_tmp):
    outcome = drama("odds", "nowhere.yaml", "Kara fireball -> Overlord")
    assert outcome.code == 1 and "error[E108]" in outcome.stderr

