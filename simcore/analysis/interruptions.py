"""What interruptions cost by cause, and the nodes' down time (DESIGN rule 12, DESIGN-failures point 10).

A run with down time (``result.downtime``) stops jobs three ways: a preemption (a policy's
signal), a drain (a maintenance signal) and a failure. Per cause, in GPU-seconds (seconds x the
per-worker GPUs x workers, :func:`simcore.analysis.accounting.gpu_seconds`):

- *lost*: the work each interruption discarded (a job failing in its grace period adds to the
  failure the save it was making);
- *grace*: the time actually held from each signal to its release or its failure, by the
  signal's cause (a failure has none);
- *restore*: what each start after an interruption spent restoring (``restore``, cut short when
  the job is stopped again before it ends), charged to the interruption just before it: the
  signal's cause, or failure when the job failed (in its grace period too).

The preemption column equals the preemption accounting's ``gpu_seconds_*`` (:mod:`simcore.analysis.accounting`).
Node-hours down count, per node, the time from each ``node_down`` row to its ``node_up`` row (or
the run's end) within the makespan, from the first submit to the last finish.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from simcore.analysis.accounting import first_rows, gpu_seconds
from simcore.core import units
from simcore.core.result import CAUSES, DRAIN, FAIL, FAILED, NODE_DOWN, NODE_UP, PREEMPT, RELEASE, START, SimResult

#: the costs of a cause, each in GPU-seconds
COSTS = ("gpu_seconds_lost", "gpu_seconds_grace", "gpu_seconds_restore")
#: the flat record's columns of a run with down time (:func:`flat`), in order
FIELDS: tuple[str, ...] = (
    *(f"{c}_{m}" for c in CAUSES for m in ("count", *COSTS)),
    "node_hours_down",
    "wasted_node_down",
)
_SIGNAL_CAUSE = {PREEMPT: CAUSES.index("preemption"), DRAIN: CAUSES.index("drain")}


def by_cause(result: SimResult) -> dict[str, dict[str, float | int]]:
    """Per cause of :data:`simcore.core.result.CAUSES`: the interruptions and their :data:`COSTS`."""
    down = result.downtime
    assert down is not None, "a run without down time has only preemptions (simcore.analysis.accounting)"
    jobs = result.jobs
    gpu = units.requests(jobs.request)[:, 2]
    workers = np.asarray(jobs.workers)
    n = len(CAUSES)
    count = np.bincount(down.cause, minlength=n)
    lost = np.bincount(down.cause, weights=gpu_seconds(down.lost, gpu[down.job], workers[down.job]), minlength=n)
    # each job's rows in order, a gang's other workers' rows and the node rows left out
    t, job, code = result.ev_time, result.ev_job, result.ev_code
    rows = np.flatnonzero(first_rows(result) & (job >= 0))
    rows = rows[np.argsort(job[rows], kind="stable")]
    sj, sc, st = job[rows], code[rows], t[rows]
    grace, restore = np.zeros(n), np.zeros(n)
    for p in np.flatnonzero((sc == PREEMPT) | (sc == DRAIN)).tolist():  # followed by its release or failure
        grace[_SIGNAL_CAUSE[sc[p]]] += gpu_seconds(st[p + 1] - st[p], gpu[sj[p]], workers[sj[p]])
    after = np.flatnonzero((sc == START) & np.isin(np.roll(sc, 1), (RELEASE, FAIL)) & (np.roll(sj, 1) == sj))
    for p in after.tolist():  # a start after an interruption; its segment ends at the next row
        cause = FAILED if sc[p - 1] == FAIL else _SIGNAL_CAUSE[sc[p - 2]]
        spent = min(result.config.restore, st[p + 1] - st[p])
        restore[cause] += gpu_seconds(spent, gpu[sj[p]], workers[sj[p]])
    return {
        c: {"count": int(count[i]), COSTS[0]: float(lost[i]), COSTS[1]: float(grace[i]), COSTS[2]: float(restore[i])}
        for i, c in enumerate(CAUSES)
    }


def node_hours_down(result: SimResult) -> dict[str, float]:
    """Hours each node was down within the makespan (node name -> hours, every node)."""
    names = result.cluster.names
    hours = dict.fromkeys(names, 0.0)
    if not len(result.jobs):
        return hours
    lo, hi = float(np.min(result.jobs.submit_time)), float(np.max(result.finish))
    since: dict[int, float] = {}
    rows = np.flatnonzero((result.ev_code == NODE_DOWN) | (result.ev_code == NODE_UP))
    codes, nodes, times = result.ev_code[rows].tolist(), result.ev_node[rows].tolist(), result.ev_time[rows].tolist()
    for code, k, t in zip(codes, nodes, times, strict=True):
        if code == NODE_DOWN:
            since[k] = t
        else:
            hours[names[k]] += _within(since.pop(k), t, lo, hi)
    for k, t in since.items():  # still down at the run's end
        hours[names[k]] += _within(t, hi, lo, hi)
    return hours


def _within(a: float, b: float, lo: float, hi: float) -> float:
    return max(0.0, min(b, hi) - max(a, lo)) / 3600.0


def block(result: SimResult) -> dict[str, Any]:
    """The summary JSON's ``downtime`` block (a run with down time only)."""
    per_node = node_hours_down(result)
    return {
        "interruptions": by_cause(result),
        "node_hours_down": float(sum(per_node.values())),
        "node_hours_down_per_node": per_node,
    }


def flat(summary_block: Mapping[str, Any], wasted: Mapping[str, Any]) -> dict[str, Any]:
    """The ``downtime`` block (and the accounting's ``wasted_preemptions``) as :data:`FIELDS`."""
    out: dict[str, Any] = {}
    for c in CAUSES:
        cause = summary_block["interruptions"][c]
        out.update({f"{c}_{m}": cause[m] for m in ("count", *COSTS)})
    out["node_hours_down"] = summary_block["node_hours_down"]
    out["wasted_node_down"] = wasted["node_down"]
    return out
