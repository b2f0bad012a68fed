"""The loader: setting, cast and scenario YAML, every error code E101-E110 with its position."""

from __future__ import annotations

import os
import textwrap

import pytest

import dsl
from hypothesis import HealthCheck, given, settings as hyp_settings, strategies as st

from dsl.durations import Duration
from dsl.engine.parties import Move, PartySheet, Settings
from dsl.errors import DramaError, ErrorList
from dsl.loader import (
    Scenario, ScriptSource, load_cast, load_scenario, load_setting, loads_cast, loads_scenario,
    loads_setting,
)

# ---------------------------------------------------------------------------
# the emberfall sample, copied inline (tests never read ../shared)

from samples import EMBERFALL_CAST, EMBERFALL_SCENARIO, EMBERFALL_SETTING  # noqa: E402

SCENARIO = EMBERFALL_SCENARIO

SETTING = EMBERFALL_SETTING

CAST = EMBERFALL_CAST

DRAMA = """\
scene "The Throne Hall of Emberfall"
drama "Throne Hall" with Kara, Bren, Overlord, Goblins
end drama
"""


def write(folder, name: str, text: str | bytes) -> str:
    path = os.path.join(str(folder), name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    mode = "wb" if isinstance(text, bytes) else "w"
    with open(path, mode, **({} if isinstance(text, bytes) else {"encoding": "utf-8"})) as handle:
        handle.write(text)
    return path


@pytest.fixture
def emberfall(tmp_path):
    write(tmp_path, "setting.yaml", SETTING)
    write(tmp_path, "cast.yaml", CAST)
    write(tmp_path, "throne-hall.drama", DRAMA)
    return write(tmp_path, "scenario.yaml", SCENARIO)


def error_of(call, *args, **kwargs) -> DramaError:
    with pytest.raises(DramaError) as info:
        call(*args, **kwargs)
    return info.value


def where(err: DramaError) -> tuple[int, int]:
    assert err.position is not None, err.format()
    return err.position.line, err.position.column


def setting_error(text: str) -> DramaError:
    return error_of(loads_setting, text, "setting.yaml")


def cast_error(text: str) -> DramaError:
    return error_of(loads_cast, text, "cast.yaml")


# ---------------------------------------------------------------------------
# the sample

def test_emberfall_scenario_loads(emberfall, tmp_path):
    scenario = load_scenario(emberfall)
    assert isinstance(scenario, Scenario)
    assert scenario.title == "The Fall of Emberfall"
    assert scenario.path == emberfall
    assert scenario.setting == Settings(
        name="Sword and Sorcery", round=Duration(6, "second"), recovery=Duration(1, "day"),
        calm=Duration(10, "round"), full_rest=Duration(2, "day"), sides=6, high=6, ties="vote")
    assert [p.id for p in scenario.cast] == ["Kara", "Bren", "Overlord", "Goblins"]
    kara, bren, overlord, goblins = scenario.cast
    assert kara.name == "Kara the Ember-Witch"
    assert kara.quintessence == 6
    assert dict(kara.traits) == {"Sorcery": 3, "Agility": 1}
    assert dict(kara.treasures) == {"Ember Staff": 2, "Lucky Coin": 1}
    assert kara.moves["fireball"] == Move("Sorcery", "Ember Staff")
    assert not kara.members
    assert goblins.members == ("Snik", "Grub", "Mox")
    assert goblins.members
    assert goblins.name == "the goblin warband"
    assert dict(overlord.treasures) == {"Obsidian Crown": 2}
    assert bren.moves == {}
    # positions point at the party id, in the cast file named by the scenario
    assert kara.pos.file == os.path.join(str(tmp_path), "cast.yaml")
    assert (kara.pos.line, kara.pos.column) == (2, 3)
    assert (goblins.pos.line, goblins.pos.column) == (19, 3)
    # the script is a file next to the scenario
    assert scenario.script == ScriptSource(os.path.join(str(tmp_path), "throne-hall.drama"), DRAMA, 0)


def test_sheet_values_are_plain_python_types(emberfall):
    kara = load_scenario(emberfall).cast[0]
    assert type(kara.quintessence) is int
    assert all(type(k) is str and type(v) is int for k, v in kara.traits.items())
    assert type(kara.name) is str


def test_relative_paths_stay_relative(tmp_path, monkeypatch):
    write(tmp_path, "sub/setting.yaml", SETTING)
    write(tmp_path, "sub/cast.yaml", CAST)
    write(tmp_path, "sub/throne-hall.drama", DRAMA)
    write(tmp_path, "sub/scenario.yaml", SCENARIO)
    monkeypatch.chdir(tmp_path)
    scenario = load_scenario("sub/scenario.yaml")
    assert scenario.path == "sub/scenario.yaml"
    assert scenario.cast[0].pos.file == os.path.join("sub", "cast.yaml")
    assert scenario.script.file == os.path.join("sub", "throne-hall.drama")


def test_load_setting_and_cast_directly(tmp_path):
    settings = load_setting(write(tmp_path, "setting.yaml", SETTING))
    assert settings.name == "Sword and Sorcery" and settings.round_seconds == 6
    cast = load_cast([write(tmp_path, "cast.yaml", CAST)])
    assert [p.id for p in cast] == ["Kara", "Bren", "Overlord", "Goblins"]
    assert all(isinstance(p, PartySheet) for p in cast)


# ---------------------------------------------------------------------------
# defaults

def test_empty_setting_gives_defaults(tmp_path):
    assert load_setting(write(tmp_path, "s.yaml", "")) == Settings()
    assert loads_setting("# nothing but a comment\n") == Settings()


def test_default_values():
    settings = Settings()
    assert settings == loads_setting("{}")
    assert (settings.round, settings.recovery, settings.calm, settings.full_rest) == (
        Duration(6, "second"), Duration(1, "day"), Duration(10, "round"), Duration(2, "day"))
    assert (settings.sides, settings.high, settings.ties) == (6, 6, "vote")


def test_partial_setting_keeps_other_defaults():
    settings = loads_setting("ties: random\n")
    assert settings == Settings(ties="random")


def test_dice_with_only_sides_makes_the_top_face_high():
    settings = loads_setting("dice: {sides: 10}\n")
    assert (settings.sides, settings.high) == (10, 10)
    settings = loads_setting("dice: {high: 5}\n")
    assert (settings.sides, settings.high) == (6, 5)


def test_scenario_without_setting_uses_defaults(tmp_path):
    write(tmp_path, "cast.yaml", CAST)
    path = write(tmp_path, "scenario.yaml", "title: T\ncast: cast.yaml\nscript: |\n  round\n")
    assert load_scenario(path).setting == Settings()


def test_party_defaults():
    (party,) = loads_cast("parties:\n  Mox:\n    quintessence: 0\n")
    assert party == PartySheet(id="Mox", name="Mox", quintessence=0)
    assert party.members == () and dict(party.moves) == {}


@pytest.mark.parametrize("policy", ["vote", "actor", "defender", "random"])
def test_every_tie_policy(policy):
    assert loads_setting(f"ties: {policy}\n").ties == policy


# ---------------------------------------------------------------------------
# durations

@pytest.mark.parametrize("text, expected", [
    ("6 seconds", Duration(6, "second")),
    ("1 second", Duration(1, "second")),
    ("1 minute", Duration(1, "minute")),
    ("5 minutes", Duration(5, "minute")),
    ("1 hour", Duration(1, "hour")),
    ("3 hours", Duration(3, "hour")),
    ("1 day", Duration(1, "day")),
    ("2 days", Duration(2, "day")),
    ("1 week", Duration(1, "week")),
    ("2 weeks", Duration(2, "week")),
    ("10 rounds", Duration(10, "round")),
    ("1 round", Duration(1, "round")),
])
def test_durations_of_every_unit(text, expected):
    settings = loads_setting(f"calm: {text}\nrecovery: {text}\nfull_rest: {text}\n")
    assert settings.calm == settings.recovery == settings.full_rest == expected
    if expected.unit != "round":
        assert loads_setting(f"round: {text}\n").round == expected


@pytest.mark.parametrize("text, col", [("6 secs", 8), ("six seconds", 8), ("-6 seconds", 8),
                                       ("6", 8), ("'6 seconds ago'", 8), ("1.5 hours", 8)])
def test_bad_duration_is_e107(text, col):
    err = setting_error(f"name: x\nround: {text}\n")
    assert err.code == "E107"
    assert where(err) == (2, col)
    # the round length itself cannot be given in rounds, so it is not offered
    assert "seconds" in err.expected and "rounds" not in err.expected
    err = setting_error(f"name: x\ncalm: {text}\n")
    assert err.code == "E107" and "rounds" in err.expected


def test_number_without_unit_suggests_one():
    err = setting_error("calm: 10\n")
    assert err.code == "E107" and "10 seconds" in err.hint


def test_round_may_not_be_in_rounds():
    err = setting_error("round: 2 rounds\n")
    assert err.code == "E107" and where(err) == (1, 8)
    assert "rounds" in err.message


def test_round_of_zero_is_refused():
    assert setting_error("round: 0 seconds\n").code == "E107"


def test_duration_of_the_wrong_type_is_e104():
    err = setting_error("recovery: [1, day]\n")
    assert err.code == "E104" and where(err) == (1, 11)
    assert "rounds" in err.expected


def test_round_of_the_wrong_type_is_e104_and_offers_no_rounds():
    # R13: the round is the unit the other durations may be counted in, not one of its own
    err = setting_error("round: [6, seconds]\n")
    assert err.code == "E104" and where(err) == (1, 8)
    assert "seconds" in err.expected and "rounds" not in err.expected
    err = setting_error("round: 2 rounds\n")
    assert err.code == "E107" and "seconds" in err.expected and "rounds" not in err.expected


# ---------------------------------------------------------------------------
# E101 YAML that cannot be read

def test_e101_syntax_error_position():
    err = setting_error("name: x\nround: a: b\n")
    assert err.code == "E101"
    assert where(err) == (2, 9)
    assert err.position.file == "setting.yaml"


def test_e101_unclosed_flow_sequence():
    err = cast_error("parties:\n  Kara: {quintessence: 6, traits: [a\n")
    assert err.code == "E101"
    assert err.position.line >= 2


def test_e101_bad_character():
    err = setting_error("name: a\x07b\n")
    assert err.code == "E101" and where(err) == (1, 8)


def test_e101_not_utf8(tmp_path):
    path = write(tmp_path, "setting.yaml", b"name: ok\nround: caf\xe9\n")
    err = error_of(load_setting, path)
    assert err.code == "E101" and "UTF-8" in err.message
    assert err.position.file == path and where(err) == (2, 11)


def test_e101_several_documents():
    assert setting_error("name: a\n---\nname: b\n").code == "E101"


def test_e101_is_a_drama_error_without_ruamel_cause():
    err = setting_error("a: [\n")
    assert err.__cause__ is None and err.__context__ is None


def test_utf8_bom_is_accepted(tmp_path):
    path = write(tmp_path, "setting.yaml", "\ufeffname: Bom\n".encode("utf-8"))
    assert load_setting(path).name == "Bom"


# ---------------------------------------------------------------------------
# E102 duplicate keys

def test_e102_duplicate_key_points_at_the_second():
    err = setting_error("round: 6 seconds\nties: vote\nround: 1 minute\n")
    assert err.code == "E102"
    assert where(err) == (3, 1)
    assert "round" in err.message
    assert any("line 1" in note for note in err.notes)


def test_e102_duplicate_party_in_one_file():
    err = cast_error("parties:\n  Kara: {quintessence: 1}\n  Kara: {quintessence: 2}\n")
    assert err.code == "E102" and where(err) == (3, 3)


def test_e102_quoted_and_plain_keys_are_the_same_key():
    err = cast_error("parties:\n  Kara:\n    quintessence: 1\n    'quintessence': 2\n")
    assert err.code == "E102" and where(err) == (4, 5)


def test_e102_in_flow_mapping():
    err = cast_error("parties:\n  Kara: {quintessence: 1, traits: {A: 1, A: 2}}\n")
    assert err.code == "E102" and where(err) == (2, 42)


# ---------------------------------------------------------------------------
# E103 unknown keys, with did-you-mean

def test_e103_quintessence_misspelt():
    err = cast_error("parties:\n  Kara:\n    quintesence: 6\n")
    assert err.code == "E103"
    assert where(err) == (3, 5)
    assert err.hint == "did you mean 'quintessence'?"
    assert "'quintessence'" in err.expected


def test_e103_unknown_setting_key():
    err = setting_error("name: x\nrounds: 6 seconds\n")
    assert err.code == "E103" and where(err) == (2, 1)
    assert err.hint == "did you mean 'round'?"


def test_e103_unknown_dice_key():
    err = setting_error("dice: {sides: 6, hihg: 6}\n")
    assert err.code == "E103" and where(err) == (1, 18)
    assert err.hint == "did you mean 'high'?"


def test_e103_unknown_cast_top_key():
    err = cast_error("partys:\n  Kara: {quintessence: 1}\n")
    assert err.code == "E103" and err.hint == "did you mean 'parties'?"


def test_e103_unknown_scenario_key(tmp_path):
    write(tmp_path, "cast.yaml", CAST)
    path = write(tmp_path, "scenario.yaml", "title: T\ncast: cast.yaml\nscript: round\nsettings: s.yaml\n")
    err = error_of(load_scenario, path)
    assert err.code == "E103" and where(err) == (4, 1)
    assert err.hint == "did you mean 'setting'?"


def test_e103_no_suggestion_for_unrelated_key():
    err = setting_error("zzz: 1\n")
    assert err.code == "E103" and err.hint is None


# ---------------------------------------------------------------------------
# E104 wrong types and forms

@pytest.mark.parametrize("value", ["yes", "true", "6.0", "-1", "six", "[6]", "{n: 6}", "''"])
def test_e104_quintessence_must_be_a_whole_number(value):
    err = cast_error(f"parties:\n  Kara:\n    quintessence: {value}\n")
    assert err.code == "E104"
    assert where(err) == (3, 19)


def test_e104_boolean_is_not_an_int_even_with_an_anchor():
    err = cast_error("parties:\n  Kara:\n    quintessence: &q true\n")
    assert err.code == "E104"


def test_e104_empty_value_points_at_its_key():
    err = cast_error("parties:\n  Kara:\n    quintessence:\n")
    assert err.code == "E104" and where(err) == (3, 5)


def test_e104_top_level_not_a_mapping():
    assert setting_error("- a\n- b\n").code == "E104"
    assert cast_error("just text\n").code == "E104"
    assert error_of(loads_scenario, "[1, 2]\n").code == "E104"


def test_e104_tie_policy_with_did_you_mean():
    err = setting_error("ties: Actor\n")
    assert err.code == "E104" and where(err) == (1, 7)
    assert err.hint == "did you mean 'actor'?"
    assert err.expected == "'vote', 'actor', 'defender' or 'random'"


def test_e104_dice():
    assert where(setting_error("dice: {sides: 1}\n")) == (1, 15)
    err = setting_error("dice: {sides: 6, high: 7}\n")
    assert err.code == "E104" and where(err) == (1, 24)
    assert setting_error("dice: {sides: 6, high: 1}\n").code == "E104"
    assert setting_error("dice: 6\n").code == "E104"


def test_e104_name_must_be_text():
    err = setting_error("name: 42\n")
    assert err.code == "E104" and where(err) == (1, 7)


@pytest.mark.parametrize("party_id", ["GM", "Kara & Bren", "A,B", "'#1'", "\"a\\nb\"", "7", "true"])
def test_e104_bad_party_ids(party_id):
    err = cast_error(f"parties:\n  {party_id}: {{quintessence: 1}}\n")
    assert err.code == "E104" and where(err) == (2, 3)


def test_e104_gm_is_reserved_message():
    err = cast_error("parties:\n  GM: {quintessence: 1}\n")
    assert "reserved" in err.message


def test_e104_name_both_trait_and_treasure():
    err = cast_error("parties:\n  Kara:\n    quintessence: 1\n    traits: {Fire: 1}\n    treasures: {Fire: 2}\n")
    assert err.code == "E104" and where(err) == (5, 17)
    assert "both a trait and a treasure" in err.message


def test_e104_trait_levels():
    err = cast_error("parties:\n  Kara:\n    quintessence: 1\n    traits: {Fire: -1}\n")
    assert err.code == "E104" and where(err) == (4, 20)
    err = cast_error("parties:\n  Kara:\n    quintessence: 1\n    treasures: {Staff: yes}\n")
    assert err.code == "E104" and where(err) == (4, 24)


def test_e104_trait_name_with_plus():
    err = cast_error("parties:\n  Kara:\n    quintessence: 1\n    traits: {Fire+Ice: 1}\n")
    assert err.code == "E104" and where(err) == (4, 14)


def test_e104_members_must_be_a_list_of_names():
    err = cast_error("parties:\n  G:\n    quintessence: 1\n    members: Snik\n")
    assert err.code == "E104" and where(err) == (4, 14)
    err = cast_error("parties:\n  G:\n    quintessence: 1\n    members: [Snik, 3]\n")
    assert err.code == "E104" and where(err) == (4, 21)


def test_e104_move_with_two_traits():
    err = cast_error("parties:\n  K:\n    quintessence: 1\n    traits: {A: 1, B: 1}\n    moves: {x: A + B}\n")
    assert err.code == "E104" and where(err) == (5, 20)


def test_e104_move_of_the_wrong_form():
    err = cast_error("parties:\n  K:\n    quintessence: 1\n    traits: {A: 1}\n    moves: {x: A + }\n")
    assert err.code == "E104" and where(err) == (5, 16)
    err = cast_error("parties:\n  K:\n    quintessence: 1\n    traits: {A: 1}\n    moves: {x: 3}\n")
    assert err.code == "E104"


def test_e104_scalar_that_cannot_be_read():
    err = cast_error("parties:\n  K:\n    quintessence: !!int abc\n")
    assert err.code == "E104" and where(err) == (3, 19)
    assert cast_error("parties:\n  K:\n    quintessence: !!bool maybe\n").code == "E104"


def test_e104_scenario_value_types(tmp_path):
    write(tmp_path, "cast.yaml", CAST)
    err = error_of(load_scenario, write(tmp_path, "a.yaml", "title: [x]\ncast: cast.yaml\nscript: round\n"))
    assert err.code == "E104" and where(err) == (1, 8)
    err = error_of(load_scenario, write(tmp_path, "b.yaml", "title: x\ncast: {a: 1}\nscript: round\n"))
    assert err.code == "E104" and where(err) == (2, 7)
    err = error_of(load_scenario, write(tmp_path, "c.yaml", "title: x\ncast: cast.yaml\nscript: 3\n"))
    assert err.code == "E104" and where(err) == (3, 9)


def test_e104_folded_script_block(tmp_path):
    write(tmp_path, "cast.yaml", CAST)
    path = write(tmp_path, "s.yaml", "title: x\ncast: cast.yaml\nscript: >\n  round\n  round\n")
    err = error_of(load_scenario, path)
    assert err.code == "E104" and where(err) == (3, 9)


def test_e104_date_like_values_are_text():
    assert loads_setting("name: 2024-01-01\n").name == "2024-01-01"


# ---------------------------------------------------------------------------
# E105 missing keys

def test_e105_missing_quintessence_points_at_the_party():
    err = cast_error("parties:\n  Kara:\n    name: Kara\n")
    assert err.code == "E105" and where(err) == (2, 3)
    assert "quintessence" in err.message


def test_e105_party_with_nothing():
    err = cast_error("parties:\n  Kara:\n")
    assert err.code == "E105" and where(err) == (2, 3)


def test_e105_missing_parties():
    assert cast_error("").code == "E105"
    err = error_of(loads_cast, "# x\n", "c.yaml")
    assert err.code == "E105" and err.position.file == "c.yaml"


@pytest.mark.parametrize("text, missing", [
    ("cast: cast.yaml\nscript: round\n", "title"),
    ("title: T\nscript: round\n", "cast"),
    ("title: T\ncast: cast.yaml\n", "script"),
])
def test_e105_missing_scenario_keys(tmp_path, text, missing):
    write(tmp_path, "cast.yaml", CAST)
    err = error_of(load_scenario, write(tmp_path, "s.yaml", text))
    assert err.code == "E105" and f"'{missing}'" in err.message
    assert where(err) == (1, 1)


def test_e105_empty_scenario(tmp_path):
    assert error_of(load_scenario, write(tmp_path, "s.yaml", "")).code == "E105"


# ---------------------------------------------------------------------------
# E106 tags: never construct objects

def test_e106_python_object_apply_does_not_run(tmp_path):
    marker = tmp_path / "MARKER"
    text = f'round: !!python/object/apply:os.system ["echo hi > {marker}"]\n'
    err = error_of(load_setting, write(tmp_path, "s.yaml", text))
    assert err.code == "E106"
    assert where(err) == (1, 8)
    assert "!!python/object/apply:os.system" in err.message
    assert not marker.exists()


def test_e106_python_object_apply_in_a_cast(tmp_path):
    marker = tmp_path / "MARKER"
    text = f'parties:\n  Kara:\n    quintessence: !!python/object/apply:os.system ["touch {marker}"]\n'
    err = error_of(load_cast, [write(tmp_path, "c.yaml", text)])
    assert err.code == "E106" and where(err) == (3, 19)
    assert not marker.exists()


@pytest.mark.parametrize("text, pos", [
    ("name: !!python/object:dsl.engine.parties.Settings {}\n", (1, 7)),
    ("name: !!python/name:os.system\n", (1, 7)),
    ("name: !custom x\n", (1, 7)),
    ("dice: !!set {6: null}\n", (1, 7)),
    ("name: !!binary aGk=\n", (1, 7)),
    ("!!python/object/new:dict {}\n", (1, 1)),
    ("name: !!str [a]\n", (1, 7)),
    ("? !!python/tuple [a, b]\n: 1\n", (1, 3)),
])
def test_e106_other_tags(text, pos):
    err = setting_error(text)
    assert err.code == "E106" and where(err) == pos


def test_plain_core_tags_are_fine():
    settings = loads_setting("name: !!str 42\ndice: !!map {sides: !!int '8'}\n")
    assert settings.name == "42" and settings.sides == 8


# ---------------------------------------------------------------------------
# E108 files

def test_e108_missing_cast_points_at_the_scenario_key(tmp_path):
    path = write(tmp_path, "scenario.yaml", "title: T\ncast: nowhere.yaml\nscript: round\n")
    err = error_of(load_scenario, path)
    assert err.code == "E108"
    assert os.path.join(str(tmp_path), "nowhere.yaml") in err.message
    assert err.position.file == path and where(err) == (2, 7)


def test_e108_missing_file_in_a_cast_list(tmp_path):
    write(tmp_path, "cast.yaml", CAST)
    path = write(tmp_path, "scenario.yaml", "title: T\ncast:\n  - cast.yaml\n  - more.yaml\nscript: round\n")
    err = error_of(load_scenario, path)
    assert err.code == "E108" and where(err) == (4, 5)


def test_e108_missing_setting_and_script(tmp_path):
    write(tmp_path, "cast.yaml", CAST)
    err = error_of(load_scenario, write(tmp_path, "a.yaml",
                                        "title: T\nsetting: s.yaml\ncast: cast.yaml\nscript: round\n"))
    assert err.code == "E108" and where(err) == (2, 10) and "s.yaml" in err.message
    err = error_of(load_scenario, write(tmp_path, "b.yaml", "title: T\ncast: cast.yaml\nscript: play.drama\n"))
    assert err.code == "E108" and where(err) == (3, 9) and "play.drama" in err.message


def test_e108_script_not_utf8(tmp_path):
    write(tmp_path, "cast.yaml", CAST)
    write(tmp_path, "play.drama", b"round\n\xff\n")
    err = error_of(load_scenario, write(tmp_path, "s.yaml", "title: T\ncast: cast.yaml\nscript: play.drama\n"))
    assert err.code == "E108" and where(err) == (3, 9) and "UTF-8" in err.message


def test_e108_direct_paths(tmp_path):
    err = error_of(load_setting, str(tmp_path / "none.yaml"))
    assert err.code == "E108" and "none.yaml" in err.message
    assert error_of(load_cast, [str(tmp_path)]).code == "E108"        # a folder
    assert error_of(load_scenario, tmp_path / "none.yaml").code == "E108"


# ---------------------------------------------------------------------------
# E109 a party defined twice, across cast files

def test_cast_split_over_two_files(tmp_path):
    write(tmp_path, "heroes.yaml", "parties:\n  Kara: {quintessence: 6, traits: {Sorcery: 3}}\n")
    write(tmp_path, "villains.yaml", "parties:\n  Overlord: {quintessence: 7}\n  Goblins: {quintessence: 4}\n")
    write(tmp_path, "play.drama", DRAMA)
    path = write(tmp_path, "scenario.yaml", "title: T\ncast: [heroes.yaml, villains.yaml]\nscript: play.drama\n")
    scenario = load_scenario(path)
    assert [p.id for p in scenario.cast] == ["Kara", "Overlord", "Goblins"]
    assert scenario.cast[1].pos.file == os.path.join(str(tmp_path), "villains.yaml")


def test_e109_party_defined_in_two_files(tmp_path):
    first = write(tmp_path, "a.yaml", "parties:\n  Kara: {quintessence: 6}\n")
    second = write(tmp_path, "b.yaml", "parties:\n  Bren: {quintessence: 5}\n  Kara: {quintessence: 1}\n")
    err = error_of(load_cast, [first, second])
    assert err.code == "E109"
    assert err.position.file == second and where(err) == (3, 3)
    assert any(f"{first}:2:3" in note for note in err.notes)


def test_cast_file_listed_twice_is_one_error(tmp_path):
    write(tmp_path, "cast.yaml", CAST)
    err = error_of(load_scenario, write(tmp_path, "s.yaml", "title: T\ncast: [cast.yaml, ./cast.yaml]\nscript: x\n"))
    assert err.code == "E104" and where(err) == (2, 19)


# ---------------------------------------------------------------------------
# E110 moves

def test_e110_move_names_a_missing_trait():
    err = cast_error(textwrap.dedent("""\
        parties:
          Kara:
            quintessence: 6
            traits: {Sorcery: 3}
            treasures: {Ember Staff: 2}
            moves:
              fireball: Sorcery + Ember Stuff
        """))
    assert err.code == "E110"
    assert where(err) == (7, 27)
    assert err.position.end_column == 38
    assert err.hint == "did you mean 'Ember Staff'?"
    assert "'Sorcery'" in err.expected and "'Ember Staff'" in err.expected


def test_e110_move_with_a_quoted_value():
    err = cast_error("parties:\n  K:\n    quintessence: 1\n    traits: {Fire: 1}\n    moves: {x: \"Fir\"}\n")
    assert err.code == "E110" and where(err) == (5, 17)
    assert err.hint == "did you mean 'Fire'?"


@pytest.mark.parametrize("move, expected", [
    ("Sorcery + Ember Staff", Move("Sorcery", "Ember Staff")),
    ("Ember Staff + Sorcery", Move("Sorcery", "Ember Staff")),
    ("Sorcery", Move("Sorcery", None)),
    ("Ember Staff", Move(None, "Ember Staff")),
    ("  Sorcery+Ember Staff ", Move("Sorcery", "Ember Staff")),
])
def test_move_forms(move, expected):
    (party,) = loads_cast("parties:\n  Kara:\n    quintessence: 6\n    traits: {Sorcery: 3}\n"
                          f"    treasures: {{Ember Staff: 2}}\n    moves: {{fireball: '{move}'}}\n")
    assert party.moves["fireball"] == expected


# ---------------------------------------------------------------------------
# inline scripts

def test_inline_script_line_offset(tmp_path):
    write(tmp_path, "cast.yaml", CAST)
    text = textwrap.dedent("""\
        title: Inline
        cast: cast.yaml
        # the script follows
        script: |
          scene "Hall"

          drama "Hall" with Kara, Bren
            Kara with Sorcery
          end drama
        """)
    path = write(tmp_path, "scenario.yaml", text)
    script = load_scenario(path).script
    assert script.file == path
    assert script.line_offset == 4
    assert script.text.startswith('scene "Hall"\n\ndrama')
    file_lines = text.splitlines()
    for n, line in enumerate(script.text.splitlines(), start=1):
        real = file_lines[script.line_offset + n - 1]
        assert real[script.column_offset:] == line
    # `drama` is at line 3, column 1 of the text: line 7, column 3 of the YAML
    assert (script.position(3).line, script.position(3).column) == (7, 3)


def test_inline_script_single_line(tmp_path):
    write(tmp_path, "cast.yaml", CAST)
    path = write(tmp_path, "s.yaml", "title: T\ncast: cast.yaml\nscript: Kara fireball -> Overlord\n")
    script = load_scenario(path).script
    assert script.text == "Kara fireball -> Overlord"
    assert script.line_offset + 1 == 3
    assert script.position(1, 1).column == 9


def test_block_ending_in_drama_is_still_inline(tmp_path):
    write(tmp_path, "cast.yaml", CAST)
    path = write(tmp_path, "s.yaml", "title: T\ncast: cast.yaml\nscript: |-\n  > see act-two.drama\n")
    script = load_scenario(path).script
    assert script.text == "> see act-two.drama" and script.file == path


def test_quoted_drama_path_is_a_file(tmp_path):
    write(tmp_path, "cast.yaml", CAST)
    write(tmp_path, "my play.drama", DRAMA)
    path = write(tmp_path, "s.yaml", "title: T\ncast: cast.yaml\nscript: 'my play.drama'\n")
    script = load_scenario(path).script
    assert script.text == DRAMA and script.line_offset == 0


def test_crlf_script_file(tmp_path):
    write(tmp_path, "cast.yaml", CAST)
    write(tmp_path, "p.drama", b"round\r\nround\r\n")
    path = write(tmp_path, "s.yaml", "title: T\r\ncast: cast.yaml\r\nscript: p.drama\r\n")
    assert load_scenario(path).script.text == "round\nround\n"


# ---------------------------------------------------------------------------
# merge keys and aliases

def test_merge_keys():
    (a, b) = loads_cast(textwrap.dedent("""\
        parties:
          A: &base
            quintessence: 3
            traits: {Numbers: 2}
          B:
            <<: *base
            quintessence: 5
        """))
    assert (a.quintessence, dict(a.traits)) == (3, {"Numbers": 2})
    assert (b.quintessence, dict(b.traits)) == (5, {"Numbers": 2})
    assert b.traits is not a.traits


def test_recursive_alias_is_an_error_not_a_hang():
    err = cast_error("parties:\n  G:\n    quintessence: 1\n    members: &m [a, *m]\n")
    assert err.code == "E104"


def test_bad_merge_value():
    err = cast_error("parties:\n  G:\n    <<: 3\n    quintessence: 1\n")
    assert err.code == "E104" and where(err) == (3, 9)


# ---------------------------------------------------------------------------
# errors= collects several errors

def test_errors_collects_many(tmp_path):
    write(tmp_path, "setting.yaml", "round: 6 secs\nties: votes\n")
    write(tmp_path, "cast.yaml", textwrap.dedent("""\
        parties:
          Kara:
            quintesence: 6
            traits: {Sorcery: 3}
            moves: {fireball: Sorcry}
          GM: {quintessence: 1}
          Bren: {quintessence: 5}
        """))
    path = write(tmp_path, "scenario.yaml",
                 "title: T\nsetting: setting.yaml\ncast: [cast.yaml, gone.yaml]\nscript: |\n  round\nbogus: 1\n")
    errors: list = []
    scenario = load_scenario(path, errors=errors)
    codes = [e.code for e in errors]
    assert codes == ["E103", "E107", "E104", "E108", "E103", "E105", "E110", "E104"]
    assert all(isinstance(e, DramaError) and e.position is not None for e in errors)
    # what was valid is still there
    assert [p.id for p in scenario.cast] == ["Kara", "Bren"]
    assert scenario.cast[1].quintessence == 5
    assert scenario.setting == Settings()
    assert scenario.script.text == "round\n"


def test_errors_appends_to_the_given_list(tmp_path):
    errors: list = ["earlier"]
    settings = loads_setting("round: x\ncalm: y\nties: z\nname: ok\n", errors=errors)
    assert [e.code for e in errors[1:]] == ["E107", "E107", "E104"]
    assert settings.name == "ok" and settings.round == Duration(6, "second")


def test_errors_collects_every_duplicate_and_tag():
    errors: list = []
    loads_setting("name: a\nname: b\nround: !x 1\nties: !y vote\n", errors=errors)
    assert [e.code for e in errors] == ["E102", "E106", "E106"]


def test_errors_raises_only_when_nothing_can_be_built(tmp_path):
    errors: list = []
    with pytest.raises(ErrorList) as info:
        load_scenario(write(tmp_path, "s.yaml", "title: [\n"), errors=errors)
    assert [e.code for e in info.value.errors] == ["E101"] == [e.code for e in errors]
    errors = []
    with pytest.raises(ErrorList):
        load_scenario(str(tmp_path / "missing.yaml"), errors=errors)
    assert [e.code for e in errors] == ["E108"]


def test_errors_with_missing_keys_still_returns(tmp_path):
    errors: list = []
    scenario = load_scenario(write(tmp_path, "s.yaml", "title: T\n"), errors=errors)
    assert [e.code for e in errors] == ["E105", "E105"]
    assert scenario.cast == () and scenario.title == "T"


def test_without_errors_the_first_error_is_raised(tmp_path):
    err = cast_error("parties:\n  A: {quintessence: x}\n  B: {quintessence: y}\n")
    assert where(err) == (2, 21)


# ---------------------------------------------------------------------------
# nothing but DramaError escapes, whatever the input

WEIRD = [
    "", "\n", "~", "null", "[]", "{}", "- - -", "a", "1", "parties:", "parties: ~", "parties: []",
    "parties: {~: 1}", "parties: {[a]: {quintessence: 1}}", "parties: {{a: 1}: 1}",
    "parties: {K: {quintessence: 1, traits: [a]}}", "parties: {K: {quintessence: 1, moves: [a]}}",
    "parties: {K: {quintessence: 1, moves: {~: a}}}", "parties: {K: {quintessence: 99999999999999999999999}}",
    "parties: {K: {quintessence: " + "9" * 5000 + "}}",
    "parties: {K: {quintessence: .inf}}", "parties: {K: {name: ~, quintessence: 1}}",
    "parties: {K: {quintessence: 1, <<: [1, 2]}}", "parties: {K: {quintessence: 1, <<: *x}}",
    "a: &a [*a]", "&a {b: *a}", "[" * 500 + "]" * 500, "{" * 2000,
    "%YAML 1.1\n---\nparties: {K: {quintessence: yes}}", "%TAG !! tag:evil.com,2000:\n---\nname: !!str x",
    "name: 2001-02-30", "round: !!timestamp 2001-01-01", "dice: {sides: !!float x}", "\t\tname: x",
    "name: \"\\uZZZZ\"", "title: T\ncast: \"\\0\"\nscript: x", "title: T\ncast: []\nscript: x",
    "title: T\ncast: [~]\nscript: x", "title: T\ncast: c\nscript: ''",
]


@pytest.mark.parametrize("text", WEIRD)
def test_weird_input_only_gives_drama_errors(tmp_path, text):
    path = write(tmp_path, "x.yaml", text)
    for loader, arg in ((load_setting, path), (load_cast, [path]), (load_scenario, path)):
        try:
            loader(arg)
        except DramaError as err:      # the loader's codes, or the reader's (E520-E522)
            assert err.code.startswith("E1") or err.code in ("E520", "E521", "E522")
        errors: list = []
        try:
            loader(arg, errors=errors)
        except DramaError:
            pass
        assert all(isinstance(e, DramaError) for e in errors)


_TOKENS = list("abKq: -[]{},&*!|>#'\"\n0123456789.~<?%\t\\") + [
    "parties", "quintessence", "traits", "moves", "title", "cast", "script", "round", "dice",
    "  ", "    ", "!!python/", "<<", "GM", "+", "6 seconds", "yes", "\u00e9"]
_YAMLISH = st.lists(st.sampled_from(_TOKENS), max_size=40).map("".join)


@hyp_settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=_YAMLISH)
def test_fuzz_only_drama_errors(text):
    for loader in (loads_setting, loads_cast, loads_scenario):
        try:
            loader(text)
        except DramaError:
            pass
        errors: list = []
        try:
            loader(text, errors=errors)
        except DramaError:
            pass
        assert all(isinstance(e, DramaError) for e in errors)


MERGE_AND_DUPLICATE = """\
parties:
  Kara:
    <<: 3
    quintessence: 6
    quintessence: 7
    traits: !!python/object {Sorcery: 3}
"""


def test_a_file_read_again_unchanged_gives_the_same_errors_again(tmp_path):
    """A composed YAML file is kept for the next load of the same text (the language
    server re-checks the cast on every edit of the script): every load still reports
    all of its errors, the bad merge (found while the mapping is read, after composing)
    included, and a changed file is composed anew."""
    (tmp_path / "scenario.yaml").write_text("title: T\ncast: cast.yaml\nscript: |\n  > hello\n")
    (tmp_path / "cast.yaml").write_text(MERGE_AND_DUPLICATE)
    first = [e.format() for e in dsl.check(tmp_path / "scenario.yaml")]
    again = [e.format() for e in dsl.check(tmp_path / "scenario.yaml")]
    assert first == again
    assert {"E102", "E104", "E106"} <= {line.split("[")[1][:4] for line in first if "error[" in line}
    (tmp_path / "cast.yaml").write_text(MERGE_AND_DUPLICATE.replace("quintessence: 7\n", ""))
    changed = [e.format() for e in dsl.check(tmp_path / "scenario.yaml")]
    assert not any("E102" in line for line in changed)
