"""`drama play` and the script's `choose` blocks: the game master picks the option at the table
(the unavailable ones shown, never taken), the choice is journaled as `chose`, and undo, resume
and `drama run` of the journal follow it without asking again."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import dsl
from dsl.errors import DramaError
from dsl.pipeline import Program
from dsl.table.asks import ChoiceAsk
from dsl.table.core import Table

from play_helpers import Scripted, Terminal, env, final_events, hall

SCRIPT = """\
scene "The Hall"
set gold = 2
drama "Hall" with Kara, Bren, Overlord
initiative Kara 9, Bren 5, Overlord 7
repeat 2 times
round
choose "At the door"
option "Fight"
Kara bolt -> Overlord with Sorcery, roll
Overlord defends with Cunning, roll
option "Kick it in" once
set kicked
> The door flies open.
option "Pick the lock" if gold >= 5
> Click.
option "Knock"
set gold = gold + 3
> Nobody answers.
end
end
choose "In the hall", chose "Wait"
option "Run"
> They run.
option "Wait"
> They wait.
end
end drama "{gold} gold."
"""

PLAYS = "Enter plays it>"
WHICH = "or its label>"
ROLLS = "(Enter: the engine rolls)>"


def door(folder: Path, script: str = SCRIPT) -> Path:
    scenario = hall(folder)
    (folder / "hall.drama").write_text(script, encoding="utf-8")
    return scenario


def up_to_the_door(t: Terminal) -> None:
    for _ in range(5):                     # scene, set, drama, initiative, round
        t.answer(PLAYS, "")


def replayed(scenario: Path, path: Path) -> tuple[Table, list[dict]]:
    """The journal resumed through the API, and `drama run` of its scenario file."""
    table, warning = Table.resume(Program.compile(scenario), str(path))
    assert warning is None
    return table, dsl.run(path.with_suffix(".yaml"))


def test_a_choice_made_at_the_table_is_journaled_and_its_option_walked(tmp_path):
    scenario = door(tmp_path)
    path = tmp_path / "j.drama"
    t = Terminal(str(scenario), "--journal", str(path))
    up_to_the_door(t)
    shown = t.answer(WHICH, "Pick the lock")          # unavailable: refused, asked again
    assert "1. Fight" in shown and "2. Kick it in" in shown and "3. Knock" in shown
    assert "-  Pick the lock (not available: 'gold >= 5' does not hold)" in shown
    refused = t.answer(WHICH, "4")                     # no fourth available option either
    assert "'Pick the lock' is not available: 'gold >= 5' does not hold" in refused
    t.answer(WHICH, "fight")                           # by label, any case
    first = t.answer(ROLLS, "4")                       # the option's body is walked: Kara's dice
    assert 'choose "At the door", chose "Fight"' in first
    t.answer(ROLLS, "3")
    fought = t.answer(PLAYS, "")                       # the second pass's round
    assert "Kara bolt -> Overlord with Sorcery, rolled 4" in fought
    t.answer(WHICH, "2")                               # by number: Kick it in
    t.answer(PLAYS, "")                                # set kicked
    t.answer(PLAYS, "")                                # > The door flies open.
    given = t.answer(PLAYS, "")                        # the script's own `chose`: no question
    assert 'hall.drama:21  choose "In the hall", chose "Wait"' in given
    t.answer(PLAYS, "")                                # > They wait.
    t.answer(PLAYS, "")                                # end drama
    t.answer("the script has ended", "/quit")
    out = t.finish()
    assert out.count("the choice 'At the door':") == 2 and "the choice 'In the hall'" not in out
    text = path.read_text(encoding="utf-8")
    assert 'choose "At the door", chose "Fight"\noption "Fight"\noption "Kick it in"\n' in text
    assert 'choose "At the door", chose "Kick it in"\n' in text
    assert "They wait." in text and "They run." not in text and "Nobody answers." not in text
    # drama run of the journal makes the same choices, without asking, to the same events
    table, events = replayed(scenario, path)
    assert events == final_events(table)
    taken = [(e["choice"], e["taken"]) for e in events if e["type"] == "choice"]
    assert taken == [("At the door", "Fight"), ("At the door", "Kick it in"), ("In the hall", "Wait")]
    assert table.next_statement() is None


def test_undo_across_a_choice_asks_it_again(tmp_path):
    scenario = door(tmp_path)
    path = tmp_path / "j.drama"
    t = Terminal(str(scenario), "--journal", str(path))
    up_to_the_door(t)
    t.answer(WHICH, "Knock")
    t.answer(PLAYS, "")                                # set gold = gold + 3
    t.answer(PLAYS, "/undo")                           # the `set` ...
    t.answer(PLAYS, "/undo")                           # ... and the choice itself
    asked = t.answer(WHICH, "Kick it in")              # asked again, and answered otherwise
    assert 'undone: choose "At the door", chose "Knock"' in asked
    assert "the choice 'At the door':" in asked
    body = t.answer(PLAYS, "/quit")
    assert "hall.drama:12  set kicked" in body
    t.finish()
    text = path.read_text(encoding="utf-8")
    assert 'chose "Kick it in"' in text and 'chose "Knock"' not in text and "set gold = 5" not in text
    table, events = replayed(scenario, path)
    assert events == final_events(table)
    assert table.next_statement().pos.line == 12


def test_resume_after_a_choice_goes_on_in_its_option_without_asking(tmp_path):
    scenario = door(tmp_path)
    path = tmp_path / "j.drama"
    t = Terminal(str(scenario), "--journal", str(path))
    up_to_the_door(t)
    t.answer(WHICH, "Kick it in")
    t.answer(PLAYS, "/quit")
    t.finish()
    before = path.read_text(encoding="utf-8")
    t = Terminal(str(scenario), "--journal", str(path), "--resume")
    resumed = t.answer(PLAYS, "")                      # the option's body, not the question
    assert "hall.drama:12  set kicked" in resumed and "the choice" not in resumed
    t.answer(PLAYS, "")                                # > The door flies open.
    t.answer(PLAYS, "")                                # the second pass's round
    second = t.answer(WHICH, "Kick it in")             # `once`: taken already (before the resume)
    assert "-  Kick it in (not available: it was taken once already)" in second
    assert "1. Fight" in second and "2. Knock" in second
    refused = t.answer(WHICH, "2")
    assert "'Kick it in' is not available: it was taken once already" in refused
    t.answer(PLAYS, "/quit")
    t.finish()
    text = path.read_text(encoding="utf-8")
    assert text.startswith(before) and 'chose "Knock"' in text
    table, events = replayed(scenario, path)
    assert events == final_events(table)


def test_an_unavailable_option_given_in_the_script_is_refused_and_nothing_changes(tmp_path):
    scenario = door(tmp_path, SCRIPT.replace('option "Wait"', 'option "Wait" if gold >= 100'))
    table = Table.start(Program.compile(scenario), str(tmp_path / "j.drama"))
    calls = Scripted([(ChoiceAsk, "Knock"), (ChoiceAsk, "Knock")])
    while table.next_statement().pos.line != 21:
        table.play_script(calls)
    assert [a.question.choice for a in calls.asked if isinstance(a, ChoiceAsk)] == ["At the door"] * 2
    text = (tmp_path / "j.drama").read_text(encoding="utf-8")
    events = table.events[:]
    with pytest.raises(DramaError) as error:           # the script's `chose "Wait"`: not available
        table.play_script(calls)
    assert error.value.code == "E332" and "'gold >= 100' does not hold" in error.value.message
    assert len(calls.asked) == 2                        # the script's choice is never asked
    assert (tmp_path / "j.drama").read_text(encoding="utf-8") == text and table.events == events
    assert table.next_statement().pos.line == 21


def test_no_answer_is_the_strict_refusal_and_the_table_may_skip_it(tmp_path):
    scenario = door(tmp_path)
    table = Table.start(Program.compile(scenario), str(tmp_path / "j.drama"))
    for _ in range(5):
        table.play_script()
    with pytest.raises(DramaError) as error:            # EngineCalls: nobody chose, as `drama run`
        table.play_script()
    assert error.value.code == "E330"
    table.skip("skipped at the table")                 # passes over the whole block
    assert table.next_statement().pos.line == 6        # the loop's second pass


def _block(doc: str, marker: str) -> list[str]:
    """The lines of the ```text block after `<!-- marker -->` in docs/play.md."""
    after = doc.split(f"<!-- {marker} -->\n```text\n", 1)[1]
    return after.split("```", 1)[0].splitlines()


def _contains(lines: list[str], block: list[str]) -> bool:
    strip = [line.rstrip() for line in lines]
    want = [line.rstrip() for line in block]
    return any(strip[i:i + len(want)] == want for i in range(len(strip) - len(want) + 1))


def test_the_docs_choice_session_is_what_drama_play_shows(tmp_path):
    """docs/play.md's session of examples/at-the-door.yaml, played again through a pipe."""
    root = Path(__file__).resolve().parent.parent
    doc = (root / "docs" / "play.md").read_text(encoding="utf-8")
    path = tmp_path / "door.drama"
    done = subprocess.run([sys.executable, "-m", "dsl", "play", str(root / "docs" / "examples" / "at-the-door.yaml"),
                           "--journal", str(path), "--no-color"], input="\n\nSneak past\n2\n\n\n\n\n",
                          capture_output=True, text=True, env=env(), timeout=120)
    assert done.returncode == 0, done.stderr
    assert _contains(done.stdout.splitlines(), _block(doc, "at-the-door session"))
    journal = path.read_text(encoding="utf-8")
    assert _contains(journal.splitlines(), _block(doc, "at-the-door journal"))
    events = dsl.run(path.with_suffix(".yaml"))
    assert [(e["choice"], e["taken"], e["by"]) for e in events if e["type"] == "choice"] == \
        [("At the gate", "Bribe the guard", "given"), ("In the yard", "Press on", "given")]
    table, _ = replayed(root / "docs" / "examples" / "at-the-door.yaml", path)
    assert events == final_events(table)


class _Drawn:
    """The table's calls drawn by hypothesis: an available option (any), the engine's dice, the tie to the attacker."""

    def __init__(self, data):
        self.data = data

    def __call__(self, ask):
        from dsl.table.asks import TieAsk
        if isinstance(ask, ChoiceAsk):
            return self.data.draw(st.sampled_from(ask.question.available))
        if isinstance(ask, TieAsk):
            return ask.choices[0]
        return None


from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_any_choices_and_undos_replay_to_the_tables_events(tmp_path, data):
    """Whatever the table picks and undoes: never an unavailable option, `drama run` of the
    journal gives the table's events, and resuming gives the same state and position."""
    from dsl.table import journal as journals
    import tempfile
    folder = Path(tempfile.mkdtemp(dir=tmp_path))
    scenario = door(folder)
    program = Program.compile(scenario)
    path = folder / "j.drama"
    table = Table.start(program, str(path), seed=data.draw(st.integers(0, 50)))
    path.with_suffix(".yaml").write_text(journals.scenario_text(str(scenario), str(path), program.scenario.title, {}),
                                         encoding="utf-8")
    calls = _Drawn(data)
    for _ in range(data.draw(st.integers(5, 40))):
        if table.next_statement() is None:
            break
        if table.entries and data.draw(st.integers(0, 5)) == 0:
            table.undo()
            continue
        if table.open_option() is not None:
            table.take_option(None)
        try:
            table.play_script(calls)
        except DramaError:
            table.skip("refused")
    for event in table.events:
        if event["type"] == "choice":
            offered = {o["label"]: o for o in event["options"]}
            assert event["taken"] in offered
    kicked = [e for e in table.events if e["type"] == "choice" and e["taken"] == "Kick it in"]
    assert len(kicked) <= 1                                   # `once`
    assert dsl.run(path.with_suffix(".yaml")) == final_events(table)
    again, _ = Table.resume(program, str(path))
    assert again.events == table.events
    assert again.next_statement() == table.next_statement()
