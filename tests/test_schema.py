"""`drama schema`: the JSON Schemas of the YAML files, the bundled files against them, and the schemas
never stricter than `drama check`."""

from __future__ import annotations

import functools
import io
import json
from pathlib import Path

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

import dsl
from conftest import EMBERFALL_CAST, EMBERFALL_SETTING, ROOT, SCENARIOS, drama, write
from dsl.loader.json_schema import modeline_target

KINDS = ("setting", "cast", "scenario")
SCHEMAS = ROOT / "editors" / "schemas"


def load_yaml(text: str):
    yaml = YAML(typ="safe", pure=True)
    return yaml.load(io.StringIO(text))


def schema_of(kind: str) -> dict:
    outcome = drama("schema", kind)
    assert outcome.code == 0, outcome.output
    return json.loads(outcome.stdout)


@functools.cache
def validator(kind: str) -> jsonschema.Draft202012Validator:
    schema = schema_of(kind)
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def test_each_schema_is_draft_2020_12_with_descriptions_defaults_and_no_extra_keys():
    setting = schema_of("setting")
    assert setting["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert setting["additionalProperties"] is False
    assert setting["properties"]["ties"]["enum"] == ["vote", "actor", "defender", "random"]
    assert setting["properties"]["ties"]["default"] == "vote"
    assert setting["properties"]["round"]["default"] == "6 seconds"
    assert setting["properties"]["dice"]["additionalProperties"] is False
    cast = schema_of("cast")
    party = cast["properties"]["parties"]["additionalProperties"]
    assert party["additionalProperties"] is False and party["required"] == ["quintessence"]
    scenario = schema_of("scenario")
    assert scenario["required"] == ["title", "cast", "script"]

    def every_property(node):
        if isinstance(node, dict):
            for name, value in (node.get("properties") or {}).items():
                yield name, value
            for value in node.values():
                yield from every_property(value)
        elif isinstance(node, list):
            for value in node:
                yield from every_property(value)
    for kind in KINDS:
        for name, value in every_property(schema_of(kind)):
            assert value.get("description"), (kind, name)


@pytest.mark.parametrize("kind", KINDS)
def test_the_schema_files_in_editors_are_up_to_date(kind):
    path = SCHEMAS / f"{kind}.schema.json"
    assert path.read_text(encoding="utf-8") == drama("schema", kind).stdout, (
        f"regenerate it: drama schema {kind} -o editors/schemas/{kind}.schema.json")


def test_schema_writes_a_file_with_o(tmp_path):
    out = tmp_path / "cast.schema.json"
    assert drama("schema", "cast", "-o", out).code == 0
    assert json.loads(out.read_text())["title"] == "drama cast"


def test_schema_refuses_an_unknown_kind():
    outcome = drama("schema", "script")
    assert outcome.code == 2 and "'setting', 'cast', 'scenario'" in outcome.output


def bundled_kinds() -> dict[Path, str]:
    """Every bundled YAML file, and its kind as the scenarios name it."""
    kinds: dict[Path, str] = {}
    for path in sorted(SCENARIOS.rglob("*.yaml")):
        data = load_yaml(path.read_text(encoding="utf-8"))
        if isinstance(data, dict) and "title" in data:
            kinds[path] = "scenario"
            if data.get("setting"):
                kinds[(path.parent / data["setting"]).resolve()] = "setting"
            casts = data["cast"] if isinstance(data["cast"], list) else [data["cast"]]
            for cast in casts:
                kinds[(path.parent / cast).resolve()] = "cast"
    return {path.resolve(): kind for path, kind in kinds.items()}


@pytest.mark.parametrize("path", sorted(p for p in SCENARIOS.rglob("*.yaml") if not p.name.endswith(".test.yaml")),
                         ids=lambda p: str(p.relative_to(SCENARIOS)))
def test_every_bundled_yaml_file_has_its_modeline_and_validates(path):
    kind = bundled_kinds()[path.resolve()]
    text = path.read_text(encoding="utf-8")
    target = modeline_target(text)
    assert text.startswith("# yaml-language-server: $schema="), "the modeline comes first"
    assert (path.parent / target).resolve() == (SCHEMAS / f"{kind}.schema.json").resolve()
    errors = list(validator(kind).iter_errors(load_yaml(text)))
    assert not errors, [error.message for error in errors]


# ---------------------------------------------------------------- the schema is never stricter than check

GOOD_SCENARIO = "title: Test\nsetting: setting.yaml\ncast: cast.yaml\nscript: script.drama\n"
SCRIPT = 'scene "A test"\n> Nothing happens.\n'

BAD = {
    "setting": [
        "ties: coin\n",
        "round: 6\n",
        "round: 0 seconds\n",
        "round: 2 rounds\n",
        "recovery: a day\n",
        "calm: 10 fortnights\n",
        "dice: {sides: 1}\n",
        "dice: {sides: 6, high: 1}\n",
        "dice: {sides: 2, high: 0}\n",          # a bad `high` once left the default 6 above 2 sides
        "dice: {sides: 6, faces: 6}\n",
        "dice: 6\n",
        "name: ''\n",
        "name: [a, b]\n",
        "rounds: 6 seconds\n",
        "- round\n",
        "full_rest: -2 days\n",
    ],
    "cast": [
        "parties: {}\nextra: 1\n",
        "partys: {}\n",
        "parties:\n  Kara: {name: Kara}\n",
        "parties:\n  Kara: {quintessence: -1}\n",
        "parties:\n  Kara: {quintessence: six}\n",
        "parties:\n  Kara: {quintessence: 3, trait: {Sorcery: 2}}\n",
        "parties:\n  Kara: {quintessence: 3, traits: {Sorcery: -2}}\n",
        "parties:\n  Kara: {quintessence: 3, traits: [Sorcery]}\n",
        "parties:\n  Kara: {quintessence: 3, treasures: {'Staff, big': 1}}\n",
        "parties:\n  Kara: {quintessence: 3, traits: {'Sorcery + Fire': 1}}\n",
        "parties:\n  Kara: {quintessence: 3, members: Snik}\n",
        "parties:\n  Kara: {quintessence: 3, members: [Snik, '']}\n",
        "parties:\n  Kara: {quintessence: 3, moves: [fireball]}\n",
        "parties:\n  Kara: {quintessence: 3, name: ''}\n",
        "parties:\n  GM: {quintessence: 3}\n",
        "parties:\n  'Kara & Bren': {quintessence: 3}\n",
        "parties:\n  ' Kara': {quintessence: 3}\n",
        "parties:\n  Kara:\n",
        "parties: [Kara]\n",
        "parties:\n",
        "[1, 2]\n",
    ],
    "scenario": [
        "title: Test\ncast: cast.yaml\n",
        "cast: cast.yaml\nscript: script.drama\n",
        "title: ''\ncast: cast.yaml\nscript: script.drama\n",
        "title: Test\ncast: []\nscript: script.drama\n",
        "title: Test\ncast: [cast.yaml, cast.yaml]\nscript: script.drama\n",
        "title: Test\ncast: cast.yaml\nscript: script.drama\nsettings: setting.yaml\n",
        "title: Test\ncast: cast.yaml\nscript: 3\n",
        "title: Test\ncast: cast.yaml\nscript: script.drama\nsetting: ''\n",
        "title: Test\ncast: cast.yaml\nscript: script.drama\nroles: [hero]\n",
        "title: Test\ncast: cast.yaml\nscript: script.drama\nroles: {GM: Kara}\n",
        "title: Test\ncast: cast.yaml\nscript: script.drama\nroles: {hero: [Kara]}\n",
        "title: [Test]\ncast: cast.yaml\nscript: script.drama\n",
    ],
}


def adventure(folder: Path, kind: str, text: str) -> Path:
    """A scenario in `folder` whose file of `kind` is `text`, the others good."""
    write(folder, "setting.yaml", text if kind == "setting" else EMBERFALL_SETTING)
    write(folder, "cast.yaml", text if kind == "cast" else EMBERFALL_CAST)
    write(folder, "script.drama", SCRIPT)
    return write(folder, "scenario.yaml", text if kind == "scenario" else GOOD_SCENARIO)


def test_the_good_adventure_passes_both(tmp_path):
    path = adventure(tmp_path, "scenario", GOOD_SCENARIO)
    assert drama("check", path).code == 0
    for kind, name in (("setting", "setting.yaml"), ("cast", "cast.yaml"), ("scenario", "scenario.yaml")):
        assert validator(kind).is_valid(load_yaml((tmp_path / name).read_text()))


@pytest.mark.parametrize("kind,text", [(kind, text) for kind in KINDS for text in BAD[kind]])
def test_what_the_schema_rejects_check_rejects(tmp_path, kind, text):
    assert not validator(kind).is_valid(load_yaml(text)), "a bad file the schema should reject"
    outcome = drama("check", adventure(tmp_path, kind, text))
    assert outcome.code == 1, outcome.output
    assert "error[E1" in outcome.output


def test_integers_are_bounded_as_check_bounds_them(tmp_path):
    """The engine's numbers are at most 999,999,999 (dsl/limits.py): a schema that allowed more would
    accept what `drama check` refuses."""
    cast = EMBERFALL_CAST.replace("quintessence: 6", "quintessence: 1000000000")
    assert not validator("cast").is_valid(load_yaml(cast))
    assert validator("cast").is_valid(load_yaml(EMBERFALL_CAST.replace("quintessence: 6", "quintessence: 999999999")))
    outcome = drama("check", adventure(tmp_path, "cast", cast))
    assert outcome.code == 1 and "error[E104]" in outcome.output and "at most 999999999" in outcome.output


def test_the_test_plan_schema_takes_the_bundled_plans_and_refuses_what_drama_test_refuses(tmp_path):
    plan_schema = validator("test")
    assert (SCHEMAS / "test.schema.json").read_text(encoding="utf-8") == drama("schema", "test").stdout
    for plan in SCENARIOS.rglob("*.test.yaml"):
        assert plan_schema.is_valid(load_yaml(plan.read_text(encoding="utf-8"))), plan
    write(tmp_path, "setting.yaml", EMBERFALL_SETTING)
    write(tmp_path, "cast.yaml", EMBERFALL_CAST)
    write(tmp_path, "script.drama", SCRIPT)
    write(tmp_path, "scenario.yaml", GOOD_SCENARIO)
    for bad in ("scenario: scenario.yaml\ntests:\n  - name: x\n    sede: 1\n",
                "scenario: scenario.yaml\nproperties:\n  - name: x\n    seeds: 0\n",
                "scenario: scenario.yaml\nproperties:\n  - name: x\n",
                "tests:\n  - name: x\n"):
        assert not plan_schema.is_valid(load_yaml(bad)), bad
        path = write(tmp_path, "bad.test.yaml", bad)
        outcome = drama("test", path)
        assert outcome.code != 0 and "E802" in outcome.output, (bad, outcome.output)


# random changes to a good cast and setting: whenever the schema rejects one, so does check

VALUES = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 12), st.sampled_from(["", " ", "6 seconds", "0 rounds", "2 Days",
                                                                    "vote", "coin", "Sorcery", "a + b", "GM"]),
    st.lists(st.sampled_from(["Snik", "", "Grub"]), max_size=3),
    st.dictionaries(st.sampled_from(["Sorcery", "Agility", "", "A, B", "sides", "high"]),
                    st.one_of(st.integers(-1, 7), st.sampled_from(["x", "Sorcery"])), max_size=3),
)
SETTING_KEYS = st.sampled_from(["name", "round", "recovery", "calm", "full_rest", "dice", "ties", "tie"])
PARTY_KEYS = st.sampled_from(["name", "quintessence", "traits", "treasures", "members", "moves", "trait"])


def _dump(data) -> str:
    yaml = YAML(typ="safe", pure=True)
    out = io.StringIO()
    yaml.dump(data, out)
    return out.getvalue()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(setting_changes=st.dictionaries(SETTING_KEYS, VALUES, max_size=3),
       party=st.sampled_from(["Kara", "Bren", "Goblins"]),
       party_changes=st.dictionaries(PARTY_KEYS, VALUES, max_size=3))
def test_property_a_file_the_schema_rejects_check_rejects(tmp_path_factory, setting_changes, party, party_changes):
    setting = load_yaml(EMBERFALL_SETTING) | setting_changes
    cast = load_yaml(EMBERFALL_CAST)
    cast["parties"][party] = cast["parties"][party] | party_changes
    folder = tmp_path_factory.mktemp("property")
    path = adventure(folder, "scenario", GOOD_SCENARIO)
    write(folder, "setting.yaml", _dump(setting))
    write(folder, "cast.yaml", _dump(cast))
    rejected = (not validator("setting").is_valid(load_yaml((folder / "setting.yaml").read_text()))
                or not validator("cast").is_valid(load_yaml((folder / "cast.yaml").read_text())))
    if rejected:
        assert dsl.check(str(path)), (setting, cast)
