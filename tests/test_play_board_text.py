"""The board of `drama play` as the terminal shows it: laid out by hand when every line fits (a night's
board, drawn after every entry, in a fraction of a millisecond), exactly as rich lays it out, which
folds, wraps and shrinks columns when something does not fit (issue 24, "Speed: flat costs")."""

from __future__ import annotations

import re

from hypothesis import given, settings, strategies as st

from dsl.pipeline import Board, PartyOnBoard
from dsl.table import board as boards

ANSI = re.compile(r"\x1b\[[0-9;]*m")
NAMES = st.sampled_from(["Kara", "Overlord", "Bren Ironhand", "wolves", "a" * 23, "a" * 24, "a" * 30,
                         "日本語の名前", "ünïcödé", "x\x1bz", "tab\there"])


@st.composite
def tables(draw):
    parties = []
    for index in range(draw(st.integers(0, 5))):
        most = draw(st.sampled_from([0, 1, 5, 20, 50_000, 10**7, 10**12]))
        parties.append(PartyOnBoard(id=f"{draw(NAMES)}{index}", name="n", available=draw(st.integers(0, most)),
                                    damage_pool=draw(st.integers(0, 10**9)), maximum=most,
                                    defeated=draw(st.booleans()), in_drama=draw(st.booleans()),
                                    acted=draw(st.booleans()), holding=draw(st.booleans())))
    drama = draw(st.sampled_from([None, "Long", "The long name of a dramatic situation that goes on and on " * 2]))
    ids = [p.id for p in parties]
    order = tuple(ids) if drama and ids and draw(st.booleans()) else None
    last = draw(st.sampled_from([None, {"values": {"Kara": 11, "Overlord": 7}, "attacker": "Kara",
                                        "defender": "Overlord", "intent": "bolt", "winner": "Kara",
                                        "losses": [{"party": "Overlord", "amount": 3}]}]))
    board = Board(drama=drama, round=draw(st.sampled_from([None, 1, 12])), time=draw(st.integers(0, 10**6)),
                  order=order, turn=draw(st.sampled_from([None, *ids])), parties=tuple(parties),
                  pending=draw(st.booleans()), last_exchange=last)
    title = draw(st.sampled_from(["", "The Test Hall", "T" * 85]))
    values = draw(st.sampled_from([None, {}, {"gate_open": True, "torches": 3}, {"x" * 90: 1}]))
    return board, title, values


@settings(max_examples=300, deadline=None)
@given(tables(), st.booleans())
def test_the_board_laid_out_by_hand_is_the_board_rich_lays_out(drawn, color):
    board, title, values = drawn
    contents = boards.contents(board, title, values)
    by_hand = boards.by_hand(contents, color, boards.WIDTH)
    by_rich = boards.by_rich(contents, color, boards.WIDTH)
    if by_hand is None:                       # something to fold or shrink: rich lays it out
        assert boards.render(board, color=color, title=title, values=values) == by_rich
        return
    assert boards.render(board, color=color, title=title, values=values) == by_hand
    if color:                                 # the same text, in the same styles (rich writes its codes its way)
        assert ANSI.sub("", by_hand) == ANSI.sub("", by_rich)
        assert "\x1b[" in by_hand
    else:
        assert by_hand == by_rich


def test_a_nights_board_is_laid_out_by_hand():
    party = PartyOnBoard(id="Kara", name="Kara", available=49_998, damage_pool=2, maximum=50_000, defeated=False,
                         in_drama=True, acted=True, holding=False)
    board = Board(drama="Long", round=3, time=18, order=("Kara",), turn="Kara", parties=(party,), pending=False,
                  last_exchange=None)
    contents = boards.contents(board, "Long Night", {"torches": 3})
    assert boards.by_hand(contents, False, boards.WIDTH) == (
        "Long Night  Long  round 3  time 18 s\n"
        "order: *Kara\n"
        "party  avail  pool    max                             \n"
        "Kara   49998     2  50000  ####################  acted\n"
        "flags: torches 3\n")
