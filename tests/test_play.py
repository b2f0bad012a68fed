"""`drama play`: the table's core (journal, undo, redo, resume, the script's position) through the package API,
and whole sessions through a real terminal.

The terminal tests run `drama play` in a pseudo-terminal with pexpect rather
than through prompt_toolkit's pipe input: a pty is what a game master has, so
the prompts, completion (Tab), history, Ctrl-C (a real SIGINT) and Ctrl-D go
through the very code they use, and the process can be killed (SIGKILL) like
a real one.
"""

from __future__ import annotations

import json
import re
import os
import subprocess
import sys
from pathlib import Path

import pytest

import dsl
from dsl.errors import DramaError
from dsl.pipeline import Program
from dsl.table.asks import DiceAsk, EngineCalls, OptionAsk, SplitAsk, TieAsk
from dsl.table.core import Table
from dsl.table import journal as journals
from dsl.table import board as boards

from play_helpers import ROOT, Scripted, Terminal, env, final_events, hall, plain

ASHEN = ROOT / "scenarios" / "ashen-pass"


def journal_scenario(program: Program, scenario: Path, path: Path) -> Path:
    out = path.with_suffix(".yaml")
    out.write_text(journals.scenario_text(str(scenario), str(path), program.scenario.title,
                                          dict(program.scenario.roles)), encoding="utf-8")
    return out


def play_through(table: Table, calls=EngineCalls(), option=("dictate", "they run")) -> None:
    """Play the whole script as the table would with these calls: skip the fallen, take options."""
    while table.next_statement() is not None:
        if table.skippable():
            table.skip("defeated")
            continue
        if table.open_option() is not None:
            table.take_option(option, calls)
            continue
        try:
            table.play_script(calls)
        except DramaError:
            table.skip("refused")


def copy_ashen(tmp_path: Path) -> Path:
    import shutil
    shutil.copytree(ASHEN, tmp_path / "ashen-pass")
    return tmp_path / "ashen-pass"


# ---------------------------------------------------------------------------- the journal is the play log

@pytest.mark.parametrize("cast", ["with-embers.yaml", "with-wanderers.yaml"])
@pytest.mark.parametrize("seed", [1, 7])
def test_the_journal_replays_with_drama_run_to_the_very_events_of_the_table(tmp_path, cast, seed):
    folder = copy_ashen(tmp_path)
    scenario = folder / cast
    program = Program.compile(scenario)
    path = tmp_path / "session.drama"
    table = Table.start(program, str(path), seed=seed)
    play_through(table)
    replayed = dsl.run(journal_scenario(program, scenario, path))
    assert final_events(table) == replayed
    assert len(table.entries) > 20
    # every die is given in the journal, and it parses as the language
    text = path.read_text(encoding="utf-8")
    assert not re.search(r", roll\b(?!ed)", text) and "rolled" in text


def test_the_same_seed_gives_the_same_journal_and_another_seed_another(tmp_path):
    scenario = copy_ashen(tmp_path) / "with-embers.yaml"
    program = Program.compile(scenario)
    texts = []
    for name, seed in (("a", 3), ("b", 3), ("c", 4)):
        table = Table.start(program, str(tmp_path / f"{name}.drama"), seed=seed)
        play_through(table)
        texts.append((tmp_path / f"{name}.drama").read_text(encoding="utf-8"))
    assert texts[0] == texts[1]
    assert texts[0] != texts[2]


def test_the_table_calls_are_asked_and_their_answers_written(tmp_path):
    """R11 (a tie under `ties: vote`), R10 (a joint side's split), R8 (a double win's option)."""
    scenario = hall(tmp_path)
    program = Program.compile(scenario)
    path = tmp_path / "j.drama"
    table = Table.start(program, str(path), seed=1)
    for _ in range(4):                      # scene, drama, initiative, round
        table.play_script()
    calls = Scripted([(DiceAsk, (4,)), (DiceAsk, (4,)), (TieAsk, "Overlord")])
    table.play_script(calls)
    assert [type(a) for a in calls.asked] == [DiceAsk, DiceAsk, TieAsk]
    assert calls.asked[0].why == "Kara may roll up to 3 dice: Sorcery 3"
    assert calls.asked[2].choices == ("Kara", "Overlord")
    calls = Scripted([(DiceAsk, (6, 6)), (DiceAsk, (2,)), (DiceAsk, (2, 2)), (SplitAsk, {"Kara": 1, "Bren": 2})])
    table.play_script(calls)
    assert calls.asked[3] == SplitAsk(("Kara", "Bren"), 3)
    ask = table.open_option()
    assert ask == OptionAsk(("Overlord",))          # 14 against 6: a double win
    table.take_option(("dictate", "the pillars fall"))
    text = path.read_text(encoding="utf-8")
    assert "Kara bolt -> Overlord with Sorcery, rolled 4\nOverlord defends with Cunning, rolled 4\ntie Overlord\n" in text
    assert "split Kara 1, Bren 2\n" in text
    assert 'Overlord dictates "the pillars fall"\n' in text
    board = table.board()
    assert (board.party("Kara").available, board.party("Bren").available) == (4, 3)
    assert dsl.run(journal_scenario(program, scenario, path)) == final_events(table)


def test_a_declined_option_is_not_asked_again(tmp_path):
    program = Program.compile(hall(tmp_path))
    table = Table.start(program, str(tmp_path / "j.drama"), seed=1)
    for _ in range(5):
        table.play_script(Scripted([(DiceAsk, (6, 6, 6)), (DiceAsk, (1,))]))
    assert table.open_option() == OptionAsk(("Kara",))
    assert table.take_option(None) is None
    assert table.open_option() is None


def test_a_refused_statement_changes_nothing_and_names_the_rule(tmp_path):
    program = Program.compile(hall(tmp_path))
    path = tmp_path / "j.drama"
    table = Table.start(program, str(path), seed=1)
    for _ in range(4):
        table.play_script()
    before, text = list(table.events), path.read_text(encoding="utf-8")
    with pytest.raises(DramaError) as caught:
        table.play_text("Kara bolt -> Overlord with Sorcery, rolled 6 6 6 6")       # R3: at most 3 dice
    assert caught.value.code == "E301"
    with pytest.raises(DramaError) as caught:
        table.play_text("Kara bolt -> Overlrd with Sorcery, roll")
    assert "Overlord" in (caught.value.hint or "")
    assert table.events == before and path.read_text(encoding="utf-8") == text
    entry = table.play_text("> The hall shakes.")
    assert entry.marker.kind == "free" and table.events[-1]["type"] == "narration"


# ---------------------------------------------------------------------------- undo, redo, resume

def test_undo_rewrites_the_journal_and_redo_gives_the_same_events(tmp_path):
    scenario = copy_ashen(tmp_path) / "with-embers.yaml"
    program = Program.compile(scenario)
    path = tmp_path / "j.drama"
    table = Table.start(program, str(path), seed=5)
    texts, events = [], []
    for _ in range(12):
        texts.append(path.read_text(encoding="utf-8"))
        events.append(list(table.events))
        table.play_script()
    final_text, finished = path.read_text(encoding="utf-8"), list(table.events)
    for back in range(1, 6):
        table.undo()
        assert path.read_text(encoding="utf-8") == texts[-back]
        assert table.events == events[-back]
    for _ in range(5):
        table.redo()
    assert table.events == finished and path.read_text(encoding="utf-8") == final_text
    assert table.redo() is None
    # a new entry forgets what was undone
    table.undo()
    table.play_text("> An aside.")
    assert table.redo() is None


def test_undo_cuts_the_journal_back_and_rewrites_one_changed_behind_the_tables_back(tmp_path):
    scenario = copy_ashen(tmp_path) / "with-embers.yaml"
    path = tmp_path / "j.drama"
    table = Table.start(Program.compile(scenario), str(path), seed=5)
    for _ in range(4):
        table.play_script()
    kept = table.text(3)
    inode = path.stat().st_ino
    table.undo()                                   # the file cut where the entry began: the same file
    assert path.read_text(encoding="utf-8") == kept and path.stat().st_ino == inode
    with open(path, "a", encoding="utf-8") as journal:
        journal.write("# a note typed into the journal by hand\n")
    table.undo()                                   # it no longer ends with the entry: rewritten whole
    assert path.read_text(encoding="utf-8") == table.text() == table.text(2)


def test_undo_goes_back_into_the_script_where_it_was(tmp_path):
    program = Program.compile(hall(tmp_path))
    table = Table.start(program, str(tmp_path / "j.drama"), seed=2)
    play_through(table)
    assert table.next_statement() is None
    while table.entries:
        table.undo()
    assert table.next_statement().pos.line == 1
    assert len(table.events) == 1


def test_resume_rebuilds_the_state_and_the_scripts_position(tmp_path):
    scenario = copy_ashen(tmp_path) / "with-embers.yaml"
    program = Program.compile(scenario)
    path = tmp_path / "j.drama"
    table = Table.start(program, str(path), seed=9)
    for _ in range(25):
        if table.skippable():
            table.skip()
        elif table.open_option():
            table.take_option(None)
        else:
            table.play_script()
    again, warning = Table.resume(program, str(path), seed=9)
    assert warning is None
    assert again.events == table.events and again.board() == table.board()
    assert again.next_statement() == table.next_statement()
    # and both go on the same way
    play_through(table)
    play_through(again)
    assert again.events == table.events


def test_a_torn_last_line_is_dropped_with_a_warning(tmp_path):
    program = Program.compile(hall(tmp_path))
    path = tmp_path / "j.drama"
    table = Table.start(program, str(path), seed=1)
    for _ in range(5):
        table.play_script()
    whole = path.read_text(encoding="utf-8")
    with open(path, "a", encoding="utf-8") as handle:
        handle.write("Overlord crush -> Kara with Brut")        # a write cut short by a kill
    again, warning = Table.resume(program, str(path), seed=1)
    assert warning is not None and warning.code == "W030" and warning.is_warning
    assert warning.position.line == whole.count("\n") + 1
    assert again.events == table.events
    assert path.read_text(encoding="utf-8") == whole               # dropped, the rest untouched
    # an entry cut between its lines (no marker yet) is torn too
    with open(path, "a", encoding="utf-8") as handle:
        handle.write("Overlord crush -> Kara with Brutality, rolled 6 6\n")
    again, warning = Table.resume(program, str(path), seed=1)
    assert warning.code == "W030" and again.events == table.events


def test_a_torn_entry_is_named_by_its_statement_not_by_the_blank_line_before_it(tmp_path):
    # the writer appends an entry as a blank line, the statement, then its marker:
    # a write cut short leaves the blank line and part of the statement
    program = Program.compile(hall(tmp_path))
    path = tmp_path / "j.drama"
    table = Table.start(program, str(path), seed=1)
    table.play_script()
    whole = path.read_text(encoding="utf-8")
    with open(path, "a", encoding="utf-8") as handle:
        handle.write("\nOverlord crush -> Kara with Brut\n")
    _, warning = Table.resume(program, str(path), seed=1)
    assert warning.code == "W030" and "'Overlord crush -> Kara with Brut'" in warning.message
    assert warning.position.line == whole.count("\n") + 2
    assert path.read_text(encoding="utf-8") == whole


def test_resume_on_the_command_line_reports_the_torn_line(tmp_path):
    scenario = hall(tmp_path)
    path = tmp_path / "j.drama"
    program = Program.compile(scenario)
    table = Table.start(program, str(path), seed=1)
    table.play_script()
    with open(path, "a", encoding="utf-8") as handle:
        handle.write("drama \"Ha")
    done = subprocess.run([sys.executable, "-m", "dsl", "play", str(scenario), "--journal", str(path), "--resume"],
                          input="/quit\n", capture_output=True, text=True, env=env(), timeout=60)
    assert done.returncode == 0, done.stderr
    assert "warning[W030]" in done.stderr and "torn" in done.stderr
    assert "(resumed: 1 entry)" in done.stdout


def test_a_script_edited_above_and_below_the_played_part_still_resumes(tmp_path):
    """Issue 24 item 7: entries are anchored by what they are, not by their line."""
    scenario = hall(tmp_path, ties="actor")
    program = Program.compile(scenario)
    path = tmp_path / "j.drama"
    table = Table.start(program, str(path), seed=1)
    for _ in range(6):
        table.play_script()
    script = tmp_path / "hall.drama"
    original = script.read_text()
    script.write_text("# the hall, as the players found it\n\n" + original + '> The echoes die away.\n')
    again, warning = Table.resume(Program.compile(scenario), str(path))
    assert warning is None and again.board() == table.board()
    assert again.next_statement().pos.line == table.next_statement().pos.line + 2


def test_a_journal_whose_played_part_was_changed_is_refused_and_says_what_differs(tmp_path):
    scenario = hall(tmp_path, ties="actor")
    program = Program.compile(scenario)
    path = tmp_path / "j.drama"
    table = Table.start(program, str(path), seed=1)
    for _ in range(6):
        table.play_script()
    script = tmp_path / "hall.drama"
    script.write_text(script.read_text().replace("Kara bolt -> Overlord with Sorcery, roll",
                                                 "Bren bash -> Overlord with Strength, roll"))
    with pytest.raises(DramaError) as caught:
        Table.resume(Program.compile(scenario), str(path))
    assert caught.value.code == "E904"
    assert "its entry 5 (`Kara bolt -> Overlord with Sorcery, rolled" in caught.value.message
    assert "but the script has `Bren bash -> Overlord with Strength, roll` there (line 5)" in caught.value.message
    before = path.read_bytes()
    script.write_text(script.read_text().replace("Bren bash -> Overlord with Strength, roll\n",
                                                 "Kara bolt -> Overlord with Sorcery, roll\n", 1)
                      .replace("Overlord defends with Cunning, roll\n", "", 1))
    with pytest.raises(DramaError) as caught:
        Table.resume(Program.compile(scenario), str(path))
    assert "has 0 lines answering it now, not 1" in caught.value.message
    assert path.read_bytes() == before


def test_usage_errors_of_drama_play(tmp_path):
    scenario = hall(tmp_path)
    path = tmp_path / "j.drama"
    path.write_text("# Recorded by drama\n")
    done = subprocess.run([sys.executable, "-m", "dsl", "play", str(scenario), "--journal", str(path)],
                          input="", capture_output=True, text=True, env=env(), timeout=60)
    assert done.returncode == 1 and "error[E901]" in done.stderr and "--resume" in done.stderr
    done = subprocess.run([sys.executable, "-m", "dsl", "play", str(scenario), "--resume"],
                          input="", capture_output=True, text=True, env=env(), timeout=60)
    assert done.returncode == 1 and "error[E902]" in done.stderr
    assert "there is no journal to resume in the folder " in done.stderr and "journal/\n" in done.stderr
    (tmp_path / "other.drama").write_text("scene \"x\"\n")
    done = subprocess.run([sys.executable, "-m", "dsl", "play", str(scenario), "--resume",
                           "--journal", str(tmp_path / "other.drama")],
                          input="", capture_output=True, text=True, env=env(), timeout=60)
    assert done.returncode == 1 and "error[E903]" in done.stderr


def test_the_default_journal_is_numbered_by_date_next_to_the_scenario(tmp_path):
    scenario = hall(tmp_path)
    for _ in range(2):
        done = subprocess.run([sys.executable, "-m", "dsl", "play", str(scenario)], input="\n/quit\n",
                              capture_output=True, text=True, env=env(), timeout=60)
        assert done.returncode == 0, done.stderr
    names = sorted(p.name for p in (tmp_path / "journal").iterdir())
    assert len(names) == 4 and names[0].endswith("-1.drama") and names[2].endswith("-2.drama")
    assert names[1].endswith("-1.yaml")
    done = subprocess.run([sys.executable, "-m", "dsl", "play", str(scenario), "--resume"], input="/quit\n",
                          capture_output=True, text=True, env=env(), timeout=60)
    assert names[2] in done.stdout and "(resumed: 1 entry)" in done.stdout
    events = dsl.run(tmp_path / "journal" / names[1])
    assert [e["type"] for e in events] == ["start", "scene", "final"]


# ---------------------------------------------------------------------------- the board

def test_the_board_fits_80_columns_and_shows_the_table(tmp_path):
    program = Program.compile(hall(tmp_path))
    table = Table.start(program, str(tmp_path / "j.drama"), seed=1)
    for _ in range(5):
        table.play_script(Scripted([(DiceAsk, (6, 5)), (DiceAsk, (1,))]))
    for color in (False, True):
        text = boards.render(table.board(), color=color, title="A rather long title of the session to fold")
        assert ("\x1b[" in text) == color
        assert all(len(plain(line)) <= 80 for line in text.splitlines())
    text = boards.render(table.board())
    assert "Hall  round 1" in text
    assert "order: Kara > *Overlord > Bren" in text          # Kara acted; Overlord's turn
    assert "Overlord      4     3    7" in text         # a one, then 1 + one high die (R6)
    assert "last: Kara bolt -> Overlord: 14 vs 4, Kara wins double; Overlord -3" in text


def test_the_player_board_data_has_no_numbers_for_hidden_parties(tmp_path):
    program = Program.compile(hall(tmp_path))
    table = Table.start(program, str(tmp_path / "j.drama"), seed=1)
    table.play_script()
    table.play_script()
    data = boards.data(table.board(), {"Overlord"}, {"Overlord": "Overlord Bastrastras"})
    row = next(p for p in data["parties"] if p["id"] == "Overlord")
    assert row["hidden"] and not {"available", "damage_pool", "maximum"} & set(row)
    assert next(p for p in data["parties"] if p["id"] == "Kara")["available"] == 6
    assert [s.hidden for s in program.scenario.cast] == [False, False, True]


# ---------------------------------------------------------------------------- through a real terminal

def test_a_whole_session_at_the_terminal(tmp_path):
    """Dice typed and engine-rolled, the tie vote (R11), the split (R10), the option (R8), a free
    statement and a refused one, completion with Tab, and every table command."""
    scenario = hall(tmp_path)
    path = tmp_path / "j.drama"
    t = Terminal(str(scenario), "--journal", str(path), "--seed", "4")
    for _ in range(4):                               # scene, drama, initiative (given), round
        t.answer("Enter plays it>", "")
    ROLLS = "(Enter: the engine rolls)>"
    assert "Kara may roll up to 3 dice: Sorcery 3" in t.answer(ROLLS, "4")
    t.answer(ROLLS, "9")                             # Overlord's: a d6 has no 9, asked again
    assert "a d6 has no face 9" in t.answer(ROLLS, "4")
    t.answer("who won the vote? (Kara or Overlord)>", "Kara")
    assert "Overlord may roll up to 2 dice" in t.answer(ROLLS, "6 6")
    t.answer(ROLLS, "2")                             # Kara's, in the joint defence
    t.answer(ROLLS, "2 2")                           # Bren's
    t.answer("(Enter: the lead first)>", "Kara 1, Bren 2")
    t.answer("or Enter for none>", "dictate the pillars fall")
    board = t.answer("Enter plays it>", "")          # the loop's first round
    assert "Kara          5     1    6" in board and "Bren          3     2    5" in board
    # free play at a dice prompt, and a refused statement: the prompt comes back
    assert "Bren may roll" in t.answer(ROLLS, "> The hall shakes.")
    t.answer(ROLLS, "Kara fireball -> Overlrd, roll")
    refused = t.answer(ROLLS, "")                    # the engine rolls Bren's dice
    t.answer(ROLLS, "")                              # and Overlord's
    # every table command
    t.answer("Enter plays it>", "/board")
    t.answer("Enter plays it>", "/state Bren")
    t.answer("Enter plays it>", "/odds Kara fireball -> Overlord, roll | Overlord defends with Cunning, roll")
    t.answer("Enter plays it>", "/help")
    t.answer("Enter plays it>", "/save")
    t.expect("Enter plays it>")
    t.child.send("/und\t")                           # Tab completes the command
    t.expect("/undo")
    t.send("")
    t.done()
    t.answer(ROLLS, "/redo")
    t.answer("Enter plays it>", "/skip")             # the round: Bren then acts twice in it
    twice = t.answer("/skip passes over it>", "/quit")
    out = t.finish()
    assert "The hall shakes." in out
    assert "<table>:1:18: error[E201]" in refused and "Overlrd" in refused
    assert "^^^^^^^" in refused and "did you mean 'Overlord'" in refused
    assert re.search(r"Bren \(Bren Ironhand\): \d available, damage pool \d, maximum 5", out)
    assert "Kara wins" in out and "%" in out                              # /odds
    assert "/undo" in out and "/quit" in out                               # /help
    assert f"saved: every entry is in {path}" in out
    assert "undone: Bren bash -> Overlord" in out and "redone: Bren bash -> Overlord" in out
    assert "skipped line 12" in out
    assert "error[E309]" in twice
    text = path.read_text(encoding="utf-8")
    assert "Kara bolt -> Overlord with Sorcery, rolled 4\nOverlord defends with Cunning, rolled 4\ntie Kara\n" in text
    assert "split Kara 1, Bren 2\n" in text and 'Overlord dictates "the pillars fall"' in text
    assert "> The hall shakes.\n# play 9: typed at the table\n" in text
    # the session replays with drama run, and tells itself as prose
    program = Program.compile(scenario)
    table, _ = Table.resume(program, str(path))
    yaml = path.with_suffix(".yaml")
    assert dsl.run(yaml) == final_events(table)
    done = subprocess.run([sys.executable, "-m", "dsl", "run", str(yaml), "--as", "transcript"],
                          capture_output=True, text=True, env=env(), timeout=60)
    assert done.returncode == 0 and "the pillars fall" in done.stdout.lower()   # its own sentence (issue 15)
    # the history is kept next to the journal
    assert "/odds Kara fireball" in path.with_suffix(".history").read_text(encoding="utf-8")


def test_ctrl_c_asks_and_ctrl_d_quits_and_nothing_is_lost(tmp_path):
    scenario = hall(tmp_path)
    path = tmp_path / "j.drama"
    t = Terminal(str(scenario), "--journal", str(path))
    t.answer("Enter plays it>", "")
    t.expect("Enter plays it>")
    t.control("c")
    t.done()
    t.answer("quit? the journal is safe (y/N)>", "n")
    t.answer("Enter plays it>", "")                  # the drama begins
    t.expect("Enter plays it>")
    t.control("d")
    out = t.finish()
    assert "journal:" in out and "(2 entries, all saved)" in out
    table, warning = Table.resume(Program.compile(scenario), str(path))
    assert warning is None and len(table.entries) == 2 and table.board().drama == "Hall"
    t = Terminal(str(scenario), "--journal", str(path), "--resume")
    t.expect("Enter plays it>")
    t.control("c")
    t.done()
    t.answer("quit? the journal is safe (y/N)>", "y")
    assert "(2 entries, all saved)" in t.finish()


def test_completion_offers_keywords_parties_and_the_acting_partys_words(tmp_path):
    from dsl.table.table import completion_words
    program = Program.compile(hall(tmp_path))
    table = Table.start(program, str(tmp_path / "j.drama"))
    words = completion_words(table, "Kara fireball -> Overlord with ")
    assert {"Sorcery", "Agility", "Ember Staff", "fireball", "Overlord", "Bren", "roll", "rolled",
            "drama", "recovers"} <= set(words)
    assert "Strength" not in words                       # Bren's, not the acting party's
    assert "Strength" in completion_words(table, "Bren bash -> Kara with ")
    assert "/undo" in completion_words(table, "/u")


def test_a_recovery_check_takes_the_chosen_re_rolls_at_the_table(tmp_path):
    """R14 (point 13): the party chooses which dice its bonus re-rolls."""
    scenario = hall(tmp_path)
    program = Program.compile(scenario)
    path = tmp_path / "j.drama"
    table = Table.start(program, str(path))
    for line in ('drama "Duel" with Kara, Overlord', "Overlord crush -> Kara with Brutality, rolled 6 6",
                 "end drama", "calm 1 hour"):
        table.play_text(line)
    assert table.board().party("Kara").damage_pool == 3
    calls = Scripted([(DiceAsk, "2 1 1, rerolling 1 to 6")])
    table.play_text("Kara recovers with Sorcery, roll", calls)
    assert calls.asked[0].recovery
    assert "Kara recovers with Sorcery, rolled 2 1 1, rerolling 1 to 6\n" in path.read_text(encoding="utf-8")
    assert dsl.run(journal_scenario(program, scenario, path)) == final_events(table)


def test_the_recovery_prompt_takes_the_chosen_re_rolls(tmp_path):
    import io
    from dsl.table.readers import PlainReader
    from dsl.table.table import TableLoop
    program = Program.compile(hall(tmp_path))
    path = tmp_path / "j.drama"
    table = Table.start(program, str(path))
    for line in ('drama "Duel" with Kara, Overlord', "Overlord crush -> Kara with Brutality, rolled 6 6",
                 "end drama", "calm 1 hour"):
        table.play_text(line)
    out = io.StringIO()
    answers = io.StringIO("2 1 1, rerolling 9 to 6\n2 1 1, rerolling 1 to 6\n")
    loop = TableLoop(table, PlainReader(answers, out), out=out)
    loop.typed("Kara recovers with Sorcery, roll")
    shown = out.getvalue()
    assert "Kara recovers: 3 dice of the damage pool; dice (Enter: the engine rolls)> 2 1 1, rerolling 9 to 6" in shown
    assert "error[E317]" in shown and len(table.entries) == 4      # no die showed a 9: nothing played
    loop.typed("Kara recovers with Sorcery, roll")
    shown = out.getvalue()
    assert "+ Kara recovers with Sorcery, rolled 2 1 1, rerolling 1 to 6" in shown


@pytest.mark.parametrize("cast, seed", [("with-embers.yaml", 1), ("with-embers.yaml", 17),
                                        ("with-wanderers.yaml", 5), ("with-wanderers.yaml", 7)])
def test_the_ashen_pass_plays_at_the_table_with_nothing_refused(tmp_path, cast, seed):
    """R7 inside `if` and `repeat`: a joint side goes on without its defeated member, a defence of a
    defeated party is left out, as `drama run` does (these seeds meet both)."""
    scenario = copy_ashen(tmp_path) / cast
    program = Program.compile(scenario)
    path = tmp_path / "j.drama"
    table = Table.start(program, str(path), seed=seed)
    while table.next_statement() is not None:
        if table.skippable():
            table.skip()
        elif table.open_option() is not None:
            table.take_option(None)
        else:
            table.play_script()                 # raises if the rules refuse it
    assert dsl.run(journal_scenario(program, scenario, path)) == final_events(table)
