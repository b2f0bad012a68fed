"""What the tests of `drama play` share: a small scenario for the table, and a session through a real terminal."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

SETTING = """\
name: The Test Hall
round: 6 seconds
recovery: 1 hour
calm: 10 minutes
full_rest: 1 day
dice: {sides: 6, high: 6}
ties: vote
"""

CAST = """\
parties:
  Kara:
    name: Kara the Ember-Witch
    quintessence: 6
    traits: {Sorcery: 3, Agility: 1}
    treasures: {Ember Staff: 2}
    moves: {fireball: Sorcery + Ember Staff}
  Bren:
    name: Bren Ironhand
    quintessence: 5
    traits: {Strength: 2}
    treasures: {Iron Shield: 2}
  Overlord:
    name: Overlord Bastrastras
    quintessence: 7
    traits: {Cunning: 3, Brutality: 2}
    treasures: {Obsidian Crown: 2}
    hidden: true
"""

# a tie (both roll what the test types), a joint defence that loses (the split),
# then an exchange in a loop, so that the script's position matters
SCRIPT = """\
scene "The Hall"
drama "Hall" with Kara, Bren, Overlord
initiative Kara 9, Bren 5, Overlord 7
round
Kara bolt -> Overlord with Sorcery, roll
Overlord defends with Cunning, roll
Overlord crush -> Kara with Brutality, roll
Kara & Bren defend
  Kara with Agility, roll
  Bren with Strength, roll
repeat until Overlord is defeated or Kara is defeated, at most 3 rounds
round
Bren bash -> Overlord with Strength, roll
Overlord defends with Cunning, roll
end
end drama "The hall falls silent."
"""


def hall(folder: Path, *, ties: str = "vote") -> Path:
    """The test scenario in `folder`; returns its scenario file."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "setting.yaml").write_text(SETTING.replace("ties: vote", f"ties: {ties}"), encoding="utf-8")
    (folder / "cast.yaml").write_text(CAST, encoding="utf-8")
    (folder / "hall.drama").write_text(SCRIPT, encoding="utf-8")
    scenario = folder / "scenario.yaml"
    scenario.write_text("title: The Test Hall\nsetting: setting.yaml\ncast: cast.yaml\nscript: hall.drama\n",
                        encoding="utf-8")
    return scenario


def env() -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
                PROMPT_TOOLKIT_NO_CPR="1", TERM="xterm", NO_COLOR="1", COLUMNS="300", LINES="40")


class Scripted:
    """The table's calls answered in advance, in order, each checked against the kind of ask it answers
    (anything else: None, as `EngineCalls` answers)."""

    def __init__(self, answers=()):
        self.answers = list(answers)
        self.asked: list = []

    def __call__(self, ask):
        self.asked.append(ask)
        if self.answers and isinstance(ask, self.answers[0][0]):
            return self.answers.pop(0)[1]
        return None


def final_events(table) -> list[dict]:
    """A table's events so far, closed with the `final` event: what `drama run` of its journal gives."""
    trial = table.session.fork()
    trial.finish()
    return trial.events


ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[()][A-Z0-9]|\r")


def plain(text: str) -> str:
    """Terminal output without its escape sequences."""
    return ANSI.sub("", text)


class Terminal:
    """`drama play` in a pseudo-terminal (pexpect): the prompts, completion and keys of a real one."""

    def __init__(self, *args: str, timeout: float = 20, cwd: str | None = None):
        import pexpect
        self.pexpect = pexpect
        self.child = pexpect.spawn(sys.executable, ["-m", "dsl", "play", *args], env=env(), encoding="utf-8",
                                   timeout=timeout, dimensions=(50, 300), cwd=cwd)
        self.seen = ""

    def expect(self, text: str) -> str:
        """Wait for `text` (a plain string) on the screen; return what came before it."""
        self.child.expect_exact(text)
        before = self.child.before + self.child.after
        self.seen += before
        return plain(before)

    def answer(self, prompt: str, line: str) -> str:
        """Wait for a prompt, answer it, and wait for prompt_toolkit to draw the accepted line again.
        Returns what came out before the prompt (the answer to the line before)."""
        before = self.expect(prompt)
        self.child.sendline(line)
        self.done()
        return before

    def done(self) -> None:
        """Wait until prompt_toolkit has accepted the line (it turns bracketed paste off then):
        what comes after is the table's answer to it."""
        self.child.expect_exact("\x1b[?2004l")
        self.seen += self.child.before + self.child.after

    def send(self, line: str) -> None:
        self.child.sendline(line)

    def control(self, key: str) -> None:
        self.child.sendcontrol(key)

    def finish(self) -> str:
        self.child.expect(self.pexpect.EOF)
        self.seen += self.child.before
        self.child.close()
        return plain(self.seen)


class Screen:
    """`drama play` in full screen in a pseudo-terminal (pexpect), the screen as a terminal shows it (pyte):
    what is redrawn in place is read as the game master sees it, not as the bytes that drew it."""

    def __init__(self, *args: str, rows: int = 30, columns: int = 100, timeout: float = 20, cwd: str | None = None,
                 colour: bool = True, path: str | None = None):
        import pexpect
        import pyte
        self.pexpect = pexpect
        environment = env()
        if colour:
            environment.pop("NO_COLOR", None)
        environment.update(COLUMNS=str(columns), LINES=str(rows))
        if path is not None:                  # the code played (a benchmark's checkout from before a change)
            environment["PYTHONPATH"] = path
        self.child = pexpect.spawn(sys.executable, ["-m", "dsl", "play", *args], env=environment, encoding="utf-8",
                                   timeout=timeout, dimensions=(rows, columns), cwd=cwd)
        self.screen = pyte.Screen(columns, rows)
        self.stream = pyte.Stream(self.screen)
        self.raw = ""
        self.timeout = timeout

    def lines(self) -> list[str]:
        return [line.rstrip() for line in self.screen.display]

    def text(self) -> str:
        return "\n".join(self.lines())

    def pump(self, seconds: float = 0.05) -> bool:
        """Read what the program wrote for up to `seconds`; False once it has ended."""
        try:
            data = self.child.read_nonblocking(1 << 16, timeout=seconds)
        except self.pexpect.TIMEOUT:
            return True
        except self.pexpect.EOF:
            return False
        self.raw += data
        self.stream.feed(data)
        return True

    def wait(self, check, what: str = "") -> None:
        """Until `check(lines)` holds for the screen (AssertionError with the screen after the timeout)."""
        import time
        end = time.monotonic() + self.timeout
        while True:
            alive = self.pump()
            lines = self.lines()
            if check(lines):
                return
            if not alive or time.monotonic() > end:
                raise AssertionError(f"never on the screen: {what}\n" + "\n".join(lines))

    def prompt(self) -> str:
        """The bottom line: the prompt, and what is typed after it (blank while the table works)."""
        return self.lines()[-1]

    def answer(self, prompt: str, line: str) -> None:
        """Wait for `prompt` at the bottom, a new one (the screen changed since the last answer), and answer it."""
        before = getattr(self, "_sent", None)
        self.wait(lambda lines: prompt in lines[-1] and lines[-1].rstrip().endswith(">")
                  and self.text() != before, f"the prompt {prompt!r}")
        self._sent = self.text()
        self.child.sendline(line)

    def send(self, line: str) -> None:
        self._sent = self.text()
        self.child.sendline(line)

    def finish(self) -> str:
        while self.pump(0.2):
            pass
        self.child.close()
        return plain(self.raw)
