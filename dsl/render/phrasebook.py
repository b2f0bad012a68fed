"""Phrase books: the wording of a transcript in one language, read from a data file
(`phrases/en.yaml`, `phrases/fr.yaml`, or the user's own), with Babel's plural
rules and list patterns for the language's agreement (see docs/templates.md)."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping

from ..errors import DramaError, Position, did_you_mean, one_of

PHRASES = Path(__file__).resolve().parent / "phrases"

# the outcomes a phrase book may word, each with the roles its phrases may name
# (besides the words every phrase may use: see docs/templates.md)
OUTCOMES: dict[str, tuple[str, ...]] = {
    "begin": ("all", "name"), "first": ("first", "rest"), "round": (),
    "held": ("P",), "hold": ("P",), "roles": ("Q", "P"), "members": ("P", "M"), "act_verb": ("A", "T", "V"), "act_verb_named": ("A", "V"), "act_label": ("A", "T", "I"),
    "act_gm_verb": ("A", "V"), "act_gm_label": ("A", "I"), "act_plain": ("A", "T"), "act_gm_plain": ("A",), "act_says": ("A", "S"), "defend_says": ("D", "S"),
    "so_that": ("text",), "but_not": ("text",), "clause": ("text",),
    "win": ("A", "D", "W", "L"), "double_win": ("A", "D", "W", "L"),
    "lose": ("A", "D", "W", "L"), "double_lose": ("A", "D", "W", "L"),
    "tie": ("A", "D", "W", "L"), "double_mark": ("A", "D", "W", "L"), "double_lose_mark": ("A", "D", "W", "L"),
    "cost": ("P",), "gm_win": ("A",), "gm_double_win": ("A",), "gm_lose": ("A",),
    "gm_tie": ("A",), "hit": ("S",), "miss": ("S",),
    "spent_out": ("P",), "defeat": ("P",), "dictate": ("P",), "reroll": ("P",), "reroll_none": ("P",),
    "reroll_unhurt": ("P",), "recovery_unhurt": ("P", "H"),
    "recovery": ("P", "H"), "rushed_recovery": ("P", "H"), "recovery_none": ("P", "H"),
    "member_lost": ("P", "M"), "choice": ("P", "where", "option"),
    "choice_to": ("P", "where", "option"), "calm": ("D",), "rest": ("D",), "restored": ("P",),
    "end": ("name",), "recap_standing": ("P",), "recap_fallen": ("P",), "recap_came_back": ("P",),
    "recap": (), "summary": ("all", "N"), "summary_worst": ("P",), "summary_lead": ("W", "L", "N"),
}
# the facts a phrase's `when` may test
FACTS = ("kind", "settled", "double", "returned", "helped", "first", "alone", "role", "won", "used", "question")

# `{A}`, `{A:full}`, `{A:obj}`, `{A:poss}`, `{A|wins|win}`, `{A|one:gagne|other:gagnent}`
_SLOT = re.compile(r"\{(\w+)(?::(\w+))?((?:\|[^|{}]*)*)\}")


@dataclass(frozen=True)
class Phrase:
    """One entry of an outcome: the facts it needs (`when`) and its wordings."""

    when: Mapping[str, tuple]
    say: tuple[str, ...]


@dataclass
class PhraseBook:
    """A language: its Babel locale, pronouns, words and phrases by outcome."""

    language: str
    name: str
    locale: Any                                   # a babel.Locale
    pronouns: dict[str, tuple[str, str, str]]     # the cast's subject pronoun -> subject, object, possessive
    genders: dict[str, str]                       # the cast's subject pronoun -> grammatical gender
    words: dict[str, str]
    phrases: dict[str, tuple[Phrase, ...]]
    english_verbs: bool = False                   # inflect the writer's verb phrases for number
    written_durations: bool = False               # durations as the script wrote them, not Babel's
    path: str = ""
    _list: Callable | None = field(default=None, repr=False)

    def plural(self, count: int) -> str:
        """The CLDR plural category of a count in this language (Babel)."""
        return self.locale.plural_form(count)

    def join(self, items: list[str]) -> str:
        """A flat list in this language's pattern (Babel): `a, b and c`, `a, b et c`;
        with semicolons when three or more items and one holds a comma (a list
        line: the running text names parties without their appositions)."""
        from babel.lists import format_list
        items = [str(x) for x in items]
        if len(items) <= 1:
            return "".join(items)
        if (len(items) > 2 and any("," in item for item in items)) or (len(items) == 2 and "," in items[1]
                                                                         and "," in items[0]):
            # a name that holds a comma (`Ilse Varga, harbour advocate`): semicolons
            between = self.words.get("list_semicolon", "; ")
            last = self.words.get("list_semicolon_last", "; and ")
            if ";" not in last and "," in items[-2]:
                # French has no `; et`: `A ; Nessa, la maîtresse des chiens, et Tobin`, the
                # apposition closed by a comma where the last name joins it
                items = items[:-2] + [items[-2] + ","] + items[-1:]
            return between.join(items[:-1]) + last + items[-1]
        if len(items) == 2 and "," in items[0] and "," not in items[1]:
            # `the reeve's riders and Marta Quell, the reeve's bailiff`: the name with an
            # apposition last, where its comma cannot read as the list's (a list line's
            # order is no fact of the story)
            items = [items[1], items[0]]
        joined = format_list(items, locale=self.locale)
        if len(items) == 2 and "," in items[0] and joined.startswith(items[0] + " "):
            # a name with an apposition is closed by a comma: `Harrow, chef des pillards, et les pillards`
            joined = items[0] + "," + joined[len(items[0]):]
        return joined

    def word(self, key: str) -> str:
        return self.words.get(key, key)


def available() -> list[str]:
    """The languages shipped with drama."""
    return sorted(p.stem for p in PHRASES.glob("*.yaml"))


def load(lang: str | os.PathLike | None) -> PhraseBook:
    """A built-in language (`en`, `fr`) or a phrase file of the user's (a path
    ending in .yaml). Raises DramaError: E123 for an unknown language, E124 for a
    file that is not a phrase book, E125 for a phrase that names what it cannot."""
    lang = "en" if lang is None else lang
    text = str(lang)
    if text.endswith((".yaml", ".yml")) or os.sep in text or "/" in text:
        path = Path(text)
        if not path.is_file():
            raise DramaError("E123", f"cannot find the phrase book {text}",
                             expected="a language such as " + one_of(available()) + ", or a phrase file (.yaml)")
    else:
        path = PHRASES / f"{text}.yaml"
        if not path.is_file():
            raise DramaError("E123", f"there is no language '{text}'", expected=one_of(available()),
                             hint=did_you_mean(text, available())
                             or "add a language with a phrase file: see docs/templates.md")
    return _cached(str(path.resolve()), path.stat().st_mtime_ns, str(path))


_CACHE: dict[tuple[str, int], PhraseBook] = {}


def _cached(resolved: str, mtime: int, path: str) -> PhraseBook:
    """The book at `resolved`, read once per version; its errors name it as `path`, as the user gave it."""
    key = (resolved, mtime)
    if key not in _CACHE:
        _CACHE[key] = _read(path)
    return _CACHE[key]


def _yaml(path: str, raw: str):
    """The data of a phrase book's YAML text. Raises DramaError (E124) for text that is not YAML."""
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError
    try:
        return YAML(typ="safe", pure=True).load(raw)
    except YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        raise DramaError("E124", f"the phrase book is not YAML: {getattr(error, 'problem', error)}",
                         position=Position(path, mark.line + 1, mark.column + 1) if mark else Position(path, 1))


def _bundled_data(path: str, raw: str):
    """The data of a bundled phrase book: ruamel.yaml's pure-Python reading of the
    YAML takes about as long as the rest of a `drama run` of a short scenario, so
    the data read is kept in the user's cache folder (dsl/user_cache.py) with the
    text it was read from, and used while the book's text is that (issue 28)."""
    from .. import user_cache
    return user_cache.kept(f"phrases-{Path(path).stem}", raw, lambda: _yaml(path, raw))


def _read(path: str) -> PhraseBook:
    try:
        raw = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeError) as error:
        raise DramaError("E124", f"cannot read the phrase book {path}: {error}") from None
    bundled = Path(path).resolve().parent == PHRASES
    data = _bundled_data(path, raw) if bundled else _yaml(path, raw)
    def bad(message: str, key: str | None = None, **kwargs) -> DramaError:
        return DramaError("E124", message, position=Position(path, _line_of(raw, key)), **kwargs)
    if not isinstance(data, dict):
        raise bad("a phrase book is a mapping with 'language', 'locale', 'pronouns' and 'phrases'")
    for key in ("language", "locale", "phrases"):
        if key not in data:
            raise bad(f"the phrase book needs '{key}'", expected="see docs/templates.md, 'Adding a language'")
    from babel import Locale, UnknownLocaleError
    try:
        locale = Locale.parse(str(data["locale"]))
    except (UnknownLocaleError, ValueError, TypeError):
        raise bad(f"Babel knows no locale {data['locale']!r}", "locale",
                  expected="a locale such as en_GB, fr_FR, de_DE") from None
    pronouns: dict[str, tuple[str, str, str]] = {}
    genders: dict[str, str] = {}
    for subject, forms in (data.get("pronouns") or {}).items():
        if isinstance(forms, dict):
            genders[str(subject)] = str(forms.get("gender", ""))
            forms = forms.get("forms")
        if not (isinstance(forms, list) and len(forms) == 3 and all(isinstance(x, str) for x in forms)):
            raise bad(f"the pronoun '{subject}' needs its three forms: subject, object, possessive",
                      str(subject), expected=f"{subject}: [{subject}, ..., ...]")
        pronouns[str(subject)] = tuple(forms)
    words = {str(k): str(v) for k, v in (data.get("words") or {}).items()}
    table = data["phrases"]
    if not isinstance(table, dict):
        raise bad("'phrases' maps each outcome to its phrases", "phrases")
    phrases: dict[str, tuple[Phrase, ...]] = {}
    for outcome, entries in table.items():
        if outcome not in OUTCOMES:
            raise bad(f"no outcome '{outcome}' to word", str(outcome), expected=one_of(OUTCOMES),
                      hint=did_you_mean(str(outcome), OUTCOMES))
        if isinstance(entries, (str, list)) and not (isinstance(entries, list) and entries
                                                      and isinstance(entries[0], dict)):
            entries = [{"say": entries}]
        out = []
        for entry in entries or []:
            if not isinstance(entry, dict) or "say" not in entry:
                raise bad(f"each phrase of '{outcome}' is a mapping with 'say' (and 'when')", str(outcome))
            say = entry["say"]
            say = [say] if isinstance(say, str) else say
            when = {}
            for fact, value in (entry.get("when") or {}).items():
                if fact not in FACTS:
                    raise bad(f"a phrase of '{outcome}' tests '{fact}', which is not a fact",
                              str(outcome), expected=one_of(FACTS), hint=did_you_mean(str(fact), FACTS))
                when[fact] = tuple(value) if isinstance(value, list) else (value,)
            for text in say:
                _check(text, outcome, path, raw)
            out.append(Phrase(when, tuple(str(x) for x in say)))
        phrases[outcome] = tuple(out)
    missing = [o for o in OUTCOMES if o not in phrases]
    if missing and data.get("language") != "en":
        # a language may leave outcomes out: they fall back to English
        english = load("en")
        for outcome in missing:
            phrases[outcome] = english.phrases[outcome]
    elif missing:
        raise bad(f"the phrase book has no phrases for {', '.join(missing)}", "phrases")
    return PhraseBook(language=str(data["language"]), name=str(data.get("name", data["language"])),
                      locale=locale, pronouns=pronouns, genders=genders, words=words, phrases=phrases,
                      english_verbs=bool(data.get("english_verbs", False)),
                      written_durations=bool(data.get("written_durations", False)), path=path)


def _line_of(raw: str, key: str | None) -> int:
    if key is None:
        return 1
    for number, line in enumerate(raw.splitlines(), start=1):
        if line.strip().startswith(f"{key}:"):
            return number
    return 1


def _where(raw: str, written: str) -> tuple[int, int]:
    """The line and column where `written` first appears in the book (1, 1 when it is not found as is)."""
    for number, line in enumerate(raw.splitlines(), start=1):
        column = line.find(written)
        if column >= 0:
            return number, column + 1
    return 1, 1


def _check(text: Any, outcome: str, path: str, raw: str) -> None:
    """A phrase names only its outcome's roles and the book's words (E125)."""
    if not isinstance(text, str):
        raise DramaError("E124", f"a phrase of '{outcome}' must be text, not {text!r}",
                         position=Position(path, _line_of(raw, outcome)))
    allowed = OUTCOMES[outcome]
    for match in _SLOT.finditer(text):
        name = match.group(1)
        if name not in allowed:
            raise DramaError("E125", f"the phrase {text!r} of '{outcome}' names {{{name}}}, which '{outcome}' "
                                     "does not have", position=Position(path, *_where(raw, match.group(0))),
                             expected=("one of " + ", ".join("{" + a + "}" for a in allowed)) if allowed
                             else "no placeholders", hint=did_you_mean(name, allowed))
    rest = _SLOT.sub("", text)
    if "{" in rest or "}" in rest:
        raise DramaError("E125", f"the phrase {text!r} of '{outcome}' has a brace that is no placeholder",
                         position=Position(path, *_where(raw, text[:20])),
                         expected="{ROLE}, {ROLE:full}, {ROLE|form|form}: see docs/templates.md")


def slots(text: str):
    """The placeholders of a phrase: (match, role, mode, forms)."""
    for match in _SLOT.finditer(text):
        forms = [f for f in match.group(3).split("|")[1:]] if match.group(3) else []
        yield match, match.group(1), match.group(2), forms


def choose_form(book: PhraseBook, forms: list[str], category: str, gender: str) -> str:
    """The form of a word that agrees with a subject: keyed forms (`one:gagne`,
    `other.f:parties`, `f:vaincue`) or positional ones (for `one`, then `other`)."""
    keyed = {}
    plain = []
    for form in forms:
        key, sep, value = form.partition(":")
        if sep and re.fullmatch(r"[a-z]+(\.[a-z]+)?", key):
            keyed[key] = value
        else:
            plain.append(form)
    for key in (f"{category}.{gender}", category, gender, f"other.{gender}", "other"):
        if key in keyed:
            return keyed[key]
    if plain:
        if category == "one" or len(plain) == 1:
            return plain[0]
        return plain[1] if len(plain) > 1 else plain[0]
    return next(iter(keyed.values()), "")
