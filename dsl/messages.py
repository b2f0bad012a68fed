"""Error messages as the commands show them: an error with the line it points at, read from its file when the caller has not got the text."""

from __future__ import annotations

from .errors import DramaError


def shown(error: DramaError, source: str | None = None) -> str:
    """`error.format(...)`: `file:line:col: error[CODE]: message`, the line with a caret,
    and the notes. The line comes from `source`, else the text attached to the error
    (`error.source`), else the file the position names as the one reader read it
    (dsl/inputs.py, never read again); a file not read as an input shows no line."""
    if source is None and error.source is None and error.position is not None and error.position.line >= 1:
        source = _read(error.position.file)
    return error.format(source)


def _read(file: str) -> str | None:
    """The text of a file as the one reader read it, decoded once however many errors quote
    it; a file this process did not read as an input is not read now (nor quoted)."""
    from .inputs import remembered
    data = remembered(file)
    if data is None:
        return None
    kept = _DECODED.get(id(data))
    if kept is None or kept[0] is not data:
        if len(_DECODED) > 8:
            _DECODED.clear()
        kept = (data, data.decode("utf-8-sig", "replace"))
        _DECODED[id(data)] = kept
    return kept[1]


_DECODED: dict[int, tuple[bytes, str]] = {}
