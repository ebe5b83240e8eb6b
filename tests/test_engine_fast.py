"""The engine's fast paths against the plain computations they replace (issue 21).

Each fast path is exact by construction; these tests compare it with the reference it stands in
for on random operation sequences, after every step: the pending queue's batched walk
(:meth:`PendingQueue.scan`) against repeated ``next_within`` searches, and the gang room count
(:class:`GangRoom`) against :func:`workers_per_node` summed over the nodes.
"""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from simcore.engine.cluster import SUBSET_NODES, ClusterState
from simcore.engine.gang import GangRoom
from simcore.engine.pending import BLOCK, SHORT, PendingQueue
from simcore.model import ClusterSpec, Node, Resources
from simcore.units import SCALE
from simcore.workload.fit import workers_per_node

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _walk_by_search(q: PendingQueue, start: int, bounds: list[list[int]], removes: set[int]) -> list[int]:
    """The walk as the engine did it before ``scan``: next_within from the last rank + 1, on the
    bound of that step (``bounds[step]``, the last one after the list ends)."""
    seen: list[int] = []
    r = q.next_within(start, tuple(bounds[0]))  # type: ignore[arg-type]
    while r >= 0:
        seen.append(r)
        if r in removes:
            q.remove(r)
        r = q.next_within(r + 1, tuple(bounds[min(len(seen), len(bounds) - 1)]))  # type: ignore[arg-type]
    return seen


def _walk_by_scan(q: PendingQueue, start: int, bounds: list[list[int]], removes: set[int]) -> list[int]:
    seen: list[int] = []
    for r in q.scan(start, lambda: bounds[min(len(seen), len(bounds) - 1)]):
        seen.append(r)
        if r in removes:
            q.remove(r)
    return seen


@SETTINGS
@given(
    n=st.integers(1, 4 * BLOCK),
    pending=st.integers(0, 3 * BLOCK),
    seed=st.integers(0, 2**32 - 1),
    start=st.integers(0, 4 * BLOCK),
)
def test_scan_yields_what_repeated_searches_do(n, pending, seed, start):
    """With a bound that shrinks as the walk goes and removals of the ranks just yielded (which
    cross the block/short switch), scan yields the same ranks as the searches it replaces, and
    leaves the queue in the same state."""
    rng = np.random.default_rng(seed)
    req = [tuple(int(x) for x in row) for row in rng.integers(0, 6, size=(n, 3))]
    ranks = rng.permutation(n)[: min(pending, n)].tolist()
    removes = {r for r in ranks if rng.random() < 0.7}
    first = [int(x) for x in rng.integers(2, 7, size=3)]
    bounds = [first]
    for _ in range(len(ranks)):  # never growing
        bounds.append([max(0, b - int(rng.integers(0, 2) * rng.integers(0, 2))) for b in bounds[-1]])
    a, b = PendingQueue(req), PendingQueue(req)
    for r in ranks:
        a.add(r)
        b.add(r)
    assert _walk_by_scan(a, start, bounds, removes) == _walk_by_search(b, start, bounds, removes)
    assert len(a) == len(b)
    for r in range(n):
        assert a.next_within(r, req[r], r + 1) == b.next_within(r, req[r], r + 1)


@SETTINGS
@given(n=st.integers(1, 3 * BLOCK), seed=st.integers(0, 2**32 - 1))
def test_scans_between_adds_and_removals_yield_every_rank_within_the_bound(n, seed):
    """Scans from random starts on random bounds (growing or shrinking from one scan to the
    next), between random additions and removals (which switch between the sorted list and the
    blocks, and leave block bounds stale): each yields exactly the pending ranks from its start
    whose request is within its bound."""
    rng = np.random.default_rng(seed)
    req = [tuple(int(x) for x in row) for row in rng.integers(0, 6, size=(n, 3))]
    q, pending = PendingQueue(req), set()
    for _ in range(120):
        op = rng.integers(0, 4)
        if op == 0 or not pending:
            for r in rng.integers(0, n, size=int(rng.integers(1, 2 * SHORT))).tolist():
                if r not in pending:
                    q.add(r)
                    pending.add(r)
        elif op == 1:
            for r in rng.permutation(sorted(pending))[: int(rng.integers(1, len(pending) + 1))].tolist():
                q.remove(r)
                pending.discard(r)
        start, bound = int(rng.integers(0, n)), [int(x) for x in rng.integers(0, 6, size=3)]
        expected = sorted(r for r in pending if r >= start and all(c <= m for c, m in zip(req[r], bound, strict=True)))
        assert list(q.scan(start, lambda b=bound: b)) == expected


def test_scan_switches_to_the_short_list_when_removals_shrink_the_queue():
    """A walk that places almost every job turns the block arrays into the sorted short list
    mid-walk; the ranks after the switch are still all yielded."""
    n = max(2 * BLOCK, 8 * SHORT)  # more than SHORT pending (SHORT is larger when compiled)
    q = PendingQueue([(1, 1, 1)] * n)
    for r in range(0, n, 4):
        q.add(r)
    seen = []
    for r in q.scan(0, lambda: [1, 1, 1]):
        seen.append(r)
        if len(q) > SHORT // 4:
            q.remove(r)
    assert seen == list(range(0, n, 4))
    assert q.short is not None and len(q) == SHORT // 4


def test_scan_goes_on_in_the_short_list_when_blocks_are_left_after_the_switch():
    """The switch comes in the first block with two blocks left: the walk reads the rest from the
    short list (compiled with mypyc, a read of ``short`` narrowed to None there raised TypeError)."""
    q = PendingQueue([(1, 1, 1)] * (3 * BLOCK))
    m = min(SHORT + 68, BLOCK)  # ranks 0..m-1 in the first block: with the two others, more than SHORT
    pending = [*range(m), BLOCK + 44, 2 * BLOCK + 88]
    switch = len(pending) - SHORT // 2  # ranks removed: the last (in the first block) switches to the short list
    for r in pending:
        q.add(r)
    assert q.short is None
    seen = []
    for r in q.scan(0, lambda: [1, 1, 1]):
        seen.append(r)
        if len(q) > SHORT // 2:  # with SHORT = 32: the last removal at rank 85
            q.remove(r)
    assert seen == pending
    assert switch - 1 < BLOCK and q.short == [*range(switch, m), BLOCK + 44, 2 * BLOCK + 88]


OPS = st.lists(
    st.tuples(st.sampled_from(["allocate", "release", "ask"]), st.integers(0, 5), st.integers(0, 3)), max_size=80
)


@SETTINGS
@given(ops=OPS, seed=st.integers(0, 2**32 - 1))
def test_gang_room_counts_what_workers_per_node_sums(ops, seed):
    """Through allocations and give-backs on random nodes, and asks for several requests at
    different times (some counts stale for long, the log trimmed), every count equals the
    numpy formula on the room then."""
    rng = np.random.default_rng(seed)
    cl = ClusterState(ClusterSpec.uniform(6, 8, 64, 8), "best_fit")
    room = GangRoom(cl)
    room._limit = 5  # trim often: requests not asked for since are counted afresh
    shapes = [(1000, 1024, 1000), (4000, 0, 2000), (0, 0, 0), (8000, 65536, 8000)]
    held: list[tuple[int, tuple[int, int, int]]] = []
    for op, k, s in ops:
        if op == "allocate":
            amount = tuple(int(x) for x in rng.integers(0, 3000, size=3))
            cl.allocate(k, amount)  # may go below zero: the formula floors negative room too
            held.append((k, amount))
        elif op == "release" and held:
            node, amount = held.pop(int(rng.integers(0, len(held))))
            cl.release(node, amount)
        else:
            req = shapes[s]
            expected = int(workers_per_node(np.array([req], dtype=np.int64), cl.avail).sum())
            assert room.holds(req) == expected


@SETTINGS
@given(
    big=st.booleans(),
    n=st.integers(1, 12),
    shapes=st.lists(st.tuples(*[st.sampled_from([0, 4, 8, 16])] * 3), min_size=1, max_size=3),
    placement=st.sampled_from(["best_fit", "worst_fit", "first_fit"]),
    floor=st.tuples(*[st.integers(0, 2)] * 3),
    seed=st.integers(0, 2**32 - 1),
)
def test_choose_by_groups_picks_what_the_numpy_pass_does(big, n, shapes, placement, floor, seed):
    """The pick over groups of equal nodes and the numpy pass over every node agree on every
    request through random allocations and give-backs (small capacities: many equal slacks);
    on a large cluster (`big`: the groups hold only the nodes that fit `floor`, and the numpy
    pass looks at those nodes) too, and there top() is the most any such node has."""
    rng = np.random.default_rng(seed)
    n = SUBSET_NODES + n if big else n
    caps = [shapes[i] for i in rng.integers(0, len(shapes), n).tolist()]
    spec = ClusterSpec(
        tuple(Node(f"n{k}", Resources(*(c / s for c, s in zip(cap, SCALE, strict=True)))) for k, cap in enumerate(caps))
    )
    grouped, vectorised = ClusterState(spec, placement, np.array(floor)), ClusterState(spec, placement, np.array(floor))
    grouped.group_max, vectorised.group_max = 10**9, 0
    held: list[tuple[int, tuple[int, int, int]]] = []
    for _ in range(60 if not big else 150):
        req = tuple(int(f + x) for f, x in zip(floor, rng.integers(0, 9, 3), strict=True))
        k = grouped.choose(np.array(req, dtype=np.int64), req)
        assert k == vectorised.choose(np.array(req, dtype=np.int64), req), (req, vectorised.avail.tolist())
        if k >= 0 and rng.random() < 0.6:
            grouped.allocate(k, req)
            vectorised.allocate(k, req)
            held.append((k, req))
        elif held:
            k2, amount = held.pop(int(rng.integers(0, len(held))))
            grouped.release(k2, amount)
            vectorised.release(k2, amount)
        rooms = [a for a in vectorised.avail.tolist() if not big or all(x >= f for x, f in zip(a, floor, strict=True))]
        assert grouped.top() == [max((a[d] for a in rooms), default=-1) for d in range(3)]
        assert grouped.avail.tolist() == vectorised.avail.tolist()
