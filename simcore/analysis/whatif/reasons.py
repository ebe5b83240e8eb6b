"""Why a job waits: one dominant reason per waiting stretch, from the engine's own state.

:func:`waits_run` re-runs the simulation with its decision records kept and a
:class:`~simcore.engine.watch.JobWatch` observer, which notes after every pass, while a watched job
is pending, what held it back there; the state holds until the next instant, so each pass's reason
covers the time up to the next pass. Consecutive passes with the same reason (and blocker) make
one :class:`Wait` (:func:`wait_key`; the watch merges them as it goes, keeping each stretch's first
pass, whose words the wait keeps). The reasons are checked in the order of :data:`WAIT_REASONS`' comment below.
:func:`blocking_reasons` and :func:`watched_run` watch one job, :func:`all_waits` every job: the
same observer and the same rules, so a job's waits are the same either way.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from simcore.core import fmt
from simcore.core.errors import UserError
from simcore.core.model import ClusterSpec, JobTable, SimConfig
from simcore.core.result import SimResult
from simcore.engine import simulate
from simcore.engine.watch import JobFacts, JobWatch, Stretch
from simcore.policies import decision

#: every reason code -> its one-line definition (docs/cli.md shows this table). Checked in this
#: order: a nominated TE job waits for grace; under backfill none a job behind the head waits for
#: it; room free for the job means it joins at the next pass; then room reserved for another job;
#: then, for a TE job the policy was asked for, the reason its decision record gives; else no room.
WAIT_REASONS: dict[str, str] = {
    "waiting_for_grace": "a TE job with victims chosen waits for them to checkpoint and release (the grace period)",
    "behind_te": "backfill none with TE first: a BE job waits behind a waiting TE job at the head of the queue",
    "head_of_line": "backfill none: a job ahead of it in the queue does not fit yet, and nothing behind it may start",
    "next_pass": "room is free for it, but it rejoined the queue within this pass (grace 0): it starts at the next",
    "reserved_for_other": "it would fit, but the room is reserved for a nominated TE job waiting for its victims",
    "preempt_budget": "a TE job: the preemption budget (preempt_budget per rolling hour) is spent",
    "min_runtime": "a TE job: every running BE job is still within min_runtime of its current segment",
    "capped_by_P": "a TE job: every candidate BE job has been preempted P times already (fitgpp, fitdelay)",
    "capped_by_s": "a TE job: every candidate is larger than s times its dominant share (fitgpp, fitdelay)",
    "frees_soon": "a TE job: fitdelay waits, since a BE job frees the room within the grace period",
    "no_victims": "a TE job: the policy found no set of victims whose removal makes room on one node",
    "no_room": "no node (no set of nodes, for a gang) has free room for its request, and there is no victim to take",
}

#: a decision record's reason for no victims -> the reason code
_FROM_DECISION = {
    decision.BUDGET_SPENT: "preempt_budget",
    decision.NO_RUNNING_BE: "no_room",
    decision.WITHIN_MIN_RUNTIME: "min_runtime",
    decision.CAPPED_BY_P: "capped_by_P",
    decision.LARGER_THAN_S: "capped_by_s",
    decision.FREES_WITHIN_GRACE: "frees_soon",
    decision.NO_NODE_FEASIBLE: "no_victims",
    decision.GANG_UNSATISFIED: "no_victims",
}


@dataclass(frozen=True)
class Wait:
    """One stretch of waiting with one dominant reason."""

    start: float
    end: float  # the instant the reason changed or the job started (inf: it never started)
    reason: str  # a code of WAIT_REASONS
    text: str  # plain language, naming the blocker
    blocker: str | None  # the job that blocks it, when there is one


def blocking_reasons(jobs: JobTable, cluster: ClusterSpec, config: SimConfig, job_id: str) -> tuple[Wait, ...]:
    """Every waiting stretch of `job_id` in the run of `jobs` on `cluster` under `config`, in time order."""
    result, waits = watched_run(jobs, cluster, config, job_id)
    job_index(result, job_id)
    return waits


def all_waits(jobs: JobTable, cluster: ClusterSpec, config: SimConfig) -> dict[str, tuple[Wait, ...]]:
    """Every simulated job's waiting stretches (none for a job that never waited), in the run's job order:
    one run that watches every job, each job's waits equal to :func:`blocking_reasons`'."""
    return waits_run(jobs, cluster, config)[1]


def watched_run(
    jobs: JobTable, cluster: ClusterSpec, config: SimConfig, job_id: str
) -> tuple[SimResult, tuple[Wait, ...]]:
    """The run with its decision records, and the waits of `job_id` in it (none if unschedulable)."""
    result, waits = waits_run(jobs, cluster, config, (job_id,))
    return result, waits.get(job_id, ())


def waits_run(
    jobs: JobTable, cluster: ClusterSpec, config: SimConfig, job_ids: Iterable[str] | None = None
) -> tuple[SimResult, dict[str, tuple[Wait, ...]]]:
    """The run with its decision records, and the waits of each job of `job_ids` it simulated (None:
    every job), in the run's job order. The one place a run is watched: every other function here
    restricts it."""
    watch = JobWatch(wait_key, job_ids)
    result = simulate(jobs, cluster, config, record_decisions=True, watch=watch)
    return result, waits_of(result, watch)


def waits_of(result: SimResult, watch: JobWatch) -> dict[str, tuple[Wait, ...]]:
    """Each watched job's waits, in the run's job order, from the stretches `watch` collected in the
    run `result` (keyed by :func:`wait_key`)."""
    ids = [str(x) for x in result.jobs.job_id]
    watched = watch.job_ids
    wanted = [j for j, x in enumerate(ids) if watched is None or x in watched]
    passes, stretches = watch.passes, watch.stretches
    ends = dict(zip(passes, [*passes[1:], math.inf], strict=False))  # pass instant -> the next one
    return {ids[j]: _waits(stretches.get(j, []), ends, ids) for j in wanted}


def job_index(result: SimResult, job_id: str) -> int:
    """The job's row in the run, or a clear error (unknown, or left out as unschedulable)."""
    if job_id in result.unschedulable:
        raise UserError(f"job {job_id!r} fits on no node of the cluster and was not simulated")
    hits = np.flatnonzero(result.jobs.job_id == job_id)
    if not len(hits):
        raise UserError(f"no job {job_id!r} in the workload")
    return int(hits[0])


def reason_at(waits: tuple[Wait, ...], t: float) -> Wait | None:
    """The wait holding at instant `t` (start <= t < end), or None when the job was not waiting then."""
    return next((w for w in waits if w.start <= t < w.end), None)


def _waits(stretches: list[Stretch], ends: dict[float, float], ids: list[str]) -> tuple[Wait, ...]:
    """One job's stretches (consecutive passes of the same :func:`wait_key`) as waits, each in its first
    pass's words, ending at the pass after its last (`ends`: each pass's instant -> the next pass's)."""
    out: list[Wait] = []
    for s in stretches:
        code, blocker, text = _reason(s.first, ids)
        out.append(Wait(s.first.time, ends[s.last], code, text, blocker))
    return tuple(out)


def wait_key(f: JobFacts) -> tuple[str, int | None]:
    """(reason code, blocker's job index) for one pass's facts: equal keys on consecutive passes
    make one wait."""
    if f.nominated:  # its first victim still in its grace period blocks it (none: all released)
        return "waiting_for_grace", f.victims[0] if f.victims else None
    if f.ahead is not None:
        return "behind_te" if f.te_first and f.ahead_is_te and not f.is_te else "head_of_line", f.ahead
    if f.fits:
        return "next_pass", None
    if f.reserved_by is not None:
        return "reserved_for_other", f.reserved_by
    if f.decision is not None and f.decision.get("reason"):
        return _FROM_DECISION.get(f.decision["reason"], "no_victims"), None
    return "no_room", None


def _reason(f: JobFacts, ids: list[str]) -> tuple[str, str | None, str]:
    """(code, blocker, text) for one pass's facts."""
    code, b = wait_key(f)
    blocker = None if b is None else ids[b]
    if code == "waiting_for_grace":
        if not f.victims:  # every victim released: it starts once its reserved room is whole
            return code, blocker, "its victims have released; it waits on the room reserved for it"
        who = ", ".join(ids[v] for v in f.victims)
        return code, blocker, f"its victims ({who}) are checkpointing in their grace period"
    if code == "behind_te":
        return code, blocker, f"backfill none: TE job {blocker} waits at the head of the queue, ahead of it"
    if code == "head_of_line":
        return code, blocker, f"head-of-line: job {blocker} is ahead and does not fit yet"
    if code == "next_pass":
        return code, blocker, "it rejoined the queue within the last pass and starts at the next"
    if code == "reserved_for_other":
        return code, blocker, f"the room it fits in is reserved for TE job {blocker}, waiting for its victims"
    where = (
        "no node has room for its request"
        if f.workers == 1
        else f"no set of nodes has room for its {f.workers} workers"
    )
    room = f"{where} (most GPUs free on one node: {fmt.setting(f.free_gpu)})"
    if f.decision is None or not f.decision.get("reason"):
        return code, None, f"{room}; it fits on the empty cluster"
    if code != "no_room":
        return code, None, f"{room}, and {f.decision['policy']} found no victims: {f.decision['reason']}"
    return code, None, f"{room}, and no running BE job to preempt"
