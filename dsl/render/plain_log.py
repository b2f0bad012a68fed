"""The session log as plain text, what `drama run` prints: a line per event, written from Python.

This is the log's one source of truth: `drama run` and `drama render` write it from here
without Jinja (its import and a template's rendering were most of a `drama run` after the
run, issue 28), and the built-in template `log.text.j2` gives its blocks (`title`, `start`,
`event`, `final`, docs/templates.md) to an author's template by calling these same
functions (filters.py). In a template that escapes (an author's log in Markdown or HTML),
`escape` is the template's: each value is escaped where the template printed one, the
words around it are not.

Each line of the script first (`%4d`), then what the event says, then every party's state
as `available/damage pool` where it changed (not after `end of`, whose only change is that
defeats end with the situation); then the closing state and table. Pure: no I/O."""

from __future__ import annotations

from typing import Any, Callable, Iterable

from ..durations import format_seconds

__all__ = ["Log", "text"]


def text(events: list[dict]) -> str:
    """The whole session log of an event log that begins with `start` and ends with `final`.
    Raises DramaError (E602) at the first event that lacks what the log tells of it."""
    log = Log(events[0])
    out = []
    for number, e in enumerate(events, start=1):
        try:
            if number == 1:
                out += [log.title(), log.start()]
            elif number == len(events):
                out.append(log.final(e))
            elif e["type"] not in ("start", "final"):
                out.append(log.event(e))
        except (AttributeError, TypeError, KeyError, ValueError, IndexError) as error:
            raise _not_an_event(number, e, error) from None
    return "".join(out)


def _not_an_event(number: int, event: Any, error: Exception):
    from ..errors import DramaError
    kind = event.get("type") if isinstance(event, dict) else None
    what = f"has no {error.args[0]!r}" if isinstance(error, KeyError) and error.args else \
        f"holds a value of the wrong kind ({type(error).__name__}: {' '.join(str(error).split())[:200]})"
    return DramaError("E602", f"event {number} of the log ({kind!r}) {what}",
                      expected="an event as docs/events.md describes it")


def dice(faces: Iterable[int] | None) -> str:
    """`[6, 6, 4]` -> `6 6 4`; no dice -> `no dice`."""
    faces = list(faces or [])
    return " ".join(map(str, faces)) if faces else "no dice"


def signed(number: int) -> str:
    return f"{number:+d}"


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


def and_list(items: Iterable[Any]) -> str:
    """`a`, `a and b`, `a, b and c`."""
    items = [str(item) for item in items]
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def _joined(values: Iterable[Any], between: str) -> str:
    return between.join(map(str, values))


def plural(count: int, word: str, words: str | None = None) -> str:
    """`1 round`, `3 rounds`."""
    return f"{count} {word if count == 1 else (words or word + 's')}"


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


class Log:
    """The pieces of the session log of one event log, from its `start` event (the cast says
    which names read as plural); `escape` makes a printed value safe, `str` in plain text."""

    def __init__(self, start: dict, escape: Callable[[Any], str] = str):
        self.start_event = start
        self.cast = start.get("cast") or {}
        self.escape = escape

    # -- the blocks of log.text.j2

    def title(self) -> str:
        return f"== {self.escape(self.start_event['title'] or 'Untitled')} ==\n"

    def start(self) -> str:
        return f"      start: {self.escape(states(self.start_event['parties']))}\n"

    def event(self, e: dict) -> str:
        """The line of one event (neither `start` nor `final`)."""
        return self.at(e) + self.describe(e) + self.states(e) + "\n"

    def at(self, e: dict) -> str:
        """The line column: the script's line, or blanks."""
        return "%4d  " % e["line"] if e["line"] is not None else "      "

    def states(self, e: dict) -> str:
        """`   [Kara 4/2, ...]`: the states the event changed (none after `end of`)."""
        if e.get("parties") and e["type"] != "drama_end":
            return self.escape("   [" + states(e["parties"]) + "]")
        return ""

    def final(self, final: dict) -> str:
        """The final states, the state of the script, then the closing table."""
        esc = self.escape
        parties = final["parties"]
        out = [f"      final: {esc(states(parties))}\n"]
        if final.get("state"):
            shown = ", ".join(f"{esc(k)} {esc('true' if v is True else 'false' if v is False else v)}"
                              for k, v in final["state"].items())
            out.append(f"      state: {shown}\n")
        width = max([5] + [len(pid) for pid in parties])
        out.append(f"\n      {esc('%-*s' % (width, 'party'))}  available  damage pool  maximum\n")
        for pid, s in parties.items():
            out.append(f"      {esc('%-*s' % (width, pid))}  {esc('%9d' % s['quintessence'])}  "
                       f"{esc('%11d' % s['damage_pool'])}  {esc('%7d' % (s['quintessence'] + s['damage_pool']))}"
                       f"{esc('  defeated') if s['defeated'] else ''}\n")
        return "".join(out)

    # -- what an event says

    def agree(self, side: Any, one: str, more: str) -> str:
        """`Kara wins`, `Kara & Bren win`: the second form for a joint side or an id that reads
        as plural (`Goblins win`) or that the cast says is (`grammar: plural`)."""
        ids = [p.strip() for p in str(side).split(" & ")]
        if len(ids) > 1:
            return more
        from .grammar import declared, english_plural_word
        # an id is a name: singular whatever its pronouns (`Wick wins`)
        said = declared((self.cast.get(ids[0]) or {}).get("grammar"), "en")
        if said is not None:
            return more if said.plural else one
        return more if english_plural_word(ids[0]) else one

    def describe(self, e: dict) -> str:
        """What the event says, without its line column and states."""
        esc = self.escape
        kind = e["type"]
        if kind == "scene":
            return f"# {esc(e['title'])}"
        if kind == "narration":
            return f"> {esc(e['text'])}"
        if kind == "drama":
            said = f"drama {esc(e['drama'])} with {esc(_joined(e['party_ids'], ', '))}"
            if e.get("kind", "fight") != "fight":
                said += esc((", an " if e["kind"][:1] in "aeiou" else ", a ") + str(e["kind"]))
            if e.get("quarry"):
                said += esc((" by " if e["kind"] == "escape" else " after ") + _joined(e["quarry"], " & "))
            if e.get("rounds_of"):
                said += esc(", rounds of " + str(e.get("rounds_of")))
            return said
        if kind == "initiative":
            rolls = ", ".join(f"{esc(r['party'])} {esc(_joined(r['results'], '/'))}" for r in e["rolls"])
            return f"initiative {rolls}: order {esc(_joined(e['order'], ', '))}"
        if kind == "round":
            return f"round {esc(e['round'])} (t = {esc(duration(e['time']))})"
        if kind == "hold":
            return f"{esc(e['party'])} {esc(self.agree(e['party'], 'holds', 'hold'))}"
        if kind == "action":
            aim = ("vs " + str(e["gm_target"])) if e["gm_target"] is not None else "-> " + _joined(e["targets"], ", ")
            said = f"{esc(e['attacker'])} {esc(e['intent'])} {esc(aim)}{self.qualifiers(e['qualifiers'])}"
            if e["spent"]:
                said += "; spends " + ", ".join(f"{esc(p)} {esc(n)}" for p, n in e["spent"].items())
            return said
        if kind == "exchange":
            return self.exchange(e)
        if kind == "member_lost":
            return f"{esc(e['party'])} {esc(self.agree(e['party'], 'loses', 'lose'))} member {esc(e['member'])}"
        if kind == "defeat":
            return f"  {esc(e['party'])} {esc(self.agree(e['party'], 'is', 'are'))} defeated in {esc(e['drama'])}"
        if kind == "option" and e["option"] == "dictate":
            return f"  {esc(e['party'])} {esc(self.agree(e['party'], 'dictates', 'dictate'))}: {esc(e['text'])}"
        if kind == "option":
            return (f"  {esc(e['party'])} {esc(self.agree(e['party'], 'rerolls', 'reroll'))} {esc(e['lost'])} lost: "
                    f"{esc(_joined(e['dice'], ' ') or '-')}, {esc(e['returned'])} back")
        if kind == "recovery":
            checks = " then ".join(esc(_joined(c["final"], " ") or "-") for c in e["checks"])
            return f"{esc(e['party'])} {esc('rushed ') if e['rushed'] else ''}recovery: {checks}, {esc(e['returned'])} back"
        if kind == "drama_end":
            return (f"end of {esc(e['drama'])} after {esc(e['rounds'])} round{esc('s') if e['rounds'] != 1 else ''}"
                    f"{esc(': ' + str(e['text'])) if e['text'] else ''}")
        if kind in ("calm", "rest"):
            restored = esc("; restored " + _joined(e["restored"], ", ")) if e.get("restored") else ""
            return f"{esc(kind)} {esc(duration(e['seconds']))}{restored}"
        if kind in ("branch", "loop", "choice", "set"):
            return esc(control(e))
        if kind == "skipped":
            return "  " + esc(control(e))
        return esc(kind)

    def qualifiers(self, qualifiers: list) -> str:
        """` but not ...`, ` so that ...`: what an action's intent is qualified by."""
        return "".join(f" {'but not' if q['kind'] == 'not' else 'so that'} {self.escape(q['text'])}" for q in qualifiers)

    def effort(self, x: dict) -> str:
        """`Kara with Fire + Staff, GM +1, 6 6 4`: one party's effort in an exchange."""
        esc = self.escape
        used = " + ".join(str(v) for v in (x["trait"], x["treasure"]) if v) or "nothing"
        gm = esc(", GM " + signed(x["gm"])) if x["gm"] else ""
        return f"{esc(x['party'])} with {esc(used)}{gm}, {esc(dice(x['dice']))}"

    def exchange(self, e: dict) -> str:
        esc = self.escape
        efforts = e["sides"]["attacker"]["efforts"] + e["sides"]["defender"]["efforts"]
        said = "  " + ("; ".join(self.effort(x) for x in efforts) if efforts else "no dice")
        said += " => " + ", ".join(f"{esc(k)} {esc(v)}" for k, v in e["values"].items())
        if "target" in e:
            said += f" vs target {esc(e['target'])}"
        said += f": {esc(e['winner'])} {esc(self.agree(e['winner'], 'wins', 'win'))}"
        if e["tie"]:
            said += f" (tie, {esc(e['tie_settled_by'] or '')})"
        if e["double"]:
            said += " DOUBLE"
        return said
