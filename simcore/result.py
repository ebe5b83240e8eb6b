"""What one run produces: append-only records, turned into frames on demand.

The engine fills compact arrays (a 1M-job run has ~4M events); the frames with the
column names of the file contract (DESIGN.md section 6) are built only when asked for.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import pandas as pd

from simcore.model import ClusterSpec, JobTable, SimConfig
from simcore.queues import QueueSpec

EVENT_NAMES: tuple[str, ...] = ("submit", "start", "preempt", "release", "finish")
SUBMIT, START, PREEMPT, RELEASE, FINISH = range(5)

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
    #: with queues (``cluster.queues``, DESIGN rule 11), each job's queue position; None without
    queue: np.ndarray | None = None
    #: with queues, one entry per preemption decision, in order: (time, preemptor, victims in signal
    #: order, the queues touched (the preemptor's first), their (U, R, share x 1e9) in GPU units just
    #: before the signals and just after them); read it through :mod:`simcore.queue_metrics`
    ledger: tuple[tuple, ...] = ()
    #: with queues, per unschedulable job (same order): why ("fits on no node", "above its queue's limit")
    unschedulable_reasons: tuple[str, ...] = ()

    @property
    def queues(self) -> QueueSpec | None:
        """The run's queues (DESIGN rule 11): the cluster's; None without."""
        return self.cluster.queues

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
        return pd.DataFrame(
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
                **({} if self.queues is None else {"queue": self.queue_names()}),
            },
            columns=JOB_COLUMNS if self.queues is None else [*JOB_COLUMNS, "queue"],
        )

    def queue_names(self) -> np.ndarray:
        """Each simulated job's queue name (a run with queues)."""
        assert self.queues is not None and self.queue is not None
        return np.array(self.queues.names, dtype=object)[self.queue]

    @cached_property
    def events_frame(self) -> pd.DataFrame:
        """One row per event in generation order, columns of the events CSV."""
        names = np.array(list(self.cluster.names) + [""], dtype=object)  # -1 -> ""
        return pd.DataFrame(
            {
                "time": self.ev_time,
                "job_id": self.jobs.job_id[self.ev_job] if len(self.ev_job) else np.array([], dtype=object),
                "event": np.array(EVENT_NAMES, dtype=object)[self.ev_code],
                "node": names[self.ev_node],
            },
            columns=EVENT_COLUMNS,
        )
