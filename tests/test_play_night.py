"""`drama play` on a long night (issue 24, issue 30 item 7), through a real terminal: no file of the
game master's is ever damaged by following the tool's advice, one session per journal, a fresh seed
each night, and lines a terminal can send that are no statement refused while the table goes on; and
the night of issue 24's "Done when": 1,000 entries with typed dice, killed, resumed, ten undos, and on.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import signal
import subprocess
import sys
import time

import pexpect
import pytest

from dsl.pipeline import Program
from dsl.table import journal as journals
from dsl.table.core import Table

from play_helpers import Terminal, env, final_events, hall, plain


def play(*args: str, answers: str = "/quit\n", cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "dsl", "play", *args], input=answers, capture_output=True,
                          text=True, env=env(), timeout=120, cwd=cwd)


# ---------------------------------------------------------------------------- a file that is not a journal

def test_a_play_log_of_drama_run_record_is_refused_and_left_byte_identical(tmp_path):
    scenario = hall(tmp_path, ties="actor")
    log = tmp_path / "long.drama"
    done = subprocess.run([sys.executable, "-m", "dsl", "run", str(scenario), "--record", str(log)],
                          capture_output=True, text=True, env=env(), timeout=60)
    assert done.returncode == 0, done.stderr
    before = log.read_bytes()
    assert before.startswith(b"# Recorded by drama")
    # following the advice of E901 (continue it with --resume) on it
    term = Terminal(str(scenario), "--journal", str(log), "--resume", cwd=str(tmp_path))
    shown = term.finish()
    assert term.child.exitstatus == 1
    assert "error[E903]" in shown and "a play log, not a journal of `drama play`" in shown
    assert log.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cast.yaml", "hall.drama", "long.drama",
                                                          "scenario.yaml", "setting.yaml"]


def test_a_torn_tail_is_dropped_only_with_a_copy_of_the_journal_kept(tmp_path):
    scenario = hall(tmp_path)
    program = Program.compile(scenario)
    path = tmp_path / "j.drama"
    table = Table.start(program, str(path), seed=1)
    for _ in range(3):
        table.play_script()
    whole = path.read_bytes()
    with open(path, "ab") as handle:
        handle.write("\nround\nKara bolt -> Overlord with Sorcery, rolled 6 6 ".encode() * 40)   # much more than a line
    torn = path.read_bytes()
    done = play(str(scenario), "--journal", str(path), "--resume")
    assert done.returncode == 0, done.stderr
    assert "warning[W030]" in done.stderr and f"{path}.1.bak" in done.stderr
    assert path.read_bytes() == whole
    assert (tmp_path / "j.drama.1.bak").read_bytes() == torn


# ---------------------------------------------------------------------------- one session per journal

def test_a_second_session_on_a_journal_in_use_is_refused_with_the_holders_pid(tmp_path):
    scenario = hall(tmp_path)
    path = tmp_path / "j.drama"
    first = Terminal(str(scenario), "--journal", str(path), "--seed", "3")
    first.answer("Enter plays it>", "")
    first.expect("Enter plays it>")
    before = path.read_bytes()
    second = play(str(scenario), "--journal", str(path), "--resume", answers="\n\n/undo\n/quit\n")
    assert second.returncode == 1
    assert f"error[E906]: the journal {path} is in use by another session" in second.stderr
    assert f"note: process {first.child.pid} has it" in second.stderr
    assert path.read_bytes() == before                  # nothing accepted, nothing undone
    first.send("/quit")
    first.finish()
    assert not os.path.exists(f"{path}.lock")          # a clean exit removes the lock file
    again = play(str(scenario), "--journal", str(path), "--resume")
    assert again.returncode == 0 and "(resumed: 1 entry)" in again.stdout


def test_a_sigkill_releases_the_lock(tmp_path):
    scenario = hall(tmp_path)
    path = tmp_path / "j.drama"
    first = Terminal(str(scenario), "--journal", str(path), "--seed", "3")
    first.answer("Enter plays it>", "")
    first.expect("Enter plays it>")
    os.kill(first.child.pid, signal.SIGKILL)
    first.child.expect(pexpect.EOF)
    first.child.close()
    assert os.path.exists(f"{path}.lock")              # left behind, but no longer locked
    again = play(str(scenario), "--journal", str(path), "--resume", answers="\n/quit\n")
    assert again.returncode == 0, again.stderr
    assert "(resumed: 1 entry)" in again.stdout and "+ drama \"Hall\"" in again.stdout


# ---------------------------------------------------------------------------- seeds

def seed_of(path) -> int:
    return journals.read(str(path)).seed


def test_each_session_without_seed_gets_a_fresh_one_and_resume_goes_on_with_it(tmp_path):
    scenario = hall(tmp_path, ties="actor")
    answers = "\n" * 7 + "/quit\n"     # scene, drama, initiative, round, an exchange the engine rolls, and a die
    one = play(str(scenario), "--journal", str(tmp_path / "one.drama"), answers=answers)
    two = play(str(scenario), "--journal", str(tmp_path / "two.drama"), answers=answers)
    assert one.returncode == 0 and two.returncode == 0
    seeds = seed_of(tmp_path / "one.drama"), seed_of(tmp_path / "two.drama")
    assert seeds[0] != seeds[1]
    assert f"(a fresh seed: {seeds[0]})" in one.stdout
    # the dice the engine rolled differ (the same script, the same Enter presses)
    assert (tmp_path / "one.drama").read_text().split("seed")[-1] != (tmp_path / "two.drama").read_text().split("seed")[-1]
    # --resume takes the journal's seed: what it rolls next is what the session left to finish rolls
    whole = play(str(scenario), "--journal", str(tmp_path / "whole.drama"), "--seed", str(seeds[0]),
                 answers="\n" * 10 + "/quit\n")
    resumed = play(str(scenario), "--journal", str(tmp_path / "one.drama"), "--resume", answers="\n" * 4 + "/quit\n")
    assert resumed.returncode == 0, resumed.stderr
    body = lambda name: (tmp_path / name).read_text().split("\n", 3)[3]
    assert body("one.drama") == body("whole.drama")
    # a --seed that is not the journal's is a usage error, and changes nothing
    before = (tmp_path / "one.drama").read_bytes()
    wrong = play(str(scenario), "--journal", str(tmp_path / "one.drama"), "--resume", "--seed", str(seeds[0] + 1))
    assert wrong.returncode == 2 and f"was played with seed {seeds[0]}" in wrong.stderr
    assert (tmp_path / "one.drama").read_bytes() == before


# ---------------------------------------------------------------------------- what a terminal can send (issue 30, item 7)

def test_a_typed_byte_that_is_not_utf8_is_refused_and_the_table_goes_on(tmp_path):
    scenario = hall(tmp_path)
    path = tmp_path / "j.drama"
    term = Terminal(str(scenario), "--journal", str(path), "--seed", "1")
    term.expect("Enter plays it>")
    os.write(term.child.child_fd, b"caf\xff\r")
    term.done()
    shown = term.expect("Enter plays it>")
    assert "the line has the byte 0xFF at column 4 that is not UTF-8 text" in shown
    term.send("")
    term.done()
    term.send("/quit")
    out = term.finish()
    assert term.child.exitstatus == 0 and "Traceback" not in out
    assert "(1 entry, all saved)" in out
    path.read_text(encoding="utf-8")
    # through a pipe too
    piped = subprocess.run([sys.executable, "-m", "dsl", "play", str(scenario), "--journal", str(tmp_path / "p.drama"),
                            "--seed", "1"], input=b"caf\xff\n\n/quit\n", capture_output=True, env=env(), timeout=60)
    assert piped.returncode == 0 and b"Traceback" not in piped.stderr
    assert b"the byte 0xFF at column 4" in piped.stdout and b"(1 entry, all saved)" in piped.stdout


def test_a_long_line_typed_without_bracketed_paste_is_refused_as_it_arrives(tmp_path):
    scenario = hall(tmp_path)
    term = Terminal(str(scenario), "--journal", str(tmp_path / "j.drama"), "--seed", "1", timeout=60)
    term.child.delaybeforesend = None
    term.expect("Enter plays it>")
    started = time.monotonic()
    line = "Kara bolt -> Overlord " + "x" * (1 << 20)
    for at in range(0, len(line), 1 << 14):
        term.child.send(line[at:at + (1 << 14)])
        try:                               # keep reading what the table draws, as a terminal does
            term.child.read_nonblocking(1 << 20, timeout=0)
        except pexpect.TIMEOUT:
            pass
    term.child.send("\r")
    term.expect("the line is longer than 4,000 characters (E013); nothing was read")
    took = time.monotonic() - started
    term.expect("Enter plays it>")
    assert took < 30, took                 # it was about 13 minutes for a megabyte
    term.send("")
    term.done()
    term.send("/quit")
    out = term.finish()
    assert "(1 entry, all saved)" in out and "Traceback" not in out


# ---------------------------------------------------------------------------- no dead ends

def test_the_typed_second_check_initiative_re_rolls_and_state_with_counters(tmp_path):
    """R15: a rushed recovery's second check is asked; R12: a typed tie is re-rolled by the tied."""
    scenario = hall(tmp_path)
    path = tmp_path / "j.drama"
    term = Terminal(str(scenario), "--journal", str(path), "--seed", "1")
    term.answer("Enter plays it>", 'drama "Duel" with Kara, Bren, Overlord')
    term.answer("Enter plays it>", "Overlord crush -> Kara with Brutality, rolled 6 6")
    term.answer("(Enter: done)>", "")
    term.answer("Enter for none>", "")
    term.answer("Enter plays it>", "round")
    term.answer("Enter plays it>", "initiative")
    term.answer("initiative results for Kara, Bren, Overlord (Enter: the engine rolls)>", "5 5 2")
    term.answer("Kara and Bren tie at 5: their re-rolls (Kara, Bren; Enter: the engine rolls)>", "4")
    term.answer("Kara and Bren tie at 5: their re-rolls", "4 3")
    shown = term.expect("Enter plays it>")
    assert "+ initiative Kara 5 4, Bren 5 3, Overlord 2" in shown
    term.send("Kara recovers, roll")
    term.done()
    term.answer("Kara recovers: 3 dice of the damage pool; dice (Enter: the engine rolls)>", "6 4")
    assert "Kara rolls 3 dice here, not 2" in term.answer("Kara recovers: 3 dice of the damage pool", "6 4 2")
    term.answer("2 dice come back: the second check's dice; dice (Enter: the engine rolls)>", "5 3")
    shown = term.expect("Enter plays it>")
    assert "+ Kara recovers, rolled 6 4 2, then 5 3" in shown
    term.send("set torches = 3")
    term.done()
    shown = term.expect("Enter plays it>")
    assert "flags: torches 3" in shown
    term.send("/state")
    term.done()
    shown = term.expect("Enter plays it>")
    assert "Kara (Kara the Ember-Witch): 4 available, damage pool 2, maximum 6" in shown
    assert "Overlord (Overlord Bastrastras): 7 available" in shown and "flags: torches 3" in shown
    term.send("/quit")
    term.finish()
    done = subprocess.run([sys.executable, "-m", "dsl", "run", str(path.with_suffix(".yaml"))],
                          capture_output=True, text=True, env=env(), timeout=60)
    assert done.returncode == 0, done.stderr


def test_what_the_rules_refuse_is_told_before_the_dice_and_a_wrong_defence_is_asked_again(tmp_path):
    scenario = hall(tmp_path)
    term = Terminal(str(scenario), "--journal", str(tmp_path / "j.drama"), "--seed", "1")
    term.answer("Enter plays it>", 'drama "Duel" with Kara, Overlord')
    term.answer("Enter plays it>", "Bren recovers, roll")           # Bren is not in the situation
    shown = term.expect("Enter plays it>")
    assert "error[E203]" in shown and "dice" not in shown.split("error[E203]")[0].split("Bren recovers, roll")[-1]
    term.send("Kara bolt -> Overlord with Sorcery, roll")
    term.done()
    term.answer("(Enter: done)>", "Overlord defends with Cunnin, roll")
    shown = term.answer("(Enter: done)>", "Overlord defends with Cunning, roll")
    assert "error[E202]" in shown and "did you mean 'Cunning'?" in shown and "type it again" in shown
    term.answer("(Enter: done)>", "")
    term.answer("Kara may roll up to 3 dice: Sorcery 3; dice (Enter: the engine rolls)>", "2 2 1")
    term.answer("Overlord may roll up to 3 dice: Cunning 3; dice (Enter: the engine rolls)>", "3 2 1")
    shown = term.expect("Enter plays it>")
    assert "+ Overlord defends with Cunning, rolled 3 2 1" in shown
    term.send("Kara bolt -> Overlord with Sorcery, roll")          # Kara acted this round (R9)
    term.done()
    shown = term.expect("Enter plays it>")
    assert "error[E309]" in shown and "a defence" not in shown
    term.send("/quit")
    term.finish()


def test_an_entry_whose_journal_line_would_outgrow_the_readers_limit_is_refused_e013(tmp_path):
    """A narration within the limit as typed, over it with its placeholders filled in: refused at the
    prompt, nothing written, the table goes on, and the journal still reads back (--resume)."""
    from dsl.limits import MAX_LINE
    scenario = hall(tmp_path)
    path = tmp_path / "j.drama"
    long = "> " + "{Kara.name} " * 300
    assert len(long) <= MAX_LINE < len(long.replace("{Kara.name}", "Kara the Ember-Witch"))
    done = play(str(scenario), "--journal", str(path), "--seed", "1", answers=f"\n{long}\n> short\n/quit\n")
    assert done.returncode == 0 and "Traceback" not in done.stderr + done.stdout
    assert "error[E013]: this entry would write a line of more than 4,000 characters" in done.stdout
    assert "(2 entries, all saved)" in done.stdout
    assert "Ember-Witch" not in path.read_text(encoding="utf-8")
    assert all(len(line) <= MAX_LINE for line in path.read_text(encoding="utf-8").splitlines())
    again = play(str(scenario), "--journal", str(path), "--resume")
    assert again.returncode == 0 and "resumed: 2 entries" in again.stdout


# ---------------------------------------------------------------------------- the night of "Done when"

NIGHT_SETTING = """\
name: Long Night
round: 6 seconds
recovery: 1 hour
calm: 10 minutes
full_rest: 1 day
dice: {sides: 6, high: 6}
ties: actor
"""
NIGHT_CAST = """\
parties:
  Kara:
    name: Kara
    quintessence: 50000
    traits: {Sorcery: 3, Agility: 2}
  Overlord:
    name: Overlord
    quintessence: 50000
    traits: {Cunning: 3, Brutality: 2}
"""
NIGHT_SCRIPT = """\
drama "Long" with Kara, Overlord
initiative Kara 9, Overlord 7
repeat 2000 times
round
Kara bolt -> Overlord with Sorcery, roll
Overlord defends with Cunning, roll
Overlord crush -> Kara with Brutality, roll
Kara defends with Agility, roll
end
"""
NIGHT_ENTRIES = 1000
NIGHT_PROMPT = r"Enter plays it>|dice \(Enter: the engine rolls\)>|or Enter for none>"


class Night:
    """A night at a real terminal: every prompt answered, dice typed as rolled at the table."""

    def __init__(self, folder, *args):
        self.folder = folder
        self.term = Terminal("scenario.yaml", "--journal", "night.drama", *args, timeout=60, cwd=str(folder))
        self.term.child.delaybeforesend = None
        self.faces = itertools.cycle("6 4 3 2 1 5 5 2 6 1".split())
        self.term.child.expect(NIGHT_PROMPT)

    def entries(self) -> int:
        return (self.folder / "night.drama").read_text(encoding="utf-8").count("\n# play ")

    def answer(self, line: str) -> str:
        self.term.child.sendline(line)
        self.term.done()
        self.term.child.expect(NIGHT_PROMPT)
        return plain(self.term.child.before)

    def play(self, upto: int) -> None:
        """Answer the prompts until the journal has `upto` entries: each die typed."""
        while self.entries() < upto:
            prompt = plain(self.term.child.before.splitlines()[-1] if self.term.child.before else "")
            count = re.search(r"may roll up to (\d+) di", prompt + self.term.child.after)
            self.answer(" ".join(next(self.faces) for _ in range(int(count.group(1)))) if count else "")

    def kill(self) -> None:
        os.kill(self.term.child.pid, signal.SIGKILL)
        self.term.child.expect(pexpect.EOF)
        self.term.child.close()


@pytest.mark.slow
def test_done_when_a_night_of_1000_entries_with_typed_dice_killed_resumed_ten_undos_and_on(tmp_path):
    """Issue 24's "Done when": 1,000 entries, every die typed, a SIGKILL, --resume, ten /undo, more entries;
    `drama run` of the journal gives the table's events, and no file of the game master's is touched."""
    (tmp_path / "setting.yaml").write_text(NIGHT_SETTING)
    (tmp_path / "cast.yaml").write_text(NIGHT_CAST)
    (tmp_path / "script.drama").write_text(NIGHT_SCRIPT)
    (tmp_path / "scenario.yaml").write_text("title: Long Night\nsetting: setting.yaml\ncast: cast.yaml\n"
                                            "script: script.drama\n")
    mine = {name: (tmp_path / name).read_bytes() for name in ("setting.yaml", "cast.yaml", "script.drama",
                                                                 "scenario.yaml")}
    night = Night(tmp_path, "--seed", "11")
    night.play(NIGHT_ENTRIES)
    assert "rolled 6 4 3" in (tmp_path / "night.drama").read_text(encoding="utf-8")
    night.kill()                                           # a kill -9 at entry 1,000: nothing accepted is lost
    assert night.entries() == NIGHT_ENTRIES
    again = Night(tmp_path, "--resume")
    assert f"(resumed: {NIGHT_ENTRIES} entries)" in plain(again.term.child.before)
    for _ in range(10):
        assert "undone:" in again.answer("/undo")
    assert again.entries() == NIGHT_ENTRIES - 10
    again.play(NIGHT_ENTRIES + 20)
    again.term.child.sendline("/quit")
    assert "all saved" in again.term.finish()
    # the journal replays with `drama run` to the table's events, line numbers included
    table, warning = Table.resume(Program.compile(tmp_path / "scenario.yaml"), str(tmp_path / "night.drama"))
    assert warning is None and len(table.entries) == NIGHT_ENTRIES + 20
    run = subprocess.run([sys.executable, "-m", "dsl", "run", "night.yaml", "--format", "json"], cwd=tmp_path,
                         capture_output=True, text=True, env=env(), timeout=120)
    assert run.returncode == 0, run.stderr
    assert [json.loads(line) for line in run.stdout.splitlines()] == final_events(table)
    # every file of the game master's as it was; the table wrote only its journal, its scenario and history
    assert {name: (tmp_path / name).read_bytes() for name in mine} == mine
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([*mine, "night.drama", "night.yaml", "night.history"])
