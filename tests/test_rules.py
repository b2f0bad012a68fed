"""One or more tests per rule of shared/spec/RULES.md (R1-R17) and its numbered
"order of play and edge cases", driven through the public API of `dsl.engine`.

Every number here is worked out by hand from the rules; the comments show the sums.
"""

from __future__ import annotations

import pytest

from dsl.durations import Duration
from dsl.engine import (
    GM, TIE_POLICIES, Action, Defence, Game, GivenDice, Helping, Part, PartySheet,
    PartyState, SeededDice, Settings, Throw, results,
)
from dsl.errors import DramaError, RuleError

G = Throw.given
HOUR = 3600
DAY = 86400


# ---------------------------------------------------------------- the cast

def cast(*extra: PartySheet) -> list[PartySheet]:
    """The emberfall cast, a party with no trait, and any extra sheets."""
    return [
        PartySheet("Kara", "Kara the Ember-Witch", 6, {"Sorcery": 3, "Agility": 1},
                   {"Ember Staff": 2, "Lucky Coin": 1}),
        PartySheet("Bren", "Bren Ironhand", 5, {"Strength": 2, "Healing": 2},
                   {"Iron Shield": 2, "Rope": 1}),
        PartySheet("Overlord", "Overlord Bastrastras", 7, {"Cunning": 3, "Brutality": 2},
                   {"Obsidian Crown": 2}),
        PartySheet("Goblins", "the goblin warband", 4, {"Numbers": 2}, {"Rusty Spears": 1},
                   members=("Snik", "Grub", "Mox")),
        PartySheet("Mook", "a nameless mook", 2, {}, {"Club": 1}),          # no trait at all
        *extra,
    ]


IMPS = (PartySheet("Imp1", "the first imp", 0, {"Spite": 1}, {}),
        PartySheet("Imp2", "the second imp", 0, {}, {"Pitchfork": 1}))

EVERYONE = ("Kara", "Bren", "Overlord", "Goblins", "Mook")


def new_game(*extra: PartySheet, drama: tuple[str, ...] | None = EVERYONE, **kwargs) -> Game:
    """A game of the cast; inside the dramatic situation "Throne Hall" unless drama=None."""
    settings = kwargs.pop("settings", None)
    game = Game(cast(*extra), settings, **kwargs)
    if drama is not None:
        game.begin_drama("Throne Hall", [*drama, *(s.id for s in extra)])
    return game


def q(game: Game, party: str) -> tuple[int, int]:
    """(available, damage pool)."""
    state = game.state(party)
    return state.quintessence, state.damage_pool


def snapshot(game: Game):
    return (game.states(), game.time, game.round, game.open_options,
            {pid: game.has_acted(pid) for pid in game.sheets}, game.drama is None)


def refused(game: Game, step, code: str, rule: str | None = None, text: str | None = None) -> DramaError:
    """Run a step the rules refuse: check the error's code, rule and text, and that
    the step changed nothing."""
    before = snapshot(game)
    with pytest.raises(DramaError) as info:
        step()
    error = info.value
    assert error.code == code, str(error)
    if rule is not None:
        assert isinstance(error, RuleError) and error.rule == rule
        assert str(error).endswith(f"({rule})")
    if text is not None:
        assert text in str(error), str(error)
    assert snapshot(game) == before
    return error


def act(party: str, trait=None, treasure=None, throw=Throw.none(), gm: int = 0) -> Part:
    return Part(party, trait, treasure, throw, gm)


def defend(party: str, trait=None, treasure=None, throw=Throw.none(), gm: int = 0) -> Defence:
    return Defence((Part(party, trait, treasure, throw, gm),))


def max_invariant(game: Game):
    for pid, sheet in game.sheets.items():
        state = game.state(pid)
        assert state.quintessence >= 0 and state.damage_pool >= 0
        assert state.quintessence + state.damage_pool == sheet.quintessence


def spend(game: Game, party: str, amount: int):
    """Move `amount` of a party's quintessence to its damage pool, outside drama:
    an action against a GM target of -1 with `amount` qualifiers (R4)."""
    game.exchange(Action("prepare", (act(party),), gm_target=-1, qualifiers=("x",) * amount))


# ================================================================ R1 dice

def test_R1_high_die_is_the_top_face_by_default_and_a_one_is_a_1():
    game = new_game()
    x = game.exchange(Action("fireball", (act("Kara", "Sorcery", "Ember Staff", G(6, 5, 2)),), "Bren"),
                      [defend("Bren", "Strength", None, G(1))])
    # Kara 3 + 2 + 6 + 5 + 2 = 18; Bren 2 + 1 = 3. Only the 6 is high on a d6.
    assert x.comparisons[0].values == {"Kara": 18, "Bren": 3}
    assert x.comparisons[0].loss == 1 + 1
    # Bren: one 1 (ones) + 2 (loss) = 3
    assert q(game, "Bren") == (2, 3)
    assert [(l.party, l.kind, l.amount) for l in x.losses] == [("Bren", "ones", 1), ("Bren", "loss", 2)]


def test_R1_d8_with_high_7():
    settings = Settings(sides=8, high=7)
    game = new_game(settings=settings)
    x = game.exchange(Action("fireball", (act("Kara", "Sorcery", None, G(8, 7, 6)),), "Bren"),
                      [defend("Bren", "Strength", None, G(1))])
    # Kara 3 + 21 = 24, Bren 2 + 1 = 3; the 8 and the 7 are high, the 6 is not.
    assert x.comparisons[0].values == {"Kara": 24, "Bren": 3}
    assert x.comparisons[0].loss == 1 + 2
    assert q(game, "Bren") == (1, 4)        # one 1 + a loss of 3
    # a d8 has no face 9
    refused(game, lambda: game.exchange(Action("claw", (act("Overlord", "Cunning", None, G(9)),), "Kara")),
            "E402", text="a d8 has no face 9")
    # the engine's dice are d8s
    rolled = game.exchange(Action("claw", (act("Overlord", "Cunning", None, Throw.roll()),), "Kara"))
    assert len(rolled.attacker.efforts[0].dice) == 3
    assert all(1 <= d <= 8 for d in rolled.attacker.efforts[0].dice)


def test_R1_d8_recovery_counts_the_top_face_8_not_the_high_7():
    game = new_game(drama=None, settings=Settings(sides=8, high=7))
    spend(game, "Kara", 4)
    rec = game.recover("Kara", first=G(8, 7, 7, 3))
    assert rec.checks[0].returning == 3          # the 8 and both 7s (the highest below 8)
    assert q(game, "Kara") == (5, 1)


def test_R1_seeded_dice_are_reproducible_and_on_the_die():
    a, b = SeededDice(42), SeededDice(42)
    assert a.roll(20, 8) == b.roll(20, 8)
    assert all(1 <= d <= 8 for d in SeededDice(3).roll(200, 8))
    given = GivenDice([1, 2, 3])
    assert given.roll(2, 6) == (1, 2) and given.left == 1
    with pytest.raises(DramaError) as info:
        given.roll(2, 6)
    assert info.value.code == "E401"
    with pytest.raises(DramaError) as info:
        GivenDice([7]).roll(1, 6)
    assert info.value.code == "E402" and "a d6 has no face 7" in str(info.value)


# ================================================================ R2 action value

def test_R2_value_is_trait_plus_treasure_plus_dice_plus_gm_modifier():
    game = new_game()
    x = game.exchange(Action("fireball", (act("Kara", "Sorcery", "Ember Staff", G(4, 1), gm=1),), gm_target=10))
    effort = x.attacker.efforts[0]
    assert (effort.trait_level, effort.treasure_value, effort.dice, effort.gm) == (3, 2, (4, 1), 1)
    assert x.attacker.value == effort.value == 3 + 2 + 4 + 1 + 1
    assert x.comparisons[0].winner == "Kara" and x.comparisons[0].values == {"Kara": 11}


def test_R2_no_trait_and_no_treasure_is_a_value_of_0_and_values_are_not_clamped():
    """R2 + edge case 3: a GM penalty can make a value negative; it is compared as it is."""
    game = new_game()
    x = game.exchange(Action("bluff", (act("Mook", gm=-2),), gm_target=-3))
    assert x.attacker.value == -2
    assert x.comparisons[0].winner == "Mook"          # -2 > -3
    y = game.exchange(Action("bluff", (act("Kara", gm=-2),), gm_target=-1))
    assert y.attacker.value == -2 and y.comparisons[0].winner == GM


def test_R2_a_party_uses_only_its_own_traits_and_treasures():
    game = new_game()
    error = refused(game, lambda: game.exchange(Action("lift", (act("Kara", "Strength"),), gm_target=3)), "E202")
    assert "Kara has no trait 'Strength'" in str(error)
    refused(game, lambda: game.exchange(Action("lift", (act("Kara", None, "Iron Shield"),), gm_target=3)),
            "E202", text="Kara has no treasure 'Iron Shield'")


# ================================================================ R3 dice cap

def test_R3_cap_is_the_trait_level_message():
    game = new_game()
    refused(game, lambda: game.exchange(Action("fireball", (act("Kara", "Sorcery", None, G(1, 2, 3, 4)),), "Bren")),
            "E301", "R3", "Kara may roll at most 3 dice with Sorcery 3, not 4")
    x = game.exchange(Action("fireball", (act("Kara", "Sorcery", None, G(2, 2, 2)),), "Bren"))
    assert x.attacker.efforts[0].cap == 3


def test_R3_gm_modifier_changes_the_cap():
    game = new_game()
    refused(game, lambda: game.exchange(Action("fireball", (act("Kara", "Sorcery", None, G(2, 2, 2), gm=-1),), "Bren")),
            "E301", "R3", "Kara may roll at most 2 dice with Sorcery 3 and GM -1, not 3")
    x = game.exchange(Action("fireball", (act("Kara", "Sorcery", None, G(2, 2, 2, 2), gm=1),), "Bren"))
    assert x.attacker.efforts[0].cap == 4
    assert x.attacker.value == 3 + 8 + 1
    # a penalty larger than the trait leaves no dice, never a negative cap
    y = game.exchange(Action("crush", (act("Overlord", "Brutality", None, Throw.roll(), gm=-5),), "Bren"))
    assert y.attacker.efforts[0].cap == 0 and y.attacker.efforts[0].dice == ()
    assert y.attacker.value == 2 - 5


def test_R3_no_trait_rolls_one_die_whatever_the_gm_modifier():
    """R3 + edge case 4."""
    game = new_game()
    refused(game, lambda: game.exchange(Action("swing", (act("Kara", None, "Ember Staff", G(3, 3), gm=2),), "Bren")),
            "E301", "R3", "Kara may roll at most 1 die with no trait, not 2")
    x = game.exchange(Action("swing", (act("Kara", None, "Ember Staff", G(5), gm=-5),), "Bren"),
                      [defend("Bren", "Strength", None, G(2))])
    assert x.attacker.efforts[0].cap == 1
    assert x.attacker.value == 2 + 5 - 5
    y = game.exchange(Action("swing", (act("Mook", None, "Club", Throw.roll(), gm=3),), "Goblins"))
    assert y.attacker.efforts[0].cap == 1 and len(y.attacker.efforts[0].dice) == 1


def test_R3_cap_is_limited_by_available_quintessence_after_spending():
    game = new_game()
    step = lambda: game.exchange(Action("fireball", (act("Kara", "Sorcery", None, G(4, 4, 4)),), "Bren",
                                        qualifiers=("a", "b", "c", "d")))
    refused(game, step, "E301", "R3",
            "Kara may roll at most 2 dice: it has 2 quintessence available after spending 4, not 3")
    x = game.exchange(Action("fireball", (act("Kara", "Sorcery", None, Throw.roll()),), "Bren",
                             qualifiers=("a", "b", "c", "d")))
    assert len(x.attacker.efforts[0].dice) == 2 and x.attacker.efforts[0].cap == 3


def test_R3_rolling_does_not_spend():
    game = new_game()
    x = game.exchange(Action("fireball", (act("Kara", "Sorcery", None, G(5, 4, 3)),), "Bren"),
                      [defend("Bren", "Strength", None, G(2, 2))])
    assert x.comparisons[0].winner == "Kara"
    assert q(game, "Kara") == (6, 0)                 # three dice rolled, none lost
    assert [l for l in x.losses if l.party == "Kara"] == []


# ================================================================ R4 spending

def test_R4_qualifiers_and_extra_targets_cost_1_each_at_declaration():
    game = new_game()
    x = game.exchange(Action("fireball", (act("Kara", "Sorcery", "Ember Staff", G(5, 5)),), "Overlord",
                             qualifiers=("the tapestries",), extra_targets=("Goblins",)),
                      [defend("Overlord", "Cunning", None, G(2)), defend("Goblins", "Numbers", None, G(2))])
    assert x.losses[0] == results.Loss("Kara", 2, 2, "spend", None, PartyState(4, 2))
    assert q(game, "Kara") == (4, 2)
    assert len(x.comparisons) == 2


def test_R4_not_enough_to_spend_is_refused_and_changes_nothing():
    game = new_game()
    spend_step = lambda: game.exchange(Action("scheme", (act("Mook", None, "Club"),), "Kara",
                                              qualifiers=("a", "b"), extra_targets=("Bren",)))
    refused(game, spend_step, "E304", "R4", "Mook needs 3 quintessence for 2 qualifiers and 1 extra target but has 2")
    assert not game.has_acted("Mook")
    assert q(game, "Mook") == (2, 0)


# ================================================================ R5 resolution

def test_R5_against_a_gm_target_greater_succeeds_less_fails_equal_ties():
    game = new_game(settings=Settings(ties="defender"))
    win = game.exchange(Action("climb", (act("Kara", "Agility", None, G(5)),), gm_target=5))
    assert win.comparisons[0].winner == "Kara" and not win.comparisons[0].tie
    game.next_round()
    lose = game.exchange(Action("climb", (act("Kara", "Agility", None, G(3)),), gm_target=5))
    assert lose.comparisons[0].winner == GM and not lose.comparisons[0].tie
    game.next_round()
    tie = game.exchange(Action("climb", (act("Kara", "Agility", None, G(4)),), gm_target=5))
    assert tie.comparisons[0].tie and tie.comparisons[0].winner == GM
    assert tie.defences[0].name == GM and tie.comparisons[0].target == 5


def test_R5_opposed_higher_side_wins():
    game = new_game()
    x = game.exchange(Action("crush", (act("Overlord", "Brutality", "Obsidian Crown", G(3, 2)),), "Bren"),
                      [defend("Bren", "Strength", "Iron Shield", G(5, 4))])
    assert x.comparisons[0].values == {"Overlord": 9, "Bren": 13}
    assert x.comparisons[0].winner == "Bren"
    assert q(game, "Overlord") == (6, 1)             # the loser pays 1 + 0 highs


def test_R5_an_undefended_target_meets_a_value_of_0():
    game = new_game()
    x = game.exchange(Action("poke", (act("Mook", gm=-1),), "Bren"))
    side = x.defences[0]
    assert (side.name, side.value, side.stated) == ("Bren", 0, False)
    assert x.comparisons[0].winner == "Bren"         # -1 < 0
    assert q(game, "Mook") == (1, 1)


def test_R5_extra_targets_each_compared_to_the_attacking_value():
    game = new_game()
    x = game.exchange(Action("fireball", (act("Kara", "Sorcery", "Ember Staff", G(3, 3)),), "Overlord",
                             extra_targets=("Goblins", "Bren")),
                      [defend("Overlord", "Cunning", "Obsidian Crown", G(6, 5)),
                       defend("Goblins", "Numbers", None, G(2))])
    # Kara 3 + 2 + 6 = 11; Overlord 3 + 2 + 11 = 16; Goblins 2 + 2 = 4; Bren undefended 0
    assert [(c.defender, c.values, c.winner) for c in x.comparisons] == [
        ("Overlord", {"Kara": 11, "Overlord": 16}, "Overlord"),
        ("Goblins", {"Kara": 11, "Goblins": 4}, "Kara"),
        ("Bren", {"Kara": 11, "Bren": 0}, "Kara"),
    ]
    # Kara: 2 spent + a loss of 1 + 1 high to the Overlord = 4
    assert q(game, "Kara") == (2, 4)
    assert q(game, "Goblins") == (3, 1) and q(game, "Bren") == (4, 1)


# ================================================================ R6 losses

def test_R6_everyone_loses_their_ones_and_the_loser_1_plus_the_winners_highs():
    game = new_game()
    x = game.exchange(Action("crush", (act("Overlord", "Brutality", "Obsidian Crown", G(6, 1)),), "Bren"),
                      [defend("Bren", "Strength", "Iron Shield", G(1, 1))])
    # Overlord 2 + 2 + 7 = 11; Bren 2 + 2 + 2 = 6. The winner loses its one too.
    assert x.comparisons[0].winner == "Overlord" and x.comparisons[0].loss == 2
    assert q(game, "Overlord") == (6, 1)
    assert q(game, "Bren") == (5 - 2 - 2, 4)


def test_R6_failing_a_gm_target_costs_only_the_ones():
    game = new_game()
    x = game.exchange(Action("hold the door", (act("Goblins", "Numbers", "Rusty Spears", G(1, 6)),), gm_target=20))
    assert x.comparisons[0].winner == GM and x.comparisons[0].loss == 0
    assert q(game, "Goblins") == (3, 1)
    game.next_round()
    y = game.exchange(Action("hold the door", (act("Goblins", "Numbers", None, G(2, 3)),), gm_target=20))
    assert y.losses == () and q(game, "Goblins") == (3, 1)


def test_R6_ones_come_off_once_per_exchange_and_each_lost_comparison_costs_a_loss():
    """R6 + edge cases 1 and 2: ones once, however many comparisons; a loss per comparison lost."""
    game = new_game()
    x = game.exchange(Action("fireball", (act("Kara", "Sorcery", None, G(1, 1)),), "Overlord",
                             extra_targets=("Goblins",)),
                      [defend("Overlord", "Cunning", "Obsidian Crown", G(6, 6)),
                       defend("Goblins", "Numbers", "Rusty Spears", G(6))])
    # Kara 3 + 2 = 5; Overlord 3 + 2 + 12 = 17 (2 highs); Goblins 2 + 1 + 6 = 9 (1 high)
    assert [c.winner for c in x.comparisons] == ["Overlord", "Goblins"]
    assert [c.loss for c in x.comparisons] == [3, 2]
    kinds = [(l.party, l.kind, l.amount, l.owed) for l in x.losses]
    assert kinds == [("Kara", "spend", 1, 1), ("Kara", "ones", 2, 2),
                     ("Kara", "loss", 3, 3), ("Kara", "loss", 0, 2)]
    # a loss larger than what is left: never below 0, available + damage == max
    assert q(game, "Kara") == (0, 6)
    max_invariant(game)


def test_R6_a_loss_larger_than_what_is_left_stops_at_0():
    game = new_game()
    x = game.exchange(Action("fireball", (act("Kara", "Sorcery", None, G(6, 6, 6)),), "Mook"),
                      [defend("Mook", None, "Club", G(1))])
    loss = [l for l in x.losses if l.kind == "loss"][0]
    assert (loss.party, loss.amount, loss.owed) == ("Mook", 1, 4)     # 1 + 3 highs, only 1 left
    assert q(game, "Mook") == (0, 2)
    assert x.parties["Mook"] == PartyState(0, 2, False)
    max_invariant(game)


# ================================================================ R7 defeat

def test_R7_no_defeat_on_the_failure_that_brings_a_party_to_0_defeat_on_the_next():
    game = new_game()
    first = game.exchange(Action("fireball", (act("Kara", "Sorcery", "Ember Staff", G(5, 3)),), "Mook"),
                          [defend("Mook", None, "Club", G(1))])
    # Mook: one 1, then a loss of 1: 2 -> 0, but it had 2 before the losses
    assert q(game, "Mook") == (0, 2) and first.defeats == ()
    assert not game.state("Mook").defeated
    game.next_round()
    # at 0 a party still acts with trait + treasure alone
    ok = game.exchange(Action("swing", (act("Mook", None, "Club", Throw.roll()),), gm_target=0))
    assert ok.attacker.efforts[0].dice == () and ok.comparisons[0].winner == "Mook" and ok.defeats == ()
    second = game.exchange(Action("punch", (act("Bren", "Strength", None, G(3)),), "Mook"),
                           [defend("Mook", None, "Club")])
    assert second.comparisons[0].winner == "Bren"
    assert second.defeats == ("Mook",)
    assert game.state("Mook") == PartyState(0, 2, True)


def test_R7_a_defeated_party_cannot_act_message():
    game = new_game()
    # the Overlord spends everything (7 qualifiers), then loses: defeated
    x = game.exchange(Action("gloat", (act("Overlord", "Cunning", "Obsidian Crown"),), "Bren",
                             qualifiers=tuple("abcdefg")),
                      [defend("Bren", "Strength", "Iron Shield", G(3, 3))])
    assert x.defeats == ("Overlord",)
    game.next_round()
    refused(game, lambda: game.exchange(Action("roar", (act("Overlord", "Brutality"),), "Kara")),
            "E307", "R7", "Overlord is defeated in Throne Hall and cannot act")
    refused(game, lambda: game.exchange(Action("fireball", (act("Kara", "Sorcery", None, G(2)),), "Overlord"),
                                        [defend("Overlord", "Cunning")]),
            "E307", "R7", "Overlord is defeated in Throne Hall and cannot defend")
    refused(game, lambda: game.hold("Overlord"), "E307", "R7", "Overlord is defeated in Throne Hall")
    refused(game, lambda: game.recover("Overlord"), "E307", "R7", "Overlord is defeated in Throne Hall")
    refused(game, lambda: game.recover("Bren", helpers=[Helping("Overlord", "Cunning")]), "E307", "R7")
    # an undefended defeated party can still be the target of an action
    y = game.exchange(Action("fireball", (act("Kara", "Sorcery", None, G(2)),), "Overlord"))
    assert y.comparisons[0].winner == "Kara" and y.defeats == ()


def test_R7_spending_to_0_then_failing_is_a_defeat():
    """Edge case 5."""
    game = new_game()
    x = game.exchange(Action("rush", (act("Goblins", "Numbers", "Rusty Spears", Throw.roll()),), "Kara",
                             qualifiers=("a", "b", "c", "d")),
                      [defend("Kara", "Agility", None, G(3))])
    # the Goblins roll no dice (nothing left after spending 4): 2 + 1 = 3 < Kara 1 + 3 = 4
    assert x.attacker.efforts[0].dice == ()
    assert x.comparisons[0].winner == "Kara"
    assert x.defeats == ("Goblins",)
    assert game.state("Goblins") == PartyState(0, 4, True)


def test_R7_spending_to_0_then_failing_a_gm_target_is_a_defeat():
    game = new_game()
    x = game.exchange(Action("bluff", (act("Mook", None, "Club"),), gm_target=5, qualifiers=("a", "b")))
    assert x.comparisons[0].winner == GM and x.defeats == ("Mook",)


def test_R7_every_party_of_a_losing_joint_side_at_0_is_defeated():
    """Edge case 6."""
    game = new_game(*IMPS)
    x = game.exchange(Action("swarm", (act("Imp1", "Spite"), act("Imp2", None, "Pitchfork")), "Bren"),
                      [defend("Bren", "Strength", None, G(3))])
    assert x.attacker.value == 1 + 1 and x.comparisons[0].winner == "Bren"
    assert x.defeats == ("Imp1", "Imp2")
    assert game.state("Imp1").defeated and game.state("Imp2").defeated


def test_R7_only_the_parties_of_a_losing_side_that_were_at_0_are_defeated():
    game = new_game(*IMPS)
    x = game.exchange(Action("swarm", (act("Kara", "Agility"), act("Imp1", "Spite")), "Overlord"),
                      [defend("Overlord", "Cunning", "Obsidian Crown", G(2))])
    assert x.comparisons[0].winner == "Overlord"
    assert x.defeats == ("Imp1",)
    assert not game.state("Kara").defeated and q(game, "Kara") == (5, 1)


def test_R7_an_undefended_party_at_0_that_loses_is_defeated():
    game = new_game(*IMPS)
    x = game.exchange(Action("fireball", (act("Kara", "Sorcery", None, G(2)),), "Imp1"))
    assert x.defences[0].stated is False and x.defeats == ("Imp1",)


def test_R7_a_party_at_0_that_wins_is_not_defeated():
    game = new_game(*IMPS)
    x = game.exchange(Action("stab", (act("Imp1", "Spite"),), "Mook"), [defend("Mook", gm=-1)])
    assert x.comparisons[0].winner == "Imp1" and x.defeats == ()


def test_R7_failing_one_comparison_at_0_is_a_defeat_even_if_another_is_won():
    game = new_game()
    x = game.exchange(Action("rush", (act("Goblins", "Numbers", "Rusty Spears"),), "Kara",
                             qualifiers=("a", "b", "c"), extra_targets=("Bren",)),
                      [defend("Kara", "Agility", None, G(3))])
    assert [c.winner for c in x.comparisons] == ["Kara", "Goblins"]
    assert x.defeats == ("Goblins",)


def test_R7_defeat_is_tracked_only_inside_a_dramatic_situation_and_ends_with_it():
    game = new_game(*IMPS, drama=None)
    x = game.exchange(Action("fireball", (act("Kara", "Sorcery", None, G(2)),), "Imp1"))
    assert x.comparisons[0].winner == "Kara" and x.defeats == () and x.drama is None
    assert not game.state("Imp1").defeated
    game.begin_drama("Cellar", ["Kara", "Imp1"])
    y = game.exchange(Action("fireball", (act("Kara", "Sorcery", None, G(2)),), "Imp1"))
    assert y.defeats == ("Imp1",)
    ended = game.end_drama()
    assert ended.parties["Imp1"] == PartyState(0, 0, False)
    game.begin_drama("Attic", ["Kara", "Imp1"])
    z = game.exchange(Action("bite", (act("Imp1", "Spite"),), gm_target=0))
    assert z.comparisons[0].winner == "Imp1"


# ================================================================ R8 double win

def test_R8_double_win_against_a_gm_target():
    game = new_game()
    x = game.exchange(Action("leap", (act("Kara", "Sorcery", "Ember Staff", G(5, 4)),), gm_target=7))
    assert x.attacker.value == 14 and x.comparisons[0].double
    assert x.options == (results.Option(0, ("Kara",)),)
    game.next_round()
    y = game.exchange(Action("leap", (act("Kara", "Sorcery", "Ember Staff", G(5, 3)),), gm_target=7))
    assert y.attacker.value == 13 and not y.comparisons[0].double and y.options == ()


def test_R8_double_win_against_a_value_of_0():
    """R5 + R8: an undefended target meets 0; any win over 0 is a double win."""
    game = new_game()
    x = game.exchange(Action("fireball", (act("Kara", "Sorcery", None, G(2)),), "Bren"))
    assert x.comparisons[0].values == {"Kara": 5, "Bren": 0}
    assert x.comparisons[0].double and x.options == (results.Option(0, ("Kara",)),)
    taken = game.take_option("Kara", "dictate", text="Bren drops his shield")
    assert (taken.kind, taken.text, taken.returned) == ("dictate", "Bren drops his shield", 0)
    assert q(game, "Kara") == (6, 0) and q(game, "Bren") == (4, 1)


def test_R8_a_tie_is_never_a_double_win():
    """Edge case 7: 0 against 0 settled for the attacker is an ordinary win."""
    game = new_game()
    x = game.exchange(Action("poke", (act("Mook"),), "Kara"), ties=["Mook"])
    c = x.comparisons[0]
    assert (c.tie, c.winner, c.double, c.tie_settled_by) == (True, "Mook", False, "vote")
    assert x.options == ()
    refused(game, lambda: game.take_option("Mook", "dictate", text="no"), "E308", "R8",
            "Mook has no double win to take an option from")


def test_R8_the_defender_can_win_double():
    game = new_game()
    x = game.exchange(Action("poke", (act("Mook", None, "Club", G(2)),), "Kara"),
                      [defend("Kara", "Sorcery", "Ember Staff", G(4, 4))])
    assert x.comparisons[0].winner == "Kara" and x.comparisons[0].double
    assert x.options == (results.Option(0, ("Kara",)),)


def test_R8_reroll_after_losses_from_several_exchanges_in_one_round():
    """Edge case 10: the reroll counts ones and opposed losses of every exchange of
    this round, not spending; a second reroll is limited to what is still lost."""
    game = new_game()
    game.exchange(Action("crush", (act("Overlord", "Brutality", "Obsidian Crown", G(6, 2)),), "Kara"),
                  [defend("Kara", "Agility", None, G(1))])
    assert q(game, "Kara") == (3, 3)                 # one 1 + a loss of 1 + 1 high
    game.exchange(Action("stab", (act("Goblins", "Numbers", "Rusty Spears", G(3)),), "Kara"),
                  [defend("Kara", "Agility", None, G(2))])
    assert q(game, "Kara") == (2, 4)                 # 6 beats 3: a loss of 1
    x = game.exchange(Action("fireball", (act("Kara", "Sorcery", "Ember Staff", G(6)),), "Bren",
                             qualifiers=("not the throne",)),
                      [defend("Bren", "Strength", None, G(1))])
    assert x.comparisons[0].values == {"Kara": 11, "Bren": 3} and x.comparisons[0].double
    assert q(game, "Kara") == (1, 5)                 # 1 spent: 4 lost this round
    refused(game, lambda: game.take_option("Kara", "reroll", G(3, 3, 3)), "E401",
            text="Kara rerolls the 4 dice it lost this round, but 3 dice are given")
    first = game.take_option("Kara", "reroll", G(1, 3, 4, 5))
    assert (first.lost, first.dice, first.returned) == (4, (1, 3, 4, 5), 3)
    assert q(game, "Kara") == (4, 2)
    refused(game, lambda: game.take_option("Kara", "reroll", G(5)), "E308", "R8")   # one option, taken
    # a second double win in the same round (Kara defends): only 1 is still lost
    y = game.exchange(Action("swing", (act("Mook", None, "Club", G(2)),), "Kara"),
                      [defend("Kara", "Sorcery", "Ember Staff", G(4, 4))])
    assert y.comparisons[0].double and y.options == (results.Option(0, ("Kara",)),)
    second = game.take_option("Kara", "reroll", G(5))
    assert (second.lost, second.returned) == (1, 1)
    assert q(game, "Kara") == (5, 1)                 # the 1 spent never comes back


def test_R8_point_10_a_rushed_recovery_in_the_same_round_reduces_lost_this_round():
    """Edge case 10: a die that came back in a rushed recovery (R15) is no longer
    lost, so the reroll later in the round does not roll it again."""
    game = new_game()
    game.exchange(Action("crush", (act("Overlord", "Brutality", "Obsidian Crown", G(6, 2)),), "Kara"),
                  [defend("Kara", "Agility", None, G(1))])
    assert q(game, "Kara") == (3, 3)                 # one 1 + a loss of 1 + 1 high: 3 lost this round
    rec = game.recover("Kara", first=G(6, 4, 2), second=G(5, 3))
    assert rec.rushed and rec.returned == 1          # 6 and 4 return in the first check, the 5 in the second
    assert q(game, "Kara") == (4, 2)                 # 2 of the 3 still lost
    x = game.exchange(Action("swing", (act("Mook", None, "Club", G(2)),), "Kara"),
                      [defend("Kara", "Sorcery", "Ember Staff", G(4, 4))])
    assert x.comparisons[0].values == {"Mook": 3, "Kara": 13} and x.comparisons[0].double
    refused(game, lambda: game.take_option("Kara", "reroll", G(5, 5, 5)), "E401",
            text="Kara rerolls the 2 dice it lost this round, but 3 dice are given")
    taken = game.take_option("Kara", "reroll", G(1, 5))
    assert (taken.lost, taken.dice, taken.returned) == (2, (1, 5), 1)
    assert q(game, "Kara") == (5, 1)                 # the 1 of the reroll stays lost


def _joint_side_defeated_and_double_winning(game: Game) -> results.Exchange:
    """Goblins & Mook spend the Goblins' last 4 on 3 qualifiers and an extra
    target, lose to Kara (a defeat for the Goblins at 0, R7) and double-win
    against the undefended Bren (R8)."""
    x = game.exchange(Action("rush", (act("Goblins", "Numbers", "Rusty Spears"), act("Mook", None, "Club")),
                             "Kara", qualifiers=("a", "b", "c"), extra_targets=("Bren",)),
                      [defend("Kara", "Agility", None, G(4))])
    assert [c.winner for c in x.comparisons] == ["Kara", "Goblins & Mook"]   # 4 < 5, 4 > 0
    assert x.comparisons[1].double and x.defeats == ("Goblins",)
    assert x.options == (results.Option(1, ("Goblins", "Mook")),)
    assert q(game, "Goblins") == (0, 4) and q(game, "Mook") == (1, 1)        # the loss of 1 falls on Mook
    return x


def test_R7_point_10_a_party_defeated_in_the_exchange_takes_no_option_its_partner_may():
    game = new_game()
    _joint_side_defeated_and_double_winning(game)
    error = refused(game, lambda: game.take_option("Goblins", "reroll", G(5, 5, 5, 5)), "E307", "R7",
                    "Goblins is defeated in Throne Hall and cannot take the double-win option of its side")
    assert error.hint == "did you mean 'Mook'?" and error.party == "Goblins"
    refused(game, lambda: game.take_option("Goblins", "dictate", text="the goblins rally"), "E307", "R7")
    taken = game.take_option("Mook", "reroll", G(5))
    assert (taken.party, taken.comparison, taken.lost, taken.returned) == ("Mook", 1, 1, 1)
    assert q(game, "Mook") == (2, 0) and game.open_options == ()


def test_R8_reroll_keeps_the_ones_of_the_reroll():
    game = new_game()
    game.exchange(Action("crush", (act("Overlord", "Brutality", None, G(6, 6)),), "Goblins"),
                  [defend("Goblins", "Numbers", None, G(1))])
    assert q(game, "Goblins") == (0, 4)              # one 1 + a loss of 3, only 3 left
    x = game.exchange(Action("stab", (act("Goblins", "Numbers", "Rusty Spears"),), "Mook"))
    assert x.comparisons[0].double
    taken = game.take_option("Goblins", "reroll", G(1, 1, 4, 5))
    assert (taken.lost, taken.returned) == (4, 2)
    assert q(game, "Goblins") == (2, 2)


def test_R8_options_last_until_the_next_exchange_or_round():
    game = new_game()
    game.exchange(Action("fireball", (act("Kara", "Sorcery", None, G(2)),), "Bren"))
    assert game.open_options == (results.Option(0, ("Kara",)),)
    game.exchange(Action("stab", (act("Goblins", "Numbers"),), gm_target=0))
    refused(game, lambda: game.take_option("Kara", "dictate", text="late"), "E308", "R8",
            "Kara has no double win to take an option from")
    game.exchange(Action("crush", (act("Overlord", "Brutality"),), "Mook"))
    game.next_round()
    assert game.open_options == ()
    refused(game, lambda: game.take_option("Overlord", "dictate", text="late"), "E308", "R8")


def test_R8_each_double_won_comparison_gives_one_option():
    game = new_game()
    x = game.exchange(Action("fireball", (act("Kara", "Sorcery", "Ember Staff", G(6, 6)),), "Overlord",
                             extra_targets=("Goblins",)),
                      [defend("Overlord", "Cunning", None, G(2)), defend("Goblins", "Numbers", None, G(1))])
    assert [c.double for c in x.comparisons] == [True, True]
    assert len(x.options) == 2
    game.take_option("Kara", "dictate", text="the Overlord's cloak burns")
    second = game.take_option("Kara", "dictate", text="the goblins flee")
    assert second.comparison == 1
    refused(game, lambda: game.take_option("Kara", "dictate", text="more"), "E308", "R8")


def test_R8_a_gm_double_opens_no_option():
    game = new_game()
    x = game.exchange(Action("leap", (act("Mook", None, None, G(2)),), gm_target=5))
    assert x.comparisons[0].winner == GM and x.options == ()


# ================================================================ R9 one aggressive action

def test_R9_second_aggressive_action_in_a_round_is_refused():
    game = new_game()
    game.exchange(Action("fireball", (act("Kara", "Sorcery", None, G(2)),), "Overlord"))
    refused(game, lambda: game.exchange(Action("again", (act("Kara", "Sorcery", None, G(2)),), "Goblins")),
            "E309", "R9", "Kara already took an aggressive action this round")
    refused(game, lambda: game.hold("Kara"), "E309", "R9", "Kara already took an aggressive action this round")
    game.next_round()
    assert not game.has_acted("Kara")
    game.exchange(Action("again", (act("Kara", "Sorcery", None, G(2)),), "Goblins"))
    assert game.has_acted("Kara")


def test_R9_defences_are_unlimited():
    game = new_game()
    for attacker in ("Overlord", "Goblins", "Mook"):
        x = game.exchange(Action("hit", (act(attacker),), "Bren"), [defend("Bren", "Strength", "Iron Shield")])
        assert x.comparisons[0].winner == "Bren"
    assert not game.has_acted("Bren")
    game.exchange(Action("punch", (act("Bren", "Strength"),), "Kara"))     # its own action is still there


def test_R9_hold_then_act_later_in_the_round_and_holds_do_not_carry_over():
    game = new_game()
    game.roll_initiative([("Kara", None, None, (5,)), ("Bren", None, None, (2,)), ("Overlord", None, None, (6,)),
                          ("Goblins", None, None, (3,)), ("Mook", None, None, (1,))])
    a = game.exchange(Action("crush", (act("Overlord", "Brutality"),), "Mook"))
    assert a.turn == results.Turn(("Overlord",), (), ())
    held = game.hold("Kara")
    assert (held.party, held.round) == ("Kara", 1)
    b = game.exchange(Action("stab", (act("Goblins", "Numbers"),), gm_target=0))
    assert b.turn == results.Turn(("Goblins",), (), ())
    c = game.exchange(Action("fireball", (act("Kara", "Sorcery"),), gm_target=0))
    assert c.turn == results.Turn((), ("Kara",), ())
    # Mook acts before Bren has: Bren's turn passed, it holds
    d = game.exchange(Action("swing", (act("Mook"),), gm_target=-1))
    assert d.turn == results.Turn(("Mook",), (), ("Bren",))
    e = game.exchange(Action("punch", (act("Bren", "Strength"),), gm_target=0))
    assert e.turn == results.Turn((), ("Bren",), ())
    begun = game.next_round()
    assert begun.unused == ()
    # the held actions are gone: each acts on its own turn again, in the same order
    f = game.exchange(Action("crush", (act("Overlord", "Brutality"),), gm_target=0))
    g = game.exchange(Action("fireball", (act("Kara", "Sorcery"),), gm_target=0))
    assert f.turn.on_turn == ("Overlord",) and g.turn == results.Turn(("Kara",), (), ())


def test_R9_round_reports_parties_that_did_not_use_their_action():
    game = new_game()
    game.exchange(Action("crush", (act("Overlord", "Brutality"),), gm_target=0))
    game.hold("Kara")
    begun = game.next_round()
    assert begun.unused == ("Kara", "Bren", "Goblins", "Mook")
    assert begun.round == 2


# ================================================================ R10 several parties on a side

def test_R10_only_the_leads_trait_adds_every_treasure_and_die_adds_each_own_cap():
    game = new_game()
    x = game.exchange(Action("pin", (act("Kara", "Sorcery", "Ember Staff", G(5, 4)),
                                     act("Mook", None, "Club", G(3))), "Overlord"),
                      [defend("Overlord", "Cunning", "Obsidian Crown", G(4, 4, 2))])
    kara, mook = x.attacker.efforts
    assert (kara.trait_counts, kara.cap, mook.trait_counts, mook.cap) == (True, 3, False, 1)
    assert x.attacker.name == "Kara & Mook" and x.attacker.parties == ("Kara", "Mook")
    # 3 + 2 + 9 (Kara) + 1 + 3 (Mook) = 18 against 3 + 2 + 10 = 15
    assert x.comparisons[0].values == {"Kara & Mook": 18, "Overlord": 15}
    assert q(game, "Overlord") == (6, 1)


def test_R10_a_partner_without_a_trait_rolls_one_die_at_most():
    game = new_game()
    refused(game, lambda: game.exchange(Action("pin", (act("Kara", "Sorcery", None, G(5)),
                                                      act("Mook", None, "Club", G(3, 3))), "Overlord")),
            "E301", "R3", "Mook may roll at most 1 die with no trait, not 2")


def test_R10_when_the_lead_has_no_trait_no_trait_adds():
    game = new_game()
    x = game.exchange(Action("shove", (act("Mook", None, "Club", G(3)),
                                       act("Bren", "Strength", "Iron Shield", G(4, 4))), gm_target=10))
    bren = x.attacker.efforts[1]
    assert (bren.trait_level, bren.trait_counts, bren.cap) == (2, False, 2)
    assert x.attacker.value == 0 + 1 + 3 + 2 + 8


def test_R10_gm_modifiers_on_the_lead_and_on_a_participant():
    """Edge case 9: a modifier on a line changes that party's cap and adds to the value once."""
    game = new_game()
    x = game.exchange(Action("pin", (act("Kara", "Sorcery", None, G(6, 6, 6, 6), gm=1),
                                     act("Bren", "Strength", None, G(3), gm=-1)), gm_target=20))
    kara, bren = x.attacker.efforts
    assert (kara.cap, bren.cap) == (4, 1)
    assert x.attacker.value == (3 + 24 + 1) + (3 - 1)


def test_R10_joint_action_under_initiative_happens_on_the_last_ones_turn_and_uses_every_action():
    game = new_game()
    init = game.roll_initiative(SAMPLE_INITIATIVE)
    assert init.order == ("Overlord", "Kara", "Goblins", "Bren", "Mook")
    game.exchange(Action("crush", (act("Overlord", "Brutality"),), gm_target=0))
    x = game.exchange(Action("pin", (act("Kara", "Sorcery", None, G(4)), act("Bren", "Strength", None, G(4))),
                             "Overlord"))
    assert x.turn == results.Turn(("Bren",), ("Kara",), ("Goblins",))
    assert game.has_acted("Kara") and game.has_acted("Bren")
    refused(game, lambda: game.exchange(Action("again", (act("Kara"),), gm_target=0)), "E309", "R9")
    refused(game, lambda: game.exchange(Action("again", (act("Bren"),), gm_target=0)), "E309", "R9")


def test_R10_a_joint_side_with_a_traitless_party_under_initiative():
    game = new_game()
    init = game.roll_initiative(SAMPLE_INITIATIVE)
    game.exchange(Action("crush", (act("Overlord", "Brutality"),), gm_target=0))
    x = game.exchange(Action("pin", (act("Kara", "Sorcery", "Ember Staff", G(5, 4)),
                                     act("Mook", None, "Club", G(3))), "Overlord"),
                      [defend("Overlord", "Cunning", "Obsidian Crown", G(4, 4, 2))])
    # Mook comes last in the order: the joint action happens on its turn; Kara acts on a
    # held action; the Goblins' and Bren's turns passed before it
    assert init.order[-1] == "Mook"
    assert x.turn == results.Turn(("Mook",), ("Kara",), ("Goblins", "Bren"))
    assert x.comparisons[0].values == {"Kara & Mook": 3 + 2 + 9 + 1 + 3, "Overlord": 3 + 2 + 10}
    assert game.has_acted("Kara") and game.has_acted("Mook")
    # the Goblins and Bren hold: they may still act this round, on a held action
    y = game.exchange(Action("stab", (act("Goblins", "Numbers"),), gm_target=0))
    assert y.turn == results.Turn((), ("Goblins",), ())


def test_R10_default_loss_falls_on_the_lead_first_then_the_next():
    game = new_game()
    x = game.exchange(Action("shove", (act("Mook", None, "Club", G(2)),
                                       act("Bren", "Strength", "Iron Shield", G(2))), "Overlord"),
                      [defend("Overlord", "Cunning", "Obsidian Crown", G(6, 6, 3))])
    # 1 + 2 + 0 + 2 + 2 = 7 against 3 + 2 + 15 = 20: a loss of 1 + 2 highs
    assert x.comparisons[0].loss == 3
    assert [(l.party, l.amount) for l in x.losses if l.kind == "loss"] == [("Mook", 2), ("Bren", 1)]
    assert q(game, "Mook") == (0, 2) and q(game, "Bren") == (4, 1)
    assert x.defeats == ()            # neither was at 0 before the losses


def _pin_that_loses(game: Game, split=None):
    return game.exchange(Action("pin", (act("Kara", "Sorcery", None, G(2)),
                                        act("Bren", "Strength", "Iron Shield", G(2))), "Overlord"),
                         [defend("Overlord", "Cunning", "Obsidian Crown", G(6, 6, 3))], split=split)


def test_R10_the_winner_splits_the_loss():
    game = new_game()
    x = _pin_that_loses(game, split={"Kara": 1, "Bren": 2})
    # 3 + 2 + 2 + 2 = 9 against 20: a loss of 3
    assert x.comparisons[0].loss == 3
    assert q(game, "Kara") == (5, 1) and q(game, "Bren") == (3, 2)
    other = new_game()
    _pin_that_loses(other)
    assert q(other, "Kara") == (3, 3) and q(other, "Bren") == (5, 0)


def test_R10_a_split_that_does_not_match_the_loss_is_refused():
    game = new_game()
    refused(game, lambda: _pin_that_loses(game, split={"Kara": 1, "Bren": 1}), "E310", "R10",
            "the split (Kara 1, Bren 1) spreads 2, but Kara & Bren lost 3")
    refused(game, lambda: _pin_that_loses(game, split={"Overlord": 3}), "E310", "R10",
            "the split names Overlord, which is not on a losing side")
    refused(game, lambda: _pin_that_loses(game, split={"Kara": 4, "Bren": -1}), "E310", "R10",
            "the split gives Bren a negative share")


def test_R10_costs_fall_on_the_lead_then_the_next_and_cap_after_spending():
    """Edge case 9."""
    game = new_game()
    refused(game, lambda: game.exchange(Action("trip", (act("Mook", None, "Club", G(2)),
                                                       act("Bren", "Strength", None, G(1))), "Overlord",
                                               qualifiers=("a", "b", "c"))),
            "E301", "R3", "Mook may roll at most 0 dice: it has 0 quintessence available after spending 2, not 1")
    x = game.exchange(Action("trip", (act("Mook", None, "Club"), act("Bren", "Strength", None, G(4))), "Overlord",
                             qualifiers=("a", "b", "c")))
    assert [(l.party, l.amount) for l in x.losses if l.kind == "spend"] == [("Mook", 2), ("Bren", 1)]
    assert q(game, "Mook") == (0, 2) and q(game, "Bren") == (4, 1)


def test_R10_a_joint_defence():
    game = new_game()
    x = game.exchange(Action("fireball", (act("Kara", "Sorcery", "Ember Staff", G(6, 5)),), "Overlord"),
                      [Defence((act("Overlord", "Cunning", "Obsidian Crown", G(2)), act("Goblins", "Numbers", "Rusty Spears", G(1))))])
    side = x.defences[0]
    assert side.name == "Overlord & Goblins"
    assert side.value == (3 + 2 + 2) + (1 + 1)
    # Kara 16 wins: 1 + 1 high, lead first: the Overlord pays it all; the Goblins lose their one
    assert q(game, "Overlord") == (5, 2) and q(game, "Goblins") == (3, 1)


# ================================================================ R11 ties

def _door(game: Game, ties=()):
    """The Goblins against the GM's 5: 2 + 1 + 1 + 1 = 5, a tie."""
    return game.exchange(Action("hold the door", (act("Goblins", "Numbers", "Rusty Spears", G(1, 1)),),
                                gm_target=5), ties=ties)


def test_R11_tie_against_a_gm_target_named_GM_or_named_attacker():
    game = new_game()
    x = _door(game, ["GM"])
    c = x.comparisons[0]
    assert (c.tie, c.winner, c.tie_settled_by, c.double) == (True, GM, "vote", False)
    assert q(game, "Goblins") == (2, 2)              # only the ones
    other = new_game()
    y = _door(other, ["Goblins"])
    assert (y.comparisons[0].winner, y.comparisons[0].tie_settled_by) == ("Goblins", "vote")
    assert q(other, "Goblins") == (2, 2)


def test_R11_unsettled_tie_is_an_error_under_vote_in_strict_runs():
    game = new_game()
    error = refused(game, lambda: _door(game), "E311", "R11", "Goblins and GM tie at 5: say who won the vote")
    assert "`tie Goblins` or `tie GM`" in error.expected
    opposed = lambda: game.exchange(Action("blast", (act("Overlord", "Cunning", "Obsidian Crown", G(3, 2)),), "Kara"),
                                    [defend("Kara", "Sorcery", "Ember Staff", G(4, 1))])
    refused(game, opposed, "E311", "R11", "Overlord and Kara tie at 10: say who won the vote")


@pytest.mark.parametrize("policy, winner", [("actor", "Goblins"), ("defender", GM)])
def test_R11_tie_policy_actor_and_defender_against_gm(policy, winner):
    game = new_game(settings=Settings(ties=policy))
    c = _door(game).comparisons[0]
    assert (c.tie, c.winner, c.tie_settled_by, c.double) == (True, winner, policy, False)


@pytest.mark.parametrize("policy, winner", [("actor", "Overlord"), ("defender", "Kara")])
def test_R11_tie_policy_actor_and_defender_opposed(policy, winner):
    game = new_game(settings=Settings(ties=policy))
    x = game.exchange(Action("blast", (act("Overlord", "Cunning", "Obsidian Crown", G(3, 2)),), "Kara"),
                      [defend("Kara", "Sorcery", "Ember Staff", G(4, 1))])
    assert x.comparisons[0].winner == winner and x.comparisons[0].tie


def test_R11_random_policy_is_a_roll_off_with_the_seeded_dice():
    game = new_game(settings=Settings(ties="random"), dice=GivenDice([2, 2, 5, 3]))
    c = _door(game).comparisons[0]
    assert (c.winner, c.tie_settled_by, c.tie_dice) == ("Goblins", "random", ((2, 2), (5, 3)))
    other = new_game(settings=Settings(ties="random"), dice=GivenDice([1, 4]))
    c = _door(other).comparisons[0]
    assert (c.winner, c.tie_settled_by, c.tie_dice) == (GM, "random", ((1, 4),))


def test_R11_vote_lenient_lets_the_seeded_dice_decide():
    game = new_game(dice=GivenDice([6, 2]), lenient=True)
    c = _door(game).comparisons[0]
    assert (c.winner, c.tie_settled_by, c.tie_dice) == ("Goblins", "random", ((6, 2),))
    seeded = [new_game(dice=SeededDice(7), lenient=True) for _ in range(2)]
    assert _door(seeded[0]) == _door(seeded[1])


@pytest.mark.parametrize("policy", TIE_POLICIES)
def test_R11_a_named_tie_beats_the_policy(policy):
    game = new_game(settings=Settings(ties=policy), dice=GivenDice([6, 1]))
    assert _door(game, ["GM"]).comparisons[0].winner == GM
    game.next_round()
    assert _door(game, ["Goblins"]).comparisons[0].winner == "Goblins"


def test_R11_naming_a_tie_that_is_not_there_is_refused():
    game = new_game()
    refused(game, lambda: game.exchange(Action("climb", (act("Kara", "Agility", None, G(5)),), gm_target=3),
                                        ties=["GM"]),
            "E311", "R11", "there is no tie against a GM target to settle here")
    refused(game, lambda: _door(game, ["Kara"]), "E311", "R11", "there is no tie for Kara to win here")
    refused(game, lambda: _door(game, ["GM", "GM"]), "E311", "R11")


def test_R11_several_ties_in_one_exchange():
    """Edge case 8: a defender's tie settles its comparison, the attacker's settles the rest."""
    def fireball(game, ties):
        return game.exchange(Action("fireball", (act("Kara", "Sorcery", "Ember Staff", G(3)),), "Overlord",
                                    extra_targets=("Goblins",)),
                             [defend("Overlord", "Cunning", "Obsidian Crown", G(3)),
                              defend("Goblins", "Numbers", "Rusty Spears", G(5))], ties=ties)
    game = new_game()
    x = fireball(game, ["Goblins", "Kara"])
    assert [(c.values, c.winner, c.tie) for c in x.comparisons] == [
        ({"Kara": 8, "Overlord": 8}, "Kara", True), ({"Kara": 8, "Goblins": 8}, "Goblins", True)]
    # Kara: 1 spent + the Goblins' loss 1 + 0 highs; the Overlord: 1
    assert q(game, "Kara") == (4, 2) and q(game, "Overlord") == (6, 1)
    both = new_game()
    y = fireball(both, ["Kara"])
    assert [c.winner for c in y.comparisons] == ["Kara", "Kara"]
    strict = new_game()
    refused(strict, lambda: fireball(strict, ["Overlord"]), "E311", "R11", "Kara and Goblins tie at 8")


# ================================================================ R12 initiative

SAMPLE_INITIATIVE = [("Kara", None, None, (5,)), ("Bren", None, None, (2,)), ("Overlord", None, None, (6,)),
                     ("Goblins", None, None, (3,)), ("Mook", None, None, (1,))]


def test_R12_given_initiative_orders_highest_first_and_around_again():
    game = new_game()
    init = game.roll_initiative(SAMPLE_INITIATIVE)
    assert init.order == ("Overlord", "Kara", "Goblins", "Bren", "Mook")
    assert all(roll.rolled_by == "table" and roll.dice == () for roll in init.rolls)
    for pid in init.order:
        assert game.exchange(Action("act", (act(pid),), gm_target=-1)).turn.on_turn == (pid,)
    game.next_round()
    for pid in init.order:
        assert game.exchange(Action("act", (act(pid),), gm_target=-1)).turn.on_turn == (pid,)


def test_R12_given_results_are_totals_and_several_numbers_are_re_rolls_of_a_tie():
    game = new_game()
    init = game.roll_initiative([("Kara", None, None, (4, 6, 3)), ("Bren", None, None, (4, 6, 1)),
                                 ("Goblins", None, None, (4, 2)), ("Overlord", None, None, (5,)),
                                 ("Mook", None, None, (1,))])
    assert init.order == ("Overlord", "Kara", "Bren", "Goblins", "Mook")
    kara = next(roll for roll in init.rolls if roll.party == "Kara")
    assert (kara.bonus, kara.results, kara.dice) == (0, (4, 6, 3), ())   # given without `with`: totals


def test_R12_given_numbers_next_to_a_trait_are_dice_and_the_bonus_is_added():
    """`initiative Kara with Agility + Lucky Coin 2 ...`: 2 is Kara's die, her
    result 2 + 1 + 1 = 4, as when the engine rolls; it ties Bren's given 4, and
    both re-roll: Kara's die 5 gives 7, Bren's total 6."""
    game = new_game()
    init = game.roll_initiative([("Kara", "Agility", "Lucky Coin", (2, 5)), ("Bren", None, None, (4, 6)),
                                 ("Goblins", None, None, (3,)), ("Overlord", None, None, (5,)),
                                 ("Mook", None, None, (1,))])
    kara = next(roll for roll in init.rolls if roll.party == "Kara")
    assert (kara.bonus, kara.dice, kara.results, kara.rolled_by) == (2, (2, 5), (4, 7), "table")
    assert init.order == ("Overlord", "Kara", "Bren", "Goblins", "Mook")
    # a die the d6 does not have, next to `with`, is refused (a total of 7 without it is fine)
    error = refused(new_game(), lambda: new_game().roll_initiative(
        [("Kara", "Agility", None, (7,)), *[(p, None, None, (i,)) for i, p in enumerate(EVERYONE[1:], 1)]]),
        "E402")
    assert "Kara's initiative die shows 7" in str(error) and "leave out `with`" in error.hint
    assert new_game().roll_initiative([("Kara", None, None, (7,)), *[(p, None, None, (i,))
                                       for i, p in enumerate(EVERYONE[1:], 1)]]).order[0] == "Kara"


def test_R12_engine_rolls_add_trait_and_treasure():
    game = new_game(dice=GivenDice([3, 2, 1, 6, 3]))
    init = game.roll_initiative([("Kara", "Agility", "Lucky Coin", ()), ("Bren", None, None, ()),
                                 ("Overlord", "Cunning", None, ()), ("Goblins", None, None, ()),
                                 ("Mook", None, None, ())])
    rolls = {roll.party: roll for roll in init.rolls}
    assert (rolls["Kara"].dice, rolls["Kara"].results, rolls["Kara"].bonus) == ((3,), (5,), 2)
    assert rolls["Overlord"].results == (1 + 3,)
    # Kara 3 + 2 = 5, Bren 2, Overlord 1 + 3 = 4, Goblins 6, Mook 3
    assert init.order == ("Goblins", "Kara", "Overlord", "Mook", "Bren")
    assert all(roll.rolled_by == "engine" for roll in init.rolls)


def test_R12_ties_are_re_rolled_with_seeded_dice():
    game = new_game(drama=None, dice=SeededDice(2))
    game.begin_drama("Throne Hall", ["Kara", "Bren", "Overlord", "Goblins"])
    init = game.roll_initiative()
    rolls = {roll.party: roll.results for roll in init.rolls}
    # Kara, Bren and the Overlord tie at 1; Bren and the Overlord tie again at 6, then at 3
    assert rolls == {"Kara": (1, 2), "Bren": (1, 6, 3, 5), "Overlord": (1, 6, 3, 2), "Goblins": (3,)}
    assert init.order == ("Goblins", "Bren", "Overlord", "Kara")
    again = new_game(drama=None, dice=SeededDice(2))
    again.begin_drama("Throne Hall", ["Kara", "Bren", "Overlord", "Goblins"])
    assert again.roll_initiative() == init


def test_R12_a_tie_that_is_not_broken_is_refused():
    game = new_game()
    entries = [("Kara", None, None, (5,)), ("Bren", None, None, (5,)), ("Overlord", None, None, (6,)),
               ("Goblins", None, None, (3,)), ("Mook", None, None, (1,))]
    refused(game, lambda: game.roll_initiative(entries), "E312", "R12", "tie at 5: give their re-rolls")
    entries[0] = ("Kara", None, None, (5, 2, 1))
    refused(game, lambda: game.roll_initiative(entries), "E312", "R12")
    entries[1] = ("Bren", None, None, (5, 4))
    refused(game, lambda: game.roll_initiative(entries), "E312", "R12",
            "Kara gives 3 initiative results but only 2 were needed")


def test_R12_initiative_needs_every_party_and_comes_before_anyone_acts():
    game = new_game()
    refused(game, lambda: game.roll_initiative([("Kara", None, None, (5,))]), "E312", "R12",
            "initiative needs a result for")
    game.exchange(Action("act", (act("Kara"),), gm_target=-1))
    refused(game, lambda: game.roll_initiative(), "E312", "R12",
            "initiative is rolled at the start of a round, before anyone acts")


# ================================================================ R13 rounds and time

def test_R13_time_advances_one_round_per_round_counted_at_next_round_and_end():
    game = new_game(drama=None)
    assert game.time == 0
    begun = game.begin_drama("Throne Hall", list(EVERYONE))
    assert begun.time == 0 and game.round == 1
    game.exchange(Action("act", (act("Kara"),), gm_target=-1))
    assert game.next_round().time == 6 and game.time == 6
    assert game.next_round().time == 12
    ended = game.end_drama("done")
    assert (ended.rounds, ended.time, game.time) == (3, 18, 18)
    assert game.round is None


def test_R13_round_length_from_the_setting():
    game = new_game(settings=Settings(round=Duration(1, "minute")))
    game.hold("Kara")
    game.next_round()
    assert game.time == 60
    game.end_drama()
    assert game.time == 120


def test_R13_point_14_a_situation_gives_its_own_round_length():
    """A debate in rounds of 1 hour, with the setting's round 6 seconds and a
    recovery interval of 2 hours: Kara's rushed recovery in round 1 is at 0 s;
    in round 2 (1 h) the interval has not passed; in round 3 (2 h) it has. The
    situation ends after its last round: 3 h. Calm in rounds is still counted
    in the setting's rounds (10 x 6 s)."""
    game = new_game(drama=None, settings=Settings(recovery=Duration(2, "hour")))
    spend(game, "Kara", 4)
    begun = game.begin_drama("The Hearing", ["Kara", "Bren", "Overlord"], Duration(1, "hour"))
    assert (begun.round_seconds, begun.rounds_of) == (HOUR, "1 hour")
    game.recover("Kara", first=G(4, 3, 2, 1), second=G(5))
    game.next_round()
    assert game.time == HOUR
    refused(game, lambda: game.recover("Kara", first=G(6, 2, 1), second=G(6)), "E314", "R14",
            "Kara recovered 1 h ago and may recover once every 2 hours")
    game.next_round()
    assert game.time == 2 * HOUR
    rec = game.recover("Kara", first=G(6, 2, 1), second=G(6, 5))
    assert rec.returned == 2 and rec.time == 2 * HOUR
    ended = game.end_drama()
    assert ended.time == game.time == 3 * HOUR
    refused(game, lambda: game.recover("Kara", first=G(6, 1)), "E314", "R14", "10 rounds (1 min) of calm")
    game.pass_time("calm", game.settings.seconds(Duration(10, "round")))
    assert game.time == 3 * HOUR + 60
    # the next situation, with no length of its own, has the setting's rounds again
    game.begin_drama("Skirmish", ["Kara", "Bren"])
    game.hold("Bren")
    game.next_round()
    assert game.time == 3 * HOUR + 60 + 6


def test_R13_point_14_a_round_length_must_be_a_length_of_time():
    game = new_game(drama=None)
    for length in (Duration(3, "round"), Duration(0, "hour")):
        refused(game, lambda: game.begin_drama("The Hearing", ["Kara"], length), "E320", "R13")


def test_R13_a_round_before_anyone_acts_is_round_1():
    """`round` before anyone has acted or held in a situation is its first round:
    no time passes (so a loop of rounds may begin each pass with `round`)."""
    game = new_game(drama=None)
    game.begin_drama("Throne Hall", list(EVERYONE))
    game.roll_initiative()
    begun = game.next_round()
    assert (begun.round, begun.time, game.time, game.round) == (1, 0, 0, 1)
    game.exchange(Action("act", (act("Kara"),), gm_target=-1))
    assert game.next_round().round == 2 and game.time == 6
    assert game.next_round().round == 3       # an empty round after round 1 still counts
    assert game.time == 12


def test_R13_a_round_outside_drama_is_refused():
    game = new_game(drama=None)
    refused(game, game.next_round, "E313", "R13", "`round` needs a dramatic situation")
    refused(game, game.end_drama, "E313", "R13")
    refused(game, lambda: game.hold("Kara"), "E313", "R13")


# ================================================================ R14 recovery

def test_R14_recovery_returns_top_faces_and_the_highest_below():
    game = new_game(drama=None)
    spend(game, "Kara", 5)
    rec = game.recover("Kara", first=G(6, 6, 4, 4, 2))
    assert rec.rushed is False and len(rec.checks) == 1
    assert rec.checks[0].returning == 4 and rec.returned == 4
    assert q(game, "Kara") == (5, 1)


def test_R14_rerolls_go_to_the_lowest_dice_below_the_top_face_own_bonus():
    game = new_game(drama=None)
    spend(game, "Kara", 4)
    rec = game.recover("Kara", "Agility", "Lucky Coin", first=G(6, 3, 2, 1, rerolls=(5, 4)))
    check = rec.checks[0]
    assert rec.bonus == 2
    assert (check.rerolled, check.rerolls, check.final) == ((3, 2), (5, 4), (6, 3, 4, 5))
    assert check.returning == 2 and q(game, "Kara") == (4, 2)


def test_R14_helpers_add_their_bonus_and_a_top_face_is_never_re_rolled():
    game = new_game(drama=None)
    spend(game, "Kara", 4)
    rec = game.recover("Kara", None, "Lucky Coin", helpers=[Helping("Bren", "Healing")],
                       first=G(6, 6, 2, 1, rerolls=(6, 3)))
    check = rec.checks[0]
    assert rec.bonus == 1 + 2 and rec.helpers == (("Bren", "Healing", None),)
    assert check.rerolled == (3, 2)                  # only two dice below 6: the bonus of 3 re-rolls two
    assert check.final == (6, 6, 3, 6) and check.returning == 4
    assert q(game, "Kara") == (6, 0)
    assert not game.has_acted("Bren")


def test_R14_point_13_the_party_chooses_which_die_to_re_roll():
    """6 5 5 2 with a bonus of 2 (Agility 1 + Lucky Coin 1). The default re-rolls
    the 2 and the first 5; the party re-rolls only the 2, to a 4: 6 5 5 4, and the
    six and both fives return: 3 back."""
    game = new_game(drama=None)
    spend(game, "Kara", 4)
    rec = game.recover("Kara", "Agility", "Lucky Coin", first=G(6, 5, 5, 2, chosen=(2,), rerolls=(4,)))
    (check,) = rec.checks
    assert rec.bonus == 2 and check.chosen
    assert (check.rerolled, check.rerolls, check.final, check.returning) == ((3,), (4,), (6, 5, 5, 4), 3)
    assert q(game, "Kara") == (2 + 3, 4 - 3)


def test_R14_point_13_a_chosen_re_roll_may_be_a_die_that_would_return():
    """6 5 1 1, bonus 1: re-rolling the 5 to a 6 makes the ones the highest below
    six: 6 6 1 1 returns all four (re-rolling a 1 could return three at most)."""
    game = new_game(drama=None)
    spend(game, "Kara", 4)
    rec = game.recover("Kara", "Agility", first=G(6, 5, 1, 1, chosen=(5,), rerolls=(6,)))
    assert rec.checks[0].final == (6, 6, 1, 1) and rec.returned == 4 and q(game, "Kara") == (6, 0)


def test_R14_point_13_a_recovery_may_decline_its_re_rolls():
    """6 5 5 2, bonus 2, no re-roll: 3 back. The default (the 2 and a 5 re-rolled,
    to 1 and 1) would give 6 1 5 1: 2 back."""
    game = new_game(drama=None)
    spend(game, "Kara", 4)
    rec = game.recover("Kara", "Agility", "Lucky Coin", first=G(6, 5, 5, 2, chosen=()))
    assert (rec.checks[0].rerolled, rec.checks[0].final, rec.returned) == ((), (6, 5, 5, 2), 3)
    other = new_game(drama=None)
    spend(other, "Kara", 4)
    default = other.recover("Kara", "Agility", "Lucky Coin", first=G(6, 5, 5, 2, rerolls=(1, 1)))
    assert (default.checks[0].rerolled, default.returned, default.checks[0].chosen) == ((3, 1), 2, False)
    # with the engine's dice: `rerolling_at_most(0)` re-rolls nothing, `(1)` one die at most
    rolled = new_game(drama=None, dice=GivenDice([3, 2, 1, 4]))
    spend(rolled, "Kara", 3)
    rec = rolled.recover("Kara", "Sorcery", first=Throw.roll().rerolling_at_most(1))
    assert (rec.checks[0].dice, rec.checks[0].rerolled, rec.checks[0].final) == ((3, 2, 1), (2,), (3, 2, 4))
    assert rec.returned == 1 and rec.checks[0].chosen


def test_R14_point_13_chosen_re_rolls_in_both_checks_of_a_rushed_recovery_R15():
    """Agility 1: 6 5 2 1, the 1 re-rolled to 5: 6 5 2 5 would return 3; the
    second check 6 5 5 declines its re-roll: 3 back."""
    game = new_game()
    spend(game, "Kara", 4)
    game.next_round()
    rec = game.recover("Kara", "Agility", first=G(6, 5, 2, 1, chosen=(1,), rerolls=(5,)),
                       second=G(6, 5, 5, chosen=()))
    first, second = rec.checks
    assert (first.final, first.returning, second.rerolled, rec.returned) == ((6, 5, 2, 5), 3, (), 3)
    assert q(game, "Kara") == (5, 1) and game.has_acted("Kara")


def test_R14_point_13_chosen_re_rolls_that_break_the_rules_are_refused():
    game = new_game(drama=None)
    spend(game, "Kara", 4)
    error = refused(game, lambda: game.recover("Kara", "Agility", first=G(6, 5, 5, 2, chosen=(3,), rerolls=(4,))),
                    "E317", "R14", "Kara's recovery re-rolls a die showing 3, but no die of 6 5 5 2 shows 3")
    assert (error.check, error.swap) == (0, 0)
    refused(game, lambda: game.recover("Kara", "Agility", "Lucky Coin",
                                       first=G(6, 5, 5, 2, chosen=(2, 2), rerolls=(4, 4))),
            "E317", "R14", "only 1 die of 6 5 5 2 shows 2, and each die is re-rolled once")
    error = refused(game, lambda: game.recover("Kara", "Agility", first=G(6, 5, 5, 2, chosen=(2, 5),
                                                                          rerolls=(4, 4))),
                    "E318", "R14", "Kara's recovery re-rolls 2 dice, but its bonus of 1 allows at most 1")
    assert error.swap == 1                       # the first re-roll past the bonus
    refused(game, lambda: game.recover("Kara", first=G(6, 5, 5, 2, chosen=(2,), rerolls=(4,))),
            "E318", "R14", "its bonus of 0 allows none")
    refused(game, lambda: game.recover("Kara", "Agility", first=G(6, 5, 5, 2, chosen=(2,), rerolls=(7,))),
            "E402", "R14", "re-rolls the 2 to 7, and a d6 has no face 7")
    refused(game, lambda: game.recover("Kara", "Agility", first=Throw(most=True, chosen=(2,), rerolls=(4,))),
            "E319", "R14")


def test_R14_engine_rolled_recovery_and_rerolls_come_from_the_dice():
    game = new_game(drama=None, dice=GivenDice([2, 5, 1, 6, 6]))
    spend(game, "Bren", 3)
    rec = game.recover("Bren", "Healing")
    check = rec.checks[0]
    # Healing 2: the two lowest dice below 6 (the 1, then the 2) are re-rolled
    assert (check.dice, check.rerolled, check.rerolls, check.final) == ((2, 5, 1), (2, 0), (6, 6), (6, 5, 6))
    assert check.rolled_by == "engine" and rec.returned == 3


def test_R14_given_recovery_dice_must_match_the_pool():
    game = new_game(drama=None)
    spend(game, "Kara", 3)
    refused(game, lambda: game.recover("Kara", first=G(6, 5)), "E401",
            text="Kara's recovery rolls its damage pool of 3, but 2 dice are given")
    refused(game, lambda: game.recover("Kara", first=G(6, 5, 7)), "E402", text="a d6 has no face 7")
    refused(game, lambda: game.recover("Kara", "Agility", first=G(6, 5, 2)), "E401",
            text="a bonus of 1 re-rolls 1 die here, but 0 re-rolls are given")
    refused(game, lambda: game.recover("Kara", "Agility", first=G(6, 5, 2, rerolls=(7,))), "E402",
            text="a d6 has no face 7")
    refused(game, lambda: game.recover("Kara", first=Throw.roll(2)), "E401")
    refused(game, lambda: game.recover("Kara", first=G(6, 6, 6, rerolls=(3,)), trait="Agility"), "E401")


def test_R14_recovery_needs_calm_after_drama():
    game = new_game()
    game.exchange(Action("crush", (act("Overlord", "Brutality", None, G(6, 6)),), "Kara"))
    game.end_drama()
    refused(game, lambda: game.recover("Kara"), "E314", "R14",
            "Kara needs 10 rounds (1 min) of calm after Throne Hall to recover, and only 0 s have passed")
    game.pass_time("calm", 59)
    refused(game, lambda: game.recover("Kara"), "E314", "R14", "only 59 s have passed")
    game.pass_time("calm", 1)
    rec = game.recover("Kara", first=G(6, 6, 1))
    assert rec.returned == 3 and q(game, "Kara") == (6, 0)


def test_R14_calm_is_counted_in_the_settings_rounds():
    settings = Settings(round=Duration(1, "minute"), calm=Duration(10, "round"))
    game = new_game(settings=settings)
    game.end_drama()
    game.pass_time("calm", 599)
    refused(game, lambda: game.recover("Kara"), "E314", "R14")
    game.pass_time("calm", 1)
    game.recover("Kara")


def test_R14_once_per_recovery_interval():
    game = new_game(drama=None)
    spend(game, "Kara", 3)
    game.recover("Kara", first=G(2, 2, 1))
    assert q(game, "Kara") == (5, 1)
    refused(game, lambda: game.recover("Kara"), "E314", "R14",
            "Kara recovered 0 s ago and may recover once every 1 day")
    game.pass_time("calm", DAY - 1)
    refused(game, lambda: game.recover("Kara"), "E314", "R14", "Kara recovered 23 h 59 min 59 s ago")
    game.pass_time("calm", 1)
    assert game.recover("Kara", first=G(3)).returned == 1
    assert q(game, "Kara") == (6, 0)


def test_R14_no_calm_needed_before_the_first_drama_and_an_empty_pool_returns_nothing():
    game = new_game(drama=None)
    rec = game.recover("Kara")
    assert rec.checks[0].dice == () and rec.returned == 0 and rec.checks[0].rolled_by == "none"


def test_R14_a_party_outside_the_running_drama_cannot_recover_during_it():
    game = new_game(drama=("Kara", "Overlord"))
    refused(game, lambda: game.recover("Bren"), "E203", text="Bren is not in the dramatic situation Throne Hall")


# ================================================================ R15 rushed recovery

def _hurt_bren(game: Game):
    game.exchange(Action("crush", (act("Overlord", "Brutality", "Obsidian Crown", G(6, 2)),), "Bren"),
                  [defend("Bren", "Strength", "Iron Shield", G(3, 1))])
    assert q(game, "Bren") == (2, 3)


def test_R15_rushed_recovery_makes_two_checks_and_uses_the_action():
    game = new_game()
    _hurt_bren(game)
    rec = game.recover("Bren", first=G(6, 4, 2), second=G(5, 3))
    assert rec.rushed and [c.returning for c in rec.checks] == [2, 1]
    assert rec.checks[1].dice == (5, 3) and rec.returned == 1
    assert q(game, "Bren") == (3, 2)
    assert game.has_acted("Bren")
    refused(game, lambda: game.exchange(Action("punch", (act("Bren", "Strength"),), gm_target=0)), "E309", "R9")


def test_R15_helpers_spend_their_action_and_the_bonus_serves_both_checks():
    game = new_game()
    _hurt_bren(game)
    rec = game.recover("Bren", "Healing", helpers=[Helping("Kara", "Agility")],
                       first=G(6, 3, 1, rerolls=(4, 2)), second=G(2, 2, rerolls=(5, 1)))
    # bonus 2 + 1 = 3, but each check has only two dice below 6 to re-roll, lowest first:
    # first check 6 3 1 -> the 1 (index 2) becomes 4, the 3 (index 1) becomes 2: 6 2 4, returning 6 and 4;
    # second check 2 2 -> both re-rolled to 5 1: returning the 5
    assert rec.bonus == 3
    first, second = rec.checks
    assert first.rerolled == (2, 1) and first.final == (6, 2, 4) and first.returning == 2
    assert second.rerolled == (0, 1) and second.final == (5, 1) and second.returning == 1
    assert rec.returned == 1 and q(game, "Bren") == (3, 2)
    assert game.has_acted("Bren") and game.has_acted("Kara")
    assert rec.turn == results.Turn(("Bren", "Kara"), (), ())


def test_R15_a_helper_who_already_acted_cannot_help():
    game = new_game()
    _hurt_bren(game)
    game.exchange(Action("fireball", (act("Kara", "Sorcery"),), gm_target=0))
    refused(game, lambda: game.recover("Bren", helpers=[Helping("Kara", "Agility")]), "E309", "R9",
            "Kara already took an aggressive action this round")


def test_R15_rushed_recovery_with_an_empty_damage_pool_returns_nothing():
    game = new_game()
    rec = game.recover("Kara", first=G())
    assert rec.rushed and len(rec.checks) == 2
    assert [c.dice for c in rec.checks] == [(), ()] and rec.returned == 0
    assert game.has_acted("Kara") and q(game, "Kara") == (6, 0)


def test_R15_the_second_check_must_be_given_when_the_first_was():
    game = new_game()
    _hurt_bren(game)
    refused(game, lambda: game.recover("Bren", first=G(6, 4, 2)), "E401",
            text="Bren's rushed recovery makes a second check with 2 dice: give them")
    refused(game, lambda: game.recover("Bren", first=G(6, 4, 2), second=G(5)), "E401")


def test_R15_rushed_recovery_counts_for_the_interval():
    game = new_game()
    _hurt_bren(game)
    game.recover("Bren", first=G(6, 4, 2), second=G(5, 3))       # at time 0
    game.next_round()
    refused(game, lambda: game.recover("Bren"), "E314", "R14", "Bren recovered 6 s ago")
    game.end_drama()
    game.pass_time("calm", HOUR)
    refused(game, lambda: game.recover("Bren"), "E314", "R14", "may recover once every 1 day")
    game.pass_time("calm", DAY - HOUR - 12)
    assert game.recover("Bren", first=G(6, 6)).returned == 2


def test_R15_no_second_check_outside_drama():
    game = new_game(drama=None)
    spend(game, "Kara", 2)
    refused(game, lambda: game.recover("Kara", first=G(6, 6), second=G(6, 6)), "E305",
            text="only a rushed recovery inside drama has a second check")


# ================================================================ R16 rest

def test_R16_full_rest_restores_everyone_without_rolls():
    game = new_game()
    game.exchange(Action("crush", (act("Overlord", "Brutality", None, G(6, 1)),), "Kara"))
    game.end_drama()
    assert q(game, "Kara") == (4, 2) and q(game, "Overlord") == (6, 1)
    rested = game.pass_time("rest", 2 * DAY)
    assert rested.restored == ("Kara", "Overlord")
    assert rested.parties == {"Kara": PartyState(6, 0), "Overlord": PartyState(7, 0)}
    assert rested.time == 6 + 2 * DAY


def test_R16_a_shorter_rest_restores_nothing_but_is_calm_time():
    game = new_game()
    game.exchange(Action("crush", (act("Overlord", "Brutality", None, G(6, 1)),), "Kara"))
    game.end_drama()
    rested = game.pass_time("rest", 2 * DAY - 1)
    assert rested.restored == () and q(game, "Kara") == (4, 2)
    assert game.recover("Kara", first=G(6, 5)).returned == 2     # the rest counted as calm


def test_R16_full_rest_length_from_the_setting():
    game = new_game(drama=None, settings=Settings(full_rest=Duration(8, "hour")))
    spend(game, "Bren", 4)
    assert game.pass_time("rest", 8 * HOUR).restored == ("Bren",)
    assert q(game, "Bren") == (5, 0)


def test_R16_no_rest_or_calm_inside_drama():
    game = new_game()
    refused(game, lambda: game.pass_time("rest", 2 * DAY), "E316", "R16",
            "there is no rest during the dramatic situation Throne Hall")
    refused(game, lambda: game.pass_time("calm", HOUR), "E316",
            text="there is no calm during the dramatic situation Throne Hall")


def _hurt_kara_and_end(game: Game):
    game.exchange(Action("crush", (act("Overlord", "Brutality", None, G(6, 1)),), "Kara"))
    game.end_drama()
    assert q(game, "Kara") == (4, 2) and q(game, "Overlord") == (6, 1)


def test_R16_point_12_two_short_rests_add_up_to_a_full_rest():
    game = new_game()
    _hurt_kara_and_end(game)
    first = game.pass_time("rest", DAY)
    assert (first.restored, first.rested, first.full_rest) == ((), DAY, False)
    assert q(game, "Kara") == (4, 2)
    second = game.pass_time("rest", DAY)                       # 1 day + 1 day = full_rest
    assert (second.restored, second.rested, second.full_rest) == (("Kara", "Overlord"), 2 * DAY, True)
    assert q(game, "Kara") == (6, 0) and q(game, "Overlord") == (7, 0)
    # the count starts again after a full restore
    game.begin_drama("Cellar", ["Kara", "Bren"])
    game.exchange(Action("shove", (act("Bren", "Strength", None, G(1)),), gm_target=-1))
    game.end_drama()
    third = game.pass_time("rest", DAY)
    assert (third.rested, third.full_rest) == (DAY, False) and q(game, "Bren") == (4, 1)
    fourth = game.pass_time("rest", DAY + HOUR)
    assert (fourth.rested, fourth.full_rest, fourth.restored) == (2 * DAY + HOUR, True, ("Bren",))
    assert game.pass_time("rest", DAY).rested == DAY           # nothing carried over past the restore


def test_R16_point_12_a_drama_between_two_rests_resets_the_count():
    game = new_game()
    _hurt_kara_and_end(game)
    assert game.pass_time("rest", DAY).rested == DAY
    game.begin_drama("Ambush", ["Kara", "Goblins"])
    game.end_drama()
    after = game.pass_time("rest", DAY)
    assert (after.rested, after.full_rest, after.restored) == (DAY, False, ())
    assert q(game, "Kara") == (4, 2)
    done = game.pass_time("rest", DAY)
    assert (done.rested, done.full_rest, done.restored) == (2 * DAY, True, ("Kara", "Overlord"))


def test_R16_point_12_calm_does_not_count_as_rest():
    game = new_game()
    _hurt_kara_and_end(game)
    assert game.pass_time("rest", DAY).rested == DAY
    calm = game.pass_time("calm", 3 * DAY)
    assert (calm.rested, calm.full_rest, calm.restored) == (DAY, False, ())   # not added, not reset
    assert q(game, "Kara") == (4, 2)
    rest = game.pass_time("rest", DAY - 1)
    assert (rest.rested, rest.full_rest) == (2 * DAY - 1, False) and q(game, "Kara") == (4, 2)
    assert game.pass_time("rest", 1).full_rest and q(game, "Kara") == (6, 0)


# ================================================================ R17 parties

def test_R17_a_group_is_one_party_with_members():
    game = new_game()
    goblins = game.sheets["Goblins"]
    assert goblins.members == ("Snik", "Grub", "Mox")
    assert not game.sheets["Kara"].members
    # the group acts once a round, with the group's trait, and loses from one pool
    x = game.exchange(Action("stab", (act("Goblins", "Numbers", "Rusty Spears", G(6, 1)),), "Kara"),
                      [defend("Kara", "Agility", None, G(2))])
    assert x.attacker.name == "Goblins" and x.attacker.value == 2 + 1 + 7
    assert q(game, "Goblins") == (3, 1)
    refused(game, lambda: game.exchange(Action("stab", (act("Goblins", "Numbers"),), "Bren")), "E309", "R9")
    y = game.exchange(Action("fireball", (act("Kara", "Sorcery", None, G(6, 6)),), "Goblins"))
    assert q(game, "Goblins") == (0, 4)
    assert y.parties["Goblins"] == PartyState(0, 4, False)


def test_R17_party_sheets_are_frozen():
    sheet = cast()[0]
    with pytest.raises(TypeError):
        sheet.traits["Sorcery"] = 9          # a read-only mapping
    with pytest.raises(Exception):
        sheet.quintessence = 9


# ================================================================ outside drama


def test_R8_reroll_outside_drama_does_not_count_losses_from_before_a_full_rest():
    game = new_game(drama=None)
    game.exchange(Action("spar", (act("Kara", "Agility", None, G(1)),), "Bren"),
                  [defend("Bren", "Strength", None, G(6, 6))])
    assert q(game, "Kara") == (2, 4)                 # one 1 + a loss of 1 + 2 highs
    game.pass_time("rest", 2 * DAY)
    assert q(game, "Kara") == (6, 0)
    x = game.exchange(Action("fireball", (act("Kara", "Sorcery", None, G(5)),), "Mook", qualifiers=("quietly",)))
    assert x.comparisons[0].double and q(game, "Kara") == (5, 1)
    # nothing was lost since the rest (the 1 in the pool was spent): the reroll rolls no dice
    taken = game.take_option("Kara", "reroll", G())
    assert (taken.lost, taken.returned) == (0, 0)
    assert q(game, "Kara") == (5, 1)
