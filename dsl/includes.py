"""Includes: each `include "file.drama"` replaced by the statements of that file."""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace

from .syntax import nodes as n
from .errors import DramaError


@dataclass
class Included:
    """The statements of a script with its includes read in, and for each
    included file the chain of includes that brought it in."""

    script: n.Script
    chains: dict[str, list[str]] = field(default_factory=dict)

    def add_notes(self, error: DramaError) -> DramaError:
        """An error in an included file gets the chain of includes as notes."""
        position = error.position
        if position is not None and position.file in self.chains and not getattr(error, "_chained", False):
            error.notes.extend(f"included from {where}" for where in reversed(self.chains[position.file]))
            error._chained = True
        return error


def expand(script: n.Script, root: str, errors: list[DramaError] | None = None) -> Included:
    """Read in every `include` of `script`, recursively.

    Paths are relative to the including file, and may not lead out of `root`
    (the scenario's folder) nor back into a file that is being included (a
    cycle, shown with its chain). With `errors` a list, a bad include is
    recorded and skipped; otherwise the first is raised.
    """
    chains: dict[str, list[str]] = {}
    if not any(isinstance(s, (n.Include, n.IfBlock, n.Loop)) for s in script.statements):
        return Included(script, chains)
    result = Included(script, chains)
    statements = _expand(script.statements, script.file, os.path.realpath(root or "."),
                         [(script.file, os.path.realpath(script.file))], [], chains, errors, result)
    result.script = n.Script(script.file, tuple(statements))
    return result


def _expand(statements, file: str, root: str, stack: list[tuple[str, str]], chain: list[str],
            chains: dict[str, list[str]], errors: list | None, result: Included) -> list[n.Statement]:
    out: list[n.Statement] = []
    for statement in statements:
        if isinstance(statement, (n.IfBlock, n.Loop)):     # includes inside a block are read in place
            def inner(body):
                return tuple(_expand(body, file, root, stack, chain, chains, errors, result))
            if isinstance(statement, n.Loop):
                out.append(replace(statement, body=inner(statement.body)))
            else:
                out.append(replace(statement, arms=tuple(replace(arm, body=inner(arm.body))
                                                         for arm in statement.arms)))
            continue
        if not isinstance(statement, n.Include):
            out.append(statement)
            continue
        try:
            out.extend(_include(statement, file, root, stack, chain, chains, errors, result))
        except DramaError as error:
            result.add_notes(error.at(statement.pos))
            if errors is None:
                raise
            errors.append(error)
    return out


def _include(statement: n.Include, file: str, root: str, stack, chain, chains, errors, result):
    path = os.path.normpath(os.path.join(os.path.dirname(file), statement.path))
    real = os.path.realpath(path)
    if os.path.commonpath([real, root]) != root:
        raise DramaError("E003", f"'{statement.path}' is outside the scenario's folder", position=statement.pos,
                         expected=f"a file inside the scenario's folder ({os.path.relpath(root)})",
                         hint="copy the shared scenes into the adventure's folder, or move the scenario up")
    if real in (seen for _, seen in stack):
        names = [shown for shown, _ in stack] + [path]
        raise DramaError("E003", f"'{statement.path}' includes itself: {' -> '.join(names)}",
                         position=statement.pos, expected="includes that do not lead back to a file being read")
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except (OSError, UnicodeDecodeError) as error:
        reason = "it is not UTF-8 text" if isinstance(error, UnicodeDecodeError) else (
            error.strerror or str(error)).lower()
        raise DramaError("E108", f"cannot read the included file '{statement.path}': {reason}",
                         position=statement.pos, hint="paths are relative to the file that includes them") from None
    here = chain + [f"{statement.pos.file}:{statement.pos.line}"]
    chains.setdefault(path, here)
    from .syntax import parse
    found: list[DramaError] = []
    try:
        script = parse(text, path, errors=found if errors is not None else None)
    except DramaError as error:
        raise result.add_notes(error)
    for error in found:
        errors.append(result.add_notes(error))
    return _expand(script.statements, path, root, stack + [(path, real)], here, chains, errors, result)
