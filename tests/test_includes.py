"""`include "file.drama"`: scenes shared between adventures, read in place, with
paths relative to the including file and kept inside the scenario's folder."""

from __future__ import annotations

import json

from conftest import drama, make_scenario, write

OPENING = 'scene "Opening"\n> It begins.\ndrama "Duel" with Kara, Bren\ninclude "more.drama"\n'


def scenario_with_includes(folder, more: str = "Bren bash -> Kara with Strength, rolled 4\n"):
    make_scenario(folder, 'include "common/opening.drama"\nKara fireball -> Bren, rolled 3\nend drama\n',
                  script_name="main.drama")
    write(folder, "common/opening.drama", OPENING)
    write(folder, "common/more.drama", more)
    return folder / "scenario.yaml"


def events(*args) -> list[dict]:
    outcome = drama("run", *args, "--format", "json")
    assert outcome.code == 0, outcome.stderr
    return [json.loads(line) for line in outcome.stdout.splitlines()]


def test_included_statements_run_in_place(tmp_path):
    run = events(scenario_with_includes(tmp_path))
    kinds = [e["type"] for e in run]
    assert kinds[:4] == ["start", "scene", "narration", "drama"]
    actions = [e["attacker"] for e in run if e["type"] == "action"]
    assert actions == ["Bren", "Kara"]          # more.drama's action, then main.drama's
    assert "drama_end" in kinds


def test_an_error_in_an_included_file_points_there_with_the_chain(tmp_path):
    path = scenario_with_includes(tmp_path, more="Bren bash -> Kara with Strenght\n")
    for command in ("run", "check"):
        outcome = drama(command, path)
        assert outcome.code == 1
        lines = outcome.stderr.splitlines()
        assert lines[0].endswith("common/more.drama:1:24: error[E202]: Bren has no trait or treasure 'Strenght'")
        assert lines[-2].endswith("note: included from " + str(tmp_path / "common" / "opening.drama") + ":4")
        assert lines[-1].endswith("note: included from " + str(tmp_path / "main.drama") + ":1")


def test_an_include_cycle_shows_the_chain_of_files(tmp_path):
    path = scenario_with_includes(tmp_path, more='round\ninclude "../main.drama"\n')
    outcome = drama("check", path)
    assert outcome.code == 1
    assert "error[E003]: '../main.drama' includes itself: " in outcome.stderr
    assert "main.drama -> " in outcome.stderr and "common/opening.drama -> " in outcome.stderr


def test_an_include_may_not_leave_the_scenarios_folder(tmp_path):
    scenario = tmp_path / "adventure"
    write(tmp_path, "outside.drama", "round\n")
    path = scenario_with_includes(scenario, more='include "../../outside.drama"\n')
    outcome = drama("check", path)
    assert outcome.code == 1
    assert "error[E003]: '../../outside.drama' is outside the scenario's folder" in outcome.stderr


def test_a_missing_included_file(tmp_path):
    path = scenario_with_includes(tmp_path, more='include "nope.drama"\n')
    outcome = drama("run", path)
    assert outcome.code == 1
    assert "error[E108]: cannot read the included file 'nope.drama'" in outcome.stderr
    assert "help: paths are relative to the file that includes them" in outcome.stderr


def test_check_reports_errors_of_several_included_files(tmp_path):
    path = scenario_with_includes(tmp_path, more='Bren bash -> Kara with Strenght\ninclude "nope.drama"\n')
    outcome = drama("check", path)
    assert outcome.code == 1
    assert "error[E108]" in outcome.stderr and "error[E202]" in outcome.stderr
    assert outcome.stderr.rstrip().endswith("2 errors")


def test_the_record_of_a_run_with_includes_is_the_straight_trace(tmp_path):
    recorded = tmp_path / "played.drama"
    outcome = drama("run", scenario_with_includes(tmp_path), "--record", recorded)
    assert outcome.code == 0, outcome.stderr
    text = recorded.read_text()
    assert "include" not in text and 'scene "Opening"' in text and "Bren bash -> Kara" in text


def test_an_include_inside_a_choose_option_runs(tmp_path):
    """An option's lines may be any lines (docs/language.md), an `include` too: it was E004 (issue 25)."""
    make_scenario(tmp_path, 'choose "At the door", chose "Knock"\noption "Knock"\ninclude "knock.drama"\n'
                            'option "Leave"\n> They leave.\nend\n', script_name="main.drama")
    write(tmp_path, "knock.drama", "> Someone answers.\nif in drama\n> never\nend\n")
    run = events(tmp_path / "scenario.yaml")
    assert [e["text"] for e in run if e["type"] == "narration"] == ["Someone answers."]
    assert drama("check", tmp_path / "scenario.yaml").code == 0
