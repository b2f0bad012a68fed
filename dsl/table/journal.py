"""The journal of a session at the table: a play log appended one whole entry at a time, fsynced, and read back with its torn tail dropped.

The journal is a script in the canonical layout of `drama run --record`: every
die given, every tie and split named. Each accepted entry (a statement, or an
action with its defences, ties and split) is appended as its lines followed by
a marker comment that closes it and says where it came from:

    Kara strike -> wolves with Sorcery, rolled 6 4
    wolves defends with Fangs, rolled 3 3
    # play 4: from the script (line 17, 2 statements)

    # play 5: typed at the table

The parser ignores the comments, so the journal runs with `drama run` as it is.
An entry is written with one `write` and synced (`sync`: fdatasync) before the board is shown;
on reading, whatever follows the last marker (a line torn by a kill in the
middle of a write) is reported (W030) and dropped, and nothing before it is
touched. Undo cuts the journal where the last entry began (one `ftruncate`,
fsynced: a kill leaves it whole, before or after); a journal rewritten whole
(a torn tail dropped, a file changed behind the table's back) goes through a
temporary file in the same folder, fsync, rename, fsync of the folder.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Callable

from ..errors import DramaError, Position

MARKER = re.compile(r"^# play (\d+): (?:(from the script|skipped) \(line (\d+), (\d+) statements?\)|typed at the table)"
                    r"(?:: (.*))?$")


@dataclass(frozen=True)
class Marker:
    """Where an entry came from: the script (`count` statements from `line`), skipped, or typed ("free")."""

    kind: str               # "script", "skip" or "free"
    line: int | None = None
    count: int = 0
    note: str = ""

    def text(self, number: int) -> str:
        if self.kind == "free":
            head = f"# play {number}: typed at the table"
        else:
            what = "from the script" if self.kind == "script" else "skipped"
            head = f"# play {number}: {what} (line {self.line}, {self.count} statement{'' if self.count == 1 else 's'})"
        return head + (f": {self.note}" if self.note else "")


@dataclass(frozen=True)
class RawEntry:
    """One entry as read: its text (the marker left out), the journal line it starts on, its marker."""

    text: str
    first_line: int          # the line of the journal before the entry's first line (a parse offset)
    marker: Marker


@dataclass(frozen=True)
class Contents:
    """A journal read back: its header comments, its whole entries, and the torn tail dropped (if any)."""

    header: str
    entries: tuple[RawEntry, ...]
    torn: str                # the text after the last marker, "" when the journal ends cleanly
    torn_line: int
    seed: int | None         # the seed of the table's dice, from the header
    kept: str                # the text up to the last marker: what stands once the torn tail is dropped
    blank_tail: bool = False  # only blank space follows the last marker (dropped without a warning)


# the header line that makes a play log a journal of `drama play` (a `drama run --record` log has none)
PLAY_LINE = "# drama play: one entry per `# play N:` line"
SEED = re.compile(r"the table's dice came from seed (\d+)")


def header_line(seed: int) -> str:
    """The journal's own header line: what marks it as a journal, and the seed of the table's dice."""
    return f"{PLAY_LINE}; the table's dice came from seed {seed}.\n"


def _lines(text: str) -> list[str]:
    """The lines of `text`, each with its `\\n` (only `\\n` ends a line, as for the parser)."""
    return re.findall(r"[^\n]*\n|[^\n]+$", text)


def read(path: str) -> Contents:
    """Read a journal; E903 when it is not one (a play log of `drama run --record`, a script,
    a journal whose entries are out of order or whose text is not UTF-8 before its torn tail)."""
    from .. import inputs
    try:                              # the one reader: a regular file, within the size of a script
        data = inputs.read_bytes(path, what="journal")
    except DramaError as error:
        raise DramaError("E902", f"cannot read the journal {path}: {error.message}",
                         position=Position(path, 1, 1)) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        # a write torn inside a character: only the bytes after the last whole line can be at fault
        cut = data.rfind(b"\n", 0, error.start) + 1
        try:
            head = data[:cut].decode("utf-8")
        except UnicodeDecodeError as inner:
            line = data[:inner.start].count(b"\n") + 1
            raise DramaError("E903", f"the journal {path} is damaged: line {line} is not UTF-8 text",
                             position=Position(path, line, 1), expected="a journal written by `drama play`") from None
        text = head + data[cut:].decode("utf-8", errors="replace")
    lines = _lines(text)
    header_end = 0
    while header_end < len(lines) and lines[header_end].startswith("#") and not MARKER.match(lines[header_end].rstrip("\n")):
        header_end += 1
    header = "".join(lines[:header_end])
    if not lines or not lines[0].startswith("# Recorded by drama"):
        raise DramaError("E903", f"{path} is not a journal of `drama play`",
                         position=Position(path, 1, 1),
                         expected="a journal written by `drama play` (its first line starts `# Recorded by drama`)")
    play_line = next((line for line in lines[:header_end] if line.startswith(PLAY_LINE)), None)
    if play_line is None:
        raise DramaError("E903", f"{path} is a play log, not a journal of `drama play`: it was left as it is",
                         position=Position(path, 1, 1),
                         expected="a journal written by `drama play` (its header has a line that starts `# drama play:`)",
                         hint="run it with `drama run`; to start a session at the table, name a new "
                              "journal with --journal")
    seed = SEED.search(play_line)
    entries: list[RawEntry] = []
    start = header_end
    for index in range(header_end, len(lines)):
        line = lines[index]
        if not line.endswith("\n"):
            break                          # a torn last line: never a marker
        match = MARKER.match(line.rstrip("\n"))
        if match is None:
            continue
        number = int(match.group(1))
        if number != len(entries) + 1:
            raise DramaError("E903", f"the journal {path} is damaged: entry {number} comes after entry {len(entries)}",
                             position=Position(path, index + 1, 1), expected=f"`# play {len(entries) + 1}: ...`")
        kind = {"from the script": "script", "skipped": "skip", None: "free"}[match.group(2)]
        marker = Marker(kind, int(match.group(3)) if match.group(3) else None,
                        int(match.group(4)) if match.group(4) else 0, match.group(5) or "")
        entries.append(RawEntry("".join(lines[start:index]), start, marker))
        start = index + 1
    torn = "".join(lines[start:])
    kept = "".join(lines[:start])
    return Contents(header, tuple(entries), torn if torn.strip() else "", start + 1,
                    int(seed.group(1)) if seed else None, kept, bool(torn) and not torn.strip())


def backup(path: str) -> str:
    """Copy the file at `path`, as it is, to the first free `PATH.N.bak`; return that name (E905)."""
    number = 1
    while os.path.exists(f"{path}.{number}.bak"):
        number += 1
    target = f"{path}.{number}.bak"
    with open(path, "rb") as handle:
        data = handle.read()
    try:
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        try:
            os.write(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
    except OSError as error:
        raise DramaError("E905", f"cannot keep a copy of the journal {path} in {target}: {error.strerror or error}",
                         position=Position(path, 1, 1), hint="nothing was changed") from None
    return target


class Lock:
    """The OS lock of a journal while a session has it: `flock` on `PATH.lock`, which holds the
    holder's pid. The system lets go of it when the process ends, however it ends (a SIGKILL
    included), so a journal is never left locked; the file is removed on a clean exit.

        with Lock(path):              # E906 when another session has it
            ...
    """

    def __init__(self, journal_path: str):
        self.journal = journal_path
        self.path = journal_path + ".lock"
        self.fd: int | None = None

    def __enter__(self) -> "Lock":
        self.take()
        return self

    def __exit__(self, *exc) -> None:
        self.release()

    def take(self) -> None:
        import fcntl
        while True:
            try:
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o666)
            except OSError as error:
                folder = os.path.dirname(self.journal) or "."
                reason = f"the folder {folder} does not exist" if not os.path.isdir(folder) else \
                    error.strerror or str(error)
                raise DramaError("E905", f"cannot write {self.journal}: {reason}",
                                 position=Position(self.journal, 1, 1)) from None
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                holder = os.read(fd, 32).decode("ascii", "replace").strip()
                os.close(fd)
                error = DramaError("E906", f"the journal {self.journal} is in use by another session",
                                   position=Position(self.journal, 1, 1),
                                   hint="go on in that session, or end it (/quit) first; "
                                        "`drama run` may read the journal meanwhile")
                if holder.isdigit():
                    error.notes.append(f"process {holder} has it")
                raise error from None
            try:                     # the holder may have removed the file as it let go: lock the one there now
                same = os.fstat(fd).st_ino == os.stat(self.path).st_ino
            except FileNotFoundError:
                same = False
            if same:
                break
            os.close(fd)
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode("ascii"))
        self.fd = fd

    def release(self) -> None:
        if self.fd is None:
            return
        try:
            os.unlink(self.path)
        except OSError:
            pass
        os.close(self.fd)
        self.fd = None


def sync(fd: int) -> None:
    """What was written to `fd` made durable before the table goes on: its data and the size that reaches
    it (`fdatasync` where the system has it, which does not wait for the modification time; else `fsync`)."""
    (os.fdatasync if hasattr(os, "fdatasync") else os.fsync)(fd)


class Journal:
    """The journal file of one session: appended to, rewritten for undo."""

    def __init__(self, path: str):
        self.path = path

    def append(self, text: str) -> None:
        """Append one whole entry and sync it (E905 when the disk refuses)."""
        data = text.encode("utf-8")
        try:
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)
            try:
                view = memoryview(data)
                while view:
                    written = os.write(fd, view)
                    view = view[written:]
                sync(fd)
            finally:
                os.close(fd)
        except OSError as error:
            raise self._refused(error, "nothing of this entry was accepted") from None

    def _refused(self, error: OSError, what: str) -> DramaError:
        """E905: the disk refused a write of the journal; `what` says what became of the entry."""
        return DramaError("E905", f"cannot write the journal {self.path}: {error.strerror or error}",
                          position=Position(self.path, 1, 1), hint=f"{what}; free some space and try again")

    def rewrite(self, text: str) -> None:
        """Replace the whole journal atomically: temporary file, fsync, rename, fsync of the folder."""
        write_atomically(self.path, text)

    def take_back(self, tail: str, whole: Callable[[], str]) -> None:
        """Drop the last entry, whose text is `tail`: the file is cut where the entry began (one
        `ftruncate`, so a kill leaves the journal whole before or after it) and fsynced, at a cost that
        does not grow with the night. When the file does not end with that entry (changed behind the
        table's back), it is rewritten atomically as `whole()` instead (E905 when the disk refuses)."""
        data = tail.encode("utf-8")
        try:
            fd = os.open(self.path, os.O_RDWR)
            try:
                size = os.fstat(fd).st_size
                ends = size >= len(data) and os.pread(fd, len(data), size - len(data)) == data
                if ends:
                    os.ftruncate(fd, size - len(data))
                    sync(fd)
            finally:
                os.close(fd)
        except OSError as error:
            raise self._refused(error, "the entry was not taken back") from None
        if not ends:
            self.rewrite(whole())


def write_atomically(path: str, text: str) -> None:
    """Write `text` to `path` through the one writer (`dsl.outputs`): a temporary
    file in the same folder, fsynced, renamed, the folder fsynced (E905)."""
    from ..outputs import Outputs
    try:
        with Outputs() as out:
            out.text(path, text)
            out.commit()
    except DramaError as error:
        raise DramaError("E905", error.message, position=Position(path, 1, 1)) from None


def scenario_text(scenario_path: str, journal_path: str, title: str, roles: dict) -> str:
    """The YAML of a scenario that plays the journal with the setting and cast of
    `scenario_path`: its paths made relative to the journal's folder."""
    import json

    from ruamel.yaml import YAML

    from .. import inputs
    text = inputs.read_text(scenario_path, what="scenario file", limit=inputs.MAX_YAML_BYTES)
    data = YAML(typ="safe", pure=True).load(text) or {}
    source = os.path.dirname(os.path.abspath(scenario_path))
    here = os.path.dirname(os.path.abspath(journal_path))

    def moved(path: str) -> str:
        return os.path.relpath(os.path.join(source, path), here).replace(os.sep, "/")

    lines = [f"# The session played with `drama play {scenario_path}`: run it with `drama run` to get its log.",
             f"title: {json.dumps(title)}"]
    if isinstance(data.get("setting"), str):
        lines.append(f"setting: {json.dumps(moved(data['setting']))}")
    cast = data.get("cast")
    casts = [cast] if isinstance(cast, str) else list(cast or ())
    lines.append("cast: [" + ", ".join(json.dumps(moved(c)) for c in casts) + "]")
    bound = {role: pid for role, pid in roles.items() if pid}
    if bound:
        lines.append("roles: {" + ", ".join(f"{json.dumps(r)}: {json.dumps(p)}" for r, p in bound.items()) + "}")
    lines.append(f"script: {json.dumps(os.path.basename(journal_path))}")
    return "\n".join(lines) + "\n"
