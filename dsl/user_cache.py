"""The user's cache folder of drama: what is derived from files and costs time to make again (the grammar's parser, the scenarios' scripts parsed and YAML files composed, the phrase books and catalogues read, the built-in templates compiled), kept between runs.

Each entry holds what it was made from and is used only for that: a source
that changed is made again (`kept`). A folder that cannot be written means no
cache, never an error: the work is then done again on every run.
"""

from __future__ import annotations

import marshal
import os
from pathlib import Path
from typing import Callable, TypeVar

__all__ = ["folder", "write", "used", "kept", "package_code"]

T = TypeVar("T")


def folder() -> Path | None:
    """`$XDG_CACHE_HOME/drama` (by default `~/.cache/drama`), made if need be; None when it cannot be written."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    path = Path(base) / "drama"
    try:
        path.mkdir(parents=True, exist_ok=True)
        if not os.access(path, os.W_OK | os.X_OK):
            return None
    except OSError:
        return None
    return path


# what the folder holds at most: the newest PER_KIND entries of each kind (`parser.*`,
# `phrases-en`, `catalogue`, `template`, `script`, `yaml`: the name before its last '-'),
# by the time each was last written or used, and at most MAX_BYTES in all (the oldest go
# first). A developer who edits the grammar or the package makes a new parser or template
# entry at each edit (and reads every script and YAML file again).
PER_KIND = 64
MAX_BYTES = 40 * 1024 * 1024


def write(path: Path, data: bytes) -> bool:
    """Write `data` to `path` whole or not at all (a file beside it, renamed over it):
    a reader in another process never sees half of it. False when it cannot be written.
    Then the entries past the bounds are removed (one removed is made again when needed)."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}")
    try:
        with open(temporary, "wb") as out:
            out.write(data)
        os.replace(temporary, path)
    except OSError:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        return False
    _prune(path.parent)
    return True


def used(path: Path) -> None:
    """Note that an entry was used (its time is now): the bounds keep the entries used lately."""
    try:
        os.utime(path)
    except OSError:
        pass


def _prune(where: Path) -> None:
    try:
        entries = [(entry.stat(), entry.name, entry.path) for entry in os.scandir(where)
                   if entry.name.endswith(".marshal") and not entry.name.startswith(".")]
    except OSError:
        return
    entries.sort(key=lambda e: e[0].st_mtime_ns, reverse=True)        # the newest first
    seen: dict[str, int] = {}
    total = 0
    for stat, name, path in entries:
        kind = name.rsplit("-", 1)[0]
        seen[kind] = seen.get(kind, 0) + 1
        total += stat.st_size
        if seen[kind] > PER_KIND or total > MAX_BYTES:
            try:
                os.unlink(path)
            except OSError:                  # (another process removed it first)
                pass


def kept(name: str, source: str | bytes, make: Callable[[], T], *, version=1) -> T:
    """What `make()` gives for `source` (the text it is made from, whole), kept in the folder
    as `NAME-CRC.marshal` with `version` and `source` themselves, and read back only while both
    are the same: an edited source, or a new version of what `make` does, is made again. The
    value is plain data that `marshal` keeps (text, numbers, lists, mappings, code); one it
    cannot keep is given, not kept."""
    import zlib
    where = folder()
    if where is None:
        return make()
    raw = source.encode("utf-8", "surrogatepass") if isinstance(source, str) else source
    entry = where / f"{name}-{zlib.crc32(raw):08x}.marshal"
    try:
        stored = marshal.loads(entry.read_bytes())
        if type(stored) is tuple and len(stored) == 3 and stored[0] == version and stored[1] == source:
            used(entry)
            return stored[2]
    except (OSError, EOFError, ValueError, TypeError):
        pass                                # not kept yet, or unreadable: made again
    value = make()
    try:
        data = marshal.dumps((version, source, value))
    except ValueError:                      # pragma: no cover - a value marshal cannot keep
        return value
    write(entry, data)
    return value


_code: list[str] = []


def package_code() -> str:
    """Each module of the package, with its size and time (once a process): for an entry made by
    the package's code, whose every module may change what it makes (an edited filter, a node
    given a field), a part of its version."""
    if not _code:
        found: list[str] = []

        def walk(where: str) -> None:
            with os.scandir(where) as entries:
                for entry in entries:
                    if entry.name.endswith(".py"):
                        stat = entry.stat()
                        found.append(f"{entry.path} {stat.st_size} {stat.st_mtime_ns}")
                    elif entry.name != "__pycache__" and entry.is_dir():
                        walk(entry.path)
        walk(os.path.dirname(os.path.abspath(__file__)))
        _code.append("\n".join(sorted(found)))
    return _code[0]
