"""The narrator of a transcript: each entry of the context told in sentences, from
a phrase book (phrasebook.py), naming people as a writer would (full name first,
then the short name or a pronoun, never the same subject twice in a row), with
verbs agreeing with their subjects, and no phrase repeated within a scene."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Iterable

from .grammar import GENDERED, party_form
from .grammar import join as join_words
from .phrasebook import PhraseBook, choose_form, slots
from .verbs import agree as agree_verb
from .mentions import Mentions, Ref, stable_hash
from ..scenes import DEFAULT_KIND


VOWELS = "aeiouAEIOU"


# English verbs that take no -s (modals) and forms no rule of endings gives
MODALS = {"can", "could", "will", "would", "shall", "should", "may", "might", "must", "cannot", "can't",
          "won't", "wouldn't", "couldn't", "shouldn't", "mustn't"}
# third person singular -> base (after `to`), where the endings mislead
BASE = {"is": "be", "has": "have", "does": "do", "goes": "go", "was": "be", "dies": "die", "lies": "lie",
        "ties": "tie", "vies": "vie", "focuses": "focus", "biases": "bias", "doesn't": "not", "isn't": "not be",
        "hasn't": "not have", "wasn't": "not be"}
# third person singular -> plural
PLURAL = {"is": "are", "has": "have", "was": "were", "does": "do", "doesn't": "don't", "isn't": "aren't",
          "hasn't": "haven't", "wasn't": "weren't"}


def _case(word: str, like: str) -> str:
    return word[:1].upper() + word[1:] if like[:1].isupper() else word


# what joins the verb phrases of a list: `, `, ` and `, `, then `
_JOINS = re.compile(r"(,\s+(?:and|or|then)\s+|,\s+|\s+(?:and|or|then)\s+)")
# words that may follow such a join and are no verb, whatever their ending
_NO_VERBS = {"this", "his", "hers", "its", "yours", "ours", "theirs", "always", "perhaps", "sometimes", "towards",
             "afterwards", "across", "less", "unless", "thus", "yes", "plus", "as", "is", "was", "us", "besides",
             "nevertheless", "nonetheless", "whereas", "once", "twice", "then", "the", "a", "an", "not"}


def _coordinated(phrase: str, one) -> str:
    """`one` applied to a phrase's first verb, and to the verbs joined to it: two
    (`ducks and weaves` -> `duck and weave`) or a list, of words or of verb phrases
    (`swarms up the pipe, hauls the rope and vanishes` -> `swarm up the pipe, haul the
    rope and vanish`). A later verb changes only when the first did; a word after a
    verb phrase with no comma before it may be its object (`hurls spears and arrows`)."""
    pieces = _JOINS.split(phrase)
    first = pieces[0]
    changed = one(first)
    if len(pieces) == 1 or changed.split(" ", 1)[0] == first.split(" ", 1)[0]:
        return one(phrase) if len(pieces) > 1 and " " in first else changed + "".join(pieces[1:])
    joined = [i for i in range(1, len(pieces), 2) if re.search(r"\b(?:and|or|then)\b", pieces[i])]
    if not joined:                       # `ducks, weaves`: a word and its comma, no list
        return changed + "".join(pieces[1:])
    listed = any("," in pieces[i] for i in range(1, joined[0] + 1, 2))
    out, before = [changed], first
    for i in range(1, joined[0] + 1, 2):
        join, segment = pieces[i], pieces[i + 1]
        word = segment.split(" ", 1)[0]
        bare_word = re.sub(r"[,;:.!?]+$", "", word)
        new = one(bare_word)
        single = " " not in segment.strip() or segment.split(" ", 1)[0] != bare_word
        verb = (new != bare_word and bare_word.lower() not in _NO_VERBS and bare_word.isalpha()
                and not bare_word.lower().endswith(("ing", "ed", "ly"))
                and (not single or listed or " " not in before.strip()
                     or not _noun_pair(before.split()[-1], bare_word)))
        if not verb:
            return "".join(out) + "".join(pieces[i:])
        out += [join, new + segment[len(bare_word):]]
        before = segment
    return "".join(out) + "".join(pieces[joined[0] + 2:])


def _noun_pair(last: str, word: str) -> bool:
    """Whether `word` after `... last and` reads as a second object (`spears and
    arrows`) rather than a verb (`is engulfed and falls`): both look plural."""
    return last.lower().endswith("s") == word.lower().endswith("s") and not last.lower().endswith(("ed", "en"))


def bare(intent: Any) -> str:
    """An intent after `to`: its first word in the base form, for intents
    written in the third person (`leaps the chasm` -> `leap the chasm`, `ducks
    and weaves` -> `duck and weave`)."""
    return _coordinated(str(intent), _bare_first)


def _bare_first(intent: str) -> str:
    words = str(intent).split(" ", 1)
    first = words[0]
    lower = first.lower()
    if lower in BASE:
        return " ".join([_case(BASE[lower], first)] + words[1:])
    if lower in MODALS:
        return " ".join(words)
    if len(lower) > 3 and lower.endswith("ies"):
        first = first[:-3] + "y"
    elif lower.endswith(("sses", "shes", "ches", "xes", "zzes", "oes")):
        first = first[:-2]
    elif len(lower) > 3 and lower.endswith("s") and not lower.endswith(("ss", "us", "is")):
        first = first[:-1]
    return " ".join([first] + words[1:])


_SLOTS = re.compile(r"\{[^{}]*\}")
# words two phrases may share without echoing each other
_SHARED = {"the", "a", "an", "to", "and", "of", "it", "its", "his", "her", "their", "them", "him", "is", "are",
           "with", "in", "for", "from", "by", "as", "be", "that", "this", "but", "so", "not", "no",
           # French function words (the book's own words are the echo, not these)
           "le", "la", "les", "de", "du", "des", "un", "une", "et", "il", "elle", "ils", "elles", "son", "sa",
           "ses", "leur", "leurs", "au", "aux", "en", "ne", "pas", "se", "sur", "qui", "que", "pour", "par",
           "avec", "plus", "l'", "d'", "s'", "n'", "qu'"}


def _content_words(text: str) -> set[str]:
    """The words of a text that would echo if said twice in a sentence, in their
    base form (`runs` and `run`, `sets` and `set`)."""
    out = set()
    for word in re.findall(r"[a-z']+", str(text).lower()):
        if word not in _SHARED and len(word) > 1:
            out.add(bare(word))
    return out


def subject_role(text: str) -> str | None:
    """The role that is a phrase's subject: the one it opens with (`{D} cannot stop
    it`), else the one its first agreeing word agrees with (`Facing {T}, {A}
    {A|sets|set} out`: A); None when neither says (then the first role named)."""
    found = list(slots(text))
    if found and found[0][0].start() == 0:
        return found[0][1]
    return next((r for _, r, _, f in found if f), None)


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
    return bare(phrase)


def english_plural(phrase: str) -> str:
    """`is engulfed` -> `are engulfed`, `leaps` -> `leap`: a verb agreeing with a plural
    subject, and the verbs joined to it (`is engulfed and falls` -> `are engulfed and fall`)."""
    return _coordinated(phrase, _plural_first)


def _plural_first(phrase: str) -> str:
    words = phrase.split(" ", 1)
    if words[0].lower() in PLURAL:
        return " ".join([_case(PLURAL[words[0].lower()], words[0])] + words[1:])
    if words[0].lower() in MODALS or words[0].lower() in ("were", "are", "have", "do", "don't", "aren't"):
        return phrase
    return _bare_first(phrase)


def english_third(phrase: str) -> str:
    """`drive them back` -> `drives them back`; `drives them back` stays; `duck and
    weave` -> `ducks and weaves`."""
    return _coordinated(phrase, _third_first)


def _third_first(phrase: str) -> str:
    words = phrase.split(" ", 1)
    first = words[0]
    lower = first.lower()
    if english_bare(first) != first or lower in MODALS or lower in PLURAL.values() and lower not in (
            "have", "do"):
        return phrase if lower not in ("are", "were", "don't", "aren't", "weren't", "haven't") else " ".join(
            [_case({v: k for k, v in PLURAL.items()}[lower], first)] + words[1:])
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


class Narrator(Mentions):
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
        self.opened_pronoun = ""                  # the pronoun it began with, if it did
        self.subject_pronoun = False              # its subject was a pronoun
        self.filling = ""                         # the phrase being filled
        self.it_taken = False                     # `it` will mean no party in what follows
        self.phrase_subject: tuple[str, ...] | None = None   # who it named as its subject, if anyone
        self.phrase_named: set[str] = set()       # who the phrase being filled has named so far
        self.no_members = False                   # the slot being filled comes after a comma
        self.list_line = False                    # a line that is a list (the recap): names in full, `;` if need be
        self.kind = DEFAULT_KIND

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










    # ------------------------------------------------------------ phrases

    def _repeats(self, text: str, roles: dict, soft: bool = False) -> bool:
        """Whether a phrase would name the last sentence's subject again, first,
        in the same way (no pronoun to use): never the same subject twice in a row."""
        found = list(slots(text))
        subject = subject_role(text)
        for match, role, mode, forms in found:
            if forms or subject not in (None, role):
                continue
            if subject is None and match.start():
                return False          # no subject named first (`That finishes {P}`)
            value = roles.get(role)
            if not (isinstance(value, Ref) and value.ids == self.last_subject):
                return False
            # at the start a pronoun may stand for it; after an opening phrase it is named again
            # (`It is no contest: Wick carries it`: `soft` lets that pass, rather than a phrase used before)
            if match.start():
                return not soft
            return not self._pronoun_ok(value.ids) or (len(value.ids) == 1 and self._it_clash(value.ids[0], text))
        return False

    def _no_pronoun(self, text: str, roles: dict) -> bool:
        """Whether a phrase asks for the pronoun (`{P:poss}`) of a party that has none."""
        for match, role, mode, forms in slots(text):
            value = roles.get(role)
            if mode in ("obj", "poss") and isinstance(value, Ref) and len(value.ids) == 1 \
                    and self._pronouns(value.ids[0]) is None:
                return True
        return False

    def _unknown_gender(self, text: str, roles: dict) -> bool:
        """Whether a phrase has a word that agrees in gender (`vaincue`) with a
        person whose gender nothing gives (W040): an epicene phrase is taken
        instead where there is one (`ne peut plus continuer`)."""
        if self.lang not in GENDERED:
            return False
        for match, role, mode, forms in slots(text):
            value = roles.get(role)
            if not forms or not any(re.match(r"(\w+\.)?[fm]:", f) for f in forms):
                continue
            if isinstance(value, Ref) and len(value.ids) == 1 and value.ids[0] in self.party:
                p = self.party[value.ids[0]]
                if not p["group"] and not self.form(value, how="pronoun").gender \
                        and not party_form(p, self.lang).gender:
                    return True
        return False

    def pick(self, outcome: str, key: str, roles: dict | None = None, **facts: Any) -> str:
        """The most specific phrase of an outcome for the facts, one not used yet
        in the scene if there is one (else the one used longest ago), chosen
        from the seed and the key; a phrase that would name the last subject
        again first is taken only when no other is left."""
        facts.setdefault("kind", self.kind)
        # `lead`: the phrase comes after an opening of its own (`At last, ...`), so
        # one that opens with a phrase of its own (`Facing {T}, ...`) is taken last
        lead = facts.pop("lead", False)
        # `avoid`: the writer's words the phrase takes in (an intent): a phrase whose own words
        # they share is taken last (`sets out to read out the toll`, `runs Orm down, trying to run...`)
        avoid = _content_words(facts.pop("avoid", ""))
        levels: dict[int, list[str]] = {}
        # a phrase naming a role that is nobody (a choice no party makes) is no phrase for it
        empty = {r for r, v in (roles or {}).items() if isinstance(v, Ref) and not v.ids}
        for phrase in self.book.phrases.get(outcome, ()):
            if all(facts.get(fact) in values for fact, values in phrase.when.items()):
                says = [o for o in phrase.say if (o.startswith("{") or not lead)
                        and not (avoid & _content_words(_SLOTS.sub(" ", o)))]
                levels.setdefault(len(phrase.when), []).extend(says or phrase.say)
        if empty:
            kept = {n: [o for o in says if not any(r in empty for _, r, _, _ in slots(o))] for n, says in levels.items()}
            if any(kept.values()):
                levels = {n: says for n, says in kept.items() if says}
        if not levels:
            return ""
        ordered = [levels[n] for n in sorted(levels, reverse=True)]
        seed = stable_hash(f"{self.seed}:{key}:{outcome}")
        repeats = (lambda o, soft=False: self._repeats(o, roles, soft) or self._no_pronoun(o, roles)
                   or self._unknown_gender(o, roles)) if roles \
            else (lambda o, soft=False: False)
        choice = None
        # a phrase not used yet in the scene and not naming the last subject
        # again, from the most specific level that has one; else one not used yet
        # that names it again after an opening phrase; else the one used longest
        # ago that does not repeat; else one not used yet; else the oldest
        for wanted, fresh in ((lambda o: not repeats(o), True), (lambda o: not repeats(o, True), True),
                              (lambda o: not repeats(o), False), (lambda o: not repeats(o, True), False),
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
        self.filling = text
        self.subject_pronoun = False
        wanted = subject_role(text)
        for match, role, mode, forms in slots(text):
            piece = text[at:match.start()]
            # a name with an apposition (`Harrow, chef des pillards`) is closed by a comma, also
            # before its verb (`Tamsin Dray, salt-warden, takes a moment`)
            closed = apposition and (re.match(r" \w", piece) or (piece == " " and bool(forms)))
            out.append(("," + piece) if closed else piece)
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
                out.append(self._words_in(value, key, roles, forms_used, not "".join(out).strip(), words_used))
                continue
            start = not "".join(out).strip()
            # a group named by its members never right after a comma (`Facing Wick, the baker, ...`)
            self.no_members = "".join(out).rstrip().endswith(",")
            words = self.mention(value, mode, start, f"{key}:{role}")
            forms_used[role] = self.last_form.get(value.ids, "") if isinstance(value, Ref) else ""
            words_used.setdefault(role, words)
            if isinstance(value, Ref):
                if subject is None and wanted in (None, role):
                    subject = value.ids
                    self.subject_pronoun = forms_used[role] == "pronoun"
                named.update(value.ids)
                apposition = len(value.ids) == 1 and ", " in words and forms_used[role] in ("full", "short")
            if out:       # where the words meet, as the language joins them (`de le jury` -> `du jury`)
                out[-1], words = self.meet(out[-1], words, isinstance(value, Ref))
            out.append(words)
        rest = text[at:]
        out.append(("," + rest) if apposition and re.match(r" \w", rest) else rest)
        self.phrase_subject = subject
        if subject is not None:
            self.last_subject = subject
            self.last_named = named
        first = next(iter(slots(text)), None)
        at_start = first is not None and not text[:first[0].start()].strip()
        # the pronoun the phrase opened with, if any (`it`: no clause after a comma begins with it)
        self.opened_pronoun = words_used.get(first[1], "") if at_start and forms_used.get(first[1]) == "pronoun" \
            else ""
        self.opened_with_name = bool(first is not None and not text[:first[0].start()].strip()
                                     and forms_used.get(first[1]) not in (None, "pronoun")
                                     and isinstance(roles.get(first[1]), Ref))
        return "".join(out).strip()

    def _words_in(self, value: "Words", key: str, roles: dict, forms_used: dict, at_start: bool = False,
                  words_used: dict | None = None) -> str:
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
        elif value.agree and self.lang in GENDERED and isinstance(roles.get(value.agree), Ref):
            # French: the writer's verb agrees with its subject as it was just named (verbs.py)
            how = forms_used.get(value.agree)
            form = self.form(roles[value.agree], (words_used or {}).get(value.agree),
                             how if how in ("pronoun", "members") else "name")
            text = agree_verb(text, form.plural, form.gender)
        if text.startswith("{target}") and "T" in roles:
            target = roles["T"]
            head = self.mention(target, None, at_start, key + ":T")
            rest = text[len("{target}"):]
            if book.english_verbs and rest.startswith(" "):
                count = self.count(target, self.last_form.get(target.ids) if isinstance(target, Ref) else None)
                rest = " " + (english_plural(rest[1:]) if book.plural(count) != "one" else rest[1:])
            elif self.lang in GENDERED and rest.startswith(" ") and isinstance(target, Ref):
                how = self.last_form.get(target.ids)
                form = self.form(target, head, how if how in ("pronoun", "members") else "name")
                rest = agree_verb(rest, form.plural, form.gender)
            text = head + rest
        if "{target}" in text:
            target = roles.get("T")
            before, _, after = text.partition("{target}")
            words = self.mention(target, None, False, key + ":T") if target is not None else ""
            before, words = self.meet(before, words, isinstance(target, Ref))
            text = before + words + after.replace("{target}", words)
        return text

    def meet(self, before: str, words: str, name: bool) -> tuple[str, str]:
        """The text before a mention and the mention, joined as the language joins
        them (`de le jury` -> `du jury`); in French a list after `à` or `de` takes
        the preposition before each name (`à Ilse et à l'équipe`, `des gobelins et
        du Suzerain`)."""
        parts = getattr(words, "parts", None)
        if name and parts and len(parts) > 1 and self.lang in GENDERED:
            match = re.search(r"(?:^|(?<=[\s(«\u202f]))(à|de|À|De) $", before)
            if match is not None:
                joined = []
                for index, part in enumerate(parts):
                    prep = match.group(1) if index == 0 else match.group(1).lower()
                    head, word = join_words(self.lang, prep + " ", part, True)
                    joined.append(head + word)
                return before[:match.start(1)], self.book.join(joined)
        return join_words(self.lang, before, words, name)

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
