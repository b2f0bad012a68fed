"""YAML files composed by an earlier process, kept in the user's cache folder: a start that reads an unchanged setting or cast composes nothing."""

# ruamel.yaml composes in pure Python (the loader bounds its cost as it
# parses, yamlnodes.py): the three files of the skirmish took about 10 ms of
# every `drama check` and `drama run`, and twice that the first time in a
# process (issue 28). A file that composed and checked with nothing to report
# is kept (dsl/user_cache.py, an entry `yaml-CRC.marshal`) with its path and
# whole text, and, as its version, ruamel.yaml's version and the size and
# time of every module of the package. It is kept as plain data: each node's
# kind, tag, text, start and end (line and column: all the loader reads of
# them), style, and the Python value the check gave a scalar; a node an alias
# shares is kept once and read back shared. Read back, the nodes are
# ruamel.yaml's own classes, so the loader reads them as it reads a tree it
# composed. A file with any error or warning is composed again at every start,
# and reports them as before (tests/test_kept_yaml.py holds both to each other).

from __future__ import annotations

from typing import Callable

_FORMAT = 1
# whether a clean file is kept for the next process (the language server's processes turn it
# off: a file being edited is a new text at every change, and keeping each would fill the
# folder and push out what a start needs; they keep their compositions in memory instead)
_keeping = True


def keep(on: bool = True) -> None:
    """Keep (or not) the files this process composes for the next one (see `_keeping`)."""
    global _keeping
    _keeping = on


_SCALAR, _MAPPING, _SEQUENCE, _AGAIN = "s", "m", "q", "r"


class _NotKept(Exception):
    """A tree with something the plain data does not hold: composed at every start."""


def compose(f, composing: Callable[[], None], reports: list) -> None:
    """Give `f` (a YamlFile just made) its tree: the one kept for its path and text if an
    earlier process composed it cleanly; else `composing()` (which may raise, and adds what it
    finds to `reports`), kept when it reported nothing."""
    if not _keeping:
        composing()
        return
    from .. import user_cache
    from ruamel.yaml import __version__ as ruamel_version
    made: list = []

    def make():
        composing()
        made.append(True)
        if reports or f.bad or f.dup_pairs or f.root is None:
            return None
        try:
            return _kept(f)
        except (_NotKept, RecursionError):
            return None

    data = user_cache.kept("yaml", f"{f.path}\n{f.text}", make,
                           version=(_FORMAT, ruamel_version, user_cache.package_code()))
    if made:
        return
    if data is not None:
        try:
            f.root, f.values = _read_back(data)
            return
        except Exception:       # a damaged entry (of any shape): composed again, as without one
            f.root, f.values = None, {}
    composing()


def _mark(mark) -> tuple | None:
    return None if mark is None else (mark.line, mark.column)


def _kept(f):
    from ruamel.yaml.nodes import MappingNode, ScalarNode, SequenceNode
    seen: dict[int, int] = {}
    values = f.values

    def node(n):
        if id(n) in seen:
            return [_AGAIN, seen[id(n)]]
        seen[id(n)] = len(seen)
        kind = type(n)
        head = [str(n.tag), _mark(n.start_mark), _mark(n.end_mark)]
        if kind is ScalarNode:
            value = values.get(id(n), _NotKept)
            if value is _NotKept or type(value) not in (str, int, float, bool, type(None)) \
                    or not isinstance(n.value, str):
                raise _NotKept("a scalar without its value")
            return [_SCALAR, *head, n.value, n.style, value]
        if kind is MappingNode:
            return [_MAPPING, *head, n.flow_style, [[node(k), node(v)] for k, v in n.value]]
        if kind is SequenceNode:
            return [_SEQUENCE, *head, n.flow_style, [node(item) for item in n.value]]
        raise _NotKept(kind.__name__)
    return node(f.root)


def _read_back(data):
    """(the root node, the scalars' values by the id of their node) of what `_kept` gave."""
    from ruamel.yaml.error import StreamMark
    from ruamel.yaml.nodes import MappingNode, ScalarNode, SequenceNode
    built: list = []
    values: dict = {}

    def mark(at):
        return None if at is None else StreamMark(None, 0, at[0], at[1])

    def node(d):
        kind = d[0]
        if kind == _AGAIN:
            return built[d[1]]
        tag, start, end = d[1], mark(d[2]), mark(d[3])
        if not isinstance(tag, str):
            raise ValueError("a kept YAML node without a tag")
        if kind == _SCALAR:
            text, style, value = d[4], d[5], d[6]
            if not isinstance(text, str):
                raise ValueError("a kept scalar without its text")
            n = ScalarNode(tag, text, start, end, style=style)
            built.append(n)
            values[id(n)] = value
            return n
        if kind == _MAPPING:
            n = MappingNode(tag, [], start, end, flow_style=d[4])
            built.append(n)
            n.value.extend((node(k), node(v)) for k, v in d[5])
            return n
        if kind == _SEQUENCE:
            n = SequenceNode(tag, [], start, end, flow_style=d[4])
            built.append(n)
            n.value.extend(node(item) for item in d[5])
            return n
        raise ValueError(f"a kept YAML node of kind {kind!r}")
    root = node(data)
    return root, values
