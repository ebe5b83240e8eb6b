"""A run's jobs and events as Parquet (``--jobs-out x.parquet``, ``--events-out x.parquet``): the
columns of the CSV files, written a row group at a time.

The values are the CSV's, typed: numbers as float64 or int64 (NaN where the CSV has an empty
cell), texts as strings, and a coded column's empty cell (code -1: a submit's node, a node
event's job) as null. The CSV's formula rule (:mod:`simcore.io.csvsafe`) is for spreadsheets
opening a CSV file and does not apply: a text is stored as it is. A row group holds
:data:`ROWS_PER_GROUP` rows, made from the run's arrays when it is written, so that no second
copy of every row is held (a coded column's texts are taken from its labels a group at a time).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from simcore.core.result import OutputColumn, SimResult

ROWS_PER_GROUP = 1 << 18  # the CSV writer's chunk: a group's arrays take a few MB a column
PARQUET_SUFFIXES = (".parquet", ".pq")


def is_parquet(path: str | Path) -> bool:
    """Whether an output path asks for Parquet (by its extension), not CSV."""
    return Path(path).suffix.lower() in PARQUET_SUFFIXES


def write_run_parquet(result: SimResult, jobs_path: str | Path | None, events_path: str | Path | None) -> None:
    """Write the jobs to `jobs_path` and the events to `events_path` as Parquet (either may be None)."""
    if jobs_path:
        write_parquet_columns(jobs_path, result.job_columns())
    if events_path:
        write_parquet_columns(events_path, result.event_columns())


def write_parquet_columns(path: str | Path, columns: Mapping[str, OutputColumn]) -> None:
    """Write named columns of equal length (arrays, or ``(labels, codes)`` with -1 for none) as a
    Parquet file of row groups of :data:`ROWS_PER_GROUP` rows; a file without rows keeps the schema."""
    lengths = {len(c[1]) if isinstance(c, tuple) else len(c) for c in columns.values()}
    if len(lengths) > 1:
        raise ValueError(f"columns of different lengths: {sorted(lengths)}")
    n = lengths.pop() if lengths else 0
    import pyarrow.parquet as pq  # here: the CLI's start does not pay for it

    labels = {name: pa.array(c[0], pa.string()) for name, c in columns.items() if isinstance(c, tuple)}
    writer: Any = None
    try:
        for lo in range(0, max(n, 1), ROWS_PER_GROUP):
            hi = min(n, lo + ROWS_PER_GROUP)
            group = pa.table({name: _group(c, labels.get(name), lo, hi) for name, c in columns.items()})
            if writer is None:
                writer = pq.ParquetWriter(path, group.schema)
            writer.write_table(group, row_group_size=ROWS_PER_GROUP)
    finally:
        if writer is not None:
            writer.close()


def _group(column: OutputColumn, labels: pa.Array | None, lo: int, hi: int) -> pa.Array:
    """Rows ``lo`` to ``hi`` of one column as an Arrow array."""
    if isinstance(column, tuple):
        assert labels is not None
        codes = np.asarray(column[1][lo:hi], dtype=np.int64)
        return labels.take(pa.array(codes, mask=codes < 0))
    return pa.array(np.asarray(column[lo:hi]))
