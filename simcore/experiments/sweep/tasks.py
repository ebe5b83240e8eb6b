"""One sweep task, (point, seed): build the workload once, run every policy on it, and return one
flat row per policy. :func:`run_tasks` runs several tasks of one workload together (of one sweep
or of several, as ``simcore reproduce`` does): the workload is built once and each distinct
configuration simulated once, its row cells shared by every task that asks for it.

A row holds the point's knobs and workload parameters, the flattened metrics
(:func:`simcore.analysis.metrics.flat_summary`) and the trio against each baseline (:func:`simcore.analysis.metrics.versus`),
never the job records, so results stream back cheaply from any executor. A row depends only on
its task (no wall time), which keeps sweep files byte-identical whatever runs them."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from simcore.analysis import accounting, interruptions
from simcore.analysis.metrics import FLAT_FIELDS, TRIO_KEYS, flat_summary, versus
from simcore.core import fmt
from simcore.core.model import SimConfig
from simcore.experiments.sweep.spec import Source, Task, split_params
from simcore.workload import alibaba, load_cluster, load_workload, offered_load

if TYPE_CHECKING:
    from simcore.analysis.compare import Configured

#: Metric columns of a row, in order: the run's flat summary and the workload's offered load
#: (the trio columns follow them).
METRIC_COLUMNS: tuple[str, ...] = (*FLAT_FIELDS, "offered_load")
#: Metric columns only some workloads' rows have: with gangs, and with down time (with queues, each
#: queue's too: :func:`simcore.experiments.sweep.summary.queue_names`).
OPTIONAL_METRIC_COLUMNS: tuple[str, ...] = (
    *accounting.GANG_FIELDS,
    *interruptions.FIELDS,
    *interruptions.EXPOSURE_FIELDS,
)


def run_task(task: Task) -> list[dict[str, Any]]:
    """Build the task's workload once, run every policy on it, return one row per policy."""
    return run_tasks((task,))[0]


def workload_key(task: Task) -> str:
    """What decides a task's workload: its source, workload parameters and seed (never its knobs).

    ``repr`` keeps ``1`` and ``1.0`` apart, so only tasks whose workloads are surely equal share one."""
    _, wparams = split_params(dict(task.point))
    return repr((task.source.key(), sorted(wparams.items()), task.seed))


def run_tasks(tasks: Sequence[Task]) -> list[list[dict[str, Any]]]:
    """Tasks of one workload (the same :func:`workload_key`; of one sweep or several): the workload
    built once, each distinct configuration simulated once (its row cells shared by every task that
    runs it), and each task's rows as :func:`run_task` gives them."""
    if len({workload_key(t) for t in tasks}) != 1:
        raise ValueError("run_tasks: the tasks must share one workload")
    first = tasks[0]
    _, wparams = split_params(dict(first.point))
    table, cluster, params, offered = _load_workload(first.source, wparams, first.seed)
    runs: dict[str, _Run] = {}
    return [_task_rows(t, table, cluster, params, offered, runs) for t in tasks]


def configurations(task: Task) -> list[Configured]:
    """The task's policies, each with its full configuration (the point's knobs, the task's seed)."""
    from simcore.analysis.compare import configure

    knobs, _ = split_params(dict(task.point))
    return configure(task.policies, SimConfig(seed=task.seed).with_knobs(knobs))


@dataclass(frozen=True)
class _Run:
    """What the rows need of one simulation: its flat summary, its summary (the trio) and the jobs it left out."""

    flat: dict[str, Any]
    summary: dict[str, Any]
    unschedulable: tuple[str, ...]


def _simulate(table: Any, cluster: Any, config: SimConfig, runs: dict[str, _Run]) -> _Run:
    """One simulation per distinct configuration (``repr``: every knob, its type included)."""
    from simcore.analysis.metrics import summarize
    from simcore.engine import simulate

    key = repr(config)
    if key not in runs:
        result = simulate(table, cluster, config)
        summary = summarize(result)
        runs[key] = _Run(flat_summary(result, summary), summary, result.unschedulable)
    return runs[key]


def _task_rows(
    task: Task, table: Any, cluster: Any, params: Mapping[str, Any], offered: float, runs: dict[str, _Run]
) -> list[dict[str, Any]]:
    from simcore.analysis.bound import BOUND_LABEL, run_bound
    from simcore.analysis.compare import Configured, compare_from_summaries
    from simcore.analysis.metrics import summarize

    configured = configurations(task)
    done = {pol.label: _simulate(table, cluster, pol.config, runs) for pol in configured}
    if task.bound:  # the same jobs on the pooled node, with the point's other knobs
        base = SimConfig(seed=task.seed).with_knobs(split_params(dict(task.point))[0])
        bound = run_bound(table, cluster, base, next(iter(done.values())).unschedulable)
        configured.append(Configured(BOUND_LABEL, bound.config))
        bound_summary = summarize(bound)
        done[BOUND_LABEL] = _Run(flat_summary(bound, bound_summary), bound_summary, bound.unschedulable)
    summaries = {label: run.summary for label, run in done.items()}
    rows: dict[str, dict[str, Any]] = {}
    for pol in configured:
        row: dict[str, Any] = {"point_id": task.point_id, "seed": task.seed, "policy": pol.label}
        row.update({k: _cell(v) for k, v in pol.config.recorded_knobs().items() if k != "seed"})
        row.update({k: _cell(v) for k, v in params.items() if k != "seed"})
        row.update(done[pol.label].flat)
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
    from simcore.experiments.sweep.filesource import FileSource

    if isinstance(source, FileSource):
        return source.load(params, seed)
    if source.kind == "preset":
        from simcore.workload.presets import generate

        gen = generate(source.name, seed, params)
        return gen.table, gen.cluster, gen.params, gen.offered_load
    return _load_alibaba(source.name, params)


def _load_alibaba(trace_dir: str, params: Mapping[str, Any]) -> tuple[Any, Any, dict[str, Any], float]:
    """(jobs, cluster, resolved parameters, offered GPU load) of one point of the Alibaba trace as a
    sweep source: its pod list and its node list in ``trace_dir`` (:data:`alibaba.POD_FILE`, :data:`alibaba.NODE_FILE`)."""
    options, nodes, per_node, resolved = alibaba.source_params(params)
    base = Path(trace_dir)
    jobs = load_workload(base / alibaba.POD_FILE, fmt="alibaba", alibaba_options=options).table
    cluster = load_cluster(base / alibaba.NODE_FILE, gpu_per_node=per_node, first_n=nodes).cluster
    return jobs, cluster, resolved, offered_load(jobs, cluster)


def _num(v: Any) -> float:
    return math.nan if v is None else float(v)


def _cell(v: Any) -> Any:
    """A parameter value as a Parquet-friendly scalar (lists as their comma-separated text)."""
    if isinstance(v, (list, tuple)):
        return fmt.settings(v)
    if v == "inf":
        return math.inf
    return v
