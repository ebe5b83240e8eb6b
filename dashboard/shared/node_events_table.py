"""Explore's node-events table (DESIGN rule 12): the down windows a visitor types in the sidebar.

A row is four text cells, ``node, start, end, kind``, as the columns of a node-events file
(:data:`simcore.core.downtime.NODE_EVENT_COLUMNS`); the scenario keeps them as typed, a link carries
them as CSV lines (:func:`to_link`, :func:`from_link`: only their shape and count are read there,
the cluster being unknown), and before any run :func:`check` reads them with the file's own checks
(:func:`simcore.workload.node_events.node_events_from_cells`), so a bad cell is refused with its row
and column, never dropped. The table's widget is a ``st.data_editor``: its edits are applied to the
rows kept in the session by :func:`edited` (its ``on_change``), and a changed table is drawn as a
new editor (:func:`editor_key`), so the rows in the session are the one truth.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from dashboard.shared import keys, table_edits
from dashboard.shared.demo import LOCAL
from dashboard.shared.keys import Key, Session
from simcore.core.downtime import KINDS, NODE_EVENT_COLUMNS, NodeEvents
from simcore.core.errors import UserError
from simcore.core.model import ClusterSpec
from simcore.workload.node_events import node_events_from_cells
from simcore.workload.problems import WorkloadError

Row = tuple[str, str, str, str]  # node, start, end, kind: the cells as typed
LABEL = "node events table"  # how a problem names the table
FILE_NAME = "node_events.csv"  # the table as a file: its download, and the CLI's --node-events
MAX_CELL = 200  # characters of one cell a link may carry
MAX_LINK_ROWS = LOCAL.max_node_events  # rows a link may carry (demo mode refuses more: its own max_node_events)
NAMES_SHOWN = 12  # node names a refusal lists


def to_link(rows: Sequence[Row]) -> str:
    """The rows as a link's value: CSV lines without a header."""
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    return out.getvalue().rstrip("\n")


def from_link(text: str) -> tuple[Row, ...]:
    """A link's rows: each four cells (quoted as CSV), at most :data:`MAX_LINK_ROWS`, each cell at most
    :data:`MAX_CELL` characters; ValueError naming the first row that is not. The cells' values are
    checked with the cluster, before the run (:func:`check`)."""
    lines = list(csv.reader(io.StringIO(text)))
    if len(lines) > MAX_LINK_ROWS:
        raise ValueError(f"at most {MAX_LINK_ROWS:,} rows (got {len(lines):,})")
    rows = []
    for i, cells in enumerate(lines, start=1):
        if len(cells) != len(NODE_EVENT_COLUMNS):
            raise ValueError(
                f"row {i} has {len(cells)} cells, not {len(NODE_EVENT_COLUMNS)} ({', '.join(NODE_EVENT_COLUMNS)})"
            )
        if any(len(c) > MAX_CELL for c in cells):
            raise ValueError(f"row {i} has a cell longer than {MAX_CELL} characters")
        rows.append((cells[0].strip(), cells[1].strip(), cells[2].strip(), cells[3].strip()))
    return tuple(rows)


def csv_text(rows: Sequence[Row]) -> str:
    """The rows as a node-events file (``simcore ... --node-events node_events.csv``)."""
    return ",".join(NODE_EVENT_COLUMNS) + "\n" + (to_link(rows) + "\n" if rows else "")


def frame(rows: Sequence[Row]) -> pd.DataFrame:
    """The editor's data: node and kind as text, start and end as numbers (a cell that is not one: empty)."""
    columns = list(zip(*rows, strict=True)) if rows else [(), (), (), ()]
    return pd.DataFrame(
        {
            "node": pd.Series(columns[0], dtype=object),
            "start": pd.to_numeric(pd.Series(columns[1], dtype=object), errors="coerce").astype(float),
            "end": pd.to_numeric(pd.Series(columns[2], dtype=object), errors="coerce").astype(float),
            "kind": pd.Series([k if k in KINDS else None for k in columns[3]], dtype=object),
        }
    )


def apply_edits(rows: Sequence[Row], edits: Mapping[str, Any]) -> tuple[Row, ...]:
    """``rows`` with a ``st.data_editor``'s edits (:func:`dashboard.shared.table_edits.apply_edits`)."""
    return tuple((a, b, c, d) for a, b, c, d in table_edits.apply_edits(rows, edits, NODE_EVENT_COLUMNS))


def editor_key(rows: Sequence[Row]) -> Key[dict[str, Any]]:
    """The editor's key for these rows: a new table is a new editor, holding no edits of the old one."""
    return table_edits.editor_key(keys.NODE_EVENTS_EDITOR, to_link(rows))


def edited(session: Session, editor: Key[dict[str, Any]]) -> None:
    """The editor's ``on_change``: its edits applied to the rows the session keeps."""
    keys.NODE_EVENTS.set(session, apply_edits(keys.NODE_EVENTS.get(session, ()), editor.get(session, {})))


def check(rows: Sequence[Row], cluster: ClusterSpec) -> NodeEvents | None:
    """The rows as down windows of ``cluster`` (None for no row), checked as a node-events file's rows are:
    every problem named by row (the table's first row is row 1) and column; a node that is not in the cluster
    is answered with the cluster's node names."""
    if not rows:
        return None
    columns = {name: [r[i] for r in rows] for i, name in enumerate(NODE_EVENT_COLUMNS)}
    try:
        named = [f"row {i}" for i in range(1, len(rows) + 1)]
        return node_events_from_cells(columns, named, cluster, LABEL, "the table's first row is row 1")
    except WorkloadError as exc:
        names = cluster.names
        shown = ", ".join(names[:NAMES_SHOWN]) + (f" ... ({len(names):,} nodes)" if len(names) > NAMES_SHOWN else "")
        raise UserError(f"{exc}\n(the cluster's nodes: {shown})") from None
