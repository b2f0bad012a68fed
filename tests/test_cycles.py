"""No reference cycles on the hot paths (dsl/collector.py): a finished run leaves nothing for the cyclic collector.

Python's cyclic collector is kept off while scripts are parsed and run, and
off for the rest of a one-shot command: that is safe only because these
paths make no reference cycles, which these tests check with the collector
disabled: after a run, `gc.collect()` finds nothing to free.
"""

from __future__ import annotations

import gc

import pytest

from conftest import ROOT
from dsl.interpreter import FRESH, SIMULATE
from dsl.pipeline import Program
from dsl.simulate import prepare, run_range, run_seed

SCENARIOS = sorted((ROOT / "scenarios").glob("*/scenario.yaml"))


@pytest.fixture
def collector_off():
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.parent.name)
def test_a_finished_interpreter_leaves_nothing_for_the_collector(path, collector_off):
    program = Program.compile(path)
    gc.collect()
    for mode in (None, FRESH, SIMULATE):
        interpreter = program.interpreter(seed=5, lenient=True, **({"mode": mode} if mode else {}))
        events = interpreter.run(program.script)
        assert events[-1]["type"] == "final"
        del interpreter, events
        assert gc.collect() == 0


def test_a_finished_simulation_run_leaves_nothing_for_the_collector(collector_off):
    prepared = prepare(str(ROOT / "scenarios" / "skirmish" / "scenario.yaml"))
    assert prepared.program.fast_path()[0] is not None
    gc.collect()
    events = prepared.run(run_seed(1, 0))
    del events
    assert gc.collect() == 0
    aggregate = run_range(prepared, 1, 0, 50)
    assert aggregate.completed == 50
    assert gc.collect() == 0


def test_a_parse_leaves_nothing_for_the_collector(collector_off):
    from dsl.syntax import parse
    text = (ROOT / "scenarios" / "skirmish" / "ford.drama").read_text()
    script = parse(text, "ford.drama")
    del script
    assert gc.collect() == 0
