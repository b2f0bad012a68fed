"""The seats' pages in headless Chromium (Debian's, driven by playwright: never a downloaded browser):
a GM at the terminal and on the GM page, three players on phone-sized pages at once, each rolling and
declaring for their own party; the pages follow every accepted entry within a second (issue 29)."""

from __future__ import annotations

import re
import shutil
import time
from pathlib import Path

import pytest

from play_helpers import CAST, Terminal, hall, plain

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
playwright = pytest.importorskip("playwright.sync_api")
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="no Chromium on this machine (.ci/run installs it)")

THIRD = """\
  Ysolde:
    name: Ysolde of the Reeds
    quintessence: 5
    traits: {Archery: 2, Stealth: 2}
    treasures: {Yew Bow: 1}
    moves: {shoot: Archery + Yew Bow}
"""

SCRIPT = """\
scene "The Hall"
drama "Hall" with Kara, Bren, Ysolde, Overlord
initiative Kara 9, Bren 6, Ysolde 5, Overlord 3
round
Kara bolt -> Overlord with Sorcery, roll
Overlord defends with Cunning, roll
end drama "The hall falls silent."
"""

PHONE = {"width": 390, "height": 844}
SHOTS = Path(__file__).resolve().parent.parent / "docs"


def three_players(folder: Path) -> Path:
    scenario = hall(folder)
    (folder / "cast.yaml").write_text(CAST + THIRD, encoding="utf-8")
    (folder / "hall.drama").write_text(SCRIPT, encoding="utf-8")
    return scenario


@needs_chromium
def test_issue29_a_gm_and_three_players_on_phones_in_chromium(tmp_path):
    scenario = three_players(tmp_path)
    terminal = Terminal(str(scenario), "--journal", str(tmp_path / "j.drama"), "--seats", "--seed", "5", timeout=40)
    out = terminal.expect("Enter plays it>")
    links = dict(re.findall(r"seat (\w+): (http://\S+)", out))
    gm_link = re.search(r"game master:\s+(http://\S+)", out).group(1)
    assert set(links) == {"Kara", "Bren", "Ysolde"}
    with playwright.sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            pages = {}
            for pid, link in links.items():                    # a browser context each: three phones
                # playwright's waits evaluate strings, which the pages' CSP forbids: bypassed here
                # (tests/test_play_board.py shows the pages running under it)
                context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True, device_scale_factor=2,
                                              bypass_csp=True)
                page = context.new_page()
                page.goto(link)
                pages[pid] = page
            gm = browser.new_context(viewport={"width": 1000, "height": 900}, bypass_csp=True).new_page()
            gm.goto(gm_link)
            for page in [*pages.values(), gm]:
                page.wait_for_function("Number(document.body.dataset.updates) >= 1")
            kara, bren, ysolde = pages["Kara"], pages["Bren"], pages["Ysolde"]
            assert kara.url.endswith("/seat") and "token" not in kara.url          # the token left the address
            assert kara.inner_text("#me") == "Kara the Ember-Witch"
            assert "Sorcery 3" in kara.inner_text("#traits") and "Strength" not in kara.inner_text("body")
            assert "Archery 2" in ysolde.inner_text("#traits")
            overlord = kara.inner_text('#parties tr[data-party="Overlord"]')
            assert "unhurt" in overlord and not any(c.isdigit() for c in overlord)
            # the GM plays the script at the terminal; every page follows within a second
            terminal.send("")                                   # scene
            terminal.done()
            for _ in range(3):                                  # drama, initiative, round
                terminal.answer("Enter plays it>", "")
            terminal.expect("Kara may roll up to 3 dice")
            started = time.monotonic()
            for page in [*pages.values(), gm]:
                page.wait_for_function("document.querySelector('#meta').textContent.startsWith('round 1')",
                                       timeout=5000)
            assert time.monotonic() - started < 1.5
            # Kara's phone is asked for her dice: she types them; Bren's phone is not asked
            kara.wait_for_selector("#ask:not([hidden])")
            assert "Kara may roll up to 3 dice" in kara.inner_text("#askwhat")
            assert bren.is_hidden("#ask")
            kara.fill("#faces", "5 4 4")
            kara.click("#sendfaces")
            terminal.expect("<- Kara's page: 5 4 4")
            terminal.answer("Overlord may roll up to 3 dice", "3 2")
            # Kara won double (R8): her phone offers the options
            kara.wait_for_selector("#askoption:not([hidden])")
            kara.fill("#dictate", "the Overlord's crown slips")
            kara.click("#senddictate")
            terminal.expect("<- Kara's page: dictate the Overlord's crown slips")
            # the story is told as it happens, on every page
            for page in pages.values():
                page.wait_for_function("document.querySelector('#story p.new') !== null", timeout=5000)
            assert "Kara" in kara.inner_text("#story")
            assert "Overlord" in kara.inner_text("#last") and "vs ?" in kara.inner_text("#last")
            # Ysolde declares from the form: the statement is shown as such, with its cost and odds
            ysolde.select_option("#move", "shoot")
            ysolde.select_option("#target", "Overlord")
            ysolde.fill("#qualifier", "the banners")
            statement = ysolde.inner_text("#statement")
            assert statement == "Ysolde shoot -> Overlord but not the banners with Archery + Yew Bow, roll"
            assert "costs 1 quintessence" in ysolde.inner_text("#cost")
            ysolde.click("#odds")                              # none against the hidden Overlord
            ysolde.wait_for_selector("#oddstext:not([hidden])")
            assert ysolde.inner_text("#oddstext") == "the odds against a hidden party are the game master's to know"
            ysolde.screenshot(path=str(tmp_path / "ysolde-declares.png"), full_page=True)
            ysolde.click("#send")
            out = terminal.expect("says no>")
            assert "Ysolde's seat proposes: Ysolde shoot -> Overlord but not the banners" in out
            gm.wait_for_selector("#proposalbox:not([hidden])")
            gm.screenshot(path=str(tmp_path / "gm.png"), full_page=True)
            gm.click("#accept")                               # the GM's page accepts: an equal of the terminal
            terminal.expect("<- the GM's page: (Enter)")
            terminal.answer("a defence", "Overlord defends with Cunning, roll")
            terminal.answer("a defence", "")
            ysolde.wait_for_selector("#ask:not([hidden])")
            ysolde.click("#rollforme")
            terminal.answer("Overlord may roll up to", "")
            ysolde.wait_for_selector(".proposal.accepted")
            # Bren declares; the GM refuses with a word he sees
            bren.fill("#intent", "shield bash")
            bren.select_option("#target", "Overlord")
            bren.select_option("#trait", "Strength")
            assert bren.inner_text("#statement") == 'Bren "shield bash" -> Overlord with Strength, roll'
            bren.click("#send")
            terminal.answer("says no>", "refuse wait for your turn, Bren")
            bren.wait_for_selector(".proposal.refused")
            assert "wait for your turn, Bren" in bren.inner_text("#proposals")
            # a revoked seat's page is told at once
            terminal.expect(">")
            gm.click('#seats tr[data-seat="Kara"] button.danger')
            kara.wait_for_function("document.body.dataset.revoked === 'yes'", timeout=5000)
            assert kara.inner_text("#live") == "this link was revoked"
            kara.screenshot(path=str(tmp_path / "kara-revoked.png"), full_page=True)
            bren.screenshot(path=str(tmp_path / "bren.png"), full_page=True)
            for page in pages.values():                           # nothing is wider than the phone
                assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        finally:
            browser.close()
    terminal.send("/quit")
    final = terminal.finish()
    assert "all saved" in final
    journal = (tmp_path / "j.drama").read_text(encoding="utf-8")
    assert "Kara bolt -> Overlord with Sorcery, rolled 5 4 4" in journal
    assert "Ysolde shoot -> Overlord but not the banners with Archery + Yew Bow, rolled" in journal
    assert "shield bash" not in journal and 'Kara dictates "the Overlord\'s crown slips"' in journal


@needs_chromium
def test_issue29_a_phone_reconnects_by_itself_after_a_sigkill_and_resume(tmp_path):
    import os
    import signal
    scenario = three_players(tmp_path)
    terminal = Terminal(str(scenario), "--journal", str(tmp_path / "j.drama"), "--seats", timeout=40)
    out = terminal.expect("Enter plays it>")
    link = dict(re.findall(r"seat (\w+): (http://\S+)", out))["Bren"]
    terminal.send("")
    terminal.done()
    terminal.answer("Enter plays it>", "")                       # scene, drama: 2 entries
    terminal.expect("Enter plays it>")
    with playwright.sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            page = browser.new_context(viewport=PHONE, is_mobile=True, bypass_csp=True).new_page()
            page.goto(link)
            page.wait_for_function("document.querySelector('#meta').textContent.startsWith('round')")
            os.kill(terminal.child.pid, signal.SIGKILL)
            terminal.child.expect(terminal.pexpect.EOF)
            page.wait_for_function("document.getElementById('live').textContent === 'reconnecting'", timeout=10000)
            again = Terminal(str(scenario), "--journal", str(tmp_path / "j.drama"), "--seats", "--resume", timeout=40)
            again.expect("Enter plays it>")
            page.wait_for_function("document.getElementById('live').textContent === 'live'", timeout=15000)
            again.send("")                                        # initiative: the page follows
            page.wait_for_function("document.querySelector('.order span') !== null", timeout=10000)
            assert page.url.endswith("/seat") and page.inner_text("#me") == "Bren Ironhand"
            again.done()
            again.send("/quit")
            assert "all saved" in again.finish()
        finally:
            browser.close()
