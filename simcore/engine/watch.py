"""Read-only facts about waiting jobs after each pass: what a what-if asks the engine's own state.

:func:`simcore.engine.simulate` takes an optional ``watch`` callable, called with the run after
every pass (the loop does nothing else for it, and nothing at all without one). :class:`JobWatch`
is such an observer: while a job it watches (one, several or every job) is pending it notes, from
the run's state as the pass left it, the facts that decide why the job waits
(:mod:`simcore.analysis.whatif.reasons` turns them into words).
The state does not change between two instants, so the facts of a pass hold until the next one.
It reads the engine's parts and never writes to them.

A job's consecutive passes whose facts share a key (the caller's: a reason and its blocker) make one
:class:`Stretch`, kept as its first pass's facts and the instant of its last pass, so what the
watch holds grows with the stretches, not with the passes (issue 16).

Which jobs a pass looks at. Watching some jobs, each of them that is pending. Watching every job,
only those whose facts may have changed since the last pass: looking at every pending job after
every pass cost the waiting jobs x the passes (issue 31: 273 CPU s, unfinished, for 20,000 jobs whose
plain run takes about a second). A pending job is *quiet* (:attr:`JobFacts.quiet`) when nothing but a
lack of room holds it: not nominated, no room for it, none reserved for another that it would fit,
no decision record. A job not quiet at the last pass is looked at again, and so is a quiet one when

- it joined the queue (arrived, or released after a preemption): the event log's new rows;
- greedy backfill: room was given back since the last pass (``ClusterState.version`` moved) and its
  request is within the most a node's room could hold, reserved room included (:func:`_room_bound`).
  Without room given back every room only shrank (a new reservation holds room no quiet job fitted
  in, and "fits" is monotone in the room), so a job that fitted none still fits none. With room
  given back before the pass but none during it and no reservation, no job fits either: the pass
  tried every pending job that could fit (:func:`_room_to_look_at`);
- backfill none: it is the first waiting job (the only one whose room decides), or that job changed
  (every job behind it has a new job ahead);
- two passes share an instant (a stretch never spans them);
- with queues (DESIGN rule 11): its queue's usage U + N rose since the last pass so that the job
  now fails the quota condition (a job failing it is not quiet: it is looked at until it meets it).

Otherwise its facts are those of the last pass but for ``time`` and ``free_gpu``, which a key does
not read. A TE job that may preempt needs no trigger of its own: the pass asks the policy for it
every time it reaches it and it does not fit, so it has a decision record, or a nomination, and is
never quiet. So a pass costs the jobs that join, those near room and those whose stretch may end,
not the whole queue.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Iterable
from typing import TYPE_CHECKING, Any, Final

import numpy as np

from simcore.core import result, units
from simcore.core.queues import INF_UNITS, in_gpus
from simcore.engine.gang import fits

if TYPE_CHECKING:  # the run itself: only read
    from simcore.engine.eventlog import EventLog
    from simcore.engine.loop import _Run

_SUBMIT: Final[int] = result.SUBMIT
_START: Final[int] = result.START
_RELEASE: Final[int] = result.RELEASE
_GPU_UNITS: Final[float] = float(units.SCALE[2])  # units per GPU


class JobFacts:
    """One job after one pass (job indices into the simulated table; resources in GPUs). Read only.

    A plain class with slots, not a dataclass: compiled, its ``__init__`` is native, where a
    dataclass's stays interpreted code (a frozen one setting each field through ``object.__setattr__``)."""

    __slots__ = (
        "time",
        "nominated",
        "victims",
        "ahead",
        "ahead_is_te",
        "is_te",
        "workers",
        "fits",
        "reserved_by",
        "decision",
        "free_gpu",
        "strict",
        "te_first",
        "queue_limit",
    )

    def __init__(
        self,
        time: float,
        nominated: bool,
        victims: tuple[int, ...],
        ahead: int | None,
        ahead_is_te: bool,
        is_te: bool,
        workers: int,
        fits: bool,
        reserved_by: int | None,
        decision: dict[str, Any] | None,
        free_gpu: float,
        strict: bool,
        te_first: bool,
        queue_limit: tuple[str, float, float, float, float] | None = None,
    ) -> None:
        self.time = time
        self.nominated = nominated  # a TE job waiting on its node for its victims' release
        self.victims = victims  # those of its victims still in their grace period
        self.ahead = ahead  # backfill none: the first pending job ahead of it that waits without a nomination
        self.ahead_is_te = ahead_is_te  # that job is a TE job
        self.is_te = is_te  # the job itself is a TE job
        self.workers = workers  # its workers (a gang: more than 1)
        # room for it, looked at only for a job neither nominated nor with a job ahead (else False, None):
        self.fits = fits  # there is room for it now (then it starts at the next pass)
        self.reserved_by = reserved_by  # it would fit but for this nominated TE job's reservation
        self.decision = decision  # the decision record this pass made for it (TE, decisions kept)
        self.free_gpu = free_gpu  # the most GPUs free (unreserved) on one node
        self.strict = strict  # backfill none
        self.te_first = te_first  # the queue puts TE jobs first
        #: with queues, when the job fails its queue's quota condition: (queue, quota, borrow limit, U, N), GPUs
        self.queue_limit = queue_limit

    @property
    def quiet(self) -> bool:
        """Nothing but a lack of room holds it: not nominated, no room for it, none reserved for
        another that it would fit, no decision record (see the module docstring)."""
        return (
            not self.nominated
            and not self.fits
            and self.reserved_by is None
            and self.decision is None
            and self.queue_limit is None
        )


#: what makes two passes' facts one stretch (equal keys), from the caller that gives them meaning;
#: it must read neither ``time`` nor ``free_gpu``, the facts a job not looked at again may change
Key = Callable[[JobFacts], Hashable]


class Stretch:
    """One job's consecutive passes with the same key: the first pass's facts stand for them all."""

    __slots__ = ("first", "key", "last")

    def __init__(self, first: JobFacts, key: Hashable, last: float) -> None:
        self.first = first
        self.key = key
        self.last = last  # the instant of its last pass


class JobWatch:
    """Collects, after every pass, the facts of each watched job while it is pending, as stretches.

    A job's facts extend its last stretch when their ``key`` equals the stretch's and the stretch's
    last pass is the pass instant just before this one; else they open a new stretch. A job not
    looked at in a pass (see the module docstring) extends its stretch.
    ``job_ids`` names the jobs watched; None watches every job. One job or all, each job's facts
    come from the same code on the same state, so watching more jobs changes no job's facts.
    """

    def __init__(self, key: Key, job_ids: Iterable[str] | None = None) -> None:
        self.key = key
        self.job_ids = None if job_ids is None else frozenset(job_ids)
        self._stretches: dict[int, list[Stretch]] = {}  # job index -> its stretches in time order
        self.passes: list[float] = []  # the instant of every pass
        self._before: float | None = None  # the last pass instant before the current pass's
        self._jobs: list[int] | None = None  # the watched jobs' indices (every job: None)
        self._ready = False
        self._seen = 0  # decision records already looked at
        self._rows = 0  # event log rows already looked at
        self._open: set[int] = set()  # pending at the last pass: their last stretch runs to it
        self._loud: set[int] = set()  # of those, the jobs not quiet there
        self._version = -1  # the cluster's version at the last pass
        self._head = -2  # backfill none: the first waiting rank at the last pass (-1: none)
        self._levels: list[int] | None = None  # with queues: each queue's U + N at the last pass

    @property
    def stretches(self) -> dict[int, list[Stretch]]:
        """Job index -> its stretches in time order (a job pending at the last pass: up to it)."""
        for j in self._open:
            self._stretches[j][-1].last = self.passes[-1]
        return self._stretches

    def __call__(self, run: _Run) -> None:
        """After a pass of a run that keeps its decision records (their names map jobs to ids)."""
        decisions = run.decisions or []
        new = decisions[self._seen :] if len(decisions) > self._seen else []
        self._seen = len(decisions)
        log = run.log
        rows = len(log)
        joined, started = _moves(log, self._rows) if rows > self._rows else (set(), set())
        self._rows = rows
        if not self._ready:  # names are known once the run exists; an unsimulated id is left out
            ids = run.names[0]
            if self.job_ids is not None:
                self._jobs = sorted(j for j, x in enumerate(ids) if x in self.job_ids)
            self._ready = True
        if self._jobs == []:
            return
        now, passes = float(run.now), self.passes
        last = passes[-1] if passes else -math.inf  # the last pass's instant (none yet: no job is open)
        if passes and last < now:  # two passes may share an instant: the one before is earlier
            self._before = last
        passes.append(now)
        stretches, opened, loud = self._stretches, self._open, self._loud
        if started:
            for j in started.intersection(opened):  # placed in this pass: pending up to the last one
                stretches[j][-1].last = last
                opened.remove(j)
                loud.discard(j)
        ranks = self._looked_at(run, joined, now == last)
        if not ranks:
            return
        view = _PassView(run, new)
        job_of_rank, key, before = run.waiting.job_of_rank, self.key, self._before
        for r in ranks:
            j = job_of_rank[r]
            f = view.facts(j, r)
            k = key(f)
            mine = stretches.get(j)
            if mine is None:
                stretches[j] = [Stretch(f, k, now)]
            else:
                s = mine[-1]
                if j in opened:
                    s.last = last
                if s.last == before and s.key == k:
                    s.last = now
                else:
                    mine.append(Stretch(f, k, now))
            opened.add(j)
            if f.quiet:
                loud.discard(j)
            else:
                loud.add(j)

    def _looked_at(self, run: _Run, joined: set[int], again: bool) -> list[int]:
        """The ranks of the pending jobs this pass looks at (see the module docstring)."""
        w = run.waiting
        q, rank = w.queue, w.rank
        if self._jobs is not None:
            return [r for r in [rank[j] for j in self._jobs] if r in q]
        jobs = joined
        if self._loud:
            jobs |= self._loud
        if run.strict:
            head = _first_waiting(run)
            again = again or head != self._head
            self._head = head
            if head >= 0:
                jobs.add(w.job_of_rank[head])
        else:
            version = run.cl.version
            if version != self._version:
                self._version = version
                if _room_to_look_at(run):
                    jobs.update(_near_room(run))
        if run.quota is not None:
            jobs.update(self._newly_limited(run))
        if again:
            return q.ranks()
        return [r for r in [rank[j] for j in jobs] if r in q] if jobs else []

    def _newly_limited(self, run: _Run) -> list[int]:
        """With queues: the pending jobs that a rise of their queue's U + N since the last pass puts
        above its quota + borrow limit (their fact ``queue_limit`` appears; a quiet job is not looked
        at otherwise). A job over the limit is not quiet, so the way back needs no trigger."""
        qs, qw = run.quota, run.qwait
        assert qs is not None and qw is not None
        levels = [u + n for u, n in zip(qs.U, qs.N, strict=True)]
        before, self._levels = self._levels, levels
        out: list[int] = []
        if before is None:  # the first pass: every pending job has just joined
            return out
        job_of_rank, gpus = run.waiting.job_of_rank, qs.gpus
        for q, now in enumerate(levels):
            was, limit = before[q], qs.limit[q]
            if now > was and limit < INF_UNITS:  # over the limit now, not before: limit - now < GPUs <= limit - was
                lo, hi = limit - now, limit - was
                out += [j for j in (job_of_rank[r] for r in qw.pend[q].ranks()) if lo < gpus[j] <= hi]
        return out


def _moves(log: EventLog, start: int) -> tuple[set[int], set[int]]:
    """The jobs that joined the queue (submitted or released) and those that started, in the log's
    rows from `start` on (the rows not yet moved to its arrays are in its lists)."""
    joined: set[int] = set()
    started: set[int] = set()
    moved = len(log.job)
    if start < moved:  # rows moved to the arrays since the last pass: once per CHUNK rows
        _note(log.job[start:].tolist(), log.code[start:].tolist(), 0, joined, started)
        start = moved
    _note(log._job, log._code, start - moved, joined, started)
    return joined, started


def _note(jobs: list[int], codes: list[int], i: int, joined: set[int], started: set[int]) -> None:
    """Rows `i` on of (`jobs`, `codes`) into `joined` and `started`, by index: no slice copied."""
    for n in range(i, len(jobs)):
        c = codes[n]
        if c == _START:
            started.add(jobs[n])
        elif c == _SUBMIT or c == _RELEASE:
            joined.add(jobs[n])


def _first_waiting(run: _Run) -> int:
    """Backfill none: the first pending rank whose job waits without a nomination (-1: none)."""
    node_of, job_of_rank = run.book.node_of, run.waiting.job_of_rank
    return next((r for c in run.waiting.queue.chunks for r in c.ranks if node_of(job_of_rank[r]) is None), -1)


def _room_to_look_at(run: _Run) -> bool:
    """May a pending job fit some room after this pass? Not when no reservation holds room and no
    room was given back during the pass (``_Run.version_seen``): the pass tried every pending job
    that could fit the free room (backfill greedy), or the first waiting one (backfill none)."""
    return bool(run.book._node) or run.version_seen != run.cl.version


def _room_bound(run: _Run) -> tuple[int, int, int]:
    """Per dimension, the most room one node could offer a job, reserved room included: the most
    any node has free (``ClusterState.top``: on a large cluster, of the nodes open to the smallest
    request, the only ones any job fits on) and each node holding reservations with them added back.
    A job that fits some room, free or reserved, is within it in every dimension."""
    b0, b1, b2 = run.cl.top()
    book = run.book
    if book._node:
        held_on: dict[int, np.ndarray] = {}
        for te in book._node:
            for k, held in _reservations(book, te):
                held_on[k] = held_on[k] + held if k in held_on else held
        avail = run.cl.avail
        for k, held in held_on.items():
            r0, r1, r2 = (avail[k] + held).tolist()
            b0, b1, b2 = max(b0, r0), max(b1, r1), max(b2, r2)
    return b0, b1, b2


def _near_room(run: _Run) -> list[int]:
    """The pending jobs within :func:`_room_bound`, among them every job that fits some room; the
    queue's chunks whose lower bounds are above it are skipped whole."""
    b0, b1, b2 = _room_bound(run)
    q, job_of_rank = run.waiting.queue, run.waiting.job_of_rank
    req, out = q.req_list, []  # requests by rank
    for c in q.chunks:
        if c.lo0 > b0 or c.lo1 > b1 or c.lo2 > b2:
            continue
        for r in c.ranks:
            r0, r1, r2 = req[r]
            if r0 <= b0 and r1 <= b1 and r2 <= b2:
                out.append(job_of_rank[r])
    return out


class _PassView:
    """What one pass left that every waiting job's facts share, each part computed once per pass."""

    def __init__(self, run: _Run, new: list[dict[str, Any]]) -> None:
        self.run = run
        self.now, self.strict, self.te_first = float(run.now), run.strict, not run.policy.fifo_order
        cl = run.cl
        # the most GPUs free on one node: top() holds it, but on a large cluster only over the open nodes
        gpu = cl.top()[2] if cl._open is None else int(np.asarray(cl.avail)[:, 2].max(initial=0))
        self.free_gpu = (gpu if gpu > 0 else 0) / _GPU_UNITS
        self.decision = {d["te_job"]: d for d in new}  # per TE job, the last record of this pass
        self._first: int | None = None  # backfill none: the first pending rank not nominated (-1: none)
        self._rooms: list[tuple[int, np.ndarray]] | None = None  # nominated TE job -> room with its reservation
        self._bound: tuple[int, int, int] | None = None  # _room_bound, when asked
        self._roomy = _room_to_look_at(run)

    def first_waiting(self) -> int:
        if self._first is None:
            self._first = _first_waiting(self.run)
        return self._first

    def rooms(self) -> list[tuple[int, np.ndarray]]:
        if self._rooms is None:
            book, avail = self.run.book, np.asarray(self.run.cl.avail)
            self._rooms = [(te, avail + _held(book, te, len(avail))) for te in sorted(book._node)]
        return self._rooms

    def near_room(self, req: tuple[int, int, int]) -> bool:
        """Is the request (units) within :func:`_room_bound`? Else it fits no room, free or reserved."""
        if self._bound is None:
            self._bound = _room_bound(self.run)
        b0, b1, b2 = self._bound
        return req[0] <= b0 and req[1] <= b1 and req[2] <= b2

    def facts(self, j: int, r: int) -> JobFacts:
        """Job `j` (queue rank `r`, pending) after this pass."""
        run = self.run
        book, js = run.book, run.js
        nominated = book.node_of(j) is not None
        victims = tuple(sorted(v for v, te in book._victim_of.items() if te == j)) if nominated else ()
        ahead = None
        if self.strict:
            first = self.first_waiting()
            if 0 <= first < r:
                ahead = run.waiting.job_of_rank[first]
        w = js.workers_list[j]
        here, reserved_by = False, None
        # a nomination or a job ahead decides, whatever the room (wait_key); most jobs are far from any room
        if not nominated and ahead is None and self._roomy and self.near_room(js.req_list[j]):
            req = js.req[j]
            here = fits(np.asarray(run.cl.avail), req, w)
            if not here:
                reserved_by = next((te for te, room in self.rooms() if fits(room, req, w)), None)
        return JobFacts(
            self.now,
            nominated,
            victims,
            ahead,
            ahead is not None and js.is_te_list[ahead],
            js.is_te_list[j],
            w,
            here,
            reserved_by,
            self.decision.get(run.names[0][j]) if self.decision else None,
            self.free_gpu,
            self.strict,
            self.te_first,
            _queue_limit(run, j, nominated),
        )


def _queue_limit(run: _Run, j: int, nominated: bool) -> tuple[str, float, float, float, float] | None:
    """With queues, when `j` fails its queue's quota condition now: (queue, quota, borrow limit, U, N) in GPUs."""
    qs = run.quota
    if qs is None or qs.quota_ok(j, nominated):
        return None
    q = qs.queue[j]
    queue = qs.spec.queues[q]
    return queue.name, queue.gpu, queue.borrow_limit, in_gpus(qs.U[q]), in_gpus(qs.N[q])


def _reservations(book: Any, te: int) -> list[tuple[int, np.ndarray]]:
    """Nominated `te`'s (node, reserved) pairs (units): one per worker of a gang."""
    return book._gang.get(te, [(book._node[te], book._held.get(te))])


def _held(book: Any, te: int, n: int) -> np.ndarray:
    """What nominated `te` reserves, per node (units)."""
    out = np.zeros((n, 3), dtype=np.int64)
    for k, held in _reservations(book, te):
        out[k] += held
    return out
