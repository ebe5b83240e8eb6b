"""Readers: the bytes of a workload or node-list file to a :class:`RawTable` of untyped columns.

CSV is decoded in pieces and parsed in batches, JSON records one at a time, Parquet from its
metadata first: every cap (``max_rows``, ``max_bytes``) is checked before or while a file is
parsed, never after. Nothing is unpickled or evaluated.
"""

from __future__ import annotations

import contextlib
import csv
import gc
import io
import itertools
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from simcore.core import fmt
from simcore.io import jsonstream, parquet_pages, parquet_read
from simcore.workload import alibaba
from simcore.workload.problems import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_ROWS,
    LimitExceeded,
    Problem,
    RawTable,
    WorkloadError,
)
from simcore.workload.schema import JOB_SCHEMA


def decode(data: bytes, source: str, start: int = 0, end: int | None = None) -> str:
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
        yield from io.StringIO(decode(data, source, start, end), newline="")
        start = end


def read_csv_raw(data: bytes, source: str, max_rows: int = DEFAULT_MAX_ROWS) -> RawTable:
    """Split a CSV file into columns of strings; rows with the wrong number of values are refused.
    Blank lines are skipped but keep their row number, as a spreadsheet shows them. Parsing stops
    with :class:`LimitExceeded` as soon as the file has more than ``max_rows`` data rows."""
    return next(read_csv_slices(data, source, max_rows))[0]


def read_csv_slices(
    data: bytes, source: str, max_rows: int = DEFAULT_MAX_ROWS, slice_rows: int | None = None
) -> Iterator[tuple[RawTable, bool]]:
    """:func:`read_csv_raw`'s table a slice of ``slice_rows`` data rows at a time (None: one slice
    of every row), each with whether another slice follows; a slice is parsed only when the one
    before it has been taken, so a large file is never held as text of every row at once. Each
    slice keeps its rows' numbers in the file and its own read problems; a file without data rows
    is one empty slice. The errors are :func:`read_csv_raw`'s, raised when the parse reaches them."""
    reader = csv.reader(_text_lines(data, source))
    header: list[str] | None = None
    columns: list[list[str]] = []
    numbers: list[int] = []  # the spreadsheet row of every data row of this slice
    problems: list[tuple[int, Problem]] = []
    seen = 0  # records read before the current batch (record k is row k + 1)
    done = 0  # data rows of the slices already yielded
    room = max_rows + 1 if slice_rows is None else slice_rows  # a slice of every row: never full
    while True:
        try:
            with _gc_paused():
                batch = list(itertools.islice(reader, _BATCH))
        except csv.Error as exc:
            raise WorkloadError(f"{source}: line {reader.line_num}: not readable as CSV ({exc})") from None
        filled = [k for k, r in enumerate(batch) if len(r) > 1 or (r and r[0].strip())]
        if header is None and filled:
            header = _header(batch[filled[0]], seen + filled[0] + 1, source)
            columns = [[] for _ in header]
            filled = filled[1:]
        if done + len(numbers) + len(filled) > max_rows:
            raise LimitExceeded(source, f"{max_rows + 1:,} rows or more", "row", max_rows, "--max-rows")
        while filled:  # the batch's rows, cut where a slice is full
            if len(numbers) == room:  # a full slice, and a row after it
                yield _slice(source, header or [], columns, numbers, problems), True
                done += len(numbers)
                columns, numbers, problems = [[] for _ in columns], [], []
            take, filled = filled[: room - len(numbers)], filled[room - len(numbers) :]
            _add_rows(batch, take, seen, columns, numbers, problems)
        if not batch:
            break
        seen += len(batch)
    if header is None:
        raise WorkloadError(f"{source}: the file is empty")
    yield _slice(source, header, columns, numbers, problems), False


def _slice(
    source: str, header: list[str], columns: list[list[str]], numbers: list[int], problems: list[tuple[int, Problem]]
) -> RawTable:
    return RawTable(source, dict(zip(header, columns, strict=True)), np.asarray(numbers, dtype=np.int64), problems)


def _add_rows(
    batch: list[list[str]],
    take: list[int],
    seen: int,
    columns: list[list[str]],
    numbers: list[int],
    problems: list[tuple[int, Problem]],
) -> None:
    """Records ``take`` of ``batch`` (whose first record is record ``seen``) appended to a slice's
    columns, row numbers and problems (a row of the wrong width refused, placeholders kept)."""
    width = len(columns)
    rows: list[list[str]] = []
    for k in take:
        row = batch[k]
        if len(row) != width:
            why = f"has {len(row)} values but the header has {width} columns"
            problems.append((len(numbers) + len(rows), Problem(f"row {seen + k + 1}", "", why)))
            row = [""] * width  # placeholder; the row is refused whatever it holds
        rows.append(row)
    numbers.extend(seen + k + 1 for k in take)
    with _gc_paused():
        for column, values in zip(columns, zip(*rows, strict=True), strict=True):
            column.extend(values)


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
    text = decode(data, source)
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
    """The columns of a Parquet file that a schema reads (the others are named, not read), as
    :func:`read_parquet` checks and reads them."""
    parquet = read_parquet(data, source, max_rows, max_bytes)
    return parquet.raw(0, parquet.rows)


class ParquetColumns:
    """The columns of a checked Parquet file as Arrow read them (text dictionary-encoded), turned
    into raw values a slice of rows at a time (:meth:`raw`): a large file is validated by slices
    without holding a Python object per value of every row at once."""

    def __init__(self, source: str, table: Any, wanted: dict[str, str], keys: list[str]) -> None:
        self.source, self.table, self.wanted, self.keys = source, table, wanted, keys
        self.rows: int = table.num_rows

    def raw(self, start: int, stop: int) -> RawTable:
        """Rows ``start`` to ``stop`` (0-based) as a :class:`RawTable` labelled with the file's row numbers."""
        import pyarrow as pa

        part = self.table.slice(start, stop - start)
        columns: dict[str, list[Any]] = {}
        for name, col in zip(part.column_names, part.columns, strict=True):
            try:
                columns[self.wanted[name]] = _bools_as_text(col.to_pylist())
            except (pa.ArrowException, ValueError, OverflowError) as exc:
                raise WorkloadError(f"{self.source}: column {self.wanted[name]!r} cannot be read ({exc})") from None
        every = {key: columns.get(key, []) for key in self.keys}  # a column no schema reads: its name, no values
        return RawTable(self.source, every, np.arange(start + 2, stop + 2))


def read_parquet(
    data: bytes, source: str, max_rows: int = DEFAULT_MAX_ROWS, max_bytes: int = DEFAULT_MAX_BYTES
) -> ParquetColumns:
    """The columns of a Parquet file that a schema reads. Its metadata is checked before any
    column is read: the rows it declares against ``max_rows``, the uncompressed size of those
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
        raise LimitExceeded(
            source, f"the file declares {fmt.megabytes(declared)} of uncompressed data", "byte", max_bytes
        )
    try:  # what the pages themselves declare, which a forged footer can understate
        paged = sum(parquet_pages.uncompressed_size(data, *_chunk_span(chunk), rows + 2) for rows, chunk in chunks)
    except parquet_pages.BadPage as exc:
        raise WorkloadError(f"{source}: not a readable Parquet file ({exc})") from None
    if paged > max_bytes:
        raise LimitExceeded(source, f"its pages declare {fmt.megabytes(paged)} of uncompressed data", "byte", max_bytes)
    try:
        table = parquet_read.read_table(data, columns=list(wanted), dictionary=list(wanted))
    except (pa.ArrowException, OSError, ValueError) as exc:
        raise WorkloadError(f"{source}: not a readable Parquet file ({exc})") from None
    expanded = sum(_text_bytes(chunk) for col in table.columns for chunk in col.chunks)
    if expanded > max_bytes:
        raise LimitExceeded(source, f"its text columns expand to {fmt.megabytes(expanded)}", "byte", max_bytes)
    return ParquetColumns(source, table, wanted, keys)


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
        raise LimitExceeded(label, f"the file is {fmt.megabytes(size)}", "byte", max_bytes, "--max-bytes")
    if data is None:
        try:
            data = Path(source).read_bytes()  # type: ignore[arg-type]
        except OSError as exc:
            raise WorkloadError(f"{label}: cannot read the file ({exc.strerror or exc})") from None
    return data, label


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


READERS: dict[str, Callable[[bytes, str, int], RawTable]] = {
    "csv": read_csv_raw,
    "json": read_json_raw,
    "alibaba": read_csv_raw,
}
