"""Decision records: why a TE job that fits nowhere got these victims, or none.

Every time the engine asks the policy for victims it can record one decision (off by default).
The evaluator explains every preemptive policy alike (:class:`~simcore.policies.base.Explained`:
its choice and each node it weighed, best first, with the named values of its ordering key); this module
turns that into the record of DESIGN.md section 6, and tells the reason when there are no
victims. The engine's preemption budget (``preempt_budget``) comes first: while it is spent the
policy is not asked. Then reasons are checked in this order, each about the jobs left by the one before:
running BE jobs at all, ``min_runtime``, then the policy's caps (fitgpp: ``P``, then ``s``; fitdelay may wait first),
then whether removing every job left on some node makes room. A record whose victims hold
more nodes than the one searched (a gang victim) lists them all under ``nodes``. When a gang is
among the candidates, each candidate set also carries what stopping it costs (:data:`GANG_COSTS`),
so a reader can weigh the gang against the alternatives; records without gangs are unchanged.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from simcore.policies.base import Explained, NodeOption, Policy, PreemptionView
from simcore.policies.evaluator import effective_caps
from simcore.policies.glossary import TIE_BREAK

NO_RUNNING_BE = "no running BE job"
#: every candidate is on a node a victim search skips: down, draining, or draining by then (DESIGN rule 12)
ON_CLOSED_NODES = "all on nodes down or draining"
WITHIN_MIN_RUNTIME = "all within min_runtime"
CAPPED_BY_P = "all capped by P"
LARGER_THAN_S = "all larger than s"
FREES_WITHIN_GRACE = "a BE job frees the room within grace"  # fitdelay with periodic or no checkpoints: it waits
NO_NODE_FEASIBLE = "no node feasible"
BUDGET_SPENT = "preemption budget spent"  # preempt_budget: the policy is not asked
#: a TE gang's worker found neither room nor victims once earlier workers had chosen theirs (DESIGN-gangs point 9)
GANG_UNSATISFIED = "a later worker of the gang gets neither room nor victims"
#: a run with queues: the search's candidates (DESIGN-queues point 9) hold no running BE job at all
NO_RECLAIM_CANDIDATE = "no running BE job of a queue over quota"
NO_OWN_CANDIDATE = "no running BE job of its own queue"
NO_QUEUE_CANDIDATE = "no running BE job of its own queue or of a queue over quota"
REASONS = (
    BUDGET_SPENT,
    NO_RUNNING_BE,
    NO_RECLAIM_CANDIDATE,
    NO_OWN_CANDIDATE,
    NO_QUEUE_CANDIDATE,
    WITHIN_MIN_RUNTIME,
    ON_CLOSED_NODES,
    CAPPED_BY_P,
    FREES_WITHIN_GRACE,
    LARGER_THAN_S,
    NO_NODE_FEASIBLE,
    GANG_UNSATISFIED,
)


#: per candidate set, on a state with a gang candidate: the workers it stops, every node its jobs hold
#: and, per job in ``job_id`` order, the work (seconds of run time, per worker) a signal now would lose
GANG_COSTS = ("workers", "holds", "lost_now")


def reason(policy: Policy, view: PreemptionView, running_be: int) -> str:
    """Why a policy found no victims; `running_be` counts running BE jobs before ``min_runtime``."""
    if running_be == 0:
        return NO_RUNNING_BE
    if len(view.candidates) == 0:
        return WITHIN_MIN_RUNTIME
    left = np.ones(len(view.candidates), dtype=bool)
    for why, keeps in effective_caps(policy, view):
        left &= keeps
        if not left.any():
            return why
    return NO_NODE_FEASIBLE


def deciding(key: Sequence[tuple[str, str]], options: Sequence[NodeOption]) -> str | None:
    """The name of the first key value in which the chosen set (the first option) beats the runner-up;
    :data:`~simcore.policies.glossary.TIE_BREAK` when they tie on every one; None with fewer than two options."""
    if len(options) < 2:
        return None
    best, other = options[0].values, options[1].values
    return next((name for (name, _), a, b in zip(key, best, other, strict=True) if a != b), TIE_BREAK)


def record(
    policy: Policy,
    view: PreemptionView,
    explained: Explained,
    te_job: str,
    job_ids: Sequence[str],
    node_names: Sequence[str],
    running_be: int,
    why: str | None = None,
) -> dict[str, Any]:
    """One decision as a JSON-ready dict. `job_ids` and `node_names` map engine indices to names; `why`,
    when given, is the reason (the engine's: the preemption budget is spent)."""
    jobs = view.candidates.job
    names = [name for name, _ in policy.key]
    pre = explained.preemption
    victims = [] if pre is None else [job_ids[jobs[p]] for p in pre.victims]
    candidates = [
        {
            "node": node_names[o.node],
            "job_id": [job_ids[jobs[p]] for p in o.victims],
            **dict(zip(names, o.values, strict=True)),
            "chosen": i == 0 and pre is not None,
        }
        for i, o in enumerate(explained.options)
    ]
    if (view.candidates.workers > 1).any():
        for cand, o in zip(candidates, explained.options, strict=True):
            cand.update(_costs(view, o.victims, node_names))
    out = {
        "time": view.now,
        "te_job": te_job,
        "policy": policy.name,
        "node": None if pre is None else node_names[pre.node],
        "victims": victims,
        "key": [list(k) for k in policy.key],
        "candidates": candidates,
        "deciding": deciding(policy.key, explained.options) if pre is not None else None,
        "reason": None if victims else why or reason(policy, view, running_be),
    }
    if pre is not None:
        held = held_nodes(view, pre.victims)
        if held != [pre.node]:  # a gang victim frees more than the node searched
            out["nodes"] = [node_names[k] for k in held]
    return out


def _costs(view: PreemptionView, victims: Sequence[int], node_names: Sequence[str]) -> dict[str, Any]:
    """The :data:`GANG_COSTS` of the candidate entries `victims` (one entry per job)."""
    c = view.candidates
    return {
        "workers": c.size(victims),
        "holds": [node_names[k] for k in held_nodes(view, victims)],
        "lost_now": [float(c.lost_now[p]) for p in victims],
    }


def held_nodes(view: PreemptionView, victims: Sequence[int]) -> list[int]:
    """Every node (ascending) the jobs of candidate entries `victims` hold."""
    c = view.candidates
    jobs = set(c.job[list(victims)].tolist())  # a few dozen entries: sets beat np.isin's ~30 us tenfold
    return sorted({k for j, k in zip(c.job.tolist(), c.node.tolist(), strict=True) if j in jobs})
