"""Where sweep tasks run: the calling process (``workers=1``), a local process pool, or Dask
distributed (``dask="local"`` starts a LocalCluster, ``dask="tcp://host:port"`` joins an
existing one). Each yields a task's rows as the task finishes, in completion order; the caller
sorts them back into the spec's order. Pool workers die with the sweep's process, even when it
is killed (:mod:`simcore.experiments.workers`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import as_completed
from typing import Any, TypeVar

from simcore.core.errors import UserError
from simcore.experiments import workers as worker_life
from simcore.experiments.sweep.spec import Task
from simcore.experiments.sweep.tasks import run_task

U = TypeVar("U")
R = TypeVar("R")


def default_workers() -> int:
    """The cores this process may run on (its CPU affinity; all cores where that is unknown)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # macOS and Windows have no sched_getaffinity
        return os.cpu_count() or 1


def execute(tasks: Sequence[Task], workers: int = 1, dask: str | None = None) -> Iterator[list[dict[str, Any]]]:
    """Run tasks, yielding each task's rows as it finishes (completion order)."""
    yield from execute_units(run_task, tasks, workers, dask)


def execute_units(fn: Callable[[U], R], units: Sequence[U], workers: int = 1, dask: str | None = None) -> Iterator[R]:
    """``fn(unit)`` for every unit, yielded as each finishes (completion order); submitted in the
    given order, so a pool starts the units first that come first (put the longest there)."""
    if not units:
        return
    if dask:
        yield from _execute_dask(fn, units, workers, dask)
    elif workers <= 1 or len(units) == 1:
        for u in units:
            yield fn(u)
    else:
        pool = worker_life.pool(min(workers, len(units)))
        try:
            futures = [pool.submit(fn, u) for u in units]
            for fut in as_completed(futures):
                yield fut.result()
        finally:
            pool.shutdown(wait=True, cancel_futures=True)


def _execute_dask(fn: Callable[[U], R], units: Sequence[U], workers: int, address: str) -> Iterator[R]:
    try:
        import logging

        from dask.distributed import Client, LocalCluster
        from dask.distributed import as_completed as dask_completed
    except ImportError:
        raise UserError("--dask needs dask.distributed: pip install 'simcore[dask]'") from None
    cluster = None
    if address == "local":
        cluster = LocalCluster(
            n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=logging.ERROR
        )
        client = Client(cluster)
    else:
        try:
            client = Client(address, timeout=30)
        except OSError as e:
            raise UserError(f"--dask {address}: cannot reach the scheduler ({e})") from None
    try:
        # pure=False: identical tasks would otherwise be merged by key (harmless, but a task is a unit of work)
        futures = client.map(fn, list(units), pure=False)
        for fut in dask_completed(futures):
            yield fut.result()
            fut.release()
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
