"""`drama schema`: the JSON Schema of a setting, cast, scenario or test plan file, for an editor's YAML support."""

from __future__ import annotations

import click

from ..errors import DramaError
from .common import emit, fail

EXAMPLES_SCHEMA = """
\b
The schemas are made from the loader's own declarations of the fields, so
they say what `drama check` says: the keys, their types, defaults and
choices. Point an editor's YAML support at them (docs/editors.md), or put a
modeline first in a file:
  # yaml-language-server: $schema=schemas/scenario.schema.json
\b
Examples:
  drama schema scenario
  drama schema cast -o schemas/cast.schema.json
"""


@click.command("schema", epilog=EXAMPLES_SCHEMA)
@click.argument("kind", type=click.Choice(["setting", "cast", "scenario", "test"]))
@click.option("-o", "--output", type=click.Path(dir_okay=False), default=None,
              help="Write to this file (atomically) instead of standard output.")
def schema_command(kind: str, output: str | None) -> None:
    """Print the JSON Schema (draft 2020-12) of a KIND of YAML file: setting, cast, scenario or test (a test plan)."""
    from ..loader.json_schema import schema_text
    try:
        emit(schema_text(kind), output, [])
    except DramaError as error:
        fail([error])
