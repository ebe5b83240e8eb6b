"""The section of docs/RESULTS.md on teams (issue 34): queues with quotas, borrowing and reclaim on the
``teams`` preset (DESIGN.md section 7's style; docs/workloads.md), and what a borrow limit buys.

One sweep of the ``teams`` preset at the plan's job count on its own 16-node cluster (three teams:
vision 56 GPUs, nlp 40, research 32; borrow limits 72, 24, 96; weights 1, 1, 2), every policy at its
default knobs, fifo the paired baseline, and research's borrow limit at 96 (the preset's), 32 and 0
(grid ``docs/results/grid_teams.yaml``, rows next to it). A run with queues adds each queue's
numbers to its row (``queue_<name>_<field>``, :data:`simcore.analysis.metrics.QUEUE_FLAT`). Every
number is a mean over seeds with its Student-t 95% CI; two policies, or two borrow limits, are
compared paired by seed (the same workload). Run ``python -m simcore.experiments.study.teams`` to
put the section into docs/RESULTS.md from the stored rows.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from simcore.analysis.metrics import queue_column as col
from simcore.analysis.stats import SPREAD_NAME, paired_diff
from simcore.core import fmt
from simcore.experiments.study import results_doc
from simcore.experiments.study import tables as tb
from simcore.experiments.study.gangs import PREEMPTIVE, told
from simcore.experiments.study.plan import Plan
from simcore.experiments.study.tables import Stat

NAME = "teams"  # docs/results/{grid,rows}_teams.*
PRESET = "teams"
BASE = "fifo"
QUEUES = ("vision", "nlp", "research")
LENDERS = ("vision", "nlp")
BORROWER = "research"
#: research's borrow limit (the preset's list: vision, nlp, research), the preset's own first
LIMITS = ("72,24,96", "72,24,32", "72,24,0")
ROWS = f"rows_{NAME}.parquet"
HEADING = "## 12. Teams: quotas, borrowing and reclaim"
HOUR = 3600.0
#: the paired comparisons against fifo of the per-queue table: (column suffix, label)
PER_QUEUE = (("TE_slowdown_p95", "TE p95"), ("BE_slowdown_p50", "BE p50"), ("BE_slowdown_p95", "BE p95"))
RECLAIM_COSTS = ("lost_to_reclaims", "grace_of_reclaims", "restore_of_reclaims")
#: the policies whose borrow limit is compared (one per victim rule family)
LIMIT_POLICIES = ("k8s", "fitgpp")


def grid(plan: Plan) -> dict[str, Any]:
    """The sweep as a grid-file mapping: ``teams`` at the plan's jobs and seeds, every policy, research's
    borrow limit at each of :data:`LIMITS`."""
    from simcore.policies import POLICIES

    return {
        "preset": PRESET,
        "set": {"jobs": plan.jobs},
        "seeds": plan.main_seeds,
        "policies": list(POLICIES),
        "baseline": [BASE],
        "grid": {"borrow_limit": list(LIMITS)},
    }


#: the per-queue slowdown columns (fitgpp and fitdelay compared on them: :func:`unmoved_text`)
SLOWDOWN_COLUMNS = tuple(col(q, c) for q in QUEUES for c, _ in PER_QUEUE)


def derived(rows: pd.DataFrame) -> pd.DataFrame:
    """The rows with each queue's GPU-hours paid to reclaims (lost + grace + restore) and the reclaims' total."""
    paid = {
        col(q, "reclaim_gpu_h"): rows[[col(q, f"gpu_seconds_{c}") for c in RECLAIM_COSTS]].sum(axis=1) / HOUR
        for q in QUEUES
    }
    out = rows.assign(**paid)
    return out.assign(
        reclaim_gpu_h=out[list(paid)].sum(axis=1),
        reclaims=out[[col(q, "reclaims") for q in QUEUES]].sum(axis=1),
    )


def at_limit(rows: pd.DataFrame, limit: str) -> pd.DataFrame:
    return rows[rows["borrow_limit"].astype(str) == limit]


def per_queue_table(rows: pd.DataFrame, policies: Sequence[str]) -> str:
    """Each policy's per-queue slowdowns, mean [CI] over seeds: one row per policy, three cells per queue."""
    header = ["policy", *(f"{q} {label}" for q in QUEUES for _, label in PER_QUEUE)]
    body = [[p, *(tb.fmt_val(tb.stat(rows, p, col(q, c))) for q in QUEUES for c, _ in PER_QUEUE)] for p in policies]
    return tb.table(header, body)


def versus_table(rows: pd.DataFrame, policies: Sequence[str]) -> str:
    """Each preemptive policy minus fifo, per queue, paired by seed."""
    header = ["difference", *(f"{q} {label}" for q in QUEUES for _, label in PER_QUEUE)]
    body = [
        [f"{p} - {BASE}", *(tb.fmt_val(tb.paired(rows, p, BASE, col(q, c))) for q in QUEUES for c, _ in PER_QUEUE)]
        for p in policies
    ]
    return tb.table(header, body)


def reclaim_table(rows: pd.DataFrame, policies: Sequence[str]) -> str:
    """Per preemptive policy: reclaims, and the GPU-hours each queue's jobs paid to them."""
    header = ["policy", "reclaims", "GPU-h paid (all queues)", *(f"{q} reclaimed from / GPU-h paid" for q in QUEUES)]
    body = []
    for p in policies:
        cells = [tb.fmt_val(tb.stat(rows, p, "reclaims")), tb.fmt_val(tb.stat(rows, p, "reclaim_gpu_h"))]
        for q in QUEUES:
            cells.append(
                f"{tb.fmt_val(tb.stat(rows, p, col(q, 'reclaimed')))} / {tb.fmt_val(tb.stat(rows, p, col(q, 'reclaim_gpu_h')))}"
            )
        body.append([p, *cells])
    return tb.table(header, body)


def limit_diff(rows: pd.DataFrame, policy: str, limit: str, metric: str) -> Stat:
    """``metric`` at research's borrow limit ``limit`` minus at the preset's, for ``policy``, paired by seed."""
    mine = rows[rows["policy"] == policy]
    a = at_limit(mine, limit).set_index("seed")[metric]
    b = at_limit(mine, LIMITS[0]).set_index("seed")[metric]
    return Stat.of(paired_diff(a, b))


#: what the borrow limit table compares: (metric, label)
LIMIT_COLUMNS = (
    *((col(q, "TE_slowdown_p95"), f"{q} TE p95") for q in LENDERS),
    *((col(q, "BE_slowdown_p95"), f"{q} BE p95") for q in LENDERS),
    (col(BORROWER, "BE_slowdown_p50"), f"{BORROWER} BE p50"),
    (col(BORROWER, "BE_slowdown_p95"), f"{BORROWER} BE p95"),
    (col(BORROWER, "reclaimed"), f"{BORROWER} reclaimed from"),
    ("reclaim_gpu_h", "GPU-h paid to reclaims"),
)


def limit_table(rows: pd.DataFrame, policies: Sequence[str]) -> str:
    """Per policy and lower borrow limit: the change against research's 96, paired by seed."""
    header = ["policy, research's borrow limit", *(label for _, label in LIMIT_COLUMNS)]
    body = []
    for p in policies:
        for limit in LIMITS[1:]:
            cells = [tb.fmt_val(limit_diff(rows, p, limit, m)) for m, _ in LIMIT_COLUMNS]
            body.append([f"{p}, {limit.rsplit(',', 1)[1]} (vs 96)", *cells])
    return tb.table(header, body)


def limit_text(rows: pd.DataFrame, policies: Sequence[str]) -> str:
    """What research's borrow limit 0 buys the lenders and costs research, in words, per policy."""
    lines = []
    zero = LIMITS[-1]
    for p in policies:
        lender = "; ".join(
            f"{q}'s TE p95 {told(limit_diff(rows, p, zero, col(q, 'TE_slowdown_p95')))}, "
            f"BE p95 {told(limit_diff(rows, p, zero, col(q, 'BE_slowdown_p95')))}"
            for q in LENDERS
        )
        cost = limit_diff(rows, p, zero, col(BORROWER, "BE_slowdown_p95"))
        paid = limit_diff(rows, p, zero, "reclaim_gpu_h")
        lines.append(
            f"- **{p}**, research never borrowing (0) against 96: {lender}; research's BE p95 {told(cost)} "
            f"({fmt.number(cost.mean)}); GPU-hours paid to reclaims {told(paid, 'fewer', 'more')} ({fmt.number(paid.mean)} GPU-h)."
        )
    return "\n".join(lines)


def unmoved_text(rows: pd.DataFrame) -> str:
    """What does not move, said rather than left for the reader to find."""
    notes = []
    lost = rows[[col(q, "gpu_seconds_lost_to_reclaims") for q in QUEUES]].to_numpy(dtype=float)
    if not np.any(lost):
        notes.append(
            "No work is lost to a reclaim: with `checkpoint = on_preempt` the grace period saves it, so a reclaim "
            "costs its victims' grace and restore"
        )
    above = rows.loc[rows["borrow_limit"].astype(str) == LIMITS[-1], col(BORROWER, "gpu_seconds_above_quota")]
    if len(above) and not above.any():
        notes.append("With borrow limit 0 research never holds a GPU above its quota, under every policy")
    if {"fitgpp", "fitdelay"} <= set(rows["policy"]):
        fit, delay = (
            rows[rows["policy"] == p].set_index(["point_id", "seed"])[list(SLOWDOWN_COLUMNS)]
            for p in ("fitgpp", "fitdelay")
        )
        if fit.equals(delay):
            notes.append("fitdelay chooses exactly as fitgpp here (nothing is lost), so their rows are equal")
    return ". ".join(notes) + "." if notes else ""


def cheapest_text(rows: pd.DataFrame, policies: Sequence[str]) -> str:
    """Which preemptive policy pays the fewest GPU-hours to reclaims, and what the paired CIs tell apart."""
    means = {p: tb.stat(rows, p, "reclaim_gpu_h").mean for p in policies}
    known = {p: m for p, m in means.items() if math.isfinite(m)}
    if not known:
        return ""
    best = min(known, key=lambda p: known[p])
    verdicts = []
    for p in (p for p in known if p != best):
        d = tb.paired(rows, best, p, "reclaim_gpu_h")
        verdicts.append(
            f"against {p} "
            + ("equal" if d.lo == d.hi == 0 else f"{fmt.number(d.mean)} GPU-h, {told(d, 'fewer', 'more')}")
        )
    made = tb.stat(rows, best, "reclaims").mean
    return (
        f"**Who pays least for the reclaims.** {best}: {fmt.number(known[best])} GPU-hours over "
        f"{fmt.number(made)} reclaims per workload; paired by seed, {best} minus each other policy: "
        + "; ".join(verdicts)
        + "."
    )


def section(rows: pd.DataFrame) -> str:
    """The Markdown section from the sweep's rows."""
    rows = derived(rows)
    own = at_limit(rows, LIMITS[0])
    seeds, jobs = int(own["seed"].nunique()), int(own["jobs_simulated"].iloc[0])
    policies = list(dict.fromkeys(own["policy"]))
    preemptive = [p for p in PREEMPTIVE if p in policies]
    compared = [p for p in LIMIT_POLICIES if p in policies]
    return "\n\n".join(
        [
            HEADING,
            f"The `{PRESET}` preset ([workloads.md](workloads.md)): three teams share the 16-node, 128-GPU cluster "
            "through queues: **vision** is guaranteed 56 GPUs (borrow limit 72, weight 1), **nlp** 40 (24, 1), "
            "**research** 32 (96, 2), each with its own daily peak of arrivals, so that every day one team borrows "
            f"what another leaves idle and the owner reclaims it. **{jobs} jobs** per workload, {seeds} seeds (each "
            "seed one workload on which every policy runs: differences are paired), every policy at its default "
            "knobs (grace 30 s, restore 60 s, `checkpoint = on_preempt`, greedy backfill, P = 2, s = inf). The rules "
            "are [policies.md](policies.md#queues): a job within its quota may reclaim GPUs from queues above "
            f"theirs, under the preemptive policies only. Cells are means over seeds with their {SPREAD_NAME} "
            "(Student t); fitgpp is our reconstruction of the paper's approach.",
            "### Each team's slowdowns by policy",
            "At the preset's borrow limits. A slowdown is completion time / run time per job; p95 and p50 are "
            "taken over each queue's jobs of a class in each run.",
            per_queue_table(own, policies),
            f"Each preemptive policy minus {BASE} on the same workloads, mean [{SPREAD_NAME}]; negative = lower "
            f"than under {BASE}.",
            versus_table(own, preemptive),
            "### What the reclaims cost",
            "A reclaim is a preemption whose preemptor is within its quota and whose victim is another team's "
            "BE job (counted per victim). GPU-hours paid: the victims' lost work, grace and restore, seconds x "
            "GPUs ([preemption accounting](policies.md#preemption-accounting)).",
            reclaim_table(own, preemptive),
            cheapest_text(own, preemptive),
            unmoved_text(rows),
            "### What a borrow limit buys the lenders, at what cost to the borrower",
            "research borrows the most (its quota is 32, its borrow limit 96). Lowering its borrow limit to 32 or 0 "
            "(the `teams` preset's `borrow_limit=72,24,32` or `72,24,0`) on the same workloads: each cell is the "
            "change against research's 96, paired by seed; negative = lower.",
            limit_table(rows, compared),
            limit_text(rows, compared),
            f"Rows: `results/{ROWS}`, from `simcore sweep results/grid_{NAME}.yaml` (the grid file stored beside "
            "them); this section: `python -m simcore.experiments.study.teams`.",
        ]
    )


def main(argv: Sequence[str] | None = None) -> int:
    return results_doc.section_main(argv, NAME, "teams", section, __doc__)


if __name__ == "__main__":
    sys.exit(main())
