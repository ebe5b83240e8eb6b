"""The model: frozen descriptions of nodes, clusters, jobs and run configuration.

Units, documented once for the whole project: time in **seconds** (float), CPU in
**cores**, memory in **GiB**, GPUs as a **count** (floats allowed, for GPU-sharing
traces). Resource vectors are always ordered as :data:`DIMS`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from enum import StrEnum
from typing import Any

import numpy as np

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
    """An ordered list of nodes; the order is the node index used by placement ties."""

    nodes: tuple[Node, ...]

    def __post_init__(self) -> None:
        if not self.nodes:
            raise ValueError("a cluster needs at least one node")
        names = [n.name for n in self.nodes]
        if len(set(names)) != len(names):
            raise ValueError("node names must be unique")

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


@dataclass(frozen=True, eq=False)
class JobTable:
    """A workload as columns (fast for large traces). Rows keep the file's order."""

    job_id: np.ndarray  # object array of str
    submit_time: np.ndarray  # float64
    duration: np.ndarray  # float64
    request: np.ndarray  # float64, (n x 3) in DIMS order
    is_te: np.ndarray  # bool
    extra: Mapping[str, np.ndarray] = field(default_factory=dict)  # optional user, name, ...

    def __len__(self) -> int:
        return len(self.job_id)

    @classmethod
    def from_jobs(cls, jobs: Iterable[Job]) -> JobTable:
        jobs = list(jobs)
        return cls(
            job_id=np.array([str(j.job_id) for j in jobs], dtype=object),
            submit_time=np.array([j.submit_time for j in jobs], dtype=float),
            duration=np.array([j.duration for j in jobs], dtype=float),
            request=np.array([j.request.as_array() for j in jobs], dtype=float).reshape(-1, 3),
            is_te=np.array([JobClass(j.job_class) is JobClass.TE for j in jobs], dtype=bool),
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
        return df


CHECKPOINT_MODES = ("on_preempt", "periodic", "none")
BACKFILL_MODES = ("greedy", "none")
PLACEMENTS = ("best_fit", "first_fit", "worst_fit")

MAX_SECONDS = 1e9  # bound of the time knobs without a natural one (about 32 years: any more is a typo)

#: knob -> (default, one-line help). The single source for CLI help and the dashboard.
KNOB_HELP: dict[str, str] = {
    "grace": "seconds a preempted job keeps its resources to checkpoint (default 30)",
    "checkpoint": "on_preempt (no loss), periodic (keep whole intervals) or none (restart from 0)",
    "checkpoint_interval": "seconds between periodic checkpoints (default 1800)",
    "restore": "seconds of restoring on every start after a preemption (default 60)",
    "backfill": "greedy (skip jobs that do not fit) or none (strict head-of-line)",
    "placement": "best_fit, first_fit or worst_fit node choice",
    "P": "fitgpp only: max preemptions per BE job (default 2)",
    "s": "fitgpp and fitdelay: victim dominant share at most s x the TE job's (inf = no cap)",
    "reentry": "fitdelay only: seconds of expected wait to get back in per unit of normalised room its victims "
    "give up (0 to 1e9, default 1800)",
    "tau": "bounded-slowdown threshold in seconds (0 = plain slowdown)",
    "min_runtime": "every preemptive policy: a BE job is a victim candidate only once its current run segment "
    "(restore included) has lasted this many seconds (0 to 1e9, default 0 = no exemption)",
    "seed": "seed of the random policy and of generators (default 0)",
}


@dataclass(frozen=True)
class SimConfig:
    """A policy and every mechanics knob of DESIGN.md section 6, with their defaults."""

    policy: str = "fifo"
    grace: float = 30.0
    checkpoint: str = "on_preempt"
    checkpoint_interval: float = 1800.0
    restore: float = 60.0
    backfill: str = "greedy"
    placement: str = "best_fit"
    P: int = 2
    s: float = math.inf
    reentry: float = 1800.0
    tau: float = 0.0
    min_runtime: float = 0.0
    seed: int = 0

    def __post_init__(self) -> None:
        _check(self.grace >= 0 and math.isfinite(self.grace), "grace", "must be a finite number >= 0")
        _check(self.checkpoint in CHECKPOINT_MODES, "checkpoint", f"must be one of {', '.join(CHECKPOINT_MODES)}")
        _check(
            self.checkpoint_interval > 0 and math.isfinite(self.checkpoint_interval),
            "checkpoint_interval",
            "must be a finite number > 0",
        )
        _check(self.restore >= 0 and math.isfinite(self.restore), "restore", "must be a finite number >= 0")
        _check(self.backfill in BACKFILL_MODES, "backfill", f"must be one of {', '.join(BACKFILL_MODES)}")
        _check(self.placement in PLACEMENTS, "placement", f"must be one of {', '.join(PLACEMENTS)}")
        _check(self.P >= 0, "P", "must be an integer >= 0")
        _check(self.s > 0 and not math.isnan(self.s), "s", "must be a number > 0 (inf = no cap)")
        _check(self.tau >= 0 and math.isfinite(self.tau), "tau", "must be a finite number >= 0")
        _check(self.seed >= 0, "seed", "must be an integer >= 0")
        within = f"must be a number of seconds in [0, {MAX_SECONDS:g}]"
        _check(0 <= self.reentry <= MAX_SECONDS, "reentry", within)
        _check(0 <= self.min_runtime <= MAX_SECONDS, "min_runtime", within)

    def knobs(self) -> dict[str, Any]:
        """The knobs as JSON-ready values (inf as the string "inf")."""
        out: dict[str, Any] = {}
        for f in fields(self):
            if f.name == "policy":
                continue
            v = getattr(self, f.name)
            out[f.name] = "inf" if isinstance(v, float) and math.isinf(v) else v
        return out

    def with_knobs(self, values: Mapping[str, Any]) -> SimConfig:
        """A copy with knobs set from strings or values; unknown names raise ValueError."""
        return replace(self, **{k: parse_knob(k, v) for k, v in values.items()})


def parse_knob(name: str, value: Any) -> Any:
    types = {f.name: f.type for f in fields(SimConfig)}
    if name not in types or name == "policy":
        known = ", ".join(k for k in types if k != "policy")
        raise ValueError(f"unknown knob {name!r} (known: {known})")
    kind = types[name]
    text = str(value).strip()
    try:
        if kind == "int":
            f = float(text)
            if not f.is_integer():
                raise ValueError
            return int(f)
        if kind == "float":
            return float(text)
    except ValueError:
        raise ValueError(f"knob {name}: {value!r} is not a {'whole number' if kind == 'int' else 'number'}") from None
    return text


def _check(ok: bool, name: str, why: str) -> None:
    if not ok:
        raise ValueError(f"knob {name}: {why}")
