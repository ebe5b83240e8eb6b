"""A run's jobs and events CSV, written with what they share printed once.

The two files repeat each other: the events name a job on every row and the jobs CSV names each
job again, and every instant of the jobs CSV's ``submit_time``, ``first_start`` and ``finish`` is
the time of one of the job's own rows of the log (its submit, its first start, its finish). On a
run with fractional times these floats are most of the writing (issue 31: 100,000 M/M/c jobs,
about a million of them at some 80 ns each). So the job ids go through the CSV rule once, and each
distinct instant of the log is printed once (:class:`~simcore.io.csvsafe.Labels`); the columns
pick their cells by code. A job's instant is looked up at its row of that kind and kept only when
equal bit for bit; any other (none is expected) is printed from its own value. The bytes are those
of :meth:`~simcore.core.result.SimResult.job_columns` and ``event_columns`` written apart
(tests/test_runcsv.py).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from simcore.core.result import FINISH, START, SUBMIT, SimResult
from simcore.io.csvsafe import Column, Labels, write_columns

#: the jobs CSV's columns that are instants of the log, and the kind of the job's row that holds each
INSTANTS = {"submit_time": SUBMIT, "first_start": START, "finish": FINISH}


def write_run_csvs(result: SimResult, jobs_path: str | Path | None, events_path: str | Path | None) -> None:
    """Write the jobs CSV to `jobs_path` and the events CSV to `events_path` (either may be None)."""
    jobs, events = run_columns(result)
    if jobs_path:
        write_columns(jobs_path, jobs)
    if events_path:
        write_columns(events_path, events)


def run_columns(result: SimResult) -> tuple[dict[str, Column], dict[str, Column]]:
    """The columns of the jobs CSV and of the events CSV, the job ids and the instants coded with
    :class:`Labels` both share."""
    jobs: dict[str, Column] = {**result.job_columns()}
    events: dict[str, Column] = {**result.event_columns()}
    n = len(result.jobs)
    ids = Labels.of(result.jobs.job_id)
    times = np.ascontiguousarray(result.ev_time)
    new = np.empty(len(times), dtype=bool)  # a row whose time differs from the row before (bits: -0.0 is not 0.0)
    new[:1] = True
    np.not_equal(times.view(np.int64)[1:], times.view(np.int64)[:-1], out=new[1:])
    instant = np.cumsum(new) - 1  # per row, its instant among the distinct ones in log order
    distinct = [times[new]]
    known = distinct[0].view(np.int64)
    codes: dict[str, np.ndarray] = {}
    for name, kind in INSTANTS.items():
        values = np.ascontiguousarray(jobs[name], dtype=float)
        row = _row_of_each_job(result, kind, n)
        if len(instant):
            code = instant[np.maximum(row, 0)]
            same = (row >= 0) & (known[code] == values.view(np.int64))
        else:  # a run without events has no job either
            code, same = np.zeros(n, dtype=np.int64), np.zeros(n, dtype=bool)
        if not same.all():  # printed from its own value, as a label of its own
            code[~same] = sum(len(d) for d in distinct) + np.arange(int((~same).sum()))
            distinct.append(values[~same])
        codes[name] = code
    instants = Labels.of(np.concatenate(distinct))
    shared_jobs: dict[str, Column] = {"job_id": (ids, np.arange(n)), **{k: (instants, codes[k]) for k in INSTANTS}}
    shared_events: dict[str, Column] = {"time": (instants, instant), "job_id": (ids, result.ev_job)}
    return {**jobs, **shared_jobs}, {**events, **shared_events}


def _row_of_each_job(result: SimResult, kind: int, n: int) -> np.ndarray:
    """Per job, its first row of the log of event `kind` (-1: none); the caller checks the times, so
    another of its rows of that kind would only cost a label."""
    rows = np.flatnonzero(result.ev_code == kind)[::-1]  # numpy keeps the last of repeated indices: the first row
    out = np.full(n, -1, dtype=np.int64)
    out[result.ev_job[rows]] = rows
    return out
