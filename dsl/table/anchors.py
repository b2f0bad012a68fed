"""Where a journal's entry belongs in the script: anchored by what it is (its kind, the parties it names, its intent or label), not by its line, so that a script edited outside the part played still resumes (E904 when it cannot).
"""

from __future__ import annotations

from typing import Callable

from ..errors import DramaError
from ..syntax import nodes as n


def check(entry, number: int, statement: n.Statement | None, standing: list[n.Statement], group: int,
          party: Callable[[n.Name], str]) -> None:
    """Check that an entry of the journal that came from the script is the statement the script
    has at this point now: anchored by what it is (its kind, parties and intent), not by its line,
    so that a script edited above, below or beside the part played still resumes (E904)."""
    marker = entry.marker
    first = (entry.text.strip("\n").splitlines() or [""])[0]
    was = f"its entry {number} (`{first}`, line {marker.line} of the script then)" if marker.kind == "script" \
        else f"its entry {number} (line {marker.line} of the script then, skipped)"
    if statement is None:
        problem = "the script has ended there"
    elif marker.kind == "skip" or not entry.statements:
        return                 # what was skipped is not in the journal: it is the script's next statement
    elif what(entry.statements[0], party) not in {what(s, party) for s in (statement, *standing)}:
        problem = f"the script has `{what_line(statement) or type(statement).__name__}` there " \
                  f"(line {statement.pos.line})"
    elif group != marker.count:
        problem = (f"the statement of line {statement.pos.line} has {group - 1} line{'s' if group != 2 else ''} "
                   f"answering it now, not {marker.count - 1}")
    else:
        return
    raise DramaError("E904", f"the journal does not follow the script: {was}, but {problem}",
                     hint="the part of the script already played was changed since the session; "
                          "play the journal with `drama run`, or restore that part of the script")


def what(statement: n.Statement, party) -> tuple:
    """What a statement is, apart from its place, its dice and its texts: its kind, the parties it
    names (by id: a role and its party are the same) and its intent or label (the anchor of a
    journal's entry in the script)."""
    names = []
    for field_name in ("actors", "target", "extra_targets", "parties", "party", "intent", "label", "name"):
        value = getattr(statement, field_name, None)
        for one in value if isinstance(value, tuple) else (value,):
            if isinstance(one, n.Name) and field_name not in ("intent", "label", "name"):
                try:
                    names.append((field_name, party(one)))
                    continue
                except DramaError:
                    pass
            text = getattr(one, "text", one)
            if isinstance(text, str):
                names.append((field_name, text))
    return (type(statement).__name__, tuple(names))


def what_line(statement: n.Statement) -> str | None:
    """The statement's line of the script as written (None when it cannot be read)."""
    import linecache
    text = linecache.getline(statement.pos.file, statement.pos.line).strip()
    return text or None
