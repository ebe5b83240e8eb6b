"""The event log of a run: one row per submit, start, preempt, release and finish, in the order they happen.

Append-only and compact: a 1M-job run writes about 4M rows, so rows go into typed arrays
(:mod:`array`, 8 bytes or less per value) rather than Python objects, and become numpy
arrays once, at the end (:meth:`EventLog.columns`). Event codes are those of
:mod:`simcore.result`; the node is -1 for a submit.

Beside the rows, two records the events alone do not hold, for the preemption accounting
(:mod:`simcore.accounting`): the work each signal discarded, and each nomination (its TE job,
node, the GPUs it lacked there, and the row of its first ``preempt``).
"""

from __future__ import annotations

from array import array

import numpy as np


class EventLog:
    def __init__(self) -> None:
        self.time = array("d")
        self.job = array("q")
        self.code = array("b")
        self.node = array("q")
        # bound once: the engine appends a row per event, the hottest call of a run
        self._appends = (self.time.append, self.job.append, self.code.append, self.node.append)
        self.lost = array("d")  # per signalled job, in signal order: the work it discarded (s)
        self.nominations: list[tuple[int, int, int, int]] = []  # (row, TE job, node, GPU units lacked)

    def __len__(self) -> int:
        return len(self.time)

    def add(self, now: float, j: int, code: int, k: int) -> None:
        """Job `j` has event `code` on node `k` at `now`."""
        at, aj, ac, ak = self._appends
        at(now)
        aj(j)
        ac(code)
        ak(k)

    def signalled(self, lost: float) -> None:
        """The job just signalled discarded `lost` seconds of work."""
        self.lost.append(lost)

    def nominated(self, te: int, k: int, lacked_gpu: int) -> None:
        """`te` is nominated to node `k`, lacking `lacked_gpu` GPU units there; its victims'
        ``preempt`` rows come next."""
        self.nominations.append((len(self.time), te, k, lacked_gpu))

    def columns(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(time, job, code, node) as numpy arrays sharing the log's memory (empty arrays when no row)."""
        if not len(self.time):
            return np.zeros(0), np.zeros(0, np.int64), np.zeros(0, np.int8), np.zeros(0, np.int64)
        return (
            np.frombuffer(self.time, dtype=float),
            np.frombuffer(self.job, dtype=np.int64),
            np.frombuffer(self.code, dtype=np.int8),
            np.frombuffer(self.node, dtype=np.int64),
        )
