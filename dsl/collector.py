"""The cyclic collector, managed here only: paused while scripts are parsed and run, and what a one-shot command read frozen; with the other tricks that make long logs and simulations fast, each explained once, here.

- **The cyclic garbage collector** is managed here, and only here. Parsing
  and running make many small objects and no reference cycles, so the
  collector finds nothing to free, yet its full collections walk the whole
  growing tree or event log, which makes a long run quadratic. So it is
  *paused* while a script is parsed, run or simulated (`paused_collector`),
  and a one-shot command (`drama run`, `drama simulate`), once its scenario
  is compiled, *freezes* what it has read (`one_shot`: `gc.freeze()` moves
  it out of the collector's sight, so that no later collection, nor the one
  Python makes at exit, walks the parsed script again, and forked workers
  do not write to its pages). Pausing is safe because nothing
  on these paths keeps a cycle (tests/test_cycles.py checks that a finished
  run leaves nothing to collect): the interpreter's handler table is the
  class's, not bound methods held by the instance; only errors make cycles
  (an exception and its traceback's frames), and a simulation's loop collects
  them now and then (`tidy`).
- **The command line** (`drama ...`, `python -m dsl ...`) makes the
  collector rare before its first import (`for_the_command_line`, called by
  `dsl/__main__.py`): a start builds a hundred dataclasses and reads a
  scenario, which made the collector run some fifty times for nothing, a
  tenth of a `drama check`; it now runs once in 50,000 new objects, not
  700. A one-shot command (`run`, `check`, `render` ...) keeps it so and, as
  it exits, freezes what it made, so that the collection Python makes at
  exit walks nothing either (another tenth). A lasting one (`lsp`, `play`,
  `simulate`, `test`) has it back as it was as it starts
  (`for_a_lasting_command`); which is which is said in the table of
  subcommands, `dsl/cli/__init__.py`.
- **The language server's worker processes** (`dsl/lsp/worker.py`) live as
  long as the editor and remember what each check met (parses, dry runs),
  so their heap only grows: a full collection there took a second under
  load in the middle of a check. So a worker runs with the collector off
  for good (`off_for_good`), and collects when the writer pauses
  (`collect`, the job the server gives after a quiet moment), or, if no
  pause comes, before a job once the garbage of about a hundred checks has
  piled up (`collect_if_piled`).
- **A repeated line is parsed once, and its node shared** by its
  occurrences, each with a shift of lines (`nodes.Script`); the one place
  that shifts positions is `dsl/syntax/occurrences.py`.
- **Values worked out from statements are cached by the statements' identity**
  (`StatementCache`, `dsl/statement_cache.py`): `drama simulate` runs one parsed script many times, and
  the engine's inputs of an exchange depend only on its statements, so they
  are built once per exchange as written.
- **`drama simulate` has a fast path**: the script compiled once into steps
  (`dsl/interpreter/fastpath.py`), whose exchanges of one party against one
  go through `dsl/engine/duel.py`, the engine's exchange specialised for
  that case, without result objects; property tests keep both equal to the
  interpreter and `Game.exchange` (tests/test_compiled.py, tests/test_duel.py).
- **Result dataclasses are built without `object.__setattr__`** (`@frozen`, in
  `dsl/frozen.py`, a leaf module that the engine, the syntax tree and the
  other frozen records share).
"""

from __future__ import annotations

import atexit
import gc
from contextlib import contextmanager
from typing import Iterator


@contextmanager
def paused_collector() -> Iterator:
    """Pause the cyclic collector for the block (nested pauses are fine); it
    yields `tidy()`, which collects the youngest generation, for a loop that
    runs long enough to leave some garbage of its errors behind."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield _tidy
    finally:
        if was_enabled:
            gc.enable()


def _tidy() -> None:
    gc.collect(0)


# how many new objects the command line lets come between two collections (Python's default is
# 700): more than a start makes, so a start is not collected at all, while a command that makes
# millions (a long script's run, a pile of errors) is still collected now and then
COMMAND_LINE_THRESHOLD = 50_000
_thresholds_before: tuple | None = None


def for_the_command_line() -> None:
    """The command line's start: the collector made rare, and what is left frozen at exit (above)."""
    global _thresholds_before
    if _thresholds_before is None:
        _thresholds_before = gc.get_threshold()
        gc.set_threshold(COMMAND_LINE_THRESHOLD, *_thresholds_before[1:])
        atexit.register(gc.freeze)


def for_a_lasting_command() -> None:
    """A command that runs for long (a server, the table, a simulation): the collector as it was,
    if the command line changed it."""
    global _thresholds_before
    if _thresholds_before is not None:
        gc.set_threshold(*_thresholds_before)
        atexit.unregister(gc.freeze)
        _thresholds_before = None


def off_for_good() -> None:
    """A long-lived process that collects only when told to (the language server's workers, above)."""
    gc.disable()


def collect() -> None:
    """Collect every generation now: the cycles the checks left (their errors' tracebacks ...)."""
    gc.collect()


# how many new objects that may hold cycles a process with the collector off lets pile up before
# `collect_if_piled` collects them (about a hundred checks' worth)
MOST_GARBAGE = 3_000_000


def collect_if_piled() -> None:
    """Collect when more than MOST_GARBAGE new objects have piled up since the last collection."""
    if gc.get_count()[0] > MOST_GARBAGE:
        gc.collect()


def one_shot() -> None:
    """For a command that compiles one scenario and exits: what was read so far
    is frozen, out of the collector's sight (see above)."""
    gc.freeze()



def settle() -> None:
    """For a process that grows for hours, a step at a time (`drama play`, after each entry): collect
    what is new since the last step, then freeze what is left, so that the collections the next steps
    trigger walk only what those steps made, not the whole night (they grew with it)."""
    gc.collect()
    gc.freeze()
