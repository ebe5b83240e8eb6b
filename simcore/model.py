"""The model: frozen descriptions of nodes, clusters, jobs and run configuration.

Units, documented once for the whole project: time in **seconds** (float), CPU in
**cores**, memory in **GiB**, GPUs as a **count** (floats allowed, for GPU-sharing
traces). Resource vectors are always ordered as :data:`DIMS`. Inside a run the simulator
counts resources in integer units, as Kubernetes does: CPU in **millicores**, memory in
**MiB**, GPUs in **thousandths**; each request and capacity is rounded to the nearest unit
(ties to even) when the run starts, so all resource arithmetic is exact (:mod:`simcore.units`).
"""

from __future__ import annotations

import math
import re
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

#: The largest time (s) the simulator accepts: beyond 2^53 s (about 285 million years) float64
#: no longer holds every whole second, so event times would collide and slowdowns come out wrong.
MAX_TIME = 2.0**53
#: The largest request or capacity in one dimension (cores, GiB or GPUs): in the integer units of
#: DESIGN.md section 2 (millicores, MiB, thousandths) this stays far below 2^53, so resource
#: arithmetic is exact even summed over a whole cluster.
MAX_RESOURCE = 1e9
#: The longest duration a setting may give (the knobs grace, restore, checkpoint_interval, tau; a
#: generator's durations), about 31.7 years: every derived time and slowdown then stays finite.
MAX_SECONDS = 1e9
#: The largest seed: what a Parquet int64 column (sweep rows) holds.
MAX_SEED = 2**63 - 1


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
class KnobRange:
    """The allowed values of a numeric knob: ``low`` to ``high`` (``low`` excluded when
    ``low_open``); ``high = inf`` allows inf itself (``s``: no cap)."""

    low: float
    high: float
    low_open: bool = False
    whole: bool = False

    def text(self) -> str:
        """The range as the help and the README state it (``0 to 1e9``, ``> 0, or inf``)."""
        if math.isinf(self.high):
            return f"> {format_limit(self.low)}, or inf" if self.low_open else f">= {format_limit(self.low)}, or inf"
        return f"{format_limit(self.low)} to {format_limit(self.high)}"

    def check(self, name: str, value: float) -> None:
        low_ok = value > self.low if self.low_open else value >= self.low
        whole_ok = not self.whole or float(value).is_integer()
        if low_ok and value <= self.high and whole_ok:
            return
        if math.isinf(self.high):
            rule = f"a number {'>' if self.low_open else '>='} {format_limit(self.low)} (inf = no cap)"
        else:
            kind = "an integer" if self.whole else "a finite number"
            rule = f"{kind} >= {format_limit(self.low)} and <= {format_limit(self.high)}"
        shown = repr(value) if len(repr(value)) <= 24 else f"{repr(value)[:12]}... ({len(repr(value))} digits)"
        _check(False, name, f"must be {rule} (got {shown})")


def format_limit(x: float) -> str:
    """1e9 as ``1e9``, 1000000 as ``1000000``, 0.001 as ``0.001``."""
    if isinstance(x, int):
        return str(x)
    if x.is_integer() and abs(x) < 1e7:
        return str(int(x))
    return f"{x:g}".replace("e+0", "e").replace("e+", "e").replace("e-0", "e-")


#: knob -> allowed range, for every numeric knob: no value in range can make a time, a metric or
#: a JSON number non-finite. The help texts below state these ranges.
KNOB_RANGES: dict[str, KnobRange] = {
    "grace": KnobRange(0, MAX_SECONDS),
    "checkpoint_interval": KnobRange(0.001, MAX_SECONDS),
    "restore": KnobRange(0, MAX_SECONDS),
    "P": KnobRange(0, 1_000_000, whole=True),
    "s": KnobRange(0, math.inf, low_open=True),
    "reentry": KnobRange(0, MAX_SECONDS),
    "tau": KnobRange(0, MAX_SECONDS),
    "min_runtime": KnobRange(0, MAX_SECONDS),
    "seed": KnobRange(0, MAX_SEED, whole=True),
}

#: knob -> one-line help with its default and range. The single source for CLI help and the dashboard.
KNOB_HELP: dict[str, str] = {
    "grace": "seconds a preempted job keeps its resources to checkpoint (default 30; 0 to 1e9)",
    "checkpoint": "on_preempt (no loss), periodic (keep whole intervals) or none (restart from 0) (default on_preempt)",
    "checkpoint_interval": "seconds between periodic checkpoints (default 1800; 0.001 to 1e9)",
    "restore": "seconds of restoring on every start after a preemption (default 60; 0 to 1e9)",
    "backfill": "greedy (skip jobs that do not fit) or none (strict head-of-line) (default greedy)",
    "placement": "best_fit, first_fit or worst_fit node choice (default best_fit)",
    "P": "fitgpp, and fitdelay with checkpoint on_preempt: max preemptions per BE job (default 2; 0 to 1000000)",
    "s": "fitgpp and fitdelay: victim dominant share at most s x the TE job's (default inf = no cap; > 0, or inf)",
    "reentry": "fitdelay with checkpoint periodic: seconds of expected wait to get back in per unit of normalised "
    "room its victims give up (default 1800; 0 to 1e9)",
    "tau": "bounded-slowdown threshold in seconds (default 0 = plain slowdown; 0 to 1e9)",
    "min_runtime": "every preemptive policy: a BE job is a victim candidate only once its current run segment "
    "(restore included) has lasted this many seconds (default 0 = no exemption; 0 to 1e9)",
    "seed": "seed of the random policy and of generators (default 0; 0 to 9223372036854775807)",
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
        for name, allowed in KNOB_RANGES.items():
            allowed.check(name, getattr(self, name))
        _check(self.checkpoint in CHECKPOINT_MODES, "checkpoint", f"must be one of {', '.join(CHECKPOINT_MODES)}")
        _check(self.backfill in BACKFILL_MODES, "backfill", f"must be one of {', '.join(BACKFILL_MODES)}")
        _check(self.placement in PLACEMENTS, "placement", f"must be one of {', '.join(PLACEMENTS)}")

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
            if re.fullmatch(r"[+-]?[0-9]+", text):
                return int(text)  # exact: a float would round seeds above 2^53
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
