"""The seats of `drama play --seats` attacked through real HTTP (httpx against uvicorn on 127.0.0.1):
each rule of issue 29's "Security" and issue 30 item 11 has a test that tries to break it."""

from __future__ import annotations

import json
import socket
import time

import httpx
import pytest

from dsl.table import seats as s

from seats_helpers import client, seat, served


@pytest.fixture
def table(tmp_path):
    serving, table = served(tmp_path)
    yield serving, table
    serving.close()


def raw(serving, request: bytes, wait: float = 5.0) -> bytes:
    """A request as bytes on a socket, and what came back until the server closed it (or `wait` passed)."""
    with socket.create_connection(("127.0.0.1", serving.server.port), timeout=wait) as sock:
        sock.sendall(request)
        out = b""
        try:
            while chunk := sock.recv(65536):
                out += chunk
        except socket.timeout:
            pass
        return out


# ---------------------------------------------------------------------------- Host and Origin (DNS rebinding)

def test_issue30_item11_a_host_header_that_is_not_this_server_is_refused(table):
    serving, _ = table
    port = serving.server.port
    for host in (f"evil.example:{port}", f"127.0.0.1.nip.io:{port}", "127.0.0.1", f"127.0.0.1:{port + 1}", ""):
        reply = raw(serving, f"GET /state HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode())
        assert reply.startswith(b"HTTP/1.1 421"), (host, reply[:80])
        assert b'"parties"' not in reply
    for host in (f"127.0.0.1:{port}", f"localhost:{port}"):
        reply = raw(serving, f"GET /state HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode())
        assert reply.startswith(b"HTTP/1.1 200"), host
    assert serving.hub.refusals >= 5


def test_a_change_from_another_origin_or_with_none_is_refused_and_no_cors_header_is_sent(table):
    serving, _ = table
    kara, csrf = seat(serving, "Kara")
    headers = {"X-CSRF-Token": csrf, "Content-Type": "application/json"}
    body = json.dumps({"text": "Kara holds"})
    for origin in ("http://evil.example", "null", f"http://127.0.0.1:{serving.server.port + 1}"):
        reply = kara.post("/seat/declare", content=body, headers={**headers, "Origin": origin})
        assert reply.status_code == 403
    bare = httpx.Client(base_url=serving.server.url.rstrip("/"), cookies=kara.cookies, timeout=10)
    assert bare.post("/seat/declare", content=body, headers=headers).status_code == 403     # no Origin at all
    cross = kara.post("/seat/declare", content=body, headers={**headers, "Sec-Fetch-Site": "cross-site"})
    assert cross.status_code == 403
    assert kara.get("/state", headers={"Origin": "http://evil.example"}).status_code == 403
    preflight = kara.request("OPTIONS", "/seat/declare", headers={"Access-Control-Request-Method": "POST",
                                                                   "Origin": "http://evil.example"})
    assert preflight.status_code in (403, 405)
    for reply in (preflight, kara.get("/state"), kara.get("/seat/state"), cross):
        assert not any(name.lower().startswith("access-control-") for name in reply.headers)
    assert serving.hub.waiting() == []


# ---------------------------------------------------------------------------- tokens and sessions

def test_a_wrong_token_opens_nothing_and_a_seat_cookie_is_httponly_and_strict(table):
    serving, _ = table
    browser = client(serving)
    good = serving.hub.tokens["Kara"]
    for token in ("x", good[:-1] + ("A" if good[-1] != "A" else "B"), good + "x", good.upper()):
        assert browser.get(f"/seat/{token}").status_code == 403
    assert browser.get("/seat/state").status_code == 403                  # no session
    assert browser.get("/gm/state").status_code == 403
    opened = browser.get(f"/seat/{good}")
    assert opened.status_code == 303 and opened.headers["location"] == "/seat"
    cookie = opened.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie.replace("Strict", "strict") and "Path=/" in cookie
    assert opened.headers["referrer-policy"] == "no-referrer"             # the token never leaves in a Referer
    page = browser.get("/seat")
    assert "script-src 'nonce-" in page.headers["content-security-policy"]
    assert page.headers["x-frame-options"] == "DENY"


def test_a_seat_sees_its_own_sheet_and_no_other_and_no_hidden_numbers(table):
    serving, table_ = table
    kara, _ = seat(serving, "Kara")
    state = kara.get("/seat/state").json()
    assert state["sheet"]["id"] == "Kara" and state["sheet"]["traits"] == {"Sorcery": 3, "Agility": 1}
    text = json.dumps(state)
    assert "Strength" not in text and "Iron Shield" not in text          # Bren's sheet
    assert "Cunning" not in text and "Obsidian Crown" not in text        # the hidden Overlord's
    overlord = next(p for p in state["board"]["parties"] if p["id"] == "Overlord")
    assert "available" not in overlord and overlord["standing"] == "unhurt"
    assert "proposals" in state and "seats" not in state
    # an event stream says no more than the state
    with kara.stream("GET", "/seat/events") as stream:
        for line in stream.iter_lines():
            if line.startswith("data: "):
                data = json.loads(line[6:])
                assert data["sheet"]["id"] == "Kara" and "Iron Shield" not in line and "Cunning" not in line
                break


def test_declaring_for_another_party_or_as_the_gm_is_refused_403_and_logged(table, caplog):
    serving, _ = table
    kara, csrf = seat(serving, "Kara")
    headers = {"X-CSRF-Token": csrf}
    before = serving.hub.refusals
    for text in ("Bren bash -> Overlord with Strength, roll", "Overlord crush -> Kara, roll",
                 "Kara & Bren \"pin him\" -> Overlord\n  Kara with Sorcery, roll\n  Bren with Strength, roll", "Bren recovers, roll", "round", "drama \"X\" with Kara",
                 "calm 1 hour", "Overlord defends with Cunning, roll"):
        reply = kara.post("/seat/declare", json={"text": text}, headers=headers)
        assert reply.status_code == 403, text
    assert serving.hub.refusals == before + 8
    assert "refused" in caplog.text
    assert serving.hub.waiting() == []
    mine = kara.post("/seat/declare", json={"text": "Kara bolt -> Overlord with Sorcery, roll"}, headers=headers)
    assert mine.status_code == 200 and [p.party for p in serving.hub.waiting()] == ["Kara"]


def test_gm_actions_with_a_seat_session_are_refused(table):
    serving, _ = table
    kara, csrf = seat(serving, "Kara")
    headers = {"X-CSRF-Token": csrf}
    assert kara.get("/gm").status_code == 403
    assert kara.get("/gm/state").status_code == 403
    assert kara.get("/gm/events").status_code == 403
    assert kara.post("/gm/line", json={"seq": 0, "line": "/undo"}, headers=headers).status_code == 403
    assert kara.post("/gm/seat", json={"party": "Bren", "action": "revoke"}, headers=headers).status_code == 403
    assert kara.get(f"/gm/{serving.hub.tokens['Kara']}").status_code == 403   # a seat's token is no GM's
    assert serving.hub.tokens["Bren"]


def test_every_change_needs_the_sessions_csrf_token_and_json(table):
    serving, _ = table
    kara, csrf = seat(serving, "Kara")
    bren, bren_csrf = seat(serving, "Bren")
    text = {"text": "Kara holds"}
    assert kara.post("/seat/declare", json=text).status_code == 403
    assert kara.post("/seat/declare", json=text, headers={"X-CSRF-Token": "x" * len(csrf)}).status_code == 403
    assert kara.post("/seat/declare", json=text, headers={"X-CSRF-Token": bren_csrf}).status_code == 403
    form = kara.post("/seat/declare", data={"text": "Kara holds"}, headers={"X-CSRF-Token": csrf})
    assert form.status_code == 415
    assert serving.hub.waiting() == []


def test_a_revoked_seat_stops_at_once_including_its_open_stream(table):
    serving, _ = table
    kara, _ = seat(serving, "Kara")
    gm, gm_csrf = seat(serving, s.GM)
    old_token = serving.hub.tokens["Kara"]
    with kara.stream("GET", "/seat/events") as stream:
        lines = stream.iter_lines()
        assert next(line for line in lines if line.startswith("data: "))
        started = time.monotonic()
        assert gm.post("/gm/seat", json={"party": "Kara", "action": "revoke"},
                       headers={"X-CSRF-Token": gm_csrf}).status_code == 200
        rest = list(lines)                   # the stream ends: the server closed it
        assert "event: revoked" in rest and time.monotonic() - started < 2
    assert kara.get("/seat/state").status_code == 403
    assert client(serving).get(f"/seat/{old_token}").status_code == 403
    reissued = gm.post("/gm/seat", json={"party": "Kara", "action": "reissue"}, headers={"X-CSRF-Token": gm_csrf})
    link = reissued.json()["link"]
    assert link != f"/seat/{old_token}" and client(serving).get(link).status_code == 303


# ---------------------------------------------------------------------------- bounds

def test_a_seat_has_a_bound_on_its_open_streams(table):
    serving, _ = table
    kara, _ = seat(serving, "Kara")
    streams = [kara.stream("GET", "/seat/events") for _ in range(s.MAX_STREAMS_PER_SEAT)]
    opened = [stream.__enter__() for stream in streams]
    try:
        assert all(response.status_code == 200 for response in opened)
        assert kara.get("/seat/events").status_code == 429
        bren, _ = seat(serving, "Bren")                       # another seat is not affected
        with bren.stream("GET", "/seat/events") as other:
            assert other.status_code == 200
    finally:
        for stream in streams:
            stream.__exit__(None, None, None)


def test_a_request_body_over_the_limit_is_refused_413(table):
    serving, _ = table
    kara, csrf = seat(serving, "Kara")
    big = json.dumps({"text": "Kara holds", "pad": "x" * 9000})
    reply = kara.post("/seat/declare", content=big, headers={"X-CSRF-Token": csrf, "Content-Type": "application/json"})
    assert reply.status_code == 413

    def chunks():
        for _ in range(20):
            yield b"x" * 1000
    chunked = kara.post("/seat/declare", content=chunks(), headers={"X-CSRF-Token": csrf,
                                                                    "Content-Type": "application/json"})
    assert chunked.status_code in (411, 413)
    assert serving.hub.waiting() == []


def test_issue30_item11_a_half_open_request_is_closed_not_waited_for(tmp_path):
    serving, _ = served(tmp_path, head_seconds=0.5)
    try:
        started = time.monotonic()
        reply = raw(serving, b"GET /state HTTP/1.1\r\nHost: 127.0.0.1", wait=10)
        assert reply == b"" and time.monotonic() - started < 5        # closed by the server, no answer
        # a kept-alive connection that starts a second request and stops is closed too
        with socket.create_connection(("127.0.0.1", serving.server.port), timeout=10) as sock:
            host = f"127.0.0.1:{serving.server.port}".encode()
            sock.sendall(b"GET /state HTTP/1.1\r\nHost: " + host + b"\r\n\r\n")
            first = sock.recv(65536)
            assert first.startswith(b"HTTP/1.1 200")
            sock.sendall(b"GET /state HTTP/1.1\r\nHo")
            started = time.monotonic()
            while sock.recv(65536):
                pass
            assert time.monotonic() - started < 5
    finally:
        serving.close()


def test_a_seat_gets_the_odds_of_its_action_but_never_against_a_hidden_party(table):
    serving, _ = table
    kara, csrf = seat(serving, "Kara")
    headers = {"X-CSRF-Token": csrf}
    odds = kara.post("/seat/odds", json={"text": "Kara bolt -> Bren with Sorcery, roll"}, headers=headers).json()
    assert odds["odds"].startswith("Odds of one exchange") and "Kara -> Bren" in odds["odds"]
    hidden = kara.post("/seat/odds", json={"text": "Kara bolt -> Overlord with Sorcery, roll"}, headers=headers)
    assert hidden.json() == {"odds": "the odds against a hidden party are the game master's to know"}
    other = kara.post("/seat/odds", json={"text": "Bren bash -> Kara with Strength, roll"}, headers=headers)
    assert other.status_code == 403
