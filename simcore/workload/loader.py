"""Loading a workload: read the file, validate it (or hand an Alibaba pod list to its adapter),
and build the :class:`~simcore.core.model.JobTable` of the rows kept.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from simcore.core.model import DIMS, JobTable
from simcore.workload import alibaba, traces
from simcore.workload.problems import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_ROWS,
    FORMATS,
    OPTIONAL_COLUMNS,
    REQUIRED_COLUMNS,
    LoadedWorkload,
    Problem,
    RawTable,
    WorkloadError,
)
from simcore.workload.readers import READERS, detect_format, read_parquet_raw, read_source
from simcore.workload.schema import JOB_SCHEMA, refuse_or_drop, validate_columns


def load_workload(
    source: str | Path | bytes,
    *,
    name: str | None = None,
    fmt: str = "auto",
    drop_invalid: bool = False,
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_rows: int = DEFAULT_MAX_ROWS,
    alibaba_options: alibaba.AlibabaOptions | None = None,
    trace_options: traces.TraceOptions | None = None,
) -> LoadedWorkload:
    """Read and validate a workload file (a path, or uploaded ``bytes`` with its ``name``).

    ``fmt`` is ``auto`` (extension, then content; an Alibaba pod-list header or a gang trace's
    exact header selects its adapter), ``csv``, ``json``, ``parquet``, ``alibaba`` or a gang
    trace's name (:data:`simcore.workload.traces.TRACE_FORMATS`). A file larger than ``max_bytes``
    (checked before it is read) or with more than ``max_rows`` rows or records (checked while
    it is parsed) raises :class:`LimitExceeded`; other problems :class:`WorkloadError`."""
    if fmt not in FORMATS:
        raise WorkloadError(f"unknown workload format {fmt!r} (known: {', '.join(FORMATS)})")
    data, label = read_source(source, name, max_bytes)
    kind = detect_format(data, label) if fmt == "auto" else fmt
    if kind in traces.TRACE_FORMATS:
        trace = traces.TRACE_FORMATS[kind]
        return _load_trace(trace, traces.read_raw(trace, data, label, max_rows), drop_invalid, trace_options)
    if kind == "parquet":  # the only format whose size once read can differ from its size on disk
        raw = read_parquet_raw(data, label, max_rows, max_bytes)
    else:
        raw = READERS[kind](data, label, max_rows)
    if kind == "alibaba" or (fmt == "auto" and kind == "csv" and alibaba.is_pod_header(raw.columns)):
        return _load_alibaba(raw, drop_invalid, alibaba_options or alibaba.AlibabaOptions())
    detected = traces.detect(raw.columns) if fmt == "auto" and kind == "csv" else None
    if detected is not None:
        return _load_trace(detected, raw, drop_invalid, trace_options)
    if not len(raw):
        raise WorkloadError(f"{label}: the file has a header but no job rows")
    notes: list[str] = []
    extra = [c for c in raw.columns if c not in JOB_SCHEMA]
    if extra:
        notes.append(f"{label}: extra columns ignored: {', '.join(repr(c) for c in extra)}")
    parsed, problems = validate_columns(raw, JOB_SCHEMA, REQUIRED_COLUMNS, unique="job_id")
    keep, dropped = refuse_or_drop(raw, problems, drop_invalid, notes)
    table = _table_from_parsed(_kept(parsed, keep))
    return LoadedWorkload(table, kind, notes, dropped, rows=raw.numbers[keep], row_unit=raw.unit)


def _kept(parsed: Mapping[str, list[Any]], keep: np.ndarray) -> dict[str, np.ndarray]:
    """The parsed columns as object arrays, restricted to the kept rows."""
    out = {}
    for column, values in parsed.items():
        arr = np.empty(len(values), dtype=object)
        arr[:] = values
        out[column] = arr[keep]
    return out


def _table_from_parsed(columns: Mapping[str, np.ndarray]) -> JobTable:
    return JobTable(
        job_id=columns["job_id"],
        submit_time=columns["submit_time"].astype(float),
        duration=columns["duration"].astype(float),
        request=np.column_stack([columns[d].astype(float) for d in DIMS]).reshape(-1, 3),
        is_te=columns["job_class"] == "TE",
        extra={c: columns[c] for c in OPTIONAL_COLUMNS if c in columns},
        workers=columns["workers"].astype(np.int64) if "workers" in columns else None,
    )


def _load_alibaba(raw: RawTable, drop_invalid: bool, options: alibaba.AlibabaOptions) -> LoadedWorkload:
    if not len(raw):
        raise WorkloadError(f"{raw.source}: the file has a header but no pod rows")
    notes: list[str] = []
    parsed, problems = validate_columns(raw, alibaba.POD_SCHEMA, alibaba.POD_COLUMNS, unique="name")
    problems.extend((i, Problem(raw.label(i), col, why)) for i, col, why in alibaba.row_problems(parsed))
    problems.sort(key=lambda p: p[0])
    keep, dropped = refuse_or_drop(raw, problems, drop_invalid, notes)
    conversion = alibaba.convert_pods(_kept(parsed, keep), options)
    notes.extend(f"{raw.source}: {n}" for n in conversion.notes)
    if not len(conversion.table):
        listing = "\n".join(f"  {n}" for n in conversion.notes)
        raise WorkloadError(f"{raw.source}: no pods left after the adapter's filters\n{listing}")
    return LoadedWorkload(conversion.table, "alibaba", notes, dropped, conversion.counts)


def _load_trace(
    trace: traces.TraceFormat, raw: RawTable, drop_invalid: bool, options: traces.TraceOptions | None
) -> LoadedWorkload:
    if not len(raw):
        raise WorkloadError(f"{raw.source}: the file has a header but no job rows")
    notes: list[str] = []
    parsed, problems = validate_columns(raw, trace.schema, trace.required, unique=trace.unique, check_times=False)
    problems.extend((i, Problem(raw.label(i), col, why)) for i, col, why in trace.row_problems(parsed))
    problems.sort(key=lambda p: p[0])
    keep, dropped = refuse_or_drop(raw, problems, drop_invalid, notes)
    conversion = traces.convert(trace, _kept(parsed, keep), options or traces.TraceOptions())
    notes.extend(f"{raw.source}: {n}" for n in conversion.notes)
    if not len(conversion.table):
        listing = "\n".join(f"  {n}" for n in conversion.notes)
        raise WorkloadError(f"{raw.source}: no jobs left after the adapter's filters\n{listing}")
    return LoadedWorkload(conversion.table, trace.name, notes, dropped, conversion.counts)
