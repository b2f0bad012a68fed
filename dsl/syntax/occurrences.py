"""A repeated line's occurrences: the one place that knows how the shared node's positions are shifted down to each.

A statement written several times (play logs repeat many lines) is parsed
once, and its one node is shared by every occurrence (`nodes.Script`): its
positions are those of its first occurrence, and each occurrence keeps a
*shift*, how many lines further down it is. Whatever reports a position of
an occurrence adds its shift, through this module:

- `moved(tree, lines)`: a copy of a node (or position, or tuple of them)
  `lines` lines further down. `Script.statements` is made with it, for the
  readers that want each statement with its own positions;
- `moved_error(error, statement, lines)`: an error met while running an
  occurrence of `statement`, given that occurrence's place. Only a position
  within the node's own lines moves, so an error placed already (at another
  statement, or moved before) is left alone;
- an event's line is the node's line plus the shift (`Interpreter.line`).
"""

from __future__ import annotations

import dataclasses
import re

from ..errors import DramaError, Position
from . import conditions, tree as nodes     # the node classes (nodes.py, which holds `Script`, reads this module)

__all__ = ["moved", "moved_error", "last_line"]

# The fields of each node class that hold positions (found from their
# annotations). Copies are made the way copy.copy makes them (a new object
# given the old one's __dict__), twice as fast as calling the constructors;
# the nodes are frozen dataclasses without slots.
_NODE_CLASSES = [cls for module in (nodes, conditions) for cls in vars(module).values()
                 if isinstance(cls, type) and dataclasses.is_dataclass(cls) and cls.__module__ == module.__name__]
_POSITIONED = re.compile(r"\b(?:Position|%s)\b" % "|".join(cls.__name__ for cls in _NODE_CLASSES))
_MOVING = {
    cls: tuple(f.name for f in dataclasses.fields(cls)
               if not isinstance(f.type, str) or _POSITIONED.search(f.type))
    for cls in _NODE_CLASSES
}
_new = object.__new__
_Name = nodes.Name


def _moved_position(position: Position, lines: int) -> Position:
    copy = _new(Position)
    state = copy.__dict__
    state.update(position.__dict__)
    state["line"] += lines
    return copy


def _moved_name(name: nodes.Name, lines: int) -> nodes.Name:
    copy = _new(_Name)
    state = copy.__dict__
    state.update(name.__dict__)
    state["pos"] = _moved_position(name.pos, lines)
    return copy


def moved(value, lines: int):
    """A copy of a syntax tree (or part of it, or a Position) `lines` lines further down."""
    kind = type(value)
    if kind is tuple:
        if not value:
            return value
        return tuple([_moved_name(item, lines) if type(item) is _Name else moved(item, lines) for item in value])
    if kind is _Name:
        return _moved_name(value, lines)
    if kind is Position:
        return _moved_position(value, lines)
    moving = _MOVING.get(kind)
    if moving is None or value is nodes.NO_DICE or value is nodes.NO_USES:
        return value  # str, int, None, Duration, or a node without positions
    copy = _new(kind)
    state = copy.__dict__
    state.update(value.__dict__)
    for name in moving:
        item = state[name]
        if item is None:
            continue
        kind = type(item)
        if kind is Position:
            state[name] = _moved_position(item, lines)
        elif kind is _Name:
            state[name] = _moved_name(item, lines)
        elif kind is not tuple or item:
            state[name] = moved(item, lines)
    return copy


def last_line(value) -> int:
    """The last line any position of a syntax tree is on (0 for none)."""
    kind = type(value)
    if kind is Position:
        return value.line
    if kind is tuple:
        return max(map(last_line, value), default=0)
    moving = _MOVING.get(kind)
    if moving is None:
        return 0
    return max((last_line(getattr(value, name)) for name in moving), default=0)


def moved_error(error: DramaError, statement: nodes.Statement, lines: int) -> DramaError:
    """The error met while running an occurrence of `statement` `lines` lines below
    the node's own: its position moves with the occurrence when it is one of the
    node's (on the node's own lines, in its file). Moving it twice changes nothing."""
    position = error.position
    if lines and position is not None and position.file == statement.pos.file \
            and statement.pos.line <= position.line <= last_line(statement):
        error.position = _moved_position(position, lines)
    return error
