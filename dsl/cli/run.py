"""`drama run`, `drama render` and `drama check`: a scenario run, a saved event log rendered, a scenario checked."""

from __future__ import annotations

import sys

import click

from ..errors import DramaError
from .common import CHOOSE_HELP, OUTPUTS, answers, bindings, fail, output_text, outputs, prose_options, render_options

EXAMPLES_RUN = OUTPUTS + """
\b
Examples:
  drama run scenarios/emberfall/scenario.yaml
  drama run scenarios/emberfall/scenario.yaml --format json -o events.jsonl
  drama run scenarios/ambush/scenario.yaml --seed 7
  drama run scenarios/ambush/scenario.yaml --seed 7 --record ambush-7.drama
  drama run scenarios/ford-of-ash/scenario.yaml --choose "At the river=Look for the ford"
  drama run scenarios/emberfall/scenario.yaml --as transcript --format md
  drama run scenarios/emberfall/scenario.yaml --as transcript --format html -o emberfall.html
  drama run scenarios/emberfall/scenario.yaml --format md --template my-log.md.j2
"""

EXAMPLES_RENDER = OUTPUTS + """
\b
Examples:
  drama run scenarios/emberfall/scenario.yaml --format json -o emberfall.jsonl
  drama render emberfall.jsonl --as log --format md -o emberfall.md
  drama render emberfall.jsonl --as transcript --format html -o emberfall.html
  drama render emberfall.jsonl --as transcript --numbers
  drama render emberfall.jsonl --format html --template my-templates/
"""

EXAMPLES_CHECK = """
\b
Examples:
  drama check scenarios/emberfall/scenario.yaml
  drama check my-adventure.yaml --lenient
"""


@click.command("run", epilog=EXAMPLES_RUN)
@click.argument("scenario", type=click.Path(dir_okay=False))
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True,
              help="Seed of the dice that the script asks the engine to roll (0 or more).")
@render_options
@prose_options
@click.option("--lenient", is_flag=True,
              help="Let the setting's tie policy (or the dice) settle ties the script does not name.")
@click.option("--cast", "casts", multiple=True, type=click.Path(dir_okay=False), metavar="CAST.yaml",
              help="Run with this cast instead of the scenario's (repeat for a cast in several files).")
@click.option("--role", "roles", multiple=True, metavar="ROLE=PARTY",
              help="Bind one of the adventure's roles to a party of the cast (repeatable).")
@click.option("--record", "record_file", type=click.Path(dir_okay=False), default=None, metavar="FILE.drama",
              help="Also write the run as a play log: a script with every die given and every tie named, "
                   "which replays to the same events.")
@click.option("--roll-given", is_flag=True,
              help="Roll the dice the script gives afresh, as `drama simulate` does (to replay one of its runs).")
@click.option("--choose", "chosen", multiple=True, metavar="CHOICE=OPTION", help=CHOOSE_HELP)
def run_command(scenario: str, seed: int, fmt: str, as_: str, numbers: bool, template: str | None,
                output: str | None, lenient: bool, casts: tuple[str, ...], roles: tuple[str, ...],
                record_file: str | None, roll_given: bool = False, chosen: tuple[str, ...] = (),
                lang: str | None = None, recap: bool = False) -> None:
    """Run SCENARIO (a scenario YAML file) and print what happened: the session
    log or the transcript, as text, Markdown or HTML, or the event log as JSON."""
    try:
        with outputs(scenario, *casts, template, _phrase_file(lang)) as out:
            out.reserve(output)            # a missing folder, an input: refused before the run
            out.reserve(record_file)
            from ..interpreter import FRESH, PLAY
            from ..pipeline import Program
            from ..events import Streamed
            from ..collector import one_shot
            given = answers(chosen)
            program = Program.compile(scenario, cast=list(casts) or None, roles=bindings(roles))
            one_shot()                     # the collector's work is done (dsl/collector.py)
            mode = FRESH if roll_given else PLAY
            if fmt == "json" and not record_file:
                # the event log written as it is made: to a temporary file that
                # the commit renames, or to standard output at once
                write = out.stream(output).write if output else sys.stdout.write
                program.run(seed=seed, lenient=lenient, mode=mode, choices=given, events=Streamed(write))
                out.commit()
                return
            events = program.run(seed=seed, lenient=lenient, mode=mode, choices=given)
            told = events
            if as_ == "transcript" and fmt != "json":
                told = _translated(program, lang, events, lambda p: p.run(seed=seed, lenient=lenient, mode=mode,
                                                                          choices=given))
            text = output_text(told, fmt, as_, numbers, template, lang, recap)
            if record_file:
                from ..syntax.printer import record
                try:
                    played = record(events, scenario=scenario)
                except ValueError as error:
                    raise DramaError("E501", f"cannot record the run: {error}") from None
                out.text(record_file, played)
            out.text(output, text)
            out.commit()                   # every output of the run, or none
    except DramaError as error:
        fail(getattr(error, "errors", [error]))


@click.command("render", epilog=EXAMPLES_RENDER)
@click.argument("events_file", metavar="EVENTS.jsonl", type=click.Path(dir_okay=False))
@render_options
@prose_options
def render_command(events_file: str, fmt: str, as_: str, numbers: bool, template: str | None,
                   output: str | None, lang: str | None = None, recap: bool = False) -> None:
    """Render a saved event log (EVENTS.jsonl, written by `drama run --format json`)
    without running anything: the session log or the transcript, as text,
    Markdown or HTML."""
    from ..render import read_event_log
    try:
        with outputs(events_file, template, _phrase_file(lang)) as out:
            out.reserve(output)
            events = read_event_log(events_file)
            out.text(output, output_text(events, fmt, as_, numbers, template, lang, recap))
            out.commit()
    except DramaError as error:
        fail(getattr(error, "errors", [error]))


@click.command("check", epilog=EXAMPLES_CHECK)
@click.argument("scenario", type=click.Path(dir_okay=False))
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True,
              help="Seed for the dice rolled in the dry run (0 or more).")
@click.option("--lenient", is_flag=True, help="Let the tie policy settle unnamed ties.")
@click.option("--cast", "casts", multiple=True, type=click.Path(dir_okay=False), metavar="CAST.yaml",
              help="Check with this cast instead of the scenario's (repeatable).")
@click.option("--role", "roles", multiple=True, metavar="ROLE=PARTY",
              help="Bind one of the adventure's roles to a party of the cast (repeatable).")
@click.option("--lang", "langs", multiple=True, metavar="LANG",
              help="Also check the scenario for transcripts in this language (repeatable); the languages "
                   "of its catalogues (locale/LANG.po) are checked without it. See docs/transcripts.md.")
def check_command(scenario: str, seed: int, lenient: bool, casts: tuple[str, ...], roles: tuple[str, ...],
                  langs: tuple[str, ...] = ()) -> None:
    """Parse, validate and dry-run SCENARIO; print every error found in one pass."""
    from ..pipeline import check
    errors = check(scenario, seed=seed, lenient=lenient, cast=list(casts) or None, roles=bindings(roles),
                   langs=langs)
    if errors:
        fail(errors)          # returns when they are all warnings
    click.echo(f"{scenario}: ok")


def _translated(program, lang: str | None, events: list[dict], run) -> list[dict]:
    """The events of the run told in the transcript's language: the run again
    with the writer's words from the scenario's catalogue (dsl/catalogue.py),
    the same dice and the same choices; a line without a translation is a
    warning (W041) on standard error."""
    from .. import catalogue
    from ..render import phrasebook
    book = phrasebook.load(lang)
    if not catalogue.needs(book):
        return events
    translation = catalogue.load(program, book.language)
    told = catalogue.translate_events(run(catalogue.translate_program(program, translation)), translation)
    for warning in catalogue.warnings(translation, program.path):
        click.echo(warning.format(), err=True)
    return told


def _phrase_file(lang: str | None) -> str | None:
    """A phrase book given as a file is an input: no output may go over it."""
    return lang if lang and lang.endswith((".yaml", ".yml")) else None
