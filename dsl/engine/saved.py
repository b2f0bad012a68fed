"""The game table's state as frozen data: what `Game.snapshot` saves and `Game.restore` puts back.

The engine works on mutable objects for speed (`TableParty`, `Drama`, the
`Game` itself). A snapshot copies what changes during a run into frozen
records, so that it stays valid whatever the game does next and any number
of snapshots may share it; restoring builds the mutable objects again from
it. The cost of either is the number of parties, never the length of the run:
the sheets, traits and treasures, which never change, are not copied, and
the results kept (the open double-win options) are immutable already.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..frozen import frozen
from . import results as r
from .turns import Drama

if TYPE_CHECKING:
    from .game import Game


@frozen
class SavedParty:
    """What changes of one party at the table (`TableParty`)."""

    available: int
    damage: int
    defeated: bool
    acted: bool
    lost_this_round: int
    last_recovery: int | None


@frozen
class SavedDrama:
    """The running dramatic situation (`turns.Drama`)."""

    name: str
    parties: tuple[str, ...]
    round: int
    began: int
    round_seconds: int
    order: tuple[str, ...] | None
    rank: tuple[tuple[str, int], ...]
    pointer: int
    held: frozenset[str]
    acted_any: bool


@frozen
class SavedGame:
    """Everything of a `Game` that a run changes, the dice's position included."""

    parties: tuple[tuple[str, SavedParty], ...]
    time: int
    drama: SavedDrama | None
    last_drama_end: int | None
    last_drama_name: str | None
    rested: int
    options: tuple[r.Option, ...]
    taken: tuple[tuple[r.Option, str], ...]
    dice: object            # the dice source's own saved state (`SeededDice.save`), or None


def save(game: Game) -> SavedGame:
    """The state of `game` now, as frozen data."""
    parties = tuple((pid, SavedParty(p.available, p.damage, p.defeated, p.acted, p.lost_this_round,
                                     p.last_recovery)) for pid, p in game.parties.items())
    drama = game.drama
    saved_drama = None if drama is None else SavedDrama(
        drama.name, drama.parties, drama.round, drama.began, drama.round_seconds, drama.order,
        tuple(drama.rank.items()), drama.pointer, frozenset(drama.held), drama.acted_any)
    keep = getattr(game.dice, "save", None)
    return SavedGame(parties, game.time, saved_drama, game.last_drama_end, game.last_drama_name, game.rested,
                     tuple(game.options), tuple(game.taken), keep() if keep is not None else None)


def restore(game: Game, saved: SavedGame) -> None:
    """Put `game` back in the state `saved` holds (its sheets are the same)."""
    for pid, s in saved.parties:
        party = game.parties[pid]
        party.available = s.available
        party.damage = s.damage
        party.defeated = s.defeated
        party.acted = s.acted
        party.lost_this_round = s.lost_this_round
        party.last_recovery = s.last_recovery
    d = saved.drama
    if d is None:
        game.drama = None
    else:
        drama = Drama(d.name, d.parties, d.began, d.round_seconds)
        drama.round = d.round
        drama.order = d.order
        drama.rank = dict(d.rank)
        drama.pointer = d.pointer
        drama.held = set(d.held)
        drama.acted_any = d.acted_any
        game.drama = drama
    game.time = saved.time
    game.last_drama_end = saved.last_drama_end
    game.last_drama_name = saved.last_drama_name
    game.rested = saved.rested
    game.options = list(saved.options)
    game.taken = list(saved.taken)
    if saved.dice is not None:
        game.dice.load(saved.dice)
