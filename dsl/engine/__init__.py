"""The rules engine: pure, deterministic steps of a dramatic situation (RULES.md R1-R17)."""

from .dice import DiceSource, GivenDice, NO_THROW, SeededDice, Throw, check_faces
from .game import GM, Action, Defence, Game, Helping, Part
from .parties import TIE_POLICIES, Move, PartySheet, PartyState, Settings
from .recovery import RerollError
from . import results

__all__ = [
    "Action", "Defence", "DiceSource", "GM", "Game", "GivenDice", "Helping", "Move", "NO_THROW",
    "Part", "PartySheet", "PartyState", "RerollError", "SeededDice", "Settings", "TIE_POLICIES", "Throw",
    "check_faces", "results",
]
