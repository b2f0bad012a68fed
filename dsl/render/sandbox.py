"""The template sandbox: Jinja's SandboxedEnvironment, with a time budget and caps on sizes (docs/templates.md, "Limits").

A template shared between game masters is untrusted input. Jinja's sandbox
keeps it from Python's internals; this module keeps it from running for ever
or filling the memory:

- **Sizes.** Every value a template makes through an operator (`*`, `**`,
  `%`, `+`), a call (a method, a macro, a global such as `lipsum`) or a
  filter is checked *before* it is made, from its operands: no text or list
  longer than `MAX_SIZE`, no number argument over `MAX_ARGUMENT` (a width, a
  count), no whole number over `MAX_BITS` bits, no `%`/`format` width of 6
  digits or more. The output of an author's template is made piece by piece
  and stops at `MAX_OUTPUT` (and `PER_EVENT_SIZE` more per event).
- **Time.** A watchdog thread (`threading.Timer`) raises `TemplateTimeout` in
  the rendering thread when `SECONDS` (and `PER_EVENT_SECONDS` per event) have passed, through CPython's
  `PyThreadState_SetAsyncExc`: it works on Linux and macOS (and Windows), in
  any thread, and needs no signal. The exception arrives between two
  bytecodes of the template's code, which the size caps keep short.

Each breach is a `TemplateLimit` (or `TemplateTimeout`), which the renderer
reports as E601 at the template's file and line.

Templates may mutate a list they made (the built-in ones build their phrases
with `parts.append(...)`), so the environment is the mutable
`SandboxedEnvironment`; the caller's events are copied before rendering.
"""

from __future__ import annotations

import functools
import itertools
import re
import threading
import time
from typing import Any

from jinja2 import Environment, pass_environment
from jinja2.compiler import CodeGenerator
from jinja2.runtime import Undefined, markup_join, str_join
from jinja2.sandbox import SandboxedEnvironment
from jinja2.utils import Namespace

__all__ = ["GuardedSandbox", "TemplateLimit", "TemplateTimeout", "Budget", "MAX_SIZE", "MAX_ARGUMENT",
           "MAX_BITS", "SECONDS", "MAX_OUTPUT", "PER_EVENT_SIZE", "PER_EVENT_SECONDS", "budget_for", "stream"]

# characters of any text or list a template makes
MAX_SIZE = 20_000_000
# characters of the output of an author's template (and PER_EVENT_SIZE more per event)
MAX_OUTPUT = 20_000_000
# an author's template gets, for each event of the log, this much more output
# and time (a long session's log is long to render too); the built-in
# templates, which are the program's own and linear in the log, get no budget
# of time or output (dsl/render/__init__.py)
PER_EVENT_SIZE = 1_000
PER_EVENT_SECONDS = 0.001
# a number given to a call or filter (a width, a count of paragraphs, a batch)
MAX_ARGUMENT = 100_000
# bits of a whole number a template makes (about 30,000 digits)
MAX_BITS = 100_000
# seconds one rendering of an author's template may take (and PER_EVENT_SECONDS more per event):
# well under 5 s, so that what one step of the template does after the watchdog
# fires (a call of C code over a text of MAX_SIZE, up to about 2 s) still ends within 5 s
SECONDS = 3.0

_WIDE = re.compile(r"\d{6,}")          # a width or precision of a million or more in `%` or format


class TemplateLimit(Exception):
    """A template went past one of the limits of this module."""


class TemplateTimeout(Exception):
    """The rendering ran out of time. (An Exception, so that Jinja places it at the
    template's line; should a filter swallow it, it is raised again every half second.)"""


def _size(value: Any) -> int:
    return len(value) if isinstance(value, (str, bytes, list, tuple, dict, set)) else 0


def _check_value(value: Any, what: str) -> None:
    size = _size(value)
    if size > MAX_SIZE:
        raise TemplateLimit(f"{what} would make more than {MAX_SIZE:,} characters or items")
    if type(value) is int and value.bit_length() > MAX_BITS:
        raise TemplateLimit(f"{what} would make a number of more than {MAX_BITS:,} bits")
    _spend(size, what)


# ---------------------------------------------------------------------------
# what a rendering makes in all: every value an operation, call or filter makes
# counts (a list grown in a loop, texts made and dropped); an author's template
# may make MADE_PER_OUTPUT times its output budget

MADE_PER_OUTPUT = 5
_made = threading.local()


def _spend(size: int, what: str) -> None:
    limit = getattr(_made, "limit", None)
    if limit is None or not size:
        return
    _made.total += size
    if _made.total > limit:
        raise TemplateLimit(f"{what}: the template would make more than {limit:,} characters "
                            "and items in all")


def _kind(value: Any) -> str:
    if isinstance(value, type):
        return "a class (such as `namespace` or `cycler` unused)"
    if type(value).__module__.startswith("jinja2"):
        return "one of the template's own objects (such as `loop`, `self` or a macro)"
    if callable(value):
        return "a function or method (such as `lipsum` or `events.append` unused)"
    return "an object that is not text, a number, a list or a mapping"


def printed_size(value: Any, limit: int = MAX_SIZE) -> int:
    """How many characters `value` would print as, counted before it is made (stops
    counting past `limit`). Raises TemplateLimit for a value that is not plain data
    (a function, a class, one of Jinja's objects): its description would show
    Python's internals (addresses, module paths), never text for a reader."""
    total = 0
    todo = [value]
    while todo and total <= limit:
        item = todo.pop()
        kind = type(item)
        if kind is str or isinstance(item, str):
            total += len(item)
        elif kind is bool or item is None:
            total += 5
        elif kind is int:
            total += item.bit_length() * 10 // 33 + 2
        elif kind is float:
            total += 24
        elif isinstance(item, (list, tuple, set, frozenset)):
            total += 2 + 2 * len(item)
            todo.extend(item)
        elif isinstance(item, dict):
            total += 2 + 4 * len(item)
            todo.extend(item.keys())
            todo.extend(item.values())
        elif isinstance(item, Undefined):
            total += 0
        elif type(item).__module__.startswith("dsl.") and type(item).__str__ is not object.__str__:
            total += len(str(item))      # the program's own values, made to be shown
        else:
            raise TemplateLimit(f"the template would print {_kind(item)}, not text: print its "
                                "fields or call it instead")
    return total


def _check_printed(value: Any, what: str) -> int:
    size = printed_size(value)
    if size > MAX_SIZE:
        raise TemplateLimit(f"{what} would make more than {MAX_SIZE:,} characters")
    return size


def _check_arguments(name: str, args, kwargs, what: str) -> None:
    sized = name in _SIZES
    for value in (*args, *kwargs.values()):
        if sized and type(value) is int and abs(value) > MAX_ARGUMENT:
            raise TemplateLimit(f"{what} given the number {value}, more than the limit of {MAX_ARGUMENT:,}")
        if isinstance(value, str) and _size(value) > MAX_SIZE:
            raise TemplateLimit(f"{what} given a text of more than {MAX_SIZE:,} characters")


# the filters, methods and globals whose numbers are sizes (a width, a count)
_SIZES = {"center", "ljust", "rjust", "zfill", "expandtabs", "indent", "wordwrap", "truncate", "batch",
          "slice", "lipsum", "generate_lorem_ipsum", "range", "safe_range", "join",
          "replace", "split", "rsplit", "splitlines"}
# (not `format`: its numbers are values to show, and its widths are checked in the format itself)


def _estimate(name: str, value: Any, args, kwargs) -> int:
    """A bound on the size of what a filter or method would make (0: nothing to fear)."""
    if name in ("join",) and isinstance(value, (list, tuple, str, range)):
        sep = args[0] if args else kwargs.get("d", "")
        items = list(value) if not isinstance(value, (list, tuple)) else value
        return sum(len(str(x)) if isinstance(x, str) else 20 for x in items) + len(items) * _size(sep)
    if name == "replace" and isinstance(value, str) and len(args) >= 2 and isinstance(args[1], str):
        old = args[0] if isinstance(args[0], str) else ""
        count = value.count(old) + 1 if old else len(value) + 1
        return len(value) + count * len(args[1])
    if name == "indent" and isinstance(value, str):
        width = args[0] if args else kwargs.get("width", 4)
        width = len(width) if isinstance(width, str) else width if isinstance(width, int) else 0
        return len(value) + (value.count("\n") + 1) * width
    return 0


def _guarded(name: str, function):
    """A filter (or test) that checks its arguments and the size of what it would make."""
    @functools.wraps(function)
    def guarded(*args, **kwargs):
        plain = [a for a in args if not _is_context(a)]
        _check_arguments(name, plain[1:], kwargs, f"the filter `{name}`")
        value = plain[0] if plain else None
        if name == "format" and isinstance(value, str) and _WIDE.search(value):
            raise TemplateLimit("the filter `format` with a width or precision of a million or more")
        if _size(value) > MAX_SIZE:
            raise TemplateLimit(f"the filter `{name}` given more than {MAX_SIZE:,} characters or items")
        if _estimate(name, value, plain[1:], kwargs) > MAX_SIZE:
            raise TemplateLimit(f"the filter `{name}` would make more than {MAX_SIZE:,} characters")
        if name in _TEXT_FILTERS:
            if hasattr(value, "__next__") or isinstance(value, (range, map, filter)):
                # (`|select|join`: a generator, made a list to be measured, then given on)
                made = list(itertools.islice(value, MAX_SIZE + 1))
                args = tuple(made if a is value else a for a in args)
                plain = [made if a is value else a for a in plain]
                value = made
            _check_printed(value if name != "format" else plain, f"the filter `{name}`")
        if name in ("format", "join") or "*" in str(value if name == "format" else ""):
            _check_widths(value, plain[1:], f"the filter `{name}`")
        result = function(*args, **kwargs)
        _check_value(result, f"the filter `{name}`")
        return result
    return guarded


# the filters that turn a value (or the items of a list) into text
_TEXT_FILTERS = {"string", "tojson", "join", "format", "pprint", "e", "escape", "forceescape", "safe", "urlize",
                 "wordwrap", "center", "indent", "title", "upper", "lower", "capitalize", "trim", "replace",
                 "truncate", "striptags", "urlencode", "xmlattr", "wordcount"}
_STAR_WIDTH = re.compile(r"%[-+ #0]*\*|\{[^{}]*:[^{}]*\{")


def _check_widths(fmt: Any, args, what: str) -> None:
    """A width or precision given as an argument (`%*d`, `{:{}}`) is a size: bounded."""
    if isinstance(fmt, str) and _STAR_WIDTH.search(fmt):
        values = args[0] if len(args) == 1 and isinstance(args[0], (tuple, list)) else args
        for value in values:
            if type(value) is int and abs(value) > MAX_ARGUMENT:
                raise TemplateLimit(f"{what} given the width {value}, more than the limit of {MAX_ARGUMENT:,}")


def _percent_size(left: str, right: Any) -> int:
    """A bound on the length of `left % right`: the format, each width, and what is printed."""
    widths = sum(int(w) for w in re.findall(r"%[-+ #0]*(\d+)", left))
    return len(left) + widths + printed_size(right)


def _is_context(value) -> bool:
    from jinja2.nodes import EvalContext
    from jinja2.runtime import Context
    return isinstance(value, (Context, EvalContext, SandboxedEnvironment))


class _Namespace(Namespace):
    """`namespace()`, whose attributes are checked like every other value made."""

    def __setitem__(self, name: str, value: Any) -> None:
        _check_value(value, f"`{name}` of a namespace")
        super().__setitem__(name, value)


def _binop(symbol: str, left: Any, right: Any) -> None:
    """Refuse an operator whose result would be too large, before it is made."""
    if symbol == "*":
        count = right if isinstance(right, int) else left if isinstance(left, int) else None
        other = left if count is right else right
        if count is not None and _size(other) and count * _size(other) > MAX_SIZE:
            raise TemplateLimit(f"`*` would make more than {MAX_SIZE:,} characters or items")
        if type(left) is int and type(right) is int and left.bit_length() + right.bit_length() > MAX_BITS:
            raise TemplateLimit(f"`*` would make a number of more than {MAX_BITS:,} bits")
    elif symbol == "**":
        if isinstance(left, int) and isinstance(right, int) and right > 0 and \
                abs(left) > 1 and right * abs(left).bit_length() > MAX_BITS:
            raise TemplateLimit(f"`**` would make a number of more than {MAX_BITS:,} bits")
    elif symbol == "%":
        if isinstance(left, str):
            if _WIDE.search(left):
                raise TemplateLimit("`%` with a width or precision of a million or more")
            _check_widths(left, (right,), "`%`")
            if _percent_size(left, right) > MAX_SIZE:
                raise TemplateLimit(f"`%` would make more than {MAX_SIZE:,} characters")
    elif symbol == "+":
        if _size(left) + _size(right) > MAX_SIZE:
            raise TemplateLimit(f"`+` would make more than {MAX_SIZE:,} characters or items")


def concat(items, autoescape: bool):
    """`a ~ b ~ c`: each piece's printed size counted before the text is made."""
    total = 0
    for item in items:
        total += printed_size(item, MAX_SIZE - total)
        if total > MAX_SIZE:
            raise TemplateLimit(f"`~` would make more than {MAX_SIZE:,} characters")
    _spend(total, "`~`")
    return markup_join(items) if autoescape else str_join(items)


def finalize(value: Any) -> Any:
    """What `{{ ... }}` prints: plain data only (no function, class or object description)."""
    if type(value) is not str:
        printed_size(value, MAX_SIZE)
    return value


class _Generator(CodeGenerator):
    """Jinja's code generator, with `~` going through `concat` (Jinja's sandbox does not intercept it)."""

    def visit_Concat(self, node, frame) -> None:
        if frame.eval_ctx.volatile:
            autoescape = "context.eval_ctx.autoescape"
        else:
            autoescape = "True" if frame.eval_ctx.autoescape else "False"
        self.write("environment.guarded_concat((")
        for arg in node.nodes:
            self.visit(arg, frame)
            self.write(", ")
        self.write(f"), {autoescape})")


_FORMATS = {"format", "format_map"}
# the methods that grow a list, a dict or a set a template made (what they add is counted)
_GROWING = {"append", "extend", "insert", "update", "setdefault", "add"}
_SIZED_METHODS = {"center", "ljust", "rjust", "zfill", "expandtabs", "join", "replace", "indent"}


# a line of text is wrapped in pieces of about this many characters (see `wordwrap`)
WRAP_PIECE = 20_000


@pass_environment
def wordwrap(environment, s: str, width: int = 79, break_long_words: bool = True,
             wrapstring: str | None = None, break_on_hyphens: bool = True) -> str:
    """Jinja's `wordwrap`, in time linear in the text: textwrap takes time of the
    square of a word longer than the width (it cuts the word a line at a time), and
    one call of its regular expression over a long line cannot be stopped by the
    time limit. A line longer than `WRAP_PIECE` is wrapped a piece at a time, cut at
    a space (or, in a word that long, at a multiple of the width), each piece
    beginning with the last line of the one before, not full yet: the lines are
    Jinja's, and the time limit can stop the work between two pieces."""
    import textwrap
    if wrapstring is None:
        wrapstring = environment.newline_sequence
    width = max(int(width), 1)

    def wrapped(piece: str) -> list[str]:
        return textwrap.wrap(piece, width=width, expand_tabs=False, replace_whitespace=False,
                             break_long_words=break_long_words, break_on_hyphens=break_on_hyphens)

    size = max(WRAP_PIECE, 4 * width)
    lines: list[str] = []
    for line in str(s).splitlines():
        if len(line) <= size:
            lines.append(wrapstring.join(wrapped(line)))
            continue
        out: list[str] = []
        start, carry = 0, ""        # carry: the last line of a piece, not full yet, begins the next
        while start < len(line):
            end = start + size
            if end < len(line):
                space = line.rfind(" ", start + width, end)
                while space > start + width and line[space - 1] == " ":
                    space -= 1                  # (at the start of a run of spaces: none is lost)
                if space > start:
                    end = space
                elif break_long_words:          # a word of a whole piece: cut where textwrap would
                    end = start + (size // width) * width
                else:                           # kept whole, as textwrap keeps it
                    space = line.find(" ", end)
                    end = len(line) if space < 0 else space
            made = wrapped(carry + line[start:end])
            start = end
            if start < len(line) and made:
                carry = made.pop()
            out.extend(made)
        lines.append(wrapstring.join(out))
    return wrapstring.join(lines)


class GuardedSandbox(SandboxedEnvironment):
    """Jinja's sandbox, with every operator, call and filter checked against the limits."""

    intercepted_binops = frozenset(["*", "**", "%", "+"])
    code_generator_class = _Generator

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("finalize", finalize)
        super().__init__(*args, **kwargs)
        self.globals["namespace"] = _Namespace
        self.filters["wordwrap"] = wordwrap
        self.guarded_concat = concat

    def guard_filters(self) -> None:
        """Wrap every filter and test (call after the last filter is added)."""
        for table in (self.filters, self.tests):
            for name, function in list(table.items()):
                if not getattr(function, "_guarded", False):
                    wrapped = _guarded(name, function)
                    wrapped._guarded = True
                    table[name] = wrapped

    def getattr(self, obj, attribute):
        if isinstance(obj, str) and attribute in _FORMATS and _WIDE.search(obj):
            raise TemplateLimit(f"`{attribute}` with a width or precision of a million or more")
        return super().getattr(obj, attribute)

    def wrap_str_format(self, value):
        """`TEXT.format(...)`: Jinja's sandboxed formatter, with widths given as arguments
        bounded and the size of the result counted before it is made."""
        wrapper = super().wrap_str_format(value)
        if wrapper is None:
            return None
        text, name = value.__self__, value.__name__

        @functools.wraps(wrapper)
        def guarded(*args, **kwargs):
            given = (*args, *kwargs.values()) if name == "format" else tuple(args[0].values()) \
                if args and isinstance(args[0], dict) else args
            _check_widths(text, given, f"`{name}`")
            widths = sum(int(w) for w in re.findall(r"\{[^{}]*:[^\d{}]*(\d+)", text))
            if len(text) + widths + printed_size(given) > MAX_SIZE:
                raise TemplateLimit(f"`{name}` would make more than {MAX_SIZE:,} characters")
            return wrapper(*args, **kwargs)
        return guarded

    def call_binop(self, context, operator_: str, left, right):
        _binop(operator_, left, right)
        return super().call_binop(context, operator_, left, right)

    def call(__self, __context, __obj, *args, **kwargs):  # noqa: N805 - Jinja's own signature
        name = getattr(__obj, "__name__", "")
        _check_arguments(name, args, {k: v for k, v in kwargs.items() if not k.startswith("_")},
                         f"`{name or 'a call'}`")
        target = getattr(__obj, "__self__", None)
        if name in _FORMATS and isinstance(target, str) and _WIDE.search(target):
            raise TemplateLimit(f"`{name}` with a width or precision of a million or more")
        if name in _SIZED_METHODS and _estimate(name, target, args, kwargs) > MAX_SIZE:
            raise TemplateLimit(f"`{name}` would make more than {MAX_SIZE:,} characters")
        if name in _GROWING and isinstance(target, (list, dict, set)):
            _spend(printed_size(args, MAX_SIZE) + 1, f"`{name}`")
        result = super().call(__context, __obj, *args, **kwargs)
        _check_value(result, f"`{name or 'a call'}`")
        return result


class Builtin(Environment):
    """The environment of the program's own templates (none of an author's): plain Jinja,
    without the sandbox's check of every call, attribute and operator, which cost most of
    a long log's rendering. Its templates are ours and only print the log's values; the
    sandbox's `wordwrap` is kept (a long line costs its length)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.filters["wordwrap"] = wordwrap

    def guard_filters(self) -> None:
        """(Nothing to guard: the sandbox's counterpart wraps an author's filters.)"""


# ---------------------------------------------------------------------------
# the time budget

def _set_async_exc(thread: int, exception) -> None:
    """Raise `exception` in `thread` at its next bytecode (None: take back one not raised yet)."""
    import ctypes                   # (imported already by the Budget, in the rendering thread)
    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread),
                                              ctypes.py_object(exception) if exception is not None else None)


class Budget:
    """`with Budget(seconds):` raises TemplateTimeout in this thread when the time is up."""

    def __init__(self, seconds: float | None = None):
        import ctypes  # noqa: F401 - for _set_async_exc: only an author's template has a budget, not drama run's log
        self.seconds = SECONDS if seconds is None else seconds
        self._thread = threading.get_ident()
        self._lock = threading.Lock()
        self._armed = False
        self._fired = False
        self._timer: threading.Timer | None = None
        self.started = 0.0

    def _expire(self) -> None:
        with self._lock:
            if self._armed:
                self._fired = True
                _set_async_exc(self._thread, TemplateTimeout)
                self._timer = threading.Timer(0.5, self._expire)
                self._timer.daemon = True
                self._timer.start()

    def __enter__(self) -> "Budget":
        self._thread = threading.get_ident()
        self._armed = True
        self.started = time.monotonic()
        self._timer = threading.Timer(self.seconds, self._expire)
        self._timer.daemon = True
        try:
            self._timer.start()
        except TemplateTimeout:     # spent before the block began: __exit__ would not run
            self.__exit__(TemplateTimeout, None, None)
            raise
        return self

    def __exit__(self, *exc) -> None:
        late = False
        while True:             # disarm; a timeout delivered while disarming is taken, and disarming done again
            try:
                with self._lock:
                    self._armed = False
                    if self._fired:     # raised, but perhaps not delivered yet: take it back
                        _set_async_exc(self._thread, None)
                    self._timer.cancel()
                break
            except TemplateTimeout:
                late = True
        if late and exc[0] is None:
            raise TemplateTimeout


def budget_for(events: int) -> tuple[float, int]:
    """The time (seconds) and output (characters) an author's template has for a log of `events` events."""
    return SECONDS + PER_EVENT_SECONDS * events, MAX_OUTPUT + PER_EVENT_SIZE * events


def stream(template, context: dict, limit: int | None = MAX_OUTPUT) -> str:
    """Render `template` piece by piece, refusing output past `limit` characters (None: no
    limit), and more than MADE_PER_OUTPUT times `limit` characters and items made in all."""
    pieces: list[str] = []
    size = 0
    _made.total, _made.limit = 0, None if limit is None else limit * MADE_PER_OUTPUT
    try:
        for piece in template.generate(context):
            size += len(piece)
            if limit is not None and size > limit:
                raise TemplateLimit(f"the output would be longer than {limit:,} characters")
            pieces.append(piece)
    finally:
        _made.limit = None
    return "".join(pieces)

