"""The seats of the table: who may do what from a browser, and the hub between the web server and the game master's prompt.

    hub = Hub(("Kara", "Bren"))           # a seat for each party the players control, and the GM's
    hub.tokens["Kara"]                     # the secret of Kara's private link
    hub.role_of(token)                     # "Kara", GM, or None (every token compared in constant time)
    hub.publish(state)                     # the views after an accepted entry: every page follows
    hub.revoke("Kara") / hub.reissue("Kara")

A token is 32 random bytes (`secrets.token_urlsafe`); the page it opens
trades it for a *session*: a cookie (HttpOnly, SameSite=Strict) signed with
the hub's secret over the seat's token, and a CSRF token the page must send
back with every change. Revoking a seat forgets its token, so every session
made from it stops, and its open event streams are closed at once. The
secret and the tokens are kept next to the journal (`Serving`), so that after
a crash and `--resume` the phones reconnect with the sessions they had.

The hub is shared by two threads: the web server's event loop and the main
thread, where the game master's prompt runs. Its state is behind one lock;
pages are woken through `notify` (the server's `call_soon`); lines from the
pages go to the prompt through `Front` (`dsl/table/front.py`).
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import secrets
import threading
from dataclasses import dataclass

GM = "GM"
MAX_STREAMS_PER_SEAT = 4           # open event streams of one seat (a phone, a tablet, a reload or two)
MAX_BOARD_STREAMS = 300            # the public board's streams, all together
MAX_PROPOSALS = 50                 # waiting at once, all seats together
MAX_PER_SEAT_WAITING = 3           # waiting proposals of one seat

log = logging.getLogger("drama.seats")


@dataclass(frozen=True)
class Session:
    """A browser holding a seat: its cookie's value, the seat, and the CSRF token its page sends back."""

    id: str
    role: str
    csrf: str


@dataclass
class Proposal:
    """A statement declared from a seat, waiting for the game master: accepted, edited, or refused with a word."""

    id: int
    party: str
    text: str
    status: str = "waiting"          # waiting, accepted, refused
    word: str = ""                   # the game master's word, or the rules' refusal
    played: str = ""                 # the statement as it went into the journal (after an edit)

    def data(self) -> dict:
        return {"id": self.id, "party": self.party, "text": self.text, "status": self.status,
                "word": self.word, "played": self.played}


class Stream:
    """One open event stream of a page: woken on every change, closed when its seat is revoked."""

    def __init__(self, role: str | None, session: str | None):
        self.role = role
        self.session = session
        self.closed = False
        self.event = None             # an asyncio.Event, made in the server's loop

    def wake(self) -> None:
        if self.event is not None:
            self.event.set()


class Hub:
    """The seats, their sessions and streams, the views last published, what the table asks now, and the proposals."""

    def __init__(self, parties: tuple[str, ...] = (), *, notify=None, saved: dict | None = None, on_tokens=None):
        self.parties = tuple(parties)
        self.lock = threading.Lock()
        saved = saved or {}
        self.secret = saved.get("secret") or secrets.token_urlsafe(32)
        kept = saved.get("tokens") or {}
        self.tokens: dict[str, str] = {}
        for role in (GM, *self.parties):
            token = kept.get(role)
            self.tokens[role] = token if isinstance(token, str) else secrets.token_urlsafe(32)
        self.on_tokens = on_tokens or (lambda hub: None)
        self.streams: list[Stream] = []
        self.notify = notify or (lambda callback: callback())
        self.version = 0
        self.state: dict = {}
        self.asking: dict | None = None           # what the prompt asks now: {"seq", "prompt", "kind", "parties", ...}
        self.proposals: list[Proposal] = []
        self._next_proposal = 1
        self.front = None                         # the Front that takes lines from the pages
        self.refusals = 0                         # requests refused (403), for the tests and the log
        self.names = None                         # the session's names (party ids and roles), to read declarations

    def saved(self) -> dict:
        """What survives a restart (`--resume`): the tokens, and the secret that signs the sessions."""
        with self.lock:
            return {"secret": self.secret, "tokens": dict(self.tokens)}

    # ------------------------------------------------------------ tokens and sessions

    def role_of(self, token: str) -> str | None:
        """The seat a link's token opens (GM for the game master's), or None; every token is compared, in constant time."""
        if not token:
            return None
        given = token.encode("utf-8", "surrogatepass")
        found = None
        with self.lock:
            for role, secret in self.tokens.items():
                if secret and hmac.compare_digest(given, secret.encode("ascii")):
                    found = role
        return found

    def _sign(self, role: str, token: str, nonce: str, what: str) -> str:
        message = "\0".join((what, role, token, nonce)).encode("utf-8")
        return hmac.new(self.secret.encode("ascii"), message, hashlib.sha256).hexdigest()

    def open_session(self, role: str) -> Session:
        """A new session for a seat: a cookie signed with the seat's token, so that a new token ends it,
        and a restart of the server (with the same secret) keeps it."""
        nonce = secrets.token_urlsafe(16)
        with self.lock:
            token = self.tokens[role]
        sid = f"{nonce}.{self._sign(role, token, nonce, 'session')}"
        return Session(sid, role, self._sign(role, token, nonce, "csrf"))

    def session(self, sid: str | None) -> Session | None:
        """The session of a cookie, while its seat's token stands (every seat's signature compared)."""
        if not sid or sid.count(".") != 1:
            return None
        nonce, mac = sid.split(".")
        given = mac.encode("utf-8", "surrogatepass")
        found = None
        with self.lock:
            tokens = dict(self.tokens)
        for role, token in tokens.items():
            if token and hmac.compare_digest(given, self._sign(role, token, nonce, "session").encode("ascii")):
                found = Session(sid, role, self._sign(role, token, nonce, "csrf"))
        return found

    def revoke(self, role: str) -> None:
        """Forget a seat's token and its sessions, and close its streams now."""
        with self.lock:
            self.tokens[role] = ""                     # matches no token, signs no session
            streams = [s for s in self.streams if s.role == role]
            for stream in streams:
                stream.closed = True
        log.warning("seat %s revoked", role)
        self.on_tokens(self)
        for stream in streams:
            self.notify(stream.wake)

    def reissue(self, role: str) -> str:
        """A new token for a seat (the old one and its sessions stop at once)."""
        self.revoke(role)
        with self.lock:
            self.tokens[role] = secrets.token_urlsafe(32)
            token = self.tokens[role]
        self.on_tokens(self)
        return token

    def refused(self, why: str, request_info: str = "") -> None:
        with self.lock:
            self.refusals += 1
        log.warning("refused: %s %s", why, request_info)

    # ------------------------------------------------------------ streams

    def open_stream(self, role: str | None, session: str | None) -> Stream | None:
        """A new event stream for a seat (or the board: role None); None past the seat's bound."""
        with self.lock:
            same = [s for s in self.streams if s.role == role and not s.closed]
            bound = MAX_BOARD_STREAMS if role is None else MAX_STREAMS_PER_SEAT
            if len(same) >= bound:
                return None
            stream = Stream(role, session)
            self.streams.append(stream)
            return stream

    def close_stream(self, stream: Stream) -> None:
        with self.lock:
            if stream in self.streams:
                self.streams.remove(stream)

    def open_streams(self, role: str | None = None) -> int:
        with self.lock:
            return sum(1 for s in self.streams if s.role == role and not s.closed)

    def stream_alive(self, stream: Stream) -> bool:
        """A seat's stream lives while its session does."""
        if stream.closed:
            return False
        if stream.role is None:
            return True
        session = self.session(stream.session)
        return session is not None and session.role == stream.role

    # ------------------------------------------------------------ what every page is sent

    def publish(self, **changes) -> None:
        """Change the published state (views, story, the ask, proposals) and wake every page."""
        with self.lock:
            self.state.update(changes)
            self.version += 1
            streams = list(self.streams)
        for stream in streams:
            self.notify(stream.wake)

    def changed(self) -> None:
        self.publish()

    def payload(self, role: str | None) -> dict:
        """What a page of `role` is sent (None: the public board): never another seat's private view."""
        with self.lock:
            state = dict(self.state)
            asking = self.asking
            proposals = [p.data() for p in self.proposals if role == GM or p.party == role]
            version = self.version
        out = {"version": version, "board": state.get("board") or {}, "story": state.get("story") or {}}
        if role == GM:
            out["board"] = state.get("gm") or {}
            out["ask"] = asking
            out["proposals"] = proposals
            out["seats"] = [{"party": pid, "revoked": not self.tokens.get(pid), "streams": self.open_streams(pid)}
                            for pid in self.parties]
        elif role is not None:
            out["sheet"] = (state.get("sheets") or {}).get(role)
            out["ask"] = asking if asking is not None and role in asking.get("parties", ()) else None
            out["proposals"] = proposals[-5:]
            out["odds"] = (state.get("odds") or {}).get(role)
        return out

    # ------------------------------------------------------------ proposals

    def propose(self, party: str, text: str) -> Proposal | None:
        """Queue a seat's statement for the game master (None when too many wait)."""
        with self.lock:
            waiting = [p for p in self.proposals if p.status == "waiting"]
            if len(waiting) >= MAX_PROPOSALS or sum(p.party == party for p in waiting) >= MAX_PER_SEAT_WAITING:
                return None
            proposal = Proposal(self._next_proposal, party, text)
            self._next_proposal += 1
            self.proposals.append(proposal)
            del self.proposals[:-100]
        self.changed()
        if self.front is not None:
            self.front.wake_for_proposals()
        return proposal

    def waiting(self) -> list[Proposal]:
        with self.lock:
            return [p for p in self.proposals if p.status == "waiting"]

    def settle(self, proposal: Proposal, status: str, word: str = "", played: str = "") -> None:
        with self.lock:
            proposal.status, proposal.word, proposal.played = status, word, played
        self.changed()
