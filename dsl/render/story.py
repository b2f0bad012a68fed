"""The story model of a transcript: what happened, in the game's own terms, worked
out from the event log alone before any sentence is chosen (docs/transcripts.md).

The narrator (tell.py) realises its sentences from these facts only: who acts,
in which order, on a declared hold or not; who wins each comparison and what it
cost each party; who pursues and who flees in a chase or an escape; who has
fallen at each moment (and so is struck at no more); who took part at all; and
the turning points (first blood, a double win, a tie, running dry, a defeat, a
recovery). Pure: event dicts in (docs/events.md), frozen data out."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Mapping

from ..scenes import DEFAULT_KIND, RUNNING_KINDS


GM = "GM"
# the kinds of scene in which someone runs and someone gives chase
RUNNING = RUNNING_KINDS


def side_ids(side) -> tuple[str, ...]:
    """`Kara & Bren` -> ("Kara", "Bren"); a list of sides flattened once; the GM is no party."""
    if side is None:
        return ()
    items = [side] if isinstance(side, str) else list(side)
    out: list[str] = []
    for item in items:
        parts = list(item) if isinstance(item, (tuple, list)) else str(item).split(" & ")
        for pid in parts:
            pid = pid.strip()
            if pid and pid != GM and pid not in out:
                out.append(pid)
    return tuple(out)


@dataclass(frozen=True)
class Clash:
    """One comparison of an action against one target (R5, R6, R8)."""

    step: int
    index: int
    attacker: tuple[str, ...]
    defender: tuple[str, ...]            # () against a GM target
    against_gm: bool
    attacker_won: bool
    double: bool
    tie: bool
    settled: str | None                  # how a tie was settled
    costs: Mapping[str, int]             # party -> quintessence it lost in this comparison
    ones: Mapping[str, int]              # party -> what its ones cost it
    values: tuple[int | None, int | None]  # the attacker's value, the defender's (or the target number)
    stated: bool                         # the defender stated a defence
    defence_move: bool                   # the defender's lead used its `defend` move (its words fit)
    winner_role: str = ""                # in a chase or an escape: "pursuer", "quarry" or ""
    loser_role: str = ""

    @property
    def winner(self) -> tuple[str, ...]:
        if self.against_gm:
            return self.attacker if self.attacker_won else ()
        return self.attacker if self.attacker_won else self.defender

    @property
    def loser(self) -> tuple[str, ...]:
        if self.against_gm:
            return () if self.attacker_won else self.attacker
        return self.defender if self.attacker_won else self.attacker

    def cost(self, pid: str) -> int:
        return self.costs.get(pid, 0)


@dataclass(frozen=True)
class Option:
    """A double win's option taken (R8)."""

    step: int
    party: str
    option: str                          # dictate or reroll
    text: str
    returned: int
    lost: int                            # for a reroll: what it had lost this round


@dataclass(frozen=True)
class Act:
    """An aggressive action, as the story tells it: only at the standing."""

    step: int
    situation: int | None                # index in Story.situations
    round: int | None
    intent: str
    quoted: bool
    move: bool                  # a move's name in the language (a noun: `une boule de feu`), told as one
    actors: tuple[str, ...]              # the acting parties that stand, lead first
    targets: tuple[tuple[str, ...], ...]  # the standing targets, one side per comparison
    at_fallen: tuple[str, ...]           # targets named that had already fallen (never told)
    gm_target: int | None
    qualifiers: tuple[tuple[str, str], ...]  # (kind, text)
    spent: Mapping[str, int]
    declared_hold: tuple[str, ...]       # actors who declared `holds` this round and use it now
    clashes: tuple[Clash, ...]
    defeats: tuple[str, ...]
    options: tuple[Option, ...]
    first_of_round: bool
    kind: str = DEFAULT_KIND

    @property
    def told(self) -> bool:
        """An action at nobody standing is not told at all."""
        return bool(self.actors) and (bool(self.targets) or self.gm_target is not None)

    @property
    def target_ids(self) -> tuple[str, ...]:
        return side_ids(list(self.targets))


@dataclass(frozen=True)
class Recovery:
    step: int
    party: str
    helpers: tuple[str, ...]
    rushed: bool
    returned: int
    pool_before: int                     # the damage pool it recovered from


@dataclass(frozen=True)
class Hold:
    """A hold the script declared (`Crew holds`): automatic holds are no facts of the story."""

    step: int
    party: str
    used: bool                           # the party acted on it later in the round
    round: int | None = None
    situation: int | None = None         # index in Story.situations


@dataclass(frozen=True)
class Point:
    """A turning point: first_blood, double_win, tie, running_dry, defeat, recovery."""

    step: int
    kind: str
    parties: tuple[str, ...]


@dataclass
class Situation:
    """A dramatic situation: its parties, order, roles and ending."""

    step: int
    name: str
    kind: str
    parties: tuple[str, ...]             # as the drama line names them
    order: tuple[str, ...] = ()          # who acted first in its first round, then the others
    took_part: tuple[str, ...] = ()      # who acted, was acted on, held or recovered in it
    quarry: tuple[str, ...] = ()         # in a chase or an escape: who runs
    pursuers: tuple[str, ...] = ()
    quarry_named: bool = False           # the script named the quarry
    fallen: tuple[str, ...] = ()         # defeated when it ended
    end_step: int | None = None
    end_text: str = ""
    rounds: int = 0

    def role(self, ids: Iterable[str]) -> str:
        ids = set(ids)
        if not ids or self.kind not in RUNNING or not self.quarry:
            return ""
        if ids <= set(self.quarry):
            return "quarry"
        if ids <= set(self.pursuers):
            return "pursuer"
        return ""


@dataclass
class Story:
    """The whole run's facts, found by the step of the event they come from."""

    situations: list[Situation] = field(default_factory=list)
    acts: dict[int, Act] = field(default_factory=dict)
    recoveries: dict[int, Recovery] = field(default_factory=dict)
    holds: dict[int, Hold] = field(default_factory=dict)
    points: list[Point] = field(default_factory=list)
    fallen_at: dict[int, frozenset] = field(default_factory=dict)   # step -> fallen before that step
    took_part: tuple[str, ...] = ()       # in the whole run, in order of first appearance
    fell: dict[str, str] = field(default_factory=dict)          # party -> the situation it last fell in
    came_back: tuple[str, ...] = ()       # fell, then recovered or fought on standing in a later situation
    defeats: dict[int, tuple[str, ...]] = field(default_factory=dict)  # step of a lone defeat -> party

    def situation_at(self, step: int) -> Situation | None:
        found = None
        for s in self.situations:
            if s.step <= step and (s.end_step is None or step <= s.end_step):
                found = s
        return found

    def hold_told(self, step: int) -> bool:
        """Whether a declared hold is worth telling: it was used, or something is
        still told after it in its situation (not a hold kept for nobody, once
        the other side has fallen)."""
        hold = self.holds.get(step)
        if hold is None:
            return False
        return hold.used or any(a.told and a.step > step and a.situation == hold.situation
                                for a in self.acts.values())

    def points_at(self, step: int) -> list[Point]:
        return [p for p in self.points if p.step == step]


class _Reader:
    """One pass over the events."""

    def __init__(self, events: list[dict]):
        self.events = events
        self.story = Story()
        start = events[0] if events else {}
        self.cast = start.get("cast") or {}
        self.state = {pid: dict(s) for pid, s in (start.get("parties") or {}).items()}
        self.situation: Situation | None = None
        self.fallen: set[str] = set()
        self.declared: dict[str, int] = {}        # party -> step of its hold in this round
        self.round_acted = False
        self.took_part: list[str] = []
        self.sit_took: list[str] = []
        self.sit_order: list[str] = []
        self.sit_round = 1
        self.targeted_by: dict[str, set[str]] = {}
        self.drawn = False                        # first blood drawn in this situation
        self.pending: Act | None = None
        self.clashes: list[Clash] = []
        self.defeats: list[str] = []
        self.options: list[Option] = []

    # -- helpers

    def _appear(self, ids: Iterable[str]) -> None:
        for pid in ids:
            if pid not in self.took_part:
                self.took_part.append(pid)
            if self.situation is not None and pid not in self.sit_took:
                self.sit_took.append(pid)

    def _apply(self, parties: Mapping | None) -> None:
        for pid, s in (parties or {}).items():
            self.state[pid] = dict(s)

    def _point(self, step: int, kind: str, parties: Iterable[str]) -> None:
        self.story.points.append(Point(step, kind, tuple(parties)))

    def _defend_move(self, pid: str) -> tuple | None:
        uses = (self.cast.get(pid) or {}).get("defend_uses")
        if uses is None:
            return None
        return (uses.get("trait"), uses.get("treasure"))

    # -- the pass

    def read(self) -> Story:
        for step, event in enumerate(self.events):
            kind = event.get("type")
            if kind not in ("exchange", "defeat", "option", "skipped"):
                self._close()
            self.story.fallen_at[step] = frozenset(self.fallen)
            handler = getattr(self, "_on_" + str(kind), None)
            if handler is not None:
                handler(step, event)
            if kind not in ("start", "final", "exchange"):
                self._apply(event.get("parties"))
        self._close()
        self._end_situation(None, {})
        self.story.took_part = tuple(self.took_part)
        return self.story

    def _on_drama(self, step, event):
        self._end_situation(None, {})
        parties = tuple(event.get("party_ids") or ())
        self.situation = Situation(step, str(event.get("drama") or ""), str(event.get("kind") or DEFAULT_KIND),
                                   parties)
        named = side_ids(event.get("quarry"))
        if named:
            self.situation.quarry = tuple(p for p in parties if p in named) or named
            self.situation.quarry_named = True
        self.story.situations.append(self.situation)
        self.fallen = set()
        self.declared = {}
        self.sit_took = []
        self.sit_order = []
        self.sit_round = 1
        self.targeted_by = {}
        self.drawn = False

    def _on_round(self, step, event):
        if event.get("round", 1) != 1:
            self.sit_round = event.get("round", self.sit_round + 1)
            self.round_acted = False
        self.declared = {}

    def _on_hold(self, step, event):
        pid = event.get("party")
        if pid:
            self.declared[pid] = step
            self.story.holds[step] = Hold(step, pid, False, event.get("round"),
                                          len(self.story.situations) - 1 if self.situation is not None else None)
            self._appear([pid])

    def _on_action(self, step, event):
        sit = self.situation
        actors = [p for p in (event.get("actors") or side_ids(event.get("attacker"))) if p not in self.fallen]
        targets = []
        at_fallen = []
        for side in event.get("targets") or []:
            if side == GM:
                continue
            ids = side_ids(side)
            standing = tuple(p for p in ids if p not in self.fallen)
            at_fallen.extend(p for p in ids if p in self.fallen)
            if standing:
                targets.append(standing)
        held = set((event.get("turn") or {}).get("held") or [])
        declared = tuple(p for p in actors if p in held and p in self.declared)
        for pid in declared:
            hold_step = self.declared.pop(pid)
            self.story.holds[hold_step] = Hold(**{**self.story.holds[hold_step].__dict__, "used": True})
        first = False
        if sit is not None and actors and (targets or event.get("gm_target") is not None):
            if self.sit_round == 1:
                for pid in actors:
                    if pid not in self.sit_order:
                        self.sit_order.append(pid)
            for target in side_ids(targets):
                self.targeted_by.setdefault(target, set()).update(actors)
            first = not self.round_acted
            self.round_acted = True
        if actors and (targets or event.get("gm_target") is not None):
            self._appear(actors)
            self._appear(side_ids(targets))
        self.pending = Act(
            step=step, situation=len(self.story.situations) - 1 if sit is not None else None,
            round=event.get("round"), intent=str(event.get("intent") or ""),
            quoted=bool(event.get("intent_quoted")), move=bool(event.get("intent_move")), actors=tuple(actors), targets=tuple(targets),
            at_fallen=tuple(dict.fromkeys(at_fallen)), gm_target=event.get("gm_target"),
            qualifiers=tuple((q.get("kind", ""), q.get("text", "")) for q in event.get("qualifiers") or []),
            spent=dict(event.get("spent") or {}), declared_hold=declared, clashes=(), defeats=(), options=(),
            first_of_round=first, kind=sit.kind if sit is not None else DEFAULT_KIND)
        self.clashes, self.defeats, self.options = [], [], []

    def _on_exchange(self, step, event):
        if self.pending is None:           # an exchange without its action (an old log)
            self._on_action(step, {**event, "type": "action", "targets": [event.get("defender")],
                                   "actors": list(side_ids(event.get("attacker")))})
        attacker = side_ids(event.get("attacker"))
        defender = side_ids(event.get("defender"))
        against_gm = event.get("defender") == GM
        costs: dict[str, int] = {}
        ones: dict[str, int] = {}
        for loss in event.get("losses") or []:
            pid = loss.get("party")
            amount = int(loss.get("amount", 0) or 0)
            costs[pid] = costs.get(pid, 0) + amount
            if loss.get("kind") == "ones":
                ones[pid] = ones.get(pid, 0) + amount
        self._apply(event.get("parties"))
        sides = event.get("sides") or {}
        dside = sides.get("defender") or {}
        efforts = dside.get("efforts") or []
        lead = efforts[0] if efforts else {}
        move = self._defend_move(defender[0]) if defender else None
        defence_move = move is not None and (lead.get("trait"), lead.get("treasure")) == move \
            and bool(dside.get("stated", True))
        values = event.get("values") or {}
        theirs = event.get("target") if against_gm else values.get(event.get("defender"))
        winner = event.get("winner")
        attacker_won = winner == event.get("attacker")
        clash = Clash(step=step, index=int(event.get("index", 0) or 0), attacker=attacker, defender=defender,
                      against_gm=against_gm, attacker_won=attacker_won, double=bool(event.get("double")),
                      tie=bool(event.get("tie")), settled=event.get("tie_settled_by"), costs=costs, ones=ones,
                      values=(values.get(event.get("attacker")), theirs), stated=bool(dside.get("stated", True)),
                      defence_move=defence_move)
        sit = self.situation
        told = not (set(defender) & self.fallen) and bool(self.pending.actors) if not against_gm \
            else bool(self.pending.actors)
        if told:
            self.clashes.append(clash)
            if sit is not None:
                hurt = [pid for pid, amount in costs.items() if amount > 0]
                if hurt and not self.drawn:
                    self.drawn = True
                    self._point(step, "first_blood", hurt)
                if clash.double:
                    self._point(step, "double_win", clash.winner)
                if clash.tie:
                    self._point(step, "tie", clash.winner)
                for pid, amount in costs.items():
                    if amount > 0 and (self.state.get(pid) or {}).get("quintessence", 1) == 0 \
                            and not (self.state.get(pid) or {}).get("defeated"):
                        self._point(step, "running_dry", [pid])

    def _on_defeat(self, step, event):
        pid = event.get("party")
        if not pid:
            return
        self.fallen.add(pid)
        self.story.fell[pid] = self.situation.name if self.situation else ""
        # fell again after coming back: the recap tells the last of it, a fall
        self.story.came_back = tuple(p for p in self.story.came_back if p != pid)
        self._point(step, "defeat", [pid])
        if self.pending is not None:
            self.defeats.append(pid)
        else:
            self.story.defeats[step] = (pid,)

    def _on_option(self, step, event):
        option = Option(step, str(event.get("party") or ""), str(event.get("option") or ""),
                        str(event.get("text") or ""), int(event.get("returned", 0) or 0),
                        int(event.get("lost", 0) or 0))
        if self.pending is not None and self.clashes:
            self.options.append(option)
        elif self.pending is None:
            self.story.acts[step] = Act(step, None, None, "", False, False, (), (), (), None, (), {}, (), (), (),
                                        (option,), False)

    def _on_recovery(self, step, event):
        pid = str(event.get("party") or "")
        before = (self.state.get(pid) or {}).get("damage_pool", 0)
        helpers = tuple(h.get("party") for h in event.get("helpers") or [] if h.get("party"))
        returned = int(event.get("returned", 0) or 0)
        self.story.recoveries[step] = Recovery(step, pid, helpers, bool(event.get("rushed")), returned, before)
        # who recovers, and who helps, take part: the cast line names whom the story names
        self._appear([pid, *helpers])
        if returned > 0:
            self._point(step, "recovery", [pid])
            if pid in self.story.fell:
                self._came_back(pid)

    def _on_calm(self, step, event):
        for pid in event.get("restored") or []:
            if pid in self.story.fell:
                self._came_back(pid)

    _on_rest = _on_calm

    def _came_back(self, pid: str) -> None:
        if pid not in self.story.came_back:
            self.story.came_back += (pid,)

    def _on_drama_end(self, step, event):
        self._end_situation(step, event)

    def _end_situation(self, step, event) -> None:
        sit = self.situation
        if sit is None:
            return
        sit.end_step = step if step is not None else len(self.events)
        sit.end_text = str(event.get("text") or "")
        sit.rounds = int(event.get("rounds", 0) or 0)
        sit.fallen = tuple(p for p in sit.parties if p in self.fallen)
        sit.took_part = tuple(self.sit_took)
        sit.order = tuple(self.sit_order)
        self._roles(sit)
        self.situation = None
        self.fallen = set()
        self.declared = {}

    def _roles(self, sit: Situation) -> None:
        """Who runs and who gives chase: as the script names it, else the one party
        that more parties act on than on any other, else the one party acted on
        that acts on nobody (none when that is not clear)."""
        if sit.kind not in RUNNING:
            return
        if not sit.quarry:
            counts = {pid: len(by - {pid}) for pid, by in self.targeted_by.items() if pid in sit.parties}
            if counts:
                best = max(counts.values())
                top = [pid for pid, n in counts.items() if n == best]
                if len(top) == 1 and best >= 2:
                    sit.quarry = (top[0],)
        if not sit.quarry:
            # the one party acted on that acts on nobody (`Hounds run -> Tobin`, and Tobin only defends)
            acting = set().union(*self.targeted_by.values()) if self.targeted_by else set()
            only = [pid for pid in self.targeted_by if pid in sit.parties and pid not in acting]
            if len(only) == 1:
                sit.quarry = (only[0],)
        if sit.quarry:
            # those who act on the quarry or whom it acts on: a party beside the chase (the fence
            # who only opens a gate, `vs 5`) gives no chase
            facing = set().union(*(self.targeted_by.get(q, set()) for q in sit.quarry))
            facing |= {pid for pid, by in self.targeted_by.items() if set(sit.quarry) & by}
            sit.pursuers = tuple(p for p in sit.parties if p not in sit.quarry and p in facing) \
                or tuple(p for p in sit.parties if p not in sit.quarry)
        # the roles of the comparisons of this situation, now that they are known
        index = self.story.situations.index(sit)
        for step, act in list(self.story.acts.items()):
            if act.situation != index or not act.clashes:
                continue
            clashes = tuple(Clash(**{**c.__dict__, "winner_role": sit.role(c.winner),
                                     "loser_role": sit.role(c.loser)}) for c in act.clashes)
            self.story.acts[step] = Act(**{**act.__dict__, "clashes": clashes})

    def _close(self) -> None:
        """The action read so far is complete: file it."""
        act = self.pending
        if act is None:
            return
        self.pending = None
        self.story.acts[act.step] = Act(**{**act.__dict__, "clashes": tuple(self.clashes),
                                           "defeats": tuple(self.defeats), "options": tuple(self.options)})

    def _on_initiative(self, step, event):
        self.round_acted = False


# the event types the transcript tells (or reads for its facts); the others
# (branch, loop, skipped, set) are how the script ran, told by the session log
TOLD = frozenset({"start", "scene", "narration", "drama", "initiative", "round", "hold", "action", "exchange",
                  "defeat", "option", "recovery", "drama_end", "calm", "rest", "member_lost", "choice", "final"})


def told(event_type: str) -> bool:
    """Whether the transcript has something to say of an event of this type."""
    return event_type in TOLD


def read_story(events: list[dict]) -> Story:
    """The story model of an event log."""
    return _Reader(events).read()
