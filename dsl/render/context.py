"""The context of a template: the event log, and what is worked out from it once
(parties, sections, dramatic situations, rounds, exchanges with the state after
each loss, chart data). It reads only event dicts (docs/events.md)."""

from __future__ import annotations

import re
from typing import Any

from ..durations import format_seconds
from ..scenes import DEFAULT_KIND
from .grammar import told_name
from .plain_log import and_list


# line colours of the chart, one per party in cast order (then again)
PALETTE = ("#c0392b", "#1f77b4", "#d4a017", "#2e8b57", "#8e44ad", "#e67e22", "#16a085", "#7f8c8d")

# chart geometry, in the units of the SVG viewBox
CHART_WIDTH, CHART_HEIGHT = 640, 260
CHART_LEFT, CHART_RIGHT, CHART_TOP, CHART_BOTTOM = 44, 12, 14, 46


def short_name(pid: str, name: str) -> str:
    """How prose names a party after the first mention: its id when the id is
    the first word of its name (`Kara` of `Kara the Ember-Witch`), else the
    leading capitalised words of its name (`Ysolde` of `Ysolde of the Seven
    Blades`, `Harrow` of `Harrow the Raider Chief`), else the name. An id is no
    name otherwise: `Chief` is not how a reader knows Harrow."""
    words = name.replace(",", " , ").split()
    if not words or not words[0][:1].isupper():
        return name
    if words[0] == pid:
        return pid
    lead = []
    for word in words:
        if not word[:1].isupper():
            break
        lead.append(word)
    return " ".join(lead) if lead else name


def epithet(name: str, short: str) -> str | None:
    """Another way to name a party without repeating its name, from its own full
    name: `the Ember-Witch` of `Kara the Ember-Witch`, `the harbour advocate` of
    `Ilse Varga, harbour advocate`; none when the name has no such tail."""
    if "," in name:
        tail = name.split(",", 1)[1].strip()
        if not tail or "," in tail:
            return None
        return tail if tail.split()[0].lower() in ("the", "a", "an") else "the " + tail
    if name.startswith(short + " the ") and len(name) > len(short) + 5:
        return name[len(short) + 1:]
    return None


def _epithet_in(lang: str, name: str, short: str) -> str | None:
    """The epithet in the transcript's language: English's `the ...`; in French
    only a tail that has its own article (`Kara la Sorcière des Braises`)."""
    if lang == "en":
        return epithet(name, short)
    for article in (" la ", " le ", " les ", " l'"):
        if name.startswith(short + article) and len(name) > len(short) + len(article) + 2:
            return name[len(short) + 1:]
    return None


def localized(value: Any, lang: str) -> Any:
    """Narration words given per language (`{en: ..., fr: ...}`): the language's,
    else English, else the first; plain text as it is."""
    if isinstance(value, dict):
        return value.get(lang) or value.get("en") or next(iter(value.values()), None)
    return value


def _short(pid: str, sheet: dict, name: str, lang: str) -> str:
    """The short name in the language: the cast's for it, else its English one as the language tells it
    (`the watch`: `le Watch`), else from the name."""
    short = sheet.get("short")
    if isinstance(short, dict) and short.get(lang):
        return short[lang]
    return told_name(localized(short, lang), sheet, lang) if short else short_name(pid, name)


def _party(pid: str, sheet: dict, index: int, start: dict, final: dict, lang: str = "en") -> dict:
    # a name the cast or catalogue gives in the language is as written; one left in English may not be
    name = (sheet.get("names") or {}).get(lang) or told_name(sheet.get("name") or pid, sheet, lang)
    members = [told_name(m, {}, lang) for m in sheet.get("members") or []]
    pronouns = sheet.get("pronouns") or ("they/them/their" if members else None)
    words = {move: {key: localized(text, lang) for key, text in (said or {}).items()}
             for move, said in (sheet.get("words") or {}).items()}
    return {
        "id": pid, "name": name, "short": (short := _short(pid, sheet, name, lang)),
        "epithet": localized(sheet.get("epithet"), lang) or (_epithet_in(lang, name, short) if not members else None),
        "members": members, "pronouns": pronouns, "pronouns_given": bool(sheet.get("pronouns")), "plural": bool(members) and bool(pronouns and pronouns.split("/")[0] == "they"),
        "grammar": sheet.get("grammar"), "words": words, "clauses": {k: localized(v, lang) for k, v in (sheet.get("clauses") or {}).items()},
        "members_text": and_list(members), "group": bool(members), "index": index,
        "color": PALETTE[index % len(PALETTE)], "maximum": sheet.get("maximum", 0),
        "traits": dict(sheet.get("traits") or {}), "treasures": dict(sheet.get("treasures") or {}),
        "start": dict(start), "final": dict(final),
        "lost": 0, "spent": 0, "returned": 0, "defeats": [], "exchanges": 0, "wins": 0,
    }


class _Builder:
    """One pass over the events."""

    def __init__(self, events: list[dict], lang: str = "en"):
        self.events = events
        self.start = events[0]
        self.final = events[-1] if events[-1].get("type") == "final" else None
        cast = self.start.get("cast") or {}
        first = self.start.get("parties") or {}
        last = (self.final or {}).get("parties") or {}
        ids = list(cast) + [pid for pid in first if pid not in cast]
        self.parties = [_party(pid, cast.get(pid, {}), i, first.get(pid, {}), last.get(pid, first.get(pid, {})),
                               lang) for i, pid in enumerate(ids)]
        self.party = {p["id"]: p for p in self.parties}
        self.state = {pid: dict(s) for pid, s in first.items()}
        self.history = {pid: [(0, s.get("quintessence", 0))] for pid, s in first.items()}
        self.time = 0
        self.sections: list[dict] = []
        self.section: dict | None = None
        self.drama: dict | None = None
        self.round: dict | None = None
        self.dramas: list[dict] = []
        self.rounds: list[dict] = []
        self.exchanges: list[dict] = []
        self.last_item: dict | None = None
        self.paragraphs: list[tuple[dict, list[str]]] = []   # each narration item and its lines, joined once at the end

    # -- where items go

    def _new_section(self, title: str | None, line, step: int) -> dict:
        self.section = {"title": title, "line": line, "step": step, "key": step, "entries": []}
        self.sections.append(self.section)
        return self.section

    def _add(self, item: dict) -> dict:
        if self.section is None:
            self._new_section(None, None, item["step"])
        item.setdefault("scene", len(self.sections) - 1)
        if self.round is not None:
            item.setdefault("round", self.round["number"])
            self.round["entries"].append(item)
        else:
            if self.section is None:
                self._new_section(None, None, item["step"])
            self.section["entries"].append(item)
        self.last_item = item
        return item

    def _item(self, kind: str, step: int, event: dict, **extra) -> dict:
        return {"kind": kind, "step": step, "key": step, "line": event.get("line"), "event": event,
                "time": self.time, "drama": self.drama["name"] if self.drama else None,
                "round": self.round["number"] if self.round else None, **extra}

    # -- party states

    def _apply(self, step: int, parties: dict | None) -> None:
        for pid, s in (parties or {}).items():
            self.state[pid] = dict(s)
            value = s.get("quintessence", 0)
            series = self.history.setdefault(pid, [(0, value)])
            if series[-1][0] == step:
                series[-1] = (step, value)
            elif series[-1][1] != value:
                series.append((step, value))

    def _losses(self, event: dict) -> list[dict]:
        """Each loss with the state of its party right after it."""
        out = []
        for loss in event.get("losses") or []:
            pid = loss.get("party")
            now = dict(self.state.get(pid) or {"quintessence": 0, "damage_pool": 0, "defeated": False})
            amount = loss.get("amount", 0)
            now["quintessence"] = now.get("quintessence", 0) - amount
            now["damage_pool"] = now.get("damage_pool", 0) + amount
            self.state[pid] = now
            out.append({**loss, "after": dict(now)})
            if pid in self.party:
                self.party[pid]["lost"] += amount
        # the event's own states are the truth for the last loss of each party
        for pid, s in (event.get("parties") or {}).items():
            for loss in reversed(out):
                if loss["party"] == pid:
                    loss["after"] = dict(s)
                    break
        return out

    # -- the pass

    def build(self) -> None:
        for step, event in enumerate(self.events):
            kind = event.get("type")
            if isinstance(event.get("time"), int):
                self.time = event["time"]
            handler = getattr(self, f"_on_{kind}", None)
            if handler is not None:
                handler(step, event)
            elif kind not in ("start", "final"):
                self._add(self._item("other", step, event))
            self._apply(step, event.get("parties") if kind not in ("start", "final") else None)
        for item, lines in self.paragraphs:
            item["text"] = " ".join(lines)
        for round_ in self.rounds:
            self._holds(round_["entries"])
        last = len(self.events) - 1
        for pid, series in self.history.items():
            if series[-1][0] != last:
                series.append((last, series[-1][1]))

    @staticmethod
    def _holds(entries: list[dict]) -> None:
        """`held_back` of an exchange: the parties whose turn it passed and who
        act later in the round on their held action (the holds that matter)."""
        acting = [i for i in entries if i["kind"] in ("exchange", "recovery")]
        for n, item in enumerate(acting):
            if item["kind"] != "exchange":
                continue
            later = {pid for other in acting[n + 1:] for pid in ((other["event"].get("turn") or {}).get("held") or [])}
            item["held_back"] = [pid for pid in ((item["turn"] or {}).get("passed") or []) if pid in later]

    def _on_scene(self, step, event):
        if self.drama is not None:
            self._add(self._item("scene", step, event, title=event.get("title")))
        else:
            self._new_section(event.get("title"), event.get("line"), step)
            self.last_item = None

    def _on_choice(self, step, event):
        self._add(self._item("choice", step, event, choice=event.get("choice"), taken=event.get("taken")))

    def _on_narration(self, step, event):
        """Consecutive `>` lines are one paragraph; a blank `>` line starts a new one."""
        text = event.get("text", "") or ""
        last = self.last_item
        if last is not None and last["kind"] == "narration" and last.get("open"):
            if not text.strip():
                last["open"] = False
            else:
                self.paragraphs[-1][1].append(text.strip())   # (joined at the end: a long paragraph costs its length, not its square)
                last.setdefault("steps", [last["step"]]).append(step)
            return
        if not text.strip():
            return
        item = self._item("narration", step, event, text=text.strip(), open=True)
        self.paragraphs.append((item, [item["text"]]))
        self._add(item)

    def _on_drama(self, step, event):
        item = self._item("drama", step, event, name=event.get("drama"),
                          party_ids=list(event.get("party_ids") or []), rounds=[], end=None,
                          scene_kind=event.get("kind") or DEFAULT_KIND,
                          initiative=None, exchanges=0, defeated=[])
        item["drama"] = item["name"]
        self._add(item)
        self.drama = item
        self.dramas.append(item)
        self._new_round(1, step, event, None)

    def _new_round(self, number: int, step: int, event: dict, round_event: dict | None) -> None:
        self.round = {"number": number, "step": step, "key": step, "line": event.get("line"),
                      "time": event.get("time", self.time), "event": round_event,
                      "unused": list((round_event or {}).get("unused") or []),
                      "drama": self.drama["name"], "situation": self.drama["step"], "entries": []}
        self.drama["rounds"].append(self.round)
        self.rounds.append(self.round)

    def _on_round(self, step, event):
        if self.drama is None:
            self._add(self._item("other", step, event))
            return
        if self.round is not None and self.round["number"] == event.get("round") == 1:
            self.round["event"] = event      # `round` before anyone acted: still round 1
            return
        self._new_round(event.get("round", len(self.drama["rounds"]) + 1), step, event, event)
        self.last_item = None

    def _on_initiative(self, step, event):
        rolls = {r.get("party"): r for r in event.get("rolls") or []}
        ordered = [rolls[p] for p in event.get("order") or [] if p in rolls]
        item = self._add(self._item("initiative", step, event, order=list(event.get("order") or []),
                                    rolls=ordered))
        if self.drama is not None and self.drama["initiative"] is None:
            self.drama["initiative"] = item

    def _on_member_lost(self, step, event):
        self._add(self._item("member_lost", step, event, party=event.get("party"), member=event.get("member")))

    def _on_hold(self, step, event):
        self._add(self._item("hold", step, event, party=event.get("party")))

    def _on_action(self, step, event):
        item = self._item("exchange", step, event, action=event, intent=event.get("intent"),
                          attacker=event.get("attacker"), actors=list(event.get("actors") or []),
                          targets=list(event.get("targets") or []), comparisons=[], defeats=[], options=[],
                          spent=dict(event.get("spent") or {}), turn=event.get("turn"), held_back=[],
                          joined=[pid for pid in ((event.get("turn") or {}).get("held") or [])
                                  if len(event.get("actors") or []) > 1])
        for pid, amount in item["spent"].items():
            if pid in self.party:
                self.party[pid]["spent"] += amount
                self.party[pid]["lost"] += amount
        self._add(item)
        self.exchanges.append(item)
        if self.drama is not None:
            self.drama["exchanges"] += 1

    def _group(self) -> dict | None:
        item = self.last_item
        return item if item is not None and item["kind"] == "exchange" else None

    def _on_exchange(self, step, event):
        group = self._group()
        if group is None:       # an exchange without its action: give it one
            self._on_action(step, {**event, "type": "action", "targets": [event.get("defender")],
                                   "actors": [], "qualifiers": [], "extra_targets": [],
                                   "spent": {}, "turn": None, "gm_target": event.get("target")})
            group = self.last_item
        sides = event.get("sides") or {}
        winner = event.get("winner")
        loser = event.get("defender") if winner == event.get("attacker") else event.get("attacker")
        comparison = {**event, "step": step, "key": step, "loser": loser,
                      "attacker_won": winner == event.get("attacker"),
                      "against_gm": event.get("defender") == "GM",
                      "attacker_side": sides.get("attacker") or {}, "defender_side": sides.get("defender") or {},
                      "losses": self._losses(event)}
        group["comparisons"].append(comparison)
        for pid in (sides.get("attacker") or {}).get("parties") or []:
            if pid in self.party:
                self.party[pid]["exchanges"] += 1
                if comparison["attacker_won"]:
                    self.party[pid]["wins"] += 1
        for pid in (sides.get("defender") or {}).get("parties") or []:
            if pid in self.party:
                self.party[pid]["exchanges"] += 1
                if not comparison["attacker_won"]:
                    self.party[pid]["wins"] += 1

    def _on_defeat(self, step, event):
        group = self._group()
        pid = event.get("party")
        if pid in self.party:
            self.party[pid]["defeats"].append(event.get("drama"))
        if self.drama is not None:
            self.drama["defeated"].append(pid)
        item = self._item("defeat", step, event, party=pid)
        if group is not None:
            group["defeats"].append(item)
        else:
            self._add(item)

    def _on_option(self, step, event):
        group = self._group()
        item = self._item("option", step, event, party=event.get("party"), option=event.get("option"),
                          text=event.get("text"), returned=event.get("returned", 0))
        if event.get("option") == "reroll" and event.get("party") in self.party:
            self.party[event["party"]]["returned"] += event.get("returned", 0)
        if group is not None:
            index = event.get("comparison", 0)
            matching = [c for c in group["comparisons"] if c.get("index") == index]
            item["comparison"] = matching[0] if matching else None
            group["options"].append(item)
        else:
            item["comparison"] = None
            self._add(item)
            self.last_item = item

    def _on_recovery(self, step, event):
        helpers = [h.get("party") for h in event.get("helpers") or []]
        if event.get("party") in self.party:
            self.party[event["party"]]["returned"] += event.get("returned", 0)
        self._add(self._item("recovery", step, event, party=event.get("party"), helpers=helpers,
                             rushed=bool(event.get("rushed")), checks=list(event.get("checks") or []),
                             returned=event.get("returned", 0)))

    def _on_drama_end(self, step, event):
        if self.drama is not None:
            # the defeats of the situation end with it (R7); logs before `parties`
            # was added to drama_end say so only in docs/events.md
            cleared = [pid for pid in self.drama["party_ids"] if (self.state.get(pid) or {}).get("defeated")]
            for pid in cleared:
                if not (event.get("parties") or {}).get(pid):
                    self.state[pid] = {**self.state[pid], "defeated": False}
            self.drama["end"] = {**event, "step": step, "key": step, "cleared": cleared,
                                 "scene": self.drama.get("scene")}
            self.drama = None
            self.round = None
            self.last_item = None
        else:
            self._add(self._item("other", step, event))

    def _time_passed(self, step, event):
        duration = event.get("duration") or format_seconds(event.get("seconds", 0))
        for pid in event.get("restored") or []:
            if pid in self.party:
                before = self.state.get(pid, {}).get("damage_pool", 0)
                self.party[pid]["returned"] += before
        self._add(self._item(event.get("type"), step, event, duration=duration,
                             seconds=event.get("seconds", 0), restored=list(event.get("restored") or [])))

    _on_calm = _time_passed
    _on_rest = _time_passed


def _chart(builder: _Builder) -> dict:
    """Every party's available quintessence after each event, as SVG geometry."""
    last = max(len(builder.events) - 1, 1)
    top = max([p["maximum"] for p in builder.parties] + [1])
    inner_w = CHART_WIDTH - CHART_LEFT - CHART_RIGHT
    inner_h = CHART_HEIGHT - CHART_TOP - CHART_BOTTOM

    def x(step: int) -> str:
        return f"{CHART_LEFT + inner_w * step / last:.1f}"

    def y(value: int) -> str:
        return f"{CHART_TOP + inner_h * (1 - value / top):.1f}"

    lines = []
    count = len(builder.parties)
    for party in builder.parties:
        # a nudge of a pixel or two per party, so that equal values stay visible
        nudge = (party["index"] - (count - 1) / 2) * 2.0

        def at(value: int) -> str:
            return f"{float(y(value)) + nudge:.1f}"

        series = builder.history.get(party["id"], [(0, 0), (last, 0)])
        points = []
        previous = None
        for step, value in series:
            if previous is not None and value != previous:
                points.append(f"{x(step)},{at(previous)}")
            points.append(f"{x(step)},{at(value)}")
            previous = value
        lines.append({"party": party["id"], "name": party["name"], "color": party["color"],
                      "index": party["index"], "points": " ".join(points),
                      "values": [{"step": s, "quintessence": v} for s, v in series]})
    step_every = 1 if top <= 10 else -(-top // 5)
    y_ticks = [{"value": v, "y": y(v)} for v in range(0, top + 1, step_every)]
    if y_ticks[-1]["value"] != top:
        y_ticks.append({"value": top, "y": y(top)})
    x_ticks = [{"step": r["step"], "x": x(r["step"]), "label": f"R{r['number']}", "drama": r["drama"],
                "round": r["number"]} for r in builder.rounds]
    return {"width": CHART_WIDTH, "height": CHART_HEIGHT, "left": CHART_LEFT, "right": CHART_WIDTH - CHART_RIGHT,
            "top": CHART_TOP, "bottom": CHART_HEIGHT - CHART_BOTTOM, "steps": last + 1, "maximum": top,
            "lines": lines, "x_ticks": x_ticks, "y_ticks": y_ticks,
            "x_label": "event step (R = start of a round)", "y_label": "quintessence"}


_SAFE_ID = re.compile(r"[^A-Za-z0-9_-]+")


def build_context(events: list[dict], *, as_: str, fmt: str, numbers: bool, lang: str = "en") -> dict[str, Any]:
    """Everything a template receives (see docs/templates.md); `lang` chooses the
    names and words the cast gives per language."""
    from .story import read_story
    builder = _Builder(events, lang)
    builder.build()
    story = read_story(events)
    for party in builder.parties:
        party["took_part"] = party["id"] in story.took_part
    start = builder.start
    final = builder.final or {"type": "final", "line": None, "time": builder.time,
                              "parties": {pid: dict(s) for pid, s in builder.state.items()}}
    setting = start.get("setting") or {}
    for party in builder.parties:
        party["anchor"] = "party-" + _SAFE_ID.sub("-", party["id"]).strip("-").lower()
    return {
        "events": events, "start": start, "final": final, "title": start.get("title") or "Untitled",
        "seed": start.get("seed", 0), "version": start.get("version"), "setting": setting,
        "round_seconds": setting.get("round_seconds", 0), "cast": start.get("cast") or {},
        "parties": builder.parties, "party": builder.party, "sections": builder.sections,
        "dramas": builder.dramas, "rounds": builder.rounds, "exchanges": builder.exchanges,
        "chart": _chart(builder), "duration": final.get("time", builder.time),
        "numbers": bool(numbers), "format": fmt, "kind": as_, "story": story,
    }
