"""The syntax of drama scripts: the grammar, the parser, the syntax tree, the keyword vocabulary and the printer."""

from . import nodes
from .parse import MAX_ERRORS, parse
from .vocabulary import MAX_DIGITS, NAME_ENDS

__all__ = ["parse", "nodes", "MAX_ERRORS", "MAX_DIGITS", "NAME_ENDS"]
