"""Terminal safety: the one function that makes text safe to print, control characters shown as symbols.

Names, titles and narration come from files shared between game masters, and
a terminal obeys the control characters it is sent: `ESC ] 52` writes the
clipboard, `ESC ] 0` the window title, the one-character CSI (U+009B) starts
any command. So every text a command prints (its output, its errors) goes
through `printable`, at the one writer of standard output and standard error
(`dsl/outputs.py`, `dsl/cli/common.py`): each C0 control character but the
line break and the tab is shown as its Unicode picture (ESC as ␛, NUL as ␀),
DEL as ␡, and each C1 control character (U+0080-U+009F) and the line and
paragraph separators as `<U+009B>`. JSON text is escaped instead, so that it
still reads back as the same data (`json_safe`).
"""

from __future__ import annotations

import re

__all__ = ["printable", "json_safe", "CONTROL"]

# what a terminal may take as a command: C0 but \t and \n, DEL, C1, and U+2028/U+2029 (lines to some)
CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029]")
# (the same, for JSON text, where \t and \n are already escaped inside strings)
_JSON_CONTROL = re.compile("[\x7f-\x9f\u2028\u2029]")


def _symbol(match: re.Match) -> str:
    char = match.group()
    code = ord(char)
    if code < 0x20:
        return chr(0x2400 + code)
    if code == 0x7f:
        return "\u2421"
    return f"<U+{code:04X}>"


def printable(text: str) -> str:
    """`text` with every control character shown as a symbol (the line break and the tab kept)."""
    if CONTROL.search(text) is None:       # (the common case: nothing to do, no copy)
        return text
    return CONTROL.sub(_symbol, text)


def json_safe(text: str) -> str:
    """JSON text (from `json.dumps(..., ensure_ascii=False)`) with DEL, the C1 controls and
    U+2028/U+2029 written as `\\u` escapes: the same data, safe on a terminal."""
    if _JSON_CONTROL.search(text) is None:
        return text
    return _JSON_CONTROL.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
