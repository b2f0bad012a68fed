"""How many rolls of a party's dice, and of a side's pooled dice, give each sum, ones and high dice (R1, R2, R6, R10), counted exactly.

`drama odds` (dsl/odds.py) counts an exchange from these. A side of several
parties adds their dice (R10), so its value is the convolution of its pools'
sums; what the other side owes it follows the side's high dice, and what each
of its parties loses follows that party's own ones (R6, R10). A side is
therefore counted as two convolutions of its pools, not as every combination
of their outcomes: by (value, high dice), and by (value, each party's ones).

The convolutions are products of polynomials packed into Python integers (the
count of exponent e in the e-th field of `bits` bits), so that the work is
done by the interpreter's big-integer multiplication, not a Python loop.
"""

from __future__ import annotations

from functools import lru_cache
from math import comb
from typing import Sequence

from .frozen import frozen


@lru_cache(maxsize=None)
def _sums(count: int, low: int, high: int) -> tuple[int, ...]:
    """How many ways `count` dice with faces low..high make each sum, from count * low up."""
    if count == 0 or low > high:
        return (1,) if count == 0 else ()
    faces = high - low + 1
    ways = [1]
    for _ in range(count):
        # a sliding window over the previous row: each new sum is the total of `faces` old ones
        out = [0] * (len(ways) + faces - 1)
        running = 0
        for i in range(len(out)):
            if i < len(ways):
                running += ways[i]
            if i >= faces:
                running -= ways[i - faces]
            out[i] = running
        ways = out
    return tuple(ways)


@lru_cache(maxsize=None)
def pool_distribution(dice: int, sides: int = 6, high: int = 6) -> dict[tuple[int, int, int], int]:
    """How many of the sides**dice rolls of `dice` dice give each (sum, ones, high dice) (R1).

    A roll with o ones, h high dice and m other dice is counted as the ways to
    choose which dice they are, times the ways the m middle dice (2..high-1) and
    the h high dice (high..sides) make their sums."""
    out: dict[tuple[int, int, int], int] = {}
    middle_faces = high - 2
    for ones in range(dice + 1):
        for highs in range(dice - ones + 1):
            middle = dice - ones - highs
            if middle and not middle_faces:
                continue
            choose = comb(dice, ones) * comb(dice - ones, highs)
            mid, top = _sums(middle, 2, high - 1), _sums(highs, high, sides)
            base = ones + 2 * middle + high * highs
            if len(top) == 1:
                ways = [choose * w for w in mid]
            else:
                ways = [0] * (len(mid) + len(top) - 1)
                for i, a in enumerate(mid):
                    for j, b in enumerate(top):
                        ways[i + j] += a * b
                ways = [choose * w for w in ways]
            for offset, w in enumerate(ways):
                if w:
                    out[(base + offset, ones, highs)] = w
    return out


# ------------------------------------------------------------------ packed polynomials

def _pack(terms: dict[int, int], bits: int) -> int:
    """The polynomial sum(count * x**exponent) packed with `bits` bits (a multiple of 8) per
    exponent, written as bytes: one pass, however sparse."""
    width = bits // 8
    if not terms:
        return 0
    data = bytearray(width * (max(terms) + 1))
    for exponent, count in terms.items():
        at = exponent * width
        data[at:at + width] = count.to_bytes(width, "little")
    return int.from_bytes(data, "little")


def unpack(packed: int, bits: int) -> list[tuple[int, int]]:
    """(exponent, count) of each non-zero term of a packed polynomial (`bits` a multiple of 8)."""
    width = bits // 8
    data = packed.to_bytes((packed.bit_length() + 7) // 8 or 1, "little")
    out = []
    for start in range(0, len(data), width):
        count = int.from_bytes(data[start:start + width], "little")
        if count:
            out.append((start // width, count))
    return out


def field_bits(total: int) -> int:
    """Bits per field for counts up to `total`, rounded up to whole bytes."""
    return (total.bit_length() + 8) // 8 * 8


@lru_cache(maxsize=None)
def _marginals(dice: int, sides: int, high: int) -> tuple[dict[tuple[int, int], int], dict[tuple[int, int], int]]:
    """A pool's (sum, high dice) -> ways and (sum, ones) -> ways."""
    by_highs: dict[tuple[int, int], int] = {}
    by_ones: dict[tuple[int, int], int] = {}
    for (s, o, h), w in pool_distribution(dice, sides, high).items():
        by_highs[(s, h)] = by_highs.get((s, h), 0) + w
        by_ones[(s, o)] = by_ones.get((s, o), 0) + w
    return by_highs, by_ones


@frozen
class SideCounts:
    """A side's outcomes, counted (R2, R6, R10).

    `highs[value][h]`: the rolls that give the side `value` with `h` high dice
    (what a side it beats owes it beyond 1, R6). `ones[value][combo]`: the rolls
    that give the side `value` with each party's ones as in `combo`, each
    counted up to what the party has (its ones are lost first, R6, and a party
    never loses more than it has, R10).
    """

    highs: dict[int, dict[int, int]]
    ones: dict[int, dict[tuple[int, ...], int]]


def side_outcomes(value: int, pools: Sequence[tuple[int, tuple[int, ...], int]], sides: int, high: int
                  ) -> SideCounts:
    """A side's outcomes, from its value before the dice and each pool's
    (dice rolled, dice given, quintessence available).

    (sum, high dice) is one product of packed polynomials over the pools, with
    the sum's stride above the high dice (Kronecker's substitution); (sum, each
    party's ones) is one product of polynomials in the sum for each combination
    of the parties' ones. Many small products rather than one large one: Python
    multiplies big integers in more than linear time.
    """
    given_highs = sum(1 for _, given, _ in pools for d in given if d >= high)
    low = sum(dice for dice, _, _ in pools)                # the least sum of the rolled dice: all ones
    if len(pools) == 1:                                    # nothing to convolve
        (dice, given, available), = pools
        by_highs, by_ones = _marginals(dice, sides, high)
        given_ones = given.count(1)
        highs: dict[int, dict[int, int]] = {}
        for (s, h), ways in by_highs.items():
            highs.setdefault(value + s, {})[given_highs + h] = ways
        ones: dict[int, dict[tuple[int, ...], int]] = {}
        for (s, o), ways in by_ones.items():
            row = ones.setdefault(value + s, {})
            combo = (min(available, given_ones + o),)
            row[combo] = row.get(combo, 0) + ways
        return SideCounts(highs, ones)
    total = 1
    for dice, _, _ in pools:
        total *= sides ** dice
    bits = field_bits(total)

    # (sum, high dice): exponent sum * most_highs + high dice
    most_highs = low + 1
    product = 1
    for dice, _, _ in pools:
        by_highs, _ = _marginals(dice, sides, high)
        product *= _pack({(s - dice) * most_highs + h: w for (s, h), w in by_highs.items()}, bits)
    highs = {}
    for exponent, ways in unpack(product, bits):
        s, h = divmod(exponent, most_highs)
        highs.setdefault(value + low + s, {})[given_highs + h] = ways

    # (sum, each party's ones): a polynomial in the sum for each combination of ones
    combos: dict[tuple[int, ...], int] = {(): 1}
    for dice, given, available in pools:
        _, by_ones = _marginals(dice, sides, high)
        grouped: dict[int, dict[int, int]] = {}
        given_ones = given.count(1)
        for (s, o), w in by_ones.items():
            terms = grouped.setdefault(min(available, given_ones + o), {})
            terms[s - dice] = terms.get(s - dice, 0) + w
        polynomials = {o: _pack(terms, bits) for o, terms in grouped.items()}
        combos = {before + (o,): packed * polynomial
                  for before, packed in combos.items() for o, polynomial in polynomials.items()}
    ones = {}
    for combo, packed in combos.items():
        for s, ways in unpack(packed, bits):
            ones.setdefault(value + low + s, {})[combo] = ways
    return SideCounts(highs, ones)
