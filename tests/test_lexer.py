"""The Pygments lexer of .drama scripts: every keyword of the vocabulary, no error token on any
bundled script, placeholders, comments and quoted text."""

from __future__ import annotations

import pytest
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.token import Comment, Error, Keyword, Name, Number, String

from conftest import ROOT, SCENARIOS
from dsl.syntax.lexer import DramaLexer
from dsl.syntax.vocabulary import KEYWORDS, STATEMENT_WORDS

SCRIPTS = sorted(SCENARIOS.rglob("*.drama")) + sorted((ROOT / "dsl" / "scaffold").glob("*.drama"))


def tokens(text: str) -> list[tuple[object, str]]:
    return [(token, value) for _, token, value in DramaLexer().get_tokens_unprocessed(text) if value.strip()]


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: p.name)
def test_no_error_token_in_a_bundled_script(path):
    text = path.read_text(encoding="utf-8")
    lexed = list(DramaLexer().get_tokens_unprocessed(text))
    assert [(i, v) for i, token, v in lexed if token in Error] == []
    assert "".join(value for _, _, value in lexed) == text        # every character, once, in order


@pytest.mark.parametrize("word", sorted(KEYWORDS))
def test_every_keyword_of_the_vocabulary_is_highlighted(word):
    """A keyword added to the grammar is a keyword here too (it is read from the vocabulary)."""
    lexed = tokens(f"if Kara {word}\n")
    assert lexed[-1][1] == word and (lexed[-1][0] in Keyword or lexed[-1][0] in Name.Builtin), lexed


@pytest.mark.parametrize("word", STATEMENT_WORDS)
def test_statement_keywords_where_a_line_starts(word):
    assert tokens(f"{word}\n")[0] == (tokens(f"{word}\n")[0][0], word)
    assert tokens(f"{word}\n")[0][0] in Keyword


def test_a_character_outside_the_language_is_an_error_token():
    assert (Error, "@") in tokens("Kara fireball -> Overlord @ 3\n")


def test_parties_intents_traits_and_dice():
    lexed = tokens("Kara & Bren \"pin him\" -> Overlord +Goblins with Sorcery + Ember Staff, GM +1, rolled 6 4\n")
    assert (Name.Entity, "Kara") in lexed and (Name.Entity, "Bren") in lexed
    assert (Name.Function, '"pin him"') in lexed
    assert (Name.Entity, "Overlord") in lexed and (Name.Entity, "Goblins") in lexed
    assert (Name.Attribute, "Sorcery") in lexed and (Name.Attribute, "Ember Staff") in lexed
    assert (Name.Builtin, "GM") in lexed and (Number.Integer, "6") in lexed


def test_placeholders_comments_and_quoted_hashes():
    lexed = tokens('> {hero} has {hero.quintessence} left # a note\nscene "Room # 4" # another\n')
    assert (String.Interpol, "{hero}") in lexed and (String.Interpol, "{hero.quintessence}") in lexed
    assert (Comment.Single, "# a note") in lexed and (Comment.Single, "# another") in lexed
    assert (String.Double, "Room # 4") in lexed


def test_it_renders_through_pygments():
    html = highlight((SCENARIOS / "emberfall" / "throne-hall.drama").read_text(), DramaLexer(), HtmlFormatter())
    assert '<span class="k">defends</span>' in html and '<span class="c1">#' in html
    assert DramaLexer.filenames == ["*.drama"] and "drama" in DramaLexer.aliases
