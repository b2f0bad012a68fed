"""Static checks: every branch's names and placeholders, and statements that can never run."""

from __future__ import annotations

from .syntax import nodes as n
from . import placeholders
from .errors import MAX_COLLECTED, DramaError, Position, stopped_after
from .names import Names
from .statecheck import check_state
from .syntax.reparse import copied

_INFINITY = float("inf")


def has_blocks(script: n.Script) -> bool:
    """Whether the script needs the static checks before it runs: blocks, choices, flags or counters."""
    return any(s.is_block or s.uses_state for s in script.shared)


def choice_blocks(statements) -> list[n.ChoiceBlock]:
    """Every `choose` block, in every branch."""
    return [s for s in n.walk(statements) if type(s) is n.ChoiceBlock]


def check_script(script: n.Script, names: Names, start=None, settings=None) -> list[DramaError]:
    """The errors (names, roles, traits, treasures, placeholders) of every
    statement inside an `if` or `repeat`, whether or not a run reaches it, and
    warnings (W001-W003) for statements that can never run and loops that
    cannot end as written. The statements outside blocks are checked by the
    run itself. Names are looked up as the interpreter looks them up."""
    start = start or {}
    checker = _Checker(names)
    checker.choices = {}
    for block in choice_blocks(script.statements):
        checker.choices.setdefault(block.label.text, set()).update(o.label.text for o in block.options)
    state_errors = check_state(script.statements, names, start)
    checker.state_names = set(start) | {s.name.text for s in n.walk(script.statements) if type(s) is n.SetState}
    if _memory is not None:
        checker.kept = _memory.of(names, checker.choices, checker.state_names)
    try:
        checker.block(script.statements, inside=False)
    except _Full as full:          # (W021: as many errors as are shown; the rest is not checked)
        checker.found.append(stopped_after(full.position, "the check of the names in blocks"))
    ties = _vote_ties(script.statements) if settings is not None and settings.ties == "vote" else []
    return checker.found + state_errors + ties


def _rolls(s) -> bool:
    return s.dice.kind == "roll" or any(p.dice.kind == "roll" for p in s.participants)


def _vote_ties(statements) -> list[DramaError]:
    """W004: under `ties: vote`, exchanges whose dice the engine rolls, with no `tie` line: a
    strict run stops (E311) whenever those dice tie. One warning, at the first of them."""
    found: list[n.Action] = []

    def walk(body) -> None:
        body = list(body)
        for i, s in enumerate(body):
            if type(s) is n.Action:
                answers = []
                j = i + 1           # (indexes, not a slice of the rest: linear in the body)
                while j < len(body) and body[j].part_of_exchange:
                    answers.append(body[j])
                    j += 1
                rolled = _rolls(s) or any(type(a) is n.Defence and _rolls(a) for a in answers)
                if rolled and not any(type(a) is n.Tie for a in answers):
                    found.append(s)
            for inner in s.bodies():
                walk(inner)

    walk(statements)
    if not found:
        return []
    first = found[0]
    others = len(found) - 1
    more = [f"{others} more {'exchange rolls' if others == 1 else 'exchanges roll'} dice with no `tie` line "
            f"(line{'s' if others > 1 else ''} {', '.join(str(a.pos.line) for a in found[1:6])}"
            f"{', ...' if others > 5 else ''})"] if others else []
    return [DramaError("W004", "under `ties: vote` the engine rolls this exchange's dice, which may tie: "
                       "a strict run then stops with E311", position=first.pos,
                       hint="add a `tie PARTY` line after its defences, run with --lenient (a roll-off), or "
                            "give the setting another policy: `ties: actor`, `defender` or `random`",
                       notes=more)]


class _Kept:
    """What the check of each top-level statement met (the language server's processes: `remember()`),
    for the checks of the next texts, whose statements an edit left alone are the same nodes
    (dsl/syntax/reparse.py). What a statement's check meets depends on the statement, the
    names (the cast, the roles), the script's choices and flags, and the action just before it
    (R15's `can recover`): the first three are the memory's context, which a change empties, the
    last is part of each key. Every error it met is kept as it was given to `_Checker.add`, and
    given again to it: what `add` does with it (a failed party told once, W021 after as many errors as
    are shown) is done again, in its place."""

    def __init__(self, most: int = 20_000) -> None:
        self.most = most
        self.context: tuple | None = None
        self.met: dict[tuple, tuple] = {}      # (id, acted just before) -> (statement, [(error, pos)])

    def of(self, names: Names, choices: dict, state_names: set) -> "_Kept":
        context = (tuple(names.sheets.items()), tuple(names.roles.items()), choices, state_names)
        if context != self.context or len(self.met) >= self.most:
            self.context = context
            self.met = {}
        return self


_memory: _Kept | None = None


def remember(on: bool = True) -> None:
    """Keep what the check of each top-level statement met, for the next check of an edited script
    (the language server's processes; dsl/lsp/worker.py); `remember(False)` forgets."""
    global _memory
    _memory = _Kept() if on else None


class _Full(Exception):
    """The checker found MAX_COLLECTED errors: it stops there."""

    def __init__(self, position):
        super().__init__(position)
        self.position = position


class _Checker:
    def __init__(self, names: Names):
        self.names = names
        self.found: list[DramaError] = []
        self.choices: dict[str, set[str]] = {}      # each choice's option labels
        self.state_names: set[str] = set()          # every flag and counter
        self.told_failed: set[str] = set()          # failed parties already reported
        self.error_count = 0
        # the parties of the action just before the statement being checked, and its line
        self.acted_just_before: tuple[set[str], int] | None = None
        self.kept: _Kept | None = None              # (remembered checks of top-level statements)
        self.meeting: list | None = None           # what the top-level statement being checked met

    def add(self, error: DramaError, pos: Position | None = None) -> None:
        if self.meeting is not None:
            self.meeting.append((copied(error), pos))
        failed = getattr(error, "failed_party", None)
        if failed is not None:          # a party whose sheet failed: one diagnostic, not one a use
            if failed in self.told_failed:
                return
            self.told_failed.add(failed)
        error.at(pos)
        self.found.append(error)
        if not error.is_warning:
            self.error_count += 1
            if self.error_count >= MAX_COLLECTED:
                raise _Full(error.position)

    def guard(self, what, pos: Position, *args):
        """Call `what(*args)`, recording a DramaError instead of raising it."""
        try:
            return what(*args)
        except DramaError as error:
            self.add(error, pos)
            return None

    # ------------------------------------------------------------ walking

    def block(self, statements, inside: bool) -> None:
        """Check each statement: a block, `expect` or `set` by its own method (`visit_KIND`),
        any other inside a block by `statement`, and outside blocks only its texts' placeholders
        (every one of them: the run reports the first)."""
        acted: tuple[set[str], int] | None = None
        kept = None if inside else self.kept
        for statement in statements:
            self.acted_just_before = acted
            if kept is None:
                self.one(statement, inside)
            else:
                key = (id(statement), None if acted is None else (frozenset(acted[0]), acted[1]))
                hit = kept.met.get(key)
                if hit is not None and hit[0] is statement:
                    for error, pos in hit[1]:
                        self.add(copied(error), pos)
                else:
                    self.meeting = []
                    self.one(statement, inside)      # (stopped by _Full: nothing is kept of it)
                    kept.met[key] = (statement, self.meeting)
                    self.meeting = None
            if type(statement) is n.Action:
                acted = ({self.names.resolved(name.text) for name in statement.actors} - {None},
                         statement.pos.line)
            elif not statement.part_of_exchange:
                acted = None

    def one(self, statement, inside: bool) -> None:
        """Check one statement (see `block`)."""
        visit = getattr(self, "visit_" + type(statement).__name__, None)
        if visit is not None:
            visit(statement)
        elif inside or statement.texts:
            self.statement(statement)

    def _acted(self, c: n.Condition) -> str | None:
        """Why `PARTY can recover` cannot hold right after the party's own action, if it is that."""
        acted = self.acted_just_before
        if type(c) is not n.CanRecover or acted is None:
            return None
        pid = self.names.resolved(c.party.text)
        if pid is None or pid not in acted[0]:
            return None
        return (f"{pid} acted at line {acted[1]}, in this round, and a party that has acted may not "
                "recover before the next round (R15)")

    def visit_ChoiceBlock(self, s: n.ChoiceBlock) -> None:
        for option in s.options:
            if option.condition is not None:
                self.condition(option.condition)
            self.block(option.body, inside=True)

    def visit_Expect(self, s: n.Expect) -> None:
        self.condition(s.condition)

    def visit_SetState(self, s: n.SetState) -> None:
        if not isinstance(s.value, bool):
            self.value(s.value)

    def visit_IfBlock(self, s: n.IfBlock) -> None:
        settled: tuple[int, str] | None = None        # (line, why) once an arm always runs
        seen: dict[str, int] = {}
        just_acted = self.acted_just_before
        for arm in s.arms:
            if arm.condition is not None:
                self.condition(arm.condition)
            never = None
            self.acted_just_before = just_acted
            acted = self._acted(arm.condition) if arm.condition is not None else None
            if acted is not None and settled is None:
                never = f"'{arm.text}' can never hold here: {acted}"
            elif settled is not None:
                never = f"the condition at line {settled[0]} always holds"
            elif arm.condition is not None and arm.text in seen:
                never = f"line {seen[arm.text]} has the same condition"
            elif arm.condition is not None:
                known, why = self.always(arm.condition)
                if known is False:
                    never = f"'{arm.text}' can never hold: {why}"
                elif known is True:
                    settled = (arm.pos.line, why)
                seen[arm.text] = arm.pos.line
            if never is not None:
                what = "this `else`" if arm.condition is None else "this arm"
                self.add(DramaError("W001", f"{what} never runs: {never}", position=arm.pos))
            self.block(arm.body, inside=True)

    def visit_Loop(self, s: n.Loop) -> None:
        if s.condition is not None:
            self.condition(s.condition)
            known, why = self.always(s.condition)
            if known is True:
                self.add(DramaError("W001", f"this loop's body never runs: '{s.text}' always holds ({why})",
                                    position=s.pos))
            elif known is False:
                self.add(DramaError("W002", f"this loop always runs to its bound of {s.bound}: "
                                    f"'{s.text}' can never hold ({why})", position=s.pos))
        if s.bound == 0 and s.unit:        # (no unit: the bound is missing, which is E005)
            self.add(DramaError("W001", "this loop's body never runs: its bound is 0", position=s.pos))
        if s.unit == "rounds" and not any(type(x) is n.Round for x in n.walk(s.body)):
            self.add(DramaError("W003", f"this loop counts {s.bound} rounds, but its body begins no round",
                                position=s.pos,
                                expected="a `round` line in the loop, so that each pass is a round",
                                hint=f"write 'at most {s.bound} times' if the passes are not rounds"))
        self.block(s.body, inside=True)

    # ------------------------------------------------------------ names

    def statement(self, s: n.Statement) -> None:
        it = self.names
        kind = type(s)
        if kind is n.Action or kind is n.Defence:
            names = s.actors if kind is n.Action else s.parties
            ids = [self.guard(it.party, s.pos, name) for name in names]
            if kind is n.Action:          # in the order of the line: the targets, then `with`
                for name in ((s.target,) if s.target is not None else ()) + s.extra_targets:
                    self.guard(it.party, s.pos, name)
            if len(names) == 1 and not s.participants:
                if ids[0] is not None:
                    self.guard(it.uses, s.pos, ids[0], s.uses)
            for line in s.participants:
                pid = self.guard(it.party, line.pos, line.party)
                if pid is not None:
                    self.guard(it.uses, line.pos, pid, line.uses)
        elif kind is n.Recover:
            pid = self.guard(it.party, s.pos, s.party)
            if pid is not None:
                self.guard(it.uses, s.pos, pid, s.uses)
            for helper in s.helpers:
                hid = self.guard(it.party, s.pos, helper.party)
                if hid is not None:
                    self.guard(it.uses, s.pos, hid, helper.uses)
        elif kind is n.Initiative:
            for entry in s.entries:
                pid = self.guard(it.party, entry.pos, entry.party)
                if pid is not None:
                    self.guard(it.uses, entry.pos, pid, entry.uses)
        elif kind is n.DramaBegin:
            for name in s.parties:
                self.guard(it.party, s.pos, name)
        elif kind is n.Hold or kind is n.Reroll:
            self.guard(it.party, s.pos, s.party)
        elif kind is n.MemberLost:
            pid = self.guard(it.party, s.pos, s.party)
            if pid is not None:
                self.guard(it.member, s.pos, pid, s.member)
        elif kind is n.Dictate:
            self.guard(it.party, s.pos, s.party)
            self.text(s.text, s)
        elif kind is n.Tie and s.winner is not None:
            self.guard(it.party, s.pos, s.winner)
        elif kind is n.Split:
            for name, _ in s.shares:
                self.guard(it.party, s.pos, name)
        elif kind is n.Scene:
            self.text(s.title, s)
        elif kind is n.Narration:
            self.text(s.text, s)
        elif kind is n.EndDrama and s.text is not None:
            self.text(s.text, s)

    def text(self, text: str, s: n.Statement) -> None:
        if not placeholders.has_placeholders(text):
            return
        it = self.names
        known = it.known()
        for one in placeholders.placeholders(text, Position(s.pos.file, s.pos.line, s.column)):
            if isinstance(one, DramaError):
                self.add(one)
                continue
            inside, at = one
            if inside in self.state_names:
                continue            # a flag or counter (dsl/statecheck.py checks it is set)
            named = self.guard(placeholders.split, at, inside, at, known)
            if named is not None and named[0] in known:
                self.guard(it.party, at, n.Name(named[0], at))

    def condition(self, condition: n.Condition) -> None:
        it = self.names
        for c in condition.tests():
            kind = type(c)
            if kind is n.Defeated or kind is n.CanRecover or kind is n.LastExchange and c.party is not None:
                self.guard(it.party, c.pos, c.party)
            elif kind is n.Compare:
                self.value(c.left)
                self.value(c.right)
            elif kind is n.ChoiceIs:
                self.choice_is(c)

    def value(self, v) -> None:
        for _, q in (v.terms if type(v) is n.Sum else ((1, v),)):
            if q.party is not None:
                self.guard(self.names.possessed, q.pos, q.party)

    def choice_is(self, c: n.ChoiceIs) -> None:
        from .errors import did_you_mean, one_of
        labels = self.choices.get(c.choice.text)
        if labels is None:
            self.add(DramaError("E207", f"the script makes no choice '{c.choice.text}'", position=c.choice.pos,
                                expected=f"one of {one_of(self.choices)}" if self.choices else
                                "a `choose` block of that label", hint=did_you_mean(c.choice.text, self.choices)))
        elif c.option.text not in labels:
            self.add(DramaError("E207", f"the choice '{c.choice.text}' has no option '{c.option.text}'",
                                position=c.option.pos, expected=f"one of {one_of(sorted(labels))}",
                                hint=did_you_mean(c.option.text, labels)))

    # ------------------------------------------------------------ what always (or never) holds

    def always(self, c: n.Condition) -> tuple[bool | None, str]:
        """(True, why) when the condition always holds, (False, why) when it never
        does, (None, "") when it depends on the play."""
        kind = type(c)
        if kind is n.Compare:
            return self.compare(c)
        if kind is n.Not:
            known, why = self.always(c.operand)
            return (None if known is None else not known), why
        if kind is n.And or kind is n.Or:
            left, why_left = self.always(c.left)
            right, why_right = self.always(c.right)
            decisive = kind is n.Or          # True decides `or`, False decides `and`
            if left is decisive:
                return decisive, why_left
            if right is decisive:
                return decisive, why_right
            if left is not None and right is not None:
                return left, why_left
        return None, ""

    def range(self, q: n.Quantity | n.Sum) -> tuple[float, float, str]:
        if type(q) is n.Sum:
            return -_INFINITY, _INFINITY, ""
        if q.kind == "number":
            return q.value, q.value, ""
        if q.kind == "round":
            return 0, _INFINITY, "the round is never below 0"
        if q.kind == "counter":
            return -_INFINITY, _INFINITY, ""
        try:
            pid = self.names.possessed(q.party)
        except DramaError:
            return 0, _INFINITY, ""
        sheet = self.names.sheet(pid)
        if sheet is None:           # a failed party: its sheet's error is the one diagnostic
            return 0, _INFINITY, ""
        most = sheet.quintessence
        what = "quintessence" if q.kind == "quintessence" else "in its damage pool"
        return 0, most, f"{pid} has from 0 to {most} {what}"

    def compare(self, c: n.Compare) -> tuple[bool | None, str]:
        low1, high1, why1 = self.range(c.left)
        low2, high2, why2 = self.range(c.right)
        why = "; ".join(w for w in (why1, why2) if w)
        op = c.op
        if op in (">", ">="):      # written the other way round
            low1, high1, low2, high2 = low2, high2, low1, high1
            op = "<" if op == ">" else "<="
        if op == "<":
            if high1 < low2:
                return True, why
            if low1 >= high2:
                return False, why
        elif op == "<=":
            if high1 <= low2:
                return True, why
            if low1 > high2:
                return False, why
        else:                      # = and !=
            if high1 < low2 or high2 < low1:
                return op == "!=", why
            if low1 == high1 == low2 == high2:
                return op == "=", why
        return None, ""

