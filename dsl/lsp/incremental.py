"""The dry run of `drama check`, resumed where an edit begins: the interpreter's state before each top-level statement is remembered, and a new text runs again only from its first changed statement."""

# `pipeline.check(..., dry_run=DryRuns().run)` hands the dry run over. A run
# is the same as one before it up to the first top-level statement that
# differs (as written, with its own positions), given the same scenario (setting, cast,
# roles, state), seed, mode and budget: the state before that statement is
# `Interpreter.snapshot()` then (frozen data, the dice's place included, as
# `drama play`'s undo uses it), with the errors met so far (the interpreter
# never reads its events: a resumed dry run's log lacks the events before
# its start, which no check looks at). So
# the new run restores it and steps on from there. When the run before
# stopped (its budget spent, W020, or its errors full, W021) inside a
# statement before the first changed one, the new run stops there too: its
# outcome is the one remembered. An edit of the 5,000-line benchmark's
# exchanges after its loops (whose budget runs out at line 157) costs no dry
# run at all.
#
# The loop below is `Interpreter.run`'s, with a snapshot before each step.
# Errors are remembered as copies (worker.dumps) before the check places them
# in their files (placing changes them), and handed out as new copies.

from __future__ import annotations

import dataclasses
import pickle

from ..collector import paused_collector
from ..interpreter.core import BudgetSpent, ErrorsFull
from .worker import dumps

__all__ = ["DryRuns"]


@dataclasses.dataclass
class _Run:
    """One dry run remembered: what it ran on, and before each statement it stepped, the state."""

    key: tuple
    statements: tuple                 # the script's top-level statements, each with its own positions
    states: list                      # states[i]: (RunState, how many errors were met) before step i
    errors: bytes                     # every error met (pickled copies), in order
    stopped: bool                     # the run stopped inside occurrences[len(states) - 1]
    spent: object                     # the interpreter's `spent` and `full_at` at its end
    full_at: object
    final: tuple | None               # the state after the last statement (a run that did not stop)


def _key(interpreter) -> tuple:
    names = interpreter.names
    return (interpreter.settings, tuple(names.sheets.items()), tuple(names.roles.items()), interpreter.seed,
            interpreter.lenient, interpreter.mode, interpreter.cursor.budget, interpreter.checks_expectations,
            tuple(interpreter.state.values.items()), interpreter.events[0] if interpreter.events else None)


def _common(old, new) -> int:
    """How many leading statements are the same."""
    k = 0
    for a, b in zip(old, new):
        if a is not b and a != b:
            break
        k += 1
    return k


class DryRuns:
    """The last few dry runs of a checking process, to resume the next one from."""

    def __init__(self, most: int = 4) -> None:
        self.most = most
        self.runs: list[_Run] = []
        self.resumed_at: int | None = None     # (for the tests and the benchmark: where the last run began)

    def run(self, interpreter, script) -> None:
        """The dry run of `script` on a fresh `interpreter`, as `interpreter.run(script)` does it."""
        key = _key(interpreter)
        occurrences = list(script.occurrences())
        # compared as each is written (its positions its own): a parse that recovered from an error
        # shares no node between repeated lines (nodes.Script), the same statements all the same
        statements = script.statements
        best, start = None, 0
        for old in self.runs:
            if old.key == key:
                # (only the statements it stepped: a run that stopped depends on those alone)
                k = _common(old.statements[:len(old.states)], statements)
                if best is None or k > start:
                    best, start = old, k
        sink = interpreter.sink
        if best is not None and best.stopped and start >= len(best.states):
            # stopped inside a statement before the first change: the same stop
            for error in pickle.loads(best.errors):
                sink.report(error)
            interpreter.spent, interpreter.full_at = best.spent, best.full_at
            self.resumed_at = None
            self._keep(best)
            return
        states: list = []
        if best is not None and start > 0:
            start = min(start, len(best.states))
            if start < len(best.states):
                state, count = best.states[start]
            else:                               # (the run before ended: it goes on from its end)
                state, count = best.final
            interpreter.restore(state)
            for error in pickle.loads(best.errors)[:count]:
                sink.report(error)
            states = best.states[:start]
        else:
            start = 0
        self.resumed_at = start
        stopped = False
        step = interpreter.step
        with paused_collector():
            try:
                for index in range(start, len(occurrences)):
                    states.append((interpreter.snapshot(), len(sink.errors)))
                    statement, shift = occurrences[index]
                    step(statement, shift)
            except BudgetSpent as stop:
                interpreter.spent = stop.error
                stopped = True
            except ErrorsFull as full:
                interpreter.full_at = full.position
                stopped = True
            final = None if stopped else (interpreter.snapshot(), len(sink.errors))
            interpreter.finish()
        self._keep(_Run(key, statements, states, dumps(list(sink.errors)), stopped,
                        interpreter.spent, interpreter.full_at, final))

    def _keep(self, run: _Run) -> None:
        self.runs = [run, *(r for r in self.runs if r is not run)][:self.most]
