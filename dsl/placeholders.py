"""Placeholders in narration and dictated text: `{villain}`, `{hero.quintessence}`, `{round}`."""

from __future__ import annotations

import re
from typing import Callable

from .errors import DramaError, Position, did_you_mean, one_of

# `{{` and `}}` are a brace of the text; `{...}` a placeholder; a lone brace is an error
_PIECE = re.compile(r"\{\{|\}\}|\{([^{}\n]*)\}|[{}]")

# what a placeholder may say of a party: `{hero}` is `{hero.name}`
FIELDS = ("name", "id", "quintessence", "damage", "maximum", "members")
# placeholders that are not parties
GLOBALS = ("round", "drama")


def has_placeholders(text: str | None) -> bool:
    return text is not None and ("{" in text or "}" in text)


def _inside(match: re.Match, where: Position) -> tuple[str, Position] | None:
    """A placeholder's inside (stripped) and position, or None for `{{`/`}}`;
    a lone brace or an empty placeholder is E205."""
    piece = match.group()
    if piece in ("{{", "}}"):
        return None
    at = Position(where.file, where.line, where.column + match.start(), where.column + match.end())
    if match.group(1) is None:
        raise DramaError("E205", f"a lone '{piece}' in the text", position=at,
                         expected="a placeholder such as {hero} or {hero.quintessence}",
                         hint=f"write '{piece}{piece}' for the brace itself")
    inside = match.group(1).strip()
    if not inside:
        raise DramaError("E205", "an empty placeholder '{}'", position=at,
                         expected="a party or role, then optionally ." + ", .".join(FIELDS),
                         hint="write '{{}}' for the braces themselves")
    return inside, at


def placeholders(text: str, where: Position) -> list[tuple[str, Position] | DramaError]:
    """Each placeholder of `text` (its inside, stripped) with its position, where
    `where` is the position of the text's first character, or the error of a
    placeholder that cannot be read (E205), in the order of the text."""
    found: list[tuple[str, Position] | DramaError] = []
    for match in _PIECE.finditer(text):
        try:
            one = _inside(match, where)
        except DramaError as error:
            one = error
        if one is not None:
            found.append(one)
    return found


def fill(text: str, where: Position, value: Callable[[str, Position], str]) -> str:
    """`text` with each placeholder replaced by `value(inside, position)`."""
    if not has_placeholders(text):
        return text

    def replace(match: re.Match) -> str:
        one = _inside(match, where)
        return match.group()[0] if one is None else value(*one)
    return _PIECE.sub(replace, text)


def split(inside: str, at: Position, parties: list[str]) -> tuple[str, str]:
    """(`name`, `field`) of a placeholder's inside: `hero.quintessence` -> ("hero",
    "quintessence"); `hero` -> ("hero", "name"). `parties` are the roles and
    party ids a placeholder may name; another name, or an unknown field, is E205."""
    name, dot, field = inside.partition(".")
    name, field = name.strip(), field.strip() if dot else "name"
    if field not in FIELDS:
        raise DramaError("E205", f"'{field}' is not something a placeholder can say of {name}", position=at,
                         expected=f"one of {one_of(FIELDS)}", hint=did_you_mean(field, FIELDS))
    if name not in parties and name not in GLOBALS:
        known = [*parties, *GLOBALS]
        raise DramaError("E205", f"there is no party or role '{name}' for a placeholder", position=at,
                         expected=f"one of {one_of(known)}", hint=did_you_mean(name, known))
    if dot and name in GLOBALS and name not in parties:
        raise DramaError("E205", f"{{{name}}} has no fields", position=at, expected=f"{{{name}}}")
    return name, field


def literal(text: str) -> str:
    """Text written back into a script: its braces doubled, so none reads as a placeholder."""
    return text.replace("{", "{{").replace("}", "}}") if has_placeholders(text) else text
