"""Semantic tokens: the parties, traits, treasures and moves of a script, which the cast knows and the TextMate grammar cannot."""

from __future__ import annotations

from lsprotocol import types as lsp

from ..errors import DramaError
from .analysis import Workspace
from .navigation import cast_of
from .positions import character
from .references import written_in

__all__ = ["LEGEND", "semantic_tokens"]

# standard token types, so that every theme colours them: a party as a variable, a trait as a
# property, a treasure as an enum member, a move as a function
TYPES = {"party": "variable", "trait": "property", "treasure": "enumMember", "move": "function"}
LEGEND = lsp.SemanticTokensLegend(token_types=list(TYPES.values()), token_modifiers=[])


def semantic_tokens(workspace: Workspace, path: str) -> lsp.SemanticTokens:
    from ..syntax.parse import parse
    if not path.endswith(".drama"):
        return lsp.SemanticTokens(data=[])
    lines = workspace.lines(path)
    try:
        script = parse(workspace.text(path), path, errors=[])
    except DramaError:
        return lsp.SemanticTokens(data=[])
    sheets, roles = cast_of(workspace, path)
    found = []
    for statement in script.statements:
        for one in written_in(statement, lines, path):
            sheet = sheets.get(roles.get(one.owner or "") or one.owner or "")
            if one.kind == "party":
                kind = "party" if one.text in sheets or one.text in roles else None
            elif sheet is None:
                kind = None
            elif one.kind == "move":
                kind = "move" if one.text in sheet.moves else None
            else:
                kind = "trait" if one.text in sheet.traits else "treasure" if one.text in sheet.treasures else None
            if kind is not None:
                found.append((one.line - 1, one.start, one.end, list(TYPES).index(kind)))
    data: list[int] = []
    last_line = last_start = 0
    for line, start, end, kind in sorted(set(found)):
        text = lines[line]
        first, stop = character(text, start + 1), character(text, end + 1)
        data += [line - last_line, first - (last_start if line == last_line else 0), stop - first, kind, 0]
        last_line, last_start = line, first
    return lsp.SemanticTokens(data=data)
