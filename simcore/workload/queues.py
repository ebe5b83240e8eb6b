"""Queues files (``--queues FILE``, DESIGN-queues point 2): CSV or YAML to a :class:`~simcore.core.queues.QueueSpec`,
and the check that every job's queue is in it.

One row per queue: ``queue`` (name, unique after stripping blanks), ``gpu`` (the quota: GPUs
guaranteed, >= 0 or ``inf``), ``borrow_limit`` (GPUs it may hold above the quota: empty or ``inf``
= unlimited, 0 = never borrows), ``weight`` (finite, > 0; empty = 1). CSV has a header row; YAML
(or JSON) is a list of mappings with those keys, alone or under ``queues:``. Every problem names
the file, the row (CSV rows as a spreadsheet shows them, YAML entries from 1) and the column:
unknown columns, an empty or bad ``gpu``, a negative quota or limit, a weight <= 0, a duplicate
name; nothing is defaulted silently. Amounts are rounded to thousandths of a GPU, as requests.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from simcore.core.model import MAX_RESOURCE, JobTable
from simcore.core.queues import MAX_QUEUES, QUEUE_COLUMNS, Queue, QueueSpec, job_queue_names
from simcore.io.csvsafe import write_columns
from simcore.workload.clusters import _safe_yaml
from simcore.workload.problems import MAX_LISTED, LimitExceeded, LoadedWorkload, Problem, WorkloadError
from simcore.workload.readers import decode, read_csv_raw, read_source
from simcore.workload.writer import format_numbers

MAX_QUEUE_BYTES = 1_000_000  # a queues file of MAX_QUEUES rows takes a few tens of kB
_INF_TEXT = ("inf", "+inf", "infinity", "+infinity")


@dataclass(frozen=True)
class LoadedQueues:
    """A validated queues file; ``notes`` say what was rounded (show them)."""

    spec: QueueSpec
    source: str
    notes: list[str] = field(default_factory=list)


def load_queues(
    source: str | Path | bytes, *, name: str | None = None, max_bytes: int = MAX_QUEUE_BYTES
) -> LoadedQueues:
    """Read and validate a queues file (a path, or uploaded ``bytes`` with its ``name``): YAML/JSON by
    the extension ``.yaml``, ``.yml``, ``.json`` or a first character ``[`` or ``{``, else CSV.
    Raises :class:`~simcore.workload.WorkloadError` listing every problem (file, row, column, why)."""
    data, label = read_source(source, name, max_bytes)
    if Path(label).suffix.lower() in (".yaml", ".yml", ".json") or data.lstrip(b"\xef\xbb\xbf \t\r\n")[:1] in (
        b"{",
        b"[",
    ):
        rows = _yaml_rows(data, label)
    else:
        rows = _csv_rows(data, label)
    return _validate(rows, label)


def queues_from_cells(rows: list[dict[str, str]], label: str) -> QueueSpec:
    """Queues given as a table's cells (column -> text, as a program holds them: the dashboard's editor),
    checked as a queues file's rows are, the i-th row (from 1, as the table shows it) named ``row i``.
    Raises :class:`~simcore.workload.WorkloadError` naming each problem's row and column."""
    return _validate([(f"row {i}", row) for i, row in enumerate(rows, start=1)], label).spec


def _csv_rows(data: bytes, label: str) -> list[tuple[str, dict[str, Any]]]:
    try:
        raw = read_csv_raw(data, label, max_rows=MAX_QUEUES)
    except LimitExceeded:
        raise LimitExceeded(label, f"{MAX_QUEUES + 1:,} queue rows or more", "row", MAX_QUEUES) from None
    if raw.problems:
        raise WorkloadError(f"{label}: refused:\n" + "\n".join(f"  {p}" for _, p in raw.problems[:MAX_LISTED]))
    columns = list(raw.columns)
    _check_columns(label, "row 1 (the header)", columns)
    if not len(raw):
        raise WorkloadError(f"{label}: the file has a header but no queue rows")
    return [(raw.label(i), {c: raw.columns[c][i] for c in columns}) for i in range(len(raw))]


def _yaml_rows(data: bytes, label: str) -> list[tuple[str, dict[str, Any]]]:
    try:
        doc = _safe_yaml(decode(data, label), label, MAX_QUEUES)
    except WorkloadError:
        raise
    except Exception as exc:  # yaml raises many error types; all mean "not a readable file"
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise WorkloadError(f"{label}: not readable as YAML/JSON ({first})") from None
    if isinstance(doc, dict) and set(doc) == {"queues"}:
        doc = doc["queues"]
    if not isinstance(doc, list) or not doc:
        raise WorkloadError(
            f"{label}: expected a list of queues (alone or under 'queues:'), e.g. "
            "[{queue: vision, gpu: 64, borrow_limit: 32, weight: 1}]"
        )
    rows = []
    for i, entry in enumerate(doc, start=1):
        if not isinstance(entry, dict):
            raise WorkloadError(f"{label}: entry {i}: expected a mapping of {', '.join(QUEUE_COLUMNS)}")
        _check_columns(label, f"entry {i}", [str(k) for k in entry])
        rows.append((f"entry {i}", {str(k): v for k, v in entry.items()}))
    return rows


def _check_columns(label: str, where: str, columns: list[str]) -> None:
    unknown = [c for c in columns if c not in QUEUE_COLUMNS]
    missing = [c for c in ("queue", "gpu") if c not in columns]
    problems = [Problem(where, c, f"unknown column (known: {', '.join(QUEUE_COLUMNS)})") for c in unknown]
    problems += [Problem(where, c, "required column missing") for c in missing]
    if problems:
        raise WorkloadError(f"{label}: refused:\n" + "\n".join(f"  {p}" for p in problems), problems)


def _validate(rows: list[tuple[str, dict[str, Any]]], label: str) -> LoadedQueues:
    problems: list[Problem] = []
    queues: list[Queue] = []
    first: dict[str, str] = {}  # name -> the row that named it first
    rounded = 0
    for where, row in rows:
        name = "" if row.get("queue") is None else str(row["queue"]).strip()
        mine: list[Problem] = []
        if not name:
            mine.append(Problem(where, "queue", "empty (a queue name is required)"))
        elif name in first:
            mine.append(Problem(where, "queue", f"duplicate queue {name!r} (first at {first[name]})"))
        gpu = _amount(row.get("gpu"), where, "gpu", mine, empty=None)
        limit = _amount(row.get("borrow_limit"), where, "borrow_limit", mine, empty=math.inf)
        weight = _weight(row.get("weight"), where, mine)
        problems += mine
        if name and name not in first:
            first[name] = where
        if not mine:
            assert gpu is not None and limit is not None and weight is not None
            rounded += sum(not math.isinf(v) and float(np.rint(v * 1000)) != v * 1000 for v in (gpu, limit))
            queues.append(Queue(name, gpu, limit, weight))
    if problems:
        listing = "\n".join(f"  {p}" for p in problems[:MAX_LISTED])
        more = f"\n  ... and {len(problems) - MAX_LISTED} more problems" if len(problems) > MAX_LISTED else ""
        raise WorkloadError(
            f"{label}: refused: {len(problems)} problem(s) in the queues file:\n{listing}{more}", problems
        )
    notes = [f"{label}: {rounded} quota or borrow limit value(s) rounded to thousandths of a GPU"] if rounded else []
    return LoadedQueues(QueueSpec(tuple(queues)), label, notes)


def _amount(value: Any, where: str, column: str, out: list[Problem], empty: float | None) -> float | None:
    """A GPU amount: a number >= 0 (at most MAX_RESOURCE) or inf; `empty` for an empty cell (None: an error)."""
    text = "" if value is None else str(value).strip()
    if not text:
        if empty is None:
            out.append(Problem(where, column, "empty (a number of GPUs >= 0, or inf, is required)"))
        return empty
    if isinstance(value, bool):
        out.append(Problem(where, column, "true/false is not a number"))
        return None
    if text.lower() in _INF_TEXT:
        return math.inf
    try:
        v = float(text)
    except ValueError:
        out.append(Problem(where, column, f"not a number: {text!r} (GPUs >= 0, or inf)"))
        return None
    if math.isnan(v) or v < 0 or v > MAX_RESOURCE:
        out.append(Problem(where, column, f"must be >= 0 and <= {MAX_RESOURCE:g}, or inf (got {text!r})"))
        return None
    return v


def _weight(value: Any, where: str, out: list[Problem]) -> float | None:
    text = "" if value is None else str(value).strip()
    if not text:
        return 1.0
    try:
        v = float(text) if not isinstance(value, bool) else math.nan
    except ValueError:
        v = math.nan
    if not (math.isfinite(v) and 0 < v <= MAX_RESOURCE):
        out.append(Problem(where, "weight", f"must be a finite number > 0 (at most {MAX_RESOURCE:g}; got {text!r})"))
        return None
    return v


def check_job_queues(spec: QueueSpec, jobs: JobTable | LoadedWorkload, workload: str, queues_file: str) -> None:
    """Every job's queue must be in `spec`: else :class:`WorkloadError` naming the workload file, each
    job's row (when the loader kept row numbers; else its id) and the column ``queue``."""
    table = jobs.table if isinstance(jobs, LoadedWorkload) else jobs
    names = job_queue_names(table)
    known = set(spec.names)
    bad = [i for i, x in enumerate(names.tolist()) if x not in known]
    if not bad:
        return
    problems = []
    for i in bad:
        row = jobs.row_of(i) if isinstance(jobs, LoadedWorkload) else None
        where = row if row is not None else f"job {table.job_id[i]!r}"
        problems.append(Problem(where, "queue", f"queue {names[i]!r} is not in the queues file {queues_file}"))
    listing = "\n".join(f"  {p}" for p in problems[:MAX_LISTED])
    more = f"\n  ... and {len(problems) - MAX_LISTED} more" if len(problems) > MAX_LISTED else ""
    raise WorkloadError(
        f"{workload}: refused: {len(bad)} job(s) name a queue that {queues_file} does not define "
        f"(known: {', '.join(spec.names)}):\n{listing}{more}",
        problems,
    )


def write_queues(spec: QueueSpec, path: str | Path) -> None:
    """Write `spec` as a queues CSV (``queue, gpu, borrow_limit, weight``; inf as ``inf``): what
    :func:`load_queues` reads back to the same queues."""
    name, *numbers = QUEUE_COLUMNS
    columns = {name: np.array(spec.names, dtype=object)}
    for col in numbers:
        values = np.array([getattr(q, col) for q in spec.queues], dtype=float)
        columns[col] = np.array(
            ["inf" if math.isinf(v) else text for v, text in zip(values, format_numbers(values), strict=True)],
            dtype=object,
        )
    write_columns(path, columns)
