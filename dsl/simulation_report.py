"""The report of a simulation: its counts turned into proportions with Wilson intervals, means with theirs, histograms; and its forms.

Statistics (computed once, at the end, from the counts):

- a proportion k/n (a defeat, a branch taken): the Wilson score interval,
  (p + z²/2n ± z·sqrt(p(1-p)/n + z²/4n²)) / (1 + z²/n), z = 1.96;
- a mean of n integer values: mean ± z·s/sqrt(n), s the sample standard
  deviation (n - 1 in the denominator); with n < 2 there is no interval.

Nothing here reads a clock or a process: the same counts give the same report,
byte for byte (`dsl/simulate.py` makes the counts).
"""

from __future__ import annotations

import math
from collections import Counter
from typing import TYPE_CHECKING, Mapping

from .durations import format_seconds

if TYPE_CHECKING:
    from .simulate import Simulation

Z = 1.96                    # the normal quantile of a 95% two-sided interval
CONFIDENCE = 0.95
REPORT_VERSION = 1


def wilson(k: int, n: int, z: float = Z) -> tuple[float, float]:
    """The Wilson score interval of a proportion k/n."""
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return (max(0.0, centre - half), min(1.0, centre + half))


def proportion(k: int, n: int) -> dict:
    low, high = wilson(k, n)
    return {"count": k, "of": n, "p": _r(k / n) if n else None, "ci": [_r(low), _r(high)]}


def distribution(counts: Mapping[int, int]) -> dict:
    """Mean with its interval, standard deviation, range and histogram of integer values."""
    n = sum(counts.values())
    if n == 0:
        return {"n": 0, "mean": None, "sd": None, "ci": None, "min": None, "max": None, "histogram": []}
    s1 = sum(value * times for value, times in counts.items())
    s2 = sum(value * value * times for value, times in counts.items())
    mean = s1 / n
    if n > 1:
        variance = (n * s2 - s1 * s1) / (n * (n - 1))        # exact in integers up to the division
        sd = math.sqrt(max(0.0, variance))
        half = Z * sd / math.sqrt(n)
        ci = [_r(mean - half), _r(mean + half)]
    else:
        sd, ci = None, None
    return {"n": n, "mean": _r(mean), "sd": _r(sd) if sd is not None else None, "ci": ci,
            "min": min(counts), "max": max(counts),
            "histogram": [[value, counts[value]] for value in sorted(counts)]}


def _r(x: float) -> float:
    return round(x, 4)


def report(simulation: Simulation) -> dict:
    """The summary as plain data (what `--format json` prints): no timings, so the
    same seed and runs give the same report, whatever the number of processes."""
    prepared, total = simulation.prepared, simulation.aggregate
    scenario = prepared.scenario
    completed = total.completed
    parties = []
    for sheet in prepared.sheets:
        counts = total.final.get(sheet.id, {"quintessence": Counter(), "damage_pool": Counter()})
        parties.append({"id": sheet.id, "name": sheet.name, "maximum": sheet.quintessence,
                        "quintessence": distribution(counts["quintessence"]),
                        "damage_pool": distribution(counts["damage_pool"])})
    order = {sheet.id: index for index, sheet in enumerate(prepared.sheets)}
    dramas = []
    for key, drama in sorted(total.dramas.items(), key=lambda item: (item[1]["first"], item[0])):
        # its own round length (R13, point 14), in the most runs; None: the setting's
        own = min(drama["round_seconds"].items(), key=lambda item: (-item[1], item[0] is not None, item[0] or 0))[0]
        dramas.append({
            "name": key, "runs": proportion(drama["runs"], completed),
            "rounds": distribution(drama["rounds"]),
            # its own round length (R13, point 14), in the most runs; None: the setting's
            "round_seconds": own,
            "round_length": None if own is None else format_seconds(own),
            "defeat": [{"party": pid, **proportion(drama["defeated"][pid], drama["in"][pid])}
                       for pid in sorted(drama["in"], key=lambda pid: (order.get(pid, len(order)), pid))],
        })
    branches = []
    for (file, line), branch in sorted(total.branches.items()):
        arms = sorted(branch["arms"].items(), key=lambda item: (item[0] is None, item[0] or 0))
        branches.append({
            "file": file, "line": line, "evaluations": branch["evaluations"],
            "runs": proportion(branch["runs"], completed),
            "arms": [{"taken": taken, "condition": condition,
                      "times": proportion(times, branch["evaluations"]),
                      "runs": proportion(runs, branch["runs"])}
                     for taken, (condition, times, runs) in arms],
        })
    loops = []
    for (file, line), loop in sorted(total.loops.items()):
        executions = sum(loop["passes"].values())
        loops.append({
            "file": file, "line": line, "executions": executions, "runs": proportion(loop["runs"], completed),
            "passes": distribution(loop["passes"]),
            "ended": {why: proportion(loop["ended"][why], executions) for why in ("until", "count", "bound")},
            "bound": sorted(loop["bound"]),
        })
    skipped = [{"file": file, "line": line, "times": times, "runs": proportion(runs, completed)}
               for (file, line), (times, runs) in sorted(total.skipped.items())]
    offered = prepared.program.choices
    choices = []
    for choice in sorted(total.choices, key=lambda c: (list(offered).index(c) if c in offered else len(offered), c)):
        entry = total.choices[choice]
        labels = [label for label in offered.get(choice, []) if label in entry["options"]]
        labels += sorted(label for label in entry["options"] if label not in labels)
        options = []
        for label in labels:
            counts = entry["options"][label]
            options.append({
                "option": label, "taken": proportion(counts["runs"], entry["runs"]),
                "parties": [{"id": sheet.id,
                             "defeated": proportion(counts["defeated"][sheet.id], counts["runs"]),
                             "quintessence": distribution(counts["quintessence"].get(sheet.id, Counter()))}
                            for sheet in prepared.sheets],
            })
        choices.append({"choice": choice, "runs": proportion(entry["runs"], completed), "options": options})
    state = []
    for name in sorted(total.state):
        values = total.state[name]
        if all(isinstance(v, bool) for v in values):
            state.append({"name": name, "kind": "flag", "true": proportion(values[True], sum(values.values()))})
        else:
            state.append({"name": name, "kind": "counter",
                          "value": distribution({int(v): k for v, k in values.items()})})
    errors = [{"code": code, "runs": entry[0], "error": entry[4], "printed": entry[3],
               "first_run": entry[1], "seed": entry[2], "reproduce": prepared.reproduce(entry[2])}
              for code, entry in sorted(total.errors.items(), key=lambda item: (item[1][1], item[0]))]
    return {
        "version": REPORT_VERSION,
        "title": scenario.title, "scenario": prepared.path,
        "seed": simulation.seed, "runs": simulation.runs,
        "done": completed + total.failed, "completed": completed, "failed": total.failed,
        "interrupted": simulation.interrupted, "confidence": CONFIDENCE,
        "parties": parties, "dramas": dramas, "branches": branches, "loops": loops,
        "skipped": skipped, "errors": errors, "choices": choices, "state": state,
        "chosen": dict(prepared.choices),
    }


# ---------------------------------------------------------------------------
# output: the report goes through the renderer (dsl/render/, its filters in report_filters.py)

FORMATS = ("text", "md", "json", "html")


def to_json(data: dict) -> str:
    """The report as JSON: indented, with each list of numbers (a histogram, an
    interval) on one line."""
    return render(data, "json")


def render(data: dict, fmt: str = "text") -> str:
    """The report as text (a terminal table), Markdown, JSON or HTML (with
    histograms as inline SVG)."""
    if fmt not in FORMATS:
        raise ValueError(f"format must be one of {FORMATS}, not {fmt!r}")
    if fmt == "json":
        from .render import compact_json
        return compact_json(data)
    from .render import render_report
    return render_report("simulate", data, fmt)
