"""Hardening, rounds three and four (issues 27 and 30): each class of fault the
independent fuzzer found, one regression test per class, named after it."""

from __future__ import annotations

import os
import shutil
import sys

import pytest

import dsl
from conftest import EMBERFALL_CAST, SCENARIOS, drama, make_scenario, write
from dsl.checker import check_script
from dsl.engine import PartySheet
from dsl.errors import MAX_COLLECTED, did_you_mean, one_of
from dsl.inputs import tracking
from dsl.names import Names
from dsl.pipeline import replay
from dsl.syntax.printer import normalise, record
from dsl.render import render
from dsl.terminal import CONTROL

DRAMA = 'drama "Hall" with Kara, Bren, Overlord, Goblins\n'


def sheet(pid: str, **fields) -> PartySheet:
    return PartySheet(id=pid, name=pid, quintessence=fields.pop("quintessence", 5), **fields)


# ---------------------------------------------------------------------------
# issue 27.1: a party whose sheet failed to load is "failed" for every later stage

def test_a_failed_party_is_one_diagnostic_never_a_lookup_error():
    names = Names([sheet("Overlord", traits={"Cunning": 3})], roles={"hero": "Ysolde"})
    script = dsl.parse("drama Hall with hero, Overlord\nif in drama\n"
                       "hero strike -> Overlord with Swordplay\n"
                       "hero strike -> Overlord with Swordplay\n"
                       "hero lose member Grub\n"
                       "if hero's quintessence > 3\n> x\nend\nend\n", "s.drama")
    found = check_script(script, names)
    failed = [e for e in found if "did not load" in e.message]
    assert len(failed) == 1 and failed[0].code == "E201"
    assert names.uses("Ysolde", script.statements[1].arms[0].body[0].uses) == (None, None)
    assert names.words_of("Ysolde") == [] and names.move("Ysolde", "defend") is None


# ---------------------------------------------------------------------------
# issue 27.2: whatever --record writes reads back (else it is refused when recording)

def test_a_recording_that_would_not_read_back_is_refused_when_recording(tmp_path):
    cast = EMBERFALL_CAST.replace("name: Kara", "name: Kara" + "a" * 2400, 1)
    scenario = make_scenario(tmp_path, DRAMA + "> " + " ".join(["{Kara.name}"] * 40) + "\n", cast=cast)
    outcome = drama("run", scenario, "--record", tmp_path / "out.drama")
    assert outcome.code == 1 and "error[E501]: cannot record the run: line 5 of the recorded script would have 96,841 characters" in outcome.stderr
    assert not (tmp_path / "out.drama").exists()
    # within the limit, the same shape records and replays to the same events
    short = make_scenario(tmp_path, DRAMA + "> " + " ".join(["{Kara.name}"] * 3) + "\n")
    events = dsl.run(short)
    text = record(events, scenario=short)
    assert normalise(replay(short, text)) == normalise(events)


# ---------------------------------------------------------------------------
# issue 27.3: work bounded by the limits before it is done

def test_diamond_includes_are_counted_before_they_are_expanded(tmp_path):
    """Thirty files each including the next twice would expand to 2**30 copies: the size
    is counted once per file (E014 at once) and each file is read and parsed once."""
    for level in range(30):
        lines = [f"> level {level}"] + ([f'include "dm{level + 1}.drama"'] * 2 if level < 29 else [])
        write(tmp_path, f"dm{level}.drama", "\n".join(lines) + "\n")
    scenario = make_scenario(tmp_path, DRAMA + 'include "dm0.drama"\n')
    with tracking() as reads:
        errors = dsl.check(scenario)
    assert [e.code for e in errors if not e.is_warning] == ["E014"]
    assert len([r for r in reads if r.endswith(".drama")]) == 31


def test_did_you_mean_is_bounded_over_many_names_and_long_names():
    names = {f"Party{i}": None for i in range(20000)}
    assert did_you_mean("Party123x", names) == "did you mean 'Party123'?"
    assert did_you_mean("party77", names) == "did you mean 'Party77'?"
    assert did_you_mean("x" * 4000, names) is None
    assert one_of(names).endswith("or 19,988 more")


def test_many_errors_stop_each_pass_of_check_at_100_and_say_so(tmp_path):
    scenario = make_scenario(tmp_path, "round\n" * 20000)
    outcome = drama("check", scenario)
    printed = outcome.stderr.count("error[E313]")
    assert outcome.code == 1 and printed == MAX_COLLECTED
    assert "warning[W021]: the dry run stopped here, after 100 errors" in outcome.stderr
    assert outcome.stderr.rstrip().endswith("100 errors, 1 warning")


def test_an_error_quotes_the_file_as_it_was_read_never_reading_it_again(tmp_path):
    scenario = make_scenario(tmp_path, DRAMA + "Kara fireball -> Overlrod, rolled 6 6\n")
    errors = dsl.check(scenario)
    write(tmp_path, "script.drama", "changed since\n" * 5)
    shown = errors[0].format()
    assert "Overlrod" in shown and "changed since" not in shown


def test_yaml_within_the_size_limit_is_bounded_while_it_is_parsed(tmp_path):
    flat = "x: [" + ",".join(["1"] * 900_000) + "]\n"
    deep = ("- " + "[" * 99 + "]" * 99 + "\n") * 9000
    for name, text in (("flat", flat), ("deep", deep)):
        scenario = make_scenario(tmp_path / name, DRAMA)
        write(tmp_path / name, "setting.yaml", text)
        codes = [e.code for e in dsl.check(scenario)]
        assert codes == ["E522"], (name, codes)


def test_the_vote_ties_check_is_linear_in_the_actions(tmp_path):
    """Each action's answers are found by index, not by slicing the rest of the script:
    40,000 actions under `ties: vote` are one W004 (quadratic, this took minutes)."""
    scenario = make_scenario(tmp_path, DRAMA + "Kara fireball -> Overlord, roll\n" * 40000)
    ties = [e for e in dsl.check(scenario) if e.code == "W004"]
    assert len(ties) == 1 and "39999 more exchanges roll dice" in ties[0].notes[0]


# ---------------------------------------------------------------------------
# issue 27.5: drama check on the common slips

@pytest.mark.parametrize("line, hint", [
    ("set gold += 1", "a counter is given its new value whole: set gold = gold + 1"),
    ("set gold -= 2", "a counter is given its new value whole: set gold = gold - 2"),
    ("Kara attacks Overlord, roll", "an action names its target after '->': Kara attacks -> Overlord"),
    ("choose At the door", 'the label of a choice is quoted: choose "At the door"'),
])
def test_a_common_slip_gets_a_hint_that_shows_the_right_form(tmp_path, line, hint):
    outcome = drama("check", make_scenario(tmp_path, DRAMA + line + "\n"))
    assert outcome.code == 1 and f"help: {hint}" in outcome.stderr, outcome.stderr


def test_an_unquoted_label_is_one_error_not_a_cascade(tmp_path):
    script = DRAMA + 'end drama\nchoose At the door\noption Left side\n> left\noption "Right"\n> right\nend\n'
    errors = dsl.check(make_scenario(tmp_path, script))
    assert [(e.code, e.position.line) for e in errors if not e.is_warning] == [("E001", 3), ("E001", 4)]


def test_a_condition_that_cannot_hold_where_it_stands_is_a_warning_R15(tmp_path):
    script = DRAMA + ("Kara fireball -> Overlord, rolled 6 6\nOverlord defends, rolled 1\n"
                      "if Kara can recover\n> never\nend\nif Bren can recover\n> may be\nend\n")
    warnings = [e for e in dsl.check(make_scenario(tmp_path, script)) if e.code == "W001"]
    assert [w.position.line for w in warnings] == [4]
    assert "Kara acted at line 2, in this round" in warnings[0].message


# ---------------------------------------------------------------------------
# issue 30.1-30.4, 30.12: templates

def _render_with(tmp_path, text: str, name: str = "t.j2") -> str:
    write(tmp_path, name, text)
    events = dsl.run(SCENARIOS / "emberfall" / "scenario.yaml")
    try:
        return render(events, template=tmp_path / name)
    except dsl.DramaError as error:
        assert error.code == "E601", error.format()
        return error.format()


@pytest.mark.parametrize("payload", [
    "{% set a = 'x' * 19999999 %}{% set b = a ~ a ~ a ~ a ~ a %}{{ b|length }}",
    "{% set a = 'x' * 19999999 %}{{ ('%s%s%s%s' % (a, a, a, a))|length }}",
    "{% set a = 'x' * 19999999 %}{{ '{}{}'.format(a, a)|length }}",
    "{% set a = 'x' * 10000000 %}{{ ([a] * 100)|tojson|length }}",
    "{% set a = 'x' * 10000000 %}{{ ([a] * 100)|join|length }}",
    "{% set a = 'x' * 10000000 %}{% set l = [] %}{% for i in range(100) %}{% set _ = l.append(a ~ i) %}"
    "{% endfor %}{{ l|length }}",
    "{% set a = 'x' * 10000000 %}{% set d = {} %}{% for i in range(100) %}{% set _ = d.update({i: a ~ i}) %}"
    "{% endfor %}{{ d|length }}",
    "{{ '%-*s'|format(1000000000, 'x') }}", "{{ '%*d' % (1000000000, 1) }}", "{{ '{:{}}'.format(1, 1000000000) }}",
])
def test_every_operation_that_makes_a_value_is_bounded_before_it_makes_it(tmp_path, payload):
    import tracemalloc
    tracemalloc.start()
    try:
        shown = _render_with(tmp_path, payload)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert "error[E601]: the template went past a limit" in shown, shown
    assert peak < 400 * 2**20, f"{peak / 2**20:.0f} MiB"


@pytest.mark.parametrize("payload", ["{{ lipsum }}", "{{ namespace }}", "{{ cycler }}", "{{ events.append }}",
                                     "{{ self }}", "{% for e in events %}{{ loop }}{% endfor %}", "{{ [lipsum] }}",
                                     "{{ lipsum|string }}", "{{ '%s' % self }}", "{{ joiner ~ '' }}"])
def test_no_python_internals_in_a_templates_output(tmp_path, payload):
    shown = _render_with(tmp_path, payload)
    assert "error[E601]" in shown and " at 0x" not in shown and "jinja2" not in shown and "<" not in shown


def test_a_template_reaching_outside_its_folder_through_a_link_is_refused(tmp_path):
    outside = tmp_path / "outside"
    write(outside, "secret.j2", "the secret\n")
    write(outside, "sub/inner.j2", "the secret too\n")
    folder = tmp_path / "templates"
    folder.mkdir()
    (folder / "linked.j2").symlink_to(outside / "secret.j2")
    (folder / "sub").symlink_to(outside / "sub")
    for use in ("{% include 'linked.j2' %}", "{% import 'linked.j2' as x %}", "{% extends 'linked.j2' %}",
                "{% include 'sub/inner.j2' %}"):
        shown = _render_with(folder, use)
        assert "outside the template folder" in shown and "secret" not in shown.split("\n", 1)[0].split(":")[-1]
        assert "the secret" not in shown


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs")
def test_a_template_that_includes_a_fifo_is_e601_at_the_including_line(tmp_path):
    os.mkfifo(tmp_path / "fifo.j2")
    shown = _render_with(tmp_path, "first\n{% include 'fifo.j2' %}\n")
    assert shown.startswith(f"{tmp_path / 't.j2'}:2:1: error[E601]") and "a pipe" in shown


def test_the_built_in_templates_render_every_valid_log_point_15(tmp_path):
    """Quintessence up to 999,999,999 and lines past 100,000: the built-in templates render them."""
    cast = EMBERFALL_CAST.replace("quintessence: 6", "quintessence: 999999999", 1)
    scenario = make_scenario(tmp_path, "\n" * 100_001 + DRAMA + "Kara fireball -> Overlord, rolled 6 6\n", cast=cast)
    events = dsl.run(scenario)
    for fmt in ("text", "md", "html"):
        for as_ in ("log", "transcript"):
            assert render(events, as_=as_, format=fmt)
    assert "100002" in dsl.render_text(events) and "999999999" in dsl.render_text(events)


# ---------------------------------------------------------------------------
# issue 30.8-30.10: what is printed, and what is read

def test_control_characters_from_yaml_are_shown_as_symbols_where_they_are_printed(tmp_path):
    scenario = make_scenario(tmp_path, DRAMA + "> {Kara.name} looks up.\n")
    write(tmp_path, "scenario.yaml", 'title: "Fall \\e]52;c;aGk=\\a \\e]0;pwned\\a \\x9b2J \\x85"\n'
          "setting: setting.yaml\ncast: cast.yaml\nscript: script.drama\n")
    outcome = drama("run", scenario)
    printed = outcome.stdout + outcome.stderr
    assert CONTROL.search(printed) is None, repr(printed[:300])
    assert "\u241b]52;c;aGk=\u2407" in printed and "<U+009B>" in printed
    write(tmp_path, "script.drama", DRAMA + "Kara fireball -> \"Over\x9blord\x85\"\n")
    outcome = drama("check", scenario)
    assert outcome.code == 1 and "Over<U+009B>lord<U+0085>" in outcome.stderr
    assert CONTROL.search(outcome.stderr) is None


def test_json_output_escapes_control_characters_and_keeps_the_data():
    import json
    from dsl.events import to_json_lines
    event = {"type": "narration", "line": 1, "text": "a\x1b]0;x\x07b\x9bc\x85"}
    text = to_json_lines([event])
    assert CONTROL.search(text) is None and [json.loads(line) for line in text.splitlines()] == [event]


def test_a_number_too_large_for_an_event_is_refused_on_read(tmp_path):
    from dsl.events import to_json_lines
    lines = to_json_lines(dsl.run(SCENARIOS / "emberfall" / "scenario.yaml")).split("\n")
    lines[0] = lines[0].replace('"quintessence": 6', '"quintessence": ' + "9" * 400, 1)
    write(tmp_path, "log.jsonl", "\n".join(lines))
    outcome = drama("render", tmp_path / "log.jsonl", "--format", "html")
    assert outcome.code == 1 and "error[E602]: a number of the event is out of range" in outcome.stderr


def test_a_scenario_names_files_of_their_kind_and_quotes_no_other_file(tmp_path):
    scenario = make_scenario(tmp_path, DRAMA)
    write(tmp_path, "scenario.yaml", "title: T\nsetting: setting.yaml\ncast: /etc/passwd\nscript: script.drama\n")
    outcome = drama("check", scenario)
    assert outcome.code == 1 and "error[E108]: the cast file '/etc/passwd'" in outcome.stderr
    assert "root:" not in outcome.stderr
    if os.path.exists("/proc/self/environ"):
        (tmp_path / "env.drama").symlink_to("/proc/self/environ")
        write(tmp_path, "scenario.yaml", "title: T\nsetting: setting.yaml\ncast: cast.yaml\nscript: env.drama\n")
        outcome = drama("check", scenario)
        assert outcome.code == 1 and "is not a .drama file" in outcome.stderr and "PATH=" not in outcome.stderr


# ---------------------------------------------------------------------------
# issue 30.12

def test_simulate_stops_when_its_first_runs_all_fail_alike(tmp_path):
    scenario = make_scenario(tmp_path, DRAMA + "repeat 10000 times\nrepeat 10000 times\n> x\nend\nend\n")
    outcome = drama("simulate", scenario, "--runs", "1000")
    assert outcome.code == 1 and "stopped after 5 of 1,000 runs" in outcome.stderr and "E012" in outcome.stderr


def test_odds_never_writes_over_a_scene_the_scenario_includes(tmp_path):
    folder = tmp_path / "ashen-pass"
    shutil.copytree(SCENARIOS / "ashen-pass", folder)
    scene = folder / "scenes" / "camp.drama"
    before = scene.read_bytes()
    outcome = drama("odds", folder / "with-embers.yaml", "Kara fireball -> warlord", "-o", scene)
    assert outcome.code == 1 and "error[E501]: refusing to write over the input file" in outcome.stderr
    assert scene.read_bytes() == before
