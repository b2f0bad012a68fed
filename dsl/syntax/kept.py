"""Scripts parsed by an earlier process, kept in the user's cache folder: a start that reads an unchanged script loads no parser."""

# A scenario's script is read at every `drama check` and `drama run`; reading it
# took a fifth of a check of the skirmish (issue 28): the generated parser
# module executed, Lark's tables deserialised and its lexers built, then the
# parse. The script as parsed is kept instead (dsl/user_cache.py, an entry
# `script-CRC.marshal`), with what it was parsed from: the file's name, the
# line offset and the whole text; and, as its version, the size and time of
# every module of the package (a node given a field, an edited builder: every
# script is read again). Only a clean parse is kept: one that reported
# nothing. A script with errors (or warnings) is parsed again at each start, so
# that each is reported as it is today; a kept one, read back, is exactly what
# the parse gave (tests/test_kept_scripts.py holds both to each other).
#
# A node is kept as plain data (`marshal` keeps lists, strings and numbers; it
# runs nothing): its class, named among the syntax tree's own dataclasses, and
# its attributes. A node shared by several places (a repeated statement) is
# kept once and read back shared; the few nodes the package compares by
# identity (`NO_DICE`, `NO_USES`) are kept by name and read back as those very
# nodes. Anything else in a tree (a value of another kind) means the script is
# not kept: it is parsed again at each start, as without a cache.

from __future__ import annotations

import importlib
from dataclasses import is_dataclass
from typing import Callable

from . import nodes, tree

_FORMAT = 1
# the modules of the classes a script's nodes are made of
_MODULES = frozenset({"dsl.syntax.tree", "dsl.syntax.conditions", "dsl.syntax.nodes", "dsl.errors",
                      "dsl.durations", "dsl.scenes"})
# the module-level nodes that readers compare with `is`, by name
_SINGLETONS = {name: getattr(tree, name) for name in ("NO_DICE", "NO_USES")}
_NAMES = {id(value): name for name, value in _SINGLETONS.items()}

# how each value is kept: a text, a number, True, False or None as itself; anything else as a
# list whose first item says what it is
_TUPLE, _LIST, _FROZENSET, _NODE, _AGAIN, _SINGLETON = "t", "l", "f", "n", "r", "s"


class _NotKept(Exception):
    """A tree holds a value that is not kept (it is parsed again at each start)."""


def parsed(text: str, file: str, line_offset: int, read: Callable[[], tuple[object, bool]]):
    """The script of `text` (read as from `file`, `line_offset` lines down): the one kept, if an
    earlier process parsed the same; else `read()`, which gives (the script, whether the parse
    was clean), and a clean one is kept. A parse that raises is not kept."""
    from .. import user_cache
    made: list = []

    def make():
        script, clean = read()
        made.append(script)
        if not clean:
            return None
        try:
            return _kept(script)
        except (_NotKept, RecursionError):
            return None

    data = user_cache.kept("script", f"{file}\n{line_offset}\n{text}", make,
                           version=(_FORMAT, user_cache.package_code()))
    if made:
        return made[0]
    if data is not None:
        try:
            return _read_back(data)
        except Exception:      # a damaged entry (of any shape): read the text again, as without one
            pass
    return read()[0]


def _kept(script) -> tuple[list[str], object]:
    """The script as plain data: (the classes named, the script's value)."""
    classes: dict[type, int] = {}
    seen: dict[int, int] = {}
    keep_alive: list = []               # (the ids in `seen` stay those of these objects)

    def value(thing):
        kind = type(thing)
        if kind in (str, int, float, bool) or thing is None:
            return thing
        if kind is tuple:
            return [_TUPLE, *map(value, thing)]
        if kind is list:
            return [_LIST, *map(value, thing)]
        if kind is frozenset:
            return [_FROZENSET, *map(value, sorted(thing, key=repr))]
        name = _NAMES.get(id(thing))
        if name is not None:
            return [_SINGLETON, name]
        if id(thing) in seen:
            return [_AGAIN, seen[id(thing)]]
        if not (is_dataclass(kind) and kind.__module__ in _MODULES and hasattr(thing, "__dict__")):
            raise _NotKept(kind.__qualname__)
        seen[id(thing)] = len(seen)
        keep_alive.append(thing)
        out = [_NODE, classes.setdefault(kind, len(classes))]
        for key, item in thing.__dict__.items():
            out.append(key)
            out.append(value(item))
        return out

    whole = value(script)
    return [f"{kind.__module__}:{kind.__qualname__}" for kind in classes], whole


def _read_back(data):
    """The script that `_kept` gave `data` for."""
    names, whole = data
    classes = []
    for name in names:
        module, qualname = name.split(":")
        if module not in _MODULES:
            raise ValueError(f"a kept script names {name}")
        kind = getattr(importlib.import_module(module), qualname)
        if not (isinstance(kind, type) and is_dataclass(kind)):
            raise ValueError(f"a kept script names {name}")
        classes.append(kind)
    built: list = []
    new = object.__new__

    def value(thing):
        if type(thing) is not list:
            return thing
        tag = thing[0]
        if tag == _NODE:
            node = new(classes[thing[1]])
            built.append(node)
            attributes = node.__dict__
            for i in range(2, len(thing), 2):
                attributes[thing[i]] = value(thing[i + 1])
            return node
        if tag == _TUPLE:
            return tuple([value(item) for item in thing[1:]])
        if tag == _AGAIN:
            return built[thing[1]]
        if tag == _SINGLETON:
            return _SINGLETONS[thing[1]]
        if tag == _LIST:
            return [value(item) for item in thing[1:]]
        if tag == _FROZENSET:
            return frozenset([value(item) for item in thing[1:]])
        raise ValueError(f"a kept script holds {tag!r}")

    script = value(whole)
    if type(script) is not nodes.Script:
        raise ValueError("a kept script is not a script")
    return script
