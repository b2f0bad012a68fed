"""The fuzz harness in the suite (tests/fuzz/harness.py): every input that once
crashed, hung or ran out of memory, kept in tests/fuzz/cases/, and a short run of
freshly generated inputs; each through the package API and the `drama` command.
The only outcomes allowed are `ok` and a clean `error` (docs/reliability.md)."""

from __future__ import annotations

import pytest

from fuzz.harness import Workspace, generate, kept_cases, run_case

CASES = kept_cases()
SECONDS = 30        # a call running longer is a hang (the long run, benchmarks/fuzz.py, allows 10 s on an idle core)


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    return Workspace(tmp_path_factory.mktemp("fuzz-scenarios"))


def test_there_are_regression_cases():
    assert len(CASES) >= 5


@pytest.mark.parametrize("name, case", CASES, ids=[name for name, _ in CASES])
def test_a_kept_case_ends_cleanly(workspace, name, case):
    case.command = True
    outcome = run_case(case, workspace, seconds=SECONDS)
    assert outcome.kind in ("ok", "error"), f"{case.origin}: {outcome.kind} in {outcome.slowest}\n{outcome.detail}"


@pytest.mark.parametrize("index", range(24))
def test_a_short_fuzz_run(workspace, index):
    """Random bytes, token soup, and mutations of the bundled scripts and YAML (seed 17)."""
    case = generate(17, index)
    outcome = run_case(case, workspace, seconds=SECONDS)
    assert outcome.kind in ("ok", "error"), f"case 17:{index} ({case.kind}, {case.base}/{case.file}): " \
        f"{outcome.kind} in {outcome.slowest}\n{outcome.detail}"


def test_a_case_is_the_same_every_time():
    """A case is remade from its seed and index alone, so a crash can be made again."""
    assert generate(3, 41) == generate(3, 41) and generate(3, 41) != generate(3, 42)
