"""What the tests of the seats share: a served table with seats, and HTTP clients that play a seat, the GM or an attacker."""

from __future__ import annotations

import re

import httpx

from dsl.pipeline import Program
from dsl.table.core import Table
from dsl.table.seated import Serving

from play_helpers import hall


def served(tmp_path, **options) -> tuple[Serving, Table]:
    program = Program.compile(hall(tmp_path))
    table = Table.start(program, str(tmp_path / "j.drama"))
    serving = Serving(program, table, seats=True, **options)
    serving.publish(table)
    return serving, table


def client(serving: Serving, **headers) -> httpx.Client:
    """A browser of this origin (Origin sent on changes, as browsers do)."""
    base = serving.server.url.rstrip("/")
    return httpx.Client(base_url=base, headers={"Origin": base, **headers}, timeout=10, follow_redirects=False)


def seat(serving: Serving, role: str) -> tuple[httpx.Client, str]:
    """A client holding `role`'s session (its link opened), and the page's CSRF token."""
    browser = client(serving)
    opened = browser.get("/" + serving.link(role).split("/", 3)[3])
    assert opened.status_code == 303, opened.text
    page = browser.get(opened.headers["location"])
    assert page.status_code == 200
    csrf = re.search(r'<meta name="csrf" content="([^"]+)">', page.text).group(1)
    return browser, csrf
