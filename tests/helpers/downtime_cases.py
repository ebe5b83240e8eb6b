"""Random runs with down time (DESIGN rule 12) and the invariants every one of them keeps, checked
from the outputs alone (shared by tests/test_failures_properties.py and, with queues,
tests/test_queues_failures.py).

:func:`scenario` draws nodes, jobs (some TE, some gangs), down windows (failures and maintenance,
often overlapping) and knobs (every policy, grace 0, 30 or 300, the three checkpoint modes,
checkpoint_cost, random failures, saves that fail, strict backfill, each placement, min_runtime,
the preemption budget). :func:`check_down_time` checks: nothing starts or runs on a down node,
nothing starts on a draining node, every job on a node going down has its fail rows at that
instant, no node over capacity, progress adds up (run segments = duration + lost work), TE jobs are
never preempted (they may fail or be drained), the counts and the accounting agree.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from simcore.analysis import gantt
from simcore.analysis.metrics import summarize
from simcore.core.downtime import NodeEvents
from simcore.core.model import ClusterSpec, JobTable, SimConfig
from simcore.core.result import FAIL, FINISH, NODE_DOWN, NODE_UP, PREEMPT, RELEASE, START, SimResult
from simcore.policies import POLICIES


def scenario(seed: int) -> tuple[JobTable, ClusterSpec, SimConfig]:
    """One random case: jobs, a cluster with down windows, and knobs, all from `seed`."""
    rng = np.random.default_rng(seed)
    n_nodes = int(rng.integers(2, 6))
    cluster = ClusterSpec.uniform(n_nodes, 8, 8, 8)
    n = int(rng.integers(12, 36))
    gpu = rng.choice([1, 2, 4, 8], size=n, p=[0.3, 0.3, 0.2, 0.2]).astype(float)
    te = rng.random(n) < 0.3
    workers = np.where((rng.random(n) < 0.15) & (gpu <= 4), 2, 1)
    jobs = JobTable(
        job_id=np.array([f"j{i}" for i in range(n)], dtype=object),
        submit_time=np.sort(rng.integers(0, 2500, size=n)).astype(float),
        duration=rng.integers(10, 1200, size=n).astype(float),
        request=np.stack([gpu, gpu, gpu], axis=1),
        is_te=te,
        workers=workers.astype(np.int64),
    )
    windows = []
    for _ in range(int(rng.integers(0, 14))):
        start = float(rng.integers(0, 3000))
        windows.append(
            (
                f"n{rng.integers(n_nodes)}",
                start,
                start + float(rng.integers(5, 400)),
                rng.choice(["failure", "maintenance"]),
            )
        )
    cluster = cluster.with_node_events(NodeEvents.of(windows))  # none at all: still a run with down time
    mode = str(rng.choice(["on_preempt", "periodic", "none"]))
    config = SimConfig(
        policy=str(rng.choice(list(POLICIES))),
        grace=float(rng.choice([0.0, 30.0, 300.0])),
        restore=float(rng.choice([0.0, 60.0])),
        backfill=str(rng.choice(["greedy", "none"])),
        placement=str(rng.choice(["best_fit", "first_fit", "worst_fit"])),
        min_runtime=float(rng.choice([0.0, 200.0])),
        preempt_budget=float(rng.choice([math.inf, 3.0])),
        checkpoint=mode,
        checkpoint_interval=100.0,
        checkpoint_cost=float(rng.choice([0.0, 10.0])),
        mtbf=float(rng.choice([math.inf, 4000.0])),
        repair=150.0,
        save_failure=float(rng.choice([0.0, 0.3])),
        seed=seed,
    )
    return jobs, cluster, config


def _draining(cluster: ClusterSpec, grace: float) -> dict[int, list[tuple[float, float]]]:
    """Per node index, the [start - grace, start) of its maintenance windows (nothing may start there)."""
    index = {name: k for k, name in enumerate(cluster.names)}
    out: dict[int, list[tuple[float, float]]] = {}
    for w in cluster.node_events.windows if cluster.node_events is not None else ():
        if w.kind == "maintenance":
            out.setdefault(index[w.node], []).append((w.start - grace, w.start))
    return out


def check_down_time(r: SimResult, config: SimConfig) -> None:
    """The invariants of the module docstring, on run `r` of a :func:`scenario` (with or without queues)."""
    jobs, cluster = r.jobs, r.cluster
    assert not np.isnan(r.finish).any()  # every job ends
    cap = cluster.capacity_matrix()[:, 2]
    free = cap.copy()
    down = np.zeros(len(cap), dtype=bool)
    holders: list[dict[int, int]] = [{} for _ in cap]  # node -> job -> workers held there
    draining = _draining(cluster, config.grace)
    gpu = jobs.request[:, 2]
    t, job, code, node = r.ev_time.tolist(), r.ev_job.tolist(), r.ev_code.tolist(), r.ev_node.tolist()
    i = 0
    while i < len(t):
        c, j, k = code[i], job[i], node[i]
        if c == START:
            assert not down[k], f"row {i}: a start on a down node"
            assert not any(a <= t[i] < b for a, b in draining.get(k, ())), f"row {i}: a start on a draining node"
            free[k] -= gpu[j]
            holders[k][j] = holders[k].get(j, 0) + 1
            assert free[k] >= 0, f"row {i}: node over capacity"
        elif c in (RELEASE, FINISH, FAIL):
            free[k] += gpu[j]
            holders[k][j] -= 1
            if not holders[k][j]:
                del holders[k][j]
        elif c == NODE_DOWN:
            assert not down[k]
            down[k] = True
            on_it = set(holders[k])
            fails = []
            while i + 1 < len(t) and code[i + 1] == FAIL and t[i + 1] == t[i]:
                i += 1
                fails.append(job[i])
                free[node[i]] += gpu[job[i]]
                holders[node[i]][job[i]] -= 1
                if not holders[node[i]][job[i]]:
                    del holders[node[i]][job[i]]
            assert on_it <= set(fails), f"row {i}: a job on a failing node without its fail row"
            assert not holders[k], "a job still holds a down node"
        elif c == NODE_UP:
            assert down[k]
            down[k] = False
        i += 1
    # TE jobs are never preempted (they may fail or be drained)
    pre = np.asarray(r.ev_code) == PREEMPT
    assert not jobs.is_te[np.asarray(r.ev_job)[pre]].any()
    # the counts: one fail / drain per (job, instant), whatever its workers
    frame = r.events_frame
    for name, kind in (("failures", "fail"), ("drains", "drain")):
        rows = frame[frame.event == kind].drop_duplicates(["time", "job_id"])
        counted = rows.job_id.value_counts().reindex(r.jobs_frame.job_id, fill_value=0).to_numpy()
        assert (counted == r.jobs_frame[name].to_numpy()).all()
    # lost work: the interruptions' records add up to each job's lost_work
    d = r.downtime
    assert d is not None
    np.testing.assert_allclose(np.bincount(d.job, weights=d.lost, minlength=len(jobs)), r.lost_work, atol=1e-6)
    # progress adds up: each worker's run segments = duration + lost work (whole GPUs: one row per GPU)
    seg = gantt.segments(r)
    ran = seg[seg.kind == "run"].assign(s=lambda f: f.end - f.start).groupby("job_id").s.sum()
    expected = (jobs.duration + r.lost_work) * gpu * np.asarray(jobs.workers)
    np.testing.assert_allclose(ran.reindex(jobs.job_id).to_numpy(), expected, rtol=1e-9)
    # drains and failures are no preemptions: fitgpp's cap holds on preemptions alone
    if config.policy == "fitgpp":
        assert r.preemptions.max(initial=0) <= config.P
    s = summarize(r)
    assert s["downtime"]["interruptions"]["preemption"]["count"] == s["preemptions"]
    for m in ("gpu_seconds_lost", "gpu_seconds_grace", "gpu_seconds_restore"):
        assert s["downtime"]["interruptions"]["preemption"][m] == pytest.approx(s["accounting"][m])
    assert s["downtime"]["interruptions"]["drain"]["count"] == int(r.jobs_frame.drains.sum())
