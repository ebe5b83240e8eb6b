"""Per-job state of a run: each job's facts, its life so far, and the checkpoint accounting.

Arrays are indexed by job (its position in the simulated table). What policies read
vectorised (:class:`Candidates`) is numpy; what the engine reads one job at a time on every
event is a Python list, whose element reads are several times faster than numpy's.
A job's *segment* is one run from a start to its finish or preemption; ``kept`` is the
work saved before the current segment, so ``work_left = duration - kept`` (DESIGN.md
section 2: what a preemption keeps depends on the checkpoint mode; with ``on_preempt`` a save
that fails keeps nothing new, :mod:`simcore.core.saves`). A gang (``workers`` > 1) is one job here:
one segment, one token, one progress; ``node`` is worker 0's and ``gang_nodes`` holds every
worker's node, in worker order (DESIGN.md rule 10). Drains and failures (DESIGN rule 12) stop a
segment too: a drain is a signal that is not counted as a preemption, a failure keeps what a
signal whose save fails keeps (:meth:`JobState.fail`). With ``checkpoint_cost`` > 0 the periodic
checkpoints pause progress and count once the pause is over (:mod:`simcore.core.checkpoints`).
"""

from __future__ import annotations

import math
from array import array
from dataclasses import replace

import numpy as np

from simcore.core import checkpoints
from simcore.core.model import JobTable, SimConfig
from simcore.core.saves import failure_probability
from simcore.engine.queue_order import int_pool
from simcore.policies import Candidates
from simcore.workload.fit import distinct_rows


class JobState:
    def __init__(
        self,
        jobs: JobTable,
        req: np.ndarray,
        order_rank: np.ndarray,
        config: SimConfig,
        ints: np.ndarray | None = None,
        every_segment: bool = False,
    ) -> None:
        """`req`: the requests in integer units (:mod:`simcore.core.units`); `order_rank`: job order (rule 2, no class);
        `ints`: :func:`~simcore.engine.queue_order.int_pool` of the jobs (made here when not given);
        `every_segment`: keep every job's segments, not only those of the jobs that may be preempted
        (a run with down time, where any job may fail or be drained)."""
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
        self._cost = config.checkpoint_cost if self._mode == "periodic" else 0.0  # seconds of pause per checkpoint
        self._p_fail = failure_probability(config)
        self.every_segment = every_segment
        # when each job's current segment finishes unless stopped (its pauses included), kept for
        # fitdelay's test when a finish is not the restore and work left alone (down time, pauses)
        self.end = array("d", [math.nan]) * n if every_segment or self._cost > 0 else None
        # with on_preempt and down time: (kept, last_ckpt) before the save of the job's last signal,
        # which a failure during its grace period undoes (DESIGN-failures point 6)
        self._before_save: dict[int, tuple[float, float]] = {}
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
        end = now + restore + self.work_left[j]
        if self._cost > 0:
            end += checkpoints.count(float(self.kept[j]), float(self.dur[j]), self._interval) * self._cost
        if self.end is not None:
            self.end[j] = end
        return end

    def signal(self, j: int, now: float, save_failed: bool = False, preemption: bool = True) -> None:
        """`j` is preempted at `now` (drained, when not a `preemption`: not counted as one): progress stops,
        and what the checkpoint mode does not keep is lost (with `save_failed`, the on_preempt save
        failed: the work since the last successful save or start)."""
        if self.every_segment and self._mode == "on_preempt":
            self._before_save[j] = (float(self.kept[j]), float(self.last_ckpt[j]))
        self._stop(j, now, save_failed)
        if preemption:
            self.preemptions[j] += 1

    def fail(self, j: int, now: float, in_grace: bool) -> float:
        """`j` stops at `now` on a node failure (DESIGN-failures point 6), without grace or save; returns the
        work this loses. Running, it keeps what a signal whose save fails keeps (the last checkpoint
        counted; nothing with ``none``; with on_preempt what its last successful save kept). In its
        grace period it loses the save it was making (on_preempt), its progress having stopped at the signal."""
        before = float(self.lost[j])
        if not in_grace:
            self._stop(j, now, self._mode == "on_preempt")  # no save: under on_preempt, as a save that fails
        else:
            kept = float(self.kept[j])
            if j in self._before_save:  # on_preempt: back to what the last successful save kept
                kept, self.last_ckpt[j] = self._before_save.pop(j)
            self._keep(j, float(self.kept[j]), kept)
        return float(self.lost[j]) - before

    def _stop(self, j: int, now: float, save_failed: bool) -> None:
        """Progress of `j` stops at `now`: keep what the checkpoint mode keeps, lose the rest; a new token."""
        if self._cost > 0:
            (attained,), (keep,), (self.last_ckpt[j],) = self._paused([j], now)
            self._keep(j, attained, keep)
            return
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
        self._keep(j, total, kept)

    def _keep(self, j: int, total: float, kept: float) -> None:
        """Of `total` attained service `j` keeps `kept`, where its next segment resumes, and loses the
        rest; a new token (its scheduled finish, release or wake-up is stale)."""
        self.lost[j] += total - kept
        self.kept[j] = kept
        self.work_left[j] = self.dur[j] - kept
        self.token[j] += 1

    def _paused(self, jobs: list[int], now: float) -> tuple[list[float], list[float], list[float]]:
        """With checkpoint_cost > 0: per job of `jobs` at `now`, (attained service, the work kept, when
        that work was saved: the end of its checkpoint's pause, else the last save before the segment)."""
        c, k = self._interval, self._cost
        total, kept, saved_at = [], [], []
        for j in jobs:
            begun = float(self.seg_start[j] + self.seg_restore[j])
            resume, dur = float(self.kept[j]), float(self.dur[j])
            attained, keep = checkpoints.at(now - begun, resume, dur, c, k)
            total.append(attained)
            kept.append(keep)
            saved_at.append(
                begun + checkpoints.counted_at(now - begun, resume, dur, c, k)
                if keep > resume
                else float(self.last_ckpt[j])
            )
        return total, kept, saved_at

    def candidates(self, jobs: np.ndarray, now: float, min_runtime: float) -> Candidates:
        """The policies' view of running BE `jobs` at `now`, in job order; with `min_runtime` > 0
        only those whose segment has lasted that long."""
        jobs = jobs[self.order_rank[jobs].argsort()]  # the method: np.argsort's wrapper costs more than the sort
        seg = self.seg_start[jobs]  # each column read once: a numpy call costs more than its few rows
        if min_runtime > 0:  # the same sum as the wake-up time, so the instant it is pushed for qualifies
            keep = seg + min_runtime <= now
            jobs, seg = jobs[keep], seg[keep]
        kept = self.kept[jobs]
        if self._cost > 0:  # progress paused at each checkpoint: attained service and what a signal keeps
            paused_total, paused_kept, saved_at = self._paused(jobs.tolist(), now)
            total, last_checkpoint = np.array(paused_total), np.array(saved_at)
            lost_now = total - np.array(paused_kept)
        else:
            total = kept + np.maximum(0.0, now - seg - self.seg_restore[jobs])
            lost_now = self._lost_if_signalled(total, kept)
            last_checkpoint = self._last_checkpoint(jobs, total)
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
            last_checkpoint=last_checkpoint,
            restore_next=np.full(len(jobs), self._restore),
            finish_at=None if self.end is None else np.frombuffer(self.end)[jobs],
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
