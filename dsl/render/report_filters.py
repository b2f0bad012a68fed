"""The filters of the reports of `drama simulate` and `drama odds`: numbers, intervals, tables, histograms, odds."""

from __future__ import annotations

SPARKS = "▁▂▃▄▅▆▇█"


# ---------------------------------------------------------------------------
# numbers and tables

def number(x) -> str:
    """An integer with thousands separators, a float with two decimals, None as `–`."""
    if x is None:
        return "–"
    if isinstance(x, int):
        return f"{x:,}"
    return f"{x:,.2f}"


def percent(p, places: int = 1) -> str:
    """A proportion as a percentage (`0.25` -> `25.0%`), None as `–`."""
    return "–" if p is None else f"{100 * p:.{places}f}%"


def interval(ci, percent: bool = False) -> str:
    """A confidence interval `[low, high]`, in percent if asked; none as `[–]`."""
    if not ci:
        return "[–]"
    if percent:
        return f"[{fixed(100 * ci[0], 1)}, {fixed(100 * ci[1], 1)}]"
    return f"[{fixed(ci[0], 2)}, {fixed(ci[1], 2)}]"


def fixed(x: float, places: int) -> str:
    """`x` with `places` decimals, never `-0.00`."""
    text = f"{x:,.{places}f}"
    return text[1:] if text.startswith("-") and not text.strip("-0.,") else text


def table(rows: list[list], align: str = "", least=(), margin: str = "") -> str:
    """Rows of cells as aligned text columns (`align`: one `l` or `r` per column;
    `least`: the narrowest each column may be), each line after `margin`."""
    rows = [[str(cell) for cell in row] for row in rows]
    if not rows:
        return ""
    widths = [max(len(row[i]) for row in rows if i < len(row)) for i in range(max(map(len, rows)))]
    widths = [max(width, least[i]) if i < len(least) else width for i, width in enumerate(widths)]
    lines = []
    for row in rows:
        cells = []
        for i, cell in enumerate(row):
            right = i < len(align) and align[i] == "r"
            cells.append(cell.rjust(widths[i]) if right else cell.ljust(widths[i]))
        lines.append((margin + "  ".join(cells)).rstrip())
    return "\n".join(lines)


# ---------------------------------------------------------------------------
# histograms

def bins(histogram: list, most: int = 40) -> list[list[int]]:
    """A histogram of integer values as `[low, high, count]` bars covering min..max
    without gaps: one bar per value, or per range of values when there are more
    than `most`."""
    if not histogram:
        return []
    counts = dict((value, count) for value, count in histogram)
    low, high = histogram[0][0], histogram[-1][0]
    width = max(1, -(-(high - low + 1) // most))
    out = []
    for start in range(low, high + 1, width):
        stop = min(start + width - 1, high)
        out.append([start, stop, sum(counts.get(v, 0) for v in range(start, stop + 1))])
    return out


def spark(histogram: list, most: int = 30) -> str:
    """A histogram as a line of block characters (a blank for no runs)."""
    bars = bins(histogram, most)
    top = max((count for _, _, count in bars), default=0)
    if not top:
        return ""
    return "".join(" " if not count else SPARKS[min(len(SPARKS) - 1, (count * len(SPARKS) - 1) // top)]
                   for _, _, count in bars)


def svg_bars(dist: dict, width: int = 320, height: int = 120) -> dict:
    """The geometry of a histogram's inline SVG: bars, axis labels and the mean."""
    bars = bins(dist["histogram"], 40)
    left, right, top, bottom = 8, width - 8, 8, height - 22
    if not bars:
        return {"width": width, "height": height, "bars": [], "labels": [], "mean_x": None,
                "left": left, "right": right, "top": top, "bottom": bottom}
    tallest = max(count for _, _, count in bars)
    step = min((right - left) / len(bars), 24)          # a few values: narrow bars, centred
    left = left + ((right - left) - step * len(bars)) / 2
    shapes = []
    for index, (low, high, count) in enumerate(bars):
        h = (bottom - top) * count / tallest if tallest else 0
        shapes.append({"x": round(left + index * step + 1, 1), "y": round(bottom - h, 1),
                       "w": round(max(1.0, step - 2), 1), "h": round(h, 1), "count": count,
                       "label": str(low) if low == high else f"{low}–{high}"})
    every = max(1, -(-len(bars) // 10))
    labels = [{"x": round(left + (i + 0.5) * step, 1), "text": shapes[i]["label"]}
              for i in range(0, len(bars), every)]
    first = bars[0][0]
    span = bars[-1][1] + 1 - first
    mean_x = round(left + (dist["mean"] - first + 0.5) / span * step * len(bars), 1)
    return {"width": width, "height": height, "bars": shapes, "labels": labels, "mean_x": mean_x,
            "left": 8, "right": right, "top": top, "bottom": bottom}


# ---------------------------------------------------------------------------
# the odds of one exchange (the data of `drama odds --format json`)

def shown(chance: dict) -> str:
    """A chance for people: its reduced fraction, or 0 or 1."""
    numerator, denominator = chance["fraction"].split("/")
    return numerator if denominator == "1" else chance["fraction"]


def md_pipes(text) -> str:
    """Text for a cell of the odds' Markdown tables: `|` escaped."""
    return str(text).replace("|", "\\|")


def _dice(pool: dict, sides: int) -> str:
    parts = []
    if pool["dice"]:
        parts.append(f"{pool['dice']}d{sides}")
    if pool["given"]:
        parts.append("rolled " + " ".join(map(str, pool["given"])))
    return " + ".join(parts) if parts else "no dice"


def _uses(pool: dict) -> str:
    bits = []
    if pool["trait"] is not None:
        bits.append(f"{pool['trait']} {pool['trait_level']}" + ("" if pool["trait_counts"] else " (not added, R10)"))
    if pool["treasure"] is not None:
        bits.append(f"{pool['treasure']} {pool['treasure_value']}")
    if pool["gm"]:
        bits.append(f"GM {pool['gm']:+d}")
    return " + ".join(bits) if bits else "no trait or treasure"


def _effort(pool: dict, sides: int) -> str:
    return f"{_uses(pool)}, {_dice(pool, sides)} (at most {pool['cap']}, R3)"


def _side_value(side: dict, sides: int) -> str:
    dice = sum(p["dice"] for p in side["parties"])
    if not dice:
        return str(side["value"])
    return f"{dice}d{sides}" if side["value"] == 0 else f"{side['value']} + {dice}d{sides}"


def odds_sides(report: dict) -> list[list[str]]:
    """`[who, what it uses and rolls, the side's value]` for each party of the
    exchange, and a row for each side of several parties."""
    sides = report["dice"]["sides"]
    rows = []
    for side in (report["attacker"], *report["targets"]):
        if "gm_target" in side:
            rows.append(["GM target", "", str(side["gm_target"])])
        elif not side["stated"]:
            rows.append([side["name"], "no defence (R5)", "0"])
        elif len(side["parties"]) == 1:
            pool = side["parties"][0]
            rows.append([pool["party"], _effort(pool, sides), _side_value(side, sides)])
        else:
            rows += [[pool["party"], _effort(pool, sides), ""] for pool in side["parties"]]
            rows.append([side["name"], "together (R10)", _side_value(side, sides)])
    return rows


def tie_note(ties: dict) -> str:
    """How ties were counted for the losses, and why."""
    counted, setting = ties["counted"], ties["setting"]
    if counted == "half":
        why = f"the setting's ties: {setting}" if setting in ("vote", "random") else "as asked"
        return (f"a tie counts as half won by each side ({why}; --tie actor or --tie defender "
                "gives it to one side)")
    who = "the acting side" if counted == "actor" else "the defending side"
    source = "the setting's ties" if counted == setting else "--tie"
    return f"a tie goes to {who} ({source}: {counted})"


def exchange_title(comparison: dict) -> str:
    """`Kara -> Overlord`, or `Kara vs 7 (GM target)`."""
    if comparison["gm_target"] is not None:
        return f"{comparison['attacker']} vs {comparison['gm_target']} (GM target)"
    return f"{comparison['attacker']} -> {comparison['defender']}"


def _wins(name: str) -> str:
    return f"{name} {'win' if ' & ' in name else 'wins'}"


def outcomes(comparison: dict) -> list[list]:
    """`[outcome, chance]` for each outcome of a comparison (no double win for the GM)."""
    c = comparison
    other = "GM" if c["gm_target"] is not None else c["defender"]
    rows = [[_wins(c["attacker"]), c["win"]], ["tie", c["tie"]], [_wins(other), c["lose"]],
            [f"{_wins(c['attacker'])} double (R8)", c["attacker_double"]]]
    if c["gm_target"] is None:
        rows.append([f"{_wins(c['defender'])} double (R8)", c["defender_double"]])
    return rows


def lost_rows(loss_table: dict) -> list[dict]:
    """The amounts lost worth a row: up to the largest one that can happen."""
    lost = loss_table["lost"]
    last = max((k for k, entry in enumerate(lost) if entry["fraction"] != "0/1"), default=0)
    return lost[:last + 1]


FILTERS = {"number": number, "percent": percent, "interval": interval, "spark": spark, "svg_bars": svg_bars,
           "table": table, "shown": shown, "md_pipes": md_pipes, "odds_sides": odds_sides,
           "tie_note": tie_note, "exchange_title": exchange_title, "outcomes": outcomes, "lost_rows": lost_rows}
