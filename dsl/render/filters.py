"""The filters and globals that templates get (see docs/templates.md).

Every one is a pure function of its arguments, except `pick` and `who`, which
also depend on what was picked earlier in the same rendering (to avoid saying
the same thing twice in a row, and to introduce a party by its full name the
first time): the same events and template still give the same text."""

from __future__ import annotations

import zlib
from typing import Any, Iterable

from markupsafe import Markup

from .plain_log import Log, and_list, control, dice, duration, plural, signed, state, states
from .narrator import Narrator, bare

ORDINALS = ("zeroth", "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth",
            "ninth", "tenth", "eleventh", "twelfth")
NUMBER_WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
                "eleven", "twelve")


def stable_hash(text: str) -> int:
    """A hash that is the same in every process (unlike Python's hash())."""
    return zlib.crc32(text.encode("utf-8"))


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


def name_of(party: dict):
    """The `name` filter: a party id or a side (`Kara & Bren`) as full names."""
    def name(side: Any) -> str:
        if side is None:
            return "nobody"
        if side == "GM":
            return "the GM"
        return and_list(party[p]["name"] if p in party else p for p in str(side).split(" & "))
    return name


def log_filters(start: dict) -> dict:
    """The pieces of the session log (plain_log.py) as the filters of log.text.j2:
    `start|log_title`, `start|log_start`, `e|log_at`, `e|log_event`, `e|log_states`,
    `final|log_final`; in a template that escapes, each value escaped where it is printed."""
    from jinja2 import pass_eval_context
    from markupsafe import escape
    logs = {False: Log(start), True: Log(start, lambda value: str(escape(value)))}     # (str: Markup + str escapes the str)

    def piece(write):
        @pass_eval_context
        def filter_(eval_ctx, value):
            text = write(logs[bool(eval_ctx.autoescape)], value)
            return Markup(text) if eval_ctx.autoescape else text
        return filter_
    return {"log_title": piece(lambda log, first: Log(first, log.escape).title()),
            "log_start": piece(lambda log, first: Log(first, log.escape).start()),
            "log_at": piece(Log.at), "log_event": piece(Log.describe), "log_states": piece(Log.states),
            "log_final": piece(Log.final)}


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
        **log_filters(context["start"]),
        "narrate": finished(teller.item), "tells": teller.tells, "begins": finished(teller.drama_begins),
        "ends": finished(teller.drama_ends), "round_begins": finished(teller.round_begins),
        "recap": finished(teller.recap), "t": word, "finish": lambda text: finish(book.language, str(text)),
        "agree": Log(context["start"]).agree,
        "pick": prose.pick, "who": prose.who, "name": name_of(context["party"]), "and_list": book.join,
        "dice": dice, "signed": signed, "capfirst": capfirst, "sentence": sentence, "ordinal": ordinal,
        "count_word": count_word, "duration": duration, "state": state, "states": states,
        "md_cell": md_cell, "bare": bare, "plural": plural, "control": control,
    }
