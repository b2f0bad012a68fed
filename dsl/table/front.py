"""The game master's prompt with more than one front end: the terminal, the GM's page and the seats answer the same prompt.

    front = Front(hub, reader)           # reader: the terminal's (prompt_toolkit's, or lines from a pipe)
    line = front("Kara may roll up to 3 dice ...> ")    # what `TableLoop` calls to read a line
    front.put(seq, "6 4 1", who="Kara")   # from the server's thread: an answer from a page

Every prompt gets a number (`seq`) and is published (`Hub.asking`) with what
it asks and of whom, so that a seat sees "roll for Kara" exactly when the
table asks for Kara's dice. A page's answer names the prompt it answers: one
for a prompt that has passed is dropped, never taken for the next. A line
from a page is then exactly a line typed at the terminal: it goes through the
same checks, the same entry, the same journal. The terminal's prompt is
interrupted when a page answers (prompt_toolkit's `Application.exit`, from its
own loop); what the game master had half typed is put back. In full screen
(`dsl/table/screen.py`, whose application runs all night) the screen's `wake`
ends the wait for the line instead, and what was typed stays in the prompt line.

When the prompt is *idle* (the script's next statement waits for Enter, or the
script has ended) and a seat's proposal arrives, the prompt returns
`/proposals`, and the table asks the game master about it at once.
"""

from __future__ import annotations

import asyncio
import queue
import sys
import threading
from dataclasses import dataclass

from ..terminal import printable
from .asks import ChoiceAsk, DiceAsk, InitiativeAsk, OptionAsk, SplitAsk, TieAsk
from .readers import WAKE as _WAKE


@dataclass(frozen=True)
class ProposalAsk:
    """The game master is asked about a seat's proposal."""

    id: int
    party: str


@dataclass(frozen=True)
class DefenceAsk:
    """A defence of a proposed action is asked for: its seats may send theirs."""

    parties: tuple[str, ...]


def describe(ask, idle: bool) -> dict:
    """What a prompt asks, for the pages: its kind, and which seats may answer it."""
    if isinstance(ask, DiceAsk):
        return {"kind": "dice", "parties": [ask.party], "party": ask.party, "why": ask.why, "most": ask.most,
                "sides": ask.sides, "recovery": ask.recovery}
    if isinstance(ask, OptionAsk):
        return {"kind": "option", "parties": list(ask.parties[:1]), "party": ask.parties[0]}
    if isinstance(ask, DefenceAsk):
        return {"kind": "defence", "parties": list(ask.parties)}
    if isinstance(ask, ProposalAsk):
        return {"kind": "proposal", "parties": [], "proposal": ask.id, "party": ask.party}
    if isinstance(ask, (TieAsk, SplitAsk, InitiativeAsk, ChoiceAsk)):
        return {"kind": type(ask).__name__.removesuffix("Ask").lower(), "parties": []}
    return {"kind": "idle" if idle else "line", "parties": []}


class Front:
    """The `read` of the table loop, fed by the terminal and by the pages."""

    def __init__(self, hub, reader, out=None):
        self.hub = hub
        self.reader = reader
        self.out = out or getattr(reader, "out", None) or sys.stdout
        self.inbox: queue.Queue = queue.Queue()
        self.seq = 0
        self.ask = None                 # the table's call being asked (set by the loop)
        self.idle = False               # the prompt waits for Enter or a statement: nothing is half done
        self._app = None                # prompt_toolkit's application while a prompt runs
        self._kept = ""
        self._plain = getattr(reader, "app", None) is None
        # a full screen's reader: its application runs all night, and `wake` ends the line it waits for
        self._woken = getattr(reader, "wake", None)
        self._say = getattr(reader, "say", None)
        self._pending = False           # a pipe's reader is waiting for a line (in its thread)
        hub.front = self

    # ------------------------------------------------------------ from the pages (any thread)

    def put(self, seq: int, line: str, who: str) -> bool:
        """A page's answer to prompt `seq` (False when that prompt has passed)."""
        if seq != self.seq:
            return False
        self.inbox.put(("web", seq, line, who))
        self._interrupt()
        return True

    def wake_for_proposals(self) -> None:
        if self.idle:
            self.inbox.put(("wake",))
            self._interrupt()

    def _interrupt(self) -> None:
        if self._woken is not None:
            self._woken()
            return
        app = self._app
        if app is None or self._plain:
            return
        loop = getattr(self.reader, "loop", None)
        if loop is not None:
            try:
                loop.call_soon_threadsafe(self._stop, app)
            except RuntimeError:
                pass

    def _stop(self, app) -> None:
        """End the terminal's prompt (in its own loop), keeping what was typed."""
        future = getattr(app, "future", None)
        if future is not None and not future.done():
            self._kept = app.current_buffer.text
            app.exit(result=_WAKE)

    # ------------------------------------------------------------ to the loop (the main thread)

    def __call__(self, prompt: str) -> str:
        self.seq += 1
        seq = self.seq
        asking = describe(self.ask, self.idle)
        asking.update(seq=seq, prompt=prompt.strip())
        with self.hub.lock:
            self.hub.asking = asking
        self.hub.changed()
        try:
            while True:
                try:
                    item = self.inbox.get_nowait()
                except queue.Empty:
                    item = None
                if item is None:
                    if self.idle and self.hub.waiting():
                        return "/proposals"
                    item = self._plain_line(prompt) if self._plain else \
                        self._screen_line(prompt) if self._woken is not None else self._prompt(prompt)
                kind = item[0]
                if kind == "terminal":
                    return item[1]
                if kind == "eof":
                    self.inbox.put(item)          # every later prompt ends too
                    raise EOFError
                if kind == "web":
                    _, at, line, who = item
                    if at != seq:
                        continue
                    said = printable(f"  <- {who}'s page: {line or '(Enter)'}")
                    if self._say is not None:
                        self._say(said)
                    else:
                        self.out.write(f"\n{said}\n" if self._pending else f"{said}\n")
                        self.out.flush()
                    self._kept = ""
                    return line
                # a wake: look at the inbox again
        finally:
            with self.hub.lock:
                if self.hub.asking is not None and self.hub.asking.get("seq") == seq:
                    self.hub.asking = None

    def _prompt(self, prompt: str):
        """The terminal's prompt (the reader's own, with its checks), ended early when a page answers."""
        app = self.reader.app
        kept, self._kept = self._kept, ""

        def started():
            if not self.inbox.empty():             # a page answered before the prompt was up
                asyncio.get_running_loop().call_soon(self._stop, app)
        app.pre_run_callables.append(started)
        self._app = app
        try:
            line = self.reader(prompt, kept)       # what the game master had typed before a page answered
        except EOFError:
            return ("eof",)
        finally:
            self._app = None
        if line == _WAKE:
            return ("wake",)
        return ("terminal", line)

    def _screen_line(self, prompt: str):
        """The full screen's prompt (its line, with the screen's checks), ended early by `wake` when a page
        answers; what the game master had typed stays in the prompt line."""
        try:
            line = self.reader(prompt)
        except EOFError:
            return ("eof",)
        return ("wake",) if line == _WAKE else ("terminal", line)

    def _plain_line(self, prompt: str):
        """A line from a pipe: the reader reads it in a thread, so that a page may answer meanwhile."""
        if not self._pending:
            self._pending = True
            threading.Thread(target=self._read_plain, args=(prompt,), name="table-stdin", daemon=True).start()
        else:
            self.out.write(prompt)                 # the reader still waits for the line of an earlier prompt
            self.out.flush()
        return self.inbox.get()

    def _read_plain(self, prompt: str) -> None:
        try:
            line = self.reader(prompt)
        except EOFError:
            self._pending = False
            self.inbox.put(("eof",))
            return
        self._pending = False
        self.inbox.put(("terminal", line))
