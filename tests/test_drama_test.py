"""End to end: `drama test` with passing and failing test plans, its report and exit status."""

from __future__ import annotations

import shlex

from conftest import SCENARIOS, drama, make_scenario, write

DRAMA = 'drama "Throne Hall" with Kara, Bren, Overlord, Goblins\n'

SCRIPT = DRAMA + """\
set gold = 1
choose "At the door"
option "Knock"
set gold = gold + 1
option "Break it down"
Kara fireball -> Overlord, roll
Overlord defends, roll
round
Kara fireball -> Goblins, roll
Goblins defend, roll
end
expect gold >= 1
"""

PASSING = """\
scenario: scenario.yaml
tests:
  - name: knocking pays
    choose: {At the door: Knock}
    expect:
      - gold = 2
      - choice "At the door" = "Knock"
  - name: breaking in
    seed: 4
    choose: {At the door: Break it down}
    expect: [gold = 1]
properties:
  - name: no run fails
    seeds: 30
    rounds: 2
"""


def plan(folder, text, script=SCRIPT, name="door.test.yaml"):
    make_scenario(folder, script)
    return write(folder, name, text)


def test_a_passing_plan_reports_one_line_per_test_and_exits_0(tmp_path):
    path = plan(tmp_path, PASSING)
    outcome = drama("test", path)
    assert outcome.code == 0, outcome.output
    lines = outcome.stdout.splitlines()
    assert lines[0].strip("= ") == "drama test"
    assert lines[1:4] == [f"{path}::knocking pays PASSED", f"{path}::breaking in PASSED",
                          f"{path}::no run fails PASSED"]
    assert lines[-1].strip("= ") == "3 passed"
    quiet = drama("test", path, "-q")
    assert quiet.stdout.splitlines()[1] == f"{path} ..."


def test_a_failing_expectation_shows_the_actual_value_and_a_command_that_reproduces_it(tmp_path):
    path = plan(tmp_path, PASSING.replace("- gold = 2", "- gold = 3"))
    outcome = drama("test", path)
    assert outcome.code == 1
    assert f"{path}::knocking pays FAILED" in outcome.stdout
    assert outcome.stdout.splitlines()[-1].strip("= ") == "1 failed, 2 passed"
    failure = outcome.stdout.split(" FAILURES ", 1)[1]
    assert f"{path}:6:9: error[E801]: expected gold = 3" in failure
    assert "note: actual: gold is 2" in failure
    command = next(line for line in failure.splitlines() if line.startswith("reproduce: "))
    words = shlex.split(command[len("reproduce: "):])
    assert words[:2] == ["drama", "run"] and "--choose" in words
    reproduced = drama(*words[1:], "--format", "json")
    assert reproduced.code == 0 and '"value": 2' in reproduced.stdout


def test_a_run_that_fails_is_a_failed_test(tmp_path):
    path = plan(tmp_path, "scenario: scenario.yaml\ntests:\n  - name: nobody chooses\n")
    outcome = drama("test", path)
    assert outcome.code == 1
    assert "error[E330]: nobody made the choice 'At the door'" in outcome.stdout
    assert "reproduce: drama run " in outcome.stdout


def test_a_property_over_seeds_names_the_seed_that_breaks_it(tmp_path):
    path = plan(tmp_path, PASSING.replace("rounds: 2", "rounds: 1"))
    outcome = drama("test", path)
    assert outcome.code == 1
    assert f"{path}::no run fails FAILED" in outcome.stdout
    failure = outcome.stdout.split(" FAILURES ", 1)[1]
    assert "error[E803]: 'Throne Hall' reached round 2" in failure
    command = next(line for line in failure.splitlines() if line.startswith("reproduce: "))
    seed = shlex.split(command)[shlex.split(command).index("--seed") + 1]
    assert f"with the seed {seed}, one of the 30 seeds" in failure
    reproduced = drama(*shlex.split(command[len("reproduce: "):])[1:], "--format", "json")
    assert reproduced.code == 0 and '"round": 2' in reproduced.stdout


def test_a_property_expectation_that_fails_for_some_seed(tmp_path):
    path = plan(tmp_path, PASSING + "    expect: [gold = 2]\n")
    outcome = drama("test", path)
    assert outcome.code == 1 and "error[E801]: expected gold = 2" in outcome.stdout
    assert "--lenient" in outcome.stdout


def test_a_plan_with_a_play_log(tmp_path):
    log = DRAMA + 'choose "At the door", chose "Knock"\noption "Knock"\noption "Break it down"\nend\n' \
        "set gold = 2\nKara fireball -> Overlord, rolled 6 6\nOverlord defends, rolled 1\n"
    write(tmp_path, "session.drama", log)
    path = plan(tmp_path, "scenario: scenario.yaml\ntests:\n  - name: the first session\n"
                          "    script: session.drama\n    expect: [Overlord quintessence < 7, gold = 2]\n")
    outcome = drama("test", path)
    assert outcome.code == 0, outcome.output


def test_a_plan_that_cannot_be_read_is_e802_on_stderr(tmp_path):
    path = plan(tmp_path, "scenario: scenario.yaml\ntests:\n  - name: one\n    sede: 3\n")
    outcome = drama("test", path)
    assert outcome.code == 1
    assert f"{path}:4:5: error[E802]: unknown key 'sede' in a test" in outcome.stderr
    assert "did you mean 'seed'?" in outcome.stderr
    assert outcome.stdout.splitlines()[-1].strip("= ") == "0 passed, 1 error"


def test_plans_are_found_in_folders(tmp_path):
    plan(tmp_path / "a", PASSING)
    plan(tmp_path / "b", PASSING, name="other.test.yaml")
    outcome = drama("test", tmp_path)
    assert outcome.code == 0 and outcome.stdout.splitlines()[-1].strip("= ") == "6 passed"
    empty = tmp_path / "empty"
    empty.mkdir()
    outcome = drama("test", empty)
    assert outcome.code == 1 and "no test plans" in outcome.stderr


def test_the_bundled_adventure_with_choices_passes_its_tests():
    outcome = drama("test", SCENARIOS / "river-veyne")
    assert outcome.code == 0, outcome.output
    assert outcome.stdout.count("PASSED") >= 4
