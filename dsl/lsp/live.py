"""Diagnostics that keep up with typing: changes coalesced, a check made stale by a newer buffer cancelled, each publish with the version it is for."""

# The loop (pygls's asyncio loop) calls `Live.changed()` on every change. After
# `delay` seconds without another change, one round starts: a snapshot of the
# buffers, then in the checking process (worker.py) `drama check` of each
# scenario whose remembered check no longer matches the buffers (only those
# that read the changed file), then, back on the loop, one publish per open
# document with the version of the snapshot. A change during a round cancels
# it: the worker stops at once (a `Stale` exception raised in it) and the
# round's results are dropped, so diagnostics of a stale version are never
# published after those of a newer one. Requests (completion, hover) are
# answered on the loop meanwhile: the check runs in another process, with an
# interpreter of its own.

from __future__ import annotations

import asyncio
from typing import Callable

from .analysis import Snapshot, Workspace, check_scenarios
from .worker import Worker, collect

__all__ = ["Live", "QUIET"]

# the pause after a publication (seconds) that the checking process spends collecting its garbage
QUIET = 0.5


class Live:
    """The diagnostics of the open documents, kept up with the buffers."""

    def __init__(self, workspace: Workspace, publish: Callable[[Snapshot], None], delay: float = 0.04):
        self.workspace = workspace
        self.publish = publish
        self.delay = delay
        self._worker = Worker("checks")
        self._round: asyncio.Task | None = None
        self._quiet: asyncio.TimerHandle | None = None
        self.generation = 0

    def changed(self) -> None:
        """A buffer changed: cancel what is under way, start a new round after the delay."""
        self.generation += 1
        if self._quiet is not None:
            self._quiet.cancel()
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
            checks = await asyncio.wrap_future(self._worker.submit(check_scenarios, scenarios, snapshot.texts))
            if checks is None or generation != self.generation:
                return                                   # stopped, or stale: a newer round follows
            for check in checks:
                self.workspace.remember(check)
        if generation == self.generation:
            self.publish(snapshot)
            # the checking process collects its garbage when the writer pauses
            self._quiet = asyncio.get_running_loop().call_later(QUIET, self._worker.submit, collect)

    def shutdown(self) -> None:
        if self._round is not None:
            self._round.cancel()
        self._worker.shutdown()
