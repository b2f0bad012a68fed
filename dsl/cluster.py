"""`drama simulate --cluster`: the runs of a simulation spread over a Dask cluster by their per-run seeds, so the report is the one `--jobs 1` gives.

Dask distributed is the scheduler (`pip install 'drama[cluster]'`); nothing
here schedules. The scenario is compiled once, here, and sent to every worker
once (`Client.scatter(..., broadcast=True)`), so the workers need drama
installed but not the scenario's files. Each block of runs (`simulate.chunks`)
is one task, `run_range(prepared, seed, start, stop)`, which depends on the
seed and the block only; what comes back is an `Aggregate` of integer counts,
added up here in whatever order the blocks finish, which gives the same
counts as one process running them all (`simulate.py`).

A worker that dies loses only the blocks it was running: the scheduler runs
them again elsewhere (Dask's `distributed.scheduler.allowed-failures` deaths a
task may see before it fails; a block whose code raised is tried `RETRIES`
more times). Ctrl-C cancels every block not yet done, so that no task is left
on the cluster, and the report is of the blocks that were done.

`--cluster local` starts a `LocalCluster` on 127.0.0.1, one single-threaded
worker process per CPU, for trying it on one machine.
"""

from __future__ import annotations

import copyreg
import logging
import socket
import types
from typing import Callable

from .errors import DramaError

RETRIES = 2                 # more tries of a block whose code raised (a lost worker is Dask's own count)
CONNECT_SECONDS = 20        # how long to wait for the scheduler


def _mapping(items: dict) -> types.MappingProxyType:
    return types.MappingProxyType(items)


def _reduce_mapping(proxy: types.MappingProxyType):
    return _mapping, (dict(proxy),)


def _picklable() -> None:
    """The engine's sheets hold read-only mappings (`types.MappingProxyType`), which
    pickle cannot send as they are: sent as a dict, rebuilt read-only on the worker."""
    copyreg.pickle(types.MappingProxyType, _reduce_mapping)


def _distributed():
    try:
        import distributed
    except ImportError:
        raise DramaError("E530", "--cluster needs Dask distributed, which is not installed",
                         expected="pip install 'drama[cluster]'") from None
    return distributed


def connect(address: str):
    """A Dask client of the scheduler at `address` (tcp://HOST:PORT), or of a
    LocalCluster started for it (`local`); and the cluster to close, or None.
    Raises DramaError E531 when no scheduler answers."""
    distributed = _distributed()
    if address == "local":
        from .simulate import cpus
        # (its workers' warnings, such as a slow event loop on a busy machine, are not the report's;
        # its scheduler's HTTP server, which always starts, on a free port: no warning that 8787 is taken)
        cluster = distributed.LocalCluster(n_workers=cpus(), threads_per_worker=1, processes=True,
                                           host="127.0.0.1", dashboard_address=":0", silence_logs=logging.ERROR)
        return distributed.Client(cluster), cluster
    def unanswered(why: str) -> DramaError:
        return DramaError("E531", f"no Dask scheduler answered at {address!r}: {why}",
                          expected="--cluster tcp://HOST:PORT of a running `dask scheduler`, or --cluster local",
                          hint="start one with `dask scheduler`, and workers with `dask worker tcp://HOST:8786`")
    host, port = _host_port(address)
    if host is None:
        raise unanswered("not an address of the form tcp://HOST:PORT")
    try:                         # a plain connection first: a refused one is said at once, not after a timeout
        socket.create_connection((host, port), timeout=CONNECT_SECONDS).close()
        where = f"tcp://[{host}]:{port}" if ":" in host else f"tcp://{host}:{port}"
        return distributed.Client(where, timeout=CONNECT_SECONDS), None
    except (OSError, TimeoutError, ValueError, TypeError) as error:
        raise unanswered(getattr(error, "strerror", None) or str(error) or type(error).__name__) from None


def _host_port(address: str) -> tuple[str | None, int]:
    """(host, port) of `tcp://HOST:PORT` (or HOST:PORT, the port 8786 when left out); (None, 0) if not one."""
    rest = address[len("tcp://"):] if address.startswith("tcp://") else address
    if "://" in rest or not rest:
        return None, 0
    host, colon, port = rest.rpartition(":")
    if not colon:
        return rest, 8786
    if not port.isdigit() or not host or not 0 < int(port) < 65536:
        return None, 0
    return host.strip("[]"), int(port)


def simulate_on(address: str, prepared, runs: int, seed: int = 0,
                progress: Callable[[int], None] | None = None):
    """`simulate.simulate` over the cluster whose scheduler is at `address`
    (`tcp://HOST:PORT`, or `local` for a LocalCluster started for it): the report
    of `--jobs 1`, its blocks one task each."""
    from .simulate import simulate
    client, local = connect(address)
    try:
        def spread(prepared, seed, ranges, progress, interrupt):
            return on_cluster(client, prepared, seed, ranges, progress, interrupt)
        return simulate(prepared, runs, seed, workers(client), progress, spread=spread)
    finally:
        client.close()
        if local is not None:
            local.close()


def workers(client) -> int:
    """The threads the cluster has to run blocks on (at least 1)."""
    info = client.scheduler_info()
    return max(1, sum(w.get("nthreads", 1) for w in info.get("workers", {}).values()))


def _block(prepared, seed: int, start: int, stop: int):
    """One task: runs start..stop-1, counted (on a worker)."""
    from .simulate import run_range
    return stop - start, run_range(prepared, seed, start, stop)


def on_cluster(client, prepared, seed: int, ranges: list[tuple[int, int]],
               progress: Callable[[int], None] | None, interrupt) -> tuple[object, bool]:
    """The blocks `ranges` run on the cluster of `client`; their counts added up.
    Returns (aggregate, interrupted). On Ctrl-C (`interrupt.hit`, or a
    KeyboardInterrupt) every block not done is cancelled."""
    from .simulate import Aggregate
    distributed = _distributed()
    _picklable()
    total = Aggregate()
    futures = []
    sent = None
    try:
        sent = client.scatter(prepared, broadcast=True, hash=False)
        # pure=False: each block is its own task, never taken for another's result
        futures = [client.submit(_block, sent, seed, start, stop, pure=False, retries=RETRIES,
                                 key=f"drama-simulate-{seed}-{start}-{stop}-{id(sent)}")
                   for start, stop in ranges]
        pending = set(futures)
        while pending:
            if interrupt is not None and interrupt.hit:
                raise KeyboardInterrupt
            try:
                done, pending = distributed.wait(pending, timeout=0.1, return_when="FIRST_COMPLETED")
            except TimeoutError:
                continue
            for future in done:
                try:
                    count, part = future.result()
                except (KeyboardInterrupt, DramaError):
                    raise
                except Exception as error:       # a block that failed RETRIES more times, or lost too many workers
                    raise DramaError("E532", f"a block of runs failed on the cluster: {type(error).__name__}: "
                                     f"{error}", expected="workers with the same drama installed as here",
                                     hint="the report of the runs done so far is not written") from None
                total.merge(part)
                if progress is not None:
                    progress(count)
        return total, False
    except KeyboardInterrupt:
        client.cancel(futures, force=True)
        return total, True
    except BaseException:
        client.cancel(futures, force=True)
        raise
    finally:                    # the scenario sent to the workers is dropped with the blocks: no task is left
        if sent is not None:
            client.cancel([sent], force=True)
