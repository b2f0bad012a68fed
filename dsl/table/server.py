"""The table's web server: uvicorn serving an ASGI app in a thread of its own, on a socket bound before it starts.

    server = Server(app, host="127.0.0.1", port=0)    # E908 when the address cannot be had
    server.port; server.url
    server.call_soon(callback)                          # run `callback` in the server's event loop
    server.close()

The socket is bound here, synchronously, so that a busy port is an error of
`drama play` at once (E908) and port 0 gives the free port it found. uvicorn
runs the app in a daemon thread with its own asyncio loop: the game master's
prompt, in the main thread, never waits for a client, and a slow client only
holds a socket (no thread). Its limits:

- `MAX_CONNECTIONS` open at once (uvicorn's `limit_concurrency` answers 503
  past it);
- a request's head must arrive whole within `HEAD_SECONDS` of the connection
  (or of the previous response): a half-open request is closed, never waited
  for (`_Protocol`);
- a head of at most `MAX_HEAD` bytes (h11's own bound), and an idle
  keep-alive connection closed after `KEEP_ALIVE` seconds.
"""

from __future__ import annotations

import asyncio
import socket
import threading

from ..errors import DramaError

MAX_CONNECTIONS = 400
HEAD_SECONDS = 10.0
MAX_HEAD = 16 * 1024
KEEP_ALIVE = 5


def _protocol_class():
    """uvicorn's HTTP/1.1 protocol (h11), with a deadline for each request's head."""
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class _Protocol(H11Protocol):
        head_seconds = HEAD_SECONDS

        def connection_made(self, transport):
            super().connection_made(transport)
            self._arm()

        def on_response_complete(self):
            super().on_response_complete()
            self._arm()

        def _arm(self):
            started = self.cycle
            self._head_timer = self.loop.call_later(self.head_seconds, self._head_late, started)

        def _head_late(self, started):
            # no new request began since the timer was armed, and none is being answered
            waiting = self.cycle is started and (self.cycle is None or self.cycle.response_complete)
            if waiting and not self.transport.is_closing():
                self.transport.close()

        def connection_lost(self, exc):
            timer = getattr(self, "_head_timer", None)
            if timer is not None:
                timer.cancel()
            super().connection_lost(exc)

    return _Protocol


class Server:
    """An ASGI app served by uvicorn on host:port, in a daemon thread (it ends with the process)."""

    def __init__(self, app, *, host: str = "127.0.0.1", port: int = 0, head_seconds: float = HEAD_SECONDS):
        import uvicorn

        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
            sock.listen(128)
        except OSError as error:
            sock.close()
            import errno
            expected = "an address of this machine, e.g. --host 127.0.0.1 (or 0.0.0.0 for all of them)" \
                if error.errno == errno.EADDRNOTAVAIL else "a free port, e.g. --board-port 8765 (or 0 for any)"
            raise DramaError("E908", f"cannot serve the player board on {host}:{port}: {error.strerror or error}",
                             expected=expected) from None
        sock.setblocking(False)
        self._socket = sock
        self.host = host
        self.port = sock.getsockname()[1]
        protocol = _protocol_class()
        protocol.head_seconds = head_seconds
        config = uvicorn.Config(app, http=protocol, lifespan="off", log_level="critical", access_log=False,
                                limit_concurrency=MAX_CONNECTIONS, timeout_keep_alive=KEEP_ALIVE,
                                h11_max_incomplete_event_size=MAX_HEAD, server_header=False, date_header=False,
                                timeout_graceful_shutdown=1)
        self._server = uvicorn.Server(config)
        self.loop: asyncio.AbstractEventLoop | None = None
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, name="table-server", daemon=True)
        self._thread.start()
        if not self._ready.wait(timeout=30):
            raise DramaError("E908", f"the table's server on {host}:{self.port} did not start")

    def _run(self) -> None:
        async def serve():
            self.loop = asyncio.get_running_loop()
            self._ready.set()
            await self._server.serve(sockets=[self._socket])
        asyncio.run(serve())

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}/"

    def call_soon(self, callback, *args) -> None:
        """Run `callback(*args)` in the server's loop, from any thread."""
        if self.loop is not None and not self.loop.is_closed():
            try:
                self.loop.call_soon_threadsafe(callback, *args)
            except RuntimeError:          # the loop closed meanwhile
                pass

    def close(self) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=5)
        try:
            self._socket.close()
        except OSError:
            pass
