"""The memory changes of issue 21's fourth round (docs/history/engine.md#the-compiled-engine-fourth-round-issue-21):
each leaner form against what it replaces, and the per-job bytes of a run's state."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

from simcore.core import units
from simcore.core.model import JobTable, SimConfig
from simcore.engine import loop
from simcore.engine.jobstate import JobState
from simcore.engine.pending import Waiting
from simcore.engine.queue_order import int_pool, job_order, job_orders
from simcore.workload.presets import generate

IDS = {
    "numeric": lambda rng, n: [str(x) for x in rng.permutation(n) * 7],
    "equal values": lambda rng, n: [("0" if i % 2 else "") + str(rng.integers(0, n // 3 + 1)) for i in range(n)],
    "text": lambda rng, n: [f"j{rng.integers(0, 50)}-{i}" for i in range(n)],
}


def _table(rng: np.random.Generator, ids: list[str]) -> JobTable:
    n = len(ids)
    return JobTable(
        job_id=np.array(ids, dtype=object),
        submit_time=rng.integers(0, 5, n).astype(float),  # many ties: the id decides
        duration=np.ones(n),
        request=rng.integers(1, 4, size=(n, 3)).astype(float),
        is_te=rng.random(n) < 0.4,
    )


@pytest.mark.parametrize("kind", sorted(IDS))
@pytest.mark.parametrize("te_first", [True, False])
def test_job_orders_is_job_order_twice(kind, te_first):
    rng = np.random.default_rng(len(kind))
    table = _table(rng, IDS[kind](rng, 300))
    order, queue = job_orders(table, te_first)
    assert order.tolist() == job_order(table, te_first=False).tolist()
    assert queue.tolist() == job_order(table, te_first=te_first).tolist()


def test_lists_from_the_int_pool_hold_the_values_and_share_their_objects():
    perm = np.random.default_rng(1).permutation(5000)
    pool = int_pool(5000)
    a, b = pool[perm].tolist(), pool[np.argsort(perm)].tolist()
    assert a == perm.tolist() and b == np.argsort(perm).tolist()
    assert all(type(x) is int and x is pool[x] for x in a + b)  # one object per value, above the small-int cache too


def test_job_state_shares_one_request_tuple_per_distinct_row():
    rng = np.random.default_rng(2)
    table = _table(rng, IDS["numeric"](rng, 400))
    req = units.requests(table.request)
    js = JobState(table, req, job_order(table, te_first=False), SimConfig())
    assert js.req_list == [tuple(r) for r in req.tolist()]
    assert all(type(x) is int for row in js.req_list for x in row)
    assert len({id(t) for t in js.req_list}) == len({tuple(r) for r in req.tolist()})


def test_waiting_maps_jobs_and_ranks_through_the_pool():
    rank = np.random.default_rng(3).permutation(600)
    w = Waiting(rank, [(1, 1, 1)] * 600, [False] * 600, int_pool(600))
    assert w.rank == rank.tolist()
    assert [w.job_of_rank[r] for r in w.rank] == list(range(600))


def test_a_runs_state_costs_at_most_400_bytes_a_job():
    """Measured with tracemalloc on 20,000 jobs: 302 bytes a job after this round, 573 before
    (a tuple of three ints per request, an int object per item of each rank list, a float object
    per first start, finish and work left). The bound catches a per-job object coming back."""
    n = 20_000
    wl = generate("paper", 0, {"jobs": n, "nodes": 100})
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        run = loop._Run(wl.table, wl.cluster, SimConfig(policy="fitgpp"))
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert len(run.js.req_list) == n
    assert held / n < 400
