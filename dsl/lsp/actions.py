"""Code actions: each did-you-mean of a diagnostic as a quick fix, and a defence for an action that has none."""

from __future__ import annotations

import re

from lsprotocol import types as lsp

from ..syntax import nodes
from .analysis import Workspace
from .navigation import cast_of

__all__ = ["code_actions"]

_DID_YOU_MEAN = re.compile(r"did you mean (?P<names>'[^'\n]+'(?:(?:, | or )'[^'\n]+')*)\?")


def _suggestions(message: str) -> list[str]:
    """The names a diagnostic's `help:` line suggests: `did you mean 'a' or 'b'?` -> [a, b]."""
    found = []
    for match in _DID_YOU_MEAN.finditer(message):
        found += re.findall(r"'([^'\n]+)'", match["names"])
    return list(dict.fromkeys(found))


def _fixes(uri: str, diagnostic: lsp.Diagnostic) -> list[lsp.CodeAction]:
    out = []
    for rank, name in enumerate(_suggestions(diagnostic.message)):
        edit = lsp.TextEdit(diagnostic.range, name)
        out.append(lsp.CodeAction(title=f"Change to '{name}'", kind=lsp.CodeActionKind.QuickFix,
                                  diagnostics=[diagnostic], is_preferred=rank == 0,
                                  edit=lsp.WorkspaceEdit(changes={uri: [edit]})))
    return out


def _defence(workspace: Workspace, path: str, uri: str, line: int) -> list[lsp.CodeAction]:
    """An action on `line` (0-based) whose target does not defend next: a defence line after it."""
    from ..syntax.parse import parse
    try:
        statements = list(parse(workspace.text(path), path, errors=[]).statements)
    except Exception:         # a script too broken to parse: no action to offer
        return []
    flat = list(nodes.walk(statements))
    for k, statement in enumerate(flat):
        if not isinstance(statement, nodes.Action) or statement.pos.line - 1 != line or statement.target is None:
            continue
        after = flat[k + 1] if k + 1 < len(flat) else None
        target = statement.target.text
        if isinstance(after, nodes.Defence) and any(p.text == target for p in after.parties):
            return []
        sheets, roles = cast_of(workspace, path)
        sheet = sheets.get(roles.get(target) or target)
        if sheet is None:
            return []                    # an unknown target: its diagnostic's fix comes first
        uses = ""
        if "defend" not in sheet.moves:
            names = [n for n in (next(iter(sheet.traits), None), next(iter(sheet.treasures), None)) if n]
            uses = " with " + " + ".join(names) if names else ""
        shown = f'"{target}"' if " " in target else target
        last = max([statement.pos.line] + [p.pos.line for p in statement.participants])
        text = f"{shown} defends{uses}, roll\n"
        edit = lsp.TextEdit(lsp.Range(lsp.Position(last, 0), lsp.Position(last, 0)), text)
        return [lsp.CodeAction(title=f"Add a defence for {target}", kind=lsp.CodeActionKind.QuickFix,
                               edit=lsp.WorkspaceEdit(changes={uri: [edit]}))]
    return []


def code_actions(workspace: Workspace, path: str, params: lsp.CodeActionParams) -> list[lsp.CodeAction]:
    uri = params.text_document.uri
    out = []
    for diagnostic in params.context.diagnostics:
        if diagnostic.source == "drama":
            out += _fixes(uri, diagnostic)
    if path.endswith(".drama"):
        out += _defence(workspace, path, uri, params.range.start.line)
    return out
