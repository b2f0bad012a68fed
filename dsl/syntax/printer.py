"""The printer: an event log written back as a script in the canonical layout (for --record).

`record(events)` turns the events of a run (`dsl.run`, `Interpreter.run`, or
`drama run --format json` read back) into a script of the scenario language in
which every die is written out (`rolled ...`), every tie is named (`tie NAME`,
`tie GM`), every trait and treasure is written with `with` (moves are never
relied on), and every initiative result is given. Running that script with the
same setting and cast gives the same events, apart from what `normalise`
removes: see its docstring, and "Recording a run" in docs/language.md.

    text = record(events, scenario="scenarios/ambush/scenario.yaml")
    again = replay("scenarios/ambush/scenario.yaml", text, seed=3)
    assert normalise(events) == normalise(again)
    assert record(again, scenario="scenarios/ambush/scenario.yaml") == text
"""

from __future__ import annotations

import copy
import os
import re
from typing import Iterable, Sequence

from ..placeholders import literal
from .vocabulary import AFTER_ACTOR, MAX_DIGITS, NAME_ENDS, NARRATION, PHRASE_ENDS, STATEMENT_WORDS, WORD

__all__ = ["record", "normalise", "write_record", "name_text", "actor_text", "intent_text",
           "phrase_text", "quoted"]

# ------------------------------------------------------------------ quoting
#
# The rules below follow grammar/drama.lark (its header comment) and were checked
# against the parser: a name is written bare only when the parser reads it back
# as the same name, and quoted otherwise. Quoted text is always a plain name.
# The keywords and the grammar's WORD come from dsl.syntax.vocabulary.

# a number (INT)
_INT = re.compile(r"\d+")


def quoted(text: str) -> str:
    """`text` as quoted text: `"..."` with `\\"` and `\\\\` escaped. Quoted text
    ends on its line, so a line break cannot be written (ValueError)."""
    if "\n" in text or "\r" in text:
        raise ValueError(f"{text!r} has a line break: it cannot be written in a script")
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _words(text: str) -> list[str] | None:
    """The words of `text` if it is words joined by single spaces, else None."""
    words = text.split(" ")
    if not all(WORD.fullmatch(word) for word in words):
        return None
    return words


def name_text(name: str, *, tie: bool = False) -> str:
    """A name (target, extra target, trait, treasure, helper, a party of `drama`,
    `initiative`, `tie` or `split`): bare when it is words joined by single
    spaces, none of them after the first being `but`, `so`, `with` or `vs`
    (`tie=True`: and not `GM` first, which `tie` would read as the GM)."""
    words = _words(name)
    if (words is None or any(word in NAME_ENDS for word in words[1:])
            or (tie and words[0] == "GM")):
        return quoted(name)
    return name


def actor_text(party: str, *, line_start: bool = True) -> str:
    """The party at an actor position: one word, not a statement keyword where a
    statement starts; quoted otherwise."""
    if WORD.fullmatch(party) and not (line_start and party in STATEMENT_WORDS):
        return party
    return quoted(party)


def intent_text(intent: str) -> str:
    """An intent: bare when it is one word that is not a verb that may follow a
    party (`holds`, `defends`, `with`, ...); an intent of several words is quoted,
    as in every canonical example (`Kara "leaps the chasm" vs 7`)."""
    if WORD.fullmatch(intent) and intent not in AFTER_ACTOR:
        return intent
    return quoted(intent)


def phrase_text(phrase: str) -> str:
    """A qualifier's phrase: bare when it is a word, then words or numbers, none of
    them `but`, `so` or `with`; quoted otherwise."""
    words = phrase.split(" ")
    if (WORD.fullmatch(words[0])
            and all(WORD.fullmatch(word) or _INT.fullmatch(word) for word in words[1:])
            and not any(word in PHRASE_ENDS for word in words[1:])):
        return phrase
    return quoted(phrase)


def _number(value: int) -> str:
    if len(str(abs(value))) > MAX_DIGITS:
        raise ValueError(f"the number {value} has more than {MAX_DIGITS} digits: it cannot be written in a script")
    return str(value)


def _signed(value: int) -> str:
    return ("-" if value < 0 else "+") + _number(abs(value))


def _faces(dice: Sequence[int]) -> str:
    return " ".join(_number(face) for face in dice)


# ------------------------------------------------------------------ statements

def _uses(trait: str | None, treasure: str | None) -> str:
    """` with TRAIT + TREASURE`, ` with TRAIT`, ` with TREASURE` or nothing."""
    names = [name_text(name) for name in (trait, treasure) if name is not None]
    return " with " + " + ".join(names) if names else ""


def _tail(gm: int, dice: Sequence[int]) -> str:
    """`, GM +N` and `, rolled N N ...`, each when there is one."""
    out = ""
    if gm:
        out += f", GM {_signed(gm)}"
    if dice:
        out += f", rolled {_faces(dice)}"
    return out


def _effort(effort: dict) -> str:
    """What a party used and rolled: ` with A + B, GM +N, rolled ...`."""
    return _uses(effort["trait"], effort["treasure"]) + _tail(effort["gm"], effort["dice"])


def _participants(efforts: Sequence[dict]) -> list[str]:
    return ["  " + actor_text(e["party"], line_start=False) + _effort(e) for e in efforts]


def _side_party_names(parties: Sequence[str]) -> str:
    return " & ".join(actor_text(pid, line_start=(i == 0)) for i, pid in enumerate(parties))


def _exchange(action: dict, comparisons: Sequence[dict], groups: frozenset = frozenset()) -> list[str]:
    """An action, its defences, ties and split. `groups`: the parties with members,
    which `defend` rather than `defends` (the language takes both)."""
    if not comparisons:
        raise ValueError(f"the action event {action.get('intent')!r} has no exchange events after it")
    first = comparisons[0]
    attacker = first["sides"]["attacker"]
    efforts = attacker["efforts"]
    actors = [e["party"] for e in efforts] or list(action["actors"])
    head = _side_party_names(actors) + " " + (quoted(action["intent"]) if action.get("intent_quoted")
                                              else intent_text(action["intent"]))
    if action.get("gm_target") is not None:
        head += f" vs {'-' if action['gm_target'] < 0 else ''}{_number(abs(action['gm_target']))}"
    else:
        # the party aimed at; logs written before the action event named it
        # (`target`) give only the side that answered, of which any party
        # gives the same exchange: take the first
        target = action.get("target")
        if target is None:
            extras = set(action.get("extra_targets") or ())
            side = first["sides"]["defender"]
            target = next((pid for pid in side["parties"] if pid not in extras), first["defender"])
        head += " -> " + name_text(target)
    for qualifier in action.get("qualifiers") or ():
        keyword = "but not" if qualifier["kind"] == "not" else "so that"
        head += f" {keyword} {phrase_text(qualifier['text'])}"
    for extra in action.get("extra_targets") or ():
        head += " +" + name_text(extra)
    if len(efforts) == 1:
        lines = [head + _effort(efforts[0])]
    else:
        lines = [head] + _participants(efforts)

    # defences, in the order of the comparisons
    for comparison in comparisons:
        side = comparison["sides"]["defender"]
        if not side["stated"] or not side["parties"]:
            continue                # an undefended target, or the GM's target number
        if len(side["efforts"]) == 1:
            effort = side["efforts"][0]
            verb = " defend" if effort["party"] in groups else " defends"
            lines.append(actor_text(effort["party"]) + verb + _effort(effort))
        else:
            lines.append(_side_party_names([e["party"] for e in side["efforts"]]) + " defend")
            lines.extend(_participants(side["efforts"]))

    # ties (RULES.md point 8): a `tie` naming the attacker settles every tied
    # comparison not yet settled, so the defenders' ties come first
    attacker_won = False
    for comparison in comparisons:
        if not comparison.get("tie"):
            continue
        if comparison["winner"] == comparison["attacker"]:
            attacker_won = True
        else:
            defenders = comparison["sides"]["defender"]["parties"]
            # the GM's side (a target number) has no parties; a party may be called GM
            lines.append("tie " + name_text(defenders[0], tie=True) if defenders else "tie GM")
    if attacker_won:
        lines.append("tie " + name_text(actors[0], tie=True))

    split = action.get("split")
    if split:
        lines.append("split " + ", ".join(f"{name_text(pid)} {_number(n)}" for pid, n in split.items()))
    return lines


def _option(event: dict) -> str:
    party = actor_text(event["party"])
    if event["option"] == "dictate":
        return f"{party} dictates {quoted(literal(event.get('text') or ''))}"
    dice = event.get("dice") or ()
    return f"{party} rerolls" + (f", rolled {_faces(dice)}" if dice else "")


def _check(check: dict) -> str:
    """A recovery check's dice and re-rolls: `6 3 1 rerolled 5` for the default
    re-rolls, `6 3 1, rerolling 3 to 5` for the dice the party chose (point 13)."""
    text = _faces(check["dice"])
    if check.get("chosen"):
        swaps = [f"{_number(check['dice'][index])} to {_number(face)}"
                 for index, face in zip(check["rerolled"], check["rerolls"])]
        text += ", rerolling " + (" and ".join(swaps) if swaps else "none")
    elif check.get("rerolls"):
        text += " rerolled " + _faces(check["rerolls"])
    return text


def _recovery(event: dict) -> str:
    line = actor_text(event["party"]) + " recovers" + _uses(event["trait"], event["treasure"])
    for helper in event.get("helpers") or ():
        line += ", helped by " + name_text(helper["party"]) + _uses(helper["trait"], helper["treasure"])
    checks = event.get("checks") or ()
    if checks and checks[0]["dice"]:
        line += ", rolled " + _check(checks[0])
        # a second check with no dice (nothing returned from the first) needs no `then`
        if len(checks) > 1 and checks[1]["dice"]:
            line += ", then " + _check(checks[1])
    return line


def _choice(event: dict) -> list[str]:
    """A choice as it was made: the block with every option's label, none of their
    bodies (what the option ran follows it, as the trace goes on), and the option
    taken given with `chose`, so that the record replays to the same choice."""
    lines = [f"choose {quoted(event['choice'])}, chose {quoted(event['taken'])}"]
    lines.extend(f"option {quoted(option['label'])}" for option in event["options"])
    lines.append("end")
    return lines


def _set(event: dict) -> str:
    value = event["value"]
    if value is True or value is False:
        return f"set {event['name']}" + ("" if value else " = false")
    return f"set {event['name']} = {'-' if value < 0 else ''}{_number(abs(value))}"


def _initiative(event: dict) -> str:
    entries = []
    for roll in event["rolls"]:
        # next to `with` the numbers are the dice, and the bonus is added to them
        # (R12); an older log without dice gives its totals, so without `with`
        uses = _uses(roll.get("trait"), roll.get("treasure"))
        numbers = roll["results"]
        if uses and numbers:
            numbers = roll.get("dice") or ()
            if not numbers:
                uses, numbers = "", roll["results"]
        entry = name_text(roll["party"]) + uses
        if numbers:
            entry += " " + " ".join(_result(value) for value in numbers)
        entries.append(entry)
    return "initiative " + ", ".join(entries) if entries else "initiative"


def _result(value: int) -> str:
    if value < 0:
        raise ValueError(f"the initiative result {value} is negative: it cannot be given in a script")
    return _number(value)


def _duration(text: str) -> str:
    """A duration of an event (`1 hour`), as a script writes it."""
    amount, unit = text.split(" ", 1)
    return f"{_number(int(amount))} {unit}"


def _time(event: dict) -> str:
    duration = event.get("duration")
    if not duration:        # an event log of before `duration` was added
        duration = f"{event['seconds']} second{'' if event['seconds'] == 1 else 's'}"
    amount, unit = duration.split(" ", 1)
    return f"{event['type']} {_number(int(amount))} {unit}"


def _narration(text: str) -> str:
    line = f"> {text}" if text else ">"
    match = NARRATION.fullmatch(line)
    if match is None or line[1:].strip() != text:
        raise ValueError(f"the narration {text!r} cannot be written back as it is")
    return line


# ------------------------------------------------------------------ the layout

# a blank line before a paragraph of this kind, unless the one before it is one of these
_GLUE = {
    "scene": (),
    "narration": None,                 # always glued to what comes before
    "drama": (),
    "initiative": None,
    "round": (),
    "exchange": ("round",),
    "hold": ("round",),
    "recovery": ("round",),
    "recovery-out": ("calm", "rest", "recovery-out", "scene", "narration"),
    "option": None,                    # an option taken later than right after its exchange
    "choice": (),
    "set": ("set",),
    "drama_end": (),
    "calm": ("calm", "rest", "recovery-out", "scene", "narration"),
    "rest": ("calm", "rest", "recovery-out", "scene", "narration"),
}


def _header(start: dict | None, scenario: str | None) -> list[str]:
    from .. import __version__
    where = str(scenario) if scenario is not None else "a scenario"
    title = (start or {}).get("title")
    if title:
        where += f" ({quoted(' '.join(str(title).split()))})"
    seed = (start or {}).get("seed")
    seed_text = f", seed {seed}" if seed is not None else ""
    where = where.replace("\n", " ").replace("\r", " ")
    return [f"# Recorded by drama {__version__} from {where}{seed_text}.",
            "# Every die is given and every tie named: run it with the same setting and cast."]


# events that are not statements of the straight-line trace: a defeat follows from
# its exchange, and the trace is what `if` and `repeat` ran, without them
_NOT_STATEMENTS = frozenset(("start", "final", "defeat", "branch", "loop", "skipped"))


def record(events: Iterable[dict], *, scenario: str | os.PathLike | None = None) -> str:
    """The script text of a run's events, in the canonical layout.

    `scenario` (the scenario file that was run) is named in the comment at the
    top, with the title and the seed of the `start` event. The text ends with a
    newline. Raises ValueError for an event log that cannot be written as a
    script (an unknown event type, text with a line break), which a run of a
    parsed script never gives.
    """
    events = list(events)
    start = next((e for e in events if e.get("type") == "start"), None)
    cast = (start or {}).get("cast") or {}
    groups = frozenset(pid for pid, sheet in cast.items() if sheet.get("members"))
    paragraphs: list[tuple[str, list[str]]] = []
    in_drama = False
    i, n = 0, len(events)
    while i < n:
        event = events[i]
        kind = event["type"]
        i += 1
        if kind in _NOT_STATEMENTS:
            continue        # a defeat follows from its exchange; control flow is what ran
        if kind == "scene":
            paragraphs.append(("scene", [f"scene {quoted(literal(event['title']))}"]))
        elif kind == "narration":
            paragraphs.append(("narration", [_narration(literal(event["text"]))]))
        elif kind == "drama":
            # a party whose name starts with `rounds`, `a` or `an` is quoted after a comma,
            # where `rounds of` gives the round length and `a debate` the kind of scene
            parties = ", ".join(quoted(pid) if i and pid.split(" ")[0] in ("rounds", "a", "an") else name_text(pid)
                                for i, pid in enumerate(event["party_ids"]))
            rounds_of = event.get("rounds_of")
            kind = event.get("kind") or "fight"
            article = ", an " if kind[:1] in "aeiou" else ", a "
            paragraphs.append(("drama", [f"drama {quoted(event['drama'])} with {parties}"
                                         + (article + kind if kind != "fight" else "")
                                         + (f", rounds of {_duration(rounds_of)}" if rounds_of else "")]))
            in_drama = True
        elif kind == "initiative":
            paragraphs.append(("initiative", [_initiative(event)]))
        elif kind == "round":
            paragraphs.append(("round", ["round"]))
        elif kind == "hold":
            paragraphs.append(("hold", [actor_text(event["party"]) + " holds"]))
        elif kind == "member_lost":
            paragraphs.append(("hold", [actor_text(event["party"]) + " lose member " + quoted(event["member"])]))
        elif kind == "action":
            comparisons = []
            while i < n and events[i]["type"] == "exchange":
                comparisons.append(events[i])
                i += 1
            while i < n and events[i]["type"] == "defeat":
                i += 1
            lines = _exchange(event, comparisons, groups)
            while i < n and events[i]["type"] == "option":     # the options of this exchange
                lines.append(_option(events[i]))
                i += 1
            paragraphs.append(("exchange", lines))
        elif kind == "exchange":
            raise ValueError("an exchange event without its action event before it")
        elif kind == "option":
            paragraphs.append(("option", [_option(event)]))
        elif kind == "recovery":
            paragraphs.append(("recovery" if in_drama else "recovery-out", [_recovery(event)]))
        elif kind == "drama_end":
            text = event.get("text")
            paragraphs.append(("drama_end", ["end drama" + ("" if text is None else " " + quoted(literal(text)))]))
            in_drama = False
        elif kind in ("calm", "rest"):
            paragraphs.append((kind, [_time(event)]))
        elif kind == "choice":
            paragraphs.append(("choice", _choice(event)))
        elif kind == "set":
            paragraphs.append(("set", [_set(event)]))
        else:
            raise ValueError(f"cannot record an event of type {kind!r}")

    out = _header(start, scenario)
    previous = None
    for kind, lines in paragraphs:
        glue = _GLUE[kind]
        if previous is not None and glue is not None and previous not in glue:
            out.append("")
        elif previous is None:
            out.append("")
        out.extend(lines)
        previous = kind
    text = "\n".join(out) + "\n"
    _readable(text)
    return text


def _readable(text: str) -> None:
    """Raise ValueError unless a recorded script is within the reader's limits (a line of at
    most MAX_LINE characters, a script of at most MAX_SCRIPT): what is recorded must read back
    (a narration whose placeholders were filled with long names can outgrow its line)."""
    from ..limits import MAX_LINE, MAX_SCRIPT
    if len(text) > MAX_SCRIPT:
        raise ValueError(f"the recorded script would have {len(text):,} characters, more than the "
                         f"limit of {MAX_SCRIPT:,} a script may have")
    if len(text) <= MAX_LINE:
        return
    for number, line in enumerate(text.split("\n"), 1):
        if len(line) > MAX_LINE:
            raise ValueError(f"line {number} of the recorded script would have {len(line):,} characters, "
                             f"more than the limit of {MAX_LINE:,} a line may have (it would not read back)")



# ------------------------------------------------------------------ comparing runs

def normalise(events: Iterable[dict]) -> list[dict]:
    """The events without what legitimately differs between a run and the replay
    of its recorded script (a deep copy; the events given are not changed).

    Dropped, and why:

    - the `branch`, `loop` and `skipped` events: the recorded script is the
      straight-line trace of what `if` and `repeat` ran, with no control flow;
    - `line` of every event: the recorded script has its own layout, so its
      statements are on other lines than in the script that was run;
    - `seed` of the `start` event: a recorded script rolls no dice, so it may be
      replayed with any seed;
    - `rolled_by` of every effort (`exchange.sides.*.efforts`), of a reroll
      (`option`), of each recovery check (`recovery.checks`) and of each
      initiative roll: the run's dice came from the engine (`"engine"`), the
      replay's are given (`"table"`); the faces themselves are kept;
    - `dice` of each initiative roll with no trait and no treasure: the
      recorded script gives its result, a total, so the replay's `dice` are
      empty. A roll with a trait or treasure is recorded as its dice next to
      `with` (the bonus is added to them, R12), so its `dice` are kept, as are
      every roll's `results`, `trait`, `treasure` and `bonus`;
    - of a `choice` event, `file`, `by` (the record gives every choice), and
      of its options all but their labels (the record offers each option,
      without its condition, `once` or weight, so each is available);
    - `tie_settled_by` and `tie_dice` of an exchange: the recorded script names
      every tie (`tie NAME`, `"vote"`) where the run may have settled it by the
      setting's policy (`"actor"`, `"defender"`) or a roll-off of the seeded
      dice (`"random"`, with its `tie_dice`); `tie` and `winner` are kept.

    Everything else (values, winners, losses, states, defeats, options, turns,
    times, dice faces, texts) is kept.
    """
    out = []
    for event in events:
        kind = event.get("type")
        if kind in ("branch", "loop", "skipped"):
            continue            # the recorded trace has no control flow: it is what ran
        event = copy.deepcopy(event)
        event.pop("line", None)
        if kind == "start":
            event.pop("seed", None)
        elif kind == "exchange":
            event.pop("tie_settled_by", None)
            event.pop("tie_dice", None)
            for side in (event.get("sides") or {}).values():
                for effort in side.get("efforts") or ():
                    effort.pop("rolled_by", None)
        elif kind == "option":
            event.pop("rolled_by", None)
        elif kind == "choice":
            # the record gives every choice (`chose`), offering each option as it
            # was labelled, without its condition, `once` or weight
            event.pop("file", None)
            event.pop("by", None)
            event["options"] = [option["label"] for option in event.get("options") or ()]
        elif kind == "recovery":
            for check in event.get("checks") or ():
                check.pop("rolled_by", None)
        elif kind == "initiative":
            for roll in event.get("rolls") or ():
                roll.pop("rolled_by", None)
                if roll.get("trait") is None and roll.get("treasure") is None:
                    roll.pop("dice", None)
        out.append(event)
    return out


# ------------------------------------------------------------------ writing a record

def write_record(path: str | os.PathLike, events: Iterable[dict], *,
                 scenario: str | os.PathLike | None = None) -> None:
    """Write `record(events, scenario=scenario)` to `path` (UTF-8, `\\n` line ends),
    through the one writer (`dsl.outputs`: a temporary file renamed into place,
    never over the scenario)."""
    from ..outputs import Outputs
    text = record(events, scenario=scenario)
    with Outputs(refuse=[scenario]) as out:
        out.text(path, text)
