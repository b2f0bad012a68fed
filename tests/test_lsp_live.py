"""`drama lsp` keeping up with typing (issue 26, point 2): the dry run resumed where an edit begins finds what `drama check` finds; the checks run in a process of their own that a newer change stops."""

from __future__ import annotations

import asyncio
import logging
import os
import time

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from conftest import EMBERFALL_CAST, EMBERFALL_SETTING, write
from dsl import inputs
from dsl.lsp.analysis import check_scenarios
from dsl.lsp.incremental import DryRuns
from dsl.lsp.worker import Worker
from dsl.pipeline import Program, check
from test_lsp import Session, session_test
from lsprotocol import types as lsp

SCENARIO = "title: Test\nsetting: setting.yaml\ncast: cast.yaml\nscript: script.drama\n"
PARTIES = ["Kara", "Bren", "Overlord", "Goblins"]
CONDITIONS = ["Overlord is defeated", "round >= 3", "Kara quintessence < 2", "not in drama"]

# the lines a writer's edits are made of: exchanges (some with the wrong dice: E401), rounds,
# narration, typos (a follow-on check), blocks, and a loop that spends the dry run's budget
_EXCHANGE = st.builds(lambda a, b, dice: [f"{a} strikes -> {b}, {dice}", f"{b} defends, roll"],
                      st.sampled_from(PARTIES), st.sampled_from(PARTIES),
                      st.sampled_from(["roll", "rolled 6", "rolled 3 4", "rolled 1 2 3 4 5"]))
_BLOCK = st.one_of(
    _EXCHANGE,
    st.just(["round"]),
    st.builds(lambda p: [f"> {p} waits."], st.sampled_from(PARTIES)),
    st.just(["Kara strikes -> Overlrod, roll", "Overlord defends, roll"]),
    st.builds(lambda c: [f"if {c}", "round", "else", "> nothing happens", "end"], st.sampled_from(CONDITIONS)),
    st.builds(lambda n: [f"repeat {n} times", "Kara strikes -> Goblins, roll", "Goblins defends, roll", "end"],
              st.sampled_from([2, 3, 9000])),
)


def _script(blocks: list[list[str]]) -> list[str]:
    return ['drama "Hall" with Kara, Bren, Overlord, Goblins', "initiative",
            *(line for block in blocks for line in block)]


def _found(errors) -> list[tuple]:
    return [(e.code, str(e.position), e.message, e.hint, tuple(e.notes)) for e in errors]


@pytest.fixture
def adventure(tmp_path):
    write(tmp_path, "setting.yaml", EMBERFALL_SETTING)
    write(tmp_path, "cast.yaml", EMBERFALL_CAST)
    write(tmp_path, "scenario.yaml", SCENARIO)
    write(tmp_path, "script.drama", "")
    return tmp_path


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(start=st.lists(_BLOCK, min_size=1, max_size=12),
       edits=st.lists(st.tuples(st.integers(0, 30), st.sampled_from(["replace", "insert", "delete"]), _BLOCK),
                      min_size=1, max_size=4))
def test_a_dry_run_resumed_where_an_edit_begins_finds_what_drama_check_finds(adventure, start, edits):
    """Issue 26, point 2: the LSP's check (dsl/lsp/incremental.py) resumes the dry run from the
    state before the first statement an edit changed; every error, warning (W020 of a spent
    budget) and note is the same as a whole `drama check` of the same text, edit after edit."""
    runs = DryRuns()
    scenario = str(adventure / "scenario.yaml")
    script = os.path.realpath(adventure / "script.drama")
    lines = _script(start)
    for at, how, block in [(0, "replace", [])] + edits:
        at = 2 + at % max(1, len(lines) - 1)
        if how == "replace":
            lines[at:at + len(block)] = block
        elif how == "insert":
            lines[at:at] = block
        else:
            del lines[at:at + 2]
        with inputs.overlay({script: "\n".join(lines) + "\n"}):
            assert _found(check(scenario, dry_run=runs.run)) == _found(check(scenario))


def test_an_edit_after_the_statement_where_the_dry_run_stopped_runs_nothing_again(adventure):
    """The budget spent inside the first loop (W020): an edit below it changes nothing of the dry run,
    which is not run again; an edit above it resumes from the statement edited."""
    runs = DryRuns()
    scenario = str(adventure / "scenario.yaml")
    script = os.path.realpath(adventure / "script.drama")
    lines = _script([["round"], ["repeat 9000 times", "Kara strikes -> Goblins, roll", "Goblins defends, roll",
                                 "end"]] + [["round"], ["Bren strikes -> Overlord, roll", "Overlord defends, roll"]] * 20)
    # (edits that keep the count of statements, and so the budget, W020's)
    for k, (at, line) in enumerate([(None, None), (40, "Bren strikes -> Overlord, rolled 1 2 3 4 5"),
                                    (2, "> Kara waits.")]):
        if at is not None:
            lines[at] = line
        with inputs.overlay({script: "\n".join(lines) + "\n"}):
            found = check(scenario, dry_run=runs.run)
            assert _found(found) == _found(check(scenario))
        assert "W020" in {e.code for e in found}
        assert runs.resumed_at == [0, None, 2][k]


def test_a_check_runs_in_a_process_of_its_own_that_a_newer_change_stops(adventure):
    """The checks do not share the server's interpreter (a completion never waits for one), and
    `interrupt` stops the one under way: its answer is None, and the process checks on."""
    script = os.path.realpath(adventure / "script.drama")
    # a check of seconds however fast the machine (a loop run to the dry run's budget, and
    # 30,000 lines to read): 0.2 s in, it is under way, and the interrupt must stop it
    long = "\n".join(_script([["repeat 100000 times", "> Kara waits.", "end"], ["> Kara waits."] * 30000])) + "\n"
    worker = Worker("test")
    try:
        worker.submit(check_scenarios, [], {}).result(60)          # (the process started)
        stopped = worker.submit(check_scenarios, [str(adventure / "scenario.yaml")], {script: long})
        time.sleep(0.2)
        worker.interrupt()
        assert stopped.result(60) is None
        short = "\n".join(_script([["Kara strikes -> Overlrod, roll", "Overlord defends, roll"]])) + "\n"
        (done,) = worker.submit(check_scenarios, [str(adventure / "scenario.yaml")], {script: short}).result(60)
        assert [(e.code, e.position.line) for e in done.errors] == [("E201", 3), ("W004", 3)]
        assert done.errors[0].hint == "did you mean 'Overlord'?"
    finally:
        worker.shutdown()


def test_through_a_client_the_diagnostics_follow_edits_above_and_below_a_spent_budget(adventure):
    """Through pygls's client: edits above and below the loop that spends the dry run's budget, each
    published diagnostic set is `drama check`'s of the same text."""
    lines = _script([["repeat 9000 times", "Kara strikes -> Goblins, roll", "Goblins defends, roll", "end"]]
                    + [["round"], ["Bren strikes -> Overlord, roll", "Overlord defends, roll"]] * 10)
    write(adventure, "script.drama", "\n".join(lines) + "\n")
    script = os.path.realpath(adventure / "script.drama")

    def expected(text: str) -> list[tuple[str, int]]:
        with inputs.overlay({script: text}):
            return [(e.code, e.position.line - 1) for e in check(str(adventure / "scenario.yaml"))]

    @session_test
    async def body(s: Session):
        found = await s.open("script.drama")
        assert [(d.code, d.range.start.line) for d in found] == expected("\n".join(lines) + "\n")
        for at, line in ((20, "Bren strikes -> Overlord, rolled 1 2 3"), (3, "Kara strikes -> Goblins, rolled 6"),
                         (21, "Overlord defends, rolled 2 2 2 2 2 2 2")):
            lines[at] = line
            text = "\n".join(lines) + "\n"
            found = await s.change("script.drama", text)
            assert [(d.code, d.range.start.line) for d in found] == expected(text)
            assert found and all(d.source == "drama" for d in found)
            assert s.log[-1][1] == s.versions["script.drama"]      # published with the version it is for
    body(adventure)


def test_the_preview_runs_in_a_process_of_its_own(adventure):
    """`drama.preview` answers from the previews' process (not the checks', not the loop): the story
    of the text being typed."""
    write(adventure, "script.drama", "\n".join(_script([["> Kara waits."]])) + "\n")

    @session_test
    async def body(s: Session):
        await s.open("script.drama")
        text = "\n".join(_script([["> Bren sings."]])) + "\n"
        await s.change("script.drama", text)
        found = await s.client.workspace_execute_command_async(lsp.ExecuteCommandParams(
            "drama.preview", [s.uri("script.drama"), {"seed": 1}]))
        assert found["error"] is None and any("Bren sings." in line["text"] for line in found["lines"])
    body(adventure)


def test_a_dry_run_full_of_errors_resumed_stops_where_drama_check_stops(adventure):
    """W021: a dry run that meets as many errors as are shown stops there; resumed above or below
    that place, the check is still `drama check`'s, byte for byte."""
    runs = DryRuns()
    scenario = str(adventure / "scenario.yaml")
    script = os.path.realpath(adventure / "script.drama")
    lines = _script([["round"]] + [["Kara strikes -> Goblins, rolled 6", "Goblins defends, rolled 1"]] * 130)
    for at, line in [(None, None), (250, "Kara strikes -> Goblins, rolled 5"), (4, "Kara strikes -> Bren, rolled 2"),
                     (2, "> Kara waits.")]:
        if at is not None:
            lines[at] = line
        with inputs.overlay({script: "\n".join(lines) + "\n"}):
            found = check(scenario, dry_run=runs.run)
            assert _found(found) == _found(check(scenario))
        assert "W021" in {e.code for e in found}


def test_a_burst_of_changes_leaves_nothing_in_the_log(adventure, caplog):
    """Each change of a burst cancels the round under way; the answer of its stopped check, coming
    later, goes nowhere quietly (it once raised InvalidStateError in a callback for every change,
    whose tracebacks filled the pipe of the server's standard error until it hung)."""
    lines = _script([["round", "Kara strikes -> Goblins, roll", "Goblins defends, roll"]] * 400)
    write(adventure, "script.drama", "\n".join(lines) + "\n")

    @session_test
    async def body(s: Session):
        await s.open("script.drama")
        uri = s.uri("script.drama")
        for k in range(12):
            lines[3 + 3 * k] = f"Kara strikes -> Goblins, rolled {k % 6 + 1}"
            s.versions["script.drama"] += 1
            s.client.text_document_did_change(lsp.DidChangeTextDocumentParams(
                lsp.VersionedTextDocumentIdentifier(uri=uri, version=s.versions["script.drama"]),
                [lsp.TextDocumentContentChangeWholeDocument(text="\n".join(lines) + "\n")]))
            await asyncio.sleep(0.06)
        last = s.versions["script.drama"]
        while not any(u == uri and v == last for u, v, _ in s.log):
            await asyncio.sleep(0.02)
    with caplog.at_level(logging.WARNING):
        body(adventure)
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []


def test_the_built_in_templates_are_compiled_once_a_process_for_each_language(tmp_path):
    """The preview renders on every keystroke: the built-in templates are compiled once in its
    process (a bytecode cache in memory, dsl/render), one for each phrase book (Jinja compiles
    `"Round"|t` as the words of the book it is compiled with) and for escaping or not. An author's
    template is compiled each time: edited between two renders, it is never served stale."""
    from dsl.render import _COMPILED, render
    events = Program.compile(_small(tmp_path)).run(seed=0)
    told = {lang: render(events, "transcript", "html", lang=lang) for lang in ("fr", "en", "fr", "en")}
    assert "<summary>Tour 1</summary>" in told["fr"] and "<summary>Round 1</summary>" in told["en"]
    assert len(_COMPILED) >= 2 and render(events, "log", "text") == render(events, "log", "text")
    template = write(tmp_path, "mine.txt.j2", "first {{ events | length }}\n")
    assert render(events, "log", "text", template=str(template)) == f"first {len(events)}\n"
    write(tmp_path, "mine.txt.j2", "second {{ events | length }}\n")
    assert render(events, "log", "text", template=str(template)) == f"second {len(events)}\n"


def _small(folder) -> str:
    write(folder, "setting.yaml", EMBERFALL_SETTING)
    write(folder, "cast.yaml", EMBERFALL_CAST)
    write(folder, "scenario.yaml", SCENARIO)
    write(folder, "script.drama", "\n".join(_script([["> Kara waits."], ["round"]])) + "\n")
    return str(folder / "scenario.yaml")
