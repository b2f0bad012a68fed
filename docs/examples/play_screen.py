"""The full screen of `drama play` in docs/play.md, "Full screen, or line after line": a session of
at-the-table.yaml played through a pseudo-terminal of 100 columns and 22 rows (pexpect), up to the Goblins'
dice of round 1, and the screen as the terminal shows it (pyte).

    python docs/examples/play_screen.py
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from play_helpers import Screen  # noqa: E402


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        shutil.copytree(ROOT / "scenarios" / "emberfall", out / "scenarios" / "emberfall")
        folder = out / "docs" / "examples"
        folder.mkdir(parents=True)
        for name in ("at-the-table.yaml", "at-the-table.drama"):
            shutil.copy(ROOT / "docs" / "examples" / name, folder / name)
        rolls = "(Enter: the engine rolls)>"
        screen = Screen("at-the-table.yaml", "--journal", "tonight.drama", "--seed", "7", rows=22, columns=100,
                        cwd=str(folder))
        for prompt, line in [("Enter plays it>", ""), ("Enter plays it>", ""), ("Enter plays it>", ""),
                             (rolls, "6 3 5 2"), ("Enter plays it>", ""), (rolls, "3 1 1"), (rolls, "4 2 1"),
                             ("who won the vote?", "Kara")]:
            screen.answer(prompt, line)
        screen.wait(lambda lines: "Goblins may roll" in "\n".join(lines[-2:]), "the Goblins' dice")
        print("\n".join(screen.lines()).rstrip("\n"))
        screen.send("/quit")
        screen.finish()


if __name__ == "__main__":
    main()
