"""The narrator of a transcript: each entry of the context told in sentences, from
a phrase book (phrasebook.py), naming people as a writer would (full name first,
then the short name or a pronoun, never the same subject twice in a row), with
verbs agreeing with their subjects, and no phrase repeated within a scene."""

from __future__ import annotations

import re
import zlib
from dataclasses import dataclass
from typing import Any, Iterable

from .filters import bare
from .grammar import GENDERED, Form, list_form, party_form
from .grammar import join as join_words
from .phrasebook import PhraseBook, choose_form, slots

VOWELS = "aeiouAEIOU"


def stable_hash(text: str) -> int:
    return zlib.crc32(text.encode("utf-8"))


@dataclass(frozen=True)
class Ref:
    """Parties named in a sentence: one id, a joint side or a list of them."""

    ids: tuple[str, ...]


@dataclass(frozen=True)
class Words:
    """The writer's words, with `{target}` standing for a role (filled like a phrase)."""

    text: str
    agree: str | None = None     # the role whose mention its first verb agrees with (English)


def ids_of(side: Any) -> tuple[str, ...]:
    """A party id, a side (`Kara & Bren`) or a list of either, flattened once."""
    if side is None:
        return ()
    items = [side] if isinstance(side, str) else list(side)
    out: list[str] = []
    for item in items:
        for pid in str(item).split(" & "):
            pid = pid.strip()
            if pid and pid not in out:
                out.append(pid)
    return tuple(out)


# ---------------------------------------------------------------------------
# English verbs: the writer's verb phrases agree with their subject

def english_bare(phrase: str) -> str:
    """`leaps the chasm` -> `leap the chasm`: the first word in the base form."""
    first, space, rest = phrase.partition(" ")
    irregular = {"is": "be", "has": "have", "does": "do", "goes": "go"}
    if first.lower() in irregular:
        return irregular[first.lower()] + space + rest
    return bare(phrase)


def english_plural(phrase: str) -> str:
    """`is engulfed` -> `are engulfed`, `leaps` -> `leap`: a verb agreeing with a plural subject."""
    words = phrase.split(" ", 1)
    forms = {"is": "are", "has": "have", "was": "were", "does": "do"}
    if words[0].lower() in forms:
        return " ".join([forms[words[0].lower()]] + words[1:])
    return english_bare(phrase)


def english_third(phrase: str) -> str:
    """`drive them back` -> `drives them back`; `drives them back` stays."""
    words = phrase.split(" ", 1)
    first = words[0]
    lower = first.lower()
    if english_bare(first) != first:          # already inflected
        return phrase
    irregular = {"be": "is", "have": "has", "do": "does", "go": "goes"}
    if lower in irregular:
        first = irregular[lower]
    elif lower.endswith(("s", "sh", "ch", "x", "z", "o")):
        first += "es"
    elif len(lower) > 1 and lower.endswith("y") and lower[-2] not in VOWELS:
        first = first[:-1] + "ies"
    else:
        first += "s"
    return " ".join([first] + words[1:])


class Narrator:
    """Tells the entries of one rendering, in order (the state of who was named
    last, and of the phrases used in the scene, is carried from one to the next)."""

    def __init__(self, book: PhraseBook, context: dict):
        self.book = book
        self.lang = book.language
        self.mentioned: Form | None = None
        self._apposition = False
        self.seed = context["seed"]
        self.party = context["party"]
        self.numbers = context["numbers"]
        self.scene_index: Any = object()
        self.introduced: set[str] = set()
        self.used: dict[str, int] = {}
        self.clock = 0
        self.last_subject: tuple[str, ...] | None = None
        self.last_named: set[str] = set()
        self.last_form: dict[tuple[str, ...], str] = {}
        self.standing_members = {pid: list(p["members"]) for pid, p in self.party.items()}
        self.kind = "fight"

    # ------------------------------------------------------------ scenes

    def scene(self, item: dict) -> None:
        """A new scene: everyone is introduced again, every phrase is fresh."""
        index = item.get("scene")
        if index != self.scene_index:
            self.scene_index = index
            self.introduced = set()
            self.used = {}
            self.break_()

    def break_(self) -> None:
        """Someone else's words came in between (narration, a dictated outcome)."""
        self.last_subject = None
        self.last_named = set()

    # ------------------------------------------------------------ people

    def _pronoun_key(self, pid: str) -> str | None:
        p = self.party.get(pid)
        if p is None:
            return None
        if p["group"] and self.lang in GENDERED and "she" in self.book.pronouns \
                and str(p.get("pronouns") or "they").startswith("they"):
            # a group named by a singular noun is `elle` or `il`, as its name is (`la garde ... elle`)
            form = party_form(p, self.lang)
            if not form.plural:
                return "she" if form.gender == "f" else "he"
        if p.get("pronouns"):
            key = p["pronouns"].split("/")[0]
            if key == "they" and not p["group"] and "they_person" in self.book.pronouns:
                return "they_person"
            return key
        return "they" if p["group"] else None

    def _pronouns(self, pid: str) -> tuple[str, str, str] | None:
        key = self._pronoun_key(pid)
        if key is None:
            return None
        if key in self.book.pronouns:
            return self.book.pronouns[key]
        forms = self.party[pid]["pronouns"].split("/")
        return (forms + forms[-1:] * 3)[:3]

    def form(self, value: Any, words: str | None = None, how: str = "name") -> Form:
        """How a mention agrees (grammar.py): a name is singular whatever the
        party's pronouns, unless the name itself is plural in the language (`les
        gobelins`, `the goblins`) or the cast says so; a plural pronoun, a list or
        a joint side is plural."""
        if not isinstance(value, Ref):
            words_ = str(value).split(" ", 1)
            count = int(words_[0]) if words_[0].isdigit() else 1
            return Form("", self.book.plural(count))
        mixed = self.book.word("mixed_gender") if "mixed_gender" in self.book.words else ""
        if len(value.ids) != 1:
            return Form(mixed if how == "pronoun" else list_form(
                [self.form(Ref((pid,))) for pid in value.ids], mixed).gender, "other")
        pid = value.ids[0]
        if pid == "GM":
            return party_form({"name": self.book.word("the_gm")}, self.lang)
        p = self.party.get(pid) or {"id": pid}
        if how == "pronoun":
            key = self._pronoun_key(pid) or ""
            gender = self.book.genders.get(key, "") or party_form(p, self.lang).gender
            return Form(gender, "other" if key == "they" else "one")
        if how == "members":
            return Form(mixed, "other")
        return party_form({**p, "name": words or p.get("name") or pid}, self.lang)

    def plural(self, value: Any) -> bool:
        """Whether a party named by its name takes a plural verb."""
        return self.form(value).plural

    def _one(self, pid: str, mode: str | None, alone: bool, start: bool, key: str) -> tuple[str, str]:
        """(the words for one party, the form used: full, short, pronoun, members)."""
        if pid == "GM":
            return self.book.word("the_gm"), "gm"
        p = self.party.get(pid)
        if p is None:
            return pid, "id"
        if mode == "full" or pid not in self.introduced:
            self.introduced.add(pid)
            return p["name"], "full"
        if mode is None and alone and start and self.last_subject == (pid,):
            pronoun = self._pronouns(pid)
            ambiguous = any(self._pronoun_key(other) == self._pronoun_key(pid)
                            for other in self.last_named if other != pid)
            if pronoun is not None and not ambiguous and self.last_form.get((pid,)) != "pronoun":
                return pronoun[0], "pronoun"
            # no pronoun to use: at least not the same words twice in a row
            if self.last_form.get((pid,)) == "short":
                return p["name"], "full"
        members = self.standing_members.get(pid) or []
        if alone and p["group"] and len(members) > 1 and mode is None and not start \
                and stable_hash(f"{self.seed}:{key}:members") % 3 == 0:
            return self.book.join(members), "members"
        return p["short"], "short"

    def mention(self, value: Any, mode: str | None, start: bool, key: str) -> str:
        if not isinstance(value, Ref):
            return str(value)
        ids = value.ids
        if not ids:
            self.mentioned = Form("", "one")
            return self.book.word("nobody")
        if len(ids) == 1:
            text, form = self._one(ids[0], mode, True, start, key)
            self.last_form[ids] = form
            self.mentioned = self.form(value, text, {"pronoun": "pronoun", "members": "members"}.get(form, "name"))
            return text
        if start and self.last_subject == ids and all(pid in self.introduced for pid in ids) \
                and self.last_form.get(ids) != "pronoun":
            they = self.book.pronouns.get("they")
            if they is not None:
                self.last_form[ids] = "pronoun"
                self.mentioned = self.form(value, how="pronoun")
                return they[0]
        self.last_form[ids] = "list"
        self.mentioned = self.form(value)
        return self.book.join(self._one(pid, mode, False, False, key)[0] for pid in ids)

    # ------------------------------------------------------------ phrases

    def _pronoun_ok(self, ids: tuple[str, ...]) -> bool:
        """Whether a repeated subject can be a pronoun this time."""
        if self.last_form.get(ids) == "pronoun":
            return False
        if len(ids) > 1:
            return "they" in self.book.pronouns
        pid = ids[0]
        return self._pronouns(pid) is not None and not any(
            self._pronoun_key(other) == self._pronoun_key(pid) for other in self.last_named if other != pid)

    def _repeats(self, text: str, roles: dict) -> bool:
        """Whether a phrase would name the last sentence's subject again, first,
        in the same way (no pronoun to use): never the same subject twice in a row."""
        for match, role, mode, forms in slots(text):
            if forms:
                continue
            value = roles.get(role)
            return (isinstance(value, Ref) and value.ids == self.last_subject and not match.start()
                    and not self._pronoun_ok(value.ids))
        return False

    def pick(self, outcome: str, key: str, roles: dict | None = None, **facts: Any) -> str:
        """The most specific phrase of an outcome for the facts, one not used yet
        in the scene if there is one (else the one used longest ago), chosen
        from the seed and the key; a phrase that would name the last subject
        again first is taken only when no other is left."""
        facts.setdefault("kind", self.kind)
        levels: dict[int, list[str]] = {}
        for phrase in self.book.phrases.get(outcome, ()):
            if all(facts.get(fact) in values for fact, values in phrase.when.items()):
                levels.setdefault(len(phrase.when), []).extend(phrase.say)
        if not levels:
            return ""
        ordered = [levels[n] for n in sorted(levels, reverse=True)]
        for options in ordered:
            fresh = [o for o in options if o not in self.used]
            if roles:
                fresh = [o for o in fresh if not self._repeats(o, roles)] or fresh
            if fresh:
                choice = fresh[stable_hash(f"{self.seed}:{key}:{outcome}") % len(fresh)]
                break
        else:
            options = ordered[0]
            oldest = min(self.used.get(o, 0) for o in options)
            stale = [o for o in options if self.used.get(o, 0) == oldest]
            choice = stale[stable_hash(f"{self.seed}:{key}:{outcome}") % len(stale)]
        self.clock += 1
        self.used[choice] = self.clock
        return choice

    def fill(self, text: str, key: str, roles: dict[str, Any]) -> str:
        """A phrase with its roles named and its words agreeing (no final period):
        each agreeing form agrees with how its role was named in this sentence
        (a name, a pronoun, a list), and where the words meet, the language
        joins them (`de le jury` -> `du jury`)."""
        state = {"subject": None, "named": set(), "forms": {}}
        self._apposition = False
        out: list = []
        self._fill(text, key, roles, out, state)
        # forms written before their role was named agree with how it is named
        for index, item in enumerate(out):
            if isinstance(item, tuple):
                role, forms = item
                form = state["forms"].get(role) or self.form(roles.get(role, ""))
                out[index] = choose_form(self.book, forms, form.number, form.gender)
        if state["subject"] is not None:
            self.last_subject = state["subject"]
            self.last_named = state["named"]
        return "".join(out).strip()

    def _fill(self, text: str, key: str, roles: dict[str, Any], out: list, state: dict) -> None:
        at = 0
        for match, role, mode, forms in slots(text):
            self._put(out, text[at:match.start()], False)
            at = match.end()
            value = roles.get(role, "")
            if forms:
                known = state["forms"].get(role)
                out.append(choose_form(self.book, forms, known.number, known.gender) if known else (role, forms))
                continue
            if isinstance(value, Words):
                words = value.text.replace("{target}", "{T}")
                agree = state["forms"].get(value.agree) if value.agree else None
                if self.book.english_verbs and agree is not None and agree.plural:
                    words = english_plural(words)        # written for one: `ducks`, `the crew duck`
                if self.book.english_verbs and words.startswith("{T} "):
                    self._fill("{T} ", key, roles, out, state)
                    rest = words[len("{T} "):]
                    target = state["forms"].get("T")
                    if target is not None and target.plural:
                        rest = english_plural(rest)
                    words = rest
                self._fill(words, key, roles, out, state)
                continue
            start = not "".join(x for x in out if isinstance(x, str)).strip()
            self.mentioned = None
            words = self.mention(value, mode, start, f"{key}:{role}")
            if isinstance(value, Ref):
                if state["subject"] is None:
                    state["subject"] = value.ids
                state["named"].update(value.ids)
                state["forms"].setdefault(role, self.mentioned or self.form(value))
            self._put(out, words, isinstance(value, Ref))
            # one name with an apposition (not a list of names)
            self._apposition = isinstance(value, Ref) and len(value.ids) == 1 and ", " in words \
                and self.last_form.get(value.ids) in ("full", "short")
        self._put(out, text[at:], False)

    def _put(self, out: list, words: str, name: bool) -> None:
        """Words after the text so far, joined as the language joins them; a name
        with an apposition (`Harrow, chef des pillards`) is closed by a comma
        before the rest of the sentence."""
        if not words:
            return
        if out and isinstance(out[-1], str):
            if self._apposition and re.match(r" \w", words):
                out[-1] += ","
            before, words = join_words(self.lang, out[-1], words, name)
            out[-1] = before
        self._apposition = False
        out.append(words)

    def say(self, outcome: str, key: str, roles: dict[str, Any] | None = None, **facts: Any) -> str:
        phrase = self.pick(outcome, key, roles or {}, **facts)
        return self.fill(phrase, key, roles or {}) if phrase else ""

    # ------------------------------------------------------------ the writer's words

    def verb(self, phrase: str, subject: Any, infinitive: bool) -> str:
        """A verb phrase of the writer's: the base form after `to`, else agreeing
        with the subject (English); other languages keep it as written."""
        if not self.book.english_verbs:
            return phrase
        if infinitive:
            return english_bare(phrase)
        if self.plural(subject):
            return english_plural(phrase)
        return english_third(phrase)

    def words(self, text: str, target: Any) -> Words:
        """The writer's words; where they begin with `{target}`, the verb after it
        agrees with how the target is named (`{target} is engulfed`: the goblins
        are engulfed)."""
        return Words(text)

    def label(self, intent: str) -> str:
        """A move's name used as a noun: `a fireball`, `« fireball »`."""
        if self.book.english_verbs:
            return ("an " if intent[:1] in VOWELS else "a ") + intent
        return self.book.word("label").replace("%s", intent)


def sentence(text: str) -> str:
    """Capitalised, ending in a stop."""
    value = str(text).strip()
    if not value:
        return ""
    closing = value[-1] in "\"'”’»"
    if value[-1] not in ".!?…" and not (closing and len(value) > 1 and value[-2] in ".!?…"):
        value += "."
    return value[:1].upper() + value[1:]


def join(sentences: Iterable[str]) -> str:
    return " ".join(s for s in sentences if s)
