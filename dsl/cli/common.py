"""What the `drama` commands share: printing errors, the writer of outputs, and the common options."""

from __future__ import annotations

import sys

import click

from ..errors import DramaError
from ..messages import shown
from ..events import to_json_lines

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


def fail(errors: list[DramaError]) -> None:
    """Print the errors (and warnings) and exit with status 1 if there is an error."""
    for error in errors:
        click.echo(shown(error), err=True)
    count = sum(not error.is_warning for error in errors)
    warnings = len(errors) - count
    if len(errors) > 1:
        said = [f"{count} {'error' if count == 1 else 'errors'}"] if count else []
        if warnings:
            said.append(f"{warnings} {'warning' if warnings == 1 else 'warnings'}")
        click.echo(", ".join(said), err=True)
    if count:
        sys.exit(1)


def outputs(*refuse) -> "Outputs":
    """The one writer of a command's outputs (dsl/outputs.py): the files it reads
    refused as outputs (these and every file read while it is open), every output
    written together when the command succeeds; standard output through click."""
    from ..outputs import Outputs
    return Outputs(refuse=refuse, echo=lambda text: click.echo(text, nl=False))


def emit(text: str, output: str | None, inputs=()) -> None:
    """A command's one output (`-o FILE`, or standard output when None) through the
    one writer. Raises DramaError (E501). A command with several outputs, or whose
    work reads files, opens `outputs()` around all of its work instead."""
    with outputs(*inputs) as out:
        out.text(output, text)
        out.commit()


def write_output(path: str, text: str, inputs=()) -> None:
    """`emit` to a file: written atomically, never over one of `inputs`."""
    emit(text, path, inputs)


def bindings(roles: tuple[str, ...]) -> dict[str, str]:
    """`--role hero=Kara` options as a mapping; a malformed one is a usage error."""
    bound: dict[str, str] = {}
    for item in roles:
        role, equals, party = item.partition("=")
        if not equals or not role.strip() or not party.strip():
            raise click.BadParameter(f"'{item}' is not ROLE=PARTY, e.g. hero=Kara", param_hint="'--role'")
        bound[role.strip()] = party.strip()
    return bound


def answers(items: tuple[str, ...]) -> dict[str, str]:
    """`--choose "CHOICE=OPTION"` options as a mapping; a malformed one is a usage error."""
    from ..interpreter.choices import parse_answers
    try:
        return parse_answers(items)
    except ValueError as error:
        raise click.BadParameter(str(error), param_hint="'--choose'") from None


CHOOSE_HELP = ("Answer a choice of the script: the choice's label, '=', the option's label "
               "(repeatable), e.g. --choose \"At the river=Wade across\".")


def render_options(command):
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


def prose_options(command):
    """The options of a transcript's language and recap, shared by `run` and `render`."""
    command = click.option("--recap", is_flag=True,
                           help="End a transcript with a recap: who stood, who fell, what was dictated.")(command)
    return click.option("--lang", default=None, metavar="LANG",
                        help="The language of a transcript: en (default), fr, or a phrase file of your own "
                             "(.yaml). See docs/templates.md.")(command)


def output_text(events: list[dict], fmt: str, as_: str, numbers: bool, template: str | None,
                lang: str | None = None, recap: bool = False) -> str:
    if fmt == "json":
        return to_json_lines(events)
    from ..render import render          # Jinja is loaded only when something is rendered
    return render(events, as_=as_, format=fmt, template=template, numbers=numbers, lang=lang, recap=recap)


