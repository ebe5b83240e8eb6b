"""What the gang-trace adapters share: their options, the description each format fills in, and
the conversion from the jobs a format extracts to the simulator's jobs.

The conversion, the same for every format: jobs without a run time (the trace records no end)
and jobs that ran 0 s are left out and counted; CPU-only jobs are left out and counted unless
``keep_cpu_only``; the class comes from the trace's own field where it has one (``job_type`` of
the spot-GPU trace) or from the size map (TE = at most ``te_max_gpu`` GPUs over all workers and
at most ``te_max_hours`` of run time); arrivals are shifted so the first kept job arrives at 0,
then divided by ``compress``. Nothing is left out silently: every count is in the notes.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from simcore.core.errors import UserError
from simcore.core.model import JobTable, clock_problems
from simcore.workload.alibaba import Conversion
from simcore.workload.problems import Problem, RawTable
from simcore.workload.readers import read_csv_raw

HOUR = 3600.0
SIZE_MAP = "size"
NO_QUEUES = "none"  # --trace-queue-map none: the jobs name no queue
#: the years a trace's date-time may fall in (:func:`outside_years`)
FIRST_YEAR, LAST_YEAR = 1678, 2261
# a year as pandas reads it: 4 digits, or any digits after a minus (9 are enough to tell)
_YEAR = re.compile(r"\s*(-[0-9]{1,9}|[0-9]{4})")


@dataclass(frozen=True)
class TraceOptions:
    """The adapters' options (CLI: ``--trace-class-map`` and the Alibaba group's ``--te-max-gpu``,
    ``--te-max-hours``, ``--keep-cpu-only``, ``--compress``, which mean the same here)."""

    class_map: str | None = None  # None: the format's own map where it has one, else size
    te_max_gpu: float = 1.0  # size map: TE when workers x GPUs per worker <= this ...
    te_max_hours: float = 1.0  # ... and the run takes at most this many hours
    keep_cpu_only: bool = False
    compress: float = 1.0  # divide arrival times (so inter-arrival gaps) by this
    queue_map: str | None = None  # the column giving each job's queue; None: the format's own, "none": no queues

    def __post_init__(self) -> None:
        for name, value, ok in (
            ("--te-max-gpu", self.te_max_gpu, self.te_max_gpu >= 0),
            ("--te-max-hours", self.te_max_hours, self.te_max_hours >= 0),
            ("--compress", self.compress, self.compress > 0),
        ):
            if not (math.isfinite(value) and ok):
                raise UserError(
                    f"{name}: {value!r} must be a finite number {'> 0' if name == '--compress' else '>= 0'}"
                )


@dataclass(frozen=True, eq=False)
class Extracted:
    """A trace's jobs as the simulator reads them, before the filters of :func:`convert`."""

    job_id: np.ndarray  # object array of str
    submit: np.ndarray  # trace seconds (any origin)
    duration: np.ndarray  # seconds; NaN where the trace records no run
    request: np.ndarray  # (n x 3) per worker: cores, GiB, GPUs
    workers: np.ndarray  # int64
    native_te: np.ndarray | None = None  # the trace's own class, where it has one
    user: np.ndarray | None = None
    notes: list[str] = field(default_factory=list)
    teams: Mapping[str, np.ndarray] = field(default_factory=dict)  # columns that can name a job's queue


@dataclass(frozen=True)
class TraceFormat:
    """One trace's job file: the headers that select it, its per-value rules (pydantic types, as
    :data:`simcore.workload.JOB_SCHEMA`), its rules across columns and its mapping to jobs."""

    name: str  # the --format value
    title: str
    headers: tuple[tuple[str, ...], ...]  # exact headers (lower case) that select this format
    schema: Mapping[str, Any]
    unique: str | None  # the column whose values must be unique
    row_problems: Callable[[Mapping[str, list[Any]]], list[tuple[int, str, str]]]
    extract: Callable[[Mapping[str, np.ndarray]], Extracted]
    native_map: str | None = None  # the name of the trace's own class map, if it has one
    headerless: bool = False  # the published file has no header row (it may be given one)
    team_map: str | None = None  # the column that names a job's team, by default its queue (None: none)
    team_columns: tuple[str, ...] = ()  # every column that may name the queues (--trace-queue-map)

    @property
    def required(self) -> tuple[str, ...]:
        """The validated columns that every accepted header has."""
        return tuple(c for c in self.schema if all(c in h for h in self.headers))

    def class_maps(self) -> tuple[str, ...]:
        return (self.native_map, SIZE_MAP) if self.native_map else (SIZE_MAP,)

    def queue_column(self, options: TraceOptions) -> str | None:
        """The column that gives each job's queue under ``options`` (None: no queues)."""
        chosen = self.team_map if options.queue_map is None else options.queue_map
        if chosen in (None, NO_QUEUES):
            return None
        if chosen not in self.team_columns:
            known = ", ".join((*self.team_columns, NO_QUEUES))
            raise UserError(f"--trace-queue-map {chosen}: the {self.name} format has {known}")
        return chosen


def read_raw(fmt: TraceFormat, data: bytes, source: str, max_rows: int) -> RawTable:
    """Read a trace CSV. A headerless format's file without its header is read with the published
    header put before it, and its rows are then numbered as the lines of the file."""
    first = next((line for line in data.splitlines() if line.strip()), b"")
    header = ",".join(fmt.headers[0])
    if not fmt.headerless or first.decode("utf-8", "replace").strip().lower().lstrip("\ufeff") == header:
        return read_csv_raw(data, source, max_rows)
    raw = read_csv_raw(header.encode() + b"\n" + data, source, max_rows)
    raw.numbers = raw.numbers - 1
    raw.problems = [(i, Problem(raw.label(i), p.column, p.reason)) for i, p in raw.problems]
    raw.row_convention = "the file has no header: rows are numbered as its lines, the first is row 1"
    return raw


def outside_years(values: np.ndarray) -> np.ndarray:
    """The mask of the texts whose year (the digits an ISO 8601 date-time begins with) is outside
    :data:`FIRST_YEAR` to :data:`LAST_YEAR`: pandas holds a time as nanoseconds in an int64, from
    1677-09-21 to 2262-04-11, and whole years inside that span cannot leave it, UTC offset or not."""
    years = (_YEAR.match(str(v)) for v in values)
    return np.array([m is not None and not FIRST_YEAR <= int(m[1]) <= LAST_YEAR for m in years], dtype=bool)


def seconds(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Date-time texts (ISO 8601, with or without a UTC offset) as seconds since 1970 UTC, and the
    mask of the texts that are not date-times or fall outside the years :func:`outside_years` allows."""
    far = outside_years(values)
    texts = pd.Series(np.where(far, "", values), dtype=object)
    parsed = pd.to_datetime(texts, utc=True, format="ISO8601", errors="coerce")
    bad = parsed.isna().to_numpy()
    out = np.full(len(values), np.nan)
    out[~bad] = (parsed[~bad] - pd.Timestamp(0, tz="UTC")).dt.total_seconds().to_numpy()
    return out, bad


def datetime_problems(parsed: Mapping[str, list[Any]], columns: tuple[str, ...]) -> list[tuple[int, str, str]]:
    """Rows whose date-time texts in ``columns`` do not parse or fall outside the years allowed
    (empty cells are other rules' business)."""
    out: list[tuple[int, str, str]] = []
    for column in columns:
        values = np.array([v if v is not None else "" for v in parsed.get(column, [])], dtype=object)
        # what the schema kept (pydantic strips Unicode white space only: a cell "\x1f" is given)
        given = np.array([v != "" for v in values], dtype=bool)
        far = outside_years(values)
        _, bad = seconds(np.where(given, values, "1970-01-01"))
        for i in np.flatnonzero(bad & given):
            shown = str(values[i])[:40]
            why = f"the year is outside {FIRST_YEAR} to {LAST_YEAR}" if far[i] else "not a date-time"
            out.append((int(i), column, f"{why}: {shown!r}"))
    return out


def convert(fmt: TraceFormat, columns: Mapping[str, np.ndarray], options: TraceOptions) -> Conversion:
    """The jobs of validated trace columns (object arrays of the kept rows), filtered and mapped."""
    class_map = options.class_map or fmt.native_map or SIZE_MAP
    if class_map not in fmt.class_maps():
        raise UserError(f"--trace-class-map {class_map}: the {fmt.name} format has {' or '.join(fmt.class_maps())}")
    queue_column = fmt.queue_column(options)
    ex = fmt.extract(columns)
    notes = list(ex.notes)
    counts: dict[str, int] = {}
    keep = np.ones(len(ex.job_id), dtype=bool)
    for key, mask, why in (
        ("no_run_time", np.isnan(ex.duration), "the trace records no run time (no end, or never started)"),
        ("zero_duration", ex.duration == 0, "they ran 0 s (a job needs a duration > 0)"),
        ("cpu_only", (ex.request[:, 2] == 0) & (not options.keep_cpu_only), "CPU-only (--keep-cpu-only keeps them)"),
    ):
        left_out = mask & keep
        counts[key] = int(left_out.sum())
        if counts[key]:
            notes.append(f"left out {counts[key]} jobs: {why}")
        keep &= ~left_out
    if not keep.any():
        return Conversion(JobTable.from_jobs([]), notes, counts)
    gpus = ex.workers * ex.request[:, 2]
    if class_map == SIZE_MAP:
        is_te = (gpus <= options.te_max_gpu) & (ex.duration <= options.te_max_hours * HOUR)
    else:
        assert ex.native_te is not None
        is_te = ex.native_te
    submit = ex.submit[keep]
    extra = {"user": ex.user[keep]} if ex.user is not None else {}
    if queue_column is not None:
        extra["queue"] = _queue_names(ex.teams[queue_column][keep])
        notes.append(_queues_note(fmt, queue_column, extra["queue"]))
    table = JobTable(
        job_id=ex.job_id[keep],
        submit_time=(submit - submit.min()) / options.compress,
        duration=ex.duration[keep],
        request=ex.request[keep],
        is_te=is_te[keep],
        extra=extra,
        workers=ex.workers[keep],
    )
    beyond, unseen = clock_problems(table.submit_time, table.duration)
    if beyond.any() or unseen.any():  # what a workload file's checks refuse (simcore.workload.schema)
        job = table.job_id[np.flatnonzero(beyond | unseen)[0]]
        raise UserError(f"{fmt.title}: job {job}: its times are beyond what float64 seconds hold exactly")
    counts["jobs"] = len(table)
    counts["gangs"] = int(np.sum(table.workers > 1))  # type: ignore[operator]
    notes.append(
        f"{fmt.title}: {len(table)} jobs ({int(table.is_te.sum())} TE by the {class_map} map), "
        f"{counts['gangs']} of them gangs; first arrival moved to t = 0"
        + (f", arrival times divided by {options.compress:g}" if options.compress != 1 else "")
    )
    return Conversion(table, notes, counts)


def _queue_names(values: np.ndarray) -> np.ndarray:
    """A team column as queue names: text without surrounding blanks; an empty cell stays empty (the
    job is then in queue ``default``, DESIGN-queues point 1)."""
    return np.array(["" if v is None else str(v).strip() for v in values.tolist()], dtype=object)


#: queue names a note lists before "and N more"
SHOWN_QUEUES = 8


def _queues_note(fmt: TraceFormat, column: str, names: np.ndarray) -> str:
    """What the queue column holds, and that the quotas must come from a queues file."""
    found = sorted({n or "default" for n in names.tolist()})
    listed = ", ".join(found[:SHOWN_QUEUES]) + (
        f" and {len(found) - SHOWN_QUEUES} more" if len(found) > SHOWN_QUEUES else ""
    )
    return (
        f"queue = the trace's {column} column: {len(found)} queues ({listed}); the trace states no quotas: "
        "give them in a queues file (--queues) to run with queues"
    )
