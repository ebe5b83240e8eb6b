"""The reservation book: nominated TE jobs, what each holds back on its node, and their victims.

When a TE job fits nowhere and the policy names victims, the TE job is *nominated* to the
victims' node (DESIGN.md rules 3 and 5). It reserves there min(unreserved free, request) at
once, and each victim's release (end of its grace period) tops the reservation up, never
above the request, so once all its victims have released it always fits there. Reserved
resources are taken out of :attr:`ClusterState.avail`, which is what "fits" means for every
other job (rule 4). A nominated job placed (on its node or, first, on another) returns its
reservation; victims already signalled are not called back, and their release no longer
tops anything up.

A TE gang (DESIGN-gangs points 11-13) holds one reservation per worker, each on the worker's
tentative node; each worker-request a victim releases on node n tops up the gang's
reservations on n in worker order, and the book counts the victims still in their grace
period (a gang nominated anew only once all of them have released).

A nomination *ends* (DESIGN-failures point 5) when a node it reserves on goes down or starts
draining: its reservations are returned, its victims are no longer attached to it (their
releases top up nothing) and the TE job is an ordinary pending job again (:meth:`end`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import numpy as np

from simcore.engine.cluster import ClusterState


class ReservationBook:
    def __init__(self, cluster: ClusterState, req: np.ndarray) -> None:
        """`req`: the (jobs x 3) requests in integer units, indexed by job."""
        self._cl = cluster
        self._req = req
        self._node: dict[int, int] = {}  # nominated TE job -> its node
        self._held: dict[int, np.ndarray] = {}  # nominated TE job -> reserved vector (units)
        self._victim_of: dict[int, int] = {}  # BE job in grace -> the TE job it makes room for
        self._gang: dict[int, list[tuple[int, np.ndarray]]] = {}  # nominated TE gang -> (node, held) per worker
        self._in_grace: dict[int, int] = {}  # nominated TE gang -> its victims not yet released
        #: node_of(te): the node `te` is nominated to, or None. The dict's own method: the pass
        #: asks for every job it looks at, and a C call costs a fraction of a Python one
        self.node_of: Callable[[int], int | None] = self._node.get

    def __len__(self) -> int:
        return len(self._node)

    def held(self, te: int) -> np.ndarray:
        """What nominated `te` holds back on its node."""
        return self._held[te]

    def fits_on_its_node(self, te: int) -> bool:
        """Does nominated `te` fit on its node, counting its own reservation?"""
        k = self._node[te]
        return bool((self._cl.avail[k] + self._held[te] >= self._req[te]).all())

    def nominate(self, te: int, k: int, victims: Iterable[int]) -> None:
        """`te` waits on node `k` for `victims` (being signalled) to release."""
        # what no one else has reserved, up to the request
        held = np.minimum(np.maximum(self._cl.avail[k], 0), self._req[te])
        self._node[te] = k
        self._held[te] = held
        self._cl.reserve(k, held)
        for v in victims:
            self._victim_of[v] = te

    def drop(self, te: int) -> None:
        """`te` is being placed (or, a gang, nominated afresh): give its reservations back."""
        k = self._node.pop(te)
        if te in self._gang:
            for k, held in self._gang.pop(te):
                self._cl.unreserve(k, held)
            self._in_grace.pop(te)
            return
        self._cl.unreserve(k, self._held.pop(te))

    def on_node(self, k: int) -> list[int]:
        """The nominated TE jobs that reserve on node `k` (one of their workers, for a gang), in nomination order."""
        return [
            te
            for te, n in self._node.items()
            if n == k or (te in self._gang and any(m == k for m, _ in self._gang[te]))
        ]

    def end(self, te: int) -> None:
        """`te`'s nomination ends: its reservations are returned and its victims detached."""
        self.drop(te)
        for v in [v for v, t in self._victim_of.items() if t == te]:
            del self._victim_of[v]

    # -- gangs ------------------------------------------------------------------------------
    def nominate_gang(self, te: int, nodes: list[int], victims: Iterable[int]) -> None:
        """TE gang `te` waits with worker i reserved on ``nodes[i]`` for `victims` to release:
        in worker order each reserves min(unreserved free, request)."""
        workers = []
        for k in nodes:
            held = np.minimum(np.maximum(self._cl.avail[k], 0), self._req[te])
            self._cl.reserve(k, held)
            workers.append((k, held))
        self._node[te] = nodes[0]
        self._gang[te] = workers
        victims = list(victims)
        self._in_grace[te] = len(victims)
        for v in victims:
            self._victim_of[v] = te

    def gang_held(self, te: int) -> list[tuple[int, np.ndarray]]:
        """Nominated gang `te`'s (node, reserved) per worker, in worker order."""
        return self._gang[te]

    def in_grace(self, te: int) -> bool:
        """Is some victim of nominated gang `te` still in its grace period?"""
        return self._in_grace[te] > 0

    def released_gang(self, victim: int, nodes: list[int]) -> None:
        """Gang `victim` has just given back a worker-request on each of `nodes` (worker order)."""
        te = self._victim_of.pop(victim, None)
        if te is None:  # drained, or its TE job's nomination ended
            return
        for k in nodes:
            self._top_up(te, k, self._req[victim])
        if te in self._gang:
            self._in_grace[te] -= 1

    def _top_up(self, te: int, k: int, freed: np.ndarray) -> None:
        """`freed` was given back on node `k`: top up `te`'s reservations there, in worker order."""
        if te not in self._gang:
            if self._node.get(te) == k:
                self._top_single(te, k, freed)
            return
        for i, (n, held) in enumerate(self._gang[te]):
            if n != k:
                continue
            top = np.minimum(np.minimum(np.maximum(self._req[te] - held, 0), freed), np.maximum(self._cl.avail[k], 0))
            self._gang[te][i] = (n, held + top)
            self._cl.reserve(k, top)
            freed = freed - top

    def released(self, victim: int, k: int) -> None:
        """`victim` has just given its resources on node `k` back: top up the reservation of
        the TE job it made room for, if that job still waits on `k`."""
        te = self._victim_of.pop(victim, None)
        if te is None:  # drained, or its TE job's nomination ended
            return
        if te in self._gang:
            self._top_up(te, k, self._req[victim])
            self._in_grace[te] -= 1
            return
        if self._node.get(te) != k:
            return
        self._top_single(te, k, self._req[victim])

    def _top_single(self, te: int, k: int, freed: np.ndarray) -> None:
        held = self._held[te]
        top = np.minimum(np.maximum(self._req[te] - held, 0), freed)
        top = np.minimum(top, np.maximum(self._cl.avail[k], 0))
        self._held[te] = held + top
        self._cl.reserve(k, top)
