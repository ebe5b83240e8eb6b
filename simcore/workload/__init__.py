"""Workload and cluster files: read, validate, adapt; plus the canonical CSV writer.

Workloads come as CSV, JSON records (a list of objects, or JSON Lines) or Parquet with the
columns of DESIGN.md section 6 (``job_id, submit_time, duration, cpu, mem_gb, gpu, job_class``,
optional ``user, name``), or as the Alibaba GPU trace 2023 pod list (see :mod:`simcore.workload.alibaba`).
The format comes from the ``fmt`` argument, else the file extension, else the content.

One concern per module: :mod:`~simcore.workload.problems` (caps, columns, errors, results),
:mod:`~simcore.workload.readers` (bytes to untyped columns), :mod:`~simcore.workload.schema`
(validation), :mod:`~simcore.workload.loader` (workloads), :mod:`~simcore.workload.clusters`
(cluster files) and :mod:`~simcore.workload.writer` (canonical files, offered load).

Validation is declared once, in :data:`JOB_SCHEMA` (pydantic field types with their constraints);
a cross-row rule (unique ``job_id``) is applied after it. Every problem is reported with the
file, the row *as a spreadsheet shows it* (the header is row 1, so the first job is row 2;
JSON records are numbered from 1), the column and the reason. Bad rows either refuse the whole
file (default, :class:`WorkloadError` listing the first problems and the count) or, with
``drop_invalid=True``, are left out and listed exactly in :attr:`LoadedWorkload.dropped`.

Safety: nothing is unpickled or evaluated (CSV/JSON parsers, pyarrow for Parquet, ``yaml`` safe
loading without aliases), and every cap is checked before or while a file is parsed, never after
(docs/workloads.md "Limits"): its size in bytes before it is read (``max_bytes``), its rows while
they are parsed (``max_rows``; Parquet: the row count and uncompressed size its metadata declares,
before any column is read), and a cluster file's pools and nodes before they are built
(``max_pools``, ``max_nodes``). A file over a cap raises :class:`LimitExceeded`.
"""

from simcore.workload.clusters import load_cluster
from simcore.workload.fit import fits_empty_cluster
from simcore.workload.loader import load_workload
from simcore.workload.problems import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_CLUSTER_BYTES,
    DEFAULT_MAX_ROWS,
    FORMATS,
    MAX_LISTED,
    MAX_NODES,
    MAX_POOLS,
    OPTIONAL_COLUMNS,
    REQUIRED_COLUMNS,
    ROW_CONVENTION,
    LimitExceeded,
    LoadedCluster,
    LoadedWorkload,
    Problem,
    RawTable,
    WorkloadError,
)
from simcore.workload.readers import detect_format, read_csv_raw, read_json_raw, read_parquet_raw, read_source
from simcore.workload.schema import JOB_SCHEMA, NODE_SCHEMA, validate_columns
from simcore.workload.writer import format_numbers, nodes_for_load, offered_load, write_cluster_csv, write_workload

__all__ = [
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MAX_CLUSTER_BYTES",
    "DEFAULT_MAX_ROWS",
    "FORMATS",
    "JOB_SCHEMA",
    "MAX_LISTED",
    "MAX_NODES",
    "MAX_POOLS",
    "NODE_SCHEMA",
    "OPTIONAL_COLUMNS",
    "REQUIRED_COLUMNS",
    "ROW_CONVENTION",
    "LimitExceeded",
    "LoadedCluster",
    "LoadedWorkload",
    "Problem",
    "RawTable",
    "WorkloadError",
    "detect_format",
    "fits_empty_cluster",
    "format_numbers",
    "load_cluster",
    "load_workload",
    "nodes_for_load",
    "offered_load",
    "read_csv_raw",
    "read_json_raw",
    "read_parquet_raw",
    "read_source",
    "validate_columns",
    "write_cluster_csv",
    "write_workload",
]
