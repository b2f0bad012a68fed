"""`drama lsp`: the language server, over standard input and output."""

from __future__ import annotations

import click


@click.command("lsp")
@click.option("--stdio", is_flag=True, help="Talk over standard input and output (the default; for clients that pass it).")
def lsp_command(stdio: bool) -> None:
    """Run the language server of drama scripts and scenario YAML files (LSP, over
    standard input and output): the diagnostics of `drama check` as you type,
    completion, hover, go to definition, the outline and formatting. Editors start
    it themselves: see docs/editors.md."""
    try:
        from ..lsp.server import main
    except ImportError as error:     # pygls is a dependency; a broken install says so
        raise click.ClickException(f"drama lsp needs pygls: {error}") from None
    main()
