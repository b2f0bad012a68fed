"""The scripted session behind docs/play.md: `drama play` in a pseudo-terminal, a SIGKILL and
`--resume`, the player board in headless Chromium (docs/play-board.png), and the transcript.

    python docs/examples/play_walkthrough.py OUT-FOLDER

It copies scenarios/emberfall and docs/examples/at-the-table.* into OUT-FOLDER, plays there, and writes the screen
before the kill and after the resume (escape codes removed), the journal, the transcript and
the log to OUT-FOLDER/steps/NN-NAME.txt, and the screenshot to OUT-FOLDER/play-board.png. Needs pexpect, and Chromium for the screenshot.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))

from play_browser import CHROMIUM, Browser          # noqa: E402
from play_helpers import Terminal, plain             # noqa: E402


def main(out: Path) -> None:
    shutil.rmtree(out, ignore_errors=True)
    (out / "steps").mkdir(parents=True)
    shutil.copytree(ROOT / "scenarios" / "emberfall", out / "scenarios" / "emberfall")
    folder = out / "docs" / "examples"
    folder.mkdir(parents=True)
    for name in ("at-the-table.yaml", "at-the-table.drama"):
        shutil.copy(ROOT / "docs" / "examples" / name, folder / name)
    os.chdir(folder)
    step = [0]

    def save(name: str, text: str) -> None:
        # a prompt is drawn, then drawn again with the answer when Enter is pressed: keep the second
        text = re.sub(r"^(.+?>)\1", r"\1", text, flags=re.M)
        step[0] += 1
        (out / "steps" / f"{step[0]:02d}-{name}.txt").write_text(text, encoding="utf-8")

    ROLLS = "(Enter: the engine rolls)>"
    t = Terminal("at-the-table.yaml", "--journal", "tonight.drama", "--seed", "7", "--board-port", "8765",
                 cwd=str(folder))
    t.answer("Enter plays it>", "")                 # scene
    t.answer("Enter plays it>", "")                 # narration
    t.answer("Enter plays it>", "")                 # drama
    t.answer("(Enter: the engine rolls)>", "6 3 5 2")      # initiative
    t.answer("Enter plays it>", "")                 # round
    t.answer(ROLLS, "3 1 1")    # Kara's dice, typed
    t.answer(ROLLS, "4 2 1")     # Overlord's
    t.answer("who won the vote?", "Kara")
    t.answer(ROLLS, "")                             # Goblins: the engine rolls
    t.answer(ROLLS, "")             # Bren: the engine rolls
    t.answer(ROLLS, "6 6")                          # Overlord's crush
    t.answer(ROLLS, "2")                            # Kara, in the joint defence
    t.answer(ROLLS, "1 3")           # Bren
    t.answer("(Enter: the lead first)>", "Kara 1, Bren 2")
    t.answer("or Enter for none>", "dictate Bren's shield splits in two")
    t.answer("Enter plays it>", "/undo")
    t.answer("or Enter for none>", "dictate the Overlord laughs, and the hall shakes")
    t.answer("Enter plays it>", "")                 # round 2
    t.answer(ROLLS, "")
    t.answer(ROLLS, "")
    t.expect(ROLLS)                                 # the Goblins' dice: the terminal is closed hard
    save("session-before-the-kill", plain(t.seen))
    os.kill(t.child.pid, signal.SIGKILL)
    t.child.expect(t.pexpect.EOF)
    t.child.close()
    # the journal as it was left
    save("journal-after-kill", Path("tonight.drama").read_text(encoding="utf-8"))

    t = Terminal("at-the-table.yaml", "--journal", "tonight.drama", "--resume", "--seed", "7",
                 "--board-port", "8765", cwd=str(folder))
    t.expect(ROLLS)
    if CHROMIUM is not None:
        browser = Browser(out / "profile", width=760, height=520)
        try:
            browser.go("http://127.0.0.1:8765/")
            browser.wait("document.querySelector('#story p.new') !== null")    # the board, then the story
            time.sleep(0.3)
            browser.screenshot(out / "play-board.png")
        finally:
            browser.close()
    t.child.sendline("")
    t.child.expect_exact("\x1b[?2004l")
    t.answer(ROLLS, "")
    t.answer(ROLLS, "")
    t.answer(ROLLS, "")
    t.answer(ROLLS, "/state Overlord")
    t.answer(ROLLS, "/odds Overlord crush -> Kara with Brutality + Obsidian Crown, roll | Kara defends with Agility + Lucky Coin, roll")
    t.answer(ROLLS, "/quit")
    save("session-after-resume", t.finish())
    save("journal", Path("tonight.drama").read_text(encoding="utf-8"))
    save("journal-scenario", Path("tonight.yaml").read_text(encoding="utf-8"))
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-m", "dsl", "run", "tonight.yaml", "--as", "transcript"],
                          capture_output=True, text=True, env=env, check=True)
    save("transcript", done.stdout)
    done = subprocess.run([sys.executable, "-m", "dsl", "run", "tonight.yaml"],
                          capture_output=True, text=True, env=env, check=True)
    save("log", done.stdout)


if __name__ == "__main__":
    main(Path(sys.argv[1]).resolve())
