"""`drama play --seats` end to end: a real terminal (pexpect) for the game master, httpx clients for the
players' phones and the GM's page. The seats roll and declare for their own parties, the game master
accepts, edits or refuses, and the journal is the table's: `drama run` of it gives the same events;
a SIGKILL loses no accepted entry and the seats come back after `--resume` (issue 29)."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time

import httpx
import pytest

from dsl.pipeline import Program
from dsl.table.core import Table

from play_helpers import Terminal, env, final_events, hall, plain

DICE = "dice (Enter: the engine rolls)>"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Phone:
    """A player's (or the GM's) browser: its link opened, its session's cookie and CSRF token kept."""

    def __init__(self, link: str):
        base, path = re.match(r"(http://[^/]+)(/.*)", link).groups()
        self.http = httpx.Client(base_url=base, headers={"Origin": base}, timeout=10)
        opened = self.http.get(path)
        assert opened.status_code == 303, opened.text
        self.page = opened.headers["location"]
        self.csrf = re.search(r'name="csrf" content="([^"]+)"', self.http.get(self.page).text).group(1)

    def state(self) -> dict:
        reply = self.http.get(self.page + "/state")
        assert reply.status_code == 200, reply.text
        return reply.json()

    def post(self, what: str, **data) -> httpx.Response:
        return self.http.post(f"{self.page}/{what}", json=data, headers={"X-CSRF-Token": self.csrf})

    def asked(self, kind: str, timeout: float = 10) -> dict:
        """Wait until the table asks this seat something of `kind`."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            ask = self.state().get("ask")
            if ask and ask["kind"] == kind:
                return ask
            time.sleep(0.05)
        raise AssertionError(f"the table never asked {self.page} for {kind}")

    def answer(self, kind: str, line: str) -> httpx.Response:
        return self.post("answer", seq=self.asked(kind)["seq"], line=line)

    def proposal(self, number: int, timeout: float = 10) -> dict:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            found = [p for p in self.state()["proposals"] if p["id"] == number and p["status"] != "waiting"]
            if found:
                return found[0]
            time.sleep(0.05)
        raise AssertionError(f"proposal {number} was never settled")


def links(output: str) -> dict[str, str]:
    found = dict(re.findall(r"seat (\w+): (http://\S+)", output))
    found["GM"] = re.search(r"game master:\s+(http://\S+)", output).group(1)
    return found


def start(tmp_path, port: int, *more: str) -> tuple[Terminal, str]:
    scenario = hall(tmp_path)
    terminal = Terminal(str(scenario), "--journal", str(tmp_path / "j.drama"), "--seats", "--board-port", str(port),
                        "--seed", "3", *more, timeout=30)
    return terminal, str(scenario)


def test_issue29_three_front_ends_play_the_hall_and_the_journal_is_the_tables(tmp_path):
    port = free_port()
    terminal, scenario = start(tmp_path, port)
    try:
        play_the_hall(tmp_path, terminal, scenario)
    except BaseException:
        try:
            terminal.child.expect("\x00", timeout=2)
        except Exception:       # noqa: BLE001 - what the terminal shows, for the failure's report
            pass
        print(plain(terminal.seen + (terminal.child.before or ""))[-3000:])
        raise


def play_the_hall(tmp_path, terminal, scenario):
    out = terminal.expect("Enter plays it>")
    seats = links(out)
    assert set(seats) == {"Kara", "Bren", "GM"}            # the Overlord is hidden: the GM's
    assert "journal:" in out and "\u2580" in terminal.seen        # a QR code was drawn (half blocks)
    kara, bren, gm = Phone(seats["Kara"]), Phone(seats["Bren"]), Phone(seats["GM"])
    terminal.send("")                                      # scene
    terminal.answer("Enter plays it>", "")                 # drama
    terminal.answer("Enter plays it>", "")                 # initiative
    terminal.answer("Enter plays it>", "")                 # round
    # Kara's line of the script: her seat rolls (typed dice); Bren's seat may not answer for her
    terminal.expect("Kara may roll up to 3 dice")
    assert bren.post("answer", seq=kara.asked("dice")["seq"], line="6 6 6").status_code == 403
    assert kara.answer("dice", "6 5 4").status_code == 200
    terminal.expect("<- Kara's page: 6 5 4")
    # the hidden Overlord's defence is the GM's, typed at the terminal
    terminal.answer("Overlord may roll up to 3 dice", "2 2 1")
    # Kara won double (R8): her seat is asked for the option, and dictates
    assert kara.answer("option", "dictate the Overlord staggers").status_code == 200
    terminal.expect("<- Kara's page: dictate the Overlord staggers")
    last = kara.state()["board"]["last"]                   # the hidden Overlord's total and loss are not told
    assert last.startswith("Kara bolt -> Overlord: 18 vs ?, Kara wins double") and "Overlord hit" in last, last
    # the Overlord's blow: the GM's page gives his dice, the seats their defences (the engine rolls Kara's)
    terminal.expect("Overlord may roll up to 2 dice")
    ask = gm.state()["ask"]
    assert gm.post("line", seq=ask["seq"], line="3 1").status_code == 200
    terminal.expect("<- the GM's page: 3 1")
    assert kara.answer("dice", "").status_code == 200
    assert bren.answer("dice", "5 4").status_code == 200
    terminal.expect("<- Bren's page: 5 4")
    terminal.answer("Enter plays it>", "")                 # the repeat's round
    # Kara declares a recovery from her phone while Bren's dice are asked: it waits for the entry
    terminal.expect("Bren may roll up to")
    declared = kara.post("declare", text="Kara recovers with Sorcery, roll")
    assert declared.status_code == 200
    number = declared.json()["proposal"]["id"]
    assert bren.answer("dice", "6 6").status_code == 200
    terminal.answer("Overlord may roll up to", "1 1")
    assert bren.answer("option", "dictate the Overlord's crown rolls away").status_code == 200   # Bren won double
    out = terminal.expect("says no>")                      # then the GM is asked about Kara's, and accepts
    assert "Kara's seat proposes: Kara recovers with Sorcery, roll" in out
    terminal.send("")
    assert kara.answer("dice", "").status_code == 200            # "roll for me": the server rolls
    settled = kara.proposal(number)
    assert settled["status"] == "accepted" and settled["played"].startswith("Kara recovers with Sorcery, rolled "), \
        settled["word"]
    # Kara declares again, and the GM refuses with a word she sees
    terminal.expect("Enter plays it>")
    number = kara.post("declare", text="Kara holds").json()["proposal"]["id"]
    terminal.answer("says no>", "refuse not now, Kara")
    refused = kara.proposal(number)
    assert refused == {**refused, "status": "refused", "word": "not now, Kara"}
    # on to the end of the script: the terminal answers the rest (Enter: the engine rolls)
    while True:
        index = terminal.child.expect_exact(["Enter plays it>", DICE, "Enter for none>", "the split",
                                             "who won the vote?", "the script has ended"])
        if index == 5:
            break
        terminal.send("Bren" if index == 4 else "")
        terminal.done()
    # after the drama, the GM lets time pass; Bren declares a recovery; the GM edits it, Bren's seat rolls it
    terminal.send("calm 10 minutes")
    terminal.done()
    terminal.expect("the script has ended")
    number = bren.post("declare", text="Bren recovers with Strength, roll").json()["proposal"]["id"]
    terminal.answer("says no>", "edit Bren recovers, roll")
    assert bren.answer("dice", "").status_code == 200
    edited = bren.proposal(number)
    assert edited["status"] == "accepted" and edited["played"].startswith("Bren recovers, rolled "), edited["word"]
    terminal.expect("the script has ended")
    assert bren.state()["board"]["entries"] >= 10
    terminal.send("/quit")
    final = terminal.finish()
    assert "all saved" in final
    # the journal: every accepted entry, none refused; `drama run` gives the table's events
    journal = (tmp_path / "j.drama").read_text(encoding="utf-8")
    assert "Kara bolt -> Overlord with Sorcery, rolled 6 5 4" in journal
    assert 'Kara dictates "the Overlord staggers"' in journal
    assert settled["played"] in journal and edited["played"] in journal
    assert "Bren dictates \"the Overlord's crown rolls away\"" in journal
    assert "Kara holds" not in journal and "Bren recovers with Strength" not in journal
    program = Program.compile(scenario)
    table, warning = Table.resume(program, str(tmp_path / "j.drama"))
    assert warning is None
    run = subprocess.run([sys.executable, "-m", "dsl", "run", str(tmp_path / "j.yaml"), "--format", "json"],
                         capture_output=True, text=True, env=env(), timeout=60)
    assert run.returncode == 0, run.stderr
    assert [json.loads(line) for line in run.stdout.splitlines()] == final_events(table)


def test_issue29_a_sigkill_loses_no_accepted_entry_and_the_seats_reconnect_after_resume(tmp_path):
    port = free_port()
    terminal, scenario = start(tmp_path, port)
    seats = links(terminal.expect("Enter plays it>"))
    kara = Phone(seats["Kara"])
    for _ in range(4):
        terminal.answer("Enter plays it>", "") if _ else terminal.send("")
    assert kara.answer("dice", "6 5 4").status_code == 200
    terminal.answer("Overlord may roll up to 3 dice", "2 2 1")
    assert kara.answer("option", "").status_code == 200         # no option taken
    terminal.expect("Overlord may roll up to 2 dice")            # the 5th entry is in the journal
    accepted = (tmp_path / "j.drama").read_text(encoding="utf-8")
    assert len(re.findall(r"^# play \d+:", accepted, re.M)) == 5
    os.kill(terminal.child.pid, signal.SIGKILL)
    terminal.child.expect(terminal.pexpect.EOF)
    # resumed on the same port (it is kept with the seats when --board-port is not given)
    again = Terminal(scenario, "--journal", str(tmp_path / "j.drama"), "--seats", "--resume", timeout=30)
    out = again.expect("Kara won double")                        # the option declined is asked again
    assert "resumed: 5 entries" in out and links(out)["Kara"] == seats["Kara"]     # the same links
    assert (tmp_path / "j.drama").read_text(encoding="utf-8") == accepted
    state = kara.state()                                         # the phone's session goes on
    assert state["sheet"]["id"] == "Kara" and state["board"]["entries"] == 5
    assert kara.answer("option", "").status_code == 200         # and it answers the table again
    again.expect("Overlord may roll up to 2 dice")
    assert oct(os.stat(tmp_path / "j.seats").st_mode & 0o777) == "0o600"
    again.send("/quit")
    assert "all saved" in again.finish()


def test_the_prompt_answers_while_200_event_streams_are_open_and_a_client_stalls(tmp_path):
    port = free_port()
    terminal, _ = start(tmp_path, port)
    terminal.expect("Enter plays it>")
    streams = []
    try:
        for _ in range(200):
            sock = socket.create_connection(("127.0.0.1", port), timeout=10)
            sock.sendall(f"GET /events HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
            streams.append(sock)
        stalled = socket.create_connection(("127.0.0.1", port), timeout=10)
        stalled.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1")         # a head never finished
        slow = streams[0]                                              # a stream that is never read
        time.sleep(0.5)
        watcher = streams[-1]
        watcher.settimeout(10)
        seen = b""
        while b"data: " not in seen:                                   # the first state
            seen += watcher.recv(65536)
        started = time.monotonic()
        terminal.send("")                                              # scene "The Hall"
        terminal.expect("Enter plays it>")
        answered = time.monotonic() - started
        seen = b""
        while b'"entries":1' not in seen:                              # the board follows within the second
            seen += watcher.recv(65536)
        followed = time.monotonic() - started
        assert answered < 1.0 and followed < 1.0, (answered, followed)
        del slow, stalled
    finally:
        for sock in streams:
            sock.close()
    terminal.send("/quit")
    terminal.finish()


def test_binding_beyond_this_machine_says_who_can_reach_it(tmp_path):
    scenario = hall(tmp_path)
    done = subprocess.run([sys.executable, "-m", "dsl", "play", str(scenario), "--journal", str(tmp_path / "j.drama"),
                           "--seats", "--host", "0.0.0.0"], input="/quit\n", capture_output=True, text=True,
                          env=env(), timeout=60)
    assert done.returncode == 0, done.stderr
    assert "warning: the table is served on 0.0.0.0" in done.stderr and "anyone on a network" in done.stderr
    loopback = subprocess.run([sys.executable, "-m", "dsl", "play", str(scenario), "--journal",
                               str(tmp_path / "k.drama"), "--seats"], input="/quit\n", capture_output=True,
                              text=True, env=env(), timeout=60)
    assert "warning" not in loopback.stderr and "seat Kara: http://127.0.0.1:" in loopback.stdout


def test_drama_version_and_check_do_not_import_the_web_server(tmp_path):
    scenario = hall(tmp_path)
    code = ("import sys\nfrom dsl.cli import main\n"
            "for args in (['--version'], ['check', sys.argv[1]]):\n"
            "    try:\n        main(args)\n    except SystemExit:\n        pass\n"
            "print(sorted(m for m in ('starlette', 'uvicorn', 'segno', 'httpx') if m in sys.modules))\n")
    done = subprocess.run([sys.executable, "-c", code, str(scenario)], capture_output=True, text=True, env=env(),
                          timeout=60)
    assert done.stdout.strip().splitlines()[-1] == "[]", done.stdout + done.stderr


def test_issue29_a_bundled_adventure_played_to_its_end_with_the_heroes_on_seats(tmp_path):
    """The Ashen Pass, every die `roll`: Kara's and Bren's phones roll for them (by hand or "roll for me"),
    answer their options; the game master plays the foes at the terminal, to the script's end."""
    from play_helpers import ROOT
    scenario = str(ROOT / "scenarios" / "ashen-pass" / "with-embers.yaml")
    journal = tmp_path / "pass.drama"
    terminal = Terminal(scenario, "--journal", str(journal), "--seat", "hero", "--seat", "ally", "--seed", "11",
                        timeout=40)
    out = terminal.expect("journal:")
    seats = links(out)
    assert set(seats) == {"Kara", "Bren", "GM"}            # the roles' parties; the wolves and warlord are the GM's
    phones = {"Kara": Phone(seats["Kara"]), "Bren": Phone(seats["Bren"])}
    rolled = {"Kara": 0, "Bren": 0}
    name = r"\x1b\[0m([A-Za-z]+)"                     # a prompt begins where prompt_toolkit resets the colour
    prompts = [name + " may roll up to", name + " recovers: ", name + "(?: & [A-Za-z]+)* won double",
               name + " rerolls", "Enter plays it>", "the split", "who won the vote", "initiative results",
               "the script has ended", "Enter tries it again"]
    try:
        for _ in range(400):
            index = terminal.child.expect(prompts)
            who = terminal.child.match.group(1) if index <= 3 else None
            if index == 8:
                break
            if who in phones:
                kind = "option" if index == 2 else "dice"
                line = "" if kind == "option" or rolled[who] % 2 else ("6 5 4" if index == 0 else "")
                ask = phones[who].asked(kind)
                if kind == "dice" and ask.get("most") is not None:
                    line = " ".join(["5"] * ask["most"]) if line else ""
                reply = phones[who].post("answer", seq=ask["seq"], line=line)
                assert reply.status_code == 200, reply.text
                rolled[who] += 1
                terminal.child.expect_exact(f"<- {who}'s page")
            else:
                terminal.send("/skip" if index == 9 else "")
                terminal.done()
        else:
            raise AssertionError("the adventure did not end")
    except BaseException:
        print(plain(terminal.seen + (terminal.child.before or ""))[-3000:])
        raise
    assert rolled["Kara"] >= 3 and rolled["Bren"] >= 3
    terminal.send("/quit")
    assert "all saved" in terminal.finish()
    program = Program.compile(str(tmp_path / "pass.yaml"))
    run = subprocess.run([sys.executable, "-m", "dsl", "run", str(tmp_path / "pass.yaml"), "--format", "json"],
                         capture_output=True, text=True, env=env(), timeout=60)
    assert run.returncode == 0, run.stderr
    table, _ = Table.resume(Program.compile(scenario), str(journal))
    assert [json.loads(line) for line in run.stdout.splitlines()] == final_events(table)
    assert any(e["type"] == "drama_end" for e in final_events(table)) and program
