"""The section of docs/RESULTS.md on gang jobs (issue 17): what preempting a gang costs, and which victim rule pays least.

One sweep of the ``paper-gang`` preset (DESIGN.md section 7) at the plan's size, every policy at its
default knobs, fifo the paired baseline; grid ``docs/results/grid_gangs.yaml``, rows next to it. A run
with gangs adds :data:`simcore.analysis.accounting.GANG_FIELDS` to its row, from which the section takes the
workers stopped per preemption, the share of preemptions that stopped a gang, and the TE jobs served
by preemption. Every number is a mean over seeds with its Student-t 95% CI, paired by seed where two
policies are compared (:mod:`simcore.experiments.study.tables`). Run ``python -m simcore.experiments.study.gangs`` to put the
section into docs/RESULTS.md from the stored rows.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Sequence
from typing import Any

import pandas as pd

from simcore.analysis.accounting import COSTS
from simcore.analysis.metrics import TRIO_KEYS, TRIO_LABELS, versus
from simcore.analysis.stats import SPREAD_NAME
from simcore.core import fmt
from simcore.experiments.study import results_doc
from simcore.experiments.study import tables as tb
from simcore.experiments.study.plan import Plan
from simcore.experiments.study.tables import Stat

NAME = "gangs"  # docs/results/{grid,rows}_gangs.*
PRESET = "paper-gang"
BASE = "fifo"


def grid(plan: Plan) -> dict[str, Any]:
    """The sweep as a grid-file mapping: ``paper-gang`` at the plan's size and seeds, every policy."""
    from simcore.policies import POLICIES

    return {
        "preset": PRESET,
        "set": {"jobs": plan.jobs, "nodes": plan.nodes},
        "seeds": plan.main_seeds,
        "policies": list(POLICIES),
        "baseline": [BASE],
    }


ROWS = f"rows_{NAME}.parquet"
HEADING = "## 10. Gang jobs: what preempting a gang costs"
PREEMPTIVE = ("k8s", "lrtp", "random", "fitgpp", "fitdelay")
#: the paired comparisons between victim rules: (policy, other), shown as policy - other
PAIRS = (
    ("fitgpp", "k8s"),
    ("fitgpp", "lrtp"),
    ("fitgpp", "random"),
    ("fitdelay", "fitgpp"),
    ("fitdelay", "k8s"),
    ("lrtp", "k8s"),
    ("random", "k8s"),
)
HOUR = 3600.0
#: what "pays least" is judged by: BE GPU-hours (lost + grace + restore) per TE job served by preemption
PRICE = "gpu_h_per_te"
#: the derived per-run columns of :func:`derived` and the paired table: (column, label)
PAIRED_COLUMNS = (
    ("TE_slowdown_p95", "TE p95 slowdown"),
    ("BE_slowdown_p50", "BE p50 slowdown"),
    ("BE_slowdown_p95", "BE p95 slowdown"),
    ("preemptions", "preemptions"),
    ("workers_per_preemption", "workers stopped per preemption"),
    ("be_gpu_h", "BE GPU-h (lost + grace + restore)"),
    (PRICE, "BE GPU-h per TE job served"),
)


def derived(rows: pd.DataFrame) -> pd.DataFrame:
    """The rows with the section's per-run ratios (NaN in a run without preemptions: no ratio there)."""
    pre = rows["preemptions"].where(rows["preemptions"] > 0)
    served = rows["te_served_by_preemption"].where(rows["te_served_by_preemption"] > 0)
    be_gpu_h = rows[list(COSTS)].sum(axis=1) / HOUR
    return rows.assign(
        workers_per_preemption=rows["workers_stopped"] / pre,
        gang_share=rows["gang_preemptions"] / pre,
        lost_gpu_h=rows["gpu_seconds_lost"] / HOUR,
        be_gpu_h=be_gpu_h,
        lost_gpu_h_per_te=rows["gpu_seconds_lost"] / HOUR / served,
        gpu_h_per_te=be_gpu_h / served,
    )


def told(s: Stat, lower: str = "lower", higher: str = "higher") -> str:
    """A paired difference or a change in words: ``lower``/``higher`` when its CI excludes 0."""
    if not math.isfinite(s.lo):
        return "not measured (fewer than two seeds)"
    if s.hi < 0:
        return lower
    if s.lo > 0:
        return higher
    return "no difference measured (the CI includes 0)"


def trio_table(rows: pd.DataFrame, policies: Sequence[str]) -> str:
    """Each policy's trio against fifo: the per-seed percent change, mean [CI]."""
    body = [[p, *tb.trio_cells(rows, p, BASE)] for p in policies if p != BASE]
    return tb.table(["policy", *tb.trio_header(BASE)], body)


def trio_text(rows: pd.DataFrame, policies: Sequence[str]) -> str:
    """Per policy, where its change against fifo is measured and where it is not."""
    lines = []
    for p in (p for p in policies if p != BASE):
        said = [f"{TRIO_LABELS[k]} {told(tb.stat(rows, p, versus(k, BASE)))}" for k in TRIO_KEYS]
        lines.append(f"- **{p}** against {BASE}: " + "; ".join(said) + ".")
    return "\n".join(lines)


#: the cost table's columns: (derived column, label)
COST_COLUMNS = (
    ("preemptions", "preemptions"),
    ("workers_per_preemption", "workers stopped per preemption"),
    ("gang_share", "share stopping a gang (> 1 worker)"),
    ("te_served_by_preemption", "TE jobs served by preemption"),
    ("lost_gpu_h", "lost GPU-h"),
    ("be_gpu_h", "BE GPU-h (lost + grace + restore)"),
    ("lost_gpu_h_per_te", "lost GPU-h per TE job served"),
    (PRICE, "BE GPU-h per TE job served"),
)


def cost_table(rows: pd.DataFrame, policies: Sequence[str]) -> str:
    """What each preemptive policy's preemptions stop and cost, mean [CI] over seeds."""
    body = [[p, *(tb.fmt_val(tb.stat(rows, p, c)) for c, _ in COST_COLUMNS)] for p in policies]
    return tb.table(["policy", *(label for _, label in COST_COLUMNS)], body)


def pairs_of(policies: Sequence[str]) -> list[tuple[str, str]]:
    return [(a, b) for a, b in PAIRS if a in policies and b in policies]


def paired_table(rows: pd.DataFrame, pairs: Sequence[tuple[str, str]]) -> str:
    """Policy minus other on the same workloads, mean [CI], for every column of :data:`PAIRED_COLUMNS`."""
    body = [[f"{a} - {b}", *(tb.fmt_val(tb.paired(rows, a, b, c)) for c, _ in PAIRED_COLUMNS)] for a, b in pairs]
    return tb.table(["difference", *(label for _, label in PAIRED_COLUMNS)], body)


def cheapest_text(rows: pd.DataFrame, policies: Sequence[str], pairs: Sequence[tuple[str, str]]) -> str:
    """Which victim rule pays least per TE job served, and what the paired CIs can tell apart."""
    means = {p: tb.stat(rows, p, PRICE).mean for p in policies}
    known = {p: m for p, m in means.items() if math.isfinite(m)}
    if not known:
        return "No policy preempted, so no victim rule paid anything."
    best = min(known, key=lambda p: known[p])
    tied = [p for p in known if p != best and known[p] == known[best]]
    verdicts = []
    for other in (p for p in known if p != best and p not in tied):
        d = tb.paired(rows, best, other, PRICE)
        verdicts.append(f"against {other} {fmt.number(d.mean)} GPU-h, {told(d)}")
    named = best + (f" (with {' and '.join(tied)}, equal)" if tied else "")
    lines = [
        f"**Which victim rule pays least.** By mean BE GPU-hours per TE job served, {named} "
        f"({fmt.number(known[best])} GPU-h); paired by seed, {best} minus each other rule: "
        + "; ".join(verdicts)
        + ".\n"
    ]
    for a, b in pairs:
        cost, wps = tb.paired(rows, a, b, PRICE), tb.paired(rows, a, b, "workers_per_preemption")
        be50 = tb.paired(rows, a, b, "BE_slowdown_p50")
        lines.append(
            f"- {a} against {b}: BE GPU-h per TE job served {told(cost)}; workers stopped per preemption "
            f"{told(wps, 'fewer', 'more')}; BE p50 slowdown {told(be50)}."
        )
    return "\n".join(lines)


def unmoved_text(rows: pd.DataFrame, policies: Sequence[str]) -> str:
    """What does not move on these rows, said rather than left for the reader to find."""
    notes = []
    if (rows.loc[rows["policy"].isin(policies), "gpu_seconds_lost"] == 0).all():
        notes.append(
            "No work is lost: with `checkpoint = on_preempt` the grace period saves everything, so what a preemption "
            "costs is the GPU-time of its grace and restore, x the workers it stops"
        )
    if {"fitgpp", "fitdelay"} <= set(policies):
        cols = [c for c, _ in PAIRED_COLUMNS]
        fit, delay = (rows[rows["policy"] == p].set_index("seed")[cols] for p in ("fitgpp", "fitdelay"))
        if fit.equals(delay):
            notes.append("fitdelay chooses exactly as fitgpp here (nothing is lost), so their rows are equal")
    return ". ".join(notes) + "." if notes else ""


def section(rows: pd.DataFrame) -> str:
    """The Markdown section from the sweep's rows."""
    rows = derived(rows)
    seeds, jobs = rows["seed"].nunique(), int(rows["jobs_simulated"].iloc[0])
    nodes = int(rows["nodes"].iloc[0])
    present = set(rows["policy"])
    policies = [p for p in dict.fromkeys(rows["policy"])]
    preemptive = [p for p in PREEMPTIVE if p in present]
    pairs = pairs_of(preemptive)
    return "\n\n".join(
        [
            HEADING,
            f"The `{PRESET}` preset (DESIGN.md section 7: BE jobs of 8 GPUs run as 1, 2 or 4 "
            "workers of one whole node each, 5% of TE jobs as 2-worker gangs), "
            f"**{jobs} jobs** per workload on {nodes} nodes x 8 GPUs, {seeds} seeds (each seed one workload on which "
            "every policy runs: differences are paired), every policy at its default knobs (grace 30 s, restore 60 s, "
            f"`checkpoint = on_preempt`, greedy backfill, P = 2, s = inf). Cells are means over seeds with their "
            f"{SPREAD_NAME} (Student t); a ratio (per preemption, per TE job) is taken in each run, then averaged. "
            "fitgpp is our reconstruction of the paper's approach. The gang rules are in "
            "[policies.md](policies.md#gang-jobs).",
            "### The trio against FIFO",
            trio_table(rows, policies),
            trio_text(rows, policies),
            "### What a preemption stops and costs",
            "A preemption is one signalled job (a gang counts once, and stops all its workers). GPU-hours are the "
            "[preemption accounting](policies.md#preemption-accounting)'s: seconds x GPUs x workers. A TE job served by "
            "preemption is one nominated with victims (counted once, however many times it was nominated).",
            cost_table(rows, preemptive),
            unmoved_text(rows, preemptive),
            "### Victim rules against each other (paired)",
            f"Policy minus other on the same workloads, mean [{SPREAD_NAME}]; negative = the first lower.",
            paired_table(rows, pairs),
            cheapest_text(rows, preemptive, pairs),
            f"Rows: `results/{ROWS}`, from `simcore sweep results/grid_{NAME}.yaml` (the grid file stored beside "
            "them); this section: `python -m simcore.experiments.study.gangs`.",
        ]
    )


def main(argv: Sequence[str] | None = None) -> int:
    return results_doc.section_main(argv, NAME, "gang", section, __doc__)


if __name__ == "__main__":
    sys.exit(main())
