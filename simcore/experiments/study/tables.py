"""The numbers of the study and their cells: a mean with its interval over seeds, paired differences,
the rows of each curve point, and Markdown tables.

Every interval is :func:`simcore.analysis.stats.mean_ci` (the one statistics module), every cell is formatted
by :mod:`simcore.core.fmt`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from simcore.analysis.metrics import TRIO_KEYS, TRIO_LABELS, versus
from simcore.analysis.stats import mean_ci, paired_diff
from simcore.core import fmt
from simcore.experiments.study.plan import BE_P50, BE_P95, PAPER_TRIO, Plan, centre, same


@dataclass(frozen=True)
class Stat:
    """A mean over replicates and its confidence interval (NaN bounds with one replicate)."""

    n: int
    mean: float
    lo: float
    hi: float

    @classmethod
    def of(cls, values: Any) -> Stat:
        n, mean, _sd, lo, hi = mean_ci(np.asarray(values, dtype=float))
        return cls(n, mean, lo, hi)


MISSING_STAT = Stat(0, math.nan, math.nan, math.nan)


#: the columns that name a replicate: the same workload under every policy
REPLICATE = ["point_id", "seed"]


def stat(rows: pd.DataFrame, policy: str, metric: str) -> Stat:
    return Stat.of(rows.loc[rows["policy"] == policy, metric])


def paired(rows: pd.DataFrame, policy: str, other: str, metric: str) -> Stat:
    """policy minus other on the same (point, seed)."""
    a, b = (rows.loc[rows["policy"] == p, REPLICATE + [metric]].set_index(REPLICATE)[metric] for p in (policy, other))
    return Stat.of(paired_diff(a, b))


def fmt_pct(s: Stat) -> str:
    return fmt.pct_estimate(s.mean, s.lo, s.hi)


def fmt_val(s: Stat, unit: str = "") -> str:
    """``unit`` "s": the mean and its bounds as durations."""
    return fmt.estimate(s.mean, s.lo, s.hi, fmt.duration if unit == "s" else fmt.number)


def table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def trio_header(baseline: str) -> list[str]:
    """The trio's column names against ``baseline`` ("TE p95 slowdown vs fifo", ...)."""
    return [f"{TRIO_LABELS[k]} vs {baseline}" for k in TRIO_KEYS]


def trio_cells(rows: pd.DataFrame, policy: str, baseline: str) -> list[str]:
    """``policy``'s trio against ``baseline`` (the rows' :func:`simcore.analysis.metrics.versus` columns,
    each run's :func:`simcore.analysis.metrics.trio`): mean [95% CI] over the seeds of ``rows``."""
    return [fmt_pct(stat(rows, policy, versus(k, baseline))) for k in TRIO_KEYS]


def headline_rows(main: pd.DataFrame, policies: Sequence[str]) -> list[list[str]]:
    """The paper's trio, then each policy's against fifo (mean [95% CI])."""
    rows = [["**paper (its own workloads)**", *(f"**{fmt.pct(v)}**" for v in PAPER_TRIO.values())]]
    for p in (p for p in policies if p != "fifo"):
        rows.append([p, *trio_cells(main, p, "fifo")])
    return rows


def at_value(frame: pd.DataFrame, key: str, value: Any) -> pd.DataFrame:
    """The rows whose ``key`` equals ``value`` as a grid value (1 == 1.0)."""
    return frame[frame[key].map(lambda x: same(x, value))]


def centre_rows(plan: Plan, main: pd.DataFrame, curves: pd.DataFrame) -> pd.DataFrame:
    """The main study's rows of the curve policies on the curves' seeds: every curve's centre point."""
    return main[main["policy"].isin(plan.curve_policies) & main["seed"].isin(curves["seed"].unique())]


def curve_frame(plan: Plan, main: pd.DataFrame, curves: pd.DataFrame, key: str) -> pd.DataFrame:
    """Rows of one curve: its off-centre points plus the centre (main-study rows of the same seeds)."""
    mid = centre()
    mask = np.ones(len(curves), dtype=bool)
    for k, _ in plan.curves:
        if k != key:
            mask &= curves[k].map(lambda v, c=mid[k]: same(v, c)).to_numpy(dtype=bool)
    return pd.concat([centre_rows(plan, main, curves), curves[mask]], ignore_index=True)


def regime_rows(plan: Plan, main: pd.DataFrame, curves: pd.DataFrame) -> list[tuple[str, Any, pd.DataFrame]]:
    """(curve key, value, rows at that setting) for every point of every curve, the centre first."""
    out = [("centre", "", centre_rows(plan, main, curves))]
    mid = centre()
    for key, values in plan.curves:
        frame = curve_frame(plan, main, curves, key)
        out += [(key, v, at_value(frame, key, v)) for v in values if not same(v, mid[key])]
    return out


def regime_verdict(at: pd.DataFrame, other: str) -> tuple[list[Stat], str]:
    """Paired fitgpp minus ``other`` in points of BE p50 / p95 change vs fifo, and a one-word verdict."""
    diffs = [paired(at, "fitgpp", other, versus(k, "fifo")) for k in (BE_P50, BE_P95)]
    lower = any(d.hi < 0 for d in diffs)
    higher = any(d.lo > 0 for d in diffs)
    if lower and higher:
        return diffs, "mixed"
    return diffs, "fitgpp lower" if lower else "fitgpp higher" if higher else "no clear difference"
