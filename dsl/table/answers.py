"""An entry's statements completed with the table's answers: the dice rolled at the table, the vote on a tie, the initiative and its re-rolls, a rushed recovery's second check, a `choose` block's option and a joint side's split.

Each answer is asked of the table's `Calls` (`dsl/table/asks.py`) with what
the rules say of it now (how many dice, why, what the choices are), in the
order the game master meets them; a call left unanswered is the engine's
(its dice from the entry's seeded stream). The statements that come out have
every die given and every tie named, so that the journal replays them exactly.
"""

from __future__ import annotations

from dataclasses import replace

from ..engine import SeededDice
from ..engine.checks import plural
from ..errors import DramaError
from ..syntax import nodes as n
from ..syntax.printer import actor_text
from .asks import Calls, ChoiceAsk, DiceAsk, InitiativeAsk, SplitAsk, TieAsk
from .trials import Trial


class Answers:
    """The table's answers put into an entry's statements (`table`: the `Table` they are played on)."""

    def __init__(self, table):
        self.table = table

    def complete(self, statements: list[n.Statement], calls: Calls, dice: SeededDice) -> list[n.Statement]:
        """The statements with the table's dice, ties and initiative in."""
        first = statements[0]
        if isinstance(first, n.Action):
            return self._exchange(statements, calls, dice)
        out = []
        for statement in statements:
            if isinstance(statement, n.Recover):
                statement = self._recovery(statement, calls, dice)
            elif isinstance(statement, n.Reroll) and statement.dice.kind != "given":
                pid = self.table.party(statement.party)
                lost = self.table.session.interpreter.game.parties[pid].lost_this_round \
                    if pid in self.table.session.interpreter.game.parties else 0
                faces = calls(DiceAsk(pid, f"{pid} rerolls the {plural(lost, 'die', 'dice')} it lost this round",
                                      lost, self.table.sides, exactly=lost)) if lost else None
                if faces:
                    statement = replace(statement, dice=n.Dice("given", statement.dice.pos or statement.pos,
                                                                tuple(faces)))
            elif isinstance(statement, n.Initiative) and not any(e.results for e in statement.entries):
                statement = self._initiative(statement, calls, dice)
            elif isinstance(statement, n.ChoiceBlock) and statement.given is None:
                question = self.table.trials.question(statement)
                label = calls(ChoiceAsk(question)) if question is not None else None
                if label is not None:
                    statement = replace(statement, given=n.Name(label, statement.pos))
            out.append(statement)
        return out

    def _recovery(self, statement: n.Recover, calls: Calls, dice: SeededDice) -> n.Recover:
        """The dice of a recovery check (R14), and of a rushed recovery's second check (R15): as many
        dice as the damage pool, then as many as came back."""
        pid = self.table.party(statement.party)
        game = self.table.session.interpreter.game
        if pid not in game.parties:
            return statement
        pos = statement.pos
        if statement.first.kind != "given":
            pool = game.state(pid).damage_pool
            if not pool:
                return statement                  # nothing to roll: the rules say what follows
            faces = calls(DiceAsk(pid, f"{pid} recovers: {plural(pool, 'die', 'dice')} of the damage pool", pool,
                                  self.table.sides, recovery=True, exactly=pool))
            if isinstance(faces, str):        # the dice with the chosen re-rolls, as written after `rolled`
                (read,) = self.table.program.read(f"{actor_text(pid)} recovers, rolled {faces}", "<dice>")
                statement = replace(statement, first=read.first)
            elif faces:
                statement = replace(statement, first=n.Dice("given", statement.first.pos or pos, tuple(faces)))
            else:
                return statement                  # the engine rolls both checks
        drama = game.drama
        if drama is None or pid not in drama.parties or statement.second.kind != "none":
            return statement
        # a rushed recovery: how many dice come back from the first check decides the second's
        trial = replace(statement, second=n.Dice("roll", pos))
        try:
            events = self.table.trials.trial([trial], SeededDice(dice.seed)).events
        except DramaError:
            return statement                      # the real trial names what is wrong
        recovery = next((e for e in reversed(events) if e.get("type") == "recovery"), None)
        back = recovery["checks"][0]["returning"] if recovery and recovery.get("checks") else 0
        if not back:
            return statement
        faces = calls(DiceAsk(pid, f"{plural(back, 'die comes', 'dice come')} back: the second check's dice", back,
                              self.table.sides, recovery=True, exactly=back))
        if isinstance(faces, str):
            (read,) = self.table.program.read(f"{actor_text(pid)} recovers, rolled {faces}", "<dice>")
            return replace(statement, second=read.first)
        if faces:
            return replace(statement, second=n.Dice("given", pos, tuple(faces)))
        return replace(trial, second=n.Dice("given", pos, tuple(dice.roll(back, self.table.sides))))

    def _initiative(self, statement: n.Initiative, calls: Calls, dice: SeededDice) -> n.Initiative:
        """Initiative results asked of the table, then the re-rolls of each tie among them (R12)."""
        game = self.table.session.interpreter.game
        if game.drama is None:
            return statement
        names = self.table.session.interpreter.names
        by_id = {names.party(e.party): e for e in statement.entries}
        parties = tuple(pid for pid in (by_id or game.drama.parties) if not game.state(pid).defeated)
        answer = calls(InitiativeAsk(parties))
        if not answer:
            return statement
        results = {pid: [int(answer[pid])] for pid in parties}
        pos = statement.pos

        def bonus(pid: str) -> int:
            entry = by_id.get(pid)
            if entry is None:
                return 0
            sheet = names.sheets[pid]       # a trait or a treasure adds its level (R12)
            return sum(sheet.traits.get(name.text, 0) or sheet.treasures.get(name.text, 0)
                       for name in entry.uses.names)

        while True:
            keys: dict[tuple[int, ...], list[str]] = {}
            for pid in parties:
                keys.setdefault(tuple(r + bonus(pid) for r in results[pid]), []).append(pid)
            tied = next((group for group in keys.values() if len(group) > 1), None)
            if tied is None or len(results[tied[0]]) > 1000:
                break
            value = results[tied[0]][-1] + bonus(tied[0])
            again = calls(InitiativeAsk(tuple(tied), f"{' and '.join(tied)} tie at {value}: their re-rolls"))
            for pid in tied:
                results[pid].append(int(again[pid]) if again else dice.roll(1, self.table.sides)[0])
        entries = []
        for pid in parties:
            entry = by_id.get(pid) or n.InitiativeEntry(n.Name(pid, pos), n.Uses(), (), pos)
            entries.append(replace(entry, results=tuple(results[pid])))
        return replace(statement, entries=tuple(entries))

    def _exchange(self, statements: list[n.Statement], calls: Calls, dice: SeededDice) -> list[n.Statement]:
        action = statements[0]
        rest = statements[1:]
        interpreter = self.table.session.interpreter
        game = interpreter.game

        def plan():
            defences = [s for s in [action, *rest] if isinstance(s, n.Defence)]
            ties = [s for s in rest if isinstance(s, n.Tie)]
            split = next((s for s in rest if isinstance(s, n.Split)), None)
            built = interpreter.engine_inputs(action, defences, ties, split)
            return game.plan(built[0], built[1])

        nodes = [action, *rest]
        for index, node in enumerate(nodes):
            if not isinstance(node, (n.Action, n.Defence)):
                continue
            lines = node.participants or (None,)
            for at, line in enumerate(lines):
                current = nodes[index]
                part = current.participants[at] if line is not None else current
                if part.dice.kind != "roll":
                    continue
                action, rest = nodes[0], nodes[1:]
                planned = plan()
                pid = self.table.party(part.party if line is not None else
                                  (current.actors[0] if isinstance(current, n.Action) else current.parties[0]))
                effort = next(e for side in (planned.attacker, *planned.defences) for e in side.efforts
                              if e.party == pid)
                available = game.state(pid).quintessence - planned.spending.get(pid, 0)
                faces = calls(DiceAsk(pid, _why(effort, available), effort.count, self.table.sides)) \
                    if effort.count else None           # a prompt that can take nothing is not asked
                if not faces:
                    faces = dice.roll(effort.count, self.table.sides) if effort.count else ()
                given = n.Dice("given", part.dice.pos or part.pos, tuple(faces)) if faces else \
                    n.Dice("none", part.dice.pos or part.pos)
                if line is not None:
                    lines_now = list(current.participants)
                    lines_now[at] = replace(line, dice=given)
                    nodes[index] = replace(current, participants=tuple(lines_now))
                else:
                    nodes[index] = replace(current, dice=given)
        action, rest = nodes[0], nodes[1:]
        if game.settings.ties == "vote" and not any(isinstance(s, n.Tie) for s in rest):
            planned = plan()
            attacker = planned.attacker
            mine = False
            ties = []
            for side in planned.defences:
                if side.value != attacker.value:
                    continue
                other = side.parties[0] if side.parties else "GM"
                winner = calls(TieAsk(attacker.name, side.name, attacker.value, (attacker.parties[0], other)))
                if winner is None:
                    continue
                if winner == attacker.parties[0]:
                    mine = True
                else:
                    ties.append(n.Tie(action.pos, None if winner == "GM" else n.Name(winner, action.pos)))
            if mine:
                ties.append(n.Tie(action.pos, n.Name(attacker.parties[0], action.pos)))
            nodes.extend(ties)
        return nodes

    def split(self, trial: Trial, statements: list[n.Statement], calls: Calls) -> n.Split | None:
        """The table's split of a joint side's loss (R10), when the trial's exchange has one to give."""
        if not isinstance(statements[0], n.Action) or any(isinstance(s, n.Split) for s in statements):
            return None
        result = trial.last
        if result is None:
            return None
        owed: dict[tuple[str, ...], int] = {}
        for side, comparison in zip(result.defences, result.comparisons):
            if not comparison.loss:
                continue
            loser = side if comparison.winner == result.attacker.name else result.attacker
            if len(loser.parties) > 1:
                owed[loser.parties] = owed.get(loser.parties, 0) + comparison.loss
        shares = {}
        for side, amount in owed.items():
            answer = calls(SplitAsk(side, amount))
            if answer:
                shares.update(answer)
        if not shares:
            return None
        pos = statements[0].pos
        return n.Split(pos, tuple((n.Name(pid, pos), int(amount)) for pid, amount in shares.items()))


def _why(effort, available: int) -> str:
    """"Kara may roll up to 3 dice: Sorcery 3" (and why fewer, when quintessence is short)."""
    pid = effort.party
    if effort.trait is None:
        reason = "no trait"
    else:
        reason = f"{effort.trait} {effort.trait_level}" + (f", GM {effort.gm:+d}" if effort.gm else "")
    count = effort.count
    dice = f"{count} {'die' if count == 1 else 'dice'}"
    if count < effort.cap:
        reason += f", but {available} quintessence available"
    return f"{pid} may roll up to {dice}: {reason}"
