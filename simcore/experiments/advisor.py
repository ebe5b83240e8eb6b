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

from simcore.analysis.interruptions import Exposure, exposure
from simcore.analysis.metrics import summarize
from simcore.core import fmt, units
from simcore.core.errors import UserError
from simcore.core.knobs import KNOBS
from simcore.core.model import ClusterSpec, JobTable, SimConfig
from simcore.core.numtext import quoted
from simcore.core.result import CAUSES, SimResult
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


def parse_intervals(text: str, where: str) -> list[float]:
    """``"600,1800,3600"`` -> seconds, each a ``checkpoint_interval`` (> 0, finite); a UserError naming
    ``where`` (the option or the field) and the item otherwise."""
    out = []
    for item in text.split(","):
        try:
            value = float(item)
        except ValueError:
            raise UserError(f"{where}: {quoted(item.strip())} is not a number of seconds") from None
        try:
            KNOBS["checkpoint_interval"].check(value)
        except ValueError as exc:
            raise UserError(f"{where}: {exc}") from None
        out.append(value)
    return out


def young_daly(cost: float, mean: float) -> float:
    """The first-order optimum interval sqrt(2 x cost x M) (inf when M is; 0 when a checkpoint is free)."""
    return math.sqrt(2.0 * cost * mean) if math.isfinite(mean) else math.inf


def gpu_hours_lost(result: SimResult) -> float:
    """GPU-hours of work lost by every interruption of one run (lost work x GPUs x workers)."""
    gpu = units.requests(result.jobs.request)[:, 2] / units.SCALE[2]
    return float((np.asarray(result.lost_work) * gpu * np.asarray(result.jobs.workers)).sum() / 3600.0)


@dataclass(frozen=True)
class Advice:
    """What :func:`advise` found: one row per interval (:data:`COLUMNS`), the best, Young/Daly and why.
    ``nearest``: the swept interval nearest Young/Daly (by ratio; None when Young/Daly is 0 or inf)."""

    table: pd.DataFrame
    best_interval: float
    young_daly: float
    mean_time_between_interruptions: float
    checkpoint_cost: float
    agree: bool
    reasons: tuple[str, ...]
    runs: int
    nearest: float | None = None


@dataclass(frozen=True)
class Trial:
    """One run at one checkpoint interval, as the advisor weighs it: the BE slowdown p50 and p95 (None
    without BE jobs), the GPU-hours of work lost, the BE jobs' exposure, and whether a job reached ``P``."""

    interval: float
    p50: float | None
    p95: float | None
    lost: float
    seen: Exposure
    capped: bool


def trial(result: SimResult, interval: float) -> Trial:
    """The :class:`Trial` of one simulated run."""
    be = summarize(result)["classes"]["BE"]["slowdown"]
    pre = result.preemptions
    capped = bool(len(pre)) and int(np.max(pre)) >= result.config.P
    return Trial(interval, be["p50"], be["p95"], gpu_hours_lost(result), exposure(result), capped)


def trials_from_rows(rows: pd.DataFrame, P: int) -> list[Trial]:
    """The trials of sweep rows (one run each; the flat record of a run with down time, with
    ``checkpoint_interval`` and :data:`~simcore.analysis.interruptions.EXPOSURE_FIELDS`): what a study
    gives :func:`judge`."""
    lost = rows[[f"{c}_gpu_seconds_lost" for c in CAUSES]].sum(axis=1) / 3600.0
    return [
        Trial(
            float(r["checkpoint_interval"]),
            None if math.isnan(r["BE_slowdown_p50"]) else float(r["BE_slowdown_p50"]),
            None if math.isnan(r["BE_slowdown_p95"]) else float(r["BE_slowdown_p95"]),
            float(x),
            Exposure(
                float(r["be_run_seconds"]),
                int(r["be_interruptions"]),
                float(r["be_gap_seconds"]),
                float(r["be_gap_squares"]),
            ),
            int(r["max_preemptions_per_job"]) >= P,
        )
        for r, x in zip(rows.to_dict("records"), lost, strict=True)
    ]


def advise(
    workloads: Iterable[tuple[JobTable, ClusterSpec, int]], config: SimConfig, intervals: Sequence[float]
) -> Advice:
    """Run every workload (jobs, cluster, seed) under `config` with checkpoint periodic at each of `intervals`."""
    workloads = list(workloads)
    trials = [
        trial(simulate(jobs, cluster, replace(config, checkpoint="periodic", checkpoint_interval=c, seed=seed)), c)
        for c in sorted(set(float(x) for x in intervals))
        for jobs, cluster, seed in workloads
    ]
    return judge(trials, config)


def judge(trials: Sequence[Trial], config: SimConfig) -> Advice:
    """The advice from its trials (in interval order, the workloads in the same order at each): per
    interval the means over the trials and the exposure summed; the best interval, Young/Daly from
    the exposure pooled over every trial, and why they differ. ``config`` gives the cost and the
    knobs the reasons name."""
    rows, pooled = [], Exposure(0.0, 0)
    for c in sorted(set(t.interval for t in trials)):
        mine = [t for t in trials if t.interval == c]
        seen = Exposure(0.0, 0)
        for t in mine:
            seen += t.seen
        pooled += seen
        p50, p95 = _mean([t.p50 for t in mine]), _mean([t.p95 for t in mine])
        rows.append((c, p50, p95, float(np.mean([t.lost for t in mine])), seen.interruptions, seen.mean))
    table = pd.DataFrame(rows, columns=list(COLUMNS))
    ranked = table.assign(p50=table.BE_slowdown_p50.fillna(math.inf), p95=table.BE_slowdown_p95.fillna(math.inf))
    best = float(ranked.sort_values(["p50", "p95", "gpu_hours_lost", "interval"]).interval.iloc[0])
    yd = young_daly(config.checkpoint_cost, pooled.mean)
    nearest = (
        float(table.interval.iloc[int(np.argmin(np.abs(np.log(table.interval / yd))))]) if 0 < yd < math.inf else None
    )
    agree = nearest == best
    capped = any(t.capped for t in trials)
    why = reasons(config, pooled, yd, table.interval.tolist(), capped) if not agree else ()
    return Advice(table, best, yd, pooled.mean, config.checkpoint_cost, agree, why, len(trials), nearest)


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
    cv = seen.gap_cv
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
    if math.isfinite(yd) and seen.gap_mean < yd / 2:
        out.append(
            f"interruptions come early in a run segment (an interrupted segment ran {fmt.duration(seen.gap_mean)} on "
            f"average, less than half of Young/Daly's interval): most come before a first checkpoint and lose the "
            "same whatever the interval, while Young/Daly counts each as losing half an interval"
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
