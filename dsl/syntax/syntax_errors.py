"""The wording of syntax errors: a Lark error turned into an E001 or E002 with its `expected:` line and hint."""

from __future__ import annotations

import re
from typing import Sequence

from .grammar import LarkError, UnexpectedInput, UnexpectedToken

from ..errors import DramaError, Position, did_you_mean
from .vocabulary import KEYWORD_WORDS, SHOW_TERMINAL, STATEMENT_WORDS, VERBS

__all__ = ["syntax_error", "fallback_error", "content_end", "show", "INDENTED_LINE", "FLUSH_LEFT"]

# what a line holds before its comment: quoted text may contain '#'
_BEFORE_COMMENT = re.compile(r'(?:"(?:[^"\\\n]|\\.)*"|[^#\n])*')
# one lexeme, for error messages
_LEXEME = re.compile(r'"(?:[^"\\\n]|\\.)*"|->|[\w\'](?:[\w\']|-(?!>))*|\S')
_WORD = re.compile(r"[\w'](?:[\w']|-(?!>))*")

INDENTED_LINE = "an indented line must follow a joint action or defence"
FLUSH_LEFT = "write it flush left"
_ORDER = {name: i for i, name in enumerate(SHOW_TERMINAL)}


def content_end(line: str) -> int:
    """The column just after the last character of a line that is not comment or space."""
    if "#" in line:
        line = line[: _BEFORE_COMMENT.match(line).end()]
    return len(line.rstrip()) + 1


def show(text: str, limit: int = 40) -> str:
    """Text as a message shows it: at most `limit` characters, unprintable ones escaped."""
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def _expected_text(accepts: set[str]) -> str | None:
    if "SCENE" in accepts:
        return ("a statement: a party's name, 'scene', 'drama', 'initiative', 'round', 'tie', "
                "'split', 'end drama', 'calm', 'rest', 'include', 'if', 'repeat', 'choose', 'set', 'expect' "
                "or '>' and narration")
    accepts = set(accepts)
    if "_DEFENDS" in accepts and "AMP" in accepts:
        accepts.discard("WITH")  # only there to catch a participant line that lost its indentation
    names = sorted((n for n in accepts if n in SHOW_TERMINAL), key=_ORDER.__getitem__)
    shown = [SHOW_TERMINAL[n] for n in names]
    if "WORD" in accepts and "STRING" in accepts:
        shown.remove("a quoted name")
        # right after the actor(s) a name is the intent
        shown[shown.index("a word")] = "an intent such as 'fireball'" if "_DEFENDS" in accepts else "a name"
    elif "TEXT" in accepts and "STRING" in accepts:
        shown.remove("a quoted name")
        shown[shown.index("text")] = "text, quoted or not"
    if not shown:
        return None
    if len(shown) == 1:
        return shown[0]
    return ", ".join(shown[:-1]) + " or " + shown[-1]


def _accepts(e: UnexpectedInput) -> set[str]:
    parser = getattr(e, "interactive_parser", None)
    if parser is not None:
        try:
            return set(parser.accepts())
        except (LarkError, DramaError, KeyError, AssertionError):
            pass
    if isinstance(e, UnexpectedToken):
        return set(e.expected)
    return set(getattr(e, "allowed", None) or ())


def _line_words(line: str) -> list[str]:
    return [m.group() for m in _LEXEME.finditer(line[: _BEFORE_COMMENT.match(line).end()])]


# what other languages write, and how this one says it
_OTHER_LANGUAGES = {"elif": "did you mean `else if`?", "elsif": "did you mean `else if`?",
                    "elseif": "did you mean `else if`?", "endif": "did you mean `end`?",
                    "fi": "did you mean `end`?", "while": "did you mean `repeat until ..., at most N rounds`?"}
_OPERATORS = {"==": "did you mean `=`? A comparison is written with one `=`",
              "&&": "did you mean `and`?", "||": "did you mean `or`?"}


def _operator_hint(text: str, index: int) -> str | None:
    """`==`, `&&` or `||` at (or just before) `index` of a line: the hint for this language's word."""
    for operator, hint in _OPERATORS.items():
        for start in (index - 1, index):
            if start >= 0 and text[start:start + 2] == operator:
                return hint
    return None


_COMPOUND = re.compile(r"\s*set\s+(\w+)\s*([-+*/])=\s*(.*?)\s*$")
_LABELLED = re.compile(r"\s*(choose|option)\s+([^\s\"].*?)\s*$")


def _slip_hint(line: str, words: list[str]) -> str | None:
    """A hint for the common slips of writers who know other languages: `set gold += 1`,
    an unquoted label of a choice, an action without `->` before its target."""
    compound = _COMPOUND.match(line)
    if compound:
        name, operator, value = compound.groups()
        return f"a counter is given its new value whole: set {name} = {name} {operator} {value or '1'}"
    labelled = _LABELLED.match(line)
    if labelled:
        word, label = labelled.groups()
        label = label.split(" weight ")[0].split(" if ")[0].split(" once")[0].split(", chose ")[0]
        what = "a choice" if word == "choose" else "an option"
        return f'the label of {what} is quoted: {word} "{label}"'
    return None


_NOT_TARGETS = {"with", "roll", "rolled", "vs", "but", "so", "and", "or", "then", "helped", "by"}


def _arrow_hint(words: list[str]) -> str | None:
    """`Aldric attacks Drowned, roll`: an action whose target is not after `->`."""
    if len(words) >= 3 and _WORD.fullmatch(words[0]) and words[0] not in STATEMENT_WORDS and \
            "->" not in words and "vs" not in words and "&" not in words[:2] and \
            any(w in (",", "roll", "rolled", "with") for w in words[2:]):
        actor, intent, target = words[0], words[1], words[2]
        if _WORD.fullmatch(intent) and _WORD.fullmatch(target) and target not in _NOT_TARGETS:
            return f"an action names its target after '->': {actor} {intent} -> {target}, ..."
    return None


def _line_hint(line: str) -> str | None:
    """A hint from the shape of a line that failed: a misspelt keyword, an unquoted intent."""
    words = _line_words(line)
    if not words:
        return None
    slip = _slip_hint(line, words)
    if slip:
        return slip
    first = words[0]
    if first in _OTHER_LANGUAGES:
        return _OTHER_LANGUAGES[first]
    if first in STATEMENT_WORDS or first.startswith(">"):
        return None
    if _WORD.fullmatch(first):
        hint = did_you_mean(first, STATEMENT_WORDS)
        if hint:
            return hint
    # the word after the actor(s): a statement verb, or the first word of the intent
    i = 1
    while i + 1 < len(words) and words[i] == "&":
        i += 2
    if i >= len(words):
        return None
    verb = words[i]
    if verb in VERBS:
        rest = words[i + 1:]
        if "->" in rest or "vs" in rest:
            return f"an intent that starts with '{verb}' must be quoted, as in \"{verb} ...\" -> ..."
        return None
    if _WORD.fullmatch(verb):
        return did_you_mean(verb, VERBS) or _arrow_hint(words)
    return _arrow_hint(words)


def _mapped(line_map: Sequence[int], line: int) -> int:
    """The line in the file of line `line` of the text Lark read."""
    return line_map[min(max(line, 0), len(line_map) - 1)]


def syntax_error(e: UnexpectedInput, lines: list[str], line_map: Sequence[int], file: str) -> DramaError:
    """A DramaError for a GM from a Lark exception, positioned in the original file."""
    accepts = _accepts(e)
    token = getattr(e, "token", None)
    kind = token.type if isinstance(e, UnexpectedToken) and token is not None else None

    if kind == "_INDENT" and ("_NL" in accepts or "$END" in accepts):
        line = token.end_line
        text = lines[line - 1] if 0 < line <= len(lines) else ""
        words = _line_words(text)
        if words and ("->" in words or "vs" in words or words[0] in STATEMENT_WORDS or words[0][0] == ">"
                      or len(words) > 1 and words[1] in VERBS):
            # a whole statement, indented: as the lines of a block might be in other languages
            hint = ("write it flush left: only a joint side's participant lines are indented, "
                    "not the lines of an `if` or `repeat`")
        else:
            hint = ("join the parties with '&' on the line above (Kara & Bren \"pin him down\" -> Overlord) "
                    "or remove the indentation")
        return DramaError(
            "E002", INDENTED_LINE,
            position=Position(file, _mapped(line_map, line), token.end_column, max(content_end(text), token.end_column + 1)),
            hint=hint)

    if kind in ("_NL", "_INDENT", "$END"):
        if kind == "$END" or token.line is None or token.line < 1 or token.line > len(lines):
            line = len(lines)
            while line > 1 and not lines[line - 1].strip():
                line -= 1
        else:
            line = token.line
        text = lines[line - 1] if 0 < line <= len(lines) else ""
        column = content_end(text)
        before = _line_words(text)
        after = f" after '{show(before[-1])}'" if before else ""
        what = "end of the script" if kind == "$END" else "end of line"
        message = f"unexpected {what}{after}"
        hint = _line_hint(text)
        expected = _expected_text(accepts)
        if accepts == {"WORD"} and before[:1] in (["calm"], ["rest"]):
            expected = "a unit of time: seconds, minutes, hours, days, weeks or rounds"
        return DramaError("E001", message, position=Position(file, _mapped(line_map, line), column, column + 1),
                          expected=expected, hint=hint)

    # an unexpected word or character inside a line
    line, column = e.line, e.column
    if not isinstance(line, int) or not 0 < line <= len(lines):
        line, column = len(lines), 1
    text = lines[line - 1]
    index = max(column - 1, 0)
    match = _LEXEME.match(text, index)
    lexeme = match.group() if match else (text[index:index + 1] or "?")
    before = _line_words(text[:index])
    after = f" after '{show(before[-1])}'" if before else ""
    end = column + len(lexeme)
    expected = _expected_text(accepts)
    hint = None
    if lexeme == '"':
        message = f"unterminated quote{after}"
        hint = 'end the quoted text with " on the same line'
        end = content_end(text[:index] + text[index:].replace("#", " "))
        end = max(end, column + 1)
    else:
        message = f"unexpected '{show(lexeme)}'{after}" if after else f"unexpected '{show(lexeme)}'"
        hint = _operator_hint(text, index)
        if hint is None and _WORD.fullmatch(lexeme):
            keywords = [w for n in accepts for w in KEYWORD_WORDS.get(n, ())]
            hint = did_you_mean(lexeme, keywords) if keywords else None
        if hint is None:
            hint = _line_hint(text)
    return DramaError("E001", message, position=Position(file, _mapped(line_map, line), column, end),
                      expected=expected, hint=hint)


def fallback_error(e: Exception, line_map: Sequence[int], file: str) -> DramaError:
    """An E001 for a Lark error that syntax_error could not word (a bug in it)."""
    line = getattr(e, "line", None)
    column = getattr(e, "column", None)
    if not isinstance(line, int):
        line = 1
    if not isinstance(column, int) or column < 1:
        column = 1
    return DramaError("E001", "this line cannot be read", position=Position(file, _mapped(line_map, line), column))

