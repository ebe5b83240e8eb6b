"""Writing canonical files (workload CSV, node-list CSV) byte-for-byte reproducibly, and the
realised offered load of a workload on a cluster.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pandas as pd

from simcore.core.model import DIMS, ClusterSpec, JobTable
from simcore.io.csvsafe import write_columns
from simcore.workload.problems import OPTIONAL_COLUMNS
from simcore.workload.schema import NODE_SCHEMA

# --- writing and measuring ----------------------------------------------------------------------


def format_numbers(values: np.ndarray) -> list[str]:
    """Numbers as text, the same way every time: whole values as integers ("30", not "30.0"),
    the rest as the shortest positional decimal that reads back to the same float."""
    values = np.asarray(values, dtype=float)
    whole = np.isfinite(values) & (values == np.round(values)) & (np.abs(values) < 2.0**53)
    if whole.all():
        return [str(v) for v in values.astype(np.int64).tolist()]
    return [
        str(int(v)) if w else np.format_float_positional(v, unique=True, trim="-")
        for v, w in zip(values.tolist(), whole.tolist(), strict=True)
    ]


def write_workload(table: JobTable, path: str | Path) -> None:
    """Write the canonical CSV (UTF-8, ``\\n`` line ends, numbers through :func:`format_numbers`):
    the same table always gives the same bytes. Text goes through the CSV rule
    (:mod:`simcore.io.csvsafe`), so text a spreadsheet would run as a formula is escaped."""
    columns: dict[str, np.ndarray] = {
        "job_id": _texts(str(v) for v in table.job_id),
        "submit_time": _texts(format_numbers(table.submit_time)),
        "duration": _texts(format_numbers(table.duration)),
        **{dim: _texts(format_numbers(table.request[:, i])) for i, dim in enumerate(DIMS)},
        "job_class": np.where(table.is_te, "TE", "BE"),
    }
    for col in OPTIONAL_COLUMNS:
        if col in table.extra:
            columns[col] = _texts(_text_or_empty(v) for v in table.extra[col])
    if table.has_gangs:  # a file without gangs keeps its bytes (no column of 1s)
        columns["workers"] = np.asarray(table.workers)
    write_columns(path, columns)


def _texts(values: Iterable[str]) -> np.ndarray:
    """Texts as a column (numbers already formatted are plain decimals, which the CSV rule leaves alone)."""
    return np.array(list(values), dtype=object)


def _text_or_empty(value: object) -> str:
    missing = value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NA
    return "" if missing else str(value)


def write_cluster_csv(cluster: ClusterSpec, path: str | Path) -> None:
    """Write a cluster as a node-list CSV (``name, cpu, mem_gb, gpu``), which keeps node names
    (through the CSV rule like every text cell, :mod:`simcore.io.csvsafe`)."""
    caps = cluster.capacity_matrix()
    name, *dims = NODE_SCHEMA
    columns = {name: _texts(cluster.names), **{d: _texts(format_numbers(caps[:, i])) for i, d in enumerate(dims)}}
    write_columns(path, columns)


def offered_load(table: JobTable, cluster: ClusterSpec) -> float:
    """Realised offered GPU load: GPU-seconds requested (workers x GPUs per worker x duration)
    / (cluster GPUs x arrival span), where the span runs from the first to the last submit time. It is ``inf`` when every job arrives
    at the same instant, and 0 for a cluster or workload without GPUs."""
    if len(table) == 0:
        return 0.0
    work = float(np.sum(table.workers * table.request[:, 2] * table.duration))
    gpus = float(cluster.capacity_matrix()[:, 2].sum())
    span = float(table.submit_time.max() - table.submit_time.min())
    if work == 0.0 or gpus == 0.0:
        return 0.0
    return work / (gpus * span) if span > 0 else math.inf


def nodes_for_load(table: JobTable, node_gpu: float, target: float) -> int:
    """How many nodes of ``node_gpu`` GPUs give ``table`` an offered GPU load of about ``target``
    (:func:`offered_load`, rounded to whole nodes, at least one): the size of a cluster for a workload
    that brings none."""
    if target <= 0:
        raise ValueError(f"target load must be > 0, not {target}")
    span = float(table.submit_time.max() - table.submit_time.min()) if len(table) else 0.0
    work = float(np.sum(table.workers * table.request[:, 2] * table.duration))
    if node_gpu <= 0 or span <= 0 or work <= 0:
        return 1
    return max(1, round(work / (node_gpu * span * target)))
