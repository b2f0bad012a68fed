"""The loader: setting, cast and scenario YAML -> Settings, PartySheets and a Scenario, with positions.

How it reads YAML
-----------------
Each file is decoded as UTF-8 (an optional BOM is dropped) and *composed* with
ruamel.yaml into a node tree; no ruamel constructor ever runs on a mapping or a
list, and no Python object is ever built from a tag. The loader then:

1. walks every node once (iteratively, aliases visited once) and checks that its
   tag is one of the plain YAML tags (str, int, float, bool, null, map, seq,
   timestamp, merge); anything else, `!!python/object/apply:...` included, is
   E106 at the tag. Each scalar is converted with ruamel's *safe* constructor
   (a failure such as `!!int abc` is E104). Duplicate keys in one mapping are
   E102 at the second key, with a note naming the first. (ruamel's own duplicate
   check, `allow_duplicate_keys = False`, is left on; it never gets to run
   because the loader builds its values from the nodes itself.)
2. validates the tree against the schema of the file (see `SETTING_KEYS`,
   `PARTY_KEYS`, `SCENARIO_KEYS`), taking every position from the nodes' marks,
   so every error points at the key or value at fault (1-based line:column,
   with an end column for the caret where the token sits on one line).

Merge keys (`<<: *base`) are honoured: a mapping's own keys win over merged
ones, and merged keys keep the position where they are written.

Dates (`2024-01-01`) are read as text: no field of these files takes a date.

Error codes
-----------
E101 unreadable YAML (syntax, bad characters, not UTF-8, nested too deeply);
E102 duplicate key; E103 unknown key (with did-you-mean); E104 wrong type or
form, bad party id, bad choice; E105 missing required key; E106 tag not allowed;
E107 duration that cannot be read; E108 file missing or unreadable (pointing at
the scenario key that names it); E109 party defined twice; E110 move naming a
trait or treasure the party lacks.

Collecting errors
-----------------
Each `load_*` takes `errors=`: a list. Without it the first error is raised.
With it, every error found is appended and loading goes on with what is valid
(a bad setting key keeps its default, a bad party field is dropped or zeroed, a
party with a bad id is skipped); `ErrorList` (a DramaError) is raised, holding
the errors of this call, only when nothing usable can be built (the file given
cannot be read or parsed, or its top level is not a mapping). When the list
has grown, the returned object is only good for checking, not for running.
"""

from __future__ import annotations

import os
import re
import warnings
import dataclasses
from dataclasses import dataclass, field
from typing import Any, Iterator, Mapping

from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError
from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from .durations import Duration, parse_duration
from .engine.parties import TIE_POLICIES, Move, PartySheet, Settings
from .errors import DramaError, ErrorList, Position, did_you_mean, one_of

__all__ = [
    "ScriptSource", "Scenario",
    "load_setting", "load_cast", "load_scenario",
    "loads_setting", "loads_cast", "loads_scenario",
    "SETTING_KEYS", "DICE_KEYS", "CAST_KEYS", "PARTY_KEYS", "SCENARIO_KEYS",
]

SETTING_KEYS = ("name", "round", "recovery", "calm", "full_rest", "dice", "ties")
DICE_KEYS = ("sides", "high")
CAST_KEYS = ("parties",)
PARTY_KEYS = ("name", "quintessence", "traits", "treasures", "members", "moves")
SCENARIO_KEYS = ("title", "setting", "cast", "script", "roles")

# characters a party id may not contain: they separate names in a script
PARTY_ID_FORBIDDEN = "&,#\"\n\r"
# characters a trait or treasure name may not contain: `with A + B`, `, roll`, comments
SHEET_NAME_FORBIDDEN = "+,#\"\n\r"
RESERVED_IDS = ("GM",)

DURATION_FORM = ("a whole number and a unit: seconds, minutes, hours, days, weeks "
                 "or rounds (e.g. '6 seconds', '10 rounds')")
ROUND_FORM = "a whole number and a unit: seconds, minutes, hours, days or weeks (e.g. '6 seconds')"


@dataclass(frozen=True)
class ScriptSource:
    """The text of a scenario's script and where it was written.

    Line n of `text` is line `line_offset + n` of `file`. For a `.drama` file the
    offset is 0; for an inline `script: |` block, `file` is the scenario YAML and
    the offset is the line of the `|`. `column_offset` is what to add to a column
    of the text to get the column in `file`: exact for a `.drama` file, a `|`
    block and a value on one line.
    """

    file: str
    text: str
    line_offset: int
    column_offset: int = 0

    def position(self, line: int, column: int = 1) -> Position:
        """Where line:column of `text` (both 1-based) is in `file`."""
        return Position(self.file, self.line_offset + line, self.column_offset + column)


@dataclass(frozen=True)
class Scenario:
    """A scenario YAML with everything it names loaded."""

    title: str
    path: str
    setting: Settings
    cast: tuple[PartySheet, ...]
    script: ScriptSource
    files: tuple[str, ...] = ()     # every file it was read from: scenario, setting, casts, script
    cast_files: tuple[str, ...] = ()
    # an adventure's roles: role -> the party id it is bound to, or None (unbound)
    roles: Mapping[str, str | None] = field(default_factory=dict)
    role_positions: Mapping[str, Position] = field(default_factory=dict)


# ---------------------------------------------------------------------------
# Public API

def load_setting(path, *, errors: list | None = None) -> Settings:
    """Read a setting YAML file into Settings; every key is optional."""
    ctx = _Ctx(errors)
    with ctx.fatal_on_failure():
        f = _File.read(_fspath(path), ctx, what="setting file")
        return _settings(f, ctx)


def loads_setting(text: str, file: str = "<setting>", *, errors: list | None = None) -> Settings:
    """Like `load_setting`, from text; `file` is used in positions."""
    ctx = _Ctx(errors)
    with ctx.fatal_on_failure():
        return _settings(_File.parse(file, text, ctx), ctx)


def load_cast(paths, *, errors: list | None = None) -> tuple[PartySheet, ...]:
    """Read one or several cast YAML files into PartySheets, in the order defined.

    `paths` is a list of paths (a single path is accepted too). A party id may be
    defined in only one place across all the files (E109).
    """
    paths = [paths] if isinstance(paths, (str, os.PathLike)) else list(paths)
    ctx = _Ctx(errors)
    with ctx.fatal_on_failure():
        files = []
        for path in paths:
            try:
                files.append(_File.read(_fspath(path), ctx, what="cast file"))
            except _Skip:
                pass
        if not files and paths:
            raise _Fatal
        return _cast(files, ctx)


def loads_cast(text: str, file: str = "<cast>", *, errors: list | None = None) -> tuple[PartySheet, ...]:
    """Like `load_cast` for one file, from text; `file` is used in positions."""
    ctx = _Ctx(errors)
    with ctx.fatal_on_failure():
        return _cast([_File.parse(file, text, ctx)], ctx)


def load_scenario(path, *, errors: list | None = None) -> Scenario:
    """Read a scenario YAML and the setting, cast and script it names.

    Paths in the scenario are relative to its folder, and positions keep them
    as the user gave them (joined with the scenario's folder).
    """
    ctx = _Ctx(errors)
    with ctx.fatal_on_failure():
        path = _fspath(path)
        return _scenario(_File.read(path, ctx, what="scenario file"), ctx)


def bind(scenario: Scenario, cast: list | None = None, roles: dict[str, str] | None = None) -> Scenario:
    """The scenario with another cast (`cast`: cast files, which replace its own)
    and roles bound or rebound (`roles`: role -> party id, as `--role hero=Kara`).

    Every role must end bound to a party of the cast (E204); the error lists the
    roles and the parties.
    """
    sheets = load_cast(cast) if cast else scenario.cast
    ids = [sheet.id for sheet in sheets]
    bound = dict(scenario.roles)
    for role, party in (roles or {}).items():
        if role not in bound:
            raise DramaError("E204", f"the scenario has no role '{role}'",
                             expected=f"one of the roles {one_of(bound)}" if bound else "no --role: it has no roles",
                             hint=did_you_mean(role, bound))
        bound[role] = party
    listing = ", ".join(f"{role}={party or '?'}" for role, party in bound.items())
    for role, party in bound.items():
        position = scenario.role_positions.get(role)
        if role in ids:
            raise DramaError("E204", f"the role '{role}' has the name of a party of the cast", position=position,
                             expected="a role name that is not a party id", notes=[f"roles: {listing}"])
        if party is None:
            raise DramaError("E204", f"the role '{role}' is not bound to a party", position=position,
                             expected=f"--role {role}=PARTY, with PARTY one of {one_of(ids)}",
                             notes=[f"roles: {listing}"])
        if party not in ids:
            raise DramaError("E204", f"the role '{role}' is bound to '{party}', which is not in the cast",
                             position=position, expected=f"one of {one_of(ids)}",
                             hint=did_you_mean(party, ids), notes=[f"roles: {listing}"])
    if not cast:
        return dataclasses.replace(scenario, roles=bound)
    cast_files = tuple(map(_fspath, cast))
    files = tuple(f for f in scenario.files if f not in scenario.cast_files) + cast_files
    return dataclasses.replace(scenario, cast=tuple(sheets), roles=bound, files=files, cast_files=cast_files)


def loads_scenario(text: str, file: str = "scenario.yaml", *, errors: list | None = None) -> Scenario:
    """Like `load_scenario`, from text; the files it names are read relative to `file`'s folder."""
    ctx = _Ctx(errors)
    with ctx.fatal_on_failure():
        return _scenario(_File.parse(file, text, ctx), ctx)


# ---------------------------------------------------------------------------
# Reporting

class _Skip(Exception):
    """Collecting: this part (a file, a value) cannot be used; go on with the rest."""


class _Fatal(Exception):
    """Collecting: nothing usable can be built."""


class _Ctx:
    """Where errors go: raised at once, or collected into a list."""

    def __init__(self, errors: list | None):
        self.errors = errors
        self.start = len(errors) if errors is not None else 0

    @property
    def collecting(self) -> bool:
        return self.errors is not None

    def report(self, code: str, message: str, position: Position | None = None, **kwargs) -> None:
        err = DramaError(code, message, position=position, **kwargs)
        if self.errors is None:
            raise err
        self.errors.append(err)

    def fatal_on_failure(self):
        return _FatalGuard(self)


class _FatalGuard:
    def __init__(self, ctx: _Ctx):
        self.ctx = ctx

    def __enter__(self):
        return self

    def __exit__(self, kind, exc, tb):
        if kind is None or isinstance(exc, DramaError):
            return False
        if issubclass(kind, (_Skip, _Fatal)):
            found = self.ctx.errors[self.ctx.start:] if self.ctx.errors is not None else []
            if not found:  # pragma: no cover - a skip is always reported first
                found = [DramaError("E101", "the file cannot be used")]
            raise ErrorList(found) from None
        return False


def _fspath(path) -> str:
    try:
        return os.fspath(path)
    except TypeError:
        raise DramaError("E108", f"not a file path: {path!r}") from None


# ---------------------------------------------------------------------------
# Files and nodes

_CORE = "tag:yaml.org,2002:"
_STR, _INT, _FLOAT, _BOOL, _NULL = (_CORE + t for t in ("str", "int", "float", "bool", "null"))
_TIMESTAMP, _MERGE, _MAP, _SEQ = (_CORE + t for t in ("timestamp", "merge", "map", "seq"))
_SCALAR_TAGS = {_STR, _INT, _FLOAT, _BOOL, _NULL, _TIMESTAMP, _MERGE}


def _short_tag(tag: str) -> str:
    return "!!" + tag[len(_CORE):] if tag.startswith(_CORE) else tag


def _line_col(text: str, index: int) -> tuple[int, int]:
    """1-based line and column of a character index."""
    index = max(0, min(index, len(text)))
    line = text.count("\n", 0, index) + 1
    return line, index - (text.rfind("\n", 0, index) + 1) + 1


class _File:
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
    def read(cls, path: str, ctx: _Ctx, *, what: str, named_at: Position | None = None,
             hint: str | None = None) -> "_File":
        text = _read_text(path, ctx, what=what, named_at=named_at, hint=hint, yaml=True)
        return cls.parse(path, text, ctx)

    @classmethod
    def parse(cls, path: str, text: str, ctx: _Ctx) -> "_File":
        f = cls(path, text.removeprefix("\ufeff"))
        f._compose(ctx)
        return f

    def _compose(self, ctx: _Ctx) -> None:
        yaml = YAML(typ="safe", pure=True)
        yaml.allow_duplicate_keys = False
        failure = None
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                self.root = yaml.compose(self.text)
                self._constructor = yaml.constructor
                problems = self._check_tree()
        except YAMLError as exc:
            failure = self._yaml_error(exc)
        except RecursionError:
            failure = ("the YAML is nested too deeply", Position(self.path, 1, 1))
        except (ValueError, TypeError, AttributeError, KeyError, IndexError) as exc:
            failure = (f"the YAML cannot be read: {exc}", Position(self.path, 1, 1))
        if failure is not None:
            ctx.report("E101", *failure)
            raise _Skip
        for code, message, position, kwargs in sorted(problems, key=lambda p: (p[2].line, p[2].column)):
            ctx.report(code, message, position, **kwargs)

    def _yaml_error(self, exc: YAMLError) -> tuple[str, Position]:
        mark = getattr(exc, "problem_mark", None)
        problem = getattr(exc, "problem", None)
        context = getattr(exc, "context", None)
        if mark is not None:
            position = Position(self.path, mark.line + 1, mark.column + 1)
        elif isinstance(getattr(exc, "position", None), int):
            # a ReaderError: a character YAML does not allow
            line, col = _line_col(self.text, exc.position)
            position = Position(self.path, line, col)
            char = getattr(exc, "character", None)
            if isinstance(char, int):
                char = chr(char)
            problem = f"the character {char!r} is not allowed in YAML" if char is not None else \
                str(getattr(exc, "reason", "")) or "a character is not allowed in YAML"
        else:
            position = Position(self.path, 1, 1)
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
                    self.values[id(node)] = self._construct(node, tag)
                except Exception as exc:  # noqa: BLE001 - any failure of a scalar is the user's
                    self.bad.add(id(node))
                    reason = " ".join(str(exc).split()) or type(exc).__name__
                    problems.append(("E104", f"'{node.value}' cannot be read as {_short_tag(tag)} ({reason})",
                                     self.pos(node), {}))
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

    def items(self, node: MappingNode, ctx: _Ctx) -> Iterator[tuple[Any, Node, Node]]:
        """(key value, key node, value node) in order, merges expanded, duplicates dropped."""
        yield from self._items(node, ctx, depth=0, skip=set())

    def _items(self, node: MappingNode, ctx: _Ctx, depth: int, skip: set) -> Iterator[tuple[Any, Node, Node]]:
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


def _read_text(path: str, ctx: _Ctx, *, what: str, named_at: Position | None, hint: str | None,
               yaml: bool) -> str:
    """The text of a file, or E108 (missing, unreadable) / E101 (YAML not UTF-8)."""
    problem = None
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except FileNotFoundError:
        problem = f"cannot find the {what} '{path}'"
    except IsADirectoryError:
        problem = f"the {what} '{path}' is a folder, not a file"
    except (OSError, ValueError) as exc:
        reason = getattr(exc, "strerror", None) or str(exc)
        problem = f"cannot read the {what} '{path}': {reason}"
    if problem is not None:
        ctx.report("E108", problem, named_at, hint=hint)
        raise _Skip
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
        raise _Skip
    return text.replace("\r\n", "\n").replace("\r", "\n") if not yaml else text


# ---------------------------------------------------------------------------
# Describing values in messages

def _describe(f: _File, node: Node) -> str:
    if isinstance(node, MappingNode):
        return "a mapping"
    if isinstance(node, SequenceNode):
        return "a list"
    value = f.value(node)
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return f"'{node.value}' (true/false)"
    if isinstance(value, (int, float)):
        return f"the number {node.value}"
    text = str(value)
    if len(text) > 40:
        text = text[:37] + "..."
    return repr(text) if "\n" in text or "'" in text else f"'{text}'"


class _Bad:
    """A value that was reported (or cannot be used): keep the default."""


BAD = _Bad()


def _schema_keys(f: _File, node: MappingNode, ctx: _Ctx, allowed: tuple[str, ...], where: str
                 ) -> list[tuple[str, Node, Node]]:
    """The known keys of a mapping; unknown ones are E103 with did-you-mean."""
    known = []
    for key, key_node, value_node in f.items(node, ctx):
        if isinstance(key, str) and key in allowed:
            known.append((key, key_node, value_node))
            continue
        name = key if isinstance(key, str) else (key_node.value if isinstance(key_node, ScalarNode) else "?")
        ctx.report("E103", f"unknown key '{name}' in {where}", f.pos(key_node),
                   hint=did_you_mean(str(name), allowed), expected=one_of(allowed))
    return known


def _expect_mapping(f: _File, key: Node | None, node: Node, ctx: _Ctx, what: str, *,
                    none_ok: bool = False) -> MappingNode | None | _Bad:
    if f.is_bad(node):
        return BAD
    if isinstance(node, MappingNode):
        return node
    if none_ok and isinstance(node, ScalarNode) and f.value(node) is None:
        return None
    position = f.value_pos(key, node) if key is not None else f.pos(node)
    ctx.report("E104", f"{what} must be a mapping, not {_describe(f, node)}", position,
               expected="a mapping of keys to values (`key: value` lines)")
    return BAD


def _expect_int(f: _File, key: Node, node: Node, ctx: _Ctx, what: str, *, low: int = 0,
                high: int | None = None, high_why: str = "") -> int | _Bad:
    if f.is_bad(node):
        return BAD
    value = f.value(node) if isinstance(node, ScalarNode) else None
    if isinstance(value, int) and not isinstance(value, bool):
        if value < low:
            ctx.report("E104", f"{what} must be {low} or more, not {value}", f.value_pos(key, node),
                       expected=f"a whole number of {low} or more")
            return BAD
        if high is not None and value > high:
            ctx.report("E104", f"{what} must be at most {high}{high_why}, not {value}",
                       f.value_pos(key, node), expected=f"a whole number from {low} to {high}")
            return BAD
        return value
    expected = f"a whole number of {low} or more" if high is None else f"a whole number from {low} to {high}"
    ctx.report("E104", f"{what} must be a whole number, not {_describe(f, node)}",
               f.value_pos(key, node), expected=expected)
    return BAD


def _expect_str(f: _File, key: Node, node: Node, ctx: _Ctx, what: str, *, empty_ok: bool = False,
                expected: str = "text") -> str | _Bad:
    if f.is_bad(node):
        return BAD
    value = f.value(node) if isinstance(node, ScalarNode) else None
    if isinstance(value, str) and (empty_ok or value.strip()):
        return value
    if isinstance(value, str):
        ctx.report("E104", f"{what} must not be empty", f.value_pos(key, node), expected=expected)
    else:
        ctx.report("E104", f"{what} must be text, not {_describe(f, node)}", f.value_pos(key, node),
                   expected=expected, hint="quote it to make it text" if isinstance(node, ScalarNode)
                   and value is not None else None)
    return BAD


# ---------------------------------------------------------------------------
# Setting

def _settings(f: _File, ctx: _Ctx) -> Settings:
    root = f.root
    if root is None or (isinstance(root, ScalarNode) and f.value(root) is None and not f.is_bad(root)):
        return Settings()
    if not isinstance(root, MappingNode):
        if not f.is_bad(root):
            ctx.report("E104", f"a setting file must be a mapping of keys to values, not {_describe(f, root)}",
                       f.pos(root), expected=f"keys among {one_of(SETTING_KEYS)}")
        raise _Skip
    values: dict[str, Any] = {}
    for key, key_node, node in _schema_keys(f, root, ctx, SETTING_KEYS, "the setting"):
        if key == "name":
            value = _expect_str(f, key_node, node, ctx, "the setting's name")
        elif key == "dice":
            value = _dice(f, key_node, node, ctx)
            if not isinstance(value, _Bad):
                values.update(value)
            continue
        elif key == "ties":
            value = _choice(f, key_node, node, ctx, "ties", TIE_POLICIES)
        else:
            value = _duration(f, key_node, node, ctx, key)
        if not isinstance(value, _Bad):
            values[key] = value
    return Settings(**values)


def _duration(f: _File, key: Node, node: Node, ctx: _Ctx, what: str) -> Duration | _Bad:
    if f.is_bad(node):
        return BAD
    value = f.value(node) if isinstance(node, ScalarNode) else None
    position = f.value_pos(key, node)
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        ctx.report("E104", f"'{what}' must be a duration, not {_describe(f, node)}", position,
                   expected=DURATION_FORM)
        return BAD
    form = ROUND_FORM if what == "round" else DURATION_FORM
    if not isinstance(value, str):
        ctx.report("E107", f"'{what}' needs a unit: {node.value} what?", position, expected=form,
                   hint=f"write e.g. '{node.value} seconds'" if isinstance(value, int) else None)
        return BAD
    duration = parse_duration(value)
    if duration is None:
        ctx.report("E107", f"'{value}' is not a duration", position, expected=form)
        return BAD
    if what == "round":
        if duration.unit == "round":
            ctx.report("E107", "the round length cannot be given in rounds", position,
                       expected="seconds, minutes, hours, days or weeks (e.g. '6 seconds')")
            return BAD
        if duration.amount == 0:
            ctx.report("E107", "a round must last longer than 0", position, expected="e.g. '6 seconds'")
            return BAD
    return duration


def _choice(f: _File, key: Node, node: Node, ctx: _Ctx, what: str, choices: tuple[str, ...]) -> str | _Bad:
    if f.is_bad(node):
        return BAD
    value = f.value(node) if isinstance(node, ScalarNode) else None
    if isinstance(value, str) and value in choices:
        return value
    shown = value if isinstance(value, str) else _describe(f, node)
    ctx.report("E104", f"'{shown}' is not a choice for '{what}'" if isinstance(value, str)
               else f"'{what}' must be one of the choices, not {shown}",
               f.value_pos(key, node), expected=one_of(choices),
               hint=did_you_mean(value, choices) if isinstance(value, str) else None)
    return BAD


def _dice(f: _File, key: Node, node: Node, ctx: _Ctx) -> dict | _Bad:
    mapping = _expect_mapping(f, key, node, ctx, "'dice'")
    if mapping is None or isinstance(mapping, _Bad):
        return BAD
    found: dict[str, tuple[Node, Node]] = {}
    for name, key_node, value_node in _schema_keys(f, mapping, ctx, DICE_KEYS, "'dice'"):
        found[name] = (key_node, value_node)
    out: dict[str, int] = {}
    sides: int | _Bad = 6
    if "sides" in found:
        sides = _expect_int(f, *found["sides"], ctx, "the number of sides", low=2)
        if not isinstance(sides, _Bad):
            out["sides"] = sides
    if "high" in found:
        high = _expect_int(f, *found["high"], ctx, "'high'", low=2,
                           high=sides if not isinstance(sides, _Bad) else None,
                           high_why=" (the number of sides)")
        if not isinstance(high, _Bad):
            out["high"] = high
    elif "sides" in out:
        out["high"] = out["sides"]   # with only `sides`, the top face is high
    return out


# ---------------------------------------------------------------------------
# Cast

def _cast(files: list[_File], ctx: _Ctx) -> tuple[PartySheet, ...]:
    sheets: list[PartySheet] = []
    first: dict[str, Position] = {}
    for f in files:
        try:
            sheets.extend(_cast_file(f, ctx, first))
        except _Skip:   # collecting: this file was reported; go on with the others
            pass
    return tuple(sheets)


def _cast_file(f: _File, ctx: _Ctx, first: dict[str, Position]) -> list[PartySheet]:
    root = f.root
    if root is None or (isinstance(root, ScalarNode) and f.value(root) is None and not f.is_bad(root)):
        ctx.report("E105", "a cast file needs 'parties'", Position(f.path, 1, 1),
                   expected="parties: followed by one mapping per party")
        raise _Skip
    if not isinstance(root, MappingNode):
        if not f.is_bad(root):
            ctx.report("E104", f"a cast file must be a mapping with 'parties', not {_describe(f, root)}",
                       f.pos(root), expected="parties: followed by one mapping per party")
        raise _Skip
    parties = None
    for _key, key_node, node in _schema_keys(f, root, ctx, CAST_KEYS, "the cast"):
        parties = (key_node, node)
    if parties is None:
        ctx.report("E105", "the cast needs 'parties'", f.pos(root),
                   expected="parties: followed by one mapping per party")
        raise _Skip
    mapping = _expect_mapping(f, parties[0], parties[1], ctx, "'parties'")
    if isinstance(mapping, _Bad) or mapping is None:
        raise _Skip
    sheets = []
    for party_id, key_node, node in f.items(mapping, ctx):
        if not _party_id_ok(f, party_id, key_node, ctx):
            continue
        position = f.pos(key_node)
        if party_id in first:
            ctx.report("E109", f"the party '{party_id}' is defined twice", position,
                       notes=[f"'{party_id}' is first defined at {first[party_id]}"],
                       hint="give each party one id, defined in one place")
            continue
        first[party_id] = position
        sheet = _party(f, party_id, key_node, node, ctx)
        if sheet is not None:
            sheets.append(sheet)
    return sheets


def _party_id_ok(f: _File, party_id: Any, key_node: Node, ctx: _Ctx) -> bool:
    position = f.pos(key_node)
    if not isinstance(party_id, str):
        shown = key_node.value if isinstance(key_node, ScalarNode) else _describe(f, key_node)
        ctx.report("E104", f"a party id must be a name, not {_describe(f, key_node)}", position,
                   hint=f"quote it to make it a name: \"{shown}\"" if isinstance(key_node, ScalarNode) else None)
        return False
    if party_id in RESERVED_IDS:
        ctx.report("E104", f"'{party_id}' cannot be a party id: it is reserved for GM targets", position,
                   hint="choose another id, e.g. 'Overlord'")
        return False
    bad = sorted({c for c in party_id if c in PARTY_ID_FORBIDDEN})
    if bad:
        shown = ", ".join(repr(c) for c in bad)
        ctx.report("E104", f"the party id {party_id!r} contains {shown}, which scripts use to separate names",
                   position, expected="a name without & , # quotes or line breaks",
                   hint="put the full name in 'name:' and use a short id")
        return False
    if not party_id.strip() or party_id != party_id.strip():
        ctx.report("E104", f"the party id {party_id!r} is empty or starts or ends with spaces", position)
        return False
    return True


def _party(f: _File, party_id: str, key_node: Node, node: Node, ctx: _Ctx) -> PartySheet | None:
    where = f"the party '{party_id}'"
    position = f.pos(key_node)
    mapping = _expect_mapping(f, key_node, node, ctx, where, none_ok=True)
    if isinstance(mapping, _Bad):
        return None
    fields = _schema_keys(f, mapping, ctx, PARTY_KEYS, where) if mapping is not None else []
    found = {name: (k, v) for name, k, v in fields}
    name: str | _Bad = party_id
    if "name" in found:
        name = _expect_str(f, *found["name"], ctx, f"the name of '{party_id}'")
    quintessence: int | _Bad = 0
    if "quintessence" in found:
        quintessence = _expect_int(f, *found["quintessence"], ctx, f"the quintessence of '{party_id}'")
    else:
        ctx.report("E105", f"{where} needs 'quintessence'", position,
                   expected="quintessence: a whole number of 0 or more (its maximum quintessence)")
    traits = _levels(f, found.get("traits"), ctx, party_id, "trait")
    treasures = _levels(f, found.get("treasures"), ctx, party_id, "treasure")
    for treasure, (tkey, _value) in list(treasures.items()):
        if treasure in traits:
            ctx.report("E104", f"'{treasure}' is both a trait and a treasure of '{party_id}'", f.pos(tkey),
                       notes=[f"the trait '{treasure}' is at {f.pos(traits[treasure][0])}"],
                       hint="a name can be one or the other; rename one of them")
            del treasures[treasure]
    members = _members(f, found.get("members"), ctx, party_id)
    moves = _moves(f, found.get("moves"), ctx, party_id, traits, treasures)
    return PartySheet(
        id=party_id,
        name=name if isinstance(name, str) else party_id,
        quintessence=quintessence if isinstance(quintessence, int) else 0,
        traits={k: v for k, (_n, v) in traits.items() if not isinstance(v, _Bad)},
        treasures={k: v for k, (_n, v) in treasures.items() if not isinstance(v, _Bad)},
        members=members,
        moves=moves,
        pos=position,
    )


def _levels(f: _File, pair: tuple[Node, Node] | None, ctx: _Ctx, party_id: str, kind: str
            ) -> dict[str, tuple[Node, int | _Bad]]:
    """Traits or treasures: name -> (key node, level); a bad level is kept as BAD (the name exists)."""
    out: dict[str, tuple[Node, int | _Bad]] = {}
    if pair is None:
        return out
    mapping = _expect_mapping(f, pair[0], pair[1], ctx, f"the {kind}s of '{party_id}'", none_ok=True)
    if mapping is None or isinstance(mapping, _Bad):
        return out
    for name, key_node, node in f.items(mapping, ctx):
        if not _sheet_name_ok(f, name, key_node, ctx, kind):
            continue
        level = _expect_int(f, key_node, node, ctx, f"the {kind} '{name}' of '{party_id}'")
        out[name] = (key_node, level)
    return out


def _sheet_name_ok(f: _File, name: Any, key_node: Node, ctx: _Ctx, kind: str) -> bool:
    if not isinstance(name, str):
        shown = key_node.value if isinstance(key_node, ScalarNode) else "..."
        ctx.report("E104", f"a {kind} must be a name, not {_describe(f, key_node)}", f.pos(key_node),
                   hint=f"quote it to make it a name: \"{shown}\"" if isinstance(key_node, ScalarNode) else None)
        return False
    bad = sorted({c for c in name if c in SHEET_NAME_FORBIDDEN})
    if bad or not name.strip() or name != name.strip():
        what = f"contains {', '.join(repr(c) for c in bad)}" if bad else "is empty or starts or ends with spaces"
        ctx.report("E104", f"the {kind} name {name!r} {what}", f.pos(key_node),
                   expected="a name without + , # quotes or line breaks")
        return False
    return True


def _members(f: _File, pair: tuple[Node, Node] | None, ctx: _Ctx, party_id: str) -> tuple[str, ...]:
    if pair is None:
        return ()
    key, node = pair
    if f.is_bad(node) or (isinstance(node, ScalarNode) and f.value(node) is None):
        return ()
    if not isinstance(node, SequenceNode):
        ctx.report("E104", f"the members of '{party_id}' must be a list of names, not {_describe(f, node)}",
                   f.value_pos(key, node), expected="a list such as [Snik, Grub, Mox]")
        return ()
    members = []
    for item in node.value:
        value = _expect_str(f, key, item, ctx, f"a member of '{party_id}'", expected="a name")
        if not isinstance(value, _Bad):
            members.append(value)
    return tuple(members)


def _moves(f: _File, pair: tuple[Node, Node] | None, ctx: _Ctx, party_id: str,
           traits: dict, treasures: dict) -> dict[str, Move]:
    out: dict[str, Move] = {}
    if pair is None:
        return out
    mapping = _expect_mapping(f, pair[0], pair[1], ctx, f"the moves of '{party_id}'", none_ok=True)
    if mapping is None or isinstance(mapping, _Bad):
        return out
    names = list(traits) + list(treasures)
    form = "'Trait + Treasure', 'Trait' or 'Treasure', from the party's traits and treasures"
    for intent, key_node, node in f.items(mapping, ctx):
        if not isinstance(intent, str) or not intent.strip():
            ctx.report("E104", f"a move's intent must be a name, not {_describe(f, key_node)}", f.pos(key_node))
            continue
        text = _expect_str(f, key_node, node, ctx, f"the move '{intent}' of '{party_id}'", expected=form)
        if isinstance(text, _Bad):
            continue
        parts, index, ok = [], 0, True
        for raw in text.split("+"):
            part = raw.strip()
            start = index + (len(raw) - len(raw.lstrip()))
            index += len(raw) + 1
            if not part:
                ok = False
                break
            parts.append((part, start))
        if not ok or len(parts) > 2:
            ctx.report("E104", f"the move '{intent}' of '{party_id}' is not of the form 'Trait + Treasure': "
                       f"{text!r}", f.value_pos(key_node, node), expected=form)
            continue
        trait = treasure = None
        for part, start in parts:
            where = f.sub_pos(node, start, len(part))
            if part in traits:
                if trait is not None:
                    ctx.report("E104", f"the move '{intent}' of '{party_id}' names two traits "
                               f"('{trait}' and '{part}')", where,
                               expected="at most one trait and one treasure (R2)")
                    ok = False
                trait = part
            elif part in treasures:
                if treasure is not None:
                    ctx.report("E104", f"the move '{intent}' of '{party_id}' names two treasures "
                               f"('{treasure}' and '{part}')", where,
                               expected="at most one trait and one treasure (R2)")
                    ok = False
                treasure = part
            else:
                ctx.report("E110", f"'{party_id}' has no trait or treasure '{part}'", where,
                           hint=did_you_mean(part, names),
                           expected=one_of(names) if names else "a trait or treasure listed for the party")
                ok = False
        if ok:
            out[intent] = Move(trait, treasure)
    return out


# ---------------------------------------------------------------------------
# Scenario

def _scenario(f: _File, ctx: _Ctx) -> Scenario:
    root = f.root
    expected = "the keys 'title', 'cast' and 'script' (and 'setting')"
    if root is None or (isinstance(root, ScalarNode) and f.value(root) is None and not f.is_bad(root)):
        ctx.report("E105", "the scenario file is empty: it needs 'title', 'cast' and 'script'",
                   Position(f.path, 1, 1), expected=expected)
        raise _Fatal
    if not isinstance(root, MappingNode):
        if not f.is_bad(root):
            ctx.report("E104", f"a scenario file must be a mapping of keys to values, not {_describe(f, root)}",
                       f.pos(root), expected=expected)
        raise _Fatal
    found = {key: (k, v) for key, k, v in _schema_keys(f, root, ctx, SCENARIO_KEYS, "the scenario")}
    folder = os.path.dirname(f.path)
    hint = f"paths are relative to the scenario's folder ('{folder or '.'}')"

    def missing(key: str, expected: str) -> None:
        ctx.report("E105", f"the scenario needs '{key}'", f.pos(root), expected=expected)

    title: str | _Bad = ""
    if "title" in found:
        title = _expect_str(f, *found["title"], ctx, "the title")
    else:
        missing("title", "title: The Fall of Emberfall")

    setting_node = None
    if "setting" in found:
        path = _path_value(f, *found["setting"], ctx, "'setting'", "a path to a setting YAML file")
        if not isinstance(path, _Bad):
            setting_node = (path, found["setting"])

    cast_paths: list[tuple[str, Position]] = []
    if "cast" in found:
        cast_paths = _cast_paths(f, *found["cast"], ctx, folder)
    else:
        missing("cast", "cast: cast.yaml (or a list of cast files)")

    script_spec = None
    if "script" in found:
        script_spec = _script_spec(f, *found["script"], ctx)
    else:
        missing("script", "script: a .drama file, or an inline block `script: |`")

    roles: dict[str, str | None] = {}
    role_positions: dict[str, Position] = {}
    if "roles" in found:
        key_node, node = found["roles"]
        if isinstance(node, MappingNode):
            for role, role_key, value_node in f.items(node, ctx):
                if not _party_id_ok(f, role, role_key, ctx):
                    continue
                value = f.value(value_node) if isinstance(value_node, ScalarNode) else BAD
                if value is not None and not isinstance(value, str):
                    ctx.report("E104", f"the role '{role}' must name a party id of the cast, or be empty "
                               "(bound with --role)", f.value_pos(role_key, value_node),
                               expected=f"{role}: PARTY")
                    continue
                roles[role] = value
                role_positions[role] = f.pos(role_key)
        elif not (isinstance(node, ScalarNode) and f.value(node) is None):
            ctx.report("E104", f"'roles' must be a mapping of role names to party ids, not {_describe(f, node)}",
                       f.value_pos(key_node, node), expected="roles: {hero: Kara, villain: Overlord}")

    setting = Settings()
    read = [f.path]
    if setting_node is not None:
        value, (key_node, node) = setting_node
        read.append(os.path.join(folder, value))
        try:
            sf = _File.read(os.path.join(folder, value), ctx, what="setting file",
                            named_at=f.value_pos(key_node, node), hint=hint)
            setting = _settings(sf, ctx)
        except _Skip:
            pass

    files = []
    for path, named_at in cast_paths:
        read.append(path)
        try:
            files.append(_File.read(path, ctx, what="cast file", named_at=named_at, hint=hint))
        except _Skip:
            pass
    cast = _cast(files, ctx)

    script = ScriptSource(f.path, "", 0)
    if script_spec is not None:
        script = _script(f, script_spec, folder, ctx, hint)

    if script.file not in read:
        read.append(script.file)
    return Scenario(title=title if isinstance(title, str) else "", path=f.path, setting=setting,
                    cast=cast, script=script, files=tuple(read),
                    cast_files=tuple(path for path, _ in cast_paths), roles=roles,
                    role_positions=role_positions)


def _path_value(f: _File, key: Node, node: Node, ctx: _Ctx, what: str, expected: str) -> str | _Bad:
    value = _expect_str(f, key, node, ctx, what, expected=expected)
    if isinstance(value, str) and ("\n" in value or "\0" in value):
        ctx.report("E104", f"{what} must be a file path, on one line", f.value_pos(key, node), expected=expected)
        return BAD
    return value.strip() if isinstance(value, str) else value


def _cast_paths(f: _File, key: Node, node: Node, ctx: _Ctx, folder: str) -> list[tuple[str, Position]]:
    expected = "a path to a cast YAML file, or a list of them"
    if f.is_bad(node):
        return []
    items: list[tuple[Node, Node]]
    if isinstance(node, SequenceNode):
        items = [(key, item) for item in node.value]
        if not items:
            ctx.report("E104", "'cast' names no file", f.value_pos(key, node), expected=expected)
    else:
        items = [(key, node)]
    out: list[tuple[str, Position]] = []
    seen: dict[str, Position] = {}
    for k, item in items:
        value = _path_value(f, k, item, ctx, "'cast'", expected)
        if isinstance(value, _Bad):
            continue
        path = os.path.join(folder, value)
        where = f.value_pos(k, item)
        norm = os.path.normpath(path)
        if norm in seen:
            ctx.report("E104", f"the cast file '{value}' is listed twice", where,
                       notes=[f"first listed at {seen[norm]}"])
            continue
        seen[norm] = where
        out.append((path, where))
    return out


# An inline script or a path? `script:` names a `.drama` file when its value is
# one line, written plain or quoted (not as a `|` block), and ends in `.drama`.
# Anything else -- a `|` block, a value with a line break, or one not ending in
# `.drama` -- is the script's text itself. A folded block (`>`) is refused: it
# would join the script's lines, which are one statement each.
def _script_spec(f: _File, key: Node, node: Node, ctx: _Ctx):
    form = "a path to a .drama file, or the script inline as a block: `script: |`"
    if f.is_bad(node):
        return None
    value = f.value(node) if isinstance(node, ScalarNode) else None
    if not isinstance(value, str):
        ctx.report("E104", f"'script' must be a .drama file or the script's text, not {_describe(f, node)}",
                   f.value_pos(key, node), expected=form)
        return None
    style = node.style
    if style == ">":
        ctx.report("E104", "an inline script must be a literal block (`|`), not a folded one (`>`)",
                   f.pos(node), expected=form, hint="a folded block joins the script's lines; write `script: |`")
        return None
    inline = style == "|" or "\n" in value or not value.strip().endswith(".drama")
    if inline and style != "|" and re.fullmatch(r"[\w./\\-]+\.\w+", value.strip()):
        ctx.report("E104", f"'script' names the file '{value.strip()}', but a script file must end in .drama",
                   f.value_pos(key, node), expected=form,
                   hint="rename the file to end in .drama, or write the script inline with `script: |`")
        return None
    return (inline, value, key, node)


def _script(f: _File, spec, folder: str, ctx: _Ctx, hint: str) -> ScriptSource:
    inline, value, key, node = spec
    if not inline:
        path = os.path.join(folder, value.strip())
        try:
            text = _read_text(path, ctx, what="script file", named_at=f.value_pos(key, node), hint=hint,
                              yaml=False)
        except _Skip:
            return ScriptSource(path, "", 0)
        return ScriptSource(path, text, 0)
    start = node.start_mark
    if node.style == "|":
        # the text begins on the line after the `|`: its line n is file line (start.line + 1) + n
        line_offset = start.line + 1
        column_offset = 0
        for n, text_line in enumerate(value.split("\n")):
            if text_line.strip():
                file_index = start.line + 1 + n
                if file_index < len(f.lines):
                    src = f.lines[file_index]
                    indent = (len(src) - len(src.lstrip(" "))) - (len(text_line) - len(text_line.lstrip(" ")))
                    column_offset = max(indent, 0)
                break
    else:
        # a plain or quoted value: its first line is on the key's line (or where it starts)
        line_offset = start.line
        column_offset = start.column + (1 if node.style in ('"', "'") else 0)
    return ScriptSource(f.path, value, line_offset, column_offset)
