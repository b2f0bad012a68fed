"""The duel (`dsl.engine.duel`), the fast path of `drama simulate`, against `Game.exchange`.

The same seeded dice go through both, on random tables (R2-R9: traits,
treasures, GM modifiers, caps, every kind of throw, ties of every policy,
ones, losses, defeats, double wins, turns): when the duel takes the exchange,
every outcome must be what `Game.exchange` gives, the defeats and the whole
table after it (each party's quintessence, damage pool, losses this round,
defeat, action; the situation's turns and holds; the open options; the
dice left in the source). When it does not take the exchange, it must have
changed nothing.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from dsl.durations import Duration
from dsl.engine import Action, Defence, Game, Part, PartySheet, SeededDice, Settings, Throw
from dsl.engine.duel import duel
from dsl.errors import DramaError

TRAITS = ("Might", "Wit")
TREASURES = ("Blade", "Charm")


@st.composite
def tables(draw):
    """(a recipe that builds the same game each time it is called, the party ids)."""
    count = draw(st.integers(2, 4))
    sheets = []
    for i in range(count):
        traits = draw(st.dictionaries(st.sampled_from(TRAITS), st.integers(0, 4), max_size=2))
        treasures = draw(st.dictionaries(st.sampled_from(TREASURES), st.integers(0, 3), max_size=2))
        sheets.append(PartySheet(f"P{i}", f"party {i}", draw(st.integers(0, 8)), traits, treasures))
    sides = draw(st.sampled_from([6, 6, 8]))
    rules = Settings(sides=sides, high=draw(st.integers(sides - 1, sides)),
                     ties=draw(st.sampled_from(["actor", "defender", "random", "vote"])),
                     round=Duration(6, "second"))
    lenient = draw(st.booleans())
    seed = draw(st.integers(0, 2 ** 32))
    ids = [sheet.id for sheet in sheets]
    # mostly every party in the situation, sometimes some, rarely none
    in_drama = draw(st.one_of(st.just(ids), st.just(ids),
                              st.lists(st.sampled_from(ids), unique=True, min_size=0, max_size=count)))
    initiative = draw(st.booleans())
    rarely = st.sampled_from([False] * 5 + [True])
    states = [(draw(st.integers(0, 8)), draw(rarely), draw(rarely), draw(st.integers(0, 3)))
              for _ in sheets]
    pointer = draw(st.integers(0, count))
    held = draw(st.lists(st.sampled_from(ids), unique=True, max_size=2))

    def build() -> Game:
        game = Game(sheets, rules, SeededDice(seed), lenient=lenient)
        if in_drama:
            game.begin_drama("Fight", in_drama)
            if initiative:
                game.roll_initiative()
                game.drama.pointer = min(pointer, len(in_drama))
                game.drama.held = {pid for pid in held if pid in in_drama}
        for sheet, (damage, defeated, acted, lost) in zip(sheets, states):
            party = game.parties[sheet.id]
            party.lose(damage)
            party.defeated, party.acted = defeated, acted
            party.lost_this_round = min(lost, party.damage)
        return game

    return build, {sheet.id: sheet for sheet in sheets}


@st.composite
def parts(draw, sheets, other=None):
    """A part of one of the parties (mostly not `other`), mostly with its own
    trait and treasure and rolled dice."""
    ids = [pid for pid in sheets if pid != other] if draw(st.integers(0, 9)) else list(sheets)
    party = draw(st.sampled_from(ids))
    sheet = sheets[party]
    trait = draw(st.sampled_from((None, *sheet.traits, *sheet.traits, *sheet.traits, "Wit")))
    treasure = draw(st.sampled_from((None, *sheet.treasures, *sheet.treasures, "Charm")))
    kind = draw(st.sampled_from(["roll"] * 4 + ["roll n", "at most", "at most", "none", "given"]))
    n = draw(st.integers(0, 4))
    throw = {"roll": Throw.roll(), "roll n": Throw.roll(n), "at most": Throw.at_most(n),
             "none": Throw.none(), "given": Throw.given(*[1 + i for i in range(n)])}[kind]
    return Part(party, trait, treasure, throw, draw(st.integers(-2, 2)))


def table_state(game: Game) -> tuple:
    """Everything an exchange may change."""
    drama = game.drama
    return (
        {pid: (p.available, p.damage, p.defeated, p.acted, p.lost_this_round, p.last_recovery)
         for pid, p in game.parties.items()},
        None if drama is None else (drama.round, drama.order, drama.pointer, frozenset(drama.held),
                                    drama.acted_any),
        [(o.comparison, o.parties) for o in game.options],
        game.time,
        game.dice._random.getstate(),
    )


@settings(max_examples=600, deadline=None)
@given(st.data())
def test_a_duel_is_the_engine_exchange_with_the_same_dice(data):
    build, sheets = data.draw(tables())
    attack = data.draw(parts(sheets))
    defence = data.draw(parts(sheets, attack.party))
    fast, slow = build(), build()
    before = table_state(fast)
    defeats = duel(fast, attack, defence)
    try:
        result = slow.exchange(Action("strike", (attack,), defence.party), (Defence((defence,)),))
    except DramaError:
        result = None
    if defeats is None:
        assert table_state(fast) == before          # nothing changed, not a die drawn
        return
    assert result is not None, "the duel took an exchange the engine refuses"
    assert defeats == result.defeats
    assert table_state(fast) == table_state(slow)


def test_the_duel_takes_the_usual_exchange():
    """R2-R9 in the usual case of a simulation: both parties roll what they may."""
    sheets = [PartySheet("Ash", "Ash", 9, {"Blades": 2}, {"Longsword": 1}),
              PartySheet("Chief", "Chief", 9, {"Cunning": 1}, {"Helm": 1})]
    taken = 0
    for seed in range(50):
        game = Game(sheets, Settings(ties="random"), SeededDice(seed), lenient=True)
        game.begin_drama("Ford", ["Ash", "Chief"])
        game.roll_initiative()
        other = Game(sheets, Settings(ties="random"), SeededDice(seed), lenient=True)
        other.begin_drama("Ford", ["Ash", "Chief"])
        other.roll_initiative()
        attack = Part("Ash", "Blades", "Longsword", Throw.roll())
        guard = Part("Chief", "Cunning", "Helm", Throw.roll())
        defeats = duel(game, attack, guard)
        assert defeats is not None
        taken += 1
        result = other.exchange(Action("strike", (attack,), "Chief"), (Defence((guard,)),))
        assert defeats == result.defeats
        assert table_state(game) == table_state(other)
    assert taken == 50
