"""Agreement by grammatical form: the gender and number that a party's name, a
pronoun or a list takes in a language, for the agreeing words of a phrase book.

A name takes a singular verb whatever the party's pronouns (`Wick holds`); only
a plural pronoun (`they`, `ils`) or a list of names is plural. Where the cast
gives no `grammar:` for a language, the language guesses from the name itself
(French: its article, `les gobelins` plural, `la garde` feminine; English: `the
... -s`), then from the pronouns (she: feminine). Pure: no I/O."""

from __future__ import annotations

import re
from typing import Any, Mapping

from .form import Form

# (french.py is imported where French is told: an English log has no use for it, issue 28)

GENDERS = {"m": "m", "masculine": "m", "f": "f", "feminine": "f", "n": "n", "neuter": "n"}
NUMBERS = {"singular": "one", "sg": "one", "plural": "other", "pl": "other"}
PRONOUN_GENDERS = {"she": "f", "he": "m", "it": "n"}


def parse(text: Any) -> Form | None:
    """`feminine`, `f plural`, `masculine singular`, `plural`: a cast's `grammar:`
    value; None when it is not one."""
    if not isinstance(text, str) or not text.strip():
        return None
    gender, number = "", ""
    for word in text.lower().replace(",", " ").split():
        if word in GENDERS and not gender:
            gender = GENDERS[word]
        elif word in NUMBERS and not number:
            number = NUMBERS[word]
        else:
            return None
    return Form(gender, number or "one")


def declared(grammar: Any, lang: str) -> Form | None:
    """The cast's `grammar:` for a language: one value for every language, or a
    table of languages (`{fr: feminine, en: plural}`)."""
    if isinstance(grammar, Mapping):
        grammar = grammar.get(lang)
    return parse(grammar)


# ---------------------------------------------------------------------------
# What a name says of itself, per language

_ENGLISH_PLURAL = re.compile(r"^the\s.*\b\w+[^s\W]s$|^the\s.*\b\w+ies$", re.IGNORECASE)


def english_name(name: str) -> Form | None:
    """`the goblins`, `the Ford Wardens` are plural; `the dock crew`, `Kara` singular."""
    words = name.split(",")[0].strip()
    if _ENGLISH_PLURAL.match(words) or re.match(r"^the\s.*\b(men|women|folk|people|children)$", words, re.I):
        return Form("", "other")
    return None


def english_plural_word(word: str) -> bool:
    """`Goblins`, `Wardens` read as plural; `Wick`, `Crew`, `Boss`, `Atlas` do not."""
    last = word.split()[-1].lower() if word.split() else ""
    return len(last) > 3 and last.endswith("s") and not last.endswith(("ss", "us", "is", "as", "os"))


def name_form(name: str, lang: str) -> Form | None:
    """What a name's own words say of its gender and number in a language."""
    if lang == "fr":
        # a name left in English (no French name in the cast) keeps its English number
        from . import french
        return french.name_form(name) or english_name(name)
    if lang == "en":
        return english_name(name)
    return None


def party_form(party: Mapping[str, Any], lang: str) -> Form:
    """The form of a party's name: the cast's `grammar:` for the language, else
    what the name says, else singular with the gender of its pronouns."""
    own = declared(party.get("grammar"), lang)
    guess = name_form(str(party.get("name") or party.get("id") or ""), lang)
    pronoun = str(party.get("pronouns") or "").split("/")[0]
    gender = PRONOUN_GENDERS.get(pronoun, "")
    if gender == "n" and lang in GENDERED:
        gender = "m"                 # French has no neuter: `it` is il
    if own is not None:
        if not own.gender and guess is not None:
            return Form(guess.gender or gender, own.number)
        return own if own.gender else Form(gender, own.number)
    if guess is not None:
        return Form(guess.gender or gender, guess.number)
    return Form(gender, "one")


# the languages whose words agree in gender with a person (`Ilse est vaincue`)
GENDERED = ("fr",)


# the English nouns of a woman, for a name left in English that nothing else gives a gender (`la Widow Penn`)
_ENGLISH_FEMININE = re.compile(
    r"\b(widow|wom[ae]n|lady|ladies|queen|mother|sisters?|wife|girls?|maid|maiden|nun|aunt|daughter|"
    r"(?:mistr|duch|princ|count|abb|priest|empr|baron|seamstr|actr|godd|sorcer|huntr|lion|heir|enchantr|"
    r"govern|host|waitr|shepherd|giant)ess(?:es)?)\b", re.IGNORECASE)


def told_name(name: str, party: Mapping[str, Any], lang: str) -> str:
    """A name as a transcript in the language tells it. French tells a name left
    in English that has an article (`the night watch`) as a foreign name with a
    French one (`le Night Watch`): its gender from the cast's `grammar:`, else
    the pronouns (she/her: `la`), else masculine; plural when the `grammar:` or
    the English name says so (`les Ford Wardens`)."""
    if lang != "fr" or not isinstance(name, str):
        return name
    own = declared(party.get("grammar"), lang)
    pronoun = str(party.get("pronouns") or "").split("/")[0]
    gender = (own.gender if own is not None else "") or PRONOUN_GENDERS.get(pronoun, "") or (
        "f" if _ENGLISH_FEMININE.search(name.split(",")[0]) else "")
    head = re.split(r"\s+of\s+", name.split(",")[0])[0]         # `the men of the hill`: men
    plural = (own is not None and own.plural) or english_name(head) is not None
    from . import french
    return french.foreign_name(name, Form("f" if gender == "f" else "m", "other" if plural else "one"))


def ungendered(parties: list[Mapping[str, Any]], lang: str) -> list[Mapping[str, Any]]:
    """The persons (parties without members) whose name has no gender in a
    gendered language: neither the cast's `grammar:`, nor an article, nor
    she/he pronouns give one (the warning W040 of `drama check --lang`)."""
    if lang not in GENDERED:
        return []
    return [p for p in parties if not p.get("members") and not party_form(p, lang).gender]


def list_form(forms: list[Form], mixed: str = "m") -> Form:
    """A list of names (or a joint side): plural; feminine when every one is,
    else the language's gender for a mixed list."""
    genders = {f.gender for f in forms}
    if len(forms) == 1:
        return forms[0]
    gender = genders.pop() if len(genders) == 1 else mixed
    return Form(gender, "other")


# ---------------------------------------------------------------------------
# The surface of a language: where words meet, and the finished sentence

def join(lang: str, before: str, word: str, name: bool) -> tuple[str, str]:
    """The text before an inserted word and the word, as the language joins them
    (French: `de le jury` -> `du jury`, `de Ilse` -> `d'Ilse`)."""
    if lang == "fr":
        from . import french
        return french.join(before, word, name)
    return before, word


def with_names(lang: str, text: str, names) -> str:
    """The writer's text with names filled in, joined as the language joins them."""
    if lang == "fr":
        from . import french
        return french.with_names(text, names)
    return text


def finish(lang: str, text: str) -> str:
    """A finished paragraph in the language's typography (French: narrow no-break
    spaces before `: ; ! ?` and inside `« »`, small counts in words)."""
    if lang == "fr":
        from . import french
        return french.finish(text)
    return text
