"""Inputs: the one reader of every file a command reads, with its limits, and the record of what was read.

Every file `drama` reads (scenario, setting and cast YAML, scripts and their
includes, templates, saved event logs) comes through `read_bytes` or
`read_text`:

- only a regular file is read (a folder is E108; a device such as /dev/zero,
  a pipe or a socket is E520), opened without blocking, so that a FIFO with no
  writer cannot hang the command;
- at most `limit` bytes (`MAX_BYTES` unless the caller gives its own): a
  bigger file, or one that grows while it is read, is E520;
- the text must be UTF-8 and hold no NUL character and no lone surrogate
  (E521, at the line and column of the first);
- a path holding a NUL is E521, not Python's `ValueError`.

The last files read are remembered (`remembered`): an error quotes its line
from the text that was read, never from the disk again.

Each file read is noted, by its resolved path, in the record of the reads
that is open (`tracking()`): `dsl.outputs.Outputs` opens one, so that a
command never writes over a file it has read.

`DramaError`s come with the code of their kind (E108, E520, E521) and no
position; a caller places them (`error.at(position)`) or gives them its own
code (`drama render` reports every problem of its event log as E602, a
template's as E601). `SURROGATE` and `check_text` are also used on values
that escapes can produce (YAML's `"\\ud800"`, JSON's `"\\ud800"`).
"""

from __future__ import annotations

import collections
import contextlib
import contextvars
import os
import re
import stat
from typing import Iterator

from .errors import DramaError, Position
from .limits import MAX_SCRIPT

__all__ = ["MAX_BYTES", "MAX_YAML_BYTES", "MAX_TEMPLATE_BYTES", "MAX_EVENT_LOG_BYTES", "SURROGATE",
           "read_bytes", "read_text", "remembered", "check_text", "check_path", "bad_character", "tracking", "note", "overlay"]

MAX_BYTES = MAX_SCRIPT              # a script (8 MiB, the limit of its characters too: E014)
MAX_YAML_BYTES = 2 * 2**20          # a scenario, setting or cast file
MAX_TEMPLATE_BYTES = 2**20          # a template
MAX_EVENT_LOG_BYTES = 256 * 2**20   # a saved event log

# a NUL, or a UTF-16 surrogate standing alone (only escapes can make one: "\ud800")
_BAD = re.compile("[\x00\ud800-\udfff]")
SURROGATE = re.compile("[\ud800-\udfff]")

# the last files read, by resolved path: an error quotes its line from what was read, never
# from a file read again (which may have changed, or never have been an input)
_REMEMBERED: "collections.OrderedDict[str, bytes]" = collections.OrderedDict()
_REMEMBER = 32


def remember(path: str, data: bytes) -> None:
    """Keep the bytes of a file read, for the errors that quote it (the last few files)."""
    with contextlib.suppress(OSError, ValueError):
        key = os.path.realpath(path)
        _REMEMBERED[key] = data
        _REMEMBERED.move_to_end(key)
        while len(_REMEMBERED) > _REMEMBER:
            _REMEMBERED.popitem(last=False)


def forget(path: str) -> None:
    """Drop a file read but refused (not of its kind): no error may quote it."""
    with contextlib.suppress(OSError, ValueError):
        _REMEMBERED.pop(os.path.realpath(path), None)


def remembered(path: str) -> bytes | None:
    """The bytes of `path` as this process last read it through the reader, if it did."""
    try:
        return _REMEMBERED.get(os.path.realpath(path))
    except (OSError, ValueError):
        return None


_READS: contextvars.ContextVar[set[str] | None] = contextvars.ContextVar("drama_reads", default=None)


@contextlib.contextmanager
def tracking() -> Iterator[set[str]]:
    """Record the resolved path of every file read inside the block into the set it yields."""
    reads: set[str] = set()
    token = _READS.set(reads)
    try:
        yield reads
    finally:
        _READS.reset(token)


_OVERLAY: contextvars.ContextVar[dict[str, bytes] | None] = contextvars.ContextVar("drama_overlay", default=None)


@contextlib.contextmanager
def overlay(texts: dict[str, str]) -> Iterator[None]:
    """Inside the block, read these texts (path -> text) instead of those files on disk: the
    unsaved buffers of an editor (`drama lsp`). The limits and checks still apply."""
    token = _OVERLAY.set({os.path.realpath(path): text.encode("utf-8", "surrogatepass")
                          for path, text in texts.items()})
    try:
        yield
    finally:
        _OVERLAY.reset(token)


def note(path: str | os.PathLike) -> None:
    """Note a file as read by this command (the reader does it for every file it reads)."""
    reads = _READS.get()
    if reads is not None:
        with contextlib.suppress(OSError, ValueError):
            reads.add(os.path.realpath(path))


def _size(count: int) -> str:
    if count >= 2**20:
        return f"{count / 2**20:g} MiB"
    if count >= 2**10:
        return f"{count / 2**10:g} KiB"
    return f"{count} bytes"


def read_bytes(path: str | os.PathLike, *, what: str, limit: int = MAX_BYTES) -> bytes:
    """The bytes of a regular file of at most `limit` bytes. Raises DramaError
    (E108 missing, a folder, unreadable; E520 not a regular file, too big; E521 a NUL in the path)."""
    name = os.fspath(path)
    check_path(name, what=what)
    buffers = _OVERLAY.get()
    if buffers:
        data = buffers.get(os.path.realpath(name))
        if data is not None:
            if len(data) > limit:
                raise DramaError("E520", f"the {what} '{name}' is larger than {_size(limit)}",
                                 expected=f"a {what} of at most {_size(limit)}")
            note(name)
            remember(name, data)
            return data
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) | \
        getattr(os, "O_NOCTTY", 0) | getattr(os, "O_BINARY", 0)
    try:
        handle = os.open(name, flags)
    except FileNotFoundError:
        raise DramaError("E108", f"cannot find the {what} '{name}'") from None
    except IsADirectoryError:
        raise DramaError("E108", f"the {what} '{name}' is a folder, not a file") from None
    except (OSError, ValueError) as error:
        reason = getattr(error, "strerror", None) or str(error)
        raise DramaError("E108", f"cannot read the {what} '{name}': {reason}") from None
    try:
        mode = os.fstat(handle).st_mode
        if stat.S_ISDIR(mode):
            raise DramaError("E108", f"the {what} '{name}' is a folder, not a file")
        if not stat.S_ISREG(mode):
            kind = ("a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else
                    "a pipe" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode) else "not a file")
            raise DramaError("E520", f"the {what} '{name}' is {kind}, not a regular file",
                             expected="a regular file", hint="only regular files are read")
        too_big = DramaError("E520", f"the {what} '{name}' is larger than {_size(limit)}",
                             expected=f"a {what} of at most {_size(limit)}")
        if os.fstat(handle).st_size > limit:
            raise too_big
        parts, total = [], 0
        while True:
            chunk = os.read(handle, min(2**20, limit + 1 - total))
            if not chunk:
                break
            parts.append(chunk)
            total += len(chunk)
            if total > limit:            # it grew while it was read
                raise too_big
    except OSError as error:
        raise DramaError("E108", f"cannot read the {what} '{name}': {error.strerror or error}") from None
    finally:
        os.close(handle)
    note(name)
    data = b"".join(parts)
    remember(name, data)
    return data


def read_text(path: str | os.PathLike, *, what: str, limit: int = MAX_BYTES) -> str:
    """The text of a regular UTF-8 file (a BOM dropped, line ends made `\\n`)
    with no NUL and no lone surrogate. Raises DramaError (E108, E520, E521)."""
    name = os.fspath(path)
    data = read_bytes(name, what=what, limit=limit)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        start = data.rfind(b"\n", 0, error.start) + 1
        column = len(data[start:error.start].decode("utf-8", "replace")) + 1
        if line == 1 and data.startswith(b"\xef\xbb\xbf"):
            column -= 1
        raise DramaError("E108", f"cannot read the {what} '{name}': it is not UTF-8 text",
                         notes=[f"byte 0x{data[error.start]:02x} at {name}:{line}:{column}"],
                         hint="save the file as UTF-8") from None
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    if "\x00" in text:               # (strict UTF-8 never decodes to a lone surrogate)
        check_text(text, name, what=what)
    return text


def bad_character(text: str) -> tuple[int, str] | None:
    """The index and a description of the first NUL or lone surrogate of `text`, if any."""
    found = _BAD.search(text)
    if found is None:
        return None
    char = found.group()
    return found.start(), ("a NUL character" if char == "\x00" else f"a lone surrogate (U+{ord(char):04X})")


def check_text(text: str, file: str, *, what: str, line_offset: int = 0) -> None:
    """Raise E521 at the first NUL or lone surrogate of a file's text."""
    found = bad_character(text)
    if found is None:
        return
    index, kind = found
    line = text.count("\n", 0, index) + 1
    column = index - (text.rfind("\n", 0, index) + 1) + 1
    raise DramaError("E521", f"the {what} holds {kind}", position=Position(file, line + line_offset, column),
                     expected="text without NUL characters or lone surrogates",
                     hint="remove the character; a file of text never needs it")


def check_path(path: str, *, what: str, position: Position | None = None) -> None:
    """Raise E521 for a path that holds a NUL (no file can have that name). (A lone
    surrogate may stand for a byte of a file name that is not UTF-8: it is allowed.)"""
    if "\x00" in path:
        raise DramaError("E521", f"the path of the {what} {path!r} holds a NUL character", position=position,
                         expected="a file name without NUL characters")
