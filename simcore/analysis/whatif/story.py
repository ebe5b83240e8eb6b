"""A job's story: every step of its life in words, from the run's own records.

The steps come from the events of the run (one step per instant and kind; a gang's workers are
one step naming every node), who preempted it from the run's nominations (the TE job whose
decision signalled it) and, when the run kept its decision records, why its set was chosen over the
runner-up and over the choices of the policies asked on the same state (:func:`simcore.analysis.contrast.in_brief`). With the job's waits
(:func:`simcore.analysis.whatif.reasons.blocking_reasons`) each waiting stretch says why.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from simcore.analysis import contrast, queue_metrics
from simcore.analysis.whatif.reasons import Wait, job_index
from simcore.core import fmt
from simcore.core.result import DRAIN, FAIL, FINISH, PREEMPT, RELEASE, START, SUBMIT, SimResult

#: the kinds of a step, in the order a life goes through them
STEP_KINDS = ("submitted", "waited", "started", "signalled", "preempted", "resumed", "finished", "drained", "failed")


@dataclass(frozen=True)
class StoryStep:
    """One sentence of a job's story, in time order."""

    time: float  # simulated seconds
    kind: str  # one of STEP_KINDS
    text: str  # plain words, human units
    nodes: tuple[str, ...]  # nodes involved (a gang: every node it holds), may be ()
    other: str | None  # the other job involved (the TE job that preempted it, the blocker), or None


def job_story(result: SimResult, job_id: str, waits: tuple[Wait, ...] = ()) -> tuple[StoryStep, ...]:
    """The story of `job_id` in `result`; with `waits`, each "waited" step says why."""
    j = job_index(result, job_id)
    names = result.cluster.names
    rows = np.flatnonzero(result.ev_job == j)
    groups: list[tuple[int, float, list[int]]] = []  # (event code, time, rows) per instant and kind
    for e in rows.tolist():
        code, t = int(result.ev_code[e]), float(result.ev_time[e])
        if groups and groups[-1][0] == code and groups[-1][1] == t:
            groups[-1][2].append(e)
        else:
            groups.append((code, t, [e]))
    steps: list[StoryStep] = []
    queued_at, started = math.nan, False
    for code, t, es in groups:
        nodes = tuple(names[int(result.ev_node[e])] for e in es) if code != SUBMIT else ()
        where = _nodes_text(nodes)
        if code == SUBMIT:
            steps.append(StoryStep(t, "submitted", _submitted_text(result, j, t), (), None))
            queued_at = t
        elif code == START:
            steps += _waited(queued_at, t, waits)
            if started:
                text = (
                    f"resumed on {where} at {fmt.clock(t)}, restoring for {fmt.duration(result.config.restore)} first"
                )
                steps.append(StoryStep(t, "resumed", text, nodes, None))
            else:
                text = f"started on {where} at {fmt.clock(t)}, after waiting {fmt.duration(t - queued_at)}"
                steps.append(StoryStep(t, "started", text, nodes, None))
            started = True
        elif code == PREEMPT:
            te, text = _signalled_text(result, j, es[0], t, where)
            steps.append(StoryStep(t, "signalled", text, nodes, te))
        elif code == DRAIN:  # DESIGN rule 12: a maintenance signal, released like a preemption's
            text = f"drained at {fmt.clock(t)}: {where} goes down for maintenance after the grace period"
            steps.append(StoryStep(t, "drained", text, nodes, None))
        elif code == FAIL:
            text = f"stopped at {fmt.clock(t)} by a node failure, without grace or save (it held {where})"
            steps.append(StoryStep(t, "failed", text, nodes, None))
            queued_at = t
        elif code == RELEASE:
            text = f"released {where} at {fmt.clock(t)} at the end of its grace period and went back to the queue"
            steps.append(StoryStep(t, "preempted", text, nodes, None))
            queued_at = t
        elif code == FINISH:
            jct = t - float(result.jobs.submit_time[j])
            text = (
                f"finished on {where} at {fmt.clock(t)}: completion time {fmt.duration(jct)}, slowdown "
                f"{fmt.number(float(result.slowdown[j]))}, {int(result.preemptions[j])} preemption(s), "
                f"{fmt.duration(float(result.lost_work[j]))} of work lost"
            )
            steps.append(StoryStep(t, "finished", text, nodes, None))
    if math.isnan(float(result.first_start[j])) or not started:  # never started: it waits to the end
        steps += _waited(queued_at, math.inf, waits)
    return tuple(steps)


def _nodes_text(nodes: tuple[str, ...]) -> str:
    if len(nodes) <= 1:
        return "".join(nodes)
    return f"{', '.join(nodes)} ({len(nodes)} workers)"


def _submitted_text(result: SimResult, j: int, t: float) -> str:
    jobs = result.jobs
    cpu, mem, gpu = (float(x) for x in jobs.request[j])
    workers = int(jobs.workers[j])  # type: ignore[index]
    each = " per worker" if workers > 1 else ""
    gang = f" as {workers} workers" if workers > 1 else ""
    cls = "TE" if jobs.is_te[j] else "BE"
    queue = ""
    if result.queues is not None and result.queue is not None:
        q = result.queues.queues[int(result.queue[j])]
        queue = f", in queue {q.name!r} (quota {fmt.setting(q.gpu)} GPUs, borrow limit {fmt.setting(q.borrow_limit)})"
    return (
        f"submitted at {fmt.clock(t)}: a {cls} job of {fmt.duration(float(jobs.duration[j]))}{gang}, asking for "
        f"{fmt.setting(gpu)} GPU{'' if gpu == 1 else 's'}, {fmt.setting(cpu)} CPU, {fmt.setting(mem)} GiB{each}{queue}"
    )


def _waited(since: float, until: float, waits: tuple[Wait, ...]) -> list[StoryStep]:
    """The "waited" steps of the stretch [since, until): one per wait (with its reason), else one."""
    if math.isnan(since) or until <= since:
        return []
    mine = [w for w in waits if since <= w.start < until]
    if not mine:
        how = "until the end of the run" if math.isinf(until) else fmt.duration(until - since)
        return [StoryStep(since, "waited", f"waited {how} in the queue", (), None)]
    out = []
    for w in mine:
        how = "until the end of the run" if math.isinf(w.end) else fmt.duration(w.end - w.start)
        out.append(StoryStep(w.start, "waited", f"waited {how}: {w.text}", (), w.blocker))
    return out


def _preemptor(result: SimResult, j: int, t: float, te: str | None) -> str:
    """Who made the job a victim, in words; with queues, whether it was a reclaim, naming the queues,
    their quotas and their usage then (the ledger's, DESIGN-queues point 12)."""
    if result.queues is None:
        return f"TE job {te}"
    victim = str(result.jobs.job_id[j])
    rec = next(r for r in queue_metrics.ledger_records(result) if r["time"] == t and victim in r["victims"])
    spec = {q.name: q for q in result.queues.queues}
    mine = rec["victim_queues"][rec["victims"].index(victim)]
    who = f"{rec['job_class']} job {te} of queue {rec['queue']!r}"
    if mine == rec["queue"]:
        return f"{who}, its own queue (TE first)"
    return (
        f"{who} (a reclaim: {rec['queue']!r} was within its quota of {fmt.setting(spec[rec['queue']].gpu)} GPUs "
        f"while {mine!r} ran {fmt.setting(rec['running_before'][mine])} GPUs against its quota of "
        f"{fmt.setting(spec[mine].gpu)})"
    )


def _signalled_text(result: SimResult, j: int, row: int, t: float, where: str) -> tuple[str | None, str]:
    """Who signalled the job (the TE job of the nomination it belongs to) and why, in words."""
    ids = result.jobs.job_id
    noms = result.nominations
    te = None
    if len(noms):
        i = int(np.searchsorted(noms[:, 0], row, side="right")) - 1
        te = str(ids[int(noms[i, 1])]) if i >= 0 else None
    grace = result.config.grace
    keep = (
        f"it keeps its resources for the {fmt.duration(grace)} grace period"
        if grace > 0
        else "grace 0: released at once"
    )
    text = f"signalled on {where} at {fmt.clock(t)} to make room for {_preemptor(result, j, t, te)}; {keep}"
    record = next(
        (d for d in result.decisions if d["time"] == t and d["te_job"] == te and str(ids[j]) in d["victims"]), None
    )
    if record is not None:
        text += f" ({contrast.in_brief(record)})"
    return te, text
