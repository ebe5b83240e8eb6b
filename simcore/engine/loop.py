"""The event loop: one SimPy environment per run, driving the job life cycle.

One SimPy process advances the clock from instant to instant. At each instant it applies,
in order, finishes, releases (end of a grace period) and arrivals, then runs exactly one
scheduling pass (DESIGN.md section 3, rule 1). This module holds that loop, the life cycle
(start, signal, release, finish: section 2) and the pass (rule 3); the state they act on
lives in small types of its own: the nodes (:mod:`simcore.engine.cluster`), the pending jobs
(:mod:`simcore.engine.pending`), each job's state (:mod:`simcore.engine.jobstate`), the running BE jobs
(:mod:`simcore.engine.running`), the nominations (:mod:`simcore.engine.reservations`), the instants to
come (:mod:`simcore.engine.timeline`) and the event log (:mod:`simcore.engine.eventlog`). The policy only
chooses victims, from a read-only view. A gang (``workers`` > 1, rule 10) goes through the same
life cycle with one event row per worker; where its workers go is chosen in
:mod:`simcore.engine.gang`, and a single-worker job never takes that path.
"""

from __future__ import annotations

import time as wallclock

import numpy as np
import simpy

from simcore import units
from simcore.engine import gang
from simcore.engine.cluster import ClusterState
from simcore.engine.eventlog import EventLog
from simcore.engine.jobstate import JobState
from simcore.engine.pending import UNBOUNDED, Waiting
from simcore.engine.queue_order import job_order
from simcore.engine.reservations import ReservationBook
from simcore.engine.running import RunningTable
from simcore.engine.timeline import Timeline
from simcore.model import ClusterSpec, JobTable, SimConfig
from simcore.policies import Candidates, Preemption, PreemptionView, decision, get_policy
from simcore.result import FINISH, PREEMPT, RELEASE, START, SUBMIT, SimResult

__all__ = ["job_order", "simulate"]

_UNBOUNDED = (UNBOUNDED, UNBOUNDED, UNBOUNDED)


class _Run:
    """One run: the clock, the life cycle and the pass, over the run's state."""

    def __init__(self, jobs: JobTable, cluster: ClusterSpec, config: SimConfig, record_decisions: bool = False) -> None:
        self.cfg = config
        self.policy = get_policy(config.policy, config)
        self.preemptive = self.policy.preemptive
        self.min_runtime = config.min_runtime if self.preemptive else 0.0
        self.strict = config.backfill == "none"
        n = len(jobs)
        req = units.requests(jobs.request)  # integer units: every sum and comparison is exact
        order_rank = job_order(jobs, te_first=False)
        self.cl = ClusterState(cluster, config.placement, req.min(axis=0) if n else None)
        self.js = JobState(jobs, req, order_rank, config)
        self.gangs = jobs.has_gangs
        self.running = RunningTable(n)
        self.book = ReservationBook(self.cl, req)
        self.log = EventLog()
        queue_rank = order_rank if self.policy.fifo_order else job_order(jobs, te_first=True)
        self.waiting = Waiting(queue_rank, self.js.req_list, self.js.is_te_list)
        self.n_exempt = int(jobs.is_te.sum())  # TE jobs take the first ranks when they may preempt
        arrivals = np.argsort(order_rank)  # submit time, then job_id
        self.timeline = Timeline(arrivals.tolist(), jobs.submit_time[arrivals].tolist(), self.js.token, self.running)
        self.rng = np.random.default_rng(config.seed)
        self.decisions: list[dict] | None = [] if record_decisions else None  # None: not recorded, no work
        if record_decisions:
            self.names = (jobs.job_id.astype(str).tolist(), list(cluster.names))
        self.now = 0.0
        self.version_seen = -1  # cluster.version after the last pass, -1 when room was given back during it

    # -- the clock (rule 1) ---------------------------------------------------------------
    def process(self, env: simpy.Environment):
        waiting, log = self.waiting, self.log
        for t, finished, released, arrived in self.timeline.instants(waiting.te):
            now = env.now
            yield env.timeout(t - now if t > now else 0)
            self.now = t
            for j in finished:
                self._finish(j)
            for j in released:
                self._release(j)
            for j in arrived:
                log.add(t, j, SUBMIT, -1)
            joining = released + arrived
            if joining:
                waiting.add(joining)
            freed = self._pass(joining)
            if freed:  # released within the pass (grace 0): they join after it
                waiting.add(freed)

    # -- the life cycle -------------------------------------------------------------------
    def _start(self, j: int, k: int, nodes: list[int] | None = None) -> None:
        """Start `j` on node `k`, or a gang with its workers on `nodes` (worker order; k = nodes[0])."""
        now, js = self.now, self.js
        if nodes is None:
            self.cl.allocate(k, js.req_list[j])
        else:
            for n in nodes:
                self.cl.allocate(n, js.req_list[j])
            js.gang_nodes[j] = nodes
        victim_kind = self.preemptive and not js.is_te_list[j]  # only preemption reads its segment
        end = js.start(j, k, now, victim_kind)
        order, token = js.order_rank_list[j], js.token[j]
        self.timeline.finish_at(end, order, j, token)
        if victim_kind:
            self.running.add(j)
            if self.min_runtime > 0:
                self.timeline.wake_at(now + self.min_runtime, order, j, token)
        if nodes is None:
            self.log.add(now, j, START, k)
        else:
            for n in nodes:
                self.log.add(now, j, START, n)

    def _signal(self, j: int) -> None:
        """Preempt `j`: progress stops now; it holds its resources for the grace period."""
        js = self.js
        js.signal(j, self.now)
        self.running.remove(j)
        nodes = js.gang_nodes.get(j) if self.gangs else None
        for k in nodes or (int(js.node[j]),):  # a gang: one row per worker
            self.log.add(self.now, j, PREEMPT, k)
        if self.cfg.grace > 0:  # with grace 0 the pass releases it at once
            self.timeline.release_at(self.now + self.cfg.grace, js.order_rank_list[j], j)

    def _release(self, j: int) -> None:
        """End of grace: free the node, top up the reservation it made room for (back to pending: the caller)."""
        if self.gangs and j in self.js.gang_nodes:
            self._release_gang(j, self.js.gang_nodes[j])
            return
        k = int(self.js.node[j])
        self.cl.release(k, self.js.req_list[j])
        self.book.released(j, k)
        self.log.add(self.now, j, RELEASE, k)

    def _release_gang(self, j: int, nodes: list[int]) -> None:
        """:meth:`_release` for a gang: every worker's node, then one row per worker."""
        for n in nodes:
            self.cl.release(n, self.js.req_list[j])
        self.book.released_gang(j, nodes)
        for n in nodes:
            self.log.add(self.now, j, RELEASE, n)

    def _finish(self, j: int) -> None:
        js = self.js
        if self.gangs and j in js.gang_nodes:
            self._finish_gang(j, js.gang_nodes[j])
            return
        k = int(js.node[j])
        self.cl.release(k, js.req_list[j])
        js.finish[j] = self.now
        if self.preemptive and not js.is_te_list[j]:
            self.running.remove(j)
        self.log.add(self.now, j, FINISH, k)

    def _finish_gang(self, j: int, nodes: list[int]) -> None:
        """:meth:`_finish` for a gang: every worker's node freed, one row per worker."""
        js = self.js
        for k in nodes:
            self.cl.release(k, js.req_list[j])
        js.finish[j] = self.now
        if self.preemptive and not js.is_te_list[j]:
            self.running.remove(j)
        for k in nodes:
            self.log.add(self.now, j, FINISH, k)

    # -- the pass (rule 3) ----------------------------------------------------------------
    def _pass(self, joining: list[int]) -> tuple[int, ...]:
        """One scheduling pass over the pending queue; returns the jobs released within it (grace 0).

        Only jobs that could change state are looked at; skipping the others is exact:
        a job that did not fit when last looked at still does not fit while no room has
        been given back since (finishes, releases and returned reservations bump
        ``cluster.version``), and a job that cannot fit has no effect on the pass.
        """
        if not len(self.waiting):
            return ()
        v0 = self.cl.version
        if self.strict:
            freed = self._walk_strict()
        else:
            freed = self._walk_greedy(joining if v0 == self.version_seen else None)
        # a pass during which room was given back looked at some jobs before it: look again next time
        self.version_seen = self.cl.version if self.cl.version == v0 else -1
        return freed

    def _walk_strict(self) -> tuple[int, ...]:
        """backfill = none: in queue order until the first job that waits without a nomination."""
        w = self.waiting
        freed: tuple[int, ...] = ()  # () + () allocates nothing: the common case
        r = w.queue.next_within(0, _UNBOUNDED)
        while r >= 0:
            j = w.job_of_rank[r]
            released = self._try_job(j)
            if released is not None:
                w.remove(r)
                freed += released
            elif self.book.node_of(j) is None:  # a nominated job waits for its victims, not blocking
                break
            r = w.queue.next_within(r + 1, _UNBOUNDED)
        return freed

    def _walk_greedy(self, only: list[int] | None) -> tuple[int, ...]:
        """backfill = greedy. TE jobs that may preempt are always looked at; of the others,
        only `only` (this instant's joiners) when no room was given back, else every job
        that could fit somewhere."""
        w, cl, job_of_rank = self.waiting, self.cl, self.waiting.job_of_rank
        freed: tuple[int, ...] = ()  # () + () allocates nothing: the common case
        exempt_end = 0
        if self.preemptive:  # the TE jobs, which take the first ranks; none joins during a pass
            exempt_end = self.n_exempt
            for r in list(w.te):
                before = cl.version
                released = self._try_job(job_of_rank[r])
                if released is not None:
                    w.remove(r)
                    freed += released
                if cl.version != before:
                    only = None
        pos = exempt_end
        if only is not None:
            for r in sorted([w.rank[j] for j in only]):
                if r < exempt_end:
                    continue
                before = cl.version
                released = self._try_job(job_of_rank[r])
                if released is not None:
                    w.remove(r)
                    freed += released
                if cl.version != before:  # room was given back: every later job may fit now
                    pos = r + 1
                    break
            else:
                return freed
        # jobs here have no side effect unless placed, and only a placement or a returned
        # reservation changes avail, so the bound is always the current one
        r = w.queue.next_within(pos, self._bound())
        while r >= 0:
            released = self._try_job(job_of_rank[r])
            if released is not None:
                w.remove(r)
                freed += released
            r = w.queue.next_within(r + 1, self._bound())
        return freed

    def _bound(self) -> tuple[int, int, int]:
        """Per dimension, the largest request that may still fit somewhere."""
        m0, m1, m2 = self.cl.top()
        return (m0, m1, m2)

    def _try_job(self, j: int) -> tuple[int, ...] | None:
        """Handle one pending job: None when it stays pending (nominated or not), else it was
        placed, and the result holds the jobs released to make room within the pass (grace 0)."""
        cl, book, js = self.cl, self.book, self.js
        if self.gangs and js.workers_list[j] > 1:
            return self._try_gang(j)
        req, req_t = js.req[j], js.req_list[j]
        k = book.node_of(j)
        if k is not None:  # nominated: placed on its node once it fits there, or wherever fits first
            if not book.fits_on_its_node(j):
                k = cl.choose(req, req_t)
                if k < 0:
                    return None
            book.drop(j)
            self._start(j, k)
            return ()
        k = cl.choose(req, req_t)
        if k >= 0:
            self._start(j, k)
            return ()
        if not (self.preemptive and js.is_te_list[j]):
            return None
        chosen = self._ask_policy(j)
        if chosen is None:
            return None
        k, victims = chosen
        book.nominate(j, k, victims)
        for v in victims:
            self._signal(v)
        if self.cfg.grace > 0:
            return None  # it waits, nominated, for its victims' release
        for v in victims:
            self._release(v)
        book.drop(j)
        self._start(j, k)
        return tuple(victims)

    def _try_gang(self, j: int) -> tuple[int, ...] | None:
        """:meth:`_try_job` for a gang: all its workers placed, or none (DESIGN-gangs points 1, 6-13)."""
        cl, book, js = self.cl, self.book, self.js
        req, w = js.req[j], js.workers_list[j]
        if book.node_of(j) is not None:  # nominated: placed once every worker fits, reservations pooled
            nodes = gang.place_nominated(cl, book.gang_held(j), req)
            if nodes is not None:
                book.drop(j)
                self._start(j, nodes[0], nodes)
                return ()
            if book.in_grace(j):
                return None  # no new search while a victim checkpoints (point 13)
            book.drop(j)  # all released and still no fit: satisfied afresh
        # no node has more than top (no numpy call); else the count of room for all is exact
        (r0, r1, r2), top = js.req_list[j], cl.top()
        if r0 <= top[0] and r1 <= top[1] and r2 <= top[2] and gang.room_for(cl.avail, req) >= w:
            nodes = gang.place(cl, cl.avail, req, w)
            assert nodes is not None
            self._start(j, nodes[0], nodes)
            return ()
        if not (self.preemptive and js.is_te_list[j]):
            return None
        cands = js.candidates(self.running.jobs(), self.now, self.min_runtime)
        recorded = len(self.decisions) if self.decisions is not None else 0
        tentative, victims, failed_at = gang.satisfy(
            cl, req, w, cands, lambda avail, pool: self._search(j, avail, pool)
        )
        if failed_at is not None:
            if self.decisions is not None:  # only the search that failed is kept: nobody was signalled
                del self.decisions[recorded:-1]
                if victims:  # earlier workers' victims were left out of its candidates: its own reason misleads
                    self.decisions[-1]["reason"] = decision.GANG_UNSATISFIED
            return None
        book.nominate_gang(j, tentative, victims)
        for v in victims:
            self._signal(v)
        if self.cfg.grace > 0:
            return None
        for v in victims:
            self._release(v)
        nodes = gang.place_nominated(cl, book.gang_held(j), req)
        assert nodes is not None  # every victim has released: the tentative nodes have the room
        book.drop(j)
        self._start(j, nodes[0], nodes)
        return tuple(victims)

    def _search(self, te: int, avail: np.ndarray, cands: Candidates) -> tuple[int, tuple[int, ...]] | None:
        """One victim search for (one worker of) TE job `te` on the room `avail`: (node, victim entries)."""
        cl = self.cl
        view = PreemptionView(self.now, self.js.req[te], cl.cap, cl.inv_cap, avail, cands, self.cfg, self.rng)
        pre = self.policy.victims(view) if self.decisions is None else self._decide(te, view)
        return None if pre is None else (pre.node, pre.victims)

    def _ask_policy(self, te: int) -> tuple[int, list[int]] | None:
        """The policy's victims for TE job `te` as (node, victim jobs in signal order), or None."""
        cl = self.cl
        cands = self.js.candidates(self.running.jobs(), self.now, self.min_runtime)
        view = PreemptionView(self.now, self.js.req[te], cl.cap, cl.inv_cap, _ro(cl.avail), cands, self.cfg, self.rng)
        pre = self.policy.victims(view) if self.decisions is None else self._decide(te, view)
        if pre is None:
            return None
        return pre.node, [int(cands.job[p]) for p in pre.victims]

    def _decide(self, te: int, view: PreemptionView) -> Preemption | None:
        """Ask the policy to explain its choice, and record the decision."""
        ids, nodes = self.names
        explained = self.policy.explain(view)
        running = len(self.running)  # before min_runtime: the reason tells them apart
        assert self.decisions is not None
        self.decisions.append(decision.record(self.policy, view, explained, ids[te], ids, nodes, running))
        return explained.preemption


def _ro(a: np.ndarray) -> np.ndarray:
    """A read-only view: a policy sees the engine's arrays without a copy and cannot change them."""
    v = a.view()
    v.flags.writeable = False
    return v


def simulate(jobs: JobTable, cluster: ClusterSpec, config: SimConfig, record_decisions: bool = False) -> SimResult:
    """Run one simulation. Jobs that fit on no node are left out and listed. With
    `record_decisions`, every ask for victims is kept as a decision record (``result.decisions``)."""
    t0 = wallclock.perf_counter()
    cap = units.capacities(cluster.capacity_matrix(), cluster.names)
    shapes, inverse = np.unique(units.requests(jobs.request), axis=0, return_inverse=True)
    shape_fits = np.any(np.all(cap[None, :, :] >= shapes[:, None, :], axis=2), axis=1)
    fits_somewhere = shape_fits[inverse.reshape(-1)]
    if jobs.has_gangs:  # a gang must fit whole on the empty cluster
        empty = ClusterState(cluster, config.placement)
        fits_somewhere &= ~gang.unschedulable(empty, units.requests(jobs.request), np.asarray(jobs.workers))
    unschedulable = tuple(str(x) for x in jobs.job_id[~fits_somewhere])
    sim_jobs = _subset(jobs, fits_somewhere) if len(unschedulable) else jobs
    run = _Run(sim_jobs, cluster, config, record_decisions)
    env = simpy.Environment()
    env.process(run.process(env))
    env.run()
    ev_time, ev_job, ev_code, ev_node = run.log.columns()
    js = run.js
    return SimResult(
        config=config,
        cluster=cluster,
        jobs=sim_jobs,
        first_start=np.array(js.first_start, dtype=float),
        finish=np.array(js.finish, dtype=float),
        preemptions=js.preemptions,
        lost_work=js.lost,
        node=js.node,
        ev_time=ev_time,
        ev_job=ev_job,
        ev_code=ev_code,
        ev_node=ev_node,
        unschedulable=unschedulable,
        wall_seconds=wallclock.perf_counter() - t0,
        decisions=tuple(run.decisions or ()),
    )


def _subset(jobs: JobTable, mask: np.ndarray) -> JobTable:
    return JobTable(
        job_id=jobs.job_id[mask],
        submit_time=jobs.submit_time[mask],
        duration=jobs.duration[mask],
        request=jobs.request[mask],
        is_te=jobs.is_te[mask],
        extra={k: v[mask] for k, v in jobs.extra.items()},
        workers=jobs.workers[mask],  # type: ignore[index]
    )
