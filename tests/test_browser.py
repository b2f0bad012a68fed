"""The HTML output in a real browser: headless Chromium loads each page with no
console errors, shows every round and party, and draws one chart line per party.

.ci/run installs Debian's `chromium` when it is missing; elsewhere these tests are
skipped when no Chromium is found.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from html import unescape
from pathlib import Path

import pytest
from click.testing import CliRunner

from dsl.cli import main

ROOT = Path(__file__).resolve().parent.parent
EMBERFALL = ROOT / "scenarios" / "emberfall" / "scenario.yaml"
PARTIES = {"Kara": "Kara the Ember-Witch", "Bren": "Bren Ironhand", "Overlord": "Overlord Bastrastras",
           "Goblins": "the goblin warband"}

CHROMIUM = next((path for path in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if path),
                None)
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no Chromium on this machine (.ci/run installs it)")

# flags for a root user on a machine with no network beyond the package registries
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-default-apps", "--enable-logging=stderr", "--v=0"]


def chromium(tmp_path: Path, page: Path, *extra: str) -> subprocess.CompletedProcess:
    profile = tmp_path / f"profile-{page.stem}-{len(extra)}"
    return subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={profile}", *extra, page.as_uri()],
                          capture_output=True, text=True, timeout=120)


def render(tmp_path: Path, as_: str) -> Path:
    out = tmp_path / f"emberfall-{as_}.html"
    result = CliRunner().invoke(main, ["run", str(EMBERFALL), "--as", as_, "--format", "html", "-o", str(out)])
    assert result.exit_code == 0, result.output
    return out


@pytest.mark.parametrize("as_", ["log", "transcript"])
def test_the_page_loads_in_chromium_with_no_console_errors(tmp_path, as_):
    page = render(tmp_path, as_)
    done = chromium(tmp_path, page, "--dump-dom")
    assert done.returncode == 0, done.stderr[-2000:]
    console = [line for line in done.stderr.splitlines() if ":CONSOLE" in line]
    assert console == [], console
    dom = done.stdout
    assert "<svg" in dom


@pytest.mark.parametrize("as_", ["log", "transcript"])
def test_every_round_and_party_appears_and_the_chart_has_a_line_per_party(tmp_path, as_):
    page = render(tmp_path, as_)
    dom = chromium(tmp_path, page, "--dump-dom").stdout
    text = unescape(re.sub(r"<[^>]+>", " ", dom))
    # every round, in a fold of its own
    summaries = [unescape(s) for s in re.findall(r"<summary[^>]*>(.*?)</summary>", dom, re.S)]
    for number in (1, 2, 3):
        assert any(re.search(rf"\bRound {number}\b", s) for s in summaries), summaries
    assert len(re.findall(r"<details\b", dom)) >= 3
    # every party, by name
    for name in PARTIES.values():
        assert name in text, name
    # one chart line per party
    (chart,) = re.findall(r"<svg\b.*?</svg>", dom, re.S)
    lines = re.findall(r"<(?:polyline|path)\b[^>]*\bdata-party=\"([^\"]+)\"", chart)
    assert sorted(lines) == sorted(PARTIES), lines


def test_a_screenshot_of_the_page_is_taken(tmp_path):
    """The docs keep a screenshot of this page (docs/emberfall-transcript.png),
    taken with the same command at a phone's width."""
    page = render(tmp_path, "transcript")
    shot = tmp_path / "shot.png"
    done = chromium(tmp_path, page, f"--screenshot={shot}", "--window-size=412,1400", "--hide-scrollbars")
    assert done.returncode == 0, done.stderr[-2000:]
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert shot.stat().st_size > 10_000


def test_a_simulation_report_loads_in_chromium_with_its_histograms(tmp_path):
    """`drama simulate --format html`: one page, no console errors, and an SVG
    histogram for the rounds and for every party."""
    page = tmp_path / "skirmish.html"
    skirmish = ROOT / "scenarios" / "skirmish" / "scenario.yaml"
    result = CliRunner().invoke(main, ["simulate", str(skirmish), "--runs", "60", "--seed", "2",
                                       "--format", "html", "-o", str(page)])
    assert result.exit_code == 0, result.output
    done = chromium(tmp_path, page, "--dump-dom")
    assert done.returncode == 0, done.stderr[-2000:]
    console = [line for line in done.stderr.splitlines() if ":CONSOLE" in line]
    assert console == [], console
    dom = unescape(done.stdout)
    assert dom.count("<svg") >= 5
    for name in ("Ash the Sellsword", "Wren of the Reeds", "Harrow the Raider Chief", "the raiders"):
        assert name in dom


def test_a_script_highlighted_by_the_pygments_lexer_is_shot(tmp_path):
    """docs/editors.md shows a bundled script highlighted by dsl/syntax/lexer.py
    (docs/editors-highlighting.png), taken with this page and command."""
    pytest.importorskip("pygments")
    from pygments import highlight
    from pygments.formatters import HtmlFormatter

    from dsl.syntax.lexer import DramaLexer
    text = (ROOT / "scenarios" / "emberfall" / "throne-hall.drama").read_text(encoding="utf-8")
    html = highlight(text, DramaLexer(), HtmlFormatter(full=True, style="friendly", title="throne-hall.drama",
                                                       linenos="inline"))
    page = tmp_path / "throne-hall.html"
    page.write_text(html.replace("<body>", '<body style="margin:0;padding:8px 12px;font-size:15px">'))
    shot = tmp_path / "shot.png"
    done = chromium(tmp_path, page, f"--screenshot={shot}", "--window-size=900,1020", "--hide-scrollbars")
    assert done.returncode == 0, done.stderr[-2000:]
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 10_000
    assert '<span class="k">defends</span>' in html
