"""A script names the quarry of a chase or an escape (`, a chase after Orm`, `, an
escape by Orm & Crew`), where the transcript could not tell who runs from who acts
on whom (issue 23): the drama event carries it, `drama fmt` and `--record` write it
back, and E353 refuses a quarry that cannot be one, without failing what follows."""

from __future__ import annotations

import re

from dsl.render.story import read_story
from conftest import drama, make_scenario, of_type, printed_errors, run_events, write

# Bren acts first and on Kara: without a name, the guess makes Kara the quarry
CHASE = ('drama "The Long Stair" with Kara, Bren, a chase after Bren\n'
         "Bren bolt -> Kara with Strength, rolled 6 5\n"
         "Kara defends with Agility, rolled 2\n"
         "end drama\n")


def test_the_drama_event_carries_the_quarry_the_script_names(tmp_path):
    events = run_events(make_scenario(tmp_path, CHASE))
    (begun,) = of_type(events, "drama")
    assert (begun["kind"], begun["quarry"]) == ("chase", ["Bren"])
    without = run_events(make_scenario(tmp_path, CHASE.replace(" after Bren", "")))
    assert "quarry" not in of_type(without, "drama")[0]          # (logs without one are as before)


def test_the_story_takes_the_named_quarry_as_the_one_who_runs(tmp_path):
    named = read_story(run_events(make_scenario(tmp_path, CHASE))).situations[0]
    assert (named.quarry, named.pursuers, named.quarry_named) == (("Bren",), ("Kara",), True)
    # Bren wins the exchange as the quarry: he gets away, he does not run Kara down
    told = drama("run", tmp_path / "scenario.yaml", "--as", "transcript").stdout
    assert re.search(r"Bren (gets clear|leaves Kara far behind|opens a wide gap on Kara)|Kara is left standing|"
                     r"Kara loses sight of Bren", told), told
    assert not re.search(r"Bren (gains on|closes|is right on top of) Kara", told), told


def test_fmt_and_record_write_the_quarry_back(tmp_path):
    script = ('drama   "The Quay" with Kara, Bren, Goblins,  an escape by Kara &  Goblins\n'
              "Kara fireball -> Bren with Sorcery, rolled 6\n"
              "Bren defends with Strength, rolled 2\n")
    make_scenario(tmp_path, script)
    assert drama("fmt", tmp_path / "script.drama").code == 0
    assert (tmp_path / "script.drama").read_text().splitlines()[0] == \
        'drama "The Quay" with Kara, Bren, Goblins, an escape by Kara & Goblins'
    recorded = tmp_path / "recorded.drama"
    assert drama("run", tmp_path / "scenario.yaml", "--record", recorded).code == 0
    assert "an escape by Kara & Goblins" in recorded.read_text()
    write(tmp_path, "replay.yaml", "title: T\nsetting: setting.yaml\ncast: cast.yaml\nscript: recorded.drama\n")
    assert of_type(run_events(tmp_path / "replay.yaml"), "drama")[0]["quarry"] == ["Kara", "Goblins"]


def test_e353_a_quarry_that_cannot_be_one_is_reported_once_and_the_situation_still_begins(tmp_path):
    for line, message in [(', a fight after Bren', "a fight has no quarry"),
                          (', a chase after Overlord', "the quarry Overlord is not one of the parties")]:
        make_scenario(tmp_path, CHASE.replace(", a chase after Bren", line))
        outcome = drama("check", tmp_path / "scenario.yaml")
        assert outcome.code == 1
        errors = printed_errors(outcome.output)
        assert [(e.code, e.line) for e in errors] == [("E353", 1)], outcome.output
        assert message in errors[0].message
