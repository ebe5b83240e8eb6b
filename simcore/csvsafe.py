"""CSV-injection escaping for every CSV the project writes (DESIGN.md section 6).

A spreadsheet treats a cell that begins with ``=``, ``+``, ``-``, ``@``, a tab or a carriage
return as a formula, so a job id such as ``=HYPERLINK(...)`` from an uploaded trace could run
in the reader's spreadsheet. Following the OWASP rule, such a *text* cell is written with a
leading single quote (``'=HYPERLINK(...)``). Numbers are never touched (a negative number
stays ``-5``), so numeric columns and files of plain ids are byte-for-byte as before.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def escape_cell(value: Any) -> Any:
    """The value, with a leading ``'`` when it is text that a spreadsheet would run."""
    if isinstance(value, str) and value.startswith(FORMULA_START):
        return "'" + value
    return value


def safe_frame(df: pd.DataFrame) -> pd.DataFrame:
    """A copy of `df` whose text columns are escaped (the frame itself is not changed)."""
    text_cols = [c for c in df.columns if df[c].dtype == object or pd.api.types.is_string_dtype(df[c].dtype)]
    if not text_cols:
        return df
    out = df.copy()
    for c in text_cols:
        out[c] = out[c].map(escape_cell)
    return out


def to_csv_text(df: pd.DataFrame) -> str:
    """The escaped CSV text of `df` (no index), as every download and output file writes it."""
    return safe_frame(df).to_csv(index=False, lineterminator="\n")


def write_csv(df: pd.DataFrame, path: str | Path) -> None:
    """Write `df` as an escaped CSV file (no index)."""
    safe_frame(df).to_csv(path, index=False, lineterminator="\n")
