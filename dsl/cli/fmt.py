"""`drama fmt`: scripts laid out in the canonical layout, comments and blank lines kept."""

from __future__ import annotations

import difflib
import sys
from pathlib import Path

import click

from ..errors import DramaError
from ..messages import shown
from .common import write_output

EXAMPLES_FMT = """
\b
Each statement is written as `drama run --record` writes it; comments and
blank lines stay where they are (docs/editors.md). A script that does not
parse is reported and left as it is. A folder stands for every .drama file
in it, at any depth.
\b
Examples:
  drama fmt scenarios/emberfall/throne-hall.drama
  drama fmt scenarios/
  drama fmt --check scenarios/
"""


def scripts(paths: tuple[str, ...]) -> list[Path]:
    """The .drama files named by the paths (a folder: every one under it), in order, each once."""
    found: list[Path] = []
    for given in paths:
        path = Path(given)
        if path.is_dir():
            found.extend(sorted(p for p in path.rglob("*.drama") if p.is_file()))
        elif path.is_file():
            if path.suffix != ".drama":
                raise DramaError("E510", f"{given} is not a script", expected="a .drama file, or a folder of them",
                                 hint="a scenario's inline `script: |` is not formatted; move it to a .drama file")
            found.append(path)
        else:
            raise DramaError("E510", f"there is no file or folder {given}", expected="a .drama file, or a folder")
    seen, unique = set(), []
    for path in found:
        key = path.resolve()
        if key not in seen:
            seen.add(key)
            unique.append(path)
    return unique


def read_script(path: Path) -> str:
    """The script's text as it is on disk (line ends and BOM kept, so that `fmt` sees them),
    read by the one reader (dsl/inputs.py: a regular file, not too big, no NUL)."""
    from .. import inputs
    data = inputs.read_bytes(path, what="script")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise DramaError("E510", f"{path} is not UTF-8 text", expected="a script saved as UTF-8") from None
    inputs.check_text(text, str(path), what="script")
    return text


@click.command("fmt", epilog=EXAMPLES_FMT)
@click.argument("paths", nargs=-1, required=True, type=click.Path(), metavar="PATH...")
@click.option("--check", is_flag=True,
              help="Change nothing: show the diff of each script that is not laid out, and exit 1 if any.")
def fmt_command(paths: tuple[str, ...], check: bool) -> None:
    """Lay out the scripts (.drama files, or the folders holding them) in the
    canonical layout, in place and atomically."""
    from ..syntax.layout import layout
    try:
        files = scripts(paths)
    except DramaError as error:
        click.echo(shown(error), err=True)
        sys.exit(1)
    failed = changed = 0
    for path in files:
        try:
            before = read_script(path)
            after = layout(before, str(path))
        except DramaError as error:
            click.echo(shown(error), err=True)
            failed += 1
            continue
        if after == before:
            continue
        changed += 1
        if check:
            diff = difflib.unified_diff(before.splitlines(keepends=True), after.splitlines(keepends=True),
                                        f"{path} (as it is)", f"{path} (laid out)")
            click.echo("".join(line if line.endswith("\n") else line + "\n" for line in diff), nl=False)
            continue
        try:
            write_output(str(path), after, [])
        except DramaError as error:
            click.echo(shown(error), err=True)
            failed += 1
            continue
        click.echo(f"{path}: laid out", err=True)
    unchanged = len(files) - changed - failed
    said = [f"{changed} {'would be laid out' if check else 'laid out'}", f"{unchanged} unchanged"]
    if failed:
        said.append(f"{failed} with errors")
    click.echo(", ".join(said), err=True)
    if failed or (check and changed):
        sys.exit(1)
