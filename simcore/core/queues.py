"""Queues: teams sharing the cluster, each guaranteed a quota of GPUs (DESIGN.md rule 11).

Kueue's names and meanings (``../shared/DESIGN-queues.md`` points 1-3): a queue's ``gpu`` is its
quota (``nominalQuota``: GPUs guaranteed), ``borrow_limit`` the GPUs it may hold above it
(``borrowingLimit``: inf = unlimited, 0 = never borrows) and ``weight`` its fair-sharing weight.
The whole cluster is one cohort. A job's queue is the workload column ``queue`` (text; no column
or an empty cell: :data:`DEFAULT_QUEUE`); names are compared after stripping blanks. Quotas are
GPU counts only, rounded to the simulator's integer GPU units (thousandths, :mod:`simcore.core.units`)
like requests; :data:`INF_UNITS` stands for inf there. Without a :class:`QueueSpec` a run has no
queues at all (one unlimited queue behaves the same, by rule).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from simcore.core import units
from simcore.core.model import (  # noqa: F401 - the queue model, re-exported: imported from here
    GPU_SCALE,
    INF_UNITS,
    MAX_QUEUES,
    ClusterSpec,
    JobTable,
    Queue,
    QueueSpec,
    gpu_units,
    in_gpus,
)

DEFAULT_QUEUE = "default"
#: the columns of a queues file, in order; ``queue`` and ``gpu`` are required
QUEUE_COLUMNS = ("queue", "gpu", "borrow_limit", "weight")
#: DESIGN-queues point 2: the reason an unschedulable job is listed with when only its queue refuses it
ABOVE_QUEUE_LIMIT = "above its queue's limit"
#: DESIGN rule 8: the reason of a job that fits on no node, even empty (it keeps it with queues too)
FITS_NO_NODE = "fits on no node"


def job_queue_names(jobs: JobTable) -> np.ndarray:
    """Each job's queue name (object array of str): the ``queue`` column stripped, :data:`DEFAULT_QUEUE`
    where there is no column or the cell is empty."""
    col = jobs.extra.get("queue")
    if col is None:
        return np.full(len(jobs), DEFAULT_QUEUE, dtype=object)
    return np.array([_name(x) for x in col.tolist()], dtype=object)


def _name(value: Any) -> str:
    text = "" if value is None or (isinstance(value, float) and math.isnan(value)) else str(value).strip()
    return text or DEFAULT_QUEUE


def with_queues(jobs: JobTable, names: Sequence[str]) -> JobTable:
    """The same jobs with their ``queue`` column set to `names` (one per job)."""
    if len(names) != len(jobs):
        raise ValueError(f"{len(names)} queue names for {len(jobs)} jobs")
    extra = dict(jobs.extra)
    extra["queue"] = np.array([str(x) for x in names], dtype=object)
    return JobTable(jobs.job_id, jobs.submit_time, jobs.duration, jobs.request, jobs.is_te, extra, jobs.workers)


def job_queues(spec: QueueSpec, jobs: JobTable) -> np.ndarray:
    """Each job's queue position (int64); a job whose queue is not here raises ValueError naming it."""
    names = job_queue_names(jobs)
    where = spec.index()
    missing = sorted({x for x in names.tolist() if x not in where})
    if missing:
        shown = ", ".join(repr(x) for x in missing[:10]) + (
            f" and {len(missing) - 10} more" if len(missing) > 10 else ""
        )
        raise ValueError(f"jobs name queues that are not in the queues file: {shown}")
    return np.fromiter((where[x] for x in names.tolist()), dtype=np.int64, count=len(names))


def above_limit(spec: QueueSpec, jobs: JobTable) -> np.ndarray:
    """Per job: are its GPUs (request x workers, in units) above its queue's quota + borrow limit?
    Such a job can never start (DESIGN-queues point 2: unschedulable)."""
    limit = np.array([q.limit_units for q in spec.queues], dtype=np.int64)
    gpus = units.requests(jobs.request)[:, 2] * np.asarray(jobs.workers, dtype=np.int64)
    return gpus > limit[job_queues(spec, jobs)]


def overcommit_warning(spec: QueueSpec, cluster: ClusterSpec) -> str | None:
    """DESIGN-queues point 3: when the finite quotas add up to more than the cluster's GPUs, the
    warning the CLI prints and the summary keeps; else None (below it, the rest is nobody's)."""
    total = sum(q.quota_units for q in spec.queues if not math.isinf(q.gpu))
    cluster_units = int(np.rint(cluster.capacity_matrix()[:, 2] * GPU_SCALE).sum())
    if total <= cluster_units:
        return None
    return (
        f"the queues' quotas add up to {in_gpus(total):g} GPUs, more than the cluster's {in_gpus(cluster_units):g}: "
        "they are overcommitted and cannot all be met at once"
    )
