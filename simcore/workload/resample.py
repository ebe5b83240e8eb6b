"""A workload drawn again from itself: the bootstrap of jobs, for intervals on a fixed workload file.

A workload file is one sample of what a cluster runs; a result on it alone has no spread. The
bootstrap draws, for each seed, as many jobs as the file has, with replacement, from its jobs: each
drawn job keeps its submit time, run time, request, class and workers, so a job drawn twice arrives
twice at the same instant (its copies named ``<id>~2``, ``<id>~3``, ... in the order drawn) and a job
not drawn is left out. The offered load and the mix of classes and sizes stay those of the file on
average; how far a metric moves over such draws is how far it could move on another workload of the
same kind of jobs, at the same times. The draw depends only on the seed (``numpy.random.default_rng``).
"""

from __future__ import annotations

import numpy as np

from simcore.core.model import JobTable

#: the resamplings a sweep of a workload file may ask for (``--resample``): the file as it is, or the bootstrap
RESAMPLINGS = ("none", "bootstrap")
COPY_MARK = "~"  # between a job's id and its copy number


def bootstrap(table: JobTable, seed: int) -> JobTable:
    """``len(table)`` jobs drawn with replacement from ``table`` by ``seed``, in submit order (ties: the
    order drawn), a job drawn again renamed ``<id>~k`` (its k-th copy)."""
    n = len(table)
    picks = np.random.default_rng(seed).integers(0, n, n) if n else np.zeros(0, dtype=np.int64)
    order = np.lexsort((np.arange(n), table.submit_time[picks]))
    picks = picks[order]
    drawn = table.subset(picks)
    seen: dict[int, int] = {}
    taken = set(table.job_id.tolist())  # a copy's name never takes an id of the file ("5~2" may be one)
    ids = []
    for pick, job_id in zip(picks.tolist(), drawn.job_id.tolist(), strict=True):
        seen[pick] = seen.get(pick, 0) + 1
        name = job_id if seen[pick] == 1 else f"{job_id}{COPY_MARK}{seen[pick]}"
        while seen[pick] > 1 and name in taken:
            name += COPY_MARK
        taken.add(name)
        ids.append(name)
    return JobTable(
        job_id=np.array(ids, dtype=object),
        submit_time=drawn.submit_time,
        duration=drawn.duration,
        request=drawn.request,
        is_te=drawn.is_te,
        extra=dict(drawn.extra),
        workers=drawn.workers,
    )
