"""The pending queue (:mod:`simcore.engine.pending`) against a plain reference.

The reference is the pending ranks as a sorted list, walked in order: a walk yields the first
pending rank from where it stands whose request is within the bound of that moment. The queue's
chunks (split, merged, dropped; lower bounds left stale by removals) must answer exactly as it
does, through random additions, removals and walks (bounds that shrink during a walk, removals of
the ranks just yielded, many equal requests), and keep their own invariants after every step.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from simcore.engine.pending import LOAD, UNBOUNDED, PendingQueue, Waiting

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


class RefQueue:
    """The pending ranks as a sorted list, walked one rank at a time."""

    def __init__(self, req: list[tuple[int, int, int]]) -> None:
        self.req = req
        self.pending: list[int] = []

    def add(self, r: int) -> None:
        self.pending = sorted([*self.pending, r])

    def remove(self, r: int) -> None:
        self.pending.remove(r)

    def next_within(self, start: int, bound: tuple[int, int, int] | list[int], stop: int | None = None) -> int:
        for r in self.pending:
            if (
                r >= start
                and (stop is None or r < stop)
                and all(c <= b for c, b in zip(self.req[r], bound, strict=True))
            ):
                return r
        return -1


def _requests(rng: np.random.Generator, n: int, top: int) -> list[tuple[int, int, int]]:
    """Requests from a small range, so that many are equal (ties with the chunks' bounds)."""
    return [tuple(int(x) for x in row) for row in rng.integers(0, top, size=(n, 3))]  # type: ignore[misc]


def _check_invariants(q: PendingQueue, ref: RefQueue) -> None:
    """What every walk's cost and exactness rest on, written out."""
    assert q.ranks() == ref.pending and len(q) == len(ref.pending)
    assert q.lasts == [c.ranks[-1] for c in q.chunks]
    for c in q.chunks:
        assert c.ranks and len(c.ranks) <= 2 * LOAD
        least = [min(q.req_list[r][d] for r in c.ranks) for d in range(3)]
        bounds = [c.lo0, c.lo1, c.lo2]
        assert all(b <= m for b, m in zip(bounds, least, strict=True))  # never hides a job
        assert c.stale or bounds == least  # exact unless a removal marked it
        if len(q.chunks) > 1:
            assert len(c.ranks) > LOAD // 4  # few chunks: at most 4 per LOAD pending ranks, plus one


def _walk(q: PendingQueue, ref: RefQueue, rng: np.random.Generator, start: int, top: int) -> None:
    """One walk on `q` and on the reference side by side: the bound shrinks at random after a
    yield (never grows), the rank just yielded is removed at random, and the walk is left early
    at random (as the engine's walk is when room is given back)."""
    bound = [int(x) for x in rng.integers(0, top + 1, size=3)]
    now = [bound]  # the bound of the moment, read by the walk through the lambda
    pos, seen = start, []
    for r in q.scan(start, lambda: now[0]):
        assert r == ref.next_within(pos, now[0]), (start, bound, seen)
        seen.append(r)
        pos = r + 1
        if rng.random() < 0.6:
            q.remove(r)
            ref.remove(r)
        if rng.random() < 0.3:
            d = int(rng.integers(0, 3))
            now[0] = [b - 1 if i == d and b > 0 else b for i, b in enumerate(now[0])]
        if rng.random() < 0.02:
            return
    assert ref.next_within(pos, now[0]) == -1, (start, bound, seen)


@SETTINGS
@given(top=st.integers(1, 5), seed=st.integers(0, 2**32 - 1))
def test_the_queue_walks_as_a_sorted_list_does(top, seed):
    """Random batches of additions (up to 8 * LOAD ranks: splits) and removals (merges and
    dropped chunks), walks from random starts, searches with and without a stop, and membership:
    every answer is the reference's, and the invariants hold after every step. (The sizes are
    drawn uniformly from the seed: hypothesis would mostly draw small ones.)"""
    rng = np.random.default_rng(seed)
    n, steps = int(rng.integers(1, 14 * LOAD + 1)), int(rng.integers(1, 41))
    req = _requests(rng, n, top)
    q, ref = PendingQueue(req), RefQueue(req)
    for _ in range(steps):
        op = int(rng.integers(0, 4))
        if op == 0 or not ref.pending:
            free = sorted(set(range(n)) - set(ref.pending))
            for r in rng.permutation(free)[: int(rng.integers(1, 8 * LOAD + 1))].tolist():
                q.add(r)
                ref.add(r)
        elif op == 1:
            for r in rng.permutation(ref.pending)[: int(rng.integers(1, len(ref.pending) + 1))].tolist():
                q.remove(r)
                ref.remove(r)
        elif op == 2:
            _walk(q, ref, rng, int(rng.integers(0, n + 1)), top)
        else:
            start, stop = int(rng.integers(0, n + 1)), int(rng.integers(0, n + 2))
            bound = tuple(int(x) for x in rng.integers(0, top + 1, size=3))
            assert q.next_within(start, bound, stop) == ref.next_within(start, bound, stop)  # type: ignore[arg-type]
            assert q.next_within(start, bound) == ref.next_within(start, bound)  # type: ignore[arg-type]
        _check_invariants(q, ref)
        for r in rng.integers(0, n, size=5).tolist():
            assert (r in q) == (r in ref.pending)


def test_a_walk_goes_on_where_removals_merge_and_drop_chunks():
    """Placing almost every job during one walk merges chunks into their neighbours and drops
    them under the walk's feet; every rank is still yielded once, in order."""
    n = 20 * LOAD
    q, ref = PendingQueue([(1, 1, 1)] * n), RefQueue([(1, 1, 1)] * n)
    for r in range(0, n, 2):
        q.add(r)
        ref.add(r)
    assert len(q.chunks) > 4
    seen = []
    for r in q.scan(0, lambda: [1, 1, 1]):
        seen.append(r)
        if r % 6 != 4:  # every third one stays
            q.remove(r)
            ref.remove(r)
        _check_invariants(q, ref)
    assert seen == list(range(0, n, 2))
    assert q.ranks() == list(range(4, n, 6))


def test_a_merge_that_makes_a_chunk_too_long_splits_it():
    """A chunk shrunk to LOAD // 4 ranks merges into a full neighbour (2 * LOAD ranks): the
    result is too long and is cut in two."""
    q, ref = PendingQueue([(1, 1, 1)] * (8 * LOAD)), RefQueue([(1, 1, 1)] * (8 * LOAD))
    for r in [*range(0, 6 * LOAD + 1, 2), *range(4 * LOAD + 1, 6 * LOAD - 1, 2)]:  # the odd ones: the last chunk
        q.add(r)
        ref.add(r)
    assert [len(c.ranks) for c in q.chunks] == [LOAD, LOAD, 2 * LOAD]
    for r in range(2 * LOAD, 4 * LOAD, 2)[: LOAD - LOAD // 4]:  # the middle chunk down to LOAD // 4
        q.remove(r)
        ref.remove(r)
    half = (2 * LOAD + LOAD // 4) // 2
    assert [len(c.ranks) for c in q.chunks] == [LOAD, half, 2 * LOAD + LOAD // 4 - half]
    _check_invariants(q, ref)


def test_a_walk_skips_the_chunks_whose_bound_is_above_it():
    """Chunks of big requests are skipped on their bounds alone: stale ones (a removal took one
    of their least requests) stay stale, which they would not if their ranks had been read and
    found above the bound."""
    small, big = [(1, 1, 1)] * (2 * LOAD), [(9, 9, 9)] * (2 * LOAD)
    req = small + big + small
    q = PendingQueue(req)
    for r in range(len(req)):
        q.add(r)
    # ranks added in order: chunks of LOAD ranks from rank 0 on (each split leaves LOAD behind), the last longer
    assert [c.ranks[0] for c in q.chunks] == [0, LOAD, 2 * LOAD, 3 * LOAD, 4 * LOAD]
    assert [c.lo0 for c in q.chunks] == [1, 1, 9, 9, 1]
    q.remove(2 * LOAD)
    q.remove(3 * LOAD)
    assert [c.stale for c in q.chunks] == [False, False, True, True, False]
    assert list(q.scan(LOAD, lambda: [1, 1, 1])) == [*range(LOAD, 2 * LOAD), *range(4 * LOAD, 6 * LOAD)]
    assert [c.stale for c in q.chunks] == [False, False, True, True, False]


@pytest.mark.parametrize("walk", ["scan", "next_within"])
def test_a_stale_bound_is_made_exact_when_a_walk_finds_nothing_in_its_chunk(walk):
    """Removing a chunk's smallest request leaves its bound low (marked stale). A walk under a
    bound between the old and the new least request that reads the whole chunk finds nothing and
    makes the bound exact, so later walks skip the chunk; one that finds a candidate, or starts
    past the chunk's first rank, leaves it as it was."""
    req = [(1, 5, 5)] + [(3, 5, 5)] * (2 * LOAD)
    q = PendingQueue(req)
    for r in range(len(req)):
        q.add(r)
    q.remove(0)
    c = q.chunks[0]
    assert c.stale and (c.lo0, c.lo1, c.lo2) == (1, 5, 5)

    def first(start: int, bound: list[int]) -> int:
        if walk == "scan":
            return next(iter(q.scan(start, lambda: bound)), -1)
        return q.next_within(start, (bound[0], bound[1], bound[2]))

    assert first(1, [3, 5, 5]) == 1 and c.stale
    assert first(2, [2, 5, 5]) == -1 and c.stale
    assert first(0, [2, 5, 5]) == -1 and not c.stale and (c.lo0, c.lo1, c.lo2) == (3, 5, 5)


def test_the_engine_walk_by_searches_visits_each_candidate_once_in_rank_order():
    """The strict walk's form (next_within from the last rank + 1) yields exactly the pending
    ranks within the bound, in order, with removals during the walk."""
    n = 16 * LOAD
    req = [(r % 7, (r * 3) % 5, r % 2) for r in range(n)]
    q = PendingQueue(req)
    for r in range(0, n, 3):
        q.add(r)
    bound = (4, 3, 1)
    seen, r = [], q.next_within(0, bound)
    while r >= 0:
        seen.append(r)
        if r % 2 == 0:
            q.remove(r)  # placed during the walk
        r = q.next_within(r + 1, bound)
    assert seen == [r for r in range(0, n, 3) if req[r][0] <= 4 and req[r][1] <= 3 and req[r][2] <= 1]
    assert len(q) == len(range(0, n, 3)) - sum(1 for r in seen if r % 2 == 0)


def test_waiting_keeps_te_ranks_apart_and_maps_jobs_to_ranks():
    rank = np.array([2, 0, 3, 1])  # job -> queue rank
    req = [(1, 1, 0), (2, 2, 0), (3, 3, 0), (4, 4, 0)]
    w = Waiting(rank, req, [False, True, False, True])
    assert w.job_of_rank == [1, 3, 0, 2]
    w.add([0, 1, 2, 3])
    assert len(w) == 4 and w.te == [0, 1]  # jobs 1 and 3, by rank
    assert w.queue.next_within(0, (1, 1, 1)) == 2  # job 0's (1, 1, 0); ranks 0 and 1 ask for more
    w.remove(0)
    assert w.te == [1] and len(w) == 3
    w.remove(2)
    assert w.te == [1] and w.queue.next_within(0, (UNBOUNDED,) * 3) == 1
