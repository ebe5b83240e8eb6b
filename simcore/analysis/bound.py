"""The pooled bound ``ideal`` (DESIGN.md section 5): the same jobs on one node holding the whole
cluster's resources, ``k8s`` with ``grace`` = ``restore`` = 0 and ``checkpoint = on_preempt``, and
no down time (DESIGN-failures point 10: the pooled node has no node events, and ``mtbf`` = inf).

No fragmentation and free preemption: the limit any policy's TE waits can approach. Every other
knob is the run's own (backfill, min_runtime, tau, ...). It is a reference row beside the
policies, never a policy: compare (``--bound``) and sweeps label it :data:`BOUND_LABEL` and mark it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import replace

import numpy as np

from simcore.core.model import ClusterSpec, JobTable, Node, SimConfig
from simcore.core.result import SimResult
from simcore.engine import simulate

BOUND_LABEL = "ideal"
#: the knobs the bound sets; every other knob is the compared runs' own
BOUND_POLICY = "k8s"
BOUND_KNOBS = {"grace": 0.0, "restore": 0.0, "checkpoint": "on_preempt", "mtbf": math.inf}
POOLED_NODE = "pooled-0"


def pooled(cluster: ClusterSpec) -> ClusterSpec:
    """One node holding the cluster's summed resources."""
    return ClusterSpec(nodes=(Node(POOLED_NODE, cluster.total()),))


def bound_config(base: SimConfig) -> SimConfig:
    return replace(base, policy=BOUND_POLICY).with_knobs(BOUND_KNOBS)


def run_bound(jobs: JobTable, cluster: ClusterSpec, base: SimConfig, unschedulable: Iterable[str] = ()) -> SimResult:
    """The bound on `jobs`, leaving out the jobs that fit on no node of the real cluster
    (``unschedulable``, as a run on it lists them), so it runs the very jobs the policies run."""
    left_out = set(unschedulable)
    if left_out:
        keep = np.array([str(j) not in left_out for j in jobs.job_id], dtype=bool)
        jobs = jobs.subset(keep)
    return simulate(jobs, pooled(cluster), bound_config(base))
