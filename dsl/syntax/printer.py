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
from typing import Iterable, Sequence

from ..durations import parse_duration
from ..errors import Position
from ..events import ExchangeEvents, grouped
from ..placeholders import literal
from ..scenes import DEFAULT_KIND
from . import nodes as n
from .writer import actor_text, intent_text, name_text, phrase_text, quoted, statement_lines

__all__ = ["record", "normalise", "write_record", "name_text", "actor_text", "intent_text",
           "phrase_text", "quoted"]

# ------------------------------------------------------------------ events -> nodes
#
# Each statement of the trace is built as the node the parser would read, and
# written by the one statement writer (dsl/syntax/writer.py, as `drama fmt`
# writes it). The nodes stand nowhere in a file: they all have this position.

_AT = Position("<record>", 1, 1)


def _name(text: str) -> n.Name:
    return n.Name(text, _AT)


def _uses(trait: str | None, treasure: str | None) -> n.Uses:
    """`with TRAIT + TREASURE`, `with TRAIT`, `with TREASURE` or none."""
    names = tuple(_name(name) for name in (trait, treasure) if name is not None)
    return n.Uses(names, _AT) if names else n.NO_USES


def _given(faces: Sequence[int]) -> n.Dice:
    return n.Dice("given", _AT, tuple(faces)) if faces else n.NO_DICE


def _participant(effort: dict) -> n.Participant:
    return n.Participant(_name(effort["party"]), _uses(effort["trait"], effort["treasure"]), effort["gm"],
                         _given(effort["dice"]), _AT)


def _side(efforts: Sequence[dict]) -> tuple[n.Uses, int, n.Dice, tuple[n.Participant, ...]]:
    """What a side used and rolled: on the line of its one party, or a line per party (joint)."""
    if len(efforts) == 1:
        one = efforts[0]
        return _uses(one["trait"], one["treasure"]), one["gm"], _given(one["dice"]), ()
    return n.NO_USES, 0, n.NO_DICE, tuple(_participant(e) for e in efforts)


def _lines(statement: n.Statement, **how) -> list[str]:
    return statement_lines(statement, **how)


def _exchange(group: ExchangeEvents, groups: frozenset = frozenset()) -> list[str]:
    """An action, its defences, ties, split and the options taken after it. `groups`: the
    parties with members, which `defend` rather than `defends` (the language takes both)."""
    action, comparisons = group.action, group.comparisons
    if action is None:
        raise ValueError("an exchange event without its action event before it")
    if not comparisons:
        raise ValueError(f"the action event {action.get('intent')!r} has no exchange events after it")
    first = comparisons[0]
    efforts = first["sides"]["attacker"]["efforts"]
    actors = [e["party"] for e in efforts] or list(action["actors"])
    target = gm_target = None
    if action.get("gm_target") is not None:
        gm_target = action["gm_target"]
    else:
        # the party aimed at; logs written before the action event named it
        # (`target`) give only the side that answered, of which any party
        # gives the same exchange: take the first
        target = action.get("target")
        if target is None:
            extras = set(action.get("extra_targets") or ())
            side = first["sides"]["defender"]
            target = next((pid for pid in side["parties"] if pid not in extras), first["defender"])
        target = _name(target)
    uses, gm, dice, participants = _side(efforts)
    statements: list[tuple[n.Statement, dict]] = [(n.Action(
        _AT, tuple(_name(pid) for pid in actors), action["intent"], target, gm_target,
        tuple(n.Qualifier(q["kind"], q["text"], _AT) for q in action.get("qualifiers") or ()),
        tuple(_name(pid) for pid in action.get("extra_targets") or ()), uses, gm, dice, participants,
        intent_quoted=bool(action.get("intent_quoted"))), {})]

    # defences, in the order of the comparisons
    for comparison in comparisons:
        side = comparison["sides"]["defender"]
        if not side["stated"] or not side["parties"]:
            continue                # an undefended target, or the GM's target number
        uses, gm, dice, participants = _side(side["efforts"])
        parties = tuple(_name(e["party"]) for e in side["efforts"])
        verb = "defend" if participants or side["efforts"][0]["party"] in groups else "defends"
        statements.append((n.Defence(_AT, parties, uses, gm, dice, participants), {"verb": verb}))

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
            statements.append((n.Tie(_AT, _name(defenders[0]) if defenders else None), {}))
    if attacker_won:
        statements.append((n.Tie(_AT, _name(actors[0])), {}))

    split = action.get("split")
    if split:
        statements.append((n.Split(_AT, tuple((_name(pid), share) for pid, share in split.items())), {}))
    statements.extend((_option(event), {}) for event in group.options)
    return [line for statement, how in statements for line in _lines(statement, **how)]


def _option(event: dict) -> n.Statement:
    party = _name(event["party"])
    if event["option"] == "dictate":
        return n.Dictate(_AT, party, literal(event.get("text") or ""))
    return n.Reroll(_AT, party, _given(event.get("dice") or ()))


def _check(check: dict, then: bool = False) -> n.Dice:
    """A recovery check's dice and re-rolls: `rolled 6 3 1 rerolled 5` for the default
    re-rolls, `rolled 6 3 1, rerolling 3 to 5` for the dice the party chose (point 13)."""
    faces = tuple(check["dice"])
    if check.get("chosen"):
        swaps = tuple(n.Swap(faces[index], face, _AT) for index, face in zip(check["rerolled"], check["rerolls"]))
        return n.Dice("given", _AT, faces, rerolling=n.Rerolling(swaps, _AT))
    return n.Dice("given", _AT, faces, rerolled=tuple(check["rerolls"]) if check.get("rerolls") else None)


def _recovery(event: dict) -> n.Recover:
    helpers = tuple(n.Helper(_name(h["party"]), _uses(h["trait"], h["treasure"]))
                    for h in event.get("helpers") or ())
    checks = event.get("checks") or ()
    first = second = n.NO_DICE
    if checks and checks[0]["dice"]:
        first = _check(checks[0])
        # a second check with no dice (nothing returned from the first) needs no `then`
        if len(checks) > 1 and checks[1]["dice"]:
            second = _check(checks[1])
    return n.Recover(_AT, _name(event["party"]), _uses(event["trait"], event["treasure"]), helpers, first, second)


def _choice(event: dict) -> n.ChoiceBlock:
    """A choice as it was made: the block with every option's label, none of their
    bodies (what the option ran follows it, as the trace goes on), and the option
    taken given with `chose`, so that the record replays to the same choice."""
    options = tuple(n.Option(_AT, _name(option["label"]), False, 1, None, None, ()) for option in event["options"])
    return n.ChoiceBlock(_AT, _name(event["choice"]), _name(event["taken"]), options, _AT)


def _set(event: dict) -> n.SetState:
    value = event["value"]
    if value is not True and value is not False:
        number = n.Quantity("number", _AT, value=abs(value))
        value = number if value >= 0 else n.Sum(_AT, ((-1, number),))
    return n.SetState(_AT, _name(event["name"]), value)


def _initiative(event: dict) -> n.Initiative:
    entries = []
    for roll in event["rolls"]:
        # next to `with` the numbers are the dice, and the bonus is added to them
        # (R12); an older log without dice gives its totals, so without `with`
        uses = _uses(roll.get("trait"), roll.get("treasure"))
        numbers = roll["results"]
        if uses.names and numbers:
            numbers = roll.get("dice") or ()
            if not numbers:
                uses, numbers = n.NO_USES, roll["results"]
        entries.append(n.InitiativeEntry(_name(roll["party"]), uses, tuple(numbers), _AT))
    return n.Initiative(_AT, tuple(entries))


def _duration(text: str):
    """A duration of an event (`1 hour`), as a script writes it."""
    duration = parse_duration(text)
    if duration is None:
        raise ValueError(f"the duration {text!r} cannot be written in a script")
    return duration


def _time(event: dict) -> n.Statement:
    duration = event.get("duration")
    if not duration:        # an event log of before `duration` was added
        duration = f"{event['seconds']} second{'' if event['seconds'] == 1 else 's'}"
    return (n.Rest if event["type"] == "rest" else n.Calm)(_AT, _duration(duration))


def _drama(event: dict) -> n.DramaBegin:
    rounds_of = event.get("rounds_of")
    return n.DramaBegin(_AT, event["drama"], tuple(_name(pid) for pid in event["party_ids"]),
                        _duration(rounds_of) if rounds_of else None, event.get("kind") or DEFAULT_KIND,
                        tuple(_name(pid) for pid in event.get("quarry") or ()))


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
    for event in grouped(events):
        if type(event) is ExchangeEvents:
            paragraphs.append(("exchange", _exchange(event, groups)))
            continue
        kind = event["type"]
        if kind in _NOT_STATEMENTS:
            continue        # a defeat follows from its exchange; control flow is what ran
        statement = _statement(kind, event)
        if statement is None:
            raise ValueError(f"cannot record an event of type {kind!r}")
        if kind == "drama":
            in_drama = True
        elif kind == "drama_end":
            in_drama = False
        elif kind == "member_lost":
            kind = "hold"
        elif kind == "recovery" and not in_drama:
            kind = "recovery-out"
        paragraphs.append((kind, _lines(statement)))

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



def _statement(kind: str, event: dict) -> n.Statement | None:
    """The statement of one event (not of an exchange's), or None for a type no statement emits."""
    if kind == "scene":
        return n.Scene(_AT, literal(event["title"]))
    if kind == "narration":
        return n.Narration(_AT, literal(event["text"]))
    if kind == "drama_end":
        text = event.get("text")
        return n.EndDrama(_AT, None if text is None else literal(text))
    if kind in ("calm", "rest"):
        return _time(event)
    if kind == "hold":
        return n.Hold(_AT, _name(event["party"]))
    if kind == "member_lost":
        return n.MemberLost(_AT, _name(event["party"]), _name(event["member"]))
    if kind == "round":
        return n.Round(_AT)
    build = _BUILDERS.get(kind)
    return build(event) if build is not None else None


_BUILDERS = {"drama": _drama, "initiative": _initiative, "option": _option, "recovery": _recovery,
             "choice": _choice, "set": _set}


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
