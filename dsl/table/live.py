"""What the pages of the table are sent: the board for everyone, each seat's own sheet, the GM's full view, and the story as it happens.

    views = Views(program)
    views.board(table)           # the player board: no numbers for hidden parties, a coarse state instead
    views.sheet(table, "Kara")   # a seat's private view of its own party
    views.gm(table)              # everything, for the game master's page
    story = Story(); story.tell(events)   # the transcript's paragraphs, the new ones marked

Hidden parties (`hidden: true` in the cast) come without numbers: the board
says how they stand in words (`coarse`), and the last exchange gives neither
their total nor their losses. The story is the transcript of the session so
far, through the public renderer (`dsl.render.render`), so it is told as
`drama run --as transcript` tells it, with no numbers.
"""

from __future__ import annotations

from . import board as boards


def coarse(available: int, maximum: int, defeated: bool) -> str:
    """How a hidden party stands, in words: unhurt, hurt, bloodied, on their last legs, defeated."""
    if defeated:
        return "defeated"
    if maximum <= 0 or available >= maximum:
        return "unhurt"
    if 2 * available > maximum:
        return "hurt"
    if 4 * available > maximum:
        return "bloodied"
    return "on their last legs"


class Views:
    """The data of each page, made from the table's board and the cast."""

    def __init__(self, program, seats: tuple[str, ...] = ()):
        cast = program.scenario.cast
        self.title = program.scenario.title or ""
        self.hidden = {sheet.id for sheet in cast if sheet.hidden}
        self.names = {sheet.id: sheet.name for sheet in cast}
        self.sheets = {sheet.id: sheet for sheet in cast}
        self.seats = seats

    def board(self, table) -> dict:
        """The player board: the situation, the order, each party (coarse words for the hidden), the last exchange."""
        board = table.board()
        data = boards.data(board, self.hidden, self.names)
        for row in data["parties"]:
            if row["hidden"]:
                party = board.party(row["id"])
                row["standing"] = coarse(party.available, party.maximum, party.defeated)
        data["title"] = self.title
        data["last"] = boards.last_line(board.last_exchange, self.hidden)
        data["entries"] = len(table.entries)
        return data

    def gm(self, table) -> dict:
        """The game master's view: every number, hidden or not."""
        board = table.board()
        data = boards.data(board, set(), self.names)
        for row in data["parties"]:
            row["hidden"] = row["id"] in self.hidden
        data["title"] = self.title
        data["last"] = boards.last_line(board.last_exchange)
        data["entries"] = len(table.entries)
        return data

    def sheet(self, table, pid: str) -> dict:
        """A seat's own party: its numbers, traits, treasures and moves, and whom it may act against."""
        sheet = self.sheets[pid]
        board = table.board()
        party = board.party(pid)
        moves = {name: {"trait": move.trait, "treasure": move.treasure} for name, move in sheet.moves.items()}
        targets = [p.id for p in board.parties if p.id != pid and (board.drama is None or p.in_drama)]
        return {"id": pid, "name": sheet.name, "available": party.available, "damage_pool": party.damage_pool,
                "maximum": party.maximum, "defeated": party.defeated, "acted": party.acted,
                "holding": party.holding, "turn": party.id == board.turn, "in_drama": party.in_drama,
                "traits": dict(sheet.traits), "treasures": dict(sheet.treasures), "moves": moves,
                "targets": targets, "names": {t: self.names.get(t, t) for t in targets}}


def paragraphs(text: str) -> list[str]:
    """A transcript's paragraphs, each on one line."""
    out = []
    for block in text.split("\n\n"):
        line = " ".join(part.strip() for part in block.splitlines() if part.strip())
        if line:
            out.append(line)
    return out


class Story:
    """The transcript of the session so far, as paragraphs; `tell` says which are new since the last time.

    A long night is told from a window: the last `WINDOW` to `2 * WINDOW` events, after the
    scene and the dramatic situation they are in, so that each telling costs the same at entry
    1,000 as at entry 50 (the whole transcript is `drama run --as transcript` of the journal)."""

    SHOWN = 12
    WINDOW = 150

    def __init__(self):
        self.told: list[str] = []
        self.base = 0

    def window(self, events: list[dict]) -> tuple[list[dict], bool]:
        """The events to tell, and whether the window moved."""
        moved = False
        if len(events) - self.base > 2 * self.WINDOW:
            self.base = len(events) - self.WINDOW
            moved = True
        if self.base == 0:
            return events, moved
        context = []
        for kind in ("scene", "drama"):
            for event in reversed(events[1:self.base]):
                if event.get("type") == "drama_end" and kind == "drama":
                    break
                if event.get("type") == kind:
                    context.append(event)
                    break
        context.sort(key=lambda e: events.index(e))
        return [events[0], *context, *events[self.base:]], moved

    def tell(self, events: list[dict]) -> dict:
        from ..errors import DramaError
        from ..render import render
        shown_events, moved = self.window(events)
        try:
            text = render(shown_events, as_="transcript", format="text")
        except DramaError as error:             # the story is never worth stopping the table for
            return {"paragraphs": self.told[-self.SHOWN:], "new": 0, "error": error.message}
        now = paragraphs(text)
        same = 0
        for old, new in zip(self.told, now):
            if old != new:
                break
            same += 1
        fresh = 1 if moved or not self.told else len(now) - same
        self.told = now
        shown = now[-self.SHOWN:]
        return {"paragraphs": shown, "new": min(fresh, len(shown))}

