"""End to end: every error code of `dsl.errors.CODES`, triggered through
`drama check` or `drama run`, with its `file:line:col`, message, source line and
caret, `expected:` and `help: did you mean` lines, and exit status; and the
command line's own errors (usage errors exit 2, never a traceback).

Each test runs in tmp_path as the working directory, so positions print as
`script.drama:3:18`.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from conftest import (EMBERFALL_CAST, EMBERFALL_SETTING, ERROR_HEAD, Printed, assert_caret, drama, drama_process,
                      make_scenario, only_error_lines, printed_errors, run_events, scenario_yaml, write)
from dsl.errors import CODES

DRAMA = 'drama "Throne Hall" with Kara, Bren, Overlord, Goblins\n'

def check(folder: Path, script: str, *args: str, **kwargs):
    make_scenario(folder, script, **kwargs)
    return drama("check", "scenario.yaml", *args)


def run(folder: Path, script: str, *args: str, **kwargs):
    make_scenario(folder, script, **kwargs)
    return drama("run", "scenario.yaml", *args)


def one_error(outcome, code: str, where: str, message: str, *, expected: str | None = None,
              help: str | None = None, source: Path | None = None) -> Printed:
    """The outcome failed (exit 1) with exactly one error, as given; its source
    line and caret are checked against the file."""
    assert outcome.code == 1, outcome.output
    assert outcome.stdout == ""
    only_error_lines(outcome.stderr)
    errors = printed_errors(outcome.stderr)
    assert len(errors) == 1, outcome.stderr
    (error,) = errors
    assert (f"{error.where}:{error.line}:{error.col}", error.code, error.message) == (where, code, message), \
        outcome.stderr
    if expected is not None:
        assert error.expected == expected, outcome.stderr
    if help is not None:
        assert error.help == help, outcome.stderr
    path = source or Path(error.where)
    assert_caret(error, path.read_text(encoding="utf-8").split("\n")[error.line - 1])
    assert "Traceback" not in outcome.output
    return error


# ---------------------------------------------------------------------------
# the script's syntax (E001, E002)

def test_e001_unexpected_token(in_tmp):
    outcome = check(in_tmp, DRAMA + "Kara fireball -> Bren ->\n")
    one_error(outcome, "E001", "script.drama:2:23", "unexpected '->' after 'Bren'",
              expected="'but not', 'so that', '+', 'with', ',' or end of line")


def test_e001_misspelt_keyword_did_you_mean(in_tmp):
    outcome = check(in_tmp, DRAMA + "Kara fireball -> Bren, roled 6\n")
    one_error(outcome, "E001", "script.drama:2:24", "unexpected 'roled' after ','",
              expected="'GM', 'rolled' or 'roll'", help="did you mean 'rolled'?")


def test_e001_misspelt_statement_did_you_mean(in_tmp):
    outcome = check(in_tmp, DRAMA + "intiative\n")
    one_error(outcome, "E001", "script.drama:2:10", "unexpected end of line after 'intiative'",
              help="did you mean 'initiative'?")


def test_e001_misspelt_verb_did_you_mean(in_tmp):
    outcome = check(in_tmp, DRAMA + "Kara fireball -> Bren, rolled 6\nBren defnds with Strength\n")
    one_error(outcome, "E001", "script.drama:3:26", "unexpected end of line after 'Strength'",
              expected="'->' or 'vs'", help="did you mean 'defends'?")


def test_e001_unterminated_quote(in_tmp):
    outcome = check(in_tmp, 'scene "The Throne Hall\n')
    one_error(outcome, "E001", "script.drama:1:7", "unterminated quote after 'scene'",
              help='end the quoted text with " on the same line')


def test_e001_number_too_large(in_tmp):
    outcome = check(in_tmp, DRAMA + "Kara fireball -> Bren, rolled 1234567890\n")
    one_error(outcome, "E001", "script.drama:2:31", "the number 1234567890 is too large",
              help="numbers in a script have at most 9 digits")


def test_e002_indented_line_in_the_wrong_place(in_tmp):
    outcome = check(in_tmp, DRAMA + "Kara fireball -> Bren\n  Kara with Sorcery\n")
    one_error(outcome, "E002", "script.drama:3:3", "an indented line must follow a joint action or defence")


def test_e002_defence_without_an_action(in_tmp):
    outcome = check(in_tmp, DRAMA + "Bren defends with Strength\n")
    one_error(outcome, "E002", "script.drama:2:1", "a defence must follow the aggressive action it answers",
              expected="an action (`NAME INTENT -> TARGET ...`) just before it")


def test_e002_joint_action_without_participant_lines(in_tmp):
    outcome = check(in_tmp, DRAMA + 'Kara & Bren "pin him" -> Overlord\n')
    error = one_error(outcome, "E002", "script.drama:2:1",
                      "each party of a joint action needs its own indented line (Kara, Bren)")
    assert error.help == "add one indented line per party below it, such as '  Kara with ...'"


def test_e002_second_drama_while_one_runs(in_tmp):
    outcome = check(in_tmp, DRAMA + 'drama "Second" with Kara\n')
    one_error(outcome, "E002", "script.drama:2:1", "'Second' cannot begin while 'Throne Hall' is still running",
              expected="end drama before a new dramatic situation")


# ---------------------------------------------------------------------------
# YAML (E101-E110)

def test_e101_yaml_that_cannot_be_read(in_tmp):
    outcome = check(in_tmp, DRAMA, setting="name: Sword: and Sorcery\nround: 6 seconds\n")
    one_error(outcome, "E101", "setting.yaml:1:12", "invalid YAML: mapping values are not allowed here")


def test_e102_duplicate_key(in_tmp):
    outcome = check(in_tmp, DRAMA, setting=EMBERFALL_SETTING + "round: 5 seconds\n")
    error = one_error(outcome, "E102", "setting.yaml:8:1", "duplicate key 'round'")
    assert "  note: 'round' is first given at line 2, column 1" in error.body


def test_e103_unknown_key_did_you_mean(in_tmp):
    cast = EMBERFALL_CAST.replace("    quintessence: 5\n", "    quintesence: 5\n")
    outcome = check(in_tmp, DRAMA, cast=cast)
    errors = printed_errors(outcome.stderr)
    assert outcome.code == 1
    unknown = [e for e in errors if e.code == "E103"]
    assert len(unknown) == 1
    (error,) = unknown
    assert (error.where, error.line, error.col) == ("cast.yaml", 11, 5)
    assert error.message == "unknown key 'quintesence' in the party 'Bren'"
    assert error.expected == ("'name', 'quintessence', 'traits', 'treasures', 'members', 'moves', 'hidden', "
                              "'short', 'pronouns', 'clauses', 'names' or 'grammar'")
    assert error.help == "did you mean 'quintessence'?"
    assert_caret(error, "    quintesence: 5")
    # the key it lacks is reported as well, in the same pass
    assert [e.code for e in errors] == ["E103", "E105"]


def test_e103_unknown_setting_key_did_you_mean(in_tmp):
    outcome = check(in_tmp, DRAMA, setting=EMBERFALL_SETTING.replace("full_rest:", "fullrest:"))
    one_error(outcome, "E103", "setting.yaml:5:1", "unknown key 'fullrest' in the setting",
              expected="'name', 'round', 'recovery', 'calm', 'full_rest', 'dice' or 'ties'",
              help="did you mean 'full_rest'?")


def test_e104_value_of_the_wrong_form_did_you_mean(in_tmp):
    outcome = check(in_tmp, DRAMA, setting=EMBERFALL_SETTING.replace("ties: vote", "ties: votes"))
    one_error(outcome, "E104", "setting.yaml:7:7", "'votes' is not a choice for 'ties'",
              expected="'vote', 'actor', 'defender' or 'random'", help="did you mean 'vote'?")


def test_e105_required_key_missing(in_tmp):
    make_scenario(in_tmp, DRAMA)
    write(in_tmp, "scenario.yaml", "title: Test\nsetting: setting.yaml\ncast: cast.yaml\n")
    outcome = drama("check", "scenario.yaml")
    one_error(outcome, "E105", "scenario.yaml:1:1", "the scenario needs 'script'",
              expected="script: a .drama file, or an inline block `script: |`")


def test_e106_python_tag_is_refused_and_nothing_runs(in_tmp):
    marker = in_tmp / "executed"
    setting = EMBERFALL_SETTING.replace(
        "ties: vote", f'ties: !!python/object/apply:os.system ["touch {marker}"]')
    for command in ("check", "run"):
        make_scenario(in_tmp, DRAMA, setting=setting)
        outcome = drama(command, "scenario.yaml")
        error = one_error(outcome, "E106", "setting.yaml:7:7",
                          "the YAML tag '!!python/object/apply:os.system' is not allowed")
        assert error.help.startswith("these files hold plain YAML values only")
        assert not marker.exists()


def test_e106_python_object_tag_in_the_cast(in_tmp):
    cast = EMBERFALL_CAST.replace("    quintessence: 6\n", "    quintessence: !!python/object:os.urandom 6\n")
    outcome = check(in_tmp, DRAMA, cast=cast)
    errors = printed_errors(outcome.stderr)
    assert outcome.code == 1
    assert errors[0].code == "E106" and (errors[0].where, errors[0].line, errors[0].col) == ("cast.yaml", 4, 19)


def test_e107_duration(in_tmp):
    outcome = check(in_tmp, DRAMA, setting=EMBERFALL_SETTING.replace("round: 6 seconds", "round: six seconds"))
    one_error(outcome, "E107", "setting.yaml:2:8", "'six seconds' is not a duration",
              expected="a whole number and a unit: seconds, minutes, hours, days or weeks "
                       "(e.g. '6 seconds')")


def test_e108_missing_cast_file(in_tmp):
    make_scenario(in_tmp, "# nothing\n")
    write(in_tmp, "scenario.yaml", scenario_yaml("script.drama", cast="heroes.yaml"))
    outcome = drama("check", "scenario.yaml")
    one_error(outcome, "E108", "scenario.yaml:3:7", "cannot find the cast file 'heroes.yaml'",
              help="paths are relative to the scenario's folder ('.')")


def test_e108_missing_scenario_file(in_tmp):
    for command in ("check", "run"):
        outcome = drama(command, "nowhere.yaml")
        assert outcome.code == 1
        assert "error[E108]: cannot find the scenario file 'nowhere.yaml'" in outcome.stderr
        only_error_lines(outcome.stderr)


def test_a_missing_scenario_file_is_reported_once(in_tmp):
    outcome = drama("check", "nowhere.yaml")
    assert outcome.stderr == "error[E108]: cannot find the scenario file 'nowhere.yaml'\n"


def test_a_scenario_yaml_syntax_error_is_reported_once(in_tmp):
    write(in_tmp, "scenario.yaml", "title: [The Fall\n")
    outcome = drama("check", "scenario.yaml")
    assert outcome.code == 1
    assert len(printed_errors(outcome.stderr)) == 1, outcome.stderr
    assert "2 errors" not in outcome.stderr


def test_e108_script_not_utf8(in_tmp):
    make_scenario(in_tmp, "")
    write(in_tmp, "script.drama", b'drama "X" with Kara\n\xff\xfe\n')
    outcome = drama("check", "scenario.yaml")
    error = one_error(outcome, "E108", "scenario.yaml:4:9", "cannot read the script file 'script.drama': "
                      "it is not UTF-8 text", help="save the file as UTF-8")
    assert "  note: byte 0xff at script.drama:2:1" in error.body


def test_e109_party_defined_twice(in_tmp):
    make_scenario(in_tmp, "# nothing\n")
    write(in_tmp, "more.yaml", "parties:\n  Kara:\n    name: Kara again\n    quintessence: 3\n")
    write(in_tmp, "scenario.yaml", scenario_yaml("script.drama", cast=["cast.yaml", "more.yaml"]))
    outcome = drama("check", "scenario.yaml")
    error = one_error(outcome, "E109", "more.yaml:2:3", "the party 'Kara' is defined twice")
    assert "  note: 'Kara' is first defined at cast.yaml:2:3" in error.body


def test_e110_move_names_a_missing_treasure(in_tmp):
    cast = EMBERFALL_CAST.replace("fireball: Sorcery + Ember Staff", "fireball: Sorcery + Ember Stave")
    outcome = check(in_tmp, DRAMA, cast=cast)
    one_error(outcome, "E110", "cast.yaml:8:27", "'Kara' has no trait or treasure 'Ember Stave'",
              help="did you mean 'Ember Staff'?")


# ---------------------------------------------------------------------------
# names in a script (E201-E203)

def test_e201_misspelt_party_did_you_mean(in_tmp):
    outcome = check(in_tmp, DRAMA + "Kara fireball -> Overlrd, rolled 6\n")
    one_error(outcome, "E201", "script.drama:2:18", "there is no party 'Overlrd' in the cast",
              expected="one of 'Kara', 'Bren', 'Overlord' or 'Goblins'", help="did you mean 'Overlord'?")


def test_e201_wrong_case_did_you_mean(in_tmp):
    outcome = check(in_tmp, DRAMA + "Kara fireball -> Bren, rolled 6 6\nBren defends\ntie bren\n")
    one_error(outcome, "E201", "script.drama:4:5", "there is no party 'bren' in the cast",
              help="did you mean 'Bren'?")


def test_e202_unknown_trait_did_you_mean(in_tmp):
    outcome = check(in_tmp, DRAMA + "Bren bash -> Overlord with Strenght + Iron Shield, rolled 3\n")
    one_error(outcome, "E202", "script.drama:2:28", "Bren has no trait or treasure 'Strenght'",
              expected="one of 'Strength', 'Healing', 'Iron Shield' or 'Rope'", help="did you mean 'Strength'?")


def test_e202_unknown_treasure_did_you_mean(in_tmp):
    outcome = check(in_tmp, DRAMA + "Kara fireball -> Bren with Sorcery + Ember staff\n")
    one_error(outcome, "E202", "script.drama:2:38", "Kara has no trait or treasure 'Ember staff'",
              help="did you mean 'Ember Staff'?")


def test_e203_party_not_in_the_drama(in_tmp):
    outcome = check(in_tmp, 'drama "Duel" with Kara, Bren\nGoblins stab -> Bren\n')
    one_error(outcome, "E203", "script.drama:2:1", "Goblins is not in the dramatic situation Duel",
              expected="one of 'Kara' or 'Bren'")


# ---------------------------------------------------------------------------
# the rules (E3xx)

def test_e301_too_many_dice_R3(in_tmp):
    outcome = check(in_tmp, DRAMA + "Kara fireball -> Overlord with Sorcery, rolled 6 6 6 6\n")
    one_error(outcome, "E301", "script.drama:2:41", "Kara may roll at most 3 dice with Sorcery 3, not 4 (R3)")


def test_e301_too_many_dice_with_a_gm_modifier_R3(in_tmp):
    outcome = check(in_tmp, DRAMA + 'Kara "leap" vs 7 with Agility, GM -1, rolled 6\n')
    one_error(outcome, "E301", "script.drama:2:39",
              "Kara may roll at most 0 dice with Agility 1 and GM -1, not 1 (R3)")


def test_e301_no_trait_one_die_R3(in_tmp):
    outcome = check(in_tmp, DRAMA + "Kara fireball -> Overlord with Lucky Coin, rolled 6 6\n")
    one_error(outcome, "E301", "script.drama:2:44", "Kara may roll at most 1 die with no trait, not 2 (R3)")


def test_e301_a_participant_line_points_at_its_dice_R3_R10(in_tmp):
    outcome = check(in_tmp, DRAMA + 'Kara & Bren "pin" -> Overlord\n'
                                    "  Kara with Sorcery, rolled 6\n"
                                    "  Bren with Strength, rolled 6 6 6\n")
    one_error(outcome, "E301", "script.drama:4:23", "Bren may roll at most 2 dice with Strength 2, not 3 (R3)")


def test_e304_not_enough_quintessence_R4(in_tmp):
    outcome = check(in_tmp, DRAMA + "Goblins stab -> Kara but not a but not b but not c +Bren +Overlord\n")
    one_error(outcome, "E304", "script.drama:2:1",
              "Goblins needs 5 quintessence for 3 qualifiers and 2 extra targets but has 4 (R4)")


def test_e305_target_of_its_own_action_R5(in_tmp):
    outcome = check(in_tmp, DRAMA + "Kara fireball -> Kara\n")
    one_error(outcome, "E305", "script.drama:2:1", "Kara cannot be the target of an action it takes part in")


def test_e305_defence_by_a_party_that_is_not_a_target_R5(in_tmp):
    outcome = check(in_tmp, DRAMA + "Kara fireball -> Bren\nGoblins defend with Numbers\n")
    (error,) = printed_errors(outcome.stderr)
    assert (error.code, error.message) == ("E305", "'Goblins' is not a target of Kara's action")
    assert error.expected == "a defence by 'Bren'"


def test_e305_points_at_the_defence_line_R5(in_tmp):
    outcome = check(in_tmp, DRAMA + "Kara fireball -> Bren\nGoblins defend with Numbers\n")
    (error,) = printed_errors(outcome.stderr)
    assert (error.line, error.col) == (3, 1)


def test_e307_defeated_party_acting_R7(in_tmp):
    outcome = check(in_tmp, DRAMA +
                    "Kara fireball -> Goblins, rolled 6 6 6\n"        # Goblins 0/4
                    "Bren bash -> Goblins with Strength, rolled 2\n"  # they fail at 0: defeated
                    "round\n"
                    "Goblins stab -> Kara\n")
    one_error(outcome, "E307", "script.drama:5:1", "Goblins is defeated in Throne Hall and cannot act (R7)")


def test_e307_defeated_party_defending_R7(in_tmp):
    outcome = check(in_tmp, DRAMA +
                    "Kara fireball -> Goblins, rolled 6 6 6\n"
                    "Bren bash -> Goblins with Strength, rolled 2\n"
                    "Overlord crush -> Bren with Brutality, rolled 3\n"
                    "Bren & Goblins defend\n"
                    "  Bren with Strength, rolled 2\n"
                    "  Goblins with Numbers, rolled 2\n")
    one_error(outcome, "E307", "script.drama:7:3", "Goblins is defeated in Throne Hall and cannot defend (R7)")


def test_e321_an_action_aimed_only_at_the_fallen_point_15(in_tmp):
    outcome = check(in_tmp, DRAMA +
                    "Kara fireball -> Goblins, rolled 6 6 6\n"
                    "Bren bash -> Goblins with Strength, rolled 2\n"
                    "Overlord crush -> Goblins\n"
                    "Goblins defend with Numbers\n")
    # one error: the defence goes with the action it answers
    one_error(outcome, "E321", "script.drama:4:19",
              "Goblins is defeated in Throne Hall, out of the situation: no longer a party to strike at (point 15)")


def test_e308_no_double_win_R8(in_tmp):
    outcome = check(in_tmp, DRAMA + "Kara fireball -> Goblins, rolled 6 6 6\n"
                                    "Bren bash -> Goblins with Strength, rolled 2\n"
                                    "Kara rerolls\n")
    one_error(outcome, "E308", "script.drama:4:1", "Kara has no double win to take an option from (R8)",
              expected="an option taken by 'Bren'")


def test_e309_second_aggressive_action_R9(in_tmp):
    outcome = check(in_tmp, DRAMA + "Kara fireball -> Overlord\nKara fireball -> Bren\n")
    one_error(outcome, "E309", "script.drama:3:1", "Kara already took an aggressive action this round (R9)",
              expected="`round` before its next aggressive action")


def test_e310_split_that_does_not_match_the_loss_R10(in_tmp):
    outcome = check(in_tmp, DRAMA + "Kara fireball -> Goblins, rolled 6 6\n"
                                    "Goblins & Overlord defend\n"
                                    "  Goblins with Numbers + Rusty Spears, rolled 4\n"
                                    "  Overlord with Cunning\n"
                                    "split Goblins 1, Overlord 1\n")
    one_error(outcome, "E310", "script.drama:6:1",
              "the split (Goblins 1, Overlord 1) spreads 2, but Goblins & Overlord lost 3 (R10)",
              expected="shares that add up to 3")


TIE = (DRAMA + "Overlord blast -> Kara with Cunning + Obsidian Crown, rolled 3 2\n"
       "Kara defends with Sorcery + Ember Staff, rolled 4 1\n")


def test_e311_unnamed_tie_in_strict_mode_R11(in_tmp):
    for command in ("check", "run"):
        make_scenario(in_tmp, TIE)
        outcome = drama(command, "scenario.yaml")
        one_error(outcome, "E311", "script.drama:2:1", "Overlord and Kara tie at 10: say who won the vote (R11)",
                  expected="`tie Overlord` or `tie Kara` after the exchange, "
                           "or run with --lenient to let the dice decide")


def test_unnamed_tie_is_settled_in_lenient_mode_R11(in_tmp):
    make_scenario(in_tmp, TIE)
    outcome = drama("check", "scenario.yaml", "--lenient")
    assert (outcome.code, outcome.stdout, outcome.stderr) == (0, "scenario.yaml: ok\n", "")
    events = run_events("scenario.yaml", "--lenient")
    (exchange,) = [e for e in events if e["type"] == "exchange"]
    assert exchange["tie"] is True and exchange["tie_settled_by"] == "random"


def test_e311_tie_line_without_a_tie_R11(in_tmp):
    outcome = check(in_tmp, DRAMA + "Kara fireball -> Bren, rolled 6 6\ntie Kara\n")
    one_error(outcome, "E311", "script.drama:3:1", "there is no tie for Kara to win here (R11)",
              expected="no `tie` line: no comparison of this exchange is tied")


def test_e311_points_at_the_tie_line_it_is_about_R11(in_tmp):
    outcome = check(in_tmp, DRAMA + "Kara fireball -> Overlord +Goblins, rolled 2\n"
                                    "Overlord defends with Cunning + Obsidian Crown, rolled 2\n"
                                    "Goblins defend with Numbers + Rusty Spears, rolled 5\n"   # 8: no tie
                                    "tie Goblins\n"
                                    "tie Kara\n")
    (error,) = printed_errors(outcome.stderr)
    assert error.message == "there is no tie for Goblins to win here (R11)"
    assert (error.line, error.col) == (5, 1)          # `tie Goblins`, not `tie Kara` on line 6


def test_e312_initiative_tie_without_rerolls_R12(in_tmp):
    outcome = check(in_tmp, DRAMA + "initiative Kara 5, Bren 5, Overlord 6, Goblins 3\n")
    one_error(outcome, "E312", "script.drama:2:1", "Kara and Bren tie at 5: give their re-rolls (R12)",
              expected="a re-roll after the results, e.g. `initiative Kara 5 4`")


def test_e312_initiative_missing_a_party_R12(in_tmp):
    outcome = check(in_tmp, DRAMA + "initiative Kara 5, Bren 2\n")
    one_error(outcome, "E312", "script.drama:2:1", "initiative needs a result for 'Overlord' or 'Goblins' (R12)")


def test_e313_round_outside_drama_R13(in_tmp):
    outcome = check(in_tmp, "round\n")
    one_error(outcome, "E313", "script.drama:1:1", "`round` needs a dramatic situation (R13)",
              expected='`drama "Name" with ...` first')


def test_e314_recovery_before_calm_R14(in_tmp):
    outcome = check(in_tmp, DRAMA + "end drama\nKara recovers, roll\n")
    one_error(outcome, "E314", "script.drama:3:1",
              "Kara needs 10 rounds (1 min) of calm after Throne Hall to recover, and only 0 s have passed (R14)",
              expected="a `calm DURATION` first, or a rushed recovery inside drama")


def test_e314_recovery_too_soon_after_the_last_R14(in_tmp):
    outcome = check(in_tmp, DRAMA + "Overlord crush -> Kara with Brutality + Obsidian Crown, rolled 6 6\n"
                                    "Kara defends, rolled 1\n"
                                    "Kara recovers, roll\n"
                                    "end drama\n"
                                    "calm 1 hour\n"
                                    "Kara recovers, roll\n")
    one_error(outcome, "E314", "script.drama:7:1",
              "Kara recovered 1 h 6 s ago and may recover once every 1 day (R14)",
              expected="22 h 59 min 54 s more of in-world time")


HURT = "Overlord crush -> Kara with Brutality + Obsidian Crown, rolled 6 6\n"     # Kara 3/3


def test_e317_a_re_roll_of_a_die_not_rolled_R14_point_13(in_tmp):
    outcome = check(in_tmp, DRAMA + HURT + "Kara recovers with Agility + Lucky Coin, rolled 6 5 2, "
                                           "rerolling 2 to 3 and 2 to 4, then 6 5 3\n")
    one_error(outcome, "E317", "script.drama:3:77",
              "Kara's rushed recovery re-rolls a die showing 2, but only 1 die of 6 5 2 shows 2, and each die is "
              "re-rolled once (R14)", expected="a face of the dice rolled (6 5 2), as it first showed")


def test_e317_in_the_second_check_R14_R15_point_13(in_tmp):
    outcome = check(in_tmp, DRAMA + HURT + "Kara recovers with Agility, rolled 6 5 2, rerolling none, "
                                           "then 6 5, rerolling 4 to 6\n")
    one_error(outcome, "E317", "script.drama:3:79",
              "the second check of Kara's rushed recovery re-rolls a die showing 4, but no die of 6 5 shows 4 (R14)")


def test_e318_more_re_rolls_than_the_bonus_R14_point_13(in_tmp):
    outcome = check(in_tmp, DRAMA + HURT + "Kara recovers with Agility, helped by Bren with Rope, "
                                           "rolled 6 5 2, rerolling 2 to 4 and 5 to 6 and 6 to 1, then 6 6 5\n")
    one_error(outcome, "E318", "script.drama:3:101",
              "Kara's rushed recovery re-rolls 3 dice, but its bonus of 2 allows at most 2 (R14)")


def test_e319_re_rolls_named_after_roll_or_given_twice_R14_point_13(in_tmp):
    outcome = check(in_tmp, DRAMA + HURT + "Kara recovers, roll, rerolling 2 to 4\n")
    one_error(outcome, "E319", "script.drama:3:22",
              "the dice of `roll` are not known yet, so the dice to re-roll cannot be named",
              expected="`rolled N N ...` before `rerolling F to N`, or `rerolling none`")
    outcome = check(in_tmp, DRAMA + HURT + "Kara recovers with Agility, rolled 6 5 2 rerolled 3, rerolling 2 to 4\n")
    one_error(outcome, "E319", "script.drama:3:54",
              "the re-rolls are given twice, with `rerolled` and with `rerolling`")


def test_e320_a_round_length_that_is_not_a_length_of_time_R13_point_14(in_tmp):
    outcome = check(in_tmp, 'drama "The Hearing" with Kara, Bren, rounds of 0 hours\n')
    one_error(outcome, "E320", "script.drama:1:38", "a round cannot last 0 hours",
              expected="a length of in-world time above 0: `rounds of 6 seconds`, `rounds of 1 minute`, "
                       "`rounds of 2 hours`, `rounds of 1 day`")
    outcome = check(in_tmp, 'drama "The Hearing" with Kara, Bren, rounds of 2 moons\n')
    one_error(outcome, "E001", "script.drama:1:50", "unknown unit of time 'moons'")


def test_e316_rest_during_drama_R16(in_tmp):
    outcome = check(in_tmp, DRAMA + "rest 2 days\n")
    one_error(outcome, "E316", "script.drama:2:1", "there is no rest during the dramatic situation Throne Hall (R16)",
              expected="`end drama` first")


# ---------------------------------------------------------------------------
# dice (E401, E402)

def test_e401_wrong_number_of_given_dice_for_a_reroll(in_tmp):
    outcome = check(in_tmp, DRAMA + "Overlord crush -> Kara with Brutality + Obsidian Crown, rolled 6 6\n"
                                    "Kara defends, rolled 1\n"
                                    "Overlord rerolls, rolled 1 2\n")
    one_error(outcome, "E401", "script.drama:4:1",
              "Overlord rerolls the 0 dice it lost this round, but 2 dice are given", expected="0 dice")


def test_e401_wrong_number_of_given_dice_for_a_recovery(in_tmp):
    outcome = check(in_tmp, DRAMA + "Overlord crush -> Kara with Brutality + Obsidian Crown, rolled 6 6\n"
                                    "Kara defends, rolled 1\n"
                                    "Kara recovers, rolled 6 6, then 6 6\n")
    one_error(outcome, "E401", "script.drama:4:1",
              "Kara's recovery rolls its damage pool of 4, but 2 dice are given", expected="4 dice")


def test_e402_face_of_7_on_a_d6(in_tmp):
    outcome = check(in_tmp, DRAMA + "Kara fireball -> Overlord with Sorcery, rolled 6 7\n")
    one_error(outcome, "E402", "script.drama:2:41", "a d6 has no face 7", expected="faces from 1 to 6")


def test_e402_face_of_0(in_tmp):
    outcome = check(in_tmp, DRAMA + "Kara fireball -> Overlord with Sorcery, rolled 0\n")
    (error,) = printed_errors(outcome.stderr)
    assert error.code == "E402"


# ---------------------------------------------------------------------------
# the command line (E501, usage errors)

def test_e501_output_onto_the_scenario_file(in_tmp):
    path = make_scenario(in_tmp, DRAMA + "Kara fireball -> Bren, rolled 4\n")
    before = path.read_bytes()
    outcome = drama("run", "scenario.yaml", "-o", "scenario.yaml")
    assert outcome.code == 1 and outcome.stdout == ""
    assert outcome.stderr == ("error[E501]: refusing to write over the input file scenario.yaml\n"
                              "  expected: an output file that the command does not read\n")
    assert path.read_bytes() == before


def test_e501_output_onto_the_script_file(in_tmp):
    make_scenario(in_tmp, DRAMA)
    before = (in_tmp / "script.drama").read_bytes()
    outcome = drama("run", "scenario.yaml", "-o", "./script.drama")
    assert outcome.code == 1 and "error[E501]: refusing to write over the input file" in outcome.stderr
    assert (in_tmp / "script.drama").read_bytes() == before


@pytest.mark.parametrize("name", ["cast.yaml", "setting.yaml"])
def test_e501_output_onto_the_setting_or_cast_file(in_tmp, name):
    make_scenario(in_tmp, DRAMA)
    before = (in_tmp / name).read_bytes()
    outcome = drama("run", "scenario.yaml", "-o", name)
    assert (in_tmp / name).read_bytes() == before
    assert outcome.code == 1 and "error[E501]" in outcome.stderr


def test_e501_output_into_a_missing_folder(in_tmp):
    make_scenario(in_tmp, DRAMA)
    outcome = drama("run", "scenario.yaml", "-o", "missing/events.jsonl")
    assert outcome.code == 1 and outcome.stdout == ""
    assert outcome.stderr == "error[E501]: cannot write missing/events.jsonl: the folder missing does not exist\n"
    assert not (in_tmp / "missing").exists()


def test_usage_errors_exit_2():
    for args in (["run", "--bogus", "x.yaml"], ["run"], ["check"], ["frobnicate"],
                 ["run", "x.yaml", "--format", "xml"], ["run", "x.yaml", "--seed", "abc"]):
        outcome = drama(*args)
        assert outcome.code == 2, (args, outcome.output)
        assert "Usage: drama" in outcome.stderr and "Error:" in outcome.stderr
        assert "Traceback" not in outcome.output


def test_usage_errors_name_the_problem():
    assert "No such option '--bogus'" in drama("run", "--bogus", "x.yaml").stderr
    assert "Missing argument 'SCENARIO'" in drama("run").stderr


def test_errors_exit_statuses_in_a_real_process(in_tmp):
    make_scenario(in_tmp, DRAMA + "Kara fireball -> Overlrd\n")
    bad = drama_process("check", "scenario.yaml", cwd=in_tmp)
    assert bad.returncode == 1 and "Traceback" not in bad.stderr
    assert bad.stderr.startswith("script.drama:2:18: error[E201]: there is no party 'Overlrd' in the cast\n")
    missing = drama_process("run", "nowhere.yaml", cwd=in_tmp)
    assert missing.returncode == 1 and "error[E108]" in missing.stderr and "Traceback" not in missing.stderr
    usage = drama_process("run", "--bogus", cwd=in_tmp)
    assert usage.returncode == 2 and "Traceback" not in usage.stderr


# ---------------------------------------------------------------------------
# one pass finds every error

def test_check_reports_several_errors_in_one_pass(in_tmp):
    outcome = check(in_tmp,
                    'scene "Two mistakes"\n'
                    "drama \"Throne Hall\" with Kara, Bren, Overlord\n"
                    "Kara fireball -> Overlrd, rolled 6\n"
                    "Overlord defends with Cunning\n"
                    "\n"
                    "round\n"
                    "Bren bash -> Overlord with Strenght, rolled 3\n"
                    "Overlord defends with Cunning\n")
    assert outcome.code == 1 and outcome.stdout == ""
    errors = printed_errors(outcome.stderr)
    assert [(e.where, e.line, e.col, e.code) for e in errors] == [
        ("script.drama", 3, 18, "E201"), ("script.drama", 7, 28, "E202")]
    assert errors[0].help == "did you mean 'Overlord'?"
    assert errors[1].help == "did you mean 'Strength'?"
    assert outcome.stderr.endswith("\n2 errors\n")


def test_check_reports_syntax_yaml_and_rule_errors_together(in_tmp):
    outcome = check(in_tmp, DRAMA +
                    "Kara fireball ->\n"
                    "Kara fireball -> Overlord, rolled 9\n",
                    setting=EMBERFALL_SETTING.replace("calm:", "clam:"))
    codes = sorted(e.code for e in printed_errors(outcome.stderr))
    assert codes == ["E001", "E103", "E402"]
    assert outcome.stderr.endswith("\n3 errors\n")


def test_a_broken_cast_gives_no_follow_on_errors(in_tmp):
    outcome = check(in_tmp, DRAMA, cast="parties:\n  Kara: {name: K\n")
    assert [e.code for e in printed_errors(outcome.stderr)] == ["E101"]
    assert "one of nothing" not in outcome.stderr


@pytest.mark.parametrize("key", ['"full\\nrest"', "? full\n\n  rest\n"])
def test_unknown_key_with_a_line_break_stays_on_one_line(in_tmp, key):
    setting = EMBERFALL_SETTING.replace("full_rest: 2 days", f"{key}: 2 days")
    outcome = check(in_tmp, DRAMA, setting=setting)
    assert outcome.code == 1
    only_error_lines(outcome.stderr)
    (error,) = [e for e in printed_errors(outcome.stderr) if e.code == "E103"]
    assert error.message.startswith("unknown key 'full") and error.message.endswith("' in the setting")


def test_misspelt_with_after_a_target_did_you_mean(in_tmp):
    outcome = check(in_tmp, DRAMA + "Kara fireball -> Bren wiht Sorcery\n")
    (error,) = printed_errors(outcome.stderr)
    assert error.help is not None and "did you mean" in error.help


@pytest.mark.parametrize("separator", ["\f", "\v", "\u2028", "\x1c"])
def test_error_shows_its_own_line_after_unusual_whitespace(in_tmp, separator):
    outcome = check(in_tmp, f"# a page break {separator} in a comment\n" + DRAMA + "Kara fireball -> Overlrd\n")
    (error,) = printed_errors(outcome.stderr)
    assert (error.line, error.col) == (3, 18)
    assert error.body[0] == " 3 | Kara fireball -> Overlrd"


def test_yaml_error_at_the_end_of_the_file_shows_a_line(in_tmp):
    outcome = check(in_tmp, DRAMA, setting="name: Sword\ndice: {sides: 6\n")
    (error, *_) = printed_errors(outcome.stderr)
    assert error.code == "E101"
    assert error.body and " | " in error.body[0] and "^" in error.body[1]


# ---------------------------------------------------------------------------
# every code of CODES, from one table (the tests above check each in detail)

def _scenario(script: str = DRAMA, command: str = "check", **kwargs):
    def trigger(folder: Path):
        make_scenario(folder, script, **kwargs)
        return drama(command, "scenario.yaml")
    return trigger


def _test_plan(plan: str, script: str = DRAMA):
    def trigger(folder: Path):
        make_scenario(folder, script)
        write(folder, "my.test.yaml", plan)
        outcome = drama("test", "my.test.yaml")
        if "FAILURES" not in outcome.stdout:
            return outcome
        # a failing test is reported on stdout, in the report: its error is the lines after its heading
        report = outcome.stdout.split(" FAILURES ", 1)[1].splitlines()[2:]
        failure = [line for line in report if not line.startswith(("reproduce:", "=", "_"))]
        return type(outcome)(outcome.code, "", "\n".join(failure) + "\n", outcome.exception)
    return trigger


def _two_casts(folder: Path):
    make_scenario(folder, "# nothing\n")
    write(folder, "more.yaml", "parties:\n  Kara:\n    name: Kara again\n    quintessence: 3\n")
    write(folder, "scenario.yaml", scenario_yaml("script.drama", cast=["cast.yaml", "more.yaml"]))
    return drama("check", "scenario.yaml")


def _output_onto_scenario(folder: Path):
    make_scenario(folder, DRAMA)
    return drama("run", "scenario.yaml", "-o", "scenario.yaml")


def _unbound_role(folder: Path):
    make_scenario(folder, 'drama "Duel" with hero, Bren\n')
    write(folder, "scenario.yaml", scenario_yaml("script.drama") + "roles:\n  hero:\n")
    return drama("check", "scenario.yaml")


def _cast_a_device(folder: Path):
    make_scenario(folder, DRAMA)
    write(folder, "scenario.yaml", scenario_yaml("script.drama", cast="/dev/null"))
    return drama("check", "scenario.yaml")


def _merge_bomb(folder: Path):
    lines = ["m0: &m0 {a: 1}"] + [f"m{i}: &m{i}\n  <<: [{', '.join([f'*m{i - 1}'] * 10)}]" for i in range(1, 8)]
    return _scenario(setting="\n".join(lines) + "\n<<: *m7\n")(folder)


def _template_typo(folder: Path):
    make_scenario(folder, DRAMA)
    (folder / "typo.md.j2").write_text("# {{ titel }}\n")
    return drama("run", "scenario.yaml", "--format", "md", "--template", "typo.md.j2")


def _odds_not_an_action(folder: Path):
    make_scenario(folder, DRAMA)
    return drama("odds", "scenario.yaml", "round")


def _cut_event_log(folder: Path):
    (folder / "cut.jsonl").write_text('{"type": "start", "line": null, "version": 1\n')
    return drama("render", "cut.jsonl")


def _catalogue(po: str):
    """A transcript in French, with the scenario's catalogue (docs/transcripts.md)."""
    def trigger(folder: Path):
        make_scenario(folder, DRAMA + '> The doors burst open.\n')
        write(folder, "locale/fr.po", po)
        return drama("run", "scenario.yaml", "--as", "transcript", "--lang", "fr")
    return trigger


def _check_lang(folder: Path):
    make_scenario(folder, DRAMA)
    return drama("check", "scenario.yaml", "--lang", "fr")


def _lang(text: str | None, lang: str = "phrases.yaml"):
    """A transcript in a language, or with a phrase file of the user's."""
    def trigger(folder: Path):
        make_scenario(folder, DRAMA)
        if text is not None:
            write(folder, lang, text)
        return drama("run", "scenario.yaml", "--as", "transcript", "--lang", lang)
    return trigger


def _play_journal(folder: Path, script: str = DRAMA + "round\n") -> Path:
    """A journal of `drama play` with the first two statements of the script played."""
    from dsl.pipeline import Program
    from dsl.table.core import Table
    make_scenario(folder, script)
    table = Table.start(Program.compile(folder / "scenario.yaml"), "j.drama")
    table.play_script()
    table.play_script()
    return folder / "j.drama"


def _play_journal_exists(folder: Path):
    make_scenario(folder, DRAMA)
    write(folder, "j.drama", "# Recorded by drama\n")
    return drama("play", "scenario.yaml", "--journal", "j.drama")


def _play_nothing_to_resume(folder: Path):
    make_scenario(folder, DRAMA)
    return drama("play", "scenario.yaml", "--resume")


def _play_not_a_journal(folder: Path):
    make_scenario(folder, DRAMA)
    return drama("play", "scenario.yaml", "--resume", "--journal", "script.drama")


def _play_script_changed(folder: Path):
    _play_journal(folder)
    write(folder, "script.drama", 'scene "Before"\n' + DRAMA + "round\n")      # a statement before the part played
    return drama("play", "scenario.yaml", "--resume", "--journal", "j.drama")


def _play_journal_in_use(folder: Path):
    from dsl.table.journal import Lock
    _play_journal(folder)
    with Lock(str(folder / "j.drama")):             # another session has it
        return drama("play", "scenario.yaml", "--resume", "--journal", "j.drama")


def _play_unwritable(folder: Path):
    make_scenario(folder, DRAMA)
    return drama("play", "scenario.yaml", "--journal", "nowhere/j.drama")


def _without_distributed(folder: Path):
    """`drama simulate --cluster` where Dask distributed cannot be imported."""
    import sys
    make_scenario(folder, DRAMA)
    saved = sys.modules.get("distributed")
    sys.modules["distributed"] = None          # import distributed raises ImportError
    try:
        return drama("simulate", "scenario.yaml", "--runs", "5", "--cluster", "local")
    finally:
        if saved is None:
            del sys.modules["distributed"]
        else:
            sys.modules["distributed"] = saved


def _play_busy_port(folder: Path):
    import socket
    make_scenario(folder, DRAMA)
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        return drama("play", "scenario.yaml", "--journal", "j.drama", "--board-port", str(busy.getsockname()[1]))


def _play_torn_journal(folder: Path):
    with open(_play_journal(folder), "a", encoding="utf-8") as journal:
        journal.write("Kara fireball -> Over")
    return drama("play", "scenario.yaml", "--resume", "--journal", "j.drama")


TRIGGERS = {
    "E001": _scenario(DRAMA + "Kara fireball -> Bren ->\n"),
    "E002": _scenario(DRAMA + "Bren defends with Strength\n"),
    "E003": _scenario('include "script.drama"\n'),
    "E004": _scenario(DRAMA + "end\n"),
    "E005": _scenario(DRAMA + "repeat until Goblins is defeated\nend\n"),
    # the limits (dsl/limits.py; tests/test_limits.py checks each at the limit and one past it)
    "E010": _scenario(DRAMA + "if in drama\n" * 101 + "> deep\n" + "end\n" * 101),
    "E011": _scenario(DRAMA + "repeat 10001 times\n> again\nend\n"),
    "E012": lambda folder: (make_scenario(folder, DRAMA + "repeat 10000 times\nrepeat 10000 times\nend\nend\n"),
                            drama("run", "scenario.yaml"))[1],
    "E013": _scenario(DRAMA + "> " + "x" * 4000 + "\n"),
    # a script and its includes over 8 MiB: a file of 1.7 MB included five times
    "E014": lambda folder: (write(folder, "part.drama", ("> " + "x" * 3998 + "\n") * 420),
                            make_scenario(folder, DRAMA + 'include "part.drama"\n' * 5),
                            drama("check", "scenario.yaml"))[2],
    "E015": _scenario(DRAMA + "Kara fireball -> Overlord with Sorcery, roll 1001\n"),
    "W020": _scenario(DRAMA + "repeat 10000 times\nrepeat 10000 times\nend\nend\n"),
    "W021": _scenario("round\n" * 150),
    "E205": _scenario(DRAMA + "> {Overlrd} laughs\n"),
    "W001": _scenario(DRAMA + "if Goblins quintessence > 9\n> never\nend\n"),
    "W002": _scenario(DRAMA + "repeat until Goblins quintessence > 9, at most 2 times\n> waiting\nend\n"),
    "W003": _scenario(DRAMA + "repeat until Goblins is defeated, at most 3 rounds\n> waiting\nend\n"),
    "E101": _scenario(setting="name: Sword: and Sorcery\n"),
    "E102": _scenario(setting=EMBERFALL_SETTING + "round: 5 seconds\n"),
    "E103": _scenario(setting=EMBERFALL_SETTING + "rund: 5 seconds\n"),
    "E104": _scenario(setting=EMBERFALL_SETTING.replace("ties: vote", "ties: votes")),
    "E105": _scenario(cast="parties:\n  Kara:\n    name: K\n"),
    "E106": _scenario(setting=EMBERFALL_SETTING.replace("ties: vote", "ties: !!python/name:os.system")),
    "E107": _scenario(setting=EMBERFALL_SETTING.replace("calm: 10 rounds", "calm: 10 moons")),
    "E108": lambda folder: drama("check", "nowhere.yaml"),
    "E109": _two_casts,
    "E110": _scenario(cast=EMBERFALL_CAST.replace("Sorcery + Ember Staff", "Sorcery + Ember Stave")),
    "E120": _scenario(cast=EMBERFALL_CAST.replace("    quintessence: 6\n", "    pronouns: sie/her\n"
                                                                          "    quintessence: 6\n", 1)),
    "E121": _scenario(cast=EMBERFALL_CAST.replace(
        "fireball: Sorcery + Ember Staff", 'fireball: {use: Sorcery + Ember Staff, says: "burns {tagret}"}')),
    "E122": _scenario(cast=EMBERFALL_CAST.replace("    quintessence: 6\n", "    quintessence: 6\n"
                                                  "    clauses: {tapestries: sparing the tapestries}\n", 1)),
    "E123": _lang(None, "klingon"),
    "E124": _lang("- just\n- a list\n"),
    "E125": _lang("language: xx\nlocale: en\nphrases:\n  defeat: ['{P} falls to {Q}']\n"),
    "E126": _scenario(cast=EMBERFALL_CAST.replace("    name: Kara the Ember-Witch\n",
                                                  "    name: Kara the Ember-Witch\n    grammar: feminie\n")),
    "E127": _catalogue('msgid "a"\nmsgstr "b"\nmsgid\n'),
    "W040": _check_lang,
    "W041": _catalogue('msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=utf-8\\n"\n'),
    "E350": _scenario('drama "Throne Hall" with Kara, Bren, a debat\n'),
    "E351": _scenario(DRAMA + 'Goblins lose member "Snak"\n'),
    "E352": _scenario(DRAMA + 'Goblins lose member Snik\nGoblins lose member Snik\n'),
    "E353": _scenario('drama "Throne Hall" with Kara, Bren, a chase after Overlord\n'),
    "E201": _scenario(DRAMA + "Kara fireball -> Overlrd\n"),
    "E202": _scenario(DRAMA + "Bren bash -> Overlord with Strenght\n"),
    "E203": _scenario('drama "Duel" with Kara, Bren\nGoblins stab -> Bren\n'),
    "E204": _unbound_role,
    "E301": _scenario(DRAMA + "Kara fireball -> Overlord with Sorcery, rolled 6 6 6 6\n"),
    "E304": _scenario(DRAMA + "Goblins stab -> Kara but not a but not b but not c +Bren +Overlord\n"),
    "E305": _scenario(DRAMA + "Kara fireball -> Kara\n"),
    "E307": _scenario(DRAMA + "Kara fireball -> Goblins, rolled 6 6 6\nBren bash -> Goblins, rolled 1\n"
                              "round\nGoblins stab -> Kara\n"),
    "E308": _scenario(DRAMA + "Kara fireball -> Goblins, rolled 1\n"
                              "Goblins defend with Numbers + Rusty Spears, rolled 2\nKara rerolls\n"),
    "E309": _scenario(DRAMA + "Kara fireball -> Overlord\nKara fireball -> Bren\n"),
    "E310": _scenario(DRAMA + "Kara fireball -> Goblins, rolled 6\nsplit Goblins 5\n"),
    "E311": _scenario(TIE),
    "E312": _scenario(DRAMA + "initiative Kara 5, Bren 5, Overlord 6, Goblins 3\n"),
    "E313": _scenario("round\n"),
    "E314": _scenario(DRAMA + "end drama\nKara recovers\n"),
    "E316": _scenario(DRAMA + "calm 1 hour\n"),
    "E317": _scenario(DRAMA + "Overlord crush -> Kara with Brutality, rolled 6 6\nKara recovers with Agility, "
                              "rolled 6 5 2, rerolling 3 to 4, then 6 5\n"),
    "E318": _scenario(DRAMA + "Overlord crush -> Kara with Brutality, rolled 6 6\nKara recovers, rolled 6 5 2, "
                              "rerolling 2 to 4, then 6 5\n"),
    "E319": _scenario(DRAMA + "Kara recovers, roll, rerolling 2 to 4\n"),
    "E320": _scenario('drama "The Hearing" with Kara, Bren, rounds of 0 hours\n'),
    "E321": _scenario(DRAMA + "Kara fireball -> Goblins, rolled 6 6 6\nBren bash -> Goblins with Strength, rolled 2\n"
                      "Overlord crush -> Goblins\n"),
    "E401": _scenario(DRAMA + "Kara recovers, rolled 6\n"),
    "E402": _scenario(DRAMA + "Kara fireball -> Overlord, rolled 7\n"),
    "E501": _output_onto_scenario,
    "E510": lambda folder: drama("fmt", "nowhere.drama"),
    "E512": lambda folder: (write(folder, "notes.txt", "mine"), drama("new", folder))[1],
    "E520": _cast_a_device,
    "E521": _scenario(DRAMA + "> a NUL: \0\n"),
    "E522": _merge_bomb,
    "E530": lambda folder: _without_distributed(folder),
    "E531": lambda folder: (make_scenario(folder, DRAMA),
                            drama("simulate", "scenario.yaml", "--runs", "5", "--cluster", "http://nowhere"))[1],
    "E601": _template_typo,
    "E602": _cut_event_log,
    "E701": _odds_not_an_action,
    "W004": _scenario(DRAMA + "Kara fireball -> Goblins, roll\nGoblins defend, roll\n"),
    "E006": _scenario(DRAMA + 'choose "Path"\n> before any option\noption "Left"\nend\n'),
    "E206": _scenario(DRAMA + "if gold > 2\n> rich\nend\n"),
    "E207": _scenario(DRAMA + 'choose "Path", chose "Rigth"\noption "Left"\noption "Right"\nend\n'),
    "E208": _scenario(DRAMA + "set Kara = 2\n"),
    "E209": _scenario(DRAMA + "set lost\nset lost = lost + 1\n"),
    "E330": _scenario(DRAMA + 'choose "Path"\noption "Left"\noption "Right"\nend\n', command="run"),
    "E331": _scenario(DRAMA + 'choose "Path"\noption "Left" if Kara is defeated\nend\n'),
    "E332": _scenario(DRAMA + 'choose "Path", chose "Left"\noption "Left" if Kara is defeated\n'
                              'option "Right"\nend\n'),
    "E333": _scenario(DRAMA + "set gold = 999999999\nset gold = gold + 1\n"),
    "E801": _scenario(DRAMA + "set gold = 2\nexpect gold >= 5\n", command="run"),
    "E802": _test_plan("scenario: scenario.yaml\ntests:\n  - name: one\n    sede: 3\n"),
    "E803": _test_plan("scenario: scenario.yaml\nproperties:\n  - name: short\n    seeds: 3\n    rounds: 1\n",
                       DRAMA + "round\nKara fireball -> Bren, roll\nround\n"),
    "E901": _play_journal_exists,
    "E902": _play_nothing_to_resume,
    "E903": _play_not_a_journal,
    "E904": _play_script_changed,
    "E905": _play_unwritable,
    "E906": _play_journal_in_use,
    "E908": _play_busy_port,
    "W030": _play_torn_journal,
}


# codes that no command can reach yet: each is expected to fail here until a
# trigger is added to TRIGGERS (then the strict xfail turns the XPASS into a
# reminder to remove it from this table)
UNREACHABLE: dict[str, str] = {
    "E511": "a safety net: `drama fmt` checks its own layout, and no known script fails that check",
    "E532": "a safety net: a block of runs raises on a worker only if its drama is not the one here "
            "(tests/test_cluster.py kills a worker, which Dask runs again)",
}


def _codes():
    for code in sorted(CODES):
        if code in UNREACHABLE:
            yield pytest.param(code, marks=pytest.mark.xfail(strict=True, reason=UNREACHABLE[code]))
        else:
            yield code


@pytest.mark.parametrize("code", list(_codes()))
def test_every_code_is_reachable_from_the_command_line(in_tmp, code):
    assert code in TRIGGERS, f"no end-to-end test triggers {code}: add one to TRIGGERS"
    outcome = TRIGGERS[code](in_tmp)
    warning = code.startswith("W")       # a warning is printed, and the check still passes
    if code == "W021":                   # (said after 100 errors: the check fails for those)
        warning = False
        assert "warning[W021]: " in outcome.stderr, outcome.stderr
        code = "E313"
    assert outcome.code == (0 if warning else 1), outcome.output
    assert f"{'warning' if warning else 'error'}[{code}]: " in outcome.stderr, outcome.stderr
    only_error_lines(outcome.stderr)
    first = outcome.stderr.splitlines()[0]
    if code not in ("E108", "E501", "E510", "E512", "E908", "E123", "E530", "E531"):    # no file to point into for these
        assert ERROR_HEAD.match(first), first
