"""A server-wide cap on simultaneous computations, with a line served in arrival order; pure.

Every visitor's computation runs in a worker process of its own (:mod:`dashboard.runs.worker`),
so without a cap a class opening the demo at once starts as many processes as there are tabs.
:class:`ComputeSlots` lets ``capacity`` computations run and the next ``max_waiting`` visitors
wait in line, each told its place; past that a visitor is told the server is busy
(:class:`Full`). A ticket whose holder stops touching it (a session gone without leaving) is
dropped after ``stale_after`` seconds, so an abandoned page never holds a slot or a place for
long. While a computation runs, the next starts only if ``room()`` allows (the shared store's
:meth:`~dashboard.runs.store.BoundedStore.has_room`: results in memory within their bound);
a waiting page checks in every ``worker.POLL_SECONDS``, so a slot held back is given once room
returns (no page waits in line holding results: :mod:`dashboard.runs.parked`, so room returns
without the line). ``dashboard/runs/data.py`` holds the one instance of a server (``st.cache_resource``).
The slots remember how long the last :data:`RECENT` computations ran, from which a visitor in line is
told an expected wait (:meth:`ComputeSlots.expected_wait`).
"""

from __future__ import annotations

import itertools
import math
import statistics
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from simcore.core.errors import UserError

STALE_SECONDS = 60.0  # a page touches its ticket every worker.POLL_SECONDS, even on a busy server
RECENT = 20  # the computations whose run times the expected wait is read from


class Full(UserError):
    """Every slot is taken and the line is at its length: come back later."""


@dataclass(eq=False)
class Ticket:
    """One visitor's computation: waiting in line, then running, until it leaves."""

    number: int  # arrival order
    touched: float
    running: bool = False
    dropped: bool = False  # expired while its holder did not touch it
    started: float = math.nan  # when it got its slot


class ComputeSlots:
    def __init__(
        self,
        capacity: int,
        max_waiting: int,
        stale_after: float = STALE_SECONDS,
        clock: Callable[[], float] = time.monotonic,
        room: Callable[[], bool] = lambda: True,
    ) -> None:
        if capacity < 1 or max_waiting < 0:
            raise ValueError(f"capacity {capacity} must be >= 1 and max_waiting {max_waiting} >= 0")
        self.capacity = capacity
        self.max_waiting = max_waiting
        self.stale_after = stale_after
        self._clock = clock
        self._room = room
        self._changed = threading.Condition()
        self._line: list[Ticket] = []  # waiting, in arrival order
        self._running: list[Ticket] = []
        self._numbers = itertools.count()
        self._recent: deque[float] = deque(maxlen=RECENT)  # seconds each of the last computations held its slot

    def enter(self) -> Ticket:
        """A ticket: running at once if a slot is free and nobody waits, else last in line.
        Raises :class:`Full` when it would have to wait behind ``max_waiting`` others."""
        with self._changed:
            self._expire()
            must_wait = bool(self._line) or len(self._running) >= self.capacity
            if must_wait and len(self._line) >= self.max_waiting:
                raise Full(f"{len(self._running)} running, {len(self._line)} waiting")
            ticket = Ticket(next(self._numbers), self._clock())
            self._line.append(ticket)
            self._admit()
            return ticket

    def wait(self, ticket: Ticket, timeout: float) -> int:
        """Touch ``ticket`` and wait up to ``timeout`` s for its slot; its place: 0 = running,
        k = k-th in line. A ticket dropped while its holder was away goes to the end of the line."""
        with self._changed:
            ticket.touched = self._clock()
            if ticket.dropped:
                ticket.dropped = False
                self._line.append(ticket)
                self._admit()
            self._changed.wait_for(lambda: ticket.running, timeout)
            self._expire()
            return self.place(ticket)

    def touch(self, ticket: Ticket) -> None:
        """The holder of a running ticket is still there."""
        with self._changed:
            ticket.touched = self._clock()

    def leave(self, ticket: Ticket) -> None:
        """Give the slot or the place in line back (finished, failed, stopped or gone)."""
        with self._changed:
            self._remove(ticket)
            self._admit()

    def place(self, ticket: Ticket) -> int:
        return 0 if ticket.running else self._line.index(ticket) + 1 if ticket in self._line else -1

    @property
    def running(self) -> int:
        return len(self._running)

    @property
    def waiting(self) -> int:
        return len(self._line)

    def expected_wait(self, place: int) -> float | None:
        """Seconds the ``place``-th in line may expect to wait: its turn among ``capacity`` slots times the
        median run time of the last computations; None before any has ended (nothing to go by)."""
        with self._changed:
            if not self._recent:
                return None
            return math.ceil(place / self.capacity) * statistics.median(self._recent)

    def _remove(self, ticket: Ticket) -> None:
        if ticket in self._running:
            self._running.remove(ticket)
            self._recent.append(self._clock() - ticket.started)
        elif ticket in self._line:
            self._line.remove(ticket)
        ticket.running = False

    def _admit(self) -> None:
        # never without room, not even when nothing runs: no page waits in line holding results
        # (dashboard/runs/parked.py), so what pages hold beyond the store is let go without the line
        while self._line and len(self._running) < self.capacity and self._room():
            ticket = self._line.pop(0)
            ticket.running = True
            ticket.started = self._clock()
            self._running.append(ticket)
        self._changed.notify_all()

    def _expire(self) -> None:
        now = self._clock()
        for ticket in [t for t in (*self._running, *self._line) if now - t.touched > self.stale_after]:
            self._remove(ticket)
            ticket.dropped = True
        self._admit()


@contextmanager
def turn(
    slots: ComputeSlots, waiting: Callable[[int], None], poll: float, ticket: Ticket | None = None
) -> Iterator[Ticket]:
    """Hold a slot for the body of the ``with``: wait in line first (with ``ticket`` if the caller
    entered already), calling ``waiting(place)`` every ``poll`` seconds (it may raise to give up);
    the slot is given back however it ends."""
    ticket = slots.enter() if ticket is None else ticket
    try:
        while (place := slots.wait(ticket, poll)) != 0:
            waiting(place)
        yield ticket
    finally:
        slots.leave(ticket)
