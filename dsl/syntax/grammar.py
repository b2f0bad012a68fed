"""The Lark set-up: the grammar file (a package resource), Lark's cache of it, and a reader per parse."""

# The grammar is found one way: as the resource `drama.lark` of the package
# `dsl.grammar`. In the wheel that package is the top-level grammar/ folder
# (pyproject.toml maps `dsl.grammar` to it); in the source tree (and so in an
# editable install) dsl/grammar is a symbolic link to ../grammar, which makes
# the same lookup work.

from __future__ import annotations

import functools
import hashlib
import importlib.resources
import os
import threading
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Callable

from lark import Lark, Tree
from lark.parse_tree_builder import ParseTreeBuilder

__all__ = ["GRAMMAR_NAME", "grammar_path", "grammar_text", "get_lark", "reader"]

GRAMMAR_NAME = "drama.lark"
_OPTIONS = dict(
    parser="lalr",
    lexer="contextual",
    # Not strict: Lark's strict mode checks the grammar's terminals for regex
    # collisions with `interegular`, once per grammar, so that check belongs to
    # the test suite (tests/test_parser.py), not to every start of the command;
    # `interegular` is a test dependency only, and without it installed Lark's
    # lexer does not import it (about 17 ms of every start).
    strict=False,
    maybe_placeholders=False,
    propagate_positions=False,
)

_build_lock = threading.Lock()
_built: tuple[Lark, ParseTreeBuilder] | None = None


def grammar_path() -> Traversable:
    """The grammar file, a resource of the package `dsl.grammar`."""
    return importlib.resources.files("dsl.grammar") / GRAMMAR_NAME


@functools.cache
def grammar_text() -> str:
    """The text of the grammar (read once)."""
    return grammar_path().read_text(encoding="utf-8")


def _cache_file(grammar: str) -> str | None:
    """A file in the user's cache folder for Lark's analysis of the grammar, or None."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    folder = Path(base) / "drama"
    digest = hashlib.sha256(grammar.encode("utf-8")).hexdigest()[:16]
    try:
        folder.mkdir(parents=True, exist_ok=True)
        if not os.access(folder, os.W_OK | os.X_OK):
            return None
    except OSError:
        return None
    return str(folder / f"grammar-{digest}.lark-cache")


def _build() -> tuple[Lark, ParseTreeBuilder]:
    global _built
    if _built is None:
        with _build_lock:
            if _built is None:
                grammar = grammar_text()
                cache = _cache_file(grammar)
                try:
                    lark = Lark(grammar, cache=cache or False, **_OPTIONS)
                except (OSError, EOFError):  # an unreadable cache file
                    lark = Lark(grammar, cache=False, **_OPTIONS)
                # what turns a transformer into the callbacks of the rules, as
                # Lark does for a transformer given to it
                builder = ParseTreeBuilder(lark.rules, Tree, _OPTIONS["propagate_positions"], False,
                                           _OPTIONS["maybe_placeholders"])
                _built = (lark, builder)
    return _built


def get_lark() -> Lark:
    """The Lark parser of the grammar (built once, from Lark's cache file when it can)."""
    return _build()[0]


def reader(transformer) -> Callable[[str], object]:
    """A function that parses a text with `transformer` applied inline (its
    methods called as Lark reduces each rule), for one parse.

    The grammar's analysis (the LALR table and the lexer) is shared; only the
    callbacks are the transformer's own: a copy of Lark's parsing front end
    holds them, so that parses in other threads, each with its own
    transformer, do not meet. (A Lark built with `transformer=` would redo or
    reload that analysis every time.) The copies follow the layout of Lark's
    LALR front end (1.2 and 1.3): ParsingFrontend.parser is an LALR_Parser,
    whose .parser runs the table with its .callbacks.
    """
    front = _copy(get_lark().parser)               # lark.parser_frontends.ParsingFrontend
    front.parser = _copy(front.parser)             # LALR_Parser
    front.parser.parser = _copy(front.parser.parser)   # the parser loop: its callbacks
    front.parser.parser.callbacks = _Callbacks(transformer)
    return front.parse


def _copy(thing):
    """A shallow copy of an object with a __dict__ (as copy.copy makes it, faster)."""
    new = object.__new__(type(thing))
    new.__dict__.update(thing.__dict__)
    return new


class _Callbacks(dict):
    """The callback of each rule for one transformer, as Lark's create_callback
    makes them; a rule's callback is made the first time the rule is reduced
    (a short script reduces few of the rules), and the rules the transformer
    has no method for build trees, with callbacks shared by every parse."""

    def __init__(self, transformer) -> None:
        trees, self._methods = _plan(type(transformer))
        super().__init__(trees)      # never empty: Lark skips the callbacks when it is
        self._transformer = transformer

    def __missing__(self, rule):
        name, chain = self._methods[rule]
        f = getattr(self._transformer, name)
        for wrap in chain:
            f = wrap(f)
        self[rule] = f
        return f


@functools.cache
def _plan(kind: type) -> tuple[dict, dict]:
    """For a transformer class: the tree-building callbacks of the rules it has
    no method for, and for the others rule -> (method name, wrappers)."""
    builder = _build()[1]
    trees = builder.create_callback(None)
    methods = {}
    for rule, chain in builder.rule_builders:
        name = rule.alias or rule.options.template_source or rule.origin.name
        method = getattr(kind, name, None)
        if method is None:
            continue
        if getattr(method, "visit_wrapper", None) is not None:   # pragma: no cover - v_args is not used
            raise TypeError(f"{kind.__name__}.{name}: a transformer given to reader() takes plain methods")
        del trees[rule]
        methods[rule] = (name, tuple(chain))
    return trees, methods
