"""The Sweep page's checkpoint advisor: its settings and what it shows; pure (no Streamlit, no Plotly).

The advisor is :func:`simcore.experiments.advisor.advise`, as ``simcore checkpoint-advice PRESET`` runs it:
one policy, ``checkpoint = periodic`` at each interval, on seeds 0 .. N-1 of the Sweep page's preset;
these settings add the cost of a checkpoint and the random failures (``mtbf``, ``repair``), every value
checked by its knob (:data:`simcore.core.knobs.KNOBS`). The frames and sentences here are what the page
and its chart (:mod:`dashboard.sweep.advice_charts`) show, numbers as text through :mod:`simcore.core.fmt`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd

from dashboard.shared import keys
from simcore.core import fmt
from simcore.core.errors import UserError
from simcore.core.knobs import KNOBS, to_text
from simcore.core.model import SimConfig
from simcore.experiments import advisor

#: the intervals offered first (s): five, within the demo's max_sweep_values
INTERVALS = "600,1800,3600,7200,14400"
#: the first values of the advisor's knobs: a checkpoint of a minute, a node failing every two days
DEFAULTS: dict[str, Any] = {"checkpoint_cost": 60.0, "mtbf": 2 * 86400.0, "repair": 3600.0}
#: the knob behind each widget
KNOB_KEYS: dict[str, keys.Key[Any]] = {
    "checkpoint_cost": keys.ADV_COST,
    "mtbf": keys.ADV_MTBF,
    "repair": keys.ADV_REPAIR,
}


@dataclass(frozen=True)
class AdviceSettings:
    """What the advisor runs: the Sweep page's preset, jobs and seeds, one policy, the three knobs and the intervals."""

    preset: str
    jobs: str  # "" = the preset's default
    seeds: int
    policy: str
    checkpoint_cost: float
    mtbf: float
    repair: float
    intervals: tuple[float, ...]

    def gen(self) -> tuple[tuple[str, str], ...]:
        return (("jobs", self.jobs),) if self.jobs else ()

    def knobs(self) -> tuple[tuple[str, str], ...]:
        """The knobs set, as ``--set`` writes them (those at their default left out)."""
        return tuple((k, to_text(v)) for k in DEFAULTS if (v := getattr(self, k)) != KNOBS[k].default)

    def config(self) -> SimConfig:
        return SimConfig(policy=self.policy).with_knobs({k: getattr(self, k) for k in DEFAULTS})


def widget_defaults(policies: tuple[str, ...]) -> dict[str, Any]:
    """The advisor's widgets before the visitor touches them (fitgpp when the sweep has it)."""
    return {
        keys.ADV_POLICY.name: "fitgpp" if "fitgpp" in policies else policies[0],
        keys.ADV_COST.name: DEFAULTS["checkpoint_cost"],
        keys.ADV_MTBF.name: to_text(DEFAULTS["mtbf"]),
        keys.ADV_REPAIR.name: DEFAULTS["repair"],
        keys.ADV_INTERVALS.name: INTERVALS,
    }


def read(values: Mapping[Any, Any], preset: str, jobs: str, seeds: int) -> AdviceSettings:
    """The settings the widgets hold (``values``: the session), for the sweep's preset, jobs and seeds; a
    UserError naming the field for a value its knob does not allow."""
    read_knobs = {}
    for name, key in KNOB_KEYS.items():
        try:
            read_knobs[name] = float(KNOBS[name].read(key.get(values, DEFAULTS[name])))
        except ValueError as exc:
            raise UserError(f"{KNOBS[name].label}: {exc}") from None
    intervals = advisor.parse_intervals(str(keys.ADV_INTERVALS.get(values, INTERVALS)), "checkpoint intervals")
    return AdviceSettings(
        preset,
        jobs,
        seeds,
        str(keys.ADV_POLICY.get(values, "fitgpp")),
        read_knobs["checkpoint_cost"],
        read_knobs["mtbf"],
        read_knobs["repair"],
        tuple(sorted(set(intervals))),
    )


def table(advice: advisor.Advice) -> pd.DataFrame:
    """One row per interval, as the page lists them: times in words, numbers written by :mod:`simcore.core.fmt`."""
    t = advice.table
    return pd.DataFrame(
        {
            "interval": [fmt.duration(x) for x in t["interval"]],
            "BE p50 slowdown": [fmt.cell(x) for x in t["BE_slowdown_p50"]],
            "BE p95 slowdown": [fmt.cell(x) for x in t["BE_slowdown_p95"]],
            "work lost (GPU-h)": [fmt.cell(x) for x in t["gpu_hours_lost"]],
            "BE interruptions": t["interruptions"].astype(int),
            "M (BE run per interruption)": [
                fmt.duration(x) if math.isfinite(x) else fmt.MISSING for x in t["mean_time_between_interruptions"]
            ],
            "": ["simulated best" if x == advice.best_interval else "" for x in t["interval"]],
        }
    )


def verdict(advice: advisor.Advice) -> str:
    """The advice in words: the best interval, Young/Daly's and whether they agree (else why not)."""
    best = f"The simulated best interval is **{fmt.duration(advice.best_interval)}** (the least mean BE p50 slowdown)."
    if not math.isfinite(advice.young_daly):
        return f"{best} No BE job was interrupted, so Young/Daly gives no interval: checkpoints only cost time here."
    yd = (
        f" Young/Daly's sqrt(2 x {fmt.duration(advice.checkpoint_cost)} x M), with M = "
        f"{fmt.duration(advice.mean_time_between_interruptions)} of BE run per interruption, is "
        f"**{fmt.duration(advice.young_daly)}**"
    )
    if advice.agree:
        return f"{best}{yd}: the swept interval nearest it is the best one, they agree."
    why = "; ".join(advice.reasons)
    near = fmt.duration(advice.nearest) if advice.nearest is not None else fmt.MISSING
    return f"{best}{yd} (nearest swept: {near}): they differ. Why they may: {why}."
