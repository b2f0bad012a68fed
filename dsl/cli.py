"""The `drama` command: argument parsing, output files and exit codes only."""

from __future__ import annotations

import os
import stat
import sys
import tempfile
from pathlib import Path

import click

from . import __version__
from .errors import DramaError
from .events import to_json_lines

OUTPUTS = """
\b
Output:
  --format [text|json]   a line per event, or the event log as JSON Lines
  --format [md|html]     the session log in Markdown, or as one HTML page
  --as transcript        the story of the session instead of the log
                         (text, md or html; json ignores --as)
  --template FILE_OR_DIR your own template, or a folder of templates that
                         come before the built-in ones (docs/templates.md)
"""

EXAMPLES_RUN = OUTPUTS + """
\b
Examples:
  drama run scenarios/emberfall/scenario.yaml
  drama run scenarios/emberfall/scenario.yaml --format json -o events.jsonl
  drama run scenarios/ambush/scenario.yaml --seed 7
  drama run scenarios/ambush/scenario.yaml --seed 7 --record ambush-7.drama
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


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", "-V", prog_name="drama")
def main() -> None:
    """Run scenarios of dramatic situations: settings and casts in YAML, scripts in
    the drama language; session logs and transcripts as text, Markdown or HTML,
    and the event log as JSON Lines.

    \b
    Examples:
      drama run scenarios/emberfall/scenario.yaml
      drama run scenarios/emberfall/scenario.yaml --format json
      drama run scenarios/emberfall/scenario.yaml --as transcript --format html -o out.html
      drama render events.jsonl --as log --format md
      drama check scenarios/emberfall/scenario.yaml
    """


def _fail(errors: list[DramaError]) -> None:
    """Print the errors (and warnings) and exit with status 1 if there is an error."""
    for error in errors:
        click.echo(error.format(), err=True)
    count = sum(not error.is_warning for error in errors)
    warnings = len(errors) - count
    if len(errors) > 1:
        said = [f"{count} {'error' if count == 1 else 'errors'}"] if count else []
        if warnings:
            said.append(f"{warnings} {'warning' if warnings == 1 else 'warnings'}")
        click.echo(", ".join(said), err=True)
    if count:
        sys.exit(1)


def write_output(path: str, text: str, inputs: list[str]) -> None:
    """Write `text` to `path` atomically (a temporary file, then a rename), never
    over one of the run's input files.

    A link is written through (its target is replaced, the link stays); a device
    or a pipe (/dev/stdout) is written to as it is; a new file gets the usual
    permissions (0666 less the umask), a replaced file keeps its own."""
    target = Path(path)
    for source in inputs:
        try:
            if target.exists() and target.resolve() == Path(source).resolve():
                raise DramaError("E501", f"refusing to write over the input file {path}",
                                 expected="another output file with -o")
        except OSError:
            continue
    try:
        real = target.resolve() if target.is_symlink() else target
        mode = real.stat().st_mode if real.exists() else None
    except OSError as error:
        raise DramaError("E501", f"cannot write {path}: {error.strerror or error}") from None
    if mode is not None and not stat.S_ISREG(mode):
        if stat.S_ISDIR(mode):
            raise DramaError("E501", f"cannot write {path}: it is a folder", expected="a file name with -o")
        try:                                   # a device or a pipe: no rename, just write
            with open(real, "w", encoding="utf-8", newline="\n") as out:
                out.write(text)
        except OSError as error:
            raise DramaError("E501", f"cannot write {path}: {error.strerror or error}") from None
        return
    folder = real.parent if str(real.parent) else Path(".")
    if not folder.is_dir():
        raise DramaError("E501", f"cannot write {path}: the folder {folder} does not exist")
    if mode is None:
        umask = os.umask(0)
        os.umask(umask)
        permissions = 0o666 & ~umask
    else:
        permissions = stat.S_IMODE(mode)
    try:
        handle, temporary = tempfile.mkstemp(prefix=f".{real.name}.", suffix=".tmp", dir=folder)
        try:
            with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as out:
                out.write(text)
            os.chmod(temporary, permissions)
            os.replace(temporary, real)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
    except OSError as error:
        raise DramaError("E501", f"cannot write {path}: {error.strerror or error}") from None


def _bindings(roles: tuple[str, ...]) -> dict[str, str]:
    """`--role hero=Kara` options as a mapping; a malformed one is a usage error."""
    bound: dict[str, str] = {}
    for item in roles:
        role, equals, party = item.partition("=")
        if not equals or not role.strip() or not party.strip():
            raise click.BadParameter(f"'{item}' is not ROLE=PARTY, e.g. hero=Kara", param_hint="'--role'")
        bound[role.strip()] = party.strip()
    return bound


def _render_options(command):
    """The options that choose what to print, shared by `run` and `render`."""
    for option in reversed([
        click.option("--format", "fmt", type=click.Choice(["text", "json", "md", "html"]), default="text",
                     show_default=True,
                     help="text: plain text; json: the event log as JSON Lines; md: Markdown; "
                          "html: one self-contained HTML page."),
        click.option("--as", "as_", type=click.Choice(["log", "transcript"]), default="log", show_default=True,
                     help="log: the session log, every mechanic; transcript: the story of the session, "
                          "in prose. Ignored with --format json."),
        click.option("--numbers", is_flag=True,
                     help="Put the values (rolls, sides' values, what came back) into a transcript."),
        click.option("--template", type=click.Path(), default=None, metavar="FILE_OR_DIR",
                     help="A template file to render, or a folder of templates that come before the "
                          "built-in ones (log.md.j2, transcript.html.j2, ...). See docs/templates.md."),
        click.option("-o", "--output", type=click.Path(dir_okay=False), default=None,
                     help="Write to this file (atomically) instead of standard output."),
    ]):
        command = option(command)
    return command


def _output(events: list[dict], fmt: str, as_: str, numbers: bool, template: str | None) -> str:
    if fmt == "json":
        return to_json_lines(events)
    from .render import render          # Jinja is loaded only when something is rendered
    return render(events, as_=as_, format=fmt, template=template, numbers=numbers)


def _emit(text: str, output: str | None, inputs: list[str]) -> None:
    if output:
        write_output(output, text, inputs)
    else:
        click.echo(text, nl=False)


@main.command("run", epilog=EXAMPLES_RUN)
@click.argument("scenario", type=click.Path(dir_okay=False))
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True,
              help="Seed of the dice that the script asks the engine to roll (0 or more).")
@_render_options
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
def run_command(scenario: str, seed: int, fmt: str, as_: str, numbers: bool, template: str | None,
                output: str | None, lenient: bool, casts: tuple[str, ...], roles: tuple[str, ...],
                record_file: str | None, roll_given: bool = False) -> None:
    """Run SCENARIO (a scenario YAML file) and print what happened: the session
    log or the transcript, as text, Markdown or HTML, or the event log as JSON."""
    try:
        from .interpreter import FRESH, PLAY
        from .pipeline import Program
        program = Program.compile(scenario, cast=list(casts) or None, roles=_bindings(roles))
        events = program.run(seed=seed, lenient=lenient, mode=FRESH if roll_given else PLAY)
        text = _output(events, fmt, as_, numbers, template)
        # every file the run read, to keep -o and --record off them
        inputs = [scenario, *program.files, *casts] + ([template] if template else [])
        if record_file:
            from .syntax.printer import record
            if output and Path(output).resolve() == Path(record_file).resolve():
                raise DramaError("E501", f"-o and --record both name {output}",
                                 expected="two different files")
            try:
                played = record(events, scenario=scenario)
            except ValueError as error:
                raise DramaError("E501", f"cannot record the run: {error}") from None
            write_output(record_file, played, inputs)
        _emit(text, output, inputs)
    except DramaError as error:
        _fail(getattr(error, "errors", [error]))


@main.command("render", epilog=EXAMPLES_RENDER)
@click.argument("events_file", metavar="EVENTS.jsonl", type=click.Path(dir_okay=False))
@_render_options
def render_command(events_file: str, fmt: str, as_: str, numbers: bool, template: str | None,
                   output: str | None) -> None:
    """Render a saved event log (EVENTS.jsonl, written by `drama run --format json`)
    without running anything: the session log or the transcript, as text,
    Markdown or HTML."""
    from .render import read_event_log
    try:
        events = read_event_log(events_file)
        text = _output(events, fmt, as_, numbers, template)
        _emit(text, output, [events_file] + ([template] if template else []))
    except DramaError as error:
        _fail(getattr(error, "errors", [error]))


@main.command("check", epilog=EXAMPLES_CHECK)
@click.argument("scenario", type=click.Path(dir_okay=False))
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True,
              help="Seed for the dice rolled in the dry run (0 or more).")
@click.option("--lenient", is_flag=True, help="Let the tie policy settle unnamed ties.")
@click.option("--cast", "casts", multiple=True, type=click.Path(dir_okay=False), metavar="CAST.yaml",
              help="Check with this cast instead of the scenario's (repeatable).")
@click.option("--role", "roles", multiple=True, metavar="ROLE=PARTY",
              help="Bind one of the adventure's roles to a party of the cast (repeatable).")
def check_command(scenario: str, seed: int, lenient: bool, casts: tuple[str, ...], roles: tuple[str, ...]) -> None:
    """Parse, validate and dry-run SCENARIO; print every error found in one pass."""
    from .pipeline import check
    errors = check(scenario, seed=seed, lenient=lenient, cast=list(casts) or None, roles=_bindings(roles))
    if errors:
        _fail(errors)          # returns when they are all warnings
    click.echo(f"{scenario}: ok")


# ---------------------------------------------------------------------- drama odds

EXAMPLES_ODDS = """
\b
The action and each defence are written as in a script; a joint side's
indented lines go in the same argument, after a newline.
\b
Examples:
  drama odds scenarios/emberfall/scenario.yaml \\
      "Kara fireball -> Overlord with Sorcery + Ember Staff, roll 3" \\
      --defence "Overlord defends with Cunning, roll 2"
  drama odds scenarios/emberfall/scenario.yaml "Kara leaps vs 7 with Agility, GM +1, roll"
  drama odds scenarios/emberfall/scenario.yaml "Bren bash -> Goblins +Overlord, roll" \\
      --defence "Goblins defend with Numbers, roll" --defence "Overlord defends with Cunning, roll 1"
  drama odds scenarios/emberfall/scenario.yaml "Kara fireball -> Overlord, roll" --state Kara=2 --tie actor
  drama odds scenarios/emberfall/scenario.yaml "Kara fireball -> Overlord, roll" --format json -o odds.json
"""


def _odds_states(items: tuple[str, ...]) -> dict[str, int]:
    """`--state Kara=3` options as a mapping; a malformed one is a usage error."""
    states: dict[str, int] = {}
    for item in items:
        party, equals, number = item.partition("=")
        if not equals or not party.strip() or not number.strip().isdigit():
            raise click.BadParameter(f"'{item}' is not PARTY=N, e.g. Kara=3", param_hint="'--state'")
        states[party.strip()] = int(number)
    return states


@main.command("odds", epilog=EXAMPLES_ODDS)
@click.argument("scenario", type=click.Path(dir_okay=False))
@click.argument("action")
@click.option("--defence", "--defense", "defences", multiple=True, metavar="TEXT",
              help="A target's defence, as in a script (repeatable: one for each target that defends).")
@click.option("--cast", "casts", multiple=True, type=click.Path(dir_okay=False), metavar="CAST.yaml",
              help="Use this cast instead of the scenario's (repeatable).")
@click.option("--role", "roles", multiple=True, metavar="ROLE=PARTY",
              help="Bind one of the adventure's roles to a party of the cast (repeatable).")
@click.option("--state", "states", multiple=True, metavar="PARTY=N",
              help="The party's available quintessence before the exchange (default: its maximum; repeatable).")
@click.option("--tie", type=click.Choice(["actor", "defender", "half"]), default=None,
              help="Who a tie goes to, for the losses: default the setting's `ties` when it is actor or "
                   "defender, else half to each side.")
@click.option("--format", "fmt", type=click.Choice(["text", "md", "json"]), default="text", show_default=True,
              help="text: for a terminal; md: Markdown tables; json: exact fractions as \"num/den\" and floats.")
@click.option("-o", "--output", type=click.Path(dir_okay=False), default=None,
              help="Write to this file (atomically) instead of standard output.")
def odds_command(scenario: str, action: str, defences: tuple[str, ...], casts: tuple[str, ...],
                 roles: tuple[str, ...], states: tuple[str, ...], tie: str | None, fmt: str,
                 output: str | None) -> None:
    """Exact chances of one exchange against SCENARIO's cast and setting: win,
    tie, lose and double win, and the quintessence each party loses (R2-R11).
    Counted over every roll of the dice, not sampled."""
    from . import odds as exact
    sources = {exact.ACTION_FILE: action}
    sources.update({exact.defence_file(i): text for i, text in enumerate(defences)})
    bound, wanted = _bindings(roles), _odds_states(states)
    try:
        from .loader import bind, load_scenario
        loaded = bind(load_scenario(scenario), list(casts) or None, bound)
        result = exact.odds(loaded, action, defences, tie=tie, state=wanted)
        _emit(exact.FORMATS[fmt](result), output, [scenario, *loaded.files, *casts])
    except DramaError as error:
        errors = getattr(error, "errors", [error])
        for one in errors:        # the action and defences are shown from the command line
            click.echo(one.format(sources.get(one.position.file) if one.position else None), err=True)
        if len(errors) > 1:
            click.echo(f"{len(errors)} errors", err=True)
        sys.exit(1)


# ---------------------------------------------------------------------- drama simulate

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


@main.command("simulate", epilog=EXAMPLES_SIMULATE)
@click.argument("scenario", type=click.Path(dir_okay=False))
@click.option("--runs", type=click.IntRange(min=1), default=1000, show_default=True,
              help="How many times to run the scenario (1 or more).")
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True,
              help="The seed the seeds of the runs are derived from (0 or more).")
@click.option("--jobs", type=_Jobs(), default="1", show_default=True,
              help="Processes to spread the runs over; 0 or auto: one per CPU.")
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
def simulate_command(scenario: str, runs: int, seed: int, jobs: int, casts: tuple[str, ...],
                     roles: tuple[str, ...], fmt: str, output: str | None) -> None:
    """Run SCENARIO many times with random dice and report the odds, with 95%
    confidence intervals: each party's chance of defeat in each dramatic
    situation, final quintessence and damage pool, rounds per situation, and
    how often each branch was taken. See docs/simulate.md."""
    from . import simulate as sim
    bound = _bindings(roles)
    try:
        prepared = sim.prepare(scenario, casts, bound)
        if sys.stderr.isatty():
            with click.progressbar(length=runs, label="simulating", file=sys.stderr) as bar:
                result = sim.simulate(prepared, runs, seed, jobs, bar.update)
        else:
            result = sim.simulate(prepared, runs, seed, jobs)
        text = sim.render(result.report(), fmt)
        _emit(text, output, [scenario, *prepared.scenario.files, *casts])
    except DramaError as error:
        _fail(getattr(error, "errors", [error]))
    except KeyboardInterrupt:       # before the runs began, or while writing: nothing to report
        click.echo("interrupted", err=True)
        sys.exit(130)
    done = result.aggregate.completed + result.aggregate.failed
    if result.interrupted:
        click.echo(f"interrupted: {done:,} of {runs:,} runs done", err=True)
    elif sys.stderr.isatty():
        rate = done / result.seconds if result.seconds else 0.0
        click.echo(f"{done:,} runs in {result.seconds:.1f} s ({rate:,.0f} runs/s)", err=True)
    if result.interrupted:
        sys.exit(130)

if __name__ == "__main__":  # pragma: no cover
    main()
