"""The board of the table: the state of a `Session` in an 80-column terminal, and as plain data for the player board.

It shows the dramatic situation, the round and the in-world time; the
initiative order, with whose turn it is, who acted and who holds; each party's
available quintessence, damage pool and maximum; who is defeated; and the
last exchange in one line. It is drawn with rich, which uses colour only where
the terminal has it (and never under NO_COLOR or when written to a file).
"""

from __future__ import annotations

import io

from ..durations import format_seconds
from ..pipeline import Board
from ..terminal import printable

WIDTH = 80


def last_line(event: dict | None, hidden: frozenset[str] | set[str] = frozenset()) -> str:
    """The last exchange in one line: `Kara strike -> wolves: 11 vs 7, Kara wins; wolves -3`;
    a hidden party's total shows as `?` and its loss as `hit` (the player board's seats)."""
    if event is None:
        return ""
    values = event.get("values") or {}
    shown = " vs ".join("?" if pid in hidden else str(value) for pid, value in values.items())
    if event.get("defender") == "GM" or len(values) == 1:
        target = (event.get("sides") or {}).get("defender", {}).get("value")
        shown += f" vs {target}"
    winner = event["winner"]
    text = f"{event['attacker']} {event['intent']} -> {event['defender']}: {shown}, {winner} wins"
    if event.get("tie"):
        text += " the tie"
    if event.get("double"):
        text += " double"
    lost: dict[str, int] = {}
    for loss in event.get("losses") or ():
        if loss.get("amount"):
            lost[loss["party"]] = lost.get(loss["party"], 0) + loss["amount"]
    if lost:
        text += "; " + ", ".join(f"{pid} hit" if pid in hidden else f"{pid} -{amount}"
                                 for pid, amount in lost.items())
    return text


def status(party) -> str:
    if party.defeated:
        return "defeated"
    if party.holding:
        return "holds"
    if party.acted:
        return "acted"
    return ""


def values_line(values: dict[str, bool | int]) -> str:
    """The flags and counters in one line: `flags: gate_open true, torches 3`."""
    from ..flags import show
    return "flags: " + ", ".join(f"{name} {show(value)}" for name, value in values.items())


# the columns of the parties' table: header, right-justified, at most this many cells wide, and how rich
# shortens a cell too wide for it
COLUMNS = (("party", False, 24, "ellipsis"), ("avail", True, None, "ellipsis"), ("pool", True, None, "ellipsis"),
           ("max", True, None, "ellipsis"), ("", False, 20, "crop"), ("", False, None, "ellipsis"))

Piece = tuple[str, str]           # a piece of text and its style (rich's style words, "" for none)


def render(board: Board, *, color: bool | None = None, width: int = WIDTH, title: str = "",
           values: dict[str, bool | int] | None = None) -> str:
    """The board as text (with ANSI colours when `color`), at most `width` columns wide;
    `values`, the run's flags and counters, in a line under the parties when there are any. Every name and
    text from the scenario is shown with its control characters as symbols (`dsl.terminal.printable`).

    What it shows is made once (`contents`); it is laid out by hand when every line fits the width as it is
    (a night's board, drawn after every entry: a fraction of a millisecond), and by rich otherwise, which
    folds, wraps and shrinks columns. Both give the same text (tests/test_play_board.py holds them equal)."""
    shown = contents(board, title, values)
    text = by_hand(shown, bool(color), width)
    return text if text is not None else by_rich(shown, bool(color), width)


def contents(board: Board, title: str, values: dict[str, bool | int] | None) -> dict:
    """What the board shows, as lines of styled pieces and the parties' table (rows of styled cells)."""
    head: list[Piece] = []
    if title:
        head += [(printable(title), "bold"), ("  ", "")]
    if board.drama is not None:
        head += [(printable(board.drama), "bold cyan"), (f"  round {board.round or 0}", "")]
    else:
        head.append(("no dramatic situation", "dim"))
    head.append((f"  time {format_seconds(board.time)}", "dim"))
    before: list[list[Piece]] = [head]
    if board.order is not None:
        line: list[Piece] = [("order: ", "")]
        for index, pid in enumerate(board.order):
            party = board.party(pid)
            if index:
                line.append((" > ", ""))
            mark = "*" if pid == board.turn else ""
            style = "bold reverse" if pid == board.turn else "dim strike" if party.defeated else \
                "dim" if party.acted else "yellow" if party.holding else ""
            line.append((f"{mark}{printable(pid)}{' (holds)' if party.holding else ''}", style))
        before.append(line)
    rows: list[list[list[Piece]]] = []
    for party in board.parties:
        if board.drama is not None and not party.in_drama:
            continue
        bar_width = min(party.maximum, 20)
        filled = round(bar_width * party.available / party.maximum) if party.maximum else 0
        bar = [("#" * filled, "green" if not party.defeated else "red"), ("." * (bar_width - filled), "red dim")]
        name = (printable(party.id), "bold" if party.id == board.turn else "dim" if party.defeated else "")
        rows.append([[name], [(str(party.available), "")], [(str(party.damage_pool), "")],
                     [(str(party.maximum), "")], bar, [(status(party), "red" if party.defeated else "dim")]])
    after: list[list[Piece]] = []
    if values:
        after.append([(printable(values_line(values)), "")])
    if board.pending:
        after.append([("an action waits for its defences", "yellow")])
    if board.last_exchange is not None:
        after.append([("last: " + printable(last_line(board.last_exchange)), "dim")])
    return {"before": before, "rows": rows, "after": after}


def by_hand(shown: dict, color: bool, width: int) -> str | None:
    """The board laid out by hand, as rich lays it out when nothing needs folding, wrapping or shrinking
    (None when something would: rich does it then)."""
    from rich.cells import cell_len

    def fits(line: list[Piece]) -> bool:
        text = "".join(piece for piece, _ in line)
        return cell_len(text) <= width and text == text.strip() and "\t" not in text

    if not all(fits(line) for line in shown["before"] + shown["after"]):
        return None
    rows = shown["rows"]
    cells = [["".join(piece for piece, _ in cell) for cell in row] for row in rows]
    widths = [max([cell_len(header), *(cell_len(row[index]) for row in cells)])
              for index, (header, *_) in enumerate(COLUMNS)]
    if any(most is not None and widths[index] > most for index, (_, _, most, _) in enumerate(COLUMNS)) or \
            sum(widths) + 2 * (len(widths) - 1) > width or \
            any(text != text.strip() or "\t" in text for row in cells for text in row):
        return None
    paint = _painter(color)

    def cell(pieces: list[Piece], text: str, index: int) -> str:
        room = " " * (widths[index] - cell_len(text))
        drawn = "".join(paint(piece, style) for piece, style in pieces)
        return room + drawn if COLUMNS[index][1] else drawn + room

    out = ["".join(paint(piece, style) for piece, style in line) for line in shown["before"]]
    out.append("  ".join(paint(cell([(header, "")], header, index), "bold")
                         for index, (header, *_) in enumerate(COLUMNS)))
    out += ["  ".join(cell(row[index], cells[r][index], index) for index in range(len(COLUMNS)))
            for r, row in enumerate(rows)]
    out += ["".join(paint(piece, style) for piece, style in line) for line in shown["after"]]
    return "\n".join(out) + "\n"


def _painter(color: bool):
    """A piece of text in its style: ANSI codes by rich's `Style` when `color`, else the text alone."""
    if not color:
        return lambda text, style: text
    from rich.color import ColorSystem
    from rich.style import Style
    return lambda text, style: Style.parse(style).render(text, color_system=ColorSystem.STANDARD) \
        if style and text else text


def by_rich(shown: dict, color: bool, width: int) -> str:
    """The board laid out by rich: lines folded at the width, the table's columns shrunk to fit it."""
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    def text(line: list[Piece]) -> Text:
        out = Text()
        for piece, style in line:
            out.append(piece, style=style or None)
        return out

    out = io.StringIO()
    console = Console(file=out, width=width, force_terminal=color, color_system="standard" if color else None,
                      no_color=not color, highlight=False, emoji=False, legacy_windows=False)
    for line in shown["before"]:
        console.print(text(line), overflow="fold")
    table = Table(box=None, pad_edge=False, show_edge=False, header_style="bold", expand=False)
    for header, right, most, overflow in COLUMNS:
        table.add_column(header, justify="right" if right else "left", no_wrap=not right, max_width=most,
                         overflow=overflow)
    for row in shown["rows"]:
        table.add_row(*(text(cell) for cell in row))
    console.print(table)
    for line in shown["after"]:
        console.print(text(line), overflow="fold")
    return out.getvalue()


def data(board: Board, hidden: set[str], names: dict[str, str]) -> dict:
    """The board as JSON-ready data for the player board: no numbers for hidden parties."""
    parties = []
    for party in board.parties:
        if board.drama is not None and not party.in_drama:
            continue
        row = {"id": party.id, "name": names.get(party.id, party.id), "defeated": party.defeated,
               "acted": party.acted, "holding": party.holding, "turn": party.id == board.turn,
               "hidden": party.id in hidden}
        if party.id not in hidden:
            row.update(available=party.available, damage_pool=party.damage_pool, maximum=party.maximum)
        parties.append(row)
    return {"drama": board.drama, "round": board.round, "time": format_seconds(board.time),
            "order": list(board.order) if board.order is not None else None, "turn": board.turn,
            "parties": parties}
