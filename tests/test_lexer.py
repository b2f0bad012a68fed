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


def _scripts_of_the_docs() -> list[str]:
    """The ```text blocks of README.md and docs/*.md that are valid scripts (the parser reads them)."""
    import re as _re
    from dsl.errors import DramaError
    from dsl.syntax.parse import parse
    found = []
    for page in sorted([ROOT / "README.md", *(ROOT / "docs").glob("*.md")]):
        for block in _re.findall(r"^```text\n(.*?)^```", page.read_text(encoding="utf-8"), _re.MULTILINE | _re.DOTALL):
            try:
                parse(block, page.name)
            except DramaError:
                continue
            found.append(block)
    return found


def test_no_error_token_in_a_script_of_the_docs():
    scripts = _scripts_of_the_docs()
    assert len(scripts) > 40
    for block in scripts:
        lexed = list(DramaLexer().get_tokens_unprocessed(block))
        assert [(i, v) for i, token, v in lexed if token in Error] == [], block


def test_what_the_grammar_accepts_is_scoped_as_the_grammar_reads_it():
    """Issue 26 (5): the kind and round of a situation, GM -1, a qualifier's words, and the parties of
    initiative, tie, split, helped by and conditions."""
    drama = tokens('drama "Chase" with Ilse, Orm, a chase, rounds of 1 hour\n')
    assert (Name.Entity, "Orm") in drama and (Name.Constant, "chase") in drama
    assert (Number.Integer, "1") in drama and (Name.Constant, "hour") in drama and not any(t in Error for t, _ in drama)
    qualified = tokens("Kara fireball -> Overlord but not the roll of the dice, GM -1, rolled 6\n")
    assert (String.Other, "the roll of the dice") in qualified and (Number.Integer, "1") in qualified
    for line, parties in (("initiative Kara with Agility 5, Bren 3, Lady Ash\n", ["Kara", "Bren", "Lady Ash"]),
                          ("tie Kara\n", ["Kara"]), ("split Goblins 2, Overlord 1\n", ["Goblins", "Overlord"]),
                          ("Bren recovers, helped by Kara with Healing, rolled 6 4\n", ["Bren", "Kara"]),
                          ("if hero is defeated and Kara quintessence < 2 or Bren can recover\n",
                           ["hero", "Kara", "Bren"])):
        assert [v for t, v in tokens(line) if t in Name.Entity] == parties, line
