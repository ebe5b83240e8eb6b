"""Parquet read on the calling thread, from bytes in memory.

Arrow's parallel reads start its global thread pools (a read from a path also its IO pool), and at
interpreter exit those pools can be torn down with a worker still alive: the process aborts after
its work is done, with "terminate called without an active exception" (SIGABRT, apache/arrow#34314),
as the upload-limit test's child once did under load. simcore's Parquet files are small (a workload
under the byte cap, a sweep's or the study's rows), so every read here is single-threaded and starts
no Arrow thread. Writes start none either (Arrow's writer is single-threaded by default).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa


def read_table(data: bytes, columns: Sequence[str] | None = None, dictionary: Sequence[str] = ()) -> pa.Table:
    """The ``columns`` (all when None) of the Parquet file ``data``, text columns named in
    ``dictionary`` kept dictionary-encoded; Arrow's errors pass through."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    return pq.ParquetFile(pa.BufferReader(data), read_dictionary=list(dictionary)).read(
        columns=None if columns is None else list(columns), use_threads=False
    )


def read_frame(path: str | Path) -> pd.DataFrame:
    """The Parquet file at ``path`` as the DataFrame ``pandas.read_parquet`` gives, read unthreaded."""
    return read_table(Path(path).read_bytes()).to_pandas(use_threads=False)
