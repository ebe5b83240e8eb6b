"""The alternatives a reader of a decision thinks of, recorded on the very view the policy saw.

"Why this victim?" is answered by contrast: why the chosen set and not that one. The sets a reader
thinks of are every set the policy weighed (the other nodes' best sets and the other sets on the
same node) and what other policies would take on the same state. Asked for them (the engine's
``same_state``), a decision record gets:

- ``same_state``: per other policy, the record it would make on this view
  (:func:`simcore.policies.decision.record`; it changes nothing in the run);
- ``sets``: every set the policy weighed, best first (the chosen one first), then each other
  policy's choice it did not weigh, each valued by the policy's own key (:func:`sets`).

A set the policy did not weigh is still valued by its key where its per-node rule, given only that
set's jobs, takes them all (a policy's values do not depend on its caps); ``excluded`` names the
cap that keeps one of its jobs out, or :data:`FEWER_MAKE_ROOM` when the rule takes fewer of them.
A drawn key (``random``) ranks nodes, not sets: its other sets are not valued.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, TypeGuard

import numpy as np

from simcore.policies import decision
from simcore.policies.base import Explained, Policy, Preemption, PreemptionView
from simcore.policies.evaluator import PreemptivePolicy, weighed

#: ``excluded`` of a set whose jobs are more than the policy's rule takes: fewer of them make room
FEWER_MAKE_ROOM = "fewer of its jobs make room"
#: the policies a decision is set against on the same state when it is explained: the Kubernetes rule,
#: the naive longest-remaining-time rule and our reconstruction of the paper's approach
SAME_STATE = ("k8s", "lrtp", "fitgpp")


def same_state_for(policy: str, preemptive: Iterable[str] = ()) -> tuple[str, ...]:
    """The policies asked on `policy`'s states: :data:`SAME_STATE` then the `preemptive` ones given (a
    scenario's), each once, never `policy` itself."""
    return tuple(p for p in dict.fromkeys([*SAME_STATE, *preemptive]) if p != policy)


def asked(
    policy: Policy,
    others: Sequence[Policy],
    view: PreemptionView,
    explained: Explained,
    te_job: str,
    job_ids: Sequence[str],
    node_names: Sequence[str],
    running_be: int,
) -> dict[str, Any]:
    """The record's ``same_state`` and ``sets`` (module docstring). Every policy asked, and the
    search for every set, gets a copy of the run's generator: asking changes nothing in the run."""
    choices: dict[str, Preemption | None] = {}
    same: dict[str, dict[str, Any]] = {}
    for other in others:
        mine = _own_rng(view)
        theirs = other.explain(mine)
        choices[other.name] = theirs.preemption
        same[other.name] = decision.record(other, mine, theirs, te_job, job_ids, node_names, running_be)
    return {"same_state": same, "sets": sets(policy, _own_rng(view), explained, choices, job_ids, node_names)}


def _own_rng(view: PreemptionView) -> PreemptionView:
    return dataclasses.replace(view, rng=copy.deepcopy(view.rng))


def sets(
    policy: Policy,
    view: PreemptionView,
    explained: Explained,
    choices: Mapping[str, Preemption | None],
    job_ids: Sequence[str],
    node_names: Sequence[str],
) -> list[dict[str, Any]]:
    """Every set `policy` weighed, best first, then each of `choices` (other policies' picks on this
    view) it did not weigh: node, job ids (signal order), the key's values (None: not valued),
    ``weighed``, ``excluded`` (None, a cap's reason or :data:`FEWER_MAKE_ROOM`) and ``taken_by``
    (the policies that take it on this view, `policy` first when it is its choice)."""
    names = [name for name, _ in policy.key]
    jobs = view.candidates.job
    own = weighed(policy, view) if _ranked(policy) else explained.options  # a draw is not made again
    chosen = explained.preemption
    entries: dict[tuple[int, frozenset[int]], dict[str, Any]] = {}

    def entry(node: int, victims: Sequence[int], values: Sequence[Any] | None, **extra: Any) -> dict[str, Any]:
        return {
            "node": node_names[node],
            "job_id": [job_ids[jobs[p]] for p in victims],
            **dict(zip(names, values if values is not None else [None] * len(names), strict=True)),
            **extra,
            "taken_by": [],
        }

    for o in own:
        entries[_id(o.node, o.victims)] = entry(o.node, o.victims, o.values, weighed=True, excluded=None)
    picks = {policy.name: chosen} | dict(choices)
    for name, pick in picks.items():
        if pick is None:
            continue
        at = _id(pick.node, pick.victims)
        if at not in entries:
            values, excluded = _valued(policy, view, pick)
            entries[at] = entry(pick.node, pick.victims, values, weighed=False, excluded=excluded)
        entries[at]["taken_by"].append(name)
    return list(entries.values())


def _id(node: int, victims: Sequence[int]) -> tuple[int, frozenset[int]]:
    return node, frozenset(int(p) for p in victims)


def _valued(policy: Policy, view: PreemptionView, pick: Preemption) -> tuple[tuple | None, str | None]:
    """`policy`'s key values of a set it did not weigh (None when its rule does not take the whole set,
    or its key is drawn) and why it did not weigh it: the first cap that keeps one of its jobs out,
    :data:`FEWER_MAKE_ROOM`, or None."""
    if not _ranked(policy):
        return None, None
    victims = sorted(int(p) for p in pick.victims)  # positions ascend in job order, as the rule wants them
    capped = next((why for why, keeps in policy.caps(view) if not np.asarray(keeps)[victims].all()), None)
    taken = next((s for s in policy.on_node(view, pick.node, victims) if sorted(s.victims) == victims), None)
    if taken is None:
        return None, capped or FEWER_MAKE_ROOM
    return tuple(_plain(v) for v in taken.values), capped


def _ranked(policy: Policy) -> TypeGuard[PreemptivePolicy]:
    """Does the evaluator rank `policy`'s sets by a key (not a draw)?"""
    return isinstance(policy, PreemptivePolicy) and policy.key[0][1] != "drawn"


def _plain(value: Any) -> Any:
    """A numpy scalar as the Python number records hold (JSON-ready)."""
    return value.item() if isinstance(value, np.generic) else value
