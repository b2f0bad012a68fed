"""The Lark set-up: the grammar file (a package resource), the parser Lark generates from it (cached), and a reader per parse."""

# The grammar is found one way: as the resource `drama.lark` of the package
# `dsl.grammar`. In the wheel that package is the top-level grammar/ folder
# (pyproject.toml maps `dsl.grammar` to it); in the source tree (and so in an
# editable install) dsl/grammar is a symbolic link to ../grammar, which makes
# the same lookup work.
#
# The parser is Lark's stand-alone parser of the grammar (`lark.tools.standalone`:
# Lark's LALR parser and contextual lexer as one module, with the grammar's
# analysed tables as data), shipped as grammar/drama.standalone.txt (written by
# `python -m dsl.syntax.grammar`; used only while its digest is the grammar's,
# else generated from grammar/drama.lark, which needs Lark) and kept, compiled,
# in the user's cache folder (dsl/user_cache.py),
# under a name made from the grammar's text; the entry holds that text, and is
# used only while it is the grammar's (tests/test_startup.py checks that it is
# what Lark generates from the grammar now). A start then imports neither Lark's
# grammar compiler nor what it needs (`logging`'s users aside: `tempfile`,
# `pickle`, `hashlib`, `interegular`), nor reads Lark's cache of its analysis:
# issue 28, docs/performance.md. Everything else about parsing is Lark's: the
# exceptions a parse raises are the generated module's classes, given here
# (`LarkError`, `UnexpectedInput`, `UnexpectedToken`, `UnexpectedCharacters`).

from __future__ import annotations

import functools
import os
import sys
import threading
from pathlib import Path
from typing import Callable

__all__ = ["GRAMMAR_NAME", "BUNDLED", "MODULE", "bundled", "grammar_path", "grammar_text", "get_lark", "reader", "standalone", "generate",
           "LarkError", "UnexpectedInput", "UnexpectedToken", "UnexpectedCharacters"]

GRAMMAR_NAME = "drama.lark"
_OPTIONS = dict(
    parser="lalr",
    lexer="contextual",
    # Not strict: Lark's strict mode checks the grammar's terminals for regex
    # collisions with `interegular`, once per grammar, so that check belongs to
    # the test suite (tests/test_parser.py), not to every start of the command.
    strict=False,
    maybe_placeholders=False,
    propagate_positions=False,
)
# the shape of a cached parser (what `_load` reads); a new one is generated when it changes
_FORMAT = 4
# the name the generated parser is imported as
MODULE = "dsl.syntax.lark_parser"
# the exceptions of a parse, from the generated parser
_EXCEPTIONS = ("LarkError", "UnexpectedInput", "UnexpectedToken", "UnexpectedCharacters")

_build_lock = threading.Lock()
_built: tuple | None = None          # (the generated module, its Lark, its ParseTreeBuilder)


def grammar_path():
    """The grammar file, a resource of the package `dsl.grammar`."""
    import importlib.resources
    return importlib.resources.files("dsl.grammar") / GRAMMAR_NAME


@functools.cache
def grammar_text() -> str:
    """The text of the grammar (read once)."""
    # the package's folder, as importlib.resources finds it for a package on disk
    # (without importing importlib.resources and zipfile at every start)
    on_disk = Path(__file__).resolve().parent.parent / "grammar" / GRAMMAR_NAME
    if on_disk.is_file():
        return on_disk.read_text(encoding="utf-8")
    return grammar_path().read_text(encoding="utf-8")        # pragma: no cover - a zipped package


def generate(grammar: str) -> str:
    """The source of Lark's stand-alone parser of `grammar` (Lark is imported: slow, done once).
    (Lark numbers the states and symbols of its tables in the order of its sets, which
    is not the same in every process: two sources may differ by that numbering alone.)"""
    import io
    from lark import Lark
    from lark.tools.standalone import gen_standalone
    out = io.StringIO()
    gen_standalone(Lark(grammar, cache=False, **_OPTIONS), out=out)
    source = out.getvalue()
    for lark_wrote, instead in _QUIETER:
        if lark_wrote not in source:        # another layout of Lark's: its source as it is
            return source
    for lark_wrote, instead in _QUIETER:
        source = source.replace(lark_wrote, instead, 1)
    return source


# What the stand-alone parser imports only to be silent, written so that a start imports
# neither: the modules a compressed parser reads its tables with, and `logging` for a logger
# set to CRITICAL, through which the parser at run time says nothing (its debug and warning
# messages are those of building a grammar, and of Lark's own cache): a logger that does nothing.
_QUIETER = (
    ("\nimport pickle, zlib, base64\n", "\n"),
    ("\nimport logging\n", "\n"),
    ('\nlogger: logging.Logger = logging.getLogger("lark")\nlogger.addHandler(logging.StreamHandler())\n',
     "\nclass _Silent:\n    def __getattr__(self, name):\n        return lambda *args, **kwargs: None\n\n\n"
     "logger = _Silent()\n"),
    ("\nlogger.setLevel(logging.CRITICAL)\n", "\n"),
)


def _lark_installed() -> str:
    """Which Lark is installed (its package file's size and time), without importing it: a
    parser generated by another version of Lark is generated again."""
    import importlib.util
    try:
        spec = importlib.util.find_spec("lark")
        found = os.stat(spec.origin)
    except (ImportError, AttributeError, TypeError, OSError):      # pragma: no cover - no Lark: the cache only
        return "no lark"
    return f"{found.st_size} {found.st_mtime_ns}"


def _load(grammar: str):
    """The generated parser's code object, kept in the user's cache folder (generated the first time)."""
    import importlib.util
    from .. import user_cache

    def make() -> tuple[str, object]:
        source = bundled(grammar) or generate(grammar)
        return source, compile(source, f"<{MODULE}: Lark's stand-alone parser of {GRAMMAR_NAME}>", "exec")
    made_from = f"{_OPTIONS} {_lark_installed()}\n{grammar}"
    return user_cache.kept(f"parser.{sys.implementation.cache_tag}", made_from, make,
                           version=(_FORMAT, importlib.util.MAGIC_NUMBER))[1]


BUNDLED = "drama.standalone.txt"      # beside the grammar: its parser as generated, so a run needs no Lark


def _digest(grammar: str) -> str:
    import hashlib
    return hashlib.sha256(grammar.encode("utf-8")).hexdigest()


def bundled(grammar: str) -> str | None:
    """The stand-alone parser shipped beside the grammar (`python -m dsl.syntax.grammar`
    writes it), when it was generated from `grammar`: a fresh install parses without
    importing Lark, or without Lark at all; None when it is missing or stale."""
    path = Path(__file__).resolve().parent.parent / "grammar" / BUNDLED
    try:
        first, source = path.read_text(encoding="utf-8").split("\n", 1)
    except (OSError, ValueError, UnicodeDecodeError):
        return None
    return source if first == f"# {GRAMMAR_NAME} {_digest(grammar)}" else None


class _Scanner:
    """Lark's scanner of a lexer's terminals, each terminal's pattern compiled once.

    Lark's Scanner compiles one alternation of all the terminals a parser state
    accepts, `(?P<A>...)|(?P<B>...)|...`, for each set of terminals its states
    accept: about thirty large patterns for a short script, compiled by `re`'s
    Python compiler at every start. This one keeps the terminals' own patterns
    (each compiled once, `re`'s cache sharing them between states) and tries them
    in the same order: an alternation matches with its first alternative that
    matches at the position, and that is the first of these that matches, with the
    same text. `match` gives (text, terminal) and `fullmatch` the terminal, as Lark's."""

    def __init__(self, terminals, g_regex_flags, re_, use_bytes):
        self.terminals = terminals
        self.g_regex_flags = g_regex_flags
        self.re_ = re_
        self.use_bytes = use_bytes
        self.allowed_types = {t.name for t in terminals}
        self._patterns = [(re_.compile(t.pattern.to_regexp().encode("latin-1") if use_bytes
                                       else t.pattern.to_regexp(), g_regex_flags), t.name) for t in terminals]

    def match(self, text, pos):
        within, end = text.text, text.end
        for pattern, name in self._patterns:
            found = pattern.match(within, pos, end)
            if found:
                return found.group(0), name
        return None

    def fullmatch(self, text: str):
        for pattern, name in self._patterns:
            if pattern.fullmatch(text):
                return name
        return None


_module = None


def standalone():
    """The generated parser's module (its `Lark`, `Tree`, `Token` and exceptions), imported once."""
    global _module
    if _module is None:
        with _build_lock:
            if _module is None:
                module = type(sys)(MODULE, "Lark's stand-alone parser of the grammar (dsl/syntax/grammar.py)")
                sys.modules[MODULE] = module        # (dataclasses look a class's module up)
                exec(_load(grammar_text()), module.__dict__)
                module.LarkScanner, module.Scanner = module.Scanner, _Scanner     # (see _Scanner)
                _module = module
    return _module


def _build() -> tuple:
    global _built
    if _built is None:
        module = standalone()
        with _build_lock:
            if _built is None:
                lark = module.Lark_StandAlone()
                # what turns a transformer into the callbacks of the rules, as
                # Lark does for a transformer given to it
                builder = module.ParseTreeBuilder(lark.rules, module.Tree, _OPTIONS["propagate_positions"], False,
                                                  _OPTIONS["maybe_placeholders"])
                _built = (lark, builder)
    return _built


def get_lark():
    """The Lark parser of the grammar (the stand-alone one, built once)."""
    return _build()[0]


def __getattr__(name: str):
    if name in _EXCEPTIONS:
        return getattr(standalone(), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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


if __name__ == "__main__":          # python -m dsl.syntax.grammar: write the bundled parser again
    text = grammar_text()
    target = Path(__file__).resolve().parent.parent / "grammar" / BUNDLED
    target.write_text(f"# {GRAMMAR_NAME} {_digest(text)}\n" + generate(text), encoding="utf-8")
    print(f"wrote {target}")
