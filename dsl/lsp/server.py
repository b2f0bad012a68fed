"""`drama lsp`: the language server (pygls): diagnostics, completion, hover, definitions, outline and formatting."""

from __future__ import annotations

import functools
import os
import re
from pathlib import Path

from lsprotocol import types as lsp
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path

from .. import __version__
from ..errors import CODES, DramaError, Position
from ..syntax import nodes
from ..syntax.vocabulary import KEYWORDS, SHOW_TERMINAL, STATEMENT_WORDS
from .analysis import Workspace, word_at

__all__ = ["make_server", "KEYWORD_HELP"]

def _help(word: str) -> str:
    cls = nodes.node_of_word(word)          # the node the keyword begins or carries: its docstring's first line
    doc = cls.summary() if cls is not None else ""
    if doc:
        return doc
    terminal = next((name for name, shown in SHOW_TERMINAL.items() if shown.strip("'").split(" ")[0] == word), None)
    return f"the keyword {SHOW_TERMINAL[terminal]}" if terminal else f"the keyword '{word}'"


# every keyword's one line of reference (hover)
KEYWORD_HELP: dict[str, str] = {word: _help(word) for word in sorted(KEYWORDS)}


# ---------------------------------------------------------------------------- docs/errors.md

@functools.cache
def _errors_doc() -> tuple[Path | None, dict[str, tuple[str, str]]]:
    """docs/errors.md of the source tree, when there is one: code -> (anchor, first paragraph)."""
    path = Path(__file__).resolve().parent.parent.parent / "docs" / "errors.md"
    if not path.is_file():
        return None, {}
    sections: dict[str, tuple[str, str]] = {}
    text = path.read_text(encoding="utf-8")
    for match in re.finditer(r"^### ((?P<code>[EW]\d{3}):[^\n]*)\n\n(?P<body>(?:[^\n]+\n)+)", text, re.MULTILINE):
        heading = match.group(1)
        anchor = re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")
        sections[match["code"]] = (anchor, " ".join(match["body"].split()))
    return path, sections


def _code_link(code: str) -> str | None:
    path, sections = _errors_doc()
    if path is None or code not in sections:
        return None
    return f"{from_fs_path(str(path))}#{sections[code][0]}"


# ---------------------------------------------------------------------------- positions

def _character(line: str, column: int) -> int:
    """A 1-based code-point column as an LSP character (UTF-16 code units, 0-based)."""
    return len(line[: max(column - 1, 0)].encode("utf-16-le")) // 2


def _column(line: str, character: int) -> int:
    """An LSP character (UTF-16 units) as a 0-based index into the line."""
    units = 0
    for index, char in enumerate(line):
        if units >= character:
            return index
        units += 2 if ord(char) > 0xFFFF else 1
    return len(line)


def _range(position: Position | None, lines: list[str]) -> lsp.Range:
    if position is None:
        return lsp.Range(lsp.Position(0, 0), lsp.Position(0, 0))
    index = max(position.line - 1, 0)
    line = lines[index] if index < len(lines) else ""
    start = _character(line, position.column)
    if position.end_column:
        end = _character(line, position.end_column)
    else:
        _word, _, stop = word_at(line, _column(line, start))
        end = max(stop, start + 1) if stop > start else len(line.encode("utf-16-le")) // 2
    return lsp.Range(lsp.Position(index, start), lsp.Position(index, max(end, start)))


# ---------------------------------------------------------------------------- the server

def make_server() -> LanguageServer:
    """A new language server (each test makes its own)."""
    server = LanguageServer("drama", __version__, text_document_sync_kind=lsp.TextDocumentSyncKind.Full)
    workspace = Workspace()

    def lines_of(path: str) -> list[str]:
        return workspace.text(path).split("\n")

    def diagnostic(error: DramaError) -> lsp.Diagnostic:
        file = error.position.file if error.position else None
        lines = lines_of(file) if file else []
        message = error.message
        if error.expected:
            message += f"\nexpected: {error.expected}"
        if error.hint:
            message += f"\nhelp: {error.hint}"
        related = [lsp.DiagnosticRelatedInformation(
            lsp.Location(from_fs_path(where.file), _range(where, lines_of(where.file))), "included from here")
            for where in workspace.included_from(error)]
        notes = [note for note in error.notes if not note.startswith("included from ")]
        if notes:
            message += "".join(f"\nnote: {note}" for note in notes)
        link = _code_link(error.code)
        return lsp.Diagnostic(
            range=_range(error.position, lines), message=message, code=error.code, source="drama",
            severity=lsp.DiagnosticSeverity.Warning if error.is_warning else lsp.DiagnosticSeverity.Error,
            code_description=lsp.CodeDescription(href=link) if link else None,
            related_information=related or None)

    def publish(ls: LanguageServer) -> None:
        for real in list(workspace.texts):
            found = workspace.diagnostics(real)
            ls.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(
                uri=from_fs_path(real), diagnostics=[diagnostic(e) for e in found]))

    def path_of(uri: str) -> str:
        return to_fs_path(uri) or uri

    @server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: LanguageServer, params: lsp.DidOpenTextDocumentParams) -> None:
        workspace.open(path_of(params.text_document.uri), params.text_document.text)
        publish(ls)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: LanguageServer, params: lsp.DidChangeTextDocumentParams) -> None:
        document = ls.workspace.get_text_document(params.text_document.uri)
        workspace.open(path_of(params.text_document.uri), document.source)
        publish(ls)

    @server.feature(lsp.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: LanguageServer, params: lsp.DidSaveTextDocumentParams) -> None:
        workspace.changed()
        publish(ls)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: LanguageServer, params: lsp.DidCloseTextDocumentParams) -> None:
        workspace.close(path_of(params.text_document.uri))
        ls.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(uri=params.text_document.uri,
                                                                          diagnostics=[]))

    # ------------------------------------------------------------------ the cast at a place

    def cast_of(path: str):
        scenario = workspace.scenario(path)
        if scenario is None:
            return {}, {}
        sheets = {sheet.id: sheet for sheet in scenario.cast}
        return sheets, dict(scenario.roles)

    def name_at(line: str, index: int, names) -> str | None:
        """The party id or role written around `index` of the line (names may hold spaces)."""
        for name in sorted(names, key=len, reverse=True):
            for match in re.finditer(re.escape(name), line):
                before = line[match.start() - 1] if match.start() else " "
                after = line[match.end()] if match.end() < len(line) else " "
                if match.start() <= index <= match.end() and not re.match(r"[\w']", before) \
                        and not re.match(r"[\w']", after):
                    return name
        return None

    @server.feature(lsp.TEXT_DOCUMENT_COMPLETION,
                    lsp.CompletionOptions(trigger_characters=[" ", '"', ">", "+", "/"]))
    def completion(ls: LanguageServer, params: lsp.CompletionParams) -> lsp.CompletionList:
        path = path_of(params.text_document.uri)
        if not path.endswith(".drama"):
            return lsp.CompletionList(is_incomplete=False, items=[])   # the YAML extension completes YAML
        lines = lines_of(path)
        line = lines[params.position.line] if params.position.line < len(lines) else ""
        prefix = line[:_column(line, params.position.character)]
        return lsp.CompletionList(is_incomplete=False, items=_completions(path, prefix, *cast_of(path)))

    def _completions(path: str, prefix: str, sheets, roles) -> list[lsp.CompletionItem]:
        parties = [lsp.CompletionItem(label=pid, kind=lsp.CompletionItemKind.Variable,
                                      detail=f"party: {sheet.name}") for pid, sheet in sheets.items()]
        parties += [lsp.CompletionItem(label=role, kind=lsp.CompletionItemKind.Variable,
                                       detail=f"role, bound to {party or '(unbound)'}") for role, party in roles.items()]
        include = re.search(r'^include\s+"([^"]*)$', prefix)
        if include:
            folder = Path(path).parent
            scripts = sorted(p for p in folder.rglob("*.drama") if p.resolve() != Path(path).resolve())
            return [lsp.CompletionItem(label=str(p.relative_to(folder)), kind=lsp.CompletionItemKind.File)
                    for p in scripts[:200]]
        stripped = prefix.lstrip()
        if re.fullmatch(r"[\w'-]*", stripped):
            if prefix[:1] in (" ", "\t"):
                return parties                         # a participant line
            words = [w for w in STATEMENT_WORDS if w != "end"] + ["end", "end drama"]
            return [lsp.CompletionItem(label=w, kind=lsp.CompletionItemKind.Keyword,
                                       detail=KEYWORD_HELP.get(w.split(" ")[0])) for w in words] + parties
        uses = re.search(r"\bwith\s+(?P<done>(?:[^,#+]*\+\s*)?)[^,#+]*$", prefix)
        if uses and not stripped.startswith("drama"):
            helper = re.search(r"helped\s+by\s+(\"[^\"]*\"|[\w' -]+?)\s+with\s+[^,]*$", prefix)
            actor = (helper.group(1) if helper else re.match(r"\s*(\"[^\"]*\"|[\w'-]+)", prefix).group(1)).strip('"')
            sheet = sheets.get(roles.get(actor) or actor)
            if sheet is None:
                return []
            items = [lsp.CompletionItem(label=name, kind=lsp.CompletionItemKind.Field, detail=f"trait {level}")
                     for name, level in sheet.traits.items()]
            items += [lsp.CompletionItem(label=name, kind=lsp.CompletionItemKind.Field, detail=f"treasure {value}")
                      for name, value in sheet.treasures.items()]
            if not uses["done"]:
                items += [lsp.CompletionItem(label=" + ".join(n for n in (move.trait, move.treasure) if n),
                                             kind=lsp.CompletionItemKind.Snippet, detail=f"the move {intent}")
                          for intent, move in sheet.moves.items()]
            return items
        if re.search(r"(->|\+|\btie|\bsplit|,|\bby|\bwith|\binitiative|\bif|\buntil|\band|\bor)\s*[\w' -]*$", prefix):
            return parties
        return [lsp.CompletionItem(label=w, kind=lsp.CompletionItemKind.Keyword) for w in sorted(KEYWORDS)] + parties

    # ------------------------------------------------------------------ hover

    @server.feature(lsp.TEXT_DOCUMENT_HOVER)
    def hover(ls: LanguageServer, params: lsp.HoverParams) -> lsp.Hover | None:
        path = path_of(params.text_document.uri)
        lines = lines_of(path)
        line = lines[params.position.line] if params.position.line < len(lines) else ""
        index = _column(line, params.position.character)
        word, start, end = word_at(line, index)
        if not word:
            return None
        text = None
        if re.fullmatch(r"[EW]\d{3}", word) and word in CODES:
            _doc, sections = _errors_doc()
            text = f"**{word}**: {CODES[word]}"
            if word in sections:
                text += f"\n\n{sections[word][1]}"
            link = _code_link(word)
            if link:
                text += f"\n\n[docs/errors.md]({link})"
        else:
            sheets, roles = cast_of(path) if not path.endswith((".yaml", ".yml")) else ({}, {})
            name = name_at(line, index, [*sheets, *roles])
            if name is not None:
                text = _sheet(name, sheets, roles)
            elif word in KEYWORDS and not path.endswith((".yaml", ".yml")):
                text = f"`{word}`: {KEYWORD_HELP[word]}"
        if text is None:
            return None
        return lsp.Hover(contents=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=text),
                         range=lsp.Range(lsp.Position(params.position.line, _character(line, start + 1)),
                                         lsp.Position(params.position.line, _character(line, end + 1))))

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

    # ------------------------------------------------------------------ go to definition

    @server.feature(lsp.TEXT_DOCUMENT_DEFINITION)
    def definition(ls: LanguageServer, params: lsp.DefinitionParams) -> lsp.Location | None:
        path = path_of(params.text_document.uri)
        lines = lines_of(path)
        line = lines[params.position.line] if params.position.line < len(lines) else ""
        include = re.match(r'^include\s+"((?:[^"\\]|\\.)*)"', line)
        if include:
            target = Path(path).parent / include.group(1).replace('\\"', '"').replace("\\\\", "\\")
            return lsp.Location(from_fs_path(str(target)), lsp.Range(lsp.Position(0, 0), lsp.Position(0, 0)))
        sheets, roles = cast_of(path)
        name = name_at(line, _column(line, params.position.character), [*sheets, *roles])
        if name is None:
            return None
        sheet = sheets.get(roles.get(name) or name)
        if sheet is None or sheet.pos is None:
            return None
        return lsp.Location(from_fs_path(sheet.pos.file), _range(sheet.pos, lines_of(sheet.pos.file)))

    # ------------------------------------------------------------------ outline

    @server.feature(lsp.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    def symbols(ls: LanguageServer, params: lsp.DocumentSymbolParams) -> list[lsp.DocumentSymbol]:
        path = path_of(params.text_document.uri)
        if not path.endswith(".drama"):
            return []
        lines = lines_of(path)

        def symbol(found) -> lsp.DocumentSymbol:
            first = lsp.Range(lsp.Position(found.line - 1, 0),
                              lsp.Position(found.line - 1, _character(lines[found.line - 1], len(lines[found.line - 1]) + 1)))
            end = min(found.end_line, len(lines)) - 1
            whole = lsp.Range(lsp.Position(found.line - 1, 0),
                              lsp.Position(end, _character(lines[end], len(lines[end]) + 1)))
            return lsp.DocumentSymbol(
                name=found.name, kind=lsp.SymbolKind.Module if found.kind == "scene" else lsp.SymbolKind.Event,
                range=whole, selection_range=first, detail=found.kind,
                children=[symbol(child) for child in found.children])
        return [symbol(found) for found in workspace.symbols(path)]

    # ------------------------------------------------------------------ formatting

    @server.feature(lsp.TEXT_DOCUMENT_FORMATTING)
    def formatting(ls: LanguageServer, params: lsp.DocumentFormattingParams) -> list[lsp.TextEdit] | None:
        from ..syntax.layout import layout
        path = path_of(params.text_document.uri)
        if not path.endswith(".drama"):
            return None
        text = workspace.text(path)
        try:
            laid_out = layout(text, path)
        except DramaError:
            return None                   # the diagnostics say why
        if laid_out == text:
            return []
        lines = text.split("\n")
        end = lsp.Position(len(lines) - 1, len(lines[-1].encode("utf-16-le")) // 2)
        return [lsp.TextEdit(range=lsp.Range(lsp.Position(0, 0), end), new_text=laid_out)]

    return server


def main() -> None:  # pragma: no cover - `drama lsp`, over standard input and output
    os.environ.setdefault("PYTHONIOENCODING", "utf-8")
    make_server().start_io()
