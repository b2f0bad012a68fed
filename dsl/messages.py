"""Error messages as the commands show them: an error with the line it points at, read from its file when the caller has not got the text."""

from __future__ import annotations

from .errors import DramaError


def shown(error: DramaError, source: str | None = None) -> str:
    """`error.format(...)`: `file:line:col: error[CODE]: message`, the line with a caret,
    and the notes. The line comes from `source`, else the text attached to the error
    (`error.source`), else the file the position names, read by the one reader
    (dsl/inputs.py); a file that cannot be read shows no line."""
    if source is None and error.source is None and error.position is not None and error.position.line >= 1:
        source = _read(error.position.file)
    return error.format(source)


def _read(file: str) -> str | None:
    from .inputs import MAX_EVENT_LOG_BYTES, read_bytes
    try:
        return read_bytes(file, what="file", limit=MAX_EVENT_LOG_BYTES).decode("utf-8", "replace")
    except DramaError:
        return None
