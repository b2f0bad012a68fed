"""`drama test`: run the test plans (`*.test.yaml`) of adventures and report as pytest does."""

from __future__ import annotations

import sys

import click

from ..errors import DramaError
from ..messages import shown

EXAMPLES_TEST = """
\b
A test plan (NAME.test.yaml, beside its scenario) names the scenario and lists
tests (a seed, choices and expectations at the end of the run) and properties
(expectations and a bound on rounds over seeds 0..N-1, the seeded dice making
every choice). See docs/language.md, "Testing an adventure".
\b
Examples:
  drama test                                   every *.test.yaml under this folder
  drama test scenarios/river-veyne
  drama test scenarios/river-veyne/river-veyne.test.yaml -q
"""

_WIDTH = 80


def _rule(text: str = "", char: str = "=") -> str:
    if not text:
        return char * _WIDTH
    side = max(1, (_WIDTH - len(text) - 2) // 2)
    line = f"{char * side} {text} {char * side}"
    return line + char * (_WIDTH - len(line)) if len(line) < _WIDTH else line


@click.command("test", epilog=EXAMPLES_TEST)
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("-q", "--quiet", is_flag=True, help="One character per test (. or F), one line per plan.")
def test_command(paths: tuple[str, ...], quiet: bool) -> None:
    """Run the test plans found in PATHS (files, or folders searched for
    *.test.yaml; the current folder by default). Exit status 1 if a test fails."""
    from ..testing import find_plans, read_plan, run_plan
    verbose = not quiet
    plans = find_plans(list(paths))
    if not plans:
        click.echo(f"no test plans (*.test.yaml) under {', '.join(paths) or '.'}", err=True)
        sys.exit(1)
    click.echo(_rule("drama test"))
    outcomes = []
    broken = []
    for path in plans:
        try:
            plan = read_plan(path)
        except DramaError as error:
            broken.append(error)
            click.echo(f"{path} ERROR" if verbose else f"{path} E")
            continue
        mine = []
        if not verbose:
            click.echo(f"{path} ", nl=False)
        for outcome in run_plan(plan):
            mine.append(outcome)
            if verbose:
                click.echo(f"{outcome.id} {'PASSED' if outcome.passed else 'FAILED'}")
            else:
                click.echo("." if outcome.passed else "F", nl=False)
        if not verbose:
            click.echo("")
        outcomes.extend(mine)
    failed = [o for o in outcomes if not o.passed]
    for error in broken:            # a plan that cannot be read is an input error, on stderr
        click.echo(shown(error), err=True)
    if failed:
        click.echo(_rule("FAILURES"))
        for outcome in failed:
            click.echo(_rule(outcome.id, "_"))
            click.echo(outcome.failure)
            if outcome.reproduce:
                click.echo(f"reproduce: {outcome.reproduce}")
    passed = len(outcomes) - len(failed)
    said = [f"{len(failed)} failed"] if failed else []
    said.append(f"{passed} passed")
    if broken:
        said.append(f"{len(broken)} {'error' if len(broken) == 1 else 'errors'}")
    click.echo(_rule(", ".join(said)))
    if failed or broken:
        sys.exit(1)
