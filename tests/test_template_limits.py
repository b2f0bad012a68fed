"""User templates are untrusted input (docs/templates.md, "Limits"): a table of
escape and denial-of-service payloads, each rendered through the API and the
`drama` command. For every one: no escape from the sandbox, no traceback (E601
at the template's file and line, or text), inside the time budget, the output
under the cap, and the memory it takes bounded."""

from __future__ import annotations

import time
import tracemalloc

import pytest
from hypothesis import given, settings, strategies as st

import dsl
from conftest import SCENARIOS, drama, write
from dsl.errors import DramaError
from dsl.render import render, sandbox

# (name, template, what must come of it: "E601", or a text the output must hold)
PAYLOADS = [
    # sizes
    ("huge repeat", "{{ 'x' * 10**11 }}", "E601"),
    ("huge list repeat", "{{ [1] * 10**10 }}", "E601"),
    ("huge power", "{{ 9 ** 999999999 }}", "E601"),
    ("power of powers", "{{ (10**10)**(10**10) }}", "E601"),
    ("huge product", "{% set n = 10**30000 %}{{ n * n * n * n }}", "E601"),
    ("huge join", "{{ ('x' * 100000)|join('y' * 100000) }}", "E601"),
    ("huge replace", "{{ ('x' * 100000)|replace('', 'y' * 1000) }}", "E601"),
    ("indent huge width", "{{ 'a\nb'|indent(10**9) }}", "E601"),
    ("indent wide text", "{{ ('x\n' * 100000)|indent('y' * 1000) }}", "E601"),
    ("center huge width", "{{ 'x'|center(10**9) }}", "E601"),
    ("center method", "{{ 'x'.center(10**9) }}", "E601"),
    ("ljust method", "{{ 'x'.ljust(999999999) }}", "E601"),
    ("wordwrap huge width", "{{ 'x y'|wordwrap(10**9) }}", "E601"),
    # (textwrap cuts a long word a line at a time, in time of the square of its length,
    # and its regular expression over a long line cannot be stopped: fuzz case 303:100292)
    ("wordwrap of a long word", "{{ ('x' * 19999999)|wordwrap(5) }}", "E601"),
    ("wordwrap of a long text", "{{ ('word ' * 3999999)|wordwrap(5, break_on_hyphens=true) }}", "E601"),
    ("percent width", "{{ '%0999999999d' % 1 }}", "E601"),
    ("format width", "{{ '{:>999999999}'.format(1) }}", "E601"),
    ("format filter width", "{{ '%999999999s'|format('x') }}", "E601"),
    ("lipsum huge", "{{ lipsum(10**9) }}", "E601"),
    ("range huge", "{{ range(10**9)|list|length }}", "E601"),
    ("batch huge", "{{ 'x'|batch(10**9)|list }}", "E601"),
    ("namespace doubling", "{% set ns = namespace(x='x') %}{% for i in range(100) %}"
                           "{% set ns.x = ns.x ~ ns.x %}{% endfor %}{{ ns.x|length }}", "E601"),
    ("macro doubling", "{% macro d(s, n) %}{% if n %}{{ d(s ~ s, n - 1) }}{% else %}{{ s|length }}{% endif %}"
                       "{% endmacro %}{{ d('x', 60) }}", "E601"),
    ("macro recursion", "{% macro f() %}{{ f() }}{% endmacro %}{{ f() }}", "E601"),
    ("output flood", "{% for i in range(100000) %}{{ 'x' * 1000 }}{% endfor %}", "E601"),
    ("nested range loops", "{% for i in range(10**5) %}{% for j in range(10**5) %}{% endfor %}{% endfor %}",
     "E601"),
    ("nested loops with output", "{% for i in range(10**5) %}{% for j in range(10**5) %}.{% endfor %}{% endfor %}",
     "E601"),
    ("macro fan-out", "{% macro t(n) %}{% if n %}{{ t(n - 1) }}{{ t(n - 1) }}{% endif %}{% endmacro %}{{ t(40) }}",
     "E601"),
    # escapes
    ("class mro", "{{ ''.__class__.__mro__ }}", "E601"),
    ("subclasses", "{{ ''.__class__.__mro__[1].__subclasses__() }}", "E601"),
    ("int base", "{{ (1).__class__.__base__.__subclasses__() }}", "E601"),
    ("format attribute", "{{ '{0.__class__.__mro__}'.format(1) }}", "E601"),
    ("format_map attribute", "{{ '{a.__class__}'.format_map({'a': 1}) }}", "E601"),
    ("attr filter", "{{ ''|attr('__class__') }}", "E601"),
    ("attr filter chain", "{{ (''|attr('__class__')|attr('__mro__'))[1] }}", "E601"),
    ("cycler globals", "{{ cycler.__init__.__globals__ }}", "E601"),
    ("joiner globals", "{{ joiner.__init__.__globals__.os }}", "E601"),
    ("namespace globals", "{{ namespace.__init__.__globals__ }}", "E601"),
    ("lipsum globals", "{{ lipsum.__globals__ }}", "E601"),
    ("template reference context", "{{ self._TemplateReference__context }}", "E601"),
    ("event internals", "{{ events[0].__class__.__mro__ }}", "E601"),
    ("dict method internals", "{{ events[0].items.__self__.__class__ }}", "E601"),
    ("include a system file", "{% include '/etc/passwd' %}", "E601"),
    ("include up the tree", "{% include '../../../../etc/passwd' %}", "E601"),
    ("undefined config", "{{ config.items() }}", "E601"),
    # fine
    ("a plain template", "{{ title }}: {{ events|length }} events", "Emberfall: 33 events"),
    ("lists may be built", "{% set parts = [] %}{% set _ = parts.append('a') %}{{ parts|join(',') }}", "a"),
    ("a small loop", "{% for i in range(1000) %}{% endfor %}done", "done"),
]


@pytest.fixture(scope="module")
def events():
    return dsl.run(SCENARIOS / "emberfall" / "scenario.yaml")


@pytest.fixture
def quick(monkeypatch):
    """A 1-second budget, so that the table runs fast (the mechanism is the same)."""
    monkeypatch.setattr(sandbox, "SECONDS", 1.0)
    return 1.0


@pytest.mark.parametrize("name, text, expect", PAYLOADS, ids=[p[0] for p in PAYLOADS])
def test_payload_through_the_api(tmp_path, events, quick, name, text, expect):
    template = write(tmp_path, "evil.md.j2", text + "\n")
    tracemalloc.start()
    start = time.perf_counter()
    try:
        output = render(events, format="md", template=template)
        error = None
    except DramaError as raised:     # anything else fails the test: a traceback
        output, error = "", raised
    took = time.perf_counter() - start
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert took < quick + 2, f"{name} took {took:.1f} s"
    assert peak < 4 * sandbox.MAX_SIZE + 50_000_000, f"{name} took {peak / 1e6:.0f} MB"
    assert len(output) <= sandbox.budget_for(len(events))[1]
    if expect == "E601":
        assert error is not None and error.code == "E601", f"{name} rendered: {output[:200]!r}"
        assert error.position is not None and error.position.file == str(template), error.format()
        assert "Traceback" not in error.format()
    else:
        assert error is None, error.format()
        assert expect in output
    for leak in ("<class", "subclasses", "__globals__", "root:", "<function", "<module"):
        assert leak not in output


@pytest.mark.parametrize("name, text, expect", [p for p in PAYLOADS if p[0] in
                                                ("huge repeat", "center huge width", "class mro", "attr filter",
                                                 "template reference context", "nested range loops")],
                         ids=lambda v: v if isinstance(v, str) and len(v) < 30 else None)
def test_payload_through_the_command(tmp_path, quick, name, text, expect):
    template = write(tmp_path, "evil.md.j2", text + "\n")
    start = time.perf_counter()
    outcome = drama("run", SCENARIOS / "emberfall" / "scenario.yaml", "--format", "md", "--template", template)
    assert time.perf_counter() - start < quick + 3
    assert outcome.code == 1 and outcome.stdout == ""
    assert f"{template}:1:" in outcome.stderr and "error[E601]" in outcome.stderr


def test_the_time_budget_works_outside_the_main_thread(tmp_path, events, quick):
    """The watchdog needs no signal: a rendering in a worker thread is stopped too."""
    import threading
    template = write(tmp_path, "slow.md.j2", PAYLOADS[[p[0] for p in PAYLOADS].index("nested range loops")][1])
    found = []

    def work():
        try:
            render(events, format="md", template=template)
        except DramaError as error:
            found.append(error)

    worker = threading.Thread(target=work)
    worker.start()
    worker.join(quick + 5)
    assert not worker.is_alive()
    assert found and found[0].code == "E601" and "ran for more than" in found[0].message


def test_a_budget_that_ends_with_the_rendering_leaves_nothing_behind(events):
    """Budgets that end as their block ends: a timeout is raised inside the block
    (or as it ends), never later, outside it."""
    for _ in range(30):
        try:
            with sandbox.Budget(0.001):
                time.sleep(0.001)
        except sandbox.TemplateTimeout:
            pass
        time.sleep(0.01)            # a timeout delivered late would be raised here
    assert render(events, format="text")         # and rendering still works


def test_the_built_in_templates_have_no_budget_of_time_or_output(events, monkeypatch):
    """The built-in templates are the program's own, linear in the log: a long session's
    log renders whatever its length. Only an author's template is bounded."""
    monkeypatch.setattr(sandbox, "SECONDS", 0.0001)
    monkeypatch.setattr(sandbox, "PER_EVENT_SECONDS", 0.0)
    monkeypatch.setattr(sandbox, "MAX_OUTPUT", 100)
    monkeypatch.setattr(sandbox, "PER_EVENT_SIZE", 0)
    for fmt in ("text", "md", "html"):
        assert len(render(events, format=fmt)) > 100
    assert len(render(events, as_="transcript", format="html")) > 100


def test_an_authors_template_has_a_budget_that_grows_with_the_log(tmp_path, events, monkeypatch):
    monkeypatch.setattr(sandbox, "MAX_OUTPUT", 100)
    template = write(tmp_path, "mine.text.j2", '{% extends "builtin/log.text.j2" %}\n')
    monkeypatch.setattr(sandbox, "PER_EVENT_SIZE", 0)
    with pytest.raises(DramaError) as raised:
        render(events, format="text", template=template)
    assert raised.value.code == "E601" and "longer than 100 characters" in raised.value.message
    monkeypatch.setattr(sandbox, "PER_EVENT_SIZE", 1_000)        # 33 events: 33,100 characters
    assert render(events, format="text", template=template) == render(events, format="text")
    seconds, size = sandbox.budget_for(10_000)
    assert seconds == sandbox.SECONDS + 10_000 * sandbox.PER_EVENT_SECONDS and size == 100 + 10_000_000


@settings(max_examples=150, deadline=None)
@given(words=st.lists(st.text(alphabet="ab-", min_size=1, max_size=12), max_size=60),
       spaces=st.lists(st.sampled_from([" ", "  ", "\n", "   "]), min_size=60, max_size=60),
       width=st.integers(1, 20), break_long_words=st.booleans(), break_on_hyphens=st.booleans())
def test_the_sandboxs_wordwrap_gives_jinjas_lines(words, spaces, width, break_long_words, break_on_hyphens):
    """The sandbox's `wordwrap` wraps a long line a piece at a time (so that the time
    limit can stop it, and a long word costs no more than its length); the lines are
    Jinja's own wherever a piece can end at a space."""
    import jinja2
    from jinja2.filters import do_wordwrap
    text = "".join(w + s for w, s in zip(words, spaces))
    env = jinja2.Environment()
    piece, sandbox.WRAP_PIECE = sandbox.WRAP_PIECE, 40     # many pieces in a short text
    try:
        ours = sandbox.wordwrap(env, text, width, break_long_words, None, break_on_hyphens)
    finally:
        sandbox.WRAP_PIECE = piece
    assert ours == do_wordwrap(env, text, width, break_long_words, None, break_on_hyphens)
