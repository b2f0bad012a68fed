"""The run's state as frozen data: what `Interpreter.snapshot` saves and `Interpreter.restore` puts back, and the shared history of a log.

The interpreter (`core.Interpreter`) is the machine: the program's names, the
run mode, the handlers, the error sink. What a run changes is its state: the
game table, the flags and counters, the choices made and the `once` options
taken, the exchange being declared, who has fallen, the last exchange, the
budget spent and where the walk is. `RunState` holds all of it, frozen, as
ink's `StoryState` is held apart from its `Story`: a snapshot stays valid
whatever the run does next, and restoring it and running the same statements
gives the very same events (tests/test_snapshots.py).

The event log and the accepted statements only grow, and a night's may be
long: they are kept as a `History` of `Mark`s, each holding only what came
after the mark before it, so that marking and going back cost the items in
between, never the whole log.
"""

from __future__ import annotations

from dataclasses import replace

from ..frozen import frozen
from ..engine.saved import SavedGame
from .exchanges import Pending


@frozen
class RunState:
    """Everything an interpreter's run has changed, at one moment."""

    game: SavedGame
    flags: tuple[tuple[str, bool | int], ...]
    chosen: tuple[tuple[str, str], ...]
    used_once: frozenset[tuple[str, int]]
    pending: Pending | None         # a copy, never changed (restoring copies it again)
    fallen: frozenset[str]
    last: object                    # the engine's (immutable) result of the last exchange, or None
    members_lost: tuple[tuple[str, tuple[str, ...]], ...]
    steps: int
    spent: object                   # E012 of a collecting run that stopped, or None


def copy_pending(pending: Pending | None) -> Pending | None:
    """An exchange being declared, copied so that neither copy changes the other."""
    if pending is None:
        return None
    return replace(pending, defences=list(pending.defences), ties=list(pending.ties), later=list(pending.later),
                   defence_shifts=list(pending.defence_shifts), tie_shifts=list(pending.tie_shifts))


@frozen(eq=False)
class Mark:
    """A point in a growing list: the items since the mark before (`parent`), and how many in all."""

    parent: "Mark | None"
    items: tuple
    length: int


def _length(mark: Mark | None) -> int:
    return 0 if mark is None else mark.length


class History:
    """A list that only grows, with marks to go back (or forth) to: `mark` and `rewind`.

    `items` is the list itself, shared with whoever appends to it (the
    interpreter's event log); `at` is the latest mark it extends."""

    def __init__(self, items: list, at: Mark | None = None):
        self.items = items
        self.at = at

    def mark(self) -> Mark | None:
        """A mark of the list as it is now; costs the items since the last mark."""
        at = self.at
        start = _length(at)
        if len(self.items) > start:
            at = self.at = Mark(at, tuple(self.items[start:]), len(self.items))
        return at

    def rewind(self, to: Mark | None) -> None:
        """The list as it was at the mark `to` (of this history, or of one it was forked from);
        costs the items between the two points, however long the list."""
        a, b = self.at, to
        while a is not b:            # their last common mark
            if _length(a) >= _length(b):
                a = a.parent
            else:
                b = b.parent
        chunks = []
        node = to
        while node is not a:
            chunks.append(node.items)
            node = node.parent
        items = self.items
        del items[_length(a):]
        for chunk in reversed(chunks):
            items.extend(chunk)
        self.at = to
