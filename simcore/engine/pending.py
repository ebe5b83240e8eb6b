"""The pending queue, indexed by queue rank, with a fast "next job that could fit" query.

Queue order (DESIGN.md rule 2) is a total order fixed before the run, so a job's place in
the queue is its rank, and the queue is the set of pending ranks. A short queue is a sorted
list scanned directly. A long one is searched by blocks of ranks: each block keeps a lower
bound of its pending requests per dimension, so finding the next pending job whose request
is within given bounds scans block bounds (vectorised), then the few candidate blocks, and a
pass costs far less than the length of the queue. Requests and bounds are integer resource
units (:mod:`simcore.units`). Rows of ranks not pending, and the bounds of empty blocks, hold
:data:`ABSENT`, above every bound: one comparison both checks "pending" and "within bound",
saving a numpy call per search step, and a minimum over rows skips them by itself.
Bounds go stale only downwards (a removal can only raise a block's true minimum), so they
never hide a job; a block found to hold no candidate gets its bound recomputed.
:class:`Waiting` puts jobs (not ranks) in and out, and keeps the pending TE jobs apart.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterable, Iterator
from typing import Final

import numpy as np

from simcore import units
from simcore.engine.queue_order import int_pool

# Final: the compiled engine (mypyc) reads these as constants, not module-dict look-ups
BLOCK: Final = 256
_bisect_left: Final = bisect.bisect_left  # Final: a static read when compiled, not a module-dict look-up
_insort: Final = bisect.insort
_all: Final = np.logical_and.reduce  # ndarray.all adds a Python-level wrapper per call
# compiled (mypyc: this module is then not its .py file), a walk over a sorted list costs ~10 ns a
# rank against a few us per numpy call, so the list pays up to a longer queue (docs/testing.md)
SHORT: Final = (
    32 if __file__.endswith(".py") else 256
)  # up to this many pending jobs, a sorted list beats the block search
UNBOUNDED: Final[int] = units.TOO_BIG  # a bound every request is within
ABSENT: Final[int] = units.TOO_BIG + 1  # above every bound: marks "not pending" and "empty block"


class PendingQueue:
    """A set of pending ranks, with :meth:`next_within` (see the module docstring)."""

    def __init__(self, req_list: list[tuple[int, int, int]]) -> None:
        """`req_list`: the request (units) of each rank."""
        n = len(req_list)
        self.req_list = req_list
        self.nblocks = max(1, -(-n // BLOCK))
        self.mask = np.zeros(self.nblocks * BLOCK, dtype=bool)
        # rows of pending ranks hold their request, all others ABSENT (see the module docstring).
        # Fortran order: the per-row "all dimensions within bound" checks run much faster
        self.req_pad = np.full((self.nblocks * BLOCK, 3), ABSENT, dtype=np.int64, order="F")
        self._cols = (self.req_pad[:, 0], self.req_pad[:, 1], self.req_pad[:, 2])  # scalar writes: 3x faster than a row
        self.bmin = np.full((self.nblocks, 3), ABSENT, dtype=np.int64, order="F")  # ABSENT: empty block
        self.bcount = np.zeros(self.nblocks, dtype=np.int64)
        self.gmin = [ABSENT, ABSENT, ABSENT]  # lower bound of every pending request
        self.lo_block, self.hi_block = self.nblocks, -1  # blocks outside never hold a pending job
        self.count = 0
        # the sorted ranks while the queue is short; the block arrays then hold nothing
        self.short: list[int] | None = []

    def __len__(self) -> int:
        return self.count

    def add(self, r: int) -> None:
        self.count += 1
        g, (c0, c1, c2) = self.gmin, self.req_list[r]
        if c0 < g[0] or c1 < g[1] or c2 < g[2]:
            self.gmin = [c0 if c0 < g[0] else g[0], c1 if c1 < g[1] else g[1], c2 if c2 < g[2] else g[2]]
        if self.short is None:
            self._block_add(r)
            return
        _insort(self.short, r)
        if self.count > SHORT:
            for x in self.short:
                self._block_add(x)
            self.short = None

    def _block_add(self, r: int) -> None:
        self.mask[r] = True
        req = self.req_list[r]
        x0, x1, x2 = self._cols
        x0[r], x1[r], x2[r] = req
        b = r // BLOCK
        self.lo_block, self.hi_block = min(self.lo_block, b), max(self.hi_block, b)
        m = self.bmin
        if self.bcount[b] == 0:  # was ABSENT
            m[b] = req
        else:
            for d, c in enumerate(req):
                if c < m[b, d]:
                    m[b, d] = c
        self.bcount[b] += 1

    def remove(self, r: int) -> None:
        self.count -= 1
        if self.short is not None:
            del self.short[_bisect_left(self.short, r)]  # sorted: a binary search rather than remove()'s scan
            if self.count == 0:
                self.gmin = [ABSENT, ABSENT, ABSENT]
            return
        self.mask[r] = False
        x0, x1, x2 = self._cols
        x0[r] = x1[r] = x2[r] = ABSENT
        b = r // BLOCK
        self.bcount[b] -= 1
        if self.bcount[b] == 0:
            self.bmin[b] = ABSENT
        if self.count <= SHORT // 2:
            lo = self.lo_block * BLOCK
            short = lo + np.flatnonzero(self.mask[lo : (self.hi_block + 1) * BLOCK])
            blocks = np.unique(short // BLOCK)
            self.mask[short] = False
            self.req_pad[short] = ABSENT
            self.bcount[blocks] = 0
            self.bmin[blocks] = ABSENT
            self.lo_block, self.hi_block = self.nblocks, -1
            self.short = short.tolist()

    def next_within(self, start: int, bound: tuple[int, int, int], stop: int | None = None) -> int:
        """The smallest pending rank >= start (and < stop) whose request is <= bound, or -1."""
        if self.count == 0:
            return -1
        end = len(self.mask) if stop is None else stop
        if start >= end:
            return -1
        g = self.gmin
        if g[0] > bound[0] or g[1] > bound[1] or g[2] > bound[2]:
            return -1  # no pending job is that small
        if self.short is not None:
            m0, m1, m2 = bound
            short, req = self.short, self.req_list
            for i in range(_bisect_left(short, start), len(short)):
                r = short[i]
                if r >= end:
                    return -1
                c0, c1, c2 = req[r]
                if c0 <= m0 and c1 <= m1 and c2 <= m2:
                    return r
            return -1
        lo = self.lo_block
        if self.bcount[lo] == 0:
            lo += int(np.argmax(self.bcount[lo : self.hi_block + 1] > 0))
            self.lo_block = lo
        b0, b1 = max(start // BLOCK, lo), min((end - 1) // BLOCK, self.hi_block) + 1
        if b0 >= b1:
            return -1
        bnd = np.array(bound)
        blocks = _all(self.bmin[b0:b1] <= bnd, 1).nonzero()[0]  # ABSENT: empty blocks never match
        for b in blocks.tolist():
            b += b0
            lo, hi = max(start, b * BLOCK), min(end, (b + 1) * BLOCK)
            ok = _all(self.req_pad[lo:hi] <= bnd, 1)  # ABSENT: ranks not pending never match
            i = int(ok.argmax())
            if ok[i]:
                return lo + i
            if lo == b * BLOCK and hi == (b + 1) * BLOCK:  # the whole block: tighten its bound
                self.bmin[b] = np.minimum.reduce(self.req_pad[lo:hi], 0)  # ABSENT rows never win
        if len(blocks):  # candidate blocks held nothing: tighten the global bound too
            # (ABSENT bounds of empty blocks never win; blocks outside lo..hi are empty)
            self.gmin = np.minimum.reduce(self.bmin[self.lo_block : self.hi_block + 1], 0).tolist()
        return -1

    def _is_short(self) -> bool:
        """Is the queue a sorted list now? Asked inside :meth:`scan`'s loop on ``short is None``: a
        removal between two of its yields may set it, and a read of the narrowed attribute there would
        be checked against None when compiled (mypyc), so the loop asks through a call."""
        return self.short is not None

    def scan(self, start: int, bound: Callable[[], list[int]]) -> Iterator[int]:
        """The pending ranks >= start whose request is within ``bound()`` when reached, in rank order.

        For a walk that removes at most the rank it was just given, adds none, and whose bound
        never grows meanwhile: it then yields exactly what repeated :meth:`next_within` calls
        (from the last rank + 1, on the current bound) would, but reads a block's candidates
        with one numpy call instead of a search per rank. The candidates are a snapshot under
        the bound of when it was taken; the ranks after the one removed stay pending, so it stays
        exact until the bound changes, and then the candidates are read afresh on the new bound."""
        req = self.req_list
        pos = start
        while self.short is None:
            bnd = bound()
            g = self.gmin
            if self.count == 0 or g[0] > bnd[0] or g[1] > bnd[1] or g[2] > bnd[2]:
                return
            b0, b1 = max(pos // BLOCK, self.lo_block), self.hi_block + 1
            if b0 >= b1:
                return
            bnd_a = np.array(bnd)
            blocks = _all(self.bmin[b0:b1] <= bnd_a, 1).nonzero()[0]
            fresh, found = False, False  # fresh: the candidates must be read afresh from pos
            for b in blocks.tolist():
                b += b0
                if self._is_short():  # shrunk to a sorted list by a removal: read that from here on
                    pos, fresh = max(pos, b * BLOCK), True
                    break
                lo, hi = max(pos, b * BLOCK), (b + 1) * BLOCK
                at = _all(self.req_pad[lo:hi] <= bnd_a, 1).nonzero()[0].tolist()  # offsets from lo
                if not at and lo == b * BLOCK:  # the whole block: tighten its bound (as next_within)
                    self.bmin[b] = np.minimum.reduce(self.req_pad[lo:hi], 0)
                found = found or bool(at)
                for i in at:
                    r = lo + i
                    if bound() != bnd:  # the bound shrank
                        pos, fresh = r, True
                        break
                    yield r
                if fresh:
                    break
            if not fresh:
                if len(blocks) and not found and not self._is_short():  # tighten the global bound too
                    self.gmin = np.minimum.reduce(self.bmin[self.lo_block : self.hi_block + 1], 0).tolist()
                return
        m0, m1, m2 = bound()  # it changes only while the walk holds a rank: read again after each yield
        for r in self.short[_bisect_left(self.short, pos) :]:  # a copy: the walk removes from the list
            c0, c1, c2 = req[r]
            if c0 <= m0 and c1 <= m1 and c2 <= m2:
                yield r
                m0, m1, m2 = bound()


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
