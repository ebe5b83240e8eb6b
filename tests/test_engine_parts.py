"""The engine's parts on their own, without the engine.

``ClusterState`` is a fast structure (an "open node" subset, groups of equal nodes, cached
maxima); it is checked against a plain Python reference on random operation sequences, comparing
every observable after every step (the pending queue: ``tests/test_pending_queue.py``). The
small state types the engine is built from (running table, reservation book, timeline, per-job
checkpoint accounting) are checked on hand-made cases with exact values and against references
where they have one.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from simcore.core import units
from simcore.core.model import ClusterSpec, JobTable, Node, Resources, SimConfig
from simcore.engine.cluster import SUBSET_NODES, ClusterState
from simcore.engine.jobstate import JobState
from simcore.engine.reservations import ReservationBook
from simcore.engine.running import RunningTable
from simcore.engine.timeline import Timeline

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# --------------------------------------------------------------------------- ClusterState


def _spec(caps_units: list[tuple[int, int, int]]) -> ClusterSpec:
    """A cluster whose capacities are exactly `caps_units` (integer units)."""
    nodes = tuple(
        Node(f"n{k}", Resources(*(float(c) / s for c, s in zip(cap, units.SCALE, strict=True))))
        for k, cap in enumerate(caps_units)
    )
    spec = ClusterSpec(nodes)
    assert units.capacities(spec.capacity_matrix()).tolist() == [list(c) for c in caps_units]
    return spec


class RefCluster:
    """Available resources per node as lists, and the placement rules written out (rules 4 and 6)."""

    def __init__(self, cap: list[tuple[int, int, int]], placement: str) -> None:
        self.cap = [list(c) for c in cap]
        self.avail = [list(c) for c in cap]
        self.inv = units.inverse(np.array(cap, dtype=np.int64)).tolist()  # 1/capacity, 0 where none
        self.placement = placement
        self.gave_back = 0

    def choose(self, req: tuple[int, int, int]) -> int:
        feasible = [k for k, a in enumerate(self.avail) if all(x >= r for x, r in zip(a, req, strict=True))]
        if not feasible:
            return -1
        if self.placement == "first_fit":
            return feasible[0]

        def slack(k: int) -> float:
            worst = max((a - r) * i for a, r, i in zip(self.avail[k], req, self.inv[k], strict=True))
            return round(worst * units.NORM_SCALE)  # round() ties to even, as rint

        if self.placement == "best_fit":
            return min(feasible, key=lambda k: (slack(k), k))
        return min(feasible, key=lambda k: (-slack(k), k))

    def take(self, k: int, amount: tuple[int, int, int]) -> None:
        self.avail[k] = [a - x for a, x in zip(self.avail[k], amount, strict=True)]

    def give(self, k: int, amount: tuple[int, int, int]) -> None:
        self.avail[k] = [a + x for a, x in zip(self.avail[k], amount, strict=True)]
        self.gave_back += 1

    def top(self, floor: tuple[int, int, int] | None = None) -> list[int]:
        """Per dimension the most any node has, or with `floor` any node that fits it (-1: none)."""
        rows = [a for a in self.avail if floor is None or all(x >= f for x, f in zip(a, floor, strict=True))]
        return [max((a[d] for a in rows), default=-1) for d in range(3)]


CAP_VALUES = [0, 4, 8, 10, 16]  # small: many equal slacks, so ties are exercised


@st.composite
def cluster_runs(draw):
    big = draw(st.booleans())  # from SUBSET_NODES on, choose() searches only the open nodes
    n = draw(st.integers(SUBSET_NODES, SUBSET_NODES + 40)) if big else draw(st.integers(1, 8))
    shapes = draw(st.lists(st.tuples(*[st.sampled_from(CAP_VALUES)] * 3), min_size=1, max_size=4))
    seed = draw(st.integers(0, 2**32 - 1))
    placement = draw(st.sampled_from(["best_fit", "worst_fit", "first_fit"]))
    floor = draw(st.tuples(*[st.integers(0, 2)] * 3))  # every request is at least this
    steps = draw(st.integers(1, 80))
    return n, shapes, seed, placement, floor, steps


@SETTINGS
@given(run=cluster_runs())
def test_cluster_state_matches_the_written_out_rules(run):
    """Through random allocations, releases, reservations and returned reservations (as the
    engine makes them: only what fits), choose(), top(), avail and version agree with the
    reference after every step, whether or not top() was cached and on large clusters (open
    node subset) as on small ones."""
    n, shapes, seed, placement, floor, steps = run
    rng = np.random.default_rng(seed)
    caps = [shapes[i] for i in rng.integers(0, len(shapes), n).tolist()]
    cl = ClusterState(_spec(caps), placement, np.array(floor))
    ref = RefCluster(caps, placement)
    held: list[tuple[str, int, tuple[int, int, int]]] = []  # what can be given back

    def request() -> tuple[int, int, int]:
        return tuple(int(f + x) for f, x in zip(floor, rng.integers(0, 9, 3), strict=True))

    for _ in range(steps):
        if rng.random() < 0.5:
            cl.top()  # cache the maxima: later steps must keep them exact or drop them
        req = request()
        k = cl.choose(np.array(req, dtype=np.int64), req)
        assert k == ref.choose(req), (req, ref.avail)
        action = rng.integers(0, 4)
        if action == 0 and k >= 0:
            cl.allocate(k, req)
            ref.take(k, req)
            held.append(("job", k, req))
        elif action == 1 and held:
            kind, k2, amount = held.pop(int(rng.integers(0, len(held))))
            if kind == "job":
                cl.release(k2, amount)
            else:
                cl.unreserve(k2, np.array(amount, dtype=np.int64))
            ref.give(k2, amount)
        elif action == 2:  # a reservation: at most what is available, as the reservation book takes
            k2 = int(rng.integers(0, n))
            amount = tuple(int(rng.integers(0, a + 1)) for a in ref.avail[k2])
            cl.reserve(k2, np.array(amount, dtype=np.int64))
            ref.take(k2, amount)
            held.append(("reservation", k2, amount))
        assert cl.avail.tolist() == ref.avail
        assert cl.top() == ref.top(floor if n >= SUBSET_NODES else None)
        assert cl.version == ref.gave_back
    assert (cl.cap == np.array(caps)).all() and not cl.cap.flags.writeable


@pytest.mark.parametrize(
    ("placement", "expected"),
    [("best_fit", 1), ("worst_fit", 2), ("first_fit", 0)],
)
def test_cluster_state_placement_by_hand(placement, expected):
    """Request (4, 4, 0) on nodes with slack max(4/8, 4/8) = 0.5, max(0/4, 0/4) = 0 and
    max(12/16, 12/16) = 0.75 (the gpu dimension has no capacity and is skipped)."""
    cl = ClusterState(_spec([(8, 8, 0), (4, 4, 0), (16, 16, 0)]), placement)
    assert cl.choose(np.array([4, 4, 0]), (4, 4, 0)) == expected
    assert cl.choose(np.array([4, 4, 1]), (4, 4, 1)) == -1  # no gpu anywhere


def test_cluster_state_open_subset_keeps_a_node_left_with_exactly_the_floor():
    """On a large cluster choose() looks only at nodes that fit the smallest request (`floor`):
    a node left with exactly that much is still open, one with less in any dimension is not."""
    n, floor = SUBSET_NODES + 4, (2, 3, 1)
    cl = ClusterState(_spec([(10, 10, 10)] * n), "best_fit", np.array(floor))
    for k in range(n):
        cl.allocate(k, (8, 8, 10) if k == n - 3 else (8, 7, 9))  # node n-3: (2, 2, 0) left, below the floor
    req = np.array(floor)
    assert cl.choose(req, floor) == 0  # every other node has (2, 3, 1): a tie, the lowest index
    for k in range(n - 3):
        cl.allocate(k, (0, 0, 1))  # now below the floor in gpu
    assert cl.choose(req, floor) == n - 2
    cl.allocate(n - 2, floor)
    cl.allocate(n - 1, floor)
    assert cl.choose(req, floor) == -1
    cl.release(n - 3, (0, 1, 1))  # back to exactly the floor
    assert cl.choose(req, floor) == n - 3


# --------------------------------------------------------------------------- RunningTable


@SETTINGS
@given(ops=st.lists(st.tuples(st.booleans(), st.integers(0, 199)), max_size=400))
def test_running_table_is_a_set(ops):
    """Joins and leaves in any order (beyond the first 64 slots too) keep exactly the members."""
    table, ref = RunningTable(200), set()
    for join, j in ops:
        if join and j not in ref:
            table.add(j)
            ref.add(j)
        elif not join and j in ref:
            table.remove(j)
            ref.discard(j)
        assert len(table) == len(ref)
        assert all((x in table) == (x in ref) for x in (j, (j + 1) % 200))
    members = table.jobs().tolist()
    assert sorted(members) == sorted(ref) and len(members) == len(set(members))


def test_running_table_reuses_slots_lowest_first():
    table = RunningTable(300)
    for j in range(100):  # grows past the first 64 slots
        table.add(j)
    assert table.jobs().tolist() == list(range(100))
    table.remove(5)
    table.remove(70)
    table.add(200)  # takes the slot freed last
    assert table.jobs().tolist() == [*range(5), *range(6, 70), 200, *range(71, 100)]


# --------------------------------------------------------------------------- ReservationBook


def _book(avail: tuple[int, int, int], cap: tuple[int, int, int], req: list[tuple[int, int, int]]):
    """One node of capacity `cap` with `avail` free (the rest held by an unnamed job), and jobs of requests `req`."""
    cl = ClusterState(_spec([cap, cap]), "first_fit")
    used = tuple(c - a for c, a in zip(cap, avail, strict=True))
    cl.allocate(0, used)
    return cl, ReservationBook(cl, np.array(req, dtype=np.int64))


def test_reservation_book_by_hand():
    """Rule 5 on exact numbers: the TE job (job 0) reserves min(free, request) at once; each
    victim's release tops it up, never above the request; then it fits on its node."""
    cl, book = _book(avail=(3, 0, 5), cap=(10, 10, 10), req=[(6, 4, 2), (4, 4, 0), (2, 1, 0)])
    book.nominate(0, 0, victims=[1, 2])
    assert book.node_of(0) == 0 and book.node_of(1) is None and len(book) == 1
    assert book.held(0).tolist() == [3, 0, 2] and cl.avail[0].tolist() == [0, 0, 3]
    assert not book.fits_on_its_node(0)
    cl.release(0, (4, 4, 0))  # victim 1's grace ends
    book.released(1, 0)
    assert book.held(0).tolist() == [6, 4, 2]  # min(request - held, victim's request, avail) added
    assert cl.avail[0].tolist() == [1, 0, 3]
    assert book.fits_on_its_node(0)
    cl.release(0, (2, 1, 0))
    book.released(2, 0)
    assert book.held(0).tolist() == [6, 4, 2]  # never above the request
    assert cl.avail[0].tolist() == [3, 1, 3]
    version = cl.version
    book.drop(0)
    assert cl.avail[0].tolist() == [9, 5, 5] and cl.version == version + 1 and len(book) == 0


def test_reservation_book_victim_of_a_job_placed_elsewhere_tops_up_nothing():
    cl, book = _book(avail=(0, 0, 0), cap=(10, 10, 10), req=[(5, 5, 5), (5, 5, 5)])
    book.nominate(0, 0, victims=[1])
    book.drop(0)  # placed on node 1 first
    cl.release(0, (5, 5, 5))
    book.released(1, 0)
    assert cl.avail[0].tolist() == [5, 5, 5] and book.node_of(0) is None


@SETTINGS
@given(
    cap=st.tuples(*[st.integers(1, 20)] * 3),
    data=st.data(),
)
def test_reservation_book_fits_once_all_victims_released(cap, data):
    """Whatever the free room and however many victims, released in any order: the reservation
    only grows, stays within the request, never makes avail negative, and once every victim
    has released the TE job fits on its node (rule 5), whenever the victims make room."""
    victims = data.draw(st.lists(st.tuples(*[st.integers(0, c) for c in cap]), min_size=1, max_size=4))
    used = [sum(v[d] for v in victims) for d in range(3)]
    if any(u > c for u, c in zip(used, cap, strict=True)):
        return  # the victims do not fit on the node together
    other = tuple(data.draw(st.integers(0, c - u)) for c, u in zip(cap, used, strict=True))
    free = [c - u - o for c, u, o in zip(cap, used, other, strict=True)]
    te = tuple(
        data.draw(st.integers(0, f + u)) for f, u in zip(free, used, strict=True)
    )  # feasible with the victims gone
    cl, book = _book(avail=tuple(f + u for f, u in zip(free, used, strict=True)), cap=cap, req=[te, *victims])
    for v in victims:
        cl.allocate(0, v)
    book.nominate(0, 0, victims=range(1, len(victims) + 1))
    last = book.held(0)
    for i in data.draw(st.permutations(range(1, len(victims) + 1))):
        assert (cl.avail[0] >= 0).all()
        cl.release(0, victims[i - 1])
        book.released(i, 0)
        held = book.held(0)
        assert (held >= last).all() and (held <= np.array(te)).all()
        last = held
    assert (cl.avail[0] >= 0).all()
    assert book.fits_on_its_node(0)


# --------------------------------------------------------------------------- Timeline


def test_timeline_orders_one_instant_by_rule_1_and_skips_stale_entries():
    token = [0, 0, 0, 0, 0]
    tl = Timeline([4, 3], [5.0, 7.0], token, RunningTable(5))
    tl.release_at(5.0, order=0, j=0, token=0)
    tl.finish_at(5.0, order=2, j=2, token=0)
    tl.finish_at(5.0, order=1, j=1, token=0)
    tl.finish_at(6.0, order=3, j=3, token=0)
    token[3] = 1  # job 3 was preempted: its finish at 6 is stale, no instant
    tl.release_at(6.5, order=4, j=4, token=0)
    token[4] = 1  # job 4 failed during its grace period (DESIGN rule 12): its release at 6.5 is stale
    # finishes (in job order), then releases, then arrivals
    assert list(tl.instants(lambda: False, [])) == [(5.0, [1, 2], [0], [4]), (7.0, [], [], [3])]


def test_timeline_sees_what_is_scheduled_during_an_instant():
    tl = Timeline([0], [1.0], [0, 0], RunningTable(2))
    instants = tl.instants(lambda: False, [])
    assert next(instants) == (1.0, [], [], [0])
    tl.finish_at(3.0, order=0, j=0, token=0)  # job 0 starts at 1 and will finish at 3
    tl.finish_at(2.0, order=1, j=1, token=0)
    assert list(instants) == [(2.0, [1], [], []), (3.0, [0], [], [])]


def test_timeline_wake_up_is_an_instant_only_while_a_pass_may_act():
    token, running, may_act = [0, 0], RunningTable(2), [True]
    running.add(0)
    tl = Timeline([1], [9.0], token, running)
    tl.wake_at(4.0, order=0, j=0, token=0)
    instants = tl.instants(lambda: may_act[0], [])
    assert next(instants) == (4.0, [], [], [])  # the instant is the point: a pass runs
    tl.wake_at(5.0, order=0, j=0, token=0)
    may_act[0] = False  # its pass would change nothing, and the arrival at 9 comes later: no instant at 5
    assert next(instants) == (9.0, [], [], [1])
    tl.wake_at(12.0, order=0, j=0, token=0)
    may_act[0] = True
    tl.wake_at(10.0, order=0, j=0, token=0)
    token[0] = 1  # preempted since: both wake-ups are stale
    assert list(instants) == []
    token[0], tl2 = 0, Timeline([], [], token, running)
    tl2.wake_at(3.0, order=0, j=0, token=0)
    running.remove(0)  # finished: no longer a candidate
    assert list(tl2.instants(lambda: True, [])) == []


# --------------------------------------------------------------------------- JobState


def _one_job(**knobs) -> JobState:
    jobs = JobTable(np.array(["a"], dtype=object), np.zeros(1), np.array([100.0]), np.ones((1, 3)), np.array([False]))
    return JobState(jobs, units.requests(jobs.request), np.zeros(1, dtype=np.int64), SimConfig(policy="k8s", **knobs))


def test_job_state_periodic_checkpoint_accounting():
    """c = 10, restore 2: signalled at 25 keeps 20 (lost 5); restarted at 30, progress from 32;
    signalled at 40 has 28 done, keeps 20 again (lost 8 more). The candidate view before the
    second signal says the same."""
    js = _one_job(checkpoint="periodic", checkpoint_interval=10.0, restore=2.0)
    assert js.start(0, 1, 0.0, segment=True) == 100.0
    js.signal(0, 25.0)
    assert (js.kept[0], js.lost[0], js.work_left[0], js.last_ckpt[0], js.preemptions[0], js.token[0]) == (
        20.0,
        5.0,
        80.0,
        20.0,
        1,
        1,
    )
    assert js.start(0, 1, 30.0, segment=True) == 30.0 + 2.0 + 80.0  # restore paid after a preemption
    c = js.candidates(np.array([0]), 40.0, min_runtime=0.0)
    assert (c.remaining[0], c.lost_now[0], c.last_checkpoint[0], c.restore_next[0]) == (72.0, 8.0, 20.0, 2.0)
    js.signal(0, 40.0)
    assert (js.kept[0], js.lost[0], js.work_left[0], js.first_start[0]) == (20.0, 13.0, 80.0, 0.0)


def test_job_state_on_preempt_keeps_everything_and_min_runtime_filters_candidates():
    js = _one_job(checkpoint="on_preempt", restore=0.0)
    js.start(0, 0, 10.0, segment=True)
    assert len(js.candidates(np.array([0]), 14.0, min_runtime=5.0)) == 0  # segment 4 s old
    assert len(js.candidates(np.array([0]), 15.0, min_runtime=5.0)) == 1
    js.signal(0, 15.0)
    assert (js.kept[0], js.lost[0], js.work_left[0], js.last_ckpt[0]) == (5.0, 0.0, 95.0, 15.0)
