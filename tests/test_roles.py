"""Roles: an adventure written once, run with any cast (`roles:` in the scenario,
`--cast` and `--role` on the command line)."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import SCENARIOS, drama, make_scenario, scenario_yaml, write

GREY_FORD = SCENARIOS / "grey-ford"
WANDERERS = [GREY_FORD / "casts" / "wanderers.yaml", GREY_FORD / "casts" / "foes.yaml"]


def events(*args) -> list[dict]:
    outcome = drama("run", *args, "--format", "json")
    assert outcome.code == 0, outcome.stderr
    return [json.loads(line) for line in outcome.stdout.splitlines()]


def test_one_adventure_runs_with_either_cast():
    """The script names roles (`hero`, `ally`); the events name the bound parties."""
    embers = events(GREY_FORD / "with-embers.yaml", "--seed", "3")
    wanderers = events(GREY_FORD / "with-wanderers.yaml", "--seed", "3")
    assert set(embers[-1]["parties"]) == {"Kara", "Bren", "bandits", "chief"}
    assert set(wanderers[-1]["parties"]) == {"Ysolde", "Anselm", "bandits", "chief"}
    actors = {e["attacker"] for e in embers if e["type"] == "action"}
    assert {"Kara", "Bren"} <= actors and "hero" not in actors


def test_cast_and_role_options_rebind_the_adventure():
    """--cast replaces the scenario's cast and --role binds its roles: the same
    run as the scenario file that binds them."""
    by_options = events(GREY_FORD / "with-embers.yaml", "--seed", "5",
                        *(f"--cast={path}" for path in WANDERERS), "--role", "hero=Ysolde", "--role", "ally=Anselm")
    by_file = events(GREY_FORD / "with-wanderers.yaml", "--seed", "5")
    assert by_options[1:] == by_file[1:]
    assert by_options[0]["parties"] == by_file[0]["parties"]


def test_a_role_bound_to_a_missing_party_lists_the_roles_and_parties():
    outcome = drama("run", GREY_FORD / "with-embers.yaml", "--role", "hero=Karra")
    assert outcome.code == 1
    assert "error[E204]: the role 'hero' is bound to 'Karra', which is not in the cast" in outcome.stderr
    assert "expected: one of 'Kara', 'Bren', 'bandits' or 'chief'" in outcome.stderr
    assert "help: did you mean 'Kara'?" in outcome.stderr
    assert "note: roles: hero=Karra, ally=Bren" in outcome.stderr


def test_another_cast_without_the_bound_parties_is_an_error():
    outcome = drama("run", GREY_FORD / "with-embers.yaml", *(f"--cast={path}" for path in WANDERERS),
                    "--role", "hero=Ysolde")
    assert outcome.code == 1
    assert "the role 'ally' is bound to 'Bren', which is not in the cast" in outcome.stderr


def test_an_unbound_role_is_an_error_that_lists_the_roles(tmp_path):
    make_scenario(tmp_path, 'drama "Duel" with hero, villain\nhero fireball -> villain, rolled 3\n')
    write(tmp_path, "scenario.yaml", scenario_yaml("script.drama") + "roles:\n  hero: Kara\n  villain:\n")
    outcome = drama("check", tmp_path / "scenario.yaml")
    assert outcome.code == 1
    assert "scenario.yaml:7:3: error[E204]: the role 'villain' is not bound to a party" in outcome.stderr
    assert "expected: --role villain=PARTY" in outcome.stderr
    assert "note: roles: hero=Kara, villain=?" in outcome.stderr
    # bound on the command line, it runs
    assert drama("check", tmp_path / "scenario.yaml", "--role", "villain=Overlord").code == 0


def test_an_unknown_role_on_the_command_line(tmp_path):
    outcome = drama("run", GREY_FORD / "with-embers.yaml", "--role", "hreo=Kara")
    assert outcome.code == 1
    assert "error[E204]: the scenario has no role 'hreo'" in outcome.stderr
    assert "did you mean 'hero'?" in outcome.stderr


def test_a_role_named_like_a_party_is_an_error(tmp_path):
    make_scenario(tmp_path, "# nothing\n")
    write(tmp_path, "scenario.yaml", scenario_yaml("script.drama") + "roles:\n  Kara: Bren\n")
    outcome = drama("check", tmp_path / "scenario.yaml")
    assert outcome.code == 1 and "the role 'Kara' has the name of a party of the cast" in outcome.stderr


def test_a_malformed_role_option_is_a_usage_error():
    outcome = drama("run", GREY_FORD / "with-embers.yaml", "--role", "hero")
    assert outcome.code == 2
    assert "'hero' is not ROLE=PARTY" in outcome.stderr


def test_roles_must_be_a_mapping(tmp_path):
    make_scenario(tmp_path, "# nothing\n")
    write(tmp_path, "scenario.yaml", scenario_yaml("script.drama") + "roles: [hero]\n")
    outcome = drama("check", tmp_path / "scenario.yaml")
    assert outcome.code == 1 and "error[E104]: 'roles' must be a mapping" in outcome.stderr
