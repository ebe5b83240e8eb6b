"""What the study runs: the plan (seeds, jobs, curves), its two presets and the sweep grids built from it.

Every grid is a plain mapping in the grid-file format of ``simcore sweep``; it is written next to
its rows, so any part of the study can be re-run on its own. The paper's own numbers, the one
reference the study is measured against, are here too.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from simcore.analysis.metrics import TRIO_KEYS, TRIO_LABELS
from simcore.core import fmt
from simcore.core.model import SimConfig
from simcore.workload import alibaba

#: The trio's keys (from :mod:`simcore.analysis.metrics`) by name, for the sentences that quote one of them.
TE_P95, BE_P50, BE_P95 = TRIO_KEYS
#: The paper's abstract: fitgpp against FIFO on its own workloads, in % change.
PAPER_TRIO: dict[str, float] = dict(zip(TRIO_KEYS, (-96.6, 18.0, 23.9), strict=True))
_HEADLINE = ", ".join(f"{TRIO_LABELS[k]} {fmt.pct(v)}" for k, v in PAPER_TRIO.items())
DESCRIPTION = f"""\
Re-measure the paper's headline against FIFO
({_HEADLINE})
with our simulator: the paper preset over many seeds for every policy, sensitivity curves
(P, s, grace, restore, checkpoint, backfill, load, TE share) and the Alibaba GPU trace.
Writes RESULTS.md, figures and the rows behind every number. FitGpp is our reconstruction
of the paper's approach, not the paper's exact algorithm.
"""

DEFAULT_TRACE = "../shared/traces/alibaba-gpu-2023"  # relative to the repository root
NAIVE = ("k8s", "lrtp", "random")  # preemptive baselines without fitgpp's caps
TRACE_UNCAPPED_P = 1000  # "no cap" for fitgpp on the trace: far above any job's preemption count


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


def centre() -> dict[str, Any]:
    """The ``paper`` preset's parameters and the default knobs: the point every curve passes through."""
    from simcore.workload.presets import resolve_params

    knobs = SimConfig().knobs()
    return {**resolve_params("paper"), **knobs}


def same(a: Any, b: Any) -> bool:
    """Equal as grid values: 1 == 1.0, and any other value by its text."""
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return float(a) == float(b)
    return str(a) == str(b)


def fitgpp_label(key: str, value: Any) -> str:
    """The policy label of fitgpp with one knob set (plain ``fitgpp`` at the knob's default)."""
    return "fitgpp" if same(value, getattr(SimConfig(), key)) else f"fitgpp:{key}={fmt.setting(value)}"


def main_grid(plan: Plan) -> dict[str, Any]:
    """The main sweep as a grid-file mapping (written next to the results, runnable by ``simcore sweep``)."""
    from simcore.policies import POLICIES

    variants = [fitgpp_label("P", p) for p in plan.p_values] + [fitgpp_label("s", s) for s in plan.s_values]
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
    mid = centre()
    grids = [{key: [v for v in values if not same(v, mid[key])]} for key, values in plan.curves]
    return {
        "preset": "paper",
        "set": {"jobs": plan.jobs, "nodes": plan.nodes},
        "grid": [g for g in grids if next(iter(g.values()))],
        "seeds": plan.curve_seeds,
        "policies": list(plan.curve_policies),
        "baseline": ["fifo", "priority"],
    }


def trace_grids(plan: Plan, trace_dir: Path) -> dict[str, dict[str, Any]]:
    """Recipes A and B of the workloads issue as sweep grids over the trace."""
    from simcore.policies import POLICIES

    policies = [*POLICIES, fitgpp_label("P", 4), fitgpp_label("P", TRACE_UNCAPPED_P)]
    common = {"alibaba": shown_path(trace_dir), "seeds": 1, "policies": policies, "baseline": ["fifo", "priority"]}
    short = {} if plan.trace_window_days is None else {"window_days": plan.trace_window_days}
    b_days = plan.trace_window_days or alibaba.recipe_b_window_days(plan.trace_windows)
    return {
        "A": {**common, "set": {**alibaba.RECIPES["A"], **short}},
        "B": {
            **common,
            "set": {**alibaba.RECIPES["B"], "window_days": b_days},
            "grid": {"window_start": alibaba.recipe_b_windows(plan.trace_windows)},
        },
    }


def trace_present(trace_dir: Path) -> bool:
    return all((trace_dir / name).is_file() for name in (alibaba.POD_FILE, alibaba.NODE_FILE))


def shown_path(path: Path) -> str:
    """The path relative to the working directory when it is below a common parent (shorter in grid files)."""
    try:
        rel = os.path.relpath(path)
    except ValueError:  # another drive on Windows
        return str(path)
    return str(path) if rel.startswith(os.path.join(os.pardir, os.pardir)) else rel
