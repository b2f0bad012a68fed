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


def render(board: Board, *, color: bool | None = None, width: int = WIDTH, title: str = "",
           values: dict[str, bool | int] | None = None) -> str:
    """The board as text (with ANSI colours when `color`), at most `width` columns wide;
    `values`, the run's flags and counters, in a line under the parties when there are any. Every name and
    text from the scenario is shown with its control characters as symbols (`dsl.terminal.printable`)."""
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    out = io.StringIO()
    console = Console(file=out, width=width, force_terminal=bool(color), color_system="standard" if color else None,
                      no_color=not color, highlight=False, emoji=False, legacy_windows=False)
    head = Text()
    if title:
        head.append(printable(title), style="bold")
        head.append("  ")
    if board.drama is not None:
        head.append(printable(board.drama), style="bold cyan")
        head.append(f"  round {board.round or 0}")
    else:
        head.append("no dramatic situation", style="dim")
    head.append(f"  time {format_seconds(board.time)}", style="dim")
    console.print(head, overflow="fold")
    if board.order is not None:
        line = Text("order: ")
        for index, pid in enumerate(board.order):
            party = board.party(pid)
            if index:
                line.append(" > ")
            mark = "*" if pid == board.turn else ""
            style = "bold reverse" if pid == board.turn else "dim strike" if party.defeated else \
                "dim" if party.acted else "yellow" if party.holding else ""
            line.append(f"{mark}{printable(pid)}{' (holds)' if party.holding else ''}", style=style)
        console.print(line, overflow="fold")
    table = Table(box=None, pad_edge=False, show_edge=False, header_style="bold", expand=False)
    table.add_column("party", no_wrap=True, max_width=24, overflow="ellipsis")
    table.add_column("avail", justify="right")
    table.add_column("pool", justify="right")
    table.add_column("max", justify="right")
    table.add_column("", no_wrap=True, max_width=20, overflow="crop")
    table.add_column("", no_wrap=True)
    for party in board.parties:
        if board.drama is not None and not party.in_drama:
            continue
        bar_width = min(party.maximum, 20)
        filled = round(bar_width * party.available / party.maximum) if party.maximum else 0
        bar = Text("#" * filled, style="green" if not party.defeated else "red")
        bar.append("." * (bar_width - filled), style="red dim")
        state = status(party)
        name = Text(printable(party.id), style="bold" if party.id == board.turn else "dim" if party.defeated else "")
        table.add_row(name, str(party.available), str(party.damage_pool), str(party.maximum), bar,
                      Text(state, style="red" if party.defeated else "dim"))
    console.print(table)
    if values:
        console.print(Text(printable(values_line(values))), overflow="fold")
    if board.pending:
        console.print(Text("an action waits for its defences", style="yellow"))
    if board.last_exchange is not None:
        console.print(Text("last: " + printable(last_line(board.last_exchange)), style="dim"))
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
