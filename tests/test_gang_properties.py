"""Property tests for gang jobs: random small workloads with gangs, every preemptive policy.

Each run's events frame is replayed independently of the engine and checked against DESIGN.md
rule 10: a job's workers start, are signalled, release and finish at the same instant (one row
each, consecutive, the same nodes in the same worker order); no node over capacity; a gang is
never partially running; every job finishes once; the progress of its run segments adds up to
duration + lost work; TE jobs are never preempted; every preempt row belongs to a decision
record naming its node, and the records' accounting values add up to the summary's. And a workload whose ``workers`` are all 1 gives byte-identical outputs
to the same workload without the column, for every policy and several knobs.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import replace

import numpy as np
import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from simcore.analysis import accounting
from simcore.analysis.gantt import segments
from simcore.analysis.metrics import summarize
from simcore.core.model import ClusterSpec, JobTable, Node, Resources, SimConfig
from simcore.engine import simulate

PREEMPTIVE = ["k8s", "lrtp", "random", "fitgpp", "fitdelay"]
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
KNOBS = [
    {},
    {"grace": 0},
    {"grace": 0, "restore": 0},
    {"checkpoint": "none"},
    {"checkpoint": "periodic", "checkpoint_interval": 7},
    {"backfill": "none"},
    {"placement": "first_fit"},
    {"placement": "worst_fit"},
    {"min_runtime": 5},
    {"P": 1, "s": 1.0},
]


@st.composite
def scenario(draw):
    """Nodes of 2-8 GPUs (cpu = mem = gpu), jobs of 1-4 workers of 1-8 GPUs, integer times."""
    gpus = draw(st.lists(st.sampled_from([2, 4, 8]), min_size=1, max_size=4))
    cluster = ClusterSpec(tuple(Node(f"n{i}", Resources(g, g, g)) for i, g in enumerate(gpus)))
    n = draw(st.integers(1, 12))
    req = np.array(draw(st.lists(st.sampled_from([1, 2, 4, 8]), min_size=n, max_size=n)), dtype=float)
    jobs = JobTable(
        job_id=np.array([str(i) for i in range(n)], dtype=object),
        submit_time=np.array(draw(st.lists(st.integers(0, 40), min_size=n, max_size=n)), dtype=float),
        duration=np.array(draw(st.lists(st.integers(1, 80), min_size=n, max_size=n)), dtype=float),
        request=np.column_stack([req, req, req]),
        is_te=np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n))),
        workers=np.array(draw(st.lists(st.integers(1, 4), min_size=n, max_size=n)), dtype=np.int64),
    )
    config = SimConfig(
        policy=draw(st.sampled_from(PREEMPTIVE)), seed=draw(st.integers(0, 3)), **draw(st.sampled_from(KNOBS))
    )
    return jobs, cluster, config


def _groups(r) -> list[tuple[float, str, str, list[str]]]:
    """The events as (time, job, event, nodes): consecutive rows of one job and event at one instant."""
    out: list[tuple[float, str, str, list[str]]] = []
    for t, j, e, n in r.events_frame.itertuples(index=False, name=None):
        if out and out[-1][:3] == (t, j, e):
            out[-1][3].append(n)
        else:
            out.append((t, j, e, [n]))
    return out


def check(r) -> None:
    jobs = r.jobs
    ids = [str(x) for x in jobs.job_id]
    w = dict(zip(ids, jobs.workers.tolist(), strict=True))
    req = dict(zip(ids, jobs.request, strict=True))
    te = dict(zip(ids, jobs.is_te.tolist(), strict=True))
    cap = {n.name: np.array(n.capacity.as_array()) for n in r.cluster.nodes}
    used = {k: np.zeros(3) for k in cap}
    nodes_of: dict[str, list[str]] = {}
    state: dict[str, str] = {}
    seg: dict[str, float] = {}
    restarted: dict[str, bool] = defaultdict(bool)
    done: dict[str, float] = defaultdict(float)  # progress per job
    finishes: dict[str, int] = defaultdict(int)
    seen_jobs_of_event: set[tuple[float, str, str]] = set()
    restore = r.config.restore
    for t, j, e, nodes in _groups(r):
        key = (t, j, e)
        assert key not in seen_jobs_of_event, f"{j}'s {e} rows at {t} are not consecutive"
        seen_jobs_of_event.add(key)
        if e == "submit":
            assert nodes == [""]
            state[j] = "pending"
            continue
        assert len(nodes) == w[j], f"{e} of {j} at {t} on {nodes}: {w[j]} workers"  # all or nothing
        if e == "start":
            assert state[j] == "pending"
            nodes_of[j], state[j], seg[j] = nodes, "running", t
            for k in nodes:
                used[k] += req[j]
                assert (used[k] <= cap[k] + 1e-9).all(), f"{k} over capacity at {t}"
            continue
        assert nodes == nodes_of[j], f"{e} of {j} on {nodes}, started on {nodes_of[j]}"
        if e in ("preempt", "finish"):
            assert state[j] == "running"
            done[j] += max(0.0, t - seg[j] - (restore if restarted[j] else 0.0))
            if e == "preempt":
                assert not te[j], f"TE job {j} preempted"
                state[j] = "preempting"
            else:
                state[j] = "done"
                finishes[j] += 1
        if e in ("release", "finish"):
            if e == "release":
                assert state[j] == "preempting"
                state[j], restarted[j] = "pending", True
            for k in nodes:
                used[k] -= req[j]
    assert dict(finishes) == dict.fromkeys(ids, 1), "every job finishes exactly once"
    jf = r.jobs_frame.set_index("job_id")
    for j in ids:
        assert abs(done[j] - (jf.loc[j, "duration"] + jf.loc[j, "lost_work"])) < 1e-6, f"progress of {j}"
        assert jf.loc[j, "workers"] == w[j]
        assert jf.loc[j, "node"] == nodes_of[j][0]  # worker 0's
    for k in used:
        assert np.allclose(used[k], 0)


def check_decisions(r) -> None:
    """Every preempt group belongs to exactly one record with its time and victim, on one of its nodes."""
    owner: dict[tuple[float, str], list[dict]] = defaultdict(list)
    for d in r.decisions:
        for v in d["victims"]:
            owner[(d["time"], v)].append(d)
    for t, j, e, nodes in _groups(r):
        if e == "preempt":
            (d,) = owner[(t, j)]
            assert set(nodes) <= set(d.get("nodes", [d["node"]]))


def check_record_accounting(r) -> None:
    """The records' accounting values add up to the summary's (docs/policies.md, preemption
    accounting): a TE gang's decision may span several records, one per worker that searched,
    which share its time, TE job and ``wasted``."""
    records = [d for d in accounting.annotated_decisions(r) if d["victims"]]
    acc = summarize(r)["accounting"]
    decisions: dict[tuple[float, str], bool] = {}
    for d in records:
        assert decisions.setdefault((d["time"], d["te_job"]), d["wasted"]) == d["wasted"]
        assert d["excess_gpus"] >= 0
    assert len(decisions) == acc["preemption_decisions"]
    assert sum(decisions.values()) == acc["wasted_preemptions"]["count"]
    for c in accounting.COSTS:
        assert np.isclose(sum(d[c] for d in records), acc[c])
        assert np.isclose(sum(d[c] for d in records if d["wasted"]), acc["wasted_preemptions"][c])
    assert np.isclose(sum(d["excess_gpus"] for d in records), acc["excess_gpus"])


@SETTINGS
@given(scenario())
def test_gang_invariants(case):
    jobs, cluster, config = case
    r = simulate(jobs, cluster, config, record_decisions=True)
    check(r)
    check_decisions(r)
    check_record_accounting(r)
    g = segments(r)  # a gang's lanes on every node it holds, per worker
    run = g[g["kind"] == "run"].assign(d=lambda f: f["end"] - f["start"])
    jf = r.jobs_frame.set_index("job_id")
    gpus = dict(zip(r.jobs.job_id, r.jobs.request[:, 2].astype(int), strict=True))  # whole GPUs: one lane each
    for j, f in run.groupby("job_id"):
        expected = (jf.loc[j, "duration"] + jf.loc[j, "lost_work"]) * jf.loc[j, "workers"] * gpus[j]
        assert abs(f["d"].sum() - expected) < 1e-6
    again = simulate(jobs, cluster, config, record_decisions=True)  # deterministic
    assert again.events_frame.equals(r.events_frame) and again.decisions == r.decisions


def _outputs(r) -> tuple[str, str, str, str]:
    s = summarize(r)
    s.pop("wall_seconds")
    return (
        r.jobs_frame.to_csv(index=False),
        r.events_frame.to_csv(index=False),
        json.dumps(s, sort_keys=True),
        json.dumps(r.decisions, sort_keys=True),
    )


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenario())
def test_all_one_workers_column_changes_nothing(case):
    """A frame with an explicit all-1 ``workers`` column and the same frame without it: the same
    outputs, byte for byte, for every policy (the drawn one and every other) and the drawn knobs."""
    jobs, cluster, config = case
    frame = jobs.to_frame().drop(columns=["workers"], errors="ignore")
    without = JobTable.from_frame(frame)
    with_col = JobTable.from_frame(frame.assign(workers=np.ones(len(frame), dtype=np.int64)))
    assert not with_col.has_gangs
    for policy in ["fifo", "priority", *PREEMPTIVE]:
        cfg = replace(config, policy=policy)
        a = simulate(without, cluster, cfg, record_decisions=True)
        b = simulate(with_col, cluster, cfg, record_decisions=True)
        assert _outputs(a) == _outputs(b)
        assert pd.Series(a.jobs_frame["workers"]).eq(1).all()
