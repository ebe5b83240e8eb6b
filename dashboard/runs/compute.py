"""The simulations a visit asks for, as they run in a worker process (:mod:`dashboard.runs.worker`); pure.

Each function takes everything it needs as arguments (no Streamlit, no cache) and reports its
progress as a fraction; :mod:`dashboard.runs.data` decides what is missing from the shared store,
sends only that here, and stores what comes back.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any

import pandas as pd

from dashboard.shared import views
from simcore.analysis import accounting, gantt, interruptions, metrics, queue_metrics, whatif
from simcore.analysis.bound import run_bound
from simcore.core.downtime import NodeEvents
from simcore.core.model import ClusterSpec, JobTable, QueueSpec, SimConfig
from simcore.core.result import SimResult
from simcore.engine import simulate
from simcore.experiments import advisor
from simcore.experiments.sweep import SweepSpec, run_sweep
from simcore.workload import presets

Progress = Callable[[float], None]


@dataclass(frozen=True, eq=False)
class Numbers:
    """A run's numbers without its frames (a further seed): the nested summary (DESIGN.md section 6:
    the JSON downloads, the unschedulable ids) and the flat record every table and chart reads."""

    summary: dict[str, Any]
    flat: dict[str, Any]  # simcore.analysis.metrics.flat_summary


def numbers(result: SimResult) -> Numbers:
    summary = metrics.summarize(result)
    return Numbers(summary, metrics.flat_summary(result, summary))


@dataclass(frozen=True, eq=False)
class Run:
    """One policy on one workload: its numbers (as in :class:`Numbers`) and the frames the charts need."""

    policy: str
    summary: dict[str, Any]
    flat: dict[str, Any]  # simcore.analysis.metrics.flat_summary: what the tables and charts read
    jobs: pd.DataFrame
    events: pd.DataFrame
    segments: pd.DataFrame
    util: pd.DataFrame
    queue: pd.DataFrame
    decisions: pd.DataFrame  # one row per preemption decision with its accounting (simcore.analysis.accounting)
    lost: (
        pd.DataFrame
    )  # one row per interruption: job_id, time, lost (s), cause (simcore.analysis.interruptions.lost_work)
    down: (
        pd.DataFrame
    )  # when each node was down: node, start, end, kind (simcore.analysis.interruptions.down_stretches)
    usage: pd.DataFrame | None = None  # with queues: simcore.analysis.queue_metrics.usage_over_time
    ledger: pd.DataFrame | None = None  # with queues: one row per decision (queue_metrics.ledger_frame)


def full_run(table: JobTable, cluster: ClusterSpec, config: SimConfig) -> Run:
    return run_of(simulate(table, cluster, config))


def run_of(result: SimResult) -> Run:
    """The :class:`Run` of a simulation's records: its numbers and frames."""
    config = result.config
    acc = accounting.account(result)
    nums = numbers(result)
    return Run(
        policy=config.policy,
        summary=nums.summary,
        flat=nums.flat,
        jobs=result.jobs_frame,
        events=result.events_frame,
        segments=gantt.segments(result),
        util=metrics.utilization_over_time(result),
        queue=metrics.queue_length_over_time(result),
        decisions=accounting.decision_table(result, acc),
        lost=interruptions.lost_work(result, acc),
        down=interruptions.down_stretches(result),
        usage=None if result.queues is None else queue_metrics.usage_over_time(result),
        ledger=None if result.queues is None else queue_metrics.ledger_frame(result),
    )


@dataclass(frozen=True)
class SeedWork:
    """The summaries still needed on one more generated workload (a further seed)."""

    preset: str
    seed: int
    gen: tuple[tuple[str, str], ...]
    cluster: ClusterSpec | None  # None: the generated workload's own cluster
    configs: tuple[SimConfig, ...]
    node_events: NodeEvents | None = None  # the down windows on its own cluster (a given cluster has them)
    queues: QueueSpec | None = None  # the sidebar's queues table in place of the workload's own


def comparison(
    table: JobTable,
    cluster: ClusterSpec,
    configs: Sequence[SimConfig],
    extra: Sequence[SeedWork],
    progress: Progress,
) -> Iterator[Any]:
    """Full runs of ``configs`` on the workload, then the :class:`Numbers` of each further seed
    (in the order of ``extra`` and its configs): a value per requested result, each yielded as
    soon as it is made. Each simulation's result is dropped once its value is made, so the worker
    holds one simulation at a time (the demo's memory budget, :mod:`dashboard.shared.demo`)."""
    steps = len(configs) + sum(len(w.configs) for w in extra)
    done = 0
    for config in configs:
        yield run_of(simulate(table, cluster, config))
        done += 1
        progress(done / steps)
    for work in extra:
        gen = presets.generate(work.preset, work.seed, dict(work.gen))
        cluster = work.cluster or gen.cluster.with_node_events(work.node_events)
        if work.queues is not None:
            cluster = cluster.with_queues(work.queues)
        for config in work.configs:
            yield numbers(simulate(gen.table, cluster, replace(config, seed=work.seed)))
            done += 1
            progress(done / steps)


def variants(table: JobTable, runs: Sequence[tuple[ClusterSpec, SimConfig]], progress: Progress) -> Iterator[Run]:
    """Full runs of the jobs on each (cluster, config) in turn (a lesson's variants, whose clusters may
    differ by their down windows), each yielded as soon as it is made."""
    for i, (cluster, config) in enumerate(runs):
        yield run_of(simulate(table, cluster, config))
        progress((i + 1) / len(runs))


@dataclass(frozen=True)
class BoundSeed:
    """The pooled bound's summary on one more generated workload (a further seed)."""

    preset: str
    seed: int
    gen: tuple[tuple[str, str], ...]
    cluster: ClusterSpec | None  # None: the generated workload's own cluster
    unschedulable: tuple[str, ...]  # the jobs the real cluster cannot hold (left out, as in the policies' runs)


def bound(
    table: JobTable,
    cluster: ClusterSpec,
    config: SimConfig,
    first: tuple[str, ...] | None,
    extra: Sequence[BoundSeed],
    progress: Progress,
) -> Iterator[Any]:
    """The pooled bound (:mod:`simcore.analysis.bound`) with the knobs of ``config``: a full run on the
    workload when ``first`` (its unschedulable ids) is given, then its :class:`Numbers` per further
    seed, each yielded as soon as it is made."""
    steps = (first is not None) + len(extra)
    done = 0
    if first is not None:
        yield run_of(run_bound(table, cluster, config, first))
        done += 1
        progress(done / steps)
    for work in extra:
        gen = presets.generate(work.preset, work.seed, dict(work.gen))
        seeded = replace(config, seed=work.seed)
        yield numbers(run_bound(gen.table, work.cluster or gen.cluster, seeded, work.unschedulable))
        done += 1
        progress(done / steps)


def advice(
    preset: str, gen: tuple[tuple[str, str], ...], seeds: int, config: SimConfig, intervals: tuple[float, ...]
) -> advisor.Advice:
    """The checkpoint advisor (:func:`simcore.experiments.advisor.advise`) on seeds 0 .. seeds - 1 of a preset,
    each seed the generator's and the run's, as ``simcore checkpoint-advice PRESET --seeds N`` runs it."""
    workloads = []
    for seed in range(seeds):
        made = presets.generate(preset, seed, dict(gen))
        workloads.append((made.table, made.cluster, seed))
    return advisor.advise(workloads, config, intervals)


def sweep(spec: SweepSpec, workers: int, dask: str | None, progress: Progress) -> list[pd.DataFrame]:
    """The rows of a sweep (spec order, as :func:`simcore.experiments.sweep.run_sweep` returns them), as a
    one-value list like :func:`comparison`'s."""
    total = len(spec.tasks())
    done: list[object] = []

    def advance(task: object) -> None:
        done.append(task)
        progress(len(done) / total)

    return [run_sweep(spec, workers=workers, dask=dask or None, on_task=advance).rows]


@dataclass(frozen=True)
class JobPanel:
    """One job of a run in words (:mod:`simcore.analysis.whatif`): its story and why it waited."""

    story: tuple[whatif.StoryStep, ...]
    waits: tuple[whatif.Wait, ...]


# Simulations each what-if costs, which the budget counts (plain runs' CPU): a counterfactual at most four
# plain runs (the run, the changed run, and fifo on each for the trio); a watched run three: the story's
# and the forecast's (one job watched) and every job's waits (all watched, per policy) keep their decision
# records and note the watched jobs' facts after each pass, up to three plain runs' CPU on 20,000 jobs
# (every job's: bench/run.py demo20k-waits-*; one job's: 1.7 to 2.4; docs/hosting.md).
JOB_PANEL_RUNS, COUNTERFACTUAL_RUNS, FORECAST_RUNS, ALL_WAITS_RUNS = 3, 4, 3, 3


def alone(fn: Callable[..., Any], args: tuple[Any, ...], _progress: Progress) -> list[Any]:
    """One value, ``fn(*args)``: small, bounded work with no progress to report."""
    return [fn(*args)]


@dataclass(frozen=True, eq=False)
class WhyWaited:
    """Why each job of a run waited, as the Gantt's hovers and the jobs table say it: job id -> its
    longest wait's reason in words (empty: it never waited), from :func:`simcore.analysis.whatif.all_waits`."""

    by_job: dict[str, str]


def why_waited(
    table: JobTable, cluster: ClusterSpec, configs: Sequence[SimConfig], progress: Progress
) -> Iterator[WhyWaited]:
    """:class:`WhyWaited` of the run of each config, in turn: one computation for every panel asking.
    Equal texts are one string object, so the answer crosses the pipe and stays in memory once per text."""
    for i, config in enumerate(configs):
        texts: dict[str, str] = {}
        why = views.why_by_job(whatif.all_waits(table, cluster, config))
        yield WhyWaited({j: texts.setdefault(t, t) for j, t in why.items()})
        progress((i + 1) / len(configs))


def job_panel(table: JobTable, cluster: ClusterSpec, config: SimConfig, job_id: str) -> JobPanel:
    """The story of ``job_id`` in the run of ``config``, each waiting stretch with its dominant reason."""
    result, waits = whatif.watched_run(table, cluster, config, job_id)
    return JobPanel(whatif.job_story(result, job_id, waits), waits)


@dataclass(frozen=True)
class Counterfactual:
    """A :class:`simcore.analysis.whatif.WhatIf` as the page keeps it: the deltas, without its two runs."""

    change: whatif.Change
    job: whatif.JobDelta
    touched: tuple[whatif.JobDelta, ...]
    trio_before: dict[str, float]
    trio_after: dict[str, float]


def counterfactual(
    table: JobTable, cluster: ClusterSpec, config: SimConfig, job_id: str, change: whatif.Change
) -> Counterfactual:
    """:func:`simcore.analysis.whatif.counterfactual`, less the runs the store would keep for nothing."""
    w = whatif.counterfactual(table, cluster, config, job_id, change)
    return Counterfactual(w.change, w.job, w.touched, w.trio_before, w.trio_after)


@dataclass(frozen=True)
class Forecast:
    """A :class:`simcore.analysis.whatif.Forecast` as the page keeps it: without its run."""

    job_id: str
    submit: float
    start: float | None
    nodes: tuple[str, ...]
    victims: tuple[str, ...]
    waits: tuple[whatif.Wait, ...]
    caveat: str


def forecast(table: JobTable, cluster: ClusterSpec, config: SimConfig, job: dict[str, object], at: float) -> Forecast:
    """:func:`simcore.analysis.whatif.when_would_it_start`, less its run."""
    f = whatif.when_would_it_start(table, cluster, config, job, at)
    return Forecast(f.job_id, f.submit, f.start, f.nodes, f.victims, f.waits, f.caveat)
