"""The player board of `drama play --board-port` (the Starlette app of dsl/table/web.py) in headless
Chromium: it updates live after a statement, with no reload, and parties marked `hidden: true` show
no numbers, only how they stand in words (issue 24 item 11)."""

from __future__ import annotations

import json
import sys
import urllib.request

import pytest

from dsl.pipeline import Program
from dsl.table.asks import DiceAsk
from dsl.table.core import Table
from dsl.table.live import Views
from dsl.table.web import PlayerBoard, page_text

from play_browser import CHROMIUM, Browser
from play_helpers import Scripted, env, hall

needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="no Chromium on this machine (.ci/run installs it)")


def published(table: Table, program: Program) -> dict:
    return Views(program).board(table)


def test_the_page_is_one_file_with_no_outside_resource(tmp_path):
    page = page_text("board.html.j2", nonce="n", title="The Test Hall")
    assert "<script src" not in page and "<link" not in page and "http" not in page.replace("http-equiv", "")
    program = Program.compile(hall(tmp_path))
    table = Table.start(program, str(tmp_path / "j.drama"))
    server = PlayerBoard(0)
    try:
        server.publish(published(table, program))
        with urllib.request.urlopen(server.url) as page:
            assert page.headers["Content-Type"].startswith("text/html") and b"EventSource" in page.read()
        with urllib.request.urlopen(server.url + "state") as state:
            data = json.loads(state.read())
        overlord = next(p for p in data["parties"] if p["id"] == "Overlord")
        assert overlord == {"id": "Overlord", "name": "Overlord Bastrastras", "defeated": False, "acted": False,
                            "holding": False, "turn": False, "hidden": True, "standing": "unhurt"}
        assert data["title"] == "The Test Hall"
        assert server.host == "127.0.0.1"
    finally:
        server.close()


def test_a_busy_port_is_refused_with_e908(tmp_path):
    server = PlayerBoard(0)
    try:
        import subprocess
        done = subprocess.run([sys.executable, "-m", "dsl", "play", str(hall(tmp_path)), "--board-port",
                               str(server.port)], input="", capture_output=True, text=True, env=env(), timeout=60)
        assert done.returncode == 1 and "error[E908]" in done.stderr
    finally:
        server.close()


@needs_chromium
def test_the_player_board_updates_live_and_hides_the_hidden(tmp_path):
    program = Program.compile(hall(tmp_path))
    table = Table.start(program, str(tmp_path / "j.drama"))
    for _ in range(4):
        table.play_script()
    server = PlayerBoard(0)
    browser = Browser(tmp_path / "profile")
    try:
        server.publish(published(table, program))
        browser.go(server.url)
        browser.wait("document.body.dataset.updates === '1'")
        browser.js("window.loadedOnce = 'yes'")
        row = "document.querySelector('tr[data-party=\"%s\"]').textContent"
        cell = "document.querySelector('tr[data-party=\"%s\"] .%s').textContent"
        assert browser.js(row % "Kara") == "Kara the Ember-Witch606"
        assert browser.js(cell % ("Kara", "available")) == "6"
        hidden = browser.js(row % "Overlord")
        assert hidden == "Overlord Bastrastrasunhurt" and not any(c.isdigit() for c in hidden)
        assert browser.js("document.querySelector('.order .turn').textContent") == "Kara the Ember-Witch"
        # a statement at the table: the page follows without a reload
        table.play_script(Scripted([(DiceAsk, (1, 6, 6)), (DiceAsk, (1, 1))]))
        server.publish(published(table, program))
        browser.wait("document.body.dataset.updates === '2'")
        assert browser.js("window.loadedOnce") == "yes"
        assert browser.js("document.getElementById('meta').textContent") == "round 1 · time 0 s"
        assert browser.js("document.querySelector('.order .turn').textContent") == "Overlord Bastrastras"
        assert "acted" in browser.js(row % "Kara")
        assert browser.js(cell % ("Kara", "available")) == "5"       # a one (R6)
        hidden = browser.js(row % "Overlord")
        assert not any(c.isdigit() for c in hidden)
        shot = tmp_path / "board.png"
        browser.screenshot(shot)
        assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    finally:
        browser.close()
        server.close()
