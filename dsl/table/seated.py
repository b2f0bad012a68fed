"""The table with seats: `drama play --seats`, where the players declare and roll from their phones and the game master decides.

    serving = Serving(program, table, host="127.0.0.1", port=0, seats=True)
    read = serving.front(read)                 # the terminal's prompt, shared with the pages
    loop = SeatsLoop(table, read, serving=serving, ...)

`SeatsLoop` is the table's loop (`TableLoop`) with the game master's side of
the seats: a seat's declaration arrives as a *proposal*; at an idle prompt the
table asks about it at once, else as soon as the entry being made is done:

    Kara's seat proposes: Kara fireball -> Overlord with Sorcery + Ember Staff, rolled 6 6 4
    Enter accepts, `edit STATEMENT` plays that instead, `refuse WORD` says no>

An accepted (or edited) proposal is played as a statement typed at the
terminal (`Table.play_text`: the same trial, journal and board), its
defences asked for as for a typed action (a seat that is its target may send
its own). The player sees the outcome, or the word. `/seats` lists the links;
`/seats revoke PARTY` and `/seats new PARTY` stop a seat and issue a new link.
"""

from __future__ import annotations

import ipaddress
import json
import os
import socket
import sys
import tempfile
import threading

from ..errors import DramaError
from ..syntax import nodes as n
from .asks import Typed
from .front import DefenceAsk, Front, ProposalAsk
from .live import Story, Views
from .seats import GM, Hub
from .table import TableLoop

SEAT_COMMANDS = {
    "seats": "the seats' links; `/seats revoke PARTY` stops one, `/seats new PARTY` gives it a new link",
    "proposals": "ask about the seats' proposals that wait",
}


def loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


def reachable_address(host: str) -> str:
    """The address to put in the links: the one bound, or this machine's own when bound to every address."""
    if host not in ("0.0.0.0", "::", ""):
        return host
    try:
        return socket.gethostbyname(socket.gethostname())
    except OSError:
        return "127.0.0.1"


class Serving:
    """The web server of a session, its seats, and what it publishes after every entry."""

    def __init__(self, program, table, *, host: str = "127.0.0.1", port: int | None = None, seats: bool = False,
                 parties: tuple[str, ...] | None = None, resume: bool = False, head_seconds: float | None = None):
        from .web import PlayerBoard
        cast = program.scenario.cast
        if parties is None:
            parties = tuple(sheet.id for sheet in cast if not sheet.hidden) if seats else ()
        self.program = program
        self.table = table
        self.seats = seats
        self.path = os.path.splitext(table.journal.path)[0] + ".seats"
        saved = read_seats(self.path) if seats and resume else {}
        if port is None:
            port = saved.get("port") if isinstance(saved.get("port"), int) else 0
        self.hub = Hub(parties, saved=saved, on_tokens=self._save)
        self.hub.names = table.session.interpreter.names
        self.views = Views(program, parties)
        self.server = PlayerBoard(port, host, hub=self.hub, program=program, title=program.scenario.title,
                                  head_seconds=head_seconds)
        if seats:
            self._save(self.hub)
        self.address = reachable_address(host)
        self.story = Story()
        self._story_lock = threading.Lock()
        self._story_wanted = threading.Event()
        self._events: list[dict] = []
        threading.Thread(target=self._teller, name="table-story", daemon=True).start()

    def _save(self, hub: Hub) -> None:
        """The seats' secret, tokens and port, next to the journal (only its owner may read it)."""
        data = {**hub.saved(), "port": self.server.port if hasattr(self, "server") else None}
        text = json.dumps(data, indent=1) + "\n"
        folder = os.path.dirname(os.path.abspath(self.path))
        handle, temporary = tempfile.mkstemp(prefix=".seats-", dir=folder)
        try:
            os.fchmod(handle, 0o600)
            os.write(handle, text.encode("utf-8"))
            os.fsync(handle)
            os.close(handle)
            os.replace(temporary, self.path)
        except OSError:
            try:
                os.unlink(temporary)
            except OSError:
                pass

    # ------------------------------------------------------------ links

    def link(self, role: str) -> str:
        return self.server.link(role, self.address if ":" not in self.address else f"[{self.address}]")

    def introduce(self, echo, qr: bool) -> None:
        """Say where the table is served, with a link (and a QR code) for each seat."""
        if not self.seats:
            echo(f"player board: {self.server.url}")
            return
        base = self.link(GM).rsplit("/gm/", 1)[0] + "/"
        echo(f"player board: {base}")
        echo(f"game master:  {self.link(GM)}")
        for pid in self.hub.parties:
            echo(f"seat {pid}: {self.link(pid)}")
            if qr:
                echo(qr_text(self.link(pid)))

    # ------------------------------------------------------------ publishing

    def publish(self, table) -> None:
        """The views after a change: the board, the GM's, each seat's sheet; the story follows from a thread."""
        self.hub.publish(board=self.views.board(table), gm=self.views.gm(table),
                         sheets={pid: self.views.sheet(table, pid) for pid in self.hub.parties})
        with self._story_lock:
            self._events = list(table.events)
        self._story_wanted.set()

    def _teller(self) -> None:
        """Tell the story of the latest events, one telling at a time (a busy table skips the ones in between)."""
        while True:
            self._story_wanted.wait()
            self._story_wanted.clear()
            with self._story_lock:
                events = self._events
            try:
                told = self.story.tell(events)
            except Exception as error:          # noqa: BLE001 - the story must never stop the table
                told = {"paragraphs": [], "new": 0, "error": str(error)}
            self.hub.publish(story=told)

    def front(self, read) -> Front:
        return Front(self.hub, read)

    def close(self) -> None:
        self.server.close()


def seated_parties(table, names: tuple[str, ...]) -> tuple[str, ...]:
    """The party ids of `--seat` names (party ids or roles); E201 for a name that is neither."""
    found = []
    for name in names:
        pid = table.session.interpreter.names.party(n.Name(name, None))
        if pid not in found:
            found.append(pid)
    return tuple(found)


def read_seats(path: str) -> dict:
    """The seats kept next to a journal by the session before ({} when there are none, or they are unreadable)."""
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def qr_text(link: str) -> str:
    """A QR code of `link` in text, two rows of modules to a line (a phone's camera reads it off the terminal)."""
    import io

    import segno
    out = io.StringIO()
    segno.make(link, error="l").terminal(out=out, compact=True, border=2)
    return out.getvalue().rstrip("\n")


class SeatsLoop(TableLoop):
    """The table's loop, with the seats' proposals put to the game master."""

    def __init__(self, table, read, *, serving: Serving, **kwargs):
        super().__init__(table, read, **kwargs)
        self.serving = serving
        self.hub = serving.hub
        self.front: Front = read

    # what the prompt asks, for the pages: the loop's calls, and whether the prompt is idle

    def __call__(self, ask):
        was = self.front.ask
        self.front.ask, self.front.idle = ask, False
        try:
            return super().__call__(ask)
        finally:
            self.front.ask = was

    def turn(self) -> None:
        if self.hub.waiting() and self.table.open_option() is None:
            self.proposals()
            return
        self.front.idle = True
        try:
            super().turn()
        finally:
            self.front.idle = False

    def typed(self, line: str) -> None:
        self.front.idle = False
        super().typed(line)

    def command(self, line: str) -> None:
        name, _, rest = line.strip().partition(" ")
        if name == "proposals":
            self.front.idle = False
            self.proposals()
        elif name == "seats":
            self.seats_command(rest.strip())
        elif name == "help":
            super().command(line)
            for key, what in SEAT_COMMANDS.items():
                self.say(f"  /{key:<6} {what}")
        else:
            super().command(line)

    # ------------------------------------------------------------ proposals

    def proposals(self) -> None:
        for proposal in self.hub.waiting():
            self.say(f"  {proposal.party}'s seat proposes: {proposal.text}")
            while True:
                self.front.ask = ProposalAsk(proposal.id, proposal.party)
                try:
                    line = self.read("  Enter accepts, `edit STATEMENT` plays that instead, "
                                     "`refuse WORD` says no> ").strip()
                finally:
                    self.front.ask = None
                word, _, rest = line.partition(" ")
                if line in ("", "accept", "a", "y", "yes"):
                    self.play_proposal(proposal, proposal.text)
                elif word in ("edit", "e") and rest.strip():
                    self.play_proposal(proposal, rest.strip())
                elif word in ("refuse", "r", "no", "n"):
                    reason = rest.strip() or "no"
                    self.hub.settle(proposal, "refused", reason)
                    self.say(f"  refused: {reason}")
                else:
                    self.say("  Enter accepts it, `edit STATEMENT` plays yours instead, `refuse WORD` says no")
                    continue
                break

    def play_proposal(self, proposal, text: str) -> None:
        """A proposal as a statement typed at the table: its defences asked for, then played and journalled."""
        table = self.table
        try:
            statements = table.program.read(text, "<table>")
        except DramaError as error:
            self.show_error(error, text)
            self.hub.settle(proposal, "refused", error.message)
            return
        if statements and isinstance(statements[-1], n.Action):
            targets = self._seated_targets(statements[-1])
            while True:
                self.front.ask = DefenceAsk(targets)
                try:
                    more = self.read("  ... a defence, `tie`, `split` (Enter: done)> ")
                finally:
                    self.front.ask = None
                if not more.strip():
                    break
                text += "\n" + more
        before = len(table.entries)
        try:
            entry = table.play_text(text, self)
        except Typed as again:
            self.say("  (not played)")
            self.hub.settle(proposal, "waiting")
            self.typed(again.text)
            return
        except DramaError as error:
            self.show_error(error, text)
            self.hub.settle(proposal, "refused", error.message)
            return
        if len(table.entries) > before:
            self.hub.settle(proposal, "accepted", played=entry.text.strip("\n"))
        self.accepted(entry)

    def _seated_targets(self, action: n.Action) -> tuple[str, ...]:
        names = self.table.session.interpreter.names
        out = []
        for name in [action.target, *getattr(action, "extra_targets", ())]:
            if name is None:
                continue
            try:
                pid = names.party(name)
            except DramaError:
                continue
            if pid in self.hub.parties:
                out.append(pid)
        return tuple(out)

    # ------------------------------------------------------------ /seats

    def seats_command(self, rest: str) -> None:
        verb, _, party = rest.partition(" ")
        party = party.strip()
        if not rest:
            for pid in self.hub.parties:
                state = "revoked" if not self.hub.tokens.get(pid) else f"{self.hub.open_streams(pid)} open"
                self.say(f"  {pid}: {self.serving.link(pid) if self.hub.tokens.get(pid) else '(no link)'}  ({state})")
            self.say(f"  game master: {self.serving.link(GM)}")
            return
        if verb not in ("revoke", "new") or party not in self.hub.parties:
            self.say(f"  /seats, /seats revoke PARTY or /seats new PARTY, PARTY one of {', '.join(self.hub.parties)}")
            return
        if verb == "revoke":
            self.hub.revoke(party)
            self.say(f"  {party}'s seat is revoked: its link and its pages stop now")
        else:
            self.hub.reissue(party)
            self.say(f"  {party}'s new link: {self.serving.link(party)}")
            if sys.stdout.isatty():
                self.say(qr_text(self.serving.link(party)))
        self.serving.hub.changed()

