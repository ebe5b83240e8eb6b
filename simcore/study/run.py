"""Running the study: each part is a plain sweep (:mod:`simcore.sweep`) whose grid file is written next
to its rows, fresh unless resumed; then the document is written and the headline printed.

The parts, in order: *main* (the ``paper`` preset over many seeds, every policy and fitgpp's
``P`` / ``s`` variants), *curves* (one setting at a time), *alibaba_A/B* (the trace, if present)
and the two sweeps of section 8 (:mod:`simcore.study.beyond`).
"""

from __future__ import annotations

import math
import shutil
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypedDict

import pandas as pd

from simcore import sweep
from simcore.metrics import TRIO_LABELS
from simcore.stats import SPREAD_NAME
from simcore.study import beyond
from simcore.study.document import render
from simcore.study.plan import DEFAULT_TRACE, PAPER_TRIO, Plan, curve_grid, main_grid, trace_grids, trace_present
from simcore.study.progress import StudyProgress
from simcore.study.tables import headline_rows

REPO_ROOT = Path(__file__).resolve().parents[2]


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
    import yaml

    (results / f"grid_{name}.yaml").write_text(yaml.safe_dump(_yaml_ready(grid), sort_keys=False), encoding="utf-8")
    out = results / f"rows_{name}.parquet"
    if not resume:
        out.unlink(missing_ok=True)
        shutil.rmtree(sweep.parts_dir(out), ignore_errors=True)
    spec = _spec(grid, name)
    runs = len(spec.policies) + spec.bound
    if progress is not None:
        progress.begin(name, spec.n_simulations)
    start = time.perf_counter()
    report = sweep.run_sweep(
        spec, out, workers=workers, dask=dask, on_task=None if progress is None else lambda _: progress.ran_task(runs)
    )
    if progress is not None:
        progress.end()
    return report.rows, time.perf_counter() - start


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


def run_beyond(plan: Plan, results: Path, log: Callable[[str], None], kw: RunOptions) -> beyond.Study:
    """Section 8's two sweeps into ``results/rows_beyond_*.parquet``."""
    timings: dict[str, float] = {}
    log(f"beyond the paper: fitdelay in {len(beyond.REGIMES) - 2} more regimes, {plan.main_seeds} seeds")
    regimes, timings["beyond regimes"] = run_grid(beyond.regime_grid(plan), "beyond_regimes", results, **kw)
    log(f"beyond the paper: min_runtime {', '.join(map(str, beyond.MIN_RUNTIMES[1:]))} s for every preemptive policy")
    mr, timings["beyond min_runtime"] = run_grid(beyond.min_runtime_grid(plan), "beyond_min_runtime", results, **kw)
    return beyond.Study(regimes, mr, timings)


def study_progress(plan: Plan, trace_dir: Path) -> StudyProgress:
    """Progress over every grid the study runs (checked here, before any of them runs)."""
    grids = [(main_grid(plan), "main"), (curve_grid(plan), "curves")]
    if trace_present(trace_dir):
        grids += [(g, f"alibaba_{r}") for r, g in trace_grids(plan, trace_dir).items()]
    grids += [(beyond.regime_grid(plan), "beyond_regimes"), (beyond.min_runtime_grid(plan), "beyond_min_runtime")]
    return StudyProgress(len(grids), sum(_spec(g, name).n_simulations for g, name in grids))


def reproduce(
    plan: Plan,
    out_dir: Path,
    *,
    trace: Path | None = None,
    workers: int = 1,
    dask: str | None = None,
    progress: bool = False,
    resume: bool = False,
    command: str = "simcore reproduce",
    log: Callable[[str], None] = lambda _: None,
) -> Path:
    """Run the plan, write ``out_dir/RESULTS.md`` and ``out_dir/results/``; return the document path.
    ``progress``: the study's progress on stderr (:mod:`simcore.study.progress`)."""
    results = out_dir / "results"
    results.mkdir(parents=True, exist_ok=True)
    trace_dir = trace if trace is not None else REPO_ROOT / DEFAULT_TRACE
    bar = study_progress(plan, trace_dir) if progress else None
    kw = RunOptions(workers=workers, dask=dask, progress=bar, resume=resume)
    timings: dict[str, float] = {}
    log(f"main study: paper preset, {plan.jobs} jobs on {plan.nodes} nodes, {plan.main_seeds} seeds")
    main, timings["main"] = run_grid(main_grid(plan), "main", results, **kw)
    log(f"sensitivity curves: {plan.curve_seeds} seeds per point")
    curves, timings["curves"] = run_grid(curve_grid(plan), "curves", results, **kw)
    trace_rows: dict[str, pd.DataFrame] = {}
    trace_note = ""
    if trace_present(trace_dir):
        for recipe, grid in trace_grids(plan, trace_dir).items():
            log(f"Alibaba trace, recipe {recipe}")
            trace_rows[recipe], timings[f"trace {recipe}"] = run_grid(grid, f"alibaba_{recipe}", results, **kw)
    else:
        trace_note = f"The Alibaba trace was not found at `{trace_dir}`; that part was skipped."
        log(trace_note)
    study = run_beyond(plan, results, log, kw)
    timings.update(study.timings)
    from simcore.study import gangs  # here: that module also runs as a script

    log(f"gang jobs: {gangs.PRESET} preset, {plan.main_seeds} seeds")
    _, timings["gangs"] = run_grid(gangs.grid(plan), gangs.NAME, results, **kw)  # document.render reads the rows
    doc = out_dir / "RESULTS.md"
    text = render(plan, main, curves, trace_rows, results, timings, command, workers, dask, trace_note, study)
    doc.write_text(text, encoding="utf-8")
    from simcore.policies import POLICIES

    log(
        f"trio vs fifo, mean [{SPREAD_NAME}] over {main['seed'].nunique()} seeds of {int(main['jobs_simulated'].iloc[0])} jobs:"
    )
    header = ["policy", *(f"{TRIO_LABELS[k]} vs fifo" for k in PAPER_TRIO)]
    for row in [header, *headline_rows(main, list(POLICIES))]:
        log("  " + "  ".join(cell.replace("*", "").ljust(26) for cell in row).rstrip())
    return doc
