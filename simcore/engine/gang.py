"""Gang jobs: placing several workers all or nothing, and satisfying a TE gang worker by worker.

A gang (``workers`` = w > 1, DESIGN.md rule 10) is one queue entry whose w workers each need
the row's request. These functions work on a *tentative* copy of the nodes' available room,
so nothing is held for a gang that does not fit (DESIGN-gangs.md points 1, 6-9, 12):

- :meth:`GangRun._place`: a gang that fits, each worker by the placement rule on the room left
  by the ones before (several may share a node);
- :func:`place_nominated`: a nominated gang's start, its reservations pooled into the room it
  sees, each worker on its tentative node if it fits there, else by the placement rule;
- :func:`satisfy`: a TE gang's victims, one search per worker that does not fit, with the room
  of victims already chosen counted as free on every node they hold.

Those only choose nodes. :class:`GangRun` holds the life cycle's gang branches (a gang's pass
step, release and finish), mixed into the engine's run (:mod:`simcore.engine.loop`; it asks the policy through
:class:`~simcore.engine.ask.PolicyAsk`), which
owns the life cycle and sends a single-worker job never this way. Whether a gang's workers fit
in some room is counted by :func:`simcore.workload.fit.workers_per_node`, the count that also
decides, on the empty cluster, which jobs are unschedulable.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from simcore.core.result import FINISH, RELEASE
from simcore.engine.ask import PolicyAsk, read_only
from simcore.engine.cluster import ClusterState
from simcore.engine.eventlog import EventLog
from simcore.engine.reservations import ReservationBook
from simcore.policies import Candidates, decision
from simcore.workload.fit import workers_per_node
from simcore.workload.schema import MAX_WORKERS

#: a policy's search on a tentative state: (read-only room, candidates, every running BE job or None,
#: the victims chosen so far) -> (node, victim entries) or None
Search = Callable[[np.ndarray, Candidates, Candidates | None, list[int]], tuple[int, tuple[int, ...]] | None]


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


def satisfy(
    cl: ClusterState,
    req: np.ndarray,
    workers: int,
    cands: Candidates,
    everyone: Candidates | None,
    search: Search,
    skip: np.ndarray | None = None,
    short: Callable[[list[int]], bool] | None = None,
) -> Satisfaction:
    """Points 6-9: where each worker of a TE gang goes and whom it preempts.

    The tentative state starts from the available room (free minus reservations); a worker that
    fits takes the node the placement rule gives there; one that does not asks `search` for its
    own request, with the victims already chosen left out of the candidates (and of `everyone`,
    every running BE job when ``min_runtime`` exempts some, else None), and takes its request on
    the node found. A chosen victim's room counts as free on every node it holds. The nodes `skip`
    masks (draining, or by the time victims release: DESIGN-failures point 5) take no tentative room.
    With queues, `short(victims)` says whether the gang still fails the quota condition with the
    victims chosen so far: a worker then searches even where it fits (DESIGN-queues point 6)."""
    a = np.array(cl.avail, order="F")
    if skip is not None:
        a[skip] = -1
    nodes: list[int] = []
    victims: list[int] = []
    chosen = np.zeros(len(cands), dtype=bool)  # entries of the victims chosen so far
    for i in range(workers):
        k = cl.pick(a, req)
        if k >= 0 and short is not None and short(victims):
            k = -1
        if k < 0:
            pool, running = cands, everyone
            if chosen.any():
                pool = cands.take(np.flatnonzero(~chosen))
                if everyone is not None:  # a chosen victim's room is free already: it frees nothing more
                    running = everyone.take(np.flatnonzero(~np.isin(everyone.job, victims)))
            found = search(read_only(a), pool, running, victims)
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


def fits(avail: np.ndarray, req: np.ndarray, workers: int) -> bool:
    """Do `workers` workers of request `req` fit in the room `avail`, one at a time by any rule?
    Node n holds :func:`~simcore.workload.fit.workers_per_node` of them whatever goes elsewhere, so
    the fit test is their sum: a few numpy calls instead of one placement per worker (the run keeps
    it up to date instead, :class:`GangRoom`; the watch asks this for a room of its own)."""
    return int(np.maximum(workers_per_node(req[None, :], avail), 0).sum()) >= workers  # a closed node: none


class GangRoom:
    """How many workers of a gang's request the nodes' current room holds: the sum over the
    nodes of :func:`~simcore.workload.fit.workers_per_node`, which :func:`fits` compares with
    the workers. The pass asks for every gang it looks at, and most do not fit, so the count is
    kept per request and node and brought up to date, when asked, on just the nodes whose room
    changed since that request was last asked for (``ClusterState.touched``, a log of node
    indices; ``_base`` is the log position of its first entry). Exact: the same integer formula
    on the same room, node by node. Before any count, :meth:`fits` compares the workers with the
    room summed over the nodes (``ClusterState.totals``), which rejects almost every gang that
    does not fit at the price of three multiplications (docs/history/engine.md#gang-passes-issue-21-sixth-round)."""

    def __init__(self, cl: ClusterState) -> None:
        self._cl = cl
        self._log: list[int] = []
        cl.touched = self._log
        cl.totals = cl.avail.sum(axis=0).tolist()
        self._base = 0
        self._limit = 8 * cl.n + 1024  # log entries kept; a request not asked for since is counted afresh
        # request -> [workers per node, their sum, log position up to which they are exact]
        self._counts: dict[tuple[int, int, int], list] = {}

    def fits(self, req: tuple[int, int, int], w: int) -> bool:
        """Does the room hold `w` workers of request `req` (units): ``holds(req) >= w``?

        First a bound, exact as a rejection: in a dimension d the request uses (r_d > 0), node n
        holds at most floor(a_nd / r_d) workers, and floors of any integers sum to at most the
        floor of their sum, so the count is at most floor(T_d / r_d) for the summed room T_d;
        when w r_d > T_d, w > floor(T_d / r_d) >= the count: the gang does not fit."""
        log = self._log
        if len(log) > self._limit:  # here, not in holds(): most asks end at the bound
            self._base += len(log)
            log.clear()
        t = self._cl.totals
        assert t is not None  # set by __init__
        r0, r1, r2 = req
        if (r0 > 0 and r0 * w > t[0]) or (r1 > 0 and r1 * w > t[1]) or (r2 > 0 and r2 * w > t[2]):
            return False
        return self.holds(req) >= w

    def holds(self, req: tuple[int, int, int]) -> int:
        """How many workers of request `req` (units) the room holds, one at a time by any rule."""
        log, base = self._log, self._base
        end = base + len(log)
        entry = self._counts.get(req)
        if entry is None or entry[2] < base or end - entry[2] > self._cl.n:
            per_node = workers_per_node(np.array([req], dtype=np.int64), self._cl.avail)[0].tolist()
            if self._cl.closed:  # a closed node's room is -1 (rule 12): it holds none, not -1
                per_node = [k if k > 0 else 0 for k in per_node]
            entry = self._counts[req] = [per_node, sum(per_node), end]
        elif entry[2] < end:
            per_node, total, avail = entry[0], entry[1], self._cl.avail
            for k in set(log[entry[2] - base :]):
                now = _holds(avail[k].tolist(), req)
                total += now - per_node[k]
                per_node[k] = now
            entry[1], entry[2] = total, end
        return entry[1]


def _holds(a: list[int], req: tuple[int, int, int]) -> int:
    """:func:`~simcore.workload.fit.workers_per_node` of one node's room `a` in Python integers
    (the same floor division, the same cap)."""
    n = MAX_WORKERS
    for d in range(3):
        if req[d] > 0:
            q = a[d] // req[d]
            if q < n:
                n = q
    return n if n > 0 else 0  # a closed node's room is -1: it holds none


class GangRun(PolicyAsk):
    """The engine run's gang branches (DESIGN-gangs points 1, 6-13), mixed into
    :class:`simcore.engine.loop._Run`, whose state and life cycle they use."""

    book: ReservationBook
    log: EventLog
    preemptive: bool
    gangs: bool  # the workload has gangs
    room: GangRoom | None  # the gang room count, when the run has gangs
    q_blocked: bool  # a run with queues: the last try waits for room (backfill none stops there)
    q_stopped: bool  # a run with queues, backfill none: the pass has stopped (only nominated jobs start)
    gang_plan: list[int]  # a run with queues: the searches of the gang being satisfied (per worker)

    # The run's life cycle, defined by simcore.engine.loop._Run (its policy calls: PolicyAsk). Plain methods
    # rather than stubs under TYPE_CHECKING: mypyc compiles this class and needs them declared.
    def _start(self, j: int, k: int, nodes: list[int] | None = None, taken: bool = False) -> None:
        raise NotImplementedError

    def _signal(self, j: int) -> None:
        raise NotImplementedError

    def _release(self, j: int) -> None:
        raise NotImplementedError

    # ... and by simcore.engine.teams.TeamRun (a run with queues; they are used only with queues but `_drop`)
    def _drop(self, j: int) -> None:
        raise NotImplementedError

    def _nominated(self, j: int) -> None:
        raise NotImplementedError

    def _plan(self, j: int) -> list[int]:
        raise NotImplementedError

    def _offer(self, jobs: np.ndarray, j: int, which: int, chosen: tuple[int, ...] | list[int]) -> np.ndarray:
        raise NotImplementedError

    def _gang_search(
        self, j: int, avail: np.ndarray, pool: Candidates, running: Candidates | None, chosen: list[int]
    ) -> tuple[int, tuple[int, ...]] | None:
        raise NotImplementedError

    def _usage_of(self, queues: list[int]) -> tuple[tuple[int, int, int], ...]:
        raise NotImplementedError

    def _touched(self, j: int, victims: list[int] | tuple[int, ...]) -> list[int]:
        raise NotImplementedError

    def _ledger_write(
        self, j: int, victims: list[int] | tuple[int, ...], before: tuple[Any, ...], recorded: int
    ) -> None:
        raise NotImplementedError

    def _release_gang(self, j: int, nodes: list[int]) -> None:
        """The end of a gang's grace: every worker's node freed, then one row per worker."""
        for n in nodes:
            self.cl.release(n, self.js.req_list[j])
        self.book.released_gang(j, nodes)
        for n in nodes:
            self.log.add(self.now, j, RELEASE, n)

    def _finish_gang(self, j: int, nodes: list[int]) -> None:
        """A gang's finish: every worker's node freed, one row per worker."""
        js = self.js
        for k in nodes:
            self.cl.release(k, js.req_list[j])
        js.finish[j] = self.now
        if self.preemptive and not js.is_te_list[j]:
            self.running.remove(j)
        for k in nodes:
            self.log.add(self.now, j, FINISH, k)

    def _try_gang(self, j: int) -> tuple[int, ...] | None:
        """The pass's step for a gang: all its workers placed, or none (points 1, 6-13). None when it
        stays pending, else the jobs released within the pass to make room (grace 0). With queues the
        quota condition is part of "fits" and the searches are DESIGN-queues point 9's, per worker."""
        cl, book, js, qs = self.cl, self.book, self.js, self.quota
        w = js.workers_list[j]  # its request's numpy row is read only where it is used: a view per read costs
        if book.node_of(j) is not None:  # nominated: placed once every worker fits, reservations pooled
            nodes = place_nominated(cl, book.gang_held(j), js.req[j]) if qs is None or qs.quota_ok(j, True) else None
            if nodes is not None:
                self._drop(j)
                self._start(j, nodes[0], nodes)
                return ()
            if book.in_grace(j) or (qs is not None and self.q_stopped):
                return None  # no new search while a victim checkpoints (point 13)
            self._drop(j)  # all released and still no fit: satisfied afresh
        if qs is None or qs.quota_ok(j, False):
            # no node has more than top (no numpy call); else the room count says (GangRoom.fits)
            (r0, r1, r2), top, room = js.req_list[j], cl.top(), self.room
            assert room is not None  # every run with gangs keeps it
            if r0 <= top[0] and r1 <= top[1] and r2 <= top[2] and room.fits(js.req_list[j], w):
                nodes = self._place(js.req_list[j], w)
                self._start(j, nodes[0], nodes, taken=True)
                return ()
            self.q_blocked = True
        search: Search
        short: Callable[[list[int]], bool] | None = None
        if qs is None:
            if not (self.preemptive and js.is_te_list[j]):
                return None
            cands, everyone = self._candidates()
            search = lambda a, p, e, c: self._search(j, a, p, e)  # noqa: E731
        else:
            plan = self._plan(j) if self.preemptive else []
            if not plan:
                return None
            self.gang_plan = plan
            self.searching = plan[0]  # a spent budget's record names the first
            running = self.running.jobs()
            cands, everyone = self._candidates(running[self._offer(running, j, plan[-1], ())])  # the last: the widest
            search = lambda a, p, e, c: self._gang_search(j, a, p, e, c)  # noqa: E731
            if qs.missing(j) > 0:
                short = lambda v: qs.missing(j) > sum(qs.gpus[x] for x in v if qs.queue[x] == qs.queue[j])  # noqa: E731
        if self.budget is not None and self._budget_spent(j, self._view(j, read_only(cl.avail), cands, everyone)):
            return None  # one check per job, before any worker's search
        recorded = len(self.decisions) if self.decisions is not None else 0
        req = js.req[j]
        tentative, victims, failed_at = satisfy(cl, req, w, cands, everyone, search, self._skipped(), short)
        if failed_at is not None:
            if self.decisions is not None and len(self.decisions) > recorded:  # only the failed search is kept
                del self.decisions[recorded:-1]
                if victims:  # earlier workers' victims were left out of its candidates: its own reason misleads
                    self.decisions[-1]["reason"] = decision.GANG_UNSATISFIED
            return None
        self.q_blocked = False
        if self.budget is not None:
            self.budget.spend(self.now)  # one decision, however many workers searched
        book.nominate_gang(j, tentative, victims)
        if qs is not None:
            self._nominated(j)
        gpu = js.req_list[j][2]
        for k, held in book.gang_held(j):  # one nomination per worker, in worker order
            self.log.nominated(j, k, int(gpu - held[2]))
        before = None if qs is None else self._usage_of(self._touched(j, victims))
        for v in victims:
            self._signal(v)
        if self.cfg.grace > 0:
            if before is not None:
                self._ledger_write(j, victims, before, recorded)
            return None
        for v in victims:
            self._release(v)
        if before is not None:
            self._ledger_write(j, victims, before, recorded)
        nodes = place_nominated(cl, book.gang_held(j), req)
        assert nodes is not None  # every victim has released: the tentative nodes have the room
        self._drop(j)
        self._start(j, nodes[0], nodes)
        return tuple(victims)

    def _place(self, req: tuple[int, int, int], w: int) -> list[int]:
        """Point 1 for a gang that fits (:meth:`GangRoom.fits`): each worker's node (worker order) by
        the placement rule on the room left by the ones before, its room taken at once. The rule is
        ``ClusterState.choose``, the one a single job is placed by, so each worker gets the node it
        would on a tentative copy of the room, without the copy or a numpy pass per worker; and as
        the gang fits, no worker is left without a node (nothing to undo)."""
        cl, nodes = self.cl, []
        for _ in range(w):
            k = cl.choose(None, req)
            assert k >= 0  # the count said every worker fits
            cl.allocate(k, req)
            nodes.append(k)
        return nodes

    def _search(
        self, te: int, avail: np.ndarray, cands: Candidates, everyone: Candidates | None
    ) -> tuple[int, tuple[int, ...]] | None:
        """One victim search for a worker of TE gang `te` on the room `avail`: (node, victim entries)."""
        view = self._view(te, avail, cands, everyone)
        pre = self.policy.victims(view) if self.decisions is None else self._decide(te, view)
        return None if pre is None else (pre.node, pre.victims)
