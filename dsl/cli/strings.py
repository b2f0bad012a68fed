"""`drama strings`: the writer's words of a scenario as a gettext catalogue (a
`.pot`), or a language's `.po` made or brought up to date beside it."""

from __future__ import annotations

import io
import os

import click

from ..errors import DramaError
from .common import bindings, fail, outputs

EXAMPLES = """
\b
Examples:
  drama strings scenarios/harbour/scenario.yaml > harbour.pot
  drama strings scenarios/harbour/scenario.yaml --lang fr      # writes or updates locale/fr.po
  drama run scenarios/harbour/scenario.yaml --as transcript --lang fr
"""


@click.command("strings", epilog=EXAMPLES)
@click.argument("scenarios", nargs=-1, required=True, type=click.Path(dir_okay=False), metavar="SCENARIO...")
@click.option("--lang", default=None, metavar="LANG",
              help="Write the catalogue of this language, locale/LANG.po beside the scenario: a new one, or "
                   "the one there brought up to date (its translations kept, lines gone marked obsolete).")
@click.option("-o", "--output", default=None, type=click.Path(dir_okay=False),
              help="Write to this file (atomically) instead of standard output or locale/LANG.po.")
@click.option("--cast", "casts", multiple=True, type=click.Path(dir_okay=False), metavar="CAST.yaml",
              help="Take the cast's words from this cast instead of the scenario's (repeatable).")
@click.option("--role", "roles", multiple=True, metavar="ROLE=PARTY",
              help="Bind one of the adventure's roles to a party of the cast (repeatable).")
def strings_command(scenarios: tuple[str, ...], lang: str | None, output: str | None, casts: tuple[str, ...],
                    roles: tuple[str, ...]) -> None:
    """Write the writer's words of SCENARIO (narration, titles, quoted intents,
    moves, qualifiers, dictates, end texts, choice labels, the cast's names and
    words) as a gettext template (.pot), each line with a stable id, for
    translators; with --lang, the language's .po beside the scenario. The
    scenarios of one folder share its catalogue: give them all at once."""
    from .. import catalogue
    from ..pipeline import Program
    scenario = scenarios[0]
    try:
        with outputs(*scenarios, *casts) as out:
            out.reserve(output)
            folders = {os.path.dirname(os.path.abspath(s)) for s in scenarios}
            if lang is not None and output is None and len(folders) > 1:
                raise click.BadParameter("the scenarios of one catalogue are in one folder; give -o for others",
                                         param_hint="'SCENARIO...'")
            programs = [Program.compile(s, cast=list(casts) or None, roles=bindings(roles)) for s in scenarios]
            pot = catalogue.template(programs)
            if lang is None:
                out.text(output, pot.decode("utf-8"))
                out.commit()
                return
            path = output or str(catalogue.catalogue_path(scenario, lang))
            if output is None:
                os.makedirs(os.path.dirname(path), exist_ok=True)     # the scenario's locale/ folder
            text, total, todo = _updated(catalogue.template(programs, lang), path, lang)
            out.text(path, text)
            out.commit()
        click.echo(f"{os.path.relpath(path)}: {total} lines, {todo} to translate", err=True)
    except DramaError as error:
        fail(getattr(error, "errors", [error]))


def _updated(pot: bytes, path: str, lang: str) -> tuple[str, int, int]:
    """The `.po` of a language from the template: the translations of the one at
    `path` kept (Babel's update), a new one when there is none."""
    from babel import Locale, UnknownLocaleError
    from babel.messages.pofile import read_po, write_po
    from .. import catalogue
    try:
        Locale.parse(lang)
    except (UnknownLocaleError, ValueError):
        raise click.BadParameter(f"Babel knows no language '{lang}'", param_hint="'--lang'") from None
    template = read_po(io.BytesIO(pot))
    if os.path.isfile(path):
        catalogue.read(path)               # E127 for a file that is not a catalogue
        with open(path, "rb") as handle:
            po = read_po(handle, locale=lang)
        po.update(template, no_fuzzy_matching=True)
        for message in po:                 # what the cast gives in the language, where still untranslated
            given = template.get(message.id, message.context)
            if message.id and not message.string and given is not None and given.string:
                message.string = given.string
    else:
        po = read_po(io.BytesIO(pot), locale=lang)
        po.locale = lang
    buffer = io.BytesIO()
    write_po(buffer, po, width=100, ignore_obsolete=False)
    messages = [m for m in po if m.id]
    return buffer.getvalue().decode("utf-8"), len(messages), sum(not m.string for m in messages)
