"""End to end: the `drama` command itself: help and version, the text format,
`-o`, seeds and byte-identical output, the bundled scenarios, and real
`python -m dsl` processes."""

from __future__ import annotations

import re
import json
import os
import stat
from importlib.metadata import version
from pathlib import Path

import pytest

from conftest import (EMBERFALL_CAST, SCENARIOS, copy_emberfall, copy_repo_file, drama, drama_process,
                      exchanges, make_scenario, run_events, write)

# ---------------------------------------------------------------------------
# help and version


@pytest.mark.parametrize("args, example", [
    ([], "drama run scenarios/emberfall/scenario.yaml"),
    (["run"], "drama run scenarios/ambush/scenario.yaml --seed 7"),
    (["check"], "drama check scenarios/emberfall/scenario.yaml"),
])
def test_help_shows_examples(args, example):
    for flag in ("--help", "-h"):
        outcome = drama(*args, flag)
        assert outcome.code == 0 and outcome.stderr == ""
        assert "Examples:" in outcome.stdout and example in outcome.stdout
        assert outcome.stdout.startswith(f"Usage: drama {' '.join(args)}".rstrip() + " ")


def test_run_help_lists_every_option():
    text = drama("run", "--help").stdout
    for option in ("--seed", "--format [text|json]", "-o, --output", "--lenient"):
        assert option in text


def test_version():
    for flag in ("--version", "-V"):
        outcome = drama(flag)
        assert outcome.code == 0
        assert outcome.stdout == f"drama, version {version('drama')}\n"


# ---------------------------------------------------------------------------
# the text format

EMBERFALL_TEXT_LINES = [
    "== The Fall of Emberfall ==",
    "      start: Kara 6/0, Bren 5/0, Overlord 7/0, Goblins 4/0",
    "   2  # The Throne Hall of Emberfall",
    "   3  > Torches gutter as the heroes kick open the doors.",
    "   6  initiative Kara 5, Bren 2, Overlord 6, Goblins 3: order Overlord, Kara, Goblins, Bren",
    "   9    Overlord with Brutality + Obsidian Crown, 6 2; Bren with Strength + Iron Shield, 3 1 "
    "=> Overlord 12, Bren 8: Overlord wins   [Bren 2/3]",
    "  12  Kara fireball -> Overlord, Goblins but not tapestries; spends Kara 2   [Kara 4/2]",
    "  12    Kara with Sorcery + Ember Staff, 6 6 4; Overlord with Cunning + Obsidian Crown, 5 1 "
    "=> Kara 21, Overlord 11: Kara wins   [Overlord 3/4]",
    "  12    Kara with Sorcery + Ember Staff, 6 6 4; Goblins with Numbers + Rusty Spears, 2 "
    "=> Kara 21, Goblins 5: Kara wins DOUBLE   [Goblins 1/3]",
    "  15    Kara dictates: the goblins scatter into the kitchens",
    "  19    Goblins reroll 4 lost: 3 1 5 2, 3 back   [Goblins 3/1]",       # a group agrees (issue 15)
    "  21  Bren rushed recovery: 6 4 2 then 5 3, 1 back   [Bren 3/2]",
    "  23  round 2 (t = 6 s)",
    "  29    Goblins with Numbers + Rusty Spears, 1 1 => Goblins 5 vs target 5: GM wins (tie, vote)   [Goblins 1/3]",
    "  41    Overlord is defeated in Throne Hall   [Overlord 0/7 (defeated)]",
    "  45  end of Throne Hall after 3 rounds: The Overlord falls; the goblins throw down their spears.",
    "  47  calm 1 h",
    "  48  Kara recovery: 4 4 2 1, 2 back   [Kara 4/2]",
    "      final: Kara 4/2, Bren 3/2, Overlord 0/7, Goblins 1/3",
]

# the closing table of every party's state
EMBERFALL_CLOSING_TABLE = [
    "",
    "      party     available  damage pool  maximum",
    "      Kara              4            2        6",
    "      Bren              3            2        5",
    "      Overlord          0            7        7",
    "      Goblins           1            3        4",
]


def test_text_format_of_emberfall(tmp_path):
    path = copy_emberfall(tmp_path)
    outcome = drama("run", path, "--format", "text")
    assert outcome.code == 0 and outcome.stderr == ""
    lines = outcome.stdout.splitlines()
    for line in EMBERFALL_TEXT_LINES:
        assert line in lines, line
    assert lines[0] == EMBERFALL_TEXT_LINES[0]
    assert lines[-7:] == EMBERFALL_TEXT_LINES[-1:] + EMBERFALL_CLOSING_TABLE
    # text is the default format
    assert drama("run", path).stdout == outcome.stdout


def test_json_lines_are_compact_objects_ending_in_a_newline(tmp_path):
    path = copy_emberfall(tmp_path)
    text = drama("run", path, "--format", "json").stdout
    assert text.endswith("}\n") and "\n\n" not in text
    for line in text.splitlines():
        assert line.startswith('{"type": ') and json.loads(line)


def test_json_keeps_non_ascii_text(tmp_path):
    path = make_scenario(tmp_path, 'scene "Château d’If — 城"\n')
    outcome = drama("run", path, "--format", "json")
    assert "Château d’If — 城" in outcome.stdout
    assert [e["title"] for e in run_events(path) if e["type"] == "scene"] == ["Château d’If — 城"]


def test_failed_run_prints_nothing_on_stdout(tmp_path):
    path = make_scenario(tmp_path, 'drama "X" with Kara, Bren\nKara fireball -> Brenn\n')
    for fmt in ("text", "md"):
        outcome = drama("run", path, "--format", fmt)
        assert outcome.code == 1 and outcome.stdout == ""
        assert "error[E201]" in outcome.stderr


def test_a_failed_json_run_has_streamed_the_events_before_the_error(tmp_path):
    """`--format json` writes each event as it is made: on standard output a
    failed run leaves the complete lines of the events before its error, and
    no `final` event; with -o it leaves no file at all (written at the end)."""
    path = make_scenario(tmp_path, 'drama "X" with Kara, Bren\nKara fireball -> Brenn\n')
    outcome = drama("run", path, "--format", "json")
    assert outcome.code == 1 and "error[E201]" in outcome.stderr
    assert [json.loads(line)["type"] for line in outcome.stdout.splitlines()] == ["start", "drama"]
    target = tmp_path / "events.jsonl"
    outcome = drama("run", path, "--format", "json", "-o", target)
    assert outcome.code == 1 and not target.exists() and list(tmp_path.glob(".events.jsonl*")) == []


# ---------------------------------------------------------------------------
# -o


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_output_file_has_the_bytes_of_stdout_and_no_temp_file_is_left(tmp_path, fmt):
    path = copy_emberfall(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    stdout = drama("run", path, "--format", fmt).stdout
    outcome = drama("run", path, "--format", fmt, "-o", out / "events.log")
    assert outcome.code == 0 and outcome.stdout == "" and outcome.stderr == ""
    assert (out / "events.log").read_bytes() == stdout.encode("utf-8")
    assert os.listdir(out) == ["events.log"]
    # writing again replaces the file
    drama("run", path, "--format", fmt, "-o", out / "events.log")
    assert (out / "events.log").read_bytes() == stdout.encode("utf-8")
    assert os.listdir(out) == ["events.log"]


def test_output_file_is_not_written_when_the_run_fails(tmp_path):
    path = make_scenario(tmp_path, 'drama "X" with Kara, Bren\nKara fireball -> Brenn\n')
    outcome = drama("run", path, "-o", tmp_path / "events.txt")
    assert outcome.code == 1
    assert not (tmp_path / "events.txt").exists()
    assert sorted(os.listdir(tmp_path)) == ["cast.yaml", "scenario.yaml", "script.drama", "setting.yaml"]


def test_output_file_mode_follows_the_umask(tmp_path):
    path = copy_emberfall(tmp_path)
    old = os.umask(0o022)
    try:
        drama("run", path, "-o", tmp_path / "events.txt")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "events.txt").stat().st_mode) == 0o644


def test_output_through_a_symbolic_link(tmp_path):
    path = copy_emberfall(tmp_path)
    target = tmp_path / "real.txt"
    target.write_text("old\n")
    link = tmp_path / "link.txt"
    link.symlink_to(target)
    outcome = drama("run", path, "-o", link)
    assert outcome.code == 0
    assert link.is_symlink()
    assert target.read_text().startswith("== The Fall of Emberfall ==")


# ---------------------------------------------------------------------------
# seeds


@pytest.fixture
def ambush(tmp_path) -> Path:
    """scenarios/ambush, with the Emberfall cast it names (../emberfall/cast.yaml)."""
    write(tmp_path, "emberfall/cast.yaml", EMBERFALL_CAST)
    copy_repo_file("ambush/setting.yaml", tmp_path / "ambush")
    return copy_repo_file("ambush/scenario.yaml", tmp_path / "ambush")


def test_same_seed_gives_byte_identical_output(ambush):
    for fmt in ("json", "text"):
        for seed in ("0", "7", "123456789"):
            first = drama("run", ambush, "--seed", seed, "--format", fmt)
            second = drama("run", ambush, "--seed", seed, "--format", fmt)
            assert first.code == 0 and first.stdout == second.stdout
    # the default seed is 0
    assert drama("run", ambush).stdout == drama("run", ambush, "--seed", "0").stdout


def test_different_seeds_give_different_dice(ambush):
    rolls = {}
    for seed in range(6):
        events = run_events(ambush, "--seed", str(seed))
        assert events[0]["seed"] == seed
        rolls[seed] = tuple(tuple(e["sides"]["attacker"]["efforts"][0]["dice"]) for e in exchanges(events))
    assert len(set(rolls.values())) == len(rolls)


def test_seed_changes_only_the_rolled_dice(tmp_path):
    """A play log with every die given is the same whatever the seed."""
    path = copy_emberfall(tmp_path)
    base = run_events(path)
    for seed in ("1", "99"):
        events = run_events(path, "--seed", seed)
        assert events[1:] == base[1:]


def test_a_negative_seed_is_a_usage_error(ambush):
    """random.Random(-1) rolls as Random(1): a negative seed would repeat another."""
    outcome = drama("run", ambush, "--seed", "-1")
    assert outcome.code == 2
    assert "-1 is not in the range x>=0" in outcome.stderr


def test_record_writes_a_play_log_that_replays_the_run(ambush, tmp_path):
    """--record: every die given, every tie named; running it gives the same run."""
    recorded = tmp_path / "ambush-7.drama"
    first = drama("run", ambush, "--seed", "7", "--format", "json", "--record", recorded)
    assert first.code == 0, first.stderr
    text = recorded.read_text()
    assert "rolled" in text and not re.search(r", roll\b", text)
    scenario = Path(ambush).with_name("replay.yaml")
    scenario.write_text(Path(ambush).read_text().split("script:")[0] + f"script: {recorded.name}\n")
    recorded.replace(scenario.with_name(recorded.name))
    from dsl.syntax.printer import normalise
    replayed = run_events(scenario, "--seed", "3")
    assert normalise(replayed) == normalise([json.loads(line) for line in first.stdout.splitlines()])


def test_record_refuses_an_input_file_and_writes_nothing(ambush):
    before = Path(ambush).read_text()
    outcome = drama("run", ambush, "--record", ambush)
    assert outcome.code == 1 and "error[E501]" in outcome.stderr
    assert Path(ambush).read_text() == before


def test_same_output_in_a_real_process(ambush):
    process = drama_process("run", ambush, "--seed", "7", "--format", "json")
    assert process.returncode == 0 and process.stderr == ""
    assert process.stdout == drama("run", ambush, "--seed", "7", "--format", "json").stdout
    again = drama_process("run", ambush, "--seed", "7", "--format", "json")
    assert again.stdout == process.stdout


# ---------------------------------------------------------------------------
# the bundled scenarios


@pytest.mark.parametrize("cast", ["with-embers", "with-wanderers"])
def test_grey_ford_runs_with_both_casts_for_many_seeds(cast):
    path = SCENARIOS / "grey-ford" / f"{cast}.yaml"
    finals = set()
    for seed in range(21):
        events = run_events(path, "--seed", str(seed))
        kinds = [e["type"] for e in events]
        assert kinds.count("exchange") == 6 and "drama_end" in kinds and "recovery" in kinds
        for party in events[-1]["parties"].values():
            assert party["quintessence"] >= 0 and party["damage_pool"] >= 0
        maximum = {pid: c["maximum"] for pid, c in events[0]["cast"].items()}
        assert {pid: s["quintessence"] + s["damage_pool"] for pid, s in events[-1]["parties"].items()} == maximum
        finals.add(json.dumps(events[-1]["parties"], sort_keys=True))
    assert len(finals) > 1


def test_grey_ford_casts_differ():
    embers = run_events(SCENARIOS / "grey-ford" / "with-embers.yaml")
    wanderers = run_events(SCENARIOS / "grey-ford" / "with-wanderers.yaml")
    assert embers[0]["cast"]["Kara"]["name"] == "Kara the Ember-Witch"
    assert wanderers[0]["cast"]["Ysolde"]["name"] == "Ysolde of the Seven Blades"


def scenario_files() -> list[Path]:
    """Every scenario YAML of scenarios/: the YAML files with a top-level `script:`."""
    found = []
    for path in sorted(SCENARIOS.rglob("*.yaml")):
        text = path.read_text(encoding="utf-8")
        if any(line.startswith("script:") for line in text.splitlines()):
            found.append(path)
    return found


def test_the_bundled_scenarios_are_found():
    names = {str(p.relative_to(SCENARIOS)) for p in scenario_files()}
    assert {"emberfall/scenario.yaml", "ambush/scenario.yaml", "grey-ford/with-embers.yaml",
            "grey-ford/with-wanderers.yaml"} <= names


@pytest.mark.parametrize("path", scenario_files(), ids=lambda p: str(p.relative_to(SCENARIOS)))
def test_check_every_bundled_scenario(path):
    outcome = drama("check", path)
    assert (outcome.code, outcome.stdout, outcome.stderr) == (0, f"{path}: ok\n", "")
    ran = drama("run", path)
    if ran.code != 0 and "error[E330]" in ran.stderr:
        # an adventure that asks the players: a strict run wants every choice made
        ran = drama("run", path, "--lenient")
    assert ran.code == 0


def test_check_ok_in_a_real_process(tmp_path):
    path = copy_emberfall(tmp_path)
    process = drama_process("check", "scenario.yaml", cwd=tmp_path)
    assert (process.returncode, process.stdout, process.stderr) == (0, "scenario.yaml: ok\n", "")


def test_python_m_dsl_run(tmp_path):
    path = copy_emberfall(tmp_path)
    process = drama_process("run", "scenario.yaml", "--format", "json", cwd=tmp_path)
    assert process.returncode == 0 and process.stderr == ""
    assert process.stdout == drama("run", path, "--format", "json").stdout
    process = drama_process("run", "scenario.yaml", "-o", "events.txt", cwd=tmp_path)
    assert process.returncode == 0 and process.stdout == ""
    assert (tmp_path / "events.txt").read_text(encoding="utf-8") == drama("run", path).stdout
