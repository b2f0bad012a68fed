"""The interpreter: statements and control flow (`core`), exchanges, conditions and run modes."""

from .core import Interpreter
from .modes import FRESH, PLAY, SIMULATE, RunMode

__all__ = ["Interpreter", "RunMode", "PLAY", "FRESH", "SIMULATE"]
