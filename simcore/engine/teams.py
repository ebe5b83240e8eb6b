"""A try of a run with queues (DESIGN-queues points 6, 8-11): the quota condition, who preempts and
from which candidates, and the ledger of every decision. The order the pass tries jobs in is
:mod:`simcore.engine.queue_walk`'s.

**A try** (:meth:`TeamRun._try_queued`) applies point 6 (fits = room and the quota condition; a job
that fails the quota condition waits for its own queue and never stops the pass, also under
``backfill = none``), point 9's searches ((a) reclaim for a job within quota, then for a TE job
(a)+(b); (b) alone for a TE job not within quota; a BE job not within quota never preempts; a
search for reclaim alone is made only when another queue over quota runs a BE job) and point 10 (a
nominated job whose victims have all released and that still cannot start is tried afresh). A gang
runs the same searches per worker (:meth:`TeamRun._gang_search`). Every decision is written to the
ledger with the usage of the queues it touched, just before the signals and just after them (with
grace 0: after the releases, before the preemptor starts); with decision records on, its records
carry the same values (point 11).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

import numpy as np

from simcore.core.model import JobTable
from simcore.core.queues import QueueSpec, job_queues
from simcore.engine.ask import read_only
from simcore.engine.queue_walk import QueueWaiting, QueueWalk
from simcore.engine.quota import QuotaState
from simcore.policies import Candidates, decision
from simcore.policies.base import QuotaView

#: the candidates a search weighs (DESIGN-queues point 9): reclaim (a), reclaim and TE first (a)+(b), TE first (b)
RECLAIM: Final[int] = 0
BOTH: Final[int] = 1
OWN: Final[int] = 2
SEARCH_NAMES: Final = ("reclaim", "reclaim and te_first", "te_first")
#: a decision record's reason when the search had no running BE job to weigh at all
NO_CANDIDATE: Final = (decision.NO_RECLAIM_CANDIDATE, decision.NO_QUEUE_CANDIDATE, decision.NO_OWN_CANDIDATE)


class TeamRun(QueueWalk):
    """A run's tries with queues and its nominations, mixed into :class:`simcore.engine.loop._Run`
    (its state and life cycle)."""

    ledger: list[tuple[Any, ...]]
    queue_arr: np.ndarray  # per job, its queue
    gpus_arr: np.ndarray  # per job, its GPUs (units, request x workers)

    def _queues(self, jobs: JobTable, req: np.ndarray, queues: QueueSpec | None) -> None:
        """The state of a run with queues (:mod:`simcore.engine.teams`); None and empty without."""
        self.quota = None
        self.qwait = None
        self.ledger = []
        self.tried = []
        self.pass_no = 0
        self.gang_plan = []
        self.h0 = []
        self.wn0 = []
        self.accepts = None
        self.q_blocked = False
        self.q_stopped = False
        self.joiners = None
        self.searching = RECLAIM
        if queues is None:
            self.queue_arr = np.zeros(0, dtype=np.int64)
            self.gpus_arr = np.zeros(0, dtype=np.int64)
            return
        self.queue_arr = job_queues(queues, jobs)
        self.gpus_arr = req[:, 2] * np.asarray(jobs.workers, dtype=np.int64)
        queue, te = self.queue_arr.tolist(), self.js.is_te_list
        self.quota = QuotaState(queues, queue, self.gpus_arr.tolist(), te)
        self.qwait = QueueWaiting(self.waiting, queue, len(queues.queues), [t and self.preemptive for t in te])
        self.h0 = [0] * len(queues.queues)
        self.wn0 = [False] * len(queues.queues)
        self.tried = [-1] * len(jobs)

    def _nominated(self, j: int) -> None:
        assert self.quota is not None and self.qwait is not None
        self.quota.nominated(j)
        self.qwait.nominated(j)

    # -- the nomination (rule 5), with and without queues ----------------------------------------
    def _preempt_for(self, j: int, k: int, victims: list[int]) -> tuple[int, ...] | None:
        """Nominate `j` to node `k` and signal its `victims` (rule 5): None while it waits for their
        release, else (grace 0) they released within the pass and `j` started: the released jobs."""
        book = self.book
        self._nominate(j, k, victims)
        self.log.nominated(j, k, int(self.js.req_list[j][2] - book.held(j)[2]))
        before = None if self.quota is None else self._usage_of(self._touched(j, victims))
        for v in victims:
            self._signal(v)
        if self.cfg.grace > 0:
            if before is not None:
                self._ledger_write(j, victims, before, len(self.decisions or ()) - 1)
            return None  # it waits, nominated, for its victims' release
        for v in victims:
            self._release(v)
        if before is not None:
            self._ledger_write(j, victims, before, len(self.decisions or ()) - 1)
        self._drop(j)
        self._start(j, k)
        return tuple(victims)

    def _nominate(self, j: int, k: int, victims: list[int]) -> None:
        self.book.nominate(j, k, victims)
        if self.quota is not None:
            self._nominated(j)

    def _end_nomination(self, j: int) -> None:
        """`j`'s nomination ends (a node of it goes down or starts draining, DESIGN-failures point 5): its
        reservations are returned, its victims detached, and with queues N no longer counts it."""
        self.book.end(j)
        if self.quota is not None:
            assert self.qwait is not None
            self.quota.unnominated(j)
            self.qwait.unnominated(j)

    def _drop(self, j: int) -> None:
        """`j`'s nomination is returned (it starts, or is tried afresh)."""
        self.book.drop(j)
        if self.quota is not None:
            assert self.qwait is not None
            self.quota.unnominated(j)
            self.qwait.unnominated(j)

    # -- a try ---------------------------------------------------------------------------------
    def _try_queued(self, j: int) -> tuple[int, ...] | None:
        """One pending job of a run with queues (points 6, 9, 10): None when it stays pending, else it
        was placed and the result holds the jobs released to make room within the pass (grace 0)."""
        qs, cl, book, js = self.quota, self.cl, self.book, self.js
        assert qs is not None
        self.q_blocked = False
        if self.gangs and js.workers_list[j] > 1:
            return self._try_gang(j)
        req_t = js.req_list[j]
        k = book.node_of(j)
        if k is not None:  # nominated: started once it meets the quota condition and fits (its node first)
            if qs.quota_ok(j, True):
                if not book.fits_on_its_node(j):
                    k = cl.choose(None, req_t)
                if k >= 0:
                    self._drop(j)
                    self._start(j, k)
                    return ()
            if self.q_stopped or book.in_grace(j):
                return None  # waits for its victims: it blocks nobody
            self._drop(j)  # its victims have all released and it still cannot start: tried afresh
        if qs.quota_ok(j, False):
            k = cl.choose(None, req_t)
            if k >= 0:
                self._start(j, k)
                return ()
            self.q_blocked = True
        if not self.preemptive:
            return None
        chosen = self._ask_queued(j)
        if chosen is None:
            return None
        self.q_blocked = False
        return self._preempt_for(j, chosen[0], chosen[1])

    def _plan(self, j: int) -> list[int]:
        """The searches job `j` makes, in order (point 9); empty when it never preempts now. A search
        for reclaim alone is made only when another queue over quota runs a BE job."""
        qs = self.quota
        assert qs is not None
        te = self.js.is_te_list[j]
        if qs.within(j, False):
            plan = [RECLAIM] if qs.reclaim_possible(qs.queue[j]) else []
            if te:
                plan.append(BOTH)
            return plan
        return [OWN] if te else []

    def _ask_queued(self, j: int) -> tuple[int, list[int]] | None:
        """The victims of a single job (node, victim jobs in signal order) by its plan, or None. The
        budget is checked once, before the first search; only the last search is recorded."""
        plan = self._plan(j)
        if not plan:
            return None
        recorded = len(self.decisions) if self.decisions is not None else 0
        avail = read_only(self.cl.avail)
        for i, which in enumerate(plan):
            self.searching = which
            cands, everyone, offered = self._queue_candidates(j, which)
            view = self._view(j, avail, cands, everyone, self._quota_view(j, cands, which, ()))
            if i == 0 and self._budget_spent(j, view):
                return None
            pre = self._ask(j, view, which, offered)
            if pre is not None:
                self._keep_last(recorded)
                if self.budget is not None:
                    self.budget.spend(self.now)
                return pre.node, [int(cands.job[p]) for p in pre.victims]
        self._keep_last(recorded)
        return None

    def _keep_last(self, recorded: int) -> None:
        """Of the records made since `recorded`, keep the last (the search that decided)."""
        if self.decisions is not None and len(self.decisions) > recorded + 1:
            del self.decisions[recorded:-1]

    def _queue_candidates(self, j: int, which: int) -> tuple[Candidates, Callable[[], Candidates] | None, int]:
        """The candidates of search `which` for single job `j`, every running BE job (for what finishes
        free: fitdelay; made on first use) when they differ, and how many running BE jobs it offered
        before ``min_runtime``."""
        running = self.running.jobs()
        offered = running[self._offer(running, j, which, ())]
        cands, everyone = self._candidates_lazily(offered)
        return cands, everyone, len(offered)

    def _offer(self, jobs: np.ndarray, j: int, which: int, chosen: tuple[int, ...] | list[int]) -> np.ndarray:
        """Which of the running BE `jobs` search `which` of job `j` weighs (point 9): (a) those of other
        queues over quota, each with a gang's earlier victims `chosen` an eligible set; (b) its own
        queue's; never one of `chosen`."""
        qs = self.quota
        assert qs is not None
        mine = qs.queue[j]
        queue = self.queue_arr[jobs]
        over_list = [qs.over(p) and p != mine for p in range(len(qs.quota))]
        if which == OWN or not any(over_list):  # (no other queue over quota: no reclaim candidate)
            keep = queue == mine if which != RECLAIM else np.zeros(len(jobs), dtype=bool)
        else:
            over = np.array(over_list, dtype=bool)
            keep = over[queue]
            if chosen:
                keep &= self._eligible_with(jobs, chosen, mine)
            if which == BOTH:
                keep |= queue == mine
        if chosen:
            keep &= ~np.isin(jobs, list(chosen))
        return keep

    def _eligible_with(self, jobs: np.ndarray, chosen: tuple[int, ...] | list[int], mine: int) -> np.ndarray:
        """Per job of another queue: alone with a gang's earlier victims `chosen`, is it an eligible set?"""
        qs = self.quota
        assert qs is not None
        prior, _ = self._prior(chosen, mine)
        out = np.ones(len(jobs), dtype=bool)
        for i, v in enumerate(jobs.tolist()):
            p = qs.queue[v]
            if p in prior:
                total, big = prior[p]
                g = qs.gpus[v]
                out[i] = qs.R[p] - total - g + (g if g > big else big) > qs.quota[p]
        return out

    def _prior(self, chosen: tuple[int, ...] | list[int], mine: int) -> tuple[dict[int, tuple[int, int]], int]:
        """A gang's victims so far: per other queue (GPUs, largest), and the GPUs its own queue's free."""
        qs = self.quota
        assert qs is not None
        prior: dict[int, tuple[int, int]] = {}
        freed = 0
        for v in chosen:
            p, g = qs.queue[v], qs.gpus[v]
            if p == mine:
                freed += g
            else:
                total, big = prior.get(p, (0, 0))
                prior[p] = (total + g, g if g > big else big)
        return prior, freed

    def _quota_view(self, j: int, cands: Candidates, which: int, chosen: tuple[int, ...] | list[int]) -> QuotaView:
        qs = self.quota
        assert qs is not None
        mine = qs.queue[j]
        queue = self.queue_arr[cands.job]
        prior, freed = self._prior(chosen, mine)
        return QuotaView(
            queues=queue,
            owns=queue == mine,
            gpus_units=self.gpus_arr[cands.job],
            running=list(qs.R),
            quota=list(qs.quota),
            missing=qs.missing(j) if which == OWN else 0,
            prior=prior,
            prior_freed=freed,
        )

    def _ask(self, j: int, view: Any, which: int, offered: int) -> Any:
        """Ask the policy on `view` (recording the decision when records are kept)."""
        if self.decisions is None:
            return self.policy.victims(view)
        explained = self.policy.explain(view)
        # running BE jobs none of which the search may take: say which were left out (none at all: as without queues)
        if self.all_skipped:  # every candidate was on a node a search skips (DESIGN-failures point 5)
            why: str | None = decision.ON_CLOSED_NODES
        else:
            why = NO_CANDIDATE[which] if offered == 0 and len(self.running) and explained.preemption is None else None
        self._record(j, view, explained, why, offered)
        return explained.preemption

    def _record_fields(self, j: int, which: int) -> dict[str, Any]:
        """What a run with queues adds to each decision record before the choice is acted on (point 11)."""
        qs = self.quota
        assert qs is not None
        return {
            "job_class": "TE" if self.js.is_te_list[j] else "BE",
            "queue": qs.names[qs.queue[j]],
            "search": SEARCH_NAMES[which],
            "cause": None,
            "victim_queues": [],
            "victim_gpus": [],
            "usage_before": None,
            "usage_after": None,
        }

    # -- a gang's searches (DESIGN-gangs points 6-9 with queues) -------------------------------
    def _gang_search(
        self, j: int, avail: np.ndarray, pool: Candidates, running: Candidates | None, chosen: list[int]
    ) -> tuple[int, tuple[int, ...]] | None:
        """One worker's searches by the gang's plan on the tentative room `avail` (DESIGN-gangs point 8):
        `pool` holds the candidates not chosen yet, `running` every running BE job but those (None: the
        pool), `chosen` the earlier workers' victims; (node, entries of `pool`) or None. Only the last
        search is recorded."""
        recorded = len(self.decisions) if self.decisions is not None else 0
        everyone = self.running.jobs()
        for which in self.gang_plan:
            self.searching = which
            sub = np.flatnonzero(self._offer(pool.job, j, which, chosen))
            cands = pool.take(sub)
            view = self._view(j, avail, cands, running, self._quota_view(j, cands, which, chosen))
            pre = self._ask(j, view, which, int(self._offer(everyone, j, which, chosen).sum()))
            if pre is not None:
                self._keep_last(recorded)
                return pre.node, tuple(int(sub[p]) for p in pre.victims)
        self._keep_last(recorded)
        return None

    # -- the ledger (points 11 and 12) ---------------------------------------------------------
    def _usage_of(self, queues: list[int]) -> tuple[tuple[int, int, int], ...]:
        qs = self.quota
        assert qs is not None
        return tuple(qs.usage(q) for q in queues)

    def _touched(self, j: int, victims: list[int] | tuple[int, ...]) -> list[int]:
        """The preemptor's queue, then every victim's queue in order of first appearance."""
        qs = self.quota
        assert qs is not None
        out = [qs.queue[j]]
        for v in victims:
            if qs.queue[v] not in out:
                out.append(qs.queue[v])
        return out

    def _ledger_write(
        self, j: int, victims: list[int] | tuple[int, ...], before: tuple[Any, ...], recorded: int
    ) -> None:
        """The decision of `j` (victims signalled, and released with grace 0): its ledger entry, and the
        same values in its decision records with victims (those made since `recorded`)."""
        touched = self._touched(j, victims)
        after = self._usage_of(touched)
        self.ledger.append((self.now, j, tuple(victims), tuple(touched), before, after))
        if self.decisions is None:
            return
        qs = self.quota
        assert qs is not None
        names = qs.names
        usage_b = _usage_json(names, touched, before)
        usage_a = _usage_json(names, touched, after)
        rest = list(victims)
        mine = qs.queue[j]
        for rec in self.decisions[recorded:]:
            if not rec["victims"]:
                continue
            own, rest = rest[: len(rec["victims"])], rest[len(rec["victims"]) :]
            rec["cause"] = "reclaim" if all(qs.queue[v] != mine for v in own) else "te_first"
            rec["victim_queues"] = [names[qs.queue[v]] for v in own]
            rec["victim_gpus"] = [qs.gpus[v] / 1000 for v in own]
            rec["usage_before"], rec["usage_after"] = usage_b, usage_a


def _usage_json(names: list[str], queues: list[int], usage: tuple[Any, ...]) -> dict[str, list[float]]:
    """{queue: [U, R, share]} in GPUs (share: GPUs per unit of weight)."""
    return {names[q]: [u / 1000, r / 1000, s / 1e9] for q, (u, r, s) in zip(queues, usage, strict=True)}
