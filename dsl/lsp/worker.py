"""A process of its own for the server's slow work (checks, previews): the protocol's process never waits for its interpreter, and a newer change stops a check at once."""

# A check on a thread of the server's process held the interpreter (the GIL)
# for milliseconds at a time, so a completion asked during a check waited up
# to a few hundred milliseconds. Here each `Worker` is one process (spawned:
# the server's threads are not forked), fed jobs by a one-process
# `ProcessPoolExecutor`; the server's loop only sends the buffers and reads
# the answer. `interrupt()` sends the process SIGUSR1: its handler raises
# `Stale` in the job that runs (never between jobs), the job answers None.
# The process lives as long as the server, so what a job remembers (the dry
# runs of `incremental.py`) serves the next one. Python's collection of
# cycles is off in the worker: a full one, over all that the process
# remembers, took a second under load in the middle of a check. The server
# asks for it (`collect`) when the writer pauses, and a worker that never
# gets a pause collects after a job once garbage has piled up.
#
# Errors cross the pipe as their class, `args` and attributes: a DramaError
# cannot be pickled the ordinary way (its subclasses' `__init__` take other
# arguments than `args`).

from __future__ import annotations

import concurrent.futures
import gc
import io
import multiprocessing
import os
import pickle
import signal
from typing import Callable

from ..errors import DramaError

__all__ = ["Worker", "Stale"]

_SIGNAL = getattr(signal, "SIGUSR1", None)      # (none on Windows: a stale job runs to its end)
_running = False                                # in the worker: a job runs, and may be stopped
# how many new objects that may hold cycles a worker lets pile up before it collects them after a job
_MOST_GARBAGE = 2_000_000


class Stale(Exception):
    """Raised inside a job when a newer change makes it useless."""


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
    if _running:
        raise Stale()


def _started() -> None:
    """In the worker, once: SIGUSR1 stops the running job; Ctrl-C is the server's to handle; no
    collection of cycles during a job (`collect`)."""
    gc.disable()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if _SIGNAL is not None:
        signal.signal(_SIGNAL, _stop)


def _call(job: Callable, args: tuple) -> bytes | None:
    """A job in the worker: its result pickled (errors included), or None when it was stopped."""
    global _running
    try:
        try:
            _running = True
            result = job(*args)
        finally:
            _running = False
        return dumps(result)
    except Stale:
        return None
    finally:
        if gc.get_count()[0] > _MOST_GARBAGE:       # (never quiet for long: collect now)
            gc.collect()


def collect() -> None:
    """The job of a quiet moment: the cycles that the checks left (their errors' tracebacks ...)."""
    gc.collect()


class Worker:
    """One process that runs jobs one after the other (see the top of this module)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._pool = concurrent.futures.ProcessPoolExecutor(
            max_workers=1, mp_context=multiprocessing.get_context("spawn"), initializer=_started)
        self._pid = self._pool.submit(os.getpid)      # (also starts the process now, not at the first job)

    def submit(self, job: Callable, *args) -> concurrent.futures.Future:
        """`job(*args)` in the process (both picklable, `job` a module's function): a future of its
        result, or of None when it was interrupted."""
        done: concurrent.futures.Future = concurrent.futures.Future()

        def answered(future: concurrent.futures.Future) -> None:
            try:
                data = future.result()
                done.set_result(None if data is None else pickle.loads(data))
            except BaseException as error:        # noqa: BLE001 - the caller's to see
                done.set_exception(error)
        self._pool.submit(_call, job, args).add_done_callback(answered)
        return done

    def interrupt(self) -> None:
        """Stop the job that runs now, if any (the next ones run)."""
        if _SIGNAL is None or not self._pid.done() or self._pid.exception() is not None:
            return
        try:
            os.kill(self._pid.result(), _SIGNAL)
        except OSError:
            pass

    def shutdown(self) -> None:
        self.interrupt()
        self._pool.shutdown(wait=False, cancel_futures=True)
