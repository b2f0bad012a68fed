"""The game table: the facade `Game` that holds the state, begins and ends dramatic situations and passes time (R1-R17)."""

from __future__ import annotations

from typing import Iterable, Sequence

from ..durations import Duration
from ..errors import DramaError, RuleError
from . import checks, exchange as exchange_rules, recovery, saved as saving, turns
from . import results as r
from .dice import NO_THROW, DiceSource, SeededDice, Throw
from .inputs import GM, Action, Defence, Helping, Part
from .parties import PartySheet, PartyState, Settings, TableParty
from .turns import Drama

__all__ = ["GM", "Action", "Defence", "Game", "Helping", "Part"]


class Game:
    """The state of a game table and every step the rules allow on it.

    It does no I/O: each step checks the rules, changes the state and returns an
    immutable result (see `results`). A step that breaks a rule raises a
    `RuleError` naming the rule, and changes nothing.
    """

    def __init__(self, sheets: Iterable[PartySheet], settings: Settings | None = None,
                 dice: DiceSource | None = None, *, lenient: bool = False):
        self.settings = settings or Settings()
        self.dice = dice if dice is not None else SeededDice(0)
        self.lenient = lenient
        self.sheets = {sheet.id: sheet for sheet in sheets}
        self.parties = {pid: TableParty(sheet) for pid, sheet in self.sheets.items()}
        self.time = 0                       # in-world seconds
        self.drama: Drama | None = None
        self.last_drama_end: int | None = None
        self.last_drama_name: str | None = None
        # rest taken since the end of the last dramatic situation or the last
        # full restore, in seconds (R16, RULES.md point 12: rests add up)
        self.rested = 0
        self.options: list[r.Option] = []      # the double wins' options still open (R8)
        self.taken: list[tuple[r.Option, str]] = []    # the options taken since they opened, and by whom

    # ------------------------------------------------------------ queries

    def state(self, party: str) -> PartyState:
        return checks.party(self, party).state()

    def states(self, parties: Iterable[str] | None = None) -> dict[str, PartyState]:
        ids = self.parties if parties is None else parties
        return {pid: self.parties[pid].state() for pid in ids}

    @property
    def round(self) -> int | None:
        return self.drama.round if self.drama else None

    @property
    def open_options(self) -> tuple[r.Option, ...]:
        return tuple(self.options)

    def has_acted(self, party: str) -> bool:
        return checks.party(self, party).acted

    # ------------------------------------------------------------ snapshots (saved.py)

    def snapshot(self) -> saving.SavedGame:
        """The state of the table now as frozen data (the dice's position included, for
        `SeededDice`): cheap, whatever the length of the run so far."""
        return saving.save(self)

    def restore(self, saved: saving.SavedGame) -> None:
        """Back to the state of a `snapshot` of this game."""
        saving.restore(self, saved)

    # ------------------------------------------------------------ dramatic situations

    def begin_drama(self, name: str, parties: Sequence[str], round: Duration | None = None) -> r.DramaBegun:
        """A dramatic situation begins. `round` is its own round length (R13,
        point 14: `rounds of 1 hour`); None for the setting's `round`."""
        if self.drama is not None:
            raise DramaError("E002", f"'{name}' cannot begin while '{self.drama.name}' is still running",
                             expected=f"end drama before a new dramatic situation")
        seen: set[str] = set()
        for pid in parties:
            checks.party(self, pid)
            if pid in seen:
                raise DramaError("E002", f"{pid} is named twice in '{name}'")
            seen.add(pid)
        if not parties:
            raise DramaError("E002", f"'{name}' needs at least one party")
        if round is None:
            round_seconds = self.settings.round_seconds
        elif round.unit == "round" or round.seconds(0) <= 0:
            raise RuleError("R13", "E320", f"a round of '{name}' cannot last {round}",
                            expected="a length of in-world time above 0, in seconds, minutes, hours, days or weeks")
        else:
            round_seconds = round.seconds(0)
        self.drama = Drama(name, tuple(parties), self.time, round_seconds)
        for pid in parties:
            party = self.parties[pid]
            party.defeated = False
            party.acted = False
            party.lost_this_round = 0
        self.options = []
        self.taken = []
        return r.DramaBegun(name, tuple(parties), self.time, round_seconds, None if round is None else str(round))

    def end_drama(self, text: str | None = None) -> r.DramaEnded:
        drama = checks.in_drama(self, "end drama")
        self.time += drama.round_seconds                # the last round (R13, point 14)
        for pid in drama.parties:
            party = self.parties[pid]
            party.defeated = False
            party.acted = False
            party.lost_this_round = 0
        self.drama = None
        self.last_drama_end = self.time
        self.last_drama_name = drama.name
        self.rested = 0                                 # the rest counts from here (point 12)
        self.options = []
        self.taken = []
        return r.DramaEnded(drama.name, drama.round, self.time, text, self.states(drama.parties))

    # ------------------------------------------------------------ turns (turns.py)

    def roll_initiative(self, entries: Sequence[tuple[str, str | None, str | None, tuple[int, ...]]] = ()) -> r.Initiative:
        """R12: each party rolls a die (+ trait + treasure), or its results are given (see `turns`)."""
        return turns.roll_initiative(self, entries)

    def next_round(self) -> r.RoundBegun:
        """R13: the next round of the dramatic situation."""
        return turns.next_round(self)

    def hold(self, party: str) -> r.Held:
        """R9: the party lets its turn pass, keeping its action for later this round."""
        return turns.hold(self, party)

    # ------------------------------------------------------------ exchanges (exchange.py)

    def exchange(self, action: Action, defences: Sequence[Defence] = (),
                 ties: Sequence[str] = (), split: dict[str, int] | None = None) -> r.Exchange:
        """Resolve one aggressive action with its defences, ties and split (R2-R10).

        `ties` names the winner of each vote, in order (`GM` for the GM); `split`
        says how the winner spreads a losing side's loss (see `exchange.resolve`).
        """
        return exchange_rules.resolve(self, action, defences, ties, split)

    def plan(self, action: Action, defences: Sequence[Defence] = ()) -> r.ExchangePlan:
        """The exchange as `exchange` would roll it, refused with the same errors,
        without rolling a die or changing anything: each side's parties and
        efforts (uses, levels, GM modifier, cap, dice), and what each acting
        party spends (R2-R5)."""
        return exchange_rules.plan(self, action, defences)

    def take_option(self, party: str, kind: str, throw: Throw = NO_THROW, text: str | None = None) -> r.OptionTaken:
        """R8: the winner of a double win rerolls this round's losses, or dictates."""
        return exchange_rules.take_option(self, party, kind, throw, text)

    # ------------------------------------------------------------ recovery (recovery.py) and time

    def may_recover(self, party: str) -> bool:
        """Whether the party may take a recovery action now (R14, R15), without help."""
        return recovery.may_recover(self, party)

    def recover(self, party: str, trait: str | None = None, treasure: str | None = None,
                helpers: Sequence[Helping] = (), first: Throw = Throw.roll(),
                second: Throw | None = None) -> r.Recovery:
        """R14 (and R15 inside drama): roll the damage pool; sixes and the highest
        dice below them return. `second` gives the dice of a rushed recovery's
        second check."""
        return recovery.recover(self, party, trait, treasure, helpers, first, second)

    def pass_time(self, kind: str, seconds: int) -> r.TimePassed:
        """`calm` or `rest`: in-world time passes outside drama. Rests add up
        (RULES.md point 12): once the rest taken since the end of the last
        dramatic situation, or since the last full restore, reaches `full_rest`,
        every party is restored fully (R16) and the count starts again. Calm is
        not rest: it neither adds to the count nor resets it."""
        if self.drama is not None:
            raise RuleError("R16", "E316",
                            f"there is no {kind} during the dramatic situation {self.drama.name}",
                            expected="`end drama` first")
        if seconds < 0:
            raise DramaError("E104", "time cannot run backwards")
        self.time += seconds
        for party in self.parties.values():
            party.lost_this_round = 0
        restored: list[str] = []
        if kind == "rest":
            self.rested += seconds
        rested = self.rested
        full = kind == "rest" and rested >= self.settings.seconds(self.settings.full_rest)
        if full:
            self.rested = 0
            for pid, party in self.parties.items():
                if party.damage:
                    party.regain(party.damage)
                    restored.append(pid)
        return r.TimePassed(kind, seconds, self.time, tuple(restored), self.states(restored), rested, full)
