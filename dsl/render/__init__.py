"""Rendering: an event log as a session log or a narrative transcript, in text,
Markdown or HTML, through Jinja templates (the built-in ones of `templates/`, or
an author's). It reads only the events (docs/events.md, docs/templates.md).
The reports of `drama simulate` and `drama odds` go through the same sandbox.
Jinja is imported only when something is rendered."""

from __future__ import annotations

import copy
import json
import os
import re
import sys
from pathlib import Path
from typing import Iterable

from ..errors import DramaError, Position
from ..inputs import bad_character

# (the story model, the context and the filters are imported by the functions that use
# them: `drama check` reads render.grammar and the phrase books without them, issue 28)

__all__ = ["KINDS", "FORMATS", "REPORTS", "TEMPLATES", "render", "render_text", "told", "render_report",
           "read_event_log", "template_name"]

KINDS = ("log", "transcript")
FORMATS = ("text", "md", "html")
# the reports of `drama simulate` and `drama odds`, and their formats
REPORTS = {"simulate": ("text", "md", "html"), "odds": ("text", "md")}   # their templated formats
TEMPLATES = Path(__file__).resolve().parent / "templates"

_HTML_NAMES = ("html", "htm", "xml", "svg", "html.j2", "htm.j2", "xml.j2", "svg.j2")


def __getattr__(name: str):
    if name == "told":              # the sentences of a story (dsl/render/story.py), imported when asked for
        from .story import told
        return told
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def template_name(as_: str, fmt: str) -> str:
    """The built-in template of a kind and a format: `log.md.j2`."""
    return f"{as_}.{fmt}.j2"


def render_text(events: Iterable[dict]) -> str:
    """The session log as plain text: a line per event (what `drama run` prints)."""
    return render(events, as_="log", format="text")


def render(events: Iterable[dict], as_: str = "log", format: str = "text",
           template: str | os.PathLike | None = None, numbers: bool = False,
           lang: str | os.PathLike | None = None, recap: bool = False, told: list | None = None) -> str:
    """Render an event log: `as_` is `log` or `transcript`, `format` is `text`,
    `md` or `html`; `template` is an author's template file or folder (its
    templates come before the built-in ones); `numbers` puts the values into a
    transcript; `lang` is the transcript's language (`en`, `fr`, or a phrase
    file); `recap` ends a transcript with who stood, who fell and what was
    dictated; `told`, a list that receives each sentence the narrator tells,
    as (kind, fact of the story model, words). Raises DramaError: E601 for an
    error in a template, E602 for events that are not an event log, E123-E125
    for a phrase book."""
    if as_ not in KINDS:
        raise ValueError(f"as_ must be one of {KINDS}, not {as_!r}")
    if format not in FORMATS:
        raise ValueError(f"format must be one of {FORMATS}, not {format!r}")
    if as_ == "log" and format == "text" and template is None:
        events = list(events)
        if events and isinstance(events[-1], dict) and events[-1].get("type") == "final" \
                and isinstance(events[0], dict) and events[0].get("type") == "start":
            # the plain log of a whole event log, written without Jinja (plain_log.py): what
            # log.text.j2 renders, from the same functions; a log cut short is rendered below
            from . import plain_log
            return plain_log.text(events)
    from jinja2 import TemplateNotFound, TemplateSyntaxError
    from jinja2.exceptions import SecurityError, UndefinedError
    from . import phrasebook
    from .context import build_context
    from .filters import filters
    book = phrasebook.load(lang if as_ == "transcript" else None)
    events = copy.deepcopy(list(events))        # a template cannot change the caller's events
    if not events or not isinstance(events[0], dict) or events[0].get("type") != "start":
        raise DramaError("E602", "an event log must begin with a `start` event")
    if as_ == "transcript":
        from .. import catalogue
        if catalogue.needs(book) and events[0].get("told_in") != book.language:
            # no catalogue given: the writer's words that sit inside sentences are left out
            events = catalogue.translate_events(events, catalogue.Translation(book.language, {}, {}, False, {}))
    try:
        context = build_context(events, as_=as_, fmt=format, numbers=numbers, lang=book.language)
        context.update(lang=book.language, language=book.name, recap=bool(recap))
    except (AttributeError, TypeError, KeyError, ValueError, IndexError, ZeroDivisionError) as error:
        raise DramaError("E602", f"an event of the log is not in the form of docs/events.md ({error})") from None
    from .sandbox import Budget, TemplateLimit, TemplateTimeout, budget_for, stream
    # (an author's template is compiled each time: its constant filters may read this render's events)
    environment, name = _environment(format, as_, template, compiled_for=book if template is None else None)
    environment.filters.update(filters(context, book, told))
    environment.guard_filters()
    # an author's template is bounded in time and output, more for a longer log;
    # the built-in ones are the program's own, linear in the log: a long session renders
    seconds, size = budget_for(len(events))
    try:
        if template is None:
            text = stream(environment.get_template(name), context, limit=None)
        else:
            with Budget(seconds):
                text = stream(environment.get_template(name), context, limit=size)
        return _markdown_tidy(text) if format == "md" else text
    except DramaError as error:         # (the reader's, from an include: placed at the including line)
        if error.position is None:
            error.position = _template_position(error)
        raise
    except TemplateTimeout as error:
        raise _template_error(error, f"the template ran for more than {seconds:.1f} seconds", at=template,
                              hint="a template's loops and calls must end soon (docs/templates.md, Limits)") \
            from None
    except TemplateLimit as error:
        raise _template_error(error, f"the template went past a limit: {error}", at=template,
                              hint="see docs/templates.md, Limits") from None
    except TemplateNotFound as error:
        raise _template_error(error, f"template not found: {error.name}",
                              hint=_not_found_hint(error.name)) from None
    except TemplateSyntaxError as error:
        raise DramaError("E601", f"template syntax: {error.message}",
                         position=Position(error.filename or error.name or "<template>", error.lineno or 1)) \
            from None
    except SecurityError as error:
        raise _template_error(error, f"the template reached for something it may not use: {error}",
                              hint="templates run in a sandbox: use the context of docs/templates.md") from None
    except UndefinedError as error:
        raise _template_error(error, f"undefined in the template: {error.message}",
                              hint="see docs/templates.md for the variables and filters a template gets") from None
    except RecursionError as error:
        where = Path(template) / name if template is not None and Path(template).is_dir() else template
        position = _template_position(error)
        if position is None and where is not None and Path(where).is_file():
            position = Position(str(where), 1)
        raise DramaError("E601", f"template {name} extends or includes itself (or a macro calls itself) without end",
                         position=position,
                         hint=f"a template named like a built-in one reaches it as `builtin/NAME`, "
                              f"e.g. {{% extends \"builtin/{name}\" %}}") from None
    except MemoryError as error:
        raise _template_error(error, "the template ran out of memory", at=template,
                              hint="see docs/templates.md, Limits") from None
    except Exception as error:      # noqa: BLE001 - whatever a template raises is E601 (truncate(-5): an assert)
        raise _template_error(error, f"error in the template: {_one_line(error)}") from None


def render_report(name: str, report: dict, format: str, *, raw_markdown: bool = False) -> str:
    """A report that is not an event log, `simulate` or `odds` (see REPORTS),
    given as the plain data of its `--format json`: the built-in template
    `NAME.FORMAT.j2` rendered in the same sandbox as the logs, with the report
    as `r` (and its `title`) and the filters of report_filters.py. With
    `raw_markdown`, Markdown is written as the template lays it out, neither
    HTML-escaped nor tidied. (A report's JSON is its caller's: the data as it is.)"""
    if format not in REPORTS[name]:
        raise ValueError(f"format must be one of {REPORTS[name]}, not {format!r}")
    from jinja2.exceptions import TemplateError
    from .report_filters import FILTERS as REPORT_FILTERS
    raw = format == "md" and raw_markdown
    environment, template = _environment(format, name, None, escape=False if raw else None, compiled_for="report")
    environment.filters.update(REPORT_FILTERS)
    environment.guard_filters()
    try:
        text = environment.get_template(template).render({"r": report, "title": report.get("title")})
    except TemplateError as error:
        raise _template_error(error, f"error in the template: {error}") from None
    return _markdown_tidy(text) if format == "md" and not raw else text


def compact_json(data: dict) -> str:
    """Data as JSON: indented, with each list of numbers (a histogram, an
    interval) on one line (the report of `drama simulate`)."""
    def dump(value, indent: str) -> str:
        if isinstance(value, dict):
            if not value:
                return "{}"
            inner = indent + "  "
            items = [f"{inner}{json.dumps(key, ensure_ascii=False)}: {dump(item, inner)}"
                     for key, item in value.items()]
            return "{\n" + ",\n".join(items) + "\n" + indent + "}"
        if isinstance(value, list):
            if all(not isinstance(item, (dict, list)) or
                   (isinstance(item, list) and all(not isinstance(x, (dict, list)) for x in item))
                   for item in value):
                return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
            inner = indent + "  "
            return "[\n" + ",\n".join(inner + dump(item, inner) for item in value) + "\n" + indent + "]"
        return json.dumps(value, ensure_ascii=False)
    return dump(data, "") + "\n"


def _environment(fmt: str, as_: str, template, escape: bool | None = None, compiled_for=None):
    """The one set-up of the sandbox: the template `as_.fmt.j2` (or an author's)
    and a SandboxedEnvironment that finds it; HTML and Markdown are escaped
    unless `escape` says otherwise (HTML templates always are). With `compiled_for`
    (what the filters depend on: the phrase book), the templates compiled once are
    kept for the next environment of the same (`_compiled`)."""
    from jinja2 import ChoiceLoader, PrefixLoader, StrictUndefined, select_autoescape
    from .sandbox import Builtin, GuardedSandbox
    FileSystemLoader = _files_loader()
    builtin = FileSystemLoader(str(TEMPLATES))
    loaders = [builtin, PrefixLoader({"builtin": builtin})]
    name = template_name(as_, fmt)
    if template is not None:
        path = Path(template)
        if path.is_dir():
            loaders.insert(0, FileSystemLoader(str(path)))
        elif path.is_file() or path.exists():
            loaders.insert(0, FileSystemLoader(str(path.parent)))
            name = path.name
        else:
            raise DramaError("E601", f"cannot find the template {template}",
                             expected="a template file, or a folder of templates")
    if escape is None:
        escape = fmt in ("html", "md")
    # an author's template runs in the sandbox, and so does every template beside it;
    # the built-in ones alone are the program's own code (sandbox.Builtin)
    kind = GuardedSandbox if template is not None else Builtin
    environment = kind(
        loader=ChoiceLoader(loaders), undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True,
        keep_trailing_newline=True, auto_reload=False,
        bytecode_cache=None if compiled_for is None else _compiled(bool(escape), compiled_for, kind),
        autoescape=select_autoescape(enabled_extensions=_HTML_NAMES, disabled_extensions=(),
                                     default_for_string=escape, default=escape))
    return environment, name


_COMPILED: dict = {}
_KEEP_COMPILED = 8


def _compiled(escape: bool, depends_on, kind: type):
    """The built-in templates compiled so far in this process for environments alike (`key`: whether
    they escape, what their filters depend on), as a Jinja bytecode cache in memory, so that a
    process that renders again and again (`drama lsp`'s preview) compiles each template once. Jinja
    keys a template by its name and file and checks its source's checksum. Each kind of environment
    has its cache: Jinja compiles `"Round"|t` as the text the filter gives then (`Tour` with the
    French book), whether to escape, and the kind of environment (the sandbox's or the built-in
    templates'). (An entry holds the book, so that no other gets its id.) A template compiled is
    also kept in the user's cache folder (`_Kept`), for the next process."""
    key = (escape, id(depends_on), kind.__name__)
    if key not in _COMPILED:
        while len(_COMPILED) >= _KEEP_COMPILED:         # (a phrase file edited in the language server: a new book each time)
            del _COMPILED[next(iter(_COMPILED))]
        from jinja2 import BytecodeCache

        class Memory(BytecodeCache):
            def __init__(self) -> None:
                self.codes: dict[str, bytes] = {}
                self.kept = _Kept(escape, depends_on, kind.__name__)

            def load_bytecode(self, bucket) -> None:
                if bucket.key not in self.codes:
                    kept = self.kept.load(bucket.key)
                    if kept is None:
                        return
                    self.codes[bucket.key] = kept
                try:
                    bucket.bytecode_from_string(self.codes[bucket.key])     # (Jinja checks the source's checksum)
                except (ValueError, EOFError, TypeError):   # a damaged entry: compiled again
                    del self.codes[bucket.key]
                    bucket.reset()

            def dump_bytecode(self, bucket) -> None:
                self.codes[bucket.key] = bucket.bytecode_to_string()
                self.kept.dump(bucket.key, self.codes[bucket.key])
        _COMPILED[key] = (depends_on, Memory())
    return _COMPILED[key][1]


class _Kept:
    """The built-in templates compiled for one kind of environment, kept between processes in
    the user's cache folder (dsl/user_cache.py): compiling log.text.j2 took about a fifth of a
    `drama run` (issue 28). An entry is Jinja's bytecode of one template (Jinja checks its
    source's checksum and its own and Python's versions when it reads it), named by the
    template and by all that the compiled code may depend on besides the template's text:
    whether it escapes, the kind of environment, the phrase book (its file's size and time)
    whose filters Jinja may have run at compile time, the versions of Jinja and Babel, and the
    package's own code (the size and time of each of its modules: an edited filter compiles
    the templates again)."""

    _FORMAT = 1

    def __init__(self, escape: bool, depends_on, kind: str) -> None:
        self.escape = escape
        self.depends_on = depends_on
        self.kind = kind
        self._key: str | None = None

    def key(self) -> str:
        if self._key is None:
            import jinja2
            book = self.depends_on
            path = getattr(book, "path", "")
            if path:
                found = os.stat(path)
                book = f"{os.path.abspath(path)} {found.st_size} {found.st_mtime_ns}"
            from ..user_cache import package_code
            babel = sys.modules.get("babel")
            self._key = (f"{self._FORMAT} escape={self.escape} kind={self.kind} book={book} jinja={jinja2.__version__} "
                         f"babel={getattr(babel, '__version__', '')}\n{package_code()}")
        return self._key

    def _entry(self, bucket_key: str):
        import zlib
        from .. import user_cache
        folder = user_cache.folder()
        if folder is None:
            return None
        return folder / f"template-{zlib.crc32(f'{bucket_key}|{self.key()}'.encode('utf-8')):08x}.marshal"

    def load(self, bucket_key: str) -> bytes | None:
        import marshal
        try:
            entry = self._entry(bucket_key)
            kept = marshal.loads(entry.read_bytes()) if entry is not None else None
        except (OSError, EOFError, ValueError, TypeError):
            return None
        if isinstance(kept, tuple) and len(kept) == 3 and kept[:2] == (bucket_key, self.key()) \
                and isinstance(kept[2], bytes):
            from .. import user_cache
            user_cache.used(entry)
            return kept[2]
        return None

    def dump(self, bucket_key: str, code: bytes) -> None:
        import marshal
        from .. import user_cache
        try:
            entry = self._entry(bucket_key)
        except OSError:                 # pragma: no cover - a book removed since it was read
            return
        if entry is not None:
            user_cache.write(entry, marshal.dumps((bucket_key, self.key(), code)))


def _files_loader():
    """Jinja's FileSystemLoader reading through the one reader (`dsl.inputs`): a
    template is a regular UTF-8 file of at most MAX_TEMPLATE_BYTES, with no NUL
    (E601 otherwise), and is noted as read, so that no output overwrites it."""
    from jinja2 import FileSystemLoader, TemplateNotFound
    from jinja2.loaders import split_template_path

    from .. import inputs

    class Files(FileSystemLoader):
        def get_source(self, environment, template):
            pieces = split_template_path(template)
            for folder in self.searchpath:
                path = os.path.join(folder, *pieces)
                if not os.path.lexists(path) or os.path.isdir(path):
                    continue
                real, root = os.path.realpath(path), os.path.realpath(folder)
                if os.path.commonpath([real, root]) != root:     # a link out of the folder: never read
                    raise DramaError("E601", f"the template '{template}' is a link to a file outside the "
                                     "template folder: it is not read",
                                     expected=f"a template inside {folder}",
                                     hint="copy the file into the template folder instead of linking to it")
                try:
                    text = inputs.read_text(path, what="template", limit=inputs.MAX_TEMPLATE_BYTES)
                except DramaError as error:
                    error.code = "E601"
                    raise
                return text, os.path.normpath(path), lambda: True
            raise TemplateNotFound(template)

    return Files


def _markdown_tidy(text: str) -> str:
    """Markdown is rendered with HTML autoescaping, so that a name cannot smuggle
    HTML into a page made from the Markdown; then `&`, `"` and `'` are written
    back as themselves (`<` and `>` stay `&lt;` and `&gt;`, which Markdown shows
    as `<` and `>`). Runs of blank lines become one; the text ends in one newline."""
    text = text.replace("&#34;", '"').replace("&#39;", "'").replace("&amp;", "&")
    text = re.sub(r"\n[ \t]*\n(?:[ \t]*\n)+", "\n\n", text).strip("\n")
    return text + "\n"


def _one_line(error: BaseException) -> str:
    text = " ".join(str(error).split()) or type(error).__name__
    return text if len(text) <= 300 else text[:300] + "..."


def _not_found_hint(name: str | None) -> str:
    names = ", ".join(sorted(p.name for p in TEMPLATES.glob("*.j2")))
    return f"the built-in templates are {names} (also as builtin/NAME)"


def _template_position(error: BaseException) -> Position | None:
    """The template file and line where an error was raised: Jinja rewrites the
    traceback so that template code shows as frames of the template file."""
    found = None
    tb = error.__traceback__
    while tb is not None:
        filename = tb.tb_frame.f_code.co_filename
        if not filename.endswith(".py") and not filename.startswith("<frozen"):
            found = Position(filename, tb.tb_lineno)
        tb = tb.tb_next
    if found is not None:
        found = _column(found, error)
    return found


def _column(position: Position, error: BaseException) -> Position:
    """Point the caret at the undefined name or the unsafe attribute, if the line shows it."""
    message = str(getattr(error, "message", None) or error)
    word = None
    for quote in ("'", '"'):
        parts = message.split(quote)
        if len(parts) >= 3:
            word = parts[1]
            break
    if not word:
        return position
    try:
        lines = Path(position.file).read_text(encoding="utf-8").splitlines()
        text = lines[position.line - 1]
    except (OSError, UnicodeError, IndexError, ValueError):
        return position
    at = text.find(word)
    if at < 0:
        return position
    return Position(position.file, position.line, at + 1, at + 1 + len(word))


def _template_error(error: BaseException, message: str, at=None, **kwargs) -> DramaError:
    """E601 at the template's file and line where `error` was raised; else (an
    error met between two pieces of output) at the top of the template file `at`."""
    position = _template_position(error)
    if position is None and at is not None and Path(at).is_file():
        position = Position(str(at), 1)
    if position is not None and Path(position.file).resolve().parent == TEMPLATES:
        kwargs["hint"] = "in a built-in template: is every event of the log complete (docs/events.md)?"
    return DramaError("E601", message, position=position, **kwargs)


# ---------------------------------------------------------------------------
# saved event logs

def read_event_log(path: str | os.PathLike) -> list[dict]:
    """The events of a JSON Lines file written by `drama run --format json`.
    Raises DramaError (E602) with the file and line of what cannot be read."""
    from ..events import VERSION
    from .. import inputs
    name = str(path)
    try:
        text = inputs.read_text(path, what="event log", limit=inputs.MAX_EVENT_LOG_BYTES)
    except DramaError as error:           # every problem of the log is E602
        error.code = "E602"
        if error.position is None and error.notes and error.notes[0].startswith("byte "):
            where = error.notes[0].rpartition(" at ")[2].split(":")
            error.position = Position(name, int(where[-2]))
            error.notes = []
            error.message = "the event log is not UTF-8 text"
        raise
    events: list[dict] = []
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        event = _event(line, name, number)
        if not isinstance(event, dict) or not isinstance(event.get("type"), str):
            raise DramaError("E602", "an event must be a JSON object with a \"type\"",
                             position=Position(name, number)) from None
        if not events:
            if event["type"] != "start":
                raise DramaError("E602", f"the first event is {event['type']!r}, not 'start'",
                                 position=Position(name, number),
                                 expected="an event log written by `drama run --format json`")
            version = event.get("version")
            if not isinstance(version, int) or isinstance(version, bool):
                raise DramaError("E602", "the start event has no schema version", position=Position(name, number))
            if version > VERSION:
                at = line.find('"version"') + 1 or 1
                end = line.find(",", at) + 1 if line.find(",", at) >= 0 else None
                raise DramaError("E602", f"the event log has schema version {version}, newer than this drama "
                                         f"reads ({VERSION})", position=Position(name, number, at, end),
                                 hint="a newer drama wrote it: upgrade drama to render it")
        elif event["type"] == "start":
            raise DramaError("E602", "a second 'start' event: two event logs in one file?",
                             position=Position(name, number))
        events.append(event)
    if not events:
        raise DramaError("E602", f"the event log {name} is empty",
                         expected="an event log written by `drama run --format json`")
    if events[-1]["type"] != "final":
        raise DramaError("E602", "the event log ends without its 'final' event: was it cut short?",
                         position=Position(name, text.rstrip("\n").count("\n") + 1))
    return events


# the limits of one event of a saved log: how deeply its values nest, and how many
# digits a whole number may have (Python's own limit on converting text to a number)
MAX_EVENT_DEPTH = 32
MAX_INT_DIGITS = sys.get_int_max_str_digits() if hasattr(sys, "get_int_max_str_digits") else 0


def _constant(text: str):
    raise ValueError(text)


# the largest number an event holds (quintessence, totals, counters: all far below), so that
# every sum, ratio and chart coordinate made from them stays a finite float
MAX_EVENT_NUMBER = 10**15
_LARGE = re.compile(r"[0-9]{16}|[0-9.][eE][+-]?[0-9]")

_DECODER = json.JSONDecoder(parse_constant=_constant)                  # NaN and Infinity are not JSON


def _event(line: str, file: str, number: int):
    """Line `number` of a saved log as JSON, within the limits; E602 at the line otherwise."""
    def refuse(message: str, **kwargs) -> DramaError:
        return DramaError("E602", message, position=Position(file, number), **kwargs)
    try:
        event = _DECODER.decode(line)
    except json.JSONDecodeError as error:
        raise DramaError("E602", f"not JSON: {error.msg}", position=Position(file, number, error.colno),
                         expected="one JSON object per line, as `drama run --format json` writes") from None
    except RecursionError:
        raise refuse(f"values nested more than {MAX_EVENT_DEPTH} deep",
                     expected="an event as docs/events.md describes it") from None
    except ValueError as error:          # NaN, Infinity, or a number Python will not convert
        if "digits" in str(error):
            raise refuse(f"a whole number of more than {MAX_INT_DIGITS:,} digits",
                         expected="the numbers of an event log written by `drama run --format json`") from None
        raise refuse(f"not JSON: {' '.join(str(error).split())[:80]}",
                     expected="one JSON object per line, as `drama run --format json` writes") from None
    escaped = "\\u" in line            # only an escape can make a NUL or a lone surrogate
    large = _LARGE.search(line) is not None     # only many digits or an exponent can make a huge number
    if not escaped and not large and line.count("[") + line.count("{") <= MAX_EVENT_DEPTH:
        return event
    stack = [(event, 1)]
    while stack:
        value, depth = stack.pop()
        if depth > MAX_EVENT_DEPTH:
            raise refuse(f"values nested more than {MAX_EVENT_DEPTH} deep",
                         expected="an event as docs/events.md describes it")
        if isinstance(value, dict):
            stack.extend((item, depth + 1) for item in value.values())
            stack.extend((key, depth + 1) for key in value)
        elif isinstance(value, list):
            stack.extend((item, depth + 1) for item in value)
        elif isinstance(value, (int, float)) and large and not isinstance(value, bool) and \
                not (abs(value) <= MAX_EVENT_NUMBER and value == value):
            if isinstance(event, dict) and value is event.get("seed"):
                continue                 # (a seed may be any whole number of 0 or more)
            raise refuse(f"a number of the event is out of range (more than {MAX_EVENT_NUMBER:,} "
                         "in size)", expected="the numbers of an event log written by `drama run --format json`")
        elif isinstance(value, str) and escaped:
            found = bad_character(value)
            if found is not None:
                raise refuse(f"a text of the event holds {found[1]}",
                             expected="text without NUL characters or lone surrogates")
    return event
