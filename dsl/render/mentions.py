"""How the transcript names a party at each mention: its full or short name, an epithet or a pronoun, and its grammatical form (a part of `narrator.Narrator`)."""

from __future__ import annotations

import re
import zlib
from dataclasses import dataclass
from typing import Any, Iterable

from .grammar import GENDERED, Form, declared, english_plural_word, list_form, name_form, party_form
from .phrasebook import PhraseBook


def stable_hash(text: str) -> int:
    """A hash of a text that is the same in every process (a phrase's choice depends on it)."""
    return zlib.crc32(text.encode("utf-8"))


@dataclass(frozen=True)
class Ref:
    """Parties named in a sentence: one id, a joint side or a list of them."""

    ids: tuple[str, ...]


def head(name: str) -> str:
    """A name without its apposition: `Marta Quell` of `Marta Quell, the reeve's bailiff`."""
    return name.split(",", 1)[0].strip() if "," in name else name


class Listed(str):
    """A list of names as the language joins them, that keeps its names (`parts`)
    for a preposition to go before each (Narrator.meet)."""

    parts: tuple[str, ...] = ()

    def __new__(cls, book: PhraseBook, parts: Iterable[str]):
        parts = tuple(str(p) for p in parts)
        text = super().__new__(cls, book.join(list(parts)))
        text.parts = parts
        return text


class Mentions:
    """The mentions of parties, for `Narrator`: they read its phrase book, cast and what the scene has named so far."""

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
        if p["group"] and not p.get("pronouns_given", True) and self.lang not in GENDERED and "it" in self.book.pronouns:
            # a group without pronouns, named by a singular noun (`the crew`, `the watch`), is
            # `it`, as its verbs are singular: never `the crew tries ... and they are`
            short = str(p.get("short") or p.get("name") or "")
            form = name_form(short, self.lang)
            return "they" if (form is not None and form.plural) or english_plural_word(short) else "it"
        if p.get("pronouns"):
            key = p["pronouns"].split("/")[0]
            if key == "it" and self.lang in GENDERED:
                # French has no neuter: `it` is il or elle, as the name it goes by (`la rivière ... elle`)
                said = name_form(str(p.get("short") or p.get("name") or ""), self.lang)
                return "she" if said is not None and said.gender == "f" else "he"
            if key == "they" and not p["group"] and self.lang in GENDERED:
                # French has no settled pronoun for one person who is they: named, unless the
                # cast gives the person a gender in the language (`grammar: {fr: masculine}`: il)
                own = declared(p.get("grammar"), self.lang)
                if own is not None and own.gender in ("f", "m") and not own.plural:
                    return "she" if own.gender == "f" else "he"
                return None
            return key
        if not p["group"] and self.lang in GENDERED:
            # a person without pronouns whose gender the cast gives in the language: il or elle
            own = declared(p.get("grammar"), self.lang)
            if own is not None and own.gender in ("f", "m") and not own.plural:
                return "she" if own.gender == "f" else "he"
        return "they" if p["group"] else None

    def form(self, value: Any, words: str | None = None, how: str = "name") -> Form:
        """How a mention agrees (grammar.py): a name is singular whatever the
        party's pronouns, unless the name itself is plural in the language (`les
        gobelins`, `the goblins`) or the cast says so; a plural pronoun, a list or
        a joint side is plural."""
        if not isinstance(value, Ref):
            first = str(value).split(" ", 1)[0]
            counted = getattr(value, "number", None)
            return Form("", self.book.plural(counted if counted is not None else int(first) if first.isdigit() else 1))
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
        if getattr(value, "number", None) is not None:
            return value.number
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
                                      and self.last_named != {pid}) or self._they_crowded(pid) \
                or self._unsaid_it(pid) or self._it_clash(pid)
            # not after its members were named (`Aldo, Berthe et Cyr ... Elle`: who?)
            if pronoun is not None and not ambiguous and self.last_form.get((pid,)) not in ("pronoun", "members"):
                return pronoun[0], "pronoun"
            # no pronoun to use: not the same words twice in a row, and never
            # the full name again (one person must not read as two): an epithet
            epithet = p.get("epithet")
            if self.last_form.get((pid,)) == "short" and epithet:
                return epithet, "epithet"
            # a group: by its members, once they were named (`The crew acts first. Fenn and Dov ...`)
            members = self.standing_members.get(pid) or []
            if p["group"] and len(members) > 1 and pid in self.members_told and not self.no_members \
                    and self.last_form.get((pid,)) == "short":
                return Listed(self.book, members), "members"
        members = self.standing_members.get(pid) or []
        if alone and p["group"] and len(members) > 1 and mode is None and not start and not self.no_members \
                and pid in self.members_told and self.last_form.get((pid,)) != "members" and stable_hash(f"{self.seed}:{key}:members") % 5 == 0:
            return Listed(self.book, members), "members"
        return p["short"], "short"

    def _it_clash(self, pid: str, text: str | None = None) -> bool:
        """A party that is `it`, in a phrase that says `it` of something else
        (`It makes it look easy`, `It loses ground over it`): named instead."""
        if self.lang in GENDERED or self._pronoun_key(pid) != "it":
            return False
        phrase = getattr(self, "filling", "") if text is None else text
        return getattr(self, "it_taken", False) or bool(re.search(r"\b[Ii]t\b", re.sub(r"\{[^{}]*\}", "", phrase)))

    def _unsaid_it(self, pid: str) -> bool:
        """A group that is `it` only because its name is singular (`the crew`): its
        verbs agree as `it`, but it is named, not `it`, as the subject of a sentence."""
        p = self.party.get(pid) or {}
        return bool(p.get("group")) and not p.get("pronouns_given", True) and self._pronoun_key(pid) == "it"

    def _they_crowded(self, pid: str) -> bool:
        """Whether `they` could be someone else in the scene: a person who is they
        beside a group (or another they), or a group beside a person who is they
        (`The riders close on Vey. They ...`: Vey or the riders?). Then each is named."""
        if self._pronoun_key(pid) != "they" or pid not in self.party:
            return False
        single = not self.party[pid]["group"]
        for other in self.introduced:
            if other != pid and other in self.party and self._pronoun_key(other) == "they" \
                    and (single or not self.party[other]["group"]):
                return True
        return False

    def _pronoun_form(self, ids: tuple[str, ...], index: int, key: str) -> str:
        """`{P:obj}`, `{P:poss}`: the object or possessive pronoun of a party named
        before in the phrase (`biding her time`) or alone of its pronoun in the
        sentence before; else the short name (`Orm's`)."""
        forms = self.book.pronouns.get("they") if len(ids) > 1 else self._pronouns(ids[0])
        here = self.phrase_named
        clear = set(ids) <= here or (set(ids) <= self.last_named and len(ids) == 1 and not any(
            self._pronoun_key(o) == self._pronoun_key(ids[0]) for o in self.last_named | here if o != ids[0]))
        if forms is not None and clear and not (len(ids) == 1 and set(ids) - here and self._they_crowded(ids[0])) \
                and not (len(ids) == 1 and self._it_clash(ids[0])):
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
        parts = [self._one(pid, mode, False, False, key) for pid in ids]
        if not getattr(self, "list_line", False):
            # in running text a list names each party without its apposition
            # (`Marta Quell and Vey Harlan break into a run`, never `Marta Quell,
            # the reeve's bailiff; ...`): semicolons are for a list line alone
            # (the cast line, the recap), where the appositions are given
            return Listed(self.book, [head(text) if form == "full" else text for text, form in parts])
        return Listed(self.book, [text for text, _ in parts])

    def _pronoun_ok(self, ids: tuple[str, ...]) -> bool:
        """Whether a repeated subject can be a pronoun this time."""
        if self.last_form.get(ids) in ("pronoun", "members"):
            return False
        if len(ids) > 1:
            return "they" in self.book.pronouns
        pid = ids[0]
        return self._pronouns(pid) is not None and not self._they_crowded(pid) and not self._unsaid_it(pid) \
            and not any(
            self._pronoun_key(other) == self._pronoun_key(pid) for other in self.last_named if other != pid)
