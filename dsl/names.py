"""Names: the cast as a script sees it: parties, roles, traits, treasures, moves and placeholders.

One resolver serves the interpreter, the checker and (later) completion, so a
name misspelt anywhere gets the same error and the same did-you-mean.
"""

from __future__ import annotations

from typing import Iterable, Mapping

from .syntax import nodes as n
from .engine import Move, PartySheet
from .errors import DramaError, did_you_mean, one_of
from .syntax import NAME_ENDS


class Names:
    """The parties of a cast, and the roles of an adventure bound to them."""

    def __init__(self, sheets: Iterable[PartySheet], roles: Mapping[str, str] | None = None):
        self.sheets: dict[str, PartySheet] = {sheet.id: sheet for sheet in sheets}
        self.roles: dict[str, str] = dict(roles or {})     # an adventure's role -> the party bound to it
        # parties a script may name whose sheets did not load (their error is reported where the
        # sheet is): every lookup answers "nothing known" for them, never a KeyError
        self.failed: set[str] = {pid for pid in self.roles.values() if pid not in self.sheets}

    def sheet(self, pid: str) -> PartySheet | None:
        """The sheet of a party, or None for one whose sheet failed to load."""
        return self.sheets.get(pid)

    # ------------------------------------------------------------ parties

    def party(self, name: n.Name) -> str:
        """The id of the party a name stands for: an id of the cast, or a role (E201)."""
        text = name.text
        if text in self.sheets:
            return text
        if text in self.roles:
            pid = self.roles[text]
            if pid in self.failed:
                error = DramaError("E201", f"the party '{pid}' (the role '{text}') did not load: its sheet in "
                                   "the cast has errors", position=name.pos,
                                   hint="fix the errors of its sheet, reported at the cast file")
                error.failed_party = pid        # (the checker reports it once)
                raise error
            return pid
        raise DramaError("E201", f"there is no party '{text}' in the cast", position=name.pos,
                         expected=f"one of {one_of(self.sheets)}",
                         hint=did_you_mean(text, self.sheets) or self._misspelt_keyword(text))

    def resolved(self, text: str) -> str | None:
        """The id of the party a name stands for, or None (no error made: a cheap question)."""
        if text in self.sheets:
            return text
        pid = self.roles.get(text)
        return pid if pid is not None and pid not in self.failed else None

    def possessed(self, name: n.Name) -> str:
        """A party in a condition, also written `Kara's`."""
        text = name.text
        if text.endswith("'s") and text not in self.sheets and text not in self.roles:
            name = n.Name(text[:-2], name.pos)
        return self.party(name)

    def known(self) -> list[str]:
        """Every name that stands for a party: the roles, then the ids."""
        return [*self.roles, *self.sheets]

    def _misspelt_keyword(self, text: str) -> str | None:
        """`Bren wiht Sorcery` reads as one long name: a party, then a word close
        to a keyword that would have ended the name."""
        words = text.split(" ")
        for index in range(1, len(words)):
            head = " ".join(words[:index])
            if head not in self.sheets:
                continue
            hint = did_you_mean(words[index], NAME_ENDS)
            if hint is not None:
                keyword = hint.split("'")[1]
                rest = " ".join([keyword, *words[index + 1:]])
                return f"did you mean '{head} {rest}'?"
        return None

    # ------------------------------------------------------------ what a party uses

    def uses(self, pid: str, uses: n.Uses) -> tuple[str | None, str | None]:
        """Sort `with A + B` into the party's trait and treasure; `with MOVE` uses
        the trait and treasure of one of the party's moves (E202). Nothing for a failed party."""
        sheet = self.sheet(pid)
        if sheet is None:
            return None, None
        if len(uses.names) == 1:
            name = uses.names[0].text
            if name not in sheet.traits and name not in sheet.treasures and name in sheet.moves:
                move = sheet.moves[name]
                return move.trait, move.treasure
        trait = treasure = None
        for name in uses.names:
            if name.text in sheet.traits:
                if trait is not None:
                    raise DramaError("E202", f"{pid} may use one trait, not both {trait} and {name.text} (R2)",
                                     position=name.pos)
                trait = name.text
            elif name.text in sheet.treasures:
                if treasure is not None:
                    raise DramaError("E202", f"{pid} may use one treasure, not both {treasure} and {name.text} (R2)",
                                     position=name.pos)
                treasure = name.text
            else:
                known = [*sheet.traits, *sheet.treasures]
                raise DramaError("E202", f"{pid} has no trait or treasure '{name.text}'", position=name.pos,
                                 expected=f"one of {one_of(known)}" if known else "no `with`: "
                                 f"{pid} has no traits or treasures",
                                 hint=did_you_mean(name.text, [*known, *sheet.moves]))
        return trait, treasure

    def member(self, pid: str, name: n.Name) -> str:
        """A member of a group, for `PARTY lose member NAME` (E351)."""
        sheet = self.sheet(pid)
        members = sheet.members if sheet is not None else ()
        if name.text in members or sheet is None:
            return name.text
        raise DramaError("E351", f"{pid} has no member '{name.text}'", position=name.pos,
                         expected=f"one of {one_of(members)}" if members
                         else f"a group with `members:` in the cast ({pid} has none)",
                         hint=did_you_mean(name.text, members))

    def move(self, pid: str, intent: str | None) -> Move | None:
        """The party's move for an intent (`defend` for a defence), if it has one."""
        sheet = self.sheet(pid)
        return sheet.moves.get(intent) if intent is not None and sheet is not None else None

    def words_of(self, pid: str) -> list[str]:
        """What may follow the party's `with`: its traits, treasures and moves."""
        sheet = self.sheet(pid)
        if sheet is None:
            return []
        return [*sheet.traits, *sheet.treasures, *sheet.moves]
