"""The one CSV rule for every CSV the project writes (DESIGN.md section 6), and the writer that applies it.

A spreadsheet treats a cell that begins with ``=``, ``+``, ``-``, ``@``, a tab or a carriage
return as a formula, so a job id such as ``=HYPERLINK(...)`` from an uploaded trace could run
in the reader's spreadsheet. Following the OWASP rule, such a *text* cell is written with a
leading single quote (``'=HYPERLINK(...)``), unless it is a plain decimal number (an id ``-5``).
Numbers are never touched, so numeric columns and files of plain ids are byte-for-byte as before.

A text cell holding ``;``, ``,``, a quote or a line break (CR or LF) is quoted, its quotes
doubled. Quoting alone does not stop a spreadsheet that splits lines on ``;`` (or on tabs):
such a reader honours a quote only where its own cell begins, so inside ``0,"a;=1+1"`` it starts
a cell ``=1+1"``. The places where a reader may start a cell inside a text are therefore escaped
too: a ``'`` goes after every ``;``, tab, CR or LF that is followed by a formula character or a
double quote (``a;=1+1`` is written ``"a;'=1+1"``). A reader splitting on ``,`` reads back the
escaped text exactly.

The writer turns columns into cells with Arrow's vectorised kernels: numbers print as pandas
prints them (floats as Python's ``repr``, NaN empty), text goes through the rule above, and only
the cells that need care are handled one by one in Python.
"""

from __future__ import annotations

import io
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
#: characters after which a spreadsheet splitting on ``;``, on tabs or on lines may start a cell
CELL_BREAKS = (";", "\t", "\r", "\n")
QUOTED_IF_HOLDING = (";", ",", '"', "\n", "\r")


def _one_of(chars: Sequence[str]) -> str:
    """A regular-expression class of ``chars``, valid for Python and for Arrow's RE2."""
    return "[" + "".join("\\" + c if c in "\\]^-" else c for c in chars) + "]"


_PLAIN_NUMBER = re.compile(r"-?[0-9]+(\.[0-9]+)?")
_NEEDS_QUOTES = re.compile(_one_of(QUOTED_IF_HOLDING))
_RUNNABLE = _one_of((*FORMULA_START, '"'))  # what the character after a break must not be
_INNER_START = re.compile(f"(?<={_one_of(CELL_BREAKS)})(?={_RUNNABLE})")
#: a text this pattern does not match is written as it is (for Arrow's vectorised kernels)
_NEEDS_CARE = f"^{_one_of(FORMULA_START)}|{_NEEDS_QUOTES.pattern}|{_one_of(CELL_BREAKS)}{_RUNNABLE}"
_ROWS_PER_CHUNK = 1 << 18  # rows joined at once: bounds the memory of one chunk's text
_END = 1 << 40  # a slice position past the end of any cell
#: Arrow prints a float positionally below 1e10 (exponents from there on); a margin below that
_POSITIONAL_BELOW = 1e9


def escape_text(text: str) -> str:
    """``text`` with a ``'`` before every place a spreadsheet could start a formula cell: its
    start (unless it is a plain decimal number) and after each of :data:`CELL_BREAKS`."""
    inner = _INNER_START.sub("'", text)
    if text.startswith(FORMULA_START) and not _PLAIN_NUMBER.fullmatch(text):
        return "'" + inner
    return inner


def quote_cell(text: str) -> str:
    """``text`` as one CSV field: quoted (quotes doubled) when it holds a character of
    :data:`QUOTED_IF_HOLDING`, as it is otherwise."""
    return '"' + text.replace('"', '""') + '"' if _NEEDS_QUOTES.search(text) else text


def text_cell(text: str) -> str:
    """A text as the CSV field every writer writes: escaped, then quoted when it must be."""
    return quote_cell(escape_text(text))


@dataclass(frozen=True)
class Labels:
    """A coded column's labels as CSV cells (text by the rule, numbers as printed), the empty cell
    last for code -1: made once, for every column and file that picks from the same labels."""

    cells: pa.Array

    @classmethod
    def of(cls, labels: np.ndarray) -> Labels:
        return cls(pa.concat_arrays([_cells(np.asarray(labels)), pa.array([""], pa.string())]))


#: a column of a CSV: numbers or text (None and NaN empty) as an array or a pandas Series, or a
#: coded column ``(labels, codes)``: one code per row into the labels (an array of text or numbers,
#: or their :class:`Labels`), -1 an empty cell (the events name jobs and nodes so: each label goes
#: through the rule once, however many rows repeat it)
Column = np.ndarray | pd.Series | tuple[np.ndarray | Labels, np.ndarray]


def write_columns(path: str | Path, columns: Mapping[str, Column]) -> None:
    """Write a CSV file (UTF-8, ``\\n`` line ends, no index) of named columns of equal length."""
    with open(path, "wb") as fh:
        _write(fh, columns)


def csv_bytes(columns: Mapping[str, Column]) -> bytes:
    """The CSV text :func:`write_columns` writes, as bytes."""
    buf = io.BytesIO()
    _write(buf, columns)
    return buf.getvalue()


def to_csv_text(df: pd.DataFrame) -> str:
    """The CSV text of `df` (no index), as every download and output file writes it."""
    return csv_bytes(_frame_columns(df)).decode("utf-8")


def write_csv(df: pd.DataFrame, path: str | Path) -> None:
    """Write `df` as a CSV file (no index), by the rule."""
    write_columns(path, _frame_columns(df))


def _frame_columns(df: pd.DataFrame) -> dict[str, Column]:
    if df.columns.has_duplicates:
        raise ValueError(f"a CSV of a frame with duplicate column names: {list(df.columns)}")
    return {str(c): df[c] for c in df.columns}


def _write(fh: IO[bytes], columns: Mapping[str, Column]) -> None:
    fh.write(",".join(text_cell(name) for name in columns).encode("utf-8") + b"\n")
    rows = {len(c[1]) if isinstance(c, tuple) else len(c) for c in columns.values()}
    if len(rows) > 1:
        raise ValueError(f"CSV columns of different lengths: {sorted(rows)}")
    n = rows.pop() if rows else 0
    ready = _joined([_one_value(_Picks.of(*c) if isinstance(c, tuple) else c) for c in columns.values()], n)
    last = ready[-1] if ready else None
    ends = len(columns) > 1 and isinstance(last, _Picks)
    if isinstance(last, _Picks) and ends:  # each line's end in the last labels: the joined cells are the text, no copy
        ready[-1] = _Picks(pc.binary_join_element_wise(last.cells, "\n", ""), last.codes)
    for lo in range(0, n, _ROWS_PER_CHUNK):
        cells = [_cells(_slice(c, lo, lo + _ROWS_PER_CHUNK)) for c in ready]
        if len(columns) == 1:  # a lone empty field would read as a blank line (as the csv module writes it)
            cells[0] = pc.if_else(pc.equal(cells[0], ""), '""', cells[0])
        lines = pc.binary_join_element_wise(*cells, ",") if len(cells) > 1 else cells[0]
        if ends:
            fh.write(_characters(lines))
        else:
            text = pc.binary_join(pa.ListArray.from_arrays(pa.array([0, len(lines)], pa.int32()), lines), "\n")
            fh.write(text[0].as_buffer())
            fh.write(b"\n")


def _characters(cells: pa.Array) -> memoryview:
    """A string array's cells back to back: its data buffer, no copy."""
    offsets = np.frombuffer(cells.buffers()[1], dtype=np.int32, count=len(cells) + 1, offset=4 * cells.offset)
    return memoryview(cells.buffers()[2])[offsets[0] : offsets[-1]]


@dataclass(frozen=True)
class _Picks:
    """A coded column whose labels are cells already, the empty cell last (code -1)."""

    cells: pa.Array
    codes: np.ndarray

    @classmethod
    def of(cls, labels: np.ndarray | Labels, codes: np.ndarray) -> _Picks:
        cells = (labels if isinstance(labels, Labels) else Labels.of(labels)).cells
        codes = np.asarray(codes, dtype=np.int64)
        lo, hi = (int(codes.min()), int(codes.max())) if len(codes) else (-1, -1)
        if not -1 <= lo <= hi < len(cells) - 1:
            raise ValueError(f"codes from {lo} to {hi} for {len(cells) - 1} labels")
        return cls(cells, np.where(codes < 0, len(cells) - 1, codes) if lo < 0 else codes)  # -1: the empty cell


def _one_value(column: _Picks | np.ndarray | pd.Series) -> _Picks | np.ndarray | pd.Series:
    """A column of numbers that are all one value (bit for bit) as a coded column of that one cell,
    which :func:`_joined` may join to its neighbours; any other column as it is."""
    if (
        not isinstance(column, np.ndarray)
        or not len(column)
        or column.dtype.kind not in "iub"
        and column.dtype != float
    ):
        return column
    bits = column.view(np.int64) if column.dtype == float else column
    if not (bits == bits[0]).all():
        return column
    return _Picks(pa.concat_arrays([_cells(column[:1]), pa.array([""], pa.string())]), np.zeros(len(column), np.int64))


def _joined(columns: list[_Picks | np.ndarray | pd.Series], n: int) -> list[_Picks | np.ndarray | pd.Series]:
    """`columns` with each run of adjacent coded columns whose pairs of labels are few (a tenth of the
    rows at most) made one coded column, its labels the pairs' joined cells: the rows take and join
    fewer cells (the events' kind and node; a run's constant columns and its nodes)."""
    out = columns[:1]
    for c in columns[1:]:
        a = out[-1]
        if isinstance(a, _Picks) and isinstance(c, _Picks) and len(a.cells) * len(c.cells) <= n // 10:
            pairs = np.arange(len(a.cells) * len(c.cells))
            left, right = a.cells.take(pa.array(pairs // len(c.cells))), c.cells.take(pa.array(pairs % len(c.cells)))
            out[-1] = _Picks(pc.binary_join_element_wise(left, right, ","), a.codes * len(c.cells) + c.codes)
        else:
            out.append(c)
    return out


def _slice(column: _Picks | np.ndarray | pd.Series, lo: int, hi: int) -> _Picks | np.ndarray | pd.Series:
    if isinstance(column, _Picks):
        return _Picks(column.cells, column.codes[lo:hi])
    return column.iloc[lo:hi] if isinstance(column, pd.Series) else column[lo:hi]


def _cells(column: _Picks | np.ndarray | pd.Series) -> pa.Array:
    """The CSV fields of one column, as an Arrow string array."""
    if isinstance(column, _Picks):
        return column.cells.take(pa.array(column.codes))
    if isinstance(column, pd.Series):
        dtype = column.dtype
        if isinstance(dtype, np.dtype) and dtype.kind in "fiub":
            return _cells(column.to_numpy())
        if pd.api.types.is_string_dtype(dtype) and not pd.api.types.is_object_dtype(dtype):
            return _text_cells(pa.array(column, type=pa.string(), from_pandas=True))
        return _cells(np.asarray(column.astype(object)))
    values = np.asarray(column)
    kind = values.dtype.kind
    if kind == "f" and values.dtype == np.float64:
        return _float_cells(values)
    if kind in "iu":
        return pc.cast(pa.array(values), pa.string())
    if kind == "b":
        return pc.if_else(pa.array(values), "True", "False")
    if kind in "OU":
        return _text_cells(values)
    raise TypeError(f"no CSV format for a column of dtype {values.dtype}")


def _text_cells(values: np.ndarray | pa.Array) -> pa.Array:
    """Cells of a text column (None and NaN empty; a column mixing text and numbers cell by cell)."""
    if not isinstance(values, pa.Array):
        try:
            values = pa.array(values, type=pa.string(), from_pandas=True)
        except (pa.ArrowInvalid, pa.ArrowTypeError):  # not all text: each cell by its own type
            return pa.array([_mixed_cell(v) for v in values.tolist()], pa.string())
    values = pc.fill_null(values, "")
    if pc.all(pc.ascii_is_alnum(values)).as_py():  # letters and digits alone (ids, mostly): a tenth of the regex's time
        return values
    care = pc.match_substring_regex(values, _NEEDS_CARE)
    if not pc.any(care).as_py():
        return values
    fixed = [text_cell(t) for t in pc.filter(values, care).to_pylist()]
    return pc.replace_with_mask(values, care, pa.array(fixed, pa.string()))


def _mixed_cell(value: Any) -> str:
    """One cell of an object column, as pandas prints it (text by the rule)."""
    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, (bool, int, float, np.bool_, np.number)):
        return str(value)
    return text_cell(str(value))


def _float_cells(values: np.ndarray) -> pa.Array:
    """Floats as Python's ``repr`` prints them (NaN empty); a run of the same value (event times
    share instants) is printed once."""
    bits = np.ascontiguousarray(values).view(np.int64)  # bits, so that 0.0 and -0.0 differ
    starts = np.empty(len(values), dtype=bool)
    starts[:1] = True
    np.not_equal(bits[1:], bits[:-1], out=starts[1:])
    if starts.sum() > 0.8 * len(values):
        return _distinct_float_cells(values)
    return _distinct_float_cells(values[starts]).take(pa.array(np.cumsum(starts) - 1))


def _distinct_float_cells(values: np.ndarray) -> pa.Array:
    """:func:`_float_cells`, vectorised: from 1e-4 to :data:`_POSITIONAL_BELOW` Arrow prints the
    shortest digits that read back, positionally, as ``repr`` does, only without a whole number's
    ``.0`` (added here); every other value (NaN, infinities, -0.0, tiny or huge) goes through ``repr``."""
    size, zero = np.abs(values), values == 0
    short = (size < _POSITIONAL_BELOW) & ((size >= 1e-4) | zero) & ~(zero & np.signbit(values))  # not NaN nor -0.0
    whole = short & (values == np.trunc(values))
    if whole.all():
        return _point_zero(pc.cast(pa.array(values.astype(np.int64)), pa.string()))
    cells = pc.cast(pa.array(values), pa.string())
    if whole.any():
        mask = pa.array(whole)
        cells = pc.replace_with_mask(cells, mask, _point_zero(cells.filter(mask)))
    if short.all():
        return cells
    fixed = ["" if math.isnan(v) else repr(v) for v in values[~short].tolist()]
    return pc.replace_with_mask(cells, pa.array(~short), pa.array(fixed, pa.string()))


def _point_zero(cells: pa.Array) -> pa.Array:
    """``cells`` with ``.0`` appended to each (a whole float as ``repr`` prints it)."""
    return pc.binary_replace_slice(cells, start=_END, stop=_END, replacement=".0")
