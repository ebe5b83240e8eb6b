"""The watch of every job as it was before issue 31, kept as the reference the incremental one is
checked against (tests/test_watch_incremental.py): after every pass it notes the facts of every
pending watched job, looking at each one (its cost grew as the waiting jobs x the passes)."""

from __future__ import annotations

from typing import Any

import numpy as np

from simcore.core import units
from simcore.engine.gang import fits
from simcore.engine.watch import JobFacts, Key, Stretch


class ReferenceWatch:
    """simcore.engine.watch.JobWatch of main at 493b44d, every job watched."""

    def __init__(self, key: Key) -> None:
        self.key = key
        self.job_ids = None
        self.stretches: dict[int, list[Stretch]] = {}
        self.passes: list[float] = []
        self._before: float | None = None
        self._seen = 0

    def __call__(self, run: Any) -> None:
        decisions = run.decisions or []
        new, self._seen = decisions[self._seen :], len(decisions)
        now, passes = float(run.now), self.passes
        if passes and passes[-1] < now:
            self._before = passes[-1]
        passes.append(now)
        ranks = run.waiting.queue.ranks()
        if ranks:
            view = _View(run, new)
            for r in ranks:
                j = run.waiting.job_of_rank[r]
                f = view.facts(j, r)
                k = self.key(f)
                mine = self.stretches.setdefault(j, [])
                if mine and mine[-1].last == self._before and mine[-1].key == k:
                    mine[-1].last = now
                else:
                    mine.append(Stretch(f, k, now))


class _View:
    def __init__(self, run: Any, new: list[dict[str, Any]]) -> None:
        self.run = run
        self.avail = np.asarray(run.cl.avail)
        self.free_gpu = float(max(0, int(self.avail[:, 2].max()))) / float(units.SCALE[2]) if len(self.avail) else 0.0
        self.decision = {d["te_job"]: d for d in new}

    def facts(self, j: int, r: int) -> JobFacts:
        run = self.run
        book, js = run.book, run.js
        nominated = book.node_of(j) is not None
        victims = tuple(sorted(v for v, te in book._victim_of.items() if te == j)) if nominated else ()
        ahead = None
        if run.strict:
            ranks = run.waiting.queue.ranks()
            first = next((x for x in ranks if book.node_of(run.waiting.job_of_rank[x]) is None), -1)
            if 0 <= first < r:
                ahead = run.waiting.job_of_rank[first]
        req, w = js.req[j], js.workers_list[j]
        here = fits(self.avail, req, w)
        reserved_by = None
        if not here and not nominated:
            for te in sorted(book._node):
                held = np.zeros((run.cl.n, 3), dtype=np.int64)
                for k, h in book._gang.get(te, [(book._node[te], book._held.get(te))]):
                    held[k] += h
                if fits(self.avail + held, req, w):
                    reserved_by = te
                    break
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
        )
