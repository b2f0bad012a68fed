"""What the table's pages are sent (dsl/table/live.py, issue 24 item 11): the board's title and last
exchange, hidden parties in words and never in numbers, and the story told as it happens."""

from __future__ import annotations

from hypothesis import given, strategies as st

from dsl.pipeline import Program
from dsl.table.asks import DiceAsk
from dsl.table.core import Table
from dsl.table.live import Story, Views, coarse

from play_helpers import Scripted, hall


def test_a_hidden_party_is_told_in_words_from_unhurt_to_its_last_legs():
    assert coarse(7, 7, False) == "unhurt"
    assert coarse(6, 7, False) == "hurt"
    assert coarse(4, 8, False) == "bloodied"          # half or less
    assert coarse(3, 8, False) == "bloodied"
    assert coarse(2, 8, False) == "on their last legs"  # a quarter or less
    assert coarse(0, 8, False) == "on their last legs"
    assert coarse(5, 8, True) == "defeated"


@given(st.integers(0, 50), st.integers(1, 50))
def test_the_words_only_worsen_as_quintessence_falls(available, maximum):
    order = ["unhurt", "hurt", "bloodied", "on their last legs"]
    available = min(available, maximum)
    if available:
        assert order.index(coarse(available - 1, maximum, False)) >= order.index(coarse(available, maximum, False))


def test_the_board_has_the_title_the_last_exchange_and_no_hidden_number(tmp_path):
    program = Program.compile(hall(tmp_path))
    table = Table.start(program, str(tmp_path / "j.drama"))
    for _ in range(4):
        table.play_script()
    table.play_script(Scripted([(DiceAsk, (6, 6, 5)), (DiceAsk, (2, 1))]))
    views = Views(program)
    board = views.board(table)
    assert board["title"] == "The Test Hall" and board["entries"] == 5
    assert board["last"].startswith("Kara bolt -> Overlord: 20 vs ?, Kara wins") and "Overlord hit" in board["last"]
    overlord = next(p for p in board["parties"] if p["id"] == "Overlord")
    assert overlord["standing"] == "bloodied" and "available" not in overlord
    gm = views.gm(table)                       # the game master's page has every number
    assert next(p for p in gm["parties"] if p["id"] == "Overlord")["available"] == 3
    assert "vs ?" not in gm["last"]


def test_the_story_marks_the_new_paragraphs_and_costs_the_same_on_a_long_night(tmp_path):
    program = Program.compile(hall(tmp_path))
    table = Table.start(program, str(tmp_path / "j.drama"))
    story = Story()
    told = story.tell(table.events)
    assert told["paragraphs"][0] == "The Test Hall"
    table.play_script()
    table.play_script()
    told = story.tell(table.events)
    assert told["new"] >= 1 and "Kara the Ember-Witch, Bren Ironhand and Overlord" in " ".join(told["paragraphs"])
    table.play_script()
    table.play_script()
    table.play_script(Scripted([(DiceAsk, (6, 6, 5)), (DiceAsk, (2, 1))]))
    told = story.tell(table.events)
    last = told["paragraphs"][-1]              # Kara's bolt, told by the narrator (her epithet, her target)
    assert told["new"] >= 1 and ("Kara" in last or "Ember-Witch" in last) and "Overlord" in last
    # a long night: the window keeps each telling to a bounded number of events
    events = list(table.events)
    story = Story()
    story.WINDOW = 3
    many = events[:1] + events[1:] * 40
    shown, moved = story.window(many)
    assert moved and len(shown) <= story.WINDOW + 3 and shown[0]["type"] == "start"
    assert [e["type"] for e in shown[1:3]] == ["scene", "drama"]      # the scene and situation it is in
