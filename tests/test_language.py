"""End to end: every canonical form of the scenario language (LANGUAGE.md), run
through `drama run --format json` in small scenarios with the Emberfall cast,
and the whole Emberfall play log.

The rule each test exercises is named in its name or docstring (R5, R8, ...).
Lines of the scripts below are the canonical lines exactly as LANGUAGE.md
writes them, trailing comments included, wherever the form appears there.
"""

from __future__ import annotations

import pytest

from conftest import (EMBERFALL_CAST, EMBERFALL_SETTING, copy_emberfall, dice_of, drama, efforts, exchanges,
                      final_states, make_scenario, of_type, qd, run_events, scenario_yaml, states_after, write)


def play(folder, script: str, *args: str, **kwargs) -> list[dict]:
    """Run `script` with the Emberfall setting and cast; its events."""
    return run_events(make_scenario(folder, script, **kwargs), *args)


def only(events: list[dict], kind: str) -> dict:
    found = of_type(events, kind)
    assert len(found) == 1, found
    return found[0]


DRAMA4 = 'drama "Throne Hall" with Kara, Bren, Overlord, Goblins   # a dramatic situation begins\n'


# ---------------------------------------------------------------------------
# the event log itself

def test_start_event_has_every_party_state(tmp_path):
    events = play(tmp_path, "# nothing happens\n")
    start = events[0]
    assert start["type"] == "start" and start["line"] is None
    assert {pid: qd(s) for pid, s in start["parties"].items()} == {
        "Kara": (6, 0), "Bren": (5, 0), "Overlord": (7, 0), "Goblins": (4, 0)}
    assert start["title"] == "Test"
    assert start["cast"]["Goblins"]["members"] == ["Snik", "Grub", "Mox"]
    assert events[-1] == {"type": "final", "line": None, "time": 0, "parties": start["parties"]}
    assert len(events) == 2


# ---------------------------------------------------------------------------
# scene, narration, drama

def test_scene_and_narration(tmp_path):
    events = play(tmp_path,
                  'scene "The Throne Hall of Emberfall"          # a heading in the transcript\n'
                  '> Torches gutter as the heroes kick open the doors.   # narration, passed through\n'
                  "scene The Far Bank\n")
    assert of_type(events, "scene") == [
        {"type": "scene", "line": 1, "title": "The Throne Hall of Emberfall"},
        {"type": "scene", "line": 3, "title": "The Far Bank"}]
    assert only(events, "narration") == {
        "type": "narration", "line": 2, "text": "Torches gutter as the heroes kick open the doors."}


def test_drama_with_begins_and_end_drama_ends_R13(tmp_path):
    """`drama NAME with ...` and `end drama TEXT`; the last round counts in time (R13)."""
    events = play(tmp_path, DRAMA4 + "Kara holds\n"
                  "round                                         # the next round begins (R13)\n"
                  'end drama "The Overlord falls."               # the dramatic situation ends\n')
    begun = only(events, "drama")
    assert begun["line"] == 1 and begun["drama"] == "Throne Hall"
    assert begun["party_ids"] == ["Kara", "Bren", "Overlord", "Goblins"]
    ended = only(events, "drama_end")
    assert ended["line"] == 4 and ended["drama"] == "Throne Hall"
    assert ended["text"] == "The Overlord falls." and ended["rounds"] == 2
    assert ended["time"] == 12


def test_end_drama_without_text(tmp_path):
    events = play(tmp_path, 'drama "Skirmish" with Kara, Bren\nend drama\n')
    assert only(events, "drama_end")["text"] is None


# ---------------------------------------------------------------------------
# initiative (R12) and rounds (R13)

def test_initiative_rolled_by_everyone_R12(tmp_path):
    """`initiative` alone: each party rolls one die; highest first; the parties
    tied at a result re-roll among themselves until each has a place."""
    path = make_scenario(tmp_path, DRAMA4 + "initiative                                    # everyone rolls (R12)\n")
    ties = 0
    for seed in range(12):
        event = only(run_events(path, "--seed", str(seed)), "initiative")
        assert event["line"] == 2
        rolls = {x["party"]: x for x in event["rolls"]}
        assert set(rolls) == {"Kara", "Bren", "Overlord", "Goblins"}
        for roll in rolls.values():
            assert roll["rolled_by"] == "engine"
            assert roll["results"] == roll["dice"]       # no trait or treasure: the die alone
            assert all(1 <= d <= 6 for d in roll["dice"])
        order = event["order"]
        keys = [rolls[pid]["results"] for pid in order]
        assert sorted(order) == sorted(rolls) and keys == sorted(keys, reverse=True)
        assert len(set(map(tuple, keys))) == 4               # every party has its own place
        for a in rolls.values():                             # a re-roll only after a tie
            for b in rolls.values():
                if a is not b and len(a["results"]) > 1:
                    ties += a["results"][:1] == b["results"][:1]
            for depth in range(1, len(a["results"])):
                assert any(b is not a and b["results"][:depth] == a["results"][:depth] for b in rolls.values())
    assert ties                                              # some seed gave a tie to re-roll


def test_initiative_given_R12(tmp_path):
    events = play(tmp_path, DRAMA4 + "initiative Kara 5, Bren 2, Overlord 6, Goblins 3   "
                                     "# or: the results, as rolled at the table\n")
    event = only(events, "initiative")
    assert event["order"] == ["Overlord", "Kara", "Goblins", "Bren"]
    assert {x["party"]: x["results"] for x in event["rolls"]} == {
        "Kara": [5], "Bren": [2], "Overlord": [6], "Goblins": [3]}
    assert {x["rolled_by"] for x in event["rolls"]} == {"table"}


def test_initiative_given_with_tie_rerolls_R12(tmp_path):
    """Kara and Bren tie at 5; their re-rolls (4 and 2) follow their results."""
    events = play(tmp_path, DRAMA4 + "initiative Kara 5 4, Bren 5 2, Overlord 6, Goblins 3\n")
    event = only(events, "initiative")
    assert event["order"] == ["Overlord", "Kara", "Bren", "Goblins"]
    assert {x["party"]: x["results"] for x in event["rolls"]}["Kara"] == [5, 4]


def test_initiative_with_a_trait_and_a_given_number_adds_the_bonus_to_the_die_R12(tmp_path):
    """`Kara with Agility + Lucky Coin 3`: the 3 is Kara's die; her result is 3 + 1 + 1 = 5,
    and the event says so (dice [3], bonus 2, results [5]). Bren's 4 has no `with`: a total."""
    events = play(tmp_path, DRAMA4 + "initiative Kara with Agility + Lucky Coin 3, Bren 4, Overlord 6, Goblins 1\n")
    rolls = {x["party"]: x for x in only(events, "initiative")["rolls"]}
    assert (rolls["Kara"]["dice"], rolls["Kara"]["bonus"], rolls["Kara"]["results"]) == ([3], 2, [5])
    assert (rolls["Bren"]["dice"], rolls["Bren"]["results"]) == ([], [4])
    assert only(events, "initiative")["order"] == ["Overlord", "Kara", "Bren", "Goblins"]
    path = make_scenario(tmp_path, DRAMA4 + "initiative Kara with Agility 9, Bren 4, Overlord 6, Goblins 1\n")
    outcome = drama("run", path)
    assert outcome.code == 1
    assert "script.drama:2:1: error[E402]: Kara's initiative die shows 9, and a d6 has no face 9" in outcome.stderr
    assert "leave out `with` (`Kara 9`)" in outcome.stderr


def test_initiative_order_decides_who_acts_on_their_turn_R9_R12(tmp_path):
    events = play(tmp_path, DRAMA4 + "initiative Kara 5, Bren 2, Overlord 6, Goblins 3\n"
                                     "Bren bash -> Goblins with Strength\n")
    action = only(events, "action")
    assert action["turn"] == {"on_turn": ["Bren"], "held": [], "passed": ["Overlord", "Kara", "Goblins"]}


HEARING = 'drama "The Hearing" with Kara, Bren, Overlord, rounds of 1 hour\n'


def test_a_debate_in_rounds_of_1_hour_lets_a_2_hour_recovery_interval_pass_R13_R14_point_14(tmp_path):
    """The setting's round is 6 seconds and its recovery interval here 2 hours. Kara
    recovers (rushed) in round 2 of a debate in rounds of 1 hour, at 1 h; the
    debate ends after its third round, at 3 h, and 10 rounds of calm (the
    setting's rounds: 1 min) later she may recover again. In 6-second rounds the same script is refused."""
    setting = EMBERFALL_SETTING.replace("recovery: 1 day", "recovery: 2 hours")
    script = ("Overlord crush -> Kara with Brutality + Obsidian Crown, rolled 6 6\n"
              "round\n"
              "Kara recovers, rolled 6 4 1, then 6 2\n"
              "round\n"
              "end drama\n"
              "calm 10 rounds\n"
              "Kara recovers, rolled 5\n")
    events = play(tmp_path, HEARING + script, setting=setting)
    begun = only(events, "drama")
    assert (begun["round_seconds"], begun["rounds_of"]) == (3600, "1 hour")
    assert [e["time"] for e in of_type(events, "round")] == [3600, 7200]
    assert only(events, "drama_end")["time"] == 3 * 3600
    first, second = of_type(events, "recovery")
    assert (first["time"], second["time"]) == (3600, 3 * 3600 + 60)
    assert (first["returned"], second["returned"]) == (2, 1) and qd(second["parties"]["Kara"]) == (6, 0)
    path = make_scenario(tmp_path, DRAMA4 + script, setting=setting)
    outcome = drama("run", path)
    assert outcome.code == 1
    assert "script.drama:8:1: error[E314]: Kara recovered 1 min 12 s ago and may recover once every 2 hours" \
        in outcome.stderr


def test_rounds_of_a_situation_show_in_the_log_and_the_transcript_R13_point_14(tmp_path):
    path = make_scenario(tmp_path, HEARING + "Bren holds\nround\nBren pleads vs -1\nend drama\n")
    log = drama("run", path).stdout
    assert "drama The Hearing with Kara, Bren, Overlord, rounds of 1 hour" in log
    assert "round 2 (t = 1 h)" in log
    md = drama("run", path, "--as", "log", "--format", "md").stdout
    assert "begins at t = 0 s · rounds of 1 hour" in md and "#### Round 2 · t = 1 h" in md
    transcript = " ".join(drama("run", path, "--as", "transcript", "--numbers").stdout.split())
    assert "(The Hearing, at 0 s, in rounds of 1 hour)" in transcript and "(round 2, at 1 h)" in transcript


def test_a_saved_log_from_before_round_lengths_and_chosen_re_rolls_still_renders_R13_R14(tmp_path):
    """Event logs written before `rounds_of`, `round_seconds` and a check's `chosen`
    were added render as before: the situation's rounds are the setting's."""
    import json
    path = make_scenario(tmp_path, DRAMA4 + HURT_KARA + "Kara recovers with Agility, rolled 6 5 2 1, rerolling 1 to 4, "
                                                        "then 6 5 rerolled 3\nend drama\n")
    lines = []
    run = drama("run", path, "--format", "json")
    assert run.code == 0, run.output
    for line in run.stdout.splitlines():
        event = json.loads(line)
        for key in ("rounds_of", "round_seconds"):
            event.pop(key, None)
        for check in event.get("checks") or ():
            check.pop("chosen", None)
        lines.append(json.dumps(event))
    saved = write(tmp_path, "old.jsonl", "\n".join(lines) + "\n")
    for args in ([], ["--as", "log", "--format", "md"], ["--as", "log", "--format", "html"],
                 ["--as", "transcript", "--numbers"]):
        outcome = drama("render", saved, *args)
        assert outcome.code == 0, outcome.output
    assert "re-rolled 1→4" in drama("render", saved, "--as", "log", "--format", "md").stdout


def test_a_round_length_in_rounds_is_refused_R13_point_14(tmp_path):
    path = make_scenario(tmp_path, 'drama "The Hearing" with Kara, Bren, rounds of 10 rounds\n')
    outcome = drama("run", path)
    assert outcome.code == 1
    assert "script.drama:1:38: error[E320]: a round cannot last 10 rounds" in outcome.stderr


def test_round_advances_time_and_restores_actions_R9_R13(tmp_path):
    events = play(tmp_path, DRAMA4 +
                  "Kara fireball -> Overlord\n"
                  "round                                         # the next round begins (R13)\n"
                  "Kara fireball -> Overlord\n")
    event = only(events, "round")
    assert event == {"type": "round", "line": 3, "drama": "Throne Hall", "round": 2, "time": 6,
                     "unused": ["Bren", "Overlord", "Goblins"]}
    assert [x["round"] for x in exchanges(events)] == [1, 2]


# ---------------------------------------------------------------------------
# aggressive actions (R2-R6)

def test_full_action_line_uses_the_move_qualifier_and_extra_target_R4_R5(tmp_path):
    """`Kara fireball -> Overlord but not tapestries +Goblins`: Kara's `fireball`
    move (Sorcery 3 + Ember Staff 2), no dice; a qualifier and an extra target
    cost 1 each (R4); two comparisons against undefended targets, worth 0 (R5)."""
    events = play(tmp_path, DRAMA4 + "Kara fireball -> Overlord but not tapestries +Goblins\n")
    action = only(events, "action")
    assert action["line"] == 2 and action["intent"] == "fireball" and action["attacker"] == "Kara"
    assert action["targets"] == ["Overlord", "Goblins"]
    assert action["qualifiers"] == [{"kind": "not", "text": "tapestries"}]
    assert action["extra_targets"] == ["Goblins"]
    assert action["spent"] == {"Kara": 2}
    assert qd(action["parties"]["Kara"]) == (4, 2)
    first, second = exchanges(events)
    for index, (exchange, target) in enumerate([(first, "Overlord"), (second, "Goblins")]):
        assert exchange["line"] == 2 and exchange["index"] == index
        assert exchange["attacker"] == "Kara" and exchange["defender"] == target
        assert exchange["values"] == {"Kara": 5, target: 0}
        assert exchange["winner"] == "Kara" and exchange["tie"] is False
        assert exchange["double"] is True            # 5 > 0 and 5 >= 2 x 0 (R8)
        assert exchange["loss"] == 1                 # 1 + no high dice (R6)
        (kara,) = efforts(exchange, "attacker")
        assert (kara["trait"], kara["treasure"], kara["dice"]) == ("Sorcery", "Ember Staff", [])
        assert exchange["sides"]["defender"]["stated"] is False
    assert qd(first["parties"]["Overlord"]) == (6, 1)
    assert qd(second["parties"]["Goblins"]) == (3, 1)
    assert final_states(events) == {"Kara": (4, 2), "Bren": (5, 0), "Overlord": (6, 1), "Goblins": (3, 1)}


def test_full_action_with_trait_treasure_and_rolled_dice_R2_R6(tmp_path):
    """The emberfall line 12 with the canonical defences: value = trait + treasure
    + dice (R2); the ones come off once per exchange, the loser loses 1 + the
    winner's high dice (R6); each extra target is its own comparison (R5)."""
    events = play(tmp_path, DRAMA4 +
                  "Kara fireball -> Overlord but not tapestries +Goblins with Sorcery + Ember Staff, rolled 6 6 4\n"
                  "Overlord defends with Cunning + Obsidian Crown, rolled 5 1       # a defence (R9)\n"
                  "Goblins defend with Numbers                                      # `defend` or `defends`\n")
    first, second = exchanges(events)
    assert first["values"] == {"Kara": 21, "Overlord": 11}
    assert second["values"] == {"Kara": 21, "Goblins": 2}
    assert (first["winner"], first["double"], first["loss"]) == ("Kara", False, 3)
    assert (second["winner"], second["double"], second["loss"]) == ("Kara", True, 3)
    assert dice_of(first) == [6, 6, 4] and dice_of(first, "defender") == [5, 1]
    assert efforts(first, "attacker")[0]["rolled_by"] == "table"
    assert first["losses"] == [
        {"party": "Overlord", "amount": 1, "owed": 1, "kind": "ones"},
        {"party": "Overlord", "amount": 3, "owed": 3, "kind": "loss"}]
    assert final_states(events) == {"Kara": (4, 2), "Bren": (5, 0), "Overlord": (3, 4), "Goblins": (1, 3)}


def test_roll_n_uses_the_seeded_dice_R2(tmp_path):
    script = DRAMA4 + "Kara fireball -> Overlord with Sorcery + Ember Staff, roll 2     # the engine rolls 2 dice\n"
    path = make_scenario(tmp_path, script)
    seen = set()
    for seed in range(6):
        (exchange,) = exchanges(run_events(path, "--seed", str(seed)))
        dice = dice_of(exchange)
        assert len(dice) == 2 and all(1 <= d <= 6 for d in dice)
        assert efforts(exchange, "attacker")[0]["rolled_by"] == "engine"
        assert exchange["values"]["Kara"] == 3 + 2 + sum(dice)
        seen.add(tuple(dice))
        # the same seed gives the same dice
        assert dice_of(exchanges(run_events(path, "--seed", str(seed)))[0]) == dice
    assert len(seen) > 1


def test_roll_alone_rolls_the_most_R3_allows(tmp_path):
    """`roll`: Sorcery 3 lets Kara roll 3 dice (R3)."""
    events = play(tmp_path, DRAMA4 + "Kara fireball -> Overlord, roll\n")
    (exchange,) = exchanges(events)
    assert len(dice_of(exchange)) == 3
    assert efforts(exchange, "attacker")[0]["cap"] == 3


def test_roll_alone_is_capped_by_quintessence_after_spending_R3_R4(tmp_path):
    """Goblins (4) spend 3 on qualifiers: `roll` rolls 1 die, not Numbers 2 (R3, R4)."""
    events = play(tmp_path, DRAMA4 + "Goblins stab -> Kara but not a but not b but not c with Numbers, roll\n")
    assert only(events, "action")["spent"] == {"Goblins": 3}
    (exchange,) = exchanges(events)
    assert len(dice_of(exchange)) == 1


def test_no_dice_rolls_nothing_R2(tmp_path):
    events = play(tmp_path, DRAMA4 + "Bren bash -> Goblins with Strength + Rope\n")
    (exchange,) = exchanges(events)
    assert dice_of(exchange) == [] and exchange["values"] == {"Bren": 3, "Goblins": 0}


def test_gm_target_with_gm_bonus_and_roll_1_R3_R5(tmp_path):
    """`vs 7 with Agility, GM +1, roll 1`: Agility 1 + GM +1 + one die against 7."""
    events = play(tmp_path, DRAMA4 +
                  'Kara "leaps the chasm" vs 7 with Agility, GM +1, roll 1          # against a GM target (R5)\n',
                  "--lenient")
    action = only(events, "action")
    assert action["gm_target"] == 7 and action["intent"] == "leaps the chasm"
    (exchange,) = exchanges(events)
    assert exchange["defender"] == "GM" and exchange["target"] == 7
    (die,) = dice_of(exchange)
    value = 1 + 1 + die
    assert exchange["values"] == {"Kara": value}
    (kara,) = efforts(exchange, "attacker")
    assert (kara["trait"], kara["gm"], kara["cap"]) == ("Agility", 1, 2)
    assert exchange["winner"] == ("Kara" if value > 7 else "GM")
    assert exchange["loss"] == 0


def test_gm_target_success_double_and_dictates_R5_R8(tmp_path):
    """14 against 7: a success, and 14 >= 2 x 7 is a double win (R8)."""
    events = play(tmp_path, DRAMA4 +
                  'Kara "leaps the chasm" vs 7 with Agility, GM +1, rolled 6 6\n'
                  'Kara dictates "the chandelier crashes down"   # double-win option (R8)\n')
    (exchange,) = exchanges(events)
    assert exchange["values"] == {"Kara": 14} and exchange["target"] == 7
    assert (exchange["winner"], exchange["tie"], exchange["double"]) == ("Kara", False, True)
    option = only(events, "option")
    assert option == {"type": "option", "line": 3, "drama": "Throne Hall", "round": 1, "party": "Kara",
                      "option": "dictate", "comparison": 0, "text": "the chandelier crashes down"}


def test_gm_target_failure_costs_only_the_ones_R5_R6(tmp_path):
    events = play(tmp_path, DRAMA4 + 'Goblins "hold the door" vs 9 with Numbers + Rusty Spears, rolled 1 4\n')
    (exchange,) = exchanges(events)
    assert exchange["values"] == {"Goblins": 8} and exchange["winner"] == "GM"
    assert exchange["loss"] == 0
    assert exchange["losses"] == [{"party": "Goblins", "amount": 1, "owed": 1, "kind": "ones"}]
    assert final_states(events)["Goblins"] == (3, 1)


def test_gm_penalty_lowers_the_cap_and_the_value_R2_R3(tmp_path):
    """GM -1 with Agility 1: no dice may be rolled, and the value is 1 - 1 = 0."""
    events = play(tmp_path, DRAMA4 + 'Kara "leaps the chasm" vs 7 with Agility, GM -1, roll\n')
    (exchange,) = exchanges(events)
    assert dice_of(exchange) == [] and exchange["values"] == {"Kara": 0}
    assert efforts(exchange, "attacker")[0]["cap"] == 0
    assert exchange["winner"] == "GM"


def test_failing_a_gm_target_is_never_a_double_win_R8(tmp_path):
    events = play(tmp_path, DRAMA4 + 'Kara "leaps the chasm" vs 7 with Agility, GM -1\n')
    (exchange,) = exchanges(events)
    assert exchange["values"] == {"Kara": 0} and exchange["winner"] == "GM"
    assert exchange["double"] is False


# ---------------------------------------------------------------------------
# defences (R9) and ties (R11)

def test_defends_and_defend_are_the_same_R9(tmp_path):
    events = play(tmp_path, DRAMA4 +
                  "Kara fireball -> Overlord +Goblins, rolled 2\n"
                  "Overlord defends with Cunning + Obsidian Crown, rolled 5 1       # a defence (R9)\n"
                  "Goblins defend with Numbers                                      # `defend` or `defends`\n")
    first, second = exchanges(events)
    assert first["values"] == {"Kara": 7, "Overlord": 11} and first["winner"] == "Overlord"
    assert second["values"] == {"Kara": 7, "Goblins": 2} and second["winner"] == "Kara"
    assert first["sides"]["defender"]["stated"] is True
    (goblins,) = efforts(second, "defender")
    assert (goblins["trait"], goblins["treasure"], goblins["dice"]) == ("Numbers", None, [])
    # Kara spent 1 and lost 1 + 0 to the Overlord; the Overlord's one; the Goblins lost 1 + 0
    assert final_states(events) == {"Kara": (4, 2), "Bren": (5, 0), "Overlord": (6, 1), "Goblins": (3, 1)}


def test_defences_are_unlimited_R9(tmp_path):
    events = play(tmp_path, DRAMA4 +
                  "Kara fireball -> Goblins, rolled 1\n"
                  "Goblins defend with Numbers\n"
                  "Bren bash -> Goblins with Strength\n"
                  "Goblins defend with Numbers + Rusty Spears\n")
    assert [x["values"] for x in exchanges(events)] == [{"Kara": 6, "Goblins": 2}, {"Bren": 2, "Goblins": 3}]


def test_tie_named_defender_wins_the_vote_R11(tmp_path):
    events = play(tmp_path, DRAMA4 +
                  "Overlord blast -> Kara with Cunning + Obsidian Crown, rolled 3 2\n"
                  "Kara defends with Sorcery + Ember Staff, rolled 4 1\n"
                  "tie Kara                                      # who won the vote on a tie (R11); or `tie GM`\n")
    (exchange,) = exchanges(events)
    assert exchange["values"] == {"Overlord": 10, "Kara": 10}
    assert (exchange["winner"], exchange["tie"], exchange["tie_settled_by"]) == ("Kara", True, "vote")
    assert exchange["double"] is False                  # a tie is never a double win (point 7)
    assert final_states(events)["Kara"] == (5, 1) and final_states(events)["Overlord"] == (6, 1)


def test_tie_named_attacker_wins_the_vote_R11(tmp_path):
    events = play(tmp_path, DRAMA4 +
                  "Overlord blast -> Kara with Cunning + Obsidian Crown, rolled 3 2\n"
                  "Kara defends with Sorcery + Ember Staff, rolled 4 1\n"
                  "tie Overlord\n")
    (exchange,) = exchanges(events)
    assert (exchange["winner"], exchange["tie"]) == ("Overlord", True)
    assert final_states(events)["Kara"] == (4, 2)       # her one, and 1 + no high dice


def test_tie_gm_R11(tmp_path):
    """Goblins 2 + 1 + 1 + 1 = 5 against 5: the GM wins the vote; only the ones are lost."""
    events = play(tmp_path, DRAMA4 +
                  'Goblins "hold the door" vs 5 with Numbers + Rusty Spears, rolled 1 1\n'
                  "tie GM\n")
    (exchange,) = exchanges(events)
    assert exchange["values"] == {"Goblins": 5} and exchange["target"] == 5
    assert (exchange["winner"], exchange["tie"], exchange["double"]) == ("GM", True, False)
    assert final_states(events)["Goblins"] == (2, 2)


def test_several_ties_in_one_exchange_point_8_R11(tmp_path):
    """`tie Goblins` settles the Goblins' comparison, `tie Kara` every other tie."""
    events = play(tmp_path, DRAMA4 +
                  "Kara fireball -> Overlord +Goblins, rolled 2\n"
                  "Overlord defends with Cunning + Obsidian Crown, rolled 2\n"
                  "Goblins defend with Numbers + Rusty Spears, rolled 4\n"
                  "tie Goblins\n"
                  "tie Kara\n")
    first, second = exchanges(events)
    assert first["values"] == {"Kara": 7, "Overlord": 7} and second["values"] == {"Kara": 7, "Goblins": 7}
    assert (first["winner"], second["winner"]) == ("Kara", "Goblins")
    assert first["tie"] and second["tie"]
    assert final_states(events) == {"Kara": (4, 2), "Bren": (5, 0), "Overlord": (6, 1), "Goblins": (4, 0)}


def test_unnamed_tie_settled_by_the_seeded_dice_when_lenient_R11(tmp_path):
    path = make_scenario(tmp_path, DRAMA4 +
                         "Overlord blast -> Kara with Cunning + Obsidian Crown, rolled 3 2\n"
                         "Kara defends with Sorcery + Ember Staff, rolled 4 1\n")
    winners = set()
    for seed in range(8):
        (exchange,) = exchanges(run_events(path, "--lenient", "--seed", str(seed)))
        assert exchange["tie"] is True and exchange["tie_settled_by"] == "random"
        pairs = exchange["tie_dice"]
        assert all(a == b for a, b in pairs[:-1]) and pairs[-1][0] != pairs[-1][1]
        a, b = pairs[-1]
        assert exchange["winner"] == ("Overlord" if a > b else "Kara")
        winners.add(exchange["winner"])
    assert winners == {"Overlord", "Kara"}


@pytest.mark.parametrize("policy, winner", [("actor", "Overlord"), ("defender", "Kara")])
def test_tie_policy_of_the_setting_R11(tmp_path, policy, winner):
    setting = EMBERFALL_SETTING.replace("ties: vote", f"ties: {policy}")
    events = play(tmp_path, DRAMA4 +
                  "Overlord blast -> Kara with Cunning + Obsidian Crown, rolled 3 2\n"
                  "Kara defends with Sorcery + Ember Staff, rolled 4 1\n", setting=setting)
    (exchange,) = exchanges(events)
    assert (exchange["winner"], exchange["tie_settled_by"]) == (winner, policy)


def test_named_tie_beats_the_policy_R11(tmp_path):
    setting = EMBERFALL_SETTING.replace("ties: vote", "ties: actor")
    events = play(tmp_path, DRAMA4 +
                  "Overlord blast -> Kara with Cunning + Obsidian Crown, rolled 3 2\n"
                  "Kara defends with Sorcery + Ember Staff, rolled 4 1\n"
                  "tie Kara\n", setting=setting)
    assert exchanges(events)[0]["winner"] == "Kara"


# ---------------------------------------------------------------------------
# double-win options (R8)

def test_dictates_records_the_text_and_changes_nothing_R8(tmp_path):
    events = play(tmp_path, DRAMA4 +
                  "Kara fireball -> Goblins, rolled 6 6 4\n"
                  'Kara dictates "the chandelier crashes down"   # double-win option (R8)\n')
    (exchange,) = exchanges(events)
    assert exchange["double"] is True
    option = only(events, "option")
    assert option["option"] == "dictate" and option["text"] == "the chandelier crashes down"
    assert "parties" not in option


def test_dictates_with_bare_text_R8(tmp_path):
    events = play(tmp_path, DRAMA4 + "Kara fireball -> Goblins, rolled 6\nKara dictates the goblins flee\n")
    assert only(events, "option")["text"] == "the goblins flee"


def test_rerolls_with_given_dice_R8(tmp_path):
    """Goblins lost 3 then 1 this round: the reroll of 4 dice keeps only its one (point 10)."""
    events = play(tmp_path, DRAMA4 +
                  "Kara fireball -> Goblins, rolled 6 6\n"
                  "Goblins defend with Numbers\n"
                  "Goblins stab -> Kara with Numbers + Rusty Spears, rolled 1\n"
                  "Kara defends with Agility + Lucky Coin\n"
                  "Goblins rerolls, rolled 3 1 5 2               # the other double-win option (R8)\n")
    first, second = exchanges(events)
    assert first["values"] == {"Kara": 17, "Goblins": 2} and first["loss"] == 3
    assert second["values"] == {"Goblins": 4, "Kara": 2} and second["double"] is True
    option = only(events, "option")
    assert option["party"] == "Goblins" and option["option"] == "reroll"
    assert (option["lost"], option["dice"], option["returned"], option["rolled_by"]) == (4, [3, 1, 5, 2], 3, "table")
    assert qd(option["parties"]["Goblins"]) == (3, 1)


def test_rerolls_with_seeded_dice_R8(tmp_path):
    events = play(tmp_path, DRAMA4 +
                  "Overlord crush -> Kara with Brutality + Obsidian Crown, rolled 6 6\n"
                  "Kara defends, rolled 1\n"
                  "Kara fireball -> Overlord, rolled 6 6\n"
                  "Kara rerolls\n")
    option = only(events, "option")
    assert option["lost"] == 4 and option["rolled_by"] == "engine" and len(option["dice"]) == 4
    assert option["returned"] == 4 - option["dice"].count(1)
    assert qd(option["parties"]["Kara"]) == (2 + option["returned"], 4 - option["returned"])


JOINT_DEFEATED = (DRAMA4 +
                  "Goblins & Bren rush -> Kara but not a but not b but not c +Overlord\n"
                  "  Goblins with Numbers + Rusty Spears, roll\n"
                  "  Bren with Iron Shield, rolled 2\n"
                  "Kara defends with Sorcery + Ember Staff, rolled 6 6\n")


def test_R7_point_10_a_defeated_party_takes_no_option_in_a_script(tmp_path):
    """The Goblins spend their last 4, lose to Kara (defeated at 0) and
    double-win with Bren against the undefended Overlord: the Goblins may not
    take the option, Bren may (R7, R8)."""
    script = make_scenario(tmp_path, JOINT_DEFEATED + 'Goblins dictates "the goblins rally"\n')
    outcome = drama("run", script)
    assert outcome.code != 0
    assert ("script.drama:6:1: error[E307]: Goblins is defeated in Throne Hall and cannot take "
            "the double-win option of its side (R7)") in outcome.stderr
    assert "help: did you mean 'Bren'?" in outcome.stderr
    events = play(tmp_path / "partner", JOINT_DEFEATED + "Bren rerolls, rolled 5 4 1\n")
    first, second = exchanges(events)
    assert first["values"] == {"Goblins & Bren": 7, "Kara": 17} and first["winner"] == "Kara"
    assert second["double"] is True
    assert only(events, "defeat")["party"] == "Goblins"
    option = only(events, "option")
    assert (option["party"], option["lost"], option["returned"]) == ("Bren", 3, 2)   # 1 + 2 highs, lead first
    assert qd(option["parties"]["Bren"]) == (4, 1)


def test_R16_point_12_rests_add_up_in_a_script(tmp_path):
    """`rest 1 day` twice, with `full_rest: 2 days`: everyone is restored at the
    second line; a drama in between starts the count again; calm is not rest."""
    events = play(tmp_path, DRAMA4 +
                  "Overlord crush -> Kara with Brutality, rolled 6 1\n"
                  "end drama\n"
                  "rest 1 day\n"
                  "calm 1 day\n"
                  "rest 1 day\n"
                  'drama "Ambush" with Kara, Goblins\n'
                  "Goblins stab -> Kara with Numbers, rolled 3\n"
                  "end drama\n"
                  "rest 1 day\n")
    rests = of_type(events, "rest")
    calm = only(events, "calm")
    assert [(e["line"], e["rested"], e["full_rest"], e["restored"]) for e in rests] == [
        (4, 86400, False, []), (6, 172800, True, ["Kara", "Overlord"]), (10, 86400, False, [])]
    assert (calm["rested"], calm["full_rest"]) == (86400, False)
    assert qd(rests[1]["parties"]["Kara"]) == (6, 0)
    assert final_states(events)["Kara"] == (5, 1)         # the Ambush's loss is still in the pool


# ---------------------------------------------------------------------------
# several parties on a side (R10)

JOINT = ('Kara & Bren "pin the Overlord to his throne" -> Overlord\n'
         "  Kara with Sorcery + Lucky Coin, rolled 6 5\n"
         "  Bren with Strength + Iron Shield, rolled 3\n")


def test_joint_action_with_indented_participants_R10(tmp_path):
    """Only the lead's trait adds (Sorcery 3); both treasures and all dice add."""
    events = play(tmp_path, DRAMA4 + JOINT + "Overlord defends with Brutality, rolled 6 6\n")
    action = only(events, "action")
    assert action["attacker"] == "Kara & Bren" and action["actors"] == ["Kara", "Bren"]
    (exchange,) = exchanges(events)
    assert exchange["attacker"] == "Kara & Bren" and exchange["defender"] == "Overlord"
    assert exchange["values"] == {"Kara & Bren": 20, "Overlord": 14}
    assert exchange["winner"] == "Kara & Bren" and exchange["double"] is False
    kara, bren = efforts(exchange, "attacker")
    assert (kara["value"], bren["value"]) == (15, 5)
    assert (kara["trait_counts"], bren["trait_counts"]) == (True, False)
    assert exchange["loss"] == 2                        # 1 + Kara's six
    assert final_states(events)["Overlord"] == (5, 2)


def test_joint_action_uses_every_participants_action_R9_R10(tmp_path):
    path = make_scenario(tmp_path, DRAMA4 + JOINT + "Bren bash -> Goblins with Strength\n")
    outcome = drama("run", path)
    assert outcome.code == 1
    assert "error[E309]: Bren already took an aggressive action this round (R9)" in outcome.stderr


def test_joint_action_happens_on_the_last_participants_turn_R10(tmp_path):
    events = play(tmp_path, DRAMA4 + "initiative Kara 5, Bren 2, Overlord 6, Goblins 3\n" + JOINT)
    assert only(events, "action")["turn"] == {"on_turn": ["Bren"], "held": ["Kara"],
                                              "passed": ["Overlord", "Goblins"]}


def test_joint_action_gm_modifier_on_the_first_line_point_9_R10(tmp_path):
    """GM +2 on the first line adds once and raises the lead's cap; on Bren's line
    GM -1 lowers his cap and the value."""
    events = play(tmp_path, DRAMA4 +
                  'Kara & Bren "x" -> Overlord, GM +2\n'
                  "  Kara with Agility, rolled 6 6 6\n"
                  "  Bren with Strength, GM -1, rolled 4\n"
                  "Overlord defends, rolled 1\n")
    (exchange,) = exchanges(events)
    kara, bren = efforts(exchange, "attacker")
    assert (kara["cap"], kara["value"]) == (3, 21) and (bren["cap"], bren["value"]) == (1, 3)
    assert exchange["values"] == {"Kara & Bren": 24, "Overlord": 1}
    assert exchange["loss"] == 4 and final_states(events)["Overlord"] == (2, 5)


def test_joint_defence_with_split_R10(tmp_path):
    """The winner spreads the loss of 3 (1 + two sixes) as the split says."""
    events = play(tmp_path, DRAMA4 +
                  "Kara fireball -> Goblins, rolled 6 6\n"
                  "Goblins & Overlord defend                     # a joint defence takes the same indented form\n"
                  "  Goblins with Numbers + Rusty Spears, rolled 4\n"
                  "  Overlord with Cunning\n"
                  "split Goblins 2, Overlord 1                   # how the winner spreads a side's loss (R10)\n")
    (exchange,) = exchanges(events)
    assert exchange["defender"] == "Goblins & Overlord"
    assert exchange["values"] == {"Kara": 17, "Goblins & Overlord": 7}     # only the Goblins' trait adds
    assert exchange["loss"] == 3
    assert exchange["losses"] == [
        {"party": "Goblins", "amount": 2, "owed": 2, "kind": "loss"},
        {"party": "Overlord", "amount": 1, "owed": 1, "kind": "loss"}]
    assert final_states(events) == {"Kara": (6, 0), "Bren": (5, 0), "Overlord": (6, 1), "Goblins": (2, 2)}


def test_joint_defence_without_split_falls_on_the_lead_first_R10(tmp_path):
    events = play(tmp_path, DRAMA4 +
                  "Kara fireball -> Goblins, rolled 6 6\n"
                  "Goblins & Overlord defend\n"
                  "  Goblins with Numbers + Rusty Spears, rolled 4\n"
                  "  Overlord with Cunning\n")
    assert final_states(events)["Goblins"] == (1, 3)
    assert final_states(events)["Overlord"] == (7, 0)


# ---------------------------------------------------------------------------
# recovery (R14, R15), calm and rest (R16)

HURT_KARA = ("Overlord crush -> Kara with Brutality + Obsidian Crown, rolled 6 6\n"
             "Kara defends, rolled 1\n")                  # Kara loses her one and 1 + 2: 2/4


def test_rushed_recovery_with_then_R14_R15(tmp_path):
    events = play(tmp_path, DRAMA4 +
                  "Overlord crush -> Bren with Brutality + Obsidian Crown, rolled 6 2\n"
                  "Bren defends with Strength + Iron Shield, rolled 3 1\n"
                  "Bren recovers, rolled 6 4 2, then 5 3         # recovery (R14); inside drama it is rushed (R15)\n")
    assert states_after(events, 3)["Bren"] == (2, 3)
    recovery = only(events, "recovery")
    assert recovery["line"] == 4 and recovery["rushed"] is True
    assert [(c["dice"], c["returning"]) for c in recovery["checks"]] == [([6, 4, 2], 2), ([5, 3], 1)]
    assert recovery["returned"] == 1
    assert qd(recovery["parties"]["Bren"]) == (3, 2)


def test_rushed_recovery_uses_the_aggressive_action_R15(tmp_path):
    path = make_scenario(tmp_path, DRAMA4 + HURT_KARA +
                         "Kara recovers, rolled 6 4 2 1, then 6 4\n"
                         "Kara fireball -> Goblins\n")
    outcome = drama("run", path)
    assert outcome.code == 1
    assert "script.drama:5:1: error[E309]: Kara already took an aggressive action this round (R9)" in outcome.stderr


def test_recovery_with_helper_and_roll_R14_R15(tmp_path):
    """Sorcery 3 and Bren's Healing 2 give 5 re-rolls of the lowest dice below six."""
    events = play(tmp_path, DRAMA4 + HURT_KARA +
                  "Kara recovers with Sorcery, helped by Bren with Healing, roll   # with re-roll bonuses\n")
    recovery = only(events, "recovery")
    assert recovery["rushed"] is True and recovery["trait"] == "Sorcery"
    assert recovery["helpers"] == [{"party": "Bren", "trait": "Healing", "treasure": None}]
    assert recovery["bonus"] == 5
    assert recovery["turn"]["on_turn"] == ["Kara", "Bren"]
    first, second = recovery["checks"]
    assert len(first["dice"]) == 4 and first["rolled_by"] == "engine"
    for check in recovery["checks"]:
        below = [i for i, d in enumerate(check["dice"]) if d < 6]
        assert sorted(check["rerolled"]) == below          # at most 4 dice: all below six are re-rolled
        assert len(check["rerolls"]) == len(check["rerolled"])
        final = list(check["dice"])
        for index, face in zip(check["rerolled"], check["rerolls"]):
            final[index] = face
        assert check["final"] == final
        sixes = final.count(6)
        lower = [d for d in final if d < 6]
        assert check["returning"] == sixes + (lower.count(max(lower)) if lower else 0)
    assert len(second["dice"]) == first["returning"]
    assert recovery["returned"] == second["returning"]
    assert qd(recovery["parties"]["Kara"]) == (2 + recovery["returned"], 4 - recovery["returned"])


def test_recovery_helper_uses_its_action_R15(tmp_path):
    path = make_scenario(tmp_path, DRAMA4 + HURT_KARA +
                         "Kara recovers with Sorcery, helped by Bren with Healing, roll\n"
                         "Bren bash -> Goblins\n")
    outcome = drama("run", path)
    assert "script.drama:5:1: error[E309]: Bren already took an aggressive action this round (R9)" in outcome.stderr


def test_recovery_with_rerolled_faces_after_calm_R14(tmp_path):
    """Outside drama, after calm: 5 3 2 1 with a bonus of 4 (Sorcery 3 + Lucky Coin 1):
    the lowest dice first (1, 2, 3, 5) become 6 4 1 2, so 2 1 4 6: the six and the
    four return."""
    events = play(tmp_path, DRAMA4 + HURT_KARA +
                  'end drama "The Overlord falls."               # the dramatic situation ends\n'
                  "calm 1 hour                                   # in-world time passes\n"
                  "Kara recovers with Sorcery + Lucky Coin, rolled 5 3 2 1 rerolled 6 4 1 2\n")
    calm = only(events, "calm")
    assert (calm["line"], calm["seconds"]) == (5, 3600)
    recovery = only(events, "recovery")
    assert recovery["rushed"] is False and recovery["bonus"] == 4
    (check,) = recovery["checks"]
    assert check["dice"] == [5, 3, 2, 1] and check["rerolled"] == [3, 2, 1, 0]
    assert check["rerolls"] == [6, 4, 1, 2] and check["final"] == [2, 1, 4, 6]
    assert check["returning"] == 2 and recovery["returned"] == 2
    assert qd(recovery["parties"]["Kara"]) == (4, 2)


def test_rushed_recovery_with_rerolled_faces_in_both_checks_R14_R15(tmp_path):
    """Bonus 2 (Healing): 6 4 2 re-rolls 2 and 4 into 5 3: 6 3 5 returns 2; the
    second check 5 3 re-rolls 3 and 5 into 6 1: 1 6 returns 2."""
    events = play(tmp_path, DRAMA4 +
                  "Overlord crush -> Bren with Brutality + Obsidian Crown, rolled 6 2\n"
                  "Bren defends with Strength + Iron Shield, rolled 3 1\n"
                  "Bren recovers with Healing, rolled 6 4 2 rerolled 5 3, then 5 3 rerolled 6 1\n")
    recovery = only(events, "recovery")
    first, second = recovery["checks"]
    assert first["final"] == [6, 3, 5] and first["returning"] == 2
    assert second["final"] == [1, 6] and second["returning"] == 2
    assert qd(recovery["parties"]["Bren"]) == (4, 1)


AFTER_CALM = 'end drama "The Overlord falls."\ncalm 10 rounds\n'


def test_recovery_re_rolls_only_the_chosen_die_R14_point_13(tmp_path):
    """Kara's bonus is 2 (Agility + Lucky Coin); she re-rolls only the 2, to a 4:
    6 5 5 4 returns the six and both fives, 3 back (2/4 -> 5/1)."""
    events = play(tmp_path, DRAMA4 + HURT_KARA + AFTER_CALM +
                  "Kara recovers with Agility + Lucky Coin, rolled 6 5 5 2, rerolling 2 to 4\n")
    recovery = only(events, "recovery")
    (check,) = recovery["checks"]
    assert recovery["bonus"] == 2
    assert (check["dice"], check["rerolled"], check["rerolls"], check["final"]) == (
        [6, 5, 5, 2], [3], [4], [6, 5, 5, 4])
    assert check["chosen"] is True and check["returning"] == 3 and recovery["returned"] == 3
    assert qd(recovery["parties"]["Kara"]) == (5, 1)


def test_recovery_declines_its_re_rolls_R14_point_13(tmp_path):
    """`rerolling none` (or `re-rolling none`): 6 5 5 2 stays as rolled, 3 back. With
    nothing said the bonus of 2 re-rolls the 2 and a 5 (`rerolled 1 1`): 6 1 5 1, 2 back."""
    for spelling in ("rerolling", "re-rolling"):
        events = play(tmp_path, DRAMA4 + HURT_KARA + AFTER_CALM +
                      f"Kara recovers with Agility + Lucky Coin, rolled 6 5 5 2, {spelling} none\n")
        (check,) = only(events, "recovery")["checks"]
        assert (check["rerolled"], check["final"], check["returning"], check["chosen"]) == (
            [], [6, 5, 5, 2], 3, True)
    events = play(tmp_path, DRAMA4 + HURT_KARA + AFTER_CALM +
                  "Kara recovers with Agility + Lucky Coin, rolled 6 5 5 2 rerolled 1 1\n")
    (check,) = only(events, "recovery")["checks"]
    assert (check["rerolled"], check["returning"], check["chosen"]) == ([3, 1], 2, False)


def test_rushed_recovery_chooses_in_both_checks_R14_R15_point_13(tmp_path):
    """Agility 1: 6 5 2 1, the 1 re-rolled to a 5 (6 5 2 5: three would return);
    then 6 5 5, declining its re-roll: 3 back (2/4 -> 5/1)."""
    events = play(tmp_path, DRAMA4 + HURT_KARA + "round\n"
                  "Kara recovers with Agility, rolled 6 5 2 1, rerolling 1 to 5, then 6 5 5, rerolling none\n")
    first, second = only(events, "recovery")["checks"]
    assert (first["rerolled"], first["final"], first["returning"]) == ([3], [6, 5, 2, 5], 3)
    assert (second["rerolled"], second["returning"]) == ([], 3)
    assert qd(only(events, "recovery")["parties"]["Kara"]) == (5, 1)


def test_roll_rerolling_none_has_the_engine_roll_and_re_roll_nothing_R14_point_13(tmp_path):
    for seed in range(5):
        events = play(tmp_path, DRAMA4 + HURT_KARA + AFTER_CALM +
                      "Kara recovers with Sorcery + Ember Staff, roll, rerolling none\n", "--seed", str(seed))
        (check,) = only(events, "recovery")["checks"]
        assert check["rolled_by"] == "engine" and check["rerolled"] == [] and check["final"] == check["dice"]


@pytest.mark.parametrize("dice, code, where, message", [
    ("rolled 6 5 5 2, rerolling 3 to 4", "E317", 68,
     "Kara's recovery re-rolls a die showing 3, but no die of 6 5 5 2 shows 3 (R14)"),
    ("rolled 6 5 5 2, rerolling 2 to 4 and 2 to 1", "E317", 79,
     "Kara's recovery re-rolls a die showing 2, but only 1 die of 6 5 5 2 shows 2, and each die is re-rolled once"),
    ("rolled 6 5 5 2, rerolling 5 to 4 and 5 to 6 and 2 to 1", "E318", 90,
     "Kara's recovery re-rolls 3 dice, but its bonus of 2 allows at most 2 (R14)"),
    ("rolled 6 5 5 2, rerolling 2 to 9", "E402", 68, "Kara's recovery re-rolls the 2 to 9, and a d6 has no face 9"),
    ("roll, rerolling 2 to 4", "E319", 48, "the dice of `roll` are not known yet"),
    ("rolled 6 5 5 2 rerolled 3, rerolling 2 to 4", "E319", 69,
     "the re-rolls are given twice, with `rerolled` and with `rerolling`"),
])
def test_chosen_re_rolls_that_cannot_be_are_refused_where_written_R14_point_13(tmp_path, dice, code, where,
                                                                                 message):
    path = make_scenario(tmp_path, DRAMA4 + HURT_KARA + AFTER_CALM +
                         f"Kara recovers with Agility + Lucky Coin, {dice}\n")
    outcome = drama("run", path)
    assert outcome.code == 1
    assert f"script.drama:6:{where}: error[{code}]: {message}" in outcome.stderr, outcome.stderr


def test_fresh_dice_keep_the_number_of_chosen_re_rolls_R14_point_13(tmp_path):
    """`--roll-given` rolls every die afresh: the faces chosen cannot carry over,
    so the party re-rolls at most as many dice as it chose, the lowest first."""
    for seed in range(6):
        events = play(tmp_path, DRAMA4 + HURT_KARA + AFTER_CALM +
                      "Kara recovers with Sorcery + Ember Staff, rolled 6 5 5 2, rerolling 2 to 4\n",
                      "--roll-given", "--seed", str(seed))
        (check,) = only(events, "recovery")["checks"]
        assert len(check["rerolled"]) <= 1 and check["chosen"] is True
        below = sorted(range(len(check["dice"])), key=lambda i: check["dice"][i])
        assert check["rerolled"] == [i for i in below if check["dice"][i] < 6][:1]


def test_calm_and_rest_R16(tmp_path):
    """A rest of `full_rest` (2 days) restores every party; a shorter one nothing (point 12)."""
    events = play(tmp_path, DRAMA4 + HURT_KARA +
                  'end drama "The Overlord falls."\n'
                  "rest 1 day\n"
                  "rest 2 days                                   # rest (R16)\n")
    short, full = of_type(events, "rest")
    assert short["restored"] == [] and "parties" not in short
    assert full["seconds"] == 2 * 86400 and full["restored"] == ["Kara"]
    assert qd(full["parties"]["Kara"]) == (6, 0)
    assert events[-1]["time"] == 6 + 86400 + 2 * 86400


# ---------------------------------------------------------------------------
# comments, names, files

def test_comments_blank_lines_and_hashes_in_quotes(tmp_path):
    events = play(tmp_path,
                  "# a comment line\n"
                  "\n"
                  "   # an indented comment\n"
                  'scene "Room #3"   # the quoted # stays\n'
                  "> the doors # open\n"
                  'drama "Throne Hall" with Kara, Bren # who\n'
                  "Kara fireball -> Bren, rolled 4 # dice\n"
                  "Bren defends with Strength, rolled 6   # defence\n"
                  "# the end\n")
    assert only(events, "scene")["title"] == "Room #3"
    assert only(events, "narration")["text"] == "the doors"
    (exchange,) = exchanges(events)
    assert exchange["line"] == 7 and exchange["values"] == {"Kara": 9, "Bren": 8}


QUOTED_CAST = """\
parties:
  Black Knight:
    name: the Black Knight
    quintessence: 5
    traits: {Strength of will: 2}
    treasures: {Sword with no name: 2}
    moves:
      defend: Strength of will + Sword with no name
  round:
    name: the round table
    quintessence: 3
    traits: {Numbers: 2}
"""


def test_quoted_names_and_keywords_as_names(tmp_path):
    """A party id with a space, one called `round`, a trait and a treasure with
    keywords in them, an intent with `roll` in it: quoted where needed."""
    write(tmp_path, "knights.yaml", QUOTED_CAST)
    make_scenario(tmp_path,
                  'drama "Joust" with Kara, "Black Knight", "round"\n'
                  'Kara "roll the dice" -> Black Knight with Sorcery, rolled 4\n'
                  '"Black Knight" defends with "Strength of will" + "Sword with no name", rolled 2\n'
                  '"round" holds\n'
                  '"round" "tie up" -> Black Knight with Numbers, rolled 4\n'
                  '"Black Knight" defends, rolled 5\n')
    path = write(tmp_path, "scenario.yaml", scenario_yaml("script.drama", cast=["cast.yaml", "knights.yaml"]))
    events = run_events(path)
    first, second = exchanges(events)
    assert first["intent"] == "roll the dice" and first["defender"] == "Black Knight"
    assert first["values"] == {"Kara": 7, "Black Knight": 6}
    (knight,) = efforts(first, "defender")
    assert (knight["trait"], knight["treasure"]) == ("Strength of will", "Sword with no name")
    assert only(events, "hold")["party"] == "round"
    assert second["attacker"] == "round" and second["intent"] == "tie up"
    assert second["values"] == {"round": 6, "Black Knight": 9}      # the `defend` move: 2 + 2 + 5
    assert final_states(events)["round"] == (2, 1)


def test_inline_script_block(tmp_path):
    """`script: |`: line numbers are the scenario file's."""
    write(tmp_path, "setting.yaml", EMBERFALL_SETTING)
    write(tmp_path, "cast.yaml", EMBERFALL_CAST)
    path = write(tmp_path, "inline.yaml",
                 "title: Inline\n"
                 "setting: setting.yaml\n"
                 "cast: cast.yaml\n"
                 "script: |\n"
                 '  scene "Inline"\n'
                 '  drama "Skirmish" with Kara, Goblins\n'
                 "\n"
                 "  Kara fireball -> Goblins, rolled 6\n"
                 "  Goblins defend with Numbers\n")
    events = run_events(path)
    assert events[0]["title"] == "Inline"
    assert only(events, "scene")["line"] == 5
    (exchange,) = exchanges(events)
    assert exchange["line"] == 8 and exchange["values"] == {"Kara": 11, "Goblins": 2}


def test_cast_over_two_files(tmp_path):
    heroes, foes = EMBERFALL_CAST.split("  Overlord:\n")
    write(tmp_path, "setting.yaml", EMBERFALL_SETTING)
    write(tmp_path, "casts/heroes.yaml", heroes)
    write(tmp_path, "casts/foes.yaml", "parties:\n  Overlord:\n" + foes)
    write(tmp_path, "script.drama", DRAMA4 + "Kara fireball -> Overlord, rolled 4\n")
    path = write(tmp_path, "scenario.yaml", scenario_yaml(cast=["casts/heroes.yaml", "casts/foes.yaml"]))
    events = run_events(path)
    assert list(events[0]["parties"]) == ["Kara", "Bren", "Overlord", "Goblins"]
    assert exchanges(events)[0]["values"] == {"Kara": 9, "Overlord": 0}


def test_with_move_names_a_move(tmp_path):
    """`with fireball` uses the trait and treasure of Kara's fireball move."""
    events = play(tmp_path, DRAMA4 + "Kara blast -> Overlord with fireball, rolled 3\n")
    (exchange,) = exchanges(events)
    (kara,) = efforts(exchange, "attacker")
    assert (kara["trait"], kara["treasure"], kara["value"]) == ("Sorcery", "Ember Staff", 8)


def test_defend_move_applies_to_a_defence_without_with(tmp_path):
    cast = EMBERFALL_CAST.replace("    treasures: {Iron Shield: 2, Rope: 1}\n",
                                  "    treasures: {Iron Shield: 2, Rope: 1}\n"
                                  "    moves:\n"
                                  "      defend: Strength + Iron Shield\n")
    events = play(tmp_path, DRAMA4 + "Kara fireball -> Bren, rolled 4\nBren defends, rolled 3\n", cast=cast)
    (exchange,) = exchanges(events)
    (bren,) = efforts(exchange, "defender")
    assert (bren["trait"], bren["treasure"]) == ("Strength", "Iron Shield")
    assert exchange["values"] == {"Kara": 9, "Bren": 7}


def test_so_that_qualifier_costs_one_R4(tmp_path):
    events = play(tmp_path, DRAMA4 + "Kara fireball -> Overlord so that the roof falls, rolled 4\n")
    action = only(events, "action")
    assert action["qualifiers"] == [{"kind": "so", "text": "the roof falls"}]
    assert action["spent"] == {"Kara": 1}


def test_hold_then_act_later_in_the_round_R9(tmp_path):
    events = play(tmp_path, DRAMA4 +
                  "initiative Kara 5, Bren 2, Overlord 6, Goblins 3\n"
                  "Overlord crush -> Bren with Brutality\n"
                  "Kara holds\n"
                  "Goblins stab -> Bren with Numbers\n"
                  "Kara fireball -> Goblins\n")
    assert only(events, "hold")["party"] == "Kara"
    turns = [a["turn"] for a in of_type(events, "action")]
    assert turns[2] == {"on_turn": [], "held": ["Kara"], "passed": []}


def test_defeat_R7(tmp_path):
    """Goblins spend their last quintessence on qualifiers and fail: defeated (point 5)."""
    events = play(tmp_path, DRAMA4 +
                  "Goblins stab -> Kara but not a but not b but not c but not d with Numbers\n"
                  "Kara defends with Sorcery + Ember Staff\n")
    defeat = only(events, "defeat")
    assert defeat["party"] == "Goblins" and defeat["drama"] == "Throne Hall" and defeat["line"] == 2
    assert defeat["parties"]["Goblins"]["defeated"] is True


# ---------------------------------------------------------------------------
# the whole Emberfall play log

EXPECTED_EXCHANGES = [
    # line, attacker, defender, values, winner, double, tie (and the GM target)
    (9, "Overlord", "Bren", {"Overlord": 12, "Bren": 8}, "Overlord", False, False),
    (12, "Kara", "Overlord", {"Kara": 21, "Overlord": 11}, "Kara", False, False),
    (12, "Kara", "Goblins", {"Kara": 21, "Goblins": 5}, "Kara", True, False),
    (17, "Goblins", "Kara", {"Goblins": 4, "Kara": 2}, "Goblins", True, False),
    (24, "Overlord", "Kara", {"Overlord": 10, "Kara": 10}, "Kara", False, True),
    (29, "Goblins", "GM", {"Goblins": 5}, "GM", False, True),
    (32, "Kara & Bren", "Overlord", {"Kara & Bren": 20, "Overlord": 14}, "Kara & Bren", False, False),
    (38, "Overlord", "Kara", {"Overlord": 4, "Kara": 3}, "Overlord", False, False),
    (41, "Kara", "Overlord", {"Kara": 8, "Overlord": 3}, "Kara", True, False),
]

AFTER_LINE = {
    10: {"Bren": (2, 3)},
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


@pytest.fixture
def emberfall_events(tmp_path) -> list[dict]:
    return run_events(copy_emberfall(tmp_path))


def test_emberfall_every_exchange(emberfall_events):
    got = [(e["line"], e["attacker"], e["defender"], e["values"], e["winner"], e["double"], e["tie"])
           for e in exchanges(emberfall_events)]
    assert got == EXPECTED_EXCHANGES
    gm = [e for e in exchanges(emberfall_events) if e["defender"] == "GM"]
    assert [e["target"] for e in gm] == [5]


@pytest.mark.parametrize("line", sorted(AFTER_LINE))
def test_emberfall_states_after_line(emberfall_events, line):
    state = states_after(emberfall_events, line)
    assert {pid: state[pid] for pid in AFTER_LINE[line]} == AFTER_LINE[line]


def test_emberfall_defeat_and_final(emberfall_events):
    defeats = of_type(emberfall_events, "defeat")
    assert [(d["party"], d["drama"], d["line"]) for d in defeats] == [("Overlord", "Throne Hall", 41)]
    assert final_states(emberfall_events) == {
        "Kara": (4, 2), "Bren": (3, 2), "Overlord": (0, 7), "Goblins": (1, 3)}


def test_emberfall_options_recovery_and_time(emberfall_events):
    options = of_type(emberfall_events, "option")
    assert [(o["line"], o["party"], o["option"]) for o in options] == [
        (15, "Kara", "dictate"), (19, "Goblins", "reroll"), (43, "Kara", "reroll")]
    assert [(r["line"], r["rushed"], r["returned"]) for r in of_type(emberfall_events, "recovery")] == [
        (21, True, 1), (48, False, 2)]
    ended = only(emberfall_events, "drama_end")
    assert (ended["line"], ended["rounds"], ended["time"]) == (45, 3, 18)
    assert emberfall_events[-1]["time"] == 18 + 3600


def test_emberfall_every_changed_party_is_in_its_event(emberfall_events):
    """Each `exchange` carries the state of every party that lost something."""
    for event in exchanges(emberfall_events):
        changed = {loss["party"] for loss in event["losses"]}
        assert changed <= set(event.get("parties", {})), event


def test_event_states_replay_to_the_final_states(emberfall_events):
    """Applying each event's `parties` to the start states gives the final states."""
    state = {pid: dict(s) for pid, s in emberfall_events[0]["parties"].items()}
    for event in emberfall_events[1:-1]:
        for pid, s in event.get("parties", {}).items():
            state[pid] = dict(s)
    assert state == emberfall_events[-1]["parties"]
