"""Where the cast's names are written: every party, trait, treasure and move in the scripts and the cast, for find references, rename, semantic tokens and workspace symbols."""

# A script's names are found by walking its nodes (every `nodes.Name` in a
# field that holds a party, every name of a `with`, owned by the party of its
# line; an action's intent is its move). The cast's are found in its text:
# the party's key, its traits', treasures' and moves' keys and the names a
# move's value gives, the roles bound to the party in the scenarios, and the
# writer's phrases that name them (a move's `says`, `hit` and `miss`, a
# clause): a rename leaves no phrase naming what is gone.

from __future__ import annotations

import dataclasses
import os
import re
from pathlib import Path
from typing import Iterator

from lsprotocol import types as lsp
from pygls.uris import from_fs_path

from ..errors import DramaError, Position
from ..syntax import nodes
from .analysis import Workspace
from .positions import character, column

__all__ = ["Written", "written_in", "occurrences", "references", "rename", "target_at", "workspace_symbols"]

# the fields of the nodes that hold a party
_PARTY_FIELDS = {"actors", "target", "extra_targets", "party", "parties", "winner", "shares", "quarry"}


@dataclasses.dataclass(frozen=True)
class Written:
    """One place a name is written: what it is (party, trait, treasure, move), whose, and where
    (1-based line, 0-based start and end indexes into the line, quotes excluded)."""

    kind: str              # "party" | "use" (a trait or treasure, as the script does not say) | "move"
    text: str
    owner: str | None      # the party (as written) whose trait, treasure or move it is
    file: str
    line: int
    start: int
    end: int


def _place(name: nodes.Name, lines: list[str]) -> tuple[int, int, int] | None:
    pos = name.pos
    if pos is None or pos.line - 1 >= len(lines):
        return None
    line = lines[pos.line - 1]
    start = pos.column - 1
    end = (pos.end_column - 1) if pos.end_column else start + len(name.text)
    if line[start:start + 1] == '"':
        start, end = start + 1, end - 1
    return pos.line, start, end


def written_in(statement, lines: list[str], file: str, owner: str | None = None) -> Iterator[Written]:
    """Every party and `with` name of a statement (its blocks' bodies too), and an action's intent."""
    if isinstance(statement, nodes.Name):
        return
    if isinstance(statement, nodes.Action) and statement.actors:
        owner = statement.actors[0].text
        place = _place(statement.actors[0], lines)
        if place is not None:
            line = lines[place[0] - 1]
            found = re.compile(r"\s+\"?(" + re.escape(statement.intent) + r")\b").match(line, place[2] + (
                1 if line[place[2]:place[2] + 1] == '"' else 0))
            if found:
                yield Written("move", statement.intent, owner, file, place[0], found.start(1), found.end(1))
    elif isinstance(statement, (nodes.Defence,)) and statement.parties:
        owner = statement.parties[0].text
    elif isinstance(statement, (nodes.Participant, nodes.Helper, nodes.InitiativeEntry)):
        owner = statement.party.text
    if not dataclasses.is_dataclass(statement):
        return
    for field in dataclasses.fields(statement):
        value = getattr(statement, field.name)
        yield from _values(field.name, value, lines, file, owner, statement)


def _values(name: str, value, lines, file, owner, parent) -> Iterator[Written]:
    if isinstance(value, nodes.Name):
        if name in _PARTY_FIELDS:
            kind = "party"
        elif isinstance(parent, nodes.Uses):
            kind = "use"
        else:
            return
        place = _place(value, lines)
        if place is not None:
            yield Written(kind, value.text, owner if kind == "use" else None, file, *place)
    elif isinstance(value, (tuple, list)):
        for item in value:
            yield from _values(name, item, lines, file, owner, parent)
    elif dataclasses.is_dataclass(value) and not isinstance(value, Position):
        yield from written_in(value, lines, file, owner)


# ---------------------------------------------------------------- the adventure's files

def _scripts(workspace: Workspace, path: str) -> list[str]:
    """Every script of the adventure `path` belongs to: the folder of its scenario, and below."""
    scenario = workspace.scenario(path)
    root = Path(scenario.path).parent if scenario is not None else Path(path).parent
    found = {str(p.resolve()) for p in root.rglob("*.drama")}
    found |= {p for p in workspace.texts if p.endswith(".drama") and p.startswith(str(root.resolve()) + os.sep)}
    return sorted(found)


def occurrences(workspace: Workspace, path: str) -> list[Written]:
    """Every name written in the adventure's scripts."""
    from ..syntax.parse import parse
    out: list[Written] = []
    for script in _scripts(workspace, path):
        text = workspace.text(script)
        lines = workspace.lines(script)
        try:
            parsed = parse(text, script, errors=[])
        except DramaError:
            continue
        for statement in parsed.statements:
            out += written_in(statement, lines, script)
    return out


def _cast(workspace: Workspace, path: str):
    scenario = workspace.scenario(path)
    if scenario is None:
        return {}, {}, None
    return {sheet.id: sheet for sheet in scenario.cast}, dict(scenario.roles), scenario


def _party_of(name: str, roles: dict) -> str:
    return roles.get(name) or name


# a key of the cast's YAML, written in block style: `    says:`, `      en: "..."`
_KEY = re.compile(r"(?P<indent>[ \t]*)(?P<key>[^\s:#\[{][^:#]*?)[ \t]*:(?:[ \t]+|$)")
# the keys of a move whose values are the writer's words (the event log's `words`)
_WORDS = ("says", "hit", "miss")


def _sheet_lines(workspace: Workspace, sheet) -> tuple[str, list[str], int, int, int]:
    """The cast file of a party's sheet, its lines, the sheet's first and last (excluded) line indexes, and the
    indent of its key."""
    file = sheet.pos.file
    lines = workspace.lines(file)
    first = sheet.pos.line - 1
    indent = len(lines[first]) - len(lines[first].lstrip())
    last = next((k for k in range(first + 1, len(lines)) if lines[k].strip() and not lines[k].lstrip().startswith("#")
                 and len(lines[k]) - len(lines[k].lstrip()) <= indent), len(lines))
    return file, lines, first, last, indent


def _phrases(lines: list[str], first: int, last: int) -> dict[int, int]:
    """The writer's phrases in a party's sheet: line index -> where on it the phrase begins. They are the
    values of its moves' `says`, `hit` and `miss` (each a text, or a text per language) and of its
    `clauses` (not the clauses' keys: those are qualifiers as a script writes them)."""
    out: dict[int, int] = {}
    keys: list[tuple[int, str]] = []          # the keys the line is under: (indent, key)
    for k in range(first + 1, last):
        line = lines[k]
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        indent = len(line) - len(line.lstrip())
        match = _KEY.match(line)
        if match:
            while keys and keys[-1][0] >= indent:
                keys.pop()
        under = [key for _indent, key in keys]
        if len(under) >= 3 and under[0] == "moves" and under[2] in _WORDS or len(under) >= 2 and under[0] == "clauses":
            out[k] = match.end() if match else indent        # (a language's key, or a line of a longer text)
        elif match and (len(under) == 2 and under[0] == "moves" and match["key"] in _WORDS
                        or len(under) == 1 and under[0] == "clauses"):
            out[k] = match.end()                             # the text on the line of its key
        if match:
            keys.append((indent, match["key"]))
    return out


def _in_phrases(workspace: Workspace, sheet, kind: str, text: str, owner: str | None) -> list[Written]:
    """Where a party's phrases (`_phrases`) write a name: as a word of its own (`Obsidian Crown's` too)."""
    file, lines, first, last, _indent = _sheet_lines(workspace, sheet)
    word = re.compile(r"(?<![\w-])" + re.escape(text) + r"(?![\w-])")
    return [Written(kind, text, owner, file, k + 1, found.start(), found.end())
            for k, start in _phrases(lines, first, last).items() for found in word.finditer(lines[k], start)]


def _in_cast(workspace: Workspace, sheets, scenario, kind: str, text: str, party: str) -> list[Written]:
    """Where the cast file (and the scenarios' roles) write a name: a party's key, the roles bound to it
    and the phrases of every party that name it; a trait's, treasure's or move's key in its party's sheet,
    the names in its moves, and its party's phrases that name it."""
    sheet = sheets.get(party)
    if sheet is None or sheet.pos is None:
        return []
    file, lines, first, last, indent = _sheet_lines(workspace, sheet)
    word = r"(?<![\w'-])" + re.escape(text) + r"(?![\w'-])"
    out = []
    if kind == "party":
        match = re.compile(word).search(lines[first])
        if match:
            out.append(Written("party", text, None, file, first + 1, match.start(), match.end()))
        for scenario_file in {scenario.path, *(c.scenario for c in workspace.checks.values())}:
            scenario_lines = workspace.lines(scenario_file)
            roles = False
            for k, line in enumerate(scenario_lines):
                if re.match(r"roles\s*:", line):
                    roles = True
                    continue
                if roles and line[:1] not in (" ", "\t", "#", ""):
                    roles = False
                if roles:
                    for found in re.finditer(r":\s*(?P<v>" + re.escape(text) + r")(?![\w'-])", line):
                        out.append(Written("party", text, None, scenario_file, k + 1, found.start("v"),
                                           found.end("v")))
        for other in sheets.values():
            if other.pos is not None:
                out += _in_phrases(workspace, other, "party", text, None)
        return out
    phrases = _phrases(lines, first, last)
    section = None
    for k in range(first + 1, last):
        line = lines[k]
        head = re.match(r"\s*(traits|treasures|moves|members|name|words|clauses|pronouns|short|names)\s*:", line)
        if head and len(line) - len(line.lstrip()) <= indent + 4:
            section = head.group(1)
        if section not in ("traits", "treasures", "moves") or k in phrases:
            continue
        for found in re.finditer(word, line):
            is_key = re.match(r"\s*:", line[found.end():]) is not None
            if kind == "move":
                ok = section == "moves" and is_key
            elif kind == "use":                  # the names a move's value gives
                ok = section == "moves" and not is_key
            else:
                ok = section == kind + "s" and is_key
            if ok:
                out.append(Written(kind, text, party, file, k + 1, found.start(), found.end()))
    if kind != "use":           # (the phrases once, with the trait or treasure itself: not again as a use)
        out += _in_phrases(workspace, sheet, kind, text, party)
    return out


def target_at(workspace: Workspace, path: str, where: lsp.Position) -> Written | None:
    """The name under the cursor: in a script, from its nodes; in a cast, a party's key or a name of its sheet."""
    number = where.line + 1
    lines = workspace.lines(path)
    if where.line >= len(lines):
        return None
    index = column(lines[where.line], where.character)
    real = os.path.realpath(path)
    if path.endswith(".drama"):
        for one in occurrences(workspace, path):
            if one.file == real and one.line == number and one.start <= index <= one.end:
                return one
        return None
    sheets, roles, scenario = _cast(workspace, path)
    for sheet in sheets.values():
        if sheet.pos is None or os.path.realpath(sheet.pos.file) != real:
            continue
        for kind, names in (("party", [sheet.id]), ("trait", list(sheet.traits)), ("treasure", list(sheet.treasures)),
                            ("move", list(sheet.moves)), ("use", [*sheet.traits, *sheet.treasures])):
            for text in names:
                for one in _in_cast(workspace, sheets, scenario, kind, text, sheet.id):
                    if one.file == real and one.line == number and one.start <= index <= one.end:
                        return one
    return None


def _same(workspace: Workspace, path: str, target: Written) -> list[Written]:
    """Every place the adventure writes the name `target` is (the same party's trait, not another's)."""
    sheets, roles, scenario = _cast(workspace, path)
    if target.kind == "party":
        party = _party_of(target.text, roles)
        found = [w for w in occurrences(workspace, path) if w.kind == "party" and w.text == target.text]
        if target.text in sheets:
            found += _in_cast(workspace, sheets, scenario, "party", target.text, party)
        return found
    party = _party_of(target.owner or "", roles)
    sheet = sheets.get(party)
    kind = target.kind
    if kind in ("use", "trait", "treasure") and sheet is not None:
        kind = "trait" if target.text in sheet.traits else "treasure"
    found = []
    for one in occurrences(workspace, path):
        if one.text != target.text or one.owner is None or _party_of(one.owner, roles) != party:
            continue
        if (kind == "move") == (one.kind == "move"):
            found.append(one)
    if sheet is not None:
        found += _in_cast(workspace, sheets, scenario, kind, target.text, party)
        if kind != "move":
            found += _in_cast(workspace, sheets, scenario, "use", target.text, party)
    return found


def _location(workspace: Workspace, one: Written) -> lsp.Location:
    line = workspace.lines(one.file)[one.line - 1]
    return lsp.Location(from_fs_path(one.file), lsp.Range(
        lsp.Position(one.line - 1, character(line, one.start + 1)), lsp.Position(one.line - 1, character(line, one.end + 1))))


def references(workspace: Workspace, path: str, where: lsp.Position) -> list[lsp.Location]:
    target = target_at(workspace, path, where)
    if target is None:
        return []
    unique = list(dict.fromkeys(_same(workspace, path, target)))
    return [_location(workspace, one) for one in unique]


def rename(workspace: Workspace, path: str, where: lsp.Position, new: str) -> lsp.WorkspaceEdit | None:
    """The edit renaming the name under the cursor everywhere it is written; a name with spaces is
    quoted where a script needs it (an actor)."""
    target = target_at(workspace, path, where)
    if target is None:
        return None
    if not new.strip() or any(c in new for c in '"\n\r#,+&'):
        raise ValueError(f"'{new}' cannot be a name of the cast (no quotes, '#', ',', '+' or '&')")
    changes: dict[str, list[lsp.TextEdit]] = {}
    for one in dict.fromkeys(_same(workspace, path, target)):
        location = _location(workspace, one)
        text = new
        if " " in new and one.file.endswith(".drama"):
            line = workspace.lines(one.file)[one.line - 1]
            quoted = line[one.start - 1:one.start] == '"'
            if not quoted and (one.kind == "party" and one.start == 0 or one.kind == "move"):
                text = f'"{new}"'
        changes.setdefault(location.uri, []).append(lsp.TextEdit(location.range, text))
    return lsp.WorkspaceEdit(changes=changes)


def workspace_symbols(workspace: Workspace, query: str) -> list[lsp.WorkspaceSymbol]:
    """The scenes, dramatic situations and choices of every open adventure, and its parties."""
    from .navigation import outline
    out: list[lsp.WorkspaceSymbol] = []
    seen: set[str] = set()
    roots = {os.path.dirname(p) for p in workspace.texts}
    scripts = sorted({str(s.resolve()) for root in roots for s in Path(root).rglob("*.drama")})
    for script in scripts:
        for symbol in outline(workspace, script):
            for one in [symbol, *(symbol.children or [])]:
                if query.lower() in one.name.lower():
                    out.append(lsp.WorkspaceSymbol(name=one.name, kind=one.kind, container_name=os.path.basename(script),
                                                   location=lsp.Location(from_fs_path(script), one.selection_range)))
    for path in list(workspace.texts):
        sheets, _roles, _scenario = _cast(workspace, path)
        for sheet in sheets.values():
            if sheet.id in seen or sheet.pos is None or query.lower() not in sheet.id.lower():
                continue
            seen.add(sheet.id)
            line = workspace.lines(sheet.pos.file)[sheet.pos.line - 1]
            start = line.find(sheet.id)
            out.append(lsp.WorkspaceSymbol(name=sheet.id, kind=lsp.SymbolKind.Class, container_name=sheet.name,
                                           location=lsp.Location(from_fs_path(sheet.pos.file), lsp.Range(
                                               lsp.Position(sheet.pos.line - 1, character(line, start + 1)),
                                               lsp.Position(sheet.pos.line - 1, character(line, start + 1 + len(sheet.id)))))))
    return out
