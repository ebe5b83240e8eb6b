"""The victim search's fast paths against straightforward references, on random views.

k8s and lrtp take a node's lone candidate without running their loops (the evaluator asks only when
the TE job fits on no node as things are); the evaluator orders sets by their values times the key's
signs. Each is checked here against the rules and the ordering written out plainly, choice and
explanation alike, on random views (single-worker and gang candidates, ties on the values).
"""

from __future__ import annotations

import numpy as np
import pytest

from simcore.core.model import SimConfig
from simcore.policies.base import Candidates, NodeOption, PreemptionView
from simcore.policies.evaluator import PreemptivePolicy, _feasible_nodes, _signal_order
from simcore.policies.k8s import K8S
from simcore.policies.lrtp import LRTP


def random_view(rng: np.random.Generator, gangs: bool) -> PreemptionView:
    """A few nodes, none of which fits the TE job as it is (the evaluator's contract), and up to 20
    candidates with tied starts and remaining work; with `gangs`, some hold several workers."""
    nodes, m = int(rng.integers(1, 7)), int(rng.integers(1, 21))
    cap = rng.integers(4, 12, size=(nodes, 3), dtype=np.int64)
    te = rng.integers(1, 6, size=3, dtype=np.int64)
    avail = rng.integers(0, 6, size=(nodes, 3), dtype=np.int64)
    short = rng.integers(0, 3, size=nodes)  # per node, a dimension where the TE job does not fit
    avail[np.arange(nodes), short] = np.minimum(avail[np.arange(nodes), short], te[short] - 1)
    ints, floats = np.zeros(m, dtype=np.int64), np.zeros(m)  # what neither rule reads
    c = Candidates(
        job=np.arange(m, dtype=np.int64),
        node=rng.integers(0, nodes, size=m).astype(np.int64),
        req=rng.integers(0, 4, size=(m, 3), dtype=np.int64),
        seg_start=rng.integers(0, 4, size=m).astype(float),  # few values: ties
        remaining=rng.integers(1, 4, size=m).astype(float),
        lost_now=floats,
        expected_loss=floats,
        preemptions=ints,
        rank=np.arange(m, dtype=np.int64),
        last_checkpoint=floats,
        restore_next=floats,
        workers=rng.integers(1, 4, size=m).astype(np.int64) if gangs else None,
    )
    return PreemptionView(0.0, te, cap, 1.0 / cap, avail, c, SimConfig(), rng)


def k8s_reference(view: PreemptionView, here: list[int]) -> tuple[list[int], tuple]:
    """k8s on a node, as its docstring says: take all, give back the longest-running first while the TE job fits."""
    c = view.candidates
    total = view.avail[c.node[here[0]]] + c.req[here].sum(axis=0)
    keep = []
    for p in sorted(here, key=lambda p: (c.seg_start[p], c.rank[p])):
        if (total - c.req[p] >= view.te_req).all():
            total = total - c.req[p]
        else:
            keep.append(p)
    return keep, (int(c.workers[keep].sum()), float(c.seg_start[keep].min()))


def lrtp_reference(view: PreemptionView, here: list[int]) -> tuple[list[int], tuple]:
    """lrtp on a node, as its docstring says: add by longest remaining work until the TE job fits, reprieve in reverse."""
    c = view.candidates
    total = view.avail[c.node[here[0]]].copy()
    added: list[int] = []
    for p in sorted(here, key=lambda p: (-c.remaining[p], c.rank[p])):
        if (total >= view.te_req).all():
            break
        added.append(p)
        total = total + c.req[p]
    for p in list(reversed(added)):
        if (total - c.req[p] >= view.te_req).all():
            total = total - c.req[p]
            added.remove(p)
    return added, (int(c.workers[added].sum()), float(c.remaining[added].min()))


def reference_options(policy: PreemptivePolicy, view: PreemptionView, rule) -> list[NodeOption]:
    """Every feasible node's set, best first by the key ("max" entries negated), then the node."""
    sign = {"min": 1, "max": -1}
    ranked = []
    for k, here in _feasible_nodes(view, np.arange(len(view.candidates))):
        victims, values = rule(view, here)
        directed = tuple(-v if sign[better] < 0 else v for v, (_, better) in zip(values, policy.key, strict=True))
        ranked.append(((*directed, k), NodeOption(k, _signal_order(view, victims), values)))
    return [option for _, option in sorted(ranked, key=lambda r: r[0])]


@pytest.mark.parametrize("gangs", [False, True])
@pytest.mark.parametrize("seed", range(60))
@pytest.mark.parametrize(("policy", "rule"), [(K8S, k8s_reference), (LRTP, lrtp_reference)])
def test_per_node_rules_match_the_reference(policy, rule, seed: int, gangs: bool) -> None:
    view = random_view(np.random.default_rng(seed), gangs)
    want = reference_options(policy, view, rule)
    got = policy.explain(view)
    assert list(got.options) == want
    chosen = policy.victims(view)
    assert chosen == got.preemption
    assert (chosen is None) == (not want)
    if chosen is not None:
        assert (chosen.node, chosen.victims) == (want[0].node, want[0].victims)


def test_lone_candidates_are_common_in_the_views_checked() -> None:
    """The references above see the lone-candidate path and the loops alike."""
    views = [random_view(np.random.default_rng(seed), gangs) for seed in range(60) for gangs in (False, True)]
    sizes = [len(here) for v in views for _, here in _feasible_nodes(v, np.arange(len(v.candidates)))]
    assert sizes.count(1) >= 20 and sum(n > 1 for n in sizes) >= 20


def test_candidates_without_workers_are_single() -> None:
    """workers=None (a run without gangs) means every entry is one worker: all 1, and single() knows it."""
    rng = np.random.default_rng(0)
    alone = random_view(rng, gangs=False).candidates
    assert alone.single() and alone.workers.dtype == np.int64 and alone.workers.tolist() == [1] * len(alone)
    gang = random_view(np.random.default_rng(3), gangs=True).candidates
    assert gang.single() == bool((gang.workers == 1).all())
    assert alone.take(np.arange(len(alone))).single()
