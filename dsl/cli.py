"""The `drama` command: argument parsing, output files and exit codes only."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import click

from . import __version__, check, render_text, run
from .errors import DramaError
from .events import to_json_lines

EXAMPLES_RUN = """
\b
Examples:
  drama run scenarios/emberfall/scenario.yaml
  drama run scenarios/emberfall/scenario.yaml --format json -o events.jsonl
  drama run scenarios/ambush/scenario.yaml --seed 7
"""

EXAMPLES_CHECK = """
\b
Examples:
  drama check scenarios/emberfall/scenario.yaml
  drama check my-adventure.yaml --lenient
"""


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", "-V", prog_name="drama")
def main() -> None:
    """Run scenarios of dramatic situations: settings and casts in YAML, scripts in
    the drama language, events as JSON Lines or text.

    \b
    Examples:
      drama run scenarios/emberfall/scenario.yaml
      drama run scenarios/emberfall/scenario.yaml --format json
      drama check scenarios/emberfall/scenario.yaml
    """


def _fail(errors: list[DramaError]) -> None:
    for error in errors:
        click.echo(error.format(), err=True)
    if len(errors) > 1:
        click.echo(f"{len(errors)} errors", err=True)
    sys.exit(1)


def write_output(path: str, text: str, inputs: list[str]) -> None:
    """Write `text` to `path` atomically (a temporary file, then a rename), never
    over one of the run's input files."""
    target = Path(path)
    for source in inputs:
        try:
            if target.exists() and target.resolve() == Path(source).resolve():
                raise DramaError("E501", f"refusing to write over the input file {path}",
                                 expected="another output file with -o")
        except OSError:
            continue
    folder = target.parent if str(target.parent) else Path(".")
    if not folder.is_dir():
        raise DramaError("E501", f"cannot write {path}: the folder {folder} does not exist")
    try:
        handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
        try:
            with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as out:
                out.write(text)
            os.replace(temporary, target)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
    except OSError as error:
        raise DramaError("E501", f"cannot write {path}: {error.strerror or error}") from None


def _inputs(scenario: str) -> list[str]:
    """Every file a scenario reads, to protect them from -o."""
    files = [scenario]
    try:
        from .loader import load_scenario
        loaded = load_scenario(scenario)
        files.append(loaded.script.file)
        files.extend(getattr(loaded, "files", ()))
    except DramaError:
        pass
    return files


@main.command("run", epilog=EXAMPLES_RUN)
@click.argument("scenario", type=click.Path(dir_okay=False))
@click.option("--seed", type=int, default=0, show_default=True,
              help="Seed of the dice that the script asks the engine to roll.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True,
              help="text: a line per event; json: the event log as JSON Lines.")
@click.option("-o", "--output", type=click.Path(dir_okay=False), default=None,
              help="Write to this file (atomically) instead of standard output.")
@click.option("--lenient", is_flag=True,
              help="Let the setting's tie policy (or the dice) settle ties the script does not name.")
def run_command(scenario: str, seed: int, fmt: str, output: str | None, lenient: bool) -> None:
    """Run SCENARIO (a scenario YAML file) and print what happened."""
    try:
        events = run(scenario, seed=seed, lenient=lenient)
        text = to_json_lines(events) if fmt == "json" else render_text(events)
        if output:
            write_output(output, text, _inputs(scenario))
        else:
            click.echo(text, nl=False)
    except DramaError as error:
        _fail(getattr(error, "errors", [error]))


@main.command("check", epilog=EXAMPLES_CHECK)
@click.argument("scenario", type=click.Path(dir_okay=False))
@click.option("--seed", type=int, default=0, show_default=True, help="Seed for the dice rolled in the dry run.")
@click.option("--lenient", is_flag=True, help="Let the tie policy settle unnamed ties.")
def check_command(scenario: str, seed: int, lenient: bool) -> None:
    """Parse, validate and dry-run SCENARIO; print every error found in one pass."""
    errors = check(scenario, seed=seed, lenient=lenient)
    if errors:
        _fail(errors)
    click.echo(f"{scenario}: ok")


if __name__ == "__main__":  # pragma: no cover
    main()
