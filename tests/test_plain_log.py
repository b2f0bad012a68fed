"""The plain-text session log (what `drama run` prints) written from Python (dsl/render/plain_log.py)
gives the bytes the Jinja template gave before it (issue 28): for every scenario of the project and
of the tests, many seeds, the formats that escape, a log cut short, and an author's template that
extends the built-in `log.text.j2`.

`render/log.text.before.j2` is that template as it was (commit dd0b5ef), kept here as the oracle:
rendered as an author's template, it is the previous implementation run in the test."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from conftest import ROOT, drama
from dsl.errors import DramaError
from dsl.pipeline import Program
from dsl.render import render

BEFORE = Path(__file__).resolve().parent / "render" / "log.text.before.j2"
FOLDERS = ("scenarios", "docs/examples", "dsl/examples", "tests/story", "tests/i18n")


def _programs() -> dict[str, Program]:
    found = {}
    for folder in FOLDERS:
        for path in sorted((ROOT / folder).rglob("*.yaml")):
            try:
                found[str(path.relative_to(ROOT))] = Program.compile(str(path))
            except DramaError:           # a cast, a setting, a catalogue: not a scenario
                continue
    return found


PROGRAMS = _programs()
# every kind of event the log tells, so that the sweep cannot pass by meeting none of them
KINDS = {"scene", "narration", "drama", "initiative", "round", "hold", "action", "exchange", "member_lost",
         "defeat", "option", "recovery", "drama_end", "calm", "rest", "branch", "loop", "choice", "set",
         "skipped", "final"}


@pytest.fixture(scope="module")
def extending(tmp_path_factory) -> Path:
    """An author's template that only extends the built-in one: its output is the built-in log's."""
    path = tmp_path_factory.mktemp("extends") / "mine.j2"
    path.write_text('{% extends "builtin/log.text.j2" %}\n', encoding="utf-8")
    return path


def _runs(seed: int):
    for name, program in PROGRAMS.items():
        yield name, program.run(seed=seed, lenient=True)


def test_the_sweep_meets_every_kind_of_event():
    assert len(PROGRAMS) >= 25, sorted(PROGRAMS)
    met = {e["type"] for seed in range(3) for _, events in _runs(seed) for e in events}
    assert KINDS <= met, KINDS - met


@pytest.mark.parametrize("seed", range(4))
def test_the_plain_log_is_the_bytes_of_the_template_before(seed, extending):
    for name, events in _runs(seed):
        before = render(events, template=BEFORE)
        assert render(events) == before, (name, seed)
        assert render(events, template=extending) == before, (name, seed)


@pytest.mark.parametrize("fmt", ["md", "html"])
def test_an_author_s_log_that_escapes_escapes_what_the_template_before_did(fmt, extending):
    """`log.text.j2` extended in a format that escapes: each value escaped, the words around it not."""
    for name, events in _runs(1):
        assert render(events, format=fmt, template=extending) == render(events, format=fmt, template=BEFORE), name


def test_a_log_cut_short_is_told_as_before(extending):
    """Without its `final` event (the package API takes any list of events), the closing table is the
    state after the last event, as before."""
    for name, events in _runs(2):
        for cut in (events[:-1], events[: len(events) // 2]):
            assert render(cut) == render(cut, template=BEFORE) == render(cut, template=extending), name


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(min_value=0, max_value=2**32), which=st.sampled_from(sorted(PROGRAMS)))
def test_any_seed_gives_the_bytes_of_the_template_before(seed, which):
    try:
        events = PROGRAMS[which].run(seed=seed, lenient=True)
    except DramaError:                  # (a seed whose dice leave a party short of quintessence: E304)
        assume(False)
    assert render(events) == render(events, template=BEFORE)


def test_drama_run_and_render_print_the_plain_log(tmp_path):
    scenario = ROOT / "scenarios" / "emberfall" / "scenario.yaml"
    saved = tmp_path / "events.jsonl"
    assert drama("run", scenario, "--format", "json", "-o", saved).code == 0
    printed = drama("run", scenario).stdout
    assert printed == drama("render", saved).stdout == drama("render", saved, "--template", BEFORE).stdout
    assert printed.startswith("== ") and "      final: " in printed


def test_an_event_without_what_the_log_tells_is_a_clean_error(tmp_path):
    scenario = ROOT / "scenarios" / "emberfall" / "scenario.yaml"
    saved = tmp_path / "events.jsonl"
    drama("run", scenario, "--format", "json", "-o", saved)
    lines = saved.read_text(encoding="utf-8").splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if '"type": "exchange"' in line)
    lines[at] = lines[at].replace('"winner"', '"no_winner"')
    saved.write_text("".join(lines), encoding="utf-8")
    outcome = drama("render", saved)
    assert outcome.code == 1 and outcome.stdout == "" and "Traceback" not in outcome.stderr
    assert outcome.stderr.startswith(f"error[E602]: event {at + 1} of the log ('exchange') has no 'winner'"), \
        outcome.stderr


@pytest.mark.parametrize("fmt", ["text", "md"])
def test_an_author_s_blocks_over_the_log_give_what_they_gave_over_the_template_before(fmt, tmp_path):
    """docs/templates.md: an author's template extends `log.text.j2` and overrides its blocks,
    with `super()`, the event's `e` and `at`, and the `describe` macro."""
    blocks = ('{% block title %}Session: {{ start.title }}\n{% endblock %}\n'
              '{% block event %}{% if e.type == "round" %}{{ at }}~ {{ describe(e) }} ~\n'
              '{% else %}{{ super() }}{% endif %}{% endblock %}\n'
              '{% block final %}{{ super() }}(the end)\n{% endblock %}\n')
    (tmp_path / "before.j2").write_text(BEFORE.read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "over-before.j2").write_text('{% extends "before.j2" %}\n' + blocks, encoding="utf-8")
    (tmp_path / "over-now.j2").write_text('{% extends "builtin/log.text.j2" %}\n' + blocks, encoding="utf-8")
    rounds = 0
    for name, events in _runs(0):
        now = render(events, format=fmt, template=tmp_path / "over-now.j2")
        assert now == render(events, format=fmt, template=tmp_path / "over-before.j2"), name
        assert "(the end)" in now and "Session: " in now
        rounds += now.count("~ round ")
    assert rounds >= 20
