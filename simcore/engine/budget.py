"""The preemption budget (knob ``preempt_budget``, as Kueue's PreemptionLimit): at most N preemption
decisions in any rolling hour, for every preemptive policy.

A decision is one TE job's preemption (one decision record with victims, however many). A decision
made at ``t1`` counts at ``t`` while ``t < t1 + 3600``, i.e. the window at ``t`` is ``(t - 3600, t]``
(written as the same sum as the wake-up time, so the instant the budget frees up finds it free). When
N decisions are in the window, a TE job that fits nowhere waits (decision reason
``preemption budget spent``) and the engine runs a pass at the instant the oldest one leaves it.
"""

from __future__ import annotations

import math
from collections import deque

WINDOW = 3600.0  # seconds: the rolling hour


class PreemptionBudget:
    def __init__(self, limit: float) -> None:
        self._limit = limit
        self._times: deque[float] = deque()  # decision times still in the window, oldest first

    def frees_at(self, now: float) -> float | None:
        """None when a decision may be made at `now`; else the instant the budget frees up."""
        times = self._times
        while times and times[0] + WINDOW <= now:
            times.popleft()
        if len(times) < self._limit:
            return None
        return times[0] + WINDOW if times else math.inf  # a budget of 0 never frees up

    def spend(self, now: float) -> None:
        """A decision was made at `now`."""
        self._times.append(now)
