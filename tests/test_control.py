"""Control flow: if/else, bounded loops, conditions, placeholders, play after
defeat, static checks, and the record of a run with control flow."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import dsl
from conftest import (EMBERFALL_SETTING, SCENARIOS, drama, final_states, make_scenario, of_type, printed_errors,
                      run_events, write)
from dsl.loader import bind
from dsl.pipeline import replay
from dsl.syntax.printer import normalise, record

DRAMA = 'drama "Throne Hall" with Kara, Bren, Overlord, Goblins\n'
# the setting with ties to the actor, so that seeded runs never stop on a vote
ACTOR_TIES = EMBERFALL_SETTING.replace("ties: vote", "ties: actor")


def events_of(folder, script: str, *args: str, setting: str = EMBERFALL_SETTING) -> list[dict]:
    make_scenario(folder, script, setting=setting)
    return run_events(folder / "scenario.yaml", *args)


def narrations(events: list[dict]) -> list[str]:
    return [e["text"] for e in of_type(events, "narration")]


def checked(folder, script: str, *args: str, setting: str = EMBERFALL_SETTING):
    make_scenario(folder, script, setting=setting)
    return drama("check", folder / "scenario.yaml", *args)


# ================================================================ if / else if / else

def test_if_runs_the_first_arm_whose_condition_holds(tmp_path):
    events = events_of(tmp_path, DRAMA +
                       "Kara fireball -> Goblins with Sorcery, rolled 6 2\n"     # Goblins lose 1 + 1
                       "if Goblins quintessence >= 4\n> full\n"
                       "else if Goblins quintessence >= 1\n> hurt\n"
                       "else\n> down\nend\n")
    assert narrations(events) == ["hurt"]
    branch = of_type(events, "branch")[0]
    assert branch["file"].endswith("script.drama")
    assert branch == {"type": "branch", "line": 3, "file": branch["file"], "taken": 5,
                      "condition": "Goblins quintessence >= 1"}


def test_else_runs_when_no_condition_holds_and_an_if_without_else_may_run_nothing(tmp_path):
    events = events_of(tmp_path, DRAMA + "if Kara is defeated\n> a\nelse\n> b\nend\n"
                                         "if Bren is defeated\n> c\nend\n")
    assert narrations(events) == ["b"]
    assert [(b["taken"], b["condition"]) for b in of_type(events, "branch")] == [(4, "else"), (None, None)]


def test_blocks_nest(tmp_path):
    events = events_of(tmp_path, DRAMA + "if in drama\nif round = 1\n> one\nelse\n> other\nend\n> after\nend\n")
    assert narrations(events) == ["one", "after"]


# ================================================================ conditions

CONDITIONS = [
    # (condition, holds) after: Kara (6) fireballs Goblins (4) with three sixes and wins:
    # Goblins lose 1 + 3 highs = 4 -> 0/4, defeated? no (they had 4 before)
    ("Goblins quintessence = 0", True),
    ("Goblins damage = 4", True),
    ("Goblins damage pool >= 4", True),
    ("Kara's quintessence = 6", True),
    ("Kara quintessence > Goblins quintessence", True),
    ("Goblins damage > Kara damage", True),
    ("Goblins is defeated", False),
    ("Goblins is not defeated", True),
    ("last exchange won", True),
    ("the last exchange was won", True),
    ("last exchange lost", False),
    ("last exchange double", True),
    ("last exchange was a double win", True),
    ("last exchange tied", False),
    ("Kara won last exchange", True),
    ("Goblins lost the last exchange", True),
    ("Goblins won last exchange", False),
    ("round = 1", True),
    ("round > 1", False),
    ("in drama", True),
    ("not in drama", False),
    ("Kara quintessence = 6 and Goblins quintessence = 0", True),
    ("Kara quintessence = 0 or Goblins quintessence = 0", True),
    ("not Goblins is defeated and round = 1", True),
    ("not (Kara quintessence = 6 and round = 1)", False),
    ("round = 2 or round = 1 and Kara is defeated", False),    # `and` binds tighter than `or`
    ("(round = 2 or round = 1) and Kara is not defeated", True),
    ("Bren can recover", True),                  # inside drama: a rushed recovery uses its action (R15)
    ("Kara can recover", False),                 # Kara has acted this round (R9)
    ("Goblins quintessence != 0", False),
]


@pytest.mark.parametrize("condition, holds", CONDITIONS)
def test_conditions_read_the_state(tmp_path, condition, holds):
    events = events_of(tmp_path, DRAMA + "Kara fireball -> Goblins with Sorcery, rolled 6 6 6\n"
                                         f"if {condition}\n> yes\nelse\n> no\nend\n")
    exchange = of_type(events, "exchange")[0]
    assert exchange["winner"] == "Kara" and exchange["double"]
    assert narrations(events) == ["yes" if holds else "no"]


def test_R7_was_defeated_outlives_the_situation_and_is_defeated_does_not(tmp_path):
    events = events_of(tmp_path, DRAMA +
                       "Kara fireball -> Goblins with Sorcery, rolled 6 6 6\n"
                       "Bren bash -> Goblins with Strength, rolled 1\n"
                       "end drama\n"
                       "if Goblins was defeated and Goblins is not defeated and Kara was not defeated\n"
                       "> they fell there\nend\n")
    assert of_type(events, "defeat")[0]["party"] == "Goblins"
    assert narrations(events) == ["they fell there"]


def test_nothing_holds_of_the_last_exchange_before_the_first(tmp_path):
    events = events_of(tmp_path, DRAMA + "if last exchange won or last exchange lost or Kara won last exchange\n"
                                         "> yes\nend\n")
    assert narrations(events) == []


def test_R14_can_recover_outside_drama_needs_calm(tmp_path):
    events = events_of(tmp_path, DRAMA + "Kara fireball -> Goblins with Sorcery, rolled 1 6\n"
                                         "end drama\n"
                                         "if Kara can recover\n> too soon\nend\n"
                                         "calm 1 hour\n"
                                         "if Kara can recover\nKara recovers, roll\nend\n"
                                         "if not Kara can recover\n> once a day\nend\n", "--seed", "3")
    assert narrations(events) == ["once a day"]
    assert len(of_type(events, "recovery")) == 1


def test_roles_in_conditions_and_a_party_called_like_a_keyword_is_quoted(tmp_path):
    cast = ("parties:\n  last:\n    quintessence: 3\n  Kara:\n    quintessence: 6\n"
            "    traits: {Sorcery: 3}\n")
    write(tmp_path, "setting.yaml", EMBERFALL_SETTING)
    write(tmp_path, "cast.yaml", cast)
    write(tmp_path, "script.drama", 'drama "Duel" with hero, "last"\n'
                                    'if "last" quintessence = 3 and hero quintessence = 6\n> ok\nend\n')
    write(tmp_path, "scenario.yaml", "title: T\nsetting: setting.yaml\ncast: cast.yaml\n"
                                     "script: script.drama\nroles:\n  hero: Kara\n")
    assert narrations(run_events(tmp_path / "scenario.yaml")) == ["ok"]


# ================================================================ loops

def test_repeat_until_stops_when_its_condition_holds(tmp_path):
    events = events_of(tmp_path, DRAMA +
                       "repeat until Goblins is defeated, at most 10 rounds\n"
                       "round\n"
                       "Kara fireball -> Goblins with Sorcery, rolled 6 6 6\n"
                       "end\n")
    loop = of_type(events, "loop")[0]
    # round 1: Goblins 4 -> 0; round 2: they lose at 0 and are defeated (R7)
    assert (loop["passes"], loop["ended"], loop["bound"]) == (2, "until", 10)
    assert [r["round"] for r in of_type(events, "round")] == [1, 2]


def test_a_loop_that_reaches_its_bound_ends_with_a_logged_event(tmp_path):
    events = events_of(tmp_path, DRAMA +
                       "repeat until Overlord is defeated, at most 3 rounds\n"
                       "round\n"
                       "Kara fireball -> Overlord with Sorcery, rolled 1\n"
                       "Overlord defends with Cunning, rolled 2\n"
                       "end\n> after\n")
    loop = of_type(events, "loop")[0]
    assert (loop["passes"], loop["ended"], loop["bound"]) == (3, "bound", 3)
    assert len(of_type(events, "action")) == 3
    assert narrations(events) == ["after"]
    text = drama("run", tmp_path / "scenario.yaml").stdout
    assert "repeat: 3 passes, its bound of 3 reached" in text


def test_repeat_n_times_and_an_until_that_holds_at_once(tmp_path):
    events = events_of(tmp_path, DRAMA + "repeat 3 times\n> again\nend\n"
                                         "repeat until in drama, at most 5 times\n> never\nend\n")
    assert narrations(events) == ["again"] * 3
    assert [(e["passes"], e["ended"]) for e in of_type(events, "loop")] == [(3, "count"), (0, "until")]


def test_R13_round_at_the_top_of_a_loop_begins_round_1_first(tmp_path):
    events = events_of(tmp_path, DRAMA + "initiative Kara 5, Bren 2, Overlord 6, Goblins 3\n"
                                         "repeat 2 times\nround\n> {round}\n"
                                         "Kara fireball -> Goblins with Sorcery, rolled 2\nend\n")
    assert narrations(events) == ["1", "2"]
    assert [(r["round"], r["time"]) for r in of_type(events, "round")] == [(1, 0), (2, 6)]


# ================================================================ exchanges and blocks

def test_a_double_win_option_may_come_inside_the_following_if(tmp_path):
    events = events_of(tmp_path, DRAMA + "Kara fireball -> Goblins with Sorcery, rolled 6 6 6\n"
                                         "if Kara won last exchange and last exchange double\n"
                                         'Kara dictates "the goblins flee"\nend\n')
    assert of_type(events, "option")[0]["text"] == "the goblins flee"


def test_a_defence_inside_an_if_after_its_action_is_refused(tmp_path):
    outcome = checked(tmp_path, DRAMA + "Kara fireball -> Goblins with Sorcery, rolled 6\n"
                                        "if round = 1\nGoblins defend with Numbers, rolled 2\nend\n")
    assert outcome.code == 1
    [error] = printed_errors(outcome.stderr)
    assert (error.code, error.line) == ("E002", 4)
    assert "in the same block" in error.message


# ================================================================ play after defeat

DEFEAT_GOBLINS = ("Kara fireball -> Goblins with Sorcery, rolled 6 6 6\n"
                  "Bren bash -> Goblins with Strength, rolled 1\n")


def test_R7_inside_a_block_a_defeated_partys_lines_are_skipped_with_an_event(tmp_path):
    events = events_of(tmp_path, DRAMA + DEFEAT_GOBLINS +
                       "round\n"
                       "if round = 2\n"
                       "Goblins stab -> Kara with Numbers, rolled 3\n"
                       "Kara defends with Agility, rolled 2\n"
                       "Overlord crush -> Kara +Goblins with Brutality, rolled 4\n"
                       "Goblins defend with Numbers, rolled 5\n"
                       "Kara defends with Agility, rolled 2\n"
                       "end\n")
    skipped = of_type(events, "skipped")
    # (point 15: the defeated Goblins are no longer a target of the Overlord's crush)
    assert [(s["line"], s["party_ids"], s["why"]) for s in skipped] == [(6, ["Goblins"], "defeated"),
                                                                        (8, ["Goblins"], "target defeated"),
                                                                        (9, ["Goblins"], "defeated")]
    # the skipped defence is logged after its exchange
    kinds = [e["type"] for e in events]
    last_exchange = len(kinds) - 1 - kinds[::-1].index("exchange")
    assert kinds[last_exchange + 1] == "skipped" and events[last_exchange + 1]["line"] == 9
    overlord = of_type(events, "exchange")[-1]
    assert overlord["defender"] == "Kara" and overlord["winner"] == "Overlord"


def test_R7_a_defeated_helper_is_dropped_from_a_recovery_inside_a_block(tmp_path):
    events = events_of(tmp_path, DRAMA + DEFEAT_GOBLINS + "round\nif round = 2\n"
                                         "Kara recovers, helped by Goblins with Numbers, roll\nend\n")
    assert of_type(events, "skipped")[0]["party_ids"] == ["Goblins"]
    assert of_type(events, "recovery")[0]["helpers"] == []


def test_last_exchange_is_one_of_the_running_situation(tmp_path):
    events = events_of(tmp_path, DRAMA + "Kara fireball -> Goblins with Sorcery, rolled 6 2\n"
                                         "if last exchange won\n> in\nend\n"
                                         "end drama\n"
                                         "if last exchange won\n> after\nend\n")
    assert narrations(events) == ["in"]


def test_a_bad_if_line_does_not_leave_its_end_stray(tmp_path):
    outcome = checked(tmp_path, DRAMA + "if Kara is defated\n> a\nend\n")
    assert [(e.code, e.line) for e in printed_errors(outcome.stderr)] == [("E001", 2)]


def test_R7_outside_control_flow_a_defeated_party_acting_is_still_an_error(tmp_path):
    outcome = checked(tmp_path, DRAMA + DEFEAT_GOBLINS + "round\nGoblins stab -> Kara with Numbers, rolled 3\n")
    assert outcome.code == 1 and "error[E307]" in outcome.stderr


def test_R10_a_joint_action_goes_on_without_its_defeated_participants(tmp_path):
    events = events_of(tmp_path, DRAMA + DEFEAT_GOBLINS + "round\nrepeat 1 times\n"
                                         'Goblins & Overlord "swarm" -> Kara\n'
                                         "  Goblins with Numbers, rolled 2\n"
                                         "  Overlord with Cunning, rolled 4\n"
                                         "end\n")
    assert of_type(events, "skipped")[0]["party_ids"] == ["Goblins"]
    action = of_type(events, "action")[-1]
    assert action["actors"] == ["Overlord"]


# ================================================================ placeholders

def test_placeholders_fill_in_names_and_the_state(tmp_path):
    events = events_of(tmp_path, DRAMA + "Kara fireball -> Goblins with Sorcery, rolled 6 6 6\n"
                                         "> {Goblins.members} have {Goblins.quintessence} of {Goblins.maximum}; "
                                         "{Goblins.damage} lost in {drama}, round {round}. {{braces}}\n"
                                         'Kara dictates "{ Kara } wins"\n'
                                         'end drama "{Kara.id} stands"\n')
    assert narrations(events) == ["Snik, Grub and Mox have 0 of 4; 4 lost in Throne Hall, round 1. {braces}"]
    assert of_type(events, "option")[0]["text"] == "Kara the Ember-Witch wins"
    assert of_type(events, "drama_end")[0]["text"] == "Kara stands"


def test_an_unknown_placeholder_is_an_error_with_a_suggestion(tmp_path):
    outcome = checked(tmp_path, DRAMA + "> {Overlrd} laughs at {Kara.quintesence} and {\n")
    assert outcome.code == 1
    errors = printed_errors(outcome.stderr)
    assert [(e.code, e.line, e.col) for e in errors] == [("E205", 2, 3), ("E205", 2, 23), ("E205", 2, 46)]
    assert errors[0].help == "did you mean 'Overlord'?"
    assert errors[1].help == "did you mean 'quintessence'?"
    assert drama("run", tmp_path / "scenario.yaml").code == 1


# ================================================================ checking every branch

def test_check_finds_an_error_in_a_branch_the_dice_never_reach(tmp_path):
    script = DRAMA + "if Kara is defeated\nKara fireball -> Overlrd with Sorcry\nGoblns defend\nend\n"
    outcome = checked(tmp_path, script)
    assert outcome.code == 1
    assert [(e.code, e.line) for e in printed_errors(outcome.stderr)] == [("E201", 3), ("E202", 3), ("E201", 4)]
    run = drama("run", tmp_path / "scenario.yaml")
    assert run.code == 1 and "error[E201]" in run.stderr and run.stdout == ""


def test_check_warns_of_what_can_never_run_and_still_passes(tmp_path):
    outcome = checked(tmp_path, DRAMA +
                      "if Kara quintessence > 6\n> never\n"
                      "else if round >= 0\n> always\n"
                      "else\n> never either\nend\n"
                      "if Kara is defeated\n> a\nelse if Kara is defeated\n> b\nend\n"
                      "repeat until Goblins damage > 4, at most 2 times\n> x\nend\n"
                      "repeat until Goblins is defeated, at most 2 rounds\n> y\nend\n"
                      "repeat 0 times\n> z\nend\n")
    assert outcome.code == 0, outcome.output
    found = [(e.code, e.line) for e in printed_errors(outcome.stderr)]
    assert found == [("W001", 2), ("W001", 6), ("W001", 11), ("W002", 14), ("W003", 17), ("W001", 20)]
    assert "warning[W001]: this arm never runs: 'Kara quintessence > 6' can never hold" in outcome.stderr
    assert outcome.stdout.endswith(": ok\n")
    assert drama("run", tmp_path / "scenario.yaml").code == 0


@pytest.mark.parametrize("script, message, line", [
    ("end\n", "`end` without an `if`, `repeat` or `choose`", 2),
    ("else\n", "`else` without an `if`", 2),
    ("if round = 1\n> a\n", "this `if` has no `end`", 2),
    ("if round = 1\nelse\nelse\nend\n", "`else` after the `else` of this `if`", 4),
    ("repeat 2 times\nif round = 1\nend\n", "this `repeat` has no `end`", 2),
])
def test_E004_blocks_must_close(tmp_path, script, message, line):
    outcome = checked(tmp_path, DRAMA + script)
    assert outcome.code == 1
    error = printed_errors(outcome.stderr)[0]
    assert (error.code, error.message, error.line) == ("E004", message, line)


def test_E004_a_stray_end_names_every_block_it_could_close(tmp_path):
    # the message names `if`, `repeat` and `choose`; what it expects must name the same three
    outcome = checked(tmp_path, DRAMA + "end\n")
    error = printed_errors(outcome.stderr)[0]
    assert error.expected == "`if`, `repeat` or `choose` on an earlier line", outcome.stderr
    assert error.help == "a dramatic situation ends with `end drama`"


def test_E002_an_indented_statement_in_a_block_is_told_to_go_flush_left(tmp_path):
    outcome = checked(tmp_path, DRAMA + "repeat 2 times\n  Kara fireball -> Goblins, roll\nend\n")
    error = printed_errors(outcome.stderr)[0]
    assert (error.code, error.line, error.col) == ("E002", 3, 3)
    assert error.help.startswith("write it flush left")


def test_E005_a_loop_needs_a_bound(tmp_path):
    outcome = checked(tmp_path, DRAMA + "repeat until Kara is defeated\n> a\nend\n"
                                        "repeat until Kara is defeated, at most 3 rouns\nend\n")
    errors = printed_errors(outcome.stderr)
    assert [(e.code, e.line) for e in errors] == [("E005", 2), ("E005", 5)]     # and no stray `end`
    assert errors[0].help == "repeat until Kara is defeated, at most 20 rounds"
    assert errors[1].help == "did you mean 'rounds'?"


def test_includes_inside_a_block_are_read_in_place(tmp_path):
    make_scenario(tmp_path, DRAMA + 'if round = 1\ninclude "scenes/inner.drama"\nend\n')
    write(tmp_path, "scenes/inner.drama", "> inside\nif in drama\n> deeper\nend\n")
    assert narrations(run_events(tmp_path / "scenario.yaml")) == ["inside", "deeper"]
    write(tmp_path, "scenes/inner.drama", "> inside\nif in drama\n> deeper\n")
    outcome = drama("check", tmp_path / "scenario.yaml")
    error = printed_errors(outcome.stderr)[0]
    assert (error.code, error.line) == ("E004", 2) and error.where.endswith("inner.drama")


# ================================================================ the Ashen Pass

ASHEN = SCENARIOS / "ashen-pass"


@pytest.mark.parametrize("cast", ["with-embers", "with-wanderers"])
def test_the_ashen_pass_checks_clean_and_runs_with_any_seed(cast):
    path = ASHEN / f"{cast}.yaml"
    outcome = drama("check", path)
    assert outcome.code == 0 and outcome.stderr == "", outcome.output
    scenario = bind(dsl.load(path), None, None)
    taken = set()
    for seed in range(40):
        events = dsl.play(scenario, seed=seed)
        assert events[-1]["type"] == "final"
        taken.update((e["line"], e["taken"]) for e in events if e["type"] == "branch")
        for loop in of_type(events, "loop"):
            assert loop["passes"] <= loop["bound"]
    # both ways through scene three are taken over these seeds
    assert {(48, 48), (48, 50)} <= taken


def test_the_skirmish_loop_runs_to_its_end_with_any_seed():
    """The bundled encounter for `drama simulate` is a loop of at most ten
    rounds: it ends when a side is down, or at its bound, without an error."""
    scenario = bind(dsl.load(SCENARIOS / "skirmish" / "scenario.yaml"), None, None)
    ended = set()
    for seed in range(30):
        events = dsl.play(scenario, seed=seed)
        [loop] = of_type(events, "loop")
        assert 1 <= loop["passes"] <= 10
        ended.add(loop["ended"])
        assert of_type(events, "drama_end")[0]["rounds"] == loop["passes"]
    assert ended == {"until", "bound"}


def test_the_ashen_pass_plays_differently_with_the_two_casts():
    embers = run_events(ASHEN / "with-embers.yaml", "--seed", "5")
    wanderers = run_events(ASHEN / "with-wanderers.yaml", "--seed", "5")
    assert set(final_states(embers)) == {"Kara", "Bren", "wolves", "warlord"}
    assert set(final_states(wanderers)) == {"Ysolde", "Anselm", "wolves", "warlord"}
    assert "Kara the Ember-Witch and Bren Ironhand" in narrations(embers)[0]
    assert "Ysolde of the Seven Blades and Brother Anselm" in narrations(wanderers)[0]


@pytest.mark.parametrize("seed", [0, 1, 7])
def test_the_record_of_a_run_with_control_flow_is_its_straight_line_trace(tmp_path, seed):
    path = ASHEN / "with-embers.yaml"
    events = dsl.run(path, seed=seed)
    text = record(events, scenario=path)
    control = [line for line in text.splitlines()
               if line == "end" or line.split(" ")[0] in ("if", "else", "repeat")]
    assert control == []
    assert "{" not in text.replace("{{", "")
    replayed = replay(path, text, seed=seed)
    assert normalise(replayed) == normalise(events)


# ================================================================ every run ends, within its bounds

CONDITION_TEXTS = ["Goblins is defeated", "Kara quintessence < 3", "round >= 2", "last exchange won",
                   "Kara won last exchange", "not in drama", "Goblins damage > Kara damage",
                   "Kara is not defeated and Goblins quintessence > 0", "Kara can recover"]


@st.composite
def _conditions(draw):
    return draw(st.sampled_from(CONDITION_TEXTS))


@st.composite
def _round_loop(draw, depth: int):
    """A loop of rounds: `round`, each party at most one action (maybe under an
    `if`), then narration, `if`s and perhaps a nested loop of the same shape."""
    bound = draw(st.integers(0, 4))
    head = (f"repeat until {draw(_conditions())}, at most {bound} rounds" if draw(st.booleans())
            else f"repeat {bound} times")
    lines = [head, "round"]
    for actor, target in (("Kara", "Goblins"), ("Goblins", "Kara")):
        if draw(st.booleans()):
            action = [f"{actor} strike -> {target}, roll", f"{target} defends, roll"]
            if draw(st.booleans()):
                action = [f"if {draw(_conditions())}", *action, "else", "> {round}: " + actor + " waits", "end"]
            lines += action
    if draw(st.booleans()):
        lines += [f"if {draw(_conditions())}", "> {Kara} has {Kara.quintessence}", "end"]
    if depth < 2 and draw(st.booleans()):
        lines += draw(_round_loop(depth + 1))
    lines.append("end")
    return lines


@given(loops=st.lists(_round_loop(0), min_size=1, max_size=3), seed=st.integers(0, 2**32))
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_any_script_with_conditions_and_loops_ends_within_its_bounds(tmp_path, loops, seed):
    script = 'drama "Brawl" with Kara, Goblins\ninitiative\n' + "\n".join(sum(loops, [])) + "\nend drama\n"
    cast = ("parties:\n  Kara:\n    quintessence: 6\n    traits: {Sorcery: 3}\n"
            "    moves: {strike: Sorcery, defend: Sorcery}\n"
            "  Goblins:\n    quintessence: 4\n    traits: {Numbers: 2}\n"
            "    moves: {strike: Numbers, defend: Numbers}\n")
    write(tmp_path, "setting.yaml", ACTOR_TIES)
    write(tmp_path, "cast.yaml", cast)
    write(tmp_path, "script.drama", script)
    write(tmp_path, "scenario.yaml", "title: T\nsetting: setting.yaml\ncast: cast.yaml\nscript: script.drama\n")
    events = dsl.run(tmp_path / "scenario.yaml", seed=seed)
    assert events[-1]["type"] == "final"
    bounds = [int(re.search(r"(\d+) (?:rounds|times)", line).group(1))
              for line in script.splitlines() if line.startswith("repeat")]
    for loop in of_type(events, "loop"):
        assert loop["passes"] <= loop["bound"]
        assert loop["ended"] in ("until", "count", "bound")
        assert loop["ended"] != "bound" or loop["passes"] == loop["bound"]
    # nothing runs more often than the product of the bounds of the loops around it
    most = 1
    for bound in bounds:
        most *= max(bound, 1)
    assert len(of_type(events, "action")) <= 2 * most * len(bounds)
    assert json.dumps(events)        # the log is plain data
