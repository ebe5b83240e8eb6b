"""Available and capacity resources per node, as (nodes x 3) numpy arrays.

Answers "where does this request fit" (DESIGN.md rules 4 and 6) with checks vectorised
over nodes, or, while the nodes are in few distinct states (same room, same capacity), in
plain Python over those states (see :meth:`ClusterState.choose`); on a large cluster only the
nodes with room for the smallest request count, and those are in few states even when the
nodes are in hundreds. ``avail`` is free minus the reservations of nominated TE jobs: what any
other job may use. Resources are integer units (:mod:`simcore.core.units`), so every sum is exact and
"fits" is an exact comparison.
"""

from __future__ import annotations

import bisect
from typing import Final

import numpy as np

from simcore.core import units
from simcore.core.model import ClusterSpec

# the ufuncs' own reductions: ndarray.all/max add a Python-level wrapper per call
_all: Final = np.logical_and.reduce
_max: Final = np.maximum.reduce
SUBSET_NODES: Final = 256  # from this many nodes, choose() looks only at the open nodes (see below)
# up to this many distinct node states (of open nodes, on a large cluster), choose() compares
# the states in Python: ~0.4 us a state, against 7 to 13 us for the numpy pass
# (docs/history/engine.md#engine-speed-by-algorithm-issue-21-second-round)
GROUPS_MAX: Final = 32
_bisect_left: Final = bisect.bisect_left  # Final: a static read when compiled, not a module-dict look-up
_insort: Final = bisect.insort
# A node's key: its room (three units) and its capacity's class. Of any length to the compiled
# engine (mypyc), which keeps a tuple of a fixed length unboxed and made a new tuple object of
# it, with a new int object per value, at every use as a dictionary key or list item: a key is
# now made once, as a tuple object (docs/history/engine.md#the-compiled-engine-fifth-round-issue-21).
Key = tuple[int, ...]


class ClusterState:
    """Capacity and available resources of every node, and the placement rule over them."""

    def __init__(self, spec: ClusterSpec, placement: str, floor: np.ndarray | None = None) -> None:
        """`floor`: a per-dimension lower bound (units) of every request that will be placed, if known."""
        # Fortran order: reductions over the 3 dimensions of every node run ~10x faster
        self.cap = np.asfortranarray(units.capacities(spec.capacity_matrix(), spec.names))
        self.cap.flags.writeable = False
        # the room per node; written lazily (see the avail property): most runs read it rarely
        self._avail = np.array(self.cap, order="F")
        # 1/capacity per unit, 0 where a dimension has no capacity (those dimensions are skipped)
        self.inv_cap = np.asfortranarray(units.inverse(self.cap))
        self.placement = placement
        self.n = len(self.cap)
        self.version = 0  # bumped whenever room is given back, so a pass knows to look again
        self._top: list[int] | None = None  # per-dimension max of avail (see top()), None when stale
        #: the nodes whose avail changed, in order, for one reader that empties it (a gang's
        #: room count, :class:`simcore.engine.gang.GangRoom`); None: nobody reads it
        self.touched: list[int] | None = None
        #: per dimension, the room summed over the nodes, kept by the same reader; None: not kept
        self.totals: list[int] | None = None
        self.closed: set[int] = set()  # the nodes that take nothing (see close())
        # scratch arrays for choose(): reusing them saves an allocation per numpy call
        self._d = np.empty_like(self._avail)
        self._s = np.empty(self._avail.shape, order="F")
        self._m = np.empty(self.n)
        self._cols = (self._avail[:, 0], self._avail[:, 1], self._avail[:, 2])  # scalar writes: faster than a row
        # the nodes whose room changed since avail was last read (each once: `_stale` marks them);
        # their numpy rows are written when it is read, not on every start and finish
        self._dirty: list[int] = []
        self._stale = [False] * self.n
        # Nodes of equal room and capacity get equal slacks for every request, so the placement
        # rule's pick is, among the *groups* of such nodes, the best group's lowest node: with few
        # groups (an M/M/c cluster of identical nodes has two, empty and full) comparing them in
        # Python beats the numpy pass over every node. A node's key is its room and its
        # capacity's class (the first node of that capacity); each group keeps its nodes sorted.
        # typed rows, so that the compiled engine (mypyc) does their arithmetic natively
        cap_rows: list[list[int]] = self.cap.tolist()
        first: dict[tuple[int, int, int], int] = {}
        self._inv: list[tuple[float, float, float]] = [(r[0], r[1], r[2]) for r in self.inv_cap.tolist()]
        self._key: list[Key] = [
            (r[0], r[1], r[2], first.setdefault((r[0], r[1], r[2]), k)) for k, r in enumerate(cap_rows)
        ]
        self._groups: dict[Key, list[int]] = {}
        for k, key in enumerate(self._key):
            self._groups.setdefault(key, []).append(k)
        # each node's group (its key's list; stale while the node is in none): a node leaving its
        # group finds it here, without hashing its key (a dictionary look-up per move saved)
        self._group_of: list[list[int]] = [self._groups[key] for key in self._key]
        self.group_max = GROUPS_MAX
        # On a large cluster most nodes are too full for even the smallest request, so
        # choose() looks only at the "open" nodes, those that fit `floor`. A node not open
        # fits no request (a < floor <= r), and the open nodes keep node order, so the pick
        # is the same as over all nodes. There the groups hold only the open nodes: a busy
        # cluster has few open states even when its nodes are in hundreds of states.
        self._floor: tuple[int, int, int] | None = None
        self._open: np.ndarray | None = None
        self._open_idx: np.ndarray | None = None  # indices of the open nodes, None when stale
        if floor is not None and self.n >= SUBSET_NODES:
            f0, f1, f2 = self._floor = (int(floor[0]), int(floor[1]), int(floor[2]))
            self._open = _all(self._avail >= np.asarray(self._floor), 1)
            for key in [key for key in self._groups if not (key[0] >= f0 and key[1] >= f1 and key[2] >= f2)]:
                del self._groups[key]

    @property
    def avail(self) -> np.ndarray:
        """(nodes x 3) the room of every node (units): free minus reservations. Up to date when read."""
        dirty = self._dirty
        if dirty:
            x0, x1, x2 = self._cols
            key, stale = self._key, self._stale
            for k in dirty:
                a0, a1, a2, _ = key[k]
                x0[k], x1[k], x2[k] = a0, a1, a2
                stale[k] = False
            dirty.clear()
        return self._avail

    def top(self) -> list[int]:
        """Per dimension, the most any node has available (cached until room is taken); on a
        large cluster, any open node (the others fit no request: a bound as good, and tighter).
        [-1, -1, -1] when no node is open: above no request."""
        if self._top is None:
            keys = self._groups.keys()  # every (open) node's room is its group's key
            if not keys:
                self._top = [-1, -1, -1]
            elif len(keys) <= self.group_max or self._open is not None:
                m0, m1, m2, _ = next(iter(keys))
                for a0, a1, a2, _ in keys:  # comparisons: three max() over generators cost more
                    if a0 > m0:
                        m0 = a0
                    if a1 > m1:
                        m1 = a1
                    if a2 > m2:
                        m2 = a2
                self._top = [m0, m1, m2]
            else:
                self._top = _max(self.avail, 0).tolist()
        return self._top

    def choose(self, req: np.ndarray | None, req_t: tuple[int, int, int]) -> int:
        """The node the placement rule picks among those that fit `req` (also given as the
        tuple `req_t`; None: made from it when the numpy pass needs it), or -1."""
        top = self._top
        # no node has more than top: this rejects what the vectorised test below would, without a numpy call
        if top is not None and (top[0] < req_t[0] or top[1] < req_t[1] or top[2] < req_t[2]):
            return -1
        if len(self._groups) <= self.group_max:
            return self._choose_group(req_t)
        if req is None:
            req = np.array(req_t, dtype=np.int64)
        if self._open is None:
            return self._pick(self.avail, self.inv_cap, req, self._d, self._s, self._m)
        idx = self._open_idx
        if idx is None:
            idx = self._open_idx = self._open.nonzero()[0]
        if len(idx) == 0:
            return -1
        k = self._pick(self.avail[idx], self.inv_cap[idx], req)
        return int(idx[k]) if k >= 0 else -1

    def _choose_group(self, req: tuple[int, int, int]) -> int:
        """:meth:`_pick` over the groups of equal nodes: the same slacks in the same float
        arithmetic (an integer difference x 1/capacity, the max over dimensions, x 1e9, rounded
        half to even as ``rint``: ``round``), the same ties (the lowest node)."""
        r0, r1, r2 = req
        best_k, best_s = -1, 0
        placement, inv = self.placement, self._inv
        scale: float = units.NORM_SCALE
        groups = self._groups.items()
        if placement == "first_fit":
            for (a0, a1, a2, _), nodes in groups:
                if a0 >= r0 and a1 >= r1 and a2 >= r2 and (best_k < 0 or nodes[0] < best_k):
                    best_k = nodes[0]
            return best_k
        worst = placement == "worst_fit"
        for (a0, a1, a2, c), nodes in groups:
            if a0 < r0 or a1 < r1 or a2 < r2:
                continue
            i0, i1, i2 = inv[c]
            # max() of the three, as comparisons (a call to max costs more): the same float
            x, y = (a0 - r0) * i0, (a1 - r1) * i1
            if y > x:
                x = y
            y = (a2 - r2) * i2
            if y > x:
                x = y
            # round(v) (half to even) in native arithmetic: v >= 0 (the request fits), so int() floors,
            # and v - s is exact (v < 2**52)
            v = x * scale
            s = int(v)
            d = v - s
            if d > 0.5 or (d == 0.5 and s & 1):
                s += 1
            if worst:
                s = -s
            k = nodes[0]
            if best_k < 0 or s < best_s or (s == best_s and k < best_k):
                best_k, best_s = k, s
        return best_k

    def pick(self, avail: np.ndarray, req: np.ndarray) -> int:
        """The placement rule on another state of the nodes (`avail`, a gang's tentative one), or -1."""
        return self._pick(avail, self.inv_cap, req)

    def _pick(self, avail: np.ndarray, inv_cap: np.ndarray, req: np.ndarray, d_out=None, s_out=None, m_out=None) -> int:
        """The placement rule over the rows of `avail` (row index, or -1); the outs are optional scratch."""
        d = np.subtract(avail, req, out=d_out)  # exact: integer units
        fits = d >= 0  # per node and dimension
        if self.placement == "first_fit":
            ok = _all(fits, 1)
            k = int(ok.argmax())
            return k if ok[k] else -1
        # Slacks over all rows rather than the feasible ones: gathering rows costs more.
        # The slack is max over dimensions of (free - request) x (1/capacity), rounded to
        # 1e-9 as rint(x * 1e9): equal integer differences give equal slacks.
        if self.placement == "best_fit":  # a dimension that does not fit makes the slack inf
            s = np.multiply(d, inv_cap, out=s_out)
            s[~fits] = np.inf
            slack = _max(s, 1, out=m_out)
            np.multiply(slack, units.NORM_SCALE, out=slack)
            np.rint(slack, out=slack)
            k = int(slack.argmin())
        else:
            slack = np.rint(np.where(_all(fits, 1), _max(d * inv_cap, 1), -np.inf) * units.NORM_SCALE)
            k = int(slack.argmax())
        return k if abs(slack[k]) != np.inf else -1

    # Requests come as the (cpu, mem, gpu) tuples of integer units the engine keeps per job.
    def allocate(self, k: int, req: tuple[int, int, int]) -> None:
        old = self._key[k]
        self._set(k, old, old[0] - req[0], old[1] - req[1], old[2] - req[2])
        t = self._top
        # room only shrank, on one node: the maxima change only if that node held one of them
        if t is not None and (old[0] == t[0] or old[1] == t[1] or old[2] == t[2]):
            self._top = None

    def _set(self, k: int, old: Key, a0: int, a1: int, a2: int) -> bool:
        """Node k's room is now (a0, a1, a2), was `old` (its key): write it, and move k between
        groups (on a large cluster, the groups of open nodes). Returns whether k is in a group."""
        if not self._stale[k]:
            self._stale[k] = True
            self._dirty.append(k)
        groups = self._groups
        key: Key = (a0, a1, a2, old[3])  # a tuple object, made once (see Key)
        self._key[k] = key
        was_in = is_in = True
        floor = self._floor
        if floor is not None:
            f0, f1, f2 = floor
            was_in = old[0] >= f0 and old[1] >= f1 and old[2] >= f2
            is_in = a0 >= f0 and a1 >= f1 and a2 >= f2
            if was_in != is_in:
                assert self._open is not None  # kept with the floor
                self._open[k] = is_in
                self._open_idx = None
        if was_in:
            nodes = self._group_of[k]
            if len(nodes) == 1:
                del groups[old]
            else:  # sorted: a binary search rather than remove()'s scan
                del nodes[_bisect_left(nodes, k)]
        if is_in:
            joined = groups.get(key)
            if joined is None:
                joined = groups[key] = [k]
            else:
                _insort(joined, k)
            self._group_of[k] = joined
        if self.touched is not None:
            self.touched.append(k)
        t = self.totals
        if t is not None:
            t[0] += a0 - old[0]
            t[1] += a1 - old[1]
            t[2] += a2 - old[2]
        return is_in

    def release(self, k: int, req: tuple[int, int, int]) -> None:
        self._give_back(k, req)

    # -- nodes that take nothing (down or draining: DESIGN rule 12, :mod:`simcore.engine.nodes_down`)
    def close(self, k: int) -> None:
        """Node k takes nothing: its room is held at -1 unit in every dimension, below any request
        (one of zero too), by taking what it has; called again after room was given back there
        (a job in its grace period releasing), it takes that too. The room summed over the nodes
        (``totals``, a gang's bound) counts a closed node as 0."""
        a0, a1, a2, _ = self._key[k]
        if a0 != -1 or a1 != -1 or a2 != -1:
            self.allocate(k, (a0 + 1, a1 + 1, a2 + 1))
        t = self.totals
        if k not in self.closed:
            self.closed.add(k)
            if t is not None:
                t[0], t[1], t[2] = t[0] + 1, t[1] + 1, t[2] + 1

    def reopen(self, k: int) -> None:
        """Closed node k, empty, takes jobs again: its whole capacity is room."""
        a0, a1, a2, _ = self._key[k]
        assert a0 == a1 == a2 == -1, f"node {k} reopened with room {(a0, a1, a2)} (not empty or not closed)"
        self.closed.remove(k)
        t = self.totals
        if t is not None:
            t[0], t[1], t[2] = t[0] - 1, t[1] - 1, t[2] - 1
        c0, c1, c2 = self.cap[k].tolist()
        self._give_back(k, (c0 + 1, c1 + 1, c2 + 1))

    # a tuple, not the list tolist() gives: compiled (mypyc), a tuple annotation is checked
    def reserve(self, k: int, amount: np.ndarray) -> None:
        a0, a1, a2 = amount.tolist()
        self.allocate(k, (a0, a1, a2))

    def unreserve(self, k: int, amount: np.ndarray) -> None:
        a0, a1, a2 = amount.tolist()
        self._give_back(k, (a0, a1, a2))

    def _give_back(self, k: int, amount: tuple[int, int, int]) -> None:
        old = self._key[k]
        a0, a1, a2 = old[0] + amount[0], old[1] + amount[1], old[2] + amount[2]
        is_in = self._set(k, old, a0, a1, a2)
        self.version += 1
        t = self._top
        # room only grew (a node not open stays out of the bound): the maximum stays exact (a
        # new list: callers may hold the old one; comparisons rather than max(), which costs more)
        if is_in and t is not None and (a0 > t[0] or a1 > t[1] or a2 > t[2]):
            self._top = [a0 if a0 > t[0] else t[0], a1 if a1 > t[1] else t[1], a2 if a2 > t[2] else t[2]]
