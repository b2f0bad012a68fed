"""The emberfall sample (shared/samples/emberfall/throne-hall.drama) replayed through
the engine API, step by step, against the hand-checked numbers of its expected.json.

The cast, the steps and the expected numbers are written out here: the test does not
read the shared sample files.
"""

from __future__ import annotations

import pytest

from dsl.durations import Duration
from dsl.engine import GM, Action, Defence, Game, Move, Part, PartySheet, PartyState, Settings, Throw, results

G = Throw.given

SETTING = Settings(name="Sword and Sorcery", round=Duration(6, "second"), recovery=Duration(1, "day"),
                   calm=Duration(10, "round"), full_rest=Duration(2, "day"), sides=6, high=6, ties="vote")

CAST = [
    PartySheet("Kara", "Kara the Ember-Witch", 6, {"Sorcery": 3, "Agility": 1},
               {"Ember Staff": 2, "Lucky Coin": 1}, moves={"fireball": Move("Sorcery", "Ember Staff")}),
    PartySheet("Bren", "Bren Ironhand", 5, {"Strength": 2, "Healing": 2}, {"Iron Shield": 2, "Rope": 1}),
    PartySheet("Overlord", "Overlord Bastrastras", 7, {"Cunning": 3, "Brutality": 2}, {"Obsidian Crown": 2}),
    PartySheet("Goblins", "the goblin warband", 4, {"Numbers": 2}, {"Rusty Spears": 1},
               members=("Snik", "Grub", "Mox")),
]

# expected.json, copied: one entry per comparison
EXPECTED_EXCHANGES = [
    {"line": 9, "attacker": "Overlord", "defender": "Bren", "values": {"Overlord": 12, "Bren": 8}, "winner": "Overlord", "double": False, "tie": False},
    {"line": 12, "attacker": "Kara", "defender": "Overlord", "values": {"Kara": 21, "Overlord": 11}, "winner": "Kara", "double": False, "tie": False},
    {"line": 12, "attacker": "Kara", "defender": "Goblins", "values": {"Kara": 21, "Goblins": 5}, "winner": "Kara", "double": True, "tie": False},
    {"line": 17, "attacker": "Goblins", "defender": "Kara", "values": {"Goblins": 4, "Kara": 2}, "winner": "Goblins", "double": True, "tie": False},
    {"line": 24, "attacker": "Overlord", "defender": "Kara", "values": {"Overlord": 10, "Kara": 10}, "winner": "Kara", "double": False, "tie": True},
    {"line": 29, "attacker": "Goblins", "defender": "GM", "target": 5, "values": {"Goblins": 5}, "winner": "GM", "double": False, "tie": True},
    {"line": 32, "attacker": "Kara & Bren", "defender": "Overlord", "values": {"Kara & Bren": 20, "Overlord": 14}, "winner": "Kara & Bren", "double": False, "tie": False},
    {"line": 38, "attacker": "Overlord", "defender": "Kara", "values": {"Overlord": 4, "Kara": 3}, "winner": "Overlord", "double": False, "tie": False},
    {"line": 41, "attacker": "Kara", "defender": "Overlord", "values": {"Kara": 8, "Overlord": 3}, "winner": "Kara", "double": True, "tie": False},
]

EXPECTED_AFTER_LINE = {
    10: {"Bren": (2, 3), "Overlord": (7, 0)},
    14: {"Kara": (4, 2), "Overlord": (3, 4), "Goblins": (1, 3)},
    19: {"Kara": (3, 3), "Goblins": (3, 1)},
    21: {"Bren": (3, 2)},
    26: {"Kara": (2, 4), "Overlord": (2, 5)},
    30: {"Goblins": (1, 3)},
    35: {"Kara": (2, 4), "Bren": (3, 2), "Overlord": (0, 7), "Goblins": (1, 3)},
    39: {"Kara": (1, 5)},
    43: {"Kara": (2, 4), "Overlord": (0, 7)},
    48: {"Kara": (4, 2)},
}

EXPECTED_DEFEATED = [{"party": "Overlord", "line": 41, "drama": "Throne Hall"}]

EXPECTED_FINAL = {
    "Kara": {"quintessence": 4, "damage_pool": 2},
    "Bren": {"quintessence": 3, "damage_pool": 2},
    "Overlord": {"quintessence": 0, "damage_pool": 7},
    "Goblins": {"quintessence": 1, "damage_pool": 3},
}


def one(party, trait=None, treasure=None, throw=Throw.none()) -> tuple[Part, ...]:
    return (Part(party, trait, treasure, throw),)


class Replay:
    """The script, one step per statement, recording each exchange's comparisons
    (with the line of its action), each defeat, and the state after each line."""

    def __init__(self):
        self.game = Game(CAST, SETTING)
        self.comparisons: list[tuple[int, results.Comparison]] = []
        self.exchanges: dict[int, results.Exchange] = {}
        self.defeats: list[dict] = []
        self.after: dict[int, dict[str, tuple[int, int]]] = {}
        self.steps: dict[int, object] = {}

    def at(self, line: int, result):
        self.steps[line] = result
        if isinstance(result, results.Exchange):
            self.exchanges[line] = result
            self.comparisons += [(line, c) for c in result.comparisons]
            self.defeats += [{"party": p, "line": line, "drama": result.drama} for p in result.defeats]
        self.after[line] = {pid: (s.quintessence, s.damage_pool) for pid, s in self.game.states().items()}
        return result

    def run(self) -> "Replay":
        g, at = self.game, self.at
        at(5, g.begin_drama("Throne Hall", ["Kara", "Bren", "Overlord", "Goblins"]))
        at(6, g.roll_initiative([("Kara", None, None, (5,)), ("Bren", None, None, (2,)),
                                 ("Overlord", None, None, (6,)), ("Goblins", None, None, (3,))]))
        # round 1: Overlord, Kara, Goblins, Bren
        at(10, g.exchange(Action("crush", one("Overlord", "Brutality", "Obsidian Crown", G(6, 2)), "Bren"),
                          [Defence(one("Bren", "Strength", "Iron Shield", G(3, 1)))]))
        at(14, g.exchange(Action("fireball", one("Kara", "Sorcery", "Ember Staff", G(6, 6, 4)), "Overlord",
                                 qualifiers=("tapestries",), extra_targets=("Goblins",)),
                          [Defence(one("Overlord", "Cunning", "Obsidian Crown", G(5, 1))),
                           Defence(one("Goblins", "Numbers", "Rusty Spears", G(2)))]))
        at(15, g.take_option("Kara", "dictate", text="the goblins scatter into the kitchens"))
        at(18, g.exchange(Action("stab", one("Goblins", "Numbers", "Rusty Spears", G(1)), "Kara"),
                          [Defence(one("Kara", "Agility", "Lucky Coin"))]))
        at(19, g.take_option("Goblins", "reroll", G(3, 1, 5, 2)))
        at(21, g.recover("Bren", first=G(6, 4, 2), second=G(5, 3)))
        at(23, g.next_round())
        at(26, g.exchange(Action("blast", one("Overlord", "Cunning", "Obsidian Crown", G(3, 2)), "Kara"),
                          [Defence(one("Kara", "Sorcery", "Ember Staff", G(4, 1)))], ties=["Kara"]))
        at(30, g.exchange(Action("hold the door", one("Goblins", "Numbers", "Rusty Spears", G(1, 1)),
                                 gm_target=5), ties=[GM]))
        at(35, g.exchange(Action("pin the Overlord to his throne",
                                 (Part("Kara", "Sorcery", "Lucky Coin", G(6, 5)),
                                  Part("Bren", "Strength", "Iron Shield", G(3))), "Overlord"),
                          [Defence(one("Overlord", "Brutality", None, G(6, 6)))]))
        at(37, g.next_round())
        at(39, g.exchange(Action("roar", one("Overlord", "Brutality", "Obsidian Crown"), "Kara"),
                          [Defence(one("Kara", "Agility", None, G(2)))]))
        fireball = CAST[0].moves["fireball"]          # `Kara fireball` with no `with`: the move's default
        at(42, g.exchange(Action("fireball", one("Kara", fireball.trait, fireball.treasure, G(3)), "Overlord"),
                          [Defence(one("Overlord", "Cunning"))]))
        at(43, g.take_option("Kara", "reroll", G(6)))
        at(45, g.end_drama("The Overlord falls; the goblins throw down their spears."))
        at(47, g.pass_time("calm", 3600))
        at(48, g.recover("Kara", first=G(4, 4, 2, 1)))
        return self


@pytest.fixture(scope="module")
def replay() -> Replay:
    return Replay().run()


def test_sample_initiative_order(replay):
    assert replay.steps[6].order == ("Overlord", "Kara", "Goblins", "Bren")


def test_sample_every_comparison(replay):
    got = []
    for line, c in replay.comparisons:
        entry = {"line": line, "attacker": c.attacker, "defender": c.defender, "values": dict(c.values),
                 "winner": c.winner, "double": c.double, "tie": c.tie}
        if c.target is not None:
            entry["target"] = c.target
        got.append(entry)
    # the script's action lines (9, 12, 17, ...) are where the exchanges start; the replay
    # records them at the line where the last defence or tie is resolved
    starts = {10: 9, 14: 12, 18: 17, 26: 24, 30: 29, 35: 32, 39: 38, 42: 41}
    for entry in got:
        entry["line"] = starts[entry["line"]]
    assert got == EXPECTED_EXCHANGES


@pytest.mark.parametrize("line", sorted(EXPECTED_AFTER_LINE))
def test_sample_after_line(replay, line):
    for party, pair in EXPECTED_AFTER_LINE[line].items():
        assert replay.after[line][party] == pair, (line, party)


def test_sample_defeat(replay):
    assert [dict(d, line={42: 41}.get(d["line"], d["line"])) for d in replay.defeats] == EXPECTED_DEFEATED
    # the Overlord was at 0 before the exchange of line 41 and lost it (R7); at line 38 it
    # was already at 0 but won, so no defeat there
    assert replay.exchanges[39].defeats == () and replay.exchanges[39].comparisons[0].winner == "Overlord"
    assert replay.exchanges[42].parties["Overlord"] == PartyState(0, 7, True)


def test_sample_final_states(replay):
    final = {pid: {"quintessence": s.quintessence, "damage_pool": s.damage_pool}
             for pid, s in replay.game.states().items()}
    assert final == EXPECTED_FINAL
    assert all(not s.defeated for s in replay.game.states().values())


def test_sample_details_of_each_step(replay):
    """The intermediate numbers behind expected.json, worked out by hand."""
    s = replay.steps
    # line 12: 1 spent on the qualifier + 1 on the extra target, Kara's two 6s make the losses
    fireball = s[14]
    assert [(l.party, l.kind, l.amount) for l in fireball.losses] == [
        ("Kara", "spend", 2), ("Overlord", "ones", 1), ("Overlord", "loss", 3), ("Goblins", "loss", 3)]
    assert fireball.options == (results.Option(1, ("Kara",)),)
    assert s[15].kind == "dictate" and s[15].text == "the goblins scatter into the kitchens"
    # line 17: the Goblins roll a 1 and win double; they reroll the 4 they lost this round
    assert replay.after[18]["Goblins"] == (0, 4) and replay.after[18]["Kara"] == (3, 3)
    assert (s[19].lost, s[19].dice, s[19].returned) == (4, (3, 1, 5, 2), 3)
    # line 21: a rushed recovery, two checks (6 4 2 -> 2 return, then 5 3 -> 1)
    assert s[21].rushed and [c.returning for c in s[21].checks] == [2, 1] and s[21].returned == 1
    assert s[23].round == 2 and s[23].time == 6 and s[23].unused == ()
    # line 24: the tie goes to Kara by vote, no double
    assert s[26].comparisons[0].tie_settled_by == "vote"
    # line 29: Kara lets her turn pass; line 32: Kara & Bren act on Bren's turn, Kara on her held action
    assert s[30].turn == results.Turn(("Goblins",), (), ("Kara",))
    assert s[35].turn == results.Turn(("Bren",), ("Kara",), ())
    assert s[35].attacker.value == 20 and [e.trait_counts for e in s[35].attacker.efforts] == [True, False]
    assert s[37].round == 3 and s[37].time == 12
    # line 41: Kara rerolls the 1 she lost this round (line 38) and it comes back
    assert (s[43].lost, s[43].returned) == (1, 1)
    assert s[45].rounds == 3 and s[45].time == 18
    assert s[47].time == 18 + 3600
    assert s[48].rushed is False and s[48].returned == 2
