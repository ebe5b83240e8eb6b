"""Nodes that go down and come back in a run (DESIGN.md rule 12, DESIGN-failures.md points 1-8).

Each node's windows, from the node-events file (``cluster.node_events``) and from its random
failure stream (:func:`simcore.core.downtime.failure_windows`, drawn one window ahead), become four
kinds of moments: a maintenance window's drain begins at ``start - grace`` and ends at ``start``;
every window's down time begins at ``start`` and ends at ``end``. A node is *down* while some
window holds it down (the union), *draining* while some maintenance drain runs and it is not
down, and *closed* (it takes nothing, :meth:`ClusterState.close`) while down or draining.

At an instant, after finishes and releases (:meth:`NodesDown.step`): the drain signals (nodes in
index order, then job order, each job's rows in worker order), then the nodes going down (each
its ``node_down`` row, then the ``fail`` rows of every job with a worker there), then the nodes
coming up (``node_up`` rows); the jobs freed join the pending jobs for the pass of the instant.
A node that closes ends the nominations reserving on it. The run ends at the last finish:
:meth:`NodesDown.next_time` gives no instant after it.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Iterator
from typing import TYPE_CHECKING, Protocol

import numpy as np

from simcore.core import result
from simcore.core.downtime import KINDS, MAINTENANCE, failure_windows
from simcore.core.errors import UserError
from simcore.core.model import ClusterSpec, SimConfig
from simcore.core.result import Downtime
from simcore.engine.cluster import ClusterState

if TYPE_CHECKING:  # the parts of a run a node going down acts on (the loop's run; never imported from it)
    from simcore.core.saves import SaveDraws
    from simcore.engine.eventlog import EventLog
    from simcore.engine.jobstate import JobState
    from simcore.engine.quota import QuotaState
    from simcore.engine.reservations import ReservationBook
    from simcore.engine.running import RunningTable
    from simcore.engine.timeline import Timeline


class _Run(Protocol):
    """What :meth:`NodesDown.step` reads and writes of a run (the loop's, which calls it)."""

    cl: ClusterState
    js: JobState
    log: EventLog
    book: ReservationBook
    running: RunningTable
    timeline: Timeline
    saves: SaveDraws
    gangs: bool
    quota: QuotaState | None

    def _release(self, j: int) -> None: ...

    def _end_nomination(self, j: int) -> None: ...


#: a job stopped by node failures more than this many times ends the run (DESIGN-failures point 3)
MAX_FAILURES = 1000
# the moments of a window, popped in this order at one instant (it matters only for the counts)
DRAIN_BEGIN, DRAIN_END, DOWN_BEGIN, DOWN_END = range(4)
_FAILURE = KINDS.index("failure")


class NoProgress(UserError):
    """A job stopped by node failures more than :data:`MAX_FAILURES` times: it cannot make progress."""


class NodesDown:
    """The down time of a run's nodes: their windows, their state, the jobs on them, and what it cost."""

    def __init__(self, cluster: ClusterSpec, config: SimConfig, first_submit: float, job_ids: list[str]) -> None:
        n = len(cluster.nodes)
        self.grace = config.grace
        self.job_ids = job_ids
        self.remaining = len(job_ids)  # jobs not finished: the run ends with the last
        self._heap: list[tuple[float, int, int, int]] = []  # (time, what, node, window)
        self.down = [0] * n  # windows holding each node down now
        self.draining = [0] * n  # maintenance drains running on each node now
        self.next_drain = np.full(n, math.inf)  # each node's next drain still to begin (victim searches skip it)
        self._drains: list[list[float]] = [[] for _ in range(n)]  # each node's drain begins to come, latest first
        self.on: list[set[int]] = [set() for _ in range(n)]  # the jobs holding resources on each node
        self.in_grace: set[int] = set()  # signalled (preempted or drained), not yet released
        # the records (Downtime)
        self.failures = [0] * len(job_ids)
        self.drains = [0] * len(job_ids)
        self.interruptions: list[tuple[int, float, int, float]] = []  # (job, time, cause, lost)
        self.windows: list[tuple[int, float, float, int]] = []  # (node, start, end, kind)
        self.ended: list[int] = []
        index = {name: k for k, name in enumerate(cluster.names)}
        for w in cluster.node_events.windows if cluster.node_events is not None else ():
            self._add(index[w.node], w.start, w.end, w.code)
        for k in range(n):
            self.next_drain[k] = self._drains[k][-1] if self._drains[k] else math.inf
        # one window ahead per node: the next is drawn when the last one drawn goes down
        self._random: list[Iterator[tuple[float, float]]] = []
        self._last_random = [-1] * n  # each node's random window drawn last
        if not math.isinf(config.mtbf):
            self._random = [failure_windows(config.seed, k, config.mtbf, config.repair, first_submit) for k in range(n)]
            for k in range(n):
                self._draw(k)

    def _add(self, k: int, start: float, end: float, kind: int) -> int:
        w = len(self.windows)
        self.windows.append((k, start, end, kind))
        heap = self._heap
        if KINDS[kind] == MAINTENANCE:
            heapq.heappush(heap, (start - self.grace, DRAIN_BEGIN, k, w))
            heapq.heappush(heap, (start, DRAIN_END, k, w))
            self._drains[k].append(start - self.grace)
            self._drains[k].sort(reverse=True)
        heapq.heappush(heap, (start, DOWN_BEGIN, k, w))
        heapq.heappush(heap, (end, DOWN_END, k, w))
        return w

    def _draw(self, k: int) -> None:
        """Node `k`'s next random failure window, drawn when the one before goes down."""
        start, end = next(self._random[k])
        self._last_random[k] = self._add(k, start, end, _FAILURE)

    def next_time(self) -> float:
        """The next instant a node's state changes (inf once every job has finished: the run ends)."""
        return self._heap[0][0] if self._heap and self.remaining else math.inf

    def skipped(self, now: float, closed: set[int]) -> np.ndarray | None:
        """Mask of the nodes a victim search skips at `now` (DESIGN-failures point 5): closed (down or
        draining) or draining by the time victims signalled now release (a drain begins at or
        before now + grace); None when there is none."""
        mask = self.next_drain <= now + self.grace
        if closed:
            mask[list(closed)] = True
        return mask if mask.any() else None

    # -- the jobs on the nodes (the run's life cycle tells) ---------------------------------------
    def started(self, j: int, nodes: list[int]) -> None:
        for k in nodes:
            self.on[k].add(j)

    def left(self, j: int, nodes: list[int]) -> None:
        """`j` released its resources on `nodes` (end of grace, finish or failure)."""
        for k in nodes:
            self.on[k].discard(j)
        self.in_grace.discard(j)

    def signalled(self, j: int, now: float, cause: int, lost: float) -> None:
        """`j` was preempted or drained at `now`, discarding `lost` seconds of work."""
        self.in_grace.add(j)
        self.interruptions.append((j, now, cause, lost))

    # -- an instant ---------------------------------------------------------------------------------
    def step(self, run: _Run, t: float) -> list[int]:
        """Apply the nodes' changes at `t` (after its finishes and releases); returns the jobs that
        became pending (released at once by a drain with grace 0, or stopped by a failure)."""
        cl = run.cl
        self._reclose(cl)
        heap = self._heap
        if not heap or heap[0][0] != t:
            return []
        was_down: dict[int, bool] = {}
        drain_starts: dict[int, float] = {}  # node -> the start of the window whose drain begins now
        while heap and heap[0][0] == t:
            _, what, k, w = heapq.heappop(heap)
            was_down.setdefault(k, self.down[k] > 0)
            if what == DRAIN_BEGIN:
                self.draining[k] += 1
                drain_starts.setdefault(k, self.windows[w][1])
                self._drains[k].pop()
                self.next_drain[k] = self._drains[k][-1] if self._drains[k] else math.inf
            elif what == DRAIN_END:
                self.draining[k] -= 1
            elif what == DOWN_BEGIN:
                self.down[k] += 1
                if w == self._last_random[k]:
                    self._draw(k)
            else:
                self.down[k] -= 1
        joined: list[int] = []
        for k in sorted(drain_starts):
            if not was_down[k]:
                for j in sorted(
                    (j for j in self.on[k] if j not in self.in_grace), key=run.js.order_rank_list.__getitem__
                ):
                    if self._drain(run, j, t, drain_starts[k]):
                        joined.append(j)
            self._close(run, k)
        for k in sorted(k for k, down in was_down.items() if not down and self.down[k] > 0):
            run.log.add(t, -1, result.NODE_DOWN, k)
            for j in sorted(self.on[k], key=run.js.order_rank_list.__getitem__):
                self._fail(run, j, t)
                joined.append(j)
            self._close(run, k)
        self._reclose(cl)  # a gang failing on one node released room on the others, closed ones too
        for k in sorted(k for k, down in was_down.items() if down and self.down[k] == 0):
            run.log.add(t, -1, result.NODE_UP, k)
            if not self.draining[k]:
                cl.reopen(k)
        return joined

    @staticmethod
    def _reclose(cl: ClusterState) -> None:
        """Room given back on a closed node (a release, a gang's failure elsewhere) is taken again.
        Within a pass nothing is: a running job never holds a closed node (drained or failed first)."""
        for k in list(cl.closed):
            cl.close(k)

    def _close(self, run: _Run, k: int) -> None:
        """Node `k` takes nothing from now on; the nominations reserving on it end (DESIGN-failures point 5)."""
        book, nominations = run.book, run.log.nominations
        for te in book.on_node(k):
            run._end_nomination(te)
            self.ended.append(next(row for row, job, _, _ in reversed(nominations) if job == te))
        run.cl.close(k)

    def _nodes(self, run: _Run, j: int) -> list[int]:
        """Every node `j` holds, in worker order (one for a single-worker job)."""
        nodes = run.js.gang_nodes.get(j) if run.gangs else None
        return nodes if nodes is not None else [run.js.node_list[j]]

    def _drain(self, run: _Run, j: int, t: float, release: float) -> bool:
        """Signal running `j` as by a preemption (grace, save and save_failure apply; not counted as one),
        released at `release` (the window's start); True when released at once (grace 0)."""
        js = run.js
        before = float(js.lost[j])
        js.signal(j, t, run.saves.failed(), preemption=False)
        if run.quota is not None:  # it stops counting in its queue's R at the signal (DESIGN-failures point 11)
            run.quota.signalled(j)
        self.drains[j] += 1
        self.signalled(j, t, result.DRAINED, float(js.lost[j]) - before)
        if j in run.running:
            run.running.remove(j)
        for k in self._nodes(run, j):
            run.log.add(t, j, result.DRAIN, k)
        if self.grace > 0:
            run.timeline.release_at(release, js.order_rank_list[j], j, js.token[j])
            return False
        run._release(j)
        return True

    def _fail(self, run: _Run, j: int, t: float) -> None:
        """`j` stops at `t`, without grace or save (DESIGN-failures point 6): its resources are freed on
        every node it holds, one ``fail`` row per worker; a job in its grace period counts as released
        for the TE job it made room for."""
        js, in_grace = run.js, j in self.in_grace
        lost = js.fail(j, t, in_grace)
        if run.quota is not None:  # it leaves its queue's U and R at once (DESIGN-failures point 11)
            run.quota.failed(j, in_grace)
        if j in run.running:
            run.running.remove(j)
        nodes = self._nodes(run, j)
        req = js.req_list[j]
        for k in nodes:
            run.cl.release(k, req)
        if in_grace:
            if len(nodes) > 1 or j in js.gang_nodes:
                run.book.released_gang(j, nodes)
            else:
                run.book.released(j, nodes[0])
        for k in nodes:
            run.log.add(t, j, result.FAIL, k)
        self.left(j, nodes)
        self.failures[j] += 1
        self.interruptions.append((j, t, result.FAILED, lost))
        if self.failures[j] > MAX_FAILURES:
            raise NoProgress(
                f"job {self.job_ids[j]} was stopped by node failures more than {MAX_FAILURES:,} times (the last at "
                f"t = {t:g} s): it cannot make progress between failures (raise mtbf, or shorten the down windows)"
            )

    def finished(self, j: int, nodes: list[int]) -> None:
        self.left(j, nodes)
        self.remaining -= 1

    def record(self, end: float) -> Downtime:
        """What the run recorded, its windows those that began by `end` (the last finish)."""
        it = np.array(self.interruptions, dtype=float).reshape(-1, 4)
        wins = [w for w in self.windows if w[1] <= end]
        wa = np.array(wins, dtype=float).reshape(-1, 4)
        return Downtime(
            failures=np.array(self.failures, dtype=np.int64),
            drains=np.array(self.drains, dtype=np.int64),
            job=it[:, 0].astype(np.int64),
            time=it[:, 1],
            cause=it[:, 2].astype(np.int8),
            lost=it[:, 3],
            node=wa[:, 0].astype(np.int64),
            start=wa[:, 1],
            end=wa[:, 2],
            kind=wa[:, 3].astype(np.int8),
            ended=np.array(self.ended, dtype=np.int64),
        )
