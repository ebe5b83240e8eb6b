"""The event loop: one SimPy environment per run, driving the job life cycle.

SimPy's clock goes from instant to instant (:mod:`simcore.engine.clock`); each instant applies, in
order, finishes, releases (end of a grace period) and arrivals, then runs exactly one scheduling
pass (DESIGN.md section 3, rule 1). This module holds that handler, the life cycle
(start, signal, release, finish: section 2) and the pass (rule 3); the state they act on
lives in small types of its own: the nodes (:mod:`simcore.engine.cluster`), the pending jobs
(:mod:`simcore.engine.pending`), each job's state (:mod:`simcore.engine.jobstate`), the running BE jobs
(:mod:`simcore.engine.running`), the nominations (:mod:`simcore.engine.reservations`), the instants to
come (:mod:`simcore.engine.timeline`) and the event log (:mod:`simcore.engine.eventlog`). The policy only
chooses victims, from a read-only view. A gang (``workers`` > 1, rule 10) goes through the same
life cycle with one event row per worker; where its workers go is chosen in
:mod:`simcore.engine.gang`, and a single-worker job never takes that path. Nodes that go down
and drains (rule 12) come between the releases and the arrivals of an instant; a run without
down time never takes that path (:mod:`simcore.engine.nodes_down`).
"""

from __future__ import annotations

import gc
import math
import time as wallclock
from collections.abc import Callable, Collection, Sequence
from dataclasses import replace
from typing import Any, Final

import numpy as np
import simpy

from simcore.core import result, units
from simcore.core.model import ClusterSpec, JobTable, SimConfig
from simcore.core.result import SimResult
from simcore.core.saves import SaveDraws
from simcore.engine.budget import PreemptionBudget
from simcore.engine.clock import Clock
from simcore.engine.cluster import ClusterState
from simcore.engine.eventlog import EventLog
from simcore.engine.gang import GangRoom
from simcore.engine.jobstate import JobState
from simcore.engine.nodes_down import NodesDown
from simcore.engine.pending import UNBOUNDED, Waiting
from simcore.engine.queue_order import int_pool, job_order, job_orders
from simcore.engine.reservations import ReservationBook
from simcore.engine.running import RunningTable
from simcore.engine.teams import TeamRun
from simcore.engine.timeline import Timeline
from simcore.policies import get_policy
from simcore.workload.fit import schedulable

__all__ = ["job_order", "simulate"]

_UNBOUNDED = (UNBOUNDED, UNBOUNDED, UNBOUNDED)

#: an observer of a run, called with the run after each pass, to be read, never written
#: (:class:`simcore.engine.watch.JobWatch`); the loop calls it and knows nothing else of it
Watch = Callable[[Any], None]

# the event codes (simcore.core.result), as Final: static reads in the compiled engine, not module-dict look-ups
SUBMIT: Final[int] = result.SUBMIT
START: Final[int] = result.START
PREEMPT: Final[int] = result.PREEMPT
RELEASE: Final[int] = result.RELEASE
FINISH: Final[int] = result.FINISH


class _Run(TeamRun):
    """One run: the instant's handler, the life cycle and the pass, over the run's state (a gang's
    branches: :class:`~simcore.engine.gang.GangRun`; a run with queues: :class:`~simcore.engine.teams.TeamRun`;
    the clock: :class:`~simcore.engine.clock.Clock`)."""

    def __init__(
        self,
        jobs: JobTable,
        cluster: ClusterSpec,
        config: SimConfig,
        record_decisions: bool = False,
        same_state: tuple[str, ...] = (),
        watch: Watch | None = None,
        exempt: Collection[str] = (),
    ) -> None:
        self.cfg = config
        self.watch = watch
        # never offered as victims (a what-if: "had it not been preempted"); None: nobody, no work
        self.exempt = np.flatnonzero(np.isin(jobs.job_id, list(exempt))) if exempt else None
        self.policy = get_policy(config.policy, config)
        # the policies asked, on every recorded view, what they would take there (never acted on)
        self.others = tuple(get_policy(name, replace(config, policy=name)) for name in same_state)
        self.preemptive = self.policy.preemptive
        self.min_runtime = config.min_runtime if self.preemptive else 0.0
        self.strict = config.backfill == "none"
        n = len(jobs)
        req = units.requests(jobs.request)  # integer units: every sum and comparison is exact
        order_rank, queue_rank = job_orders(jobs, te_first=not self.policy.fifo_order)
        # one int object per index, shared (docs/history/engine.md#the-compiled-engine-fourth-round-issue-21)
        ints = int_pool(n)
        self.cl = ClusterState(cluster, config.placement, req.min(axis=0) if n else None)
        downtime = cluster.node_events is not None or not math.isinf(config.mtbf)
        first = float(jobs.submit_time.min()) if n else 0.0
        self.down = NodesDown(cluster, config, first, jobs.job_id.astype(str).tolist()) if downtime else None
        self.all_skipped = False
        self.js = JobState(jobs, req, order_rank, config, ints, every_segment=downtime)
        self.gangs = jobs.has_gangs
        self.room = GangRoom(self.cl) if self.gangs else None
        self.running = RunningTable(n)
        self.book = ReservationBook(self.cl, req)
        self.log = EventLog()
        self.waiting = Waiting(queue_rank, self.js.req_list, self.js.is_te_list, ints)
        self.n_exempt = int(jobs.is_te.sum())  # TE jobs take the first ranks when they may preempt
        arrivals = np.empty_like(order_rank)  # submit time, then job_id: the inverse permutation
        arrivals[order_rank] = np.arange(n)  # (an argsort of a permutation, without the sort)
        self.timeline = Timeline(
            ints[arrivals].tolist(),
            jobs.submit_time[arrivals].tolist(),
            self.js.token,
            self.running,
            None if self.down is None else self.down.next_time,
        )
        self.rng = np.random.default_rng(config.seed)
        self.saves = SaveDraws(config)
        limited = self.preemptive and not math.isinf(config.preempt_budget)
        self.budget = PreemptionBudget(config.preempt_budget) if limited else None
        self.decisions: list[dict] | None = [] if record_decisions else None  # None: not recorded, no work
        if record_decisions:
            self.names = (jobs.job_id.astype(str).tolist(), list(cluster.names))
        self.now = 0.0
        self.version_seen = -1  # cluster.version after the last pass, -1 when room was given back during it
        self._queues(jobs, req, cluster.queues)
        waiting_for_budget = self.waiting.te if self.quota is None else self.waiting  # with queues a BE job may reclaim
        self.clock = Clock(self.timeline.instants(self._pass_may_act, waiting_for_budget), self._instant)

    # -- the instant (rule 1) -------------------------------------------------------------

    def _instant(self, _event: simpy.Event) -> None:
        """Handle one instant (rule 1): finishes, releases, arrivals, then one pass."""
        t, finished, released, arrived = self.clock.instant
        self.now = t
        for j in finished:
            self._finish(j)
        for j in released:
            self._release(j)
        if self.down is not None:  # drains, nodes going down, nodes coming up (rule 12)
            stopped = self.down.step(self, t)
            if stopped:
                released = released + stopped
        log = self.log
        for j in arrived:
            log.add(t, j, SUBMIT, -1)
        freed = self._pass(released + arrived if released else arrived)
        if freed:  # released within the pass (grace 0): they join after it
            if self.quota is None:
                self.waiting.add(freed)
            else:
                self._join_queued(freed)
        if self.watch is not None:
            self.watch(self)
        self.clock.next()

    def _pass_may_act(self) -> bool:
        """May a pass run now, with nothing new since the last instant, change anything (a
        min_runtime wake-up, DESIGN.md section 4)? Only when a TE job waits (the job that reached
        min_runtime may be its victim) or when room was given back since the pending jobs were
        last looked at (victims released within the last pass with grace 0 joined after it; a
        reservation returned during it). Else every pending job is BE and did not fit on the room
        there still is, so the pass would place nobody: it is skipped (see :meth:`_pass`)."""
        w = self.waiting
        if self.quota is not None:  # with queues a BE job within quota may reclaim: never skipped
            return len(w) > 0
        return bool(w.te) or (len(w) > 0 and self.cl.version != self.version_seen)

    # -- the life cycle -------------------------------------------------------------------
    def _start(self, j: int, k: int, nodes: list[int] | None = None, taken: bool = False) -> None:
        """Start `j` on node `k`, or a gang with its workers on `nodes` (worker order; k = nodes[0]),
        whose room is `taken` already when its placement took it (GangRun._place)."""
        now, js = self.now, self.js
        if self.quota is not None:
            self.quota.started(j)
        if nodes is None:
            self.cl.allocate(k, js.req_list[j])
        else:
            if not taken:
                for n in nodes:
                    self.cl.allocate(n, js.req_list[j])
            js.gang_nodes[j] = nodes
        victim_kind = self.preemptive and not js.is_te_list[j]  # only preemption reads its segment
        if self.down is not None:  # every job may fail or be drained: every segment is kept
            self.down.started(j, [k] if nodes is None else nodes)
            end = js.start(j, k, now, True)
        else:
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
        if self.quota is not None:
            self.quota.signalled(j)
        before = float(js.lost[j])
        js.signal(j, self.now, self.saves.failed())
        self.log.signalled(float(js.lost[j]) - before)
        if self.down is not None:
            self.down.signalled(j, self.now, result.PREEMPTION, float(js.lost[j]) - before)
        self.running.remove(j)
        nodes = js.gang_nodes.get(j) if self.gangs else None
        for k in nodes or (js.node_list[j],):  # a gang: one row per worker
            self.log.add(self.now, j, PREEMPT, k)
        if self.cfg.grace > 0:  # with grace 0 the pass releases it at once
            self.timeline.release_at(self.now + self.cfg.grace, js.order_rank_list[j], j, js.token[j])

    def _release(self, j: int) -> None:
        """End of grace: free the node, top up the reservation it made room for (back to pending: the caller)."""
        if self.down is not None:
            self.down.left(j, self.js.gang_nodes.get(j) or [self.js.node_list[j]])
        if self.quota is not None:
            self.quota.released(j)
        if self.gangs and j in self.js.gang_nodes:
            self._release_gang(j, self.js.gang_nodes[j])
            return
        k = self.js.node_list[j]
        self.cl.release(k, self.js.req_list[j])
        self.book.released(j, k)
        self.log.add(self.now, j, RELEASE, k)

    def _finish(self, j: int) -> None:
        js = self.js
        if self.down is not None:
            self.down.finished(j, js.gang_nodes.get(j) or [js.node_list[j]])
        if self.quota is not None:
            self.quota.finished(j)
        if self.gangs and j in js.gang_nodes:
            self._finish_gang(j, js.gang_nodes[j])
            return
        k = js.node_list[j]
        self.cl.release(k, js.req_list[j])
        js.finish[j] = self.now
        if self.preemptive and not js.is_te_list[j]:
            self.running.remove(j)
        self.log.add(self.now, j, FINISH, k)

    # -- the pass (rule 3) ----------------------------------------------------------------
    def _pass(self, joining: list[int]) -> tuple[int, ...]:
        """One scheduling pass over the pending queue; returns the jobs released within it (grace 0).

        Only jobs that could change state are looked at; skipping the others is exact:
        a job that did not fit when last looked at still does not fit while no room has
        been given back since (finishes, releases and returned reservations bump
        ``cluster.version``), and a job that cannot fit has no effect on the pass.
        """
        if self.quota is not None:  # a run with queues: its own order and walk (simcore.engine.queue_walk)
            return self._walk_queues(joining) if joining or len(self.waiting) else ()
        w, v0 = self.waiting, self.cl.version
        only = not self.strict and v0 == self.version_seen  # only the joiners (and TE jobs) are looked at
        deferred: set[int] = set()
        if only and joining:  # see _walk_greedy; the others join the queue now
            if not self.preemptive:  # every joiner is deferred: nothing joins now
                deferred = set(joining)
            else:
                te, exempt = self.js.is_te_list, self.n_exempt
                deferred = {j for j in joining if w.rank[j] >= exempt and not te[j]}
                w.add([j for j in joining if j not in deferred])
        else:
            w.add(joining)
        if not len(w) and not deferred:
            return ()
        if self.strict:
            freed = self._walk_strict()
        else:
            freed = self._walk_greedy(joining if only else None, deferred)
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

    def _walk_greedy(self, only: list[int] | None, deferred: set[int]) -> tuple[int, ...]:
        """backfill = greedy. TE jobs that may preempt are always looked at; of the others,
        only `only` (this instant's joiners) when no room was given back, else every job
        that could fit somewhere.

        The joiners in `deferred` (of `only`, those no TE step looks at) are not in the queue
        yet: each joins it once looked at and not placed, the rest as soon as room is given
        back (the walk then reads the queue). Nothing reads the queue before that, so this is
        the walk of a queue that held them from the start, without adding and removing the
        joiners placed at once (most of them, on a cluster with room)."""
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
                if cl.version != before and only is not None:
                    only = None
                    w.add(deferred)
        pos = exempt_end
        if only is not None:
            ranks = sorted([w.rank[j] for j in only])
            for i, r in enumerate(ranks):
                if r < exempt_end:
                    continue
                before = cl.version
                j = job_of_rank[r]
                released = self._try_job(j)
                if released is not None:
                    if j not in deferred:
                        w.remove(r)
                    freed += released
                elif j in deferred:
                    w.add((j,))
                if cl.version != before:  # room was given back: every later job may fit now
                    w.add([x for x in (job_of_rank[q] for q in ranks[i + 1 :]) if x in deferred])
                    pos = r + 1
                    break
            else:
                return freed
        # jobs here have no side effect unless placed, so the bound (per dimension, the largest
        # request that may still fit somewhere) only shrinks, as scan() needs; should room be
        # given back all the same, the scan starts afresh after that job on the new bound
        while True:
            version = cl.version
            for r in w.queue.scan(pos, cl.top):
                released = self._try_job(job_of_rank[r])
                if released is not None:
                    w.remove(r)
                    freed += released
                if cl.version != version:
                    pos = r + 1
                    break
            else:
                return freed

    def _try_job(self, j: int) -> tuple[int, ...] | None:
        """Handle one pending job: None when it stays pending (nominated or not), else it was
        placed, and the result holds the jobs released to make room within the pass (grace 0)."""
        cl, book, js = self.cl, self.book, self.js
        if self.gangs and js.workers_list[j] > 1:
            return self._try_gang(j)
        req_t = js.req_list[j]  # the numpy row only if choose() needs it (a view per read costs)
        k = book.node_of(j)
        if k is not None:  # nominated: placed on its node once it fits there, or wherever fits first
            if not book.fits_on_its_node(j):
                k = cl.choose(None, req_t)
                if k < 0:
                    return None
            self._drop(j)
            self._start(j, k)
            return ()
        k = cl.choose(None, req_t)
        if k >= 0:
            self._start(j, k)
            return ()
        if not (self.preemptive and js.is_te_list[j]):
            return None
        chosen = self._ask_policy(j)
        if chosen is None:
            return None
        return self._preempt_for(j, chosen[0], chosen[1])


def simulate(
    jobs: JobTable,
    cluster: ClusterSpec,
    config: SimConfig,
    record_decisions: bool = False,
    same_state: str | Sequence[str] = (),
    watch: Watch | None = None,
    exempt: Collection[str] = (),
) -> SimResult:
    """Run one simulation. Jobs that fit on no node are left out and listed. With
    `record_decisions`, every ask for victims is kept as a decision record (``result.decisions``);
    with `same_state` (policy names, or one name) too, each record holds under ``same_state`` the record
    each of them, with the run's knobs, would make on the very same view, and under ``sets`` every
    victim set the policy weighed and their choices valued by its key
    (:mod:`simcore.policies.alternatives`); asking changes nothing in the run.
    `watch` is called after every pass with the run, to be read only (:mod:`simcore.engine.watch`
    turns it into facts); `exempt` job ids are never victim candidates (a what-if's change). With
    ``cluster.queues`` (DESIGN rule 11) each job is in the queue its ``queue`` column names (ValueError
    for one not there), and a job above its queue's quota + borrow limit is left out and listed too
    (``result.unschedulable_reasons`` says why, with queues)."""
    t0 = wallclock.perf_counter()
    ok, reasons = schedulable(jobs, cluster)
    queues = cluster.queues
    unschedulable = tuple(str(x) for x in jobs.job_id[~ok])
    sim_jobs = jobs.subset(ok) if len(unschedulable) else jobs
    # The collector off while the run builds its state and steps: the engine makes no reference cycles,
    # yet its passes over the run's live tuples and lists took ~20% of the CPU (docs/history/engine.md)
    collecting = gc.isenabled()
    gc.disable()
    try:
        others = (same_state,) if isinstance(same_state, str) else tuple(same_state)
        run = _Run(sim_jobs, cluster, config, record_decisions or bool(others), others, watch, exempt)
        run.clock.run()
        ev_time, ev_job, ev_code, ev_node = run.log.columns()  # the last rows' move allocates too
    finally:
        if collecting:
            gc.enable()
    js = run.js
    return SimResult(
        config=config,
        cluster=cluster,
        jobs=sim_jobs,
        first_start=np.array(js.first_start, dtype=float),
        finish=np.array(js.finish, dtype=float),
        preemptions=js.preemptions,
        lost_work=js.lost,
        node=np.array(js.node_list, dtype=np.int64),
        ev_time=ev_time,
        ev_job=ev_job,
        ev_code=ev_code,
        ev_node=ev_node,
        unschedulable=unschedulable,
        wall_seconds=wallclock.perf_counter() - t0,
        decisions=tuple(run.decisions or ()),
        signal_lost=np.array(run.log.lost, dtype=float),
        nominations=np.array(run.log.nominations, dtype=np.int64).reshape(-1, 4),
        downtime=None if run.down is None else run.down.record(float(np.max(js.finish)) if len(sim_jobs) else 0.0),
        queue=None if queues is None else run.queue_arr,
        ledger=tuple(run.ledger),
        unschedulable_reasons=reasons,
    )
