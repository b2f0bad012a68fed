"""The Lark set-up: the grammar file (a package resource), Lark's cache of it, and a reader per parse."""

# The grammar is found one way: as the resource `drama.lark` of the package
# `dsl.grammar`. In the wheel that package is the top-level grammar/ folder
# (pyproject.toml maps `dsl.grammar` to it); in the source tree (and so in an
# editable install) dsl/grammar is a symbolic link to ../grammar, which makes
# the same lookup work.

from __future__ import annotations

import copy
import functools
import hashlib
import importlib.resources
import importlib.util
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
    # strict mode checks regex collisions with `interegular`
    strict=importlib.util.find_spec("interegular") is not None,
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
    lark, builder = _build()
    callbacks = builder.create_callback(transformer)
    front = copy.copy(lark.parser)                 # lark.parser_frontends.ParsingFrontend
    front.parser = copy.copy(front.parser)         # LALR_Parser
    front.parser.parser = copy.copy(front.parser.parser)   # the parser loop: its callbacks
    front.parser.parser.callbacks = callbacks
    return front.parse
