"""Usage per queue during a run with queues (DESIGN-queues points 4-6), in integer GPU units.

For queue q: U(q) the GPUs its jobs hold running or preempting (a gang: every worker), R(q) those of
its running jobs not preempting, N(q) those its nominated jobs wait for (their request, not what they
have reserved yet). A job's GPUs are its request x workers. The engine tells this book every start,
signal (a preemption or a drain), release, failure, finish, nomination and returned or ended
nomination; the pass asks it:

- the **quota condition** of job j: U + N + r <= quota + borrow_limit (j's own nomination not counted twice);
- **within quota**: U + N + r <= quota for r > 0; a job without GPUs only when the quota is inf;
- **over quota**: R > quota; the **share**: max(0, U - quota) / weight, rounded to 1e-9 (kept x 1e9, an integer);
- whether another queue over quota has a running BE job (else no job can reclaim: nobody is asked).
"""

from __future__ import annotations

from typing import Final

from simcore.core.queues import INF_UNITS, QueueSpec

INF: Final[int] = INF_UNITS


class QuotaState:
    def __init__(self, spec: QueueSpec, queue: list[int], gpus: list[int], is_te: list[bool]) -> None:
        """`queue`, `gpus`, `is_te`: per job its queue, its GPUs (units, request x workers) and class."""
        n = len(spec.queues)
        self.spec = spec
        self.names = spec.names
        self.quota: list[int] = [q.quota_units for q in spec.queues]
        self.limit: list[int] = [q.limit_units for q in spec.queues]
        self.factor: list[float] = [q.share_factor() for q in spec.queues]
        self.U = [0] * n
        self.R = [0] * n
        self.N = [0] * n
        self.be = [0] * n  # running (not preempting) BE jobs
        self.lender = [False] * n  # over quota with a running BE job: reclaim candidates may be there
        self.lenders = 0
        self.opened = 0  # bumped when a queue becomes a lender (a pass may have a reclaim to look at again)
        self.queue = queue
        self.gpus = gpus
        self._is_te = is_te

    # -- the life cycle ------------------------------------------------------------------------
    def started(self, j: int) -> None:
        q, g = self.queue[j], self.gpus[j]
        self.U[q] += g
        self.R[q] += g
        if not self._is_te[j]:
            self.be[q] += 1
        self._lender(q)

    def signalled(self, j: int) -> None:
        """`j` was preempted or drained (DESIGN-failures point 11): it stops counting in R at the signal."""
        q = self.queue[j]
        self.R[q] -= self.gpus[j]
        if not self._is_te[j]:  # a drain signals TE jobs too
            self.be[q] -= 1
        self._lender(q)

    def released(self, j: int) -> None:
        self.U[self.queue[j]] -= self.gpus[j]

    def failed(self, j: int, in_grace: bool) -> None:
        """`j` was stopped by a node failure (DESIGN-failures point 11): it leaves U, and R unless it
        was signalled before (in its grace period it no longer counted there)."""
        if not in_grace:
            self.signalled(j)
        self.released(j)

    def finished(self, j: int) -> None:
        q, g = self.queue[j], self.gpus[j]
        self.U[q] -= g
        self.R[q] -= g
        if not self._is_te[j]:
            self.be[q] -= 1
        self._lender(q)

    def nominated(self, j: int) -> None:
        self.N[self.queue[j]] += self.gpus[j]

    def unnominated(self, j: int) -> None:
        self.N[self.queue[j]] -= self.gpus[j]

    def _lender(self, q: int) -> None:
        now = self.R[q] > self.quota[q] and self.be[q] > 0
        if now != self.lender[q]:
            self.lender[q] = now
            if now:
                self.lenders += 1
                self.opened += 1
            else:
                self.lenders -= 1

    # -- what the pass asks --------------------------------------------------------------------
    def quota_ok(self, j: int, nominated: bool) -> bool:
        """The quota condition (DESIGN-queues point 6)."""
        q = self.queue[j]
        return self.U[q] + self.N[q] + (0 if nominated else self.gpus[j]) <= self.limit[q]

    def missing(self, j: int) -> int:
        """GPU units job `j` (not nominated) lacks for the quota condition (0 when it holds)."""
        q = self.queue[j]
        short = self.U[q] + self.N[q] + self.gpus[j] - self.limit[q]
        return short if short > 0 else 0

    def within(self, j: int, nominated: bool) -> bool:
        """Is job `j` within its queue's quota (DESIGN-queues point 4)?"""
        q = self.queue[j]
        if self.quota[q] >= INF:
            return True
        g = self.gpus[j]
        return g > 0 and self.U[q] + self.N[q] + (0 if nominated else g) <= self.quota[q]

    def headroom(self, q: int) -> int:
        """quota - U - N: a job of q not nominated, with GPUs, is within quota when its GPUs are at most this."""
        return INF if self.quota[q] >= INF else self.quota[q] - self.U[q] - self.N[q]

    def room(self, q: int) -> int:
        """quota + borrow_limit - U - N: the GPUs a job of q may ask for and meet the quota condition."""
        return INF if self.limit[q] >= INF else self.limit[q] - self.U[q] - self.N[q]

    def over(self, q: int) -> bool:
        return self.R[q] > self.quota[q]

    def reclaim_possible(self, q: int) -> bool:
        """Is some other queue over quota with a running BE job (a reclaim candidate before ``min_runtime``)?"""
        return self.lenders - (1 if self.lender[q] else 0) > 0

    def share(self, q: int) -> int:
        """The share of q x 1e9, an integer: rint(max(0, U - quota) x 1e6 / weight) (U, quota in thousandths)."""
        excess = self.U[q] - self.quota[q]
        if excess <= 0:
            return 0
        return round(excess * self.factor[q])

    def usage(self, q: int) -> tuple[int, int, int]:
        """(U, R, share x 1e9) of q now."""
        return self.U[q], self.R[q], self.share(q)
