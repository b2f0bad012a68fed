"""The limits of dsl/limits.py (docs/language.md, "Limits"): each at the limit
(accepted) and one past it (its own code, at the line), through the package API
and the `drama` command; and the crashes they replaced (deep nesting, a stray
`end` in an included file)."""

from __future__ import annotations

import shutil

import pytest

import dsl
from conftest import ERROR_HEAD, EMBERFALL_CAST, SCENARIOS, drama, make_scenario, write
from dsl.errors import DramaError
from dsl.limits import CHECK_STEPS, MAX_DICE, MAX_LINE, MAX_LOOP_BOUND, MAX_NESTING, MAX_NUMBER, MAX_SCRIPT, MAX_STEPS

DRAMA = 'drama "Hall" with Kara, Bren, Overlord, Goblins\n'


def codes(folder, script, **kwargs) -> list[str]:
    """The codes `dsl.check` finds in a scenario with this script."""
    path = make_scenario(folder, script, **kwargs)
    return [e.code for e in dsl.check(path)]


def run_error(folder, script, **kwargs) -> DramaError | None:
    """The error `dsl.run` raises for a scenario with this script, or None."""
    path = make_scenario(folder, script, **kwargs)
    try:
        dsl.run(path)
    except DramaError as error:
        return error
    return None


def nested(depth: int) -> str:
    return "if in drama\n" * depth + "> deep\n" + "end\n" * depth


# ---------------------------------------------------------------------------
# nesting (E010)

def test_blocks_nested_to_the_limit_run(tmp_path):
    assert codes(tmp_path, DRAMA + nested(MAX_NESTING)) == []
    assert run_error(tmp_path, DRAMA + nested(MAX_NESTING)) is None


def test_a_block_one_past_the_limit_is_E010_at_its_line(tmp_path):
    found = dsl.check(make_scenario(tmp_path, DRAMA + nested(MAX_NESTING + 1)))
    assert [e.code for e in found] == ["E010"]
    assert found[0].position.line == 2 + MAX_NESTING
    error = run_error(tmp_path, DRAMA + nested(MAX_NESTING + 1))
    assert error.code == "E010" and error.position.line == 2 + MAX_NESTING


@pytest.mark.parametrize("depth", [1_000, 10_000])
def test_very_deep_nesting_is_an_error_not_a_crash(tmp_path, depth):
    """The audit's RecursionError: blocks nested hundreds deep."""
    script = DRAMA + "repeat 2 times\n" * depth + "> deep\n" + "end\n" * depth
    assert "E010" in codes(tmp_path, script)
    assert run_error(tmp_path, script).code == "E010"
    outcome = drama("check", str(tmp_path / "scenario.yaml"))
    assert outcome.code == 1 and "Traceback" not in outcome.output
    assert ERROR_HEAD.match(outcome.stderr.splitlines()[0])


def _include_chain(folder, files: int):
    make_scenario(folder, DRAMA + 'include "f1.drama"\n')
    for k in range(1, files):
        write(folder, f"f{k}.drama", f'include "f{k + 1}.drama"\n')
    write(folder, f"f{files}.drama", "> the end of the chain\n")
    return folder / "scenario.yaml"


def test_includes_count_towards_the_nesting(tmp_path):
    assert dsl.check(_include_chain(tmp_path, MAX_NESTING)) == []
    found = dsl.check(_include_chain(tmp_path, MAX_NESTING + 1))
    assert [e.code for e in found] == ["E010"]
    assert found[0].position.file.endswith(f"f{MAX_NESTING}.drama")
    with pytest.raises(DramaError) as raised:
        dsl.run(_include_chain(tmp_path, MAX_NESTING + 1))
    assert raised.value.code == "E010"


def test_blocks_in_an_included_file_add_to_the_blocks_around_the_include(tmp_path):
    half = MAX_NESTING // 2
    write(tmp_path, "inner.drama", nested(MAX_NESTING - half))
    script = DRAMA + "if in drama\n" * half + 'include "inner.drama"\n' + "end\n" * half
    assert codes(tmp_path, script) == ["E010"]      # (the include itself counts one)
    write(tmp_path, "inner.drama", nested(MAX_NESTING - half - 1))
    assert codes(tmp_path, script) == []


def test_a_condition_with_operators_to_the_limit(tmp_path):
    at = DRAMA + "if " + "not " * MAX_NESTING + "in drama\n> x\nend\n"
    assert codes(tmp_path, at) == []
    past = DRAMA + "if " + "not " * (MAX_NESTING + 1) + "in drama\n> x\nend\n"
    assert codes(tmp_path, past) == ["E010"]
    assert run_error(tmp_path, past).code == "E010"
    chain = DRAMA + "repeat until " + " or ".join(["Kara is defeated"] * (MAX_NESTING + 2)) + ", at most 2 times\nend\n"
    assert "E010" in codes(tmp_path, chain)


# ---------------------------------------------------------------------------
# a stray `end` in an included file (the audit's KeyError)

def test_a_stray_end_in_an_included_file_is_E004(tmp_path):
    shutil.copytree(SCENARIOS / "grey-ford", tmp_path / "grey-ford")
    scene = tmp_path / "grey-ford" / "scenes" / "far-bank.drama"
    lines = scene.read_text(encoding="utf-8").split("\n")
    scene.write_text("\n".join([lines[0], "end", *lines[1:]]), encoding="utf-8")
    scenario = tmp_path / "grey-ford" / "with-wanderers.yaml"
    outcome = drama("run", str(scenario), "--seed", "9")
    assert outcome.code == 1 and "Traceback" not in outcome.output
    assert "far-bank.drama:2:1: error[E004]: `end` without" in outcome.stderr
    with pytest.raises(DramaError) as raised:
        dsl.play(dsl.load(scenario), seed=9)
    assert raised.value.code == "E004" and raised.value.position.line == 2


@pytest.mark.parametrize("line", ["end", "else", "else if in drama"])
def test_a_block_line_fed_alone_to_a_session_is_E004(line):
    session = dsl.Program.compile(SCENARIOS / "emberfall" / "scenario.yaml").session()
    with pytest.raises(DramaError) as raised:
        session.feed(line)
    assert raised.value.code == "E004"


# ---------------------------------------------------------------------------
# a loop's bound (E011)

def test_a_loop_bound_at_the_limit_and_one_past(tmp_path):
    assert codes(tmp_path, DRAMA + f"repeat {MAX_LOOP_BOUND} times\nend\n") == []
    found = dsl.check(make_scenario(tmp_path, DRAMA + f"repeat until Goblins is defeated, at most "
                                    f"{MAX_LOOP_BOUND + 1} rounds\nround\nend\n"))
    assert [e.code for e in found] == ["E011"]
    assert (found[0].position.line, found[0].position.column) == (2, 43)
    assert run_error(tmp_path, DRAMA + "repeat 999999999 times\n> x\nend\n").code == "E011"


# ---------------------------------------------------------------------------
# statements executed (E012, W020)

def _loop_work(passes_after: int, narrations_after: int = 0) -> str:
    # 10,000 passes of 9 narrations: 10,000 passes + 90,000 statements = the budget;
    # then a loop of `passes_after` passes of nothing, then narrations outside any loop
    assert 10_000 * (1 + 9) == MAX_STEPS
    return ("repeat 10000 times\n" + "> again\n" * 9 + "end\n"
            + (f"repeat {passes_after} times\nend\n" if passes_after else "")
            + "> after\n" * narrations_after)


def test_a_run_at_the_budget_and_one_past(tmp_path):
    """E012 counts the work loops repeat: each pass, and each statement run inside a loop."""
    assert run_error(tmp_path, _loop_work(0)) is None
    error = run_error(tmp_path, _loop_work(1))
    assert error.code == "E012"
    assert error.position.line == 1 + 9 + 1 + 1        # the second loop, whose one pass is the one past
    assert "loops executed more than 100,000 statements" in error.message


def test_statements_outside_loops_do_not_spend_the_budget(tmp_path):
    """A statement outside every loop runs once at most: a play log longer than the
    budget runs (its work is bounded by its length, E014), even after a loop that spent it all."""
    assert run_error(tmp_path, _loop_work(0, narrations_after=30_000)) is None
    log = DRAMA + "round\n> The war goes on.\n" * 60_000
    assert log.count("\n") > MAX_STEPS
    assert run_error(tmp_path, log) is None


def test_check_stops_its_dry_run_at_the_budget_with_a_warning(tmp_path):
    script = DRAMA + "repeat 10000 times\nrepeat 10000 times\nrepeat 10000 times\nend\nend\nend\n" \
        "Kara fireball -> Overlrd\n"
    found = dsl.check(make_scenario(tmp_path, script))
    assert [e.code for e in found] == ["W020"]       # the misspelt name is after where the run stopped
    # the budget: a constant and two for each of the script's 5 statements
    assert f"after {CHECK_STEPS + 2 * 5:,} statements in loops" in found[0].message
    outcome = drama("check", str(tmp_path / "scenario.yaml"))
    assert outcome.code == 0 and "warning[W020]" in outcome.stderr


def test_simulate_respects_the_budget(tmp_path):
    make_scenario(tmp_path, DRAMA + "repeat 10000 times\nrepeat 10000 times\nend\nend\n")
    outcome = drama("simulate", str(tmp_path / "scenario.yaml"), "--runs", "2")
    # each run stops at the budget, and the report counts it as a failed run
    assert "2 failed" in outcome.stdout and "error[E012]" in outcome.stdout


# ---------------------------------------------------------------------------
# lengths (E013, E014)

def test_a_line_at_the_limit_and_one_past(tmp_path):
    at = DRAMA + "> " + "x" * (MAX_LINE - 2) + "\n"
    assert codes(tmp_path, at) == []
    found = dsl.check(make_scenario(tmp_path, DRAMA + "> " + "x" * (MAX_LINE - 1) + "\nKara fireball -> Overlrd\n"))
    assert [e.code for e in found] == ["E013", "E201"]        # a collecting check reads on
    assert (found[0].position.line, found[0].position.column) == (2, MAX_LINE + 1)


_LONG_LINE = "> " + "x" * (MAX_LINE - 2) + "\n"        # a narration of MAX_LINE characters


def test_a_script_at_the_limit_and_one_past(tmp_path):
    """E014: a script of MAX_SCRIPT characters (8 MiB, as much as a script file may hold) is
    read; one more is refused: by the reader for a file (E520), by the parser for a text."""
    body = _LONG_LINE * ((MAX_SCRIPT - len(DRAMA)) // len(_LONG_LINE))
    at = DRAMA + body + "#" * (MAX_SCRIPT - len(DRAMA) - len(body))
    assert len(at) == MAX_SCRIPT
    assert codes(tmp_path, at) == []
    assert [e.code for e in dsl.check(make_scenario(tmp_path, at + "#"))] == ["E520"]
    errors = []
    dsl.parse(at + "#", "long.drama", errors=errors)
    assert [e.code for e in errors] == ["E014"]
    with pytest.raises(DramaError) as raised:
        dsl.parse(at + "#", "long.drama")
    assert raised.value.code == "E014"


def test_includes_count_towards_the_script_length(tmp_path):
    big = _LONG_LINE * -(-MAX_SCRIPT // len(_LONG_LINE) // 5)       # a little over a fifth of the limit
    assert 4 * len(big) < MAX_SCRIPT < 5 * len(big)
    write(tmp_path, "big.drama", big)
    assert codes(tmp_path, DRAMA + 'include "big.drama"\n' * 4) == []
    assert codes(tmp_path, DRAMA + 'include "big.drama"\n' * 5) == ["E014"]


# ---------------------------------------------------------------------------
# dice (E015) and numbers

def test_dice_given_or_rolled_past_the_limit(tmp_path):
    # at the limit the rules refuse the dice (R3); past it, the limit does
    at = DRAMA + "Kara fireball -> Overlord with Sorcery, rolled " + "6 " * MAX_DICE + "\n"
    assert codes(tmp_path, at) == ["E301"]
    past = DRAMA + "Kara fireball -> Overlord with Sorcery, rolled " + "6 " * (MAX_DICE + 1) + "\n"
    assert codes(tmp_path, past) == ["E015"]
    assert codes(tmp_path, DRAMA + f"Kara fireball -> Overlord with Sorcery, roll {MAX_DICE + 1}\n") == ["E015"]


def test_a_cast_rolling_more_dice_than_the_limit(tmp_path):
    cast = EMBERFALL_CAST.replace("quintessence: 6", "quintessence: 5000").replace("Sorcery: 3", "Sorcery: 5000")
    error = run_error(tmp_path, DRAMA + "Kara fireball -> Overlord with Sorcery, roll\n", cast=cast)
    assert error.code == "E015" and error.position.line == 2


def test_numbers_in_a_cast_at_the_limit_and_one_past(tmp_path):
    at = EMBERFALL_CAST.replace("quintessence: 6", f"quintessence: {MAX_NUMBER}")
    assert codes(tmp_path, "# nothing\n", cast=at) == []
    past = EMBERFALL_CAST.replace("quintessence: 6", f"quintessence: {MAX_NUMBER + 1}")
    found = dsl.check(make_scenario(tmp_path, "# nothing\n", cast=past))
    assert [e.code for e in found] == ["E104"] and found[0].position.file.endswith("cast.yaml")


def test_numbers_in_a_script_have_at_most_nine_digits(tmp_path):
    assert codes(tmp_path, DRAMA + "calm 999999999 seconds\n") == ["E316"]
    assert codes(tmp_path, DRAMA + "calm 1000000000 seconds\n") == ["E001"]
