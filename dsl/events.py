"""The event log: engine results as versioned, JSON-ready events (see docs/events.md), and an exchange's events grouped."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Iterable, Iterator, Mapping

from .frozen import frozen
from .scenes import DEFAULT_KIND
from .terminal import json_safe

if TYPE_CHECKING:       # for the annotations only: reading an event log (`drama render`) loads no engine
    from .engine import PartySheet, PartyState, Settings
    from .engine import results as r

VERSION = 1


def states(parties: Mapping[str, PartyState]) -> dict:
    return {pid: {"quintessence": s.quintessence, "damage_pool": s.damage_pool, "defeated": s.defeated}
            for pid, s in parties.items()}


def start(title: str, settings: Settings, sheets: Iterable[PartySheet],
          now: Mapping[str, PartyState], seed: int, state: Mapping[str, bool | int] | None = None) -> dict:
    event = {
        "type": "start", "line": None, "version": VERSION, "title": title, "seed": seed,
        "setting": {
            "name": settings.name, "round_seconds": settings.round_seconds,
            "recovery": str(settings.recovery), "calm": str(settings.calm),
            "full_rest": str(settings.full_rest), "dice": {"sides": settings.sides, "high": settings.high},
            "ties": settings.ties,
        },
        "cast": {sheet.id: _sheet(sheet) for sheet in sheets},
        "parties": states(now),
    }
    if state:
        event["state"] = dict(state)      # the flags and counters the cast starts with
    return event


def _sheet(sheet: PartySheet) -> dict:
    """A party of the cast; the words for narration only when the cast gives them."""
    out = {"name": sheet.name, "maximum": sheet.quintessence, "members": list(sheet.members),
           "traits": dict(sheet.traits), "treasures": dict(sheet.treasures)}
    if sheet.short is not None:
        out["short"] = _plain(sheet.short)
    if sheet.pronouns is not None:
        out["pronouns"] = sheet.pronouns
    if sheet.words:
        out["words"] = _plain(sheet.words)
        if "defend" in sheet.words:
            # what its `defend` move uses: a defence with something else is not told in its words
            move = sheet.moves.get("defend")
            out["defend_uses"] = {"trait": move.trait if move else None, "treasure": move.treasure if move else None}
    if sheet.clauses:
        out["clauses"] = _plain(sheet.clauses)
    if sheet.names:
        out["names"] = _plain(sheet.names)
    if sheet.grammar is not None:
        out["grammar"] = _plain(sheet.grammar)
    return out


def _plain(value):
    """Frozen mappings as plain dicts, for JSON."""
    if isinstance(value, Mapping):
        return {key: _plain(item) for key, item in value.items()}
    return value


def final(now: Mapping[str, PartyState], time: int, state: Mapping[str, bool | int] | None = None) -> dict:
    event = {"type": "final", "line": None, "time": time, "parties": states(now)}
    if state:
        event["state"] = dict(state)      # flags and counters at the end, when the script has any
    return event


def _effort(e: r.Effort) -> dict:
    return {"party": e.party, "trait": e.trait, "trait_level": e.trait_level, "trait_counts": e.trait_counts,
            "treasure": e.treasure, "treasure_value": e.treasure_value, "gm": e.gm, "cap": e.cap,
            "dice": list(e.dice), "rolled_by": e.rolled_by, "value": e.value}


def _side(side: r.Side) -> dict:
    if len(side.efforts) == 1:              # the usual side: one party (saves a list comprehension)
        efforts = [_effort(side.efforts[0])]
    else:
        efforts = [_effort(e) for e in side.efforts]
    return {"name": side.name, "parties": list(side.parties), "value": side.value, "stated": side.stated,
            "efforts": efforts}


def _turn(turn: r.Turn | None) -> dict | None:
    if turn is None:
        return None
    return {"on_turn": list(turn.on_turn), "held": list(turn.held), "passed": list(turn.passed)}


def _loss(loss: r.Loss) -> dict:
    return {"party": loss.party, "amount": loss.amount, "owed": loss.owed, "kind": loss.kind}


def _after(losses: list[r.Loss]) -> dict:
    """Each party's state after the last of `losses` that fell on it (as `states`)."""
    return {l.party: {"quintessence": l.after.quintessence, "damage_pool": l.after.damage_pool,
                      "defeated": l.after.defeated} for l in losses}


def exchange(result: r.Exchange, line: int | None, split: dict[str, int] | None = None, *,
             intent_quoted: bool = False) -> list[dict]:
    """One `action` event (declaration and spending), one `exchange` event per
    comparison, then a `defeat` event per defeated party. `intent_quoted`: the
    intent was written in quotes (the writer's own verb phrase)."""
    drama, round_ = result.drama, result.round
    # the losses in one pass: spends, ones (shown with the first comparison), each comparison's own
    spends: list[r.Loss] = []
    ones: list[r.Loss] = []
    by_comparison: dict[int, list[r.Loss]] = {}
    for l in result.losses:
        if l.kind == "spend":
            spends.append(l)
        elif l.kind == "ones":
            ones.append(l)
        elif l.kind == "loss":
            by_comparison.setdefault(l.comparison, []).append(l)
    action = {"type": "action", "line": line, "drama": drama, "round": round_, "intent": result.intent,
              "attacker": result.attacker.name, "actors": list(result.attacker.parties),
              "target": result.target, "targets": [s.name for s in result.defences],
              "gm_target": result.gm_target,
              "qualifiers": [{"kind": kind, "text": text} for kind, text in result.qualifiers],
              "extra_targets": list(result.extra_targets),
              "spent": {l.party: l.amount for l in spends} if spends else {}, "turn": _turn(result.turn)}
    if split:
        action["split"] = dict(split)
    if spends:
        action["parties"] = _after(spends)
    if intent_quoted:
        action["intent_quoted"] = True
    events = [action]
    for index, (comparison, side) in enumerate(zip(result.comparisons, result.defences)):
        losses = by_comparison.get(index, [])
        if index == 0:
            losses = ones + losses
        event = {"type": "exchange", "line": line, "drama": drama, "round": round_, "index": index,
                 "intent": result.intent, "attacker": comparison.attacker, "defender": comparison.defender,
                 "values": dict(comparison.values)}
        if comparison.target is not None:
            event["target"] = comparison.target
        event["winner"] = comparison.winner
        event["tie"] = comparison.tie
        event["tie_settled_by"] = comparison.tie_settled_by
        event["double"] = comparison.double
        event["loss"] = comparison.loss
        event["sides"] = {"attacker": _side(result.attacker), "defender": _side(side)}
        event["losses"] = [_loss(l) for l in losses]
        if comparison.tie_dice:
            event["tie_dice"] = [list(pair) for pair in comparison.tie_dice]
        if losses:
            event["parties"] = _after(losses)
        events.append(event)
    for pid in result.defeats:
        events.append({"type": "defeat", "line": line, "drama": drama, "round": round_, "party": pid,
                       "parties": states({pid: result.parties[pid]})})
    return events


def option(result: r.OptionTaken, line: int | None, drama: str | None, round_: int | None) -> dict:
    event = {"type": "option", "line": line, "drama": drama, "round": round_, "party": result.party,
             "option": result.kind, "comparison": result.comparison}
    if result.kind == "dictate":
        event["text"] = result.text
    else:
        event.update({"lost": result.lost, "dice": list(result.dice), "rolled_by": result.rolled_by,
                      "returned": result.returned, "parties": states(result.parties)})
    return event


def recovery(result: r.Recovery, line: int | None, drama: str | None, round_: int | None) -> dict:
    return {
        "type": "recovery", "line": line, "drama": drama, "round": round_, "party": result.party,
        "rushed": result.rushed, "trait": result.trait, "treasure": result.treasure,
        "helpers": [{"party": p, "trait": t, "treasure": tr} for p, t, tr in result.helpers],
        "bonus": result.bonus,
        "checks": [{"dice": list(c.dice), "rerolled": list(c.rerolled), "rerolls": list(c.rerolls),
                    "final": list(c.final), "returning": c.returning, "chosen": c.chosen,
                    "rolled_by": c.rolled_by}
                   for c in result.checks],
        "returned": result.returned, "time": result.time, "turn": _turn(result.turn),
        "parties": states(result.parties),
    }


def initiative(result: r.Initiative, line: int | None) -> dict:
    return {"type": "initiative", "line": line, "drama": result.drama, "round": result.round,
            "order": list(result.order),
            "rolls": [{"party": x.party, "trait": x.trait, "treasure": x.treasure, "bonus": x.bonus,
                       "dice": list(x.dice), "results": list(x.results), "rolled_by": x.rolled_by}
                      for x in result.rolls]}


def drama_begun(result: r.DramaBegun, line: int | None, kind: str = DEFAULT_KIND,
                quarry: list[str] | None = None) -> dict:
    """`kind`: the kind of scene (docs/language.md), for the transcript's words;
    `quarry`: who runs, when the script names them (`, a chase after Orm`)."""
    event = {"type": "drama", "line": line, "drama": result.drama, "party_ids": list(result.parties),
             "time": result.time, "round_seconds": result.round_seconds, "rounds_of": result.rounds_of,
             "kind": kind}
    if quarry:
        event["quarry"] = list(quarry)
    return event


def round_begun(result: r.RoundBegun, line: int | None) -> dict:
    return {"type": "round", "line": line, "drama": result.drama, "round": result.round,
            "time": result.time, "unused": list(result.unused)}


def held(result: r.Held, line: int | None) -> dict:
    return {"type": "hold", "line": line, "drama": result.drama, "round": result.round, "party": result.party,
            "passed": list(result.passed)}


def drama_ended(result: r.DramaEnded, line: int | None) -> dict:
    return {"type": "drama_end", "line": line, "drama": result.drama, "rounds": result.rounds,
            "time": result.time, "text": result.text, "parties": states(result.parties)}


def time_passed(result: r.TimePassed, line: int | None, duration: str) -> dict:
    event = {"type": result.kind, "line": line, "duration": duration, "seconds": result.seconds,
             "time": result.time, "restored": list(result.restored),
             "rested": result.rested, "full_rest": result.full_rest}
    if result.parties:
        event["parties"] = states(result.parties)
    return event


# ---------------------------------------------------------------- the script's own text
# (no engine result behind these either)

def scene(line: int, title: str) -> dict:
    """A `scene` line, its placeholders filled in."""
    return {"type": "scene", "line": line, "title": title}


def narration(line: int, text: str) -> dict:
    """A `>` narration line, its placeholders filled in."""
    return {"type": "narration", "line": line, "text": text}


def member_lost(line: int, party: str, member: str, drama: str | None, round_: int | None) -> dict:
    """`Goblins lose member "Old Sal"`: a member of a group falls (narration only)."""
    return {"type": "member_lost", "line": line, "drama": drama, "round": round_, "party": party,
            "member": member}


def defeat(line: int, party: str) -> dict:
    """A party defeated in an exchange, in a lean run (`drama simulate`), which
    logs no exchange events: only the defeats."""
    return {"type": "defeat", "line": line, "party": party}


# ---------------------------------------------------------------- control flow
# (no engine result behind these: the interpreter reports what the script did)

def branch(file: str, line: int, taken: int | None, condition: str | None) -> dict:
    """An `if` chose an arm: `taken` is the line of the arm that ran (the `if`, an
    `else if` or the `else`), or None when none did; `condition` is that arm's
    condition as written ("else" for the `else`)."""
    return {"type": "branch", "line": line, "file": file, "taken": taken, "condition": condition}


def loop_ended(file: str, line: int, passes: int, ended: str, bound: int) -> dict:
    """A `repeat` loop ended after `passes` passes: `ended` is "until" (its
    condition came true), "count" (`repeat N times` ran them all) or "bound"
    (it reached `at most N` with the condition still false)."""
    return {"type": "loop", "line": line, "file": file, "passes": passes, "ended": ended, "bound": bound}


def skipped(file: str, line: int, parties: list[str], drama: str | None, round_: int | None,
            why: str = "defeated") -> dict:
    """A statement inside control flow was skipped: the parties it was written
    for are defeated in the running dramatic situation (R7)."""
    return {"type": "skipped", "line": line, "file": file, "drama": drama, "round": round_,
            "party_ids": parties, "why": why}


# ---------------------------------------------------------------- choices and state

def choice(file: str, line: int, question, answer, drama: str | None, round_: int | None) -> dict:
    """A `choose` block was answered: its options (label, available, weight), the
    option taken and how it was chosen ("given", "command", "table" or "seeded")."""
    return {"type": "choice", "line": line, "file": file, "drama": drama, "round": round_,
            "choice": question.choice,
            "options": [{"label": o.label, "available": o.available, "weight": o.weight}
                        for o in question.options],
            "taken": answer.option, "by": answer.by}


def state_set(line: int, name: str, value: bool | int, before: bool | int | None) -> dict:
    """A `set` line: the flag or counter, its new value, and its value before (None: not set)."""
    return {"type": "set", "line": line, "name": name, "value": value, "before": before}


# one encoder for every event: json.dumps with options would build a new one each
# time. An event is a tree of dicts, lists and scalars made here, never a cycle, so
# the encoder need not track the containers it is inside (about 1.5x faster)
_dumps = json.JSONEncoder(ensure_ascii=False, separators=(", ", ": "), check_circular=False).encode


def _encode(event: dict) -> str:
    """One event as one line of JSON, control characters escaped (dsl/terminal.py)."""
    return json_safe(_dumps(event))


class Streamed:
    """An event log written as it is made: each event an interpreter appends goes
    to `write` at once, as a line of JSON Lines (`drama run --format json`);
    nothing is kept but the count, so memory does not grow with the log."""

    def __init__(self, write):
        self._write = write
        self.count = 0

    def append(self, event: dict) -> None:
        self._write(_encode(event) + "\n")
        self.count += 1

    def extend(self, events: Iterable[dict]) -> None:
        for event in events:
            self.append(event)

    def __len__(self) -> int:
        return self.count


def to_json_lines(events: Iterable[dict]) -> str:
    """One compact JSON object per line, keys in a fixed order, ending in a newline."""
    return "".join(_encode(event) + "\n" for event in events)




# ------------------------------------------------------------------ an exchange's events, together

@frozen
class ExchangeEvents:
    """The events of one exchange, as they follow one another in the log: its `action`
    (None when the log has comparisons without it, cut short), its comparisons (an
    `exchange` event per defending side), the `defeat`s it caused, and the options of a
    double win taken right after it (`option` events: `dictates`, `rerolls`)."""

    action: dict | None
    comparisons: tuple[dict, ...]
    defeats: tuple[dict, ...]
    options: tuple[dict, ...]


def grouped(events: Iterable[dict]) -> Iterator[dict | ExchangeEvents]:
    """The events in order, each exchange's as one `ExchangeEvents`: the one grouping
    of an exchange's events, for the printer and the transcript. An option or a defeat
    that does not follow its exchange directly (an option taken inside a block after
    it) comes as an event of its own."""
    events = list(events)
    i, count = 0, len(events)
    while i < count:
        event = events[i]
        kind = event.get("type")
        if kind != "action" and kind != "exchange":
            yield event
            i += 1
            continue
        action = event if kind == "action" else None
        i += action is not None
        parts: dict[str, list[dict]] = {"exchange": [], "defeat": [], "option": []}
        for part in ("exchange", "defeat", "option"):
            while i < count and events[i].get("type") == part:
                parts[part].append(events[i])
                i += 1
        yield ExchangeEvents(action, tuple(parts["exchange"]), tuple(parts["defeat"]), tuple(parts["option"]))
