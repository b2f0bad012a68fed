"""The `drama` command: its table of subcommands, each loaded only when it runs.

Each subcommand lives in a module of this package (`run.py` holds `run`,
`render` and `check`; `odds.py`; `simulate.py`; ...). To add one, write its
module with a `click.command` and add a line to `COMMANDS`: `drama --help`
lists it, and running another subcommand never imports it.
"""

from __future__ import annotations

import importlib

import click

from .. import __version__

# name -> (module of this package, attribute, one line of help for `drama --help`, whether it
# lasts: a server, the table, many runs; the collector is back on for it, dsl/collector.py)
COMMANDS: dict[str, tuple[str, str, str, bool]] = {
    "run": ("run", "run_command", "Run a scenario and print the session log or the transcript.", False),
    "render": ("run", "render_command", "Render a saved event log without running anything.", False),
    "check": ("run", "check_command", "Parse, validate and dry-run a scenario; print every error.", False),
    "odds": ("odds", "odds_command", "Exact chances of one exchange against a scenario's cast.", False),
    "simulate": ("simulate", "simulate_command", "Run a scenario many times and report the outcomes.", True),
    "test": ("test", "test_command", "Run the test plans (*.test.yaml) of adventures; exit 1 if one fails.", True),
    "fmt": ("fmt", "fmt_command", "Lay out scripts in the canonical layout, comments and blank lines kept.", False),
    "new": ("new", "new_command", "Make a new adventure folder, from the starter or a bundled example.", False),
    "lsp": ("lsp", "lsp_command", "Run the language server (LSP) for editors: diagnostics, completion, hover.", True),
    "play": ("play", "play_command", "Play a scenario live at the table, with a journal, undo and a player board.", True),
    "schema": ("schema", "schema_command", "Print the JSON Schema of a setting, cast or scenario file.", False),
    "strings": ("strings", "strings_command", "Write the writer's words of a scenario as a gettext catalogue, to translate.", False),
}


class _Commands(click.Group):
    """A group whose subcommands are imported when they are run (or asked for help)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name not in COMMANDS:
            return None
        module, attribute, _, lasting = COMMANDS[name]
        if lasting:
            from ..collector import for_a_lasting_command
            for_a_lasting_command()
        return getattr(importlib.import_module(f"{__name__}.{module}"), attribute)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        # the one-line help comes from the table, so `drama --help` imports no subcommand
        with formatter.section("Commands"):
            formatter.write_dl([(name, short) for name, (_, _, short, _) in COMMANDS.items()])


@click.group(cls=_Commands, context_settings={"help_option_names": ["-h", "--help"]})
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


if __name__ == "__main__":  # pragma: no cover
    main()
