"""Read-only facts about waiting jobs after each pass: what a what-if asks the engine's own state.

:func:`simcore.engine.simulate` takes an optional ``watch`` callable, called with the run after
every pass (the loop does nothing else for it, and nothing at all without one). :class:`JobWatch`
is such an observer: while a job it watches (one, several or every job) is pending it notes, from
the run's state as the pass left it, the facts that decide why the job waits
(:mod:`simcore.whatif.reasons` turns them into words).
The state does not change between two instants, so the facts of a pass hold until the next one.
It reads the engine's parts and never writes to them.

A job's consecutive passes whose facts share a key (the caller's: a reason and its blocker) make one
:class:`Stretch`, kept as its first pass's facts and the instant of its last pass, so what the
watch holds grows with the stretches, not with the passes (issue 16).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from simcore import units
from simcore.engine.gang import fits
from simcore.queues import in_gpus

if TYPE_CHECKING:  # the run itself: only read
    from simcore.engine.loop import _Run

#: an observer of a run, called with the run after each pass (to be read, never written)
Watch = Callable[[Any], None]


@dataclass(frozen=True, slots=True)
class JobFacts:
    """One job after one pass (job indices into the simulated table; resources in GPUs)."""

    time: float
    nominated: bool  # a TE job waiting on its node for its victims' release
    victims: tuple[int, ...]  # those of its victims still in their grace period
    ahead: int | None  # backfill none: the first pending job ahead of it that waits without a nomination
    ahead_is_te: bool  # that job is a TE job
    is_te: bool  # the job itself is a TE job
    workers: int  # its workers (a gang: more than 1)
    fits: bool  # there is room for it now (then it starts at the next pass)
    reserved_by: int | None  # it would fit but for this nominated TE job's reservation
    decision: dict[str, Any] | None  # the decision record this pass made for it (TE, decisions kept)
    free_gpu: float  # the most GPUs free (unreserved) on one node
    strict: bool  # backfill none
    te_first: bool  # the queue puts TE jobs first
    #: with queues, when the job fails its queue's quota condition: (queue, quota, borrow limit, U, N), GPUs
    queue_limit: tuple[str, float, float, float, float] | None = None


#: what makes two passes' facts one stretch (equal keys), from the caller that gives them meaning
Key = Callable[[JobFacts], Hashable]


@dataclass(slots=True)
class Stretch:
    """One job's consecutive passes with the same key: the first pass's facts stand for them all."""

    first: JobFacts
    key: Hashable
    last: float  # the instant of its last pass


class JobWatch:
    """Collects, after every pass, the facts of each watched job while it is pending, as stretches.

    A job's facts extend its last stretch when their ``key`` equals the stretch's and the stretch's
    last pass is the pass instant just before this one; else they open a new stretch.
    ``job_ids`` names the jobs watched; None watches every job. One job or all, each job's facts
    come from the same code on the same state, so watching more jobs changes no job's facts.
    """

    def __init__(self, key: Key, job_ids: Iterable[str] | None = None) -> None:
        self.key = key
        self.job_ids = None if job_ids is None else frozenset(job_ids)
        self.stretches: dict[int, list[Stretch]] = {}  # job index -> its stretches in time order
        self.passes: list[float] = []  # the instant of every pass
        self._before: float | None = None  # the last pass instant before the current pass's
        self._jobs: list[int] | None = None  # the watched jobs' indices (every job: None)
        self._ready = False
        self._seen = 0  # decision records already looked at

    def __call__(self, run: _Run) -> None:
        """After a pass of a run that keeps its decision records (their names map jobs to ids)."""
        decisions = run.decisions or []
        new, self._seen = decisions[self._seen :], len(decisions)
        if not self._ready:  # names are known once the run exists; an unsimulated id is left out
            ids = run.names[0]
            if self.job_ids is not None:
                self._jobs = sorted(j for j, x in enumerate(ids) if x in self.job_ids)
            self._ready = True
        if self._jobs == []:
            return
        now, passes = float(run.now), self.passes
        if passes and passes[-1] < now:  # two passes may share an instant: the one before is earlier
            self._before = passes[-1]
        passes.append(now)
        ranks = _pending_ranks(run) if self._jobs is None else _watched_pending(run, self._jobs)
        if ranks:
            view = _PassView(run, new)
            job_of_rank, key, before, stretches = run.waiting.job_of_rank, self.key, self._before, self.stretches
            for r in ranks:
                j = job_of_rank[r]
                f = view.facts(j, r)
                k = key(f)
                mine = stretches.setdefault(j, [])
                if mine and mine[-1].last == before and mine[-1].key == k:
                    mine[-1].last = now
                else:
                    mine.append(Stretch(f, k, now))


def _pending_ranks(run: _Run) -> list[int]:
    return run.waiting.queue.ranks()


def _watched_pending(run: _Run, jobs: list[int]) -> list[int]:
    """The ranks of the watched jobs that are pending, in queue order."""
    q, rank = run.waiting.queue, run.waiting.rank
    return sorted(r for r in (rank[j] for j in jobs) if r in q)


class _PassView:
    """What one pass left that every waiting job's facts share, each part computed once per pass."""

    def __init__(self, run: _Run, new: list[dict[str, Any]]) -> None:
        self.run = run
        self.avail = np.asarray(run.cl.avail)
        self.free_gpu = float(max(0, int(self.avail[:, 2].max()))) / float(units.SCALE[2]) if len(self.avail) else 0.0
        self.decision = {d["te_job"]: d for d in new}  # per TE job, the last record of this pass
        self._first: int | None = None  # backfill none: the first pending rank not nominated (-1: none)
        self._rooms: list[tuple[int, np.ndarray]] | None = None  # nominated TE job -> room with its reservation

    def first_waiting(self) -> int:
        if self._first is None:
            run = self.run
            book, job_of_rank = run.book, run.waiting.job_of_rank
            self._first = next((x for x in _pending_ranks(run) if book.node_of(job_of_rank[x]) is None), -1)
        return self._first

    def rooms(self) -> list[tuple[int, np.ndarray]]:
        if self._rooms is None:
            book, n = self.run.book, self.run.cl.n
            self._rooms = [(te, self.avail + _held(book, te, n)) for te in sorted(book._node)]
        return self._rooms

    def facts(self, j: int, r: int) -> JobFacts:
        """Job `j` (queue rank `r`, pending) after this pass."""
        run = self.run
        book, js = run.book, run.js
        nominated = book.node_of(j) is not None
        victims = tuple(sorted(v for v, te in book._victim_of.items() if te == j)) if nominated else ()
        ahead = None
        if run.strict:
            first = self.first_waiting()
            if 0 <= first < r:
                ahead = run.waiting.job_of_rank[first]
        req, w = js.req[j], js.workers_list[j]
        here = fits(self.avail, req, w)
        reserved_by = None
        if not here and not nominated:
            reserved_by = next((te for te, room in self.rooms() if fits(room, req, w)), None)
        return JobFacts(
            time=float(run.now),
            nominated=nominated,
            victims=victims,
            ahead=ahead,
            ahead_is_te=ahead is not None and js.is_te_list[ahead],
            is_te=js.is_te_list[j],
            workers=w,
            fits=here,
            reserved_by=reserved_by,
            decision=self.decision.get(run.names[0][j]),
            free_gpu=self.free_gpu,
            strict=run.strict,
            te_first=not run.policy.fifo_order,
            queue_limit=_queue_limit(run, j, nominated),
        )


def _queue_limit(run: _Run, j: int, nominated: bool) -> tuple[str, float, float, float, float] | None:
    """With queues, when `j` fails its queue's quota condition now: (queue, quota, borrow limit, U, N) in GPUs."""
    qs = run.quota
    if qs is None or qs.quota_ok(j, nominated):
        return None
    q = qs.queue[j]
    queue = qs.spec.queues[q]
    return queue.name, queue.gpu, queue.borrow_limit, in_gpus(qs.U[q]), in_gpus(qs.N[q])


def _held(book: Any, te: int, n: int) -> np.ndarray:
    """What nominated `te` reserves, per node (units)."""
    out = np.zeros((n, 3), dtype=np.int64)
    for k, held in book._gang.get(te, [(book._node[te], book._held.get(te))]):
        out[k] += held
    return out
