"""The Emberfall sample, copied inline: tests never read ../shared (a user's clone
has no ../shared), so they carry the sample's files as text."""


EMBERFALL_SETTING = """\
name: Sword and Sorcery
round: 6 seconds
recovery: 1 day
calm: 10 rounds
full_rest: 2 days
dice: {sides: 6, high: 6}
ties: vote
"""

EMBERFALL_CAST = """\
parties:
  Kara:
    name: Kara the Ember-Witch
    quintessence: 6
    traits: {Sorcery: 3, Agility: 1}
    treasures: {Ember Staff: 2, Lucky Coin: 1}
    moves:
      fireball: Sorcery + Ember Staff
  Bren:
    name: Bren Ironhand
    quintessence: 5
    traits: {Strength: 2, Healing: 2}
    treasures: {Iron Shield: 2, Rope: 1}
  Overlord:
    name: Overlord Bastrastras
    quintessence: 7
    traits: {Cunning: 3, Brutality: 2}
    treasures: {Obsidian Crown: 2}
  Goblins:
    name: the goblin warband
    members: [Snik, Grub, Mox]
    quintessence: 4
    traits: {Numbers: 2}
    treasures: {Rusty Spears: 1}
"""

EMBERFALL_SCENARIO = """\
title: The Fall of Emberfall
setting: setting.yaml
cast: cast.yaml
script: throne-hall.drama
"""

THRONE_HALL = """\
# Every die is given, so the outcome is fixed: see expected.json.
scene "The Throne Hall of Emberfall"
> Torches gutter as the heroes kick open the doors.

drama "Throne Hall" with Kara, Bren, Overlord, Goblins
initiative Kara 5, Bren 2, Overlord 6, Goblins 3

# round 1: Overlord, Kara, Goblins, Bren
Overlord crush -> Bren with Brutality + Obsidian Crown, rolled 6 2
Bren defends with Strength + Iron Shield, rolled 3 1

Kara fireball -> Overlord but not tapestries +Goblins with Sorcery + Ember Staff, rolled 6 6 4
Overlord defends with Cunning + Obsidian Crown, rolled 5 1
Goblins defend with Numbers + Rusty Spears, rolled 2
Kara dictates "the goblins scatter into the kitchens"

Goblins stab -> Kara with Numbers + Rusty Spears, rolled 1
Kara defends with Agility + Lucky Coin
Goblins rerolls, rolled 3 1 5 2

Bren recovers, rolled 6 4 2, then 5 3

round
Overlord blast -> Kara with Cunning + Obsidian Crown, rolled 3 2
Kara defends with Sorcery + Ember Staff, rolled 4 1
tie Kara

# Kara holds her action to join Bren on his turn
Goblins "hold the door" vs 5 with Numbers + Rusty Spears, rolled 1 1
tie GM

Kara & Bren "pin the Overlord to his throne" -> Overlord
  Kara with Sorcery + Lucky Coin, rolled 6 5
  Bren with Strength + Iron Shield, rolled 3
Overlord defends with Brutality, rolled 6 6

round
Overlord roar -> Kara with Brutality + Obsidian Crown
Kara defends with Agility, rolled 2

Kara fireball -> Overlord, rolled 3
Overlord defends with Cunning
Kara rerolls, rolled 6

end drama "The Overlord falls; the goblins throw down their spears."

calm 1 hour
Kara recovers, rolled 4 4 2 1
"""
