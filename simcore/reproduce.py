"""``simcore reproduce``: the paper's claim re-measured over many seeds and regimes.

Runs three families of sweeps (:mod:`simcore.sweep`) and writes ``docs/RESULTS.md`` with
tables, PNG figures (``docs/results/``), the grid files that were run and the exact commands:

1. *main*: the ``paper`` preset over many seeds for every registered policy, plus fitgpp with
   other ``P`` and ``s`` values (per-policy knobs, so those curves are paired on the same
   workloads); the trio against fifo and against priority with 95% confidence intervals;
2. *curves*: one knob or workload parameter at a time away from the preset's centre (grace,
   restore, checkpoint mode, backfill, load, TE share) for the baselines and fitgpp;
3. *trace*: the Alibaba GPU trace 2023, recipes A and B of the workloads issue, if present.

Every number in the document is computed from the stored rows (``docs/results/rows_*.parquet``),
so a test can recompute it. FitGpp is our reconstruction of the paper's approach, not the
paper's exact algorithm, and the document says so.
"""

from __future__ import annotations

import math
import os
import shutil
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TypedDict

import numpy as np
import pandas as pd

from simcore import sweep
from simcore.metrics import TRIO_KEYS, TRIO_LABELS
from simcore.model import SimConfig
from simcore.stats import SPREAD_NAME, mean_ci, paired_diff

DESCRIPTION = """\
Re-measure the paper's headline (TE p95 slowdown -96.6%, BE p50 +18.0%, BE p95 +23.9% vs FIFO)
with our simulator: the paper preset over many seeds for every policy, sensitivity curves
(P, s, grace, restore, checkpoint, backfill, load, TE share) and the Alibaba GPU trace.
Writes RESULTS.md, figures and the rows behind every number. FitGpp is our reconstruction
of the paper's approach, not the paper's exact algorithm.
"""

#: The paper's abstract: fitgpp against FIFO on its own workloads.
PAPER_TRIO: dict[str, float] = dict(zip(TRIO_KEYS, (-96.6, 18.0, 23.9), strict=True))
DEFAULT_TRACE = "../shared/traces/alibaba-gpu-2023"
NAIVE = ("k8s", "lrtp", "random")  # preemptive baselines without fitgpp's caps


@dataclass(frozen=True)
class Plan:
    """What the reproduction runs. ``curves`` vary one key at a time around the centre."""

    name: str
    main_seeds: int
    curve_seeds: int
    jobs: int
    nodes: int
    p_values: tuple[int, ...]
    s_values: tuple[float, ...]
    curves: tuple[tuple[str, tuple[Any, ...]], ...]
    curve_policies: tuple[str, ...]
    trace_windows: int  # recipe B replicates (trace windows)
    trace_window_days: float | None = None  # shorter windows (quick); None = recipe A to the end, B split evenly

    def with_overrides(self, **kw: Any) -> Plan:
        return replace(self, **{k: v for k, v in kw.items() if v is not None})


FULL = Plan(
    name="full",
    main_seeds=20,
    curve_seeds=10,
    jobs=4000,
    nodes=16,
    p_values=(0, 1, 2, 3, 4),
    s_values=(1, 2, 4, 8, math.inf),
    curves=(
        ("grace", (0, 30, 120, 600)),
        ("restore", (0, 60, 300, 900)),
        ("checkpoint", ("on_preempt", "periodic", "none")),
        ("backfill", ("greedy", "none")),
        ("load", (0.6, 0.8, 1.0, 1.2)),
        ("te_share", (0.1, 0.2, 0.3, 0.5)),
    ),
    curve_policies=("fifo", "priority", "k8s", "lrtp", "fitgpp"),
    trace_windows=5,
)

QUICK = Plan(
    name="quick",
    main_seeds=3,
    curve_seeds=2,
    jobs=300,
    nodes=4,
    p_values=(1, 2, 3),
    s_values=(4, math.inf),
    curves=(
        ("grace", (30, 300)),
        ("restore", (60, 600)),
        ("checkpoint", ("on_preempt", "none")),
        ("backfill", ("greedy", "none")),
        ("load", (0.8, 1.0)),
        ("te_share", (0.3, 0.5)),
    ),
    curve_policies=("fifo", "priority", "k8s", "fitgpp"),
    trace_windows=2,
    trace_window_days=1.5,
)


# --- the specs -----------------------------------------------------------------------------------


def _centre() -> dict[str, Any]:
    from simcore.presets import resolve_params

    knobs = SimConfig().knobs()
    return {**resolve_params("paper"), **knobs}


def _fitgpp_label(key: str, value: Any) -> str:
    return "fitgpp" if _same(value, getattr(SimConfig(), key)) else f"fitgpp:{key}={_text(value)}"


def main_grid(plan: Plan) -> dict[str, Any]:
    """The main sweep as a grid-file mapping (written next to the results, runnable by ``simcore sweep``)."""
    from simcore.policies import POLICIES

    variants = [_fitgpp_label("P", p) for p in plan.p_values] + [_fitgpp_label("s", s) for s in plan.s_values]
    policies = list(POLICIES) + [v for v in dict.fromkeys(variants) if v not in POLICIES]
    return {
        "preset": "paper",
        "set": {"jobs": plan.jobs, "nodes": plan.nodes},
        "seeds": plan.main_seeds,
        "policies": policies,
        "baseline": ["fifo", "priority"],
    }


def curve_grid(plan: Plan) -> dict[str, Any]:
    """One-at-a-time curves; the centre itself comes from the main sweep (same seeds, same workloads)."""
    centre = _centre()
    grids = [{key: [v for v in values if not _same(v, centre[key])]} for key, values in plan.curves]
    return {
        "preset": "paper",
        "set": {"jobs": plan.jobs, "nodes": plan.nodes},
        "grid": [g for g in grids if next(iter(g.values()))],
        "seeds": plan.curve_seeds,
        "policies": list(plan.curve_policies),
        "baseline": ["fifo", "priority"],
    }


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return float(a) == float(b)
    return str(a) == str(b)


def _text(v: Any) -> str:
    if isinstance(v, float):
        return "inf" if math.isinf(v) else f"{v:g}"
    return str(v)


# --- running -------------------------------------------------------------------------------------


class RunOptions(TypedDict):
    """How every part of the study is run (the keyword arguments of :func:`run_grid`)."""

    workers: int
    dask: str | None
    progress: bool
    resume: bool


def run_grid(
    grid: Mapping[str, Any], name: str, results: Path, *, workers: int, dask: str | None, progress: bool, resume: bool
) -> tuple[pd.DataFrame, float]:
    """Write the grid file, run it into ``rows_<name>.parquet`` (fresh unless ``resume``), return rows and wall time."""
    import yaml

    (results / f"grid_{name}.yaml").write_text(yaml.safe_dump(_yaml_ready(grid), sort_keys=False), encoding="utf-8")
    out = results / f"rows_{name}.parquet"
    if not resume:
        out.unlink(missing_ok=True)
        shutil.rmtree(sweep.parts_dir(out), ignore_errors=True)
    spec = sweep.build_spec(**sweep.spec_from_mapping(grid, f"{name} grid"))
    start = time.perf_counter()
    report = sweep.run_sweep(spec, out, workers=workers, dask=dask, progress=progress)
    return report.rows, time.perf_counter() - start


def _yaml_ready(v: Any) -> Any:
    if isinstance(v, Mapping):
        return {str(k): _yaml_ready(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_yaml_ready(x) for x in v]
    if isinstance(v, float) and math.isinf(v):
        return "inf"
    return v


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
    """Run the plan, write ``out_dir/RESULTS.md`` and ``out_dir/results/``; return the document path."""
    results = out_dir / "results"
    results.mkdir(parents=True, exist_ok=True)
    kw = RunOptions(workers=workers, dask=dask, progress=progress, resume=resume)
    timings: dict[str, float] = {}
    log(f"main study: paper preset, {plan.jobs} jobs on {plan.nodes} nodes, {plan.main_seeds} seeds")
    main, timings["main"] = run_grid(main_grid(plan), "main", results, **kw)
    log(f"sensitivity curves: {plan.curve_seeds} seeds per point")
    curves, timings["curves"] = run_grid(curve_grid(plan), "curves", results, **kw)
    trace_dir = trace if trace is not None else _repo_root() / DEFAULT_TRACE
    trace_rows: dict[str, pd.DataFrame] = {}
    trace_note = ""
    if _trace_present(trace_dir):
        for recipe, grid in trace_grids(plan, trace_dir).items():
            log(f"Alibaba trace, recipe {recipe}")
            trace_rows[recipe], timings[f"trace {recipe}"] = run_grid(grid, f"alibaba_{recipe}", results, **kw)
    else:
        trace_note = f"The Alibaba trace was not found at `{trace_dir}`; that part was skipped."
        log(trace_note)
    from simcore import beyond

    study = beyond.run(plan, results, log, **kw)
    timings.update(study.timings)
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


def _repo_root() -> Path:
    return Path(__file__).resolve().parent.parent


def _shown_path(path: Path) -> str:
    """The path relative to the working directory when it is below a common parent (shorter in grid files)."""
    try:
        rel = os.path.relpath(path)
    except ValueError:  # another drive on Windows
        return str(path)
    return str(path) if rel.startswith(os.path.join(os.pardir, os.pardir)) else rel


def _trace_present(trace_dir: Path) -> bool:
    return all((trace_dir / name).is_file() for name in (sweep.POD_FILE, sweep.NODE_FILE))


def trace_grids(plan: Plan, trace_dir: Path) -> dict[str, dict[str, Any]]:
    """Recipes A and B of the workloads issue as sweep grids over the trace."""
    from simcore.policies import POLICIES

    policies = [*POLICIES, _fitgpp_label("P", 4), _fitgpp_label("P", TRACE_UNCAPPED_P)]
    common = {"alibaba": _shown_path(trace_dir), "seeds": 1, "policies": policies, "baseline": ["fifo", "priority"]}
    short = {} if plan.trace_window_days is None else {"window_days": plan.trace_window_days}
    b_days = plan.trace_window_days or sweep.recipe_b_window_days(plan.trace_windows)
    return {
        "A": {**common, "set": {**sweep.ALIBABA_RECIPES["A"], **short}},
        "B": {
            **common,
            "set": {**sweep.ALIBABA_RECIPES["B"], "window_days": b_days},
            "grid": {"window_start": sweep.recipe_b_windows(plan.trace_windows)},
        },
    }


# --- numbers -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Stat:
    n: int
    mean: float
    lo: float
    hi: float

    @classmethod
    def of(cls, values: Any) -> Stat:
        n, mean, _sd, lo, hi = mean_ci(np.asarray(values, dtype=float))
        return cls(n, mean, lo, hi)


def stat(rows: pd.DataFrame, policy: str, metric: str) -> Stat:
    return Stat.of(rows.loc[rows["policy"] == policy, metric])


def paired(rows: pd.DataFrame, policy: str, other: str, metric: str) -> Stat:
    """policy minus other on the same (point, seed)."""
    a = rows[rows["policy"] == policy].set_index(["point_id", "seed"])[metric]
    b = rows[rows["policy"] == other].set_index(["point_id", "seed"])[metric]
    return Stat.of(paired_diff(a, b))


def fmt_pct(s: Stat) -> str:
    if not math.isfinite(s.mean):
        return "n/a"
    if not math.isfinite(s.lo):
        return f"{s.mean:+.1f}%"
    return f"{s.mean:+.1f}% [{s.lo:+.1f}, {s.hi:+.1f}]"


def fmt_val(s: Stat, unit: str = "") -> str:
    if not math.isfinite(s.mean):
        return "n/a"
    if unit == "s":
        if not math.isfinite(s.lo):
            return _dur(s.mean)
        return f"{_dur(s.mean)} [{_dur(s.lo)}, {_dur(s.hi)}]"
    if not math.isfinite(s.lo):
        return f"{s.mean:.3g}"
    return f"{s.mean:.3g} [{s.lo:.3g}, {s.hi:.3g}]"


def _dur(seconds: float) -> str:
    a = abs(seconds)
    if a < 120:
        return f"{seconds:.0f} s"
    if a < 7200:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.1f} h"


def verdict(diff: Stat, what: str, better: str = "lower") -> str:
    """'lower', 'higher' or 'no clear difference', judged by whether the CI excludes 0."""
    if not math.isfinite(diff.lo):
        return f"{what}: not enough seeds to tell"
    if diff.hi < 0:
        return f"{what} is lower" + (" (better)" if better == "lower" else "")
    if diff.lo > 0:
        return f"{what} is higher" + (" (worse)" if better == "lower" else "")
    return f"{what}: no clear difference"


# --- the document --------------------------------------------------------------------------------


def render(
    plan: Plan,
    main: pd.DataFrame,
    curves: pd.DataFrame,
    trace_rows: Mapping[str, pd.DataFrame],
    results: Path,
    timings: Mapping[str, float],
    command: str,
    workers: int,
    dask: str | None,
    trace_note: str,
    study: Any = None,  # beyond.Study: fitdelay and min_runtime (section 8)
) -> str:
    from simcore.policies import POLICIES

    policies = list(POLICIES)
    n_jobs = int(main["jobs_simulated"].iloc[0])
    seeds = main["seed"].nunique()
    cfg = f"**{n_jobs} jobs** per workload on {plan.nodes} nodes x 8 GPUs, {seeds} seeds"
    figs = Figures(results)
    out: list[str] = []
    add = out.append
    add("# Results: the paper's claim, re-measured\n")
    add(
        "This file is generated by `simcore reproduce` (see [Reproduce](#reproduce)); every number below "
        f"is computed from the rows stored in `{_shown_path(results)}/rows_*.parquet`. Do not edit it by hand.\n"
    )
    add(
        "**FitGpp here is our reconstruction of the paper's approach** (Yabuuchi, Taniwaki, Omura, "
        '"Low-latency job scheduling with preemption for the development of deep learning", USENIX OpML \'19, '
        "arXiv 1902.01613) from the principles stated in its abstract; it is not the paper's exact algorithm, "
        "and the workloads are our `paper` preset, not the paper's data. Intervals are 95% confidence intervals "
        "of the mean over seeds (Student t). Percentiles of a run (p50, p95, p99) use numpy's default method, "
        "linear interpolation between the two nearest ranks. Each seed is one generated workload on which every "
        "policy runs, so policy differences are *paired*. With offered load 1.0 the queue grows over the trace, so results "
        "depend on the number of jobs: the job count is given with every table.\n"
    )

    # -- headline
    add("## 1. The headline: trio against FIFO\n")
    add(f"`paper` preset, {cfg}. Percent change of each policy's value against FIFO on the same workload, "
        "then the mean over seeds.\n")  # fmt: skip
    add(_table(["policy", *(f"{TRIO_LABELS[k]} vs fifo" for k in PAPER_TRIO)], headline_rows(main, policies)))
    add(f"\n![trio vs fifo]({figs.trio(main, policies, 'fifo')})\n")
    add(headline_text(main, n_jobs, seeds))

    add("## 2. Against priority: what preemption itself adds\n")
    add(f"Same runs ({cfg}); `priority` orders TE first but never preempts, so this isolates preemption.\n")
    rows = [[p, *(fmt_pct(stat(main, p, f"{k}_vs_priority")) for k in PAPER_TRIO)] for p in policies if p != "priority"]
    add(_table(["policy", *(f"{TRIO_LABELS[k]} vs priority" for k in PAPER_TRIO)], rows))
    add("")

    add("## 3. Tails, preemptions and lost work\n")
    add(f"Absolute values, mean [{SPREAD_NAME}] over seeds ({cfg}). Slowdown = JCT / run time; waits in wall-clock units.\n")
    cols = [("TE_slowdown_p95", "TE p95 slowdown", ""), ("TE_slowdown_p99", "TE p99 slowdown", ""),
            ("TE_wait_max", "TE max wait", "s"), ("BE_slowdown_p50", "BE p50 slowdown", ""),
            ("BE_slowdown_p95", "BE p95 slowdown", ""), ("preemptions", "preemptions", ""),
            ("preempted_jobs", "BE jobs preempted", ""), ("max_preemptions_per_job", "most preemptions of one job", ""),
            ("lost_work", "lost work (s)", ""),
            ("gpu_utilization", "GPU util.", "")]  # fmt: skip
    rows = [[p, *(fmt_val(stat(main, p, m), u) for m, _, u in cols)] for p in policies]
    add(_table(["policy", *(label for _, label, _ in cols)], rows))
    add("")

    add("## 4. FitGpp against the other preemptive policies (paired)\n")
    add(f"fitgpp minus the other policy on the same workloads, mean [{SPREAD_NAME}] ({cfg}). "
        "Negative = fitgpp lower; slowdowns are better lower.\n")  # fmt: skip
    pair_cols = [("TE_slowdown_p95", "TE p95 slowdown"), ("BE_slowdown_p50", "BE p50 slowdown"),
                 ("BE_slowdown_p95", "BE p95 slowdown"), ("preemptions", "preemptions")]  # fmt: skip
    others = [p for p in policies if p not in ("fitgpp", "fifo")]
    rows = [[f"fitgpp - {o}", *(fmt_val(paired(main, "fitgpp", o, m)) for m, _ in pair_cols)] for o in others]
    add(_table(["difference", *(label for _, label in pair_cols)], rows))
    add("")
    add(comparison_text(main, others))

    add("## 5. Sensitivity\n")
    add(
        "One setting at a time away from the `paper` preset's centre (grace 30 s, restore 60 s, checkpoint "
        "on_preempt, greedy backfill, load 1.0, TE share 0.3, P = 2, s = inf). The centre point is the main "
        f"study's runs. Curves of `P` and `s` run fitgpp variants on the main study's workloads ({seeds} seeds); "
        f"the other curves use {plan.curve_seeds} seeds per point and the policies "
        f"{', '.join(plan.curve_policies)}; **{n_jobs} jobs** per workload throughout. Shaded bands and "
        "brackets are 95% CIs.\n"
    )
    add(sensitivity_section(plan, main, curves, figs))
    add(regime_section(plan, main, curves))

    add("## 6. The real trace: Alibaba GPU cluster trace 2023\n")
    if trace_rows:
        add(trace_section(trace_rows, figs, plan))
    else:
        add(trace_note + "\n")

    add("## 7. Where FitGpp wins, where it does not, and why\n")
    add(mechanism_text(main, curves, plan, trace_rows))

    if study is not None:
        from simcore import beyond

        add(beyond.section(plan, study, main, trace_rows.get("A"), figs))

    add("## Reproduce\n")
    total = sum(timings.values())
    executor = f"Dask ({dask})" if dask else f"{workers} local worker process(es)"
    add(
        f"This document: `{command}` (plan `{plan.name}`: {plan.main_seeds} seeds for the main study, "
        f"{plan.curve_seeds} per curve point, {plan.jobs} jobs on {plan.nodes} nodes); it took "
        f"{total:.0f} s with {executor} ({', '.join(f'{k} {v:.0f} s' for k, v in timings.items())}). "
        "`simcore reproduce --quick` runs a small version in seconds. Each part is a plain sweep whose grid "
        "file is stored next to its rows, so any part can be re-run or extended on its own:\n"
    )
    add("```")
    where = _shown_path(results)
    for name in ("main", "curves", *(f"alibaba_{r}" for r in trace_rows), *(study.grids if study else ())):
        add(f"simcore sweep {where}/grid_{name}.yaml --out {where}/rows_{name}.parquet --workers 2")
    add("```\n")
    add(
        "Aggregate any of them with `simcore sweep GRID --out ROWS --summary-csv summary.csv --paired-csv paired.csv` "
        "(nothing is re-run: the rows are already there).\n"
    )
    return "\n".join(out)


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def headline_rows(main: pd.DataFrame, policies: Sequence[str]) -> list[list[str]]:
    """The paper's trio, then each policy's against fifo (mean [95% CI])."""
    rows = [["**paper (its own workloads)**", *(f"**{v:+.1f}%**" for v in PAPER_TRIO.values())]]
    for p in (p for p in policies if p != "fifo"):
        rows.append([p, *(fmt_pct(stat(main, p, f"{k}_vs_fifo")) for k in PAPER_TRIO)])
    return rows


def headline_text(main: pd.DataFrame, n_jobs: int, seeds: int) -> str:
    te = stat(main, "fitgpp", "TE_p95_slowdown_pct_vs_fifo")
    b50 = stat(main, "fitgpp", "BE_p50_slowdown_pct_vs_fifo")
    b95 = stat(main, "fitgpp", "BE_p95_slowdown_pct_vs_fifo")
    pr = stat(main, "priority", "TE_slowdown_p95")
    fg = stat(main, "fitgpp", "TE_slowdown_p95")
    ratio = pr.mean / fg.mean if fg.mean > 0 else math.nan
    return (
        f"On {n_jobs}-job workloads ({seeds} seeds), fitgpp changes the TE p95 slowdown by {fmt_pct(te)} against FIFO "
        f"(paper: {PAPER_TRIO['TE_p95_slowdown_pct']:+.1f}%), the BE median slowdown by {fmt_pct(b50)} (paper: "
        f"{PAPER_TRIO['BE_p50_slowdown_pct']:+.1f}%) and the BE p95 slowdown by {fmt_pct(b95)} (paper: "
        f"{PAPER_TRIO['BE_p95_slowdown_pct']:+.1f}%). Priority ordering alone leaves the TE p95 slowdown at "
        f"{pr.mean:.3g}, {ratio:.3g} times fitgpp's {fg.mean:.3g}.\n"
    )


def comparison_text(main: pd.DataFrame, others: Sequence[str]) -> str:
    lines = []
    for o in others:
        parts = [
            verdict(paired(main, "fitgpp", o, "BE_slowdown_p50"), "BE p50 slowdown"),
            verdict(paired(main, "fitgpp", o, "BE_slowdown_p95"), "BE p95 slowdown"),
            verdict(paired(main, "fitgpp", o, "TE_slowdown_p95"), "TE p95 slowdown"),
        ]
        lines.append(f"- against **{o}**, fitgpp's " + "; ".join(parts) + ".")
    return "\n".join(lines) + "\n"


def curve_frame(plan: Plan, main: pd.DataFrame, curves: pd.DataFrame, key: str) -> pd.DataFrame:
    """Rows of one curve: its off-centre points plus the centre (main-study rows of the same seeds)."""
    centre = _centre()
    mask = np.ones(len(curves), dtype=bool)
    for k, _ in plan.curves:
        if k != key:
            mask &= curves[k].map(lambda v, c=centre[k]: _same(v, c)).to_numpy(dtype=bool)
    part = curves[mask]
    base = main[main["policy"].isin(plan.curve_policies) & main["seed"].isin(curves["seed"].unique())]
    return pd.concat([base, part], ignore_index=True)


def regime_rows(plan: Plan, main: pd.DataFrame, curves: pd.DataFrame) -> list[tuple[str, Any, pd.DataFrame]]:
    """(curve key, value, rows at that setting) for every point of every curve, the centre first."""
    out = [("centre", "", main[main["policy"].isin(plan.curve_policies) & main["seed"].isin(curves["seed"].unique())])]
    centre = _centre()
    for key, values in plan.curves:
        frame = curve_frame(plan, main, curves, key)
        for v in values:
            if not _same(v, centre[key]):
                out.append((key, v, frame[frame[key].map(lambda x, v=v: _same(x, v))]))
    return out


def regime_verdict(at: pd.DataFrame, other: str) -> tuple[list[Stat], str]:
    """Paired fitgpp minus ``other`` in points of BE p50 / p95 change vs fifo, and a one-word verdict."""
    diffs = [paired(at, "fitgpp", other, f"{k}_vs_fifo") for k in ("BE_p50_slowdown_pct", "BE_p95_slowdown_pct")]
    lower = any(d.hi < 0 for d in diffs)
    higher = any(d.lo > 0 for d in diffs)
    word = (
        "mixed"
        if lower and higher
        else "fitgpp lower"
        if lower
        else "fitgpp higher"
        if higher
        else "no clear difference"
    )
    return diffs, word


def regime_section(plan: Plan, main: pd.DataFrame, curves: pd.DataFrame) -> str:
    others = [p for p in plan.curve_policies if p in NAIVE]
    if not others:
        return ""
    header = ["setting"]
    for o in others:
        header += [f"BE p50, fitgpp - {o}", f"BE p95, fitgpp - {o}", f"vs {o}"]
    rows = []
    for key, value, at in regime_rows(plan, main, curves):
        cells = ["centre (defaults)" if key == "centre" else f"{key} = {_text(value)}"]
        for o in others:
            diffs, word = regime_verdict(at, o)
            cells += [*(fmt_val(d) for d in diffs), f"**{word}**" if word != "no clear difference" else word]
        rows.append(cells)
    n_jobs = int(main["jobs_simulated"].iloc[0])
    return (
        "### Across regimes: BE cost of fitgpp against the other preemptive policies\n\n"
        "Paired on the same workloads: fitgpp's BE p50 and p95 change against fifo minus the other policy's, in "
        f"percentage points, mean [{SPREAD_NAME}] over {curves['seed'].nunique()} seeds, **{n_jobs} jobs** per workload. "
        "Negative = fitgpp costs BE less; the verdict counts a difference only when its CI excludes 0.\n\n"
        + _table(header, rows)
        + "\n"
    )


def sensitivity_section(plan: Plan, main: pd.DataFrame, curves: pd.DataFrame, figs: Figures) -> str:
    out = []
    # P and s: fitgpp variants on the main workloads
    for key, values in (("P", plan.p_values), ("s", plan.s_values)):
        labels = [_fitgpp_label(key, v) for v in values]
        out.append(f"### fitgpp `{key}` ({KNOB_DOC[key]})\n")
        rows = []
        for v, label in zip(values, labels, strict=True):
            rows.append([_text(v), *(fmt_pct(stat(main, label, f"{k}_vs_fifo")) for k in PAPER_TRIO),
                         fmt_val(stat(main, label, "preemptions"))])  # fmt: skip
        prio = ["priority (no preemption)", *(fmt_pct(stat(main, "priority", f"{k}_vs_fifo")) for k in PAPER_TRIO),
                fmt_val(stat(main, "priority", "preemptions"))]  # fmt: skip
        out.append(_table([key, *(f"{TRIO_LABELS[k]} vs fifo" for k in PAPER_TRIO), "preemptions"], [*rows, prio]))
        series = {"fitgpp": (list(values), [main[main["policy"] == lab] for lab in labels])}
        out.append(f"\n![{key}]({figs.curve(key, series, main[main['policy'] == 'priority'])})\n")
    for key, values in plan.curves:
        frame = curve_frame(plan, main, curves, key)
        out.append(f"### `{key}` ({KNOB_DOC.get(key, '')})\n")
        rows = []
        for v in values:
            at = frame[frame[key].map(lambda x, v=v: _same(x, v))]
            n_jobs = int(at["jobs_simulated"].iloc[0]) if len(at) else 0
            for p in plan.curve_policies:
                if p == "fifo":
                    continue
                rows.append([_text(v), p, *(fmt_pct(stat(at, p, f"{k}_vs_fifo")) for k in PAPER_TRIO),
                             fmt_val(stat(at, p, "TE_slowdown_p95")), fmt_val(stat(at, p, "BE_slowdown_p50")),
                             fmt_val(stat(at, p, "lost_work")), str(n_jobs)])  # fmt: skip
        out.append(_table([key, "policy", *(f"{TRIO_LABELS[k]} vs fifo" for k in PAPER_TRIO), "TE p95 slowdown",
                           "BE p50 slowdown", "lost work (s)", "jobs"], rows))  # fmt: skip
        series = {
            p: (
                list(values),
                [frame[(frame["policy"] == p) & frame[key].map(lambda x, v=v: _same(x, v))] for v in values],
            )
            for p in plan.curve_policies
            if p != "fifo"
        }
        out.append(f"\n![{key}]({figs.curve(key, series, None)})\n")
    return "\n".join(out)


KNOB_DOC = {
    "P": "max preemptions per BE job",
    "s": "victim dominant share at most s x the TE job's",
    "grace": "seconds a preempted job keeps its resources to checkpoint",
    "restore": "seconds of restoring after every restart",
    "checkpoint": "what a preemption loses",
    "backfill": "greedy or strict head-of-line",
    "load": "offered GPU load",
    "te_share": "fraction of jobs that are TE",
}


def trace_section(trace_rows: Mapping[str, pd.DataFrame], figs: Figures, plan: Plan) -> str:
    out = []
    if plan.trace_window_days is not None:
        out.append(f"*Plan `{plan.name}`: every window cut to {plan.trace_window_days:g} days.*\n")
    for recipe, rows in trace_rows.items():
        policies = list(dict.fromkeys(rows["policy"]))
        n_jobs = int(rows["jobs_simulated"].iloc[0])
        windows = rows["point_id"].nunique()
        out.append(f"### Recipe {recipe}: {sweep.ALIBABA_RECIPE_DOC[recipe]}\n")
        if windows > 1:
            out.append(f"{windows} windows (the replicates; intervals are over windows), "
                       f"{rows.groupby('point_id')['jobs_simulated'].first().min()}-"
                       f"{rows.groupby('point_id')['jobs_simulated'].first().max()} jobs each.\n")  # fmt: skip
        else:
            out.append(f"One workload of **{n_jobs} jobs**: a real trace has no seeds, so these are single "
                       "measurements without intervals.\n")  # fmt: skip
        table = []
        for p in (p for p in policies if p != "fifo"):
            table.append([p, *(fmt_pct(stat(rows, p, f"{k}_vs_fifo")) for k in PAPER_TRIO),
                          fmt_pct(stat(rows, p, "TE_p95_slowdown_pct_vs_priority")),
                          fmt_val(stat(rows, p, "TE_slowdown_p95")), fmt_val(stat(rows, p, "TE_wait_max"), "s"),
                          fmt_val(stat(rows, p, "BE_slowdown_p95")), fmt_val(stat(rows, p, "preemptions")),
                          fmt_val(stat(rows, p, "max_preemptions_per_job"))])  # fmt: skip
        fifo = ["fifo", "", "", "", "", fmt_val(stat(rows, "fifo", "TE_slowdown_p95")),
                fmt_val(stat(rows, "fifo", "TE_wait_max"), "s"), fmt_val(stat(rows, "fifo", "BE_slowdown_p95")), "0", "0"]  # fmt: skip
        out.append(_table(["policy", *(f"{TRIO_LABELS[k]} vs fifo" for k in PAPER_TRIO), "TE p95 slowdown vs priority",
                           "TE p95 slowdown", "TE max wait", "BE p95 slowdown", "preemptions",
                           "most preemptions of one job"], [fifo, *table]))  # fmt: skip
        out.append(f"\n![recipe {recipe}]({figs.trio(rows, policies, 'fifo', f'trace_{recipe}')})\n")
    return "\n".join(out)


def mechanism_text(main: pd.DataFrame, curves: pd.DataFrame, plan: Plan, trace_rows: Mapping[str, pd.DataFrame]) -> str:
    """Where fitgpp wins and loses. Every claim quotes a measured number, and the claims that could go
    either way are chosen from the confidence intervals, so the text stays true when it is regenerated."""
    cfg = SimConfig()
    n_jobs = int(main["jobs_simulated"].iloc[0])
    naive = [o for o in NAIVE if o in set(main["policy"])]
    worst_wait = float(main.loc[main["policy"] == "fitgpp", "TE_wait_max"].max())
    wins: list[str] = []
    losses: list[str] = []

    bound = "never more than the grace period" if worst_wait <= cfg.grace + 1e-6 else f"at most {_dur(worst_wait)}"
    wins.append(
        f"- *TE latency, against fifo and priority.* A TE job that fits nowhere signals a running BE job and starts "
        f"when the victim's grace period ends, so its wait is bounded by `grace` ({cfg.grace:g} s) rather than by the "
        f"remaining run time of some BE job (BE median {PAPER_BE_MEDIAN_H:g} h). Worst TE wait measured under fitgpp: "
        f"{_dur(worst_wait)} over all seeds ({bound}), against {fmt_val(stat(main, 'priority', 'TE_wait_max'), 's')} "
        "(mean of the per-seed maxima) under priority, which only reorders the queue: a TE job at the head still waits "
        f"for a node to drain. TE p95 slowdown: fitgpp {fmt_val(stat(main, 'fitgpp', 'TE_slowdown_p95'))}, priority "
        f"{fmt_val(stat(main, 'priority', 'TE_slowdown_p95'))}, fifo {fmt_val(stat(main, 'fifo', 'TE_slowdown_p95'))}. "
        "Every preemptive policy gets this; it is the effect of preempting at all."
    )
    sizes = ", ".join(f"{o} {fmt_val(stat(main, o, 'victim_gpu_mean'))}" for o in naive)
    counts = ", ".join(f"{o} {fmt_val(stat(main, o, 'preemptions'))}" for o in naive)
    caps = ", ".join(f"{o} {fmt_val(stat(main, o, 'max_preemptions_per_job'))}" for o in naive)
    diffs = [
        (o, paired(main, "fitgpp", o, "BE_slowdown_p50"), paired(main, "fitgpp", o, "BE_slowdown_p95")) for o in naive
    ]
    detail = "; ".join(f"{o}: BE p50 {fmt_val(a)} ({_word(a)}), BE p95 {fmt_val(b)} ({_word(b)})" for o, a, b in diffs)
    lower = [o for o, a, b in diffs if a.hi < 0 or b.hi < 0]
    higher = [o for o, a, b in diffs if a.lo > 0 or b.lo > 0]
    mechanism = (
        "fitgpp takes the fewest victims and then the tightest fit, so a 1-GPU TE job takes the place of a 1- or "
        "4-GPU BE job when one is running rather than of a whole-node job (mean GPUs of the jobs preempted: fitgpp "
        f"{fmt_val(stat(main, 'fitgpp', 'victim_gpu_mean'))}, {sizes}). A small victim gets back in soon, through the "
        "gaps that greedy backfill lets it use; a whole-node victim waits for a whole node to drain while the GPUs "
        "the TE job did not need are taken by others. The price is that a small victim frees less room, so fitgpp "
        f"preempts more often ({fmt_val(stat(main, 'fitgpp', 'preemptions'))} preemptions per workload against "
        f"{counts}); its `P` cap ({cfg.P}) spreads them (most preemptions of one job "
        f"{fmt_val(stat(main, 'fitgpp', 'max_preemptions_per_job'))} against {caps}; lrtp picks the longest remaining "
        "job, the same one again and again)."
    )
    bullet = f"- *BE cost against the naive preemptors* (paired, fitgpp minus the other, slowdown units): {detail}. "
    if lower and not higher:
        wins.append(
            bullet + f"fitgpp's BE slowdowns are measurably lower than those of {', '.join(lower)}. Why: {mechanism}"
        )
    elif higher:
        losses.append(
            bullet + f"fitgpp's BE slowdowns are measurably higher than those of {', '.join(higher)}. {mechanism}"
        )
    else:
        wins.append(bullet + f"The differences are within the noise of these seeds. By design: {mechanism}")

    prio = stat(main, "fitgpp", "BE_p50_slowdown_pct_vs_priority")
    naive_prio = ", ".join(f"{o} {fmt_pct(stat(main, o, 'BE_p50_slowdown_pct_vs_priority'))}" for o in naive)
    prio_text = (
        f"BE p50 slowdown against priority (no preemption): fitgpp {fmt_pct(prio)}, {naive_prio}. Most of the BE "
        "penalty against fifo in section 1 comes from TE-first ordering, which priority pays too (priority alone: "
        f"{fmt_pct(stat(main, 'priority', 'BE_p50_slowdown_pct_vs_fifo'))} against fifo)."
    )
    if prio.hi < 0:
        wins.append(
            f"- *BE, even against priority.* {prio_text} Our reading, not isolated by an experiment: under priority "
            "the TE jobs queue at the head and take one or two GPUs of each node that frees up, so whole-node BE jobs "
            "wait longer for a whole node; under fitgpp TE jobs hardly queue (they start after one grace period) and "
            "its small victims get back in quickly, while the naive preemptors pay for their whole-node victims."
        )
    elif prio.lo > 0:
        losses.append(f"- *BE against priority.* Preemption costs BE something: {prio_text}")
    else:
        wins.append(f"- *BE against priority.* fitgpp's preemptions cost BE nothing measurable: {prio_text}")

    regimes = regime_rows(plan, main, curves)
    if "k8s" in plan.curve_policies:
        verdicts = {(key, _text(v)): regime_verdict(at, "k8s")[1] for key, v, at in regimes}
        good = [
            f"{k} = {v}" if k != "centre" else "the centre" for (k, v), w in verdicts.items() if w == "fitgpp lower"
        ]
        if good:
            wins.append(
                f"- *Across regimes* (table above), fitgpp's BE cost is measurably lower than k8s's at {', '.join(good)}."
            )
        for (key, value), word in verdicts.items():
            if word in ("fitgpp higher", "mixed"):
                losses.append(regime_loss(key, value, regimes, main))
        neutral = [f"{k} = {v}" for (k, v), w in verdicts.items() if w == "no clear difference"]
        if neutral:
            losses.append(
                f"- *No measurable BE difference* against k8s at {', '.join(neutral)}. Where the load is low the queue is "
                "short, few TE jobs need a victim and no victim waits long, so there is nothing to win."
            )

    te = [(o, paired(main, "fitgpp", o, "TE_slowdown_p95")) for o in naive]
    te = [(o, d) for o, d in te if d.lo > 0]
    if te:
        losses.append(
            "- *TE p95, by a hair.* fitgpp's is higher than "
            + ", ".join(f"{o}'s by {fmt_val(d)}" for o, d in te)
            + " (paired): no TE job waits longer than a grace period under any of them, but fitgpp preempts more "
            "often, so more TE jobs wait one grace period instead of starting in room an earlier, larger victim left free."
        )
    losses.extend(cap_text(main, plan, cfg))
    p0 = _fitgpp_label("P", 0)
    if p0 in set(main["policy"]):
        losses.append(
            f"- *`P` = 0* forbids preemption: fitgpp becomes priority (TE p95 vs fifo "
            f"{fmt_pct(stat(main, p0, 'TE_p95_slowdown_pct_vs_fifo'))}, priority "
            f"{fmt_pct(stat(main, 'priority', 'TE_p95_slowdown_pct_vs_fifo'))})."
        )
    small_s = [v for v in plan.s_values if math.isfinite(v)]
    if small_s:
        lab = _fitgpp_label("s", min(small_s))
        losses.append(
            f"- *Small `s`* protects BE jobs whose dominant share is more than s times the TE job's (a whole-node job "
            f"is 8 times a 1-GPU TE job's). With s = {min(small_s):g} most BE work of this regime is protected and "
            f"fitgpp falls back towards priority: TE p95 vs fifo {fmt_pct(stat(main, lab, 'TE_p95_slowdown_pct_vs_fifo'))}, "
            f"preemptions {fmt_val(stat(main, lab, 'preemptions'))}."
        )
    for recipe, rows in trace_rows.items():
        losses.append(trace_text(recipe, rows, cfg))

    head = (
        f"All statements are about the `paper` preset with {n_jobs} jobs per workload unless a real trace is named.\n"
    )
    return (
        "\n".join(
            [head, "**Where fitgpp wins.**\n", *wins, "", "**Where it does not win, or wins nothing.**\n", *losses]
        )
        + "\n"
    )


def cap_text(main: pd.DataFrame, plan: Plan, cfg: SimConfig) -> list[str]:
    """What the P cap does to BE, from the fitgpp variants with the largest P (paired with the default)."""
    bigger = [p for p in plan.p_values if p > cfg.P]
    if not bigger:
        return []
    label = _fitgpp_label("P", max(bigger))
    d50, d95 = paired(main, label, "fitgpp", "BE_slowdown_p50"), paired(main, label, "fitgpp", "BE_slowdown_p95")
    sizes = ", ".join(
        f"P = {p}: {fmt_val(stat(main, _fitgpp_label('P', p), 'victim_gpu_mean'))}" for p in plan.p_values if p > 0
    )
    facts = (
        f"`{label}` minus fitgpp (P = {cfg.P}), paired: BE p50 slowdown {fmt_val(d50)}, BE p95 {fmt_val(d95)}; mean "
        f"GPUs of the victims {sizes}"
    )
    if d50.hi < 0 or d95.hi < 0:
        return [
            f"- *The `P` cap costs BE here.* {facts}. Once the small jobs that fit a TE job best have used up their "
            "preemptions, the cap sends fitgpp to larger victims, which take longer to get back in. The cap protects "
            "each job (none is preempted more than P times), not the BE class as a whole."
        ]
    if d50.lo > 0 or d95.lo > 0:
        return [f"- *A larger `P` costs BE here* ({facts}): the cap protects BE as a whole in this regime."]
    return [f"- *The `P` cap* makes no measurable BE difference between P = {cfg.P} and P = {max(bigger)} ({facts})."]


def regime_loss(key: str, value: str, regimes: Sequence[tuple[str, Any, pd.DataFrame]], main: pd.DataFrame) -> str:
    """A regime where fitgpp's BE cost is higher than k8s's, with the mechanism we know for it."""
    at = next(r for k, v, r in regimes if k == key and _text(v) == value)
    diffs, _ = regime_verdict(at, "k8s")
    facts = (
        f"fitgpp minus k8s: BE p50 {fmt_val(diffs[0])}, BE p95 {fmt_val(diffs[1])} points of change vs fifo; "
        f"preemptions {fmt_val(stat(at, 'fitgpp', 'preemptions'))} against {fmt_val(stat(at, 'k8s', 'preemptions'))}"
    )
    if key == "checkpoint":
        text = (
            f"- *checkpoint = {value}* ({facts}; lost work {fmt_val(stat(at, 'fitgpp', 'lost_work'))} s against "
            f"{fmt_val(stat(at, 'k8s', 'lost_work'))} s). When a preemption loses the work since the last checkpoint, "
            "the age of the victim matters most. k8s preempts the most recently started job, which has done the "
            "least work; fitgpp ranks the tightest fit before lost work, so it preempts older small jobs and throws "
            "away more."
        )
        if "lrtp" in set(at["policy"]):
            text += f" lrtp, which picks the job with the most work left, loses the most: {fmt_val(stat(at, 'lrtp', 'lost_work'))} s."
        return text
    if key == "backfill":
        return (
            f"- *backfill = {value}* ({facts}). Under strict head-of-line no job starts out of queue order, so a small "
            "victim cannot slip back into a gap and the advantage of fitgpp's small victims is gone; what is left is "
            "a small difference in the other direction, whose cause we have not isolated."
        )
    return f"- *{key} = {value}*: {facts}."


def trace_text(recipe: str, rows: pd.DataFrame, cfg: SimConfig) -> str:
    uncapped = _fitgpp_label("P", TRACE_UNCAPPED_P)
    capped, free = stat(rows, "fitgpp", "TE_slowdown_p95"), stat(rows, uncapped, "TE_slowdown_p95")
    facts = (
        f"fitgpp's TE p95 slowdown is {fmt_val(capped)} against k8s's {fmt_val(stat(rows, 'k8s', 'TE_slowdown_p95'))} "
        f"and {fmt_val(free)} with the cap lifted (`{uncapped}`, where one BE job is preempted up to "
        f"{fmt_val(stat(rows, uncapped, 'max_preemptions_per_job'))} times)"
    )
    if capped.mean > 1.2 * free.mean:
        mix = f"{stat(rows, 'fifo', 'TE_count').mean:.0f} TE and {stat(rows, 'fifo', 'BE_count').mean:.0f} BE jobs"
        return (
            f"- *The real trace (recipe {recipe})* has few BE jobs (under the size mapping: over 1 h or over 1 GPU) "
            f"and many TE jobs ({mix} per workload on average), so the BE jobs soon use up their `P` = {cfg.P} preemptions and TE jobs wait again: "
            f"{facts}. The cap trades TE latency for BE protection; its right value depends on the ratio of TE to "
            "BE work."
        )
    return f"- *The real trace (recipe {recipe})*: the `P` cap hardly binds here: {facts}."


PAPER_BE_MEDIAN_H = 8  # the paper preset's BE duration median (be_median_s = 28800)
TRACE_UNCAPPED_P = 1000  # "no cap" for fitgpp on the trace: far above any job's preemption count


def _word(d: Stat) -> str:
    if not math.isfinite(d.lo):
        return "too few seeds to tell"
    if d.hi < 0:
        return "fitgpp lower"
    if d.lo > 0:
        return "fitgpp higher"
    return "no clear difference"


# --- figures -------------------------------------------------------------------------------------


class Figures:
    """PNG figures in ``results/``; each method returns the path relative to RESULTS.md."""

    def __init__(self, results: Path) -> None:
        import matplotlib

        matplotlib.use("Agg")
        self.results = results

    def _save(self, fig: Any, name: str) -> str:
        import matplotlib.pyplot as plt

        fig.tight_layout()
        fig.savefig(self.results / f"{name}.png", dpi=110, metadata={"Software": None})
        plt.close(fig)
        return f"results/{name}.png"

    def trio(self, rows: pd.DataFrame, policies: Sequence[str], baseline: str, name: str = "trio_vs_fifo") -> str:
        import matplotlib.pyplot as plt

        shown = [p for p in policies if p != baseline]
        fig, axes = plt.subplots(1, 3, figsize=(12, 3.6))
        for ax, key in zip(axes, PAPER_TRIO, strict=True):
            stats = [stat(rows, p, f"{key}_vs_{baseline}") for p in shown]
            means = [s.mean for s in stats]
            err = [[s.mean - s.lo if math.isfinite(s.lo) else 0 for s in stats],
                   [s.hi - s.mean if math.isfinite(s.hi) else 0 for s in stats]]  # fmt: skip
            ax.bar(shown, means, yerr=err, capsize=3, color="#4c72b0")
            if baseline == "fifo" and "fitgpp" in shown:
                ax.scatter([shown.index("fitgpp")], [PAPER_TRIO[key]], marker="*", s=120, color="#dd8452",
                           zorder=3, label="paper")  # fmt: skip
                ax.legend(loc="best", fontsize=8)
            ax.axhline(0, color="black", linewidth=0.6)
            ax.set_title(f"{TRIO_LABELS[key]}, % vs {baseline}", fontsize=10)
            ax.tick_params(axis="x", labelrotation=30, labelsize=8)
        return self._save(fig, name)

    def curve(
        self, key: str, series: Mapping[str, tuple[list[Any], list[pd.DataFrame]]], reference: pd.DataFrame | None
    ) -> str:
        import matplotlib.pyplot as plt

        fig, axes = plt.subplots(1, 3, figsize=(12, 3.4))
        for ax, metric in zip(axes, PAPER_TRIO, strict=True):
            col = f"{metric}_vs_fifo"
            for label, (values, frames) in series.items():
                stats = [Stat.of(f[col]) if len(f) else Stat(0, math.nan, math.nan, math.nan) for f in frames]
                xs = list(range(len(values)))
                ax.plot(xs, [s.mean for s in stats], marker="o", label=label)
                ax.fill_between(xs, [s.lo for s in stats], [s.hi for s in stats], alpha=0.2)
                ax.set_xticks(xs, [_text(v) for v in values])
            if reference is not None and len(reference):
                ax.axhline(Stat.of(reference[col]).mean, color="grey", linestyle="--", label="priority")
            ax.axhline(0, color="black", linewidth=0.6)
            ax.set_title(f"{TRIO_LABELS[metric]}, % vs fifo", fontsize=10)
            ax.set_xlabel(key)
        axes[0].legend(fontsize=8)
        return self._save(fig, f"sensitivity_{key}")
