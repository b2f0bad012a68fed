"""The exchange's formulas (`dsl/engine/formulas.py`), written once for the exchange, the duel and the odds.

The exchange and the duel are compared outcome for outcome in tests/test_duel.py,
the exact odds against the engine in tests/test_odds.py; here each formula is held
to the rule it states.
"""

from __future__ import annotations

from hypothesis import given, strategies as st

from dsl.engine import formulas
from dsl.engine.dice import SeededDice


@given(st.integers(0, 60), st.integers(-5, 60))
def test_R8_double_win_and_the_count_of_the_odds_agree(value, needed):
    assert formulas.double_win(value, needed) == (value > needed and value >= 2 * needed)
    assert formulas.double_win(value, needed) == (needed <= formulas.doubled_up_to(value))


@given(st.one_of(st.none(), st.integers(0, 6)), st.integers(-8, 8))
def test_R3_the_cap_is_the_trait_plus_the_gm_never_below_0_and_one_die_without_a_trait(level, gm):
    cap = formulas.cap(level, gm)
    assert cap == (1 if level is None else max(0, level + gm))
    assert formulas.allowed(cap, 2) == min(cap, 2)


@given(st.lists(st.integers(1, 6), max_size=8), st.integers(2, 6))
def test_R6_the_loser_owes_one_plus_the_winners_high_dice(dice, high):
    assert formulas.owed(dice, high) == 1 + len([d for d in dice if d >= high])


@given(st.lists(st.integers(0, 9), min_size=1, max_size=5), st.integers(0, 30))
def test_R10_the_lead_pays_first_and_the_last_pays_the_rest(available, amount):
    takes = formulas.lead_first(available, amount)
    assert sum(takes) == amount
    for i, (have, take) in enumerate(zip(available[:-1], takes)):
        before = sum(takes[:i])
        assert take == min(have, amount - before)


@given(st.integers(0, 1000))
def test_R11_a_roll_off_rolls_pairs_until_they_differ(seed):
    won, rolls = formulas.roll_off(SeededDice(seed).roll, 6)
    assert all(a == b for a, b in rolls[:-1]) and rolls[-1][0] != rolls[-1][1]
    assert won == (rolls[-1][0] > rolls[-1][1])
    again = SeededDice(seed)
    assert [again.roll(2, 6) for _ in rolls] == list(rolls)
