"""`drama new`: the starter and the bundled examples as new folders, each clean for `drama check`,
`drama fmt --check` and its schemas; nothing written over."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from conftest import SCENARIOS, drama, write
from dsl.loader.json_schema import modeline_target
from test_schema import load_yaml

EXAMPLES = sorted(p.name for p in SCENARIOS.iterdir() if p.is_dir())


def scenarios_in(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*.yaml")
                  if (modeline_target(p.read_text()) or "").endswith("scenario.schema.json"))


def assert_clean(folder: Path) -> None:
    """Every scenario checks clean, every script is laid out, every YAML file follows the schema its
    modeline names, inside the folder."""
    scenarios = scenarios_in(folder)
    assert scenarios
    for scenario in scenarios:
        outcome = drama("check", scenario)
        assert outcome.code == 0 and outcome.stderr == "", outcome.output
    laid_out = drama("fmt", "--check", folder)
    assert laid_out.code == 0, laid_out.output
    for path in folder.rglob("*.yaml"):
        if path.name.endswith(".test.yaml"):
            continue            # a test plan of `drama test`: no JSON Schema of its own
        target = (path.parent / modeline_target(path.read_text())).resolve()
        assert target.is_relative_to(folder.resolve()), path
        schema = json.loads(target.read_text())
        errors = [e.message for e in jsonschema.Draft202012Validator(schema).iter_errors(load_yaml(path.read_text()))]
        assert not errors, (path, errors)


def test_new_makes_the_starter_and_it_checks_clean(tmp_path):
    folder = tmp_path / "troll-bridge"
    outcome = drama("new", folder)
    assert outcome.code == 0, outcome.output
    assert outcome.stdout == f"made {folder}/ (7 files)\n  drama run {folder}/scenario.yaml\n"
    assert sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file()) == [
        "adventure.drama", "cast.yaml", "scenario.yaml", "schemas/cast.schema.json",
        "schemas/scenario.schema.json", "schemas/setting.schema.json", "setting.yaml"]
    assert_clean(folder)
    # the comments teach: each file says what it is, and the scenario how to run it
    assert "drama run scenario.yaml" in (folder / "scenario.yaml").read_text()
    assert (folder / "schemas" / "cast.schema.json").read_text() == drama("schema", "cast").stdout
    ran = drama("run", folder / "scenario.yaml")
    assert ran.code == 0 and "The Troll Bridge" in ran.stdout


@pytest.mark.parametrize("example", EXAMPLES)
def test_new_copies_each_bundled_example(tmp_path, example):
    folder = tmp_path / example
    outcome = drama("new", folder, "--example", example)
    assert outcome.code == 0, outcome.output
    assert_clean(folder)
    # the same scripts as the bundled ones, and the same runs
    for script in (SCENARIOS / example).rglob("*.drama"):
        assert (folder / script.relative_to(SCENARIOS / example)).read_text() == script.read_text()
    for scenario in scenarios_in(folder):
        bundled = SCENARIOS / example / scenario.relative_to(folder)
        # (--lenient: an adventure that asks the players has its choices made by the seeded dice)
        ours = [json.loads(line) for line in drama("run", scenario, "--format", "json", "--lenient").stdout.splitlines()]
        theirs = [json.loads(line) for line in drama("run", bundled, "--format", "json", "--lenient").stdout.splitlines()]
        assert [e["type"] for e in ours] == [e["type"] for e in theirs]
        assert ours[-1]["parties"] == theirs[-1]["parties"]


def test_new_writes_over_nothing(tmp_path):
    folder = tmp_path / "taken"
    write(folder, "notes.txt", "mine")
    outcome = drama("new", folder)
    assert outcome.code == 1
    assert f"error[E512]: {folder} is already a folder that is not empty" in outcome.stderr
    assert [p.name for p in folder.iterdir()] == ["notes.txt"]
    file = write(tmp_path, "a-file", "x")
    assert "is already a file" in drama("new", file).stderr and file.read_text() == "x"
    empty = tmp_path / "empty"
    empty.mkdir()
    assert drama("new", empty).code == 0 and (empty / "scenario.yaml").is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file", "empty", "taken"]   # no temporary folder


def test_new_refuses_an_unknown_example_and_a_missing_parent(tmp_path):
    outcome = drama("new", tmp_path / "x", "--example", "emberfal")
    assert outcome.code == 2 and "'emberfal' is not one of ambush, ashen-pass" in outcome.output
    missing = drama("new", tmp_path / "no" / "such" / "place")
    assert missing.code == 1 and "error[E510]: cannot make" in missing.stderr


def test_new_help_names_every_bundled_example():
    """`drama new --help` lists the examples the package holds, not a list written by hand that
    falls behind (it once left out river-veyne and harbour)."""
    outcome = drama("new", "--help")
    assert outcome.code == 0
    text = " ".join(outcome.output.split())
    assert f"of the bundled examples: {', '.join(EXAMPLES)}." in text
    assert f"Copy this bundled example ({', '.join(EXAMPLES)}) instead of the starter." in text
