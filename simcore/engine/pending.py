"""The pending queue: the pending ranks in queue order, with a fast "next job that could fit" walk.

Queue order (DESIGN.md rule 2) is a total order fixed before the run, so a job's place in the
queue is its rank, and the queue is the set of pending ranks. They are kept as a chunked sorted
list: consecutive runs of ranks (chunks of :data:`LOAD` to ``2 * LOAD`` ranks, fewer after
removals), each with a lower bound of its requests per dimension. A walk for the pending jobs
whose request is within a bound (per dimension, the most any node has) skips a whole chunk whose
lower bound is above it, and reads the other chunks rank by rank; adding or removing a rank is a
binary search over the chunks' last ranks and one within a chunk. Requests and bounds are integer
resource units (:mod:`simcore.core.units`). A removal can only raise a chunk's true lower bound, so a
bound left as it was never hides a job; one that the removed request held is marked stale, and
made exact again when a walk reads the whole chunk and finds nothing within its bound (a chunk
with candidates is read anyway, so its bounds are left as they are).
:class:`Waiting` puts jobs (not ranks) in and out, and keeps the pending TE jobs apart.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterable, Iterator
from typing import Final

import numpy as np

from simcore.core import units
from simcore.engine.queue_order import int_pool

# Final: the compiled engine (mypyc) reads these as constants, not module-dict look-ups
LOAD: Final = 32  # a chunk splits in two above 2 * LOAD ranks, and merges into a neighbour at LOAD // 4 or fewer
_bisect_left: Final = bisect.bisect_left
_insort: Final = bisect.insort
UNBOUNDED: Final[int] = units.TOO_BIG  # a bound every request is within


class _Chunk:
    """A run of pending ranks, sorted, and per dimension a lower bound of their requests."""

    def __init__(self, ranks: list[int], lo0: int, lo1: int, lo2: int, stale: bool) -> None:
        self.ranks = ranks
        self.lo0, self.lo1, self.lo2 = lo0, lo1, lo2
        self.stale = stale  # a removal took a request equal to a bound: the bound may be below the least request now

    def tighten(self, req: list[tuple[int, int, int]]) -> None:
        """Make the bounds the least requests of the ranks held (exact again)."""
        r0 = self.ranks[0]
        m0, m1, m2 = req[r0]
        for r in self.ranks:
            c0, c1, c2 = req[r]
            if c0 < m0:
                m0 = c0
            if c1 < m1:
                m1 = c1
            if c2 < m2:
                m2 = c2
        self.lo0, self.lo1, self.lo2, self.stale = m0, m1, m2, False


def _chunk(ranks: list[int], req: list[tuple[int, int, int]]) -> _Chunk:
    """A chunk of `ranks` with exact bounds."""
    c = _Chunk(ranks, 0, 0, 0, True)
    c.tighten(req)
    return c


class PendingQueue:
    """A set of pending ranks, with :meth:`scan` and :meth:`next_within` (see the module docstring)."""

    def __init__(self, req_list: list[tuple[int, int, int]]) -> None:
        """`req_list`: the request (units) of each rank."""
        self.req_list = req_list
        self.chunks: list[_Chunk] = []
        self.lasts: list[int] = []  # each chunk's last rank: the binary search's keys
        self.shape = 0  # bumped when chunks are made, merged or dropped (a walk then finds its place again)
        self.count = 0

    def __len__(self) -> int:
        return self.count

    def __contains__(self, r: int) -> bool:
        ci = _bisect_left(self.lasts, r)
        if ci == len(self.lasts):
            return False
        ranks = self.chunks[ci].ranks
        i = _bisect_left(ranks, r)
        return i < len(ranks) and ranks[i] == r

    def ranks(self) -> list[int]:
        """Every pending rank, in queue order."""
        return [r for c in self.chunks for r in c.ranks]

    def add(self, r: int) -> None:
        """Rank `r` joins (it must not be pending)."""
        self.count += 1
        req, lasts = self.req_list, self.lasts
        c0, c1, c2 = req[r]
        ci = _bisect_left(lasts, r)
        if ci == len(lasts):  # after every pending rank: the last chunk takes it
            if ci == 0:
                self.chunks.append(_Chunk([r], c0, c1, c2, False))
                lasts.append(r)
                self.shape += 1
                return
            ci -= 1
            lasts[ci] = r
        c = self.chunks[ci]
        ranks = c.ranks
        _insort(ranks, r)
        if c0 < c.lo0:
            c.lo0 = c0
        if c1 < c.lo1:
            c.lo1 = c1
        if c2 < c.lo2:
            c.lo2 = c2
        if len(ranks) > 2 * LOAD:
            self._split(ci)

    def _split(self, ci: int) -> None:
        """Cut chunk `ci` in two halves, each with its bounds made exact."""
        ranks, req = self.chunks[ci].ranks, self.req_list
        half = len(ranks) // 2
        self.chunks[ci : ci + 1] = [_chunk(ranks[:half], req), _chunk(ranks[half:], req)]
        self.lasts.insert(ci, ranks[half - 1])
        self.shape += 1

    def remove(self, r: int) -> None:
        """Rank `r` leaves (it must be pending)."""
        self.count -= 1
        chunks, lasts = self.chunks, self.lasts
        ci = _bisect_left(lasts, r)
        c = chunks[ci]
        ranks = c.ranks
        i = _bisect_left(ranks, r)
        del ranks[i]
        c0, c1, c2 = self.req_list[r]
        if c0 == c.lo0 or c1 == c.lo1 or c2 == c.lo2:
            c.stale = True
        n = len(ranks)
        if n == 0:
            del chunks[ci], lasts[ci]
            self.shape += 1
            return
        if i == n:
            lasts[ci] = ranks[-1]
        if n <= LOAD // 4 and len(chunks) > 1:  # merge into a neighbour, so that few chunks hold few ranks
            a = ci if ci + 1 < len(chunks) else ci - 1  # the first of the two
            x, y = chunks[a], chunks[a + 1]
            merged = _Chunk(
                x.ranks + y.ranks,
                x.lo0 if x.lo0 < y.lo0 else y.lo0,
                x.lo1 if x.lo1 < y.lo1 else y.lo1,
                x.lo2 if x.lo2 < y.lo2 else y.lo2,
                x.stale or y.stale,
            )
            chunks[a : a + 2] = [merged]
            del lasts[a]
            self.shape += 1
            if len(merged.ranks) > 2 * LOAD:
                self._split(a)

    def next_within(
        self,
        start: int,
        bound: tuple[int, int, int],
        stop: int | None = None,
        accept: Callable[[int], bool] | None = None,
    ) -> int:
        """The smallest pending rank >= start (and < stop) whose request is <= bound (and that `accept`
        takes, when given: it must not change the queue), or -1."""
        m0, m1, m2 = bound
        req, chunks = self.req_list, self.chunks
        for ci in range(_bisect_left(self.lasts, start), len(chunks)):
            c = chunks[ci]
            ranks = c.ranks
            if stop is not None and ranks[0] >= stop:
                return -1
            if c.lo0 > m0 or c.lo1 > m1 or c.lo2 > m2:
                continue
            first = _bisect_left(ranks, start)
            within = False
            for i in range(first, len(ranks)):
                r = ranks[i]
                if stop is not None and r >= stop:
                    return -1
                c0, c1, c2 = req[r]
                if c0 <= m0 and c1 <= m1 and c2 <= m2:
                    if accept is None or accept(r):
                        return r
                    within = True
            if first == 0 and c.stale and not within:  # read whole and nothing within: exact bounds may skip it
                c.tighten(req)
        return -1

    def scan(self, start: int, bound: Callable[[], list[int]]) -> Iterator[int]:
        """The pending ranks >= start whose request is within ``bound()`` when reached, in rank order.

        For a walk that removes at most the rank it was just given, adds none, and whose bound
        never grows meanwhile: it then yields exactly what repeated :meth:`next_within` calls
        (from the last rank + 1, on the current bound) would. A rank or chunk passed over under
        the bound of then is above every later bound too, so the walk only goes forward, reading
        the bound again after each yield."""
        req, chunks = self.req_list, self.chunks
        m0, m1, m2 = bound()
        ci, i = _bisect_left(self.lasts, start), -1  # i = -1: find `start` in the chunk
        while ci < len(chunks):
            c = chunks[ci]
            if c.lo0 > m0 or c.lo1 > m1 or c.lo2 > m2:
                ci, i = ci + 1, 0
                continue
            ranks = c.ranks
            if i < 0:
                i = _bisect_left(ranks, start)
            whole, moved = i == 0, False  # whole: every rank of the chunk read, none yielded
            while i < len(ranks):
                r = ranks[i]
                c0, c1, c2 = req[r]
                if c0 <= m0 and c1 <= m1 and c2 <= m2:
                    whole, shape = False, self.shape
                    yield r
                    m0, m1, m2 = bound()
                    if self.shape != shape:  # chunks merged or dropped by the removal of r: find the place again
                        start, moved = r + 1, True
                        ci, i = _bisect_left(self.lasts, start), -1
                        break
                    if i < len(ranks) and ranks[i] == r:  # still pending (else the next rank moved to i)
                        i += 1
                else:
                    i += 1
            if not moved:
                if whole and c.stale:  # nothing within: exact bounds may skip it next time (as next_within)
                    c.tighten(req)
                ci, i = ci + 1, 0


class Waiting:
    """The pending jobs: a :class:`PendingQueue` of their ranks, and the ranks of the pending TE jobs.

    The TE jobs are kept apart because a pass always looks at each of them (one may trigger a
    preemption, or be nominated and now fit) while it skips most other jobs.
    """

    def __init__(
        self, rank: np.ndarray, req_list: list[tuple[int, int, int]], is_te: list[bool], ints: np.ndarray | None = None
    ) -> None:
        """`rank`: each job's queue rank (rule 2); `req_list`, `is_te`: each job's request (units) and class;
        `ints`: :func:`~simcore.engine.queue_order.int_pool` of the jobs (made here when not given)."""
        ints = int_pool(len(rank)) if ints is None else ints
        job_of_rank = np.empty(len(rank), dtype=np.int64)
        job_of_rank[rank] = np.arange(len(rank))
        self.rank: list[int] = ints[rank].tolist()
        self.job_of_rank: list[int] = ints[job_of_rank].tolist()
        self._is_te = is_te
        self.queue = PendingQueue([req_list[j] for j in self.job_of_rank])
        self.te: list[int] = []  # ranks of the pending TE jobs, sorted

    def __len__(self) -> int:
        return self.queue.count

    def add(self, jobs: Iterable[int]) -> None:
        for j in jobs:
            r = self.rank[j]
            self.queue.add(r)
            if self._is_te[j]:
                _insort(self.te, r)

    def remove(self, r: int) -> None:
        """The job of rank `r` leaves (placed)."""
        self.queue.remove(r)
        if self._is_te[self.job_of_rank[r]]:
            self.te.remove(r)
