"""Pure functions from a run's records to the numbers of DESIGN.md section 5.

Percentiles use numpy's default (linear) method everywhere. A class with no jobs gets
nulls. The trio compares a policy with a baseline as percent changes. Utilisation counts the
resources the engine allocated: requests rounded to whole units (:mod:`simcore.core.units`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from simcore.analysis import accounting, interruptions, queue_metrics
from simcore.core import units
from simcore.core.queues import overcommit_warning
from simcore.core.result import FAIL, FINISH, PREEMPT, RELEASE, START, SUBMIT, SimResult

STATS = ("mean", "p50", "p90", "p95", "p99")
CLASSES = ("TE", "BE", "all")
#: The trio, the paper's three numbers: key -> (class, slowdown statistic) it is the percent change of.
#: Every layer (compare JSON, sweep rows, RESULTS.md, dashboard) reads its keys and labels from here.
TRIO: dict[str, tuple[str, str]] = {
    "TE_p95_slowdown_pct": ("TE", "p95"),
    "BE_p50_slowdown_pct": ("BE", "p50"),
    "BE_p95_slowdown_pct": ("BE", "p95"),
}
TRIO_KEYS: tuple[str, ...] = tuple(TRIO)
#: "TE p95 slowdown": how a trio entry is named in tables, figures and pages.
TRIO_LABELS: dict[str, str] = {key: f"{cls} {stat} slowdown" for key, (cls, stat) in TRIO.items()}

#: The flat per-run summary record (:func:`flat_summary`), its fields in order: what a sweep row,
#: the compare table and the dashboard read (the trio columns :func:`versus` follow them in a row).
FLAT_FIELDS: tuple[str, ...] = (
    "jobs_simulated",
    *(f"{c}_count" for c in CLASSES),
    *(f"{c}_{m}_{s}" for c in CLASSES for m in ("slowdown", "wait", "jct") for s in STATS),
    *(f"{c}_{m}_max" for c in CLASSES for m in ("slowdown", "wait")),
    "preemptions",
    "preempted_jobs",
    "max_preemptions_per_job",
    "victim_gpu_mean",
    "lost_work",
    "gpu_utilization",
    "gpu_useful_utilization",
    "cpu_utilization",
    "makespan",
    "unschedulable",
    *accounting.FLAT_ACCOUNTING,
)


def versus(key: str, baseline: str) -> str:
    """The column of a trio entry against a baseline: ``TE_p95_slowdown_pct_vs_fifo``."""
    return f"{key}_vs_{baseline}"


def is_versus(column: str) -> bool:
    """Is ``column`` a trio entry against some baseline (a :func:`versus` name)?"""
    return any(column.startswith(versus(k, "")) for k in TRIO_KEYS)


def describe(values: np.ndarray) -> dict[str, float | None]:
    if len(values) == 0:
        return dict.fromkeys(STATS)
    p50, p90, p95, p99 = np.percentile(values, [50, 90, 95, 99])
    return {"mean": float(np.mean(values)), "p50": float(p50), "p90": float(p90), "p95": float(p95), "p99": float(p99)}


def class_summary(result: SimResult, mask: np.ndarray) -> dict[str, Any]:
    j = result.jobs
    wait = result.first_start[mask] - j.submit_time[mask]
    jct = result.finish[mask] - j.submit_time[mask]
    return {
        "count": int(mask.sum()),
        "slowdown": describe(result.slowdown[mask]),
        "wait": describe(wait),
        "jct": describe(jct),
    }


def utilization(result: SimResult) -> dict[str, float | None]:
    """Allocated resource-seconds (restore and grace included) / (capacity x makespan); a gang's
    count every worker (its events have one row per worker)."""
    j = result.jobs
    if len(j) == 0:
        return {"makespan": 0.0, "gpu_utilization": None, "gpu_useful_utilization": None, "cpu_utilization": None}
    makespan = float(np.max(result.finish) - np.min(j.submit_time))
    held = _held_seconds(result)  # per job, seconds holding resources
    req = units.rounded(j.request)
    total = units.rounded(result.cluster.capacity_matrix()).sum(axis=0)

    def ratio(used: float, dim: int) -> float | None:
        denom = total[dim] * makespan
        return float(used / denom) if denom > 0 else None

    return {
        "makespan": makespan,
        "gpu_utilization": ratio(float((held * req[:, 2]).sum()), 2),
        "gpu_useful_utilization": ratio(float((j.duration * req[:, 2] * j.workers).sum()), 2),
        "cpu_utilization": ratio(float((held * req[:, 0]).sum()), 0),
    }


def _held_seconds(result: SimResult) -> np.ndarray:
    """Seconds each job held its resources: sum over (start -> preempt-release | finish | fail), x workers for a gang."""
    code, t, job = result.ev_code, result.ev_time, result.ev_job
    if result.downtime is not None:  # node_down and node_up rows have no job
        code, t, job = code[job >= 0], t[job >= 0], job[job >= 0]
    sign = np.zeros(len(code))
    sign[code == START] = -1.0
    sign[(code == RELEASE) | (code == FINISH) | (code == FAIL)] = 1.0
    return np.bincount(job, weights=sign * t, minlength=len(result.jobs))


def queues_block(result: SimResult, acc: accounting.Accounting | None = None) -> dict[str, Any]:
    """The summary's ``queues`` block (DESIGN-queues point 12), one entry per queue in file order: its
    ``gpu``, ``borrow_limit`` and ``weight``; ``jobs``; per class (TE, BE, all) the count and the mean,
    p50, p90, p95, p99 of ``wait`` and ``slowdown`` (nulls for an empty class); then
    :func:`simcore.analysis.queue_metrics.usage_totals` and :func:`~simcore.analysis.queue_metrics.preemption_split`."""
    spec, queue = result.queues, result.queue
    if spec is None or queue is None:
        raise ValueError("the run has no queues (a cluster with queues: ClusterSpec.with_queues)")
    totals = queue_metrics.usage_totals(result)
    split = queue_metrics.preemption_split(result, acc)
    te, wait = result.jobs.is_te, result.first_start - result.jobs.submit_time
    out: dict[str, Any] = {}
    for i, q in enumerate(spec.queues):
        mine = queue == i
        classes = {}
        for name, mask in (("TE", mine & te), ("BE", mine & ~te), ("all", mine)):
            classes[name] = {
                "count": int(mask.sum()),
                "wait": describe(wait[mask]),
                "slowdown": describe(result.slowdown[mask]),
            }
        out[q.name] = {**q.as_json(), "jobs": int(mine.sum()), "classes": classes, **totals[q.name], **split[q.name]}
    return out


def _class(result: SimResult, mask: np.ndarray, every: dict[str, Any]) -> dict[str, Any]:
    """:func:`class_summary` of the jobs in `mask`; for a class holding every job (a workload of one
    class), a copy of `every`, the summary of every job: the same numbers, computed once."""
    if mask.all():
        return {k: dict(v) if isinstance(v, dict) else v for k, v in every.items()}
    return class_summary(result, mask)


def summarize(result: SimResult) -> dict[str, Any]:
    """The summary JSON of DESIGN.md section 6 (with queues: DESIGN-queues point 12's blocks too)."""
    te = result.jobs.is_te
    every = class_summary(result, np.ones(len(te), dtype=bool))
    out: dict[str, Any] = {
        "policy": result.config.policy,
        "classes": {"TE": _class(result, te, every), "BE": _class(result, ~te, every), "all": every},
        "preemptions": int(result.preemptions.sum()),
        "lost_work": float(result.lost_work.sum()),
        "accounting": accounting.summary(result),
    }
    if result.downtime is not None:  # interruptions by cause, node-hours down (DESIGN-failures point 10)
        out["downtime"] = interruptions.block(result)
    out.update(utilization(result))
    out["unschedulable"] = list(result.unschedulable)
    out["knobs"] = result.config.recorded_knobs()
    out["wall_seconds"] = float(result.wall_seconds)
    order = [
        "policy",
        "classes",
        "preemptions",
        "lost_work",
        "accounting",
        *(["downtime"] if result.downtime is not None else []),
        "gpu_utilization",
        "gpu_useful_utilization",
        "cpu_utilization",
        "makespan",
        "unschedulable",
        "knobs",
        "wall_seconds",
    ]
    if result.queues is not None:  # only with queues: a run without keeps its keys and bytes
        out["unschedulable_reasons"] = dict(zip(result.unschedulable, result.unschedulable_reasons, strict=True))
        out["queues"] = queues_block(result)
        warning = overcommit_warning(result.queues, result.cluster)
        out["queue_warnings"] = [] if warning is None else [warning]
        order[order.index("unschedulable") + 1 : order.index("unschedulable") + 1] = ["unschedulable_reasons"]
        order[order.index("accounting") + 1 : order.index("accounting") + 1] = ["queues", "queue_warnings"]
    return {k: out[k] for k in order}


def flat_summary(result: SimResult, summary: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The flat per-run summary record (:data:`FLAT_FIELDS`, in order; NaN where the summary
    has null; then :data:`simcore.analysis.accounting.GANG_FIELDS` when the workload has gangs), from the
    run and its :func:`summarize` (computed when not given)."""
    summary = summarize(result) if summary is None else summary
    out: dict[str, Any] = {"jobs_simulated": len(result.jobs)}
    classes = summary["classes"]
    for c in CLASSES:
        out[f"{c}_count"] = int(classes[c]["count"])
    for c in CLASSES:
        for m in ("slowdown", "wait", "jct"):
            stats = classes[c].get(m) or {}
            for s in STATS:
                out[f"{c}_{m}_{s}"] = _num(stats.get(s))
    # the summary has no maxima; the worst TE wait is asked for, so take it from the records
    jobs = result.jobs
    wait = np.asarray(result.first_start) - jobs.submit_time
    slowdown = np.asarray(result.slowdown)
    for c, mask in (("TE", jobs.is_te), ("BE", ~jobs.is_te), ("all", np.ones(len(jobs), dtype=bool))):
        out[f"{c}_slowdown_max"] = float(slowdown[mask].max()) if mask.any() else math.nan
        out[f"{c}_wait_max"] = float(wait[mask].max()) if mask.any() else math.nan
    pre = np.asarray(result.preemptions)
    out["preemptions"] = int(summary["preemptions"])
    out["preempted_jobs"] = int((pre > 0).sum())
    out["max_preemptions_per_job"] = int(pre.max()) if len(pre) else 0
    # the size of the jobs a policy picks as victims is what separates the victim rules
    victims = np.asarray(result.ev_job)[np.asarray(result.ev_code) == PREEMPT]
    out["victim_gpu_mean"] = float(jobs.request[victims, 2].mean()) if len(victims) else math.nan
    for k in ("lost_work", "gpu_utilization", "gpu_useful_utilization", "cpu_utilization", "makespan"):
        out[k] = _num(summary[k])
    out["unschedulable"] = len(summary["unschedulable"])
    out.update(accounting.flat(summary["accounting"]))
    if result.jobs.has_gangs:  # only there: rows of workloads without gangs keep their columns and bytes
        out.update(accounting.gang_flat(result))
    if result.downtime is not None:  # likewise: interruptions by cause (interruptions.FIELDS)
        out.update(interruptions.flat(summary["downtime"], summary["accounting"]["wasted_preemptions"]))
        out.update(interruptions.exposure_flat(result))  # the checkpoint advisor's M, from rows
    if "queues" in summary:  # only with queues, as gangs
        out.update(queue_flat(summary["queues"]))
    return out


#: per queue, the flat record's fields (:func:`queue_flat`): field -> where it is in the queue's summary entry
QUEUE_FLAT: dict[str, tuple[str, ...]] = {
    "TE_slowdown_p95": ("classes", "TE", "slowdown", "p95"),
    "TE_wait_p95": ("classes", "TE", "wait", "p95"),
    "BE_slowdown_p50": ("classes", "BE", "slowdown", "p50"),
    "BE_slowdown_p95": ("classes", "BE", "slowdown", "p95"),
    "BE_wait_p50": ("classes", "BE", "wait", "p50"),
    "usage_mean": ("usage_mean",),
    "gpu_seconds_above_quota": ("gpu_seconds_above_quota",),
    "reclaimed": ("preemptions_suffered", "reclaim"),
    "reclaims": ("preemptions_caused", "reclaim"),
    "te_first_preempted": ("preemptions_suffered", "te_first"),
    "gpu_seconds_lost_to_reclaims": ("gpu_seconds_lost", "reclaim"),
    "gpu_seconds_grace_of_reclaims": ("gpu_seconds_grace", "reclaim"),
    "gpu_seconds_restore_of_reclaims": ("gpu_seconds_restore", "reclaim"),
}


def queue_column(queue: str, field: str) -> str:
    """A row's column of one queue's :data:`QUEUE_FLAT` field: ``queue_<queue>_<field>``."""
    return f"queue_{queue}_{field}"


def queue_flat(queues: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """The ``queues`` block's numbers a sweep row keeps, per queue in file order: :func:`queue_column`
    for each field of :data:`QUEUE_FLAT` (NaN for null)."""
    out: dict[str, Any] = {}
    for name, entry in queues.items():
        for field, path in QUEUE_FLAT.items():
            value: Any = entry
            for key in path:
                value = value[key]
            out[queue_column(name, field)] = _num(value)
    return out


def _num(v: Any) -> float:
    return math.nan if v is None else float(v)


def pct_change(value: float | None, base: float | None) -> float | None:
    if value is None or base is None or base == 0 or math.isnan(base) or math.isnan(value):
        return None
    return (value - base) / base * 100.0


def trio(record: Mapping[str, Any], baseline: Mapping[str, Any]) -> dict[str, float | None]:
    """The paper's three numbers, the one definition of the trio: each :data:`TRIO` slowdown's percent
    change against the baseline's, from flat records (:func:`flat_summary`, where the tables and
    charts read every other number; a nested summary's through :func:`slowdowns`). None where
    either value is missing or the baseline's is 0."""
    return {key: pct_change(record[f"{c}_slowdown_{s}"], baseline[f"{c}_slowdown_{s}"]) for key, (c, s) in TRIO.items()}


def slowdowns(summary: Mapping[str, Any]) -> dict[str, Any]:
    """The trio's slowdowns of a nested summary (:func:`summarize`), named as in the flat record."""
    return {f"{c}_slowdown_{s}": summary["classes"][c]["slowdown"][s] for c, s in TRIO.values()}


def compare_summaries(summaries: Mapping[str, Mapping[str, Any]], baseline: str) -> dict[str, Any]:
    """The compare JSON: every summary and the trio of each against the baseline."""
    if baseline not in summaries:
        raise ValueError(f"baseline {baseline!r} is not among the compared policies ({', '.join(summaries)})")
    base = summaries[baseline]
    return {
        "baseline": baseline,
        "policies": dict(summaries),
        "vs_baseline": {name: trio(slowdowns(s), slowdowns(base)) for name, s in summaries.items()},
    }


def utilization_over_time(result: SimResult) -> pd.DataFrame:
    """Allocated GPU and CPU after each instant where they change (a step function)."""
    code, job = result.ev_code, result.ev_job
    sign = np.zeros(len(code))
    sign[code == START] = 1.0
    sign[(code == RELEASE) | (code == FINISH) | (code == FAIL)] = -1.0
    keep = sign != 0
    req = units.rounded(result.jobs.request[job[keep]])
    df = pd.DataFrame({"time": result.ev_time[keep], "gpu": sign[keep] * req[:, 2], "cpu": sign[keep] * req[:, 0]})
    df = df.groupby("time", sort=True).sum().cumsum().reset_index()
    total = units.rounded(result.cluster.capacity_matrix()).sum(axis=0)
    out = pd.DataFrame({"time": df["time"], "gpu_alloc": df["gpu"].clip(lower=0), "cpu_alloc": df["cpu"].clip(lower=0)})
    out["gpu_util"] = out["gpu_alloc"] / total[2] if total[2] > 0 else np.nan
    out["cpu_util"] = out["cpu_alloc"] / total[0] if total[0] > 0 else np.nan
    return out


def queue_length_over_time(result: SimResult) -> pd.DataFrame:
    """Pending jobs (TE, BE, all) after each instant where the count changes."""
    code, job = result.ev_code, result.ev_job
    delta = np.zeros(len(code))
    delta[(code == SUBMIT) | (code == RELEASE) | (code == FAIL)] = 1.0
    delta[code == START] = -1.0
    keep = delta != 0
    te = result.jobs.is_te[job[keep]]
    d = delta[keep]
    df = pd.DataFrame(
        {"time": result.ev_time[keep], "pending_TE": np.where(te, d, 0.0), "pending_BE": np.where(te, 0.0, d)}
    )
    df = df.groupby("time", sort=True).sum().cumsum().reset_index()
    df["pending"] = df["pending_TE"] + df["pending_BE"]
    return df[["time", "pending", "pending_TE", "pending_BE"]].astype(
        {"pending": int, "pending_TE": int, "pending_BE": int}
    )
