"""French verbs of the writer's words agreeing with their subject: `{target}
plonge derrière un pilier` said of the goblins is `les gobelins plongent`. The
writer writes a phrase once, for one subject or for several; the narrator says
it of whoever it is, as French agrees the present tense of the third person.
Pure: no I/O."""

from __future__ import annotations

import re

# third person singular -> plural, for verbs that are not simply -e -> -ent
IRREGULAR = {
    "est": "sont", "a": "ont", "va": "vont", "fait": "font", "dit": "disent", "prend": "prennent",
    "met": "mettent", "vient": "viennent", "tient": "tiennent", "peut": "peuvent", "veut": "veulent",
    "doit": "doivent", "sait": "savent", "voit": "voient", "court": "courent", "sort": "sortent",
    "part": "partent", "suit": "suivent", "vit": "vivent", "lit": "lisent", "écrit": "écrivent",
    "boit": "boivent", "rit": "rient", "sourit": "sourient", "croit": "croient", "reçoit": "reçoivent",
    "fuit": "fuient", "enfuit": "enfuient", "meurt": "meurent", "sert": "servent", "dort": "dorment",
    "sent": "sentent", "ment": "mentent", "bat": "battent", "abat": "abattent", "combat": "combattent",
    "vainc": "vainquent", "convainc": "convainquent", "naît": "naissent", "paraît": "paraissent",
    "disparaît": "disparaissent", "apparaît": "apparaissent", "connaît": "connaissent",
    "plaît": "plaisent", "tait": "taisent", "joint": "joignent", "peint": "peignent", "craint": "craignent",
    "atteint": "atteignent", "éteint": "éteignent", "feint": "feignent", "étreint": "étreignent",
    "conduit": "conduisent", "détruit": "détruisent", "construit": "construisent", "produit": "produisent",
    "cuit": "cuisent", "nuit": "nuisent", "luit": "luisent", "bout": "bouillent", "vaut": "valent",
    "faut": "faut", "pleut": "pleut", "ouvre": "ouvrent", "offre": "offrent", "couvre": "couvrent",
    "souffre": "souffrent", "cueille": "cueillent", "assied": "asseyent", "rompt": "rompent",
    "interrompt": "interrompent", "vêt": "vêtent", "acquiert": "acquièrent", "conquiert": "conquièrent",
    "résout": "résolvent", "absout": "absolvent", "moud": "moulent", "coud": "cousent", "clôt": "closent",
}
# prefixed forms of the irregular verbs (re-, dé-, ...) follow their root
ROOTS = ("prend", "met", "vient", "tient", "fait", "dit", "court", "sort", "part", "suit", "voit", "écrit",
         "bat", "vainc", "paraît", "connaît", "duit", "struit", "joint", "peint", "vêt", "quiert", "ouvre",
         "couvre", "offre", "sent", "ment", "sert", "dort", "lit", "vit", "boit", "croit", "çoit", "cueille")
PLURAL = {plural: singular for singular, plural in IRREGULAR.items()}
# singular verbs that end in -ent but are no plural
SINGULAR_ENT = ("ment", "sent", "dément", "ressent", "consent")
SINGULAR_ENDINGS = ("vient", "tient", "prend", "rend", "pend", "fend", "tend", "vend")
# the prefixes under which an irregular verb keeps its forms (re-prend, com-prend, dé-fait)
PREFIXES = ("re", "ré", "dé", "dis", "com", "pro", "sur", "sou", "con", "pré", "ap", "at", "en", "entre",
            "inter", "contre", "ad", "ob", "per", "sub", "trans", "par", "main", "sous", "é", "ab", "r")
# what may stand between the subject and its verb: negation and object pronouns
CLITICS = r"(?:(?:(?:ne|se|les|le|la|lui|leur|y|en|me|te)\s)|(?:n|s|l|m|t)['’])*"
# words that begin no verb phrase
DETERMINERS = {"le", "la", "les", "un", "des", "du", "ce", "ces", "mon", "ma", "mes", "son", "sa", "ses",
               "leurs", "tout", "tous", "toutes", "quelques", "plusieurs", "aucun", "aucune", "nul", "nulle"}
# words after `et` that are no verb (`rugit, et la salle tremble`)
NOT_VERBS = {"une", "cette", "quelque", "chaque", "même", "autre", "elle", "comme", "toute", "notre", "votre",
             "leur", "puis", "enfin", "alors", "aussitôt", "encore"}
# second group: -it -> -issent (bondit, saisit, jaillit, rugit, finit...), a stem without irregular -it
SECOND = re.compile(r"^(.+[^aeiouû])it$")
_FIRST = re.compile(r"^(\s*" + CLITICS + r")([\wàâçéèêëîïôûùœ'’-]+)(.*)$", re.S)


def plural_of(verb: str) -> str | None:
    """The third person plural of a singular present-tense verb, or None when the
    word does not look like one."""
    lower = verb.lower()
    if lower in IRREGULAR:
        return IRREGULAR[lower]
    for root in sorted(ROOTS, key=len, reverse=True):
        if lower.endswith(root) and lower[:-len(root)] in PREFIXES:
            base = _root_plural(root)
            if base is not None:
                return lower[:-len(root)] + base
    if lower.endswith("e") and len(lower) > 2:
        return lower + "nt"
    if lower.endswith(("end", "ond", "erd", "ord", "and")):      # rend, répond, perd, mord, répand
        return lower + "ent"
    if SECOND.match(lower):
        return lower[:-1] + "ssent"
    return None


def _root_plural(root: str) -> str | None:
    if root in IRREGULAR:
        return IRREGULAR[root]
    return {"duit": "duisent", "struit": "struisent", "quiert": "quièrent", "çoit": "çoivent"}.get(root)


def singular_of(verb: str) -> str | None:
    """The third person singular of a plural present-tense verb, or None."""
    lower = verb.lower()
    if lower in PLURAL:
        return PLURAL[lower]
    if not lower.endswith("ent") or lower in SINGULAR_ENT or lower.endswith(SINGULAR_ENDINGS):
        return None
    for singular, plural in IRREGULAR.items():
        if singular in ROOTS and lower.endswith(plural) and lower[:-len(plural)] in PREFIXES:
            return lower[:-len(plural)] + singular
    if lower.endswith("issent") and len(lower) > 7:
        return lower[:-6] + "it"
    if lower.endswith(("endent", "ondent", "erdent", "ordent", "andent")):
        return lower[:-3]
    return lower[:-2]                       # plongent -> plonge


def agree(text: str, plural: bool) -> str:
    """The writer's verb phrase (`plonge derrière un pilier`, `se faufile entre les
    caisses`, `n'a plus nulle part où se cacher`) with its first verb agreeing
    with a singular or plural subject; as written when the first word is no verb."""
    match = _FIRST.match(text)
    if match is None:
        return text
    head, word, rest = match.groups()
    if word.lower() in NOT_VERBS or word.lower() in DETERMINERS:
        return text
    changed = _agreed(word, plural)
    if changed is None:
        return text
    if changed.lower() in ("est", "sont"):
        rest = _participle(rest, plural)
    # a second verb joined by `et` agrees too (`sonne du cor et traque {target}`)
    rest = re.sub(r"(?<=\s)et ([\wàâçéèêëîïôûùœ-]+)(?=[\s,.]|$)",
                  lambda m: "et " + (_agreed(m.group(1), plural) if m.group(1).lower() not in NOT_VERBS
                                     and _agreed(m.group(1), plural) else m.group(1)), rest, count=1)
    return head + changed + rest


def _agreed(word: str, plural: bool) -> str | None:
    """One verb in the number wanted; None when it is no verb, or already agrees."""
    lower = word.lower()
    if plural and (lower in PLURAL or (lower.endswith("ent") and lower not in SINGULAR_ENT
                                       and not lower.endswith(SINGULAR_ENDINGS))):
        return None                           # already plural
    if not plural and (lower in IRREGULAR or not lower.endswith(("ent", "ont"))):
        return None                           # already singular
    changed = plural_of(word) if plural else singular_of(word)
    if changed is None:
        return None
    return changed[:1].upper() + changed[1:] if word[:1].isupper() else changed


def _participle(rest: str, plural: bool) -> str:
    """`est engloutie` -> `sont englouties`: the participle after être agrees in number."""
    match = re.match(r"(\s+)([\wàâçéèêëîïôûù]+)(.*)$", rest, re.S)
    if match is None:
        return rest
    space, word, after = match.groups()
    if plural and re.search(r"(é|ée|i|ie|u|ue)$", word):
        word += "s"
    elif not plural and re.search(r"(és|ées|ies|ues)$", word) and len(word) > 3:
        word = word[:-1]
    return space + word + after
