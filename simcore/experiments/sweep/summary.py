"""A sweep's rows summed up over the replicates: mean and confidence interval per setting,
policy and metric (:func:`aggregate`), and paired differences against a baseline policy
(:func:`paired_differences`). The statistics are :mod:`simcore.analysis.stats` (Student t interval at
:data:`~simcore.analysis.stats.LEVEL`), the same as everywhere else.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from simcore.analysis.metrics import QUEUE_FLAT, is_versus, queue_column
from simcore.analysis.stats import LEVEL, mean_ci, paired_diff
from simcore.core.errors import UserError
from simcore.experiments.sweep.store import ID_COLUMNS
from simcore.experiments.sweep.tasks import METRIC_COLUMNS, OPTIONAL_METRIC_COLUMNS


def queue_names(columns: Sequence[str]) -> list[str]:
    """The queues whose every :data:`~simcore.analysis.metrics.QUEUE_FLAT` column is among ``columns``
    (a run with queues: :func:`~simcore.analysis.metrics.queue_flat`), in the columns' order."""
    have = set(columns)
    head, tail = queue_column("\0", next(iter(QUEUE_FLAT))).split("\0")  # around the name in the first field's column
    names = [c[len(head) : -len(tail)] for c in columns if c.startswith(head) and c.endswith(tail)]
    return [q for q in names if all(queue_column(q, f) in have for f in QUEUE_FLAT)]


def metric_columns(df: pd.DataFrame) -> list[str]:
    """The columns of ``df`` that a run measures (never an axis): the row's metrics, those only gangs,
    down time or queues bring, and the trio's."""
    queued = {queue_column(q, f) for q in queue_names(list(df.columns)) for f in QUEUE_FLAT}
    known = {*METRIC_COLUMNS, *OPTIONAL_METRIC_COLUMNS, *queued}
    return [c for c in df.columns if c in known or is_versus(c)]


def varying_columns(df: pd.DataFrame) -> list[str]:
    """Parameter columns whose value differs between points (the grid's axes).

    Read from each point's first row, so a knob set by one policy label (``fitgpp:P=1``) does
    not count as an axis."""
    skip = set(ID_COLUMNS) | set(metric_columns(df))
    first = df.drop_duplicates("point_id")
    return [c for c in df.columns if c not in skip and first[c].astype(str).nunique() > 1]


def aggregate(
    rows: pd.DataFrame, metrics: Sequence[str] | None = None, over: str = "seed", level: float = LEVEL
) -> pd.DataFrame:
    """Mean and CI over the replicates for each setting, policy and metric, in long form:
    ``<grid axes>, policy, metric, n, mean, sd, ci_low, ci_high``.

    The replicates are the seeds; ``over`` may name a grid axis instead (the trace windows of
    a real-trace study), which is then averaged over like the seeds."""
    metrics = list(metrics) if metrics is not None else metric_columns(rows)
    axes = [c for c in varying_columns(rows) if c != over]
    records = []
    for key, g in rows.groupby([*axes, "policy"], sort=False, dropna=False):
        head = dict(zip([*axes, "policy"], key, strict=True))
        for m in metrics:
            n, mean, sd, lo, hi = mean_ci(g[m].to_numpy(dtype=float), level)
            records.append({**head, "metric": m, "n": n, "mean": mean, "sd": sd, "ci_low": lo, "ci_high": hi})
    return pd.DataFrame.from_records(
        records, columns=[*axes, "policy", "metric", "n", "mean", "sd", "ci_low", "ci_high"]
    )


def paired_differences(
    rows: pd.DataFrame, baseline: str, metrics: Sequence[str] | None = None, over: str = "seed", level: float = LEVEL
) -> pd.DataFrame:
    """Policy minus ``baseline`` on the same workload (same point and seed), mean and CI over
    the replicates (``over`` as in :func:`aggregate`).

    Pairing removes the workload-to-workload noise that dominates single runs, so a CI that
    excludes 0 says the policies differ on this kind of workload."""
    metrics = list(metrics) if metrics is not None else [m for m in metric_columns(rows) if not is_versus(m)]
    axes = [c for c in varying_columns(rows) if c != over]
    base = rows[rows["policy"] == baseline].set_index(["point_id", "seed"])
    if base.empty:
        raise UserError(f"paired differences: no rows for the baseline policy {baseline!r}")
    records = []
    for key, g in rows[rows["policy"] != baseline].groupby([*axes, "policy"], sort=False, dropna=False):
        g = g.set_index(["point_id", "seed"])
        head = {**dict(zip([*axes, "policy"], key, strict=True)), "baseline": baseline}
        for m in metrics:
            n, mean, sd, lo, hi = mean_ci(paired_diff(g[m], base[m]), level)
            records.append({**head, "metric": m, "n": n, "mean_diff": mean, "sd": sd, "ci_low": lo, "ci_high": hi})
    return pd.DataFrame.from_records(
        records, columns=[*axes, "policy", "baseline", "metric", "n", "mean_diff", "sd", "ci_low", "ci_high"]
    )
