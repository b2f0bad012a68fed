"""`drama new`: a new adventure folder, from the starter or a bundled example."""

from __future__ import annotations

import click

from ..adventures import examples
from ..errors import DramaError
from .common import fail

_NAMES = ", ".join(examples())      # the bundled examples, as the package holds them

EXAMPLES_NEW = f"""
\b
Without --example: a small adventure (a setting, a cast of two, a scenario
and a script) whose comments explain each line. With --example: a copy of one
of the bundled examples:
  {_NAMES}.
Either way the YAML files name the JSON Schemas in the folder's schemas/, so
an editor with YAML support checks them as you type (docs/editors.md).
\b
Examples:
  drama new troll-bridge
  drama new my-emberfall --example emberfall
  drama check my-emberfall/scenario.yaml
"""


@click.command("new", epilog=EXAMPLES_NEW)
@click.argument("name", metavar="NAME")
@click.option("--example", default=None, metavar="EXAMPLE",
              help=f"Copy this bundled example ({_NAMES}) instead of the starter.")
def new_command(name: str, example: str | None) -> None:
    """Make the folder NAME holding a new adventure, ready to run and edit."""
    from ..adventures import create
    if example is not None and example not in examples():
        raise click.BadParameter(f"'{example}' is not one of {', '.join(examples())}", param_hint="'--example'")
    try:
        files = create(name, example)
    except DramaError as error:
        fail([error])
        return
    from ..loader.json_schema import modeline_target
    scenarios = [f for f in files if f.suffix == ".yaml"
                 and (modeline_target(f.read_text(encoding="utf-8")) or "").endswith("scenario.schema.json")]
    click.echo(f"made {name}/ ({len(files)} files)")
    for scenario in scenarios:
        click.echo(f"  drama run {scenario}")
