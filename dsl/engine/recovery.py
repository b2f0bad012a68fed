"""Recovery: when a party may roll its damage pool, and what comes back (R14, R15; a full rest, R16, is `Game.pass_time`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from ..durations import format_seconds
from ..errors import DramaError, RuleError
from . import checks
from . import results as r
from .checks import plural
from .dice import Throw, check_faces
from .inputs import Helping
from .turns import take_turn

if TYPE_CHECKING:
    from .game import Game


def may_recover(game: Game, party: str) -> bool:
    """Whether the party may take a recovery action now (R14, R15), without help."""
    checks.party(game, party)
    drama = game.drama
    try:
        _check_recovery(game, party, (), drama is not None and party in drama.parties)
    except DramaError:
        return False
    return True


def _check_recovery(game: Game, party: str, helper_ids: tuple[str, ...], rushed: bool) -> None:
    """R14 and R15: refuse a recovery that the rules do not allow now."""
    settings = game.settings
    drama = game.drama
    if rushed:                                           # R15
        for pid in (party, *helper_ids):
            checks.can_act(game, pid, "recover" if pid == party else f"help {party} recover")
    else:
        if drama is not None:
            raise DramaError("E203", f"{party} is not in the dramatic situation {drama.name}")
        if game.last_drama_end is not None:
            calm = settings.seconds(settings.calm)
            since = game.time - game.last_drama_end
            if since < calm:
                raise RuleError("R14", "E314",
                                f"{party} needs {settings.calm} ({format_seconds(calm)}) of calm after "
                                f"{game.last_drama_name} to recover, and only {format_seconds(since)} have passed",
                                expected="a `calm DURATION` first, or a rushed recovery inside drama")
    last = game.parties[party].last_recovery
    if last is not None:
        interval = settings.seconds(settings.recovery)
        since = game.time - last
        if since < interval:
            raise RuleError("R14", "E314",
                            f"{party} recovered {format_seconds(since)} ago and may recover once every "
                            f"{settings.recovery}", expected=f"{format_seconds(interval - since)} more of in-world time")


def recover(game: Game, party: str, trait: str | None = None, treasure: str | None = None,
            helpers: Sequence[Helping] = (), first: Throw = Throw.roll(),
            second: Throw | None = None) -> r.Recovery:
    """R14 (and R15 inside drama): roll the damage pool; sixes and the highest
    dice below them return. `second` gives the dice of a rushed recovery's
    second check."""
    state = checks.party(game, party)
    checks.check_uses(game, party, trait, treasure)
    drama = game.drama
    rushed = drama is not None and party in drama.parties
    helper_ids = tuple(h.party for h in helpers)
    for helping in helpers:
        checks.party(game, helping.party)
        if helping.party == party:
            raise DramaError("E305", f"{party} cannot help its own recovery")
        checks.check_uses(game, helping.party, helping.trait, helping.treasure)
    if len(set(helper_ids)) != len(helper_ids):
        raise DramaError("E305", "a helper is named twice")
    turn = None
    _check_recovery(game, party, helper_ids, rushed)
    if second is not None and (second.is_given or second.most or second.count) and not rushed:
        raise DramaError("E305", f"only a rushed recovery inside drama has a second check (`then ...`)")
    level = checks.level
    bonus = level(game, party, trait, "trait") + level(game, party, treasure, "treasure")
    bonus += sum(level(game, h.party, h.trait, "trait") + level(game, h.party, h.treasure, "treasure")
                 for h in helpers)
    made = [_recovery_check(game, state.damage, first, bonus,
                             f"{party}'s recovery rolls its damage pool of {state.damage}",
                             f"{party}'s {'rushed ' if rushed else ''}recovery")]
    returning = made[0].returning
    if rushed:                                           # R15: a second check
        if second is None or (not second.is_given and second.count == 0 and not second.most):
            if first.is_given and returning:
                raise DramaError("E401", f"{party}'s rushed recovery makes a second check with "
                                 f"{plural(returning, 'die', 'dice')}: give {'it' if returning == 1 else 'them'}",
                                 expected="`then N ...` after the first check's dice (R15)")
            second = Throw.roll()
        made.append(_recovery_check(
            game, returning, second, bonus,
            f"the second check of {party}'s rushed recovery rolls the {returning} returning",
            f"the second check of {party}'s rushed recovery", 1))
        returning = made[1].returning
    # nothing refuses below
    if rushed:
        turn = take_turn(game, (party, *helper_ids))
        drama.acted_any = True
    returned = state.regain(returning)
    state.lost_this_round = max(0, state.lost_this_round - returned)   # R8: what came back is not lost
    state.last_recovery = game.time
    return r.Recovery(party, rushed, trait, treasure,
                      tuple((h.party, h.trait, h.treasure) for h in helpers), bonus,
                      tuple(made), returned, game.time, turn, game.states([party, *helper_ids]))


class RerollError(RuleError):
    """Re-rolls of a recovery check that the rules refuse (R14, point 13).
    `check` is the check (0, or 1 for a rushed recovery's second) and `swap`
    the place of the re-roll at fault in the choice, or None for the whole
    choice, so that the error can point at what was written."""

    def __init__(self, code: str, message: str, *, check: int, swap: int | None = None, **kwargs):
        super().__init__("R14", code, message, **kwargs)
        self.check = check
        self.swap = swap


def _chosen(game: Game, dice: tuple[int, ...], throw: Throw, bonus: int, label: str,
            check: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The dice the party chose to re-roll (point 13) and their new faces: each
    named by the face it first showed, each die once, at most one per point of
    bonus, the new faces on the die."""
    chosen, rerolls = throw.chosen, throw.rerolls
    if not throw.is_given:
        raise RerollError("E319", f"{label}: the dice to re-roll are named by their faces, which are "
                          f"only known when the dice are given", check=check,
                          expected="`rolled N N ...` with the re-rolls, or `rerolling none`")
    if len(rerolls) != len(chosen):
        raise RerollError("E401", f"{label}: {plural(len(chosen), 'die is', 'dice are')} chosen to re-roll, "
                          f"but {plural(len(rerolls), 'new face is', 'new faces are')} given", check=check)
    if len(chosen) > bonus:
        raise RerollError("E318", f"{label} re-rolls {plural(len(chosen), 'die', 'dice')}, but its bonus of "
                          f"{bonus} allows {'none' if bonus == 0 else f'at most {bonus}'}",
                          check=check, swap=bonus,
                          expected=f"at most {plural(bonus, 're-roll')}: one per point of the trait and "
                                   f"treasure named, the party's own and each helper's",
                          hint="name a trait or a treasure (`with ...`) or a helper (`helped by ...`) "
                               "for more, or re-roll fewer dice")
    shown = " ".join(map(str, dice)) or "no dice"
    taken: list[int] = []
    sides = game.settings.sides
    for k, (face, new) in enumerate(zip(chosen, rerolls)):
        index = next((i for i, d in enumerate(dice) if d == face and i not in taken), None)
        if index is None:
            many = dice.count(face)
            raise RerollError("E317", f"{label} re-rolls a die showing {face}, but "
                              + (f"no die of {shown} shows {face}" if not many else
                                 f"only {plural(many, 'die')} of {shown} {'shows' if many == 1 else 'show'} "
                                 f"{face}, and each die is re-rolled once"),
                              check=check, swap=k,
                              expected=f"a face of the dice rolled ({shown}), as it first showed",
                              hint="name each re-rolled die by its face before the re-roll: "
                                   "`rerolling 2 to 4` re-rolls a die that showed 2, and it shows 4")
        if not 1 <= new <= sides:
            raise RerollError("E402", f"{label} re-rolls the {face} to {new}, and a d{sides} has no face {new}",
                              check=check, swap=k, expected=f"faces from 1 to {sides}")
        taken.append(index)
    return tuple(taken), tuple(rerolls)


def _recovery_check(game: Game, count: int, throw: Throw, bonus: int, what: str,
                    label: str = "the recovery", check: int = 0) -> r.RecoveryCheck:
    """One recovery roll (R14): roll, re-roll the dice the party chose, or by
    default the lowest dice below the top face (one per point of bonus, point
    13), count what returns."""
    sides = game.settings.sides
    dice, rolled_by = checks.exact_throw(game, throw, count, what)
    if throw.chosen is not None:
        rerolled, rerolls = _chosen(game, dice, throw, bonus, label, check)
        final = list(dice)
        for index, face in zip(rerolled, rerolls):
            final[index] = face
        return r.RecoveryCheck(tuple(dice), rerolled, rerolls, tuple(final), _returning(final, sides),
                               rolled_by, chosen=bool(dice))
    below_top = sorted((i for i, d in enumerate(dice) if d < sides), key=lambda i: dice[i])
    limit = bonus if throw.reroll_limit is None else max(0, min(bonus, throw.reroll_limit))
    rerolled = tuple(below_top[:limit])
    if throw.is_given:
        rerolls = throw.rerolls
        if len(rerolls) != len(rerolled):
            raise DramaError("E401", f"{what}: a bonus of {bonus} re-rolls "
                             f"{plural(len(rerolled), 'die', 'dice')} here, but "
                             f"{plural(len(rerolls), 're-roll is', 're-rolls are')} given",
                             expected=f"`rerolled` with {plural(len(rerolled), 'face', 'faces')}"
                             if rerolled else "no `rerolled`",
                             hint="to re-roll other dice, fewer, or none, say which (point 13): "
                                  "`, rerolling 2 to 4` or `, rerolling none`")
        check_faces(rerolls, sides)
    else:
        rerolls = game.dice.roll(len(rerolled), sides) if rerolled else ()
    final = list(dice)
    for index, face in zip(rerolled, rerolls):
        final[index] = face
    return r.RecoveryCheck(tuple(dice), rerolled, tuple(rerolls), tuple(final),
                           _returning(final, sides), rolled_by,
                           chosen=throw.reroll_limit is not None and bool(dice))


def _returning(dice: Sequence[int], sides: int) -> int:
    """R14: every die on the top face, and every die tied for the highest below it."""
    top = sum(1 for d in dice if d == sides)
    below = [d for d in dice if d < sides]
    if below:
        best = max(below)
        top += below.count(best)
    return top
