"""The filters and globals that templates get (see docs/templates.md).

Every one is a pure function of its arguments, except `pick` and `who`, which
also depend on what was picked earlier in the same rendering (to avoid saying
the same thing twice in a row, and to introduce a party by its full name the
first time): the same events and template still give the same text."""

from __future__ import annotations

import zlib
from typing import Any, Iterable

from markupsafe import Markup

from ..durations import format_seconds
from .context import and_list
from .narrator import Narrator, bare

ORDINALS = ("zeroth", "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth",
            "ninth", "tenth", "eleventh", "twelfth")
NUMBER_WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
                "eleven", "twelve")


def stable_hash(text: str) -> int:
    """A hash that is the same in every process (unlike Python's hash())."""
    return zlib.crc32(text.encode("utf-8"))


def dice(faces: Iterable[int] | None) -> str:
    """`[6, 6, 4]` -> `6 6 4`; no dice -> `no dice`."""
    faces = list(faces or [])
    return " ".join(map(str, faces)) if faces else "no dice"


def signed(number: int) -> str:
    return f"{number:+d}"


def capfirst(text: Any) -> Any:
    """The first letter in upper case, the rest untouched (unlike `capitalize`)."""
    if not text:
        return text
    value = str(text)
    result = value[:1].upper() + value[1:]
    return Markup(result) if isinstance(text, Markup) else result


def sentence(text: Any) -> Any:
    """Capitalised, and ending in `.`, `!`, `?` or `…` (a period is added)."""
    value = str(text).strip()
    if not value:
        return text
    if value[-1] not in ".!?…\"'”’":
        value += "."
    value = value[:1].upper() + value[1:]
    return Markup(value) if isinstance(text, Markup) else value


def ordinal(number: int) -> str:
    """1 -> `first`, ..., 12 -> `twelfth`, 13 -> `13th`."""
    if 0 <= number < len(ORDINALS):
        return ORDINALS[number]
    suffix = "th" if 10 <= number % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(number % 10, "th")
    return f"{number}{suffix}"


def count_word(number: int) -> str:
    """3 -> `three` (up to twelve), else the digits."""
    return NUMBER_WORDS[number] if 0 <= number < len(NUMBER_WORDS) else str(number)


def duration(seconds: int) -> str:
    """Seconds of in-world time in short form: `1 h 6 s`."""
    return format_seconds(int(seconds or 0))


def state(party_state: dict) -> str:
    """A party state as `available/damage pool` (`4/2`), with `(defeated)`."""
    text = f"{party_state.get('quintessence', 0)}/{party_state.get('damage_pool', 0)}"
    return text + (" (defeated)" if party_state.get("defeated") else "")


def states(parties: dict) -> str:
    """`Kara 4/2, Bren 3/2`: every party of a `parties` mapping."""
    return ", ".join(f"{pid} {state(s)}" for pid, s in parties.items())


def md_cell(text: Any) -> str:
    """Text for a Markdown table cell: `|` escaped, on one line."""
    return str(text).replace("\\", "\\\\").replace("|", "\\|").replace("\r", " ").replace("\n", " ")


class Prose:
    """`pick` and `who`: the varied wording of a transcript, from the seed."""

    def __init__(self, seed: int, party: dict):
        self.seed = seed
        self.party = party
        self.introduced: set[str] = set()
        self.last: dict[tuple, int] = {}

    def pick(self, options: Iterable[Any], key: Any = "") -> Any:
        """One of `options`, chosen by a stable hash of the seed and `key` (an
        event's step, perhaps with a word). The choice made just before from the
        same options is skipped, so two neighbours never read alike."""
        options = list(options)
        if not options:
            return ""
        index = stable_hash(f"{self.seed}:{key}") % len(options)
        memory = tuple(str(o) for o in options)
        if len(options) > 1 and self.last.get(memory) == index:
            index = (index + 1) % len(options)
        self.last[memory] = index
        return options[index]

    def who(self, side: Any, key: Any = "") -> str:
        """How prose names a party, a side (`Kara & Bren`) or a list of them:
        its full name the first time, then its short name; a group on its own
        by its name or by its members (`Snik, Grub and Mox`), chosen from the
        seed and `key`."""
        if side is None:
            return "nobody"
        sides = [side] if isinstance(side, str) else list(side)
        ids = [part.strip() for s in sides for part in str(s).split(" & ")]
        return and_list(self._one(pid, f"{key}:{pid}", alone=len(ids) == 1) for pid in ids)

    def _one(self, pid: str, key: str, alone: bool) -> str:
        if pid == "GM":
            return "the GM"
        party = self.party.get(pid)
        if party is None:
            return pid
        if pid not in self.introduced:
            self.introduced.add(pid)
            return party["name"]
        if not party["group"]:
            return party["short"]
        if not alone:
            return party["name"]
        choices = [party["name"], party["members_text"], party["name"]]
        return choices[stable_hash(f"{self.seed}:{key}") % len(choices)]


def plural(count: int, word: str, words: str | None = None) -> str:
    """`1 round`, `3 rounds`."""
    return f"{count} {word if count == 1 else (words or word + 's')}"


def name_of(party: dict):
    """The `name` filter: a party id or a side (`Kara & Bren`) as full names."""
    def name(side: Any) -> str:
        if side is None:
            return "nobody"
        if side == "GM":
            return "the GM"
        return and_list(party[p]["name"] if p in party else p for p in str(side).split(" & "))
    return name


def control(event: dict) -> str:
    """What a control-flow event (`branch`, `loop`, `skipped`, `choice`, `set`) says, in a log."""
    kind = event.get("type")
    if kind == "branch":
        if event.get("taken") is None:
            return "if: no arm runs"
        return f"if: line {event['taken']} runs ({event.get('condition')})"
    if kind == "loop":
        ended = {"until": "its condition holds", "count": "all done",
                 "bound": f"its bound of {event.get('bound')} reached"}.get(event.get("ended"), event.get("ended"))
        return f"repeat: {plural(event.get('passes', 0), 'pass', 'passes')}, {ended}"
    if kind == "choice":
        how = {"given": "given", "command": "--choose", "table": "at the table",
               "seeded": "picked by the dice"}.get(event.get("by"), event.get("by"))
        shut = [o["label"] for o in event.get("options") or () if not o.get("available")]
        unavailable = f"; not available: {', '.join(shut)}" if shut else ""
        return f"choice {event.get('choice')}: {event.get('taken')} ({how}{unavailable})"
    if kind == "set":
        value = event.get("value")
        shown = "true" if value is True else "false" if value is False else str(value)
        before = event.get("before")
        was = "" if before is None or isinstance(value, bool) else f" (was {before})"
        return f"set {event.get('name')} = {shown}{was}"
    if kind == "skipped":
        parties = list(event.get("party_ids") or [])
        if event.get("why") == "defeated":
            return f"skipped: {and_list(parties)} {'is' if len(parties) == 1 else 'are'} defeated"
        if event.get("why") == "target defeated":        # RULES.md point 15
            return f"skipped: {'its target' if len(parties) == 1 else 'its targets'} {and_list(parties)} " \
                   f"{'is' if len(parties) == 1 else 'are'} defeated"
        return f"skipped: {and_list(parties)} ({event.get('why')})"
    return str(kind)


def agree(party: dict):
    """The `agree` filter of the logs: `"Kara & Bren"|agree("wins", "win")` is
    `win`: the second form is for a joint side or an id that reads as plural."""
    from .grammar import declared, english_plural_word

    def form(side: Any, one: str, more: str) -> str:
        ids = [p.strip() for p in str(side).split(" & ")]
        if len(ids) > 1:
            return more
        # an id is a name: singular whatever its pronouns (`Wick wins`), unless it
        # reads as plural (`Goblins win`) or the cast says so (`grammar: plural`)
        said = declared((party.get(ids[0]) or {}).get("grammar"), "en")
        if said is not None:
            return more if said.plural else one
        return more if english_plural_word(ids[0]) else one
    return form


def filters(context: dict, book=None, told: list | None = None) -> dict:
    """The filters of a rendering; with `told`, the sentences the narrator tells
    are appended to it as (kind, fact, words) (see `dsl.render.told`)."""
    from .phrasebook import load
    from .tell import Teller
    prose = Prose(context["seed"], context["party"])
    book = book if book is not None else load("en")
    teller = Teller(Narrator(book, context), context, context["story"])
    if told is not None:
        teller.told = told

    def word(key: str, **values: Any) -> str:
        text = book.word(key)
        return text % values if values else text

    from .grammar import finish

    def finished(tell):
        """A paragraph of the transcript in the language's typography (grammar.py)."""
        return lambda *args, **kwargs: finish(book.language, tell(*args, **kwargs))

    return {
        "narrate": finished(teller.item), "tells": teller.tells, "begins": finished(teller.drama_begins),
        "ends": finished(teller.drama_ends), "round_begins": finished(teller.round_begins),
        "recap": finished(teller.recap), "t": word, "finish": lambda text: finish(book.language, str(text)),
        "agree": agree(context["party"]),
        "pick": prose.pick, "who": prose.who, "name": name_of(context["party"]), "and_list": book.join,
        "dice": dice, "signed": signed, "capfirst": capfirst, "sentence": sentence, "ordinal": ordinal,
        "count_word": count_word, "duration": duration, "state": state, "states": states,
        "md_cell": md_cell, "bare": bare, "plural": plural, "control": control,
    }
