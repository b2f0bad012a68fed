"""A process of its own for the server's slow work (checks, previews): the protocol's process never waits for its interpreter, and a newer change stops a check at once."""

# A check on a thread of the server's process held the interpreter (the GIL)
# for milliseconds at a time, so a completion asked during a check waited up
# to a few hundred milliseconds. Here each `Worker` is one process (spawned:
# the server's threads are not forked), fed jobs by a one-process
# `ProcessPoolExecutor`; the server's loop only sends the buffers and reads
# the answer. `interrupt()` sends the process SIGUSR1: its handler raises
# `Stale` in the job that runs (never between jobs), the job answers None.
# The process lives as long as the server, so what a job remembers (the dry
# runs of `incremental.py`) serves the next one. Each job has a ticket; an
# interrupt makes every ticket given so far stale (a number the processes
# share): a stale job that still waits in the queue answers None without
# running, and the signal stops the one that runs only if it is stale.
#
# Python's collection of cycles is off in the worker, and done when the
# writer pauses (`collect`, which the server asks for) or when garbage has
# piled up: dsl/collector.py, which manages the collector, says why.
#
# Errors cross the pipe as their class, `args` and attributes: a DramaError
# cannot be pickled the ordinary way (its subclasses' `__init__` take other
# arguments than `args`).

from __future__ import annotations

import concurrent.futures
import io
import multiprocessing
import os
import pickle
import signal
from typing import Callable

from .. import collector
from ..errors import DramaError

__all__ = ["Worker", "Stale"]

_SIGNAL = getattr(signal, "SIGUSR1", None)      # (none on Windows: a stale job runs to its end)
# in the worker: the ticket of the job that runs (None between jobs), and the shared number below
# which every ticket is stale (the server raises it on `interrupt`)
_current: int | None = None
_stale_below = None


class Stale(BaseException):
    """Raised inside a job when a newer change makes it useless (not an Exception: no `except
    Exception` of the code it stops may take it for an error of its own)."""


def _rebuild(cls, args, attributes):
    error = cls.__new__(cls, *args)
    error.args = args
    error.__dict__.update(attributes)
    return error


class _Pickler(pickle.Pickler):
    def reducer_override(self, obj):
        if isinstance(obj, DramaError):
            return _rebuild, (type(obj), obj.args, dict(obj.__dict__))
        return NotImplemented


def dumps(value) -> bytes:
    out = io.BytesIO()
    _Pickler(out, protocol=pickle.HIGHEST_PROTOCOL).dump(value)
    return out.getvalue()


def _stop(signum, frame) -> None:
    if _current is not None and _current < _stale_below.value:
        raise Stale()


def _started(stale_below) -> None:
    """In the worker, once: SIGUSR1 stops the running job if it is stale; Ctrl-C is the server's to
    handle; no collection of cycles during a job (`collect`); the last parses of each file, and what
    the static checks of each top-level statement met, are kept, so that an edited script is parsed
    and checked again only where it changed (dsl/syntax/reparse.py, dsl/checker.py)."""
    global _stale_below
    _stale_below = stale_below
    from ..checker import remember as remember_checks
    from ..syntax.parse import remember as remember_parses
    remember_parses()
    remember_checks()
    from ..loader import kept_yaml
    kept_yaml.keep(False)   # (an edited YAML file is a new text at each change: not kept for other processes)
    collector.off_for_good()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if _SIGNAL is not None:
        signal.signal(_SIGNAL, _stop)


def _call(ticket: int, job: Callable, args: tuple) -> bytes | None:
    """A job in the worker: its result pickled (errors included), or None when it was stopped, or
    stale before it began (an interrupt that came while it waited in the queue)."""
    global _current
    if ticket < _stale_below.value:
        return None
    collector.collect_if_piled()
    try:
        try:
            _current = ticket
            result = job(*args)
        finally:
            _current = None
        return dumps(result)
    except Stale:
        return None


def collect() -> None:
    """The job of a quiet moment: the cycles that the checks left (dsl/collector.py)."""
    collector.collect()


class Worker:
    """One process that runs jobs one after the other (see the top of this module)."""

    def __init__(self, name: str) -> None:
        self.name = name
        context = multiprocessing.get_context("spawn")
        self._stale_below = context.Value("q", 0, lock=False)
        self._tickets = 0
        self._pool = concurrent.futures.ProcessPoolExecutor(
            max_workers=1, mp_context=context, initializer=_started, initargs=(self._stale_below,))
        self._pid = self._pool.submit(os.getpid)      # (also starts the process now, not at the first job)

    def submit(self, job: Callable, *args) -> concurrent.futures.Future:
        """`job(*args)` in the process (both picklable, `job` a module's function): a future of its
        result, or of None when it was interrupted."""
        done: concurrent.futures.Future = concurrent.futures.Future()

        def answered(future: concurrent.futures.Future) -> None:
            try:
                data = future.result()
                value, error = (None if data is None else pickle.loads(data)), None
            except BaseException as raised:        # noqa: BLE001 - the caller's to see
                value, error = None, raised
            try:
                if error is None:
                    done.set_result(value)
                else:
                    done.set_exception(error)
            except concurrent.futures.InvalidStateError:
                pass          # (the caller cancelled it, a round made stale: nobody waits for it)
        self._tickets += 1
        self._pool.submit(_call, self._tickets, job, args).add_done_callback(answered)
        return done

    def interrupt(self) -> None:
        """Stop every job submitted so far: the one that runs now, and those that wait (the jobs
        submitted after run)."""
        self._stale_below.value = self._tickets + 1
        if _SIGNAL is None or not self._pid.done() or self._pid.exception() is not None:
            return
        try:
            os.kill(self._pid.result(), _SIGNAL)
        except OSError:
            pass

    def shutdown(self) -> None:
        self.interrupt()
        self._pool.shutdown(wait=False, cancel_futures=True)
