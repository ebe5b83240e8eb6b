"""Running the study: each part is a plain sweep (:mod:`simcore.experiments.sweep`) whose grid file is written next
to its rows, fresh unless resumed; then the document is written and the headline printed.

The parts: *main* (the ``paper`` preset over many seeds, every policy and fitgpp's ``P`` / ``s``
variants), *curves* (one setting at a time), *alibaba_A/B* (the trace, if present), the two
sweeps of section 8 (:mod:`simcore.experiments.study.beyond`), the gang sweep of section 10
(:mod:`simcore.experiments.study.gangs`), the failure sweeps of section 11
(:mod:`simcore.experiments.study.failures`) and the teams sweep of section 12
(:mod:`simcore.experiments.study.teams`). They run together (:func:`run_grids`): a run two parts share is
simulated once, and one pool serves them all.
"""

from __future__ import annotations

import math
import shutil
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypedDict

import pandas as pd

from simcore.analysis.metrics import TRIO_LABELS
from simcore.analysis.stats import SPREAD_NAME
from simcore.experiments import sweep
from simcore.experiments.study import beyond, results_doc
from simcore.experiments.study.document import render
from simcore.experiments.study.figures import drawn_by
from simcore.experiments.study.plan import (
    DEFAULT_TRACE,
    PAPER_TRIO,
    Plan,
    curve_grid,
    main_grid,
    trace_grids,
    trace_present,
)
from simcore.experiments.study.progress import StudyProgress
from simcore.experiments.study.tables import headline_rows

REPO_ROOT = Path(__file__).resolve().parents[3]


class RunOptions(TypedDict):
    """How every part of the study is run (the keyword arguments of :func:`run_grid`)."""

    workers: int
    dask: str | None
    progress: StudyProgress | None
    resume: bool


def run_grid(
    grid: Mapping[str, Any],
    name: str,
    results: Path,
    *,
    workers: int,
    dask: str | None,
    progress: StudyProgress | None,
    resume: bool,
) -> tuple[pd.DataFrame, float]:
    """Write the grid file, run it into ``rows_<name>.parquet`` (fresh unless ``resume``), return rows and wall time."""
    rows, wall = run_grids([(grid, name)], results, workers=workers, dask=dask, progress=progress, resume=resume)
    return rows[name], wall


def run_grids(
    grids: Sequence[tuple[Mapping[str, Any], str]],
    results: Path,
    *,
    workers: int,
    dask: str | None,
    progress: StudyProgress | None,
    resume: bool,
) -> tuple[dict[str, pd.DataFrame], float]:
    """Write each grid file and run the grids together (:func:`simcore.experiments.sweep.run_sweeps`: a run two
    grids share is simulated once, each workload built once), each into ``rows_<name>.parquet``
    (fresh unless ``resume``); return the rows by name and the wall time."""
    import yaml

    sweeps = []
    for grid, name in grids:
        (results / f"grid_{name}.yaml").write_text(yaml.safe_dump(_yaml_ready(grid), sort_keys=False), encoding="utf-8")
        out = results / f"rows_{name}.parquet"
        if not resume:
            out.unlink(missing_ok=True)
            shutil.rmtree(sweep.parts_dir(out), ignore_errors=True)
        sweeps.append((_spec(grid, name), out))
    names = [name for _, name in grids]
    start = time.perf_counter()
    reports = sweep.run_sweeps(
        sweeps,
        workers=workers,
        dask=dask,
        on_task=None
        if progress is None
        else lambda i, t: progress.ran_task(names[i], _runs(sweeps[i][0]), t.point, t.seed),
        on_stored=None if progress is None else lambda i, n: progress.stored(names[i], n * _runs(sweeps[i][0])),
    )
    if progress is not None:
        progress.end()
    return {name: r.rows for (_, name), r in zip(grids, reports, strict=True)}, time.perf_counter() - start


def _runs(spec: sweep.SweepSpec) -> int:
    """Runs in one task of ``spec``: its policies and the bound."""
    return len(spec.policies) + spec.bound


def _spec(grid: Mapping[str, Any], name: str) -> sweep.SweepSpec:
    return sweep.build_spec(**sweep.spec_from_mapping(grid, f"{name} grid"))


def _yaml_ready(v: Any) -> Any:
    if isinstance(v, Mapping):
        return {str(k): _yaml_ready(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_yaml_ready(x) for x in v]
    if isinstance(v, float) and math.isinf(v):
        return "inf"
    return v


def beyond_grids(plan: Plan) -> list[tuple[dict[str, Any], str]]:
    """Section 8's two sweeps, named as their ``results/rows_beyond_*.parquet``."""
    return [(beyond.regime_grid(plan), "beyond_regimes"), (beyond.min_runtime_grid(plan), "beyond_min_runtime")]


def run_beyond(plan: Plan, results: Path, log: Callable[[str], None], kw: RunOptions) -> beyond.Study:
    """Section 8's two sweeps into ``results/rows_beyond_*.parquet``, run together."""
    _log_beyond(plan, log)
    rows, wall = run_grids(beyond_grids(plan), results, **kw)
    return beyond.Study(rows["beyond_regimes"], rows["beyond_min_runtime"], {"beyond": wall})


def _log_beyond(plan: Plan, log: Callable[[str], None]) -> None:
    log(f"beyond the paper: fitdelay in {len(beyond.REGIMES) - 2} more regimes, {plan.main_seeds} seeds")
    log(f"beyond the paper: min_runtime {', '.join(map(str, beyond.MIN_RUNTIMES[1:]))} s for every preemptive policy")


def study_grids(plan: Plan, trace_dir: Path) -> list[tuple[dict[str, Any], str]]:
    """Every grid the study runs, named as its rows file (the trace's only when the trace is there)."""
    from simcore.experiments.study import gangs, teams  # here: these modules also run as scripts

    grids = [(main_grid(plan), "main"), (curve_grid(plan), "curves")]
    if trace_present(trace_dir):
        grids += [(g, f"alibaba_{r}") for r, g in trace_grids(plan, trace_dir).items()]
    from simcore.experiments.study import failures

    return [
        *grids,
        *beyond_grids(plan),
        (gangs.grid(plan), gangs.NAME),
        *failures.grids(plan),
        (teams.grid(plan), teams.NAME),
    ]


def reproduce(
    plan: Plan,
    out_dir: Path,
    *,
    trace: Path | None = None,
    workers: int | None = None,
    dask: str | None = None,
    progress: bool = False,
    resume: bool = False,
    command: str = "simcore reproduce",
    log: Callable[[str], None] = lambda _: None,
) -> Path:
    """Run the plan, write ``out_dir/RESULTS.md`` and ``out_dir/results/``; return the document path.
    ``workers``: local processes (default: the cores this process may use). ``progress``: the
    study's progress on stderr (:mod:`simcore.experiments.study.progress`). Every sweep runs at once
    (:func:`run_grids`), so the runs they share are simulated once."""
    workers = sweep.default_workers() if workers is None else workers
    results = out_dir / "results"
    results.mkdir(parents=True, exist_ok=True)
    trace_dir = trace if trace is not None else REPO_ROOT / DEFAULT_TRACE
    grids = study_grids(plan, trace_dir)
    bar = StudyProgress({name: _spec(g, name).n_simulations for g, name in grids}) if progress else None
    kw = RunOptions(workers=workers, dask=dask, progress=bar, resume=resume)
    log(f"main study: paper preset, {plan.jobs} jobs on {plan.nodes} nodes, {plan.main_seeds} seeds")
    log(f"sensitivity curves: {plan.curve_seeds} seeds per point")
    trace_note = ""
    if trace_present(trace_dir):
        log("Alibaba trace, recipes " + " and ".join(trace_grids(plan, trace_dir)))
    else:
        trace_note = f"The Alibaba trace was not found at `{trace_dir}`; that part was skipped."
        log(trace_note)
    _log_beyond(plan, log)
    from simcore.experiments.study import gangs, teams  # here: these modules also run as scripts

    log(f"gang jobs: {gangs.PRESET} preset, {plan.main_seeds} seeds")
    log(f"teams: {teams.PRESET} preset, {plan.main_seeds} seeds, research's borrow limit {len(teams.LIMITS)} ways")
    rows, wall = run_grids(grids, results, **kw)
    timings = {f"all {len(grids)} sweeps together": wall}
    trace_rows = {name.removeprefix("alibaba_"): r for name, r in rows.items() if name.startswith("alibaba_")}
    study = beyond.Study(rows["beyond_regimes"], rows["beyond_min_runtime"], {})
    doc = out_dir / "RESULTS.md"
    main, curves = rows["main"], rows["curves"]
    # the figures are drawn in other processes (the sweeps' are done) while this one writes the text
    with drawn_by(results, workers - 1) as figs:
        text = render(plan, main, curves, trace_rows, results, figs, timings, command, workers, dask, trace_note, study)
    results_doc.write(doc, text)
    from simcore.policies import POLICIES

    log(
        f"trio vs fifo, mean [{SPREAD_NAME}] over {main['seed'].nunique()} seeds of {int(main['jobs_simulated'].iloc[0])} jobs:"
    )
    header = ["policy", *(f"{TRIO_LABELS[k]} vs fifo" for k in PAPER_TRIO)]
    for row in [header, *headline_rows(main, list(POLICIES))]:
        log("  " + "  ".join(cell.replace("*", "").ljust(26) for cell in row).rstrip())
    return doc
