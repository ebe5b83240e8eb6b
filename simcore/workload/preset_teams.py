"""The ``teams`` preset (DESIGN.md section 7's style; issue 34): three teams share the ``paper`` cluster
through queues with quotas, each with its own daily arrival pattern, so that every day one borrows
what another leaves idle and the owner reclaims it.

Draws, in this order (numpy ``default_rng(seed)``): each job's team (weighted choice by
``team_jobs_w``); which jobs are TE (within each team, exactly ``round(te_share[team] x its jobs)``,
at random positions, teams in order); the GPUs of TE then BE jobs; their lognormal durations
(median and sigma, clipped, rounded to whole seconds); CPUs and GiB per GPU (integers); then each
team's arrival times. A team's arrivals are a Poisson process whose rate is ``peak_factor`` times
higher inside its daily peak hours [``peak_start``, ``peak_end``) (wrapping past midnight when
start > end) than outside, over a common horizon T = (all jobs' GPU-seconds) / (load x cluster
GPUs): given its number of jobs, they are independent draws from that rate's shape on [0, T)
(an hour drawn by weight, then a uniform instant within it). Times are rounded to whole seconds
and shifted so that the first job arrives at 0; job ids are 0..n-1 in arrival order (ties by team,
then draw). The cluster carries the teams' queues (:class:`~simcore.core.model.QueueSpec`): quota
``quota_gpu``, borrow limit ``borrow_limit`` and ``weight``, per team, named by :data:`TEAM_NAMES`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from simcore.core.errors import UserError
from simcore.core.model import ClusterSpec, JobTable, Queue, QueueSpec
from simcore.workload.preset_draws import job_shapes, normalised

#: the teams' names, in order (teams beyond these are team3, team4, ...)
TEAM_NAMES = ("vision", "nlp", "research")
#: the per-team list parameters (one value per team, the same length)
TEAM_LISTS = ("quota_gpu", "borrow_limit", "weight", "team_jobs_w", "te_share", "peak_start", "peak_end", "peak_factor")
HOUR = 3600.0


def team_names(k: int) -> list[str]:
    return [TEAM_NAMES[i] if i < len(TEAM_NAMES) else f"team{i}" for i in range(k)]


def check_teams(v: Mapping[str, Any]) -> None:
    """Rules that tie the team parameters together (the shared ones: :func:`simcore.workload.presets._check_paper`)."""
    k = len(v["quota_gpu"])
    for name in TEAM_LISTS:
        if len(v[name]) != k:
            raise UserError(f"parameter {name}: {len(v[name])} values for {k} teams in quota_gpu (one per team)")
    if not math.isclose(sum(v["team_jobs_w"]), 1.0, abs_tol=1e-6):
        raise UserError(f"parameter team_jobs_w: the weights sum to {sum(v['team_jobs_w']):g} (they must sum to 1)")
    for name in ("te_share",):
        if any(x > 1 for x in v[name]):
            raise UserError(f"parameter {name}: each value must be <= 1")
    for name in ("peak_start", "peak_end"):
        if any(x > 24 or not float(x).is_integer() for x in v[name]):
            raise UserError(f"parameter {name}: whole hours from 0 to 24")
    if any(x <= 0 for x in v["weight"]):
        raise UserError("parameter weight: each value must be > 0")
    biggest = max(g for g, w in zip(v["be_gpu"], v["be_gpu_w"], strict=True) if w > 0)
    for name, q, b in zip(team_names(k), v["quota_gpu"], v["borrow_limit"], strict=True):
        if q + b < biggest:
            raise UserError(
                f"parameter borrow_limit: team {name} may hold {q + b:g} GPUs (quota + borrow limit), less than "
                f"a {biggest:g}-GPU BE job: its jobs of that size could never start"
            )


def queues_of(p: Mapping[str, Any]) -> QueueSpec:
    """The teams' queues from the preset's parameters."""
    rows = zip(team_names(len(p["quota_gpu"])), p["quota_gpu"], p["borrow_limit"], p["weight"], strict=True)
    return QueueSpec(tuple(Queue(n, float(q), float(b), float(w)) for n, q, b, w in rows))


def generate_teams(p: Mapping[str, Any], rng: np.random.Generator) -> tuple[JobTable, ClusterSpec]:
    n, k = p["jobs"], len(p["quota_gpu"])
    team = rng.choice(k, size=n, p=normalised(p["team_jobs_w"]))
    is_te = np.zeros(n, dtype=bool)
    for t in range(k):
        mine = np.flatnonzero(team == t)
        is_te[mine[rng.permutation(len(mine))[: int(round(p["te_share"][t] * len(mine)))]]] = True
    duration, request = job_shapes(p, rng, is_te)
    horizon = float(np.sum(request[:, 2] * duration)) / (p["load"] * p["nodes"] * p["node_gpu"])
    submit = np.empty(n)
    for t in range(k):
        mine = np.flatnonzero(team == t)
        submit[mine] = _arrivals(rng, len(mine), horizon, p["peak_start"][t], p["peak_end"][t], p["peak_factor"][t])
    submit = np.rint(submit - submit.min())
    order = np.lexsort((np.arange(n), team, submit))  # arrival order: time, then team, then draw
    names = np.array(team_names(k), dtype=object)
    jobs = JobTable(
        job_id=np.array([str(i) for i in range(n)], dtype=object),
        submit_time=submit[order],
        duration=duration[order],
        request=request[order],
        is_te=is_te[order],
        extra={"queue": names[team[order]]},
    )
    cluster = ClusterSpec.uniform(p["nodes"], p["node_cpu"], p["node_mem_gb"], p["node_gpu"])
    return jobs, cluster.with_queues(queues_of(p))


def _arrivals(
    rng: np.random.Generator, count: int, horizon: float, start: float, end: float, factor: float
) -> np.ndarray:
    """`count` instants on [0, horizon), independent, with density factor x higher in the hours [start, end)
    of each day (wrapping past midnight when start > end) than outside: an hour by weight, then uniform in it."""
    hours = max(1, math.ceil(horizon / HOUR))
    h = np.arange(hours) % 24
    peak = (h >= start) & (h < end) if start <= end else (h >= start) | (h < end)
    weight = np.where(peak, factor, 1.0) * np.minimum(1.0, (horizon - np.arange(hours) * HOUR) / HOUR)
    which = rng.choice(hours, size=count, p=weight / weight.sum())
    return which * HOUR + rng.random(count) * np.minimum(HOUR, horizon - which * HOUR)
