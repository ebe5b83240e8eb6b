"""The event log of a run: one row per submit, start, preempt, release, finish, drain, fail, node_down and
node_up, in the order they happen.

Append-only and compact: a 1M-job run writes about 4M rows, so rows go into typed arrays
(:mod:`array`, 8 bytes or less per value) rather than Python objects, and become numpy
arrays once, at the end (:meth:`EventLog.columns`). Rows are first appended to short Python
lists, which move into the typed arrays :data:`CHUNK` rows at a time (packed to bytes):
an append to a list is a native operation of the compiled engine, while an append to a
typed array parses its argument in C on every call. Event codes are those of
:mod:`simcore.core.result`; the node is -1 for a submit, the job -1 for a node_down or node_up.

Beside the rows, two records the events alone do not hold, for the preemption accounting
(:mod:`simcore.analysis.accounting`): the work each signal discarded, and each nomination (its TE job,
node, the GPUs it lacked there, and the row of its first ``preempt``).
"""

from __future__ import annotations

import struct
from array import array
from typing import Final

import numpy as np

CHUNK: Final = 1 << 14  # rows held in the lists before they move into the typed arrays


class EventLog:
    def __init__(self) -> None:
        self.time = array("d")
        self.job = array("q")
        self.code = array("b")
        self.node = array("q")
        # the rows not yet moved into the arrays (one list per column)
        self._time: list[float] = []
        self._job: list[int] = []
        self._code: list[int] = []
        self._node: list[int] = []
        self.lost = array("d")  # per signalled job, in signal order: the work it discarded (s)
        self.nominations: list[tuple[int, int, int, int]] = []  # (row, TE job, node, GPU units lacked)

    def __len__(self) -> int:
        return len(self.time) + len(self._time)

    def add(self, now: float, j: int, code: int, k: int) -> None:
        """Job `j` has event `code` on node `k` at `now`."""
        self._time.append(now)
        self._job.append(j)
        self._code.append(code)
        self._node.append(k)
        if len(self._time) >= CHUNK:
            self._move()

    def _move(self) -> None:
        """The rows held in the lists go to the typed arrays, packed to bytes in one C loop per column
        (``struct.pack`` in native layout, the very bytes the arrays hold; ``bytes`` for the small
        event codes): about twice as fast as ``array.fromlist``, which parses every item."""
        n = len(self._time)
        if n:
            self.time.frombytes(struct.pack(f"{n}d", *self._time))
            self.job.frombytes(struct.pack(f"{n}q", *self._job))
            self.code.frombytes(bytes(self._code))  # codes 0 to 8: one byte each, as int8
            self.node.frombytes(struct.pack(f"{n}q", *self._node))
        self._time.clear()
        self._job.clear()
        self._code.clear()
        self._node.clear()

    def signalled(self, lost: float) -> None:
        """The job just signalled discarded `lost` seconds of work."""
        self.lost.append(lost)

    def nominated(self, te: int, k: int, lacked_gpu: int) -> None:
        """`te` is nominated to node `k`, lacking `lacked_gpu` GPU units there; its victims'
        ``preempt`` rows come next."""
        self.nominations.append((len(self), te, k, lacked_gpu))

    def columns(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(time, job, code, node) as numpy arrays sharing the log's memory (empty arrays when no row)."""
        self._move()
        if not len(self.time):
            return np.zeros(0), np.zeros(0, np.int64), np.zeros(0, np.int8), np.zeros(0, np.int64)
        return (
            np.frombuffer(self.time, dtype=float),
            np.frombuffer(self.job, dtype=np.int64),
            np.frombuffer(self.code, dtype=np.int8),
            np.frombuffer(self.node, dtype=np.int64),
        )
