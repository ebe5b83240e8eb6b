"""The sidebar's queues table (DESIGN-queues point 2): its text, read and checked as a queues file.

The scenario and the link keep the table as text, CSV lines under the header
``queue,gpu,borrow_limit,weight`` (one row per team), read by the CLI's own reader
(:func:`simcore.workload.queues.load_queues`: :func:`parse`) and kept in its canonical form
(:func:`text_of`, :func:`canonical`). An empty table means "the workload's own queues" (the ``teams``
preset brings three: :func:`own_queues`), or none.

The visitor edits it in a ``st.data_editor`` (:mod:`dashboard.explore.queue_sidebar`), a thin widget
over that text: its rows are the text's cells (:func:`rows_of`; ``gpu`` and ``borrow_limit`` are text
cells, so ``inf`` is typed as in a file), and its edits (:func:`edited`) are read with the same checks
as a queues file's rows (:func:`from_rows`), each problem named by the row as the table shows it (the
first row is row 1) and the column. Valid edits become the table's canonical text; edits with a
problem are kept in the editor, said under it (:func:`pending_problem`), and the runs keep the last
table without one. Nothing here is trusted: cells and text are parsed, never evaluated, and their
size and number of rows are capped before they are read.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from dashboard.shared import keys, table_edits
from dashboard.shared.demo import LOCAL
from dashboard.shared.keys import Key, Session
from simcore.core.errors import UserError
from simcore.core.model import JobTable
from simcore.core.queues import QUEUE_COLUMNS, QueueSpec
from simcore.workload.preset_teams import queues_of
from simcore.workload.presets import resolve_params
from simcore.workload.queues import check_job_queues, load_queues, queues_from_cells
from simcore.workload.writer import format_numbers

HEADER = ",".join(QUEUE_COLUMNS)
LABEL = "the queues table"
MAX_TEXT = 20_000  # characters: a table of the dashboard's largest allowed size takes a few hundred
Row = tuple[str, str, str, str]  # queue, gpu, borrow_limit, weight: a row's cells as text


def parse(text: str, max_queues: int) -> QueueSpec | None:
    """The queues of the table's ``text`` (None when it is empty); a UserError naming the row and
    column of every problem, or the limit of ``max_queues`` rows."""
    text = text.strip()
    if not text:
        return None
    if len(text) > MAX_TEXT:
        raise UserError(f"{LABEL}: {len(text):,} characters, more than {MAX_TEXT:,}: one line per queue")
    lines = [line for line in text.splitlines() if line.strip()]
    _check_count(len(lines) - 1, max_queues)
    return load_queues("\n".join(lines).encode(), name=LABEL).spec


def _check_count(queues: int, max_queues: int) -> None:
    if queues > max_queues:
        raise UserError(f"{LABEL}: {queues} queues, more than the {max_queues} allowed here")


def queues_for(text: str, own: QueueSpec | None, jobs: JobTable, workload: str) -> QueueSpec | None:
    """The queues a scenario's runs use: the table's (``text``), else the workload's ``own`` (the
    ``teams`` preset's), else none; every job's queue must be one of them (a UserError naming it)."""
    spec = parse(text, LOCAL.max_queues) if text.strip() else own
    if spec is not None:
        check_job_queues(spec, jobs, workload, LABEL if text.strip() else "its queues")
    return spec


def text_of(spec: QueueSpec | None) -> str:
    """The table's text for ``spec`` (the header, then one line per queue; inf as ``inf``)."""
    if spec is None:
        return ""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(QUEUE_COLUMNS)
    writer.writerows(rows_of(spec))
    return out.getvalue().rstrip("\n")


def rows_of(spec: QueueSpec | None) -> tuple[Row, ...]:
    """The table's rows for ``spec``: each queue's cells as :func:`text_of` writes them (none for None)."""
    if spec is None:
        return ()
    return tuple((q.name, _number(q.gpu), _number(q.borrow_limit), _number(q.weight)) for q in spec.queues)


def canonical(text: str, max_queues: int) -> str:
    """The table's text as the scenario and the link keep it ("" for no table); raises ValueError
    (a link parameter ignored) or UserError (the sidebar's message) for a bad table."""
    return text_of(parse(text, max_queues))


def _number(v: float) -> str:
    return "inf" if math.isinf(v) else format_numbers(np.asarray([v]))[0]


def proposal(names: list[str], gpus: float) -> QueueSpec:
    """Queues for the names an uploaded workload's ``queue`` column gives: the cluster's GPUs shared
    equally (whole GPUs, the rest to the first), each free to borrow, weight 1 (a start to edit)."""
    k = len(names)
    each = math.floor(gpus / k) if k else 0
    rows = [(name, float(each + (gpus - each * k if i == 0 else 0))) for i, name in enumerate(names)]
    return QueueSpec.of(rows)


def from_rows(rows: Sequence[Sequence[str]], max_queues: int) -> str:
    """The canonical text of the editor's ``rows`` ("" for none): their cells read as a queues file's rows
    are (:func:`simcore.workload.queues.queues_from_cells`), at most ``max_queues``; a UserError names the
    row as the table shows it (the first is row 1) and the column of every problem."""
    if not rows:
        return ""
    _check_count(len(rows), max_queues)
    spec = queues_from_cells([dict(zip(QUEUE_COLUMNS, row, strict=True)) for row in rows], LABEL)
    return canonical(text_of(spec), max_queues)  # and the text's own limits (its length)


def frame(rows: Sequence[Row]) -> pd.DataFrame:
    """The editor's data: the name, quota and borrow limit as text (a number, or ``inf``), the weight a number."""
    columns = list(zip(*rows, strict=True)) if rows else [(), (), (), ()]
    data: dict[str, Any] = {c: pd.Series(v, dtype=object) for c, v in zip(QUEUE_COLUMNS[:3], columns, strict=False)}
    data["weight"] = pd.to_numeric(pd.Series(columns[3], dtype=object), errors="coerce").astype(float)
    return pd.DataFrame(data)


def editor_key(rows: Sequence[Row]) -> Key[dict[str, Any]]:
    """The editor's key for the rows it is drawn over (:func:`dashboard.shared.table_edits.editor_key`)."""
    return table_edits.editor_key(keys.QUEUES_EDITOR, text_of_rows(rows))


def text_of_rows(rows: Sequence[Row]) -> str:
    """The rows as CSV lines (no header): what tells two tables apart."""
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    return out.getvalue()


def edited_text(session: Session, editor: Key[dict[str, Any]], rows: Sequence[Row], max_queues: int) -> str:
    """The table's canonical text once the editor's edits are applied to the ``rows`` it was drawn over; a
    UserError naming the row and column of every problem."""
    changed = table_edits.apply_edits(rows, editor.get(session, {}), QUEUE_COLUMNS)
    return from_rows(changed, max_queues)


def edited(session: Session, editor: Key[dict[str, Any]], rows: Sequence[Row], max_queues: int) -> None:
    """The editor's ``on_change``: valid edits become the table's text (the scenario's, the link's); edits
    with a problem leave it as it was (the editor keeps them, and :func:`pending_problem` says why)."""
    try:
        keys.QUEUES.set(session, edited_text(session, editor, rows, max_queues))
    except UserError:
        pass


def pending_problem(session: Session, editor: Key[dict[str, Any]], rows: Sequence[Row], max_queues: int) -> str | None:
    """Why the editor's edits are not the table's (None when they are, or there are none)."""
    try:
        edited_text(session, editor, rows, max_queues)
    except UserError as exc:
        return str(exc)
    return None


def own_queues(source: str, preset: str, gen: Mapping[str, str]) -> QueueSpec | None:
    """The queues the scenario's workload brings itself: the ``teams`` preset's (as it generates them,
    :func:`simcore.workload.preset_teams.queues_of`); None for any other workload or parameters the
    generator refuses (the run says why)."""
    if source != "generate" or preset != "teams":
        return None
    try:
        return queues_of(resolve_params(preset, gen))
    except UserError:
        return None
