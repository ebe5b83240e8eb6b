"""What one run produces: append-only records, turned into frames on demand.

The engine fills compact arrays (a 1M-job run has ~4M events); the frames with the
column names of the file contract (DESIGN.md section 6) are built only when asked for.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import pandas as pd

from simcore.core.downtime import KINDS
from simcore.core.model import ClusterSpec, JobTable, SimConfig

EVENT_NAMES: tuple[str, ...] = (
    "submit",
    "start",
    "preempt",
    "release",
    "finish",
    "drain",
    "fail",
    "node_down",
    "node_up",
)
SUBMIT, START, PREEMPT, RELEASE, FINISH, DRAIN, FAIL, NODE_DOWN, NODE_UP = range(9)
#: what stops a run segment other than its finish (DESIGN rule 12), in the order of their codes
CAUSES: tuple[str, ...] = ("preemption", "drain", "failure")
PREEMPTION, DRAINED, FAILED = range(3)
#: the jobs CSV's columns of a run with down time (DESIGN-failures point 10), right after ``workers``
DOWN_COLUMNS = ["failures", "drains"]
CLASS_NAMES = np.array(["BE", "TE"])  # indexed by is_te
#: a column of the jobs or events CSV: numbers, texts, or coded texts ``(labels, codes)``, -1 an
#: empty text (the form :func:`simcore.io.csvsafe.write_columns` writes each label of once)
OutputColumn = np.ndarray | tuple[np.ndarray, np.ndarray]

JOB_COLUMNS = [
    "job_id",
    "job_class",
    "submit_time",
    "duration",
    "first_start",
    "finish",
    "wait",
    "jct",
    "slowdown",
    "preemptions",
    "lost_work",
    "node",
    "workers",
]
EVENT_COLUMNS = ["time", "job_id", "event", "node"]


@dataclass(frozen=True, eq=False)
class Downtime:
    """What a run with down time (node events, or ``mtbf`` finite) records beyond its events.

    Per job: ``failures`` and ``drains`` (how many times a node failure or a maintenance drain
    stopped it). Per interruption, in the order they happened (``job``, ``time``, ``cause`` as a
    code of :data:`CAUSES`, ``lost``: the work it discarded, s): a preemption or a drain at its
    signal, a failure at the node's going down (a job failing in its grace period adds a failure
    that loses the save it was making, often 0). ``windows``: every down window (``node`` index,
    ``start``, ``end``, ``kind`` code of :data:`simcore.core.downtime.KINDS`) that began by the run's
    end, the file's and the random failures', in the order they were read or drawn; ``ended``: the
    event row of the first ``preempt`` of each decision whose nomination a node going down or
    draining ended (:mod:`simcore.analysis.accounting` counts it wasted, cause ``node down``)."""

    failures: np.ndarray
    drains: np.ndarray
    job: np.ndarray
    time: np.ndarray
    cause: np.ndarray
    lost: np.ndarray
    node: np.ndarray
    start: np.ndarray
    end: np.ndarray
    kind: np.ndarray
    ended: np.ndarray

    @cached_property
    def windows_frame(self) -> pd.DataFrame:
        """The down windows as (node index, start, end, kind) rows, in order."""
        return pd.DataFrame(
            {"node": self.node, "start": self.start, "end": self.end, "kind": np.array(KINDS, dtype=object)[self.kind]}
        )


@dataclass(frozen=True, eq=False)
class SimResult:
    config: SimConfig
    cluster: ClusterSpec
    jobs: JobTable  # the simulated jobs (unschedulable ones removed), input order
    first_start: np.ndarray  # per job of `jobs`
    finish: np.ndarray
    preemptions: np.ndarray  # int
    lost_work: np.ndarray
    node: np.ndarray  # node index where the job finished (worker 0's for a gang)
    ev_time: np.ndarray  # events, in generation order
    ev_job: np.ndarray  # index into `jobs`
    ev_code: np.ndarray  # index into EVENT_NAMES
    ev_node: np.ndarray  # node index, -1 for submit
    unschedulable: tuple[str, ...]
    wall_seconds: float
    #: decision records (simcore.policies.decision), when the run was asked to keep them
    decisions: tuple[dict, ...] = ()
    #: per signalled job, in signal order: the work that preemption discarded (s)
    signal_lost: np.ndarray = field(default_factory=lambda: np.zeros(0))
    #: one row per nomination (DESIGN rule 5), in order: event row of its first ``preempt``,
    #: TE job, node, GPU units (:mod:`simcore.core.units`) it lacked there
    nominations: np.ndarray = field(default_factory=lambda: np.zeros((0, 4), dtype=np.int64))
    #: a run with down time (``cluster.node_events`` or ``mtbf`` finite): its records; None without
    downtime: Downtime | None = None

    @cached_property
    def slowdown(self) -> np.ndarray:
        jct = self.finish - self.jobs.submit_time
        tau = self.config.tau
        if tau > 0:
            return np.maximum(1.0, jct / np.maximum(self.jobs.duration, tau))
        return jct / self.jobs.duration

    def job_columns(self) -> dict[str, OutputColumn]:
        """The columns of the jobs CSV, one row per simulated job (class and node coded)."""
        j = self.jobs
        return {
            "job_id": j.job_id,
            "job_class": (CLASS_NAMES, j.is_te.astype(np.int64)),
            "submit_time": j.submit_time,
            "duration": j.duration,
            "first_start": self.first_start,
            "finish": self.finish,
            "wait": self.first_start - j.submit_time,
            "jct": self.finish - j.submit_time,
            "slowdown": self.slowdown,
            "preemptions": self.preemptions,
            "lost_work": self.lost_work,
            "node": (self._node_names, self.node),
            "workers": j.workers,
            **(
                {}
                if self.downtime is None  # right after workers (DESIGN-failures point 10)
                else dict(zip(DOWN_COLUMNS, (self.downtime.failures, self.downtime.drains), strict=True))
            ),
        }

    def event_columns(self) -> dict[str, OutputColumn]:
        """The columns of the events CSV, one row per event in generation order (a submit's node is empty;
        a node_down or node_up row's job is empty: job -1)."""
        return {
            "time": self.ev_time,
            "job_id": (self.jobs.job_id, self.ev_job),
            "event": (np.array(EVENT_NAMES, dtype=object), self.ev_code),
            "node": (self._node_names, self.ev_node),
        }

    @property
    def _node_names(self) -> np.ndarray:
        return np.array(self.cluster.names, dtype=object)

    @cached_property
    def jobs_frame(self) -> pd.DataFrame:
        """One row per simulated job, columns of the jobs CSV."""
        return _frame(self.job_columns())

    @cached_property
    def events_frame(self) -> pd.DataFrame:
        """One row per event in generation order, columns of the events CSV."""
        return _frame(self.event_columns())


def _frame(columns: dict[str, OutputColumn]) -> pd.DataFrame:
    """The frame of :meth:`SimResult.job_columns` or :meth:`SimResult.event_columns`, each coded
    column as its texts (of the labels' dtype; -1 an empty text)."""
    return pd.DataFrame({k: _decoded(*v) if isinstance(v, tuple) else v for k, v in columns.items()})


def _decoded(labels: np.ndarray, codes: np.ndarray) -> np.ndarray:
    return np.append(labels, "")[np.asarray(codes, dtype=np.int64)]
