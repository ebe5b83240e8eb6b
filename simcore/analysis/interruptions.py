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
the run's end) within the makespan, from the first submit to the last finish (:func:`down_stretches`
gives those stretches, with the kinds of the windows that made each).

The BE jobs' *exposure* (:func:`exposure`) is their run time and how often an interruption ended
it: the checkpoint advisor's M (:mod:`simcore.experiments.advisor`) and the sweep rows'
:data:`EXPOSURE_FIELDS`, from which a study computes the same M over many runs.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from simcore.analysis import accounting
from simcore.analysis.accounting import first_rows, gpu_seconds
from simcore.core import units
from simcore.core.downtime import KINDS
from simcore.core.result import (
    CAUSES,
    DRAIN,
    FAIL,
    FAILED,
    FINISH,
    NODE_DOWN,
    NODE_UP,
    PREEMPT,
    RELEASE,
    START,
    SimResult,
)

#: the costs of a cause, each in GPU-seconds
COSTS = ("gpu_seconds_lost", "gpu_seconds_grace", "gpu_seconds_restore")
#: the flat record's columns of a run with down time (:func:`flat`), in order
FIELDS: tuple[str, ...] = (
    *(f"{c}_{m}" for c in CAUSES for m in ("count", *COSTS)),
    "node_hours_down",
    "wasted_node_down",
)
#: the flat record's exposure columns of a run with down time (:func:`exposure`): the BE jobs' run seconds,
#: their interruptions, and the run seconds of the interrupted segments summed and squared and summed
EXPOSURE_FIELDS: tuple[str, ...] = ("be_run_seconds", "be_interruptions", "be_gap_seconds", "be_gap_squares")
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


#: the columns of :func:`down_stretches`
DOWN_COLUMNS = ("node", "start", "end", "kind")


def down_stretches(result: SimResult) -> pd.DataFrame:
    """When each node was down, as the events say: one row per ``node_down`` row, from it to the node's
    next ``node_up`` row (or the run's end, the last finish), in the order of the ``node_down`` rows.
    ``kind`` names the kinds of the down windows that made the stretch (``failure``, ``maintenance``,
    or both, ``failure+maintenance``: windows overlap by union). Empty for a run without down time."""
    down = result.downtime
    if down is None:
        return pd.DataFrame(columns=list(DOWN_COLUMNS))
    names = result.cluster.names
    end_of_run = float(np.max(result.finish)) if len(result.jobs) else 0.0
    since: dict[int, float] = {}
    spans: list[tuple[int, float, float]] = []
    rows = np.flatnonzero((result.ev_code == NODE_DOWN) | (result.ev_code == NODE_UP))
    codes, nodes, times = result.ev_code[rows].tolist(), result.ev_node[rows].tolist(), result.ev_time[rows].tolist()
    for code, k, t in zip(codes, nodes, times, strict=True):
        if code == NODE_DOWN:
            since[k] = t
        else:
            spans.append((k, since.pop(k), t))
    spans += [(k, t, max(end_of_run, t)) for k, t in since.items()]  # still down at the run's end
    spans.sort(key=lambda s: (s[1], s[0]))
    kinds = []
    for k, a, b in spans:  # the windows of node k that overlap [a, b), or begin at a when a = b
        hit = (down.node == k) & (down.start < max(b, a + 1e-9)) & (down.end > a)
        kinds.append("+".join(KINDS[c] for c in sorted(set(down.kind[hit].tolist()))))
    return pd.DataFrame(
        {
            "node": [names[k] for k, _, _ in spans],
            "start": np.array([a for _, a, _ in spans], dtype=float),
            "end": np.array([b for _, _, b in spans], dtype=float),
            "kind": kinds,
        },
        columns=list(DOWN_COLUMNS),
    )


def node_hours_down(result: SimResult) -> dict[str, float]:
    """Hours each node was down within the makespan (node name -> hours, every node)."""
    hours = dict.fromkeys(result.cluster.names, 0.0)
    if not len(result.jobs) or result.downtime is None:
        return hours
    lo, hi = float(np.min(result.jobs.submit_time)), float(np.max(result.finish))
    for node, a, b in down_stretches(result)[["node", "start", "end"]].itertuples(index=False):
        hours[node] += _within(a, b, lo, hi)
    return hours


def _within(a: float, b: float, lo: float, hi: float) -> float:
    return max(0.0, min(b, hi) - max(a, lo)) / 3600.0


#: the columns of :func:`lost_work`
LOST_COLUMNS = (*accounting.LOST_COLUMNS, "cause")


def lost_work(result: SimResult, acc: accounting.Accounting | None = None) -> pd.DataFrame:
    """One row per interruption that discarded work, in the order they happened: the job, the instant
    (a signal's, or the node's going down), the seconds of run it discarded and its cause (of
    :data:`~simcore.core.result.CAUSES`). Without down time every interruption is a preemption:
    :func:`simcore.analysis.accounting.lost_work`, with the cause."""
    down = result.downtime
    if down is None:
        return accounting.lost_work(result, acc).assign(cause=CAUSES[0])
    ids = result.jobs.job_id.astype(str)
    return pd.DataFrame(
        {
            "job_id": ids[down.job],
            "time": np.asarray(down.time, dtype=float),
            "lost": np.asarray(down.lost, dtype=float),
            "cause": np.array(CAUSES, dtype=object)[down.cause],
        },
        columns=list(LOST_COLUMNS),
    )


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


_ENDS = (PREEMPT, DRAIN, FAIL)  # what interrupts a segment


@dataclass(frozen=True)
class Exposure:
    """The BE jobs' run time and interruptions in some runs: `run_time` summed over every segment,
    `interruptions` counted, and the run times of the segments an interruption ended, summed
    (`gap_sum`) and squared and summed (`gap_squares`): what their mean and spread need, and what
    adds up over runs (a sweep's rows carry it: :data:`EXPOSURE_FIELDS`)."""

    run_time: float
    interruptions: int
    gap_sum: float = 0.0
    gap_squares: float = 0.0

    @property
    def mean(self) -> float:
        """M: run time per interruption (inf without interruptions)."""
        return self.run_time / self.interruptions if self.interruptions else math.inf

    @property
    def gap_mean(self) -> float:
        """How long an interrupted segment ran, on average (NaN without interruptions)."""
        return self.gap_sum / self.interruptions if self.interruptions else math.nan

    @property
    def gap_cv(self) -> float:
        """The coefficient of variation of the interrupted segments' run times (1 for exponential ones;
        NaN with fewer than two, or a mean of 0)."""
        n, mean = self.interruptions, self.gap_mean
        if n < 2 or not mean > 0:
            return math.nan
        return math.sqrt(max(self.gap_squares / n - mean * mean, 0.0)) / mean

    def __add__(self, other: Exposure) -> Exposure:
        return Exposure(
            self.run_time + other.run_time,
            self.interruptions + other.interruptions,
            self.gap_sum + other.gap_sum,
            self.gap_squares + other.gap_squares,
        )


def exposure(result: SimResult) -> Exposure:
    """The BE jobs' segments of one run: from each start to the preempt, drain, fail or finish that ends it."""
    t, job, code = result.ev_time, result.ev_job, result.ev_code
    keep = first_rows(result) & (job >= 0) & np.isin(code, (START, *_ENDS, FINISH))  # no node rows
    keep[keep] &= ~result.jobs.is_te[job[keep]]
    rows = np.flatnonzero(keep)
    rows = rows[np.argsort(job[rows], kind="stable")]
    sj, sc = job[rows], code[rows]
    # a failure in the grace period of a signal ends nothing more: the signal ended the segment
    in_grace = np.zeros(len(rows), dtype=bool)
    in_grace[1:] = (sc[1:] == FAIL) & np.isin(sc[:-1], (PREEMPT, DRAIN)) & (sj[1:] == sj[:-1])
    rows = rows[~in_grace]  # each job's start, end, start, end ...
    sc, st = code[rows], t[rows]
    assert (sc[0::2] == START).all(), "a BE segment's rows: its start, then what ended it"
    run = st[1::2] - st[0::2]
    hit = np.isin(sc[1::2], _ENDS)
    gaps = run[hit]
    return Exposure(float(run.sum()), int(hit.sum()), float(gaps.sum()), float((gaps * gaps).sum()))


def exposure_flat(result: SimResult) -> dict[str, Any]:
    """:data:`EXPOSURE_FIELDS` of one run (:func:`exposure`)."""
    seen = exposure(result)
    values = (seen.run_time, seen.interruptions, seen.gap_sum, seen.gap_squares)
    return dict(zip(EXPOSURE_FIELDS, values, strict=True))
