"""The default Explore scenario warmed at start-up: its runs read from the shipped file
(:mod:`dashboard.runs.shipped`) or, when that holds other runs, computed as a visitor's computation
would be (in a computation slot, in a worker process), in a background thread and claimed in the
shared store, so the first visitor finds them there or waits for them rather than computing them again.

``python -m dashboard`` (:mod:`dashboard.__main__`) warms them before the server accepts
connections; under ``streamlit run``, which runs no app code before a first visitor,
:func:`dashboard.runs.data.warm_default` (cached once per server process) starts this at the first
script run of any page.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Hashable, Iterator
from typing import Any

from dashboard.runs import compute, shipped, slots, worker
from dashboard.runs.results import Workload
from dashboard.runs.runkeys import cluster_hash, run_key
from dashboard.runs.store import BoundedStore, deep_size
from dashboard.shared.demo import Limits
from dashboard.shared.scenario import Scenario
from simcore.core.model import ClusterSpec

LOG = logging.getLogger(__name__)
# warns at each cached data function defined or first called outside a running server (its cache is then kept in memory)
BARE_CACHE_LOGGER = logging.getLogger("streamlit.runtime.caching.cache_data_api")


@contextlib.contextmanager
def outside_runtime() -> Iterator[None]:
    """Cached data functions defined and called before the server runs (start-up, a command),
    without the warning that their cache is kept in memory: so it is under a running server too."""

    def drop(_record: logging.LogRecord) -> bool:
        return False

    BARE_CACHE_LOGGER.addFilter(drop)  # a filter, not a level: Streamlit sets its loggers' levels
    try:
        yield
    finally:
        BARE_CACHE_LOGGER.removeFilter(drop)


def work(scenario: Scenario, workload: Workload, cluster: ClusterSpec) -> tuple[tuple[Hashable, ...], tuple[Any, ...]]:
    """The store keys of a scenario's runs on its first workload, and the arguments of
    :func:`dashboard.runs.compute.comparison` that compute them."""
    configs = tuple(scenario.config(p) for p in scenario.policies)
    keys = tuple(run_key(workload, cluster_hash(cluster), c) for c in configs)
    return keys, (workload.table, cluster, configs, ())


def start(
    keys: tuple[Hashable, ...],
    args: tuple[Any, ...],
    store: BoundedStore,
    line: slots.ComputeSlots,
    lim: Limits,
) -> threading.Thread:
    """A daemon thread putting the runs of ``keys`` (``compute.comparison(*args)``) in ``store``.

    The shipped file is read here, in the caller's thread, not in the new one: numpy parses each
    ``.npy`` header with ``ast.literal_eval``, and CPython 3.11 keeps the AST converter's recursion
    count per interpreter, not per thread, so that read beside the page script Streamlit compiles
    (``ast.parse``) in the caller's thread can fail either with "SystemError: AST constructor
    recursion depth mismatch" (it failed a page run of the test suite)."""
    try:
        arrays = shipped.read(keys)
    except Exception as exc:  # a damaged file costs nothing: the thread computes the runs
        LOG.warning("reading the shipped runs failed (%s: %s); simulating", type(exc).__name__, exc)
        arrays = None
    thread = threading.Thread(
        target=warm, args=(keys, args, store, line, lim, arrays), name="warm-default", daemon=True
    )
    thread.start()
    return thread


def warm(
    keys: tuple[Hashable, ...],
    args: tuple[Any, ...],
    store: BoundedStore,
    line: slots.ComputeSlots,
    lim: Limits,
    arrays: dict[str, Any] | None,
) -> None:
    """The runs of ``keys`` built from the shipped file's ``arrays`` (:func:`shipped.read`) or, when
    None, computed, and stored, unless they are there already or a visitor is computing them (a
    visitor asking meanwhile waits for this instead)."""
    if all(store.get(k) is not None for k in keys) or store.claim(keys) is not None:
        return
    try:
        table, cluster, configs, _extra = args
        values: list[Any] | None = None if arrays is None else shipped.runs(arrays, table, cluster, configs)
        if values is None:
            LOG.info("no shipped runs for the default scenario (regenerate: %s): simulating", shipped.REGENERATE)
            with slots.turn(line, lambda _place: None, worker.POLL_SECONDS) as ticket:
                values = worker.run_within(lim, compute.comparison, args, lambda _fraction: line.touch(ticket))
        for key, value in zip(keys, values, strict=True):
            store.put(key, value, deep_size(value))
    except Exception as exc:  # a warm-up that fails costs nothing: the first visitor computes the runs
        LOG.warning("warming the default scenario failed (%s: %s); a visitor will compute it", type(exc).__name__, exc)
    finally:
        store.release(keys)
