"""Property tests of the table (`drama play`'s core): random sequences of statements, table calls,
undos and redos, against its invariants.

- undo then redo gives the original events; undo is the same as never having played the entry
  (a replay of the journal from the start), with the snapshots undo goes back to;
- a kill in the middle of a write, then `--resume`: the resumed table is the live one, and goes on;
- replaying the journal (`--resume`) gives the live state, and `drama run` of it the same events;
- a refused statement changes neither the state nor the journal;
- available + damage pool = maximum for every party after every step (R6).
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings, strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

import dsl
from dsl.errors import DramaError
from dsl.pipeline import Program
from dsl.table import journal as journals
from dsl.table.asks import DiceAsk, InitiativeAsk, SplitAsk, TieAsk
from dsl.table.core import Table

from play_helpers import final_events, hall

FREE = [
    "> An aside at the table.",
    "Kara recovers with Sorcery, roll",
    "Bren holds",
    "round",
    "Kara bolt -> Overlord with Sorcery, roll",
    "Overlord crush -> Bren with Brutality, rolled 6 6\nBren defends with Strength, roll",
    "Bren bash -> Overlord with Strength, rolled 1 1",
    'drama "Again" with Kara, Bren, Overlord',
    "initiative",
    "end drama",
    "calm 1 hour",
    "Kara fireball -> Overlrd",                 # refused: no such party
]


class Calls:
    """Table calls answered from Hypothesis' data: typed dice or the engine's, any vote, a split or not."""

    def __init__(self, data):
        self.data = data

    def __call__(self, ask):
        draw = self.data.draw
        if isinstance(ask, DiceAsk):
            if ask.most is None or draw(st.booleans()):
                return None
            return tuple(draw(st.lists(st.integers(1, ask.sides), min_size=1, max_size=max(1, ask.most))))
        if isinstance(ask, TieAsk):
            return draw(st.sampled_from(ask.choices))
        if isinstance(ask, SplitAsk):
            if draw(st.booleans()):
                return None
            first = draw(st.integers(0, ask.amount))
            return {ask.side[0]: first, ask.side[1]: ask.amount - first}
        if isinstance(ask, InitiativeAsk):
            return None
        return None


class TableMachine(RuleBasedStateMachine):
    def __init__(self):
        super().__init__()
        self.folder = Path(tempfile.mkdtemp(prefix="drama-play-"))
        self.scenario = hall(self.folder)
        self.program = Program.compile(self.scenario)
        self.path = self.folder / "j.drama"
        self.table = Table.start(self.program, str(self.path), seed=3)

    def teardown(self):
        try:
            self.replay_matches()
            yaml = self.path.with_suffix(".yaml")
            yaml.write_text(journals.scenario_text(str(self.scenario), str(self.path), self.program.scenario.title, {}))
            assert dsl.run(yaml) == final_events(self.table)
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)

    def attempt(self, play) -> None:
        """Play something; if the rules refuse it, nothing has changed."""
        events, text = list(self.table.events), self.path.read_text(encoding="utf-8")
        try:
            play()
        except DramaError:
            assert self.table.events == events
            assert self.path.read_text(encoding="utf-8") == text

    @rule(data=st.data())
    def script(self, data):
        table = self.table
        if table.skippable():
            table.skip()
        elif table.open_option() is not None:
            answer = data.draw(st.sampled_from([None, ("dictate", "it ends"), ("reroll", None)]))
            self.attempt(lambda: table.take_option(answer, Calls(data)))
        elif table.next_statement() is not None:
            self.attempt(lambda: table.play_script(Calls(data)))

    @rule(data=st.data(), text=st.sampled_from(FREE))
    def free(self, data, text):
        self.attempt(lambda: self.table.play_text(text, Calls(data)))

    @rule()
    def skip(self):
        self.table.skip("skipped")

    @rule()
    def undo(self):
        self.table.undo()

    @rule()
    def redo(self):
        self.table.redo()

    @rule()
    def undo_then_redo(self):
        events, text = list(self.table.events), self.path.read_text(encoding="utf-8")
        if self.table.undo() is not None:
            self.table.redo()
        assert self.table.events == events
        assert self.path.read_text(encoding="utf-8") == text

    @rule()
    def replay_matches(self):
        again, warning = Table.resume(self.program, str(self.path), seed=3)
        assert warning is None
        assert again.events == self.table.events
        assert again.board() == self.table.board()
        assert again.next_statement() == self.table.next_statement()

    @rule()
    def undo_is_never_having_played(self):
        """Undo goes back to the entry's snapshot: the same as replaying the journal from the start."""
        if self.table.undo() is None:
            return
        again, _ = Table.resume(self.program, str(self.path), seed=3)
        assert again.events == self.table.events and again.board() == self.table.board()
        assert again.next_statement() == self.table.next_statement()

    @rule(cut=st.integers(1, 40))
    def killed_and_resumed(self, cut):
        """A kill in the middle of a write (a torn entry), then `--resume`: the night goes on from the
        resumed table, which is the live one."""
        with open(self.path, "a", encoding="utf-8") as journal:
            journal.write("\nKara bolt -> Overlord with Sorcery, rolled 6 6 4\n"[:cut])
        again, warning = Table.resume(self.program, str(self.path))
        assert (warning is None) == (cut == 1)          # a lone blank line is no torn entry
        assert again.events == self.table.events and again.board() == self.table.board()
        assert again.next_statement() == self.table.next_statement()
        self.table = again

    @invariant()
    def quintessence_adds_up(self):
        for party in self.table.board().parties:          # R6
            assert party.available + party.damage_pool == party.maximum
            assert 0 <= party.available <= party.maximum


TableMachine.TestCase.settings = settings(max_examples=30, stateful_step_count=25, deadline=None,
                                          suppress_health_check=[HealthCheck.too_slow])
test_the_table_keeps_its_invariants = pytest.mark.slow(TableMachine.TestCase)
