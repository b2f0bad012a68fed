"""Rendering: the event log as plain text for the terminal (reads only events)."""

from __future__ import annotations

from typing import Iterable

from .durations import format_seconds


def _state(parties: dict) -> str:
    return ", ".join(f"{pid} {s['quintessence']}/{s['damage_pool']}" + (" (defeated)" if s.get("defeated") else "")
                     for pid, s in parties.items())


def _effort(e: dict) -> str:
    used = " + ".join(x for x in (e["trait"], e["treasure"]) if x) or "nothing"
    dice = " ".join(map(str, e["dice"])) or "no dice"
    gm = f", GM {e['gm']:+d}" if e["gm"] else ""
    return f"{e['party']} with {used}{gm}, {dice}"


def render_text(events: Iterable[dict]) -> str:
    """A short line per event, with every party's quintessence / damage pool as it changes."""
    out: list[str] = []
    for e in events:
        kind = e["type"]
        at = f"{e['line']:>4}  " if e.get("line") is not None else "      "
        if kind == "start":
            title = e.get("title") or "Untitled"
            out.append(f"== {title} ==")
            out.append(f"      start: {_state(e['parties'])}")
            continue
        if kind == "scene":
            text = f"# {e['title']}"
        elif kind == "narration":
            text = f"> {e['text']}"
        elif kind == "drama":
            text = f"drama {e['drama']} with {', '.join(e['party_ids'])}"
        elif kind == "initiative":
            rolls = ", ".join(f"{x['party']} {'/'.join(map(str, x['results']))}" for x in e["rolls"])
            text = f"initiative {rolls}: order {', '.join(e['order'])}"
        elif kind == "round":
            text = f"round {e['round']} (t = {format_seconds(e['time'])})"
        elif kind == "hold":
            text = f"{e['party']} holds"
        elif kind == "action":
            target = f"vs {e['gm_target']}" if e["gm_target"] is not None else "-> " + ", ".join(e["targets"])
            quals = "".join(f" {'but not' if q['kind'] == 'not' else 'so that'} {q['text']}" for q in e["qualifiers"])
            spent = f"; spends {', '.join(f'{p} {n}' for p, n in e['spent'].items())}" if e["spent"] else ""
            text = f"{e['attacker']} {e['intent']} {target}{quals}{spent}"
        elif kind == "exchange":
            sides = e["sides"]
            parts = [_effort(x) for x in sides["attacker"]["efforts"]]
            if sides["defender"]["efforts"]:
                parts += [_effort(x) for x in sides["defender"]["efforts"]]
            values = ", ".join(f"{k} {v}" for k, v in e["values"].items())
            if "target" in e:
                values += f" vs target {e['target']}"
            extra = (" (tie, " + (e["tie_settled_by"] or "") + ")" if e["tie"] else "") + (" DOUBLE" if e["double"] else "")
            text = f"  {'; '.join(parts) or 'no dice'} => {values}: {e['winner']} wins{extra}"
        elif kind == "defeat":
            text = f"  {e['party']} is defeated in {e['drama']}"
        elif kind == "option":
            if e["option"] == "dictate":
                text = f"  {e['party']} dictates: {e['text']}"
            else:
                text = (f"  {e['party']} rerolls {e['lost']} lost: {' '.join(map(str, e['dice'])) or '-'}, "
                        f"{e['returned']} back")
        elif kind == "recovery":
            checks = " then ".join(" ".join(map(str, c["final"])) or "-" for c in e["checks"])
            text = f"{e['party']} {'rushed ' if e['rushed'] else ''}recovery: {checks}, {e['returned']} back"
        elif kind == "drama_end":
            text = f"end of {e['drama']} after {e['rounds']} rounds" + (f": {e['text']}" if e.get("text") else "")
        elif kind in ("calm", "rest"):
            text = f"{kind} {format_seconds(e['seconds'])}" + (
                f"; restored {', '.join(e['restored'])}" if e.get("restored") else "")
        elif kind == "final":
            out.append(f"      final: {_state(e['parties'])}")
            continue
        else:
            text = kind
        if e.get("parties") and kind not in ("start", "final"):
            text += f"   [{_state(e['parties'])}]"
        out.append(at + text)
    return "\n".join(out) + "\n"
