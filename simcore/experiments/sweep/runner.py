"""A sweep with incremental, resumable output: run the tasks of a spec not yet stored, store each
as it finishes, and merge everything into one table in the spec's order.

Finished tasks land atomically in part files next to the output (``OUT.parts/``), and the
parts are merged into ``OUT`` (Parquet) at the end (:mod:`simcore.experiments.sweep.store`). Running again
with the same output skips every task whose rows are already there (resume); a damaged part is
set aside and its task runs again. Rows depend only on the task and the final table is sorted by
the spec's own order (point, seed, policy), so the same grid gives byte-identical files whatever
the executor and worker count. Wall time is kept out of the rows; :class:`SweepReport` carries it.
:func:`run_sweeps` runs several sweeps as one, sharing the runs they have in common.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from simcore.experiments.sweep.executors import execute, execute_units
from simcore.experiments.sweep.spec import SweepSpec, Task, point_id
from simcore.experiments.sweep.store import (
    ID_COLUMNS,
    good_parts,
    load_store,
    part_path,
    parts_dir,
    remove_merged,
    write_atomic,
)
from simcore.experiments.sweep.tasks import METRIC_COLUMNS, configurations, run_tasks, workload_key
from simcore.io.csvsafe import write_csv


@dataclass
class SweepReport:
    rows: pd.DataFrame  # this spec's rows (all of them, resumed ones included), in spec order
    ran_tasks: int
    skipped_tasks: int
    simulations: int  # run now (ran_tasks x policies)
    wall_seconds: float  # of the tasks run now, executor start-up included
    notes: list[str] = field(default_factory=list)  # part files set aside as damaged

    @property
    def simulations_per_second(self) -> float:
        return self.simulations / self.wall_seconds if self.simulations and self.wall_seconds > 0 else math.nan


def read_rows(out: str | Path) -> pd.DataFrame:
    """Every row stored for ``out``: the merged Parquet file plus the good part files (bad
    parts are set aside, see :mod:`simcore.experiments.sweep.store`; :func:`run_sweep` reports them)."""
    return load_store(out, METRIC_COLUMNS)[0]


def run_sweep(
    spec: SweepSpec,
    out: str | Path | None = None,
    *,
    workers: int = 1,
    dask: str | None = None,
    progress: bool = False,
    csv: str | Path | None = None,
    limit: int | None = None,
    on_task: Callable[[Task], None] | None = None,
    log: Callable[[str], None] | None = None,
) -> SweepReport:
    """Run the tasks of ``spec`` not yet stored in ``out`` and merge everything into ``out``.

    ``limit`` runs at most that many tasks (the rest stay to do: resume later). Without ``out``
    nothing is written and nothing is skipped. Part files set aside as damaged are reported
    through ``log`` as soon as they are found, and listed in :attr:`SweepReport.notes`."""
    from tqdm import tqdm

    out_path = Path(out) if out is not None else None
    tasks = spec.tasks()
    labels = [p.label for p in spec.policies]
    stored, notes = pd.DataFrame(columns=list(ID_COLUMNS)), list[str]()
    if out_path is not None:
        stored, notes = load_store(out_path, METRIC_COLUMNS)
    if log is not None:
        for note in notes:
            log(note)
    done = _done_tasks(stored, labels)
    todo = [t for t in tasks if t.key not in done]
    skipped = len(tasks) - len(todo)
    if limit is not None:
        todo = todo[:limit]
    new_rows: list[dict[str, Any]] = []
    if out_path is not None and todo:
        parts_dir(out_path).mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    bar = tqdm(total=len(todo), unit="task", desc="sweep", disable=not progress, leave=False)
    try:
        by_key = {t.key: t for t in todo}
        for rows in execute(todo, workers=workers, dask=dask):
            task = by_key[(rows[0]["point_id"], rows[0]["seed"])]
            new_rows.extend(rows)
            if out_path is not None:
                write_atomic(pd.DataFrame(rows), part_path(out_path, task.point_id, task.seed))
            if on_task is not None:
                on_task(task)
            bar.update(1)
    finally:
        bar.close()
    wall = time.perf_counter() - start
    merged = _merge(spec, out_path, stored, new_rows)
    if csv is not None:
        write_csv(merged, csv)
    return SweepReport(_mine(merged, spec, tasks), len(todo), skipped, len(todo) * len(labels), wall, notes)


def run_sweeps(
    sweeps: Sequence[tuple[SweepSpec, str | Path]],
    *,
    workers: int = 1,
    dask: str | None = None,
    on_task: Callable[[int, Task], None] | None = None,
    on_stored: Callable[[int, int], None] | None = None,
) -> list[SweepReport]:
    """Several sweeps run as one, each into its own output (resumed like :func:`run_sweep`).

    Their tasks are grouped by workload (:func:`~simcore.experiments.sweep.tasks.workload_key`): a group is
    one unit of work that builds its workload once and simulates each distinct configuration once
    (:func:`~simcore.experiments.sweep.tasks.run_tasks`), however many sweeps ask for it. The units go to one
    pool, the longest first (by distinct simulations), so no worker idles while another finishes a
    long one. Each sweep's rows are stored and merged in its own spec order, so every output is
    byte-identical to what :func:`run_sweep` writes alone, whatever the worker count.
    ``on_stored(i, n)`` says, before any work, that ``n`` tasks of sweep ``i`` were stored by an
    earlier run; ``on_task(i, task)`` is called for each task of sweep ``i`` once its unit is
    stored (one part file per sweep and unit: :mod:`simcore.experiments.sweep.store`). Every report's
    ``wall_seconds`` is the wall time of the whole run."""
    outs = [Path(out) for _, out in sweeps]
    loaded = [load_store(out, METRIC_COLUMNS) for out in outs]
    todos = []
    for (spec, _), (stored, _) in zip(sweeps, loaded, strict=True):
        done = _done_tasks(stored, [p.label for p in spec.policies])
        todos.append([t for t in spec.tasks() if t.key not in done])
        if on_stored is not None:
            on_stored(len(todos) - 1, len(spec.tasks()) - len(todos[-1]))
    groups: dict[str, list[tuple[int, Task]]] = {}
    for i, todo in enumerate(todos):
        for t in todo:
            groups.setdefault(workload_key(t), []).append((i, t))
    units = sorted(groups.values(), key=lambda g: -_distinct_runs(g))  # stable: ties keep the plan's order
    new_rows: list[list[dict[str, Any]]] = [[] for _ in sweeps]
    for out, todo in zip(outs, todos, strict=True):
        if todo:
            parts_dir(out).mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    for unit, rows_of in execute_units(_run_unit, units, workers, dask):
        for i, (first, rows) in _by_sweep(unit, rows_of).items():
            new_rows[i].extend(rows)
            write_atomic(pd.DataFrame(rows), part_path(outs[i], first.point_id, first.seed))
        if on_task is not None:
            for i, task in unit:
                on_task(i, task)
    wall = time.perf_counter() - start
    reports = []
    for i, (spec, _) in enumerate(sweeps):
        merged = _merge(spec, outs[i], loaded[i][0], new_rows[i])
        ran, tasks = len(todos[i]), spec.tasks()
        reports.append(
            SweepReport(_mine(merged, spec, tasks), ran, len(tasks) - ran, ran * len(spec.policies), wall, loaded[i][1])
        )
    return reports


def _run_unit(unit: list[tuple[int, Task]]) -> tuple[list[tuple[int, Task]], list[list[dict[str, Any]]]]:
    """A unit's rows, returned with the unit (a pool yields in completion order)."""
    return unit, run_tasks([t for _, t in unit])


def _by_sweep(
    unit: Sequence[tuple[int, Task]], rows_of: Sequence[list[dict[str, Any]]]
) -> dict[int, tuple[Task, list[dict[str, Any]]]]:
    """A unit's rows by sweep, each with the sweep's first task in the unit (its part's name):
    one part per sweep and unit, since a unit's tasks all arrive together."""
    out: dict[int, tuple[Task, list[dict[str, Any]]]] = {}
    for (i, task), rows in zip(unit, rows_of, strict=True):
        out.setdefault(i, (task, []))[1].extend(rows)
    return out


def _distinct_runs(unit: Sequence[tuple[int, Task]]) -> int:
    return len({repr(c.config) for _, t in unit for c in configurations(t)}) + sum(t.bound for _, t in unit)


def _merge(spec: SweepSpec, out: Path | None, stored: pd.DataFrame, new_rows: list[dict[str, Any]]) -> pd.DataFrame:
    """Stored and new rows in spec order, written to ``out`` (merging its parts) when there is something new."""
    fresh = pd.DataFrame(new_rows)
    merged = stored if not new_rows else fresh if stored.empty else pd.concat([stored, fresh], ignore_index=True)
    merged = merged.drop_duplicates(subset=list(ID_COLUMNS), keep="last")
    merged = _sort(merged, spec)
    if out is not None and (new_rows or good_parts(out)):
        write_atomic(merged, out)
        remove_merged(out)
    return merged


def _mine(merged: pd.DataFrame, spec: SweepSpec, tasks: Sequence[Task]) -> pd.DataFrame:
    """This spec's rows (an output may hold rows of other specs)."""
    labels = [p.label for p in spec.policies]
    mine = merged[merged["point_id"].isin({t.point_id for t in tasks}) & merged["policy"].isin(labels)]
    return mine[mine["seed"].isin(spec.seeds)].reset_index(drop=True)


def _done_tasks(stored: pd.DataFrame, labels: Sequence[str]) -> set[tuple[str, int]]:
    if stored.empty:
        return set()
    have = stored[stored["policy"].isin(labels)].groupby(["point_id", "seed"])["policy"].nunique()
    complete = have[have == len(labels)].index
    return {(str(p), int(s)) for p, s in zip(complete.get_level_values(0), complete.get_level_values(1), strict=True)}


def _sort(df: pd.DataFrame, spec: SweepSpec) -> pd.DataFrame:
    """Spec order (point, seed, policy) first; rows of other specs keep their stored order after."""
    pindex = {point_id(spec.source, p): i for i, p in enumerate(spec.points)}
    order = pd.DataFrame(
        {
            "p": df["point_id"].map(pindex),
            "s": df["seed"].map({s: i for i, s in enumerate(spec.seeds)}),
            "l": df["policy"].map({p.label: i for i, p in enumerate(spec.policies)}),
        }
    )
    order["other"] = order.isna().any(axis=1)
    order["pos"] = np.arange(len(df))
    order.loc[order["other"], ["p", "s", "l"]] = 0
    keys = order.sort_values(["other", "p", "s", "l", "pos"], kind="stable").index
    return df.loc[keys].reset_index(drop=True)
