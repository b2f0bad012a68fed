"""`drama lsp`: the protocol layer (pygls): each request handed to the module that answers it."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from lsprotocol import types as lsp
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path

from .. import __version__
from ..completion import complete
from ..names import Names
from . import navigation, references, tokens
from .actions import code_actions
from .analysis import Snapshot, Workspace
from .diagnostics import lines_reader, to_diagnostic
from .live import Live
from .navigation import KEYWORD_HELP
from .positions import character, column, split_lines
from .preview import preview, warm
from .worker import Worker

__all__ = ["make_server", "KEYWORD_HELP", "DramaServer"]

_KINDS = {"keyword": lsp.CompletionItemKind.Keyword, "party": lsp.CompletionItemKind.Variable,
          "role": lsp.CompletionItemKind.Variable, "move": lsp.CompletionItemKind.Snippet,
          "trait": lsp.CompletionItemKind.Field, "treasure": lsp.CompletionItemKind.Field,
          "file": lsp.CompletionItemKind.File, "kind": lsp.CompletionItemKind.EnumMember,
          "state": lsp.CompletionItemKind.Variable}


def path_of(uri: str) -> str:
    return to_fs_path(uri) or uri


class DramaServer(LanguageServer):
    """The language server, with the workspace it knows and the live diagnostics."""

    def __init__(self, delay: float = 0.04) -> None:
        super().__init__("drama", __version__, text_document_sync_kind=lsp.TextDocumentSyncKind.Full)
        self.files = Workspace()
        self.live = Live(self.files, self._publish, delay)
        # the previews run in a process of their own too: never behind a check, never on the loop
        self.previews = Worker("previews")
        self.previews.submit(warm)
        self._published: dict[str, tuple[int, list[lsp.Diagnostic]]] = {}

    def stop_workers(self) -> None:
        self.live.shutdown()
        self.previews.shutdown()

    def _publish(self, snapshot: Snapshot) -> None:
        """A publish for each open document whose version or diagnostics changed, with the version
        of the buffers they were made from."""
        lines_of = lines_reader(self.files)
        for real, version in snapshot.versions.items():
            found = [to_diagnostic(error, checks, self.files, lines_of)
                     for error, checks in self.files.diagnostics(real)]
            if self._published.get(real) == (version, found):
                continue
            self._published[real] = (version, found)
            self.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(
                uri=from_fs_path(real), diagnostics=found, version=version))

    def sync(self, uri: str) -> None:
        """The buffer of `uri` as pygls holds it now, into the workspace; then the live diagnostics."""
        document = self.workspace.get_text_document(uri)
        self.files.open(path_of(uri), document.source, document.version or 0)
        self.live.changed()


def make_server(delay: float = 0.04) -> DramaServer:
    """A new language server (each test makes its own); `delay`: the quiet time before a check."""
    server = DramaServer(delay)
    files = server.files

    @server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: DramaServer, params: lsp.DidOpenTextDocumentParams) -> None:
        ls.sync(params.text_document.uri)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: DramaServer, params: lsp.DidChangeTextDocumentParams) -> None:
        ls.sync(params.text_document.uri)

    @server.feature(lsp.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: DramaServer, params: lsp.DidSaveTextDocumentParams) -> None:
        files.changed()
        ls.live.changed()

    @server.feature(lsp.SHUTDOWN)
    def shutdown(ls: DramaServer, *args) -> None:
        ls.stop_workers()

    @server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: DramaServer, params: lsp.DidCloseTextDocumentParams) -> None:
        files.close(path_of(params.text_document.uri))
        ls._published.pop(os.path.realpath(path_of(params.text_document.uri)), None)
        ls.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(uri=params.text_document.uri,
                                                                          diagnostics=[]))

    @server.feature("drama/fileKind")
    def file_kind(ls: DramaServer, params) -> str | None:
        """Whether a file is drama's, and which kind ("script", "scenario", "setting", "cast", "plan"):
        the VS Code extension gives the YAML extension our schemas only for drama's files."""
        return files.kind(path_of(params.uri))

    @server.command("drama.preview")
    async def preview_command(ls: DramaServer, *args):
        """`drama.preview URI [{"seed": 0, "choices": {LABEL: OPTION}, "view": "log" | "transcript"}]`:
        a run of the scenario that reads the document, over the buffers (see preview.py)."""
        uri, options = args[0], dict(args[1]) if len(args) > 1 and args[1] else {}
        path = path_of(uri)
        scenario = path if files.kind(path) == "scenario" else next(
            (check.scenario for check in files.checks_of(path)), None)
        if scenario is None:
            found = files.scenario(path)
            scenario = found.path if found is not None else None
        if scenario is None:
            return {"error": f"no scenario reads {os.path.basename(path)}: a preview runs a scenario",
                    "lines": [], "choices": [], "map": ""}
        return await asyncio.wrap_future(ls.previews.submit(
            preview, scenario, dict(files.texts), int(options.get("seed") or 0),
            dict(options.get("choices") or {}), str(options.get("view") or "log")))

    @server.feature(lsp.TEXT_DOCUMENT_COMPLETION,
                    lsp.CompletionOptions(trigger_characters=[" ", '"', ">", "+", "/", ","]))
    def completion(ls: DramaServer, params: lsp.CompletionParams) -> lsp.CompletionList:
        path = path_of(params.text_document.uri)
        if not path.endswith(".drama"):
            return lsp.CompletionList(is_incomplete=False, items=[])   # the YAML extension completes YAML
        lines = split_lines(files.text(path))
        number = params.position.line
        line = lines[number] if number < len(lines) else ""
        prefix = line[:column(line, params.position.character)]
        scenario = files.scenario(path)
        names = Names(scenario.cast, scenario.roles) if scenario else Names(())
        state = tuple(scenario.state) if scenario else ()

        def scripts() -> list[str]:
            folder = Path(path).parent
            found = sorted(p for p in folder.rglob("*.drama") if p.resolve() != Path(path).resolve())
            return [p.relative_to(folder).as_posix() for p in found[:200]]
        items = []
        for rank, suggestion in enumerate(complete(prefix, names, files=scripts, state=state)):
            edit = lsp.TextEdit(range=lsp.Range(lsp.Position(number, character(line, suggestion.start + 1)),
                                                params.position), new_text=suggestion.text)
            items.append(lsp.CompletionItem(
                label=suggestion.text, kind=_KINDS.get(suggestion.kind), detail=suggestion.detail or
                KEYWORD_HELP.get(suggestion.text.split(" ")[0]), text_edit=edit, sort_text=f"{rank:04d}",
                filter_text=suggestion.text))
        return lsp.CompletionList(is_incomplete=False, items=items)

    @server.feature(lsp.TEXT_DOCUMENT_HOVER)
    def hover(ls: DramaServer, params: lsp.HoverParams) -> lsp.Hover | None:
        return navigation.hover(files, path_of(params.text_document.uri), params.position)

    @server.feature(lsp.TEXT_DOCUMENT_DEFINITION)
    def definition(ls: DramaServer, params: lsp.DefinitionParams) -> lsp.Location | None:
        return navigation.definition(files, path_of(params.text_document.uri), params.position)

    @server.feature(lsp.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    def symbols(ls: DramaServer, params: lsp.DocumentSymbolParams) -> list[lsp.DocumentSymbol]:
        return navigation.outline(files, path_of(params.text_document.uri))

    @server.feature(lsp.TEXT_DOCUMENT_FOLDING_RANGE)
    def folding(ls: DramaServer, params: lsp.FoldingRangeParams) -> list[lsp.FoldingRange]:
        return navigation.folding(files, path_of(params.text_document.uri))

    @server.feature(lsp.TEXT_DOCUMENT_REFERENCES)
    def find_references(ls: DramaServer, params: lsp.ReferenceParams) -> list[lsp.Location]:
        return references.references(files, path_of(params.text_document.uri), params.position)

    @server.feature(lsp.TEXT_DOCUMENT_PREPARE_RENAME)
    def prepare_rename(ls: DramaServer, params: lsp.PrepareRenameParams):
        path = path_of(params.text_document.uri)
        target = references.target_at(files, path, params.position)
        if target is None:
            return None
        line = files.lines(target.file)[target.line - 1]
        return lsp.PrepareRenamePlaceholder(range=lsp.Range(
            lsp.Position(target.line - 1, character(line, target.start + 1)),
            lsp.Position(target.line - 1, character(line, target.end + 1))), placeholder=target.text)

    @server.feature(lsp.TEXT_DOCUMENT_RENAME)
    def rename(ls: DramaServer, params: lsp.RenameParams) -> lsp.WorkspaceEdit | None:
        return references.rename(files, path_of(params.text_document.uri), params.position, params.new_name)

    @server.feature(lsp.TEXT_DOCUMENT_CODE_ACTION,
                    lsp.CodeActionOptions(code_action_kinds=[lsp.CodeActionKind.QuickFix]))
    def code_action(ls: DramaServer, params: lsp.CodeActionParams) -> list[lsp.CodeAction]:
        return code_actions(files, path_of(params.text_document.uri), params)

    @server.feature(lsp.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL, tokens.LEGEND)
    def semantic(ls: DramaServer, params: lsp.SemanticTokensParams) -> lsp.SemanticTokens:
        return tokens.semantic_tokens(files, path_of(params.text_document.uri))

    @server.feature(lsp.WORKSPACE_SYMBOL)
    def symbols_of_workspace(ls: DramaServer, params: lsp.WorkspaceSymbolParams) -> list[lsp.WorkspaceSymbol]:
        return references.workspace_symbols(files, params.query)

    @server.feature(lsp.TEXT_DOCUMENT_FORMATTING)
    def formatting(ls: DramaServer, params: lsp.DocumentFormattingParams) -> list[lsp.TextEdit] | None:
        return navigation.formatting(files, path_of(params.text_document.uri))

    return server


def main() -> None:  # pragma: no cover - `drama lsp`, over standard input and output
    os.environ.setdefault("PYTHONIOENCODING", "utf-8")
    from ..syntax.parse import remember
    remember()          # (semantic tokens, the outline ... parse the buffer after each edit: dsl/syntax/reparse.py)
    from ..loader import kept_yaml
    kept_yaml.keep(False)   # (an edited YAML file is a new text at each change: not kept for other processes)
    make_server().start_io()
