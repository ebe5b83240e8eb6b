"""Section 9 of docs/RESULTS.md: the preemption accounting of every policy on the ``paper`` preset
and the distance of fitgpp and fitdelay to the pooled bound (DESIGN.md section 5).

The rows are a plain sweep with the pooled bound (grid file :data:`GRID_NAME` in docs/results/,
``bound: true``); this module renders the section from them, writes it to
``docs/results/section_accounting.md`` and puts it into RESULTS.md before "## Reproduce"
(:func:`simcore.experiments.study.document.render` keeps that file's section on the next ``simcore reproduce``).
Every number is a mean over the seeds with its 95% confidence interval (Student t), paired by
seed where two policies are compared. Usage::

    simcore sweep docs/results/grid_accounting.yaml --out docs/results/rows_accounting.parquet --workers 2
    python -m simcore.experiments.study.accounting_doc            # writes the section into docs/RESULTS.md
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from simcore.analysis.accounting import COSTS
from simcore.analysis.bound import BOUND_LABEL
from simcore.core import fmt
from simcore.experiments.study import results_doc
from simcore.experiments.study.tables import Stat, paired, stat, table
from simcore.io.parquet_read import read_frame

GRID_NAME = "grid_accounting.yaml"
ROWS_NAME = "rows_accounting.parquet"
SECTION_NAME = "section_accounting.md"
HEADING = "## 9. Preemption accounting and the pooled bound"
PREEMPTIVE = ("k8s", "lrtp", "random", "fitgpp", "fitdelay")
HOUR = 3600.0
#: the bound's distance: (row column, label, unit)
DISTANCE = (
    ("TE_slowdown_p95", "TE p95 slowdown", ""),
    ("TE_wait_mean", "TE mean wait", "s"),
    ("TE_wait_max", "TE max wait", "s"),
    ("BE_slowdown_p50", "BE p50 slowdown", ""),
    ("BE_slowdown_p95", "BE p95 slowdown", ""),
)


def _est(s: Stat, unit: str = "") -> str:
    each = fmt.duration if unit == "s" else fmt.number
    return fmt.estimate(s.mean, s.lo, s.hi, each)


def with_cost(rows: pd.DataFrame) -> pd.DataFrame:
    """The rows with ``be_gpu_hours``: what a run's preemptions cost BE jobs (lost + grace + restore) in GPU-hours."""
    return rows.assign(be_gpu_hours=rows[list(COSTS)].sum(axis=1) / HOUR)


def render(rows: pd.DataFrame) -> str:
    """The section's Markdown from the sweep's rows (policies and the bound, every seed)."""
    rows = with_cost(rows)
    seeds, jobs = rows["seed"].nunique(), int(rows["jobs_simulated"].iloc[0])
    shown = [p for p in PREEMPTIVE if p in set(rows["policy"])]
    out = [HEADING + "\n"]
    out.append(
        f"`paper` preset, **{jobs} jobs** per workload on 16 nodes x 8 GPUs, {seeds} seeds; mean [95% CI] over the "
        "seeds. The figures are defined once in [policies.md](policies.md#preemption-accounting): GPU-hours of work "
        "lost, of grace (held while checkpointing) and of restore, the share of BE jobs preempted at least once, the "
        "GPUs the victims freed beyond what the TE job lacked (summed over decisions), the decisions whose TE job "
        "started elsewhere first (wasted), and the preemptions within an hour of run after the last restore. "
        f"`{BOUND_LABEL}` is the [pooled bound](policies.md#the-pooled-bound-ideal), a reference, not a policy.\n"
    )
    header = [
        "policy",
        "decisions",
        "lost GPU-h",
        "grace GPU-h",
        "restore GPU-h",
        "evicted share",
        "excess GPUs",
        "wasted",
        "repreempted",
    ]
    body = []
    for p in [*shown, BOUND_LABEL]:
        cells = [_est(stat(rows, p, "preemption_decisions"))]
        cells += [_est(_scaled(stat(rows, p, c), 1 / HOUR)) for c in COSTS]
        cells += [_est(stat(rows, p, m)) for m in ("evicted_share", "excess_gpus", "wasted_preemptions", "repreempted")]
        body.append([p if p != BOUND_LABEL else f"{p} (bound)", *cells])
    out.append(table(header, body) + "\n")
    out.append(_paired_text(rows, shown) + "\n")
    out.append(_unmoved(rows, shown) + "\n")
    out.append("### Distance to the pooled bound\n")
    out.append(
        "Each policy minus the bound on the same workload (paired by seed); the bound's own values first. What is "
        "left between a policy and the bound is what fragmentation and preemption cost it; the bound itself is "
        "what the load costs.\n"
    )
    header = ["", *(label for _, label, _ in DISTANCE)]
    body = [[f"{BOUND_LABEL} (bound)", *(_est(stat(rows, BOUND_LABEL, c), u) for c, _, u in DISTANCE)]]
    for p in ("fitgpp", "fitdelay", "priority"):
        if p in set(rows["policy"]):
            body.append([f"{p} - bound", *(_est(paired(rows, p, BOUND_LABEL, c), u) for c, _, u in DISTANCE)])
    out.append(table(header, body) + "\n")
    out.append(_distance_text(rows) + "\n")
    out.append("### Saves that fail and the preemption budget\n")
    out.append(
        "The sweeps of `save_failure`, `save_time` and `preempt_budget` belong here; they come with those knobs "
        "(their own change), on the same rows' grid file with those axes added.\n"
    )
    out.append(
        f"Rows: `results/{ROWS_NAME}`, from `simcore sweep results/{GRID_NAME}` (the grid file stored beside them); "
        "this section: `python -m simcore.experiments.study.accounting_doc`.\n"
    )
    return "\n".join(out)


def _scaled(s: Stat, k: float) -> Stat:
    return Stat(s.n, s.mean * k, s.lo * k, s.hi * k)


def _paired_text(rows: pd.DataFrame, shown: Sequence[str]) -> str:
    """Each other preemptive policy's BE cost and excess against fitgpp's, paired by seed."""
    if "fitgpp" not in shown:
        return ""
    parts = []
    for p in (p for p in shown if p != "fitgpp"):
        cost, excess = paired(rows, p, "fitgpp", "be_gpu_hours"), paired(rows, p, "fitgpp", "excess_gpus")
        parts.append(f"{p} {_est(cost)} GPU-h and {_est(excess)} excess GPUs")
    return (
        "Against fitgpp on the same workloads (policy minus fitgpp, paired by seed; BE GPU-hours = lost + grace + "
        "restore): " + "; ".join(parts) + "."
    )


def _distance_text(rows: pd.DataFrame) -> str:
    sentences = []
    for p in ("fitgpp", "fitdelay"):
        if p not in set(rows["policy"]):
            continue
        te, be = paired(rows, p, BOUND_LABEL, "TE_slowdown_p95"), paired(rows, p, BOUND_LABEL, "BE_slowdown_p50")
        sentences.append(
            f"{p} is {_est(te)} above the bound in TE p95 slowdown ({_zero(te)}) and {_est(be)} in BE p50 "
            f"slowdown ({_zero(be)})"
        )
    return "; ".join(sentences) + "." if sentences else ""


def _zero(s: Stat) -> str:
    return "the interval includes 0: no measurable distance" if s.lo <= 0 <= s.hi else "the interval excludes 0"


def _unmoved(rows: pd.DataFrame, shown: Sequence[str]) -> str:
    """What does not move on these rows, said rather than left for the reader to find."""
    notes = []
    if (rows["gpu_seconds_lost"] == 0).all():
        notes.append(
            "No work is lost here: with the default `checkpoint = on_preempt` the grace period saves everything, "
            "so the cost of a preemption is its grace and restore time only"
        )
    fit, delay = (rows[rows["policy"] == p].set_index("seed")[list(COSTS)] for p in ("fitgpp", "fitdelay"))
    if "fitdelay" in shown and "fitgpp" in shown and fit.equals(delay):
        notes.append("fitdelay chooses exactly as fitgpp where a preemption loses nothing, so their rows are equal")
    return ". ".join(notes) + "." if notes else ""


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--results", default="docs/results", help="where the rows are and the section goes")
    parser.add_argument("--doc", default="docs/RESULTS.md", help="the document the section is put into")
    args = parser.parse_args(argv)
    results = Path(args.results)
    rows_path = results / ROWS_NAME
    if not rows_path.exists():
        print(
            f"error: {rows_path} not found: run simcore sweep {results / GRID_NAME} --out {rows_path}", file=sys.stderr
        )
        return 2
    section = render(read_frame(rows_path))
    (results / SECTION_NAME).write_text(section)
    doc = Path(args.doc)
    results_doc.put_section(doc, section)
    print(f"wrote {results / SECTION_NAME} and section 9 of {doc}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
