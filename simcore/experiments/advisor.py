"""The checkpoint advisor: which ``checkpoint_interval`` a policy's interruptions call for (issue 35).

How often a BE job should checkpoint follows how often it is interrupted, and that rate is an
output of the policy and the failures. :func:`advise` runs the same workloads under one policy with
``checkpoint = periodic`` at each interval given (every other knob the caller's, ``checkpoint_cost``
included) and reports per interval: the BE slowdown p50 and p95 and the GPU-hours of work lost
(every cause), each the mean over the workloads (several seeds of a preset); the BE interruptions
summed over them, and the mean run time between interruptions in them. The *best* interval is the one with the least BE p50 slowdown (ties: the
least p95, then the least GPU-hours lost, then the shortest interval).

Beside it, the Young/Daly first-order optimum ``sqrt(2 x checkpoint_cost x M)``, with M the
measured mean run time between interruptions of BE jobs (preemptions, drains and failures
together): their total run time (every segment from its start to its end, restore and pauses
included, whatever ended it) over their number of interruptions, pooled over every run (the
estimator of an exponential's mean from censored segments). They *agree* when the best interval
is the swept one nearest to Young/Daly (by ratio); :func:`reasons` says why they may differ:
interruptions that are not memoryless (the coefficient of variation of the run times that ended in
an interruption, 1 for an exponential), fitgpp's cap ``P``, ``min_runtime``, a cost not small
against M, Young/Daly outside the swept intervals.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from simcore.analysis.accounting import first_rows
from simcore.analysis.metrics import summarize
from simcore.core import units
from simcore.core.model import ClusterSpec, JobTable, SimConfig
from simcore.core.result import DRAIN, FAIL, FINISH, PREEMPT, START, SimResult
from simcore.engine import simulate

#: the intervals swept when none are given (seconds): 5 min to 8 h
DEFAULT_INTERVALS = (300.0, 600.0, 1200.0, 1800.0, 3600.0, 7200.0, 14400.0, 28800.0)
#: the columns of :attr:`Advice.table`, one row per interval
COLUMNS = (
    "interval",
    "BE_slowdown_p50",
    "BE_slowdown_p95",
    "gpu_hours_lost",
    "interruptions",
    "mean_time_between_interruptions",
)
_ENDS = (PREEMPT, DRAIN, FAIL)  # what interrupts a segment


@dataclass(frozen=True)
class Exposure:
    """The BE jobs' run time and interruptions in some runs: `run_time` summed over every segment,
    `interruptions` counted, `gaps` the run time of each segment an interruption ended."""

    run_time: float
    interruptions: int
    gaps: tuple[float, ...]

    @property
    def mean(self) -> float:
        """M: run time per interruption (inf without interruptions)."""
        return self.run_time / self.interruptions if self.interruptions else math.inf

    def __add__(self, other: Exposure) -> Exposure:
        return Exposure(
            self.run_time + other.run_time, self.interruptions + other.interruptions, self.gaps + other.gaps
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
    return Exposure(float(run.sum()), int(hit.sum()), tuple(run[hit].tolist()))


def young_daly(cost: float, mean: float) -> float:
    """The first-order optimum interval sqrt(2 x cost x M) (inf when M is; 0 when a checkpoint is free)."""
    return math.sqrt(2.0 * cost * mean) if math.isfinite(mean) else math.inf


def gpu_hours_lost(result: SimResult) -> float:
    """GPU-hours of work lost by every interruption of one run (lost work x GPUs x workers)."""
    gpu = units.requests(result.jobs.request)[:, 2] / units.SCALE[2]
    return float((np.asarray(result.lost_work) * gpu * np.asarray(result.jobs.workers)).sum() / 3600.0)


@dataclass(frozen=True)
class Advice:
    """What :func:`advise` found: one row per interval (:data:`COLUMNS`), the best, Young/Daly and why."""

    table: pd.DataFrame
    best_interval: float
    young_daly: float
    mean_time_between_interruptions: float
    checkpoint_cost: float
    agree: bool
    reasons: tuple[str, ...]
    runs: int


def advise(
    workloads: Iterable[tuple[JobTable, ClusterSpec, int]], config: SimConfig, intervals: Sequence[float]
) -> Advice:
    """Run every workload (jobs, cluster, seed) under `config` with checkpoint periodic at each of `intervals`."""
    workloads = list(workloads)
    rows, pooled, runs, capped = [], Exposure(0.0, 0, ()), 0, False
    for c in sorted(set(float(x) for x in intervals)):
        p50, p95, lost, seen = [], [], [], Exposure(0.0, 0, ())
        for jobs, cluster, seed in workloads:
            r = simulate(jobs, cluster, replace(config, checkpoint="periodic", checkpoint_interval=c, seed=seed))
            be = summarize(r)["classes"]["BE"]["slowdown"]
            p50.append(be["p50"])
            p95.append(be["p95"])
            lost.append(gpu_hours_lost(r))
            seen += exposure(r)
            capped |= bool(len(r.preemptions)) and int(np.max(r.preemptions)) >= config.P
            runs += 1
        pooled += seen
        rows.append((c, _mean(p50), _mean(p95), float(np.mean(lost)), seen.interruptions, seen.mean))
    table = pd.DataFrame(rows, columns=list(COLUMNS))
    ranked = table.assign(p50=table.BE_slowdown_p50.fillna(math.inf), p95=table.BE_slowdown_p95.fillna(math.inf))
    best = float(ranked.sort_values(["p50", "p95", "gpu_hours_lost", "interval"]).interval.iloc[0])
    yd = young_daly(config.checkpoint_cost, pooled.mean)
    nearest = (
        float(table.interval.iloc[int(np.argmin(np.abs(np.log(table.interval / yd))))]) if 0 < yd < math.inf else None
    )
    agree = nearest == best
    why = reasons(config, pooled, yd, table.interval.tolist(), capped) if not agree else ()
    return Advice(table, best, yd, pooled.mean, config.checkpoint_cost, agree, why, runs)


def _mean(values: list[float | None]) -> float:
    kept = [v for v in values if v is not None]
    return float(np.mean(kept)) if kept else math.nan


def reasons(config: SimConfig, seen: Exposure, yd: float, intervals: Sequence[float], capped: bool) -> tuple[str, ...]:
    """Why the best interval found may differ from Young/Daly's, each a plain sentence."""
    out = []
    if not seen.interruptions:
        return ("no BE job was interrupted: checkpoints only cost time, the longest interval loses nothing",)
    if config.checkpoint_cost <= 0:
        out.append("checkpoint_cost is 0: a checkpoint is free, Young/Daly's optimum is 0 (checkpoint continuously)")
    gaps = np.array(seen.gaps)
    cv = float(gaps.std() / gaps.mean()) if len(gaps) > 1 and gaps.mean() > 0 else math.nan
    if cv < 0.5:
        out.append(
            f"interruptions are regular, not memoryless (coefficient of variation of the run times between them "
            f"{cv:.2f}, 1 for the exponential Young/Daly assumes): an interval that fits the run time wins"
        )
    elif cv > 1.5:
        out.append(
            f"interruptions are bursty (coefficient of variation {cv:.2f}, 1 for the exponential Young/Daly "
            "assumes): most segments end long before or long after M"
        )
    if capped and config.policy in ("fitgpp", "fitdelay"):
        out.append(
            f"{config.policy}'s P = {config.P} stops preempting a job after P preemptions: its later segments run longer"
        )
    if config.min_runtime > 0:
        out.append(
            f"min_runtime = {config.min_runtime:g} s: no preemption ends a segment earlier, so early checkpoints protect little"
        )
    if config.checkpoint_cost > seen.mean / 10:
        out.append("checkpoint_cost is not small against M: the first-order formula needs cost << M")
    if yd < min(intervals) or yd > max(intervals):
        out.append("Young/Daly lies outside the intervals swept")
    return tuple(out) or ("the swept intervals are too coarse, or the runs too few, to tell the difference",)


def as_json(advice: Advice, policy: str) -> dict:
    """The JSON of ``simcore checkpoint-advice --json`` (docs/cli.md)."""

    def num(x: float) -> float | None:
        return float(x) if math.isfinite(x) else None

    return {
        "policy": policy,
        "checkpoint_cost": advice.checkpoint_cost,
        "runs": advice.runs,
        "intervals": [
            {k: (num(v) if isinstance(v, float) else v) for k, v in row.items()}
            for row in advice.table.to_dict("records")
        ],
        "best_interval": advice.best_interval,
        "young_daly": num(advice.young_daly),
        "mean_time_between_interruptions": num(advice.mean_time_between_interruptions),
        "agree": advice.agree,
        "reasons": list(advice.reasons),
    }
