"""The TextMate grammar of .drama scripts (VS Code, Sublime Text, Shiki, GitHub), made from the keyword vocabulary."""

# `python -m dsl.syntax.textmate` prints it; editors/vscode/syntaxes/
# drama.tmLanguage.json is that output, and tests/test_textmate.py checks that
# it is up to date and runs vscode-tmgrammar-test on the snapshot files of
# tests/textmate/. The scopes follow the usual TextMate names, so that every
# colour theme shows them:
#
#   comment.line.number-sign      # a comment
#   markup.quote                  > narration
#   string.quoted.double          "quoted text", and bare scene / dictates / end drama text
#   variable.other.placeholder    {Kara}, {hero.quintessence}
#   keyword.control               if, else, end, repeat, until
#   keyword.other.statement       scene, drama, initiative, round, tie, split, calm, rest, include
#   keyword.other                 every other keyword (defends, with, rolled, vs, but not, ...)
#   entity.name.type.party        a party: the actor, a target, an extra target, a drama's parties
#   entity.name.function.intent   the intent of an action
#   variable.parameter.trait      the traits and treasures after `with`
#   support.constant.gm           GM
#   constant.numeric              numbers (dice, bonuses, target numbers, GM -1)
#   keyword.operator              -> & + - and comparisons
#   string.unquoted.phrase        the phrase of a qualifier (`but not tapestries`, `so that ...`)
#   constant.language.kind        the kind of a dramatic situation (`, a chase`)
#   support.constant.unit         the unit of `rounds of 1 hour`
#
# Parties are scoped wherever the grammar has one: the actor, targets, the
# parties of `drama`, `initiative`, `tie` and `split`, a helper after `helped
# by`, and the subject of a condition (`if hero is defeated`).
#
# As in the Pygments lexer (dsl/syntax/lexer.py), keywords are words here: the
# grammar's keywords are contextual, an editor's highlighter is not.

from __future__ import annotations

import json
import re

from ..scenes import KINDS_OF_SCENE
from .vocabulary import KEYWORDS, STATEMENT_WORDS, VERBS, WORD

__all__ = ["grammar", "grammar_text", "SCOPE"]

SCOPE = "source.drama"
_END = r"(?![\w']|-(?!>))"
_START = r"(?<![\w'-])"
_WORD = WORD.pattern
_STRING = r'"(?:[^"\\]|\\.)*"'
_ACTOR = rf"(?:{_STRING}|{_WORD})"
_CONTROL = ("if", "else", "end", "repeat", "until")
_NAME_STOP = rf"(?!(?:but|so|with|vs){_END})"
# what a condition says of its subject (`hero is defeated`, `Kara quintessence < 2`, `Bren can recover`)
_OF_SUBJECT = ("is", "was", "won", "lost", "quintessence", "damage", "can")
_PARTY = "entity.name.type.party.drama"
# a word of a qualifier's phrase: up to a space, `,`, `+`, `#` or a quote, and not a word that ends it
_PHRASE_WORD = rf'(?!(?:but|so|with){_END})[^,+#\n"\s]+'


def _alternatives(items) -> str:
    return "|".join(re.escape(w) for w in sorted(items, key=lambda w: (-len(w), w)))


def _names(scope: str) -> str:
    """One name: quoted, or words up to a keyword that ends a name."""
    return rf"{_STRING}|{_WORD}(?:[ \t]+{_NAME_STOP}{_WORD})*"


def _kind_of_scene() -> dict:
    """`, a chase` and `, rounds of 1 hour` on a `drama` line."""
    return {"patterns": [
        {"match": rf"(,)[ \t]*(an?)[ \t]+({_alternatives(KINDS_OF_SCENE)}){_END}",
         "captures": {"1": {"name": "punctuation.separator.drama"}, "2": {"name": "keyword.other.drama"},
                      "3": {"name": "constant.language.kind.drama"}}},
        {"match": rf"(,)[ \t]*(rounds)[ \t]+(of)[ \t]+(\d+){_END}[ \t]*({_WORD})?",
         "captures": {"1": {"name": "punctuation.separator.drama"}, "2": {"name": "keyword.other.drama"},
                      "3": {"name": "keyword.other.drama"}, "4": {"name": "constant.numeric.drama"},
                      "5": {"name": "support.constant.unit.drama"}}},
    ]}


def _uses() -> dict:
    """`with A + B`: traits and treasures."""
    return {"match": rf"{_START}(with){_END}[ \t]*({_names('trait')})(?:[ \t]*(\+)[ \t]*({_names('trait')}))?",
            "captures": {"1": {"name": "keyword.other.drama"},
                         "2": {"name": "variable.parameter.trait.drama"},
                         "3": {"name": "keyword.operator.drama"},
                         "4": {"name": "variable.parameter.trait.drama"}}}


def _listing(word: str, *more: dict) -> dict:
    """A statement whose line lists parties: `initiative Kara with Agility 5, Bren`, `split Goblins 2, ...`."""
    return {"begin": rf"^[ \t]*({word}){_END}", "end": "$",
            "beginCaptures": {"1": {"name": "keyword.other.statement.drama"}},
            "patterns": [{"include": "#comment"}, {"match": _STRING, "name": _PARTY}, *more,
                         {"match": rf"{_START}\d+{_END}", "name": "constant.numeric.drama"},
                         {"match": _names("party"), "name": _PARTY},
                         {"match": ",", "name": "punctuation.separator.drama"}]}


def grammar() -> dict:
    """The grammar as a JSON-able dict."""
    statements = [w for w in STATEMENT_WORDS if w not in _CONTROL]
    others = sorted(KEYWORDS - set(STATEMENT_WORDS) - set(VERBS) - {"GM", "with"})
    return {
        "$schema": "https://raw.githubusercontent.com/martinring/tmlanguage/master/tmlanguage.json",
        "name": "drama",
        "scopeName": SCOPE,
        "fileTypes": ["drama"],
        "comment": "Generated by `python -m dsl.syntax.textmate` from dsl/syntax/vocabulary.py: do not edit.",
        "patterns": [
            {"include": "#narration"},
            {"include": "#text-statement"},
            {"include": "#statement-start"},
            {"include": "#actor"},
            {"include": "#rest"},
        ],
        "repository": {
            "comment": {"match": r"#.*$", "name": "comment.line.number-sign.drama"},
            "kind-of-scene": _kind_of_scene(),
            "placeholder": {"match": r"\{\{|\}\}|\{[^{}\n]*\}", "name": "variable.other.placeholder.drama"},
            "string": {
                "begin": '"', "end": '"|$', "name": "string.quoted.double.drama",
                "patterns": [{"match": r"\\.", "name": "constant.character.escape.drama"},
                             {"include": "#placeholder"}],
            },
            "narration": {
                "begin": r"^[ \t]*(>)", "end": "$", "contentName": "markup.quote.drama",
                "beginCaptures": {"1": {"name": "punctuation.definition.quote.drama"}},
                "patterns": [{"include": "#placeholder"}, {"match": _STRING}, {"include": "#comment"}],
            },
            # scene TEXT, end drama TEXT, PARTY dictates TEXT: the rest of the line is text
            "text-statement": {
                "begin": (rf"^[ \t]*(?:(scene)|(end)[ \t]+(drama)|({_ACTOR})[ \t]+(dictates)){_END}"),
                "end": "$",
                "beginCaptures": {"1": {"name": "keyword.other.statement.drama"},
                                  "2": {"name": "keyword.other.statement.drama"},
                                  "3": {"name": "keyword.other.statement.drama"},
                                  "4": {"name": "entity.name.type.party.drama"},
                                  "5": {"name": "keyword.other.drama"}},
                "patterns": [{"include": "#comment"}, {"include": "#string"},
                             {"match": r"[^\s#\"{][^#\"{]*", "name": "string.unquoted.drama"},
                             {"include": "#placeholder"}],
            },
            "statement-start": {
                "patterns": [
                    {"begin": rf"^[ \t]*(drama){_END}", "end": "$",
                     "beginCaptures": {"1": {"name": "keyword.other.statement.drama"}},
                     "patterns": [{"include": "#comment"}, {"include": "#string"}, {"include": "#kind-of-scene"},
                                  {"match": rf"{_START}with{_END}", "name": "keyword.other.drama"},
                                  {"match": _names("party"), "name": _PARTY},
                                  {"match": ",", "name": "punctuation.separator.drama"}]},
                    _listing("initiative", _uses()),
                    _listing("split"),
                    {"match": rf"^[ \t]*(tie){_END}[ \t]*(?:(GM){_END}|({_names('party')}))?",
                     "captures": {"1": {"name": "keyword.other.statement.drama"},
                                  "2": {"name": "support.constant.gm.drama"}, "3": {"name": _PARTY}}},
                    {"match": rf"^[ \t]*({_alternatives(_CONTROL)}){_END}",
                     "captures": {"1": {"name": "keyword.control.drama"}}},
                    {"match": rf"^[ \t]*({_alternatives(statements)}){_END}",
                     "captures": {"1": {"name": "keyword.other.statement.drama"}}},
                ],
            },
            # the actor that starts a line (or a participant line), more actors after `&`,
            # then a verb or the intent
            "actor": {
                "match": (rf"^[ \t]*({_ACTOR})((?:[ \t]*&[ \t]*{_ACTOR})*)"
                          rf"(?:[ \t]+(?:({_alternatives(VERBS)}){_END}|(?!with{_END})({_STRING}|{_WORD}"
                          rf"(?:[ \t]+(?!(?:vs|with){_END}|->)(?:{_WORD}|\d+{_END}))*)))?"),
                "captures": {
                    "1": {"name": "entity.name.type.party.drama"},
                    "2": {"patterns": [{"match": "&", "name": "keyword.operator.drama"},
                                       {"match": _ACTOR, "name": "entity.name.type.party.drama"}]},
                    "3": {"name": "keyword.other.drama"},
                    "4": {"name": "entity.name.function.intent.drama"},
                },
            },
            "rest": {
                "patterns": [
                    {"include": "#comment"},
                    {"include": "#string"},
                    {"match": rf"(->)[ \t]*({_names('party')})",
                     "captures": {"1": {"name": "keyword.operator.drama"},
                                  "2": {"name": "entity.name.type.party.drama"}}},
                    {"match": rf"(\+)[ \t]*(?!\d)({_names('party')})",
                     "captures": {"1": {"name": "keyword.operator.drama"},
                                  "2": {"name": "entity.name.type.party.drama"}}},
                    _uses(),
                    # a qualifier's phrase is the writer's words, up to the next `but`, `so`, `with`,
                    # `+`, `,` or the end of the line: no keyword inside it
                    {"match": (rf"{_START}(but[ \t]+not|so[ \t]+that){_END}[ \t]*"
                               rf"({_PHRASE_WORD}(?:[ \t]+{_PHRASE_WORD})*)?"),
                     "captures": {"1": {"name": "keyword.other.drama"},
                                  "2": {"name": "string.unquoted.phrase.drama"}}},
                    {"match": rf"{_START}(helped)[ \t]+(by){_END}[ \t]*({_names('party')})",
                     "captures": {"1": {"name": "keyword.other.drama"}, "2": {"name": "keyword.other.drama"},
                                  "3": {"name": _PARTY}}},
                    # the subject of a condition
                    {"match": rf"{_START}({_ACTOR})(?=[ \t]+(?:{_alternatives(_OF_SUBJECT)}){_END})",
                     "captures": {"1": {"name": _PARTY}}},
                    {"match": rf"{_START}(GM){_END}(?:[ \t]*([+-])[ \t]*(\d+){_END})?",
                     "captures": {"1": {"name": "support.constant.gm.drama"},
                                  "2": {"name": "keyword.operator.drama"},
                                  "3": {"name": "constant.numeric.drama"}}},
                    {"match": rf"{_START}(vs){_END}[ \t]*(?:([+-])[ \t]*)?(\d+{_END})?",
                     "captures": {"1": {"name": "keyword.other.drama"}, "2": {"name": "keyword.operator.drama"},
                                  "3": {"name": "constant.numeric.drama"}}},
                    {"match": rf"{_START}(?:until|if){_END}", "name": "keyword.control.drama"},
                    {"match": rf"{_START}GM{_END}", "name": "support.constant.gm.drama"},
                    {"match": rf"{_START}(?:{_alternatives(others)}){_END}", "name": "keyword.other.drama"},
                    {"match": rf"{_START}(?:{_alternatives(STATEMENT_WORDS + VERBS)}){_END}",
                     "name": "keyword.other.drama"},
                    {"match": rf"{_START}\d+{_END}", "name": "constant.numeric.drama"},
                    {"match": r"[<>]=?|!=|=|[&+-]", "name": "keyword.operator.drama"},
                    {"match": r"[,()]", "name": "punctuation.separator.drama"},
                ],
            },
        },
    }


def grammar_text() -> str:
    """`grammar()` as the text of its JSON file."""
    return json.dumps(grammar(), indent=2, ensure_ascii=False) + "\n"


if __name__ == "__main__":  # pragma: no cover - `python -m dsl.syntax.textmate > ...`
    print(grammar_text(), end="")
