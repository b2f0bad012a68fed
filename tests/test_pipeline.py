"""The pipeline's API: a Program compiled once, a Session fed one statement at a time, and the Diagnostics sink."""

from __future__ import annotations

from pathlib import Path

import pytest

import dsl
from dsl.errors import Diagnostics, DramaError, ErrorList, Position
from dsl.pipeline import Program, Session
from dsl.source import SourceMap

from conftest import make_scenario

ROOT = Path(__file__).resolve().parent.parent
BUNDLED = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "scenarios").glob("*/*.yaml")
                 if "\nscript:" in "\n" + p.read_text(encoding="utf-8"))


@pytest.fixture(autouse=True)
def _at_root(monkeypatch):
    monkeypatch.chdir(ROOT)


# ---------------------------------------------------------------------------
# Session

@pytest.mark.parametrize("path", BUNDLED)
@pytest.mark.parametrize("seed", [0, 7])
def test_a_session_fed_statement_by_statement_gives_the_events_of_drama_run(path, seed):
    program = Program.compile(path)
    # lenient: an adventure with choices has them picked by the seeded dice
    session = program.session(seed=seed, lenient=True)
    for statement in program.script.statements:
        session.feed(statement)
    session.finish()
    assert session.events == dsl.run(path, seed=seed, lenient=True)


@pytest.mark.parametrize("path", BUNDLED)
def test_a_session_rebuilt_from_its_statements_has_the_same_state(path):
    program = Program.compile(path)
    session = program.session(seed=3, lenient=True)
    half = len(program.script.statements) // 2
    for statement in program.script.statements[:half]:
        session.feed(statement)
    again = Session.rebuild(program, session.statements, seed=3, lenient=True)
    assert again.board() == session.board()
    assert again.events == session.events


def test_each_statement_returns_its_own_events(tmp_path):
    program = Program.compile(make_scenario(tmp_path, ""))
    session = program.session()
    assert [e["type"] for e in session.feed("drama Hall with Kara, Bren, Overlord")] == ["drama"]
    assert session.feed("Kara fireball -> Overlord with Sorcery, rolled 6 6") == []     # waits for defences
    assert session.board().pending
    events = session.feed("Overlord defends with Cunning, rolled 1")
    assert events == []                                                              # still part of it
    events = session.feed("Bren holds")
    assert [e["type"] for e in events] == ["action", "exchange", "hold"]
    board = session.board()
    assert not board.pending
    assert board.last_exchange["winner"] == "Kara"
    assert board.party("Kara").acted and board.party("Bren").holding


def test_a_refused_statement_changes_nothing(tmp_path):
    program = Program.compile(make_scenario(tmp_path, ""))
    session = program.session()
    session.feed("drama Hall with Kara, Overlord")
    before, events = session.board(), list(session.events)
    with pytest.raises(DramaError) as refused:
        session.feed("Nobody holds")
    assert refused.value.code == "E201"
    assert session.board() == before and session.events == events


def test_an_exchange_that_cannot_be_resolved_is_refused_whole(tmp_path):
    """R3: too many dice is found when the exchange resolves; its action goes too."""
    program = Program.compile(make_scenario(tmp_path, ""))
    session = program.session()
    session.feed("drama Hall with Kara, Overlord")
    before = session.board()
    session.feed("Kara fireball -> Overlord with Sorcery, rolled 6 6 6 6")
    with pytest.raises(DramaError) as refused:
        session.resolve()
    assert refused.value.code == "E301"
    assert "the exchange of line 1 was not played" in refused.value.notes
    assert session.board() == before
    assert len(session.statements) == 1


def test_the_board_follows_initiative_and_turns(tmp_path):
    """R12: the order; R9: whose turn it is, who acted."""
    program = Program.compile(make_scenario(tmp_path, ""))
    session = program.session()
    session.feed("drama Hall with Kara, Overlord")
    session.feed("initiative Kara 5, Overlord 3")
    board = session.board()
    assert board.order == ("Kara", "Overlord") and board.turn == "Kara" and board.round == 1
    session.feed("Kara fireball -> Overlord with Sorcery, rolled 6 6")
    session.resolve()
    board = session.board()
    assert board.turn == "Overlord" and board.party("Kara").acted
    assert board.party("Overlord").available + board.party("Overlord").damage_pool == 7     # R6


def test_a_finished_session_takes_no_more(tmp_path):
    program = Program.compile(make_scenario(tmp_path, ""))
    session = program.session()
    assert session.finish()[-1]["type"] == "final"
    with pytest.raises(DramaError):
        session.feed("> too late")


# ---------------------------------------------------------------------------
# Diagnostics

def _error(line: int, code: str = "E201", message: str = "x") -> DramaError:
    return DramaError(code, message, position=Position("a.drama", line, 1))


def test_a_stopping_sink_raises_the_first_error():
    sink = Diagnostics(collect=False)
    with pytest.raises(DramaError):
        sink.report(_error(1))


def test_a_collecting_sink_keeps_each_error_once():
    found: list = []
    sink = Diagnostics.of(found)
    sink.report(_error(1))
    sink.report(_error(1))               # the same code, position and message
    sink.report(_error(2))
    sink.report(ErrorList([_error(3), _error(1)]))
    assert [e.position.line for e in found] == [1, 2, 3]
    assert any(not e.is_warning for e in sink) and len(sink) == 3


def test_a_sink_keeps_at_most_its_limit():
    sink = Diagnostics(limit=2)
    for line in range(5):
        sink.report(_error(line + 1))
    assert len(sink) == 2 and sink.full


def test_an_error_is_placed_once_however_often_it_is_reported():
    sources = SourceMap("s.yaml", line_offset=3, column_offset=2, lines=5)
    sources.included("inc.drama", ["s.yaml:4"])
    sink = Diagnostics(place=sources.place)
    inline = DramaError("E201", "x", position=Position("s.yaml", 5, 1, 4))
    included = DramaError("E201", "y", position=Position("inc.drama", 1, 1))
    for _ in range(2):
        sink.report(inline)
        sink.report(included)
    assert inline.position == Position("s.yaml", 5, 3, 6)
    assert included.notes == ["included from s.yaml:4"]


def test_warnings_do_not_make_a_sink_raise():
    sink = Diagnostics()
    sink.report(DramaError("W001", "never runs", position=Position("a.drama", 1)))
    sink.raise_first()
    sink.report(_error(2))
    with pytest.raises(DramaError):
        sink.raise_first()


def test_the_public_api_reexports_the_pipeline():
    assert dsl.run is dsl.pipeline.run and dsl.check is dsl.pipeline.check
    assert dsl.Program is Program and dsl.Session is Session
