"""Gantt segments: which GPU of its node each job held, and when (the evalys convention).

A node with G GPUs is drawn as ceil(G) *lanes*, one per GPU. A job holds its lanes from its
``start`` event to its ``release``, ``finish`` or ``fail``; that holding is cut into ``restore``
(after an interruption, no progress), ``run`` (progress), ``checkpoint`` (a periodic checkpoint's
pause with ``checkpoint_cost`` > 0, no progress: :mod:`simcore.core.checkpoints`) and ``grace`` (from
the ``preempt`` or ``drain`` signal to the release or the failure) pieces. A job with g GPUs spans ceil(g) lanes: floor(g) whole lanes and, when g is
fractional, a part of one more lane. CPU-only jobs get the lane ``cpu`` (one per node, shared:
several CPU-only jobs at once are drawn over each other in that lane).

A gang (``workers`` > 1) holds lanes on every node where one of its workers runs, each worker
its own: its start, preempt, release and finish rows come once per worker in worker order, and
the i-th row of a group is worker i.

Lanes are assigned by walking the events in the order the engine generated them (so a release
always frees its lanes before the start that relies on it), deterministically:

- a whole GPU takes the lowest-numbered empty lane;
- a fractional part takes the tightest free gap of at least its size in any lane (the lane
  with the least room left, then the lowest lane, then the lowest position), so shared lanes
  fill up before empty ones are broken into.

Each lane is a line of 1000 thousandths of a GPU (the engine's integer unit); a piece occupies
``[offset, offset + gpu)`` of it, so whole-GPU jobs never share a lane and fractional ones never
exceed one GPU per lane. The engine counts a node's GPUs as one number, so with fractional jobs
it can place a job that no assignment of whole physical GPUs could hold (three 0.6-GPU jobs on
two GPUs). Only then is the job drawn on an *extra* lane numbered from ceil(G) up; with whole
GPUs only, lanes never exceed the node's GPUs.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from simcore.core import checkpoints
from simcore.core.result import DRAIN, FAIL, FINISH, PREEMPT, START, SimResult

#: The columns of the ``--gantt-out`` CSV (DESIGN.md section 6).
GANTT_COLUMNS = ["job_id", "job_class", "node", "lane", "start", "end", "kind"]
#: The frame also carries, per row, the GPUs of the lane the job holds and where in the lane, and the
#: job's workers (a gang's rows are on every node it holds).
FRAME_COLUMNS = [*GANTT_COLUMNS, "gpu", "offset", "workers"]
KINDS = ("run", "restore", "grace", "checkpoint")
CPU_LANE = "cpu"
UNIT = 1000  # thousandths of a GPU: the engine's resource unit


class _Lanes:
    """The occupied ``[lo, hi)`` intervals of the lanes of one node, each lane made when first
    needed (a node may have a billion GPUs, a run use eight of them): lanes ``0 .. count - 1``
    in index order, extra lanes numbered from ``count`` up. The lowest lane not yet made is
    empty, so it is the one a search over every lane would find among the empty ones."""

    def __init__(self, count: int) -> None:
        self.count = count
        self.made: list[list[tuple[int, int]]] = []  # lanes 0 .. len - 1
        self.extra: list[list[tuple[int, int]]] = []  # lanes count, count + 1, ...

    def _lanes(self) -> list[tuple[int, list[tuple[int, int]]]]:
        """(index, occupied) of every lane made, in index order."""
        return [*enumerate(self.made), *((self.count + i, u) for i, u in enumerate(self.extra))]

    def _lane(self, i: int) -> list[tuple[int, int]]:
        return self.made[i] if i < self.count else self.extra[i - self.count]

    def _new(self) -> int:
        """The lowest lane not made yet (an extra one when all ``count`` are), made now."""
        if len(self.made) < self.count:
            self.made.append([])
            return len(self.made) - 1
        self.extra.append([])
        return self.count + len(self.extra) - 1

    def take(self, units: int) -> list[tuple[int, int, int]]:
        """Lanes for a request of ``units`` thousandths: (lane, offset, size) per piece."""
        pieces = []
        taken: set[int] = set()
        for _ in range(units // UNIT):
            lane = next((i for i, u in enumerate(self.made) if not u and i not in taken), None)
            if lane is None and len(self.made) == self.count:  # extras only once every lane is made
                extra = (self.count + i for i, u in enumerate(self.extra) if not u)
                lane = next((i for i in extra if i not in taken), None)
            if lane is None:
                lane = self._new()
            taken.add(lane)
            pieces.append((lane, 0, UNIT))
        part = units % UNIT
        if part:
            best = None  # (room, lane, offset)
            if len(self.made) < self.count:  # the lowest lane not made: empty
                best = (UNIT, len(self.made), 0)
            for i, occupied in self._lanes():
                if i in taken:
                    continue
                for lo, room in _gaps(occupied):
                    if room >= part and (best is None or (room, i, lo) < best):
                        best = (room, i, lo)
            lane, lo = (best[1], best[2]) if best else (self._new(), 0)
            if lane == len(self.made) < self.count:
                self._new()
            pieces.append((lane, lo, part))
        for lane, lo, size in pieces:
            occupied = self._lane(lane)
            occupied.append((lo, lo + size))
            occupied.sort()
        return pieces

    def give_back(self, pieces: list[tuple[int, int, int]]) -> None:
        for lane, lo, size in pieces:
            self._lane(lane).remove((lo, lo + size))


def _gaps(occupied: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """(start, length) of the free stretches of a lane, in order."""
    gaps, at = [], 0
    for lo, hi in occupied:
        if lo > at:
            gaps.append((at, lo - at))
        at = max(at, hi)
    if at < UNIT:
        gaps.append((at, UNIT - at))
    return gaps


def lane_count(gpu: float) -> int:
    """Lanes of a node (or a job) with ``gpu`` GPUs: one per GPU, a fraction counting as one."""
    return math.ceil(round(gpu * UNIT) / UNIT)


def segments(result: SimResult) -> pd.DataFrame:
    """One row per job segment per lane (columns :data:`FRAME_COLUMNS`), by start time.

    ``gpu`` is the share of the lane the job holds (1 for a whole GPU, 0 for the ``cpu``
    lane) and ``offset`` where that share starts in the lane (both in GPUs). Zero-length
    pieces (a restore cut at its start, a grace period of 0 s) have no row.
    """
    units = np.rint(result.jobs.request[:, 2] * UNIT).astype(np.int64)
    lanes = [_Lanes(lane_count(n.capacity.gpu)) for n in result.cluster.nodes]
    cfg = result.config
    restore = cfg.restore
    paused = _Pauses(result) if cfg.checkpoint == "periodic" and cfg.checkpoint_cost > 0 else None
    # keyed by (job, worker): a single-worker job is worker 0
    held: dict[tuple[int, int], list[tuple[int, int, int]]] = {}  # its (lane, offset, size) while on a node
    since: dict[tuple[int, int], tuple[float, bool]] = {}  # (start of the current piece, resumed)
    started: set[int] = set()
    pieces: list[tuple[int, int, float, float, str, list[tuple[int, int, int]]]] = []

    events = zip(
        result.ev_time.tolist(), result.ev_job.tolist(), result.ev_code.tolist(), result.ev_node.tolist(), strict=True
    )
    prev: tuple | None = None
    w, resumed = 0, False
    grace_from: dict[tuple[int, int], float] = {}  # the signal's time, while in the grace period
    for t, j, code, k in events:
        w = w + 1 if prev == (t, j, code) else 0  # the i-th row of a gang's group is worker i
        prev, key = (t, j, code), (j, w)
        if j < 0:  # node_down, node_up
            continue
        if code == START:
            if w == 0:  # the other workers' rows follow at once: the same answer
                resumed = j in started
                started.add(j)
                if paused is not None:
                    paused.begin(j)
            held[key] = lanes[k].take(int(units[j])) if units[j] > 0 else []
            since[key] = (t, resumed)
        elif key in grace_from:  # its release, or a failure during its grace period
            s = grace_from.pop(key)
            if t > s:
                pieces.append((j, k, s, t, "grace", held[key]))
            lanes[k].give_back(held.pop(key))
        elif code in (PREEMPT, DRAIN, FINISH, FAIL):
            s, resumed = since[key]
            r_end = min(s + restore, t) if resumed else s
            if r_end > s:
                pieces.append((j, k, s, r_end, "restore", held[key]))
            if t > r_end:
                for a, b, what in paused.split(j, r_end, t) if paused is not None else ((r_end, t, "run"),):
                    pieces.append((j, k, a, b, what, held[key]))
            if code in (PREEMPT, DRAIN):
                grace_from[key] = t
            else:
                lanes[k].give_back(held.pop(key))
    return _frame(result, pieces)


class _Pauses:
    """The checkpoint pauses of each job's segments (``checkpoint_cost`` > 0): a segment resumes from the
    work its job kept, which every interruption of a running segment sets anew (DESIGN-failures point 9)."""

    def __init__(self, result: SimResult) -> None:
        cfg = result.config
        self.c, self.k = cfg.checkpoint_interval, cfg.checkpoint_cost
        self.dur = result.jobs.duration.tolist()
        self.resume: dict[int, float] = {}  # job -> the work kept when its current segment began
        self.kept: dict[int, float] = {}  # job -> the work kept when its last segment ended

    def begin(self, j: int) -> None:
        """`j` starts a segment (its first worker's start row)."""
        self.resume[j] = self.kept.get(j, 0.0)

    def split(self, j: int, begun: float, t: float) -> list[tuple[float, float, str]]:
        """The ``run`` and ``checkpoint`` pieces of job `j`'s progress from `begun` to `t`; the work it
        keeps when the segment ends at `t` (the same for every worker) is what its next one resumes from."""
        kept, dur = self.resume.get(j, 0.0), self.dur[j]
        out, at = [], begun
        for a, b in checkpoints.pauses(kept, dur, self.c, self.k):
            if begun + a >= t:
                break
            if begun + a > at:
                out.append((at, begun + a, "run"))
            out.append((begun + a, min(begun + b, t), "checkpoint"))
            at = begun + b
        if t > at:
            out.append((at, t, "run"))
        self.kept[j] = checkpoints.at(t - begun, kept, dur, self.c, self.k)[1]
        return out


def _frame(result: SimResult, pieces: list) -> pd.DataFrame:
    """Expand each piece to one row per lane, ordered by start time (then generation order)."""
    job, node, start, end, kind, lane, gpu, offset = [], [], [], [], [], [], [], []
    for j, k, s, e, what, held in pieces:
        for lane_i, lo, size in held or [(CPU_LANE, 0, 0)]:
            job.append(j)
            node.append(k)
            start.append(s)
            end.append(e)
            kind.append(what)
            lane.append(lane_i)
            gpu.append(size / UNIT)
            offset.append(lo / UNIT)
    jobs = np.asarray(job, dtype=np.int64)
    names = np.array(result.cluster.names, dtype=object)
    frame = pd.DataFrame(
        {
            "job_id": result.jobs.job_id[jobs],
            "job_class": np.where(result.jobs.is_te[jobs], "TE", "BE").astype(object),
            "node": names[np.asarray(node, dtype=np.int64)],
            "lane": np.array(lane, dtype=object),
            "start": np.asarray(start, dtype=float),
            "end": np.asarray(end, dtype=float),
            "kind": np.array(kind, dtype=object),
            "gpu": np.asarray(gpu, dtype=float),
            "offset": np.asarray(offset, dtype=float),
            "workers": np.asarray(result.jobs.workers)[jobs],
        },
        columns=FRAME_COLUMNS,
    )
    return frame.sort_values("start", kind="stable", ignore_index=True)
