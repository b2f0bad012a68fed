"""Repeated lines share one parsed node (nodes.Script, syntax/occurrences.py): every error, event and
position of an occurrence is that occurrence's own, as if each statement had been parsed alone."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import drama, exchanges, make_scenario, of_type, printed_errors, run_events, write
from dsl.errors import Diagnostics, DramaError
from dsl.interpreter import FRESH, PLAY
from dsl.loader import load_scenario
from dsl.pipeline import Program
from dsl.source import SourceMap
from dsl.syntax import nodes, parse
from dsl.syntax.layout import layout

BEGIN = 'drama "Hall" with Kara, Bren, Overlord, Goblins\ninitiative Kara 5, Bren 2, Overlord 6, Goblins 1\n'

# a joint action whose cost (two qualifiers, R4) leaves Kara too little quintessence for her
# dice at its third occurrence
PRESS_ON = """\
Kara & Bren "press on" -> Overlord but not the hall so that it burns
  Kara with Sorcery, rolled 6 5
  Bren with Strength, rolled 3
Overlord defends with Cunning, rolled 1
round
"""


def test_a_repeated_line_that_breaks_a_rule_at_its_third_occurrence_is_placed_there(in_tmp):
    script = BEGIN + PRESS_ON * 4 + "end drama\n"
    make_scenario(in_tmp, script)
    assert parse(script, "script.drama").shifts        # (the occurrences do share their nodes)
    outcome = drama("run", "scenario.yaml")
    assert outcome.code == 1
    (error,) = printed_errors(outcome.stderr)
    # the occurrences begin at lines 3, 8 and 13: the third one's indented line for Kara, at her dice (R3)
    assert (error.where, error.line, error.col, error.code) == ("script.drama", 14, 22, "E301")
    assert error.body[0] == " 14 |   Kara with Sorcery, rolled 6 5"
    assert "quintessence available after spending 2" in error.message


def test_a_line_repeated_is_an_error_at_its_second_occurrence_and_check_finds_each(in_tmp):
    lost = 'Goblins lose member "Snik"\n'
    exchange = "Kara fireball -> Overlord, rolled 6 5\nOverlord defends with Cunning, rolled 2\n"
    script = BEGIN + lost + exchange + "round\n" + lost + exchange + "round\n" + lost + "end drama\n"
    make_scenario(in_tmp, script)
    outcome = drama("run", "scenario.yaml")
    (error,) = printed_errors(outcome.stderr)
    assert (error.line, error.col, error.code) == (7, 21, "E352")   # at "Snik" of the second occurrence
    assert error.body[0] == ' 7 | Goblins lose member "Snik"'
    checked = printed_errors(drama("check", "scenario.yaml").stderr)
    assert [(e.line, e.col, e.code) for e in checked] == [(7, 21, "E352"), (11, 21, "E352")]


def test_an_exchange_that_fails_when_a_repeated_option_line_closes_it_is_placed_at_the_exchange(in_tmp):
    # the dictate line (5, and 8) resolves the exchange before it (R8): its error is the exchange's,
    # placed there already, and does not move with the dictate's occurrence
    script = BEGIN + ("Kara fireball -> Overlord, rolled 6 6\nOverlord defends with Cunning, rolled 1\n"
                      'Kara dictates "the roof falls"\nround\n'
                      'Kara fireball -> Ovrlord, rolled 6 6\nKara dictates "the roof falls"\n')
    make_scenario(in_tmp, script)
    for command in ("run", "check"):
        (error,) = printed_errors(drama(command, "scenario.yaml").stderr)
        assert (error.line, error.col, error.code) == (7, 18, "E201")


def test_each_occurrence_of_a_repeated_line_has_its_own_line_in_the_events(tmp_path):
    script = BEGIN + (PRESS_ON.replace(" so that it burns", "") + "\n# again\n") * 3 + "end drama\n"
    path = make_scenario(tmp_path, script)
    events = run_events(path, "--lenient")
    lines = script.split("\n")
    written = lambda start: [i + 1 for i, text in enumerate(lines) if text.startswith(start)]     # noqa: E731
    assert [e["line"] for e in exchanges(events)] == written("Kara & Bren") and len(written("Kara & Bren")) == 3
    assert [e["line"] for e in of_type(events, "round")] == written("round")
    # the same bytes as the script with each occurrence told apart (no line is repeated there)
    distinct = "\n".join(f"{text}  # {i}" if text and not text.startswith("#") else text
                         for i, text in enumerate(lines))
    assert not parse(distinct, "script.drama").shifts
    write(tmp_path, "script.drama", distinct)
    assert run_events(path, "--lenient") == events


def test_includes_with_repeated_lines(in_tmp):
    write(in_tmp, "rounds.drama", "# two rounds, read twice\n"
          + "Kara fireball -> Overlord, rolled 6 5\nOverlord defends with Cunning, rolled 2\nround\n" * 2
          + 'Goblins lose member "Snik"\n')
    script = BEGIN + 'include "rounds.drama"\n' * 2 + "end drama\n"
    make_scenario(in_tmp, script)
    outcome = drama("run", "scenario.yaml", "--format", "json", "--lenient")
    # the second include (line 4) reads the member-lost line a second time: E352 in rounds.drama
    (error,) = printed_errors(outcome.stderr)
    assert (error.where, error.line, error.col, error.code) == ("rounds.drama", 8, 21, "E352")
    # (the note names the include that first read the file: source.SourceMap.included)
    assert "  note: included from script.drama:3" in error.body
    events = [json.loads(line) for line in outcome.stdout.splitlines()]
    assert [e["line"] for e in exchanges(events)] == [2, 5, 2, 5]
    assert [e["line"] for e in of_type(events, "round")] == [4, 7, 4, 7]


def test_fmt_of_a_file_with_repeated_lines(tmp_path):
    messy = "Kara   fireball->Overlord ,rolled 6 5   # hot\nOverlord defends,rolled 2\n"
    text = BEGIN + (messy + "round\n\n") * 3 + "end drama\n"
    tidy = "Kara fireball -> Overlord, rolled 6 5  # hot\nOverlord defends, rolled 2\n"
    assert layout(text, "script.drama") == BEGIN + (tidy + "round\n\n") * 3 + "end drama\n"
    path = write(tmp_path, "script.drama", text)
    assert drama("fmt", path).code == 0
    assert path.read_text() == BEGIN + (tidy + "round\n\n") * 3 + "end drama\n"


# ---------------------------------------------------------------------------
# a property: the shared nodes give what statements parsed one by one give

POOL = [
    "Kara fireball -> Overlord with Sorcery + Ember Staff, rolled 6 5",
    "Kara fireball -> Ovrlord, rolled 6",
    "Kara fireball -> Overlord, roll",
    "Overlord defends with Cunning, rolled 4 1",
    "Overlord defends with Cunning + Obsidian Crown, roll 2",
    PRESS_ON.split("\nOverlord")[0],
    "Goblins & Overlord defend\n  Goblins with Numbers, rolled 1\n  # a comment inside\n  Overlord with Cunning, rolled 2 2",
    "Goblins stab -> Kara with Numbers, rolled 2 2",
    "Kara defends with Agility, rolled 3",
    "tie Kara",
    "round",
    "Bren recovers, rolled 6 4 2",
    "Kara recovers, rolled 6 4 2, rerolling 2 to 5",
    'Kara dictates "the roof falls on {Overlord.name}"',
    "Goblins rerolls, rolled 3 1",
    "Kara holds",
    'Goblins lose member "Snik"',
    "> {Kara} has {Kara.quintessence} left",
    "> {Krara} stumbles",
    'scene "Round {round}"',
    'end drama "done"',
    'drama "Again" with Kara, Overlord, Goblins',
    "initiative Kara 5, Overlord 6, Goblins 3",
    "rest 2 days",
    "",
    "# a comment",
]


def _alone(text: str, file: str) -> nodes.Script:
    """The script with each statement (a first line and the indented lines below it) parsed
    by itself, at its place: no node is shared."""
    lines = text.split("\n")
    starts = [i for i, line in enumerate(lines) if line and line[0] not in " \t#"]
    statements: list[nodes.Statement] = []
    for k, first in enumerate(starts):
        end = starts[k + 1] if k + 1 < len(starts) else len(lines)
        statements.extend(parse("\n".join(lines[first:end]), file, first).statements)
    return nodes.Script(file, tuple(statements))


def _outcome(program: Program, mode, lenient: bool, seed: int):
    """The events of a stopping run (or its error), and those of a collecting run with its errors."""
    try:
        stopped = program.run(seed=seed, lenient=lenient, mode=mode)
    except DramaError as error:
        stopped = (error.code, error.position, error.message, error.notes)
    found = Diagnostics()
    events = program.interpreter(seed=seed, lenient=lenient, mode=mode, errors=found).run(program.script)
    return stopped, events, [(e.code, e.position, e.message, e.notes) for e in found]


@st.composite
def repetitive_scripts(draw) -> str:
    few = draw(st.lists(st.sampled_from(POOL), min_size=1, max_size=5, unique=True))
    body = draw(st.lists(st.sampled_from(few), min_size=1, max_size=30))
    return BEGIN + "\n".join(body) + "\n" + draw(st.sampled_from(["", "end drama\n"]))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                   HealthCheck.function_scoped_fixture])
@given(text=repetitive_scripts(), mode=st.sampled_from([PLAY, FRESH]), lenient=st.booleans(),
       seed=st.integers(0, 3))
def test_shared_nodes_run_as_statements_parsed_alone(tmp_path, text, mode, lenient, seed):
    make_scenario(tmp_path, text)
    scenario = load_scenario(tmp_path / "scenario.yaml")
    file = scenario.script.file
    shared = parse(text, file)
    alone = _alone(text, file)
    assert not alone.shifts and alone == shared
    outcomes = [_outcome(Program(scenario, script, SourceMap(file)), mode, lenient, seed)
                for script in (shared, alone)]
    assert outcomes[0] == outcomes[1]
