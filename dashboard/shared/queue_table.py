"""The sidebar's queues table (DESIGN-queues point 2): its text, read and checked as a queues file.

The visitor edits the table as CSV lines under the header ``queue,gpu,borrow_limit,weight`` (one
row per team: add a line, remove one, edit a quota, a borrow limit or a weight). The text is read
by the CLI's own reader (:func:`simcore.workload.queues.load_queues`), so every problem names the
row and the column as a queues file's would; the scenario and the link keep the canonical text
(:func:`canonical`). An empty table means "the workload's own queues" (the ``teams`` preset brings
three), or none. Nothing here is trusted: the text is parsed, never evaluated, and its size and
number of rows are capped before it is read.
"""

from __future__ import annotations

import csv
import io
import math

import numpy as np

from dashboard.shared.demo import LOCAL
from simcore.core.errors import UserError
from simcore.core.model import JobTable
from simcore.core.queues import QUEUE_COLUMNS, QueueSpec
from simcore.workload.queues import check_job_queues, load_queues
from simcore.workload.writer import format_numbers

HEADER = ",".join(QUEUE_COLUMNS)
LABEL = "the queues table"
MAX_TEXT = 20_000  # characters: a table of the dashboard's largest allowed size takes a few hundred


def parse(text: str, max_queues: int) -> QueueSpec | None:
    """The queues of the table's ``text`` (None when it is empty); a UserError naming the row and
    column of every problem, or the limit of ``max_queues`` rows."""
    text = text.strip()
    if not text:
        return None
    if len(text) > MAX_TEXT:
        raise UserError(f"{LABEL}: {len(text):,} characters, more than {MAX_TEXT:,}: one line per queue")
    lines = [line for line in text.splitlines() if line.strip()]
    if len(lines) - 1 > max_queues:
        raise UserError(f"{LABEL}: {len(lines) - 1} queues, more than the {max_queues} allowed here")
    return load_queues("\n".join(lines).encode(), name=LABEL).spec


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
    for q in spec.queues:
        numbers = [_number(v) for v in (q.gpu, q.borrow_limit, q.weight)]
        writer.writerow([q.name, *numbers])
    return out.getvalue().rstrip("\n")


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
