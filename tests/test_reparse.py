"""Parsing an edited script again (dsl/syntax/reparse.py, issue 26 point 2): the statements an edit left alone kept from the last parse give exactly a fresh parse, node for node and error for error, and exactly a fresh `drama check`."""

from __future__ import annotations

import importlib
import os
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from dsl import checker, inputs
from dsl.lsp.analysis import check_scenario
from dsl.pipeline import check

parsing = importlib.import_module("dsl.syntax.parse")
ROOT = Path(__file__).resolve().parent.parent
# every script bundled or kept as a fixture: real writers' lines, blocks, choices, includes
SCRIPTS = sorted(p for folder in ("scenarios", "tests") for p in (ROOT / folder).rglob("*.drama"))
TEXTS = {p.relative_to(ROOT).as_posix(): p.read_text(encoding="utf-8") for p in SCRIPTS}
LINES = sorted({line for text in TEXTS.values() for line in text.split("\n")})


def _errors(errors) -> list[tuple]:
    return [(e.code, str(e.position), e.message, e.expected, e.hint, tuple(e.notes)) for e in errors]


def _fresh(text: str, file: str, offset: int = 0):
    memory, parsing._memory = parsing._memory, None
    try:
        found: list = []
        return parsing.parse(text, file, offset, errors=found), found
    finally:
        parsing._memory = memory


@pytest.fixture
def remembering():
    """Parses remembered, and what the static checks met (as in the language server's processes)."""
    parsing.remember()
    checker.remember()
    yield parsing.memory()
    parsing.remember(False)
    checker.remember(False)


# an edit of a script's lines: (where, what, a line or a block of lines)
_EDIT = st.tuples(
    st.integers(0, 10_000),
    st.sampled_from(["replace", "insert", "delete", "copy", "type", "erase", "indent"]),
    st.sampled_from(LINES),
    st.integers(1, 12),
    st.text(alphabet="abcdefgh ,->\"'{}#0123456789", max_size=6),
)


def _edited(lines: list[str], edit) -> list[str]:
    at, how, line, size, typed = edit
    lines = list(lines)
    at = at % (len(lines) + 1)
    if how == "replace" and at < len(lines):
        lines[at] = line
    elif how == "insert":
        lines.insert(at, line)
    elif how == "delete":
        del lines[at:at + size]
    elif how == "copy":                       # a block of lines copied further down (or up)
        lines[at:at] = lines[(at * 7) % max(1, len(lines)):][:size]
    elif how == "type" and at < len(lines):   # a writer typing in the middle of a line
        row = lines[at]
        cut = size % (len(row) + 1)
        lines[at] = row[:cut] + typed + row[cut:]
    elif how == "erase" and at < len(lines):
        row = lines[at]
        cut = size % (len(row) + 1)
        lines[at] = row[:cut] + row[cut + len(typed) + 1:]
    elif how == "indent" and at < len(lines):
        lines[at] = "  " + lines[at]
    return lines


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=st.sampled_from(sorted(TEXTS)), edits=st.lists(st.tuples(_EDIT, st.booleans()), min_size=1, max_size=10),
       offset=st.sampled_from([0, 0, 7]))
def test_an_edited_script_parsed_again_is_a_fresh_parse(remembering, name, edits, offset):
    """Edit after edit of a real script (statements replaced, lines typed into, deleted, copied,
    indented; parsed after some of them, so that several changes lie between two parses), the parse
    that keeps the statements the edits left alone is the fresh parse: the same statements at the
    same places, the same errors in the same order."""
    file = "/adventure/" + name
    lines = TEXTS[name].split("\n")
    parsing.parse("\n".join(lines), file, offset, errors=[])
    for k, (edit, parsed) in enumerate(edits):
        lines = _edited(lines, edit)
        if not parsed and k < len(edits) - 1:
            continue
        text = "\n".join(lines)
        found: list = []
        script = parsing.parse(text, file, offset, errors=found)
        fresh, fresh_errors = _fresh(text, file, offset)
        assert script == fresh
        assert [s.pos for s in script.statements] == [s.pos for s in fresh.statements]
        assert _errors(found) == _errors(fresh_errors)


def test_an_edit_of_one_line_reads_only_its_statement_and_keeps_the_other_nodes(remembering):
    """A line replaced: every top-level statement but the edited one and its two neighbours is the
    very node of the last parse (what the checks that follow compare by identity); a line added above moves
    the statements below it by one line, as a fresh parse places them."""
    lines = ['drama "Hall" with Kara, Bren', "initiative"]
    for k in range(30):
        lines += [f"> Kara looks at the door, {k}.", "Kara strikes -> Bren, roll", "Bren defends, roll",
                  "if Bren is defeated", "end drama", "end"]
    text = "\n".join(lines)
    first = parsing.parse(text, "r.drama", errors=[])
    at = 6 * 15 + 2
    lines[at] = "> The river is higher."
    again = parsing.parse("\n".join(lines), "r.drama", errors=[])
    assert remembering.last == "region"
    # (read again: the statement edited, and those of the lines just above and below it)
    kept = [a is b for a, b in zip(first.statements, again.statements)]
    assert kept.count(False) == 3 and len(first.statements) == len(again.statements) == 2 + 4 * 30
    lines.insert(2, "> A new line.")
    moved = parsing.parse("\n".join(lines), "r.drama", errors=[])
    assert remembering.last == "region"
    assert moved == _fresh("\n".join(lines), "r.drama")[0]
    assert moved.statements[-1].pos.line == again.statements[-1].pos.line + 1


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(scenario=st.sampled_from(["river-veyne", "harbour", "grey-ford", "emberfall"]),
       edits=st.lists(_EDIT, min_size=1, max_size=5))
def test_the_language_servers_check_of_edit_after_edit_is_drama_check(remembering, tmp_path_factory, scenario,
                                                                        edits):
    """The check of the language server's process (parses remembered, dry runs resumed) against a
    fresh `drama check` of the same buffers, edit after edit of a bundled scenario's script: every
    error, warning and note the same, in the same order."""
    folder = tmp_path_factory.mktemp(scenario)
    shutil.copytree(ROOT / "scenarios" / scenario, folder, dirs_exist_ok=True)
    path = next(p for p in sorted(folder.glob("*.yaml")) if "script:" in p.read_text())
    script = next(iter(sorted(folder.glob("*.drama"))))
    real = os.path.realpath(script)
    lines = script.read_text().split("\n")
    check_scenario(str(path), {real: "\n".join(lines)})
    for edit in edits:
        lines = _edited(lines, edit)
        texts = {real: "\n".join(lines)}
        found = check_scenario(str(path), texts).errors
        memory, parsing._memory = parsing._memory, None
        try:
            with inputs.overlay(texts):
                fresh = check(str(path))
        finally:
            parsing._memory = memory
        assert _errors(found) == _errors(fresh)
