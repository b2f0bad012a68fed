"""What a simulation counts of its runs: a run's event log reduced to a summary (`summarise`), and the summaries added up into integer counts (`Aggregate`), which merge in any order.

Everything an `Aggregate` holds is an integer count (histograms of integer
values, numbers of runs, the first failing run of each error code), and
merging two is adding counts or taking a minimum: the same runs give the same
aggregate in any order, so the result depends on the seed and the number of
runs only, never on how the runs were spread over processes (`--jobs`) or
machines (`--cluster`). The runs of a compiled plan count into a
`simulation_tally.Tally`, which adds into an `Aggregate` the same counts.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Iterable

from .errors import DramaError
from .messages import shown


# ---------------------------------------------------------------------------
# one run

def summarise(events: Iterable[dict]) -> dict:
    """A run's event log reduced to what a simulation counts:

    - `dramas`: one entry per dramatic situation begun, in order: `[key,
      party_ids, rounds, defeated, round_seconds]`; the key is the situation's
      name, with ` (2)`, ` (3)` ... for a name met again in the same run;
      `round_seconds` is its own round length (`rounds of 1 hour`, R13), or
      None for the setting's;
    - `final`: party id -> `(quintessence, damage_pool)` at the end;
    - `branches`: `[file, line, taken, condition]` per `if` that ran;
    - `loops`: `[file, line, passes, ended, bound]` per loop that ended;
    - `skipped`: `[file, line]` per statement skipped;
    - `choices`: `(choice, option)` per choice made, in order;
    - `state`: each flag and counter at the end.
    """
    dramas: list[list] = []
    seen: Counter = Counter()
    current: list | None = None
    branches: list[tuple] = []
    loops: list[tuple] = []
    skipped: list[tuple] = []
    choices: list[tuple] = []
    state: dict = {}
    final: dict[str, tuple[int, int]] = {}
    for event in events:
        kind = event["type"]
        if kind == "exchange" or kind == "action":
            continue
        if kind == "defeat":
            if current is not None:
                current[3].add(event["party"])
        elif kind == "round":
            if current is not None:
                current[2] = event["round"]
        elif kind == "drama":
            name = event["drama"]
            seen[name] += 1
            key = name if seen[name] == 1 else f"{name} ({seen[name]})"
            current = [key, tuple(event["party_ids"]), 1, set(),
                       event.get("round_seconds") if event.get("rounds_of") else None]
            dramas.append(current)
        elif kind == "drama_end":
            if current is not None:
                current[2] = event["rounds"]
            current = None
        elif kind == "branch":
            branches.append((event["file"], event["line"], event["taken"], event["condition"]))
        elif kind == "loop":
            loops.append((event["file"], event["line"], event["passes"], event["ended"], event["bound"]))
        elif kind == "skipped":
            skipped.append((event["file"], event["line"]))
        elif kind == "choice":
            choices.append((event["choice"], event["taken"]))
        elif kind == "final":
            final = {pid: (s["quintessence"], s["damage_pool"]) for pid, s in event["parties"].items()}
            state = dict(event.get("state") or {})
    return {"dramas": [(key, ids, rounds, frozenset(defeated), own) for key, ids, rounds, defeated, own in dramas],
            "final": final, "branches": branches, "loops": loops, "skipped": skipped,
            "choices": choices, "state": state}


# ---------------------------------------------------------------------------
# counting

@dataclass
class Aggregate:
    """Integer counts over runs; `merge` is order-independent (see the module doc)."""

    completed: int = 0          # runs that went to their end
    failed: int = 0             # runs stopped by a DramaError
    # party id -> {"quintessence": Counter(value -> runs), "damage_pool": Counter}
    final: dict = field(default_factory=dict)
    # drama key -> {"first": (run, position), "runs": int, "rounds": Counter,
    #               "in": Counter(pid -> runs), "defeated": Counter(pid -> runs),
    #               "round_seconds": Counter(its own round length or None -> runs)}
    dramas: dict = field(default_factory=dict)
    # (file, line) -> {"evaluations": int, "runs": int,
    #                  "arms": {taken: [condition, times, runs]}}
    branches: dict = field(default_factory=dict)
    # (file, line) -> {"passes": Counter, "ended": Counter, "bound": Counter, "runs": int}
    loops: dict = field(default_factory=dict)
    # (file, line) -> [times, runs]
    skipped: dict = field(default_factory=dict)
    # error code -> [runs, first run index, its seed, the error as printed, its head line]
    errors: dict = field(default_factory=dict)
    # choice -> {"runs": int, "options": {option: {"runs": int, "defeated": Counter(pid),
    #            "quintessence": {pid: Counter}}}}: the runs that took each option
    choices: dict = field(default_factory=dict)
    # flag or counter -> Counter(value at the end -> runs); a flag's values are True/False
    state: dict = field(default_factory=dict)

    def add(self, index: int, summary: dict) -> None:
        """Count one completed run (`index` is its number, for the order of dramas)."""
        self.completed += 1
        for pid, (quintessence, pool) in summary["final"].items():
            counts = self.final.get(pid)
            if counts is None:
                counts = self.final[pid] = {"quintessence": Counter(), "damage_pool": Counter()}
            counts["quintessence"][quintessence] += 1
            counts["damage_pool"][pool] += 1
        for position, (key, ids, rounds, defeated, own) in enumerate(summary["dramas"]):
            drama = self.dramas.get(key)
            if drama is None:
                drama = self.dramas[key] = {"first": (index, position), "runs": 0, "rounds": Counter(),
                                            "in": Counter(), "defeated": Counter(), "round_seconds": Counter()}
            elif (index, position) < drama["first"]:
                drama["first"] = (index, position)
            drama["runs"] += 1
            drama["rounds"][rounds] += 1
            drama["round_seconds"][own] += 1
            drama["in"].update(ids)
            drama["defeated"].update(defeated)
        if summary["branches"]:
            ran: set = set()
            taken_here: set = set()
            for file, line, taken, condition in summary["branches"]:
                branch = self.branches.get((file, line))
                if branch is None:
                    branch = self.branches[(file, line)] = {"evaluations": 0, "runs": 0, "arms": {}}
                branch["evaluations"] += 1
                arm = branch["arms"].get(taken)
                if arm is None:
                    arm = branch["arms"][taken] = [condition, 0, 0]
                arm[1] += 1
                if (file, line) not in ran:
                    ran.add((file, line))
                    branch["runs"] += 1
                if (file, line, taken) not in taken_here:
                    taken_here.add((file, line, taken))
                    arm[2] += 1
        if summary["loops"]:
            ran = set()
            for file, line, passes, ended, bound in summary["loops"]:
                loop = self.loops.get((file, line))
                if loop is None:
                    loop = self.loops[(file, line)] = {"passes": Counter(), "ended": Counter(),
                                                       "bound": Counter(), "runs": 0}
                loop["passes"][passes] += 1
                loop["ended"][ended] += 1
                loop["bound"][bound] += 1
                if (file, line) not in ran:
                    ran.add((file, line))
                    loop["runs"] += 1
        if summary.get("choices"):
            defeated = set().union(*(d[3] for d in summary["dramas"])) if summary["dramas"] else set()
            made: dict[str, set] = {}
            for choice, option in summary["choices"]:
                made.setdefault(choice, set()).add(option)
            for choice, options in made.items():
                entry = self.choices.setdefault(choice, {"runs": 0, "options": {}})
                entry["runs"] += 1
                for option in options:
                    counts = entry["options"].setdefault(option, {"runs": 0, "defeated": Counter(),
                                                                  "quintessence": {}})
                    counts["runs"] += 1
                    counts["defeated"].update(defeated)
                    for pid, (quintessence, _pool) in summary["final"].items():
                        counts["quintessence"].setdefault(pid, Counter())[quintessence] += 1
        for name, value in (summary.get("state") or {}).items():
            self.state.setdefault(name, Counter())[value] += 1
        if summary["skipped"]:
            ran = set()
            for where in summary["skipped"]:
                counts = self.skipped.setdefault(where, [0, 0])
                counts[0] += 1
                if where not in ran:
                    ran.add(where)
                    counts[1] += 1

    def fail(self, index: int, seed: int, error: DramaError) -> None:
        """Count a run stopped by `error`; the first run (lowest index) of each code is kept."""
        self.failed += 1
        entry = self.errors.get(error.code)
        if entry is None or index < entry[1]:
            printed = shown(error)
            self.errors[error.code] = [(entry[0] if entry else 0) + 1, index, seed, printed,
                                       printed.split("\n", 1)[0]]
        else:
            entry[0] += 1

    def merge(self, other: "Aggregate") -> None:
        self.completed += other.completed
        self.failed += other.failed
        for pid, counts in other.final.items():
            mine = self.final.setdefault(pid, {"quintessence": Counter(), "damage_pool": Counter()})
            mine["quintessence"].update(counts["quintessence"])
            mine["damage_pool"].update(counts["damage_pool"])
        for key, drama in other.dramas.items():
            mine = self.dramas.get(key)
            if mine is None:
                self.dramas[key] = {"first": drama["first"], "runs": drama["runs"],
                                    "rounds": Counter(drama["rounds"]), "in": Counter(drama["in"]),
                                    "defeated": Counter(drama["defeated"]),
                                    "round_seconds": Counter(drama["round_seconds"])}
                continue
            mine["first"] = min(mine["first"], drama["first"])
            mine["runs"] += drama["runs"]
            mine["rounds"].update(drama["rounds"])
            mine["round_seconds"].update(drama["round_seconds"])
            mine["in"].update(drama["in"])
            mine["defeated"].update(drama["defeated"])
        for where, branch in other.branches.items():
            mine = self.branches.setdefault(where, {"evaluations": 0, "runs": 0, "arms": {}})
            mine["evaluations"] += branch["evaluations"]
            mine["runs"] += branch["runs"]
            for taken, (condition, times, runs) in branch["arms"].items():
                arm = mine["arms"].setdefault(taken, [condition, 0, 0])
                arm[1] += times
                arm[2] += runs
        for where, loop in other.loops.items():
            mine = self.loops.setdefault(where, {"passes": Counter(), "ended": Counter(),
                                                 "bound": Counter(), "runs": 0})
            for name in ("passes", "ended", "bound"):
                mine[name].update(loop[name])
            mine["runs"] += loop["runs"]
        for where, (times, runs) in other.skipped.items():
            counts = self.skipped.setdefault(where, [0, 0])
            counts[0] += times
            counts[1] += runs
        for choice, entry in other.choices.items():
            mine = self.choices.setdefault(choice, {"runs": 0, "options": {}})
            mine["runs"] += entry["runs"]
            for option, counts in entry["options"].items():
                into = mine["options"].setdefault(option, {"runs": 0, "defeated": Counter(), "quintessence": {}})
                into["runs"] += counts["runs"]
                into["defeated"].update(counts["defeated"])
                for pid, values in counts["quintessence"].items():
                    into["quintessence"].setdefault(pid, Counter()).update(values)
        for name, values in other.state.items():
            self.state.setdefault(name, Counter()).update(values)
        for code, entry in other.errors.items():
            mine = self.errors.get(code)
            if mine is None:
                self.errors[code] = list(entry)
            else:
                count = mine[0] + entry[0]
                if entry[1] < mine[1]:
                    mine[:] = entry
                mine[0] = count
