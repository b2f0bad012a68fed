"""The texts of a run: narration, end texts and dictates with their placeholders filled in from the state now."""

from __future__ import annotations

from .. import placeholders
from ..errors import Position
from ..syntax import nodes as n
from ..flags import show


class Texts:
    """The interpreter's part that fills placeholders (`{round}`, `{hero.quintessence}`...);
    mixed into `core.Interpreter`, whose game, names and flags it reads."""

    def fill(self, text: str, s: n.Statement) -> str:
        """The text with its placeholders filled in from the state now."""
        if not placeholders.has_placeholders(text):
            return text
        return placeholders.fill(text, Position(s.pos.file, s.pos.line, s.column), self._placeholder)

    def _placeholder(self, inside: str, at: Position) -> str:
        """The value of one placeholder: `{round}`, `{drama}`, `{hero}`, `{hero.quintessence}`..."""
        game, names = self.game, self.names
        if inside in self.state:
            return show(self.state.values[inside])
        name, field = placeholders.split(inside, at, names.known())
        if name not in names.sheets and name not in names.roles:      # one of placeholders.GLOBALS
            if name == "round":
                return str(game.round or 0)
            return game.drama.name if game.drama is not None else ""
        pid = names.party(n.Name(name, at))
        sheet = names.sheets[pid]
        if field == "name":
            return sheet.name
        if field == "id":
            return pid
        if field == "members":
            members = list(sheet.members)
            return (", ".join(members[:-1]) + " and " + members[-1]) if len(members) > 1 else \
                (members[0] if members else sheet.name)
        if field == "maximum":
            return str(sheet.quintessence)
        state = game.state(pid)
        return str(state.quintessence if field == "quintessence" else state.damage_pool)
