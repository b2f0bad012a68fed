"""Crash safety of `drama play`: SIGKILL at random points of a scripted session, then --resume.

The journal holds every entry the table showed as accepted before the kill, it
is exactly the beginning of the journal of the same session left to finish, it
replays without error, and the resumed board is the board shown before the kill.
"""

from __future__ import annotations

import os
import random
import re
import signal
import subprocess
import sys
import time

import pytest

from dsl.pipeline import Program
from dsl.table import board as boards
from dsl.table.core import Table
from dsl.table import journal as journals

from play_helpers import env, hall

ANSWERS = ["", "", "", "",                       # scene, drama, initiative, round
           "4", "4", "Kara",                     # a tie, won by the vote
           "6 6", "2", "2 2", "Kara 1, Bren 2",  # a joint defence and its split
           "dictate the pillars fall",           # the double win's option
           *[""] * 30, "/quit"]
BOARD_HEAD = "party     avail  pool  max"


def play(scenario, journal, stdout, *extra):
    return subprocess.Popen([sys.executable, "-m", "dsl", "play", str(scenario), "--journal", str(journal),
                             "--seed", "5", "--no-color", *extra],
                            stdin=subprocess.PIPE, stdout=stdout, stderr=subprocess.DEVNULL, env=env(), text=True)


def boards_shown(text: str) -> list[str]:
    """Each board printed, as text (its lines, trailing spaces left out)."""
    row = re.compile(r"^(order:|last:|an action waits|party +avail|\w+ +\d+ +\d+ +\d+)")
    out = []
    for chunk in text.split("The Test Hall  ")[1:]:
        lines = chunk.splitlines()
        board = ["The Test Hall  " + lines[0]]
        folded = False                      # the last exchange's line may fold onto the next
        for line in lines[1:]:
            if not (row.match(line) or folded and not line.startswith(" ") and ">" not in line):
                break
            folded = folded or line.startswith("last:")
            board.append(line.rstrip())
        out.append("\n".join(board))
    return out


@pytest.mark.slow
def test_a_sigkill_at_any_point_loses_no_accepted_entry(tmp_path):
    scenario = hall(tmp_path)
    program = Program.compile(scenario)
    # the same session, left to finish
    whole = tmp_path / "whole.drama"
    with open(tmp_path / "whole.out", "w") as out:
        started = time.monotonic()
        process = play(scenario, whole, out)
        process.communicate("\n".join(ANSWERS) + "\n", timeout=120)
        took = time.monotonic() - started
    reference = whole.read_text(encoding="utf-8")
    complete = journals.read(str(whole))
    assert len(complete.entries) > 10
    chances = random.Random(13)
    for trial in range(6):
        path = tmp_path / f"killed-{trial}.drama"
        output = tmp_path / f"killed-{trial}.out"
        with open(output, "w") as out:
            process = play(scenario, path, out)
            process.stdin.write("\n".join(ANSWERS) + "\n")
            process.stdin.flush()
            time.sleep(chances.uniform(took * 0.3, took * 0.95))
            os.kill(process.pid, signal.SIGKILL)
            process.wait(timeout=30)
        shown = boards_shown(output.read_text(encoding="utf-8"))
        accepted = max(0, len(shown) - 1)             # the first board is the one before any entry
        if not path.exists():
            assert accepted == 0
            continue
        table, warning = Table.resume(program, str(path), seed=5)        # replays without error
        kept = len(table.entries)
        assert kept >= accepted, (trial, kept, accepted)
        # exactly the beginning of the uninterrupted journal (a torn tail would have been dropped)
        prefix = complete.header + "".join(e.text + e.marker.text(i + 1) + "\n"
                                           for i, e in enumerate(complete.entries[:kept]))
        assert path.read_text(encoding="utf-8") == prefix
        assert reference.startswith(prefix)
        if kept == accepted and shown:
            drawn = boards.render(table.board(), title="The Test Hall")
            assert "\n".join(line.rstrip() for line in drawn.splitlines()) == shown[-1]
