"""The script's syntax tree: its node classes (`tree.py`, `conditions.py`), every kind of statement (`STATEMENTS`), the one walk, and the parsed `Script`.

What each kind of statement is to the rest of the package is said once, on
its class (`tree.Statement`'s traits), and read from there: the keywords of
hover, the lines the fallen skip, the lines of an exchange, the fast path's
hand-over, the events a statement emits. `STATEMENTS` lists every kind;
tests/test_statements.py fails when a kind lacks its handler, its layout
writer, its hover text or its place in the transcript.
"""

from __future__ import annotations

from dataclasses import field
from functools import cached_property
from itertools import repeat
from typing import Iterable, Iterator

from ..frozen import frozen
from .occurrences import moved
from .conditions import *  # noqa: F401,F403  (the conditions, read as `nodes.Defeated`, ...)
from .tree import *  # noqa: F401,F403  (the node classes, read as `nodes.Action`, ...)
from .tree import Node, Statement


def _kinds(base: type) -> tuple[type, ...]:
    found = []
    for sub in base.__subclasses__():
        found.append(sub)
        found.extend(_kinds(sub))
    return tuple(found)


# every kind of statement, in the order of tree.py
STATEMENTS: tuple[type[Statement], ...] = _kinds(Statement)
# every kind of node (statements, conditions, and their parts)
NODES: tuple[type[Node], ...] = _kinds(Node)


def kinds(trait: str) -> tuple[type[Statement], ...]:
    """The kinds of statement that have this trait (`kinds("may_skip")`), for `isinstance` and `in`."""
    return tuple(kind for kind in STATEMENTS if getattr(kind, trait))


def walk(statements: Iterable[Statement]) -> Iterator[Statement]:
    """Every statement, and every statement nested in it, in the order of the script."""
    for s in statements:
        yield s
        if s.is_block:
            for body in s.bodies():
                yield from walk(body)


def node_of_word(word: str) -> type[Node] | None:
    """The node a keyword begins or carries (hover): of the nodes with the word in their
    `words`, the one it comes first in, then a block's own line (`end`: End, not EndDrama;
    `repeat`: Repeat, not Loop), then the one with the fewest words, then the first in
    tree.py."""
    return _OF_WORD.get(word)


def _of_word() -> dict[str, type[Node]]:
    ranked: dict[str, tuple] = {}
    for order, kind in enumerate(NODES):
        for index, word in enumerate(kind.words):
            rank = (index, not getattr(kind, "block_line", False), len(kind.words), order, kind)
            if word not in ranked or rank[:4] < ranked[word][:4]:
                ranked[word] = rank
    return {word: rank[-1] for word, rank in ranked.items()}


_OF_WORD: dict[str, type[Node]] = _of_word()


@frozen(eq=False)
class Script:
    """A parsed script: its statements in order, and the file they came from.

    A statement written several times is one node, shared by its occurrences
    (the parse reads each distinct statement once): `shared` holds the nodes
    in order, a repeated one each time it occurs, with the positions of its
    first occurrence, and `shifts` how many lines further down each
    occurrence is (empty when none is). `occurrences()` gives both, for the
    readers that add the shift themselves (the interpreter);
    `statements` is each statement with its own positions, copied on first
    use (`occurrences.py`), for every other reader. Two scripts are equal when
    their statements are.
    """

    file: str
    shared: tuple[Statement, ...] = field(default_factory=tuple)
    shifts: tuple[int, ...] = ()

    @cached_property
    def statements(self) -> tuple[Statement, ...]:
        if not self.shifts:
            return self.shared
        return tuple([moved(s, shift) if shift else s for s, shift in zip(self.shared, self.shifts)])

    def occurrences(self) -> Iterable[tuple[Statement, int]]:
        """(node, shift) for each statement in order: its place is the node's, `shift` lines down."""
        return zip(self.shared, self.shifts) if self.shifts else zip(self.shared, repeat(0))

    def __eq__(self, other) -> bool:
        if not isinstance(other, Script):
            return NotImplemented
        return self.file == other.file and self.statements == other.statements

    def __hash__(self) -> int:
        return hash((self.file, self.statements))
