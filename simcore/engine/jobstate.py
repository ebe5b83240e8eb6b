"""Per-job state of a run: each job's facts, its life so far, and the checkpoint accounting.

Arrays are indexed by job (its position in the simulated table). What policies read
vectorised (:class:`Candidates`) is numpy; what the engine reads one job at a time on every
event is a Python list, whose element reads are several times faster than numpy's.
A job's *segment* is one run from a start to its finish or preemption; ``kept`` is the
work saved before the current segment, so ``work_left = duration - kept`` (DESIGN.md
section 2: what a preemption keeps depends on the checkpoint mode; with ``on_preempt`` a save
that fails keeps nothing new, :mod:`simcore.core.saves`). A gang (``workers`` > 1) is one job here:
one segment, one token, one progress; ``node`` is worker 0's and ``gang_nodes`` holds every
worker's node, in worker order (DESIGN.md rule 10).
"""

from __future__ import annotations

import math
from array import array
from dataclasses import replace

import numpy as np

from simcore.core.model import JobTable, SimConfig
from simcore.core.saves import failure_probability
from simcore.engine.queue_order import int_pool
from simcore.policies import Candidates
from simcore.workload.fit import distinct_rows


class JobState:
    def __init__(
        self, jobs: JobTable, req: np.ndarray, order_rank: np.ndarray, config: SimConfig, ints: np.ndarray | None = None
    ) -> None:
        """`req`: the requests in integer units (:mod:`simcore.core.units`); `order_rank`: job order (rule 2, no class);
        `ints`: :func:`~simcore.engine.queue_order.int_pool` of the jobs (made here when not given)."""
        n = len(jobs)
        ints = int_pool(n) if ints is None else ints
        self.req = req
        # one tuple per distinct request, shared by the jobs that ask for it (a 1M-job run has ~1,000)
        rows, inverse = distinct_rows(req)
        pool = np.empty(len(rows), dtype=object)
        for i, row in enumerate(rows.tolist()):
            pool[i] = tuple(row)
        self.req_list: list[tuple[int, int, int]] = pool[inverse].tolist()
        self.dur = jobs.duration
        self.is_te_list: list[bool] = jobs.is_te.tolist()
        self.workers = jobs.workers
        self.workers_list: list[int] = jobs.workers.tolist()  # type: ignore[union-attr]
        self.has_gangs = jobs.has_gangs
        self.gang_nodes: dict[int, list[int]] = {}  # gang -> its workers' nodes (current or last)
        self.order_rank = order_rank  # "job order" for policies' ties and same-instant events
        self.order_rank_list: list[int] = ints[order_rank].tolist()
        self._restore = config.restore
        self._mode = config.checkpoint
        self._interval = config.checkpoint_interval
        self._p_fail = failure_probability(config)
        self.node_list = [-1] * n  # current or last node (a list read is native when compiled)
        # the same for the jobs that may be preempted, whose segments start with `segment` (what
        # candidates read); every job's is node_list (the result's), a numpy write per start costs more
        self.node = np.full(n, -1, dtype=np.int64)
        # typed arrays, not lists: a float written to a list is an object of 24 bytes more (48 MB on 1M jobs)
        self.first_start = array("d", [math.nan]) * n
        self.finish = array("d", [math.nan]) * n
        self.preemptions = np.zeros(n, dtype=np.int64)
        self.lost = np.zeros(n)  # progress discarded, summed over preemptions
        self.kept = np.zeros(n)
        self.work_left = array("d", np.ascontiguousarray(jobs.duration, dtype=np.float64).tobytes())
        # segment start and its restore: written for the jobs that may be preempted only
        self.seg_start = np.zeros(n)
        self.seg_restore = np.zeros(n)
        self.last_ckpt = np.full(n, np.nan)  # when the work kept so far was saved (NaN: never)
        # bumped at each preemption, so it also counts them; a finish or wake-up scheduled
        # for an older segment carries an older token and is ignored
        self.token = [0] * n

    def start(self, j: int, k: int, now: float, segment: bool) -> float:
        """`j` starts on node `k` at `now`; returns when it finishes unless preempted.
        `segment`: record the segment's start and node (only preemption reads them)."""
        restore = self._restore if self.token[j] else 0.0  # every start after a preemption restores
        self.node_list[j] = k
        if math.isnan(self.first_start[j]):
            self.first_start[j] = now
        if segment:
            self.node[j] = k
            self.seg_start[j] = now
            self.seg_restore[j] = restore
        return now + restore + self.work_left[j]

    def signal(self, j: int, now: float, save_failed: bool = False) -> None:
        """`j` is preempted at `now`: progress stops, and what the checkpoint mode does not keep is lost
        (with `save_failed`, the on_preempt save failed: the work since the last successful save or start)."""
        progress = max(0.0, now - self.seg_start[j] - self.seg_restore[j])  # none while restoring
        total = self.kept[j] + progress
        if save_failed:
            kept = float(self.kept[j])  # and last_ckpt stays that of the last successful save
        elif self._mode == "on_preempt":  # the grace period saves it all, from the signal on
            kept = total
            self.last_ckpt[j] = now
        else:
            kept = total - float(self._lost_if_signalled(np.array([total]), self.kept[[j]])[0])
            self.last_ckpt[j] = self._last_checkpoint(np.array([j]), np.array([total]))[0]
        self.lost[j] += total - kept
        self.kept[j] = kept
        self.work_left[j] = self.dur[j] - kept
        self.preemptions[j] += 1
        self.token[j] += 1

    def candidates(self, jobs: np.ndarray, now: float, min_runtime: float) -> Candidates:
        """The policies' view of running BE `jobs` at `now`, in job order; with `min_runtime` > 0
        only those whose segment has lasted that long."""
        jobs = jobs[self.order_rank[jobs].argsort()]  # the method: np.argsort's wrapper costs more than the sort
        seg = self.seg_start[jobs]  # each column read once: a numpy call costs more than its few rows
        if min_runtime > 0:  # the same sum as the wake-up time, so the instant it is pushed for qualifies
            keep = seg + min_runtime <= now
            jobs, seg = jobs[keep], seg[keep]
        kept = self.kept[jobs]
        total = kept + np.maximum(0.0, now - seg - self.seg_restore[jobs])
        lost_now = self._lost_if_signalled(total, kept)
        # with on_preempt: P(the save fails) x the work since the last successful save or start
        expected = self._p_fail * (total - kept) if self._mode == "on_preempt" else lost_now
        c = Candidates(
            job=jobs,
            node=self.node[jobs],
            req=self.req[jobs],
            seg_start=seg,
            remaining=self.dur[jobs] - total,
            lost_now=lost_now,
            expected_loss=expected,
            preemptions=self.preemptions[jobs],
            rank=self.order_rank[jobs],
            last_checkpoint=self._last_checkpoint(jobs, total),
            restore_next=np.full(len(jobs), self._restore),
            # None without gangs: all 1, and Candidates knows so without looking (its single())
            workers=self.workers[jobs] if self.has_gangs else None,  # type: ignore[index,arg-type]
        )
        if self.has_gangs and len(self.gang_nodes):
            return self._per_node(c)
        return c

    def _per_node(self, c: Candidates) -> Candidates:
        """One entry per job and node it holds (DESIGN-gangs point 3): a gang's entry on node n
        holds its per-worker request x its workers on n; entries of one job by node index."""
        rows: list[int] = []
        nodes: list[int] = []
        mult: list[int] = []
        for i, j in enumerate(c.job.tolist()):
            held = self.gang_nodes.get(j)
            if held is None:
                rows.append(i)
                nodes.append(int(c.node[i]))
                mult.append(1)
                continue
            for k in sorted(set(held)):
                rows.append(i)
                nodes.append(k)
                mult.append(held.count(k))
        e = c.take(np.array(rows, dtype=np.int64))
        req = e.req * np.array(mult, dtype=np.int64)[:, None]
        return replace(e, node=np.array(nodes, dtype=np.int64), req=req, unit_req=e.req)

    def _last_checkpoint(self, jobs: np.ndarray, total: np.ndarray) -> np.ndarray:
        """Time the work a signal now would keep was saved: a periodic checkpoint of this segment, else the last
        one before it (its last preemption with on_preempt); NaN when nothing is saved."""
        before = self.last_ckpt[jobs]
        if self._mode != "periodic":
            return before
        saved = np.floor(total / self._interval) * self._interval
        kept = self.kept[jobs]
        during = self.seg_start[jobs] + self.seg_restore[jobs] + (saved - kept)
        return np.where(saved > kept, during, before)

    def _lost_if_signalled(self, total: np.ndarray, kept: np.ndarray) -> np.ndarray:
        """Of `total` attained service (`kept` of it saved before), what a signal now surely loses: with on_preempt
        nothing, unless every save fails (save_time > grace, save_failure 1): then the work since the last save."""
        if self._mode == "on_preempt":
            return total - kept if self._p_fail >= 1.0 else np.zeros_like(total)
        if self._mode == "none":
            return total.copy()
        c = self._interval
        return total - np.floor(total / c) * c
