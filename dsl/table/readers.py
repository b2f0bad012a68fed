"""Lines typed at the table: from a terminal (prompt_toolkit, with completion and history) or from a pipe; a line that cannot be a statement's text is refused as it comes, and the prompt asked again.

Two kinds of line are refused before anything reads them, with a message and
the same prompt again (the table goes on):

- a line with a byte that is not UTF-8 text (a terminal set to Latin-1, a
  stray 0xFF): nothing could journal it;
- a line longer than a script's line may be (`limits.MAX_LINE`, E013): at the
  terminal it is refused as it is typed, the moment it passes the limit (the
  rest of it, up to Enter, is dropped as it arrives), so a megabyte pasted
  without bracketed paste costs what reading it costs, not minutes.
"""

from __future__ import annotations

import itertools
import re
import sys
from typing import Callable

from ..limits import MAX_LINE
from ..terminal import printable


# what a reader returns when another thread ends its prompt early (`Front`: a page answered)
WAKE = "\x00wake"


def refusal(line: str) -> str | None:
    """Why a typed line is refused before it is read as anything (None: it is not)."""
    bad = next((index for index, char in enumerate(line) if "\ud800" <= char <= "\udfff"), None)
    if bad is not None:
        byte = ord(line[bad]) - 0xDC00 if ord(line[bad]) >= 0xDC80 else None
        what = f"the byte 0x{byte:02X}" if byte is not None else "a character"
        return (f"the line has {what} at column {bad + 1} that is not UTF-8 text; "
                f"nothing was read: type it again")
    if len(line) > MAX_LINE:
        return too_long()
    return None


def too_long() -> str:
    return f"the line is longer than {MAX_LINE:,} characters (E013); nothing was read: type it again"


def shown(line: str) -> str:
    """A line as it may be echoed: bytes that are not UTF-8 written as `\\xFF`, control characters as
    symbols (`dsl.terminal.printable`)."""
    return printable(line.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace"))


class PlainReader:
    """Lines from a stream that is not a terminal (a pipe, a file of answers): the prompt is echoed,
    with the line read."""

    def __init__(self, stream=None, out=None):
        self.stream = stream if stream is not None else sys.stdin.buffer
        self.out = out or sys.stdout

    def __call__(self, prompt: str) -> str:
        while True:
            self.out.write(prompt)
            self.out.flush()
            raw = _bytes(self.stream.readline(MAX_LINE * 4 + 2))     # a character is at most 4 bytes of UTF-8
            if not raw:
                raise EOFError
            if not raw.endswith(b"\n") and len(raw) > MAX_LINE * 4:
                while raw and not raw.endswith(b"\n"):        # the rest of the line, dropped as it comes
                    raw = _bytes(self.stream.readline(1 << 16))
                self.out.write("\n  " + too_long() + "\n")
                continue
            line = raw.decode("utf-8", "surrogateescape").rstrip("\r\n")
            self.out.write(shown(line) + "\n")
            reason = refusal(line)
            if reason is None:
                return line
            self.out.write(f"  {reason}\n")


def _bytes(data) -> bytes:
    """A line read from a binary stream, or from a text one (a test's `io.StringIO`)."""
    return data.encode("utf-8", "surrogateescape") if isinstance(data, str) else data


class PromptReader:
    """Lines from the terminal with prompt_toolkit: completion, the history kept next to the journal,
    and a line refused the moment it passes the limit (`GuardedInput`).

    One prompt_toolkit `Application` (the prompt line and its completion menu) serves every prompt of the
    night, on one event loop kept for the night (`Terminal`): a prompt costs drawing it, not building an
    event loop, a layout and its key bindings each time, as `PromptSession.prompt` does. `app` is the
    application, `loop` its event loop (`Front` ends a prompt early from another thread when a page answers).
    Up offers the last 500 lines of the history (`recent_history`)."""

    def __init__(self, words: Callable[[str], list[str]], history: str, out=None):
        from prompt_toolkit.application import Application
        from prompt_toolkit.filters import Condition
        from prompt_toolkit.key_binding import KeyBindings
        from prompt_toolkit.layout import Float, FloatContainer, Layout, Window
        from prompt_toolkit.layout.controls import BufferControl
        from prompt_toolkit.layout.menus import CompletionsMenu
        from prompt_toolkit.layout.processors import BeforeInput

        self.out = out or sys.stdout
        self.input = guarded_input(sys.stdin)
        self.prompt = ""
        self.buffer = entry_buffer(history, words, self._accept, self._changed)
        keys = KeyBindings()

        @keys.add("c-c")
        def _interrupt(event) -> None:
            event.app.exit(result=_INTERRUPT)

        @keys.add("c-d", filter=Condition(lambda: not self.buffer.text))
        def _end(event) -> None:
            event.app.exit(exception=EOFError)

        line = Window(BufferControl(self.buffer, input_processors=[BeforeInput(lambda: self.prompt)]),
                      dont_extend_height=True, wrap_lines=True)
        layout = Layout(FloatContainer(line, floats=[Float(xcursor=True, ycursor=True,
                                                           content=CompletionsMenu(max_height=8, scroll_offset=1))]),
                        focused_element=line)
        self.app = Application(layout=layout, key_bindings=keys, input=self.input, full_screen=False,
                               erase_when_done=False, mouse_support=False)
        self.terminal = Terminal()

    @property
    def loop(self):
        return self.terminal.loop

    def _accept(self, buffer) -> bool:
        self.app.exit(result=buffer.text)
        return True                      # the line stays drawn after its prompt; the next prompt clears it

    def _changed(self, buffer) -> None:
        if self.input.overflowed and buffer.text:
            buffer.reset()               # what was typed of the line is dropped with the rest of it

    def __call__(self, prompt: str, typed: str = "") -> str:
        """The line typed after `prompt` (`typed`: what the line holds already, the cursor at its end);
        EOFError on Ctrl-D, KeyboardInterrupt on Ctrl-C."""
        from prompt_toolkit.document import Document
        while True:
            self.input.overflowed = False
            self.prompt = prompt

            def begin() -> None:
                self.buffer.reset(Document(typed, len(typed)))
            line = self.terminal.run(self.app, begin)
            typed = ""
            if line is _INTERRUPT:
                raise KeyboardInterrupt
            reason = too_long() if self.input.overflowed else refusal(line)
            if reason is None:
                return line
            self.out.write(f"  {reason}\n")
            self.out.flush()


_INTERRUPT = object()       # Ctrl-C at the prompt: raised as KeyboardInterrupt once the application is done


class Terminal:
    """One asyncio event loop for the whole night, in the caller's thread: `run(app)` runs a prompt_toolkit
    application on it until its result (each `Application.run` would make and close a loop of its own)."""

    def __init__(self):
        import asyncio
        self.loop = asyncio.new_event_loop()

    def run(self, app, begin: Callable[[], None] | None = None):
        return self.loop.run_until_complete(app.run_async(pre_run=begin))


def entry_buffer(history: str, words: Callable[[str], list[str]], accept, changed):
    """The line the GM types into (both fronts): the night's recent history, completion
    of the table's words on Tab, `accept` on Enter, `changed` at every keystroke."""
    from prompt_toolkit.buffer import Buffer
    buffer = Buffer(history=recent_history(history), completer=completer(words), complete_while_typing=False,
                    multiline=False, accept_handler=accept)
    buffer.on_text_changed += changed
    return buffer


def recent_history(path: str, keep: int = 500):
    """prompt_toolkit's history in a file, of which the last `keep` lines are offered (Up): every prompt
    copies what is offered, so what it costs stays the same however long the night (the file keeps all)."""
    from prompt_toolkit.history import FileHistory

    class Recent(FileHistory):
        def load_history_strings(self):
            return itertools.islice(super().load_history_strings(), keep)

        def append_string(self, string: str) -> None:
            super().append_string(string)
            del self._loaded_strings[keep:]

    return Recent(path)


# what ends a line as it arrives at the terminal, or a bracketed paste
_ENDS = re.compile(r"[\r\n]|\x1b\[201~")


def guarded_input(stdin):
    """prompt_toolkit's terminal input, reading large chunks, that drops what a line types past
    `MAX_LINE` characters before any key is made of it (up to Enter, or the end of a paste) and
    sets `overflowed`. Its keys are then made of nothing: a megabyte costs what reading it costs."""
    from prompt_toolkit.input.vt100 import Vt100Input

    class GuardedInput(Vt100Input):
        overflowed = False
        _length = 0                       # characters of the line so far

        def read_keys(self):
            data = self.stdin_reader.read(1 << 16 if self.overflowed else 1024)
            self.vt100_parser.feed(self._guard(data))
            result, self._buffer = self._buffer, []
            return result

        def _guard(self, data: str) -> str:
            kept = []
            while data:
                end = _ENDS.search(data)
                piece = data if end is None else data[:end.start()]
                room = max(0, MAX_LINE + 1 - self._length)
                if len(piece) > room:
                    self.overflowed = True
                kept.append(piece[:room])
                self._length += len(piece)
                if end is None:
                    break
                kept.append(end.group())
                self._length = 0
                data = data[end.end():]
            return "".join(kept)

    return GuardedInput(stdin)


def completer(words: Callable[[str], list[str]]):
    """prompt_toolkit's completer over `words(text before the cursor)`."""
    from prompt_toolkit.completion import Completer, Completion

    class _Completer(Completer):
        def get_completions(self, document, complete_event):
            before = document.text_before_cursor
            word = document.get_word_before_cursor(WORD=True)
            for candidate in words(before):
                if candidate.lower().startswith(word.lower()) and candidate != word:
                    yield Completion(candidate, start_position=-len(word))

    return _Completer()
