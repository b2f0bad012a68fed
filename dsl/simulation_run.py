"""What a planned run of `drama simulate` calls besides its own code: its stream of dice faces drawn in bulk from the run's seeded generator, the initiative's draws, the checks on flags and counters, and `Bail`, a run given up on.

`SeededDice` rolls a d6 as the top three bits of one 32-bit draw of its
`random.Random`, drawn again while they show 6 or 7; every die of a run has
the same width, so the run's faces are that stream with the misses left out.
`drawer` takes WORDS words at once (`getrandbits(32 * WORDS)`, the same words
in the same order), keeps the top byte of each and maps it to a face, the
misses deleted (`bytes.translate`).
"""

from __future__ import annotations

from typing import Callable

from .limits import MAX_COUNTER

WORDS = 256                 # 32-bit words drawn at a time for the stream of faces


class Bail(Exception):
    """A run met a case the plan does not take: it is run again by the interpreter."""


def drawer(sides: int) -> Callable | None:
    """`draw(getrandbits)`: the faces of the next WORDS draws of a d`sides`, the
    misses left out (a die of up to 8 bits is the top byte of its 32-bit draw);
    None for a die of more sides."""
    width = sides.bit_length()
    if width > 8:
        return None
    shift = 8 - width
    table = bytes(min((b >> shift) + 1, 255) for b in range(256))
    misses = bytes(range(sides << shift, 256))

    def draw(bits) -> bytes:
        return bits(32 * WORDS).to_bytes(4 * WORDS, "little")[3::4].translate(table, misses)
    return draw


def refill(faces: bytes, start: int, need: int, bits, draw) -> bytes:
    """The faces from `start` on, with more drawn until there are `need` of them."""
    faces = faces[start:]
    while len(faces) < need:
        faces += draw(bits)
    return faces


def initiative(faces: bytes, i: int, count: int, bits, draw) -> tuple[bytes, int]:
    """R12's draws of a bare `initiative` of `count` parties (`turns.roll_initiative`:
    a die each, those tied rolling again, the last tie first): the faces and where
    the stream is after them. With no bonus the parties are alike, so only the
    sizes of the tied groups matter; and who acts first is not kept: with nobody
    holding, the order of turns changes nothing that a simulation counts."""
    pending = [(count, 0)]
    while pending:
        size, index = pending.pop()
        if i + size > len(faces):
            faces, i = refill(faces, i, size, bits, draw), 0
        rolled = faces[i:i + size]
        i += size
        if len(set(rolled)) < size:
            tied: dict[int, int] = {}           # (in the order each value first came)
            for face in rolled:
                tied[face] = tied.get(face, 0) + 1
            pending.extend((many, index + 1) for many in tied.values() if many > 1)
        if index > 1000:
            raise Bail          # (E312 in the interpreter)
    return faces, i


def flag(value):
    """A flag's value where a condition reads it (E206 unset, E209 a counter: given up on)."""
    if value is True or value is False:
        return value
    raise Bail


def counter(value):
    """A counter's value where a quantity reads it (E206 unset, E209 a flag: given up on)."""
    if value is None or value is True or value is False:
        raise Bail
    return value


def set_flag(before, value: bool) -> bool:
    """`set NAME` (E209 over a counter: given up on)."""
    if before is None or before is True or before is False:
        return value
    raise Bail


def set_counter(before, value: int) -> int:
    """`set NAME = ...` (E209 over a flag, E333 out of bounds: given up on)."""
    if before is True or before is False or abs(value) > MAX_COUNTER:
        raise Bail
    return value
