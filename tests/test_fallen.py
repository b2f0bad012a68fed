"""RULES.md point 15: the fallen are out of the situation.

An aggressive action aimed only at defeated parties is skipped inside control
flow, with its defences, ties, splits and options, and is a script error
(E321) at the top level; one that names standing and defeated targets goes
on against the standing ones only, the first standing one its target, each
other an extra target (R4), so a defeated target costs nothing. The same in
`drama run`, in `drama simulate`'s fast path and at the table.
"""

from __future__ import annotations

from conftest import EMBERFALL_SETTING, drama, make_scenario, of_type, printed_errors, run_events
from dsl.interpreter import SIMULATE
from dsl.pipeline import Program
from dsl.table.core import Table

DRAMA = 'drama "Throne Hall" with Kara, Bren, Overlord, Goblins\n'
DEFEAT_GOBLINS = ("Kara fireball -> Goblins with Sorcery, rolled 6 6 6\n"
                  "Bren bash -> Goblins with Strength, rolled 1\n")
ACTOR_TIES = EMBERFALL_SETTING.replace("ties: vote", "ties: actor")


def events_of(folder, script: str, *args: str) -> list[dict]:
    make_scenario(folder, script)
    return run_events(folder / "scenario.yaml", *args)


def test_point_15_inside_a_block_an_action_aimed_only_at_the_fallen_is_skipped_with_what_answers_it(tmp_path):
    events = events_of(tmp_path, DRAMA + DEFEAT_GOBLINS + "round\n"
                                 "repeat 1 times\n"
                                 "Overlord crush -> Goblins with Brutality, rolled 6 6\n"    # line 6
                                 "Goblins defend with Numbers, rolled 1\n"
                                 "tie Overlord\n"
                                 "split Goblins 1\n"
                                 'Overlord dictates "they scatter"\n'
                                 "end\n"
                                 "Overlord crush -> Kara with Brutality, rolled 2\n"          # he has not acted (R9)
                                 "Kara defends with Agility, rolled 5\n")
    assert [(s["line"], s["party_ids"], s["why"]) for s in of_type(events, "skipped")] == \
        [(6, ["Goblins"], "target defeated")]
    round_two = events[[e["type"] for e in events].index("round"):]
    assert [e["type"] for e in round_two if e["type"] in ("action", "exchange", "option", "defeat")] == \
        ["action", "exchange"]
    assert of_type(round_two, "action")[0]["target"] == "Kara"


def test_point_15_an_action_at_standing_and_fallen_targets_goes_on_against_the_standing_only(tmp_path):
    events = events_of(tmp_path, DRAMA + DEFEAT_GOBLINS + "round\n"
                                 "if round = 2\n"
                                 "Overlord sweep -> Goblins +Kara with Brutality, rolled 4\n"   # line 6
                                 "Goblins defend with Numbers, rolled 1\n"
                                 "Kara defends with Agility, rolled 2\n"
                                 "end\n")
    action = of_type(events, "action")[-1]
    # the first standing target is the target; the fallen one costs nothing (R4)
    assert (action["target"], action["extra_targets"], action["spent"]) == ("Kara", [], {})
    assert [(s["line"], s["party_ids"], s["why"]) for s in of_type(events, "skipped")] == \
        [(6, ["Goblins"], "target defeated"), (7, ["Goblins"], "defeated")]
    assert of_type(events, "exchange")[-1]["defender"] == "Kara"


def test_point_15_at_the_top_level_the_standing_targets_only_and_an_extra_target_stays_one(tmp_path):
    events = events_of(tmp_path, DRAMA + DEFEAT_GOBLINS + "round\n"
                                 "Overlord sweep -> Kara +Goblins +Bren with Brutality, rolled 4\n"
                                 "Kara defends with Agility, rolled 2\n"
                                 "Bren defends with Strength, rolled 3\n")
    action = of_type(events, "action")[-1]
    assert (action["target"], action["extra_targets"]) == ("Kara", ["Bren"])
    assert action["spent"] == {"Overlord": 1}         # one extra target, Bren (R4); Goblins cost nothing
    assert of_type(events, "skipped")[0]["why"] == "target defeated"


def test_point_15_at_the_top_level_an_action_aimed_only_at_the_fallen_is_error_E321(tmp_path):
    make_scenario(tmp_path, DRAMA + DEFEAT_GOBLINS + "round\nOverlord crush -> Goblins with Brutality, rolled 4\n")
    for command in ("run", "check"):
        outcome = drama(command, tmp_path / "scenario.yaml")
        assert outcome.code == 1
        errors = [e for e in printed_errors(outcome.stderr) if e.code == "E321"]
        assert [(e.line, e.col) for e in errors] == [(5, 19)], outcome.stderr
        assert "(point 15)" in outcome.stderr


def test_point_15_the_simulate_fast_path_skips_as_the_interpreter_does(tmp_path):
    script = (DRAMA + "initiative\n"
              "repeat 12 times\n"
              "Kara fireball -> Goblins +Overlord, roll\nGoblins defend, roll\nOverlord defends, roll\n"
              "Bren bash -> Goblins, roll\nGoblins defend, roll\n"
              "Overlord crush -> Goblins, roll\nGoblins defend, roll\n"
              "round\nend\n")
    program = Program.compile(make_scenario(tmp_path, script, setting=ACTOR_TIES))
    assert program.fast_path()[0] is not None
    aimed = 0
    for seed in range(8):
        fast = program.run(seed=seed, mode=SIMULATE)
        slow = program.interpreter(seed=seed, mode=SIMULATE).run(program.script)
        assert fast == slow
        aimed += sum(e["why"] == "target defeated" for e in of_type(fast, "skipped"))
    assert aimed                   # the seeds did strike at the fallen


def test_point_15_the_table_skips_an_action_aimed_only_at_the_fallen(tmp_path):
    scenario = make_scenario(tmp_path, DRAMA + DEFEAT_GOBLINS + "round\n"
                                       "repeat 1 times\n"
                                       "Overlord crush -> Goblins with Brutality, rolled 6 6\n"
                                       "Goblins defend with Numbers, rolled 1\n"
                                       "end\n")
    table = Table.start(Program.compile(scenario), str(tmp_path / "j.drama"), seed=1)
    for _ in range(4):
        table.play_script()
    assert table.next_statement().pos.line == 6
    assert table.skippable() == ["Goblins"]
