"""Loading a workload: read the file, validate it (or hand an Alibaba pod list to its adapter),
and build the :class:`~simcore.core.model.JobTable` of the rows kept.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import replace
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
from simcore.workload.readers import READERS, detect_format, read_csv_slices, read_parquet, read_source
from simcore.workload.schema import JOB_SCHEMA, duplicates, refuse_or_drop, validate_columns

#: A workload of more rows than this is validated a slice of this many rows at a time
#: (:func:`_load_by_slices`): a Python object per value of every row took ~0.8 GB per million rows
SLICE_ROWS = 500_000


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
        parquet = read_parquet(data, label, max_rows, max_bytes)
        if parquet.rows > SLICE_ROWS:  # never a pod list or a trace: those are detected from CSV only
            return _load_by_slices(kind, _slices(parquet.rows, parquet.raw), drop_invalid)
        raw = parquet.raw(0, parquet.rows)
    elif kind == "csv":
        slices = read_csv_slices(data, label, max_rows, SLICE_ROWS)
        raw, more = next(slices)
        if more:  # more than a slice of rows: a pod list or a trace is adapted whole
            if fmt == "auto" and (alibaba.is_pod_header(raw.columns) or traces.detect(raw.columns)):
                raw = RawTable.joined([raw, *(part for part, _ in slices)])
            else:
                parts = _handed_on([raw], slices)
                del raw  # held by `parts` alone: let go once validated
                return _load_by_slices(kind, parts, drop_invalid)
    else:
        raw = READERS[kind](data, label, max_rows)
    if kind == "alibaba" or (fmt == "auto" and kind == "csv" and alibaba.is_pod_header(raw.columns)):
        return _load_alibaba(raw, drop_invalid, alibaba_options or alibaba.AlibabaOptions())
    detected = traces.detect(raw.columns) if fmt == "auto" and kind == "csv" else None
    if detected is not None:
        return _load_trace(detected, raw, drop_invalid, trace_options)
    if not len(raw):
        raise WorkloadError(f"{label}: the file has a header but no job rows")
    if len(raw) > SLICE_ROWS:
        return _load_by_slices(kind, _slices(len(raw), raw.rows), drop_invalid)
    notes = _extra_columns(raw)
    parsed, problems = validate_columns(raw, JOB_SCHEMA, REQUIRED_COLUMNS, unique="job_id")
    keep, dropped = refuse_or_drop(raw, problems, drop_invalid, notes)
    table = _table_from_parsed(_kept(parsed, keep))
    return LoadedWorkload(table, kind, notes, dropped, rows=raw.numbers[keep], row_unit=raw.unit)


def _extra_columns(raw: RawTable) -> list[str]:
    """The note naming the columns no schema reads, if any."""
    extra = [c for c in raw.columns if c not in JOB_SCHEMA]
    return [f"{raw.source}: extra columns ignored: {', '.join(repr(c) for c in extra)}"] if extra else []


def _slices(n: int, part: Callable[[int, int], RawTable]) -> Iterator[RawTable]:
    """The ``n`` rows of a table in slices of :data:`SLICE_ROWS` (``part(start, stop)``: those rows)."""
    return (part(start, min(n, start + SLICE_ROWS)) for start in range(0, n, SLICE_ROWS))


def _handed_on(first: list[RawTable], rest: Iterator[tuple[RawTable, bool]]) -> Iterator[RawTable]:
    """The slice in ``first`` (taken out of the list as it is yielded), then the tables of ``rest``."""
    yield first.pop()
    for part, _ in rest:
        yield part


def _load_by_slices(kind: str, parts: Iterable[RawTable], drop_invalid: bool) -> LoadedWorkload:
    """A large workload validated a slice of rows at a time (``parts``, in file order, each
    labelled with its rows' numbers in the file; a reader may parse each slice only when it is
    asked for), each slice's valid rows kept as typed arrays: the same table, notes, row numbers
    and problems as validating the whole file at once (duplicate ids are found over the whole
    file, after the slices)."""
    parts = iter(parts)
    ids: list[np.ndarray] = []  # per slice, the job ids of its valid rows (None elsewhere) ...
    numbers: list[np.ndarray] = []  # ... the file's row numbers of all its rows ...
    rows: list[np.ndarray] = []  # ... the row indices of its valid rows ...
    columns: list[dict[str, np.ndarray]] = []  # ... and their columns
    problems: list[tuple[int, Problem]] = []
    notes: list[str] = []
    start = 0
    for raw in parts:
        if start == 0:  # the file's notes and row labels (not its values: the slice is let go)
            notes, first = _extra_columns(raw), replace(raw, columns={}, problems=[])
        try:
            parsed, found = validate_columns(raw, JOB_SCHEMA, REQUIRED_COLUMNS)
        except WorkloadError:  # a missing column: a read error further on comes first, as when read whole
            for _ in parts:
                pass
            raise
        problems.extend((start + i, p) for i, p in found)
        valid = np.ones(len(raw), dtype=bool)
        valid[[i for i, _ in found]] = False
        kept = _kept(parsed, valid)
        ids.append(np.full(len(raw), None, dtype=object))
        ids[-1][valid] = kept["job_id"]
        numbers.append(raw.numbers)
        rows.append(np.flatnonzero(valid) + start)
        columns.append({c: v.astype(_TYPED.get(c, object)) for c, v in kept.items()})
        start += len(raw)
        del raw, parsed, kept  # before the next slice is read: one slice's values at a time
    whole = replace(first, numbers=np.concatenate(numbers))
    problems.extend(duplicates(np.concatenate(ids).tolist(), whole, "job_id", {i for i, _ in problems}))
    problems.sort(key=lambda p: p[0])
    keep, dropped = refuse_or_drop(whole, problems, drop_invalid, notes)
    chosen = keep[np.concatenate(rows)]
    every = chosen.all()  # no copy of the columns to leave none out
    table = _table_from_parsed(
        {
            c: (v if every else v[chosen])
            for c in list(columns[0])
            for v in [np.concatenate([p.pop(c) for p in columns])]
        }
    )
    return LoadedWorkload(table, kind, notes, dropped, rows=whole.numbers[keep], row_unit=whole.unit)


#: the columns held as numbers between the slices (their values are validated numbers)
_TYPED: dict[str, type] = {"submit_time": float, "duration": float, "workers": np.int64, **dict.fromkeys(DIMS, float)}


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
