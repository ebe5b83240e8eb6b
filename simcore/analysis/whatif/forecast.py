"""When would my job start? A described job inserted at a chosen time, and the run simulated forward.

The job is added to the workload, submitted at `at`, and the whole run is simulated from time 0.
That is the same as inserting it into the running state at `at` and going on from there: the
engine is deterministic, and nothing it does before `at` can depend on a job not yet submitted
(a pass only looks at submitted jobs), so up to `at` the run with the job is the run without it,
event for event, and from `at` on it is the run with the job inserted. One exception is spelled
out: under the ``random`` policy (and with ``save_failure``) the draws come from one generator in
decision order, so the draws after `at` may go to other decisions than in the run without the
job, and the rest of the run may differ beyond the job's own effect.

The new job keeps the queue order of every other job: job ids compare numerically when all are
integers (DESIGN.md rule 2), so in such a workload the new id must be an integer too (by default
the largest id plus one); a text id would reorder ties among all the others.
"""

from __future__ import annotations

import csv
import io
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from simcore.analysis.whatif.reasons import Wait, watched_run
from simcore.core.errors import UserError
from simcore.core.model import ClusterSpec, JobTable, SimConfig
from simcore.core.result import START, SimResult
from simcore.workload import load_workload
from simcore.workload.problems import WorkloadError

#: the fields a described job may have (its workload columns, submit time apart)
JOB_FIELDS = ("job_id", "duration", "cpu", "mem_gb", "gpu", "job_class", "workers", "queue")
REQUIRED = ("duration", "cpu", "mem_gb", "gpu", "job_class")
CAVEAT = (
    "a forecast under the workload as given: every other job arrives and runs exactly as in the file, "
    "so a real cluster, with jobs still to come or ending early, may start it later or sooner"
)
_INTEGER = re.compile(r"-?[0-9]+")


@dataclass(frozen=True)
class Forecast:
    """The described job's start in the run with it added."""

    job_id: str
    submit: float
    start: float | None  # None: it fits on no node, never starts
    nodes: tuple[str, ...]  # where it starts (a gang: every worker's node)
    victims: tuple[str, ...]  # BE jobs it preempted to start
    waits: tuple[Wait, ...]  # why it waited, if it did
    caveat: str
    result: SimResult


def when_would_it_start(
    jobs: JobTable, cluster: ClusterSpec, config: SimConfig, job: Mapping[str, object], at: float
) -> Forecast:
    """Insert `job` (workload columns, see :data:`JOB_FIELDS`) submitted at `at`, and simulate."""
    if not (isinstance(at, int | float) and math.isfinite(at) and at >= 0):
        raise UserError(f"the submit time must be a finite number >= 0 s (got {at!r})")
    added = _added_job(jobs, job, float(at))
    table = _concat(jobs, added)
    job_id = str(added.job_id[0])
    result, waits = watched_run(table, cluster, config, job_id)
    if job_id in result.unschedulable:
        raise UserError(f"the added job {job_id!r} fits on no node of the cluster, even an empty one")
    j = int(np.flatnonzero(result.jobs.job_id == job_id)[0])
    start = float(result.first_start[j])
    rows = np.flatnonzero((result.ev_job == j) & (result.ev_code == START) & (result.ev_time == start))
    names = result.cluster.names
    victims = tuple(v for d in result.decisions if d["te_job"] == job_id for v in d["victims"])
    return Forecast(
        job_id=job_id,
        submit=float(at),
        start=start,
        nodes=tuple(names[int(result.ev_node[e])] for e in rows),
        victims=victims,
        waits=waits,
        caveat=CAVEAT,
        result=result,
    )


def _added_job(jobs: JobTable, job: Mapping[str, object], at: float) -> JobTable:
    """The described job as a one-row table, checked by the workload loader (its messages)."""
    unknown = sorted(set(job) - set(JOB_FIELDS))
    if unknown:
        raise UserError(f"the added job: unknown field(s) {', '.join(unknown)} (known: {', '.join(JOB_FIELDS)})")
    missing = [f for f in REQUIRED if f not in job or job[f] is None or str(job[f]).strip() == ""]
    if missing:
        raise UserError(f"the added job: missing field(s) {', '.join(missing)}")
    ids = [str(x) for x in jobs.job_id]
    numeric = all(_INTEGER.fullmatch(x) for x in ids)
    given = job.get("job_id")
    job_id = str(given).strip() if given is not None and str(given).strip() else _new_id(ids, numeric)
    if job_id in set(ids):
        raise UserError(f"the added job: job_id {job_id!r} is already in the workload")
    if numeric and ids and not _INTEGER.fullmatch(job_id):
        raise UserError(
            f"the added job: job_id {job_id!r} must be an integer like the workload's ids "
            "(a text id would change the queue order of every job, DESIGN.md rule 2)"
        )
    row = {"job_id": job_id, "submit_time": at, **{k: job[k] for k in REQUIRED}, "workers": job.get("workers", 1)}
    if job.get("queue") is not None:  # with queues: its team's (else the queue 'default')
        row["queue"] = job["queue"]
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=list(row))
    writer.writeheader()
    writer.writerow(row)
    try:
        return load_workload(buf.getvalue().encode(), name="the added job", fmt="csv").table
    except WorkloadError as e:
        details = "; ".join(p.column and f"{p.column}: {p.reason}" or p.reason for p in e.problems)
        raise UserError(f"the added job: {details or e}") from None


def _new_id(ids: list[str], numeric: bool) -> str:
    if numeric and ids:
        return str(max(int(x) for x in ids) + 1)
    n, taken = 1, set(ids)
    while f"new-{n}" in taken:
        n += 1
    return "new" if "new" not in taken else f"new-{n}"


def _concat(jobs: JobTable, added: JobTable) -> JobTable:
    """`jobs` with `added` as its last row (text columns one of them lacks are empty for it)."""
    keys = [*jobs.extra, *(k for k in added.extra if k not in jobs.extra)]
    empty = np.full(len(jobs), "", dtype=object)
    extra = {
        k: np.concatenate([jobs.extra.get(k, empty), added.extra.get(k, np.array([""], dtype=object))]) for k in keys
    }
    return JobTable(
        job_id=np.concatenate([jobs.job_id, added.job_id]),
        submit_time=np.concatenate([jobs.submit_time, added.submit_time]),
        duration=np.concatenate([jobs.duration, added.duration]),
        request=np.concatenate([jobs.request, added.request]),
        is_te=np.concatenate([jobs.is_te, added.is_te]),
        extra=extra,
        workers=np.concatenate([jobs.workers, added.workers]),  # type: ignore[list-item]
    )
