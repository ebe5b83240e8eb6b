"""The section of docs/RESULTS.md on saves that fail and the preemption budget (issue 18), from stored rows.

Three sweeps of the ``paper`` preset (grids ``docs/results/grid_controls_*.yaml``, rows next to them),
each on the same seeds, so the same workloads, and each with ``priority`` as the paired baseline:

* ``save_failure`` in {0, 0.25, 0.5, 0.75, 1};
* ``save_time`` 30 s (= grace: the save succeeds) and 45 s (> grace: every save fails); 0 s is the
  ``save_failure = 0`` point;
* ``preempt_budget`` 1 and 2 decisions per rolling hour; inf is the ``save_failure = 0`` point, and
  0 is ``priority`` by the rule (tested).

Every number is a mean over seeds with its Student-t 95% CI (:mod:`simcore.experiments.study.tables`), differences
are paired by seed, and every sentence of the verdicts is computed from them. Run
``python -m simcore.experiments.study.controls docs/results`` to print the section.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from simcore.analysis.metrics import TRIO_LABELS, versus
from simcore.analysis.stats import SPREAD_NAME
from simcore.core import fmt
from simcore.experiments.study import tables as tb
from simcore.experiments.study.plan import BE_P50, BE_P95, TE_P95
from simcore.io.parquet_read import read_frame

BASE = "priority"
PREEMPTIVE = ("k8s", "lrtp", "random", "fitgpp", "fitdelay")
OURS, OTHERS = "fitdelay", ("fitgpp", "k8s")
FAILURES = (0.0, 0.25, 0.5, 0.75, 1.0)
SAVE_TIMES = (30.0, 45.0)
BUDGETS = (1.0, 2.0)
SWEEPS = ("save_failure", "save_time", "budget")  # docs/results/{grid,rows}_controls_<name>.*
TITLE = "## Saves that fail and the preemption budget (issue 18)"
#: the columns that must be equal for two points to be "the same run" (every result of a run)
RESULT_COLUMNS = ("TE_slowdown_p95", "BE_slowdown_p50", "BE_slowdown_p95", "preemptions", "lost_work", "makespan")


def _cells(rows: pd.DataFrame, axis: str, values: Sequence[float], policy: str, column: str) -> list[str]:
    return [tb.fmt_pct(tb.stat(tb.at_value(rows, axis, v), policy, column)) for v in values]


def trio_tables(rows: pd.DataFrame, axis: str, values: Sequence[float]) -> str:
    """One table per trio value: each preemptive policy's percent change against priority, per axis value."""
    out = []
    for key in (TE_P95, BE_P50, BE_P95):
        header = [f"{TRIO_LABELS[key]} vs {BASE}", *(f"{axis} = {fmt.setting(v)}" for v in values)]
        out.append(tb.table(header, [[p, *_cells(rows, axis, values, p, versus(key, BASE))] for p in PREEMPTIVE]))
    return "\n\n".join(out)


def beating(rows: pd.DataFrame, axis: str, values: Sequence[float], policy: str, key: str) -> str:
    """Where `policy` beats priority on `key` (CI of the paired percent change below 0), in words."""
    stats = [tb.stat(tb.at_value(rows, axis, v), policy, versus(key, BASE)) for v in values]
    better = [fmt.setting(v) for v, s in zip(values, stats, strict=True) if s.hi < 0]
    worse = [fmt.setting(v) for v, s in zip(values, stats, strict=True) if s.lo > 0]
    said = f"better at {', '.join(better)}" if better else "better at no value"
    return f"{said}; worse at {', '.join(worse) if worse else 'no value'}"


def loss_table(rows: pd.DataFrame, axis: str, values: Sequence[float]) -> str:
    """fitdelay minus fitgpp and minus k8s, paired: BE p50 and p95 slowdown, lost work (hours of run time)."""
    body = []
    for other in OTHERS:
        for metric, label, scale in (
            ("BE_slowdown_p50", "BE p50 slowdown", 1.0),
            ("BE_slowdown_p95", "BE p95 slowdown", 1.0),
            ("lost_work", "lost work (h)", 1 / 3600),
        ):
            cells = []
            for v in values:
                s = tb.paired(tb.at_value(rows, axis, v), OURS, other, metric)
                cells.append(tb.fmt_val(tb.Stat(s.n, s.mean * scale, s.lo * scale, s.hi * scale)))
            body.append([f"{OURS} - {other}: {label}", *cells])
    return tb.table(["paired difference", *(f"{axis} = {fmt.setting(v)}" for v in values)], body)


def pays(rows: pd.DataFrame, axis: str, values: Sequence[float], other: str, metric: str) -> str:
    """Where fitdelay is below `other` on `metric` with the paired CI excluding 0, in words."""
    stats = [tb.paired(tb.at_value(rows, axis, v), OURS, other, metric) for v in values]
    below = [fmt.setting(v) for v, s in zip(values, stats, strict=True) if s.hi < 0]
    above = [fmt.setting(v) for v, s in zip(values, stats, strict=True) if s.lo > 0]
    neither = [fmt.setting(v) for v, s in zip(values, stats, strict=True) if not (s.hi < 0 or s.lo > 0)]
    return (
        f"below {other} at {', '.join(below) if below else 'no value'}, "
        f"above at {', '.join(above) if above else 'no value'}, "
        f"not told apart (CI holds 0) at {', '.join(neither) if neither else 'no value'}"
    )


def te_moves(rows: pd.DataFrame, axis: str, values: Sequence[float]) -> str:
    """How far each policy's mean TE p95 change against priority moves across the axis, in points."""
    spans = []
    for p in PREEMPTIVE:
        means = [tb.stat(tb.at_value(rows, axis, v), p, versus(TE_P95, BASE)).mean for v in values]
        spans.append(max(means) - min(means))
    return fmt.number(max(spans))


def same_runs(a: pd.DataFrame, b: pd.DataFrame) -> bool:
    """Do two points give the same results for every policy and seed?"""
    cols = ["policy", "seed", *RESULT_COLUMNS]
    left = a[cols].sort_values(["policy", "seed"]).reset_index(drop=True)
    right = b[cols].sort_values(["policy", "seed"]).reset_index(drop=True)
    return left.equals(right)


def budget_table(base: pd.DataFrame, budget: pd.DataFrame) -> str:
    """TE p95 slowdown and preemptions per budget (inf = the base point), and TE p95 against priority."""
    points = [(fmt.setting(b), tb.at_value(budget, "preempt_budget", b)) for b in BUDGETS] + [("inf", base)]
    body = []
    for p in PREEMPTIVE:
        body.append([f"{p}: TE p95 slowdown", *(tb.fmt_val(tb.stat(r, p, "TE_slowdown_p95")) for _, r in points)])
        body.append([f"{p}: TE p95 vs {BASE}", *(tb.fmt_pct(tb.stat(r, p, versus(TE_P95, BASE))) for _, r in points)])
        body.append([f"{p}: BE p50 vs {BASE}", *(tb.fmt_pct(tb.stat(r, p, versus(BE_P50, BASE))) for _, r in points)])
        body.append([f"{p}: preemptions", *(tb.fmt_val(tb.stat(r, p, "preemptions")) for _, r in points)])
    body.append([f"{BASE}: TE p95 slowdown", *(tb.fmt_val(tb.stat(r, BASE, "TE_slowdown_p95")) for _, r in points)])
    return tb.table(["", *(f"preempt_budget = {name}" for name, _ in points)], body)


def section(failure: pd.DataFrame, save_time: pd.DataFrame, budget: pd.DataFrame) -> str:
    """The Markdown section from the three sweeps' rows."""
    seeds, jobs = failure["seed"].nunique(), int(failure["jobs"].iloc[0])
    nodes, grace = int(failure["nodes"].iloc[0]), fmt.setting(float(failure["grace"].iloc[0]))
    never, always = tb.at_value(failure, "save_failure", 0.0), tb.at_value(failure, "save_failure", 1.0)
    at30, at45 = tb.at_value(save_time, "save_time", 30.0), tb.at_value(save_time, "save_time", 45.0)
    verdict = [
        f"- **{p}** against {BASE}: BE p50 {beating(failure, 'save_failure', FAILURES, p, BE_P50)}; "
        f"BE p95 {beating(failure, 'save_failure', FAILURES, p, BE_P95)} (save_failure values)."
        for p in PREEMPTIVE
    ]
    verdict += [
        f"- **{OURS}** against {other}: BE p50 slowdown {pays(failure, 'save_failure', FAILURES, other, 'BE_slowdown_p50')}; "
        f"lost work {pays(failure, 'save_failure', FAILURES, other, 'lost_work')} (save_failure values, paired CIs)."
        for other in OTHERS
    ]
    return "\n\n".join(
        [
            TITLE,
            f"The `paper` preset, {jobs} jobs on {nodes} nodes, {seeds} seeds (each seed one workload on which "
            f"every policy runs: differences are paired), grace {grace} s, `checkpoint = on_preempt`; the baseline is "
            f"`{BASE}` (TE first, no preemption), so a percent change below 0 means the policy beats it. Cells are "
            f"means over seeds with their {SPREAD_NAME}. Generated from "
            "`docs/results/rows_controls_*.parquet` by `python -m simcore.experiments.study.controls docs/results` (the grids are "
            "next to the rows); the rules are in [policies.md](policies.md#saves-that-fail-and-the-preemption-budget).",
            "### save_failure",
            trio_tables(failure, "save_failure", FAILURES),
            f"TE p95 does not move with `save_failure`: across its values no policy's mean change against {BASE} "
            f"moves by more than {te_moves(failure, 'save_failure', FAILURES)} percentage points (a failed save costs "
            "the victim, not the TE job, which starts at the end of the grace period either way).",
            "Where each preemptive policy beats priority (CI of the paired percent change entirely below 0) or loses "
            "to it (entirely above):",
            "\n".join(verdict),
            "fitdelay against fitgpp (our reconstruction of the paper's approach) and k8s, paired by seed (below 0: "
            "fitdelay is lower):",
            loss_table(failure, "save_failure", FAILURES),
            "### save_time around the grace period",
            f"With grace {grace} s a save of `save_time` <= grace succeeds and one of `save_time` > grace fails surely, "
            "so the curve is a step. Measured: `save_time = 30` gives "
            + ("exactly" if same_runs(at30, never) else "**not** exactly")
            + " the runs of `save_failure = 0` (every policy, every seed), and `save_time = 45` "
            + ("exactly" if same_runs(at45, always) else "**not** exactly")
            + " those of `save_failure = 1`; 0 and 15 s are <= grace and 60 s > grace like 45 s, so they were not "
            "run again. The tables above at `save_failure` = 0 and 1 are the two sides of the step.",
            "### preempt_budget against TE p95",
            budget_table(never, budget),
            "`preempt_budget = 0` never preempts: its runs are priority's (tested).",
        ]
    )


def load(folder: Path) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """The rows of the three sweeps (save_failure, save_time, budget) stored in `folder`."""
    failure, save_time, budget = (read_frame(folder / f"rows_controls_{n}.parquet") for n in SWEEPS)
    return failure, save_time, budget


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    folder = Path(args[0] if args else "docs/results")
    print(section(*load(folder)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
