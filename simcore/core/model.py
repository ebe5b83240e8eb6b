"""The model: frozen descriptions of nodes, clusters, jobs and run configuration.

Units, documented once for the whole project: time in **seconds** (float), CPU in
**cores**, memory in **GiB**, GPUs as a **count** (floats allowed, for GPU-sharing
traces). Resource vectors are always ordered as :data:`DIMS`. Inside a run the simulator
counts resources in integer units, as Kubernetes does: CPU in **millicores**, memory in
**MiB**, GPUs in **thousandths**; each request and capacity is rounded to the nearest unit
(ties to even) when the run starts, so all resource arithmetic is exact (:mod:`simcore.core.units`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from enum import StrEnum
from typing import Any

import numpy as np

from simcore.core.downtime import NodeEvents
from simcore.core.knobs import (  # noqa: F401 - re-exported: the knob vocabulary is imported from here too
    BACKFILL_MODES,
    CHECKPOINT_MODES,
    KNOB_HELP,
    KNOB_RANGES,
    KNOBS,
    MAX_SECONDS,
    MAX_SEED,
    PLACEMENTS,
    KnobRange,
    check_knobs,
    format_limit,
    parse_knob,
)
from simcore.core.knobs import default as _default

DIMS: tuple[str, str, str] = ("cpu", "mem_gb", "gpu")


class JobClass(StrEnum):
    TE = "TE"
    BE = "BE"


@dataclass(frozen=True)
class Resources:
    cpu: float = 0.0
    mem_gb: float = 0.0
    gpu: float = 0.0

    def as_array(self) -> np.ndarray:
        return np.array([self.cpu, self.mem_gb, self.gpu], dtype=float)


@dataclass(frozen=True)
class Node:
    name: str
    capacity: Resources


@dataclass(frozen=True)
class ClusterSpec:
    """An ordered list of nodes; the order is the node index used by placement ties. ``node_events``:
    the windows its nodes are down in (DESIGN rule 12; :mod:`simcore.core.downtime`), None: none."""

    nodes: tuple[Node, ...]
    node_events: NodeEvents | None = None

    def __post_init__(self) -> None:
        if not self.nodes:
            raise ValueError("a cluster needs at least one node")
        names = [n.name for n in self.nodes]
        if len(set(names)) != len(names):
            raise ValueError("node names must be unique")
        if self.node_events is not None:
            self.node_events.check_nodes(names)

    def with_node_events(self, events: NodeEvents | None) -> ClusterSpec:
        """The same nodes with down windows `events` (None: without)."""
        return replace(self, node_events=events)

    @classmethod
    def uniform(cls, count: int, cpu: float, mem_gb: float, gpu: float) -> ClusterSpec:
        """The ``--nodes`` shorthand: nodes ``n0 .. n{count-1}``."""
        if count < 1:
            raise ValueError("the number of nodes must be at least 1")
        cap = Resources(float(cpu), float(mem_gb), float(gpu))
        return cls(tuple(Node(f"n{i}", cap) for i in range(count)))

    @classmethod
    def from_pools(cls, pools: Sequence[Mapping[str, Any]]) -> ClusterSpec:
        """Pools ``{count, cpu, mem_gb, gpu, name}``; pool X gives nodes ``X-0 .. X-(k-1)``."""
        nodes: list[Node] = []
        for i, pool in enumerate(pools):
            name = str(pool.get("name") or f"pool{i}")
            count = int(pool.get("count", 1))
            cap = Resources(float(pool["cpu"]), float(pool["mem_gb"]), float(pool["gpu"]))
            nodes.extend(Node(f"{name}-{k}", cap) for k in range(count))
        return cls(tuple(nodes))

    @property
    def names(self) -> list[str]:
        return [n.name for n in self.nodes]

    def capacity_matrix(self) -> np.ndarray:
        """(nodes x 3) capacities in :data:`DIMS` order."""
        return np.array([n.capacity.as_array() for n in self.nodes], dtype=float).reshape(-1, 3)

    def total(self) -> Resources:
        c = self.capacity_matrix().sum(axis=0)
        return Resources(*map(float, c))


@dataclass(frozen=True)
class Job:
    job_id: str
    submit_time: float
    duration: float
    request: Resources
    job_class: JobClass
    user: str | None = None
    name: str | None = None
    workers: int = 1


@dataclass(frozen=True, eq=False)
class JobTable:
    """A workload as columns (fast for large traces). Rows keep the file's order."""

    job_id: np.ndarray  # object array of str
    submit_time: np.ndarray  # float64
    duration: np.ndarray  # float64
    request: np.ndarray  # float64, (n x 3) in DIMS order
    is_te: np.ndarray  # bool
    extra: Mapping[str, np.ndarray] = field(default_factory=dict)  # optional user, name, ...
    #: int64 workers per job (DESIGN rule 10; the request is per worker); None means all 1
    workers: np.ndarray | None = None

    def __post_init__(self) -> None:
        if self.workers is None:
            object.__setattr__(self, "workers", np.ones(len(self.job_id), dtype=np.int64))

    @property
    def has_gangs(self) -> bool:
        """Whether some job runs more than one worker."""
        return bool(len(self.job_id)) and int(np.max(self.workers)) > 1  # type: ignore[arg-type]

    def __len__(self) -> int:
        return len(self.job_id)

    def subset(self, mask: np.ndarray) -> JobTable:
        """The jobs where the boolean `mask` is set, in their order."""
        return JobTable(
            job_id=self.job_id[mask],
            submit_time=self.submit_time[mask],
            duration=self.duration[mask],
            request=self.request[mask],
            is_te=self.is_te[mask],
            extra={k: v[mask] for k, v in self.extra.items()},
            workers=np.asarray(self.workers)[mask],
        )

    @classmethod
    def from_jobs(cls, jobs: Iterable[Job]) -> JobTable:
        jobs = list(jobs)
        return cls(
            job_id=np.array([str(j.job_id) for j in jobs], dtype=object),
            submit_time=np.array([j.submit_time for j in jobs], dtype=float),
            duration=np.array([j.duration for j in jobs], dtype=float),
            request=np.array([j.request.as_array() for j in jobs], dtype=float).reshape(-1, 3),
            is_te=np.array([JobClass(j.job_class) is JobClass.TE for j in jobs], dtype=bool),
            workers=np.array([j.workers for j in jobs], dtype=np.int64),
        )

    @classmethod
    def from_frame(cls, df: Any) -> JobTable:
        """From a frame with the canonical columns (already validated)."""
        cls_col = df["job_class"].astype(str).str.upper().to_numpy()
        extra = {c: df[c].to_numpy(dtype=object) for c in ("user", "name") if c in df.columns}
        return cls(
            job_id=df["job_id"].astype(str).to_numpy(dtype=object),
            submit_time=df["submit_time"].to_numpy(dtype=float),
            duration=df["duration"].to_numpy(dtype=float),
            request=df[list(DIMS)].to_numpy(dtype=float).reshape(-1, 3),
            is_te=cls_col == "TE",
            extra=extra,
            workers=df["workers"].to_numpy(dtype=np.int64) if "workers" in df.columns else None,
        )

    def to_frame(self) -> Any:
        import pandas as pd

        df = pd.DataFrame(
            {
                "job_id": self.job_id,
                "submit_time": self.submit_time,
                "duration": self.duration,
                "cpu": self.request[:, 0],
                "mem_gb": self.request[:, 1],
                "gpu": self.request[:, 2],
                "job_class": np.where(self.is_te, "TE", "BE"),
            }
        )
        for k, v in self.extra.items():
            df[k] = v
        if self.has_gangs:
            df["workers"] = self.workers
        return df


#: The largest time (s) the simulator accepts: beyond 2^53 s (about 285 million years) float64
#: no longer holds every whole second, so event times would collide and slowdowns come out wrong.
MAX_TIME = 2.0**53
#: The largest request or capacity in one dimension (cores, GiB or GPUs): in the integer units of
#: DESIGN.md section 2 (millicores, MiB, thousandths) this stays far below 2^53, so resource
#: arithmetic is exact even summed over a whole cluster.
MAX_RESOURCE = 1e9


def clock_problems(submit: np.ndarray, duration: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Masks of the jobs whose times float64 cannot hold: (the uninterrupted run ends at or
    beyond :data:`MAX_TIME`, whose neighbours float64 cannot tell apart; the duration does not
    move the clock: ``submit + duration == submit``).
    A submit time below 1 s counts as 1 s (resolution 2.2e-16 s), so no slowdown
    ``jct / duration`` can overflow. NaN entries are in neither mask."""
    submit, duration = np.asarray(submit, dtype=float), np.asarray(duration, dtype=float)
    with np.errstate(invalid="ignore"):
        clock = np.maximum(submit, 1.0)
        return submit + duration >= MAX_TIME, clock + duration == clock


@dataclass(frozen=True)
class SimConfig:
    """A policy and every knob of DESIGN.md section 6; defaults, ranges and help in :mod:`simcore.core.knobs`."""

    policy: str = "fifo"
    grace: float = _default("grace")
    checkpoint: str = _default("checkpoint")
    checkpoint_interval: float = _default("checkpoint_interval")
    checkpoint_cost: float = _default("checkpoint_cost")
    restore: float = _default("restore")
    backfill: str = _default("backfill")
    placement: str = _default("placement")
    P: int = _default("P")
    s: float = _default("s")
    reentry: float = _default("reentry")
    tau: float = _default("tau")
    min_runtime: float = _default("min_runtime")
    save_time: float = _default("save_time")
    save_failure: float = _default("save_failure")
    preempt_budget: float = _default("preempt_budget")
    mtbf: float = _default("mtbf")
    repair: float = _default("repair")
    seed: int = _default("seed")

    def __post_init__(self) -> None:
        check_knobs({name: getattr(self, name) for name in KNOBS})

    def knobs(self) -> dict[str, Any]:
        """The knobs as JSON-ready values (inf as the string "inf")."""
        out: dict[str, Any] = {}
        for f in fields(self):
            if f.name == "policy":
                continue
            v = getattr(self, f.name)
            out[f.name] = "inf" if isinstance(v, float) and math.isinf(v) else v
        return out

    def recorded_knobs(self) -> dict[str, Any]:
        """:meth:`knobs` as a run's outputs record them (summary JSON, sweep rows): the quiet knobs
        (``Knob.quiet``: those of DESIGN rule 12) only when set away from their default."""
        return {k: v for k, v in self.knobs().items() if not (KNOBS[k].quiet and getattr(self, k) == _default(k))}

    def with_knobs(self, values: Mapping[str, Any]) -> SimConfig:
        """A copy with knobs set from strings or values; unknown names raise ValueError."""
        return replace(self, **{k: parse_knob(k, v) for k, v in values.items()})
