"""One sweep task, (point, seed): build the workload once, run every policy on it with
:func:`simcore.compare.run_policies`, and return one flat row per policy.

A row holds the point's knobs and workload parameters, the flattened metrics
(:data:`METRIC_COLUMNS`) and the trio against each baseline (``<trio key>_vs_<baseline>``),
never the job records, so results stream back cheaply from any executor. A row depends only on
its task (no wall time), which keeps sweep files byte-identical whatever runs them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from simcore import alibaba, fmt
from simcore.metrics import STATS, TRIO_KEYS
from simcore.model import SimConfig
from simcore.result import PREEMPT
from simcore.sweep.spec import Source, Task, split_params

CLASSES = ("TE", "BE", "all")

#: Metric columns of a row, in order (the trio columns ``<trio key>_vs_<baseline>`` follow them).
METRIC_COLUMNS: tuple[str, ...] = (
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
    "offered_load",
)


def run_task(task: Task) -> list[dict[str, Any]]:
    """Build the task's workload once, run every policy on it, return one row per policy."""
    from simcore.compare import compare_from_summaries, configure, run_policies
    from simcore.metrics import summarize

    knobs, wparams = split_params(dict(task.point))
    table, cluster, params, offered = _load_workload(task.source, wparams, task.seed)
    configured = configure(task.policies, SimConfig(seed=task.seed).with_knobs(knobs))
    results = run_policies(table, cluster, configured)
    summaries = {label: summarize(result) for label, result in results.items()}
    rows: dict[str, dict[str, Any]] = {}
    for pol in configured:
        row: dict[str, Any] = {"point_id": task.point_id, "seed": task.seed, "policy": pol.label}
        row.update({k: _cell(v) for k, v in pol.config.knobs().items() if k != "seed"})
        row.update({k: _cell(v) for k, v in params.items() if k != "seed"})
        row.update(_flatten(summaries[pol.label], results[pol.label]))
        row["offered_load"] = float(offered)
        rows[pol.label] = row
    for b in task.baselines:
        versus = compare_from_summaries(summaries, b)["vs_baseline"]
        for label, row in rows.items():
            for k in TRIO_KEYS:
                row[f"{k}_vs_{b}"] = _num(versus[label].get(k))
    return [rows[p.label] for p in task.policies]


def _load_workload(source: Source, params: Mapping[str, Any], seed: int) -> tuple[Any, Any, dict[str, Any], float]:
    if source.kind == "preset":
        from simcore.presets import generate

        gen = generate(source.name, seed, params)
        return gen.table, gen.cluster, gen.params, gen.offered_load
    return alibaba.load_source(source.name, params)


def _flatten(summary: Mapping[str, Any], result: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"jobs_simulated": len(result.jobs)}
    classes = summary["classes"]
    for c in CLASSES:
        out[f"{c}_count"] = int(classes[c]["count"])
    for c in CLASSES:
        for m in ("slowdown", "wait", "jct"):
            stats = classes[c].get(m) or {}
            for s in STATS:
                out[f"{c}_{m}_{s}"] = _num(stats.get(s))
    # the summary has no maxima; the issue asks for the worst TE wait, so take it from the records
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
    return out


def _num(v: Any) -> float:
    return math.nan if v is None else float(v)


def _cell(v: Any) -> Any:
    """A parameter value as a Parquet-friendly scalar (lists as their comma-separated text)."""
    if isinstance(v, (list, tuple)):
        return fmt.settings(v)
    if v == "inf":
        return math.inf
    return v
