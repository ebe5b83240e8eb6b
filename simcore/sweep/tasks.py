"""One sweep task, (point, seed): build the workload once, run every policy on it with
:func:`simcore.compare.run_policies`, and return one flat row per policy.

A row holds the point's knobs and workload parameters, the flattened metrics
(:func:`simcore.metrics.flat_summary`) and the trio against each baseline (:func:`simcore.metrics.versus`),
never the job records, so results stream back cheaply from any executor. A row depends only on
its task (no wall time), which keeps sweep files byte-identical whatever runs them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from simcore import alibaba, fmt
from simcore.metrics import FLAT_FIELDS, TRIO_KEYS, flat_summary, versus
from simcore.model import SimConfig
from simcore.sweep.spec import Source, Task, split_params

#: Metric columns of a row, in order: the run's flat summary and the workload's offered load
#: (the trio columns follow them).
METRIC_COLUMNS: tuple[str, ...] = (*FLAT_FIELDS, "offered_load")


def run_task(task: Task) -> list[dict[str, Any]]:
    """Build the task's workload once, run every policy on it, return one row per policy."""
    from simcore.bound import BOUND_LABEL, run_bound
    from simcore.compare import Configured, compare_from_summaries, configure, run_policies
    from simcore.metrics import summarize

    knobs, wparams = split_params(dict(task.point))
    table, cluster, params, offered = _load_workload(task.source, wparams, task.seed)
    configured = configure(task.policies, SimConfig(seed=task.seed).with_knobs(knobs))
    results = run_policies(table, cluster, configured)
    if task.bound:  # the same jobs on the pooled node, with the point's other knobs
        base = SimConfig(seed=task.seed).with_knobs(knobs)
        bound = run_bound(table, cluster, base, next(iter(results.values())).unschedulable)
        configured.append(Configured(BOUND_LABEL, bound.config))
        results[BOUND_LABEL] = bound
    summaries = {label: summarize(result) for label, result in results.items()}
    rows: dict[str, dict[str, Any]] = {}
    for pol in configured:
        row: dict[str, Any] = {"point_id": task.point_id, "seed": task.seed, "policy": pol.label}
        row.update({k: _cell(v) for k, v in pol.config.knobs().items() if k != "seed"})
        row.update({k: _cell(v) for k, v in params.items() if k != "seed"})
        row.update(flat_summary(results[pol.label], summaries[pol.label]))
        row["offered_load"] = float(offered)
        if task.bound:
            row["bound"] = pol.label == BOUND_LABEL
        rows[pol.label] = row
    for b in task.baselines:
        trio = compare_from_summaries(summaries, b)["vs_baseline"]
        for label, row in rows.items():
            for k in TRIO_KEYS:
                row[versus(k, b)] = _num(trio[label].get(k))
    return [rows[p.label] for p in configured]


def _load_workload(source: Source, params: Mapping[str, Any], seed: int) -> tuple[Any, Any, dict[str, Any], float]:
    from simcore.sweep.filesource import FileSource

    if isinstance(source, FileSource):
        return source.load()
    if source.kind == "preset":
        from simcore.presets import generate

        gen = generate(source.name, seed, params)
        return gen.table, gen.cluster, gen.params, gen.offered_load
    return alibaba.load_source(source.name, params)


def _num(v: Any) -> float:
    return math.nan if v is None else float(v)


def _cell(v: Any) -> Any:
    """A parameter value as a Parquet-friendly scalar (lists as their comma-separated text)."""
    if isinstance(v, (list, tuple)):
        return fmt.settings(v)
    if v == "inf":
        return math.inf
    return v
