"""Adapter for the Alibaba GPU cluster trace 2023 ("openb", Weng et al., USENIX ATC '23).

The pod list has one row per pod: ``name, cpu_milli, memory_mib, num_gpu, gpu_milli, gpu_spec,
qos, pod_phase, creation_time, deletion_time, scheduled_time`` (times in integer seconds from
the start of the trace; ``scheduled_time`` empty when the pod never ran). The node list has
``sn, cpu_milli, memory_mib, gpu, model``.

Mapping to the simulator's jobs (units: ``cpu_milli / 1000`` cores, ``memory_mib / 1024`` GiB):

- arrival = ``creation_time``; run time = ``deletion_time - scheduled_time``;
- never-scheduled (Pending) pods carry no run time: skipped and counted;
- CPU-only pods (``num_gpu`` = 0) are dropped (counted) unless ``keep_cpu_only``;
- pods whose run time is 0 s cannot be simulated (a job needs a duration > 0): left out, counted;
- GPUs: ``whole`` = ``num_gpu``; ``shared`` = ``gpu_milli / 1000`` when ``num_gpu`` = 1;
- class: ``qos`` maps QoS ``BE`` to BE and every other QoS to TE; ``size`` (default) makes TE
  the pods with at most ``te_max_gpu`` GPUs that ran at most ``te_max_hours``, BE the rest
  (the trace's BE QoS pods are small and short, not the paper's long training runs);
- a window ``[window_start, window_end)`` keeps pods created in it, shifted so that the window
  starts at 0; pods running at the window start are added at t = 0 with their remaining time
  (``include_running``); ``compress`` K divides the arrival times (inter-arrival gaps) by K.

Every pod left out is counted in the notes; nothing is dropped silently.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Annotated, Any

import numpy as np
from pydantic import BeforeValidator, Field

from simcore.core.errors import UserError
from simcore.core.model import ClusterSpec, JobTable, Node, Resources
from simcore.core.numtext import parse_number, quoted

DAY = 86400.0

POD_COLUMNS: tuple[str, ...] = (
    "name",
    "cpu_milli",
    "memory_mib",
    "num_gpu",
    "gpu_milli",
    "qos",
    "pod_phase",
    "creation_time",
    "deletion_time",
    "scheduled_time",
)
NODE_COLUMNS: tuple[str, ...] = ("sn", "cpu_milli", "memory_mib", "gpu")


def _blank_to_none(value: Any) -> Any:
    return None if value is None or (isinstance(value, str) and not value.strip()) else value


_Amount = Annotated[float, Field(ge=0, allow_inf_nan=False)]
_Name = Annotated[str, Field(min_length=1)]

#: Per-value rules of the pod list (checked by :func:`simcore.workload.validate_columns`).
POD_SCHEMA: dict[str, Any] = {
    "name": _Name,
    "cpu_milli": _Amount,
    "memory_mib": _Amount,
    "num_gpu": _Amount,
    "gpu_milli": Annotated[float, Field(ge=0, le=1000, allow_inf_nan=False)],  # a share of one GPU
    "qos": _Name,
    "pod_phase": _Name,
    "creation_time": _Amount,
    "deletion_time": _Amount,
    "scheduled_time": Annotated[_Amount | None, BeforeValidator(_blank_to_none)],  # empty: never scheduled
}
#: Per-value rules of the node list.
NODE_SCHEMA: dict[str, Any] = {"sn": _Name, "cpu_milli": _Amount, "memory_mib": _Amount, "gpu": _Amount}


def is_pod_header(columns: Iterable[str]) -> bool:
    """True when the columns look like the trace's pod list."""
    return {"cpu_milli", "memory_mib", "num_gpu", "creation_time", "deletion_time"} <= set(columns)


def is_node_header(columns: Iterable[str]) -> bool:
    """True when the columns look like the trace's node list."""
    return {"sn", "cpu_milli", "memory_mib", "gpu"} <= set(columns)


def parse_trace_time(text: str | float, option: str) -> float:
    """Seconds of trace time from ``"11836800"`` or days with a ``d`` suffix (``"137d"``)."""
    match = re.fullmatch(r"\s*([0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*(d?)\s*", str(text))
    if not match:
        raise UserError(f"{option}: {quoted(text)} is not a time (seconds, or days with a d suffix such as 137d)")
    try:
        value = parse_number(match.group(1)) * (DAY if match.group(2) else 1.0)
    except ValueError as exc:
        raise UserError(f"{option}: {exc}") from None
    if not math.isfinite(value):
        raise UserError(f"{option}: {quoted(text)} is not a finite time")
    return value


@dataclass(frozen=True)
class AlibabaOptions:
    """The adapter's options (the CLI uses the same names with dashes)."""

    class_map: str = "size"  # "size" or "qos"
    te_max_gpu: float = 1.0  # size map: TE when GPUs <= this ...
    te_max_hours: float = 1.0  # ... and run time <= this many hours
    gpu_accounting: str = "whole"  # "whole" (num_gpu) or "shared" (gpu_milli / 1000 when num_gpu = 1)
    keep_cpu_only: bool = False
    window_start: float | None = None  # seconds of trace time; None = 0
    window_end: float | None = None  # seconds of trace time; None = no end
    include_running: bool = True  # pods running at window_start enter at t=0 with their remaining time
    compress: float = 1.0  # divide arrival times (so inter-arrival gaps) by this
    max_duration: float | None = None  # leave out pods that ran longer (seconds)

    def __post_init__(self) -> None:
        checks = [
            (self.class_map in ("size", "qos"), "--class-map", self.class_map, "must be size or qos"),
            (
                self.gpu_accounting in ("whole", "shared"),
                "--gpu-accounting",
                self.gpu_accounting,
                "must be whole or shared",
            ),
            (
                _finite(self.te_max_gpu) and self.te_max_gpu >= 0,
                "--te-max-gpu",
                self.te_max_gpu,
                "must be a number >= 0",
            ),
            (
                _finite(self.te_max_hours) and self.te_max_hours > 0,
                "--te-max-hours",
                self.te_max_hours,
                "must be a number > 0",
            ),
            (_finite(self.compress) and self.compress > 0, "--compress", self.compress, "must be a number > 0"),
        ]
        for ok, option, value, why in checks:
            if not ok:
                raise UserError(f"{option}: {value!r} {why}")
        start = self.window_start or 0.0
        if self.window_start is not None and not (_finite(start) and start >= 0):
            raise UserError(f"--window-start: {self.window_start!r} must be a time >= 0")
        if self.window_end is not None and not (self.window_end > start):
            raise UserError(f"--window-end: {self.window_end:g} s must be after the window start ({start:g} s)")
        if self.max_duration is not None and not (self.max_duration > 0):
            raise UserError(f"--max-duration: {self.max_duration!r} must be a time > 0")

    def describe(self) -> str:
        if self.class_map == "qos":
            classes = "class map qos (QoS BE -> BE, other QoS -> TE)"
        else:
            classes = f"class map size (TE = at most {self.te_max_gpu:g} GPU(s) and at most {self.te_max_hours:g} h)"
        return f"{classes}, GPU accounting {self.gpu_accounting}"


def _finite(x: float) -> bool:
    return isinstance(x, int | float) and math.isfinite(x)


def row_problems(parsed: Mapping[str, list[Any]]) -> list[tuple[int, str, str]]:
    """Rules across columns of one pod row: (row index, column, reason)."""
    out = []
    for i, (created, deleted, scheduled) in enumerate(
        zip(parsed["creation_time"], parsed["deletion_time"], parsed["scheduled_time"], strict=True)
    ):
        if created is None or deleted is None:
            continue
        if scheduled is not None and deleted < scheduled:
            out.append((i, "deletion_time", f"{deleted:g} is before scheduled_time {scheduled:g}"))
        elif scheduled is not None and scheduled < created:
            out.append((i, "scheduled_time", f"{scheduled:g} is before creation_time {created:g}"))
        elif deleted < created:
            out.append((i, "deletion_time", f"{deleted:g} is before creation_time {created:g}"))
    return out


@dataclass(frozen=True, eq=False)
class Conversion:
    """The adapted jobs, notes for the user, and the counts behind the notes."""

    table: JobTable
    notes: list[str]
    counts: dict[str, int] = field(default_factory=dict)


def convert_pods(columns: Mapping[str, np.ndarray], options: AlibabaOptions) -> Conversion:
    """Turn validated pod columns (object arrays, ``scheduled_time`` None when empty) into jobs."""
    name = np.asarray(columns["name"], dtype=object)
    n = len(name)
    num = lambda c: np.asarray(columns[c], dtype=float)  # noqa: E731 - a local shorthand
    created, deleted, num_gpu, gpu_milli = num("creation_time"), num("deletion_time"), num("num_gpu"), num("gpu_milli")
    sched_obj = np.asarray(columns["scheduled_time"], dtype=object)
    scheduled_mask = np.array([v is not None for v in sched_obj], dtype=bool)
    scheduled = np.where(scheduled_mask, np.array([0.0 if v is None else v for v in sched_obj], dtype=float), np.nan)
    phase = np.asarray(columns["pod_phase"], dtype=object)
    run_time = deleted - scheduled  # nan for never-scheduled pods

    counts: dict[str, int] = {"pods": n}
    notes: list[str] = []
    keep = scheduled_mask.copy()
    counts["never_scheduled"] = int((~scheduled_mask).sum())
    if counts["never_scheduled"]:
        pending = int(((~scheduled_mask) & (phase == "Pending")).sum())
        notes.append(
            f"skipped {counts['never_scheduled']} never-scheduled pods (no scheduled_time; {pending} of them Pending)"
        )

    cpu_only = keep & (num_gpu == 0)
    counts["cpu_only"] = int(cpu_only.sum())
    if options.keep_cpu_only:
        if counts["cpu_only"]:
            notes.append(f"kept {counts['cpu_only']} CPU-only pods (--keep-cpu-only)")
    else:
        keep &= ~cpu_only
        if counts["cpu_only"]:
            notes.append(f"dropped {counts['cpu_only']} CPU-only pods (num_gpu = 0; --keep-cpu-only keeps them)")

    zero = keep & (run_time == 0)
    counts["zero_duration"] = int(zero.sum())
    keep &= ~zero
    if counts["zero_duration"]:
        notes.append(f"left out {counts['zero_duration']} pods that ran 0 s (deletion_time = scheduled_time)")

    if options.max_duration is not None:
        too_long = keep & (run_time > options.max_duration)
        counts["too_long"] = int(too_long.sum())
        keep &= ~too_long
        notes.append(
            f"left out {counts['too_long']} pods that ran longer than {_when(options.max_duration)} (--max-duration)"
        )

    start = options.window_start or 0.0
    end = math.inf if options.window_end is None else options.window_end
    in_window = keep & (created >= start) & (created < end)
    running = keep & (created < start) & (deleted > start)
    counts["in_window"] = int(in_window.sum())
    counts["running_at_start"] = int(running.sum())
    ended_before = int((keep & (created < start) & (deleted <= start)).sum())
    after = int((keep & (created >= end)).sum())
    if ended_before:
        notes.append(f"left out {ended_before} pods that ended before the window start ({_when(start)})")
    if after:
        notes.append(f"left out {after} pods created at or after the window end ({_when(end)})")
    if counts["running_at_start"]:
        if options.include_running:
            notes.append(
                f"included {counts['running_at_start']} pods running at the window start at t=0 with their remaining time "
                f"(holding {_gpus(num_gpu[running])} GPUs; --no-include-running leaves them out)"
            )
        else:
            notes.append(
                f"left out {counts['running_at_start']} pods running at the window start (--no-include-running)"
            )
            running[:] = False
    selected = in_window | running

    submit = np.where(running, 0.0, created - start)
    duration = np.where(running, deleted - np.maximum(scheduled, start), run_time)
    if options.compress != 1.0:
        submit = submit / options.compress
        notes.append(f"arrival times divided by {options.compress:g} (--compress)")

    last = float(deleted.max()) if n else 0.0
    censored = int((selected & (deleted == last) & (phase == "Running")).sum())
    if censored:
        notes.append(
            f"{censored} pods were still running at the end of the trace ({_when(last)}): their run times are cut off"
        )

    if options.gpu_accounting == "shared":
        gpu = np.where(num_gpu == 1, gpu_milli / 1000.0, num_gpu)
    else:
        gpu = num_gpu
    if options.class_map == "qos":
        is_te = np.asarray(columns["qos"], dtype=object) != "BE"
    else:
        is_te = (num_gpu <= options.te_max_gpu) & (run_time <= options.te_max_hours * 3600.0)

    idx = np.flatnonzero(selected)
    idx = idx[np.argsort(submit[idx], kind="stable")]  # arrival order; ties keep the file's order
    table = JobTable(
        job_id=name[idx].astype(str).astype(object),
        submit_time=submit[idx],
        duration=duration[idx],
        request=np.column_stack([num("cpu_milli")[idx] / 1000.0, num("memory_mib")[idx] / 1024.0, gpu[idx]]),
        is_te=is_te[idx].astype(bool),
    )
    counts["jobs"] = len(idx)
    counts["te"] = int(table.is_te.sum())
    notes.insert(
        0,
        f"Alibaba GPU trace 2023 adapter: {n} pods -> {len(idx)} jobs ({counts['te']} TE, {len(idx) - counts['te']} BE); "
        f"{options.describe()}; window [{_when(start)}, {_when(end)}) of trace time, shifted to start at 0",
    )
    return Conversion(table, notes, counts)


def _when(seconds: float) -> str:
    """A trace time for notes: seconds and days."""
    if math.isinf(seconds):
        return "no end"
    return f"{seconds:.0f} s = {seconds / DAY:.2f} d"


def _gpus(values: np.ndarray) -> str:
    return f"{float(values.sum()):g}"


def nodes_to_cluster(
    parsed: Mapping[str, list[Any]], gpu_nodes_only: bool, first_n: int | None, gpu_per_node: float | None
) -> tuple[ClusterSpec, list[str]]:
    """A cluster from the validated node list: keep GPU nodes (``gpu_nodes_only``), then nodes
    with exactly ``gpu_per_node`` GPUs, then the first ``first_n`` in file order."""
    rows = list(zip(parsed["sn"], parsed["cpu_milli"], parsed["memory_mib"], parsed["gpu"], strict=True))
    total = len(rows)
    notes = []
    if gpu_nodes_only:
        rows = [r for r in rows if r[3] > 0]
        notes.append(f"kept the {len(rows)} GPU nodes of {total} (--gpu-nodes-only)")
    if gpu_per_node is not None:
        rows = [r for r in rows if r[3] == gpu_per_node]
        notes.append(f"kept the {len(rows)} nodes with exactly {gpu_per_node:g} GPUs (--gpu-per-node)")
    if first_n is not None:
        if first_n < 1:
            raise UserError(f"--first-n: {first_n} must be at least 1")
        if first_n > len(rows):
            raise UserError(f"--first-n: asked for {first_n} nodes but only {len(rows)} match the filters")
        rows = rows[:first_n]
        notes.append(f"kept the first {first_n} of them (--first-n)")
    if not rows:
        raise UserError("no node left after the filters (--gpu-nodes-only, --gpu-per-node)")
    nodes = tuple(Node(str(sn), Resources(cpu / 1000.0, mem / 1024.0, float(gpu))) for sn, cpu, mem, gpu in rows)
    gpus = sum(r[3] for r in rows)
    notes.insert(
        0, f"Alibaba node list: {len(nodes)} nodes, {gpus:g} GPUs (cpu_milli / 1000 cores, memory_mib / 1024 GiB)"
    )
    return ClusterSpec(nodes), notes
