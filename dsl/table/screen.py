"""How the table is shown: line after line (plain, for screen readers and pipes), or in full screen with the board pinned, the story scrolling under it and the prompt at the bottom.

The loop of `drama play` (`dsl/table/table.py`) says three things to its
screen: a line of the story (`say`), the board now (`board`), and a prompt,
whose answer it waits for (`read`). `Lines` writes each of them after the
other, as a terminal, a pipe or a screen reader takes them: the board is
printed again under each entry. `FullScreen` is a prompt_toolkit full-screen
application (in the terminal's alternate screen): the board is redrawn in
place at the top, the story scrolls in the middle (PageUp and PageDown scroll
it back), the prompt is the last line, with completion and the history kept
next to the journal. Its loop runs in the main thread (keys, resizing);
the table's loop runs in a thread of its own and posts what it says to the
application's loop, so that nothing is drawn from two threads.

The journal does not depend on the screen: an entry is written and fsynced
before `board` is called, in either mode.
"""

from __future__ import annotations

import queue
import sys
import threading
from typing import Callable

from ..terminal import printable
from .readers import WAKE, entry_buffer, guarded_input, refusal, too_long

# lines of the story kept for scrolling back (older ones are dropped: the journal has them all)
STORY = 2_000


class Lines:
    """The plain screen: everything written in order, the board again under each entry."""

    def __init__(self, read: Callable[[str], str] | None, out=None, *, color: bool | None = None):
        self._read = read
        self.out = out or sys.stdout
        self.color = color

    def read(self, prompt: str) -> str:
        """The answer to `prompt`, from the reader (the terminal's prompt_toolkit prompt, or a pipe)."""
        if self._read is None:
            raise EOFError
        return self._read(printable(prompt))

    def say(self, text: str = "", dim: bool = False) -> None:
        text = printable(text)
        self.out.write((f"\x1b[2m{text}\x1b[0m" if dim and self.color else text) + "\n")
        self.out.flush()

    def board(self, text: str) -> None:
        self.out.write(text)
        self.out.flush()


class FullScreen:
    """The full-screen table (prompt_toolkit's `Application`, `full_screen=True`)."""

    def __init__(self, words: Callable[[str], list[str]], history: str, *, color: bool | None = None):
        from prompt_toolkit.application import Application
        from prompt_toolkit.filters import Condition
        from prompt_toolkit.formatted_text import ANSI
        from prompt_toolkit.key_binding import KeyBindings
        from prompt_toolkit.layout import (ConditionalContainer, Float, FloatContainer, HSplit, Layout, Window)
        from prompt_toolkit.layout.controls import BufferControl, FormattedTextControl
        from prompt_toolkit.layout.menus import CompletionsMenu
        from prompt_toolkit.layout.processors import BeforeInput
        from prompt_toolkit.output import ColorDepth
        from prompt_toolkit.styles import Style

        self.color = color
        self._ansi = ANSI
        self._board = ANSI("")
        self._prompt = ""
        self._answers: queue.Queue = queue.Queue()
        self._lock = threading.Lock()
        self._changes: list[Callable[[], None]] = []     # posted by the table's loop, not done yet
        self._scheduled = False
        self.story = Story()
        self.input = guarded_input(sys.stdin)
        self.buffer = entry_buffer(history, words, self._accept, self._changed)

        keys = KeyBindings()

        @keys.add("c-c")
        def _interrupt(event) -> None:
            self.buffer.reset()
            self._answers.put(("interrupt",))

        @keys.add("c-d", filter=Condition(lambda: not self.buffer.text))
        def _end(event) -> None:
            self._answers.put(("eof",))

        @keys.add("pageup")
        def _back(event) -> None:
            self.story.scroll(+self._page(), self._page())

        @keys.add("pagedown")
        def _forward(event) -> None:
            self.story.scroll(-self._page(), self._page())

        prompt_line = Window(BufferControl(self.buffer, input_processors=[BeforeInput(lambda: self._prompt,
                                                                                       style="class:prompt")]),
                             wrap_lines=True, dont_extend_height=True)
        self._story_window = Window(self.story, wrap_lines=True, always_hide_cursor=True)
        body = HSplit([
            Window(FormattedTextControl(lambda: self._board), dont_extend_height=True, wrap_lines=False),
            Window(height=1, char="\u2500", style="class:rule"),
            self._story_window,
            ConditionalContainer(Window(FormattedTextControl(lambda: "  (scrolled back: PageDown)"), height=1,
                                        style="class:rule"), filter=Condition(lambda: self.story.back > 0)),
            prompt_line,
        ])
        layout = Layout(FloatContainer(body, floats=[Float(xcursor=True, ycursor=True,
                                                           content=CompletionsMenu(max_height=8, scroll_offset=1))]),
                        focused_element=prompt_line)
        style = Style.from_dict({"rule": "#888888", "prompt": "bold", "dim": "#888888"} if color else {})
        self.app = _held(Application)(layout=layout, key_bindings=keys, full_screen=True, input=self.input,
                                      style=style, mouse_support=False,
                                      color_depth=None if color else ColorDepth.DEPTH_1_BIT)

    # ------------------------------------------------------------ what the table's loop calls (its own thread)

    def say(self, text: str = "", dim: bool = False) -> None:
        text = printable(text)
        self._post(lambda: self.story.add(text, "class:dim" if dim else ""), draw=False)

    def board(self, text: str) -> None:
        board = self._ansi(text.rstrip("\n"))

        def show() -> None:
            self._board = board
        self._post(show, draw=False)

    def read(self, prompt: str) -> str:
        """The answer to `prompt`, typed at the bottom line (EOFError on Ctrl-D, KeyboardInterrupt on Ctrl-C)."""
        prompt = printable(prompt)

        def ask() -> None:
            self._prompt = prompt
        self._post(ask)
        item = self._answers.get()
        if item[0] == "wake":
            return WAKE
        if item[0] == "eof":
            raise EOFError
        if item[0] == "interrupt":
            raise KeyboardInterrupt
        return item[1]

    __call__ = read

    def wake(self) -> None:
        """End the wait of `read` (from any thread): it returns `WAKE`, or the next one does. What is
        typed in the prompt line stays there (`Front`: a page answered the prompt)."""
        self._answers.put(("wake",))

    # ------------------------------------------------------------ the application's loop (the main thread)

    def run(self, play: Callable[[], None]) -> None:
        """Show the screen and run `play` (the table's loop) in a thread of its own, until it returns;
        what it raised is raised here, once the terminal is back to its normal screen."""
        failed: list[BaseException] = []

        def work() -> None:
            try:
                play()
            except BaseException as error:          # re-raised in the main thread, after the screen is gone
                failed.append(error)
            finally:
                self._post(self.app.exit)

        def start() -> None:
            threading.Thread(target=work, name="table-loop", daemon=True).start()
        self.app.pre_run_callables.append(start)
        self.app.run(handle_sigint=False)
        if failed:
            raise failed[0]

    def _post(self, change: Callable[[], None], draw: bool = True) -> None:
        """Do `change` in the application's loop (thread-safe). What the table says and the board are kept
        (`draw=False`) until it asks something or ends: then every change kept is done, and the screen
        drawn once for them all (a full screen costs a redraw of the story each time it scrolls)."""
        loop = self.app.loop
        if loop is None or loop.is_closed():
            change()
            return
        with self._lock:
            self._changes.append(change)
            if self._scheduled or not draw:
                return
            self._scheduled = True
        try:
            loop.call_soon_threadsafe(self._apply)
        except RuntimeError:                # the loop has just closed: nothing is drawn any more
            self._apply()

    def _apply(self) -> None:
        with self._lock:
            changes, self._changes, self._scheduled = self._changes, [], False
        for change in changes:
            change()
        self.app.hold(False)
        self.app.invalidate()

    def _accept(self, buffer) -> bool:
        """Enter: the line goes to the table's loop, echoed in the story after its prompt."""
        line = buffer.text
        reason = too_long() if self.input.overflowed else refusal(line)
        self.input.overflowed = False
        if reason is not None:
            self.story.add(printable(f"  {reason}"), "")
            return False
        self.story.add(printable(self._prompt + line), "class:prompt")
        self.story.back = 0
        self._prompt = ""                # drawn with the echo: the next prompt is the table's answer
        self.app.hold(True)              # drawn with the table's answer, one redraw for both
        self._answers.put(("line", line))
        return False

    def _changed(self, buffer) -> None:
        if self.input.overflowed and buffer.text:
            buffer.reset()               # what was typed of the line is dropped with the rest of it

    def _page(self) -> int:
        info = self._story_window.render_info
        return max(1, (info.window_height if info is not None else 10) - 1)


# how long a line just typed may wait to be drawn with the table's answer to it
HOLD = 0.2


def _held(application):
    """prompt_toolkit's `Application`, whose redraws can be held: from the Enter of a line until the
    table answers it (its next prompt), or `HOLD` seconds at most. A full-screen redraw costs what the
    screen's size costs (every line is laid out again, every scrolled line written again), so the echo
    of the line and the table's answer are drawn once, together."""

    class Held(application):
        _held = 0                   # 0: not held; else the number of the hold, so that a late timer ends only its own
        _holds = 0
        _missed = False

        def hold(self, on: bool) -> None:
            if not on:
                self._held = 0
                return
            self._holds += 1
            self._held = number = self._holds
            self._missed = False
            if self.loop is not None:
                self.loop.call_later(HOLD, self._release, number)

        def _release(self, number: int) -> None:
            if self._held == number:
                self._held = 0
                if self._missed:
                    self.invalidate()

        def _redraw(self, render_as_done: bool = False) -> None:     # every redraw comes here, however asked for
            if self._held and not render_as_done:
                self._missed = True
                return
            super()._redraw(render_as_done)

    return Held


class Story:
    """The story's lines (prompt_toolkit's `UIControl`): the last ones shown, scrolled back by `back` lines.
    Only what fits the window is drawn, however long the night."""

    def __init__(self):
        self.lines: list[list[tuple[str, str]]] = []
        self.back = 0

    def add(self, text: str, style: str) -> None:
        self.lines.extend([(style, line)] for line in text.split("\n"))
        if len(self.lines) > 2 * STORY:
            del self.lines[:-STORY]

    def scroll(self, by: int, page: int) -> None:
        """Back (by > 0) or forward, never past the first page of the story nor past its end."""
        self.back = max(0, min(len(self.lines) - page, self.back + by))

    # the UIControl protocol (duck-typed by prompt_toolkit's Window)

    def create_content(self, width: int, height: int | None):
        from prompt_toolkit.data_structures import Point
        from prompt_toolkit.layout.controls import UIContent
        lines = self.lines
        count = max(1, len(lines) - self.back)            # the lines up to where the story is scrolled back to
        return UIContent(get_line=lambda index: lines[index] if index < len(lines) else [], line_count=count,
                         cursor_position=Point(0, count - 1), show_cursor=False)

    def reset(self) -> None:
        pass

    def preferred_width(self, max_available_width: int) -> int | None:
        return None

    def preferred_height(self, width, max_available_height, wrap_lines, get_line_prefix) -> int | None:
        return None

    def is_focusable(self) -> bool:
        return False

    def mouse_handler(self, mouse_event):
        return NotImplemented

    def move_cursor_down(self) -> None:
        pass

    def move_cursor_up(self) -> None:
        pass

    def get_key_bindings(self):
        return None

    def get_invalidate_events(self):
        return []
