"""What the runs of a simulation plan count (`Tally`), and those counts added into an `Aggregate` as `Aggregate.add` would have counted each run's summary.

A planned run (`simulation_plan`) writes no summary: it adds 1 to a few
counters. Which arm of each `if` ran and how often, which line was skipped,
which loop ended, go into one small vector of integers per run (a `Slot`
each), and the run adds its vector to a counter of vectors: runs are many,
distinct vectors few. A party's quintessence at the end is an index into a
list of its possible values (its damage pool is the rest of its maximum); a
situation's rounds and who fell in it (a bit per member) go to counters of
their own. `Tally.into` turns all of it into the `Aggregate` that the
summaries of the same runs would have made (tests/test_plan.py holds the two
equal).
"""

from __future__ import annotations

from collections import Counter

from .frozen import frozen


@frozen
class Slot:
    """One counter of a run's vector: an `if` arm that ran (`taken` is its line, None
    when no arm did), a line skipped (R7), or a loop that ended."""

    kind: str                   # "arm" | "skip" | "loop"
    file: str
    line: int
    taken: int | None = None
    condition: str | None = None
    bound: int = 0


class Tally:
    """The counts of the runs of one plan (see the module doc)."""

    def __init__(self, plan):
        self.plan = plan
        self.vectors: Counter = Counter()           # a run's vector of slot counts -> runs
        self.loop_ends: Counter = Counter()         # (slot, passes, how it ended) -> times
        self.finals = [[0] * (most + 1) for most in plan.maxima]    # party -> quintessence -> runs
        self.rounds = [Counter() for _ in plan.dramas]              # situation -> rounds -> runs
        self.masks = [Counter() for _ in plan.dramas]               # situation -> who fell (bits) -> runs
        self.states = [Counter() for _ in plan.state]               # flag or counter -> value at the end -> runs
        self.first: int | None = None               # the first run counted (for the order of situations)

    @property
    def completed(self) -> int:
        return sum(self.vectors.values())

    def into(self, aggregate) -> None:
        """Add these counts into `aggregate` (a `simulate.Aggregate`)."""
        runs = self.completed
        if not runs:
            return
        plan = self.plan
        aggregate.completed += runs
        for k, pid in enumerate(plan.parties):
            counts = aggregate.final.setdefault(pid, {"quintessence": Counter(), "damage_pool": Counter()})
            most = plan.maxima[k]
            for value, times in enumerate(self.finals[k]):
                if times:
                    counts["quintessence"][value] += times
                    counts["damage_pool"][most - value] += times
        for position, drama in enumerate(plan.dramas):
            self._drama(aggregate, position, drama, runs)
        for vector, times in self.vectors.items():
            self._vector(aggregate, vector, times)
        slots = plan.slots
        for (slot, passes, ended), times in self.loop_ends.items():
            loop = aggregate.loops[(slots[slot].file, slots[slot].line)]
            loop["passes"][passes] += times
            loop["ended"][ended] += times
            loop["bound"][slots[slot].bound] += times
        for name, values in zip(plan.state, self.states):
            if values:
                aggregate.state.setdefault(name, Counter()).update(values)

    def _drama(self, aggregate, position: int, drama, runs: int) -> None:
        first = (self.first, position)
        mine = aggregate.dramas.get(drama.key)
        if mine is None:
            mine = aggregate.dramas[drama.key] = {"first": first, "runs": 0, "rounds": Counter(), "in": Counter(),
                                                  "defeated": Counter(), "round_seconds": Counter()}
        elif first < mine["first"]:
            mine["first"] = first
        mine["runs"] += runs
        mine["rounds"].update(self.rounds[position])
        mine["round_seconds"][drama.own] += runs
        for pid in drama.ids:
            mine["in"][pid] += runs
        for mask, times in self.masks[position].items():
            for place, pid in enumerate(drama.ids):
                if mask >> place & 1:
                    mine["defeated"][pid] += times

    def _vector(self, aggregate, vector: tuple[int, ...], runs: int) -> None:
        """The slots of `runs` runs that each counted `vector`."""
        slots = self.plan.slots
        sites: set = set()          # each (file, line) and arm counts a run once
        for slot, times in zip(slots, vector):
            if not times:
                continue
            where = (slot.file, slot.line)
            if slot.kind == "arm":
                branch = aggregate.branches.get(where)
                if branch is None:
                    branch = aggregate.branches[where] = {"evaluations": 0, "runs": 0, "arms": {}}
                branch["evaluations"] += times * runs
                arm = branch["arms"].get(slot.taken)
                if arm is None:
                    arm = branch["arms"][slot.taken] = [slot.condition, 0, 0]
                arm[1] += times * runs
                if ("arm",) + where not in sites:
                    sites.add(("arm",) + where)
                    branch["runs"] += runs
                if ("taken", where, slot.taken) not in sites:
                    sites.add(("taken", where, slot.taken))
                    arm[2] += runs
            elif slot.kind == "skip":
                counts = aggregate.skipped.setdefault(where, [0, 0])
                counts[0] += times * runs
                if ("skip",) + where not in sites:
                    sites.add(("skip",) + where)
                    counts[1] += runs
            else:
                loop = aggregate.loops.get(where)
                if loop is None:
                    loop = aggregate.loops[where] = {"passes": Counter(), "ended": Counter(), "bound": Counter(),
                                                     "runs": 0}
                if ("loop",) + where not in sites:
                    sites.add(("loop",) + where)
                    loop["runs"] += runs
