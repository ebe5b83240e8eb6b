"""Predict, then reveal, for a run with queues (the lesson "quota, borrowing and reclaim"); pure.

Two questions, each answered from the run itself: which waiting job gets the GPUs that free up
first (the pass order of DESIGN-queues point 7: the lower share goes first, the quota condition of
point 6 keeps a queue at its borrow limit out), and whose GPUs the first reclaim takes (point 9).
After Check the explanation gives the deciding values: each queue's GPUs, quota, borrow limit,
weight and share at that instant, and the ledger's running GPUs before and after the reclaim.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import pandas as pd

from dashboard.learn.exercises import Question
from simcore.core import fmt
from simcore.core.queues import QueueSpec

NOBODY = "nobody (no reclaim)"


def questions(
    jobs: pd.DataFrame, events: pd.DataFrame, usage: pd.DataFrame, ledger: pd.DataFrame, spec: QueueSpec, label: str
) -> tuple[Question, ...]:
    """The queue questions about one run (``label`` names it; ``usage`` and ``ledger``: its
    :func:`~simcore.analysis.queue_metrics.usage_over_time` and :func:`~simcore.analysis.queue_metrics.ledger_frame`)."""
    found = [q for q in (_first_borrow(jobs, events, usage, spec, label),) if q is not None]
    found.append(_reclaim(ledger, spec, label))
    return tuple(found)


def _held(usage: pd.DataFrame, t: float) -> dict[str, float]:
    """GPUs each queue's jobs hold just before the instant ``t`` (running or in grace), from the run's
    :func:`simcore.analysis.queue_metrics.usage_over_time`."""
    before = usage[usage["time"] < t]
    return {str(q): float(rows["used"].iloc[-1]) for q, rows in before.groupby("queue", sort=False)}


def _state(spec: QueueSpec, held: Mapping[str, float]) -> str:
    """Each queue at an instant, in words: GPUs held, quota, borrow limit, weight and share."""
    parts = []
    for q in spec.queues:
        u = held.get(q.name, 0.0)
        share = max(0.0, u - q.gpu) / q.weight
        limit = "no limit" if math.isinf(q.borrow_limit) else fmt.number(q.borrow_limit)
        parts.append(
            f"**{q.name}** holds {fmt.number(u)} GPUs (quota {fmt.number(q.gpu)}, borrow limit {limit}, "
            f"weight {fmt.number(q.weight)}: share {fmt.number(share)})"
        )
    return "; ".join(parts)


def _first_borrow(
    jobs: pd.DataFrame, events: pd.DataFrame, usage: pd.DataFrame, spec: QueueSpec, label: str
) -> Question | None:
    """Which waiting job starts when GPUs first free up while at least two jobs wait."""
    starts = events[events["event"] == "start"]
    first_start = starts.groupby(starts["job_id"].astype(str))["time"].min()
    submit = jobs.set_index(jobs["job_id"].astype(str))["submit_time"]
    for t in sorted(set(events.loc[events["event"] == "finish", "time"])):
        waiting = [j for j in submit.index if submit[j] <= t and first_start.get(j, math.inf) >= t]
        started = tuple(j for j in waiting if first_start.get(j) == t)
        if len(waiting) < 2 or not started:
            continue
        held = _state(spec, _held(usage, t))
        return Question(
            key="first_borrow",
            prompt=f"Under **{label}**, GPUs free up at {fmt.clock(t)}. Which waiting job gets them?",
            kind="choice",
            options=tuple(waiting),
            accepted=started,
            answer=f"job {' and job '.join(started)}",
            explanation=(
                f"At {fmt.clock(t)}: {held}. No waiting job is within its quota, so they go by share, the "
                "lower first (GPUs above quota / weight), ties by the policy's order; a queue at quota + "
                "borrow limit waits whatever its share."
            ),
        )
    return None


def _reclaim(ledger: pd.DataFrame, spec: QueueSpec, label: str) -> Question:
    """Whose GPUs the first reclaim takes (or nobody's: the policy never preempts, or nobody borrows)."""
    reclaims = ledger[ledger["cause"] == "reclaim"]
    names = tuple(q.name for q in spec.queues)
    if reclaims.empty:
        return Question(
            key="reclaim",
            prompt=f"Under **{label}**, whose GPUs does the first reclaim take?",
            kind="choice",
            options=(*names, NOBODY),
            accepted=(NOBODY,),
            answer="nobody's: no reclaim in this run",
            explanation=(
                "A quota is a guarantee only under a preemptive policy (k8s, lrtp, random, fitgpp, fitdelay): "
                "fifo and priority never preempt, so a team that comes back waits for the borrowers to finish."
            ),
        )
    row: Mapping[str, Any] = {str(k): v for k, v in reclaims.iloc[0].items()}
    paid = tuple(dict.fromkeys(str(row["victim_queues"]).split(";")))
    return Question(
        key="reclaim",
        prompt=f"Under **{label}**, whose GPUs does the first reclaim take?",
        kind="choice",
        options=(*names, NOBODY),
        accepted=paid,
        answer=f"{' and '.join(paid)}'s",
        explanation=(
            f"At {fmt.clock(float(row['time']))} {row['queue']}'s {row['job_class']} job {row['job']} is within "
            f"its quota and does not fit: it may reclaim from queues running above theirs. Running GPUs before: "
            f"{_pairs(str(row['running_before']))}; after: {_pairs(str(row['running_after']))}. Its victims "
            f"(job {str(row['victims']).replace(';', ', job ')}) are the ones the policy's own rule picks among "
            "the borrowers' BE jobs; each is taken only while its queue still borrows."
        ),
    )


def _pairs(text: str) -> str:
    return ", ".join(f"{name} {value}" for name, _, value in (p.rpartition("=") for p in text.split(";")))
