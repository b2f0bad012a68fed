"""The checks every step shares: who is a party, in the situation, free to act; what it may use and roll."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import DramaError, RuleError, did_you_mean, one_of
from .dice import Throw, check_faces
from .inputs import Part
from .parties import TableParty

if TYPE_CHECKING:
    from .game import Game
    from .turns import Drama


def party(game: Game, pid: str) -> TableParty:
    """The party's state at the table; E201 for a name not in the cast."""
    try:
        return game.parties[pid]
    except KeyError:
        raise DramaError("E201", f"there is no party '{pid}' in the cast",
                         hint=did_you_mean(pid, game.parties),
                         expected=f"one of {one_of(game.parties)}") from None


def member(game: Game, pid: str) -> TableParty:
    """A party of the running dramatic situation (any party outside drama); E203 if not."""
    found = party(game, pid)
    drama = game.drama
    if drama is not None and pid not in drama.parties:
        raise DramaError("E203", f"{pid} is not in the dramatic situation {drama.name}",
                         expected=f"one of {one_of(drama.parties)}",
                         hint=did_you_mean(pid, drama.parties), party=pid)
    return found


def in_drama(game: Game, what: str) -> Drama:
    """The running dramatic situation; refused outside drama (R13)."""
    if game.drama is None:
        raise RuleError("R13", "E313", f"`{what}` needs a dramatic situation",
                        expected='`drama "Name" with ...` first')
    return game.drama


def can_act(game: Game, pid: str, doing: str) -> TableParty:
    """A party that may take its aggressive action now: not defeated (R7), not acted yet (R9)."""
    found = member(game, pid)
    drama = game.drama
    if drama is None:
        return found
    if found.defeated:
        raise RuleError("R7", "E307", f"{pid} is defeated in {drama.name} and cannot {doing}", party=pid)
    if found.acted:
        raise RuleError("R9", "E309", f"{pid} already took an aggressive action this round",
                        expected="`round` before its next aggressive action")
    return found


def check_part_uses(game: Game, part: Part) -> None:
    """A part uses only its party's own trait and treasure (the quick test first)."""
    at_table = game.parties[part.party]
    if (part.trait is not None and part.trait not in at_table.traits
            or part.treasure is not None and part.treasure not in at_table.treasures):
        check_uses(game, part.party, part.trait, part.treasure)    # raises E202


def check_uses(game: Game, pid: str, trait: str | None, treasure: str | None) -> None:
    """E202 for a trait or treasure the party does not have."""
    sheet = party(game, pid).sheet
    if trait is not None and trait not in sheet.traits:
        raise DramaError("E202", f"{pid} has no trait '{trait}'",
                         expected=f"one of {one_of(sheet.traits)}",
                         hint=did_you_mean(trait, sheet.traits), party=pid)
    if treasure is not None and treasure not in sheet.treasures:
        raise DramaError("E202", f"{pid} has no treasure '{treasure}'",
                         expected=f"one of {one_of(sheet.treasures)}",
                         hint=did_you_mean(treasure, sheet.treasures), party=pid)


def level(game: Game, pid: str, name: str | None, kind: str) -> int:
    """The level of the party's trait or treasure (`kind`); 0 for none."""
    if name is None:
        return 0
    sheet = game.parties[pid].sheet
    return (sheet.traits if kind == "trait" else sheet.treasures)[name]


def exact_throw(game: Game, throw: Throw, count: int, what: str) -> tuple[tuple[int, ...], str]:
    """Dice for a step whose number of dice the rules fix (rerolls, recovery).

    Given dice must be exactly `count`; `roll N` must ask for `count`; `roll`
    or no dice at all rolls `count` dice from the source."""
    sides = game.settings.sides
    if throw.is_given:
        if len(throw.faces) != count:
            raise DramaError("E401", f"{what}, but {plural(len(throw.faces), 'die is', 'dice are')} given",
                             expected=plural(count, "die", "dice"))
        check_faces(throw.faces, sides)
        return tuple(throw.faces), "table"
    if not throw.most and throw.count not in (None, 0) and throw.count != count:
        raise DramaError("E401", f"{what}, not {throw.count}", expected=plural(count, "die", "dice"))
    if not count:
        return (), "none"
    return game.dice.roll(count, sides), "engine"


def plural(n: int, one: str, many: str | None = None) -> str:
    """`1 die`, `2 dice`: a count and its noun, for messages."""
    return f"{n} {one if n == 1 else (many or one + 's')}"
