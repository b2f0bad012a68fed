"""The kinds of scene a dramatic situation can be (`drama "The Hearing" with ..., a debate`):
the ruleset's own examples. They change only the words of a transcript, never the rules."""

KINDS_OF_SCENE: tuple[str, ...] = ("fight", "chase", "debate", "race", "escape", "contest")
# the kinds in which someone runs, and a script may name who (`, a chase after Orm`)
RUNNING_KINDS: tuple[str, ...] = ("chase", "escape")
DEFAULT_KIND = "fight"
