"""The user's cache folder of drama: what is derived from the bundled files (the grammar's parser, the phrase books read) and kept between runs.

Everything kept here is rebuilt from its source when the source changes: each
entry holds (or is named by) what it was made from, and its reader checks it.
A folder that cannot be written means no cache, never an error: the work is
then done again on every run.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["folder", "write"]


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


def write(path: Path, data: bytes) -> bool:
    """Write `data` to `path` whole or not at all (a file beside it, renamed over it):
    a reader in another process never sees half of it. False when it cannot be written."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}")
    try:
        with open(temporary, "wb") as out:
            out.write(data)
        os.replace(temporary, path)
        return True
    except OSError:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        return False
