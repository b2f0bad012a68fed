"""The keyword vocabulary (dsl.syntax.vocabulary): it holds every keyword of the grammar,
its lists say what the parser does, and the printer quotes what a keyword would misread."""

from __future__ import annotations

import re

import pytest

from dsl.engine import PartySheet, Settings
from dsl.interpreter import Interpreter
from dsl.syntax import nodes, parse
from dsl.syntax.grammar import get_lark
from dsl.syntax.printer import actor_text, intent_text, name_text, phrase_text, record
from dsl.syntax.vocabulary import (AFTER_ACTOR, KEYWORD_WORDS, KEYWORDS, NAME_ENDS, PHRASE_ENDS, SHOW_TERMINAL,
                                   STATEMENT_WORDS, VERBS)


def _accepted_words(prefix: str) -> set[str]:
    """The keywords the parser would take right after `prefix` (a script's start)."""
    parser = get_lark().parse_interactive(prefix)
    parser.exhaust_lexer()
    return {word for terminal in parser.accepts() for word in KEYWORD_WORDS.get(terminal, ())}


def _keyword_terminals():
    return [t for t in get_lark().terminals if t.priority == 2]


def test_every_keyword_terminal_of_the_grammar_is_in_the_vocabulary():
    terminals = _keyword_terminals()
    assert len(terminals) > 40
    assert {t.name for t in terminals} == set(KEYWORD_WORDS)
    for terminal in terminals:
        pattern = re.compile(terminal.pattern.to_regexp())
        for word in KEYWORD_WORDS[terminal.name]:
            assert pattern.fullmatch(word), (terminal.name, word)
            assert word in KEYWORDS
        assert terminal.name in SHOW_TERMINAL


def test_the_statement_words_are_the_keywords_that_start_a_line():
    assert _accepted_words("\n") == set(STATEMENT_WORDS)


def test_the_verbs_are_the_keywords_that_follow_an_actor():
    assert _accepted_words("\nKara") == set(AFTER_ACTOR)
    assert _accepted_words("\nKara & Bren") <= set(AFTER_ACTOR)
    assert set(VERBS) == set(AFTER_ACTOR) - {"with"}


def test_the_name_ends_are_the_keywords_that_follow_a_name():
    after_a_name = set()
    for prefix in ("\nKara x -> Y", "\nKara x -> Y +Z", "\nKara x with Y", "\nKara x with Y + Z",
                   "\ndrama x with Y", "\ninitiative Y", "\ntie Y", "\nsplit Y", "\nKara recovers, helped by Y"):
        after_a_name |= _accepted_words(prefix)
    assert after_a_name == set(NAME_ENDS)


def test_the_phrase_ends_are_the_keywords_that_follow_a_phrase():
    assert _accepted_words("\nKara x -> Y but not z") == set(PHRASE_ENDS)
    assert _accepted_words("\nKara x -> Y so that z 3") == set(PHRASE_ENDS)


@pytest.mark.parametrize("keyword", sorted(KEYWORDS))
def test_the_printer_writes_each_keyword_so_that_it_reads_back(keyword):
    """A keyword as a party, a name, an intent and a phrase: what the printer
    writes parses back to that text."""
    name = f"Ash {keyword}"
    line = (f"{actor_text(keyword)} {intent_text(keyword)} -> {name_text(name)} "
            f"but not {phrase_text('a ' + keyword)} +{name_text(keyword)} with {name_text(name)}")
    (action,) = parse(line + "\n", "k.drama").statements
    assert isinstance(action, nodes.Action)
    assert [a.text for a in action.actors] == [keyword]
    assert action.intent == keyword
    assert action.target.text == name
    assert [q.text for q in action.qualifiers] == ["a " + keyword]
    assert [e.text for e in action.extra_targets] == [keyword]
    assert [n.text for n in action.uses.names] == [name]


@pytest.mark.parametrize("party", ["with", "round"])
def test_a_party_named_as_a_keyword_is_recorded_so_that_it_reads_back(party):
    cast = (PartySheet(party, f"a party called {party}", 5, {"Grit": 2}, {}),
            PartySheet("Bren", "Bren", 5, {"Strength": 2}, {}))
    quoted_party = f'"{party}"'
    script = (f"drama \"Names\" with {quoted_party}, Bren\ninitiative {quoted_party} 5, Bren 2\nround\n"
              f"{quoted_party} strike -> Bren with Grit, rolled 5 5\nBren defends with Strength, rolled 1 1\n"
              f"Bren holds\nend drama\n")
    events = Interpreter(Settings(ties="vote"), cast, title="Names").run(parse(script, "names.drama"))
    text = record(events)
    if party in STATEMENT_WORDS:
        assert f'\n"{party}" strike -> Bren' in text
    statements = parse(text, "recorded.drama").statements
    assert statements[0].parties[0].text == party
    action = next(s for s in statements if isinstance(s, nodes.Action))
    assert action.actors[0].text == party
