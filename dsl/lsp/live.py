"""Diagnostics that keep up with typing: changes coalesced, a check made stale by a newer buffer cancelled, each publish with the version it is for."""

# The loop (pygls's asyncio loop) calls `Live.changed()` on every change. After
# `delay` seconds without another change, one round starts: a snapshot of the
# buffers, then on one worker thread `drama check` of each scenario whose
# remembered check no longer matches the buffers (only those that read the
# changed file), then, back on the loop, one publish per open document with
# the version of the snapshot. A change during a round cancels it: the worker
# stops at once (a `Stale` exception raised in it) and the round's results
# are dropped, so diagnostics of a stale version are never published after
# those of a newer one. Requests (completion, hover) are answered on the loop
# meanwhile: the worker holds no lock they need.

from __future__ import annotations

import asyncio
import concurrent.futures
import ctypes
import threading
from typing import Callable

from .analysis import Check, Snapshot, Workspace, check_scenario

__all__ = ["Live", "Stale"]


class Stale(Exception):
    """Raised inside the worker when a newer change makes its check useless."""


class _Worker:
    """One thread that runs checks, and can stop the one it runs."""

    def __init__(self) -> None:
        self._pool = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="drama-check")
        self._lock = threading.Lock()
        self._running: int | None = None       # the thread id while a job may be interrupted

    def submit(self, job: Callable[[], object]) -> concurrent.futures.Future:
        return self._pool.submit(self._run, job)

    def _run(self, job: Callable[[], object]) -> object:
        try:
            try:
                with self._lock:
                    self._running = threading.get_ident()
                return job()
            finally:
                with self._lock:
                    self._running = None
        except Stale:
            return None

    def interrupt(self) -> None:
        """Stop the running job (at most one Stale per job: the flag is cleared as it is sent)."""
        with self._lock:
            if self._running is not None:
                ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(self._running), ctypes.py_object(Stale))
                self._running = None

    def shutdown(self) -> None:
        self.interrupt()
        self._pool.shutdown(wait=False, cancel_futures=True)


class Live:
    """The diagnostics of the open documents, kept up with the buffers."""

    def __init__(self, workspace: Workspace, publish: Callable[[Snapshot], None], delay: float = 0.04):
        self.workspace = workspace
        self.publish = publish
        self.delay = delay
        self._worker = _Worker()
        self._round: asyncio.Task | None = None
        self.generation = 0

    def changed(self) -> None:
        """A buffer changed: cancel what is under way, start a new round after the delay."""
        self.generation += 1
        if self._round is not None and not self._round.done():
            self._round.cancel()
            self._worker.interrupt()
        self._round = asyncio.ensure_future(self._run(self.generation))

    async def _run(self, generation: int) -> None:
        await asyncio.sleep(self.delay)
        snapshot = self.workspace.snapshot()
        self.workspace.carry()
        scenarios = self.workspace.stale_scenarios(list(snapshot.texts))
        if scenarios:
            def job() -> list[Check]:
                return [check_scenario(scenario, snapshot.texts) for scenario in scenarios]
            checks = await asyncio.wrap_future(self._worker.submit(job))
            if checks is None or generation != self.generation:
                return                                   # stopped, or stale: a newer round follows
            for check in checks:
                self.workspace.remember(check)
        if generation == self.generation:
            self.publish(snapshot)

    def shutdown(self) -> None:
        if self._round is not None:
            self._round.cancel()
        self._worker.shutdown()
