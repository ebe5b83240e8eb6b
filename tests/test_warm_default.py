"""The default Explore scenario is computed in the background once per server process
(``data.warm_default``), so its first visitor finds its runs in the shared store."""

from __future__ import annotations

import threading

import numpy as np
import pandas as pd
import pytest
from helpers.waiting import HANG_SECONDS

from dashboard.runs import compute, data, runkeys, slots, warmup, worker
from dashboard.runs.results import Workload
from dashboard.runs.store import BoundedStore
from dashboard.shared import demo
from dashboard.shared.scenario import Scenario
from simcore.core.model import ClusterSpec


def _default() -> tuple[Scenario, Workload, ClusterSpec]:
    scenario = Scenario()
    workload = data.sample_workload(scenario.sample)
    return scenario, workload, data.resolve_cluster(scenario, workload, None)


def test_the_default_scenario_is_computed_once_and_a_visitor_reads_it(
    fresh_store: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    thread = data.warm_default()
    assert thread is not None and data.warm_default() is thread  # started once per process
    thread.join(HANG_SECONDS)
    assert not thread.is_alive()
    scenario, workload, cluster = _default()

    def no_computation(*_: object, **__: object) -> None:
        raise AssertionError("the visitor computed a run the warm-up had stored")

    monkeypatch.setattr(worker, "run", no_computation)
    comparison = data.compare(scenario, workload, cluster, lambda _: None, "simcore compare")
    assert list(comparison.runs) == list(scenario.policies)
    for policy, run in comparison.runs.items():  # the same runs the visitor would have computed
        expected = compute.full_run(workload.table, cluster, scenario.config(policy))
        pd.testing.assert_frame_equal(run.jobs, expected.jobs)
        pd.testing.assert_frame_equal(run.lost, expected.lost)


def test_the_warm_up_leaves_runs_a_visitor_is_computing_to_the_visitor(monkeypatch: pytest.MonkeyPatch) -> None:
    scenario, workload, cluster = _default()
    keys = tuple(
        runkeys.run_key(workload, runkeys.cluster_hash(cluster), scenario.config(p)) for p in scenario.policies
    )
    store = BoundedStore(10**9, 3600.0)
    assert store.claim(keys) is None  # a visitor's computation in flight

    def no_computation(*_: object, **__: object) -> None:
        raise AssertionError("computed twice")

    monkeypatch.setattr(worker, "run", no_computation)
    warmup.warm(keys, (workload.table, cluster, (), ()), store, slots.ComputeSlots(1, 1), demo.DEMO, None)
    assert store.claim(keys) is not None  # still the visitor's
    assert all(store.get(k) is None for k in keys)


def test_the_shipped_file_is_read_in_the_callers_thread_not_beside_a_page_compile(
    fresh_store: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """numpy reads .npy headers with ast.literal_eval; on CPython 3.11 that beside Streamlit's
    ast.parse of a page script in another thread can fail with "SystemError: AST constructor
    recursion depth mismatch" (it failed a page run of a parallel suite run): the warm-up thread
    never reads the file, the thread that starts it does."""
    readers: list[str] = []
    load = np.load

    def recording_load(*args: object, **kwargs: object) -> object:
        readers.append(threading.current_thread().name)
        return load(*args, **kwargs)

    monkeypatch.setattr(np, "load", recording_load)
    thread = data.warm_default()
    assert thread is not None
    thread.join(HANG_SECONDS)
    assert readers == [threading.current_thread().name]
    scenario, workload, cluster = _default()
    keys = warmup.work(scenario, workload, cluster)[0]
    assert all(data._store().get(k) is not None for k in keys)  # and the thread stored the runs
