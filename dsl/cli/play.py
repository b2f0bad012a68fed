"""`drama play`: the companion at the table: a scenario played live, with a crash-safe journal, exact undo and a player board."""

from __future__ import annotations

import datetime
import os
import re
import secrets
import sys

import click

from ..engine.checks import plural
from ..errors import DramaError, Position
from ..messages import shown
from .common import fail

EXAMPLES = """
\b
Examples:
  drama play scenarios/ashen-pass/with-embers.yaml
  drama play scenarios/ashen-pass/with-embers.yaml --seed 7 --board-port 8765
  drama play scenarios/ashen-pass/with-embers.yaml --resume
  drama play scenarios/emberfall/scenario.yaml --seats --host 0.0.0.0 --board-port 8765
  drama play scenarios/skirmish/scenario.yaml --journal tonight.drama
\b
The journal (by default SCENARIO-DIR/journal/DATE-N.drama) is a play log:
`drama run` of the scenario file written next to it (DATE-N.yaml) gives the
session's events, `--as transcript` its story. Type /help at the table.
"""

_NUMBERED = re.compile(r"^(\d{4}-\d\d-\d\d)-(\d+)\.drama$")


def default_journal(scenario: str, resume: bool) -> str:
    """SCENARIO-DIR/journal/DATE-N.drama: a new one, or with --resume the latest (E902 when none)."""
    folder = os.path.join(os.path.dirname(scenario), "journal")
    found = sorted(((m.group(1), int(m.group(2)), name) for name in (os.listdir(folder) if os.path.isdir(folder) else ())
                    if (m := _NUMBERED.match(name))))
    if resume:
        if not found:
            raise DramaError("E902", f"there is no journal to resume in the folder {folder}{os.sep}", position=Position(scenario, 1, 1),
                             hint="start a session without --resume, or name the journal with --journal")
        return os.path.join(folder, found[-1][2])
    today = datetime.date.today().isoformat()
    number = max((num for date, num, _ in found if date == today), default=0) + 1
    os.makedirs(folder, exist_ok=True)
    return os.path.join(folder, f"{today}-{number}.drama")


def _address(host: str) -> bool:
    import ipaddress
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return host == "localhost"
    return True


@click.command("play", epilog=EXAMPLES)
@click.argument("scenario", type=click.Path(dir_okay=False))
@click.option("--journal", "journal_path", type=click.Path(dir_okay=False), default=None, metavar="FILE.drama",
              help="The journal of the session (default: SCENARIO-DIR/journal/DATE-N.drama).")
@click.option("--resume", is_flag=True, help="Replay the journal (the latest one by default) and go on.")
@click.option("--seed", type=click.IntRange(min=0), default=None,
              help="Seed of the dice the engine rolls when Enter is pressed at a dice prompt "
                   "(default: a fresh one, written in the journal; --resume goes on with the journal's).")
@click.option("--board-port", type=click.IntRange(0, 65535), default=None, metavar="PORT",
              help="Serve the player board on http://127.0.0.1:PORT/ (0: any free port).")
@click.option("--seats", is_flag=True,
              help="A seat for each party the players control: a private link (and QR code) to declare and roll from a phone.")
@click.option("--seat", "seat_parties", multiple=True, metavar="PARTY",
              help="A seat for this party (or role); repeat it for each. Default with --seats: every party not hidden.")
@click.option("--host", default="127.0.0.1", show_default=True, metavar="ADDRESS",
              help="Where the board and the seats are served; another address than 127.0.0.1 lets the network in.")
@click.option("--color/--no-color", default=None, help="Colour on the board (default: when the terminal has it).")
@click.option("--screen/--plain", "full_screen", default=None,
              help="The board pinned at the top, the story scrolling under it, the prompt at the bottom (--screen), "
                   "or line after line, the board printed under each entry, for screen readers (--plain). "
                   "Default: --screen at a terminal with colour, --plain with --no-color, NO_COLOR, TERM=dumb, "
                   "--seats or --board-port (--screen may be asked for with them: the pages answer its prompt), "
                   "or when not at a terminal.")
def play_command(scenario: str, journal_path: str | None, resume: bool, seed: int | None, board_port: int | None,
                 seats: bool, seat_parties: tuple[str, ...], host: str, color: bool | None,
                 full_screen: bool | None) -> None:
    """Play SCENARIO live at the table: the script drives, the game master types
    the dice as rolled (or lets the engine roll them), settles ties, options and
    splits, and may type any statement at any prompt. Every accepted entry is
    in the journal before the board is shown."""
    from ..pipeline import Program
    from ..table.journal import Lock

    if not _address(host):
        raise click.BadParameter(f"{host!r} is not an IP address or localhost (a name would need DNS)",
                                 param_hint="--host")
    if full_screen and not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise click.UsageError("--screen needs a terminal: standard input and output are not one (--plain is the default)")
    try:
        program = Program.compile(scenario)
        path = journal_path or default_journal(scenario, resume)
        lock = Lock(path)
        lock.take()                   # E906 while another session has the journal
    except DramaError as error:
        fail(getattr(error, "errors", [error]))
        return
    try:
        _play(program, scenario, path, resume, seed, board_port, seats, seat_parties, host, color, full_screen)
    finally:
        lock.release()


def _play(program, scenario: str, path: str, resume: bool, seed: int | None, board_port: int | None,
          seats: bool, seat_parties: tuple[str, ...], host: str, color: bool | None, full_screen: bool | None) -> None:
    """The session, once its journal is locked."""
    from ..table.core import Table
    from ..table.journal import read, scenario_text, write_atomically
    from ..table.readers import PlainReader, PromptReader
    from ..table.table import TableLoop, completion_words

    serving = None
    fresh = False
    warning = None
    created: list[str] = []              # the files this session made (removed if it cannot begin)
    try:
        if resume:
            if not os.path.exists(path):
                raise DramaError("E902", f"there is no journal {path} to resume", position=Position(path, 1, 1),
                                 hint="start the session without --resume")
            played = read(path).seed
            if seed is not None and played is not None and seed != played:
                raise click.UsageError(f"the journal {path} was played with seed {played}, not {seed}: "
                                       f"resume it without --seed, and it goes on with its own")
            table, warning = Table.resume(program, path, seed=seed)
            if warning is not None:
                click.echo(shown(warning, getattr(warning, "source", None)), err=True)
        else:
            if seed is None:
                seed, fresh = secrets.randbelow(1_000_000_000), True
            table = Table.start(program, path, seed=seed)
            created.append(path)
        scenario_file = os.path.splitext(path)[0] + ".yaml"
        if not os.path.exists(scenario_file):
            created.append(scenario_file)
            write_atomically(scenario_file, scenario_text(scenario, path, program.scenario.title,
                                                          dict(program.scenario.roles)))
        seats = seats or bool(seat_parties)
        if board_port is not None or seats:
            from ..table.seated import Serving, loopback, seated_parties
            try:
                parties = seated_parties(table, seat_parties) if seat_parties else None
                serving = Serving(program, table, host=host, port=board_port, seats=seats, resume=resume,
                                  parties=parties)
            except DramaError:
                if not resume:                 # the session never began: leave no journal of it
                    for made in (path, scenario_file):
                        if made in created and os.path.exists(made):
                            os.unlink(made)
                raise
            publish = serving.publish
            publish(table)
            if not loopback(host):
                click.echo(f"warning: the table is served on {host}, port {serving.server.port}: anyone on a network "
                           f"that reaches this machine can see the player board; a seat needs its own link", err=True)
            serving.introduce(click.echo, qr=seats and sys.stdout.isatty())
        else:
            def publish(table: Table) -> None:
                pass
    except DramaError as error:
        fail(getattr(error, "errors", [error]))
        return
    if color is None:
        color = sys.stdout.isatty() and not os.environ.get("NO_COLOR") and os.environ.get("TERM") != "dumb"
    interactive = sys.stdin.isatty() and sys.stdout.isatty()
    if full_screen is None:
        full_screen = interactive and bool(color) and serving is None
    words = lambda line: completion_words(table, line)     # noqa: E731
    history = os.path.splitext(path)[0] + ".history"
    opening = f"journal: {path}" + (f" (resumed: {plural(len(table.entries), 'entry', 'entries')})" if resume else "") \
        + (f" (a fresh seed: {seed})" if fresh else "")
    click.echo(opening)
    options = dict(color=color, on_change=publish, title=program.scenario.title, scenario_file=scenario_file,
                   scenario=scenario)
    if full_screen:
        from ..table.screen import FullScreen
        screen = FullScreen(words, history, color=color)
        if serving is not None:          # the pages answer the full screen's prompt too (`Front`)
            from ..table.seated import SeatsLoop
            loop = SeatsLoop(table, serving.front(screen), serving=serving, screen=screen, **options)
        else:
            loop = TableLoop(table, screen=screen, **options)
        loop.say(opening)
        if warning is not None:
            loop.say(shown(warning, getattr(warning, "source", None)))
        if serving is not None:          # the links (and QR codes) again, on the screen the GM now sees
            serving.introduce(loop.say, qr=seats)
    elif serving is not None:
        from ..table.seated import SeatsLoop
        read = PromptReader(words, history) if interactive else PlainReader()
        loop = SeatsLoop(table, serving.front(read), serving=serving, **options)
    else:
        loop = TableLoop(table, PromptReader(words, history) if interactive else PlainReader(), **options)
    try:
        loop.run()
    except DramaError as error:       # the disk refused the journal: what was accepted is in it
        fail([error])
    finally:
        if serving is not None:
            serving.close()
