"""French surface grammar: what a name's article says of its gender and number,
contractions (`de le` -> `du`) and elision (`de Ilse` -> `d'Ilse`) where words
meet, and the typography of a finished paragraph (narrow no-break spaces before
`: ; ! ?` and inside `« »`, counts under ten in words). Pure: no I/O."""

from __future__ import annotations

import re

from .form import Form

NNBSP = "\u202f"                 # espace fine insécable
VOWELS = "aeiouyàâäéèêëîïôöùûüœæAEIOUÀÂÄÉÈÊËÎÏÔÖÙÛÜŒÆ"
# words whose h is mute (l'homme, d'une heure): the others are aspirated (le héros, de Harrow)
MUTE_H = ("habil", "habit", "harmoni", "hectare", "hélice", "herb", "hérit", "héroïne", "hésit", "heur",
          "hier", "histoir", "hiver", "homm", "honnêt", "honneur", "hôpital", "horaire", "horizon", "horreur",
          "hospital", "hôte", "huile", "huît", "humain", "humble", "humeur", "humid", "humili", "hymne",
          "hypoth", "hôtel")
# words that lose their vowel before another (le -> l', que -> qu')
ELIDED = {"de": "d'", "que": "qu'", "le": "l'", "la": "l'", "ne": "n'", "se": "s'", "je": "j'", "me": "m'",
          "te": "t'", "jusque": "jusqu'", "lorsque": "lorsqu'", "puisque": "puisqu'", "quoique": "quoiqu'"}
CONTRACTED = {("de", "le"): "du", ("de", "les"): "des", ("à", "le"): "au", ("à", "les"): "aux"}
# counts under ten in words, before the nouns a transcript counts
UNITS = ("zéro", "un", "deux", "trois", "quatre", "cinq", "six", "sept", "huit", "neuf")
FEMININE_NOUNS = ("heure", "minute", "seconde", "semaine", "année", "fois", "journée", "nuit", "manche")
COUNTED = re.compile(r"(?<![\w,.])([1-9])(?:[ \u00a0\u202f])(heures?|minutes?|secondes?|semaines?|années?|fois|"
                     r"jours?|journées?|nuits?|mois|ans|an|tours?|manches?|dés?)\b")


# any other count from two to nine before a plural noun (`2 pièces d'or` -> `deux pièces d'or`);
# a score (`5 contre 0`) or a count of dice stays in figures
PLURAL_COUNT = re.compile(r"(?<![\w,.\u202f])([2-9])((?:[ \u00a0])(?!dés\b)[a-zàâçéèêëîïôûù]+[sx])\b")


def vowel_start(word: str) -> bool:
    """Whether a word begins with a vowel sound (a vowel, or a mute h)."""
    if not word:
        return False
    if word[0] in VOWELS:
        return word[0] not in "yY" or word[:1].isupper()
    return word[0] == "h" and word.lower().startswith(MUTE_H)


def name_form(name: str) -> Form | None:
    """`les gobelins`: plural; `la garde`: feminine; `le jury`, `l'équipe`:
    singular. A name without an article says nothing (None)."""
    text = name.strip()
    lower = text.lower()
    for article, form in (("les ", Form("", "other")), ("des ", Form("", "other")),
                          ("la ", Form("f", "one")), ("une ", Form("f", "one")),
                          ("le ", Form("m", "one")), ("un ", Form("m", "one")),
                          ("l'", Form("", "one")), ("l’", Form("", "one"))):
        if lower.startswith(article):
            return form
    return None


# English words a foreign name keeps in lower case (`les Men of the Hill`)
ENGLISH_SMALL = {"a", "an", "and", "at", "by", "for", "from", "in", "of", "on", "or", "the", "to", "with"}
ENGLISH_ARTICLE = re.compile(r"^the\s+(?=\S)", re.IGNORECASE)


def foreign_name(name: str, form: Form) -> str:
    """A name left in English, told in French as French tells a foreign name
    that has an article (`le Times`, `les Beatles`): the English article gives way
    to a French one in the name's gender and number, and the rest is a proper
    noun (`the night watch` -> `le Night Watch`, `the Ford Wardens` -> `les Ford
    Wardens`, `the Ember Guard` -> `l'Ember Guard`), so that `à` and `de` contract
    and elide with it as with any French name (`au Night Watch`, `des Ford
    Wardens`), never `à the night watch`. An apposition in English is left out
    (`Wick Alder, the court's scribe` is `Wick Alder`). A name without `the` is
    as written."""
    name = name.split(",", 1)[0].strip() or name
    match = ENGLISH_ARTICLE.match(name)
    if match is None:
        return name
    words = name[match.end():].split(" ")
    rest = " ".join(w if not w[:1].islower() or (i and w.lower() in ENGLISH_SMALL) else w[:1].upper() + w[1:]
                    for i, w in enumerate(words))
    if form.plural:
        return "les " + rest
    if rest[:1] in "AEIOUÀÂÄÉÈÊËÎÏÔÖÙÛÜaeiou":       # an English h or y is no vowel: `le Harbour Watch`
        return "l'" + rest
    return ("la " if form.gender == "f" else "le ") + rest


def _last_word(before: str) -> tuple[str, str]:
    """(the text before the last word, the last word) of text ending in a space."""
    match = re.search(r"(^|[\s(«\u202f'’-])(\w+) $", before)
    if match is None:
        return before, ""
    return before[:match.start(2)], match.group(2)


def join(before: str, word: str, name: bool) -> tuple[str, str]:
    """The words on either side of an insertion, as French joins them: `de` +
    `le jury` -> `du jury` (a name's article only, never a pronoun), `de` +
    `Ilse` -> `d'Ilse`, `que` + `elle` -> `qu'elle`."""
    if not before.endswith(" ") or not word:
        return before, word
    head, last = _last_word(before)
    if not last:
        return before, word
    lower = last.lower()
    if name:
        article, space, rest = word.partition(" ")
        contracted = CONTRACTED.get((lower, article))
        if contracted is not None and space and rest:
            if last[:1].isupper():
                contracted = contracted.capitalize()
            return head, contracted + " " + rest
    if lower in ELIDED and vowel_start(word):
        short = ELIDED[lower]
        if last[:1].isupper():
            short = short.capitalize()
        return head + short, word
    if lower == "si" and re.match(r"ils?\b", word):
        return head + ("S'" if last[0] == "S" else "s'"), word
    return before, word


def with_names(text: str, names) -> str:
    """The writer's text with the cast's names filled in (`Le dernier de {wolves}`),
    joined as French joins them: `de les loups` -> `des loups`, `de Ilse` -> `d'Ilse`."""
    for name in sorted({n for n in names if n}, key=len, reverse=True):
        pattern = re.compile(r"(?<![\w'’])(de|à|que|De|À|Que) " + re.escape(name) + r"(?!\w)")
        def one(match: re.Match) -> str:
            before, word = join(match.group(1) + " ", name, True)
            return before + word
        text = pattern.sub(one, text)
        if ", " in name:      # a name with an apposition is closed by a comma: `Vask, le seigneur, éclate de rire`
            text = re.sub(re.escape(name) + r"(?= [\w«])", lambda m: m.group(0) + ",", text)
    return text


def elide(text: str) -> str:
    """Elision and contraction inside written text (a phrase with its words in):
    `que il` -> `qu'il`, `de les gobelins` stays for the narrator to decide
    (a pronoun `les` is not an article): only elision is done here."""
    def one(match: re.Match) -> str:
        last, word = match.group(2), match.group(3)
        lower = last.lower()
        if lower in ELIDED and vowel_start(word):
            short = ELIDED[lower]
            return match.group(1) + (short.capitalize() if last[:1].isupper() else short) + word
        return match.group(0)
    return re.sub(r"(^|[\s(«\u202f])(de|que|ne|se|je|me|te|jusque|lorsque|puisque) (\w+)", one, text,
                  flags=re.IGNORECASE)


def _count(match: re.Match) -> str:
    number, noun = int(match.group(1)), match.group(2)
    word = UNITS[number]
    if number == 1 and noun.startswith(FEMININE_NOUNS):
        word = "une"
    before = match.string[:match.start()].rstrip(" \u00a0\u202f")
    if not before or before.endswith((".", "!", "?", "…")):      # a sentence begins with it
        word = word.capitalize()
    return f"{word} {noun}"


def finish(text: str) -> str:
    """A paragraph in French typography: `« mots »` with narrow no-break spaces,
    the same before `: ; ! ?`, English quotes as French ones, and counts under
    ten in words (`Pendant une heure`)."""
    if not text:
        return text
    text = re.sub(r"“\s*(.*?)\s*”", lambda m: f"«{NNBSP}{m.group(1)}{NNBSP}»", text)
    text = re.sub(r"«[ \u00a0\u202f]*", "«" + NNBSP, text)
    text = re.sub(r"[ \u00a0\u202f]*»", NNBSP + "»", text)
    text = re.sub(r"(?<=[^\s!?;:])[ \u00a0\u202f]*([;:!?])(?=\s|$|[»)\u202f])", NNBSP + r"\1", text)
    text = COUNTED.sub(_count, text)
    text = PLURAL_COUNT.sub(lambda m: UNITS[int(m.group(1))] + m.group(2), text)
    return text
