"""What a writer reads and moves with: hover, go to definition, the outline, folding, and `drama fmt`'s edit."""

from __future__ import annotations

import re
from pathlib import Path

from lsprotocol import types as lsp
from pygls.uris import from_fs_path

from ..errors import CODES, DramaError
from ..syntax import nodes
from ..syntax.vocabulary import KEYWORDS, SHOW_TERMINAL
from .analysis import Workspace
from .diagnostics import code_link, errors_doc
from .positions import character, column, line_range, range_of, split_lines, whole, word_at

__all__ = ["KEYWORD_HELP", "hover", "definition", "outline", "folding", "formatting", "name_at", "cast_of"]

def _help(word: str) -> str:
    cls = nodes.node_of_word(word)          # the node the keyword begins or carries: its docstring's first line
    doc = cls.summary() if cls is not None else ""
    if doc:
        return doc
    terminal = next((name for name, shown in SHOW_TERMINAL.items() if shown.strip("'").split(" ")[0] == word), None)
    return f"the keyword {SHOW_TERMINAL[terminal]}" if terminal else f"the keyword '{word}'"


# every keyword's one line of reference (hover)
KEYWORD_HELP: dict[str, str] = {word: _help(word) for word in sorted(KEYWORDS)}


def cast_of(workspace: Workspace, path: str):
    """The cast a script is written for: (party id -> sheet, role -> party), from its first scenario."""
    scenario = workspace.scenario(path)
    if scenario is None:
        return {}, {}
    return {sheet.id: sheet for sheet in scenario.cast}, dict(scenario.roles)


def name_at(line: str, index: int, names) -> tuple[str, int, int] | None:
    """The party id or role written around `index` of the line (names may hold spaces): (name, start, end)."""
    for name in sorted(names, key=len, reverse=True):
        for match in re.finditer(re.escape(name), line):
            before = line[match.start() - 1] if match.start() else " "
            after = line[match.end()] if match.end() < len(line) else " "
            if match.start() <= index <= match.end() and not re.match(r"[\w']", before) \
                    and not re.match(r"[\w']", after):
                return name, match.start(), match.end()
    return None


def _line(workspace: Workspace, path: str, number: int) -> str:
    lines = split_lines(workspace.text(path))
    return lines[number] if number < len(lines) else ""


# ---------------------------------------------------------------- hover

def hover(workspace: Workspace, path: str, where: lsp.Position) -> lsp.Hover | None:
    line = _line(workspace, path, where.line)
    index = column(line, where.character)
    word, start, end = word_at(line, index)
    if not word:
        return None
    text = None
    script = path.endswith(".drama")
    if re.fullmatch(r"[EW]\d{3}", word) and word in CODES:
        _doc, sections = errors_doc()
        text = f"**{word}**: {CODES[word]}"
        if word in sections:
            text += f"\n\n{sections[word][1]}"
        link = code_link(word)
        if link:
            text += f"\n\n[docs/errors.md]({link})"
    elif script:
        sheets, roles = cast_of(workspace, path)
        found = name_at(line, index, [*sheets, *roles])
        if found is not None:
            text = _sheet(found[0], sheets, roles)
            start, end = found[1], found[2]
        elif word in KEYWORDS:
            text = f"`{word}`: {KEYWORD_HELP[word]}"
    if not text:
        return None
    return lsp.Hover(contents=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=text),
                     range=lsp.Range(lsp.Position(where.line, character(line, start + 1)),
                                     lsp.Position(where.line, character(line, end + 1))))


def _sheet(name: str, sheets, roles) -> str:
    head = ""
    party = name
    if name in roles:
        party = roles[name]
        head = f"role **{name}**, bound to {party or '(nothing yet: --role)'}\n\n"
    sheet = sheets.get(party)
    if sheet is None:
        return head.strip()
    out = [f"**{sheet.id}**: {sheet.name}", f"quintessence {sheet.quintessence}"]
    if sheet.traits:
        out.append("traits: " + ", ".join(f"{k} {v}" for k, v in sheet.traits.items()))
    if sheet.treasures:
        out.append("treasures: " + ", ".join(f"{k} {v}" for k, v in sheet.treasures.items()))
    if sheet.moves:
        out.append("moves: " + ", ".join(
            f"{intent} = {' + '.join(n for n in (m.trait, m.treasure) if n)}" for intent, m in sheet.moves.items()))
    if sheet.members:
        out.append("members: " + ", ".join(sheet.members))
    return head + "\n\n".join(out)


# ---------------------------------------------------------------- go to definition

def definition(workspace: Workspace, path: str, where: lsp.Position) -> lsp.Location | None:
    line = _line(workspace, path, where.line)
    include = re.match(r'^include\s+"((?:[^"\\]|\\.)*)"', line)
    if include:
        target = Path(path).parent / include.group(1).replace('\\"', '"').replace("\\\\", "\\")
        return lsp.Location(from_fs_path(str(target)), lsp.Range(lsp.Position(0, 0), lsp.Position(0, 0)))
    sheets, roles = cast_of(workspace, path)
    found = name_at(line, column(line, where.character), [*sheets, *roles])
    if found is None:
        return None
    sheet = sheets.get(roles.get(found[0]) or found[0])
    if sheet is None or sheet.pos is None:
        return None
    return lsp.Location(from_fs_path(sheet.pos.file), range_of(sheet.pos, split_lines(workspace.text(sheet.pos.file))))


# ---------------------------------------------------------------- the outline and folding

def _parsed(workspace: Workspace, path: str) -> tuple[nodes.Script, list[str]]:
    from ..syntax.parse import parse
    text = workspace.text(path)
    return parse(text, path, errors=[]), split_lines(text)


def _flat(statements) -> list[nodes.Statement]:
    """Every statement, those of every block's bodies too (the nodes' child protocol)."""
    return list(nodes.walk(statements))


def _symbol(name: str, kind: lsp.SymbolKind, detail: str, lines: list[str], first: int, last: int,
            children=()) -> lsp.DocumentSymbol:
    return lsp.DocumentSymbol(name=name, kind=kind, detail=detail, range=line_range(lines, first, last),
                              selection_range=line_range(lines, first), children=list(children))


def outline(workspace: Workspace, path: str) -> list[lsp.DocumentSymbol]:
    """The scenes of a script, each with its dramatic situations and choices (inside blocks too)."""
    if not path.endswith(".drama"):
        return []
    script, lines = _parsed(workspace, path)
    flat = _flat(script.statements)
    last = max((k for k, line in enumerate(lines) if line.strip()), default=0)     # (not the final newline's)
    inner: list[tuple[int, lsp.DocumentSymbol]] = []
    for i, statement in enumerate(flat):
        line = statement.pos.line - 1
        if isinstance(statement, nodes.DramaBegin):
            end = next((s.pos.line - 1 for s in flat[i + 1:] if isinstance(s, (nodes.EndDrama, nodes.DramaBegin))),
                       last)
            inner.append((line, _symbol(f"drama {statement.name}", lsp.SymbolKind.Event, "drama", lines, line, end)))
        elif isinstance(statement, nodes.ChoiceBlock):
            options = [_symbol(f'option "{o.label.text}"', lsp.SymbolKind.EnumMember, "option", lines,
                               o.pos.line - 1, o.pos.line - 1) for o in statement.options]
            inner.append((line, _symbol(f'choose "{statement.label.text}"', lsp.SymbolKind.Enum, "choose", lines,
                                        line, statement.end.line - 1, options)))
    scenes = [s for s in flat if isinstance(s, nodes.Scene)]
    out = [symbol for at, symbol in inner if not scenes or at < scenes[0].pos.line - 1]
    for k, scene in enumerate(scenes):
        first = scene.pos.line - 1
        end = scenes[k + 1].pos.line - 2 if k + 1 < len(scenes) else last
        inside = [symbol for at, symbol in inner if first <= at <= end]
        out.append(_symbol(scene.title, lsp.SymbolKind.Module, "scene", lines, first, end, inside))
    return out


def folding(workspace: Workspace, path: str) -> list[lsp.FoldingRange]:
    """Every block (`if` ... `end`, `repeat`, `choose`, each option), dramatic situation and scene."""
    if not path.endswith(".drama"):
        return []
    script, lines = _parsed(workspace, path)
    out = []
    for statement in _flat(script.statements):
        end = getattr(statement, "end", None)
        if end is not None and hasattr(end, "line") and end.line > statement.pos.line:
            out.append(lsp.FoldingRange(start_line=statement.pos.line - 1, end_line=end.line - 1))
        if isinstance(statement, nodes.ChoiceBlock):
            starts = [o.pos.line for o in statement.options] + [statement.end.line]
            out += [lsp.FoldingRange(start_line=a - 1, end_line=b - 2) for a, b in zip(starts, starts[1:]) if b - 2 > a - 1]
    for symbol in outline(workspace, path):
        for one in [symbol, *(symbol.children or [])]:
            if one.range.end.line > one.range.start.line:
                out.append(lsp.FoldingRange(start_line=one.range.start.line, end_line=one.range.end.line,
                                            kind=lsp.FoldingRangeKind.Region))
    return out


# ---------------------------------------------------------------- formatting

def formatting(workspace: Workspace, path: str) -> list[lsp.TextEdit] | None:
    """`drama fmt`'s layout as one edit of the whole document (none when it is laid out already)."""
    from ..syntax.layout import layout
    if not path.endswith(".drama"):
        return None
    text = workspace.text(path)
    try:
        laid_out = layout(text, path)
    except DramaError:
        return None                   # the diagnostics say why
    if laid_out == text:
        return []
    return [lsp.TextEdit(range=whole(split_lines(text)), new_text=laid_out)]
