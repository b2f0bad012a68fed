"""`drama play` in full screen (issue 24, point 10): the board pinned at the top, the story scrolling under it, the prompt at the bottom; plain mode for screen readers; the journal's guarantees in both.

Through a real pseudo-terminal (pexpect), the screen read as a terminal shows it (pyte).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys

from play_helpers import Screen, env, hall

BOARD_HEAD = "party     avail  pool  max"
ALT_SCREEN = "\x1b[?1049h"

# the hall's script to the end of its first round, each prompt with its answer (seed 5)
STEPS = [
    ("Enter plays it>", ""),                       # scene
    ("Enter plays it>", ""),                       # drama
    ("Enter plays it>", ""),                       # initiative
    ("Enter plays it>", ""),                       # round
    ("Kara may roll up to 3 dice", "4"),
    ("Overlord may roll up to 3 dice", "4"),
    ("who won the vote?", "Kara"),
    ("Overlord may roll up to 2 dice", "6 6"),
    ("Kara may roll up to 1 die", "2"),
    ("Bren may roll up to 2 dice", "2 2"),
    ("the split", "Kara 1, Bren 2"),
    ("won double", "dictate the pillars fall"),
]


def play_plain(scenario, journal, answers):
    """The same answers through a pipe (plain mode): the journal it leaves."""
    lines = "".join(a + "\n" for a in answers) + "/quit\n"
    done = subprocess.run([sys.executable, "-m", "dsl", "play", str(scenario), "--journal", str(journal),
                           "--seed", "5"], input=lines, capture_output=True, text=True, env=env(), timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


def board_rows(screen: Screen) -> list[str]:
    lines = screen.lines()
    return lines[:lines.index(next(line for line in lines if line.startswith("\u2500")))]


def test_point_10_the_board_stays_pinned_while_the_story_scrolls_and_the_journal_is_the_plain_modes(tmp_path):
    scenario = hall(tmp_path)
    screen = Screen(str(scenario), "--journal", str(tmp_path / "screen.drama"), "--seed", "5", rows=24, columns=160)
    tops = []
    for prompt, line in STEPS:
        screen.answer(prompt, line)
        tops.append(board_rows(screen))
    screen.answer("Enter plays it>", "/quit")
    out = screen.finish()
    # every screen began with the board (the title, its head row), and the prompt was the bottom line
    assert all(top[0].startswith("The Test Hall") and BOARD_HEAD in top for top in tops), tops
    assert ALT_SCREEN in screen.raw                        # the terminal's alternate screen: nothing scrolls away
    # the board is redrawn in place: the last one shows the split and the double win's losses
    assert any(row.startswith("Kara ") and " 5 " in row for row in tops[-1]), tops[-1]
    assert "journal: " in out and "all saved" in out       # on the normal screen again, where the journal is
    plain = play_plain(scenario, tmp_path / "plain.drama", [line for _, line in STEPS])
    assert ALT_SCREEN not in plain and plain.count(BOARD_HEAD) > 5       # plain: a board under each entry
    assert (tmp_path / "screen.drama").read_text().replace("screen.drama", "J") == \
        (tmp_path / "plain.drama").read_text().replace("plain.drama", "J")


def test_point_10_the_story_scrolls_back_with_pageup_and_the_prompt_stays(tmp_path):
    scenario = hall(tmp_path)
    screen = Screen(str(scenario), "--journal", str(tmp_path / "j.drama"), "--seed", "5", rows=16, columns=160)
    for prompt, line in STEPS[:6]:
        screen.answer(prompt, line)
    screen.wait(lambda lines: "who won the vote?" in lines[-1], "the tie's prompt")
    assert not any("scene \"The Hall\"" in line for line in screen.lines()[6:])    # scrolled away
    screen.child.send("\x1b[5~\x1b[5~\x1b[5~")                                    # PageUp
    # (the story and the status line that says so may come in two writes: wait for both)
    screen.wait(lambda lines: any("hall.drama:1  scene" in line for line in lines)
                and any("scrolled back" in line for line in lines), "the story scrolled back")
    assert "who won the vote?" in screen.prompt()
    screen.child.send("\x1b[6~\x1b[6~")                                           # PageDown: back to the end
    screen.wait(lambda lines: not any("scrolled back" in line for line in lines), "the story at its end")
    screen.answer("who won the vote?", "/quit")
    screen.finish()


def test_point_10_a_sigkill_in_full_screen_loses_nothing_and_resume_and_undo_are_exact(tmp_path):
    scenario = hall(tmp_path)
    journal = tmp_path / "j.drama"
    screen = Screen(str(scenario), "--journal", str(journal), "--seed", "5", rows=24, columns=160)
    for prompt, line in STEPS[:7]:
        screen.answer(prompt, line)
    screen.wait(lambda lines: any("+ Kara bolt -> Overlord" in line for line in lines), "the exchange accepted")
    os.kill(screen.child.pid, signal.SIGKILL)
    screen.finish()
    kept = journal.read_text()
    assert "Kara bolt -> Overlord with Sorcery, rolled 4" in kept and "tie Kara" in kept
    again = Screen(str(scenario), "--journal", str(journal), "--resume", rows=24, columns=160)
    again.wait(lambda lines: any("resumed: 5 entries" in line for line in lines), "the resumed session")
    again.answer("Overlord may roll up to 2 dice", "/undo")
    again.wait(lambda lines: any("undone: Kara bolt" in line for line in lines), "the undo")
    again.answer("Kara may roll up to 3 dice", "/quit")
    again.finish()
    plain = play_plain(scenario, tmp_path / "four.drama", [line for _, line in STEPS[:4]])
    assert "journal:" in plain
    assert journal.read_text().replace("j.drama", "J") == (tmp_path / "four.drama").read_text().replace(
        "four.drama", "J")


def test_point_10_plain_mode_for_screen_readers_no_color_and_pipes(tmp_path):
    scenario = hall(tmp_path)
    for flags in (["--no-color"], ["--plain"]):
        screen = Screen(str(scenario), "--journal", str(tmp_path / f"{flags[0][2:]}.drama"), "--seed", "5", *flags,
                        rows=24, columns=160)
        screen.wait(lambda lines: any("Enter plays it>" in line for line in lines), "the first prompt")
        screen.send("/quit")
        out = screen.finish()
        assert ALT_SCREEN not in screen.raw and "Enter plays it>" in out, flags
    done = subprocess.run([sys.executable, "-m", "dsl", "play", str(scenario), "--journal", str(tmp_path / "x.drama"),
                           "--screen"], input="/quit\n", capture_output=True, text=True, env=env(), timeout=60)
    assert done.returncode == 2 and "--screen needs a terminal" in done.stderr
    assert not (tmp_path / "x.drama").exists()


def test_what_the_table_prints_shows_control_characters_as_symbols_in_both_modes(tmp_path):
    scenario = hall(tmp_path)
    scenario.write_text(scenario.read_text().replace("title: The Test Hall", 'title: "The Test Hall \\e]0;owned\\a"'))
    screen = Screen(str(scenario), "--journal", str(tmp_path / "a.drama"), "--seed", "5", rows=24, columns=160)
    screen.wait(lambda lines: "Enter plays it>" in lines[-1], "the first prompt")
    assert screen.lines()[0].startswith("The Test Hall \u241b]0;owned\u2407")
    screen.send("/quit")
    screen.finish()
    assert "\x1b]0;" not in screen.raw and "\x07" not in screen.raw
    plain = play_plain(scenario, tmp_path / "b.drama", ["> a torch \x1b[31m flickers"])
    assert "\x1b" not in plain and "\u241b]0;owned\u2407" in plain and "\u241b[31m" in plain


def test_point_10_ctrl_c_asks_whether_to_quit_and_ctrl_d_quits_in_full_screen(tmp_path):
    scenario = hall(tmp_path)
    screen = Screen(str(scenario), "--journal", str(tmp_path / "j.drama"), "--seed", "5", rows=24, columns=160)
    screen.answer("Enter plays it>", "")
    screen.wait(lambda lines: "Enter plays it>" in lines[-1] and any("+ scene" in line for line in lines), "scene")
    screen.child.sendcontrol("c")
    screen.answer("quit? the journal is safe (y/N)>", "n")
    screen.wait(lambda lines: "Enter plays it>" in lines[-1] and screen.text() != screen._sent, "the table again")
    screen.child.sendcontrol("d")
    out = screen.finish()
    assert "journal: " in out and "(1 entry, all saved)" in out


def test_point_10_full_screen_with_seats_the_pages_answer_its_prompt_and_proposals_arrive_at_it(tmp_path):
    """`--screen --seats`: the links are on the screen, a seat's dice answer the full screen's prompt, the
    GM's half-typed line stays in the prompt line, a seat's proposal is asked at it, and the journal runs."""
    import json
    import re

    from dsl.pipeline import Program
    from dsl.table.core import Table
    from play_helpers import final_events
    from test_seats_play import Phone, free_port

    scenario = hall(tmp_path)
    journal = tmp_path / "j.drama"
    screen = Screen(str(scenario), "--journal", str(journal), "--screen", "--seats", "--board-port",
                    str(free_port()), "--seed", "3", rows=50, columns=160, timeout=30)
    screen.wait(lambda lines: "seat Kara: http" in "\n".join(lines) and "Enter plays it>" in lines[-1],
                "the seats' links and the first prompt")
    link = re.search(r"seat Kara: (http://\S+)", screen.text()).group(1)
    kara = Phone(link)
    for _ in range(4):                                    # scene, drama, initiative, round
        screen.answer("Enter plays it>", "")
    screen.wait(lambda lines: "Kara may roll up to 3 dice" in lines[-1], "Kara's dice")
    screen.child.send("6 6")                              # the GM starts typing, then Kara's phone answers
    screen.wait(lambda lines: lines[-1].endswith("6 6"), "what the GM typed")
    assert kara.answer("dice", "6 5 4").status_code == 200
    screen.wait(lambda lines: "<- Kara's page: 6 5 4" in "\n".join(lines), "the page's answer in the story")
    screen.wait(lambda lines: "Overlord may roll up to 3 dice" in lines[-1], "the Overlord's dice")
    assert screen.lines()[-1].endswith("> 6 6")           # what the GM had typed is still in the prompt line
    screen.child.send("\x7f\x7f\x7f")                     # ... rubbed out, and the Overlord's dice typed
    screen.answer("Overlord may roll up to 3 dice", "2 2 1")
    assert kara.answer("option", "dictate the Overlord staggers").status_code == 200
    screen.wait(lambda lines: "Overlord may roll up to 2 dice" in lines[-1], "the Overlord's blow")
    number = kara.post("declare", text="Kara holds").json()["proposal"]["id"]
    screen.answer("Overlord may roll up to 2 dice", "3 1")
    assert kara.answer("dice", "").status_code == 200
    screen.wait(lambda lines: "Bren may roll up to" in lines[-1], "Bren's dice")
    screen.answer("Bren may roll up to", "5 4")
    screen.wait(lambda lines: "says no>" in lines[-1], "the GM asked about Kara's proposal")
    assert "Kara's seat proposes: Kara holds" in screen.text()
    screen.answer("says no>", "refuse not now")
    assert kara.proposal(number)["status"] == "refused"
    screen.answer("Enter plays it>", "/quit")
    out = screen.finish()
    assert "all saved" in out
    text = journal.read_text(encoding="utf-8")
    assert "Kara bolt -> Overlord with Sorcery, rolled 6 5 4" in text and "Kara holds" not in text
    table, warning = Table.resume(Program.compile(scenario), str(journal))
    run = subprocess.run([sys.executable, "-m", "dsl", "run", str(tmp_path / "j.yaml"), "--format", "json"],
                         capture_output=True, text=True, env=env(), timeout=60)
    assert run.returncode == 0, run.stderr
    assert [json.loads(line) for line in run.stdout.splitlines()] == final_events(table)
