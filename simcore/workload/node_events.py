"""Node-events files (``--node-events FILE``, DESIGN rule 12): a CSV of down windows to
:class:`~simcore.core.downtime.NodeEvents`.

One row per window, under a header naming the columns ``node, start, end, kind`` (in any order,
each once, no other): ``node`` a node of the cluster by name (blanks around it stripped),
``start`` and ``end`` in seconds (0 <= start < end <= 2^53), ``kind`` ``failure`` or
``maintenance`` (case-insensitive). Windows may overlap (a node is down over their union). Every
problem names the file, the row (as a spreadsheet shows it: the header is row 1) and the column;
nothing is defaulted or dropped silently: a file with a problem is refused whole.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path

from simcore.core.downtime import KINDS, NODE_EVENT_COLUMNS, NodeEvents, NodeWindow
from simcore.core.model import MAX_TIME, ClusterSpec
from simcore.workload.problems import LimitExceeded, Problem, WorkloadError
from simcore.workload.readers import read_csv_raw, read_source
from simcore.workload.schema import listing

MAX_NODE_EVENT_BYTES = 20_000_000  # MAX_NODE_EVENTS rows of a few tens of bytes each
MAX_NODE_EVENTS = 100_000  # windows in one file: more is a mistake, not a plan of maintenance


def load_node_events(
    source: str | Path | bytes, cluster: ClusterSpec, *, name: str | None = None, max_bytes: int = MAX_NODE_EVENT_BYTES
) -> NodeEvents:
    """Read and validate a node-events file (a path, or uploaded ``bytes`` with its ``name``) for the nodes
    of `cluster`. Raises :class:`~simcore.workload.WorkloadError` listing every problem (file, row, column, why)."""
    data, label = read_source(source, name, max_bytes)
    try:
        raw = read_csv_raw(data, label, max_rows=MAX_NODE_EVENTS)
    except LimitExceeded:
        raise LimitExceeded(label, f"{MAX_NODE_EVENTS + 1:,} rows or more", "row", MAX_NODE_EVENTS) from None
    header = "row 1 (the header)"
    problems = [p for _, p in raw.problems]
    problems += [
        Problem(header, c, f"unknown column (a node-events file has {', '.join(NODE_EVENT_COLUMNS)})")
        for c in raw.columns
        if c not in NODE_EVENT_COLUMNS
    ]
    problems += [Problem(header, c, "required column missing") for c in NODE_EVENT_COLUMNS if c not in raw.columns]
    if problems:
        _refuse(label, problems)
    return node_events_from_cells(raw.columns, [raw.label(i) for i in range(len(raw))], cluster, label)


def node_events_from_cells(
    columns: Mapping[str, Sequence[str]],
    rows: Sequence[str],
    cluster: ClusterSpec,
    label: str,
    numbered: str = "rows as a spreadsheet shows them",
) -> NodeEvents:
    """The windows of a table of text cells (``columns``: each of :data:`NODE_EVENT_COLUMNS` -> its cells,
    ``rows``: how each row is named in a problem, ``numbered``: how the refusal says they are numbered),
    checked as a file's rows are: raises :class:`~simcore.workload.WorkloadError` listing every problem
    (``label``, row, column, why). The dashboard's node-events table is checked here too."""
    nodes = set(cluster.names)
    windows: list[NodeWindow] = []
    problems: list[Problem] = []
    for i, row in enumerate(rows):
        mine: list[Problem] = []
        node = str(columns["node"][i]).strip()
        if not node:
            mine.append(Problem(row, "node", "empty (a node name is required)"))
        elif node not in nodes:
            mine.append(Problem(row, "node", f"no node of the cluster is named {node!r}"))
        start = _seconds(columns["start"][i], row, "start", mine)
        end = _seconds(columns["end"][i], row, "end", mine)
        if start is not None and end is not None and not end > start:
            mine.append(Problem(row, "end", f"must be after start ({_text(end)} <= {_text(start)})"))
        kind = str(columns["kind"][i]).strip().lower()
        if kind not in KINDS:
            mine.append(Problem(row, "kind", f"must be failure or maintenance (got {columns['kind'][i]!r})"))
        problems += mine
        if not mine:
            windows.append(NodeWindow(node, start, end, kind))  # type: ignore[arg-type]
    if problems:
        _refuse(label, problems, numbered)
    return NodeEvents(tuple(windows))


def _seconds(text: str, row: str, column: str, problems: list[Problem]) -> float | None:
    """A time in seconds from a cell, or None with the problem added."""
    shown = str(text).strip()
    try:
        value = float(shown)
    except ValueError:
        problems.append(Problem(row, column, f"must be a number of seconds (got {shown!r})"))
        return None
    if not math.isfinite(value) or value < 0:
        problems.append(Problem(row, column, f"must be a finite number >= 0 (got {shown})"))
        return None
    if value > MAX_TIME:
        problems.append(Problem(row, column, f"must be at most 2^53 s = {MAX_TIME:.0f} (got {shown})"))
        return None
    return value


def _text(x: float) -> str:
    return f"{x:g}"


def _refuse(label: str, problems: list[Problem], numbered: str = "rows as a spreadsheet shows them") -> None:
    head = f"{label}: refused ({len(problems)} problems; {numbered}):\n"
    raise WorkloadError(head + listing(problems), problems)
