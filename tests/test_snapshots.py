"""Snapshots of a session (`Session.snapshot`, `Session.restore`, `Session.from_snapshot`, `Session.fork`).

The property: restoring a snapshot and feeding the same statements gives
exactly the events (and the board) of never having restored, whatever was
played in between, refused statements, pending exchanges and rolled dice
included. And a snapshot costs the same early and late in a long night.
"""

from __future__ import annotations

import time

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from dsl.errors import DramaError
from dsl.pipeline import Program, Session

from play_helpers import hall

LINES = [
    "> An aside at the table.",
    'drama "Hall" with Kara, Bren, Overlord',
    "initiative",
    "round",
    "Kara bolt -> Overlord with Sorcery, roll",
    "Kara bolt -> Overlord with Sorcery, rolled 6 6",
    "Overlord crush -> Bren with Brutality, roll",
    "Bren defends with Strength, roll",
    "Overlord defends with Cunning, rolled 2",
    "Bren bash -> Overlord with Strength, rolled 1 1",
    "Bren holds",
    "Kara recovers with Sorcery, roll",
    "end drama",
    "calm 1 hour",
    "rest 2 days",
    "set gold = 3",
    "set gold = gold + 1",
    "set brave",
    "Kara fireball -> Overlrd",                 # refused: no such party
]


@pytest.fixture(scope="module")
def program(tmp_path_factory) -> Program:
    return Program.compile(hall(tmp_path_factory.mktemp("snap")))


def feed_all(session: Session, lines) -> None:
    for line in lines:
        try:
            session.feed(line)
        except DramaError:
            pass


def settle(session: Session) -> None:
    try:
        session.resolve()
    except DramaError:
        pass


def shown(session: Session):
    return session.events, session.board(), list(session.statements)


lines = st.lists(st.sampled_from(LINES), max_size=14)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(before=lines, between=lines, after=lines, seed=st.integers(0, 3), lenient=st.booleans())
def test_restore_then_the_same_statements_give_the_events_of_never_restoring(program, before, between, after,
                                                                             seed, lenient):
    straight = Session(program, seed=seed, lenient=lenient)
    feed_all(straight, before + after)
    settle(straight)

    back = Session(program, seed=seed, lenient=lenient)
    feed_all(back, before)
    snapshot = back.snapshot()
    feed_all(back, between)          # played, then undone
    back.restore(snapshot)
    feed_all(back, after)
    settle(back)
    assert shown(back) == shown(straight)

    # a new session at the snapshot, and a fork of it, go the same way
    again = Session.from_snapshot(program, snapshot, seed=seed, lenient=lenient)
    fork = again.fork()
    for session in (again, fork):
        feed_all(session, after)
        settle(session)
        assert shown(session) == shown(straight)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(first=lines, second=lines, seed=st.integers(0, 3))
def test_a_snapshot_outlives_the_branch_it_was_taken_on(program, first, second, seed):
    """Go back to an early snapshot, play something else, then forth to a later snapshot
    of the abandoned branch: it is whole (undo, then redo)."""
    session = Session(program, seed=seed)
    early = session.snapshot()
    feed_all(session, first)
    late = session.snapshot()
    expected = shown(session)
    session.restore(early)
    feed_all(session, second)
    session.restore(late)
    assert shown(session) == expected


def test_a_snapshot_does_not_cost_more_late_in_a_long_night(program):
    """Taking and restoring a snapshot costs the same after 20 statements and after 4,000."""
    session = Session(program, seed=1, lenient=True)     # (ties settled by the dice)
    block = ['drama "Hall" with Kara, Bren, Overlord', "Kara bolt -> Overlord with Sorcery, roll",
             "Overlord defends with Cunning, roll", "end drama", "rest 2 days"]

    def cost() -> float:
        best = float("inf")
        for _ in range(5):
            start = time.perf_counter()
            for _ in range(50):
                session.restore(session.snapshot())
            best = min(best, time.perf_counter() - start)
        return best

    feed_all(session, block * 4)
    early = cost()
    feed_all(session, block * 800)
    late = cost()
    assert len(session.events) > 4000
    assert late < early * 3 + 0.002
