"""drama's errors as LSP diagnostics: the caret's range, the `expected:`/`help:` lines, the link to docs/errors.md, and the scenario they come from."""

from __future__ import annotations

import functools
import os
import re
from pathlib import Path
from typing import Callable

from lsprotocol import types as lsp
from pygls.uris import from_fs_path

from ..errors import DramaError
from .analysis import Check, Workspace
from .positions import range_of

__all__ = ["to_diagnostic", "errors_doc", "code_link"]


@functools.cache
def errors_doc() -> tuple[Path | None, dict[str, tuple[str, str]]]:
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


def code_link(code: str) -> str | None:
    path, sections = errors_doc()
    if path is None or code not in sections:
        return None
    return f"{from_fs_path(str(path))}#{sections[code][0]}"


def _where(check: Check, workspace: Workspace) -> str:
    """`with-wanderers.yaml ("The Ashen Pass (Ysolde)"), where hero is Ysolde`."""
    scenario = workspace.scenario_at(check.scenario)
    name = os.path.basename(check.scenario)
    if scenario is None:
        return name
    roles = ", ".join(f"{role} is {party}" for role, party in scenario.roles.items() if party)
    return f'{name} ("{scenario.title}")' + (f", where {roles}" if roles else "")


def to_diagnostic(error: DramaError, checks: list[Check], workspace: Workspace,
                  lines_of: Callable[[str], list[str]]) -> lsp.Diagnostic:
    """One diagnostic. When the file is read by several scenarios and not all of them find the error,
    the message says through which one it is (and what its roles are bound to there)."""
    file = error.position.file if error.position else None
    lines = lines_of(file) if file else [""]
    message = error.message
    if error.expected:
        message += f"\nexpected: {error.expected}"
    if error.hint:
        message += f"\nhelp: {error.hint}"
    related = [lsp.DiagnosticRelatedInformation(
        lsp.Location(from_fs_path(where.file), range_of(where, lines_of(where.file))), "included from here")
        for where in workspace.included_from(error)]
    notes = [note for note in error.notes if not note.startswith("included from ")]
    if file is not None:
        every = workspace.checks_of(file)
        if len(every) > 1 and len(checks) < len(every):
            notes.append("in the scenario " + "; and in ".join(_where(check, workspace) for check in checks))
    message += "".join(f"\nnote: {note}" for note in notes)
    link = code_link(error.code)
    return lsp.Diagnostic(
        range=range_of(error.position, lines), message=message, code=error.code, source="drama",
        severity=lsp.DiagnosticSeverity.Warning if error.is_warning else lsp.DiagnosticSeverity.Error,
        code_description=lsp.CodeDescription(href=link) if link else None,
        related_information=related or None, data={"hint": error.hint} if error.hint else None)


def lines_reader(workspace: Workspace) -> Callable[[str], list[str]]:
    """The lines of a file as the client numbers them (the buffer's when it is open)."""
    return workspace.lines
