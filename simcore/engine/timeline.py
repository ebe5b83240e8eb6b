"""The instants of a run: when something happens, and what.

Arrivals are known up front (a sorted list). The engine's own events, finishes, releases
(ends of grace periods), min_runtime wake-ups and preemption-budget wake-ups, are scheduled
as the run goes, in a heap.
A preemption invalidates a scheduled finish (SimPy timeouts cannot be cancelled, and a heap
entry cannot be found cheaply), so finishes, releases and wake-ups carry the job's preemption
token and an entry whose token is no longer the job's is stale and skipped (a release, when the
job failed during its grace period: DESIGN rule 12). The nodes' down time
(:mod:`simcore.engine.nodes_down`) keeps instants of its own; ``down_next`` gives the next one.

Heap entries are ``(time, kind, job order, job, token)``: at one instant they pop finishes
before releases (DESIGN.md rule 1), each kind in job order, which is the order of the
event log.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Iterator, Sized
from typing import Final

from simcore.engine.running import RunningTable

# Final: constants to the compiled engine (mypyc), not module-dict look-ups
FINISH: Final = 0
RELEASE: Final = 1
WAKE: Final = 2  # a running BE job's segment reaches min_runtime (no event row)
BUDGET: Final = 3  # the preemption budget frees up (no event row)


class Timeline:
    def __init__(
        self,
        arrivals: list[int],
        times: list[float],
        token: list[int],
        running: RunningTable,
        down_next: Callable[[], float] | None = None,
    ) -> None:
        """`arrivals`: the jobs in arrival order, submitted at `times`; `token`: each job's
        preemption token; `running`: the running BE jobs (a wake-up is for one of them);
        `down_next`: the time of the next node event (inf: none left), None without down time."""
        self._arrivals = arrivals
        self._times = [*times, math.inf]  # the sentinel ends every arrival scan
        self._token = token
        self._running = running
        self._heap: list[tuple[float, int, int, int, int]] = []
        self._budget_wake = math.nan  # the budget wake-up last scheduled
        self._down_next = down_next

    def finish_at(self, t: float, order: int, j: int, token: int) -> None:
        heapq.heappush(self._heap, (t, FINISH, order, j, token))

    def release_at(self, t: float, order: int, j: int, token: int) -> None:
        heapq.heappush(self._heap, (t, RELEASE, order, j, token))  # stale only when the job failed in grace

    def wake_at(self, t: float, order: int, j: int, token: int) -> None:
        heapq.heappush(self._heap, (t, WAKE, order, j, token))

    def budget_wake_at(self, t: float) -> None:
        """A pass at `t`, when the spent preemption budget frees up (once per instant)."""
        if t != self._budget_wake:
            self._budget_wake = t
            heapq.heappush(self._heap, (t, BUDGET, 0, 0, 0))

    def instants(
        self, pass_may_act: Callable[[], bool], te_waiting: Sized
    ) -> Iterator[tuple[float, list[int], list[int], list[int]]]:
        """Each instant at which something happens, in time order, as (time, the jobs that finish,
        release, arrive then), each in event order. Entries scheduled while the caller handles an
        instant count from the next one on. `pass_may_act()`: False only when a pass run now, on
        the state the last instant left, provably changes nothing; asked when a wake-up comes
        before anything else, so a wake-up is skipped exactly when its pass would be a no-op."""
        # one generator rather than a call per step: its locals persist between instants
        heap, token, running, arrivals, times = self._heap, self._token, self._running, self._arrivals, self._times
        heappop, a, down_next = heapq.heappop, 0, self._down_next
        while True:
            next_arrival = times[a]
            while heap:
                t, kind, _, j, tok = heap[0]
                if kind == BUDGET:
                    if not te_waiting and t <= next_arrival:  # no TE job left to preempt for
                        heappop(heap)
                        continue
                    break
                if (
                    tok != token[j]  # preempted (a finish, a wake-up) or failed in grace (a release) since
                    # a wake-up is worth an instant of its own only for a running job whose pass may
                    # act; one at an arrival's time shares that instant (and is popped with it)
                    or (kind == WAKE and (j not in running or (t < next_arrival and not pass_may_act())))
                ):
                    heappop(heap)
                    continue
                break
            t = heap[0][0] if heap and heap[0][0] < next_arrival else next_arrival
            if down_next is not None:
                t_down = down_next()
                if t_down < t:
                    t = t_down
            if t == math.inf:
                return
            finished: list[int] = []
            released: list[int] = []
            while heap and heap[0][0] == t:
                _, kind, _, j, tok = heappop(heap)
                if kind == FINISH:
                    if tok == token[j]:
                        finished.append(j)
                elif kind == RELEASE:
                    if tok == token[j]:
                        released.append(j)
                # a wake-up needs nothing more: the instant itself is the point (a pass runs)
            arrived: list[int] = []
            while times[a] == t:
                arrived.append(arrivals[a])
                a += 1
            yield t, finished, released, arrived
