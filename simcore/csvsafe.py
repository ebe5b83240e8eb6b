"""CSV-injection escaping for every CSV the project writes (DESIGN.md section 6).

A spreadsheet treats a cell that begins with ``=``, ``+``, ``-``, ``@``, a tab or a carriage
return as a formula, so a job id such as ``=HYPERLINK(...)`` from an uploaded trace could run
in the reader's spreadsheet. Following the OWASP rule, such a *text* cell is written with a
leading single quote (``'=HYPERLINK(...)``). Numbers are never touched (a negative number
stays ``-5``), so numeric columns and files of plain ids are byte-for-byte as before.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path
from typing import Any, Literal

import pandas as pd

FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_PLAIN_NUMBER = re.compile(r"-?[0-9]+(\.[0-9]+)?")


def escape_cell(value: Any) -> Any:
    """The value, with a leading ``'`` when it is text that a spreadsheet would run."""
    if isinstance(value, str) and value.startswith(FORMULA_START) and not _PLAIN_NUMBER.fullmatch(value):
        return "'" + value
    return value


def safe_frame(df: pd.DataFrame) -> pd.DataFrame:
    """A copy of `df` whose text columns are escaped (the frame itself is not changed)."""
    text_cols = _text_columns(df)
    if not text_cols:
        return df
    out = df.copy()
    for c in text_cols:
        out[c] = out[c].map(escape_cell)
    return out


def _text_columns(df: pd.DataFrame) -> list[str]:
    return [c for c in df.columns if df[c].dtype == object or pd.api.types.is_string_dtype(df[c].dtype)]


def _quoting(df: pd.DataFrame) -> Literal[0, 1, 2, 3]:
    """Minimal quoting, unless some text cell holds a carriage return (see the module docstring)."""
    has_cr = any(df[c].map(lambda v: isinstance(v, str) and "\r" in v).any() for c in _text_columns(df))
    return csv.QUOTE_NONNUMERIC if has_cr else csv.QUOTE_MINIMAL


def to_csv_text(df: pd.DataFrame) -> str:
    """The escaped CSV text of `df` (no index), as every download and output file writes it."""
    safe = safe_frame(df)
    return safe.to_csv(index=False, lineterminator="\n", quoting=_quoting(safe))


def write_csv(df: pd.DataFrame, path: str | Path) -> None:
    """Write `df` as an escaped CSV file (no index)."""
    safe = safe_frame(df)
    safe.to_csv(path, index=False, lineterminator="\n", quoting=_quoting(safe))
