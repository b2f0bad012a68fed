"""The language's one keyword vocabulary: the keywords (read from the grammar) and the words' roles."""

# The keywords, the grammar's WORD and the narration pattern are read from the
# keyword terminal definitions of grammar/drama.lark (`SCENE.2: /scene(?!...)/`):
# a keyword added there is known here, and so to the error wording and to the
# printer's quoting (`drama run --record`), with nothing else to edit. What a
# keyword does where (which words end a name, start a statement, follow an
# actor) is the grammar's LALR structure, not its text: it is declared below,
# once, and tests/test_vocabulary.py checks each list against the parser.
# Everything that needs these words (the parser's error wording, the printer,
# the interpreter's hints) reads them from here.

from __future__ import annotations

import re

from .grammar import grammar_text

__all__ = ["KEYWORD_WORDS", "KEYWORDS", "NAME_ENDS", "STATEMENT_WORDS", "VERBS", "AFTER_ACTOR",
           "PHRASE_ENDS", "MAX_DIGITS", "SHOW_TERMINAL", "WORD", "NARRATION"]

# ------------------------------------------------------------------ read from the grammar

# a regex terminal definition of the grammar: `NAME: /.../` or `NAME.2: /.../`
_TERMINAL = re.compile(r"^(?P<name>_?[A-Z][A-Z_]*)(?:\.(?P<priority>\d+))?:[ \t]*/(?P<pattern>.*)/[ \t]*$",
                       re.MULTILINE)
# a keyword's pattern: its letters (a final `s?` makes it optional, an inner `-?`
# an optional hyphen: `re-?rolling`), then the word boundary
_KEYWORD = re.compile(r"(?P<word>[A-Za-z]+?(?:-\?[A-Za-z]+)?)(?P<optional>s\?)?"
                      + re.escape(r"(?![\w']|-(?!>))"))


def _terminals(grammar: str) -> dict[str, tuple[str | None, str]]:
    """Each regex terminal of the grammar: name -> (priority or None, pattern)."""
    return {m["name"]: (m["priority"], m["pattern"]) for m in _TERMINAL.finditer(grammar)}


def _keyword_words(terminals: dict[str, tuple[str | None, str]]) -> dict[str, tuple[str, ...]]:
    """The words of each keyword terminal (priority 2), in the grammar's order:
    `/defends?(...)/` is ("defends", "defend")."""
    words = {}
    for name, (priority, pattern) in terminals.items():
        if priority != "2":
            continue
        match = _KEYWORD.fullmatch(pattern)
        if match is None:
            raise ValueError(f"the keyword terminal {name} of the grammar is not a word and a word "
                             f"boundary: {pattern}")
        word = match["word"]
        if "-?" in word:
            words[name] = (word.replace("-?", ""), word.replace("-?", "-"))
        else:
            words[name] = (word + "s", word) if match["optional"] else (word,)
    return words


_GRAMMAR_TERMINALS = _terminals(grammar_text())

# the words of each keyword terminal, for 'did you mean' (SCENE -> ("scene",))
KEYWORD_WORDS: dict[str, tuple[str, ...]] = _keyword_words(_GRAMMAR_TERMINALS)
# every keyword
KEYWORDS: frozenset[str] = frozenset(word for words in KEYWORD_WORDS.values() for word in words)
# a word of the grammar (the WORD terminal), and narration (`> text`, the NARRATION terminal)
WORD = re.compile(_GRAMMAR_TERMINALS["WORD"][1])
NARRATION = re.compile(_GRAMMAR_TERMINALS["NARRATION"][1])

# ------------------------------------------------------------------ declared: where the keywords act

# keywords that end a name of several words (anywhere but its first word): the
# keywords that can follow a name somewhere (see "Names" in the grammar's notes)
NAME_ENDS: tuple[str, ...] = ("with", "but", "so", "vs")
# keywords that start a statement: a party of that name must be quoted where a
# statement starts (the actor of an action, a defence, a hold, ...)
STATEMENT_WORDS: tuple[str, ...] = ("scene", "drama", "initiative", "round", "tie", "split", "end", "calm", "rest",
                                    "include", "if", "else", "repeat", "choose", "option", "set", "expect")
# the statement verbs that follow the actor(s)
VERBS: tuple[str, ...] = ("defends", "defend", "holds", "recovers", "dictates", "rerolls", "loses", "lose")
# every keyword that may follow the actor: an intent must not start with one
AFTER_ACTOR: tuple[str, ...] = ("with",) + VERBS
# keywords that end a qualifier's phrase
PHRASE_ENDS: tuple[str, ...] = ("but", "so", "with")
# numbers in a script have at most this many digits
MAX_DIGITS = 9

# how each terminal reads in an `expected:` line, in the order they are listed
# there (tests/test_parser.py checks that every terminal of the grammar is here)
SHOW_TERMINAL: dict[str, str] = {
    "WORD": "a word",
    "STRING": "a quoted name",
    "INT": "a number",
    "TEXT": "text",
    "ARROW": "'->'",
    "_VS": "'vs'",
    "AMP": "'&'",
    "_DEFENDS": "'defends'",
    "_HOLDS": "'holds'",
    "_LOSES": "'lose member'",
    "_MEMBER": "'member'",
    "_A": "', a' and a kind of scene",
    "_AN": "', an' and a kind of scene",
    "_RECOVERS": "'recovers'",
    "_DICTATES": "'dictates'",
    "_REROLLS": "'rerolls'",
    "SCENE": "'scene'",
    "DRAMA": "'drama'",
    "INITIATIVE": "'initiative'",
    "ROUND": "'round'",
    "ROUNDS": "'rounds of'",
    "_OF": "'of'",
    "TIE": "'tie'",
    "SPLIT": "'split'",
    "END": "'end drama'",
    "CALM": "'calm'",
    "REST": "'rest'",
    "INCLUDE": "'include'",
    "NARRATION": "'>' and narration",
    "BUT": "'but not'",
    "NOT": "'not'",
    "IF": "'if'",
    "ELSE": "'else'",
    "REPEAT": "'repeat'",
    "UNTIL": "'until'",
    "AT": "'at most'",
    "MOST": "'most'",
    "OR": "'or'",
    "AND": "'and'",
    "IS": "'is'",
    "DEFEATED": "'defeated'",
    "THE": "'the'",
    "LAST": "'last exchange'",
    "EXCHANGE": "'exchange'",
    "WAS": "'was'",
    "WON": "'won'",
    "LOST": "'lost'",
    "IN": "'in drama'",
    "QUINTESSENCE": "'quintessence'",
    "DAMAGE": "'damage'",
    "POOL": "'pool'",
    "CAN": "'can recover'",
    "RECOVER": "'recover'",
    "CHOOSE": "'choose'",
    "CHOSE": "'chose'",
    "OPTION": "'option'",
    "ONCE": "'once'",
    "WEIGHT": "'weight'",
    "SET": "'set'",
    "TRUE": "'true'",
    "FALSE": "'false'",
    "EXPECT": "'expect'",
    "CHOICE": "'choice'",
    "CMP": "a comparison (<, <=, >, >=, = or !=)",
    "LPAR": "'('",
    "RPAR": "')'",
    "SO": "'so that'",
    "_THAT": "'that'",
    "PLUS": "'+'",
    "MINUS": "'-'",
    "WITH": "'with'",
    "_HELPED": "'helped by'",
    "_BY": "'by'",
    "_AFTER": "'after'",
    "COMMA": "','",
    "_GM": "'GM'",
    "ROLLED": "'rolled'",
    "ROLL": "'roll'",
    "_REROLLED": "'rerolled'",
    "REROLLING": "'rerolling'",
    "NONE": "'none'",
    "_TO": "'to'",
    "THEN": "'then'",
    "_INDENT": "an indented line",
    "_NL": "end of line",
    "$END": "end of file",
}
