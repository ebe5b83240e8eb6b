"""The job files of the public GPU traces that carry worker or node counts, each as published in
its own README (the column names are the trace's; nothing of the traces is copied here):

- ``spot2026``: Alibaba's spot-GPU trace (ASPLOS '26, ``cluster-trace-v2026-spot-gpu/job_info_df.csv``):
  one row per job, ``cpu_request``/``gpu_request`` per worker, ``worker_num`` workers, ``submit_time``
  in seconds from the first submission, ``duration`` in seconds, ``job_type`` HP or Spot (HP -> TE,
  Spot -> BE by default). No memory request (0 GiB).
- ``helios``: SenseTime Helios (SC '21, ``cluster_log.csv`` per cluster) and ``acme``: Shanghai AI
  Lab Acme (NSDI '24, ``trace_seren.csv`` and ``trace_kalos.csv``): Slurm-like rows with
  ``gpu_num`` and ``cpu_num`` for the whole job on ``node_num`` nodes, date-time ``submit_time``
  and ``duration`` in seconds. A job runs as ``node_num`` workers, each asking for the job's total
  divided by ``node_num``; memory is Kalos's ``mem_per_pod_GB`` per worker, else 0.
- ``pai2020``: Alibaba PAI 2020 (NSDI '22, ``pai_task_table.csv``, published without a header):
  one row per task, ``inst_num`` instances each asking for ``plan_cpu``/100 cores, ``plan_mem``
  GB and ``plan_gpu``/100 GPUs; a task becomes one job ``job_name/task_name`` that arrives at its
  ``start_time`` (the task table has no submission time) and runs until ``end_time``.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import Annotated, Any

import numpy as np
from pydantic import BeforeValidator

from simcore.workload.schema import Amount, OptionalText, Seconds, Text, count_value, workers_value
from simcore.workload.traces.common import Extracted, TraceFormat, datetime_problems, seconds


def _blank_to_none(value: Any) -> Any:
    return None if value is None or (isinstance(value, str) and not value.strip()) else value


def _job_type(value: Any) -> str:
    text = str(value).strip().upper()
    if text not in ("HP", "SPOT"):
        raise ValueError(f"must be HP or Spot, case-insensitive (got {str(value)[:40]!r})")
    return text


Workers = Annotated[int, BeforeValidator(workers_value)]
NodeCount = Annotated[int, BeforeValidator(partial(count_value, minimum=0))]
OptionalAmount = Annotated[Amount | None, BeforeValidator(_blank_to_none)]
JobType = Annotated[str, BeforeValidator(_job_type)]


def _num(columns: Mapping[str, np.ndarray], name: str) -> np.ndarray:
    """A validated numeric column as floats (None, an empty optional cell, as NaN)."""
    return np.array([np.nan if v is None else v for v in columns[name]], dtype=float)


# --- Alibaba spot-GPU trace 2026 ---------------------------------------------------------------

#: the HP/Spot split as two queues (the validated job_type is upper case)
SPOT_QUEUES = {"HP": "HP", "SPOT": "Spot"}

SPOT_HEADER = (
    "job_name",
    "organization",
    "gpu_model",
    "cpu_request",
    "gpu_request",
    "worker_num",
    "submit_time",
    "duration",
    "job_type",
)
SPOT_SCHEMA: dict[str, Any] = {
    "job_name": Text,
    "organization": OptionalText,
    "gpu_model": OptionalText,
    "cpu_request": Amount,  # cores per worker
    "gpu_request": Amount,  # GPUs per worker
    "worker_num": Workers,
    "submit_time": Seconds,
    "duration": Amount,  # 0 s: left out and counted by the conversion
    "job_type": JobType,
}


def _spot_jobs(c: Mapping[str, np.ndarray]) -> Extracted:
    n = len(c["job_name"])
    return Extracted(
        job_id=np.asarray(c["job_name"], dtype=object),
        submit=_num(c, "submit_time"),
        duration=_num(c, "duration"),
        request=np.column_stack([_num(c, "cpu_request"), np.zeros(n), _num(c, "gpu_request")]),
        workers=np.asarray(c["worker_num"], dtype=np.int64),
        native_te=np.asarray(c["job_type"], dtype=object) == "HP",
        user=np.asarray(c["organization"], dtype=object),
        notes=["the spot-GPU trace has no memory request: mem_gb = 0; gpu_model is not simulated (GPUs are alike)"],
        teams={
            "job_type": np.array([SPOT_QUEUES[t] for t in c["job_type"]], dtype=object),
            "organization": np.asarray(c["organization"], dtype=object),
        },
    )


SPOT2026 = TraceFormat(
    name="spot2026",
    title="Alibaba spot-GPU trace 2026",
    headers=(SPOT_HEADER,),
    schema=SPOT_SCHEMA,
    unique="job_name",
    row_problems=lambda parsed: [],
    extract=_spot_jobs,
    native_map="job_type",
    team_map="job_type",
    team_columns=("job_type", "organization"),
)


# --- SenseTime Helios and Shanghai AI Lab Acme -------------------------------------------------

HELIOS_HEADER = (
    "job_id",
    "user",
    "vc",
    "gpu_num",
    "cpu_num",
    "node_num",
    "state",
    "submit_time",
    "start_time",
    "end_time",
    "duration",
    "queue",
)
SEREN_HEADER = (
    "job_id",
    "user",
    "node_num",
    "gpu_num",
    "cpu_num",
    "type",
    "state",
    "submit_time",
    "start_time",
    "end_time",
    "duration",
    "queue",
    "gpu_time",
)
KALOS_HEADER = (
    "job_id",
    "user",
    "node_num",
    "gpu_num",
    "cpu_num",
    "mem_per_pod_gb",
    "shared_mem_per_pod",
    "type",
    "state",
    "submit_time",
    "start_time",
    "end_time",
    "fail_time",
    "stop_time",
    "duration",
    "queue",
    "gpu_time",
)
SLURM_SCHEMA: dict[str, Any] = {
    "job_id": Text,
    "user": OptionalText,
    "gpu_num": Amount,  # GPUs of the whole job
    "cpu_num": Amount,  # cores of the whole job
    "node_num": NodeCount,  # its workers
    "mem_per_pod_gb": OptionalAmount,  # Kalos only: GiB per worker
    "submit_time": Text,  # a date-time
    "duration": OptionalAmount,  # seconds of run time (end_time - start_time)
}


def _slurm_problems(parsed: Mapping[str, list[Any]]) -> list[tuple[int, str, str]]:
    out = datetime_problems(parsed, ("submit_time",))
    for i, (nodes, gpus) in enumerate(zip(parsed["node_num"], parsed["gpu_num"], strict=True)):
        if nodes == 0 and gpus is not None and gpus > 0:
            out.append((i, "node_num", f"0 nodes for a job of {gpus:g} GPUs"))
    return sorted(out)


def _slurm_jobs(c: Mapping[str, np.ndarray]) -> Extracted:
    n = len(c["job_id"])
    workers = np.maximum(np.asarray(c["node_num"], dtype=np.int64), 1)  # a CPU job may list 0 nodes
    gpus, cpus = _num(c, "gpu_num"), _num(c, "cpu_num")
    mem = np.nan_to_num(_num(c, "mem_per_pod_gb")) if "mem_per_pod_gb" in c else np.zeros(n)
    uneven = int(np.sum(np.mod(gpus, workers) != 0))
    notes = [] if "mem_per_pod_gb" in c else ["this trace has no memory request: mem_gb = 0"]
    if uneven:
        notes.append(f"{uneven} jobs' GPUs do not divide evenly over their nodes: each worker asks for the average")
    submit, _ = seconds(np.asarray(c["submit_time"], dtype=object))
    return Extracted(
        job_id=np.asarray(c["job_id"], dtype=object),
        submit=submit,
        duration=_num(c, "duration"),
        request=np.column_stack([cpus / workers, mem, gpus / workers]),
        workers=workers,
        user=np.asarray(c["user"], dtype=object),
        notes=notes,
        teams={name: np.asarray(c[name], dtype=object) for name in ("vc", "user") if name in c},
    )


HELIOS = TraceFormat(
    name="helios",
    title="Helios trace",
    headers=(HELIOS_HEADER,),
    schema={**{k: v for k, v in SLURM_SCHEMA.items() if k != "mem_per_pod_gb"}, "vc": OptionalText},
    unique="job_id",
    row_problems=_slurm_problems,
    extract=_slurm_jobs,
    team_map="vc",  # the virtual cluster: a team's share of the cluster
    team_columns=("vc", "user"),
)
ACME = TraceFormat(
    name="acme",
    title="Acme trace",
    headers=(SEREN_HEADER, KALOS_HEADER),
    schema=SLURM_SCHEMA,
    unique="job_id",
    row_problems=_slurm_problems,
    extract=_slurm_jobs,
    team_columns=("user",),  # no team column (no vc): a user's jobs as a queue only on request
)


# --- Alibaba PAI 2020 ----------------------------------------------------------------------------

PAI_HEADER = (
    "job_name",
    "task_name",
    "inst_num",
    "status",
    "start_time",
    "end_time",
    "plan_cpu",
    "plan_mem",
    "plan_gpu",
    "gpu_type",
)
PAI_SCHEMA: dict[str, Any] = {
    "job_name": Text,
    "task_name": Text,
    "inst_num": Workers,
    "start_time": OptionalAmount,  # seconds (shifted by a constant in the trace)
    "end_time": OptionalAmount,
    "plan_cpu": OptionalAmount,  # percent of a core, per instance
    "plan_mem": OptionalAmount,  # GB per instance
    "plan_gpu": OptionalAmount,  # percent of a GPU, per instance
}


def _pai_problems(parsed: Mapping[str, list[Any]]) -> list[tuple[int, str, str]]:
    out = []
    seen: set[tuple[str, str]] = set()
    rows = zip(parsed["job_name"], parsed["task_name"], parsed["start_time"], parsed["end_time"], strict=True)
    for i, (job, task, start, end) in enumerate(rows):
        if start is not None and end is not None and end < start:
            out.append((i, "end_time", f"{end:g} is before start_time {start:g}"))
        if job is not None and task is not None:
            if (job, task) in seen:
                out.append((i, "task_name", f"duplicate task {job}/{task}"))
            seen.add((job, task))
    return out


def _pai_jobs(c: Mapping[str, np.ndarray]) -> Extracted:
    start = _num(c, "start_time")
    ids = [f"{job}/{task}" for job, task in zip(c["job_name"], c["task_name"], strict=True)]
    return Extracted(
        job_id=np.array(ids, dtype=object),
        submit=start,
        duration=_num(c, "end_time") - start,  # NaN when either time is missing
        request=np.column_stack(
            [
                np.nan_to_num(_num(c, name)) * scale
                for name, scale in (("plan_cpu", 0.01), ("plan_mem", 1), ("plan_gpu", 0.01))
            ]
        ),
        workers=np.asarray(c["inst_num"], dtype=np.int64),
        notes=[
            "arrival = the task's start_time (the task table has no submission time: the trace's queueing is not replayed)"
        ],
    )


PAI2020 = TraceFormat(
    name="pai2020",
    title="Alibaba PAI 2020 task table",
    headers=(PAI_HEADER,),
    schema=PAI_SCHEMA,
    unique=None,  # tasks are unique by job_name and task_name together (_pai_problems)
    row_problems=_pai_problems,
    extract=_pai_jobs,
    headerless=True,
)

#: Every gang-trace format by its --format name.
TRACE_FORMATS: dict[str, TraceFormat] = {f.name: f for f in (SPOT2026, HELIOS, ACME, PAI2020)}


def detect(columns: Mapping[str, Any]) -> TraceFormat | None:
    """The format whose published header the file's header is exactly (names trimmed, lower case)."""
    header = tuple(columns)
    return next((f for f in TRACE_FORMATS.values() if header in f.headers), None)
