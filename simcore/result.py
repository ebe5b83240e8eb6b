"""What one run produces: append-only records, turned into frames on demand.

The engine fills compact arrays (a 1M-job run has ~4M events); the frames with the
column names of the file contract (DESIGN.md section 6) are built only when asked for.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import pandas as pd

from simcore.downtime import KINDS
from simcore.model import ClusterSpec, JobTable, SimConfig

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
    ``start``, ``end``, ``kind`` code of :data:`simcore.downtime.KINDS`) that began by the run's
    end, the file's and the random failures', in the order they were read or drawn; ``ended``: the
    event row of the first ``preempt`` of each decision whose nomination a node going down or
    draining ended (:mod:`simcore.accounting` counts it wasted, cause ``node down``)."""

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
    #: TE job, node, GPU units (:mod:`simcore.units`) it lacked there
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

    @cached_property
    def jobs_frame(self) -> pd.DataFrame:
        """One row per simulated job, columns of the jobs CSV."""
        j = self.jobs
        names = np.array(self.cluster.names, dtype=object)
        frame = pd.DataFrame(
            {
                "job_id": j.job_id,
                "job_class": np.where(j.is_te, "TE", "BE"),
                "submit_time": j.submit_time,
                "duration": j.duration,
                "first_start": self.first_start,
                "finish": self.finish,
                "wait": self.first_start - j.submit_time,
                "jct": self.finish - j.submit_time,
                "slowdown": self.slowdown,
                "preemptions": self.preemptions,
                "lost_work": self.lost_work,
                "node": names[self.node] if len(self.node) else np.array([], dtype=object),
                "workers": j.workers,
            },
            columns=JOB_COLUMNS,
        )
        if self.downtime is not None:  # right after workers (DESIGN-failures point 10)
            for name, values in zip(DOWN_COLUMNS, (self.downtime.failures, self.downtime.drains), strict=True):
                frame[name] = values
        return frame

    @cached_property
    def events_frame(self) -> pd.DataFrame:
        """One row per event in generation order, columns of the events CSV."""
        names = np.array(list(self.cluster.names) + [""], dtype=object)  # -1 -> ""
        if self.downtime is None:
            ids = self.jobs.job_id[self.ev_job] if len(self.ev_job) else np.array([], dtype=object)
        else:  # node_down and node_up rows have no job (-1 -> "")
            ids = np.append(self.jobs.job_id, "").astype(object)[self.ev_job]
        return pd.DataFrame(
            {
                "time": self.ev_time,
                "job_id": ids,
                "event": np.array(EVENT_NAMES, dtype=object)[self.ev_code],
                "node": names[self.ev_node],
            },
            columns=EVENT_COLUMNS,
        )
