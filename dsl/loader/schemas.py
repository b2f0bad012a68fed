"""The schemas of the setting, cast and scenario files (each field declared once), and what a scenario is read into; the readers are `cast.py` and `scenario.py`."""

from __future__ import annotations

from dataclasses import field
from typing import Mapping

from ..frozen import frozen
from ..engine.parties import TIE_POLICIES, PartySheet, Settings
from ..errors import Position
from .fields import SHEET_NAME_FORBIDDEN, Field, Schema  # noqa: F401 - SHEET_NAME_FORBIDDEN is re-exported

# ---------------------------------------------------------------------------
# The fields of each file: the one place they are declared

_DEFAULT = Settings()      # the engine's defaults, written once there

DICE = Schema((
    Field("sides", "integer", "the faces of a quintessence die", default=_DEFAULT.sides, minimum=2,
          label="the number of sides"),
    Field("high", "integer", "a die showing this or more is high; at most `sides`, the top face when left out",
          default=_DEFAULT.high, minimum=2, label="'high'"),
))

SETTING = Schema((
    Field("name", "text", "the setting's name, recorded in the event log", default=_DEFAULT.name,
          label="the setting's name"),
    Field("round", "duration", "in-world time of one round, more than 0 and not in rounds (R13)",
          default=_DEFAULT.round),
    Field("recovery", "duration", "a party may recover at most once in this much in-world time (R14)",
          default=_DEFAULT.recovery),
    Field("calm", "duration", "time that must pass after a dramatic situation before a recovery (R14)",
          default=_DEFAULT.calm),
    Field("full_rest", "duration", "a rest at least this long restores every party's quintessence (R16)",
          default=_DEFAULT.full_rest),
    Field("dice", "mapping", "the quintessence dice (R1)", items=DICE),
    Field("ties", "choice", "who wins a tie the script does not settle (R11)", default=_DEFAULT.ties,
          choices=TIE_POLICIES),
))

# a move written as a mapping: what it uses, and the words that narrate it
MOVE = Schema((
    Field("use", "text", "the 'Trait + Treasure' it uses when the script does not say"),
    Field("says", "words", "what the party does, after its name: `hurls a gout of flame at {target}`"),
    Field("hit", "words", "the outcome when it works: `{target} is engulfed`"),
    Field("miss", "words", "the outcome when it fails: `{target} ducks behind a pillar`"),
))

PARTY = Schema((
    Field("name", "text", "the party's full name; the id when left out"),
    Field("quintessence", "integer", "the party's maximum (and starting) quintessence", required=True,
          default=0, minimum=0, example="quintessence: a whole number of 0 or more (its maximum quintessence)"),
    Field("traits", "table", "the party's traits and their levels (0 or more)", items="integer",
          names="sheet", empty_ok=True),
    Field("treasures", "table", "the party's treasures and their values (0 or more)", items="integer",
          names="sheet", empty_ok=True),
    Field("members", "list", "the members of a group, for narration only (R17)", items="text", empty_ok=True),
    Field("moves", "table", "intent -> the 'Trait + Treasure' it uses when the script does not say, or a "
          "mapping of `use` and the words that narrate it (`says`, `hit`, `miss`)",
          items=Field("move", "either", "'Trait + Treasure', or `use` and the words of the move", items=MOVE),
          empty_ok=True),
    Field("hidden", "boolean", "true: the player board of `drama play` shows no numbers for this party",
          default=False),
    Field("short", "words", "the name for later mentions in a transcript (`Kara`); for narration only"),
    Field("pronouns", "text", "the pronouns of narration: she/her, he/him, they/them, it/its or your own "
          "three (xe/xem/xyr); they/them for a group when left out; never guessed from the name"),
    Field("clauses", "table", "a qualifier as written (`but not tapestries`) -> the clause that narrates it",
          items="words"),
    Field("names", "table", "the full name in other languages of a transcript (`fr: la bande de gobelins`)",
          items="text"),
    Field("grammar", "words", "the grammatical gender and number of the name, for every language "
          "(`feminine`) or per language (`{fr: feminine, en: plural}`); for narration only"),
))
# (`short`, the words of a move and a clause may also be a table of languages:
# `short: {en: the goblins, fr: les gobelins}`, for `drama run --lang`)

# pronouns: subject/object/possessive, and whether a verb after them is plural
PRONOUNS = {"she": ("she", "her", "her"), "he": ("he", "him", "his"), "they": ("they", "them", "their"),
            "it": ("it", "it", "its")}

CAST = Schema((
    Field("parties", "table", "each party's id -> its sheet", required=True, items=PARTY, names="party",
          example="parties: followed by one mapping per party"),
    Field("state", "table", "the starting values of the script's flags (true or false) and counters "
          "(whole numbers), for this group", items="state"),
))

SCENARIO = Schema((
    Field("title", "text", "the title, printed at the top of the output and recorded in the event log",
          required=True, default="", example="title: The Fall of Emberfall", label="the title"),
    Field("setting", "path", "the setting file; every setting key has its default without it"),
    Field("cast", "paths", "the cast file, or a list of cast files", required=True,
          example="cast: cast.yaml (or a list of cast files)"),
    Field("script", "script", "a .drama file, or the script written inline (`script: |`)", required=True,
          example="script: a .drama file, or an inline block `script: |`"),
    Field("roles", "table", "an adventure's roles, each bound to a party id of the cast or left empty",
          items=Field("role", "text", "the party id the role is bound to; left empty, it is bound with --role",
                      empty_ok=True),
          names="party", empty_ok=True),
))

SETTING_KEYS = SETTING.keys
DICE_KEYS = DICE.keys
CAST_KEYS = CAST.keys
PARTY_KEYS = PARTY.keys
SCENARIO_KEYS = SCENARIO.keys



@frozen
class ScriptSource:
    """The text of a scenario's script and where it was written.

    Line n of `text` is line `line_offset + n` of `file`. For a `.drama` file the
    offset is 0; for an inline `script: |` block, `file` is the scenario YAML and
    the offset is the line of the `|`. `column_offset` is what to add to a column
    of the text to get the column in `file`: exact for a `.drama` file, a `|`
    block and a value on one line.
    """

    file: str
    text: str
    line_offset: int
    column_offset: int = 0

    def position(self, line: int, column: int = 1) -> Position:
        """Where line:column of `text` (both 1-based) is in `file`."""
        return Position(self.file, self.line_offset + line, self.column_offset + column)


@frozen
class Scenario:
    """A scenario YAML with everything it names loaded."""

    title: str
    path: str
    setting: Settings
    cast: tuple[PartySheet, ...]
    script: ScriptSource
    files: tuple[str, ...] = ()     # every file it was read from: scenario, setting, casts, script
    cast_files: tuple[str, ...] = ()
    # an adventure's roles: role -> the party id it is bound to, or None (unbound)
    roles: Mapping[str, str | None] = field(default_factory=dict)
    role_positions: Mapping[str, Position] = field(default_factory=dict)
    # the starting values of flags and counters, given by the cast (`state:`)
    state: Mapping[str, bool | int] = field(default_factory=dict)
