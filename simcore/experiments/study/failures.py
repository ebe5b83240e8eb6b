"""The section of docs/RESULTS.md on interruptions nobody chose (issue 35): random node failures at two
rates under every policy, and the checkpoint interval they call for against the one that is best.

Two sweeps of the ``paper`` preset at the plan's size and seeds, every run with ``checkpoint =
periodic`` and a checkpoint cost of :data:`COST` s (each seed one workload on which every policy,
rate and interval runs, so every difference is paired by seed):

* *failures* (``docs/results/grid_failures.yaml``): every policy at the default interval under no
  failures and ``mtbf`` = :data:`RATES` per node (``repair`` at its default, 1 h): each policy's BE
  slowdowns and the GPU-hours of work lost by cause;
* *advice* (``grid_failures_advice.yaml``): :data:`ADVICE_POLICIES` at both rates over the
  checkpoint advisor's intervals; per policy and rate the simulated best interval (the least mean
  BE p50 slowdown: :func:`simcore.experiments.advisor.judge`, the rule of ``simcore
  checkpoint-advice``) against the swept interval nearest Young/Daly's sqrt(2 x cost x M), M
  pooled from the rows' exposure (:data:`simcore.analysis.interruptions.EXPOSURE_FIELDS`).

A preset sweep has no node-events file, so no maintenance: the drain column is 0 and left out.
Every number is a mean over seeds with its Student-t 95% CI (:mod:`simcore.experiments.study.tables`).
Run ``python -m simcore.experiments.study.failures`` to put the section into docs/RESULTS.md from the
stored rows (``simcore reproduce`` runs both sweeps with the rest of the study).
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from simcore.analysis.stats import SPREAD_NAME, paired_diff
from simcore.core import fmt
from simcore.core.model import SimConfig
from simcore.experiments import advisor
from simcore.experiments.study import results_doc
from simcore.experiments.study import tables as tb
from simcore.experiments.study.plan import Plan
from simcore.experiments.study.tables import Stat
from simcore.io.parquet_read import read_frame

NAME = "failures"  # docs/results/{grid,rows}_failures.*
ADVICE = "failures_advice"  # docs/results/{grid,rows}_failures_advice.*
HEADING = "## 11. Interruptions nobody chose: node failures and the checkpoint interval"
DAY = 86400.0
HOUR = 3600.0
#: the failure rates: a node's mean up time between random failures (s), rarer first
RATES = (30 * DAY, 7 * DAY)
COST = 60.0  # seconds each periodic checkpoint pauses its job (checkpoint_cost)
#: the knobs every run of the section has
FIXED = {"checkpoint": "periodic", "checkpoint_cost": COST}
ADVICE_POLICIES = ("fifo", "k8s", "fitgpp")
#: lost GPU-hours by cause, as the rows of a run with down time name them (no drains without a node-events file)
CAUSES = (("preemption", "preempted"), ("failure", "failed"))


def grids(plan: Plan) -> list[tuple[dict[str, Any], str]]:
    """Both sweeps as grid-file mappings, named as their rows files."""
    from simcore.policies import POLICIES

    common = {"preset": "paper", "set": {"jobs": plan.jobs, "nodes": plan.nodes, **FIXED}, "seeds": plan.main_seeds}
    failures = {**common, "grid": {"mtbf": [math.inf, *RATES]}, "policies": list(POLICIES), "baseline": ["fifo"]}
    advice = {
        **common,
        "grid": {"mtbf": list(RATES), "checkpoint_interval": list(advisor.DEFAULT_INTERVALS)},
        "policies": list(ADVICE_POLICIES),
        "baseline": ["fifo"],
    }
    return [(failures, NAME), (advice, ADVICE)]


def rows_names() -> tuple[str, str]:
    return f"rows_{NAME}.parquet", f"rows_{ADVICE}.parquet"


def with_rates(rows: pd.DataFrame) -> pd.DataFrame:
    """The rows with ``mtbf`` filled (a point at the default, no failures, leaves it out) and the GPU-hours
    lost per cause (0 for a run without failures: its preemptions' are the accounting's)."""
    mtbf = rows["mtbf"] if "mtbf" in rows else pd.Series(math.inf, index=rows.index)
    out = rows.assign(mtbf=mtbf.fillna(math.inf).astype(float))
    for cause, _ in CAUSES:
        column = f"{cause}_gpu_seconds_lost"
        lost = out[column] if column in out else pd.Series(np.nan, index=out.index)
        if cause == "preemption":
            lost = lost.fillna(out["gpu_seconds_lost"])
        out[f"{cause}_gpu_h"] = lost.fillna(0.0) / HOUR
    failed = out["failure_count"] if "failure_count" in out else pd.Series(np.nan, index=out.index)
    out["failure_count"] = failed.fillna(0)
    return out


def rate_name(mtbf: float) -> str:
    """A rate as the section names it: ``no failures``, ``mtbf 30 d``."""
    return "no failures" if math.isinf(mtbf) else f"mtbf {fmt.duration(mtbf)}"


def at_rate(rows: pd.DataFrame, mtbf: float) -> pd.DataFrame:
    return rows[rows["mtbf"] == mtbf]


#: the by-policy table's columns: (row column, label)
POLICY_COLUMNS = (
    ("BE_slowdown_p50", "BE p50 slowdown"),
    ("BE_slowdown_p95", "BE p95 slowdown"),
    ("preemption_gpu_h", "GPU-h lost to preemptions"),
    ("failure_gpu_h", "GPU-h lost to failures"),
    ("failure_count", "failures (jobs stopped)"),
)


def policy_table(rows: pd.DataFrame, policies: Sequence[str], mtbf: float) -> str:
    """Each policy at one rate, mean [CI] over seeds."""
    here = at_rate(rows, mtbf)
    body = []
    for p in policies:
        cells = [tb.fmt_val(tb.stat(here, p, c)) if c in here else fmt.MISSING for c, _ in POLICY_COLUMNS]
        body.append([p, *cells])
    return tb.table(["policy", *(label for _, label in POLICY_COLUMNS)], body)


def by_seed(rows: pd.DataFrame, column: str) -> pd.Series:
    return rows.set_index("seed")[column]


def added(rows: pd.DataFrame, policy: str, mtbf: float, column: str) -> Stat:
    """What failures at ``mtbf`` add to ``column`` under ``policy``: the run with them minus the run without,
    paired by seed (the same workload)."""
    mine = rows[rows["policy"] == policy]
    return Stat.of(paired_diff(by_seed(at_rate(mine, mtbf), column), by_seed(at_rate(mine, math.inf), column)))


def added_table(rows: pd.DataFrame, policies: Sequence[str]) -> str:
    """Per policy and rate, what failures add to the BE slowdowns (paired by seed)."""
    header = ["policy", *(f"BE {q} slowdown added at {rate_name(r)}" for r in RATES for q in ("p50", "p95"))]
    body = []
    for p in policies:
        cells = [tb.fmt_val(added(rows, p, r, f"BE_slowdown_{q}")) for r in RATES for q in ("p50", "p95")]
        body.append([p, *cells])
    return tb.table(header, body)


def versus_text(rows: pd.DataFrame, policies: Sequence[str]) -> str:
    """Whether the preemptive policies' BE p50 against fifo moves when nodes fail (paired by seed, per rate)."""
    lines = []
    for p in (p for p in policies if p not in ("fifo", "priority")):
        said = []
        for r in (math.inf, *RATES):
            here = at_rate(rows, r)
            d = Stat.of(
                paired_diff(
                    by_seed(here[here["policy"] == p], "BE_slowdown_p50"),
                    by_seed(here[here["policy"] == "fifo"], "BE_slowdown_p50"),
                )
            )
            said.append(f"{rate_name(r)} {tb.fmt_val(d)}")
        lines.append(f"- **{p}** minus fifo, BE p50 slowdown: " + "; ".join(said) + ".")
    return "\n".join(lines)


def advice_of(rows: pd.DataFrame, policy: str, mtbf: float) -> advisor.Advice:
    """The checkpoint advisor's verdict from one policy's rows at one rate (every interval, every seed)."""
    here = at_rate(rows[rows["policy"] == policy], mtbf).sort_values(["checkpoint_interval", "seed"], kind="stable")
    config = SimConfig(policy=policy, checkpoint="periodic", checkpoint_cost=COST, mtbf=mtbf)
    return advisor.judge(advisor.trials_from_rows(here, config.P), config)


def interval_gap(rows: pd.DataFrame, policy: str, mtbf: float, interval: float, best: float) -> Stat:
    """BE p50 slowdown at ``interval`` minus at ``best``, paired by seed."""
    here = at_rate(rows[rows["policy"] == policy], mtbf)
    at = {c: by_seed(here[here["checkpoint_interval"] == c], "BE_slowdown_p50") for c in (interval, best)}
    return Stat.of(paired_diff(at[interval], at[best]))


def advice_table(rows: pd.DataFrame) -> tuple[str, str]:
    """Per policy and rate: M, Young/Daly, the swept interval nearest it, the simulated best, and what
    choosing the advisor's interval costs in BE p50 slowdown against the best (paired by seed); and the
    sentences that read it."""
    header = [
        "policy",
        "failures",
        "M (BE run time per interruption)",
        "Young/Daly sqrt(2 x cost x M)",
        "nearest swept",
        "simulated best",
        "BE p50 at nearest minus at best",
    ]
    body, said = [], []
    for p in ADVICE_POLICIES:
        for r in RATES:
            if not len(at_rate(rows[rows["policy"] == p], r)):
                continue
            a = advice_of(rows, p, r)
            near = a.nearest
            gap = interval_gap(rows, p, r, near, a.best_interval) if near is not None else tb.MISSING_STAT
            body.append(
                [
                    p,
                    rate_name(r),
                    fmt.duration(a.mean_time_between_interruptions),
                    fmt.duration(a.young_daly),
                    fmt.duration(near) if near is not None else fmt.MISSING,
                    fmt.duration(a.best_interval),
                    "0 (the same interval)" if a.agree else tb.fmt_val(gap),
                ]
            )
            said.append(_advice_sentence(p, r, a, gap))
    return tb.table(header, body), "\n".join(said)


def _advice_sentence(policy: str, mtbf: float, a: advisor.Advice, gap: Stat) -> str:
    head = f"- **{policy}, {rate_name(mtbf)}**: "
    if a.agree:
        return head + f"Young/Daly ({fmt.duration(a.young_daly)}) points at the best interval swept."
    if math.isfinite(gap.lo) and gap.lo <= 0 <= gap.hi:
        verdict = "the paired CI includes 0: no difference measured between the two intervals"
    elif math.isfinite(gap.lo):
        verdict = "the paired CI excludes 0: the advisor's interval is measurably worse"
    else:
        verdict = "not measured (fewer than two seeds)"
    return (
        head
        + f"the best swept is {fmt.duration(a.best_interval)}, Young/Daly's nearest {fmt.duration(a.nearest or math.nan)}; {verdict}. "
        + ("Why they may differ: " + "; ".join(a.reasons) + ".")
    )


def load_text(rows: pd.DataFrame) -> str:
    """What the shortest interval costs beyond its pauses: the cluster's queue (computed from the rows)."""
    shortest = float(rows["checkpoint_interval"].min())
    stretch = (shortest + COST) / shortest
    cells, ratios = [], []
    for p in dict.fromkeys(rows["policy"]):
        for r in RATES:
            here = at_rate(rows[rows["policy"] == p], r)
            if not len(here):
                continue
            means = here.groupby("checkpoint_interval")["BE_slowdown_p50"].mean()
            ratios.append(float(means[shortest] / means.min()))
            cells.append(f"{p} at {rate_name(r)} {fmt.number(means[shortest])} against {fmt.number(means.min())}")
    head = (
        f"**What Young/Daly leaves out.** Its rule weighs one job's pauses against its lost work. At "
        f"{fmt.duration(shortest)} the pauses alone stretch a job by {fmt.number(stretch)} x; the BE p50 slowdown "
        f"there is {fmt.number(min(ratios))} to {fmt.number(max(ratios))} x its best ({'; '.join(cells)})"
    )
    if min(ratios) <= stretch:
        return head + "."
    return head + (
        ": on a cluster at an offered load of 1.0 every pause also holds GPUs the queue is waiting for, so each job "
        "pays for the others' pauses too, and lost work is redone on GPUs the queue waits for."
    )


def section(failures: pd.DataFrame, advice: pd.DataFrame) -> str:
    """The Markdown section from both sweeps' rows."""
    failures, advice = with_rates(failures), with_rates(advice)
    seeds, jobs = failures["seed"].nunique(), int(failures["jobs_simulated"].iloc[0])
    nodes = int(failures["nodes"].iloc[0]) if "nodes" in failures else 16
    policies = list(dict.fromkeys(failures["policy"]))
    rates = " and ".join(rate_name(r) for r in RATES)
    parts = [
        HEADING,
        f"The `paper` preset, **{jobs} jobs** per workload on {nodes} nodes x 8 GPUs, {seeds} seeds (each seed one "
        "workload on which every policy, failure rate and interval runs: differences are paired by seed), every run "
        f"with `checkpoint = periodic` and `checkpoint_cost = {COST:g}` s (each checkpoint pauses its job that long). "
        f"Nodes fail at random ({rates}: a node's mean up time; down for `repair` = 1 h each time; every policy "
        "sees the same failures, [policies.md](policies.md#failures-and-maintenance)). A failure stops every job on "
        "the node at once; a job keeps its last counted checkpoint. No maintenance here (a preset sweep has no "
        f"node-events file), so no drains. Cells are means over seeds with their {SPREAD_NAME} (Student t). "
        "fitgpp is our reconstruction of the paper's approach.",
        f"### Each policy's BE slowdowns and the work lost, by cause (interval {fmt.duration(1800)})",
    ]
    for r in (math.inf, *RATES):
        title = "No failures" if math.isinf(r) else f"Failures at {rate_name(r)}"
        parts += [f"**{title}.**", policy_table(failures, policies, r)]
    parts += [
        "What failures add to each policy's BE slowdowns (the run with failures minus the run without, paired by "
        "seed):",
        added_table(failures, policies),
        "And whether preempting still costs BE jobs as much against fifo when nodes fail (paired by seed):",
        versus_text(failures, policies),
        "### The checkpoint interval: the advisor against the simulated best",
        f"{', '.join(dict.fromkeys(advice['policy']))} at both rates over the intervals "
        f"{', '.join(fmt.duration(c) for c in sorted(set(advice['checkpoint_interval'])))}. The simulated best is the interval "
        "with the least mean BE p50 slowdown (the rule of `simcore checkpoint-advice`, "
        "[cli.md](cli.md#simcore-checkpoint-advice)); M is the BE jobs' run time per interruption (preemptions "
        "and failures together), pooled over every run of the policy at that rate; the advisor's interval is the "
        "swept one nearest Young/Daly's first-order optimum sqrt(2 x cost x M). The last column is the BE p50 "
        "slowdown at the advisor's interval minus at the best, paired by seed.",
    ]
    table, said = advice_table(advice)
    parts += [
        table,
        said,
        load_text(advice),
        f"Rows: `results/rows_{NAME}.parquet` and `results/rows_{ADVICE}.parquet`, from `simcore sweep "
        f"results/grid_{NAME}.yaml` and `simcore sweep results/grid_{ADVICE}.yaml` (the grid files stored beside "
        "them); this section: `python -m simcore.experiments.study.failures`.",
    ]
    return "\n\n".join(parts)


def load(results: Path) -> tuple[pd.DataFrame, pd.DataFrame] | None:
    """Both sweeps' rows from ``results``, or None when either is missing."""
    paths = [results / name for name in rows_names()]
    if not all(p.exists() for p in paths):
        return None
    return read_frame(paths[0]), read_frame(paths[1])


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--results", default="docs/results", help="where the rows are")
    parser.add_argument("--doc", default="docs/RESULTS.md", help="the document the section is put into")
    args = parser.parse_args(argv)
    results = Path(args.results)
    found = load(results)
    if found is None:
        runs = "; ".join(
            f"simcore sweep {results / f'grid_{n}.yaml'} --out {results / f'rows_{n}.parquet'}" for n in (NAME, ADVICE)
        )
        print(f"error: the section's rows are not in {results}: run {runs}", file=sys.stderr)
        return 2
    doc = Path(args.doc)
    results_doc.put_section(doc, section(*found))
    print(f"wrote the failures section of {doc}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
