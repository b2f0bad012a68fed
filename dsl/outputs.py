"""Outputs: the one writer of every file a command writes, all committed together once it has succeeded, none over an input.

A command opens one `Outputs` for its whole run and hands it each output:

    with Outputs(refuse=[scenario]) as outputs:     # starts recording the files read
        program = Program.compile(scenario)         # ... every file read is noted
        outputs.reserve(args.output)                # fail now, before the work
        events = program.run()
        outputs.text(args.record, record(events))   # staged in memory
        log = outputs.stream(args.output)           # a temporary file, written as you go
        for line in lines(events):
            log.write(line)
        outputs.text(None, summary)                 # None: standard output
    # leaving the block without an exception commits; with one (SystemExit
    # included) nothing is written and every temporary file is removed

The promises:

- **No output over an input.** An output may not be a file the command reads:
  every file read through `dsl.inputs` while the `Outputs` is open is noted,
  and `refuse(path)` adds others (a template folder refuses every file in it).
  Paths are compared after resolving links, and as the same file (a hard link).
  Two outputs may not name the same file. Each is checked when it is given
  (`text`, `stream`, `reserve`), and all again at `commit`.
- **Nothing half written.** A file is written to a temporary file in its own
  folder, flushed and fsynced, then renamed over the target (the folder is
  fsynced too). A link is written through (its target is replaced, the link
  stays); a new file gets 0666 less the umask, a replaced one keeps its mode. A
  device or a pipe (`-o /dev/stdout`) is written as it is, after the files.
- **All or nothing.** `commit` checks every output, writes every temporary
  file, then renames them one after the other; if a rename fails, the ones done
  are undone (the old file is kept as a hard link until the end). A failing
  command, or one that never commits, changes no file.
- Every problem is a `DramaError` E501 naming the file.

`stream(path)` returns a text file (UTF-8, `\\n` line ends) with `write`; text
that cannot be written as UTF-8 (a lone surrogate) is E501, as in `text`.
"""

from __future__ import annotations

import contextlib
import io
import os
import stat
import sys
from typing import Callable, Iterable

from . import inputs as _inputs
from .errors import DramaError
from .terminal import printable

__all__ = ["Outputs"]


def _fail(path: str, reason: str, **kwargs) -> DramaError:
    return DramaError("E501", f"cannot write {path}: {reason}", **kwargs)


def _identity(path: str) -> tuple[str, tuple[int, int] | None]:
    """A path's resolved form, and its (device, inode) if it exists."""
    real = os.path.realpath(path)
    try:
        info = os.stat(real)
        return real, (info.st_dev, info.st_ino)
    except OSError:
        return real, None


class _Output:
    """One output: where it goes, how, and what is staged for it."""

    def __init__(self, path: str):
        self.path = path
        self.real = os.path.realpath(path)       # a link is written through
        self.special = False                     # a device or a pipe: written as it is
        self.mode: int | None = None             # the permissions to give it
        self.text: str | None = None
        self.temporary: str | None = None        # a regular file's temporary file
        self.stream: "_Stream | None" = None
        self.backup: str | None = None           # the replaced file, while committing
        self.existed = False
        self.reserved = False                    # named before its text (`reserve`)
        self.staged = False                      # its text or stream given


class _Stream:
    """A text file written as the command goes (see `Outputs.stream`)."""

    def __init__(self, output: _Output, handle):
        self._output = output
        self._handle = handle

    def write(self, text: str) -> int:
        try:
            return self._handle.write(text)
        except UnicodeEncodeError as error:
            raise _fail(self._output.path, f"the text holds a character that is not UTF-8 "
                                           f"(U+{ord(error.object[error.start]):04X})") from None
        except OSError as error:
            raise _fail(self._output.path, error.strerror or str(error)) from None

    def writelines(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        self._handle.flush()

    def __enter__(self) -> "_Stream":
        return self

    def __exit__(self, *exc) -> None:
        return None


class Outputs:
    """The outputs of one command, written together when it has succeeded, or not at all."""

    def __init__(self, refuse: Iterable[str | os.PathLike | None] = (),
                 echo: Callable[[str], None] | None = None):
        self._refused: list[str] = []
        self._folders: list[str] = []
        self._outputs: list[_Output] = []
        self._printed: list[str] = []
        self._reads: set[str] = set()
        self._tracking = None
        self._done = False
        self._echo = echo
        self.refuse(*refuse)

    # -- the block ------------------------------------------------------------
    def __enter__(self) -> "Outputs":
        self._tracking = _inputs.tracking()
        self._reads = self._tracking.__enter__()
        return self

    def __exit__(self, kind, error, traceback) -> bool:
        try:
            if kind is None and not self._done:
                self.commit()
            elif kind is not None:
                self.abort()
        finally:
            if self._tracking is not None:
                self._tracking.__exit__(None, None, None)
                self._tracking = None
        return False

    # -- inputs ---------------------------------------------------------------
    def refuse(self, *paths: str | os.PathLike | None) -> None:
        """Never write over these files; a folder: over no file inside it."""
        for path in paths:
            if path is None:
                continue
            name = os.fspath(path)
            if "\x00" in name:
                continue
            if os.path.isdir(name):
                self._folders.append(os.path.realpath(name))
            else:
                self._refused.append(name)

    def _input_of(self, output: _Output) -> str | None:
        """The input that `output` would overwrite, if any."""
        real, ident = _identity(output.path)
        for folder in self._folders:
            if os.path.commonpath([real, folder]) == folder:
                return folder
        for name in [*self._refused, *sorted(self._reads)]:
            other, other_ident = _identity(name)
            if other == real or (ident is not None and ident == other_ident):
                return name
        return None

    # -- outputs --------------------------------------------------------------
    def reserve(self, path: str | os.PathLike | None) -> None:
        """Check now that `path` can be written (its folder exists, it is no
        input, no other output); its text comes later (`text` or `stream`)."""
        if path is not None:
            self._claim(os.fspath(path), reserving=True)

    def text(self, path: str | os.PathLike | None, text: str) -> None:
        """Stage `text` for `path` (None: standard output), written at commit."""
        if path is None:
            self._printed.append(text)
            return
        output = self._claim(os.fspath(path))
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as error:
            raise _fail(output.path, f"the text holds a character that is not UTF-8 "
                                     f"(U+{ord(error.object[error.start]):04X})") from None
        output.text = text

    def stream(self, path: str | os.PathLike) -> _Stream:
        """A text file to write `path` with as the command goes; renamed into
        place at commit, removed if the command fails."""
        output = self._claim(os.fspath(path))
        if output.special:
            handle = io.StringIO()
        else:
            handle = self._temporary(output)
        output.stream = _Stream(output, handle)
        return output.stream

    def _claim(self, path: str, reserving: bool = False) -> _Output:
        """The output of `path`: reserved before, or new (checked now). An output
        given twice (the same file, or the same file reserved twice) is E501."""
        for output in self._outputs:
            if output.path == path and output.reserved and not output.staged and not reserving:
                output.staged = True
                return output
        output = _Output(path)
        output.reserved, output.staged = reserving, not reserving
        if "\x00" in path:
            raise _fail(repr(path), "the name holds a NUL character")
        self._check(output)
        try:
            mode = os.stat(path).st_mode          # through links (/dev/stdout is one)
        except FileNotFoundError:
            mode = None
        except OSError as error:
            raise _fail(path, error.strerror or str(error)) from None
        if mode is not None and stat.S_ISDIR(mode):
            raise _fail(path, "it is a folder", expected="a file name")
        if mode is not None and not stat.S_ISREG(mode):
            output.special = True                 # (two outputs to one terminal or pipe are fine)
        else:
            for other in self._outputs:
                if not other.special and (other.real == output.real or _identity(other.path) == _identity(path)):
                    raise DramaError("E501", f"two outputs name the same file: {other.path} and {path}",
                                     expected="a different file for each output")
            folder = os.path.dirname(output.real) or "."
            shown = os.path.relpath(folder) if os.path.islink(path) else (os.path.dirname(path) or ".")
            if not os.path.isdir(folder):
                raise _fail(path, f"the folder {shown} does not exist")
            if not os.access(folder, os.W_OK):
                raise _fail(path, f"the folder {shown} cannot be written to")
            output.existed = mode is not None
            if mode is None:
                umask = os.umask(0)
                os.umask(umask)
                output.mode = 0o666 & ~umask
            else:
                output.mode = stat.S_IMODE(mode)
        self._outputs.append(output)
        return output

    def _check(self, output: _Output) -> None:
        found = self._input_of(output)
        if found is not None:
            raise DramaError("E501", f"refusing to write over the input file {output.path}",
                             expected="an output file that the command does not read",
                             notes=[f"{found} is read by this command"] if
                             os.path.realpath(found) != output.real else [])

    def _temporary(self, output: _Output):
        import tempfile             # (only an output file needs it: standard output does not, issue 28)
        folder = os.path.dirname(output.real) or "."
        try:
            handle, output.temporary = tempfile.mkstemp(
                prefix=f".{os.path.basename(output.real)}.", suffix=".tmp", dir=folder)
            return os.fdopen(handle, "w", encoding="utf-8", newline="\n")
        except OSError as error:
            raise _fail(output.path, error.strerror or str(error)) from None

    # -- commit ---------------------------------------------------------------
    def commit(self) -> None:
        """Write every output: check them all, write the temporary files, then
        rename them into place (undoing the renames done if one fails); then the
        devices and pipes, then standard output. Raises E501, changing no file."""
        if self._done:
            return
        self._done = True
        try:
            for output in self._outputs:       # files read since they were given
                self._check(output)
            for output in self._outputs:
                if not output.special:
                    self._finish(output)
            self._rename_all()
        except BaseException:
            self.abort()
            raise
        for output in self._outputs:
            if output.special:
                self._write_special(output)
        for text in self._printed:
            self._print(text)

    def _finish(self, output: _Output) -> None:
        """The temporary file complete on disk, with its permissions."""
        try:
            if output.stream is None:
                handle = self._temporary(output)
                handle.write(output.text or "")
            else:
                handle = output.stream._handle
            handle.flush()
            os.fsync(handle.fileno())
            handle.close()
            os.chmod(output.temporary, output.mode)
        except OSError as error:
            raise _fail(output.path, error.strerror or str(error)) from None

    def _rename_all(self) -> None:
        done: list[_Output] = []
        try:
            for output in self._outputs:
                if output.special:
                    continue
                if output.existed:
                    output.backup = output.temporary + ".old"
                    try:
                        os.link(output.real, output.backup)
                    except OSError:
                        output.backup = None
                os.replace(output.temporary, output.real)
                output.temporary = None
                done.append(output)
        except OSError as error:
            failed = output
            for output in reversed(done):            # undo: the old file back, a new one removed
                with contextlib.suppress(OSError):
                    if output.backup is not None:
                        os.replace(output.backup, output.real)
                        output.backup = None
                    elif not output.existed:
                        os.unlink(output.real)
            raise _fail(failed.path, error.strerror or str(error)) from None
        folders = {os.path.dirname(output.real) or "." for output in done}
        for output in done:
            if output.backup is not None:
                with contextlib.suppress(OSError):
                    os.unlink(output.backup)
                output.backup = None
        for folder in folders:                        # the renames themselves on disk
            with contextlib.suppress(OSError, AttributeError):
                handle = os.open(folder, os.O_RDONLY)
                try:
                    os.fsync(handle)
                finally:
                    os.close(handle)

    def _write_special(self, output: _Output) -> None:
        text = output.stream._handle.getvalue() if output.stream is not None else (output.text or "")
        try:
            with open(output.path, "w", encoding="utf-8", newline="\n") as handle:
                handle.write(text)
        except OSError as error:
            raise _fail(output.path, error.strerror or str(error)) from None

    def _print(self, text: str) -> None:
        text = printable(text)             # (a terminal obeys control characters: dsl/terminal.py)
        try:
            if self._echo is not None:
                self._echo(text)
            else:
                sys.stdout.write(text)
                sys.stdout.flush()
        except UnicodeEncodeError as error:
            raise DramaError("E501", f"cannot print the output: it holds a character that is not UTF-8 "
                                     f"(U+{ord(error.object[error.start]):04X})") from None

    def abort(self) -> None:
        """Write nothing: remove every temporary file (and any backup link)."""
        self._done = True
        for output in self._outputs:
            if output.stream is not None and not output.special:
                with contextlib.suppress(OSError, ValueError):
                    output.stream._handle.close()
            for leftover in (output.temporary, output.backup):
                if leftover is not None:
                    with contextlib.suppress(OSError):
                        os.unlink(leftover)
            output.temporary = output.backup = None
        self._printed.clear()
