"""`drama simulate`: many seeded runs of a scenario, and what they add up to."""

from __future__ import annotations

import sys

import click

from ..errors import DramaError
from .common import CHOOSE_HELP, answers, bindings, fail, outputs


EXAMPLES_SIMULATE = """
\b
Every run uses fresh dice: the script's `roll` forms, and its given dice
rolled afresh; unnamed ties are settled as in --lenient. Run i has its own
seed, derived from --seed and i, so the summary is the same whatever --jobs.
Ctrl-C stops early and prints the summary of the runs done (exit status 130).
\b
Examples:
  drama simulate scenarios/skirmish/scenario.yaml --runs 2000 --seed 1
  drama simulate scenarios/skirmish/scenario.yaml --runs 20000 --jobs auto
  drama simulate scenarios/skirmish/scenario.yaml --runs 1000000 --cluster tcp://scheduler:8786
  drama simulate scenarios/river-veyne/scenario.yaml --runs 2000
  drama simulate scenarios/river-veyne/scenario.yaml --choose "At the river=Wade across"
  drama simulate scenarios/skirmish/scenario.yaml --format md -o skirmish.md
  drama simulate scenarios/skirmish/scenario.yaml --format html -o skirmish.html
  drama simulate scenarios/skirmish/scenario.yaml --format json | jq '.parties[].quintessence.mean'
"""


class _Jobs(click.ParamType):
    """`--jobs`: a number of processes, 0 or more, or `auto` (0: one per CPU)."""

    name = "J"

    def convert(self, value, param, ctx):
        if isinstance(value, int):
            number = value
        elif str(value).strip().lower() == "auto":
            return 0
        else:
            try:
                number = int(str(value).strip())
            except ValueError:
                self.fail(f"'{value}' is not a number of processes (0 or more) or 'auto'", param, ctx)
        if number < 0:
            self.fail(f"{number} is not 0 or more (0 or auto: one process per CPU)", param, ctx)
        return number


@click.command("simulate", epilog=EXAMPLES_SIMULATE)
@click.argument("scenario", type=click.Path(dir_okay=False))
@click.option("--runs", type=click.IntRange(min=1), default=1000, show_default=True,
              help="How many times to run the scenario (1 or more).")
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True,
              help="The seed the seeds of the runs are derived from (0 or more).")
@click.option("--jobs", type=_Jobs(), default="1", show_default=True,
              help="Processes to spread the runs over; 0 or auto: one per CPU.")
@click.option("--cluster", metavar="ADDRESS", default=None,
              help="Run on the Dask cluster whose scheduler is at ADDRESS (tcp://HOST:8786), or on one "
                   "started here (local); needs pip install 'drama[cluster]'. The same report as --jobs 1.")
@click.option("--cast", "casts", multiple=True, type=click.Path(dir_okay=False), metavar="CAST.yaml",
              help="Run with this cast instead of the scenario's (repeatable).")
@click.option("--role", "roles", multiple=True, metavar="ROLE=PARTY",
              help="Bind one of the adventure's roles to a party of the cast (repeatable).")
@click.option("--format", "fmt", type=click.Choice(["text", "md", "json", "html"]), default="text",
              show_default=True,
              help="text: tables for a terminal; md: Markdown; json: the figures as data; "
                   "html: one self-contained page with histograms.")
@click.option("-o", "--output", type=click.Path(dir_okay=False), default=None,
              help="Write to this file (atomically) instead of standard output.")
@click.option("--choose", "chosen", multiple=True, metavar="CHOICE=OPTION",
              help=CHOOSE_HELP + " Fixed for every run; the other choices are picked at random, by weight.")
@click.option("--verbose", "-v", is_flag=True,
              help="Say on standard error whether the runs take the fast path, and if not, why.")
def simulate_command(scenario: str, runs: int, seed: int, jobs: int, cluster: str | None, casts: tuple[str, ...],
                     roles: tuple[str, ...], fmt: str, output: str | None, chosen: tuple[str, ...] = (),
                     verbose: bool = False) -> None:
    """Run SCENARIO many times with random dice and report the odds, with 95%
    confidence intervals: each party's chance of defeat in each dramatic
    situation, final quintessence and damage pool, rounds per situation, how
    often each branch was taken, and for each choice, how often each option
    was taken and each party's defeat and final quintessence by option, and
    the flags and counters at the end. See docs/simulate.md."""
    from .. import simulate as sim
    context = click.get_current_context()
    if cluster is not None and context.get_parameter_source("jobs") is not click.core.ParameterSource.DEFAULT:
        raise click.UsageError("--jobs and --cluster do not go together: the cluster's workers are the jobs")
    bound = bindings(roles)
    given = answers(chosen)
    try:
        with outputs(scenario, *casts) as out:
            out.reserve(output)            # before the runs: a missing folder fails at once
            prepared = sim.prepare(scenario, casts, bound, given)
            from ..collector import one_shot
            one_shot()                     # the collector's work is done (dsl/collector.py)
            if verbose:
                click.echo(sim.path_taken(prepared), err=True)
            if cluster is not None:
                from ..cluster import simulate_on

                def run(progress=None):
                    return simulate_on(cluster, prepared, runs, seed, progress)
            else:
                def run(progress=None):
                    return sim.simulate(prepared, runs, seed, jobs, progress)
            if sys.stderr.isatty():
                with click.progressbar(length=runs, label="simulating", file=sys.stderr) as bar:
                    result = run(bar.update)
            else:
                result = run()
            out.text(output, sim.render(result.report(), fmt))
            out.commit()
    except DramaError as error:
        fail(getattr(error, "errors", [error]))
    except KeyboardInterrupt:       # before the runs began, or while writing: nothing to report
        click.echo("interrupted", err=True)
        sys.exit(130)
    done = result.aggregate.completed + result.aggregate.failed
    if result.stopped is not None:
        click.echo(f"stopped after {done:,} of {runs:,} runs: each stopped with the same error, and so "
                   "would the others:", err=True)
        click.echo(result.stopped, err=True)
        sys.exit(1)
    if result.interrupted:
        click.echo(f"interrupted: {done:,} of {runs:,} runs done", err=True)
    elif sys.stderr.isatty():
        rate = done / result.seconds if result.seconds else 0.0
        click.echo(f"{done:,} runs in {result.seconds:.1f} s ({rate:,.0f} runs/s)", err=True)
    if result.interrupted:
        sys.exit(130)
