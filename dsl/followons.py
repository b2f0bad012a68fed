"""One typo, one error: the errors of `drama check` that a typo causes further down (its follow-ons) are found by checking again with the typo fixed, and left out."""

# A typo makes `drama check` skip what it is in: a `drama` line with a
# misspelt party begins no situation, so every `round` and exchange after it
# is an error; a misspelt trait skips an exchange, so a recovery further down
# has the wrong damage pool to roll. Those errors are true of the text but
# not of what the writer meant, and they vanish with the typo. So when the
# errors of a `.drama` script include typos with one did-you-mean each (a
# name, a keyword), the script is checked again with each typo replaced by its
# suggestion; an error of the rules that the fixed script does not have (same
# code, same line) is a follow-on, and is not reported. The typos themselves,
# every name not found and every warning are always kept.

from __future__ import annotations

import dataclasses
import os
import re
from typing import Callable

from .errors import DramaError

__all__ = ["without_follow_ons"]

_ONE_SUGGESTION = re.compile(r"^did you mean '([^'\n]+)'\?$")


def _fixes(errors: list[DramaError], file: str) -> dict[int, list[tuple[int, int, str]]]:
    """The typos of `file` with one suggestion each: line -> [(start, end, suggestion)] (0-based columns)."""
    out: dict[int, list[tuple[int, int, str]]] = {}
    for error in errors:
        where = error.position
        match = _ONE_SUGGESTION.match(error.hint or "")
        if match is None or where is None or not where.end_column or where.file != file:
            continue
        out.setdefault(where.line, []).append((where.column - 1, where.end_column - 1, match.group(1)))
    return out


def _fixed(text: str, fixes: dict[int, list[tuple[int, int, str]]]) -> str | None:
    lines = text.split("\n")
    for line, spans in fixes.items():
        if line > len(lines):
            return None
        row = lines[line - 1]
        for start, end, suggestion in sorted(spans, reverse=True):
            row = row[:start] + suggestion + row[end:]
        lines[line - 1] = row
    return "\n".join(lines)


def _is_a_rule(error: DramaError) -> bool:
    """An error that can be a follow-on: not a warning, not a syntax error, not a name not found."""
    return not error.is_warning and error.code != "E001" and not error.code.startswith("E2")


def without_follow_ons(errors: list[DramaError], source, again: Callable[[object], list[DramaError]]) \
        -> list[DramaError]:
    """`errors` without the follow-ons of its typos; `source` is the scenario's script (a
    `ScriptSource`), `again(source)` checks another text of it."""
    if source.line_offset or "\r" in source.text or not source.file.endswith(".drama"):
        return errors                      # (a script inline in a YAML file: its columns are not the text's)
    fixes = _fixes(errors, source.file)
    if not fixes:
        return errors
    text = _fixed(source.text, fixes)
    if text is None:
        return errors
    try:
        still = {(e.code, e.position.line if e.position else None, os.path.realpath(e.position.file)
                  if e.position else None) for e in again(dataclasses.replace(source, text=text))}
    except DramaError:
        return errors
    typo_lines = set(fixes)

    def kept(error: DramaError) -> bool:
        if not _is_a_rule(error) or error.position is None:
            return True
        if error.position.file == source.file and error.position.line in typo_lines:
            return True
        return (error.code, error.position.line, os.path.realpath(error.position.file)) in still
    return [error for error in errors if kept(error)]
