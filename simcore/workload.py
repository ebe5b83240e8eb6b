"""Workload and cluster files: read, validate, adapt; plus the canonical CSV writer.

Workloads come as CSV, JSON records (a list of objects, or JSON Lines) or Parquet with the
columns of DESIGN.md section 6 (``job_id, submit_time, duration, cpu, mem_gb, gpu, job_class``,
optional ``user, name``), or as the Alibaba GPU trace 2023 pod list (see :mod:`simcore.alibaba`).
The format comes from the ``fmt`` argument, else the file extension, else the content.

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

from __future__ import annotations

import contextlib
import csv
import gc
import io
import itertools
import json
import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import pandas as pd
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, StringConstraints, TypeAdapter, ValidationError

from simcore import alibaba, jsonstream, parquet_pages
from simcore.csvsafe import escape_cell
from simcore.errors import UserError
from simcore.model import (
    DIMS,
    MAX_RESOURCE,
    MAX_TIME,
    ClusterSpec,
    JobTable,
    Node,
    Resources,
    clock_problems,
    format_limit,
)

#: Canonical columns of a workload file, in the order the writer uses (DESIGN.md section 6).
REQUIRED_COLUMNS: tuple[str, ...] = ("job_id", "submit_time", "duration", *DIMS, "job_class")
OPTIONAL_COLUMNS: tuple[str, ...] = ("user", "name")

DEFAULT_MAX_BYTES = 200_000_000  # 200 MB: far above any real trace here, low enough to refuse a mistake
# Rows parsed from one workload file: 10x the largest preset (mmc, 200,000 jobs); loading 2M rows
# takes about 1.6 GB (1M rows measured: 0.8 GB), so a bigger file is more likely a mistake (--max-rows).
DEFAULT_MAX_ROWS = 2_000_000
MAX_LISTED = 20  # problems listed in an error message; the rest are counted
MAX_NODES = 100_000  # a cluster file asking for more nodes is a mistake, not a cluster to build
MAX_POOLS = 10_000  # entries of a YAML/JSON cluster file; more distinct nodes belong in a node-list CSV
DEFAULT_MAX_CLUSTER_BYTES = 20_000_000  # a cluster file: 100,000 node rows take about 3 MB
FORMATS = ("auto", "csv", "json", "parquet", "alibaba")
ROW_CONVENTION = "rows are numbered as a spreadsheet shows them: the header is row 1, the first job is row 2"


# --- errors and results -----------------------------------------------------------------------


@dataclass(frozen=True)
class Problem:
    """One refused value or row: where (``row`` label such as "row 5", ``column``) and why."""

    row: str
    column: str
    reason: str

    def __str__(self) -> str:
        return f"{self.row}, column {self.column}: {self.reason}" if self.column else f"{self.row}: {self.reason}"


class WorkloadError(UserError):
    """A workload or cluster file that cannot be used; ``problems`` lists what was wrong."""

    def __init__(self, message: str, problems: Sequence[Problem] = ()) -> None:
        super().__init__(message)
        self.problems = tuple(problems)


class LimitExceeded(WorkloadError):
    """A file over one of the loader's caps, refused before or while it was parsed. ``found`` says
    what the file has, ``unit`` (byte, row, node, pool, job) and ``limit`` name the cap; a caller with
    its own caps (the dashboard) words its message from them."""

    NOUNS = {"byte": "size", "row": "row", "node": "node", "pool": "pool", "job": "job"}

    def __init__(self, source: str, found: str, unit: str, limit: int, option: str = "") -> None:
        self.source, self.found, self.unit, self.limit = source, found, unit, limit
        hint = f" (raise it with {option} if the file is right)" if option else ""
        super().__init__(f"{source}: {found}, above the {self.NOUNS[unit]} cap of {self.amount()}{hint}")

    def amount(self) -> str:
        """The cap as messages write it: "10.0 MB (10000000 bytes)", "100,000 rows"."""
        n = self.limit
        return _mb(n) if self.unit == "byte" else f"{n:,} {self.unit}{'s' if n != 1 else ''}"


@dataclass(frozen=True, eq=False)
class LoadedWorkload:
    """A validated workload. ``notes`` say what was adapted, ignored or dropped (show them);
    ``dropped`` lists every row left out by ``drop_invalid`` with its reason."""

    table: JobTable
    fmt: str
    notes: list[str] = field(default_factory=list)
    dropped: tuple[Problem, ...] = ()
    counts: dict[str, int] = field(default_factory=dict)  # the Alibaba adapter's counts, else empty


@dataclass(frozen=True, eq=False)
class LoadedCluster:
    cluster: ClusterSpec
    notes: list[str] = field(default_factory=list)


# --- the schema: one place for every per-value rule -------------------------------------------


def _no_bool(value: Any) -> Any:
    # pydantic would read true/false as 1/0; a boolean where a number belongs is a mistake.
    # (Readers turn JSON/Parquet booleans into text, so the fast all-Rust types below see none.)
    if isinstance(value, bool):
        raise ValueError("true/false is not a number")
    return value


def _blank_to_none(value: Any) -> Any:
    return None if isinstance(value, str) and not value.strip() else value


# Types validated entirely inside pydantic-core (no Python callback per value): 1M rows in ~1 s.
Text = Annotated[str, Field(min_length=1)]
OptionalText = Annotated[str | None, BeforeValidator(_blank_to_none)]
Seconds = Annotated[float, Field(ge=0, le=MAX_TIME, allow_inf_nan=False)]  # float64 is exact up to 2^53 s
Positive = Annotated[float, Field(gt=0, le=MAX_TIME, allow_inf_nan=False)]
Amount = Annotated[float, Field(ge=0, le=MAX_RESOURCE, allow_inf_nan=False)]  # cores, GiB or GPUs
JobClassText = Annotated[str, StringConstraints(strip_whitespace=True, to_upper=True, pattern=r"(?i)^\s*(te|be)\s*$")]

#: Column -> pydantic type with its constraints. The single declaration of the per-value rules.
JOB_SCHEMA: dict[str, Any] = {
    "job_id": Text,  # unique, checked across rows
    "submit_time": Seconds,  # seconds; with duration: see _time_problems
    "duration": Positive,  # seconds of run time when never interrupted
    "cpu": Amount,  # cores
    "mem_gb": Amount,  # GiB
    "gpu": Amount,  # GPUs (fractions allowed)
    "job_class": JobClassText,  # TE or BE, case-insensitive
    "user": OptionalText,
    "name": OptionalText,
}
NODE_SCHEMA: dict[str, Any] = {"name": Text, "cpu": Amount, "mem_gb": Amount, "gpu": Amount}

_CONFIG = ConfigDict(coerce_numbers_to_str=True, str_strip_whitespace=True)


def _adapter(kind: Any) -> TypeAdapter[Any]:
    return TypeAdapter(list[kind], config=_CONFIG)  # type: ignore[valid-type]


# --- raw tables: what a reader gives before validation -----------------------------------------


@dataclass
class RawTable:
    """Columns of untyped values from one file, with the label of every data row."""

    source: str
    columns: dict[str, list[Any]]
    numbers: np.ndarray  # per data row, its number as the user sees it (spreadsheet row, or record)
    problems: list[tuple[int, Problem]] = field(default_factory=list)  # rows refused while reading
    row_convention: str = ROW_CONVENTION
    unit: str = "row"

    def __len__(self) -> int:
        return len(self.numbers)

    def label(self, i: int) -> str:
        """How data row ``i`` (0-based) is named in messages: "row 5", "record 3"."""
        return f"{self.unit} {self.numbers[i]}"


def _decode(data: bytes, source: str, start: int = 0, end: int | None = None) -> str:
    """``data[start:end]`` as text (a UTF-8 BOM at the start of the file is skipped); a bad byte
    is named by its row and its offset in the file."""
    if start == 0 and data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise WorkloadError(f"{source}: the file is UTF-16 encoded; save it as UTF-8")
    if start == 0 and data.startswith(b"\xef\xbb\xbf"):
        start = 3
    try:
        return str(memoryview(data)[start:end], "utf-8")
    except UnicodeDecodeError as exc:
        offset = start + exc.start
        row = data.count(b"\n", 0, offset) + 1
        byte = data[offset : offset + 1].hex()
        raise WorkloadError(
            f"{source}: row {row}: byte 0x{byte} (offset {offset}) is not valid UTF-8; save the file as UTF-8"
        ) from None


_PIECE = 1 << 20  # bytes decoded at a time by _text_lines
_BATCH = 1 << 13  # CSV records parsed at a time: the row cap is checked after each batch


def _text_lines(data: bytes, source: str) -> Iterator[str]:
    """The lines of a text file, decoded one piece of about 1 MB at a time (cut after a newline,
    so never inside a character): a reader stopped by a cap has decoded little of a large file."""
    start = 0
    while start < len(data):
        cut = data.find(b"\n", start + _PIECE)
        end = len(data) if cut < 0 else cut + 1
        yield from io.StringIO(_decode(data, source, start, end), newline="")
        start = end


def read_csv_raw(data: bytes, source: str, max_rows: int = DEFAULT_MAX_ROWS) -> RawTable:
    """Split a CSV file into columns of strings; rows with the wrong number of values are refused.
    Blank lines are skipped but keep their row number, as a spreadsheet shows them. Parsing stops
    with :class:`LimitExceeded` as soon as the file has more than ``max_rows`` data rows."""
    reader = csv.reader(_text_lines(data, source))
    header: list[str] | None = None
    columns: list[list[str]] = []
    numbers: list[int] = []  # the spreadsheet row of every data row
    problems: list[tuple[int, Problem]] = []
    seen = 0  # records read before the current batch (record k is row k + 1)
    try:
        with _gc_paused():
            while batch := list(itertools.islice(reader, _BATCH)):
                filled = [k for k, r in enumerate(batch) if len(r) > 1 or (r and r[0].strip())]
                if header is None and filled:
                    header = _header(batch[filled[0]], seen + filled[0] + 1, source)
                    columns = [[] for _ in header]
                    filled = filled[1:]
                if len(numbers) + len(filled) > max_rows:
                    raise LimitExceeded(source, f"{max_rows + 1:,} rows or more", "row", max_rows, "--max-rows")
                width = len(columns)
                rows: list[list[str]] = []
                for k in filled:
                    row = batch[k]
                    if len(row) != width:
                        why = f"has {len(row)} values but the header has {width} columns"
                        problems.append((len(numbers) + len(rows), Problem(f"row {seen + k + 1}", "", why)))
                        row = [""] * width  # placeholder; the row is refused whatever it holds
                    rows.append(row)
                numbers.extend(seen + k + 1 for k in filled)
                if rows:
                    for column, values in zip(columns, zip(*rows, strict=True), strict=True):
                        column.extend(values)
                seen += len(batch)
    except csv.Error as exc:
        raise WorkloadError(f"{source}: line {reader.line_num}: not readable as CSV ({exc})") from None
    if header is None:
        raise WorkloadError(f"{source}: the file is empty")
    return RawTable(source, dict(zip(header, columns, strict=True)), np.asarray(numbers, dtype=np.int64), problems)


@contextlib.contextmanager
def _gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while millions of small lists are built: they hold
    no cycles, and the collector's repeated scans would otherwise make parsing ~5x slower."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _header(fields: list[str], record: int, source: str) -> list[str]:
    names = [f.strip().lower() for f in fields]
    if len(names) == 1:
        for sep, sep_name in ((";", "semicolons (;)"), ("\t", "tabs"), ("|", "bars (|)")):
            if sep in names[0]:
                raise WorkloadError(
                    f"{source}: row {record} (the header) is separated by {sep_name}, not commas; "
                    "save the file as comma-separated CSV"
                )
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise WorkloadError(f"{source}: row {record} (the header): column {name!r} appears twice")
        seen.add(name)
    return names


def read_json_raw(data: bytes, source: str, max_rows: int = DEFAULT_MAX_ROWS) -> RawTable:
    """A list of job objects (``[{...}, ...]``, or ``{"jobs": [...]}``), or JSON Lines. The job
    list is parsed one record at a time and stops with :class:`LimitExceeded` past ``max_rows``."""
    text = _decode(data, source)
    if not text.strip():
        raise WorkloadError(f"{source}: the file is empty")
    try:
        doc, more = jsonstream.first_value(text, max_rows)
        if more:
            doc = _json_lines(text, source, max_rows)
    except jsonstream.TooManyItems:
        raise LimitExceeded(source, f"{max_rows + 1:,} records or more", "row", max_rows, "--max-rows") from None
    except WorkloadError:  # a UserError, hence a ValueError: not a parse error
        raise
    except json.JSONDecodeError as exc:
        raise WorkloadError(f"{source}: not valid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}") from None
    except (RecursionError, ValueError) as exc:
        raise WorkloadError(
            f"{source}: not usable JSON ({type(exc).__name__}: nested too deeply or a number too long)"
        ) from None
    if isinstance(doc, dict) and isinstance(doc.get("jobs"), list):
        doc = doc["jobs"]
    if not isinstance(doc, list):
        raise WorkloadError(f"{source}: expected a list of job records (JSON objects), got a JSON {type(doc).__name__}")
    if not doc:
        raise WorkloadError(f"{source}: the file holds no job records")
    names: dict[str, None] = {}
    problems: list[tuple[int, Problem]] = []
    for i, rec in enumerate(doc):
        if isinstance(rec, dict):
            names.update(dict.fromkeys(str(k).strip().lower() for k in rec))
        else:
            problems.append((i, Problem(f"record {i + 1}", "", f"is a JSON {type(rec).__name__}, not an object")))
    records = [{str(k).strip().lower(): v for k, v in rec.items()} if isinstance(rec, dict) else {} for rec in doc]
    columns = {name: _bools_as_text([rec.get(name) for rec in records]) for name in names}
    if not names:
        raise WorkloadError(
            f'{source}: expected job records as JSON objects ({{"job_id": ..., ...}}); none of the {len(doc)} items is one'
        )
    return RawTable(source, columns, np.arange(1, len(doc) + 1), problems, "JSON records are numbered from 1", "record")


def _bools_as_text(values: list[Any]) -> list[Any]:
    """JSON/Parquet booleans become "true"/"false", refused as numbers and kept as names."""
    return [("true" if v else "false") if isinstance(v, bool) else v for v in values]


def _json_lines(text: str, source: str, max_rows: int) -> list[Any]:
    out: list[Any] = []
    for lineno, line in enumerate(io.StringIO(text, newline=None), start=1):
        if line.strip():
            if len(out) == max_rows:
                raise jsonstream.TooManyItems
            try:
                out.append(json.loads(line))
            except (json.JSONDecodeError, RecursionError, ValueError):
                raise WorkloadError(
                    f"{source}: line {lineno} is not valid JSON (JSON Lines: one object per line)"
                ) from None
    return out


#: Columns a Parquet reader materialises: those some schema reads. Others are only named.
_READ_COLUMNS = frozenset(JOB_SCHEMA) | frozenset(alibaba.POD_SCHEMA)


def read_parquet_raw(
    data: bytes, source: str, max_rows: int = DEFAULT_MAX_ROWS, max_bytes: int = DEFAULT_MAX_BYTES
) -> RawTable:
    """The columns of a Parquet file that a schema reads (the others are named, not read). Its
    metadata is checked before any column is read: the rows it declares against ``max_rows``, the uncompressed size of those
    columns against ``max_bytes``, and their types (nested values are refused). Text columns are
    read as dictionaries and refused when they would expand past ``max_bytes`` of text."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        meta = pq.ParquetFile(pa.BufferReader(data)).metadata
        schema = meta.schema.to_arrow_schema()
    except (pa.ArrowException, OSError, ValueError) as exc:
        raise WorkloadError(f"{source}: not a readable Parquet file ({exc})") from None
    if meta.num_rows > max_rows:
        raise LimitExceeded(source, f"the file declares {meta.num_rows:,} rows", "row", max_rows, "--max-rows")
    keys = [str(name).strip().lower() for name in schema.names]
    for i, key in enumerate(keys):
        if key in keys[:i]:
            raise WorkloadError(f"{source}: column {key!r} appears twice")
    wanted = {name: key for name, key in zip(schema.names, keys, strict=True) if key in _READ_COLUMNS}
    for name, key in wanted.items():
        kind = schema.field(name).type
        if pa.types.is_nested(kind):
            raise WorkloadError(f"{source}: column {key!r} holds nested values ({kind}); expected numbers or text")
    if meta.num_rows == 0:
        raise WorkloadError(f"{source}: the file has columns but no job rows")
    chunks = [  # (row group rows, column chunk) of the columns to read; an empty group is not read
        (meta.row_group(g).num_rows, chunk)
        for g in range(meta.num_row_groups)
        if meta.row_group(g).num_rows > 0
        for chunk in (meta.row_group(g).column(j) for j in range(meta.num_columns))
        if chunk.path_in_schema.split(".")[0] in wanted
    ]
    declared = sum(chunk.total_uncompressed_size for _, chunk in chunks)
    if declared > max_bytes:
        raise LimitExceeded(source, f"the file declares {_mb(declared)} of uncompressed data", "byte", max_bytes)
    try:  # what the pages themselves declare, which a forged footer can understate
        paged = sum(parquet_pages.uncompressed_size(data, *_chunk_span(chunk), rows + 2) for rows, chunk in chunks)
    except parquet_pages.BadPage as exc:
        raise WorkloadError(f"{source}: not a readable Parquet file ({exc})") from None
    if paged > max_bytes:
        raise LimitExceeded(source, f"its pages declare {_mb(paged)} of uncompressed data", "byte", max_bytes)
    try:
        table = pq.ParquetFile(pa.BufferReader(data), read_dictionary=list(wanted)).read(columns=list(wanted))
    except (pa.ArrowException, OSError, ValueError) as exc:
        raise WorkloadError(f"{source}: not a readable Parquet file ({exc})") from None
    expanded = sum(_text_bytes(chunk) for col in table.columns for chunk in col.chunks)
    if expanded > max_bytes:
        raise LimitExceeded(source, f"its text columns expand to {_mb(expanded)}", "byte", max_bytes)
    columns: dict[str, list[Any]] = {}
    for name, col in zip(table.column_names, table.columns, strict=True):
        try:
            columns[wanted[name]] = _bools_as_text(col.to_pylist())
        except (pa.ArrowException, ValueError, OverflowError) as exc:
            raise WorkloadError(f"{source}: column {wanted[name]!r} cannot be read ({exc})") from None
    every = {key: columns.get(key, []) for key in keys}  # a column no schema reads: its name, no values
    return RawTable(source, every, np.arange(2, meta.num_rows + 2))


def _chunk_span(chunk: Any) -> tuple[int, int]:
    """Where a column chunk's pages start (its dictionary page, if any, comes first, as Arrow
    reads it) and how many bytes they take."""
    start = chunk.data_page_offset
    if chunk.has_dictionary_page and 0 < chunk.dictionary_page_offset < start:
        start = chunk.dictionary_page_offset
    return start, chunk.total_compressed_size


def _text_bytes(chunk: Any) -> int:
    """Bytes of text a dictionary-encoded chunk holds once every row has its own copy (a short
    file can repeat one long value millions of times); 0 for other chunks."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if not pa.types.is_dictionary(chunk.type):
        return 0
    if chunk.dictionary.type not in (pa.string(), pa.large_string(), pa.binary(), pa.large_binary()):
        return 0
    return int(pc.sum(pc.binary_length(chunk.dictionary).take(chunk.indices)).as_py() or 0)


# --- validation --------------------------------------------------------------------------------


def _reason(err: Mapping[str, Any], column: str) -> str:
    """A short reason in words, with the offending value."""
    value = err.get("input")
    shown = repr(value) if not isinstance(value, str) or len(value) <= 40 else repr(value[:37] + "...")
    kind = err["type"]
    ctx = err.get("ctx") or {}
    if value is None or kind == "missing":
        return "missing value"
    if kind in ("float_parsing", "float_type") and isinstance(value, str) and not value.strip():
        return "empty (a number is required)"
    if kind in ("float_parsing", "float_type"):
        return f"not a number: {shown}"
    if kind == "finite_number" or (kind.startswith(("greater_than", "less_than")) and _not_finite(value)):
        return f"must be a finite number (got {shown})"
    if kind == "greater_than":
        return f"must be > {ctx['gt']:g} (got {shown})"
    if kind == "greater_than_equal":
        return f"must be >= {ctx['ge']:g} (got {shown})"
    if kind == "less_than_equal" and ctx["le"] == MAX_TIME:
        return f"must be at most 2^53 s = {MAX_TIME:.0f}, where float64 times stop being exact (got {shown})"
    if kind == "less_than_equal":
        return f"must be <= {format_limit(ctx['le'])} (got {shown})"
    if kind == "string_pattern_mismatch" and column == "job_class":
        return f"must be TE or BE, case-insensitive (got {shown})"
    if kind == "string_too_short":
        return "empty (a non-empty text is required)"
    if kind == "value_error":
        return str(ctx.get("error", err["msg"]))
    return f"{err['msg']} (got {shown})"


def _not_finite(value: Any) -> bool:
    """NaN fails a bound check before the finiteness check; name the real problem."""
    try:
        return not math.isfinite(float(value))
    except (TypeError, ValueError, OverflowError):
        return False


def validate_columns(
    raw: RawTable, schema: Mapping[str, Any], required: Sequence[str], unique: str | None = None
) -> tuple[dict[str, list[Any]], list[tuple[int, Problem]]]:
    """Check ``raw`` against ``schema``: the parsed columns (bad values as None) and the problems
    as (row index, Problem), in row order. Missing required columns raise :class:`WorkloadError`."""
    missing = [c for c in required if c not in raw.columns]
    if missing:
        found = ", ".join(c for c in raw.columns) or "none"
        hint = ""
        if alibaba.is_pod_header(raw.columns) or alibaba.is_node_header(raw.columns):
            hint = " (this looks like the Alibaba GPU trace: use --format alibaba, or --cluster-trace for a node list)"
        raise WorkloadError(
            f"{raw.source}: missing required column(s) {', '.join(missing)}; columns found: {found}{hint}"
        )
    problems = list(raw.problems)
    unreadable = {i for i, _ in raw.problems}  # rows refused as a whole: their values are not checked
    parsed: dict[str, list[Any]] = {}
    for column, kind in schema.items():
        if column not in raw.columns:
            continue
        values = raw.columns[column]
        try:
            parsed[column] = _adapter(kind).validate_python(values)
        except ValidationError as exc:
            out: list[Any] = [None] * len(values)
            bad: set[int] = set()
            for err in exc.errors():
                i = err["loc"][0]
                assert isinstance(i, int)
                bad.add(i)
                if i not in unreadable:
                    problems.append((i, Problem(raw.label(i), column, _reason(err, column))))
            good = [i for i in range(len(values)) if i not in bad]
            ok = _adapter(kind).validate_python([values[i] for i in good])
            for i, v in zip(good, ok, strict=True):
                out[i] = v
            parsed[column] = out
    if "submit_time" in parsed and "duration" in parsed:
        problems.extend(_time_problems(parsed["submit_time"], parsed["duration"], raw))
    if unique is not None:
        problems.extend(_duplicates(parsed[unique], raw, unique, {i for i, _ in problems}))
    problems.sort(key=lambda p: p[0])
    return parsed, problems


def _time_problems(submit_values: list[Any], duration_values: list[Any], raw: RawTable) -> list[tuple[int, Problem]]:
    """The rows :func:`~simcore.model.clock_problems` refuses: times float64 cannot hold.
    Rows with a refused value (None, so NaN here) are not checked again."""
    submit = np.array(submit_values, dtype=float)
    duration = np.array(duration_values, dtype=float)
    beyond, unseen = clock_problems(submit, duration)
    out = []
    for i in np.flatnonzero(beyond | unseen):
        if beyond[i]:
            why = (
                f"submit_time + duration = {submit[i] + duration[i]:.17g} s reaches 2^53 s = {MAX_TIME:.0f}, "
                "where float64 times stop being exact"
            )
        else:
            clock = max(submit[i], 1.0)
            why = (
                f"duration {float(duration[i])!r} s is below the clock's resolution at this submit time "
                f"(submit_time + duration == submit_time in float64; the resolution at {clock:g} s"
                f"{', used below 1 s,' if submit[i] < 1 else ''} is {np.spacing(clock):.3g} s)"
            )
        out.append((int(i), Problem(raw.label(int(i)), "duration", why)))
    return out


def _duplicates(values: list[Any], raw: RawTable, column: str, bad: set[int]) -> list[tuple[int, Problem]]:
    """Later occurrences of a value already seen (on a row not refused for other reasons)."""
    series = pd.Series(values, dtype=object)
    usable = series.notna().to_numpy() & ~np.isin(np.arange(len(values)), list(bad))
    dup = np.zeros(len(values), dtype=bool)
    dup[usable] = series[usable].duplicated(keep="first").to_numpy()
    if not dup.any():
        return []
    first: dict[Any, int] = {}
    out = []
    for i in np.flatnonzero(usable):
        v = values[i]
        if dup[i]:
            out.append(
                (int(i), Problem(raw.label(int(i)), column, f"duplicate {column} {v!r} (first at {raw.label(first[v])})"))
            )
        else:
            first.setdefault(v, int(i))
    return out


def _refuse_or_drop(
    raw: RawTable, problems: list[tuple[int, Problem]], drop_invalid: bool, notes: list[str]
) -> tuple[np.ndarray, tuple[Problem, ...]]:
    """The mask of rows to keep, or :class:`WorkloadError` when rows are bad and not droppable."""
    n = len(raw)
    keep = np.ones(n, dtype=bool)
    keep[[i for i, _ in problems]] = False
    bad_rows = int(n - keep.sum())
    listed = [p for _, p in problems]
    if bad_rows and not drop_invalid:
        raise WorkloadError(
            f"{raw.source}: refused: {bad_rows} of {n} {raw.unit}s are invalid ({raw.row_convention}); nothing was simulated. "
            "Fix them, or drop invalid rows (--drop-invalid) to use only the valid ones.\n" + _listing(listed),
            listed,
        )
    if bad_rows and keep.sum() == 0:
        raise WorkloadError(
            f"{raw.source}: all {n} {raw.unit}s are invalid; nothing left to simulate.\n" + _listing(listed), listed
        )
    if bad_rows:
        notes.append(
            f"{raw.source}: dropped {bad_rows} invalid {raw.unit}s of {n} ({raw.row_convention}):\n" + _listing(listed)
        )
    return keep, tuple(listed)


def _listing(problems: Sequence[Problem]) -> str:
    lines = [f"  {p}" for p in problems[:MAX_LISTED]]
    if len(problems) > MAX_LISTED:
        lines.append(f"  ... and {len(problems) - MAX_LISTED} more problems")
    return "\n".join(lines)


# --- loading workloads ------------------------------------------------------------------------


def read_source(source: str | Path | bytes, name: str | None, max_bytes: int) -> tuple[bytes, str]:
    """The bytes of a file (or uploaded bytes) and its display name, after the size cap."""
    if isinstance(source, bytes | bytearray):
        label = name or "uploaded file"
        size = len(source)
        data: bytes | None = bytes(source)
    else:
        path = Path(source)
        label = name or str(path)
        try:
            size = path.stat().st_size
        except OSError as exc:
            raise WorkloadError(f"{label}: cannot read the file ({exc.strerror or exc})") from None
        if path.is_dir():
            raise WorkloadError(f"{label}: is a directory, not a file")
        data = None
    if size > max_bytes:
        raise LimitExceeded(label, f"the file is {_mb(size)}", "byte", max_bytes, "--max-bytes")
    if data is None:
        try:
            data = Path(source).read_bytes()  # type: ignore[arg-type]
        except OSError as exc:
            raise WorkloadError(f"{label}: cannot read the file ({exc.strerror or exc})") from None
    return data, label


def _mb(n: int) -> str:
    return f"{n / 1e6:.1f} MB ({n} bytes)"


def detect_format(data: bytes, name: str) -> str:
    """``parquet``, ``json`` or ``csv`` from the extension, else from the first bytes."""
    suffix = Path(name).suffix.lower()
    by_ext = {".csv": "csv", ".txt": "csv", ".json": "json", ".jsonl": "json", ".parquet": "parquet", ".pq": "parquet"}
    if suffix in by_ext:
        return by_ext[suffix]
    if data.startswith(b"PAR1"):
        return "parquet"
    if data.lstrip(b"\xef\xbb\xbf \t\r\n")[:1] in (b"[", b"{"):
        return "json"
    return "csv"


_READERS: dict[str, Callable[[bytes, str, int], RawTable]] = {
    "csv": read_csv_raw,
    "json": read_json_raw,
    "alibaba": read_csv_raw,
}


def load_workload(
    source: str | Path | bytes,
    *,
    name: str | None = None,
    fmt: str = "auto",
    drop_invalid: bool = False,
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_rows: int = DEFAULT_MAX_ROWS,
    alibaba_options: alibaba.AlibabaOptions | None = None,
) -> LoadedWorkload:
    """Read and validate a workload file (a path, or uploaded ``bytes`` with its ``name``).

    ``fmt`` is ``auto`` (extension, then content; an Alibaba pod-list header selects the
    adapter), ``csv``, ``json``, ``parquet`` or ``alibaba``. A file larger than ``max_bytes``
    (checked before it is read) or with more than ``max_rows`` rows or records (checked while
    it is parsed) raises :class:`LimitExceeded`; other problems :class:`WorkloadError`."""
    if fmt not in FORMATS:
        raise WorkloadError(f"unknown workload format {fmt!r} (known: {', '.join(FORMATS)})")
    data, label = read_source(source, name, max_bytes)
    kind = detect_format(data, label) if fmt == "auto" else fmt
    if kind == "parquet":  # the only format whose size once read can differ from its size on disk
        raw = read_parquet_raw(data, label, max_rows, max_bytes)
    else:
        raw = _READERS[kind](data, label, max_rows)
    if kind == "alibaba" or (fmt == "auto" and kind == "csv" and alibaba.is_pod_header(raw.columns)):
        return _load_alibaba(raw, drop_invalid, alibaba_options or alibaba.AlibabaOptions())
    if not len(raw):
        raise WorkloadError(f"{label}: the file has a header but no job rows")
    notes: list[str] = []
    extra = [c for c in raw.columns if c not in JOB_SCHEMA]
    if extra:
        notes.append(f"{label}: extra columns ignored: {', '.join(repr(c) for c in extra)}")
    parsed, problems = validate_columns(raw, JOB_SCHEMA, REQUIRED_COLUMNS, unique="job_id")
    keep, dropped = _refuse_or_drop(raw, problems, drop_invalid, notes)
    return LoadedWorkload(_table_from_parsed(_kept(parsed, keep)), kind, notes, dropped)


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
    )


def _load_alibaba(raw: RawTable, drop_invalid: bool, options: alibaba.AlibabaOptions) -> LoadedWorkload:
    if not len(raw):
        raise WorkloadError(f"{raw.source}: the file has a header but no pod rows")
    notes: list[str] = []
    parsed, problems = validate_columns(raw, alibaba.POD_SCHEMA, alibaba.POD_COLUMNS, unique="name")
    problems.extend((i, Problem(raw.label(i), col, why)) for i, col, why in alibaba.row_problems(parsed))
    problems.sort(key=lambda p: p[0])
    keep, dropped = _refuse_or_drop(raw, problems, drop_invalid, notes)
    conversion = alibaba.convert_pods(_kept(parsed, keep), options)
    notes.extend(f"{raw.source}: {n}" for n in conversion.notes)
    if not len(conversion.table):
        listing = "\n".join(f"  {n}" for n in conversion.notes)
        raise WorkloadError(f"{raw.source}: no pods left after the adapter's filters\n{listing}")
    return LoadedWorkload(conversion.table, "alibaba", notes, dropped, conversion.counts)


# --- clusters ----------------------------------------------------------------------------------


class _Pool(BaseModel):
    """One pool of identical nodes in a cluster file."""

    model_config = ConfigDict(extra="forbid", coerce_numbers_to_str=True)
    count: Annotated[int, BeforeValidator(_no_bool), Field(ge=1)] = 1  # the node cap is checked on the sum
    cpu: Annotated[Amount, BeforeValidator(_no_bool)]
    mem_gb: Annotated[Amount, BeforeValidator(_no_bool)]
    gpu: Annotated[Amount, BeforeValidator(_no_bool)]
    name: Text | None = None


class _ClusterFile(BaseModel):
    model_config = ConfigDict(extra="forbid")
    nodes: Annotated[list[_Pool], Field(min_length=1)]


_YAML_VALUES_PER_POOL = 16  # a pool is a mapping of at most 5 keys: 11 YAML values
_YAML_MAX_DEPTH = 8  # a cluster file nests 3 deep (mapping, nodes list, pool)


def _safe_yaml(text: str, label: str, max_pools: int) -> Any:
    """YAML (hence also JSON) through yaml's safe loader, after a pass over its parse events
    that refuses aliases (an alias bomb would expand without bound), a list or mapping of more
    than ``max_pools`` entries, more values than that many pools hold, and deep nesting: a file
    too big for a cluster is refused while it is scanned, before anything is built."""
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when present: about 10x faster
    # Per open list or mapping: its entries so far and the most it may have (a mapping's entries
    # are its keys and values, hence twice as many).
    open_sizes: list[list[int]] = []
    values = 0
    for event in yaml.parse(text, Loader=loader):
        if isinstance(event, yaml.AliasEvent):
            raise yaml.YAMLError("anchors and aliases (*name) are not allowed in cluster files")
        if isinstance(event, yaml.CollectionEndEvent):
            open_sizes.pop()
            continue
        if not isinstance(event, yaml.NodeEvent):
            continue
        values += 1
        if open_sizes:
            open_sizes[-1][0] += 1
            if open_sizes[-1][0] > open_sizes[-1][1] or values > _YAML_VALUES_PER_POOL * max_pools + 64:
                raise LimitExceeded(label, f"{max_pools + 1:,} pools (entries) or more", "pool", max_pools)
        if isinstance(event, yaml.CollectionStartEvent):
            if len(open_sizes) == _YAML_MAX_DEPTH:
                raise WorkloadError(f"{label}: values nested more than {_YAML_MAX_DEPTH} deep; not a cluster file")
            open_sizes.append([0, 2 * max_pools if isinstance(event, yaml.MappingStartEvent) else max_pools])
    return yaml.load(text, Loader=loader)  # noqa: S506 - a safe loader, and the scan refused aliases


def load_cluster(
    source: str | Path | bytes,
    *,
    name: str | None = None,
    max_bytes: int = DEFAULT_MAX_CLUSTER_BYTES,
    max_nodes: int = MAX_NODES,
    max_pools: int = MAX_POOLS,
    gpu_nodes_only: bool = False,
    first_n: int | None = None,
    gpu_per_node: float | None = None,
) -> LoadedCluster:
    """A cluster from a YAML/JSON pool file, a node-list CSV (``name, cpu, mem_gb, gpu``) or the
    Alibaba node list (detected from its header; ``gpu_nodes_only``, ``gpu_per_node`` and
    ``first_n`` filter it, in that order). Caps, each checked before the nodes are built:
    ``max_bytes`` (before the file is read), ``max_pools`` entries of a pool file (while it is
    parsed), ``max_nodes`` (a pool file's total count; a node list's rows, while they are
    parsed). Raises :class:`LimitExceeded` or :class:`WorkloadError`."""
    data, label = read_source(source, name, max_bytes)
    suffix = Path(label).suffix.lower()
    if suffix in (".yaml", ".yml", ".json") or data.lstrip(b"\xef\xbb\xbf \t\r\n")[:1] in (b"{", b"["):
        return LoadedCluster(_cluster_from_pools(data, label, max_nodes, max_pools))
    try:
        raw = read_csv_raw(data, label, max_rows=max_nodes)
    except LimitExceeded:
        raise LimitExceeded(label, f"{max_nodes + 1:,} node rows or more", "node", max_nodes) from None
    if alibaba.is_node_header(raw.columns):
        parsed, problems = validate_columns(raw, alibaba.NODE_SCHEMA, alibaba.NODE_COLUMNS, unique="sn")
        _refuse_or_drop(raw, problems, False, [])
        try:
            cluster, notes = alibaba.nodes_to_cluster(parsed, gpu_nodes_only, first_n, gpu_per_node)
        except UserError as exc:
            raise WorkloadError(f"{label}: {exc}") from None
        return LoadedCluster(cluster, [f"{label}: {n}" for n in notes])
    if not len(raw):
        raise WorkloadError(f"{label}: the file has a header but no node rows")
    parsed, problems = validate_columns(raw, NODE_SCHEMA, tuple(NODE_SCHEMA), unique="name")
    _refuse_or_drop(raw, problems, False, [])
    nodes = tuple(
        Node(str(n), Resources(float(c), float(m), float(g)))
        for n, c, m, g in zip(parsed["name"], parsed["cpu"], parsed["mem_gb"], parsed["gpu"], strict=True)
    )
    extra = [c for c in raw.columns if c not in NODE_SCHEMA]
    return LoadedCluster(ClusterSpec(nodes), [f"{label}: extra columns ignored: {', '.join(extra)}"] if extra else [])


def _cluster_from_pools(data: bytes, label: str, max_nodes: int, max_pools: int) -> ClusterSpec:
    text = _decode(data, label)
    try:
        doc = _safe_yaml(text, label, max_pools)
    except WorkloadError:
        raise
    except Exception as exc:  # yaml raises many error types; all mean "not a readable file"
        raise WorkloadError(
            f"{label}: not readable as YAML/JSON ({str(exc).splitlines()[0] if str(exc) else type(exc).__name__})"
        ) from None
    if not isinstance(doc, dict) or "nodes" not in doc:
        raise WorkloadError(
            f"{label}: expected a mapping with a 'nodes' list, e.g. nodes: [{{count: 4, cpu: 64, mem_gb: 512, gpu: 8}}]"
        )
    try:
        spec = _ClusterFile.model_validate(doc)
    except ValidationError as exc:
        lines = []
        for err in exc.errors()[:MAX_LISTED]:
            loc = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in err["loc"]).lstrip(".")
            reason = "unknown key" if err["type"] == "extra_forbidden" else _reason(err, str(err["loc"][-1]))
            lines.append(f"  {loc}: {reason}")
        raise WorkloadError(f"{label}: invalid cluster file:\n" + "\n".join(lines)) from None
    total = sum(p.count for p in spec.nodes)  # before any node is built
    if total > max_nodes:
        big = [f"nodes[{i}].count is {p.count:,}" for i, p in enumerate(spec.nodes) if p.count > max_nodes]
        raise LimitExceeded(label, big[0] if big else f"the pools add up to {total:,} nodes", "node", max_nodes)
    try:
        return ClusterSpec.from_pools([p.model_dump() for p in spec.nodes])
    except ValueError as exc:
        raise WorkloadError(f"{label}: {exc} (pool names must differ)") from None


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
    """Write the canonical CSV (UTF-8, ``\\n`` line ends, minimal quoting, numbers through
    :func:`format_numbers`): the same table always gives the same bytes. Text that a
    spreadsheet would run as a formula is escaped (:mod:`simcore.csvsafe`)."""
    columns: dict[str, list[str]] = {
        "job_id": [escape_cell(str(v)) for v in table.job_id],
        "submit_time": format_numbers(table.submit_time),
        "duration": format_numbers(table.duration),
        **{dim: format_numbers(table.request[:, i]) for i, dim in enumerate(DIMS)},
        "job_class": np.where(table.is_te, "TE", "BE").tolist(),
    }
    for col in OPTIONAL_COLUMNS:
        if col in table.extra:
            columns[col] = [escape_cell(_text_or_empty(v)) for v in table.extra[col]]
    with open(path, "w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        # minimal quoting does not quote a carriage return when the line end is "\n", and a bare
        # CR inside a text would split the row on reading: such rows are written fully quoted
        quoted = csv.writer(fh, lineterminator="\n", quoting=csv.QUOTE_ALL)
        writer.writerow(columns)
        rows = zip(*columns.values(), strict=True)
        if not any("\r" in cell for col in ("job_id", *OPTIONAL_COLUMNS) for cell in columns.get(col, ())):
            writer.writerows(rows)
        for row in rows:  # only when some text holds a CR (otherwise writerows used them all)
            (quoted if any("\r" in cell for cell in row) else writer).writerow(row)


def _text_or_empty(value: object) -> str:
    missing = value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NA
    return "" if missing else str(value)


def write_cluster_csv(cluster: ClusterSpec, path: str | Path) -> None:
    """Write a cluster as a node-list CSV (``name, cpu, mem_gb, gpu``), which keeps node names
    (escaped like every text cell, :mod:`simcore.csvsafe`)."""
    caps = cluster.capacity_matrix()
    with open(path, "w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(NODE_SCHEMA)
        names = [escape_cell(n) for n in cluster.names]
        writer.writerows(zip(names, *(format_numbers(caps[:, i]) for i in range(3)), strict=True))


def offered_load(table: JobTable, cluster: ClusterSpec) -> float:
    """Realised offered GPU load: GPU-seconds requested / (cluster GPUs x arrival span), where
    the span runs from the first to the last submit time. It is ``inf`` when every job arrives
    at the same instant, and 0 for a cluster or workload without GPUs."""
    if len(table) == 0:
        return 0.0
    work = float(np.sum(table.request[:, 2] * table.duration))
    gpus = float(cluster.capacity_matrix()[:, 2].sum())
    span = float(table.submit_time.max() - table.submit_time.min())
    if work == 0.0 or gpus == 0.0:
        return 0.0
    return work / (gpus * span) if span > 0 else math.inf
