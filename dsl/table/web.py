"""The table on the web: the player board, the seats and the game master's page, as a Starlette app served by uvicorn.

    board = PlayerBoard(port, host="127.0.0.1", hub=hub, program=program)
    board.publish(views)       # after every accepted entry: every page follows within the second
    board.close()

Pages (templates in `dsl/table/pages/`, rendered through the project's Jinja
sandbox, one self-contained file each: no CDN, no build step):

- `/`: the player board, for anyone who can reach the address (hidden parties
  as words, never numbers); `/state` and `/events` (server-sent events).
- `/seat/TOKEN`: a seat's private link; it opens a session (a cookie) and
  leads to `/seat`: the party's sheet, the board, the story, what the table
  asks of it, and its declarations. `/seat/state`, `/seat/events`,
  `POST /seat/declare`, `/seat/answer`, `/seat/odds`.
- `/gm/TOKEN` → `/gm`: the game master's page, an equal of the terminal's
  prompt. `POST /gm/line`, `/gm/seat`.

Every request passes `Guard` first: the Host header must name this server by
an IP address or `localhost` (a DNS-rebinding page cannot), a request that
changes anything must come from this origin (Origin, Sec-Fetch-Site), a body
is at most `MAX_BODY` bytes, and only GET, HEAD and POST are served. No CORS
header is ever sent. Each change also needs the session's CSRF token in
`X-CSRF-Token` and a JSON body.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import logging
import re
import secrets
from pathlib import Path

from ..errors import DramaError
from . import seats as s

PAGES = Path(__file__).resolve().parent / "pages"
MAX_BODY = 8 * 1024
HEARTBEAT = 15.0
COOKIES = {s.GM: "drama_gm", "seat": "drama_seat"}
log = logging.getLogger("drama.seats")

_ENVIRONMENT = None


def page_text(name: str, **context) -> str:
    """A page, rendered through the project's sandbox (autoescaped)."""
    global _ENVIRONMENT
    if _ENVIRONMENT is None:
        from jinja2 import FileSystemLoader, StrictUndefined
        from ..render.sandbox import GuardedSandbox
        _ENVIRONMENT = GuardedSandbox(loader=FileSystemLoader(str(PAGES)), undefined=StrictUndefined,
                                      autoescape=True, trim_blocks=True, lstrip_blocks=True)
    return _ENVIRONMENT.get_template(name).render(**context)


# ---------------------------------------------------------------------------- the guard

def host_allowed(host: str, port: int) -> bool:
    """Whether a Host header names this server: an IP address or localhost, with its port (no DNS name can)."""
    match = re.fullmatch(r"(\[[0-9A-Fa-f:.]+\]|[^:\[\]]+)(?::(\d{1,5}))?", host or "")
    if match is None or match.group(2) is None or int(match.group(2)) != port:
        return False
    name = match.group(1).strip("[]").lower()
    if name == "localhost":
        return True
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


class Guard:
    """ASGI middleware: Host and Origin checks, methods, and the bound on a request's body."""

    def __init__(self, app, port_of, hub):
        self.app = app
        self.port_of = port_of
        self.hub = hub

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        host = headers.get("host", "")
        where = f"{scope.get('method')} {scope.get('path')} from {(scope.get('client') or ('?',))[0]}"
        if not host_allowed(host, self.port_of()):
            self.hub.refused(f"Host {host[:80]!r}", where)
            return await _plain(send, 421, "this server answers only to its own address\n")
        method = scope["method"]
        if method not in ("GET", "HEAD", "POST"):
            return await _plain(send, 405, "only GET and POST\n", [(b"allow", b"GET, HEAD, POST")])
        origin = headers.get("origin")
        if origin is not None and origin != f"http://{host}":
            self.hub.refused(f"Origin {origin[:80]!r}", where)
            return await _plain(send, 403, "not from this origin\n")
        if method == "POST":
            fetch_site = headers.get("sec-fetch-site")
            if origin is None or (fetch_site is not None and fetch_site not in ("same-origin", "none")):
                self.hub.refused("a change without this Origin", where)
                return await _plain(send, 403, "a change must come from this origin\n")
        length = headers.get("content-length")
        if length is not None and (not length.isdigit() or int(length) > MAX_BODY):
            return await _plain(send, 413, f"at most {MAX_BODY} bytes\n")
        if "transfer-encoding" in headers and method == "POST" and length is None:
            return await _plain(send, 411, "a length is needed\n")
        received = 0

        async def bounded():
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > MAX_BODY:
                    raise _TooLarge
            return message
        try:
            await self.app(scope, bounded, send)
        except _TooLarge:
            await _plain(send, 413, f"at most {MAX_BODY} bytes\n")


class _TooLarge(Exception):
    pass


async def _plain(send, status: int, text: str, headers=()) -> None:
    body = text.encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"text/plain; charset=utf-8"), (b"content-length", str(len(body)).encode()),
                            (b"cache-control", b"no-store"), (b"connection", b"close"), *headers]})
    await send({"type": "http.response.body", "body": body})


# ---------------------------------------------------------------------------- the app

def make_app(hub: s.Hub, *, port_of, program=None, title: str = "The table"):
    """The Starlette app of the table."""
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response, StreamingResponse
    from starlette.routing import Route

    def secure(response: Response, nonce: str | None = None) -> Response:
        csp = "default-src 'none'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; " \
              "form-action 'self'; frame-ancestors 'none'"
        if nonce:
            csp += f"; script-src 'nonce-{nonce}'; style-src 'nonce-{nonce}'"
        response.headers["Content-Security-Policy"] = csp
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["Referrer-Policy"] = "no-referrer"
        response.headers["X-Frame-Options"] = "DENY"
        response.headers["Cache-Control"] = "no-store"
        return response

    def html(name: str, **context) -> Response:
        nonce = secrets.token_urlsafe(16)
        return secure(HTMLResponse(page_text(name, nonce=nonce, title=title, **context)), nonce)

    def refuse(request: Request, why: str, status: int = 403) -> Response:
        hub.refused(why, f"{request.method} {request.url.path} from {request.client.host if request.client else '?'}")
        return secure(JSONResponse({"error": why}, status_code=status))

    def session_of(request: Request, want: str):
        """The session of a request for a seat (want "seat") or the GM (want GM), else None."""
        cookie = request.cookies.get(COOKIES[s.GM if want == s.GM else "seat"])
        session = hub.session(cookie)
        if session is None:
            return None
        if (want == s.GM) != (session.role == s.GM):
            return None
        return session

    async def body_of(request: Request, session) -> dict | Response:
        """A change's JSON body, after its CSRF token (an error response when either is wrong)."""
        token = request.headers.get("x-csrf-token", "")
        import hmac
        if not hmac.compare_digest(token.encode("utf-8", "surrogatepass"), session.csrf.encode()):
            return refuse(request, "a change without this session's CSRF token")
        if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
            return refuse(request, "a change is sent as JSON", 415)
        try:
            data = json.loads(await request.body())
        except (ValueError, UnicodeDecodeError):
            return refuse(request, "the body is not JSON", 400)
        if not isinstance(data, dict):
            return refuse(request, "the body is not a JSON object", 400)
        return data

    # ------------------------------------------------------------ the board

    async def board_page(request: Request):
        return html("board.html.j2", role="board")

    async def board_state(request: Request):
        return secure(JSONResponse(hub.payload(None)["board"]))

    async def stream(request: Request, role, session_id):
        channel = hub.open_stream(role, session_id)
        if channel is None:
            return refuse(request, "too many open streams for this seat", 429)
        channel.event = asyncio.Event()

        async def events():
            seen = -1
            yield "retry: 1000\n\n"             # a page reconnects within a second (after a restart, say)
            try:
                while True:
                    if not hub.stream_alive(channel):
                        yield "event: revoked\ndata: {}\n\n"
                        return
                    version = hub.version
                    if version != seen:
                        seen = version
                        data = hub.payload(role)
                        yield "data: " + json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n\n"
                    channel.event.clear()
                    try:
                        await asyncio.wait_for(channel.event.wait(), HEARTBEAT)
                    except asyncio.TimeoutError:
                        yield ": still here\n\n"
            finally:
                hub.close_stream(channel)
        response = StreamingResponse(events(), media_type="text/event-stream")
        return secure(response)

    async def board_events(request: Request):
        return await stream(request, None, None)

    # ------------------------------------------------------------ opening a seat

    def opener(want: str):
        async def open_link(request: Request):
            token = request.path_params["token"]
            role = hub.role_of(token)
            if role is None or (want == s.GM) != (role == s.GM):
                hub.refused("a wrong or revoked token", request.url.path[:6] + "...")
                return secure(HTMLResponse(page_text("refused.html.j2", title=title), status_code=403))
            session = hub.open_session(role)
            response = RedirectResponse("/gm" if role == s.GM else "/seat", status_code=303)
            response.set_cookie(COOKIES[s.GM if role == s.GM else "seat"], session.id, httponly=True,
                                samesite="strict", path="/")
            return secure(response)
        return open_link

    # ------------------------------------------------------------ a seat

    def seat_only(handler):
        async def guarded(request: Request):
            session = session_of(request, "seat")
            if session is None:
                if session_of(request, s.GM) is not None:
                    return refuse(request, "the game master's session on a seat's page")
                return refuse(request, "no seat's session (open the seat's link again)")
            return await handler(request, session)
        return guarded

    def gm_only(handler):
        async def guarded(request: Request):
            session = session_of(request, s.GM)
            if session is None:
                return refuse(request, "the game master's page needs the game master's session")
            return await handler(request, session)
        return guarded

    async def seat_page(request: Request, session):
        return html("seat.html.j2", role="seat", csrf=session.csrf, party=session.role)

    async def seat_state(request: Request, session):
        return secure(JSONResponse(hub.payload(session.role)))

    async def seat_events(request: Request, session):
        return await stream(request, session.role, session.id)

    async def seat_declare(request: Request, session):
        data = await body_of(request, session)
        if isinstance(data, Response):
            return data
        text = data.get("text")
        if not isinstance(text, str) or not text.strip() or len(text) > 1000:
            return refuse(request, "a declaration is one statement of the language", 400)
        try:
            kind = check_statement(program, text, session.role, hub)
        except SeatRefusal as refusal:
            return refuse(request, refusal.why, refusal.status)
        if kind not in ("action", "recover", "hold", "dictate", "reroll"):
            return refuse(request, "a seat declares its party's action, recovery, hold or option", 403)
        proposal = hub.propose(session.role, text.strip())
        if proposal is None:
            return refuse(request, "too many declarations wait for the game master", 429)
        return secure(JSONResponse({"proposal": proposal.data()}))

    async def seat_answer(request: Request, session):
        data = await body_of(request, session)
        if isinstance(data, Response):
            return data
        seq, line = data.get("seq"), data.get("line", "")
        if not isinstance(seq, int) or not isinstance(line, str) or len(line) > 300 or "\n" in line:
            return refuse(request, "an answer is a prompt's number and one line", 400)
        asking = hub.asking
        if asking is None or asking.get("seq") != seq:
            return secure(JSONResponse({"error": "the table has moved on"}, status_code=409))
        if session.role not in asking.get("parties", ()):
            return refuse(request, f"the table does not ask {session.role} this")
        kind = asking["kind"]
        if kind == "dice" and not re.fullmatch(r"[0-9 ,]*(,?\s*re-?rolling [0-9 ,to]+)?", line):
            return refuse(request, "dice are faces, e.g. `6 4 1`", 400)
        if kind == "option" and not (line in ("", "reroll") or line.startswith("dictate ")):
            return refuse(request, "`reroll`, `dictate TEXT`, or nothing", 400)
        if kind == "defence" and line:
            try:
                if check_statement(program, line, session.role, hub) != "defence":
                    return refuse(request, "a defence of your own party", 400)
            except SeatRefusal as refusal:
                return refuse(request, refusal.why, refusal.status)
        if hub.front is None or not hub.front.put(seq, line, session.role):
            return secure(JSONResponse({"error": "the table has moved on"}, status_code=409))
        return secure(JSONResponse({"ok": True}))

    async def seat_odds(request: Request, session):
        data = await body_of(request, session)
        if isinstance(data, Response):
            return data
        text = data.get("text")
        if not isinstance(text, str) or len(text) > 1000:
            return refuse(request, "the odds of one action", 400)
        try:
            if check_statement(program, text, session.role, hub) != "action":
                return secure(JSONResponse({"odds": "the odds are for an action"}))
        except SeatRefusal as refusal:
            return refuse(request, refusal.why, refusal.status)
        return secure(JSONResponse({"odds": odds_text(program, hub, text)}))

    # ------------------------------------------------------------ the game master

    async def gm_page(request: Request, session):
        return html("gm.html.j2", role="gm", csrf=session.csrf, party="")

    async def gm_state(request: Request, session):
        return secure(JSONResponse(hub.payload(s.GM)))

    async def gm_events(request: Request, session):
        return await stream(request, s.GM, session.id)

    async def gm_line(request: Request, session):
        data = await body_of(request, session)
        if isinstance(data, Response):
            return data
        seq, line = data.get("seq"), data.get("line", "")
        if not isinstance(seq, int) or not isinstance(line, str) or len(line) > 2000 or \
                any(ord(c) < 32 for c in line):
            return refuse(request, "a line is a prompt's number and one line", 400)
        if hub.front is None or not hub.front.put(seq, line, "the GM"):
            return secure(JSONResponse({"error": "the table has moved on"}, status_code=409))
        return secure(JSONResponse({"ok": True}))

    async def gm_seat(request: Request, session):
        data = await body_of(request, session)
        if isinstance(data, Response):
            return data
        party, action = data.get("party"), data.get("action")
        if party not in hub.parties or action not in ("revoke", "reissue"):
            return refuse(request, "a seat, and `revoke` or `reissue`", 400)
        if action == "revoke":
            hub.revoke(party)
            return secure(JSONResponse({"party": party, "revoked": True}))
        token = hub.reissue(party)
        return secure(JSONResponse({"party": party, "link": f"/seat/{token}"}))

    async def not_found(request: Request, exc):
        return secure(Response("not found\n", status_code=404, media_type="text/plain"))

    routes = [
        Route("/", board_page), Route("/state", board_state), Route("/events", board_events),
        Route("/seat", seat_only(seat_page)), Route("/seat/state", seat_only(seat_state)),
        Route("/seat/events", seat_only(seat_events)),
        Route("/seat/declare", seat_only(seat_declare), methods=["POST"]),
        Route("/seat/answer", seat_only(seat_answer), methods=["POST"]),
        Route("/seat/odds", seat_only(seat_odds), methods=["POST"]),
        Route("/seat/{token}", opener("seat")),
        Route("/gm", gm_only(gm_page)), Route("/gm/state", gm_only(gm_state)), Route("/gm/events", gm_only(gm_events)),
        Route("/gm/line", gm_only(gm_line), methods=["POST"]),
        Route("/gm/seat", gm_only(gm_seat), methods=["POST"]),
        Route("/gm/{token}", opener(s.GM)),
    ]
    app = Starlette(routes=routes, exception_handlers={404: not_found})
    return Guard(app, port_of, hub)


# ---------------------------------------------------------------------------- what a seat may say

class SeatRefusal(Exception):
    def __init__(self, why: str, status: int = 403):
        super().__init__(why)
        self.why = why
        self.status = status


_KINDS = {"Action": "action", "Defence": "defence", "Recover": "recover", "Hold": "hold", "Dictate": "dictate",
          "Reroll": "reroll"}


def check_statement(program, text: str, party: str, hub) -> str:
    """The kind of one statement declared from `party`'s seat; SeatRefusal when it is not one,
    or is for another party (403)."""
    from ..syntax import nodes as n
    try:
        statements = program.read(text, "<seat>")
    except DramaError as error:
        raise SeatRefusal(error.message, 400) from None
    if len(statements) != 1:
        raise SeatRefusal("one statement at a time", 400)
    statement = statements[0]
    kind = _KINDS.get(type(statement).__name__)
    if kind is None:
        raise SeatRefusal("only the game master may say that")
    names = hub.names
    if isinstance(statement, n.Action):
        who = list(statement.actors)
    elif isinstance(statement, n.Defence):
        who = list(statement.parties)
    else:
        who = [statement.party]
    try:
        ids = {names.party(name) for name in who}
    except DramaError as error:
        raise SeatRefusal(error.message, 400) from None
    if ids != {party}:
        raise SeatRefusal(f"{party}'s seat declares for {party} alone")
    return kind


def odds_text(program, hub, text: str) -> str:
    """The odds of a seat's action as `/odds` counts them (the action alone, no defence declared), with the
    seats' quintessence now; none against a hidden party, whose numbers a seat never sees."""
    from .. import odds as exact
    from ..syntax import nodes as n
    (statement,) = program.read(text, "<seat>")
    named = [statement.target, *getattr(statement, "extra_targets", ())] if isinstance(statement, n.Action) else []
    hidden = {sheet.id for sheet in program.scenario.cast if sheet.hidden}
    for name in named:
        try:
            if name is not None and hub.names.party(name) in hidden:
                return "the odds against a hidden party are the game master's to know"
        except DramaError:
            pass
    sheets = hub.state.get("sheets") or {}
    state = {pid: view["available"] for pid, view in sheets.items()}
    try:
        result = exact.odds(program.scenario, text, (), state=state)
    except DramaError as error:
        return error.message
    return exact.FORMATS["text"](result).rstrip("\n")


# ---------------------------------------------------------------------------- the server

class PlayerBoard:
    """The table's web server: the board (and with a hub of seats, the seats and the GM's page)."""

    def __init__(self, port: int, host: str = "127.0.0.1", *, hub: s.Hub | None = None, program=None,
                 title: str = "The table", head_seconds: float | None = None):
        from .server import Server
        self.hub = hub or s.Hub()
        holder = {}
        app = make_app(self.hub, port_of=lambda: holder["port"], program=program, title=title or "The table")
        from .server import HEAD_SECONDS
        self._server = Server(app, host=host, port=port, head_seconds=head_seconds or HEAD_SECONDS)
        holder["port"] = self._server.port
        self.hub.notify = self._server.call_soon
        self.host = host
        self.port = self._server.port

    @property
    def url(self) -> str:
        return self._server.url

    def link(self, role: str, host: str | None = None) -> str:
        """A seat's private link (or the GM's)."""
        base = self.url if host is None else f"http://{host}:{self.port}/"
        return base + ("gm/" if role == s.GM else "seat/") + self.hub.tokens[role]

    def publish(self, state: dict) -> None:
        """A new board for every page (the player board's data, as `Views.board` makes it)."""
        self.hub.publish(board=state)

    def close(self) -> None:
        self._server.close()
