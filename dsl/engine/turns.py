"""Turns inside a dramatic situation: initiative, rounds, holds, and who acts when (R9, R12, R13)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from ..errors import DramaError, RuleError, one_of
from . import checks
from . import results as r

if TYPE_CHECKING:
    from .game import Game


class Drama:
    """The running dramatic situation: its parties, its round, and where the turns are."""

    __slots__ = ("name", "parties", "round", "began", "order", "rank", "pointer", "held", "acted_any",
                 "round_seconds")

    def __init__(self, name: str, parties: tuple[str, ...], began: int, round_seconds: int):
        self.name = name
        self.parties = parties
        self.round = 1
        self.began = began
        self.round_seconds = round_seconds      # R13: its own round length, or the setting's
        self.order: tuple[str, ...] | None = None
        self.rank: dict[str, int] = {}              # party -> its place in `order`
        self.pointer = 0
        self.held: set[str] = set()
        self.acted_any = False


def roll_initiative(game: Game, entries: Sequence[tuple[str, str | None, str | None, tuple[int, ...]]] = ()
                    ) -> r.Initiative:
    """R12: each party rolls a die (+ trait + treasure), or its results are given.

    `entries` holds (party, trait, treasure, given numbers); with no entries,
    every party of the situation rolls a plain die. A party with given numbers
    gives its first roll, then each re-roll of a tie. With no trait and no
    treasure a given number is the result, a total; with a trait or a treasure
    it is the die, and the bonus is added to it, as to a die the engine rolls.
    """
    drama = checks.in_drama(game, "initiative")
    if drama.acted_any:
        raise RuleError("R12", "E312", f"initiative is rolled at the start of a round, before anyone acts")
    if not entries:
        entries = [(pid, None, None, ()) for pid in drama.parties]
    by_party: dict[str, tuple] = {}
    for pid, trait, treasure, given in entries:
        checks.member(game, pid)
        if pid in by_party:
            raise RuleError("R12", "E312", f"{pid} has two initiative results")
        checks.check_uses(game, pid, trait, treasure)
        if given and (trait is not None or treasure is not None):
            _check_initiative_dice(game, pid, given)
        by_party[pid] = (trait, treasure, tuple(given))
    missing = [pid for pid in drama.parties if pid not in by_party and not game.parties[pid].defeated]
    if missing:
        raise RuleError("R12", "E312", f"initiative needs a result for {one_of(missing)}",
                        expected="a result for every party of the situation, or `initiative` alone")
    bonus = {pid: checks.level(game, pid, t, "trait") + checks.level(game, pid, tr, "treasure")
             for pid, (t, tr, _) in by_party.items()}
    dice: dict[str, list[int]] = {pid: [] for pid in by_party}

    def roll_for(pid: str, index: int) -> int | None:
        """The party's result for its roll number `index` (0 is the first
        roll, then each re-roll of a tie); None when a given list runs out."""
        trait, treasure, given = by_party[pid]
        if given:
            if index >= len(given):
                return None
            if trait is None and treasure is None:
                return given[index]         # a total
            face = given[index]             # a die: the bonus is added
        else:
            face = game.dice.roll(1, game.settings.sides)[0]
        dice[pid].append(face)
        return face + bonus[pid]

    # re-roll ties among those tied until everyone has a place (R12);
    # a party's results, in order, are its key in the initiative order
    pending = [(list(by_party), 0)]
    keys: dict[str, list[int]] = {pid: [] for pid in by_party}
    while pending:
        group, index = pending.pop()
        for pid in group:
            value = roll_for(pid, index)
            if value is None:
                raise RuleError("R12", "E312",
                                f"{' and '.join(group)} tie at {keys[pid][-1]}: give their re-rolls",
                                expected="a re-roll after the results, e.g. `initiative "
                                         f"{group[0]} {' '.join(map(str, keys[group[0]]))} 4`")
            keys[pid].append(value)
        buckets: dict[int, list[str]] = {}
        for pid in group:
            buckets.setdefault(keys[pid][-1], []).append(pid)
        for value, tied in buckets.items():
            if len(tied) > 1:
                pending.append((tied, index + 1))
        if index > 1000:
            raise RuleError("R12", "E312", "initiative ties could not be broken")
    for pid in by_party:
        given = by_party[pid][2]
        if given and len(given) > len(keys[pid]):
            raise RuleError("R12", "E312", f"{pid} gives {len(given)} initiative results but only "
                            f"{len(keys[pid])} {'was' if len(keys[pid]) == 1 else 'were'} needed")
    order = sorted(by_party, key=lambda pid: keys[pid], reverse=True)
    drama.order = tuple(order)
    drama.rank = {pid: place for place, pid in enumerate(order)}
    drama.pointer = 0
    drama.held = set()
    rolls = tuple(r.InitiativeRoll(pid, by_party[pid][0], by_party[pid][1], bonus[pid],
                                   tuple(dice[pid]), tuple(keys[pid]),
                                   "table" if by_party[pid][2] else "engine")
                  for pid in by_party)
    return r.Initiative(drama.name, drama.round, rolls, drama.order)


def _check_initiative_dice(game: Game, party: str, given: Sequence[int]) -> None:
    """R12: next to `with`, the numbers given are dice, each on the die (E402)."""
    sides = game.settings.sides
    for face in given:
        if not 1 <= face <= sides:
            raise DramaError("E402", f"{party}'s initiative die shows {face}, and a d{sides} has no face {face}",
                             expected=f"faces from 1 to {sides}: next to `with` a number is the die, and "
                                      f"the trait and treasure are added to it",
                             hint=f"to give {party}'s total instead, leave out `with` (`{party} {face}`)")


def next_round(game: Game) -> r.RoundBegun:
    """R13: a new round; every party's aggressive action is free again."""
    drama = checks.in_drama(game, "round")
    if drama.round == 1 and not drama.acted_any and not drama.held:
        # nobody has acted since the situation began: this is round 1 (so a
        # loop of rounds may begin each pass with `round`)
        return r.RoundBegun(drama.name, 1, game.time, ())
    parties = game.parties
    unused = tuple(pid for pid in drama.parties
                   if not parties[pid].acted and not parties[pid].defeated)
    drama.round += 1
    game.time += drama.round_seconds                # R13: the situation's round (point 14)
    drama.pointer = 0
    drama.held = set()
    drama.acted_any = False
    for pid in drama.parties:
        parties[pid].acted = False
        parties[pid].lost_this_round = 0
    game.options = []
    game.taken = []
    return r.RoundBegun(drama.name, drama.round, game.time, unused)


def hold(game: Game, party: str) -> r.Held:
    """R9: the party lets its turn pass, keeping its action for later this round."""
    drama = checks.in_drama(game, "holds")
    checks.can_act(game, party, "hold its action")
    turn = take_turn(game, (party,), acting=False)
    drama.held.add(party)
    return r.Held(drama.name, drama.round, party, turn.passed if turn else ())


def take_turn(game: Game, parties: tuple[str, ...], acting: bool = True) -> r.Turn | None:
    """R9, R10: mark the parties' aggressive action used (unless they only
    hold), and work out who acts on their turn, who on a held action, and
    whose turn passed unused."""
    drama = game.drama
    if drama is None:
        return None
    at_table = game.parties
    if acting:
        for pid in parties:
            at_table[pid].acted = True
    order = drama.order
    if order is None:
        return r.Turn(tuple(parties), (), ())
    rank, pointer, held_before = drama.rank, drama.pointer, drama.held
    position = rank[parties[0]] if len(parties) == 1 else max([rank[pid] for pid in parties])
    passed = []
    on_turn: tuple[str, ...] = ()
    if position >= pointer:
        for pid in order[pointer:position]:
            if pid in parties or pid in held_before:
                continue
            party = at_table[pid]
            if party.acted or party.defeated:
                continue
            passed.append(pid)
        on_turn = tuple([pid for pid in parties if rank[pid] == position and pid not in held_before])
    held = tuple([pid for pid in parties if pid not in on_turn])
    drama.held.update(passed)
    if acting:
        drama.held.difference_update(parties)
    drama.pointer = max(pointer, position + 1)
    return r.Turn(on_turn, held, tuple(passed))
