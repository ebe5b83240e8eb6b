"""The event loop: one SimPy environment per run, driving the job life cycle.

One SimPy process advances the clock from instant to instant. At each instant it applies,
in order, finishes, releases (end of a grace period) and arrivals, then runs exactly one
scheduling pass (DESIGN.md section 3). Domain state lives in :class:`ClusterState` and in
per-job arrays; the policy only chooses victims. Finish times live in a heap because a
preemption invalidates them (SimPy timeouts cannot be cancelled); each job carries a token
that a stale heap entry no longer matches.
"""

from __future__ import annotations

import heapq
import math
import time as wallclock
from array import array
from bisect import insort

import numpy as np
import simpy

from simcore import units
from simcore.cluster import ClusterState
from simcore.model import ClusterSpec, JobTable, SimConfig
from simcore.pending import UNBOUNDED, PendingQueue
from simcore.policies import Candidates, Preemption, PreemptionView, decision, get_policy
from simcore.result import FINISH, PREEMPT, RELEASE, START, SUBMIT, SimResult

_FINISH_KIND, _RELEASE_KIND = 0, 1
_WAKE_KIND = 2  # a running BE job's segment reaches min_runtime: an instant of its own, no event
_UNBOUNDED = (UNBOUNDED, UNBOUNDED, UNBOUNDED)


def job_order(jobs: JobTable, te_first: bool) -> np.ndarray:
    """Queue position of each job (rule 2): [class,] submit time, then job_id.

    job_id compares numerically (any size) when every id matches ``-?[0-9]+``, else as a
    string; ids of equal value (``7``, ``07``) then go by their text.
    """
    ids = jobs.job_id.astype(str)
    id_key = _id_key(ids)
    keys = [id_key, jobs.submit_time]
    if id_key is not ids and len(np.unique(id_key)) < len(ids):
        keys.insert(0, ids)
    if te_first:
        keys.append(~jobs.is_te)
    order = np.lexsort(keys)
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    return rank


def _all_integers(ids: np.ndarray) -> bool:
    """Does every id match ``-?[0-9]+``? Checked on all ids at once, as bytes (fast in C)."""
    try:
        b = "\n".join(ids.tolist()).encode("ascii")
    except UnicodeEncodeError:
        return False
    return (
        len(b) > 0
        and b.count(b"\n") == len(ids) - 1  # no id holds a newline itself
        and not b.translate(None, b"0123456789-\n")  # only digits and minus signs
        and b"\n\n" not in b and not b.startswith(b"\n") and not b.endswith(b"\n")  # no empty id
        # a minus sign only first in an id, and followed by a digit
        and b.count(b"-") == b.count(b"\n-") + b.startswith(b"-")
        and b"-\n" not in b and b"--" not in b and not b.endswith(b"-")
    )


def _id_key(ids: np.ndarray) -> np.ndarray:
    """A sort key of the ids: their numeric order when all are integers, else the text itself."""
    if not _all_integers(ids):
        return ids
    try:
        return ids.astype(np.int64)
    except OverflowError:  # beyond int64: rank them as Python ints
        values = [int(x) for x in ids.tolist()]
        order = sorted(range(len(values)), key=values.__getitem__)
        rank = np.empty(len(values), dtype=np.int64)
        prev, r = None, -1
        for i in order:
            if values[i] != prev:
                prev, r = values[i], r + 1
            rank[i] = r
        return rank


class _Run:
    """State of one run. Arrays are indexed by job (position in the simulated table)."""

    def __init__(self, jobs: JobTable, cluster: ClusterSpec, config: SimConfig, record_decisions: bool = False) -> None:
        self.cfg = config
        self.decisions: list[dict] | None = [] if record_decisions else None  # None: not recorded, no work
        if record_decisions:
            self.names = (jobs.job_id.astype(str).tolist(), list(cluster.names))
        self.policy = get_policy(config.policy, config)
        self.jobs = jobs
        n = len(jobs)
        # numpy arrays for what policies read vectorised; lists for scalars read per event.
        # Resources are integer units (simcore.units): every sum and comparison is exact.
        self.req = units.requests(jobs.request)
        self.req_list = [tuple(r) for r in self.req.tolist()]
        self.cl = ClusterState(cluster, config.placement, self.req.min(axis=0) if n else None)
        self.dur = jobs.duration
        self.is_te = jobs.is_te
        self.is_te_list = jobs.is_te.tolist()
        self.order_rank = job_order(jobs, te_first=False)  # "job order" for policies' ties
        rank = self.order_rank if self.policy.fifo_order else job_order(jobs, te_first=True)
        self.rank_list = rank.tolist()
        self.order_rank_list = self.order_rank.tolist()
        job_of_rank = np.empty(n, dtype=np.int64)
        job_of_rank[rank] = np.arange(n)
        self.job_of_rank = job_of_rank.tolist()
        self.preemptive = self.policy.preemptive
        self.arrivals = np.argsort(self.order_rank)  # submit time, then job_id
        self.node = np.full(n, -1, dtype=np.int64)
        self.first_start = [math.nan] * n
        self.finish = [math.nan] * n
        self.preemptions = np.zeros(n, dtype=np.int64)
        self.lost = np.zeros(n)
        self.kept = np.zeros(n)  # work saved before the current segment
        self.work_left = jobs.duration.tolist()  # duration - kept
        self.seg_start = np.zeros(n)
        self.seg_restore = np.zeros(n)
        self.last_ckpt = np.full(n, np.nan)  # when the work kept so far was saved (NaN: never)
        self.min_runtime = config.min_runtime if self.preemptive else 0.0
        self.token = [0] * n
        self.nominated: dict[int, int] = {}  # TE job -> node
        self.reservation: dict[int, np.ndarray] = {}  # TE job -> reserved vector (units)
        self.victim_of: dict[int, int] = {}  # BE job in grace -> TE job it makes room for
        self.heap: list[tuple[float, int, int, int, int]] = []
        self.queue = PendingQueue(self.req[job_of_rank], [self.req_list[j] for j in self.job_of_rank])
        self.rng = np.random.default_rng(config.seed)
        self.ev_time = array("d")
        self.ev_job = array("q")
        self.ev_code = array("b")
        self.ev_node = array("q")
        self._log_appends = (self.ev_time.append, self.ev_job.append, self.ev_code.append, self.ev_node.append)
        self._init_running_be_table(n)
        self.now = 0.0
        self.strict = config.backfill == "none"
        self.n_exempt = int(self.is_te.sum())  # TE jobs take the first ranks when they may preempt
        self.version_seen = -1
        self.te_waiting: list[int] = []  # ranks of the pending TE jobs, sorted

    # -- running BE jobs: a slot table the policies see as compact arrays -----------------
    def _init_running_be_table(self, n: int) -> None:
        size = 64
        self.rb_job = np.full(size, -1, dtype=np.int64)
        self.rb_free = list(range(size - 1, -1, -1))
        self.slot_of = [-1] * n

    def _rb_add(self, j: int) -> None:
        if not self.rb_free:
            old = len(self.rb_job)
            self.rb_job = np.concatenate([self.rb_job, np.full(old, -1, dtype=np.int64)])
            self.rb_free = list(range(2 * old - 1, old - 1, -1))
        s = self.rb_free.pop()
        self.rb_job[s] = j
        self.slot_of[j] = s

    def _rb_remove(self, j: int) -> None:
        s = self.slot_of[j]
        self.rb_job[s] = -1
        self.slot_of[j] = -1
        self.rb_free.append(s)

    def _candidates(self) -> Candidates:
        jobs = self.rb_job[self.rb_job >= 0]
        jobs = jobs[np.argsort(self.order_rank[jobs])]
        if self.min_runtime > 0:  # the same sum as the wake-up time, so the instant it is pushed for qualifies
            jobs = jobs[self.seg_start[jobs] + self.min_runtime <= self.now]
        progress = np.maximum(0.0, self.now - self.seg_start[jobs] - self.seg_restore[jobs])
        total = self.kept[jobs] + progress
        return Candidates(
            job=jobs,
            node=self.node[jobs],
            req=self.req[jobs],
            seg_start=self.seg_start[jobs],
            remaining=self.dur[jobs] - total,
            lost_now=self._lost_if_signalled(total),
            preemptions=self.preemptions[jobs],
            rank=self.order_rank[jobs],
            last_checkpoint=self._last_checkpoint(jobs, total),
            restore_next=np.full(len(jobs), self.cfg.restore),
        )

    def _last_checkpoint(self, jobs: np.ndarray, total: np.ndarray) -> np.ndarray:
        """Time the work a signal now would keep was saved: a periodic checkpoint of this segment, else the last
        one before it (its last preemption with on_preempt); NaN when nothing is saved."""
        before = self.last_ckpt[jobs]
        if self.cfg.checkpoint != "periodic":
            return before
        saved = np.floor(total / self.cfg.checkpoint_interval) * self.cfg.checkpoint_interval
        kept = self.kept[jobs]
        during = self.seg_start[jobs] + self.seg_restore[jobs] + (saved - kept)
        return np.where(saved > kept, during, before)

    def _lost_if_signalled(self, total: np.ndarray) -> np.ndarray:
        mode = self.cfg.checkpoint
        if mode == "on_preempt":
            return np.zeros_like(total)
        if mode == "none":
            return total.copy()
        c = self.cfg.checkpoint_interval
        return total - np.floor(total / c) * c

    # -- records --------------------------------------------------------------------------
    def _log(self, j: int, code: int, k: int) -> None:
        at, aj, ac, ak = self._log_appends
        at(self.now)
        aj(j)
        ac(code)
        ak(k)

    # -- life cycle -----------------------------------------------------------------------
    def _start(self, j: int, k: int) -> None:
        now = self.now
        self.cl.allocate(k, self.req_list[j])
        self.node[j] = k
        restore = self.cfg.restore if self.token[j] else 0.0  # the token counts preemptions
        if math.isnan(self.first_start[j]):
            self.first_start[j] = now
        end = now + restore + self.work_left[j]
        heapq.heappush(self.heap, (end, _FINISH_KIND, self.order_rank_list[j], j, self.token[j]))
        if self.preemptive and not self.is_te_list[j]:  # only preemption reads these
            self.seg_start[j] = now
            self.seg_restore[j] = restore
            self._rb_add(j)
            if self.min_runtime > 0:
                wake = (now + self.min_runtime, _WAKE_KIND, self.order_rank_list[j], j, self.token[j])
                heapq.heappush(self.heap, wake)
        self._log(j, START, k)

    def _signal(self, j: int, te: int) -> None:
        progress = max(0.0, self.now - self.seg_start[j] - self.seg_restore[j])
        total = self.kept[j] + progress
        kept = total - float(self._lost_if_signalled(np.array([total]))[0])
        on_preempt = self.cfg.checkpoint == "on_preempt"  # the grace period saves it all, from the signal on
        self.last_ckpt[j] = self.now if on_preempt else self._last_checkpoint(np.array([j]), np.array([total]))[0]
        self.lost[j] += total - kept
        self.kept[j] = kept
        self.work_left[j] = self.dur[j] - kept
        self.preemptions[j] += 1
        self.token[j] += 1
        self.victim_of[j] = te
        self._rb_remove(j)
        self._log(j, PREEMPT, int(self.node[j]))
        if self.cfg.grace > 0:  # with grace 0 the pass releases it at once
            heapq.heappush(self.heap, (self.now + self.cfg.grace, _RELEASE_KIND, self.order_rank_list[j], j, 0))

    def _release(self, j: int) -> None:
        """End of grace: free the node, top up the TE job's reservation, back to pending."""
        k = int(self.node[j])
        self.cl.release(k, self.req_list[j])
        te = self.victim_of.pop(j)
        if self.nominated.get(te) == k:
            res = self.reservation[te]
            top = np.minimum(np.maximum(self.req[te] - res, 0), self.req[j])
            top = np.minimum(top, np.maximum(self.cl.avail[k], 0))
            self.reservation[te] = res + top
            self.cl.reserve(k, top)
        self._log(j, RELEASE, k)

    def _finish(self, j: int) -> None:
        k = int(self.node[j])
        self.cl.release(k, self.req_list[j])
        self.finish[j] = self.now
        if self.preemptive and not self.is_te_list[j]:
            self._rb_remove(j)
        self._log(j, FINISH, k)

    def _nominate(self, te: int, pre: Preemption, cands: Candidates) -> list[int]:
        k = pre.node
        res = np.minimum(np.maximum(self.cl.avail[k], 0), self.req[te])
        self.nominated[te] = k
        self.reservation[te] = res
        self.cl.reserve(k, res)
        victims = [int(cands.job[p]) for p in pre.victims]
        for v in victims:
            self._signal(v, te)
        return victims

    def _drop_nomination(self, te: int) -> None:
        k = self.nominated.pop(te)
        self.cl.unreserve(k, self.reservation.pop(te))

    # -- the pass -------------------------------------------------------------------------
    def _try_job(self, j: int) -> tuple[bool, bool]:
        """Handle one pending job. Returns (placed, blocks) where blocks means "did not fit"
        in the sense that stops a strict (backfill=none) pass."""
        cl = self.cl
        req = self.req[j]
        k = self.nominated.get(j)
        if k is not None:
            if (cl.avail[k] + self.reservation[j] >= req).all():
                self._drop_nomination(j)
                self._start(j, k)
                return True, False
            other = cl.choose(req, self.req_list[j])
            if other >= 0:
                self._drop_nomination(j)
                self._start(j, other)
                return True, False
            return False, False
        k = cl.choose(req, self.req_list[j])
        if k >= 0:
            self._start(j, k)
            return True, False
        if self.preemptive and self.is_te_list[j]:
            cands = self._candidates()
            view = PreemptionView(self.now, req, cl.cap, cl.inv_cap, _ro(cl.avail), cands, self.cfg, self.rng)
            pre = self.policy.victims(view) if self.decisions is None else self._decide(j, view)
            if pre is not None:
                victims = self._nominate(j, pre, cands)
                if self.cfg.grace == 0:
                    for v in victims:
                        self._release(v)
                        self.released_now.append(v)
                    self._drop_nomination(j)
                    self._start(j, pre.node)
                    return True, False
                return False, False
        return False, True

    def _decide(self, te: int, view: PreemptionView) -> Preemption | None:
        """Ask the policy to explain its choice, and record the decision."""
        ids, nodes = self.names
        explained = self.policy.explain(view)
        running = int(np.count_nonzero(self.rb_job >= 0))  # before min_runtime: the reason tells them apart
        assert self.decisions is not None
        self.decisions.append(decision.record(self.policy, view, explained, ids[te], ids, nodes, running))
        return explained.preemption

    def _pass(self, new: list[int]) -> None:
        """One scheduling pass over the pending queue (rule 3).

        Only jobs that could change state are looked at; skipping the others is exact:
        a job that did not fit when last looked at still does not fit while no room has
        been given back since (finishes, releases and returned reservations bump
        ``cluster.version``), and a job that cannot fit has no effect on the pass.
        """
        if self.queue.count == 0:
            return
        cl = self.cl
        v0 = cl.version
        if self.strict:
            self._walk_strict()
        else:
            self._walk_greedy(new if v0 == self.version_seen else None)
        # a pass during which room was given back looked at some jobs before it: look again next time
        self.version_seen = cl.version if cl.version == v0 else -1

    def _walk_strict(self) -> None:
        """backfill = none: in queue order until the first job that waits."""
        q = self.queue
        r = q.next_within(0, _UNBOUNDED)
        while r >= 0:
            placed, blocks = self._try_job(self.job_of_rank[r])
            if placed:
                self._dequeue(r)
            if blocks:
                return
            r = q.next_within(r + 1, _UNBOUNDED)

    def _walk_greedy(self, only: list[int] | None) -> None:
        """backfill = greedy. TE jobs that may preempt are always looked at; of the others,
        only `only` (this instant's arrivals) when no room was given back, else every job
        that could fit somewhere."""
        q, cl, job_of_rank = self.queue, self.cl, self.job_of_rank
        exempt_end = 0
        if self.preemptive:  # the TE jobs, which take the first ranks; none joins during a pass
            exempt_end = self.n_exempt
            for r in list(self.te_waiting):
                before = cl.version
                if self._try_job(job_of_rank[r])[0]:
                    self._dequeue(r)
                if cl.version != before:
                    only = None
        pos = exempt_end
        if only is not None:
            for r in sorted([self.rank_list[j] for j in only]):
                if r < exempt_end:
                    continue
                before = cl.version
                if self._try_job(job_of_rank[r])[0]:
                    self._dequeue(r)
                if cl.version != before:  # room was given back: every later job may fit now
                    pos = r + 1
                    break
            else:
                return
        # jobs here have no side effect unless placed, and only a placement or a returned
        # reservation changes avail, so the bound is always the current one
        r = q.next_within(pos, self._bound())
        while r >= 0:
            if self._try_job(job_of_rank[r])[0]:
                self._dequeue(r)
            r = q.next_within(r + 1, self._bound())

    def _bound(self) -> tuple[int, int, int]:
        """Per dimension, the largest request that may still fit somewhere."""
        m0, m1, m2 = self.cl.top()
        return (m0, m1, m2)

    # -- the clock ------------------------------------------------------------------------
    def process(self, env: simpy.Environment):
        arrivals = self.arrivals.tolist()
        times = self.jobs.submit_time[self.arrivals].tolist() + [math.inf]
        a = 0
        heap, token, heappop, timeout = self.heap, self.token, heapq.heappop, env.timeout
        while True:
            # drop a finish or wake-up made stale by a preemption, and a wake-up of a finished job or one that
            # would be the next instant while no TE job waits (a TE job that comes later finds it a candidate)
            while heap and (
                (heap[0][1] != _RELEASE_KIND and heap[0][4] != token[heap[0][3]])
                or (
                    heap[0][1] == _WAKE_KIND
                    and (self.slot_of[heap[0][3]] < 0 or (not self.te_waiting and heap[0][0] <= times[a]))
                )
            ):
                heappop(heap)
            t = heap[0][0] if heap else math.inf
            if times[a] < t:
                t = times[a]
            if t == math.inf:
                return
            now = env.now
            yield timeout(t - now if t > now else 0)
            self.now = t
            new: list[int] = []
            while heap and heap[0][0] == t:
                _, kind, _, j, tok = heappop(heap)
                if kind == _FINISH_KIND:
                    if tok == token[j]:
                        self._finish(j)
                elif kind == _WAKE_KIND:
                    pass  # the instant itself is the point: the pass below runs
                else:
                    self._release(j)
                    new.append(j)
            while times[a] == t:
                j = arrivals[a]
                a += 1
                self._log(j, SUBMIT, -1)
                new.append(j)
            if new:
                self._enqueue(new)
            self.released_now: list[int] = []
            self._pass(new)
            if self.released_now:
                self._enqueue(self.released_now)

    def _enqueue(self, jobs: list[int]) -> None:
        for j in jobs:
            r = self.rank_list[j]
            self.queue.add(r)
            if self.is_te_list[j]:
                insort(self.te_waiting, r)

    def _dequeue(self, r: int) -> None:
        self.queue.remove(r)
        if self.is_te_list[self.job_of_rank[r]]:
            self.te_waiting.remove(r)


def _ro(a: np.ndarray) -> np.ndarray:
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
    unschedulable = tuple(str(x) for x in jobs.job_id[~fits_somewhere])
    sim_jobs = _subset(jobs, fits_somewhere) if len(unschedulable) else jobs
    run = _Run(sim_jobs, cluster, config, record_decisions)
    env = simpy.Environment()
    env.process(run.process(env))
    env.run()
    return SimResult(
        config=config,
        cluster=cluster,
        jobs=sim_jobs,
        first_start=np.array(run.first_start, dtype=float),
        finish=np.array(run.finish, dtype=float),
        preemptions=run.preemptions,
        lost_work=run.lost,
        node=run.node,
        ev_time=np.frombuffer(run.ev_time, dtype=float) if len(run.ev_time) else np.zeros(0),
        ev_job=np.frombuffer(run.ev_job, dtype=np.int64) if len(run.ev_job) else np.zeros(0, np.int64),
        ev_code=np.frombuffer(run.ev_code, dtype=np.int8) if len(run.ev_code) else np.zeros(0, np.int8),
        ev_node=np.frombuffer(run.ev_node, dtype=np.int64) if len(run.ev_node) else np.zeros(0, np.int64),
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
    )
