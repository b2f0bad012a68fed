"""The YAML layer of the loader: reading a file, composing it into checked nodes, and their positions."""

from __future__ import annotations

import os
import re
import threading
import warnings
from typing import Any, Iterator

from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError
from ruamel.yaml.events import AliasEvent, MappingStartEvent, ScalarEvent, SequenceStartEvent
from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode
from ruamel.yaml.parser import Parser

from ..errors import Diagnostics, DramaError, ErrorList, Position
from ..inputs import bad_character
from ..limits import MAX_NESTING
from . import kept_yaml

# the values a YAML file may hold, every alias and merge expanded (E522)
MAX_VALUES = 100_000
# nodes a YAML file may hold as it is written (values, aliases, lists and mappings): the
# parser stops at the first past it, so that no file under the size limit costs more
# than parsing this many (ruamel.yaml's pure-Python parser takes 30 to 80 microseconds a
# node, more the deeper it is); a cast of 2,000 parties holds about as many
MAX_NODES = 20_000


# ---------------------------------------------------------------------------
# Reporting

class Skip(Exception):
    """Collecting: this part (a file, a value) cannot be used; go on with the rest."""


class Fatal(Exception):
    """Collecting: nothing usable can be built."""


class Context:
    """One load: its `Diagnostics` sink (raise at once, or collect) and where this load's errors start."""

    def __init__(self, errors: Diagnostics | list | None):
        self.sink = Diagnostics.of(errors)
        self.start = len(self.sink.errors)

    def report(self, code: str, message: str, position: Position | None = None, **kwargs) -> None:
        """Give the sink an error; a stopping sink raises it."""
        self.sink.report(DramaError(code, message, position=position, **kwargs))

    def fatal_on_failure(self):
        return _FatalGuard(self)


class _Recording:
    """A context that also notes each report, so that a composed file kept for later
    (`YamlFile.parse`) gives its errors again, in order, to the next load's context."""

    def __init__(self, ctx: Context, reports: list):
        self.ctx = ctx
        self.reports = reports

    def report(self, code: str, message: str, position: Position | None = None, **kwargs) -> None:
        self.reports.append((code, message, position, kwargs))
        self.ctx.report(code, message, position, **kwargs)


# files composed lately, by (path, text): (the file, its reports, whether it was skipped)
_COMPOSED: dict[tuple[str, str], tuple["YamlFile", list, bool]] = {}
_KEEP = 16
_LOCK = threading.Lock()


class _FatalGuard:
    def __init__(self, ctx: Context):
        self.ctx = ctx

    def __enter__(self):
        return self

    def __exit__(self, kind, exc, tb):
        if kind is None or isinstance(exc, DramaError):
            return False
        if issubclass(kind, (Skip, Fatal)):
            found = self.ctx.sink.errors[self.ctx.start:]
            if not found:  # pragma: no cover - a skip is always reported first
                found = [DramaError("E101", "the file cannot be used")]
            raise ErrorList(found) from None
        return False


# ---------------------------------------------------------------------------
# Files and nodes

_CORE = "tag:yaml.org,2002:"
_STR, _INT, _FLOAT, _BOOL, _NULL = (_CORE + t for t in ("str", "int", "float", "bool", "null"))
_TIMESTAMP, _MERGE, _MAP, _SEQ = (_CORE + t for t in ("timestamp", "merge", "map", "seq"))
_SCALAR_TAGS = {_STR, _INT, _FLOAT, _BOOL, _NULL, _TIMESTAMP, _MERGE}


class _TooMany(Exception):
    """The parser met more than MAX_NODES nodes: it stops there (`at`: line, column)."""

    def __init__(self, at: tuple[int, int]):
        super().__init__(at)
        self.at = at


class _CountingParser(Parser):
    """ruamel.yaml's parser, counting the nodes it makes (values, aliases, collections) and
    stopping at the first past MAX_NODES: a flat list of a million values, or brackets
    nested deep and repeated, costs the parsing of MAX_NODES nodes at most, before any
    tree is built."""

    _NODES = (ScalarEvent, AliasEvent, SequenceStartEvent, MappingStartEvent)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.nodes = 0

    def get_event(self):
        event = super().get_event()
        if isinstance(event, self._NODES):
            self.nodes += 1
            if self.nodes > MAX_NODES:
                mark = event.start_mark
                raise _TooMany((mark.line + 1, mark.column + 1))
        return event


def _many_brackets(text: str) -> tuple[int, int] | None:
    """Where YAML text opens its (MAX_NODES + 1)th flow collection (`[` or `{`), or None:
    counted over the text before it is parsed (a bracket inside a quoted text counts too)."""
    if text.count("[") + text.count("{") <= MAX_NODES:
        return None
    seen = 0
    for found in re.finditer(r"[\[{]", text):
        seen += 1
        if seen > MAX_NODES:
            return _line_col(text, found.start())
    return None


def _too_deep(text: str) -> tuple[int, int] | None:
    """Where YAML text nests past MAX_NESTING, or None: flow collections (`[`, `{`)
    counted over the text, block ones by their indentation (at most 4 columns a level)."""
    if text.count("[") + text.count("{") > MAX_NESTING:
        depth = 0
        line = 1
        start = 0
        for index, char in enumerate(text):
            if char in "[{":
                depth += 1
                if depth > MAX_NESTING:
                    return line, index - start + 1
            elif char in "]}":
                depth = depth - 1 if depth else 0
            elif char == "\n":
                line += 1
                start = index + 1
    deepest = 4 * MAX_NESTING
    for number, row in enumerate(text.split("\n"), 1):
        if len(row) > deepest and len(row) - len(row.lstrip(" ")) > deepest:
            return number, deepest + 1
    return None


def _short_tag(tag: str) -> str:
    return "!!" + tag[len(_CORE):] if tag.startswith(_CORE) else tag


def _line_col(text: str, index: int) -> tuple[int, int]:
    """1-based line and column of a character index."""
    index = max(0, min(index, len(text)))
    line = text.count("\n", 0, index) + 1
    return line, index - (text.rfind("\n", 0, index) + 1) + 1


class YamlFile:
    """One YAML file: its path as given, its text and its checked node tree."""

    def __init__(self, path: str, text: str):
        self.path = path
        self.text = text
        self.lines = text.splitlines()
        self.root: Node | None = None
        self.values: dict[int, Any] = {}       # id(scalar node) -> Python value
        self.bad: set[int] = set()             # ids of nodes already reported
        self.dup_pairs: set[tuple[int, int]] = set()   # (id(mapping), index) of duplicate keys

    # -- reading -----------------------------------------------------------
    @classmethod
    def read(cls, path: str, ctx: Context, *, what: str, named_at: Position | None = None,
             hint: str | None = None) -> "YamlFile":
        text = read_text(path, ctx, what=what, named_at=named_at, hint=hint, yaml=True)
        return cls.parse(path, text, ctx)

    @classmethod
    def parse(cls, path: str, text: str, ctx: Context) -> "YamlFile":
        """The checked file, composed once per path and text: a file read again unchanged
        (the setting and cast of every `drama check` in the language server, each load of
        a replay) costs a copy, and gives the same errors again."""
        key = (path, text)
        with _LOCK:
            kept = _COMPOSED.pop(key, None)
            if kept is not None:
                _COMPOSED[key] = kept               # (the most recently used is kept longest)
        if kept is None:
            f = cls(path, text.removeprefix("\ufeff"))
            reports: list = []
            try:
                # (kept between processes when it composes cleanly: kept_yaml.py)
                kept_yaml.compose(f, lambda: f._compose(_Recording(ctx, reports)), reports)
                kept = (f, reports, False)
            except Skip:
                kept = (f, reports, True)
            with _LOCK:
                while len(_COMPOSED) >= _KEEP:
                    del _COMPOSED[next(iter(_COMPOSED))]
                _COMPOSED[key] = kept
        f, reports, skipped = kept
        for code, message, position, kwargs in reports:
            ctx.report(code, message, position, **kwargs)
        if skipped:
            raise Skip
        return f._copy()

    def _copy(self) -> "YamlFile":
        """A copy for one load: the composed nodes and values are shared (nothing changes
        them once composed), the set of nodes reported is its own (a load adds to it)."""
        copy = object.__new__(YamlFile)
        copy.__dict__.update(self.__dict__)
        copy.bad = set(self.bad)
        return copy

    def _compose(self, ctx: Context) -> None:
        deep = _too_deep(self.text)
        if deep is not None:    # ruamel.yaml's time grows with the square of the depth, then it recurses
            ctx.report("E101", f"the YAML is nested more than {MAX_NESTING} deep", Position(self.path, *deep),
                       expected=f"at most {MAX_NESTING} collections one inside another")
            raise Skip
        many = _many_brackets(self.text)
        if many is not None:    # (each bracket is a node; the deeper, the dearer to parse)
            ctx.report("E522", f"the YAML holds more than {MAX_NODES:,} values as it is written",
                       Position(self.path, *many), expected=f"at most {MAX_NODES:,} values, lists and "
                       "mappings in one file", hint="split the cast into several files (`cast: [a.yaml, b.yaml]`)")
            raise Skip
        yaml = YAML(typ="safe", pure=True)
        yaml.allow_duplicate_keys = False
        yaml.Parser = _CountingParser       # (the cost bounded while parsing, not after)
        failure = None
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                self.root = yaml.compose(self.text)
                self._constructor = yaml.constructor
                too_big = _expanded_size(self)
                problems = [] if too_big else self._check_tree()
        except _TooMany as many:
            ctx.report("E522", f"the YAML holds more than {MAX_NODES:,} values as it is written",
                       Position(self.path, *many.at),
                       expected=f"at most {MAX_NODES:,} values, lists and mappings in one file",
                       hint="split the cast into several files (`cast: [a.yaml, b.yaml]`)")
            raise Skip from None
        except YAMLError as exc:
            failure = _yaml_error(self, exc)
        except RecursionError:
            failure = ("the YAML is nested too deeply", Position(self.path, 1, 1))
        except (ValueError, TypeError, AttributeError, KeyError, IndexError) as exc:
            failure = (f"the YAML cannot be read: {exc}", Position(self.path, 1, 1))
        if failure is not None:
            ctx.report("E101", *failure)
            raise Skip
        if too_big:
            ctx.report("E522", *too_big, expected=f"at most {MAX_VALUES:,} values, aliases and merges expanded",
                       hint="write the values out, or use fewer aliases of aliases")
            raise Skip
        for code, message, position, kwargs in sorted(problems, key=lambda p: (p[2].line, p[2].column)):
            ctx.report(code, message, position, **kwargs)

    def _check_tree(self) -> list:
        """Tags, scalar values and duplicate keys, for every node; returns the problems."""
        problems: list = []
        checked: set[int] = set()

        def check(node: Node) -> bool:
            """Check one node's tag and convert a scalar; False if it is unusable."""
            if id(node) in checked:
                return id(node) not in self.bad
            checked.add(id(node))
            tag = str(node.tag)
            if isinstance(node, ScalarNode):
                ok, kind = tag in _SCALAR_TAGS, "a value"
            elif isinstance(node, MappingNode):
                ok, kind = tag == _MAP, "a mapping"
            elif isinstance(node, SequenceNode):
                ok, kind = tag == _SEQ, "a list"
            else:  # pragma: no cover - ruamel has no other node kinds
                ok, kind = False, "a node"
            if not ok:
                self.bad.add(id(node))
                plain = tag.startswith(_CORE) and tag[len(_CORE):] in (
                    "str", "int", "float", "bool", "null", "map", "seq")
                message = (f"the tag '{_short_tag(tag)}' cannot be used on {kind}" if plain else
                           f"the YAML tag '{_short_tag(tag)}' is not allowed")
                problems.append(("E106", message, self.pos(node, tag=True), {
                    "hint": "these files hold plain YAML values only: text, numbers, true/false, "
                            "lists and mappings; remove the tag"}))
                return False
            if isinstance(node, ScalarNode):
                try:
                    self.values[id(node)] = value = self._construct(node, tag)
                except Exception as exc:  # noqa: BLE001 - any failure of a scalar is the user's
                    self.bad.add(id(node))
                    reason = " ".join(str(exc).split()) or type(exc).__name__
                    problems.append(("E104", f"'{node.value}' cannot be read as {_short_tag(tag)} ({reason})",
                                     self.pos(node), {}))
                    return False
                found = bad_character(value) if isinstance(value, str) else None
                if found is not None:      # made by an escape: "\0", "\ud800"
                    self.bad.add(id(node))
                    problems.append(("E521", f"the value holds {found[1]}", self.pos(node), {
                        "expected": "text without NUL characters or lone surrogates",
                        "hint": "remove the escape that makes it (such as \\0 or \\ud800)"}))
                    return False
            return True

        if self.root is None:
            return problems
        expanded: set[int] = set()
        stack: list[Node] = [self.root]
        while stack:
            node = stack.pop()
            if id(node) in expanded:
                continue
            expanded.add(id(node))
            if not check(node):
                continue
            if isinstance(node, MappingNode):
                first: dict[Any, Node] = {}
                for index, (key, _value) in enumerate(node.value):
                    if not check(key):
                        continue
                    kid = self._key_id(key)
                    if kid is None:
                        continue
                    if kid in first:
                        self.dup_pairs.add((id(node), index))
                        earlier = first[kid]
                        problems.append(("E102", f"duplicate key '{key.value}'", self.pos(key), {
                            "notes": [f"'{key.value}' is first given at line {earlier.start_mark.line + 1}, "
                                      f"column {earlier.start_mark.column + 1}"],
                            "hint": "a key may appear only once in a mapping; remove or rename one"}))
                    else:
                        first[kid] = key
                for key, value in reversed(node.value):
                    stack.append(value)
                    stack.append(key)
            elif isinstance(node, SequenceNode):
                stack.extend(reversed(node.value))
        return problems

    def _construct(self, node: ScalarNode, tag: str) -> Any:
        if tag == _TIMESTAMP or tag == _MERGE:
            return node.value
        value = self._constructor.construct_object(node)
        if tag == _STR:
            return str(value)
        if tag == _BOOL:
            return bool(value)
        if tag == _INT:
            return int(value)
        if tag == _FLOAT:
            return float(value)
        return None

    def _key_id(self, key: Node):
        if not isinstance(key, ScalarNode) or id(key) not in self.values:
            return None
        value = self.values[id(key)]
        return (str(key.tag), type(value).__name__, value)

    # -- positions -----------------------------------------------------------
    def pos(self, node: Node, *, tag: bool = False) -> Position:
        start, end = node.start_mark, node.end_mark
        line, col = start.line + 1, start.column + 1
        end_col = None
        if tag:
            text = self.lines[start.line] if start.line < len(self.lines) else ""
            stop = start.column
            while stop < len(text) and not text[stop].isspace() and text[stop] not in ",]}":
                stop += 1
            end_col = stop + 1 if stop > start.column else None
        elif end is not None and end.line == start.line and end.column > start.column:
            one_line = isinstance(node, ScalarNode) or bool(getattr(node, "flow_style", False))
            if one_line:
                end_col = end.column + 1
        return Position(self.path, line, col, end_col)

    def sub_pos(self, node: Node, index: int, length: int) -> Position:
        """The position of `length` characters at `index` of a one-line scalar's text."""
        whole = self.pos(node)
        style = getattr(node, "style", None)
        if node.start_mark.line != node.end_mark.line or style not in (None, '"', "'"):
            return whole
        col0 = node.start_mark.column + (1 if style else 0) + index
        text = self.lines[node.start_mark.line] if node.start_mark.line < len(self.lines) else ""
        value = self.values.get(id(node))
        if not isinstance(value, str) or text[col0:col0 + length] != value[index:index + length]:
            return whole
        return Position(self.path, node.start_mark.line + 1, col0 + 1, col0 + 1 + length)

    def value_pos(self, key: Node, value: Node) -> Position:
        """Where a value is, or its key when the value is empty (`key:` and nothing)."""
        if isinstance(value, ScalarNode) and value.value == "" and value.style is None:
            return self.pos(key)
        return self.pos(value)

    # -- values --------------------------------------------------------------
    def value(self, node: Node) -> Any:
        """A scalar's Python value (None for a mapping or a list)."""
        return self.values.get(id(node))

    def is_bad(self, node: Node) -> bool:
        return id(node) in self.bad

    def items(self, node: MappingNode, ctx: Context) -> Iterator[tuple[Any, Node, Node]]:
        """(key value, key node, value node) in order, merges expanded, duplicates dropped."""
        yield from self._items(node, ctx, depth=0, skip=set())

    def _items(self, node: MappingNode, ctx: Context, depth: int, skip: set) -> Iterator[tuple[Any, Node, Node]]:
        own, merges = [], []
        for index, (key, value) in enumerate(node.value):
            if (id(node), index) in self.dup_pairs or self.is_bad(key):
                continue
            if isinstance(key, ScalarNode) and str(key.tag) == _MERGE:
                merges.append((key, value))
                continue
            own.append((self.value(key) if isinstance(key, ScalarNode) else None, key, value))
        seen = set(skip)
        for kv, key, value in own:
            ident = self._key_id(key) or id(key)
            if ident in seen:
                continue
            seen.add(ident)
            yield kv, key, value
        for key, value in merges:
            if self.is_bad(value):
                continue
            sources = value.value if isinstance(value, SequenceNode) else [value]
            if depth > 20 or not all(isinstance(s, MappingNode) and not self.is_bad(s) for s in sources):
                self.bad.add(id(value))
                ctx.report("E104", "a merge ('<<') needs a mapping or a list of mappings",
                           self.value_pos(key, value))
                continue
            for source in sources:
                for kv, k, v in self._items(source, ctx, depth + 1, seen):
                    ident = self._key_id(k) or id(k)
                    if ident in seen:
                        continue
                    seen.add(ident)
                    yield kv, k, v


# what a scenario's `setting:`, `cast:` and `script:` may name, after following links
YAML_SUFFIXES = (".yaml", ".yml")
SCRIPT_SUFFIXES = (".drama",)


def _yaml_error(f: "YamlFile", exc: YAMLError) -> tuple[str, Position]:
    """The message and position of what ruamel.yaml could not read (E101)."""
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None)
    context = getattr(exc, "context", None)
    if mark is not None:
        position = Position(f.path, mark.line + 1, mark.column + 1)
    elif isinstance(getattr(exc, "position", None), int):
        # a ReaderError: a character YAML does not allow
        line, col = _line_col(f.text, exc.position)
        position = Position(f.path, line, col)
        char = getattr(exc, "character", None)
        if isinstance(char, int):
            char = chr(char)
        problem = f"the character {char!r} is not allowed in YAML" if char is not None else \
            str(getattr(exc, "reason", "")) or "a character is not allowed in YAML"
    else:
        position = Position(f.path, 1, 1)
    if not problem:
        problem = " ".join(str(exc).split()) or "the YAML cannot be read"
    message = f"invalid YAML: {problem}"
    context_mark = getattr(exc, "context_mark", None)
    if context and context_mark is not None and mark is not None and \
            (context_mark.line, context_mark.column) != (mark.line, mark.column):
        message += f" ({context} at line {context_mark.line + 1}, column {context_mark.column + 1})"
    elif context:
        message += f" ({context})"
    return message, position


def _expanded_size(f: "YamlFile") -> tuple[str, Position] | None:
    """The message and position of the first node whose value, every alias and
    merge expanded, holds more than MAX_VALUES values (or itself); None if none does.
    Counted once per node, so a bomb of aliases of aliases is found in linear time."""
    if f.root is None:
        return None
    size: dict[int, int] = {}
    open_: set[int] = set()        # the nodes being counted: an alias back to one is a loop, counted
    # as one value here (the schema reports a loop where it finds one, E104)
    stack: list[tuple[Node, bool]] = [(f.root, False)]
    while stack:
        node, done = stack.pop()
        key = id(node)
        kids = ([k for pair in node.value for k in pair] if isinstance(node, MappingNode) else
                list(node.value) if isinstance(node, SequenceNode) else [])
        if done:
            open_.discard(key)
            size[key] = total = 1 + sum(size.get(id(kid), 1) for kid in kids)
            if total > MAX_VALUES:
                return (f"the YAML holds more than {MAX_VALUES:,} values once its aliases and merges are "
                        f"expanded", f.pos(node))
            continue
        if key in size:
            continue
        open_.add(key)
        stack.append((node, True))
        stack.extend((kid, False) for kid in reversed(kids) if id(kid) not in size and id(kid) not in open_)
    return None


def read_text(path: str, ctx: Context, *, what: str, named_at: Position | None, hint: str | None,
               yaml: bool) -> str:
    """The text of a file, read by the one reader (`dsl.inputs`): E108 (missing,
    unreadable), E520 (not a regular file, too big), E521 (a NUL, in the path or
    in a script), E101 (YAML not UTF-8)."""
    from .. import inputs
    try:
        data = inputs.read_bytes(path, what=what, limit=inputs.MAX_YAML_BYTES if yaml else inputs.MAX_BYTES)
    except DramaError as error:
        if error.code == "E108" and hint and not error.hint:
            error.hint = hint
        ctx.sink.report(error.at(named_at))
        raise Skip from None
    if named_at is not None:            # named by the scenario: a file of its kind, or not used (nor quoted)
        kinds = YAML_SUFFIXES if yaml else SCRIPT_SUFFIXES
        real = os.path.realpath(path)
        if not real.lower().endswith(kinds):
            shown = f" (a link to '{real}')" if os.path.basename(real) != os.path.basename(path) else ""
            ctx.report("E108", f"the {what} '{path}'{shown} is not a {' or '.join(kinds)} file: it is not used",
                       named_at, expected=f"a path to a {what} ending in {' or '.join(kinds)}",
                       hint="a scenario names its setting and casts as YAML files and its script as a .drama "
                            "file (docs/language.md, \"The scenario file\")")
            inputs.forget(path)
            raise Skip
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        text, start = None, exc.start
    if text is None:
        line = data.count(b"\n", 0, start) + 1
        line_start = data.rfind(b"\n", 0, start) + 1
        col = len(data[line_start:start].decode("utf-8", "replace")) + 1
        if line == 1 and data.startswith(b"\xef\xbb\xbf"):
            col -= 1
        where = f"line {line}, column {col}"
        if yaml:
            ctx.report("E101", f"the {what} '{path}' is not UTF-8 text (byte 0x{data[start]:02x} at {where})",
                       Position(path, line, col), hint="save the file as UTF-8")
        else:
            ctx.report("E108", f"cannot read the {what} '{path}': it is not UTF-8 text",
                       named_at, notes=[f"byte 0x{data[start]:02x} at {path}:{line}:{col}"],
                       hint="save the file as UTF-8")
        raise Skip
    if yaml:
        return text
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    try:                            # (a NUL; strict UTF-8 never decodes to a lone surrogate)
        inputs.check_text(text, path, what=what)
    except DramaError as error:
        ctx.sink.report(error)
        raise Skip from None
    return text
