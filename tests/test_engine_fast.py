"""The engine's fast paths against the plain computations they replace (issue 21).

Each fast path is exact by construction; these tests compare it with the reference it stands in
for on random operation sequences, after every step: the gang room count (:class:`GangRoom`)
against :func:`workers_per_node` summed over the nodes, and the grouped placement against the
numpy pass. The pending queue's walk has its own file (``tests/test_pending_queue.py``).
"""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from simcore.core.model import ClusterSpec, Node, Resources
from simcore.core.units import SCALE
from simcore.engine.cluster import SUBSET_NODES, ClusterState
from simcore.engine.gang import GangRoom
from simcore.workload.fit import workers_per_node
from simcore.workload.schema import MAX_WORKERS

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


OPS = st.lists(
    st.tuples(st.sampled_from(["allocate", "release", "ask"]), st.integers(0, 5), st.integers(0, 3)), max_size=80
)


@SETTINGS
@given(ops=OPS, seed=st.integers(0, 2**32 - 1), big=st.booleans())
def test_gang_room_counts_what_workers_per_node_sums(ops, seed, big):
    """Through allocations and give-backs on random nodes, and asks for several requests at
    different times, every count equals the numpy formula on the room then (a node below zero
    room holding none), the fit test (its bound on the summed room first) says whether that
    count reaches each number of workers, and the summed room is the room's sum; on a large
    cluster too (`big`: the groups hold only the nodes with room for the smallest request)."""
    rng = np.random.default_rng(seed)
    cl = ClusterState(ClusterSpec.uniform(SUBSET_NODES + 6 if big else 6, 8, 64, 8), "best_fit", np.zeros(3))
    room = GangRoom(cl)
    shapes = [(1000, 1024, 1000), (4000, 0, 2000), (0, 0, 0), (8000, 65536, 8000)]
    held: list[tuple[int, tuple[int, int, int]]] = []
    for op, k, s in ops:
        if op == "allocate":
            amount = tuple(int(x) for x in rng.integers(0, 3000, size=3))
            cl.allocate(k, amount)  # may go below zero: such a node holds none
            held.append((k, amount))
        elif op == "release" and held:
            node, amount = held.pop(int(rng.integers(0, len(held))))
            cl.release(node, amount)
        else:
            req = shapes[s]
            expected = int(np.maximum(workers_per_node(np.array([req], dtype=np.int64), cl.avail), 0).sum())
            assert cl.totals == cl.avail.sum(axis=0).tolist()
            assert [room.fits(req, w) for w in range(1, 12)] == [expected >= w for w in range(1, 12)]
            assert cl.holds(req, MAX_WORKERS) == expected


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
    vectorised.nodes_per_group = 10**9  # the numpy pass at any number of groups
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
        assert grouped._grouped == sum(map(len, grouped._groups.values()))  # the count choose() weighs
