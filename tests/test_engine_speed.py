"""The speed changes of issue 21's compiled rounds (docs/history/engine.md#the-compiled-engine-second-round-issue-21,
#the-compiled-engine-third-round-issue-21): each faster form against what it replaces."""

from __future__ import annotations

import gc

import numpy as np
import pytest

from simcore.core.model import JobTable, SimConfig
from simcore.core.result import EVENT_NAMES
from simcore.engine import simulate
from simcore.engine.eventlog import CHUNK, EventLog
from simcore.engine.queue_order import _has_equal, _id_key, _keys
from simcore.policies.base import Candidates, PreemptionView
from simcore.policies.evaluator import _feasible_nodes
from simcore.workload.fit import distinct_rows
from simcore.workload.presets import generate


@pytest.mark.parametrize("n", [1, 2, 3, 50, 2000])
@pytest.mark.parametrize("high", [1, 3, 10**12])
def test_distinct_rows_are_numpys_unique_rows(n, high):
    rng = np.random.default_rng(n + high)
    req = rng.integers(0, high, size=(n, 3), dtype=np.int64)
    shapes, inverse = distinct_rows(req)
    want, want_inverse = np.unique(req, axis=0, return_inverse=True)
    assert shapes.tolist() == want.tolist()
    assert inverse.tolist() == want_inverse.reshape(-1).tolist()


@pytest.mark.parametrize("keys", [[5], [1, 2, 3], [3, 1, 3], [-1, 0, 1, -1], list(range(1000)) + [999]])
def test_has_equal_says_whether_a_key_repeats(keys):
    key = np.array(keys, dtype=np.int64)
    assert _has_equal(key) == (len(np.unique(key)) < len(key))


def _keys_before(jobs: JobTable) -> list[np.ndarray]:
    """Job order's keys as the fourth round built them (every id through ``astype(str)``)."""
    ids = jobs.job_id.astype(str)
    id_key = _id_key(ids)
    keys = [id_key, jobs.submit_time]
    if id_key is not ids and _has_equal(id_key):
        keys.insert(0, ids)
    return keys


_IDS = {
    "numeric": ["3", "10", "2", "-4", "0", "11"],
    "leading zeros and equal values": ["007", "7", "-0", "0", "10", "010"],
    "beyond int64": ["99999999999999999999", "5", "-99999999999999999999", "6", "18446744073709551616", "1"],
    "not integers": ["+5", "5", "5.0", "a", "-", "1_0"],
    "unicode digits": ["\u0663", "3", "12", "1", "\uff11", "2"],
    "spaces": [" 1", "2", "3 ", "4", "5", "6"],
}


@pytest.mark.parametrize(
    ("name", "kind"), [(n, k) for n in sorted(_IDS) for k in ("object", "unicode", "mixed")] + [("numeric", "int64")]
)
def test_job_orders_keys_are_the_keys_before(name, kind):
    ids = _IDS[name]
    rng = np.random.default_rng(len(name))
    if kind == "int64":
        job_id = np.array([int(x) for x in ids], dtype=np.int64)
    elif kind == "unicode":
        job_id = np.array(ids)
    else:
        job_id = np.array(ids, dtype=object)
        if kind == "mixed":
            job_id[1] = 17  # an int among the text: not all text, so through astype(str)
    n = len(ids)
    jobs = JobTable(
        job_id=job_id,
        submit_time=rng.integers(0, 3, n).astype(float),  # ties on submit time: the ids decide
        duration=np.ones(n),
        request=np.ones((n, 3)),
        is_te=np.zeros(n, dtype=bool),
    )
    got, want = _keys(jobs), _keys_before(jobs)
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        assert g.dtype == w.dtype
        assert g.tolist() == w.tolist()
    assert np.lexsort(got).tolist() == np.lexsort(want).tolist()


@pytest.mark.parametrize("enabled", [True, False])
def test_a_run_leaves_the_collector_as_it_found_it(enabled):
    wl = generate("paper", 0, {"jobs": 50})
    was = gc.isenabled()
    try:
        gc.enable() if enabled else gc.disable()
        simulate(wl.table, wl.cluster, SimConfig(policy="fitgpp"))
        assert gc.isenabled() == enabled
    finally:
        gc.enable() if was else gc.disable()


def _cycles_left(preset: str, jobs: int, policy: str, grace: float) -> int:
    """Objects in reference cycles a run leaves behind (the collector is off during runs)."""
    wl = generate(preset, 0, {"jobs": jobs})
    gc.collect()
    was = gc.isenabled()
    gc.disable()
    try:
        simulate(wl.table, wl.cluster, SimConfig(policy=policy, grace=grace))
        return gc.collect()
    finally:
        if was:
            gc.enable()


@pytest.mark.parametrize(
    "preset,policy,grace", [("paper", "fitgpp", 0.0), ("paper", "random", 30.0), ("paper-gang", "lrtp", 30.0)]
)
def test_a_run_makes_no_cycles_per_event(preset, policy, grace):
    """The collector is off while a run steps: that is safe because the garbage in cycles a run
    leaves does not grow with its length (a few objects per run, none per event)."""
    assert _cycles_left(preset, 200, policy, grace) == _cycles_left(preset, 2000, policy, grace)


def _feasible_nodes_with_numpy(view: PreemptionView, pos: np.ndarray) -> list[tuple[int, list[int]]]:
    """The evaluator's feasible nodes as they were computed before (numpy over every node), for reference."""
    c = view.candidates
    total = view.avail.copy()
    np.add.at(total, c.node[pos], c.req[pos])
    has = np.zeros(len(view.avail), dtype=bool)
    has[c.node[pos]] = True
    nodes = np.flatnonzero(has & (total >= view.te_req).all(axis=1)).tolist()
    order = np.argsort(c.node[pos], kind="stable")  # stable: job order within a node
    grouped = pos[order]
    return [(k, grouped[c.node[grouped] == k].tolist()) for k in nodes]


@pytest.mark.parametrize("seed", range(40))
def test_feasible_nodes_in_python_are_the_numpy_ones(seed):
    """The evaluator's per-node grouping (Python sums over the candidates' lists) against the numpy
    pass it replaces, on random views: the same nodes, ascending, each with its candidates in job order."""
    rng = np.random.default_rng(seed)
    nodes, m = int(rng.integers(1, 9)), int(rng.integers(0, 30))
    cap = rng.integers(1, 9, size=(nodes, 3), dtype=np.int64)
    c = Candidates(
        job=np.arange(m, dtype=np.int64),
        node=rng.integers(0, nodes, size=m).astype(np.int64),
        req=rng.integers(0, 4, size=(m, 3), dtype=np.int64),
        seg_start=np.zeros(m),
        remaining=np.ones(m),
        lost_now=np.zeros(m),
        expected_loss=np.zeros(m),
        preemptions=np.zeros(m, dtype=np.int64),
        rank=np.arange(m, dtype=np.int64),
        last_checkpoint=np.full(m, np.nan),
        restore_next=np.zeros(m),
    )
    avail = rng.integers(0, 3, size=(nodes, 3), dtype=np.int64)
    te = rng.integers(0, 7, size=3, dtype=np.int64)
    view = PreemptionView(0.0, te, cap, 1.0 / cap, avail, c, SimConfig(), rng)
    pos = np.flatnonzero(rng.random(m) < 0.7)  # what the caps allow, ascending
    got = _feasible_nodes(view, pos)
    assert got == _feasible_nodes_with_numpy(view, pos)
    assert all(view.fits(np.asarray(avail[k]) + c.req[here].sum(axis=0)) for k, here in got)


def test_event_log_packs_the_rows_it_was_given():
    """The log's chunks packed to bytes (struct, bytes) hold exactly the rows added, across chunk moves."""
    rng = np.random.default_rng(5)
    n = 2 * CHUNK + 123
    rows = (
        (rng.random(n) * 1e9).tolist(),
        rng.integers(0, 2**40, n).tolist(),
        rng.integers(0, len(EVENT_NAMES), n).tolist(),
        rng.integers(-1, 10**6, n).tolist(),
    )
    log = EventLog()
    for t, j, c, k in zip(*rows, strict=True):
        log.add(t, j, c, k)
    cols = log.columns()
    assert [c.dtype for c in cols] == [np.float64, np.int64, np.int8, np.int64]
    for got, want in zip(cols, rows, strict=True):
        assert got.tolist() == want
    assert [len(c) for c in EventLog().columns()] == [0, 0, 0, 0]


def test_simpy_runs_a_processed_event_again_when_rescheduled() -> None:
    """The clock's assumption about SimPy (clock.py re-arms one processed event per instant): a
    processed timeout given new callbacks and scheduled again is processed again, at the new time,
    in order with other events; a SimPy that stopped allowing it fails here, not in a run's output."""
    import simpy
    from simpy.events import NORMAL

    env = simpy.Environment()
    seen: list[tuple[str, float]] = []
    event = env.timeout(5)

    def again(_event: simpy.Event) -> None:
        seen.append(("again", env.now))
        if len(seen) < 4:
            event.callbacks = [again]
            env.schedule(event, NORMAL, 10)

    event.callbacks.append(again)
    env.timeout(12).callbacks.append(lambda _e: seen.append(("other", env.now)))
    env.run()
    assert seen == [("again", 5), ("other", 12), ("again", 15), ("again", 25)]
