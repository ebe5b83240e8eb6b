"""The one CSV rule for every CSV the project writes (DESIGN.md section 6).

A spreadsheet treats a cell that begins with ``=``, ``+``, ``-``, ``@``, a tab or a carriage
return as a formula, so a job id such as ``=HYPERLINK(...)`` from an uploaded trace could run
in the reader's spreadsheet. Following the OWASP rule, such a *text* cell is written with a
leading single quote (``'=HYPERLINK(...)``). Numbers are never touched (a negative number
stays ``-5``), so numeric columns and files of plain ids are byte-for-byte as before.

A spreadsheet set to split on ``;`` would also start a cell after a ``;`` inside a text
(``a;=cmd|...``), so a text cell holding ``;``, ``,``, a quote or a line break (CR or LF) is
always quoted, with its quotes doubled; every other cell is written as it is. Frames keep
pandas' number formatting; :func:`write_rows` writes rows of ready-made cells by the same rule.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
QUOTED_IF_HOLDING = (";", ",", '"', "\n", "\r")
_PLAIN_NUMBER = re.compile(r"-?[0-9]+(\.[0-9]+)?")
_NEEDS_QUOTES = re.compile('[;,"\\n\\r]')


def escape_cell(value: Any) -> Any:
    """The value, with a leading ``'`` when it is text that a spreadsheet would run."""
    if isinstance(value, str) and value.startswith(FORMULA_START) and not _PLAIN_NUMBER.fullmatch(value):
        return "'" + value
    return value


def quote_cell(text: str) -> str:
    """``text`` as one CSV field: quoted (quotes doubled) when it holds a character of
    :data:`QUOTED_IF_HOLDING`, as it is otherwise."""
    return '"' + text.replace('"', '""') + '"' if _NEEDS_QUOTES.search(text) else text


def csv_line(cells: Sequence[object]) -> str:
    """One CSV line (``\\n`` ended) of ready-made cells: None is empty, text is quoted by
    :func:`quote_cell`, anything else is ``str()`` (as :mod:`csv` writes it)."""
    if len(cells) == 1 and cells[0] in ("", None):
        return '""\n'  # a lone empty field would read as a blank line (the csv module does the same)
    return ",".join("" if c is None else quote_cell(c) if isinstance(c, str) else str(c) for c in cells) + "\n"


def write_rows(path: str | Path, header: Sequence[str], rows: Iterable[Sequence[object]]) -> None:
    """Write a CSV file (UTF-8, ``\\n`` line ends) of cells already escaped where they should be."""
    with open(path, "w", encoding="utf-8", newline="") as fh:
        fh.write(csv_line(header))
        fh.writelines(csv_line(row) for row in rows)


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


def to_csv_text(df: pd.DataFrame) -> str:
    """The escaped CSV text of `df` (no index), as every download and output file writes it.

    pandas quotes a cell with ``,``, a quote or LF itself but not one with ``;`` or a lone CR:
    such cells go to pandas as placeholder tokens (letters, digits and ``_``: never quoted,
    found nowhere else in the text) that are then replaced by the cells quoted here."""
    safe = safe_frame(df)
    quoted: list[str] = []
    text_cols = _text_columns(safe)
    if text_cols:
        cells = [v for c in text_cols for v in safe[c] if isinstance(v, str)]
        prefix = _free_prefix([*cells, *map(str, safe.columns)])

        def hold(value: Any) -> Any:
            if isinstance(value, str) and (";" in value or "\r" in value):
                quoted.append(quote_cell(value))
                return f"{prefix}{len(quoted) - 1}_"
            return value

        for c in text_cols:
            safe[c] = safe[c].map(hold)
    text = safe.to_csv(index=False, lineterminator="\n")
    if not quoted:
        return text
    return re.sub(f"{prefix}([0-9]+)_", lambda m: quoted[int(m.group(1))], text)


def _free_prefix(texts: Sequence[str]) -> str:
    """A token prefix found in none of ``texts`` (so a placeholder cannot be mistaken for data)."""
    n = 0
    while any(f"csvsafe{n}x" in t for t in texts):
        n += 1
    return f"csvsafe{n}x"


def write_csv(df: pd.DataFrame, path: str | Path) -> None:
    """Write `df` as an escaped CSV file (no index)."""
    Path(path).write_text(to_csv_text(df), encoding="utf-8", newline="")
