"""Counterfactuals: the run again with exactly one change, and what moved.

A change is one of :data:`CHANGE_KINDS`: ``none`` (the same run, byte for byte: the engine is
deterministic), ``not_preempted`` (the job is never a victim candidate: ``simulate(exempt=...)``,
as if ``min_runtime`` never ended for it), ``submit_at`` (submitted at another time),
``gpus`` (fewer GPUs per worker, at least 1) or ``policy`` (another policy spec, on the same knobs).
The answer holds the job's own delta, every other job whose start or finish moved, and the
cluster's trio (:data:`simcore.analysis.metrics.TRIO`) before and after, each against ``fifo`` on the same
jobs, as ``simcore compare`` reports it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from simcore.analysis.compare import parse_policy_spec
from simcore.analysis.metrics import slowdowns, summarize, trio
from simcore.analysis.whatif.reasons import job_index
from simcore.core.errors import UserError
from simcore.core.model import ClusterSpec, JobTable, SimConfig
from simcore.core.result import SimResult
from simcore.engine import simulate

#: every kind of change -> what it does (the CLI's help and docs/cli.md read these)
CHANGE_KINDS: dict[str, str] = {
    "none": "no change: the same run (a check of exactness)",
    "not_preempted": "the job is exempt from every victim search (it is never preempted)",
    "submit_at": "the job is submitted at another time (seconds)",
    "gpus": "the job asks for fewer GPUs per worker (at least 1)",
    "policy": "the whole run under another policy spec (fitgpp:P=1), on the same knobs",
}
#: the baseline the trio is measured against, before and after
BASELINE = "fifo"


@dataclass(frozen=True)
class Change:
    """Exactly one change; ``kind`` in :data:`CHANGE_KINDS`."""

    kind: str
    value: float | str | None = None  # submit time s, GPUs per worker, or a policy spec


@dataclass(frozen=True)
class JobDelta:
    """A job's completion time (finish - submit) and start, before and after (s; nan if absent)."""

    job_id: str
    jct_before: float
    jct_after: float
    start_before: float
    start_after: float

    @property
    def moved(self) -> float:
        """The largest move of its start or finish (s)."""
        moves = (abs(self.start_after - self.start_before), abs(self.jct_after - self.jct_before))
        return max((m for m in moves if not math.isnan(m)), default=0.0)


@dataclass(frozen=True)
class WhatIf:
    """The answer to one counterfactual."""

    change: Change
    job: JobDelta  # the job itself
    touched: tuple[JobDelta, ...]  # every other job whose start or finish moved, largest move first
    trio_before: dict[str, float]  # TRIO keys -> % vs BASELINE (nan where undefined)
    trio_after: dict[str, float]
    base: SimResult
    alt: SimResult


def counterfactual(jobs: JobTable, cluster: ClusterSpec, config: SimConfig, job_id: str, change: Change) -> WhatIf:
    """The run of `jobs` under `config`, and again with `change` made to job `job_id` (or the policy)."""
    base = simulate(jobs, cluster, config)
    j = job_index(base, job_id)
    alt_jobs, alt_config, exempt = _changed(jobs, config, job_id, change, base, j)
    alt = simulate(alt_jobs, cluster, alt_config, exempt=exempt)
    fifo: dict[str, SimResult] = {}
    for key, table in (("before", jobs), ("after", alt_jobs)):
        if key == "after" and table is jobs:
            fifo[key] = fifo["before"]
        else:
            fifo[key] = simulate(table, cluster, replace(config, policy=BASELINE))
    deltas = _deltas(base, alt)
    mine = deltas.pop(job_id)
    touched = sorted((d for d in deltas.values() if d.moved > 0), key=lambda d: -d.moved)  # stable: job order
    return WhatIf(
        change=change,
        job=mine,
        touched=tuple(touched),
        trio_before=_versus_baseline(base, fifo["before"]),
        trio_after=_versus_baseline(alt, fifo["after"]),
        base=base,
        alt=alt,
    )


def _changed(
    jobs: JobTable, config: SimConfig, job_id: str, change: Change, base: SimResult, j: int
) -> tuple[JobTable, SimConfig, tuple[str, ...]]:
    """The workload, config and exempt jobs of the changed run (the change checked)."""
    kind, value = change.kind, change.value
    if kind not in CHANGE_KINDS:
        raise UserError(f"unknown change {kind!r} (known: {', '.join(CHANGE_KINDS)})")
    row = int(np.flatnonzero(jobs.job_id == job_id)[0])
    if kind == "none":
        return jobs, config, ()
    if kind == "not_preempted":
        return jobs, config, (job_id,)
    if kind == "policy":
        return jobs, parse_policy_spec(str(value), config).config, ()
    number = _number(kind, value)
    if kind == "submit_at":
        if number < 0:
            raise UserError(f"submit_at: the submit time must be >= 0 s (got {value!r})")
        submit = jobs.submit_time.copy()
        submit[row] = number
        return replace(jobs, submit_time=submit), config, ()
    gpu = float(base.jobs.request[j, 2])
    if not 1 <= number < gpu:
        raise UserError(
            f"gpus: job {job_id!r} asks for {gpu:g} GPUs per worker; ask for fewer, at least 1 (got {value!r})"
        )
    request = jobs.request.copy()
    request[row, 2] = number
    return replace(jobs, request=request), config, ()


def _number(kind: str, value: object) -> float:
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise UserError(f"{kind}: {value!r} is not a number") from None
    if not math.isfinite(number):
        raise UserError(f"{kind}: {value!r} is not a finite number")
    return number


def _deltas(base: SimResult, alt: SimResult) -> dict[str, JobDelta]:
    """Per job id of the base run, in job order: its delta (nan where the alt run lacks it)."""
    after = {
        str(i): (float(f - s), float(st))
        for i, s, f, st in zip(alt.jobs.job_id, alt.jobs.submit_time, alt.finish, alt.first_start, strict=True)
    }
    out = {}
    for i, s, f, st in zip(base.jobs.job_id, base.jobs.submit_time, base.finish, base.first_start, strict=True):
        jct, start = after.get(str(i), (math.nan, math.nan))
        out[str(i)] = JobDelta(str(i), float(f - s), jct, float(st), start)
    return out


def _versus_baseline(result: SimResult, baseline: SimResult) -> dict[str, float]:
    """The run's trio against the baseline's run of the same jobs; NaN where it has no value."""
    change = trio(slowdowns(summarize(result)), slowdowns(summarize(baseline)))
    return {k: math.nan if v is None else v for k, v in change.items()}
