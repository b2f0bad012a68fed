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
# (not `sent`, `sert`, `part`...: `présentent`, `observent` are first-group verbs; those are FAMILY_WORDS)
ROOTS = ("prend", "met", "vient", "tient", "fait", "dit", "court", "suit", "voit", "écrit",
         "bat", "vainc", "paraît", "connaît", "duit", "struit", "joint", "peint", "vêt", "quiert", "ouvre",
         "couvre", "offre", "dort", "lit", "vit", "boit", "croit", "çoit", "cueille")
PLURAL = {plural: singular for singular, plural in IRREGULAR.items()}
# the prefixes under which an irregular verb keeps its forms (re-prend, com-prend, dé-fait)
PREFIXES = ("re", "ré", "dé", "dis", "com", "pro", "sur", "sou", "con", "pré", "ap", "at", "en", "entre",
            "inter", "contre", "ad", "ob", "per", "sub", "trans", "par", "main", "sous", "é", "ab", "r", "pour")
# endings of whole families of the third group, singular -> plural, longest first: `survient` ->
# `surviennent`, `séduit` -> `séduisent`, `atteint` -> `atteignent`. An ending that first-group verbs
# share in the plural (`présentent`, `observent`, `demandent`, `soignent`) is no family: those verbs
# are in FAMILY_WORDS, by their whole plural.
ENDINGS = (
    ("plaît", "plaisent"), ("naît", "naissent"), ("paraît", "paraissent"), ("croît", "croissent"),
    ("prend", "prennent"), ("vient", "viennent"), ("tient", "tiennent"), ("quiert", "quièrent"),
    ("met", "mettent"), ("bat", "battent"), ("court", "courent"), ("dort", "dorment"), ("fait", "font"),
    ("çoit", "çoivent"), ("voit", "voient"), ("crit", "crivent"), ("fuit", "fuient"), ("suit", "suivent"),
    ("duit", "duisent"), ("truit", "truisent"), ("cuit", "cuisent"), ("nuit", "nuisent"), ("luit", "luisent"),
    ("trait", "traient"), ("sout", "solvent"), ("clut", "cluent"),
    ("rompt", "rompent"), ("vainc", "vainquent"), ("meut", "meuvent"), ("vêt", "vêtent"),
    ("perd", "perdent"), ("ord", "ordent"), ("ond", "ondent"), ("end", "endent"), ("and", "andent"),
)
# plurals whose ending is a family's but whose verb is another (`maudissent`, `envoient`), and the
# third-group plurals whose ending first-group verbs share: by their whole word
FAMILY_WORDS = {
    "maudit": "maudissent", "suffit": "suffisent", "envoie": "envoient", "renvoie": "renvoient",
    "sent": "sentent", "ressent": "ressentent", "consent": "consentent",
    "ment": "mentent", "dément": "démentent", "sort": "sortent", "ressort": "ressortent",
    "convoie": "convoient", "fourvoie": "fourvoient", "dévoie": "dévoient", "vaut": "valent",
    "prévaut": "prévalent", "équivaut": "équivalent", "revaut": "revalent",
    "part": "partent", "repart": "repartent", "sert": "servent", "dessert": "desservent",
    "craint": "craignent", "plaint": "plaignent", "contraint": "contraignent", "peint": "peignent",
    "éteint": "éteignent", "atteint": "atteignent", "feint": "feignent", "étreint": "étreignent",
    "teint": "teignent", "ceint": "ceignent", "restreint": "restreignent", "astreint": "astreignent",
    "joint": "joignent", "rejoint": "rejoignent", "adjoint": "adjoignent", "enjoint": "enjoignent",
    "répand": "répandent", "épand": "épandent", "répond": "répondent", "correspond": "correspondent",
    "fond": "fondent", "confond": "confondent", "pond": "pondent", "tond": "tondent", "mord": "mordent",
    "tord": "tordent", "hait": "haïssent", "médit": "médisent",
}
WORDS_PLURAL = {singular: plural for singular, plural in FAMILY_WORDS.items()}
WORDS_SINGULAR = {plural: singular for singular, plural in FAMILY_WORDS.items()}
# the family endings that are also first-group plurals: only FAMILY_WORDS read them back
SHARED = ("sentent", "mentent", "sortent", "partent", "servent", "aignent", "eignent", "oignent", "andent",
          "ondent", "ordent")
# singular verbs that end in -ent but are no plural
SINGULAR_ENT = ("ment", "sent", "dément", "ressent", "consent")
SINGULAR_ENDINGS = ("vient", "tient", "prend", "rend", "pend", "fend", "tend", "vend")
# first-group verbs in -isser, -aisser, -oisser (`glissent`: glisse, never `glisit`)
ISSER = ("gliss", "hiss", "pliss", "tiss", "criss", "liss", "viss", "esquiss", "couliss", "hériss", "biss",
         "piss", "éclabouss")
# what may stand between the subject and its verb: negation and object pronouns
CLITICS = r"(?:(?:(?:ne|se|les|le|la|lui|leur|y|en|me|te)\s)|(?:n|s|l|m|t)['’])*"
# words that begin no verb phrase
DETERMINERS = {"le", "la", "les", "un", "des", "du", "ce", "ces", "mon", "ma", "mes", "son", "sa", "ses",
               "leurs", "tout", "tous", "toutes", "quelques", "plusieurs", "aucun", "aucune", "nul", "nulle"}
# words after `et` that are no verb (`rugit, et la salle tremble`)
NOT_VERBS = {"une", "cette", "quelque", "chaque", "même", "autre", "elle", "comme", "toute", "notre", "votre",
             "leur", "puis", "enfin", "alors", "aussitôt", "encore", "personne", "rien", "il", "ils", "elles",
             "on", "nous", "vous", "ceux", "celle", "celles", "celui", "jamais", "toujours", "aussi", "plus",
             "pas", "trop", "très", "si", "bien", "mal", "sans", "avec", "pour", "vers", "contre", "dans", "sur",
             "sous", "par", "entre", "lui", "eux", "moi", "toi", "soi", "là", "ici", "non", "oui", "que", "qui",
             "dont", "où", "quand", "mais", "ou", "ni", "car", "donc", "tant", "peu", "beaucoup", "presque",
             "soudain", "vite", "ensuite", "surtout", "parfois", "souvent", "déjà", "guère", "point", "quoi"}
# verbs of state: what follows them is an attribute, agreeing in gender and number (`est rattrapée`)
COPULAS = {"est", "sont", "reste", "restent", "semble", "semblent", "demeure", "demeurent", "devient",
           "deviennent", "paraît", "paraissent", "tombe", "tombent", "s'avoue", "s'avouent"}
# adverbs that may stand between a verb of state and its attribute (`est enfin rattrapé`)
ADVERBS = {"bien", "enfin", "déjà", "tout", "presque", "trop", "si", "très", "encore", "toujours", "aussitôt",
           "vite", "complètement", "totalement", "à", "peine", "pas", "plus", "jamais", "soudain", "alors",
           "désormais", "aussi", "vraiment", "bel", "et", "même"}
# second group: -it -> -issent (bondit, saisit, jaillit, rugit, finit...), a stem without irregular -it
SECOND = re.compile(r"^(.+[^aeiouû])it$")
_FIRST = re.compile(r"^(\s*" + CLITICS + r")([\wàâçéèêëîïôûùœ'’-]+)(.*)$", re.S)


def plural_of(verb: str) -> str | None:
    """The third person plural of a singular present-tense verb, or None when the
    word does not look like one."""
    lower = verb.lower()
    if lower in IRREGULAR:
        return IRREGULAR[lower]
    if lower in WORDS_PLURAL:
        return WORDS_PLURAL[lower]
    for root in sorted(ROOTS, key=len, reverse=True):
        if lower.endswith(root) and lower[:-len(root)] in PREFIXES:
            base = _root_plural(root)
            if base is not None:
                return lower[:-len(root)] + base
    if lower.endswith("e") and len(lower) > 2:
        return lower + "nt"
    for singular, plural in ENDINGS:
        if lower.endswith(singular):
            return lower[:-len(singular)] + plural
    if SECOND.match(lower):
        return lower[:-1] + "ssent"
    return None


def _isser(stem: str) -> bool:
    """Whether a stem in -iss is a first-group verb's (`gliss`, `re-gliss`), not a second
    group's (`franchiss`, whose tail `hiss` is no verb of its own)."""
    return any(stem == tail or stem.endswith(tail) and stem[:-len(tail)] in PREFIXES for tail in ISSER)


def _root_plural(root: str) -> str | None:
    if root in IRREGULAR:
        return IRREGULAR[root]
    return {"duit": "duisent", "struit": "struisent", "quiert": "quièrent", "çoit": "çoivent"}.get(root)


def singular_of(verb: str) -> str | None:
    """The third person singular of a plural present-tense verb, or None."""
    lower = verb.lower()
    if lower in PLURAL:
        return PLURAL[lower]
    if lower in WORDS_SINGULAR:
        return WORDS_SINGULAR[lower]
    if not lower.endswith(("ent", "ont")) or lower in SINGULAR_ENT or lower.endswith(SINGULAR_ENDINGS):
        return None
    for singular, plural in IRREGULAR.items():
        if singular in ROOTS and lower.endswith(plural) and lower[:-len(plural)] in PREFIXES:
            return lower[:-len(plural)] + singular
    for singular, plural in sorted(ENDINGS, key=lambda pair: -len(pair[1])):
        if lower.endswith(plural) and not plural.endswith(SHARED):
            if plural == "voient" and lower.endswith(("oyent", "aient")):
                continue
            return lower[:-len(plural)] + singular
    if lower.endswith("ont"):
        return None
    if lower.endswith("issent") and len(lower) > 7 and not lower.endswith(("aissent", "oissent")) \
            and not _isser(lower[:-3]):
        return lower[:-6] + "it"
    return lower[:-2]                       # plongent -> plonge, glissent -> glisse, demandent -> demande


def agree(text: str, plural: bool, gender: str = "") -> str:
    """The writer's verb phrase (`plonge derrière un pilier`, `se faufile entre les
    caisses`, `n'a plus nulle part où se cacher`, `est pris au piège`) with its
    verbs agreeing with a singular or plural subject, and what follows a verb of
    state (`est`, `reste`, `se retrouve`, `a été`) with its gender too, when it
    is known (`f`, `m`): `est prise au piège`. As written when the first word is
    no verb."""
    match = _FIRST.match(text)
    if match is None:
        return text
    head, word, rest = match.groups()
    if word.lower() in NOT_VERBS or word.lower() in DETERMINERS:
        return text
    changed = _agreed(word, plural)
    if changed is None and not _is_verb(word):
        return text
    verb = changed or word
    copula = _copula(head, verb, rest)
    if copula:
        if verb.lower() in ("a", "ont"):
            rest = rest[:copula] + _attribute(rest[copula:], plural, gender)
        else:
            rest = _attribute(rest, plural, gender)
    # the verbs joined to it agree too (`sonne du cor et traque {target}`, `recule, puis se relève`),
    # and those of a list of them (`recule, bondit et s'enfuit`)
    if copula:
        # the attributes joined to the first agree with it (`sont rattrapés et ramenés`, `vifs, hardis`)
        start = copula if verb.lower() in ("a", "ont") else 0
        joined = _JOINED_ATTRIBUTES.match(rest[start:])
        if joined is not None:
            items = _ATTRIBUTE_ITEM.sub(lambda m: m.group(1) + (
                m.group(2) if m.group(2).lower() in NOT_VERBS | DETERMINERS else _inflect(m.group(2), plural, gender)),
                joined.group(2))
            rest = rest[:start] + joined.group(1) + items + rest[start + joined.end():]
    last = None if copula or changed is None else _LAST_JOIN.search(rest)
    if last is not None:
        # a list of verbs, or of verb phrases, ended by a joined one (`recule, bondit et s'enfuit`,
        # `escalade le mur, franchit la grille et disparaît`): each verb after a comma agrees too
        rest = _LIST_ITEM.sub(lambda m: m.group(1) + (
            m.group(2) if m.group(2).lower() in NOT_VERBS | DETERMINERS else _agreed(m.group(2), plural)
            or m.group(2)), rest[:last.start()]) + rest[last.start():]
    return head + verb + _coordinated(rest, plural, copula)


# (without `le`, `la`, `les`, `leur`: after `et` they are more often articles, `et la salle tremble`)
_JOINED = re.compile(r"(?<=\s)(et|puis|mais|ou) ((?:(?:ne|se|y|en|me|te)\s|(?:n|s|l|m|t)['’])*)"
                     r"([\wàâçéèêëîïôûùœ-]+)(?=[\s,.;!?]|$)")


# the last join of a list of verbs (`... et s'enfuit`), and a verb after a comma before it: past
# the clitics that are no article (`, se relève`, `, n'hésite`; not `, la salle`)
_WORD = r"[\wàâçéèêëîïôûùœ-]+"
_LAST_JOIN = re.compile(r",?\s(?:et|puis|ou)\s(?!.*\s(?:et|puis|ou)\s)", re.S)
_LIST_ITEM = re.compile(r"(,\s(?:(?:ne|se|y|en|me|te)\s|(?:n|s|m|t)['’])*)([a-zàâçéèêëîïôûùœ][\wàâçéèêëîïôûùœ-]*)"
                        r"(?=[\s,]|$)")
# attributes after the first one, up to the first word of another kind: `vif, hardi et ramené`
_JOINED_ATTRIBUTES = re.compile(r"^(\s+" + _WORD + r")((?:(?:,\s|,?\s(?:et|ou)\s)" + _WORD + r"(?=[\s,.;!?]|$))+)")
_ATTRIBUTE_ITEM = re.compile(r"((?:,\s|,?\s(?:et|ou)\s))(" + _WORD + r")")


def _coordinated(rest: str, plural: bool, copula: bool) -> str:
    def one(m: re.Match) -> str:
        joined, clitics, word = m.groups()
        if word.lower() in NOT_VERBS or word.lower() in DETERMINERS:
            return m.group(0)
        if copula and not clitics and word.lower() not in IRREGULAR and word.lower() not in PLURAL:
            return m.group(0)           # `est vif et agile`: an attribute, no verb
        changed = _agreed(word, plural)
        return f"{joined} {clitics}{changed or word}"
    return _JOINED.sub(one, rest)


def _is_verb(word: str) -> bool:
    lower = word.lower()
    return lower in IRREGULAR or lower in PLURAL or lower in WORDS_PLURAL or lower in WORDS_SINGULAR \
        or plural_of(lower) is not None or singular_of(lower) is not None


def _copula(head: str, verb: str, rest: str) -> int:
    """Whether the verb is one of state, its attribute after it: the length of what
    stands before the attribute in `rest` (`a été` + 4), else 0 (1 when right after)."""
    lower = verb.lower()
    if lower in COPULAS:
        return 1
    if re.search(r"(?:^|\s)(?:se\s|s['’])$", head) and lower in (
            "retrouve", "retrouvent", "trouve", "trouvent", "sent", "sentent", "montre", "montrent",
            "révèle", "révèlent", "tient", "tiennent", "croit", "croient", "voit", "voient"):
        return 1
    match = re.match(r"\s+été\b", rest)
    if lower in ("a", "ont") and match:
        return match.end()
    return 0


# attributes with a feminine of their own, masculine -> feminine
FEMININE_WORDS = {
    "beau": "belle", "nouveau": "nouvelle", "vieux": "vieille", "fou": "folle", "mou": "molle", "frais": "fraîche",
    "faux": "fausse", "gros": "grosse", "bas": "basse", "las": "lasse", "épais": "épaisse", "gras": "grasse",
    "bref": "brève", "sec": "sèche", "blanc": "blanche", "franc": "franche", "long": "longue", "doux": "douce",
    "roux": "rousse", "jaloux": "jalouse", "seul": "seule", "nul": "nulle", "sauf": "sauve", "favori": "favorite",
    "public": "publique", "gentil": "gentille", "pareil": "pareille", "cruel": "cruelle", "réel": "réelle",
    "mortel": "mortelle", "bon": "bonne", "complet": "complète", "inquiet": "inquiète", "secret": "secrète",
    "discret": "discrète", "prêt": "prête", "muet": "muette", "net": "nette", "malin": "maligne",
    "fier": "fière", "dernier": "dernière", "premier": "première", "entier": "entière", "grand": "grande",
    "froid": "froide", "chaud": "chaude", "lourd": "lourde", "sourd": "sourde", "blond": "blonde",
    "profond": "profonde", "rond": "ronde", "mort": "morte", "fort": "forte", "petit": "petite",
    "ouvert": "ouverte", "couvert": "couverte", "offert": "offerte", "souffert": "soufferte",
    "découvert": "découverte", "inerte": "inerte", "sain": "saine", "plein": "pleine", "vain": "vaine",
    "certain": "certaine", "hautain": "hautaine", "lointain": "lointaine", "soudain": "soudaine",
    "mauvais": "mauvaise", "gris": "grise", "exquis": "exquise", "précis": "précise", "épris": "éprise",
    "haut": "haute", "droit": "droite", "étroit": "étroite", "adroit": "adroite", "maladroit": "maladroite",
    "ravi": "ravie", "brutal": "brutale", "loyal": "loyale", "fatal": "fatale", "égal": "égale",
}
MASCULINE_WORDS = {f: m for m, f in FEMININE_WORDS.items() if f != m}
# masculine participles in -s (`pris`, `mis`, `assis`, `conquis`): no plural of another word
_S_PARTICIPLE = re.compile(r"(pris|mis|assis|quis|clos|inclus|exclus|reclus|dissous|absous|résolus?)$")


def _attribute(rest: str, plural: bool, gender: str) -> str:
    """The word after a verb of state (past adverbs: `est enfin rattrapé`) in the
    number, and the gender when known: `rattrapé` -> `rattrapée`, `rattrapés`."""
    match = re.match(r"((?:\s+(?:" + "|".join(sorted(ADVERBS, key=len, reverse=True)) + r"))*\s+)"
                     r"([\wàâçéèêëîïôûùœ]+)(.*)$", rest, re.S | re.IGNORECASE)
    if match is None:
        return rest
    space, word, after = match.groups()
    if word.lower() in DETERMINERS or word.lower() in NOT_VERBS or word[:1].isupper():
        return rest
    return space + _inflect(word, plural, gender) + after


def _inflect(word: str, plural: bool, gender: str) -> str:
    """An attribute in a number and (when known) a gender; as written when it is
    not one that French inflects in a way these rules know."""
    base, feminine = _lemma(word)
    if base is None:
        return word
    if gender == "f":
        feminine = True
    elif gender == "m":
        feminine = False
    out = _feminine(base) if feminine else base
    if out is None:
        return word
    if plural and not out.endswith(("s", "x")):
        out = out + "s"
    return out


def _lemma(word: str) -> tuple[str | None, bool]:
    """(the masculine singular of an attribute, whether it was written feminine),
    or (None, False) for a word these rules do not inflect."""
    lower = word
    if lower.endswith(("es", "s")) and not _S_PARTICIPLE.search(lower) and lower not in FEMININE_WORDS \
            and not lower.endswith(("eux", "ous", "ais", "ois", "as", "os", "us")) or lower.endswith(("ées", "ies", "ues")):
        lower = lower[:-1]
    if lower in MASCULINE_WORDS:
        return MASCULINE_WORDS[lower], True
    if lower in FEMININE_WORDS:
        return lower, False
    for fem, masc in (("ée", "é"), ("ie", "i"), ("ue", "u"), ("ise", "is"), ("uite", "uit"), ("aite", "ait"),
                      ("ite", "it"), ("erte", "ert"), ("inte", "int"), ("euse", "eux"), ("ive", "if"),
                      ("ante", "ant"), ("ente", "ent")):
        if lower.endswith(fem) and len(lower) > len(fem) + 1:
            return lower[:-len(fem)] + masc, True
    if lower.endswith(("é", "i", "u", "is", "it", "ert", "int", "eux", "if", "ant")) and len(lower) > 2:
        return lower, False
    return None, False


def _feminine(base: str) -> str | None:
    if base in FEMININE_WORDS:
        return FEMININE_WORDS[base]
    if base.endswith("eux"):
        return base[:-1] + "se"
    if base.endswith("if"):
        return base[:-1] + "ve"
    if base.endswith(("é", "i", "u", "is", "it", "ert", "int", "ant", "ent")):
        return base + "e"
    return None


def _agreed(word: str, plural: bool) -> str | None:
    """One verb in the number wanted; None when it is no verb, or already agrees."""
    lower = word.lower()
    if plural and (lower in PLURAL or lower in WORDS_SINGULAR or (lower.endswith("ent") and lower not in SINGULAR_ENT
                                       and not lower.endswith(SINGULAR_ENDINGS))):
        return None                           # already plural
    if not plural and (lower in IRREGULAR or not lower.endswith(("ent", "ont"))):
        return None                           # already singular
    changed = plural_of(word) if plural else singular_of(word)
    if changed is None:
        return None
    return changed[:1].upper() + changed[1:] if word[:1].isupper() else changed


# words in -er, -ir, -oir that are no infinitive
NOT_INFINITIVES = {"hier", "fier", "cher", "amer", "hiver", "mer", "fer", "enfer", "fier", "désir", "plaisir",
                   "loisir", "avenir", "soir", "espoir", "noir", "miroir", "trottoir", "couloir", "devoir", "pouvoir",
                   "savoir", "premier", "dernier", "entier", "léger", "étranger", "danger", "cavalier", "sir"}


def verb_form(phrase: str) -> tuple[str, str] | None:
    """The form of the verb a French phrase begins with, past its clitics:
    (`infinitive`, the verb) for `revenir sur ses pas`, (`finite`, the verb) for
    `revient sur ses pas`; None when the first word is no verb these rules
    recognise (a `{placeholder}`, a noun, or a word in -re, which may be either:
    `prendre`, `entre`)."""
    match = _FIRST.match(phrase)
    if match is None:
        return None
    word = match.group(2)
    lower = word.lower()
    if lower in NOT_VERBS or lower in DETERMINERS or word[:1].isupper() or "{" in phrase[:match.start(2)]:
        return None
    if lower.endswith(("er", "ir", "ïr", "oir")) and len(lower) > 3 and lower not in NOT_INFINITIVES:
        return ("infinitive", word)
    if lower.endswith("re"):
        return None
    if lower in IRREGULAR or lower in PLURAL or lower in WORDS_PLURAL or lower in WORDS_SINGULAR \
            or plural_of(lower) is not None or singular_of(lower) is not None:
        return ("finite", word)
    return None
