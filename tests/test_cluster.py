"""`drama simulate --cluster`: the runs on a Dask cluster (a LocalCluster on 127.0.0.1 here) give the very bytes of `--jobs 1`; a worker killed mid-way loses only its blocks, which run again; Ctrl-C cancels every block left.

Skipped when Dask distributed is not installed (it is in the `test` extra, so CI runs it)."""

from __future__ import annotations

import os
import signal
import time

import pytest

distributed = pytest.importorskip("distributed")

from conftest import ROOT, drama  # noqa: E402
from dsl.cluster import on_cluster  # noqa: E402
from dsl.simulate import Simulation, chunks, prepare, render, simulate  # noqa: E402

SKIRMISH = ROOT / "scenarios" / "skirmish" / "scenario.yaml"


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=":0", silence_logs=50) as local:
        yield local


@pytest.mark.parametrize("fmt", ["json", "text"])
def test_the_cluster_gives_the_bytes_of_jobs_1(cluster, fmt):
    """Runs are split by their per-run seeds, and counts add in any order."""
    alone = drama("simulate", SKIRMISH, "--runs", "700", "--seed", "4", "--format", fmt)
    spread = drama("simulate", SKIRMISH, "--runs", "700", "--seed", "4", "--format", fmt,
                   "--cluster", cluster.scheduler_address)
    assert alone.code == spread.code == 0, spread.output
    assert spread.stdout == alone.stdout


def test_a_worker_that_dies_loses_only_its_share(cluster):
    """One worker is killed (SIGKILL) once the first block is back: the scheduler runs its
    blocks again on the other (the nanny starts a new one), and the report is unchanged."""
    prepared = prepare(str(SKIRMISH))
    expected = render(simulate(prepared, 900, seed=8).report(), "json")
    with distributed.Client(cluster) as client:
        pids = client.run(os.getpid)
        victim = sorted(pids.values())[0]
        killed = []

        def progress(count: int) -> None:
            if not killed:
                os.kill(victim, signal.SIGKILL)
                killed.append(victim)

        total, interrupted = on_cluster(client, prepared, 8, chunks(900, 2), progress, None)
    assert killed and not interrupted
    assert total.completed + total.failed == 900
    assert render(Simulation(prepared, 8, 900, total).report(), "json") == expected


class _CtrlC:
    """Ctrl-C pressed once the first block is back."""

    def __init__(self):
        self.hit = False

    def progress(self, count: int) -> None:
        self.hit = True


def test_ctrl_c_cancels_the_blocks_left_and_leaves_no_task(cluster):
    prepared = prepare(str(SKIRMISH))
    interrupt = _CtrlC()
    with distributed.Client(cluster) as client:
        total, interrupted = on_cluster(client, prepared, 2, chunks(3000, 64), interrupt.progress, interrupt)
        assert interrupted
        assert 0 < total.completed < 3000
        deadline = time.monotonic() + 20
        while cluster.scheduler.tasks and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not cluster.scheduler.tasks, list(cluster.scheduler.tasks)[:5]


def test_cluster_and_jobs_do_not_go_together(cluster):
    outcome = drama("simulate", SKIRMISH, "--runs", "5", "--jobs", "2", "--cluster", cluster.scheduler_address)
    assert outcome.code == 2
    assert "--jobs and --cluster do not go together" in outcome.stderr
