"""The instants of a run: when something happens, and what.

Arrivals are known up front (a sorted list). The engine's own events, finishes, releases
(ends of grace periods) and min_runtime wake-ups, are scheduled as the run goes, in a heap.
A preemption invalidates a scheduled finish (SimPy timeouts cannot be cancelled, and a heap
entry cannot be found cheaply), so finishes and wake-ups carry the job's preemption token
and an entry whose token is no longer the job's is stale and skipped.

Heap entries are ``(time, kind, job order, job, token)``: at one instant they pop finishes
before releases (DESIGN.md rule 1), each kind in job order, which is the order of the
event log.
"""

from __future__ import annotations

import heapq
import math

from simcore.running import RunningTable

FINISH, RELEASE, WAKE = 0, 1, 2  # WAKE: a running BE job's segment reaches min_runtime (no event row)


class Timeline:
    def __init__(self, arrivals: list[int], times: list[float], token: list[int], running: RunningTable) -> None:
        """`arrivals`: the jobs in arrival order, submitted at `times`; `token`: each job's
        preemption token; `running`: the running BE jobs (a wake-up is for one of them)."""
        self._arrivals = arrivals
        self._times = [*times, math.inf]  # the sentinel ends every arrival scan
        self._a = 0  # next arrival
        self._token = token
        self._running = running
        self._heap: list[tuple[float, int, int, int, int]] = []

    def finish_at(self, t: float, order: int, j: int, token: int) -> None:
        heapq.heappush(self._heap, (t, FINISH, order, j, token))

    def release_at(self, t: float, order: int, j: int) -> None:
        heapq.heappush(self._heap, (t, RELEASE, order, j, 0))  # a job in grace is never preempted: never stale

    def wake_at(self, t: float, order: int, j: int, token: int) -> None:
        heapq.heappush(self._heap, (t, WAKE, order, j, token))

    def next(self, te_waiting: bool) -> float:
        """The next instant at which something happens (inf: none). `te_waiting`: does a TE job wait?"""
        heap, token, next_arrival = self._heap, self._token, self._times[self._a]
        while heap:
            t, kind, _, j, tok = heap[0]
            if kind != RELEASE and (
                tok != token[j]  # preempted since
                # a wake-up is worth an instant only for a running job while a TE job waits and
                # nothing else happens first (a TE job that comes later finds the job a candidate)
                or (kind == WAKE and (j not in self._running or (not te_waiting and t <= next_arrival)))
            ):
                heapq.heappop(heap)
                continue
            return t if t < next_arrival else next_arrival
        return next_arrival

    def pop(self, t: float) -> tuple[list[int], list[int], list[int]]:
        """What happens at instant `t`: the jobs that (finish, release, arrive), each in event order."""
        heap, token, heappop = self._heap, self._token, heapq.heappop
        finished: list[int] = []
        released: list[int] = []
        while heap and heap[0][0] == t:
            _, kind, _, j, tok = heappop(heap)
            if kind == FINISH:
                if tok == token[j]:
                    finished.append(j)
            elif kind == RELEASE:
                released.append(j)
            # a wake-up needs nothing more: the instant itself is the point (a pass runs)
        arrived: list[int] = []
        times, a = self._times, self._a
        while times[a] == t:
            arrived.append(self._arrivals[a])
            a += 1
        self._a = a
        return finished, released, arrived
