"""The memory a visitor's page keeps: no run of its own. Runs live in the shared store, bounded by
``cache_mb``; what a page leaves for later (deferred downloads, a button's arguments) holds them
weakly (dashboard/runs/held.py), so once the store drops a run it is gone from memory."""

from __future__ import annotations

import gc
import weakref

from helpers import job, prop_cluster, te
from helpers.paths import APP
from streamlit.testing.v1 import AppTest

from dashboard.explore import explore_results
from dashboard.report import report_button
from dashboard.runs import compute, data, held
from dashboard.shared.scenario import Scenario
from dashboard.shared.views import workload_key
from simcore.core.model import JobTable, SimConfig
from simcore.io.csvsafe import to_csv_text


def _table() -> JobTable:
    return JobTable.from_jobs([job("A", 0, 100, 4), te("T", 10, 20, 2)])


def _runs() -> dict[str, compute.Run]:
    table, cluster = _table(), prop_cluster(4)
    return {p: compute.full_run(table, cluster, SimConfig(policy=p)) for p in ("fifo", "k8s")}


def test_downloads_give_the_run_while_it_lives_then_say_it_is_gone() -> None:
    runs = _runs()
    csv = explore_results.csv_downloads(runs, "k8s")
    assert csv["jobs"]() == to_csv_text(runs["k8s"].jobs)
    assert csv["events"]() == to_csv_text(runs["k8s"].events)
    alive = weakref.ref(runs["k8s"])
    del runs
    gc.collect()
    assert alive() is None  # the two callables did not keep it
    assert csv["jobs"]() == held.EXPIRED and csv["events"]() == held.EXPIRED


def test_the_report_download_holds_no_run() -> None:
    # it keeps the workload and the summaries; the worker simulates what the report needs
    runs = _runs()
    table = _table()
    workload = data.Workload(table, None, "two jobs", (), workload_key(table))
    flats = [{p: r.flat for p, r in runs.items()}]
    comparison = data.Comparison(workload, prop_cluster(4), runs, [{p: r.summary for p, r in runs.items()}], flats, [0])
    upload = ("two.csv", b"job_id")
    make = report_button.report_download(
        Scenario(policies=("fifo", "k8s")), comparison, upload, "simcore compare two.csv", None
    )
    alive = [weakref.ref(r) for r in runs.values()]
    del runs, comparison
    gc.collect()
    assert [r() for r in alive] == [None, None]
    assert "k8s took node" in make().decode()  # its decision log: k8s preempted A for T


def test_a_page_keeps_no_run_once_the_store_drops_it() -> None:
    """Explore drawn on each tab that leaves something for later (the worth panel's "Show on the
    Gantt" arguments, the Gantt's steps, the downloads), in one session kept open: once the shared
    store forgets its results, none of the runs it held is still in memory."""
    pages = []
    for tab in ("Was it worth it?", "Gantt", "Jobs and downloads"):
        at = AppTest.from_file(APP, default_timeout=120)
        at.query_params.update({"tab": tab})
        pages.append(at.run())
        assert not at.exception, [e.value for e in at.exception]
    store = data._store()
    runs = [weakref.ref(v) for v in store.values() if isinstance(v, compute.Run)]
    assert len(runs) >= 4  # the default scenario's policies
    data._shared_store.clear()  # the server's shared results are dropped (as past cache_mb)
    data._shared_slots.clear()  # the slots' gate refers to that store
    del store
    gc.collect()
    assert [r for r in runs if r() is not None] == []
    assert len(pages) == 3  # the three sessions are still open
