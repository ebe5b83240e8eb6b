"""fitgpp's per-node search on gangs against a brute force written from its docstring: on every node,
every feasible 1- and 2-job set (the greedy set where there is none) ranked by the full key (fewest
workers, tightest fit, least lost work, fewest past preemptions, latest earliest start, job order,
node). The search skips the values of sets with more victims than the node's fewest; the choice must
be the brute force's on random views."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from itertools import combinations
from typing import ClassVar

import numpy as np
import pytest

from simcore.core import units
from simcore.core.model import SimConfig
from simcore.policies.base import Candidates, PreemptionView, sum_of
from simcore.policies.fitdelay import FitDelay
from simcore.policies.fitgpp import FitGpp, FitSearch


def gang_view(rng: np.random.Generator, nodes: int = 3) -> PreemptionView:
    """Full nodes of 8 units (cpu = mem = gpu) holding random single-worker jobs and 2-worker gangs."""
    cap = np.full((nodes, 3), 8, dtype=np.int64)
    node, req, workers = [], [], []
    for k in range(nodes):
        left = 8
        while left > 0:
            w = int(rng.integers(1, 3))
            size = min(left, int(rng.integers(1, 5)))
            node.append(k)
            req.append(size)
            workers.append(w)
            left -= size
    m = len(node)
    c = Candidates(
        job=np.arange(m, dtype=np.int64),
        node=np.array(node, dtype=np.int64),
        req=np.repeat(np.array(req, dtype=np.int64)[:, None], 3, axis=1),
        seg_start=rng.integers(0, 5, m).astype(float),
        remaining=np.full(m, 100.0),
        lost_now=rng.integers(0, 4, m).astype(float),
        expected_loss=np.zeros(m),
        preemptions=rng.integers(0, 2, m).astype(np.int64),
        rank=np.arange(m, dtype=np.int64),
        last_checkpoint=np.full(m, math.nan),
        restore_next=np.zeros(m),
        workers=np.array(workers, dtype=np.int64),
        unit_req=np.repeat(np.array(req, dtype=np.int64)[:, None], 3, axis=1),
    )
    te = np.full(3, int(rng.integers(1, 9)), dtype=np.int64)
    inv = np.full((nodes, 3), 1 / 8)
    return PreemptionView(0.0, te, cap, inv, np.zeros((nodes, 3), dtype=np.int64), c, SimConfig(), rng)


def brute_force(policy: FitGpp, view: PreemptionView) -> tuple[int, tuple[int, ...]]:
    """The best (node, victims in job order) over every feasible 1- and 2-job set of every node, or
    the node's greedy set (the policy's own) where it has none (every node frees room for the TE job)."""
    c = view.candidates
    best = None
    for k in range(len(view.cap)):
        here = [p for p in range(len(c)) if c.node[p] == k]

        def room(s: tuple[int, ...], k: int = k) -> int:
            return int(view.avail[k][0]) + sum(int(c.req[p][0]) for p in s) - int(view.te_req[0])

        sets = [s for s in [*combinations(here, 1), *combinations(here, 2)] if room(s) >= 0]
        for s in sets or [policy._greedy(view, k, here)]:
            slack = units.norm_round(units.l1(np.full(3, room(s)), view.inv_cap[k]))
            key = (
                sum(int(c.workers[p]) for p in s),
                float(slack),
                sum(float(c.lost_now[p] * c.workers[p]) for p in s),
                sum(int(c.preemptions[p]) for p in s),
                -min(float(c.seg_start[p]) for p in s),
                tuple(sorted(s)),
                k,
            )
            if best is None or key < best[0]:
                best = (key, k, tuple(sorted(s)))
    assert best is not None
    return best[1], best[2]


@pytest.mark.parametrize("seed", range(150))
def test_gang_search_matches_the_brute_force(seed: int) -> None:
    view = gang_view(np.random.default_rng(seed))
    policy = FitGpp(P=100, s=math.inf)
    chosen = policy.victims(view)
    assert chosen is not None
    assert (chosen.node, chosen.victims) == brute_force(policy, view)


def uneven_sets(
    policy: FitSearch, seed: int, config: SimConfig | None = None
) -> list[tuple[PreemptionView, int, list[int], float, tuple]]:
    """Every set `policy` values on a random gang view with uneven capacities, lost work and restores (so that
    no sum is trivially exact): (view, node, victims in the order the rule built the set, slack, values)."""
    rng = np.random.default_rng(seed)
    view = gang_view(rng)
    m = len(view.candidates)
    c = replace(
        view.candidates,
        lost_now=rng.random(m) * 10.0 ** rng.integers(-3, 5),
        expected_loss=rng.random(m) * 10.0 ** rng.integers(-3, 5),
        restore_next=rng.random(m) * 100.0,
    )
    view = replace(
        view, candidates=c, inv_cap=1 / rng.integers(8, 10**6, size=view.cap.shape), config=config or view.config
    )
    sets = [(k, s) for k in range(len(view.cap)) for s in policy.on_node(view, k, c.on_node(k).tolist())]
    assert len(sets) >= len(view.cap)
    out = []
    for k, s in sets:
        idx = list(s.victims)  # the greedy set's: the order taken
        room = view.avail[k] + c.req[idx].sum(axis=0) - view.te_req
        out.append((view, k, idx, float(units.norm_round(units.l1(room, view.inv_cap[k]))), s.values))
    return out


def same_values(got: tuple, want: tuple) -> bool:
    return got == want and [type(v) for v in got] == [type(v) for v in want]


@pytest.mark.parametrize("seed", range(60))
def test_set_values_are_numpys_bit_for_bit(seed: int) -> None:
    """fitgpp's per-node sets' values (what decision records show), computed on Python lists, are those of
    the numpy formulas they replaced."""
    for view, _, idx, slack, values in uneven_sets(FitGpp(), seed):
        c = view.candidates
        want = (
            int(c.workers[idx].sum()),
            slack / units.NORM_SCALE,
            float(c.lost_scaled()[idx].sum()),
            int(c.preemptions[idx].sum()),
            float(c.seg_start[idx].min()),
        )
        assert same_values(values, want)


@pytest.mark.parametrize("checkpoint", ["periodic", "none"])
@pytest.mark.parametrize("seed", range(30))
def test_fitdelay_set_values_are_numpys_bit_for_bit(seed: int, checkpoint: str) -> None:
    """The same for fitdelay's values, its delay priced (periodic) and not (none)."""
    policy = FitDelay()
    for view, _, idx, slack, values in uneven_sets(policy, seed, SimConfig(checkpoint=checkpoint)):
        c = view.candidates
        n = int(c.workers[idx].sum())
        per_victim = float(((c.expected_loss + c.restore_next) * c.workers)[idx].sum())
        want = (
            n,
            float(policy._delay(view, per_victim, slack, n)),
            slack / units.NORM_SCALE,
            int(c.preemptions[idx].sum()),
            float(c.seg_start[idx].min()),
        )
        assert same_values(values, want)


@pytest.mark.parametrize(
    "values", [[0.1], [0.1, 0.2], [0.1, 0.2, 0.3], [1e16, 1.0, -1e16, 3.0], [0.1] * 9, [-0.0], [-0.0, -0.0]]
)
def test_sum_of_is_numpys_sum(values: list[float]) -> None:
    got, want = sum_of(values), float(np.sum(values))
    assert got == want and math.copysign(1, got) == math.copysign(1, want) and type(got) is float


def test_a_fit_search_must_rank_by_fewest_victims_first() -> None:
    @dataclass(frozen=True)
    class SlackFirst(FitSearch):
        name: ClassVar[str] = "slack_first"
        help: ClassVar[str] = "a search whose key does not start with fewest victims"
        key: ClassVar[tuple[tuple[str, str], ...]] = (("slack", "min"), ("victims", "min"))

    with pytest.raises(TypeError, match="fewest victims first"):
        SlackFirst()
