"""`drama odds`: the exact chances of one exchange."""

from __future__ import annotations

import sys

import click

from ..errors import DramaError
from ..messages import shown
from .common import bindings, outputs


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


@click.command("odds", epilog=EXAMPLES_ODDS)
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
    from .. import odds as exact
    sources = {exact.ACTION_FILE: action}
    sources.update({exact.defence_file(i): text for i, text in enumerate(defences)})
    bound, wanted = bindings(roles), _odds_states(states)
    try:
        with outputs(scenario, *casts) as out:
            out.reserve(output)
            from ..loader import bind, load_scenario
            loaded = bind(load_scenario(scenario), list(casts) or None, bound)
            result = exact.odds(loaded, action, defences, tie=tie, state=wanted)
            out.text(output, exact.FORMATS[fmt](result))
            out.commit()
    except DramaError as error:
        errors = getattr(error, "errors", [error])
        for one in errors:        # the action and defences are shown from the command line
            click.echo(shown(one, sources.get(one.position.file) if one.position else None), err=True)
        if len(errors) > 1:
            click.echo(f"{len(errors)} errors", err=True)
        sys.exit(1)
