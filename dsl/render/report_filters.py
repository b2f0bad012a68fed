"""The filters of the report of `drama simulate`: numbers, intervals, text tables, histograms."""

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


FILTERS = {"number": number, "percent": percent, "interval": interval, "spark": spark, "svg_bars": svg_bars,
           "table": table}
