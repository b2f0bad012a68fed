"""The writer's own words in other languages: the lines of a scenario (narration,
scene titles, quoted intents, move names, qualifiers, dictates, end texts,
choice labels, the cast's names and words) extracted to a gettext catalogue
(`drama strings`, through Babel), each with a stable id, and a translation
(`locale/LANG.po` beside the scenario) applied to a run for its transcript.

A line's id is its kind and a hash of its words (`narration:1c9e2f0a`), as Yarn
Spinner's line ids: a translation survives any edit elsewhere in the script,
and only a change of the line's own words asks for a new one. See
docs/transcripts.md, "Translating a scenario"."""

from __future__ import annotations

import io
import os
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Iterable, Mapping

from .errors import DramaError, Position

# (the script's nodes are imported where a script is read: rendering a saved
# event log needs this module without the parser)

SOURCE = "en"                  # the language the writer's words are written in
FOLDER = "locale"              # translations live in SCENARIO_FOLDER/locale/LANG.po

# what each kind of line is, for the translator (the .pot's comments)
KINDS = {
    "title": "the scenario's title",
    "scene": "a scene's title (a heading)",
    "narration": "narration: a paragraph of its own; keep the {placeholders}",
    "drama": "the name of a dramatic situation",
    "intent": "a quoted intent: what a party does, a verb phrase after its name (French: an infinitive, "
              "'le faire tomber')",
    "move": "a move's name, told as what a party uses (French: a noun with its article, 'une boule de feu')",
    "clause": "a qualifier, as the script writes it: give the clause that tells it ('sans toucher aux cloches')",
    "dictate": "a dictated outcome: a sentence of its own; keep the {placeholders}",
    "end": "the text that ends a dramatic situation: a sentence of its own; keep the {placeholders}",
    "choice": "the label of a choice",
    "option": "the label of an option of a choice",
    "name": "a party's full name (French: with its article, 'la garde du gué')",
    "short": "a party's name in later mentions",
    "member": "a member of a group, as the transcript names it ('la vieille Sal')",
    "says": "what a party does, after its name (French: the present tense, 'sonne du cor'); keep {target}",
    "hit": "the outcome when the move works; keep {target}",
    "miss": "the outcome when the move fails; keep {target}",
}
# what a warning calls each kind
SAID = {"name": "name", "short": "short name", "member": "member", "end": "end text", "scene": "scene title", "intent": "quoted intent", "clause": "qualifier",
        "dictate": "dictated outcome", "choice": "choice label", "option": "option label",
        "says": "words 'says'", "hit": "words 'hit'", "miss": "words 'miss'"}
# kinds whose words sit inside a sentence of the phrase book: left out when untranslated
# kinds that may stay as written without a warning: names, and a move (told in the book's own verbs)
NAMES = ("name", "short", "member", "drama", "move")
INSIDE = ("intent", "move", "clause", "dictate", "choice", "option", "says", "hit", "miss")


@dataclass(frozen=True)
class Line:
    """One of the writer's lines: its kind, its words and where it is written."""

    kind: str
    text: str
    position: Position | None = None
    note: str = ""
    given: tuple[tuple[str, str], ...] = ()      # the cast's own words in other languages

    @property
    def id(self) -> str:
        return line_id(self.kind, self.text)


def line_id(kind: str, text: str) -> str:
    """`narration:1c9e2f0a`: the kind and a hash of the words, stable across edits elsewhere."""
    import hashlib                 # (a line's id is needed only where catalogues are)
    digest = hashlib.sha1(f"{kind}\n{' '.join(text.split())}".encode("utf-8")).hexdigest()
    return f"{kind}:{digest[:8]}"


# ---------------------------------------------------------------------------
# extraction

def _bodies(statement: n.Statement) -> list[tuple[n.Statement, ...]]:
    from .syntax import nodes as n
    if isinstance(statement, n.IfBlock):
        return [arm.body for arm in statement.arms]
    if isinstance(statement, n.Loop):
        return [statement.body]
    if isinstance(statement, n.ChoiceBlock):
        return [option.body for option in statement.options]
    return []


def paragraphs(body: Iterable[n.Statement]) -> list[list[n.Narration]]:
    """Consecutive `>` lines, one paragraph each (a blank `>` line ends one)."""
    from .syntax import nodes as n
    out: list[list[n.Narration]] = []
    last: n.Statement | None = None
    for s in body:
        if isinstance(s, n.Narration) and s.text.strip():
            if out and isinstance(last, n.Narration) and last.text.strip() and last.pos.file == s.pos.file \
                    and s.pos.line == last.pos.line + 1:
                out[-1].append(s)
            else:
                out.append([s])
        last = s
    return out


def paragraph_text(lines: list[n.Narration]) -> str:
    return " ".join(" ".join(s.text.split()) for s in lines)


def script_lines(statements: Iterable[n.Statement]) -> list[Line]:
    """The writer's lines of a script, in order, those inside blocks included."""
    from .syntax import nodes as n
    out: list[Line] = []
    statements = tuple(statements)
    firsts = {id(p[0]): p for p in paragraphs(statements)}
    for s in statements:
        if id(s) in firsts:
            out.append(Line("narration", paragraph_text(firsts[id(s)]), s.pos))
        elif isinstance(s, n.Scene):
            out.append(Line("scene", s.title, s.pos))
        elif isinstance(s, n.DramaBegin):
            out.append(Line("drama", s.name, s.pos))
        elif isinstance(s, n.Action):
            quoted = s.intent_quoted or " " in s.intent.strip()
            out.append(Line("intent" if quoted else "move", s.intent, s.pos))
            for q in s.qualifiers:
                out.append(Line("clause", qualifier(q.kind, q.text), q.pos))
        elif isinstance(s, n.Dictate) and s.text:
            out.append(Line("dictate", s.text, s.pos))
        elif isinstance(s, n.EndDrama) and s.text:
            out.append(Line("end", s.text, s.pos))
        elif isinstance(s, n.ChoiceBlock):
            out.append(Line("choice", s.label.text, s.label.pos))
            out.extend(Line("option", o.label.text, o.label.pos) for o in s.options)
        for body in _bodies(s):
            out.extend(script_lines(body))
    return out


def qualifier(kind: str, text: str) -> str:
    """A qualifier as the script writes it: `but not tapestries`, `so that ...`."""
    return ("but not " if kind == "not" else "so that ") + " ".join(text.split())


def _source(value) -> str | None:
    """The writer's own words of a cast field: plain text, or the `en` of a table."""
    if isinstance(value, Mapping):
        value = value.get(SOURCE)
    return value if isinstance(value, str) and value.strip() else None


def _given(value) -> tuple[tuple[str, str], ...]:
    return tuple((k, v) for k, v in value.items() if k != SOURCE) if isinstance(value, Mapping) else ()


def cast_lines(sheets) -> list[Line]:
    """The writer's words of a cast: names, short names, moves and their words,
    and its clauses (keyed by the qualifier as the script writes it)."""
    out: list[Line] = []
    for sheet in sheets:
        where = sheet.pos
        note = f"party {sheet.id}"
        out.append(Line("name", sheet.name, where, note, tuple(dict(sheet.names or {}).items())))
        if _source(sheet.short):
            out.append(Line("short", _source(sheet.short), where, note, _given(sheet.short)))
        for member in sheet.members or ():
            out.append(Line("member", member, where, f"{note}, a member"))
        for move in sheet.moves:
            if move != "defend" and " " not in move:
                out.append(Line("move", move, where, note))
        for move, said in sheet.words.items():
            for key in ("says", "hit", "miss"):
                if _source(said.get(key)):
                    out.append(Line(key, _source(said.get(key)), where, f"{note}, move {move}",
                                    _given(said.get(key))))
        for written, clause in sheet.clauses.items():
            if _given(clause):
                out.append(Line("clause", written, where, f"{note}: the cast tells it", _given(clause)))
    return out


def lines_of(program) -> list[Line]:
    """Every line of a compiled program to translate, each id once (first place)."""
    seen: dict[str, Line] = {}
    scenario = program.scenario
    title = Line("title", scenario.title, Position(scenario.path, 1)) if scenario.title else None
    cast = cast_lines(scenario.cast)
    given = {line.id: line.given for line in cast if line.given}
    for line in ([title] if title else []) + script_lines(program.script.statements) + cast:
        if line.text.strip():
            seen.setdefault(line.id, replace(line, given=line.given or given.get(line.id, ())))
    return list(seen.values())


def template(programs, lang: str | None = None) -> bytes:
    """The `.pot` of programs' lines (Babel): msgctxt is the id, msgid the
    words; with `lang`, a `.po` whose lines the cast already gives in the
    language (`names: {fr: ...}`, `says: {en: ..., fr: ...}`) are translated.
    Several programs (the scenarios of one folder) share one catalogue."""
    from babel.messages.catalog import Catalog
    from babel.messages.pofile import write_po
    programs = programs if isinstance(programs, (list, tuple)) else [programs]
    program = programs[0]
    # a fixed date: the file changes only when the words do (same input, same bytes)
    from datetime import datetime, timezone
    fixed = datetime(2000, 1, 1, tzinfo=timezone.utc)
    names = ", ".join(os.path.basename(p.path) for p in programs)
    catalog = Catalog(project=program.scenario.title or "drama scenario", charset="utf-8",
                      creation_date=fixed, revision_date=fixed,
                      header_comment=f"# The writer's words of {names}, to translate "
                                     "(drama strings).\n# Translations go beside the scenario, in "
                                     f"{FOLDER}/LANG.po (docs/transcripts.md).\n#",
                      fuzzy=False)
    root = os.path.dirname(os.path.abspath(program.path))
    lines: dict[str, Line] = {}
    for one in programs:
        for line in lines_of(one):
            lines.setdefault(line.id, line)
    for line in lines.values():
        where = []
        if line.position is not None:
            where = [(os.path.relpath(os.path.abspath(line.position.file), root), line.position.line)]
        comments = [KINDS[line.kind]] + ([line.note] if line.note else [])
        catalog.add(line.text, dict(line.given).get(lang) if lang else None, locations=where,
                    auto_comments=comments, context=line.id)
    buffer = io.BytesIO()
    write_po(buffer, catalog, width=100)
    return buffer.getvalue()


# ---------------------------------------------------------------------------
# translations

def catalogue_path(scenario_path: str | os.PathLike, lang: str) -> Path:
    return Path(os.path.dirname(os.fspath(scenario_path))) / FOLDER / f"{lang}.po"   # (as the user named the scenario)


def languages(scenario_path: str | os.PathLike) -> list[str]:
    """The languages the scenario has catalogues for."""
    folder = Path(os.path.dirname(os.path.abspath(scenario_path))) / FOLDER
    return sorted(p.stem for p in folder.glob("*.po")) if folder.is_dir() else []


# a line of a .po file that is not blank or a comment: a keyword and a quoted text, or a
# quoted text that goes on the one before; the quote closed on the line
_PO_LINE = re.compile(r'^\s*(?:msg(?:id|id_plural|str|ctxt)(?:\[\d+\])?\s+)?"(?:[^"\\]|\\.)*"\s*$')


def _quoted_whole(text: str, path: str) -> None:
    """E127 at the first line whose quote is not closed, or that is not a .po line at
    all: Babel's reader takes such a line as it can (dropping the last character of
    `msgstr "La salle du trône`) without a word."""
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#") or _PO_LINE.match(line):
            continue
        raise DramaError("E127", f"line {number} of the catalogue is not a keyword and a quoted text, "
                                 "its quote closed on the line", position=Position(path, number, 1),
                         expected='msgid "...", msgstr "...", msgctxt "..." or a "..." that goes on the line before',
                         hint="drama strings SCENARIO --lang LANG writes a catalogue that is")


def read(path: str | os.PathLike) -> dict[str, str]:
    """A `.po` file's translations by line id (fuzzy and empty ones are missing).
    Raises DramaError E127 for a file Babel cannot read."""
    try:
        with open(path, "rb") as handle:
            raw = handle.read()
    except OSError as error:
        raise _unreadable(path, error) from None
    # the translations read are kept for these very bytes (dsl/user_cache.py): Babel's
    # reading of a catalogue, with its imports, was a tenth of a `drama check` (issue 28)
    from . import user_cache
    return user_cache.kept("catalogue", raw, lambda: _translations(path, raw))


def _translations(path: str | os.PathLike, raw: bytes) -> dict[str, str]:
    """The translations of a catalogue's bytes, read by Babel. Raises DramaError E127."""
    from babel.messages.pofile import PoFileError, read_po
    try:
        _quoted_whole(raw.decode("utf-8"), str(path))
        catalog = read_po(io.BytesIO(raw), abort_invalid=True)
    except (PoFileError, UnicodeError, ValueError) as error:
        raise _unreadable(path, error) from None
    out = {}
    for message in catalog:
        if message.id and message.context and message.string and not message.fuzzy:
            out[message.context] = message.string if isinstance(message.string, str) else message.string[0]
    return out


def _unreadable(path: str | os.PathLike, error: Exception) -> DramaError:
    line = getattr(error, "lineno", None)
    return DramaError("E127", f"the catalogue cannot be read: {error}", position=Position(str(path), line or 1),
                      expected="a gettext .po file, as `drama strings` writes and tools such as Poedit edit")


@dataclass
class Translation:
    """A language's translations for one program, and the lines it lacked."""

    lang: str
    strings: dict[str, str]
    lines: dict[str, Line]
    found: bool                    # whether the scenario has a catalogue for the language
    missing: dict[str, Line]
    # the cast's names that the language tells otherwise when left as written, by line id
    # (French: `the night watch` is `le Night Watch`, render/grammar.told_name)
    foreign: dict[str, str] = field(default_factory=dict)
    # translations whose verb cannot stand in their place (`pour revient sur ses pas`), by line id:
    # (the line, the translation, the verb, whether the cast gives it); they are told as if missing
    misfits: dict[str, tuple[Line, str, str, bool]] = field(default_factory=dict)

    def get(self, kind: str, text: str | None) -> str | None:
        if not text or not text.strip():
            return None
        key = line_id(kind, text)
        value = self.strings.get(key)
        if value is None:
            self.missing.setdefault(key, self.lines.get(key) or Line(kind, text))
        elif (verb := misfit(self.lang, kind, value)) is not None:
            self.misfits.setdefault(key, (self.lines.get(key) or Line(kind, text), value, verb, False))
            return None
        return value

    def given(self, kind: str, text: str | None, value: str) -> str | None:
        """The cast's own words in the language (`says: {fr: ...}`), or None when their
        verb cannot stand in their place (told as if missing)."""
        verb = misfit(self.lang, kind, value)
        if verb is None:
            return value
        key = line_id(kind, text or "")
        self.misfits.setdefault(key, (self.lines.get(key) or Line(kind, text or ""), value, verb, True))
        return None


# the form a kind's verb takes in its place, per language: a quoted intent is told after
# `pour` (an infinitive), a move's `says` after the party's name (the present tense)
VERB_FORMS = {"fr": {"intent": "infinitive", "says": "finite"}}
FORM_SAID = {"infinitive": "an infinitive", "finite": "a conjugated verb"}
FORM_EXAMPLE = {"infinitive": "'revenir sur ses pas'", "finite": "'revient sur ses pas'"}


def misfit(lang: str, kind: str, text: str) -> str | None:
    """The verb a translation begins with, when its form cannot stand where the
    transcript puts it (French: an intent `revient sur ses pas`, told after `pour`);
    else None."""
    wanted = VERB_FORMS.get(lang.split("-")[0].split("_")[0], {}).get(kind)
    if wanted is None:
        return None
    from .render.verbs import verb_form
    form = verb_form(text)
    return form[1] if form is not None and form[0] != wanted else None


def _po_line(path: Path, key: str) -> int:
    """The line of a catalogue where a line id's translation is (its `msgstr`; 1 when
    it cannot be found)."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeError):
        return 1
    wanted = f'msgctxt "{key}"'
    found = 0
    for number, line in enumerate(lines, start=1):
        if line.strip() == wanted:
            found = number
        elif found and line.lstrip().startswith("msgstr"):
            return number
    return found or 1


def needs(book) -> bool:
    """Whether a phrase book's transcript needs the writer's words translated."""
    return book.language != SOURCE and not book.english_verbs


def load(program, lang: str) -> Translation:
    path = catalogue_path(program.path, lang)
    strings = read(path) if path.is_file() else {}
    return Translation(lang, strings, {line.id: line for line in lines_of(program)}, path.is_file(), {},
                       _foreign(program, lang))


def _foreign(program, lang: str) -> dict[str, str]:
    """The cast's names, short names and members that the language would tell
    otherwise than as written, if left untranslated (`le Night Watch`)."""
    from .render.grammar import told_name
    out = {}
    for sheet in program.scenario.cast:
        if (sheet.names or {}).get(lang):
            named = []
        else:
            named = [("name", sheet.name, sheet)]
        short = sheet.short
        if _source(short) and not (isinstance(short, Mapping) and short.get(lang)):
            named.append(("short", _source(short), sheet))
        named.extend(("member", member, None) for member in sheet.members or ())
        for kind, text, whose in named:
            party = {"grammar": whose.grammar, "pronouns": whose.pronouns} if whose is not None else {}
            told = told_name(text, party, lang)
            if told != text:
                out[line_id(kind, text)] = told
    return out


def translate_program(program, t: Translation):
    """The program with its texts in the language (those with placeholders are
    filled by the run): narration, scene titles, dictates, end texts, and the
    cast's names. Untranslated narration, titles and end texts stay as written,
    paragraphs of their own; an untranslated dictate is left out."""
    from .syntax import nodes as n
    scenario = program.scenario
    cast = []
    for sheet in scenario.cast:
        name = (sheet.names or {}).get(t.lang) or t.get("name", sheet.name)
        if name is None:
            cast.append(sheet)
            continue
        cast.append(replace(sheet, name=name, names={**dict(sheet.names or {}), t.lang: name}))
    title = t.get("title", scenario.title) or scenario.title
    scenario = replace(scenario, cast=tuple(cast), title=title)
    shared = _translate(program.script.shared, t)
    script = n.Script(program.script.file, shared, program.script.shifts)
    return type(program)(scenario, script, program.sources)       # (a pipeline.Program)


def _split(text: str, parts: int) -> list[str]:
    """A paragraph in `parts` pieces at spaces (the lines of one `>` paragraph)."""
    words = text.split()
    if parts <= 1 or len(words) < parts:
        return [text] + [""] * (parts - 1)
    size = len(words) / parts
    return [" ".join(words[round(i * size):round((i + 1) * size)]) for i in range(parts)]


def _translate(statements: tuple, t: Translation) -> tuple:
    from .syntax import nodes as n
    pieces: dict[int, str] = {}
    for paragraph in paragraphs(statements):
        said = t.get("narration", paragraph_text(paragraph))
        if said is not None:
            for s, piece in zip(paragraph, _split(" ".join(said.split()), len(paragraph))):
                pieces[id(s)] = piece
    out = []
    for s in statements:
        if id(s) in pieces:
            s = replace(s, text=pieces[id(s)])
        elif isinstance(s, n.Scene):
            s = replace(s, title=t.get("scene", s.title) or s.title)
        elif isinstance(s, n.Dictate) and s.text:
            s = replace(s, text=t.get("dictate", s.text) or "")
        elif isinstance(s, n.EndDrama) and s.text:
            s = replace(s, text=t.get("end", s.text) or s.text)
        elif isinstance(s, n.IfBlock):
            s = replace(s, arms=tuple(replace(a, body=_translate(a.body, t)) for a in s.arms))
        elif isinstance(s, n.Loop):
            s = replace(s, body=_translate(s.body, t))
        elif isinstance(s, n.ChoiceBlock):
            s = replace(s, options=tuple(replace(o, body=_translate(o.body, t)) for o in s.options))
        out.append(s)
    return tuple(out)


def translate_events(events: list[dict], t: Translation) -> list[dict]:
    """The events of a run, for a transcript in the language: intents, move
    names, qualifiers, choice labels and the cast's words translated; what has
    no translation is left out of the sentence, never told in English inside it."""
    from .render.grammar import with_names
    out = []
    names: list[str] = []
    joins: list[tuple[str, str]] = []
    for event in events:
        kind = event.get("type")
        event = dict(event)
        if kind in ("narration", "drama_end", "option", "scene") and names:
            for key in ("text", "title"):
                if isinstance(event.get(key), str):
                    for written, said in joins:      # `{wolves.members}`, filled by the run in English
                        event[key] = event[key].replace(written, said)
                    event[key] = with_names(t.lang, event[key], names)
        if kind == "start":
            joins = _member_lists(event.get("cast") or {}, t)
            event["cast"] = {pid: _sheet(pid, dict(sheet), t) for pid, sheet in (event.get("cast") or {}).items()}
            event["told_in"] = t.lang          # translated once: render() does not do it again
            for sheet in event["cast"].values():
                names.append((sheet.get("names") or {}).get(t.lang) or sheet.get("name"))
                names.extend(sheet.get("members") or ())
        elif kind in ("action", "exchange") and event.get("intent"):
            intent = event["intent"]
            quoted = event.get("intent_quoted") or " " in intent.strip()
            said = t.get("intent" if quoted else "move", intent)
            start = out[0] if out and out[0].get("type") == "start" else {}
            sheet = (start.get("cast") or {}).get(event.get("attacker")) or {}
            words = sheet.get("words") or {}
            if said is not None and intent in words:
                words[said] = words[intent]          # the move's words, under its name in the language
            # a move told by its own words needs no name; one without is told without it
            event["intent"] = said if said is not None else intent if (words.get(intent) or {}).get("says") else ""
            # what the words are in the language: a verb phrase, or a move's name (a noun)
            event["intent_quoted"] = bool(quoted)
            event["intent_move"] = not quoted
            if kind == "action":
                event["qualifiers"] = [q for q in event.get("qualifiers") or ()
                                       if _clause(event, q, t, out)]
        elif kind == "member_lost" and event.get("member"):
            event["member"] = t.get("member", event["member"]) or _as_name(event["member"])
        elif kind == "choice":
            choice, taken = t.get("choice", event.get("choice")), t.get("option", event.get("taken"))
            if choice is None or taken is None:
                # a choice told without its words says nothing; its place is kept, so that
                # every later event keeps its step (the story model's facts name them)
                event = {"type": "untold", "line": event.get("line"), "file": event.get("file")}
            event.update(choice=choice, taken=taken)
        elif kind == "drama" and event.get("drama"):
            event["drama"] = t.get("drama", event["drama"]) or event["drama"]
        elif kind in ("initiative", "round", "drama_end", "hold", "skipped") and event.get("drama"):
            event["drama"] = t.strings.get(line_id("drama", event["drama"]), event["drama"])
        out.append(event)
    return out


def _member_lists(cast: Mapping, t: Translation) -> list[tuple[str, str]]:
    """Each group's members as the run writes them in a text (`A, B and C`, as
    dsl/interpreter/texts.py does) and as the language lists them, translated."""
    from babel.lists import format_list
    out = []
    for sheet in cast.values():
        members = list(sheet.get("members") or ())
        if len(members) < 2:
            continue
        written = ", ".join(members[:-1]) + " and " + members[-1]
        said = [t.get("member", m) or m for m in members]
        try:
            out.append((written, format_list(said, locale=t.lang)))
        except (ValueError, LookupError):
            continue
    return sorted(out, key=lambda pair: -len(pair[0]))


def _clause(action: dict, q: dict, t: Translation, done: list[dict]) -> bool:
    """Whether a qualifier can be told: the cast's clause in the language, or the catalogue's."""
    written = qualifier(q.get("kind", ""), q.get("text", ""))
    start = done[0] if done and done[0].get("type") == "start" else {}
    for pid in action.get("actors") or [action.get("attacker")]:
        clause = ((start.get("cast") or {}).get(pid) or {}).get("clauses", {}).get(written)
        if isinstance(clause, Mapping) and clause.get(t.lang):
            return True
    said = t.get("clause", written)
    if said is None:
        return False
    for pid in action.get("actors") or [action.get("attacker")]:
        sheet = (start.get("cast") or {}).get(pid)
        if sheet is not None:
            clauses = dict(sheet.get("clauses") or {})
            clauses[written] = {t.lang: said}
            sheet["clauses"] = clauses
    return True


def _sheet(pid: str, sheet: dict, t: Translation) -> dict:
    names = dict(sheet.get("names") or {})
    if t.lang not in names:
        name = t.get("name", sheet.get("name"))
        if name:
            names[t.lang] = name
    sheet["names"] = names
    if sheet.get("members"):
        # a member left in English is a name: `young Fen` is `Young Fen` (`the Weaver`: render/grammar.told_name)
        sheet["members"] = [t.get("member", m) or _as_name(m) for m in sheet["members"]]
    short = sheet.get("short")
    if short is not None and not (isinstance(short, Mapping) and short.get(t.lang)):
        said = t.get("short", _source(short))
        if said:
            sheet["short"] = {t.lang: said}
        elif names.get(t.lang) and not str(_source(short) or "")[:1].isupper():
            sheet.pop("short")           # `the crew`: the name in the language instead; `Marrow` stays
    words = {}
    for move, said in (sheet.get("words") or {}).items():
        kept = {}
        for key, value in said.items():
            if isinstance(value, Mapping) and value.get(t.lang):
                if t.given(key, _source(value), value[t.lang]) is not None:
                    kept[key] = value
            else:
                text = t.get(key, _source(value))
                if text:
                    kept[key] = {t.lang: text}
        if kept:
            words[move] = kept
    sheet["words"] = words
    return sheet


def _as_name(member: str) -> str:
    if member[:1].islower() and not member.lower().startswith("the "):
        return member[:1].upper() + member[1:]
    return member


def _misfit_warnings(t: Translation, path: Path, shown: str) -> list[DramaError]:
    """W041 for each translation whose verb cannot stand in its place."""
    out = []
    for key, (line, said, verb, in_cast) in t.misfits.items():
        wanted = VERB_FORMS[t.lang.split("-")[0].split("_")[0]][line.kind]
        other = "finite" if wanted == "infinitive" else "infinitive"
        where = line.position if in_cast else Position(shown, _po_line(path, key))
        out.append(DramaError("W041", f"the '{t.lang}' translation of the {SAID.get(line.kind, line.kind)} "
                              f"{_quote(line.text)} begins with {FORM_SAID[other]} ({_quote(verb)}, in "
                              f"{_quote(said)}), where the transcript needs {FORM_SAID[wanted]}: it is left out "
                              "of the transcript", position=where,
                              expected=f"{FORM_SAID[wanted]}, as {FORM_EXAMPLE[wanted]} "
                                       f"(not {FORM_EXAMPLE[other]})",
                              hint=f"{KINDS[line.kind]}"))
    return out


def warnings(t: Translation, scenario_path: str) -> list[DramaError]:
    """W041 for each line the transcript needed and had no translation for."""
    path = catalogue_path(scenario_path, t.lang)
    shown = os.path.relpath(path)
    foreign = [line for line in t.missing.values() if line.kind in NAMES and line.id in t.foreign]
    misfits = _misfit_warnings(t, path, shown)
    if not t.found:
        count = sum(line.kind not in NAMES for line in t.missing.values())
        if not count and not foreign:
            return misfits
        lines = "1 of the writer's lines is" if count == 1 else f"{count} of the writer's lines are"
        said = f"{lines} told without their words, or as written" if count else ""
        if foreign:
            first = foreign[0]
            names = "1 name" if len(foreign) == 1 else f"{len(foreign)} names"
            said += (", and " if said else "") + (f"{names} in English told as foreign names "
                                                 f"({_quote(first.text)}: {_quote(t.foreign[first.id])})")
        return misfits + [DramaError("W041", f"there is no catalogue {shown} for '{t.lang}': {said}",
                                     position=Position(scenario_path, 1),
                                     hint=f"write one: drama strings {scenario_path} --lang {t.lang}")]
    out = misfits
    for line in t.missing.values():
        if line.kind in NAMES and line.id in t.foreign:
            # `à the night watch` is no French: told as a foreign name, `au Night Watch`
            out.append(DramaError("W041", f"no '{t.lang}' translation of the {SAID.get(line.kind, line.kind)} "
                                  f"{_quote(line.text)} in {shown}: English words with an article (or an apposition) "
                                  f"are no French, so it is told as a foreign name, {_quote(t.foreign[line.id])}", position=line.position,
                                  hint=f"add it to {shown} (msgctxt \"{line.id}\"), or give `names: "
                                       f"{{{t.lang}: ...}}` in the cast"))
            continue
        if line.kind in NAMES:
            continue      # a name may stay as written; a move without one is told in the book's own verbs
        what = "told as written" if line.kind not in INSIDE else "left out of the transcript"
        out.append(DramaError("W041", f"no '{t.lang}' translation of the {SAID.get(line.kind, line.kind)} "
                              f"{_quote(line.text)} "
                              f"in {shown}: it is {what}", position=line.position,
                              hint=f"add it to {shown} (msgctxt \"{line.id}\"): drama strings {scenario_path} "
                                   f"--lang {t.lang}"))
    return out


def _quote(text: str) -> str:
    text = " ".join(text.split())
    return repr(text if len(text) <= 60 else text[:57] + "...")


# ---------------------------------------------------------------------------
# drama check --lang

def check_languages(program, langs: Iterable[str]) -> list[DramaError]:
    """The warnings of `drama check` for the languages asked for, and those the
    scenario has catalogues for, of a compiled program (`pipeline.check` gives
    the one it checked): a person without a gender (W040), and each line
    without a translation (W041)."""
    from .render.grammar import ungendered
    wanted = list(dict.fromkeys([*langs, *languages(program.path)]))
    if not wanted:
        return []
    out: list[DramaError] = []
    for lang in wanted:
        parties = [{"id": s.id, "name": (s.names or {}).get(lang) or s.name, "members": s.members,
                    "pronouns": s.pronouns, "grammar": s.grammar} for s in program.scenario.cast]
        by_id = {s.id: s for s in program.scenario.cast}
        for party in ungendered(parties, lang):
            out.append(DramaError("W040", f"'{party['id']}' has no grammatical gender in '{lang}': its words "
                                  "will agree as masculine where a phrase must agree",
                                  position=by_id[party["id"]].pos,
                                  expected=f"`grammar: {{{lang}: feminine}}` (or masculine), or she/her or "
                                           "he/him pronouns",
                                  hint="a name's article gives it for a group (`la garde`); a person needs "
                                       "the cast to say"))
        if lang != SOURCE:
            try:
                t = load(program, lang)
            except DramaError as error:         # a catalogue that cannot be read (E127)
                out.append(error)
                continue
            for line in t.lines.values():
                t.get(line.kind, line.text)
                for given_lang, value in line.given:
                    if given_lang == lang and isinstance(value, str):
                        t.given(line.kind, line.text, value)
            out.extend(warnings(t, program.path))
    return out
