"""Read-only facts about one job after each pass: what a what-if asks the engine's own state.

:func:`simcore.engine.simulate` takes an optional ``watch`` callable, called with the run after
every pass (the loop does nothing else for it, and nothing at all without one). :class:`JobWatch`
is such an observer: while its job is pending it notes, from the run's state as the pass left it,
the facts that decide why the job waits (:mod:`simcore.whatif.reasons` turns them into words).
The state does not change between two instants, so the facts of a pass hold until the next one.
It reads the engine's parts and never writes to them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from simcore import units
from simcore.engine.gang import fits

if TYPE_CHECKING:  # the run itself: only read
    from simcore.engine.loop import _Run

#: an observer of a run, called with the run after each pass (to be read, never written)
Watch = Callable[[Any], None]


@dataclass(frozen=True)
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


class JobWatch:
    """Collects :class:`JobFacts` for job `job_id` after every pass while it is pending."""

    def __init__(self, job_id: str) -> None:
        self.job_id = job_id
        self.facts: list[JobFacts] = []  # one per pass while it waits
        self.passes: list[tuple[float, bool]] = []  # every pass: (instant, was it pending after it)
        self._j: int | None = None
        self._seen = 0  # decision records already looked at

    def __call__(self, run: _Run) -> None:
        """After a pass of a run that keeps its decision records (their names map jobs to ids)."""
        decisions = run.decisions or []
        new, self._seen = decisions[self._seen :], len(decisions)
        if self._j is None:
            ids = run.names[0]
            self._j = ids.index(self.job_id) if self.job_id in ids else -1  # -1: not simulated
        j = self._j
        if j < 0:
            return
        waiting = run.waiting
        queue, r = waiting.queue, waiting.rank[j]
        pending = r in queue.short if queue.short is not None else bool(queue.mask[r])
        self.passes.append((float(run.now), pending))
        if pending:
            self.facts.append(_facts(run, j, r, new))


def _pending_ranks(run: _Run) -> list[int]:
    q = run.waiting.queue
    return sorted(q.short) if q.short is not None else np.flatnonzero(q.mask).tolist()


def _facts(run: _Run, j: int, r: int, new: list[dict[str, Any]]) -> JobFacts:
    book, js, cl = run.book, run.js, run.cl
    nominated = book.node_of(j) is not None
    victims = tuple(sorted(v for v, te in book._victim_of.items() if te == j)) if nominated else ()
    ahead = None
    if run.strict:
        first = next((x for x in _pending_ranks(run) if book.node_of(run.waiting.job_of_rank[x]) is None), None)
        if first is not None and first < r:
            ahead = run.waiting.job_of_rank[first]
    req, w = js.req[j], js.workers_list[j]
    avail = np.asarray(cl.avail)
    here = fits(avail, req, w)
    reserved_by = None
    if not here and not nominated:
        for te in sorted(book._node):
            if fits(avail + _held(book, te, cl.n), req, w):
                reserved_by = te
                break
    mine = next((d for d in reversed(new) if d["te_job"] == run.names[0][j]), None) if new else None
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
        decision=mine,
        free_gpu=float(max(0, int(avail[:, 2].max()))) / float(units.SCALE[2]) if len(avail) else 0.0,
        strict=run.strict,
        te_first=not run.policy.fifo_order,
    )


def _held(book: Any, te: int, n: int) -> np.ndarray:
    """What nominated `te` reserves, per node (units)."""
    out = np.zeros((n, 3), dtype=np.int64)
    for k, held in book._gang.get(te, [(book._node[te], book._held.get(te))]):
        out[k] += held
    return out
