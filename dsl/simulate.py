"""`drama simulate`: run a scenario many times with fresh dice and summarise the odds, with 95% confidence intervals.

How it works (docs/simulate.md)
-------------------------------
The scenario is loaded, bound, parsed and its includes read in once (per
process). Run `i` (0 to N-1) has the seed `run_seed(S, i)`, lenient ties,
and every die the script gives rolled afresh (`roll_given`), so a play log
simulates as well as a script of `roll` forms. It is the run of the
scenario's compiled plan (`simulation_plan`), counted straight into a
`Tally`; or, for a script or a run the plan does not take, a fresh
`Interpreter` on the script (through the fast path where it can), whose
event log is reduced by `summarise` to a small summary, added into an
`Aggregate` (`simulation_counts`). Either way the counts are the same, and
merge in any order: the result depends on S and N only, never on how the
runs were spread over processes (`--jobs`).

The statistics and the report made of the counts are in `simulation_report`.
"""

from __future__ import annotations

import hashlib
import os
import shlex
import sys
import time
from dataclasses import dataclass, field
from typing import Callable, Iterable, Mapping

from .errors import DramaError
from .simulation_counts import Aggregate, summarise
from .simulation_report import (CONFIDENCE, FORMATS, REPORT_VERSION, Z, distribution, proportion, render, report,
                                to_json, wilson)
from .collector import paused_collector
from .simulation_plan import Bail

MAX_CHUNK = 250             # the most runs a worker does before reporting back


# ---------------------------------------------------------------------------
# seeds

def run_seed(seed: int, index: int) -> int:
    """The engine seed of run `index` of a simulation with seed `seed`: the first
    63 bits of BLAKE2b("S:i"), so a run's dice depend on S and i only."""
    digest = hashlib.blake2b(f"{seed}:{index}".encode("ascii"), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> 1


# ---------------------------------------------------------------------------
# the scenario, ready to run

@dataclass
class Prepared:
    """A scenario compiled once (`pipeline.Program`), to be run many times."""

    path: str
    program: object             # pipeline.Program
    casts: tuple[str, ...] = ()
    roles: tuple[tuple[str, str], ...] = ()
    choices: tuple[tuple[str, str], ...] = ()      # --choose: fixed for every run
    # (the compiled plan, or None and why not: made on first use, in each process)
    _plan: tuple | None = field(default=None, repr=False, compare=False)

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        state["_plan"] = None           # (a compiled function: each process compiles its own)
        return state

    def plan(self):
        """(the scenario's compiled plan, None), or (None, why it has none): see
        `dsl/simulation_plan.py`."""
        if self._plan is None:
            from .simulation_plan import Unsupported, compile_plan
            program = self.program
            try:
                self._plan = (compile_plan(program.script, program.names, program.scenario.setting,
                                           program.scenario.state), None)
            except Unsupported as why:
                self._plan = (None, str(why))
        return self._plan

    @property
    def script(self):
        return self.program.script

    @property
    def scenario(self):
        return self.program.scenario

    @property
    def sheets(self):
        return self.program.scenario.cast

    def run(self, seed: int, lean: bool = True) -> list[dict]:
        """One run's events; a DramaError is raised as `drama run` would print it.

        `lean`: an exchange logs only its defeats, not its mechanics (all that
        `summarise` reads); without it the events are those of `drama run
        --seed SEED --lenient --roll-given`."""
        from .interpreter import FRESH, SIMULATE
        return self.program.run(seed=seed, lenient=True, mode=SIMULATE if lean else FRESH,
                                choices=dict(self.choices) or None)

    def reproduce(self, seed: int) -> str:
        """The command that replays the run with this engine seed."""
        words = ["drama", "run", self.path, "--seed", str(seed), "--lenient", "--roll-given"]
        for cast in self.casts:
            words += ["--cast", cast]
        for role, party in self.roles:
            words += ["--role", f"{role}={party}"]
        for choice, option in self.choices:
            words += ["--choose", f"{choice}={option}"]
        return " ".join(shlex.quote(word) for word in words)


def path_taken(prepared: Prepared) -> str:
    """Which way the runs go (`drama simulate --verbose`): the compiled plan
    (`dsl/simulation_plan.py`); or else the compiled fast path
    (`dsl/interpreter/fastpath.py`), or the interpreter; and why."""
    plan, not_planned = prepared.plan()
    if plan is not None:
        return (f"plan: taken; {plan.duels} of the script's exchanges are duels, each run counted as it goes "
                "(a run the plan does not take goes through the fast path)")
    fast, why = prepared.program.fast_path()
    if fast is None:
        return (f"plan: not taken ({not_planned})\n"
                f"fast path: not taken ({why}); every run goes through the interpreter")
    return (f"plan: not taken ({not_planned})\n"
            f"fast path: taken; {fast.duels} of the script's exchanges are duels (engine.duel), "
            "the others, and any duel the engine must refuse, go through Game.exchange")


def prepare(path: str, cast: Iterable[str] | None = None, roles: Mapping[str, str] | None = None,
            choices: Mapping[str, str] | None = None) -> Prepared:
    """Compile a scenario, as `drama run` would, once for all runs. Raises DramaError
    (E207 for a `choices` answer that names no choice or option of the script)."""
    from .interpreter.choices import check_answers
    from .pipeline import Program
    casts = tuple(cast or ())
    roles = dict(roles or {})
    program = Program.compile(path, cast=list(casts) or None, roles=roles)
    if choices:
        check_answers(choices, program.choices)
    return Prepared(str(path), program, casts, tuple(roles.items()), tuple((choices or {}).items()))


# how many runs `simulate` makes first, to see whether every run stops with the same error
PROBE = 5


def _same_failure(first: Aggregate) -> str | None:
    """The error (as printed) each of the first runs stopped with, if they all stopped with one code."""
    if first.failed != PROBE or len(first.errors) != 1:
        return None
    return next(iter(first.errors.values()))[3]


def _skipping(progress: Callable[[int], None] | None, count: int) -> Callable[[int], None] | None:
    """`progress`, not told of the first `count` runs (told once already)."""
    if progress is None:
        return None
    left = [count]

    def told(k: int) -> None:
        skip = min(left[0], k)
        left[0] -= skip
        if k - skip:
            progress(k - skip)
    return told


def run_range(prepared: Prepared, seed: int, start: int, stop: int,
              progress: Callable[[int], None] | None = None, interrupt: "_Interrupt | None" = None) -> Aggregate:
    """Runs start..stop-1 of a simulation with seed `seed`, counted into one Aggregate.

    `progress(1)` is called after each run. Between two runs, a Ctrl-C caught
    by `interrupt` (or a KeyboardInterrupt raised by `progress`) stops the loop:
    the KeyboardInterrupt propagates with the runs counted so far in its
    `aggregate` attribute."""
    aggregate = Aggregate()
    plan, _ = prepared.plan()
    tally = plan.tally() if plan is not None else None
    planned = plan.runner(tally) if plan is not None else None
    # the runs make no cycles, but their errors do: collected now and then (dsl/collector.py)
    with paused_collector() as tidy:
        try:
            for index in range(start, stop):
                if interrupt is not None and interrupt.hit:
                    raise KeyboardInterrupt
                engine_seed = run_seed(seed, index)
                if planned is not None:
                    try:
                        planned(engine_seed)
                    except Bail:
                        _one_run(prepared, aggregate, index, engine_seed)
                    else:
                        if tally.first is None:
                            tally.first = index
                else:
                    _one_run(prepared, aggregate, index, engine_seed)
                if index % 1000 == 999:
                    tidy()
                if progress is not None:
                    progress(1)
        except KeyboardInterrupt as stopped:
            if tally is not None:
                tally.into(aggregate)
            stopped.aggregate = aggregate
            raise
    if tally is not None:
        tally.into(aggregate)
    return aggregate


def _one_run(prepared: Prepared, aggregate: Aggregate, index: int, engine_seed: int) -> None:
    """Run `index` through the fast path or the interpreter, counted into `aggregate`."""
    try:
        events = prepared.run(engine_seed)
    except DramaError as error:
        aggregate.fail(index, engine_seed, error)
    else:
        aggregate.add(index, summarise(events))


class _Interrupt:
    """While active, Ctrl-C (SIGINT) only sets `hit`: the loops stop between two
    runs, so that no run is ever half counted. Outside the main thread (where
    signals cannot be caught) it does nothing and Ctrl-C raises as usual."""

    def __init__(self):
        self.hit = False
        self._previous = None

    def __enter__(self) -> "_Interrupt":
        import signal
        import threading
        if threading.current_thread() is threading.main_thread():
            self._previous = signal.signal(signal.SIGINT, self._handle)
        return self

    def _handle(self, signum, frame) -> None:
        self.hit = True

    def __exit__(self, *exc) -> None:
        if self._previous is not None:
            import signal
            signal.signal(signal.SIGINT, self._previous)


# ---------------------------------------------------------------------------
# several processes

_WORKER: dict = {}
# with the `fork` start method a worker starts with the parent's prepared
# scenario in memory; INHERIT = False makes it read the scenario again (tests)
INHERIT = True


def _end_with_parent(parent: int) -> None:
    """A worker ends as soon as its parent has ended, however it ended (Ctrl-C,
    SIGKILL, the kernel's out-of-memory killer): on Linux the kernel sends it
    SIGKILL (`PR_SET_PDEATHSIG`, through ctypes); everywhere a thread waits on
    the pipe that multiprocessing keeps from the parent (its write end closes when
    the parent ends) and ends the worker; without one, it watches `os.getppid()`."""
    import threading
    if sys.platform.startswith("linux"):
        try:
            import ctypes
            import signal
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(1, int(signal.SIGKILL), 0, 0, 0)       # 1: PR_SET_PDEATHSIG
        except (OSError, AttributeError, ValueError):         # pragma: no cover - no libc to call
            pass
    if os.getppid() != parent:           # it ended before the worker got here
        os._exit(1)
    import multiprocessing
    mother = multiprocessing.parent_process()

    def watch() -> None:
        if mother is not None:
            mother.join()                # returns when the parent's end of the pipe closes
        else:                            # pragma: no cover - every start method has a parent_process
            while os.getppid() == parent:
                time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch, name="drama-parent-watch", daemon=True).start()


def _worker_start(path: str, casts: tuple[str, ...], roles: tuple[tuple[str, str], ...], parent: int,
                  choices: tuple[tuple[str, str], ...] = ()) -> None:
    """Each worker has the scenario loaded and parsed once; Ctrl-C is the parent's
    to handle; it ends when the parent ends (`_end_with_parent`).

    An error is kept for the first chunk to send back (a worker whose
    initializer raised would be replaced by another, forever)."""
    import signal
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _end_with_parent(parent)
    _WORKER.pop("error", None)
    inherited = _WORKER.pop("inherited", None)
    if inherited is not None and INHERIT:
        _WORKER["prepared"] = inherited
        return
    try:
        _WORKER["prepared"] = prepare(path, casts, dict(roles), dict(choices))
    except DramaError as error:
        _WORKER["error"] = (error.code, error.message, error.position)


def _worker_chunk(task: tuple[int, int, int]) -> tuple[int, Aggregate | None, tuple | None]:
    seed, start, stop = task
    if "error" in _WORKER:
        return 0, None, _WORKER["error"]
    return stop - start, run_range(_WORKER["prepared"], seed, start, stop), None


def cpus() -> int:
    """The CPUs this process may run on (`--jobs auto`)."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def chunks(runs: int, jobs: int) -> list[tuple[int, int]]:
    """The runs cut into ranges: about 32 per process (so that none waits long
    for the last one to finish), at most MAX_CHUNK runs each."""
    size = max(1, min(MAX_CHUNK, -(-runs // (jobs * 32))))
    return [(start, min(start + size, runs)) for start in range(0, runs, size)]


def _in_processes(prepared: Prepared, seed: int, ranges: list[tuple[int, int]], jobs: int,
                  progress: Callable[[int], None] | None, interrupt: _Interrupt) -> tuple[Aggregate, bool]:
    """The ranges spread over a pool of `jobs` worker processes; the parent adds up
    what they send back. On Ctrl-C the workers are stopped and the chunks they
    were running are dropped."""
    import multiprocessing
    total = Aggregate()
    _WORKER["inherited"] = prepared          # a forked worker finds it there
    try:
        pool = multiprocessing.Pool(jobs, initializer=_worker_start,
                                    initargs=(prepared.path, prepared.casts, prepared.roles, os.getpid(), prepared.choices))
    finally:
        _WORKER.pop("inherited", None)
    try:
        results = pool.imap_unordered(_worker_chunk, [(seed, a, b) for a, b in ranges])
        left = len(ranges)
        while left:
            if interrupt.hit:
                raise KeyboardInterrupt
            try:
                count, part, error = results.next(timeout=0.05)
            except multiprocessing.TimeoutError:
                continue
            if error is not None:               # the scenario changed since it was read here
                code, message, position = error
                raise DramaError(code, message, position=position)
            left -= 1
            total.merge(part)
            if progress is not None:
                progress(count)
        pool.close()
    except KeyboardInterrupt:
        pool.terminate()
        return total, True
    except BaseException:
        pool.terminate()
        raise
    finally:
        pool.join()
    return total, False


@dataclass
class Simulation:
    """What `simulate` returns: the counts, and how the simulation went."""

    prepared: Prepared
    seed: int
    runs: int                   # the runs asked for
    aggregate: Aggregate
    interrupted: bool = False
    seconds: float = 0.0        # wall time (never written into a report)
    # the error every one of the first PROBE runs stopped with, at the same place: the
    # simulation stopped there (the others would only repeat it)
    stopped: str | None = None

    def report(self) -> dict:
        """The summary as plain data (`simulation_report.report`)."""
        return report(self)


def simulate(prepared: Prepared, runs: int, seed: int = 0, jobs: int = 1,
             progress: Callable[[int], None] | None = None, spread=None) -> Simulation:
    """Run `prepared` `runs` times (runs 0..runs-1 with the seeds of `run_seed`)
    over `jobs` processes (1: in this process; 0: one per CPU), or through
    `spread(prepared, seed, ranges, progress, interrupt) -> (aggregate, interrupted)`,
    which runs the blocks of runs elsewhere (`dsl.cluster.simulate_on` gives one
    for a Dask cluster, `jobs` its workers); the same report either way.

    `progress(k)` is called as k more runs are done. A KeyboardInterrupt (Ctrl-C,
    or raised by `progress`) stops the workers; the runs completed so far are
    returned, with `interrupted` set."""
    if runs < 1:
        raise ValueError("runs must be 1 or more")
    if jobs < 0:
        raise ValueError("jobs must be 0 or more")
    return _simulate(prepared, runs, seed, jobs or cpus(), progress, spread)


def _simulate(prepared: Prepared, runs: int, seed: int, jobs: int, progress: Callable[[int], None] | None,
              spread) -> Simulation:
    began = time.perf_counter()
    total = Aggregate()
    interrupted = False
    if runs > PROBE:        # the first runs, in this process: if each stops the same way, so would all
        with _Interrupt() as interrupt:
            try:
                first = run_range(prepared, seed, 0, PROBE, progress, interrupt)
            except KeyboardInterrupt as stopped:
                return Simulation(prepared, seed, runs, getattr(stopped, "aggregate", total), True,
                                  time.perf_counter() - began)
        same = _same_failure(first)
        if same is not None:
            return Simulation(prepared, seed, runs, first, False, time.perf_counter() - began, stopped=same)
        progress = _skipping(progress, PROBE)       # (those runs are run again below, not shown twice)
    ranges = chunks(runs, jobs)
    jobs = min(jobs, len(ranges))
    with _Interrupt() as interrupt:
        if spread is not None:
            total, interrupted = spread(prepared, seed, ranges, progress, interrupt)
        elif jobs == 1:
            try:
                total = run_range(prepared, seed, 0, runs, progress, interrupt)
            except KeyboardInterrupt as stopped:
                total = getattr(stopped, "aggregate", total)
                interrupted = True
        else:
            total, interrupted = _in_processes(prepared, seed, ranges, jobs, progress, interrupt)
    return Simulation(prepared, seed, runs, total, interrupted, time.perf_counter() - began)


__all__ = ["Aggregate", "CONFIDENCE", "FORMATS", "Prepared", "REPORT_VERSION", "Simulation", "Z", "chunks",
           "cpus", "distribution", "path_taken", "prepare", "proportion", "render", "report", "run_range",
           "run_seed", "simulate", "summarise", "to_json", "wilson"]
