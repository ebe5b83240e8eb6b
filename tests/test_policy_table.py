"""Each policy on hand-built views, without the engine: given the candidates, the free room and the
TE request, the node and victims it takes (or the reason it takes none), derived by hand.

Views are built in integer units with cpu = mem = gpu on every node and job, so every dimension
has the same share: a "size" is the request in each dimension, and a normalised slack is 3 x
(room left / capacity). Candidates are listed in job order (their rank is their position).
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from simcore.core.knobs import KNOBS, own_knobs
from simcore.core.model import SimConfig
from simcore.policies import POLICIES, get_policy
from simcore.policies.base import Candidates, PreemptionView
from simcore.policies.decision import (
    CAPPED_BY_P,
    FREES_WITHIN_GRACE,
    LARGER_THAN_S,
    NO_NODE_FEASIBLE,
    WITHIN_MIN_RUNTIME,
    reason,
)
from simcore.policies.fitdelay import FitDelay
from simcore.policies.fitgpp import FitGpp
from simcore.policies.spec import parse_policy

NAMES = "abcdefgh"


def view(
    nodes: list[int],
    te: int,
    cands: list[tuple],
    avail: list[int] | None = None,
    now: float = 100.0,
    config: SimConfig | None = None,
) -> PreemptionView:
    """`nodes`: capacity per node; `avail`: free room per node (default 0: full); `cands`: per running BE job
    in job order, (node, size, segment start, remaining work, work lost now, past preemptions)."""
    config = config or SimConfig()
    cap = np.repeat(np.array(nodes, dtype=np.int64)[:, None], 3, axis=1)
    free = np.repeat(np.array(avail or [0] * len(nodes), dtype=np.int64)[:, None], 3, axis=1)
    col = list(zip(*cands, strict=True)) if cands else [()] * 6
    m = len(cands)
    c = Candidates(
        job=np.arange(m, dtype=np.int64),
        node=np.array(col[0], dtype=np.int64),
        req=np.repeat(np.array(col[1], dtype=np.int64).reshape(m, 1), 3, axis=1),
        seg_start=np.array(col[2], dtype=float),
        remaining=np.array(col[3], dtype=float),
        lost_now=np.array(col[4], dtype=float),
        expected_loss=np.array(col[4], dtype=float),  # no save can fail: what is lost now, surely
        preemptions=np.array(col[5], dtype=np.int64),
        rank=np.arange(m, dtype=np.int64),
        last_checkpoint=np.full(m, math.nan),
        restore_next=np.full(m, config.restore),
    )
    inv = np.where(cap > 0, 1.0 / np.where(cap > 0, cap, 1), 0.0)
    te_req = np.full(3, te, dtype=np.int64)
    return PreemptionView(now, te_req, cap, inv, free, c, config, np.random.default_rng(config.seed))


# Two nodes of 4, both full: a (3) and b (1) on n0 since 0; c (2) on n1 since 0, d (2) on n1 since 2.
# Remaining work a 90, b 40, c 70, d 22; work lost now a 10, b 10, c 10, d 8.
TWO_NODES = ([4, 4], [(0, 3, 0, 90, 10, 0), (0, 1, 0, 40, 10, 0), (1, 2, 0, 70, 10, 0), (1, 2, 2, 22, 8, 0)])
# as TWO_NODES, but d has been preempted twice already
D_TWICE = (TWO_NODES[0], [*TWO_NODES[1][:3], (1, 2, 2, 22, 8, 2)])
# as TWO_NODES and D_TWICE, with 100 s more remaining work each: no job finishes within a grace period of 30 s
LONG = (TWO_NODES[0], [(k, size, start, left + 100, lost, past) for k, size, start, left, lost, past in TWO_NODES[1]])
LONG_D_TWICE = (LONG[0], [*LONG[1][:3], (1, 2, 2, 122, 8, 2)])
# One node of 8, full: a (1, lost 5), b (1, lost 3), c (2, lost 1), d (4, lost 1); no pair frees 7
ONE_NODE = ([8], [(0, 1, 0, 50, 5, 0), (0, 1, 0, 50, 3, 0), (0, 2, 0, 50, 1, 0), (0, 4, 0, 50, 1, 0)])

# fmt: off
CASES = [
    # k8s. n0: reprieve a (start 0, rank 0) first: 4 - 3 = 1 < 2, a stays; then b: 4 - 1 = 3 >= 2, b goes back.
    # n1: reprieve c (start 0): 4 - 2 = 2 fits; then d: 2 - 2 = 0, d stays. One victim each; the latest
    # earliest-victim-start (d's 2 > a's 0) picks n1.
    ("k8s", TWO_NODES, 2, {}, "n1", "d", [("n1", "d", (1, 2.0)), ("n0", "a", (1, 0.0))]),
    # 4 needed: both are victims; reprieve looks at b (start 1) before a (start 5), the signal order is job order
    ("k8s", ([4], [(0, 2, 5, 10, 0, 0), (0, 2, 1, 10, 0, 0)]), 4, {}, "n0", "ab", [("n0", "ab", (2, 1.0))]),
    # two identical nodes: every value ties, the lowest node index wins
    ("k8s", ([2, 2], [(0, 2, 0, 10, 0, 0), (1, 2, 0, 10, 0, 0)]), 2, {}, "n0", "a", [("n0", "a", (1, 0.0)), ("n1", "b", (1, 0.0))]),
    # lrtp. n0: a (90) frees 3 >= 2; n1: c (70) frees 2. Largest minimum remaining: a.
    ("lrtp", TWO_NODES, 2, {}, "n0", "a", [("n0", "a", (1, 90.0)), ("n1", "c", (1, 70.0))]),
    # lrtp reprieves: a (1, remaining 100) then b (3, 50) are added to free 3; giving a back still leaves 3
    ("lrtp", ([4], [(0, 1, 0, 100, 0, 0), (0, 3, 0, 50, 0, 0)]), 3, {}, "n0", "b", [("n0", "b", (1, 50.0))]),
    # lrtp ties on remaining work go by job order: a and c (50 each) before b (10); a, the first, frees 2
    ("lrtp", ([6], [(0, 2, 0, 50, 0, 0), (0, 2, 0, 10, 0, 0), (0, 2, 0, 50, 0, 0)]), 2, {}, "n0", "a",
     [("n0", "a", (1, 50.0))]),
    # fitgpp. 1-victim sets: a on n0 (room 3 - 2: slack 3 x 1/4 = 0.75), c and d on n1 (slack 0); b (1) is too
    # small. c and d tie on slack; lost work 8 < 10 picks d. Each node shows its best.
    ("fitgpp", TWO_NODES, 2, {}, "n1", "d",
     [("n1", "d", (1, 0.0, 8.0, 0, 2.0)), ("n0", "a", (1, 0.75, 10.0, 0, 0.0))]),
    # P = 2 leaves d (preempted twice) out: c is n1's best
    ("fitgpp", D_TWICE, 2, {"P": 2}, "n1", "c",
     [("n1", "c", (1, 0.0, 10.0, 0, 0.0)), ("n0", "a", (1, 0.75, 10.0, 0, 0.0))]),
    # 4 needed: no 1-victim set; 2-victim sets {a, b} (lost 20) and {c, d} (lost 18), slack 0 both
    ("fitgpp", TWO_NODES, 4, {}, "n1", "cd",
     [("n1", "cd", (2, 0.0, 18.0, 0, 0.0)), ("n0", "ab", (2, 0.0, 20.0, 0, 0.0))]),
    # 7 needed, no pair frees it (at most 2 + 4): greedy takes d (covers 4 of 7), c (2 of 3), then a or b
    # (1 of 1 each): b loses less (3 < 5). Nothing can be given back; 7 freed for 7: slack 0; lost 3 + 1 + 1.
    ("fitgpp", ONE_NODE, 7, {}, "n0", "bcd", [("n0", "bcd", (3, 0.0, 5.0, 0, 0.0))]),
    # 6 needed: the only pair is {c, d} (2 + 4)
    ("fitgpp", ONE_NODE, 6, {}, "n0", "cd", [("n0", "cd", (2, 0.0, 2.0, 0, 0.0))]),
    # 4 needed on one node of 4: pairs {a, b} lose 5 + 1, {a, c} 5 + 3, {b, c} 1 + 3: the node's best is {b, c}
    ("fitgpp", ([4], [(0, 2, 0, 10, 5, 0), (0, 2, 0, 10, 1, 0), (0, 2, 0, 10, 3, 0)]), 4, {}, "n0", "bc",
     [("n0", "bc", (2, 0.0, 4.0, 0, 0.0))]),
    # s = 1: the TE job's share is 2/4; a's 3/4 > 1 x 1/2 leaves n0 out
    ("fitgpp", TWO_NODES, 2, {"s": 1.0}, "n1", "d", [("n1", "d", (1, 0.0, 8.0, 0, 2.0))]),
    # fitdelay, checkpoint periodic (LONG: nobody finishes within the grace period):
    # delay = lost + restore 60 + grace 30 + reentry 1800 x slack: d 98, c 100, a 1450
    ("fitdelay", LONG, 2, {"checkpoint": "periodic"}, "n1", "d",
     [("n1", "d", (1, 98.0, 0.0, 0, 2.0)), ("n0", "a", (1, 1450.0, 0.75, 0, 0.0))]),
    # periodic: no P cap, d is still the least delay; reentry = 0 makes a's slack free (10 + 90 = 100 > 98)
    ("fitdelay", LONG_D_TWICE, 2, {"checkpoint": "periodic", "P": 2, "reentry": 0.0}, "n1", "d",
     [("n1", "d", (1, 98.0, 0.0, 2, 2.0)), ("n0", "a", (1, 100.0, 0.75, 0, 0.0))]),
    # checkpoint none: the room is not priced, a costs 10 + 60 + 30 = 100 (not 1450); d's 98 still wins
    ("fitdelay", LONG, 2, {"checkpoint": "none"}, "n1", "d",
     [("n1", "d", (1, 98.0, 0.0, 0, 2.0)), ("n0", "a", (1, 100.0, 0.75, 0, 0.0))]),
    # on_preempt: fitdelay is fitgpp, P cap included: d (preempted twice) is out, c (100) is n1's best
    ("fitdelay", D_TWICE, 2, {"P": 2}, "n1", "c",
     [("n1", "c", (1, 100.0, 0.0, 0, 0.0)), ("n0", "a", (1, 1450.0, 0.75, 0, 0.0))]),
]
# fmt: on


def names(view: PreemptionView, victims) -> str:
    return "".join(NAMES[int(view.candidates.job[p])] for p in victims)


@pytest.mark.parametrize(("policy", "scenario", "te", "knobs", "node", "victims", "options"), CASES)
def test_policy_on_a_hand_built_view(policy, scenario, te, knobs, node, victims, options):
    config = SimConfig(**knobs)
    v = view(scenario[0], te, scenario[1], config=config)
    p = get_policy(policy, config)
    pre = p.victims(v)
    assert pre is not None and (f"n{pre.node}", names(v, pre.victims)) == (node, victims)
    explained = p.explain(v)
    assert explained.preemption == pre
    assert [(f"n{o.node}", names(v, o.victims), o.values) for o in explained.options] == options
    # the values are as records show them: counts are ints
    assert all(type(o.values[0]) is int for o in explained.options)


NO_VICTIMS = [
    # n0 is full and its only BE job holds 2 (a TE job holds the rest): no node can free 4
    ("k8s", ([4], [(0, 2, 0, 10, 0, 0)]), 4, {}, 1, NO_NODE_FEASIBLE),
    ("lrtp", ([4], [(0, 2, 0, 10, 0, 0)]), 4, {}, 1, NO_NODE_FEASIBLE),
    ("random", ([4], [(0, 2, 0, 10, 0, 0)]), 4, {}, 1, NO_NODE_FEASIBLE),
    ("fitgpp", ([4], [(0, 2, 0, 10, 0, 0)]), 4, {}, 1, NO_NODE_FEASIBLE),
    ("fitdelay", ([4], [(0, 2, 0, 10, 0, 0)]), 4, {}, 1, NO_NODE_FEASIBLE),
    # running BE jobs exist but none has run min_runtime: the engine passes no candidate
    ("k8s", ([4], []), 2, {}, 2, WITHIN_MIN_RUNTIME),
    ("fitgpp", ([4], []), 2, {}, 2, WITHIN_MIN_RUNTIME),
    # P = 1: both were preempted once
    ("fitgpp", ([4], [(0, 2, 0, 10, 0, 1), (0, 2, 0, 10, 0, 1)]), 2, {"P": 1}, 2, CAPPED_BY_P),
    # P is told before s when both leave none
    ("fitgpp", ([4], [(0, 4, 0, 10, 0, 1)]), 2, {"P": 1, "s": 1.0}, 1, CAPPED_BY_P),
    # s = 0.3: the TE job's share 3/4 x 0.3 = 0.225 is below every candidate's (1/4 and up)
    ("fitgpp", TWO_NODES, 3, {"s": 0.3}, 4, LARGER_THAN_S),
    ("fitdelay", TWO_NODES, 3, {"s": 0.3}, 4, LARGER_THAN_S),
    # fitdelay with periodic, grace 300: d (122 s left on n1, whose leaving frees 2) finishes within grace: wait
    ("fitdelay", LONG, 2, {"checkpoint": "periodic", "grace": 300.0}, 4, FREES_WITHIN_GRACE),
    # with on_preempt it does not wait: fitgpp's P cap speaks (both preempted once, P = 1)
    ("fitdelay", ([4], [(0, 2, 0, 10, 0, 1), (0, 2, 0, 10, 0, 1)]), 2, {"P": 1}, 2, CAPPED_BY_P),
    # s = 0.5 keeps only b (1/4 <= 0.375), and b alone cannot free 3
    ("fitgpp", TWO_NODES, 3, {"s": 0.5}, 4, NO_NODE_FEASIBLE),
]


@pytest.mark.parametrize(("policy", "scenario", "te", "knobs", "running", "why"), NO_VICTIMS)
def test_no_victims_and_the_reason(policy, scenario, te, knobs, running, why):
    config = SimConfig(**knobs)
    v = view(scenario[0], te, scenario[1], config=config)
    p = get_policy(policy, config)
    state = v.rng.bit_generator.state
    assert p.victims(v) is None
    assert p.explain(v).preemption is None and p.explain(v).options == ()
    assert v.rng.bit_generator.state == state, "the generator is drawn from only when some node is feasible"
    assert reason(p, v, running) == why


@pytest.mark.parametrize("seed", range(5))
def test_random_draws_the_node_then_shuffles(seed):
    # TWO_NODES, 2 needed: both nodes feasible. The generator draws the node among [n0, n1], then
    # permutes that node's candidates (in job order) and takes them until 2 are free.
    rng = np.random.default_rng(seed)
    d = int(rng.integers(2))
    here = ["ab", "cd"][d]
    size = {"a": 3, "b": 1, "c": 2, "d": 2}
    taken, free = "", 0
    for i in rng.permutation(2):
        if free >= 2:
            break
        taken += here[i]
        free += size[here[i]]
    config = SimConfig(seed=seed)
    v = view(TWO_NODES[0], 2, TWO_NODES[1], config=config)
    pre = get_policy("random", config).victims(v)
    assert pre is not None and (pre.node, names(v, pre.victims)) == (d, "".join(sorted(taken)))
    v = view(TWO_NODES[0], 2, TWO_NODES[1], config=config)
    options = get_policy("random", config).explain(v).options
    assert [(o.node, names(v, o.victims), o.values) for o in options] == [
        (d, "".join(sorted(taken)), (d,)),
        (1 - d, "", (1 - d,)),
    ]


def test_non_preemptive_policies_never_take_victims():
    v = view(TWO_NODES[0], 2, TWO_NODES[1])
    for name in ("fifo", "priority"):
        p = POLICIES[name]
        assert not p.preemptive and p.victims(v) is None and p.explain(v).options == ()


# --------------------------------------------------------------------------- own knobs


def test_own_knobs_are_built_from_the_config():
    config = SimConfig(P=1, s=4.0, reentry=600.0)
    assert get_policy("fitgpp", config) == FitGpp(P=1, s=4.0)
    assert get_policy("fitdelay", config) == FitDelay(P=1, s=4.0, reentry=600.0)
    assert get_policy("k8s", config) is POLICIES["k8s"]  # no knobs of its own
    assert get_policy("fitgpp") is POLICIES["fitgpp"] and POLICIES["fitgpp"] == FitGpp(P=2, s=math.inf)
    # the one spec parser builds the same policy from either spelling, its knobs over the base knobs
    for text in ("fitgpp:P=1:s=4", "fitgpp: P=1 : s=4"):
        spec = parse_policy(text)
        assert spec.label == "fitgpp:P=1:s=4" and spec.policy(SimConfig(P=3, s=2.0)) == FitGpp(P=1, s=4.0)
    assert parse_policy("fitdelay:reentry=0").policy(SimConfig(s=2.0)) == FitDelay(s=2.0, reentry=0.0)


@pytest.mark.parametrize("name", list(POLICIES))
def test_a_policy_s_fields_are_the_knobs_declared_for_it_with_their_defaults(name):
    p = POLICIES[name]
    own = own_knobs(name)
    if p.preemptive:
        assert {f.name: f.default for f in dataclasses.fields(p)} == {k: KNOBS[k].default for k in own}
    else:
        assert own == ()


def test_a_field_that_is_no_declared_knob_is_refused():
    @dataclasses.dataclass(frozen=True)
    class Stray(FitGpp):
        q: int = 1  # no knob names it for fitgpp: a run's config could never set it

    with pytest.raises(TypeError, match="are not its knobs"):
        Stray()


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda: FitGpp(P=-1), "knob P: must be an integer >= 0"),
        (lambda: FitGpp(P=1.5), "knob P: must be an integer"),
        (lambda: FitGpp(s=0.0), "knob s: must be a number > 0"),
        (lambda: FitDelay(reentry=-5.0), "knob reentry: must be a finite number >= 0"),
        (lambda: FitDelay(s=math.nan), "knob s"),
    ],
)
def test_own_knobs_are_checked_where_the_policy_is_built(build, message):
    with pytest.raises(ValueError, match=message):
        build()
