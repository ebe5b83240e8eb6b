"""Hypothesis strategies shared by the property tests: small random clusters, workloads for
them, knob settings per policy, and a contended shape where preemptions actually happen."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import strategies as st

from simcore.core.model import ClusterSpec, JobTable, Node, Resources, SimConfig

POLICIES = ["fifo", "priority", "k8s", "lrtp", "random", "fitgpp"]

# Resource values are integers or binary fractions, so that sums and differences of them are
# exact in floating point and "fits" has no rounding ambiguity in the property checks.
GPU_CAPS = [0, 0.5, 1, 2, 4, 8]
CPU_CAPS = [1, 2, 4, 8, 16]
MEM_CAPS = [1, 4, 16, 64]
GPU_REQ = [0, 0.25, 0.5, 1, 1, 2, 4, 8]
CPU_REQ = [0, 0.5, 1, 2, 4, 8, 16]
MEM_REQ = [0, 1, 2, 8, 32]


@st.composite
def clusters(draw) -> ClusterSpec:
    n = draw(st.integers(1, 4))
    if draw(st.booleans()):  # homogeneous
        caps = [(draw(st.sampled_from(CPU_CAPS)), draw(st.sampled_from(MEM_CAPS)), draw(st.sampled_from(GPU_CAPS)))] * n
    else:
        caps = [
            (draw(st.sampled_from(CPU_CAPS)), draw(st.sampled_from(MEM_CAPS)), draw(st.sampled_from(GPU_CAPS)))
            for _ in range(n)
        ]
    return ClusterSpec(tuple(Node(f"n{i}", Resources(*map(float, c))) for i, c in enumerate(caps)))


@st.composite
def workloads(draw, cluster: ClusterSpec, int_times: bool | None = None) -> JobTable:
    """Jobs for `cluster`: most requests are clipped to some node's capacity (so that they
    are schedulable), a few are left as drawn (often unschedulable)."""
    caps = cluster.capacity_matrix()
    n = draw(st.integers(1, 14))
    if int_times is None:
        int_times = draw(st.booleans())
    if int_times:
        # a small range of integer times: many ties at equal times
        submits = draw(st.lists(st.integers(0, 30), min_size=n, max_size=n))
        durations = draw(st.lists(st.integers(1, 60), min_size=n, max_size=n))
    else:
        fl = st.floats(0, 40, allow_nan=False, allow_infinity=False, allow_subnormal=False)
        submits = draw(st.lists(fl, min_size=n, max_size=n))
        durations = draw(st.lists(st.floats(0.25, 60, allow_nan=False, allow_subnormal=False), min_size=n, max_size=n))
    id_mode = draw(st.sampled_from(["int", "str"]))
    if id_mode == "int":
        ids = [str(x) for x in draw(st.lists(st.integers(0, 500), min_size=n, max_size=n, unique=True))]
    else:
        ids = draw(
            st.lists(st.text("ab19", min_size=1, max_size=3), min_size=n, max_size=n, unique=True).filter(
                lambda xs: not all(x.isdigit() for x in xs)
            )
        )
    req = np.array(
        [
            (draw(st.sampled_from(CPU_REQ)), draw(st.sampled_from(MEM_REQ)), draw(st.sampled_from(GPU_REQ)))
            for _ in range(n)
        ],
        dtype=float,
    ).reshape(-1, 3)
    for i in range(n):
        if draw(st.integers(0, 9)) > 0:
            req[i] = np.minimum(req[i], caps[draw(st.integers(0, len(caps) - 1))])
    is_te = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)), dtype=bool)
    return JobTable(
        job_id=np.array(ids, dtype=object),
        submit_time=np.array(submits, dtype=float),
        duration=np.array(durations, dtype=float),
        request=req,
        is_te=is_te,
    )


@st.composite
def configs(draw, policy: str) -> SimConfig:
    return SimConfig(
        policy=policy,
        grace=draw(st.sampled_from([0.0, 5.0, 30.0])),
        checkpoint=draw(st.sampled_from(["on_preempt", "periodic", "none"])),
        checkpoint_interval=draw(st.sampled_from([10.0, 25.0])),
        restore=draw(st.sampled_from([0.0, 7.0, 60.0])),
        backfill=draw(st.sampled_from(["greedy", "none"])),
        placement=draw(st.sampled_from(["best_fit", "first_fit", "worst_fit"])),
        P=draw(st.sampled_from([0, 1, 2, 3])),
        s=draw(st.sampled_from([math.inf, 1.0, 2.5, 8.0])),
        seed=draw(st.integers(0, 5)),
    )


@st.composite
def contended(draw):
    """A busier case for the preemptive policies: one or two nodes, many BE jobs and TE
    jobs arriving later, so that preemptions (and repeated ones) actually happen."""
    g = draw(st.sampled_from([2, 4, 8]))
    nodes = draw(st.integers(1, 2))
    cluster = ClusterSpec(tuple(Node(f"n{i}", Resources(float(g), float(g), float(g))) for i in range(nodes)))
    n_be = draw(st.integers(1, 6))
    n_te = draw(st.integers(1, 6))
    rows = []
    for _ in range(n_be):
        gg = draw(st.sampled_from([x for x in (0.5, 1, 2, 4, 8) if x <= g]))
        rows.append((draw(st.integers(0, 10)), draw(st.integers(20, 200)), gg, False))
    for _ in range(n_te):
        gg = draw(st.sampled_from([x for x in (0.5, 1, 2, 4) if x <= g]))
        rows.append((draw(st.integers(5, 150)), draw(st.integers(1, 40)), gg, True))
    jobs = JobTable(
        job_id=np.array([str(i) for i in range(len(rows))], dtype=object),
        submit_time=np.array([r[0] for r in rows], dtype=float),
        duration=np.array([r[1] for r in rows], dtype=float),
        request=np.array([(r[2], r[2], r[2]) for r in rows], dtype=float).reshape(-1, 3),
        is_te=np.array([r[3] for r in rows], dtype=bool),
    )
    return jobs, cluster


@st.composite
def gang_workloads(draw, max_nodes: int = 4, max_jobs: int = 12, max_workers: int = 4) -> tuple[JobTable, ClusterSpec]:
    """Nodes of 2-8 GPUs (cpu = mem = gpu), jobs of 1 to `max_workers` workers of 1-8 GPUs, integer times."""
    gpus = draw(st.lists(st.sampled_from([2, 4, 8]), min_size=1, max_size=max_nodes))
    cluster = ClusterSpec(tuple(Node(f"n{i}", Resources(g, g, g)) for i, g in enumerate(gpus)))
    n = draw(st.integers(1, max_jobs))
    req = np.array(draw(st.lists(st.sampled_from([1, 2, 4, 8]), min_size=n, max_size=n)), dtype=float)
    jobs = JobTable(
        job_id=np.array([str(i) for i in range(n)], dtype=object),
        submit_time=np.array(draw(st.lists(st.integers(0, 40), min_size=n, max_size=n)), dtype=float),
        duration=np.array(draw(st.lists(st.integers(1, 80), min_size=n, max_size=n)), dtype=float),
        request=np.column_stack([req, req, req]),
        is_te=np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n))),
        workers=np.array(draw(st.lists(st.integers(1, max_workers), min_size=n, max_size=n)), dtype=np.int64),
    )
    return jobs, cluster
