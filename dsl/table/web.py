"""The player board: a read-only page on 127.0.0.1 that follows the table live, by server-sent events.

    server = PlayerBoard(port)            # 0: any free port (server.port says which)
    server.publish(board.data(...))       # after every accepted entry
    server.close()

The standard library's `http.server` serves one self-contained page (`/`, no
build step, no CDN), the state as JSON (`/state`) and a stream of it
(`/events`, `text/event-stream`): the page replaces its content on each event,
with no reload. Parties marked `hidden: true` in the cast come without their
numbers (`board.data` leaves them out), so the page cannot show them.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from ..errors import DramaError

PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>The table</title>
<style>
 body { font: 18px/1.4 system-ui, sans-serif; margin: 1.5em auto; max-width: 44em; padding: 0 1em;
        background: #1b1d23; color: #e8e6e3; }
 h1 { font-size: 1.5em; margin: 0 0 .2em; }
 .meta { color: #9aa0a6; margin-bottom: 1em; }
 .order { margin-bottom: 1em; }
 .order span { display: inline-block; padding: .1em .5em; margin: 0 .2em .3em 0; border-radius: .3em;
               background: #2c2f38; }
 .order span.turn { background: #f2c14e; color: #1b1d23; font-weight: bold; }
 .order span.acted { opacity: .55; }
 .order span.defeated { text-decoration: line-through; opacity: .4; }
 table { border-collapse: collapse; width: 100%; }
 td, th { padding: .35em .5em; text-align: left; border-bottom: 1px solid #2c2f38; }
 td.n { text-align: right; font-variant-numeric: tabular-nums; }
 tr.turn td:first-child { font-weight: bold; color: #f2c14e; }
 tr.defeated { opacity: .45; }
 .bar { height: .7em; background: #5a2a2a; border-radius: .35em; overflow: hidden; min-width: 6em; }
 .bar i { display: block; height: 100%; background: #4caf50; }
 .hidden { color: #9aa0a6; font-style: italic; }
 .status { color: #9aa0a6; }
 #live { float: right; font-size: .8em; color: #9aa0a6; }
</style></head>
<body data-updates="0">
<span id="live">connecting</span>
<h1 id="drama">The table</h1>
<div class="meta" id="meta"></div>
<div class="order" id="order"></div>
<table><thead><tr><th>party</th><th>available</th><th>damage</th><th>maximum</th><th></th><th></th></tr></thead>
<tbody id="parties"></tbody></table>
<script>
"use strict";
function el(tag, attrs, text) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  return node;
}
function show(state) {
  document.getElementById("drama").textContent = state.drama || "Between dramatic situations";
  document.getElementById("meta").textContent =
    (state.drama ? "round " + (state.round || 0) + " \\u00b7 " : "") + "time " + state.time;
  const order = document.getElementById("order");
  order.replaceChildren();
  const byId = {};
  for (const p of state.parties) byId[p.id] = p;
  for (const pid of state.order || []) {
    const p = byId[pid] || {id: pid};
    const cls = [p.turn ? "turn" : "", p.acted ? "acted" : "", p.defeated ? "defeated" : ""].join(" ").trim();
    order.append(el("span", {"class": cls, "data-party": pid}, (p.name || pid) + (p.holding ? " (holds)" : "")));
  }
  const body = document.getElementById("parties");
  body.replaceChildren();
  for (const p of state.parties) {
    const row = el("tr", {"data-party": p.id, "class": (p.turn ? "turn " : "") + (p.defeated ? "defeated" : "")});
    row.append(el("td", {}, p.name));
    if (p.hidden) {
      const cell = el("td", {"class": "hidden", "colspan": "4"}, "hidden");
      row.append(cell);
    } else {
      row.append(el("td", {"class": "n available"}, String(p.available)));
      row.append(el("td", {"class": "n damage"}, String(p.damage_pool)));
      row.append(el("td", {"class": "n maximum"}, String(p.maximum)));
      const bar = el("td", {});
      const outer = el("div", {"class": "bar"});
      const inner = el("i", {"style": "width:" + (p.maximum ? 100 * p.available / p.maximum : 0) + "%"});
      outer.append(inner);
      bar.append(outer);
      row.append(bar);
    }
    row.append(el("td", {"class": "status"}, p.defeated ? "defeated" : p.holding ? "holds" : p.acted ? "acted" : ""));
    body.append(row);
  }
  document.body.dataset.updates = String(Number(document.body.dataset.updates) + 1);
}
const source = new EventSource("events");
source.onmessage = (message) => { show(JSON.parse(message.data)); document.getElementById("live").textContent = "live"; };
source.onerror = () => { document.getElementById("live").textContent = "reconnecting"; };
</script>
</body></html>
"""


class PlayerBoard:
    """The server of the player board, in threads of its own (they end with the process)."""

    def __init__(self, port: int, host: str = "127.0.0.1"):
        self._state = "{}"
        self._version = 0
        self._changed = threading.Condition()
        self._closed = False
        board = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):        # the table's terminal is the game master's
                pass

            def do_GET(self):
                path = self.path.split("?", 1)[0]
                if path == "/":
                    self._send(200, "text/html; charset=utf-8", PAGE.encode("utf-8"))
                elif path == "/state":
                    self._send(200, "application/json", board._state.encode("utf-8"))
                elif path == "/events":
                    self._stream()
                else:
                    self._send(404, "text/plain; charset=utf-8", b"not found\n")

            def _send(self, status, kind, body):
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Cache-Control", "no-store")
                self.end_headers()
                self.wfile.write(body)

            def _stream(self):
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-store")
                self.send_header("Connection", "close")
                self.end_headers()
                self.close_connection = True
                seen = -1
                try:
                    while not board._closed:
                        with board._changed:
                            if board._version == seen:
                                board._changed.wait(timeout=15)
                            version, state = board._version, board._state
                        if version != seen:
                            self.wfile.write(f"data: {state}\n\n".encode("utf-8"))
                            seen = version
                        else:
                            self.wfile.write(b": still here\n\n")
                        self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError, OSError):
                    return

        try:
            self._server = ThreadingHTTPServer((host, port), Handler)
        except OSError as error:
            raise DramaError("E908", f"cannot serve the player board on {host}:{port}: {error.strerror or error}",
                             expected="a free port, e.g. --board-port 8765 (or 0 for any)") from None
        self._server.daemon_threads = True
        self.host = host
        self.port = self._server.server_address[1]
        self._thread = threading.Thread(target=self._server.serve_forever, name="player-board", daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}/"

    def publish(self, state: dict) -> None:
        """Send a new state to every page."""
        text = json.dumps(state, ensure_ascii=False, separators=(",", ":"))
        with self._changed:
            self._state = text
            self._version += 1
            self._changed.notify_all()

    def close(self) -> None:
        with self._changed:
            self._closed = True
            self._changed.notify_all()
        self._server.shutdown()
        self._server.server_close()
