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

import re
import sys
from typing import Callable

from ..limits import MAX_LINE
from ..terminal import printable


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
    and a line refused the moment it passes the limit (`GuardedInput`)."""

    def __init__(self, words: Callable[[str], list[str]], history: str, out=None):
        from prompt_toolkit import PromptSession
        from prompt_toolkit.history import FileHistory

        self.out = out or sys.stdout
        self.input = guarded_input(sys.stdin)
        self.session = PromptSession(history=FileHistory(history), completer=completer(words),
                                     complete_while_typing=False, input=self.input)
        self.session.default_buffer.on_text_changed += self._changed

    def _changed(self, buffer) -> None:
        if self.input.overflowed and buffer.text:
            buffer.reset()               # what was typed of the line is dropped with the rest of it

    def __call__(self, prompt: str) -> str:
        while True:
            self.input.overflowed = False
            line = self.session.prompt(prompt)
            reason = too_long() if self.input.overflowed else refusal(line)
            if reason is None:
                return line
            self.out.write(f"  {reason}\n")
            self.out.flush()


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
