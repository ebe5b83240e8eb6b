"""Interruptions by cause (DESIGN rule 12), for the Preemptions and "Was it worth it?" tabs; pure.

A run with down time (node events, or ``mtbf`` finite) stops jobs three ways: a preemption (the
policy's choice), a maintenance drain and a node failure (nobody's choice). Its flat record
(:func:`simcore.analysis.metrics.flat_summary`) carries, per cause of
:data:`simcore.core.result.CAUSES`, the count and the GPU-seconds lost, held in grace and spent
restoring (:data:`simcore.analysis.interruptions.FIELDS`); these frames read them. A run without
down time has no such fields: it is left out (its interruptions are all preemptions, which the
preemption table already shows).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from simcore.analysis.interruptions import COSTS
from simcore.core.result import CAUSES

HOUR = 3600.0
#: the by-cause table's columns: (its header, the flat record's suffix); GPU-hours are GPU-seconds / 3600
CAUSE_COLUMNS = (
    ("interruptions", "count"),
    ("lost work (GPU-h)", COSTS[0]),
    ("in grace (GPU-h)", COSTS[1]),
    ("restoring (GPU-h)", COSTS[2]),
)
#: a cause as the tables and the chart name it
CAUSE_NAMES = {"preemption": "preemption", "drain": "maintenance drain", "failure": "node failure"}


def has_downtime(flat: Mapping[str, Any]) -> bool:
    """Whether a run's flat record has the by-cause fields (a run with down time)."""
    return f"{CAUSES[0]}_count" in flat


def cause_table(flats: Mapping[str, Mapping[str, Any]]) -> pd.DataFrame:
    """One row per policy with down time and cause: the interruptions and what they cost (GPU-hours: every
    job's, TE jobs' too, as the accounting counts them); then the node-hours down of each run."""
    rows = []
    for policy, flat in flats.items():
        if not has_downtime(flat):
            continue
        for cause in CAUSES:
            row: dict[str, Any] = {"policy": policy, "cause": CAUSE_NAMES[cause]}
            for header, suffix in CAUSE_COLUMNS:
                value = float(flat[f"{cause}_{suffix}"])
                row[header] = int(value) if suffix == "count" else value / HOUR
            rows.append(row)
    return pd.DataFrame(rows, columns=["policy", "cause", *(h for h, _ in CAUSE_COLUMNS)])


def node_hours_down(flats: Mapping[str, Mapping[str, Any]]) -> float | None:
    """The node-hours down of the runs (the same windows for every policy; the run's end may cut them
    differently: the largest), None without down time."""
    hours = [float(f["node_hours_down"]) for f in flats.values() if has_downtime(f)]
    return max(hours) if hours else None


def cost_by_cause(seed_flats: Sequence[Mapping[str, Mapping[str, Any]]]) -> pd.DataFrame:
    """Per policy and cause, what its interruptions cost in GPU-hours (lost work + grace + restore), the
    mean over the seeds: policy, cause, gpu_hours, n (seeds). Empty when no run has down time."""
    rows = []
    policies = list(dict.fromkeys(p for s in seed_flats for p in s))
    for policy in policies:
        mine = [s[policy] for s in seed_flats if policy in s and has_downtime(s[policy])]
        if not mine:
            continue
        for cause in CAUSES:
            cost = [sum(float(f[f"{cause}_{c}"]) for c in COSTS) / HOUR for f in mine]
            rows.append(
                {"policy": policy, "cause": CAUSE_NAMES[cause], "gpu_hours": float(np.mean(cost)), "n": len(cost)}
            )
    return pd.DataFrame(rows, columns=["policy", "cause", "gpu_hours", "n"])
