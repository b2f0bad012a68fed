"""The narrator of a transcript: each entry of the context told in sentences, from
a phrase book (phrasebook.py), naming people as a writer would (full name first,
then the short name or a pronoun, never the same subject twice in a row), with
verbs agreeing with their subjects, and no phrase repeated within a scene."""

from __future__ import annotations

import re
import zlib
from dataclasses import dataclass
from typing import Any, Iterable

from .grammar import GENDERED, Form, declared, list_form, name_form, party_form
from .grammar import join as join_words
from .phrasebook import PhraseBook, choose_form, slots

VOWELS = "aeiouAEIOU"


def bare(intent: Any) -> str:
    """An intent after `to`: its first word in the base form, for intents
    written in the third person (`leaps the chasm` -> `leap the chasm`)."""
    words = str(intent).split(" ", 1)
    first = words[0]
    lower = first.lower()
    if len(lower) > 3 and lower.endswith("ies"):
        first = first[:-3] + "y"
    elif lower.endswith(("sses", "shes", "ches", "xes", "zzes", "oes")):
        first = first[:-2]
    elif len(lower) > 3 and lower.endswith("s") and not lower.endswith(("ss", "us", "is")):
        first = first[:-1]
    return " ".join([first] + words[1:])


def stable_hash(text: str) -> int:
    return zlib.crc32(text.encode("utf-8"))


@dataclass(frozen=True)
class Ref:
    """Parties named in a sentence: one id, a joint side or a list of them."""

    ids: tuple[str, ...]


@dataclass(frozen=True)
class Words:
    """The writer's words, with `{target}` standing for the role `T`; `agree`
    names the role whose verb they carry (`{A} {S}`: Orm ducks, the crew duck)."""

    text: str
    agree: str | None = None


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
        self.members_told: set[str] = set()       # groups whose members were named (once in a transcript)
        self.opened_with_name = False             # the last phrase filled began with a name
        self.phrase_named: set[str] = set()       # who the phrase being filled has named so far
        self.no_members = False                   # the slot being filled comes after a comma
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
            # a group named by a singular noun is `elle` or `il`, as the name it goes by is
            # (`la garde ... elle`; but `les gobelins ... ils` even if the full name is `la bande`)
            short = name_form(str(p.get("short") or ""), self.lang)
            form = short or declared(p.get("grammar"), self.lang) or name_form(str(p.get("name") or ""), self.lang)
            if form is not None and not form.plural:
                form = party_form({**p, "name": p.get("short") or p.get("name")}, self.lang)
            if form is not None and not form.plural:
                return "she" if form.gender == "f" else "he"
            if form is not None:
                return "they"
        if p.get("pronouns"):
            key = p["pronouns"].split("/")[0]
            if key == "they" and not p["group"] and "they_person" in self.book.pronouns:
                return "they_person"       # French: iel, singular
            return key
        return "they" if p["group"] else None

    def form(self, value: Any, words: str | None = None, how: str = "name") -> Form:
        """How a mention agrees (grammar.py): a name is singular whatever the
        party's pronouns, unless the name itself is plural in the language (`les
        gobelins`, `the goblins`) or the cast says so; a plural pronoun, a list or
        a joint side is plural."""
        if not isinstance(value, Ref):
            first = str(value).split(" ", 1)[0]
            return Form("", self.book.plural(int(first) if first.isdigit() else 1))
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

    def _pronouns(self, pid: str) -> tuple[str, str, str] | None:
        key = self._pronoun_key(pid)
        if key is None:
            return None
        if key in self.book.pronouns:
            return self.book.pronouns[key]
        forms = self.party[pid]["pronouns"].split("/")
        return (forms + forms[-1:] * 3)[:3]

    def count(self, value: Any, form: str | None = None) -> int:
        """How many a subject counts for agreement. A name is one whatever its
        pronouns (`Wick wins`), unless it names a group that is a they (`the
        goblins win`); the pronoun "they" is plural (`they win`); a joint side
        or a list counts its parties."""
        if isinstance(value, Ref):
            if len(value.ids) != 1:
                return max(len(value.ids), 2)
            pid = value.ids[0]
            p = self.party.get(pid)
            they = self._pronoun_key(pid) == "they"
            if form == "pronoun":
                return 2 if they else 1
            if form == "members":
                return max(len(p["members"]), 2) if p is not None else 2
            if p is not None and p["group"] and they:
                return max(len(p["members"]), 2)
            return 1
        words = str(value).split(" ", 1)
        return int(words[0]) if words[0].isdigit() else 1

    def gender(self, value: Any) -> str:
        if not isinstance(value, Ref):
            return ""
        genders = {self.book.genders.get(self._pronoun_key(pid) or "", "") for pid in value.ids}
        if len(genders) == 1:
            return genders.pop()
        return self.book.word("mixed_gender") if "mixed_gender" in self.book.words else ""

    def plural(self, value: Any) -> bool:
        return self.book.plural(self.count(value)) != "one"

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
            # a they who is one person: only when nobody else was just named
            ambiguous = ambiguous or (self._pronoun_key(pid) == "they" and not p["group"]
                                      and self.last_named != {pid})
            if pronoun is not None and not ambiguous and self.last_form.get((pid,)) != "pronoun":
                return pronoun[0], "pronoun"
            # no pronoun to use: not the same words twice in a row, and never
            # the full name again (one person must not read as two): an epithet
            epithet = p.get("epithet")
            if self.last_form.get((pid,)) == "short" and epithet:
                return epithet, "epithet"
        members = self.standing_members.get(pid) or []
        if alone and p["group"] and len(members) > 1 and mode is None and not start and not self.no_members \
                and pid in self.members_told and stable_hash(f"{self.seed}:{key}:members") % 5 == 0:
            return self.book.join(members), "members"
        return p["short"], "short"

    def _pronoun_form(self, ids: tuple[str, ...], index: int, key: str) -> str:
        """`{P:obj}`, `{P:poss}`: the object or possessive pronoun of a party named
        before in the phrase (`biding her time`) or alone of its pronoun in the
        sentence before; else the short name (`Orm's`)."""
        forms = self.book.pronouns.get("they") if len(ids) > 1 else self._pronouns(ids[0])
        here = self.phrase_named
        clear = set(ids) <= here or (set(ids) <= self.last_named and len(ids) == 1 and not any(
            self._pronoun_key(o) == self._pronoun_key(ids[0]) for o in self.last_named | here if o != ids[0]))
        if forms is not None and clear:
            return forms[index]
        if len(ids) > 1:
            return self.book.join(self._one(pid, "short", False, False, key)[0] for pid in ids)
        p = self.party.get(ids[0]) or {}
        name = p.get("short") or ids[0]
        return name + ("'s" if index == 2 and self.book.english_verbs else "")

    def mention(self, value: Any, mode: str | None, start: bool, key: str) -> str:
        if not isinstance(value, Ref):
            return str(value)
        ids = value.ids
        if not ids:
            return self.book.word("nobody")
        if mode in ("obj", "poss"):
            return self._pronoun_form(ids, 1 if mode == "obj" else 2, key)
        if len(ids) == 1:
            text, form = self._one(ids[0], mode, True, start, key)
            self.last_form[ids] = form
            return text
        if start and self.last_subject == ids and all(pid in self.introduced for pid in ids) \
                and self.last_form.get(ids) != "pronoun":
            they = self.book.pronouns.get("they")
            if they is not None:
                self.last_form[ids] = "pronoun"
                return they[0]
        self.last_form[ids] = "list"
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

    def _no_pronoun(self, text: str, roles: dict) -> bool:
        """Whether a phrase asks for the pronoun (`{P:poss}`) of a party that has none."""
        for match, role, mode, forms in slots(text):
            value = roles.get(role)
            if mode in ("obj", "poss") and isinstance(value, Ref) and len(value.ids) == 1 \
                    and self._pronouns(value.ids[0]) is None:
                return True
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
        seed = stable_hash(f"{self.seed}:{key}:{outcome}")
        repeats = (lambda o: self._repeats(o, roles) or self._no_pronoun(o, roles)) if roles \
            else (lambda o: False)
        choice = None
        # a phrase not used yet in the scene and not naming the last subject
        # again, from the most specific level that has one; else the one used
        # longest ago that does not repeat; else one not used yet; else the oldest
        for wanted, fresh in ((lambda o: not repeats(o), True), (lambda o: not repeats(o), False),
                              (lambda o: True, True), (lambda o: True, False)):
            for options in ordered:
                fitting = [o for o in options if wanted(o) and (o not in self.used or not fresh)]
                if fitting:
                    if not fresh:
                        # one of the older half: the oldest alone would go round in a
                        # fixed cycle (four parties, four phrases: each its own verb)
                        fitting = sorted(fitting, key=lambda o: self.used.get(o, 0))
                        fitting = fitting[:max(1, (len(fitting) + 1) // 2)]
                    choice = fitting[seed % len(fitting)]
                    break
            if choice is not None:
                break
        self.clock += 1
        self.used[choice] = self.clock
        return choice

    def fill(self, text: str, key: str, roles: dict[str, Any]) -> str:
        """A phrase with its roles named and its words agreeing (no final period).
        A word's form follows the words its role was named with (`Wick wins`,
        `they win`); the writer's words (`Words`) go in where their role is, their
        verb agreeing with the role they follow."""
        out: list[str] = []
        at = 0
        subject = None
        named: set[str] = set()
        forms_used: dict[str, str] = {}
        words_used: dict[str, str] = {}
        apposition = False
        self.phrase_named = named
        for match, role, mode, forms in slots(text):
            piece = text[at:match.start()]
            # a name with an apposition (`Harrow, chef des pillards`) is closed by a comma
            out.append(("," + piece) if apposition and re.match(r" \w", piece) else piece)
            apposition = False
            at = match.end()
            value = roles.get(role, "")
            if forms:
                how = forms_used.get(role)
                form = self.form(value, words_used.get(role),
                                 how if how in ("pronoun", "members") else "name")
                out.append(choose_form(self.book, forms, form.number, form.gender))
                continue
            if isinstance(value, Words):
                target = roles.get("T")
                if value.text.startswith("{target}") and isinstance(target, Ref) and subject is None \
                        and not "".join(out).strip():
                    subject = target.ids
                    named.update(target.ids)
                out.append(self._words_in(value, key, roles, forms_used, not "".join(out).strip()))
                continue
            start = not "".join(out).strip()
            # a group named by its members never right after a comma (`Facing Wick, the baker, ...`)
            self.no_members = "".join(out).rstrip().endswith(",")
            words = self.mention(value, mode, start, f"{key}:{role}")
            forms_used[role] = self.last_form.get(value.ids, "") if isinstance(value, Ref) else ""
            words_used.setdefault(role, words)
            if isinstance(value, Ref):
                if subject is None:
                    subject = value.ids
                named.update(value.ids)
                apposition = len(value.ids) == 1 and ", " in words and forms_used[role] in ("full", "short")
            if out:       # where the words meet, as the language joins them (`de le jury` -> `du jury`)
                out[-1], words = join_words(self.lang, out[-1], words, isinstance(value, Ref))
            out.append(words)
        rest = text[at:]
        out.append(("," + rest) if apposition and re.match(r" \w", rest) else rest)
        if subject is not None:
            self.last_subject = subject
            self.last_named = named
        first = next(iter(slots(text)), None)
        self.opened_with_name = bool(first is not None and not text[:first[0].start()].strip()
                                     and forms_used.get(first[1]) not in (None, "pronoun")
                                     and isinstance(roles.get(first[1]), Ref))
        return "".join(out).strip()

    def _words_in(self, value: "Words", key: str, roles: dict, forms_used: dict, at_start: bool = False) -> str:
        """The writer's words inside a phrase: `{target}` named like a role, and
        the verb agreeing with the role the words follow (`agree`) or, when they
        begin with `{target}`, with the target."""
        text = value.text
        book = self.book
        if "{target}" in text and isinstance(roles.get("T"), Ref):
            self.phrase_named.update(roles["T"].ids)
        if value.agree and book.english_verbs:
            # the writer's verb phrases are written for one (`hurls a gout of flame`)
            count = self.count(roles.get(value.agree), forms_used.get(value.agree))
            if book.plural(count) != "one":
                text = english_plural(text)
        if text.startswith("{target}") and "T" in roles:
            target = roles["T"]
            head = self.mention(target, None, at_start, key + ":T")
            rest = text[len("{target}"):]
            if book.english_verbs and rest.startswith(" "):
                count = self.count(target, self.last_form.get(target.ids) if isinstance(target, Ref) else None)
                rest = " " + (english_plural(rest[1:]) if book.plural(count) != "one" else rest[1:])
            text = head + rest
        if "{target}" in text:
            target = roles.get("T")
            text = text.replace("{target}", self.mention(target, None, False, key + ":T")
                                if target is not None else "")
        return text

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

    def words(self, text: str, agree: str | None = None) -> Words:
        """The writer's words; where they begin with `{target}`, the verb after it
        agrees with the target as named (`{target} is engulfed`: the goblins are
        engulfed); with `agree`, their first verb agrees with that role."""
        return Words(text, agree)

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
