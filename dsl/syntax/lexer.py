"""A Pygments lexer for .drama scripts, made from the keyword vocabulary (the `pygments.lexers` entry point `drama`)."""

# Every keyword comes from dsl/syntax/vocabulary.py (read from the grammar):
# a keyword added to the grammar is highlighted with nothing to edit here, and
# tests/test_lexer.py checks each one. What the lexer tells apart:
#
# - comments (`# ...`), narration (`> ...`) and quoted text, with the
#   placeholders inside them (`{Kara}`, `{hero.quintessence}`);
# - the keywords: statement keywords where a line starts, the others anywhere
#   (the grammar's keywords are contextual, so a word such as `the` inside a
#   name is shown as a keyword too: highlighting reads words, not the parse);
# - parties: the actor that starts a line (or a participant line), the target
#   after `->`, an extra target after `+`, the parties of a `drama`,
#   `initiative`, `tie` and `split` line, a helper after `helped by`, and the
#   subject of a condition (`if hero is defeated`);
# - traits and treasures after `with`; the intent after the actor; the phrase
#   of a qualifier (`but not the roll of the dice`: the writer's words, no
#   keyword inside); the kind of a situation and its round (`, a chase`,
#   `, rounds of 1 hour`);
# - `GM`, numbers (the dice after `rolled`), operators and punctuation.
#
# A character that no part of the language uses (`@`, `$`, `;`...) is an Error
# token, as the parser would refuse it.

from __future__ import annotations

import re

from pygments.lexer import RegexLexer, bygroups, include, words
from pygments.token import (Comment, Error, Keyword, Name, Number, Operator, Punctuation, String, Text,
                            Whitespace)

from ..scenes import KINDS_OF_SCENE
from .vocabulary import KEYWORDS, STATEMENT_WORDS, VERBS, WORD

__all__ = ["DramaLexer"]

_END = r"(?![\w']|-(?!>))"                   # where a keyword or a word ends (the grammar's boundary)
_WORD = WORD.pattern
_STRING = r'"(?:[^"\\\n]|\\.)*"'
_ACTOR = rf"(?:{_STRING}|{_WORD})"
# keywords that are not statement keywords or verbs: anywhere on a line
_OTHER = sorted(KEYWORDS - set(STATEMENT_WORDS) - set(VERBS) - {"GM"}, key=lambda w: (-len(w), w))
# control flow, shown apart from the statements
_CONTROL = ("if", "else", "end", "repeat", "until")
# what a condition says of its subject (`hero is defeated`, `Kara quintessence < 2`)
_OF_SUBJECT = ("is", "was", "won", "lost", "quintessence", "damage", "can")
_NAMES = rf"{_WORD}(?:[ \t]+(?!(?:but|so|with|vs){_END}){_WORD})*"
# a word of a qualifier's phrase, and the phrase
_PHRASE_WORD = rf'(?!(?:but|so|with){_END})[^,+#\n"\s]+'
_PHRASE = rf"{_PHRASE_WORD}(?:[ \t]+{_PHRASE_WORD})*"


def _keywords(items, suffix=_END):
    return words(sorted(items, key=lambda w: (-len(w), w)), prefix=r"(?<![\w'-])", suffix=suffix)


class DramaLexer(RegexLexer):
    """The drama scenario language (.drama scripts and inline `script: |` blocks)."""

    name = "drama"
    aliases = ["drama"]
    filenames = ["*.drama"]
    mimetypes = ["text/x-drama"]
    url = "https://example.invalid/drama"          # no public home: the package is its documentation
    flags = re.MULTILINE | re.UNICODE

    # "root" is where a line starts; each line's rest is read in a state that ends with the line
    tokens = {
        "root": [
            (r"\n", Whitespace),
            # an actor where a line (or a participant line) starts, after the keywords it cannot be
            (rf"^(scene){_END}", Keyword.Reserved, "text"),
            (rf"^(end)([ \t]+)(drama){_END}", bygroups(Keyword.Reserved, Whitespace, Keyword.Reserved), "text"),
            (rf"^(drama){_END}", Keyword.Reserved, "drama"),
            (rf"^({'|'.join(_CONTROL)}){_END}", Keyword, "line"),
            (rf"^(initiative|split){_END}", Keyword.Reserved, "listing"),
            (rf"^(tie)([ \t]+)(GM){_END}", bygroups(Keyword.Reserved, Whitespace, Name.Builtin), "line"),
            (rf"^(tie){_END}", Keyword.Reserved, ("line", "target")),
            (rf"^({'|'.join(w for w in STATEMENT_WORDS if w not in _CONTROL and w not in ('scene', 'drama'))})"
             rf"{_END}", Keyword.Reserved, "line"),
            (rf"^([ \t]*)({_ACTOR})", bygroups(Whitespace, Name.Entity), "after-actor"),
            (r"[ \t]+", Whitespace),
            (r"#[^\n]*", Comment.Single),
            (r"(>)([^\n]*)", bygroups(Punctuation, String.Doc), "line"),
        ],
        # what may follow the actor: `&` and more actors, a verb, or the intent
        "after-actor": [
            (r"[ \t]+", Whitespace),
            (rf"(&)([ \t]*)({_ACTOR})", bygroups(Operator, Whitespace, Name.Entity)),
            (rf"(dictates){_END}", Keyword, ("#pop", "text")),
            (_keywords(VERBS), Keyword, ("#pop", "line")),
            (r"with" + _END, Keyword, ("#pop", "line", "uses")),
            (_STRING, Name.Function, ("#pop", "line")),
            (rf"{_WORD}(?:[ \t]+(?!(?:vs|with){_END}|->)(?:{_WORD}|\d+{_END}))*", Name.Function, ("#pop", "line")),
            (r"", Text, ("#pop", "line")),
        ],
        # the rest of a line
        "line": [
            (r"\n", Whitespace, "#pop"),
            (r"[ \t]+", Whitespace),
            (r"#[^\n]*", Comment.Single),
            (r'"', String.Double, "string"),
            (r"->", Operator, "target"),
            (rf"(\+)([ \t]*)(?={_ACTOR})", bygroups(Operator, Whitespace), "target"),
            (r"with" + _END, Keyword, "uses"),
            (rf"(but[ \t]+not|so[ \t]+that){_END}([ \t]*)({_PHRASE})?", bygroups(Keyword, Whitespace, String.Other)),
            (rf"(helped)([ \t]+)(by){_END}", bygroups(Keyword, Whitespace, Keyword), "target"),
            (rf"(?<![\w'-])({_ACTOR})(?=[ \t]+(?:{'|'.join(_OF_SUBJECT)}){_END})", Name.Entity),
            (r"GM" + _END, Name.Builtin),
            (_keywords(_OTHER), Keyword),
            (_keywords(STATEMENT_WORDS + VERBS), Keyword),
            (r"\d+" + _END, Number.Integer),
            (r"[<>]=?|!=|=|[+-]", Operator),
            (r"[,()&]", Punctuation),
            (_WORD, Name),
        ],
        # a name of one or more words: a target, an extra target
        "target": [
            (r"[ \t]+", Whitespace),
            (_STRING, Name.Entity, "#pop"),
            (rf"{_WORD}(?:[ \t]+(?!(?:but|so|with|vs){_END}){_WORD})*", Name.Entity, "#pop"),
            (r"", Text, "#pop"),
        ],
        # `with A + B`: traits and treasures, up to a comma or the end of the line
        "uses": [
            (r"[ \t]+", Whitespace),
            (r"\+", Operator),
            (_STRING, Name.Attribute),
            (rf"{_WORD}(?:[ \t]+(?!(?:but|so|with|vs){_END}){_WORD})*", Name.Attribute),
            (r"", Text, "#pop"),
        ],
        # `drama "Name" with A, B, a chase, rounds of 1 hour`: the parties, the kind, the round
        "drama": [
            (r"[ \t]+", Whitespace),
            (_STRING, String.Double),
            (r"with" + _END, Keyword),
            (rf"(,)([ \t]*)(an?)([ \t]+)({'|'.join(KINDS_OF_SCENE)}){_END}",
             bygroups(Punctuation, Whitespace, Keyword, Whitespace, Name.Constant)),
            (rf"(,)([ \t]*)(rounds)([ \t]+)(of)([ \t]+)(\d+){_END}([ \t]*)({_WORD})?",
             bygroups(Punctuation, Whitespace, Keyword, Whitespace, Keyword, Whitespace, Number.Integer, Whitespace,
                      Name.Constant)),
            (r",", Punctuation),
            (r"\d+" + _END, Number.Integer),
            (rf"{_WORD}(?:[ \t]+{_WORD})*", Name.Entity),
            (r"#[^\n]*", Comment.Single),
            (r"\n", Whitespace, "#pop"),
        ],
        # `initiative Kara with Agility 5, Bren` and `split Goblins 2, Overlord 1`: parties, uses, numbers
        "listing": [
            (r"[ \t]+", Whitespace),
            (_STRING, Name.Entity),
            (r"with" + _END, Keyword, "uses"),
            (r"\d+" + _END, Number.Integer),
            (r",", Punctuation),
            (_NAMES, Name.Entity),
            (r"#[^\n]*", Comment.Single),
            (r"\n", Whitespace, "#pop"),
        ],
        # the text of `scene`, `dictates` and `end drama`, quoted or bare, up to a comment
        "text": [
            (r"[ \t]+", Whitespace),
            (r'"', String.Double, "string"),
            (r"\{\{|\}\}", String.Escape),
            (r"\{[^{}\n]*\}", String.Interpol),
            (r'[^"#{}\n]+', String),
            (r"[{}]", String),
            (r"#[^\n]*", Comment.Single),
            (r"\n", Whitespace, "#pop"),
        ],
        "string": [
            (r'\\.', String.Escape),
            (r"\{\{|\}\}", String.Escape),
            (r"\{[^{}\n\"]*\}", String.Interpol),
            (r'[^"\\{}\n]+', String.Double),
            (r"[{}]", String.Double),
            (r'"', String.Double, "#pop"),
            (r"\n", Error, "#pop"),
        ],
    }

    def get_tokens_unprocessed(self, text, stack=("root",)):
        # narration: split its text into text, placeholders and a comment
        for index, token, value in super().get_tokens_unprocessed(text, stack):
            if token is String.Doc and value:
                yield from _narration(index, value)
            else:
                yield index, token, value


_NARRATION_PART = re.compile(r'(?P<interpol>\{\{|\}\}|\{[^{}\n]*\})|(?P<quoted>"(?:[^"\\\n]|\\.)*")|(?P<text>[^{}"]+|.)')


def _narration(start: int, text: str):
    """The text of a narration (`> ...` without the `>`): placeholders apart; the comment is lexed after."""
    # the grammar's NARRATION ends at the first '#' outside quoted text
    match = re.match(r'(?:"(?:[^"\\\n]|\\.)*"|[^\n#])*', text)
    body, rest = text[:match.end()], text[match.end():]
    for part in _NARRATION_PART.finditer(body):
        kind = (String.Interpol if part["interpol"] and len(part["interpol"]) > 2
                else String.Escape if part["interpol"] else String.Doc)
        yield start + part.start(), kind, part.group()
    if rest:
        yield start + len(body), Comment.Single, rest
