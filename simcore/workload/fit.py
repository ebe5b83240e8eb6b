"""Which jobs can run at all: a job is unschedulable (DESIGN rule 8) when its workers cannot all
be placed on the empty cluster (DESIGN-gangs point 1).

On the empty cluster every worker of a job asks for the same request, so node n holds
``k_n = min over dimensions of floor(capacity / request)`` of them whatever else is placed, and
placing the workers one at a time by any placement rule (best fit included) places exactly
``min(workers, sum of k_n)`` of them. The job fits when that sum reaches its workers: for one
worker, when some node holds its request, the single-node rule of before.
"""

from __future__ import annotations

import numpy as np

from simcore.core import units
from simcore.core.model import ClusterSpec, JobTable
from simcore.core.queues import ABOVE_QUEUE_LIMIT, FITS_NO_NODE, above_limit
from simcore.workload.schema import MAX_WORKERS


def workers_per_node(request_units: np.ndarray, capacity_units: np.ndarray) -> np.ndarray:
    """(jobs x nodes) how many workers of each request an empty node holds, in the simulator's
    integer units (:mod:`simcore.core.units`), capped at :data:`MAX_WORKERS` so sums stay exact."""
    req = request_units[:, None, :]
    per_dim = np.where(req > 0, capacity_units[None, :, :] // np.maximum(req, 1), MAX_WORKERS)  # never / 0
    # the ufuncs' own reduction: the engine counts a gang's room with this on every look at it
    return np.minimum(np.minimum.reduce(per_dim, 2), MAX_WORKERS)


def fits_empty_cluster(jobs: JobTable, cluster: ClusterSpec) -> np.ndarray:
    """Mask of the jobs whose workers can all be placed on the empty ``cluster``."""
    if not len(jobs):
        return np.zeros(0, dtype=bool)
    kinds, kind_of = distinct_rows(units.capacities(cluster.capacity_matrix(), cluster.names))
    shapes, inverse = distinct_rows(units.requests(jobs.request))
    # workers of each shape the empty cluster holds: equal nodes hold equal counts, so count each
    # kind of node once, times its nodes (integers, exact; a cluster has few kinds of node)
    room = workers_per_node(shapes, kinds) @ np.bincount(kind_of, minlength=len(kinds))
    return np.asarray(room[inverse] >= np.asarray(jobs.workers), dtype=bool)


def schedulable(jobs: JobTable, cluster: ClusterSpec) -> tuple[np.ndarray, tuple[str, ...]]:
    """Which jobs a run simulates (rule 8): those that fit on the empty cluster and, with queues
    (``cluster.queues``), whose GPUs are within their queue's quota + borrow limit; and, with queues,
    the reason of each job left out (:data:`~simcore.core.queues.FITS_NO_NODE` first), else ()."""
    fits = fits_empty_cluster(jobs, cluster)  # a gang: all its workers at once
    if cluster.queues is None:
        return fits, ()
    ok = fits & ~above_limit(cluster.queues, jobs)
    return ok, tuple(ABOVE_QUEUE_LIMIT if fits[i] else FITS_NO_NODE for i in np.flatnonzero(~ok).tolist())


def distinct_rows(req: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows of `req` and each row's index among them: ``np.unique(axis=0,
    return_inverse=True)`` by a lexsort of the columns (several times faster on many rows)."""
    order = np.lexsort(req.T[::-1])
    rows = req[order]
    new = np.ones(len(rows), dtype=bool)
    new[1:] = (rows[1:] != rows[:-1]).any(axis=1)
    inverse = np.empty(len(rows), dtype=np.int64)
    inverse[order] = np.cumsum(new) - 1
    return rows[new], inverse
