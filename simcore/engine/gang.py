"""Gang jobs: placing several workers all or nothing, and satisfying a TE gang worker by worker.

A gang (``workers`` = w > 1, DESIGN.md rule 10) is one queue entry whose w workers each need
the row's request. These functions work on a *tentative* copy of the nodes' available room,
so nothing is held for a gang that does not fit (DESIGN-gangs.md points 1, 6-9, 12):

- :func:`place`: the fit test, each worker by the placement rule on the room left by the ones
  before (several may share a node);
- :func:`place_nominated`: a nominated gang's start, its reservations pooled into the room it
  sees, each worker on its tentative node if it fits there, else by the placement rule;
- :func:`satisfy`: a TE gang's victims, one search per worker that does not fit, with the room
  of victims already chosen counted as free on every node they hold.

The engine (:mod:`simcore.engine.loop`) owns the life cycle; these only choose nodes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from simcore.engine.cluster import ClusterState
from simcore.policies import Candidates

_MANY = 1 << 20  # workers a node holds of a request that is zero in a dimension (no limit there)
#: a policy's search on a tentative state: (read-only room, candidates) -> (node, victim entries) or None
Search = Callable[[np.ndarray, Candidates], tuple[int, tuple[int, ...]] | None]


def room_for(avail: np.ndarray, req: np.ndarray) -> int:
    """How many workers of request `req` the room `avail` holds, placed one at a time by any rule.

    Node n holds k_n = min over dimensions of floor(avail / req) of them whatever goes elsewhere, so
    placing them one at a time (by any placement rule) places min(workers, sum of k_n): the fit test
    of :func:`place` without the nodes, a few numpy calls instead of one placement per worker."""
    per_dim = np.where(req > 0, np.maximum(avail, 0) // np.maximum(req, 1), _MANY)
    return int(np.minimum.reduce(per_dim, 1).sum())


def place(cl: ClusterState, avail: np.ndarray, req: np.ndarray, workers: int) -> list[int] | None:
    """Each worker's node (worker order) by the placement rule on the room left by the ones before,
    or None when one fits nowhere (point 1). `avail` is not changed."""
    a = np.array(avail, order="F")
    nodes = []
    for _ in range(workers):
        k = cl.pick(a, req)
        if k < 0:
            return None
        a[k] -= req
        nodes.append(k)
    return nodes


def place_nominated(cl: ClusterState, held: list[tuple[int, np.ndarray]], req: np.ndarray) -> list[int] | None:
    """Point 12: a nominated gang's workers placed with its reservations `held` ((node, reserved)
    per worker) added to the room, each on its tentative node if it fits there, else by the
    placement rule on the room left by the ones before; None when one fits nowhere."""
    a = np.array(cl.avail, order="F")
    for k, h in held:
        a[k] += h
    nodes = []
    for tentative, _ in held:
        k = tentative if bool((a[tentative] >= req).all()) else cl.pick(a, req)
        if k < 0:
            return None
        a[k] -= req
        nodes.append(k)
    return nodes


class Satisfaction(NamedTuple):
    """A TE gang's tentative node per worker and its victim jobs in signal order; when some
    worker got neither room nor victims, `failed_at` is that worker (and nobody is signalled)."""

    nodes: list[int]
    victims: list[int]
    failed_at: int | None = None


def satisfy(cl: ClusterState, req: np.ndarray, workers: int, cands: Candidates, search: Search) -> Satisfaction:
    """Points 6-9: where each worker of a TE gang goes and whom it preempts.

    The tentative state starts from the available room (free minus reservations); a worker that
    fits takes the node the placement rule gives there; one that does not asks `search` for its
    own request, with the victims already chosen left out of the candidates, and takes its
    request on the node found. A chosen victim's room counts as free on every node it holds."""
    a = np.array(cl.avail, order="F")
    nodes: list[int] = []
    victims: list[int] = []
    chosen = np.zeros(len(cands), dtype=bool)  # entries of the victims chosen so far
    for i in range(workers):
        k = cl.pick(a, req)
        if k < 0:
            pool = cands.take(np.flatnonzero(~chosen)) if chosen.any() else cands
            ro = a.view()
            ro.flags.writeable = False
            found = search(ro, pool)
            if found is None:
                return Satisfaction(nodes, victims, i)
            k, entries = found
            for p in entries:
                v = int(pool.job[p])
                victims.append(v)
                mine = cands.job == v
                chosen |= mine
                np.add.at(a, cands.node[mine], cands.req[mine])
        a[k] -= req
        nodes.append(k)
    return Satisfaction(nodes, victims)


def unschedulable(cl: ClusterState, req: np.ndarray, workers: np.ndarray) -> np.ndarray:
    """Mask of the gangs (rows of `req`, integer units, with their `workers`) that do not fit on the
    empty cluster `cl` (rule 8 with point 1); single-worker rows are left False."""
    out = np.zeros(len(workers), dtype=bool)
    for i in np.flatnonzero(workers > 1).tolist():
        out[i] = room_for(cl.cap, req[i]) < workers[i]
    return out
