"""Error messages as the commands show them: an error with the line it points at, read from its file when the caller has not got the text."""

from __future__ import annotations

from .errors import DramaError


def shown(error: DramaError, source: str | None = None) -> str:
    """`error.format(...)`: `file:line:col: error[CODE]: message`, the line with a caret,
    and the notes. The line comes from `source`, else the text attached to the error
    (`error.source`), else the file the position names as the one reader read it
    (dsl/inputs.py; read once, never again); a file that cannot be read shows no line."""
    if source is None and error.source is None and error.position is not None and error.position.line >= 1:
        source = _read(error.position.file)
    return error.format(source)


def _read(file: str) -> str | None:
    """The text of a file as the one reader read it (read now if it was not), decoded once
    however many errors quote it: a file changed since it was read is quoted as it was read."""
    from .inputs import MAX_EVENT_LOG_BYTES, read_bytes, remembered
    data = remembered(file)
    if data is None:            # (not read yet by this process: read once, then remembered)
        try:
            data = read_bytes(file, what="file", limit=MAX_EVENT_LOG_BYTES)
        except DramaError:
            return None
    kept = _DECODED.get(id(data))
    if kept is None or kept[0] is not data:
        if len(_DECODED) > 8:
            _DECODED.clear()
        kept = (data, data.decode("utf-8-sig", "replace"))
        _DECODED[id(data)] = kept
    return kept[1]


_DECODED: dict[int, tuple[bytes, str]] = {}
