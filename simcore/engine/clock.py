"""SimPy's clock for one run: one event, re-armed for each instant (DESIGN.md section 3, rule 1).

The run's instants come, in time order, from its timeline (:mod:`simcore.engine.timeline`); the
clock puts each on SimPy's clock as one event whose callback, the run's handler
(:mod:`simcore.engine.loop`), handles it and then asks for the next with :meth:`Clock.next`. Not a
process and a ``Timeout`` per instant: SimPy's own work for those was twice this (docs/history/engine.md#the-compiled-engine-fifth-round-issue-21). It relies on one SimPy behaviour, tested in ``tests/test_engine_speed.py``: a
processed event scheduled again is processed again, in order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import simpy
from simpy.events import NORMAL

#: an instant: (time, jobs finishing, jobs released, jobs arriving)
Instant = tuple[float, list[int], list[int], list[int]]


class Clock:
    """The instants of `instants` on a SimPy clock of their own, each handled by `on_instant` once
    :meth:`run` steps them: the current instant is :attr:`instant`; the handler calls :meth:`next`
    once done."""

    instant: Instant  # the instant scheduled next

    def __init__(self, instants: Iterator[Instant], on_instant: Callable[[simpy.Event], None]) -> None:
        self.env = simpy.Environment()
        self.instants = instants
        self.on_instant = on_instant  # one bound method, not a new one per instant
        self.event: simpy.Event | None = None  # the one event, re-armed per instant
        self.next()

    def run(self) -> None:
        """Step every instant, in time order, until none is left."""
        self.env.run()

    def next(self) -> None:
        """Schedule the next instant, if any, on the clock."""
        instant = next(self.instants, None)
        if instant is None:  # nothing is scheduled: env.run() returns
            self.on_instant = _stopped  # it held the run itself: a cycle left for the collector
            return
        self.instant = instant
        t, now, event = instant[0], self.env.now, self.event
        delay = t - now if t > now else 0
        if event is None:  # the first instant: a timeout, which SimPy schedules
            event = self.event = self.env.timeout(delay)
            event.callbacks.append(self.on_instant)
        else:  # processed (callbacks None): re-armed
            event.callbacks = [self.on_instant]
            self.env.schedule(event, NORMAL, delay)


def _stopped(_event: simpy.Event) -> None:
    """A stopped run's clock callback (never called: nothing is scheduled any more)."""
