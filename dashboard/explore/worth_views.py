"""The "Was it worth it?" panel's numbers (pure): per policy, the TE wait it saved against the
baseline beside the BE GPU-seconds its preemptions cost, and the worst decisions of the runs.

The figures are :mod:`simcore.analysis.accounting`'s (DESIGN.md section 5), read from the flat records
(:func:`simcore.analysis.metrics.flat_summary`) and the runs' decision tables; over several seeds a policy's point is the mean over the seeds.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from dashboard.shared import views
from simcore.analysis.accounting import COSTS

HOUR = 3600.0
WORTH_COLUMNS = ["policy", "te_wait_saved_s", "be_gpu_hours", "excess_gpus", "wasted", "n"]
#: the worst-decisions table: its columns and their headers
WORST_COLUMNS = {
    "policy": "policy",
    "time": "time",
    "te_job": "TE job",
    "node": "nominated to",
    "victims": "victims",
    "excess_gpus": "excess GPUs",
    "wasted": "wasted",
    "gpu_hours": "BE GPU-hours",
}


def be_cost_seconds(record: Mapping[str, Any]) -> float:
    """What a run's preemptions cost BE jobs, in GPU-seconds: lost work, grace and restore (from its flat record)."""
    return float(sum(record[c] for c in COSTS))


def worth_frame(seed_flats: Sequence[Mapping[str, Mapping[str, Any]]], baseline: str) -> pd.DataFrame:
    """Per policy (baseline included, at 0 saved): the mean TE wait it saved against the baseline
    (s, positive = shorter waits), the BE GPU-hours its preemptions cost, its excess GPUs and
    wasted decisions, each the mean over the seeds (``n``; per seed: policy -> flat record)."""
    rows = []
    policies = list(dict.fromkeys(p for s in seed_flats for p in s))
    for policy in policies:
        saved, cost, excess, wasted = [], [], [], []
        for s in seed_flats:
            if policy not in s or baseline not in s:
                continue
            mine = s[policy]
            saved.append(s[baseline]["TE_wait_mean"] - mine["TE_wait_mean"])  # NaN when either has no TE job
            cost.append(be_cost_seconds(mine) / HOUR)
            excess.append(mine["excess_gpus"])
            wasted.append(mine["wasted_preemptions"])
        rows.append(
            {
                "policy": policy,
                "te_wait_saved_s": _mean(saved),
                "be_gpu_hours": _mean(cost),
                "excess_gpus": _mean(excess),
                "wasted": _mean(wasted),
                "n": len(cost),
            }
        )
    return pd.DataFrame.from_records(rows, columns=WORTH_COLUMNS)


#: points closer than these shares of the x and y spans share one label ("k8s, fitgpp"): two labels there overprint
NEAR = (0.08, 0.1)


def point_labels(worth: pd.DataFrame) -> dict[str, str]:
    """Per policy of :func:`worth_frame`, the label written over its point: the policies whose points lie
    together (within :data:`NEAR` of the spans) share one label, written once over the first of them,
    ``"k8s, fitgpp"``; the others get ``""``."""
    x = worth["be_gpu_hours"].to_numpy(float)
    y = worth["te_wait_saved_s"].to_numpy(float)
    spans = [max(float(np.nanmax(v) - min(np.nanmin(v), 0.0)), 1e-9) if len(v) else 1.0 for v in (x, y)]
    groups: list[list[int]] = []
    for i in range(len(worth)):
        near = (
            g for g in groups if abs(x[g[0]] - x[i]) <= NEAR[0] * spans[0] and abs(y[g[0]] - y[i]) <= NEAR[1] * spans[1]
        )
        found = next(near, None)
        if found is None:
            groups.append([i])
        else:
            found.append(i)
    policies = [str(p) for p in worth["policy"]]
    labels = dict.fromkeys(policies, "")
    for g in groups:
        labels[policies[g[0]]] = ", ".join(policies[i] for i in g)
    return labels


def _mean(values: list[float]) -> float:
    x = np.array(values, dtype=float)
    x = x[~np.isnan(x)]
    return float(x.mean()) if len(x) else np.nan


def worst_decisions(decisions: Mapping[str, pd.DataFrame], limit: int = 10) -> pd.DataFrame:
    """The worst preemption decisions of the runs (policy -> its decision table): wasted ones
    first, then the most excess GPUs, then the most BE GPU-hours; at most ``limit`` rows, with
    the columns of :data:`WORST_COLUMNS` plus ``first_victim`` and ``victim_node`` (where the
    decision is on the Gantt)."""
    parts = [frame.assign(policy=policy) for policy, frame in decisions.items() if len(frame)]
    columns = [*WORST_COLUMNS, "first_victim", "victim_node"]
    if not parts:
        return pd.DataFrame(columns=columns)
    every = pd.concat(parts, ignore_index=True)
    every["gpu_hours"] = every[list(COSTS)].sum(axis=1) / HOUR
    ranked = every.sort_values(
        ["wasted", "excess_gpus", "gpu_hours", "time"], ascending=[False, False, False, True], kind="stable"
    )
    return ranked.head(limit)[columns].reset_index(drop=True)


def worst_table(worst: pd.DataFrame) -> pd.DataFrame:
    """The worst decisions as the page shows them: the columns of :data:`WORST_COLUMNS` under their
    headers, the instant as a day and a clock (:func:`dashboard.shared.views.instants`)."""
    shown = worst[list(WORST_COLUMNS)].rename(columns=WORST_COLUMNS)
    name, when = views.instants(WORST_COLUMNS["time"], worst["time"].to_numpy(float))
    return shown.drop(columns=WORST_COLUMNS["time"]).assign(**{name: when.to_numpy()})[
        [WORST_COLUMNS["policy"], name, *list(WORST_COLUMNS.values())[2:]]
    ]
