"""The Sweep page's settings (one knob over a list of values) and its result frames; pure.

The sweep itself is :mod:`simcore.experiments.sweep`: this module only turns the page's settings into a
:class:`~simcore.experiments.sweep.SweepSpec` and the rows it returns into the frames the charts draw.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, fields, replace
from typing import Any

import numpy as np
import pandas as pd

from dashboard.shared import keys
from dashboard.shared.demo import LOCAL, Limits
from dashboard.shared.scenario import ignored, parse_policy_names
from simcore.analysis.metrics import TRIO_KEYS, TRIO_LABELS, versus
from simcore.analysis.stats import bootstrap_mean
from simcore.core.errors import UserError
from simcore.core.knobs import KNOBS, Knob, KnobRange
from simcore.core.model import KNOB_HELP
from simcore.experiments import sweep
from simcore.workload.presets import PRESETS

#: knob -> (default values, help). Workload parameters (nodes, load, te_share) and SimConfig knobs.
SWEEP_KNOBS: dict[str, tuple[str, str]] = {
    "nodes": ("2,4,8", "cluster size: number of nodes (the preset's node shape)"),
    "load": ("0.6,0.8,1.0,1.2", "offered GPU load of the generated workload"),
    "te_share": ("0.1,0.3,0.5", "fraction of jobs that are TE"),
    "P": ("0,1,2,4", KNOB_HELP["P"]),
    "s": ("1,2,4,inf", KNOB_HELP["s"]),
    "grace": ("0,30,120,600", KNOB_HELP["grace"]),
    "restore": ("0,60,300,900", KNOB_HELP["restore"]),
    "min_runtime": ("0,600,3600", KNOB_HELP["min_runtime"]),
    "save_time": ("0,15,30,45,60", KNOB_HELP["save_time"]),
    "save_failure": ("0,0.25,0.5,0.75,1", KNOB_HELP["save_failure"]),
    "preempt_budget": ("0,1,2,inf", KNOB_HELP["preempt_budget"]),
}


def knob_label(name: str) -> str:
    """A sweep knob as the page shows it: a run knob with its meaning (``max preemptions per BE job (P)``)."""
    return KNOBS[name].label if name in KNOBS else name


MAX_POINTS = LOCAL.max_sweep_values  # what a link may ask for; demo mode refuses more than its own limit
MAX_SEEDS = LOCAL.max_seeds
#: the page's numeric settings, read and ranged from a link like the knobs (vet_link then applies the server's limits)
SETTINGS: dict[str, Knob] = {
    k.name: k
    for k in (
        Knob("seeds", "int", 3, "workloads per knob value", KnobRange(1, MAX_SEEDS, whole=True), noun="setting"),
        Knob(  # no more processes than tasks; the server's own limit is vet_link's
            "workers",
            "int",
            0,
            "local worker processes (0 = one per core)",
            KnobRange(0, sweep.MAX_TASKS, whole=True),
            noun="setting",
        ),
    )
}


@dataclass(frozen=True)
class SweepSettings:
    preset: str = "demo"
    jobs: str = ""  # "" = the preset's default
    knob: str = "load"  # changes every policy (P would change fitgpp only)
    values: str = SWEEP_KNOBS["load"][0]
    policies: tuple[str, ...] = ("fifo", "priority", "k8s", "fitgpp")
    baseline: str = "fifo"
    seeds: int = SETTINGS["seeds"].default  # type: ignore[assignment]
    workers: int = SETTINGS["workers"].default  # type: ignore[assignment]  # 0 = one per core
    dask: str = ""  # "" = local processes; "local" or tcp://host:port = Dask
    run: bool = False  # compute on load (set once the user has run it, so a shared link shows results)

    def to_query(self) -> dict[str, str | list[str]]:
        base = SweepSettings()
        q: dict[str, str | list[str]] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if value == getattr(base, f.name):
                continue
            q[f.name] = ",".join(value) if isinstance(value, tuple) else ("1" if value is True else str(value))
        if "knob" in q and "values" not in q:  # the default values belong to the default knob
            q["values"] = self.values
        return q

    @classmethod
    def from_query(cls, query: Mapping[str, Any]) -> tuple[SweepSettings, list[str]]:
        values: dict[str, Any] = {}
        warnings: list[str] = []
        for key, raw in query.items():
            text = (raw[-1] if isinstance(raw, list | tuple) and raw else str(raw)).strip()
            try:
                values[key] = _parse(key, text)
            except ValueError as exc:
                warnings.append(ignored(key, text, exc))
        if "knob" in values and "values" not in values:
            values["values"] = SWEEP_KNOBS[values["knob"]][0]
        settings = cls(**values)
        if settings.baseline not in settings.policies:
            settings = replace(settings, baseline=settings.policies[0])
        return settings, warnings

    def effective_workers(self) -> int:
        return self.workers or os.cpu_count() or 1

    def spec(self) -> sweep.SweepSpec:
        """The sweep to run; raises UserError for a bad value list or parameter."""
        grid_values = [sweep.parse_value(v) for v in self.values.split(",") if v.strip()]
        if not grid_values:
            raise UserError(f"{self.knob}: give at least one value")
        if len(grid_values) > MAX_POINTS:
            raise UserError(f"{self.knob}: at most {MAX_POINTS} values in the dashboard (use `simcore sweep` for more)")
        fixed = {"jobs": self.jobs} if self.jobs.strip() else {}
        return sweep.build_spec(
            preset=self.preset,
            fixed=fixed,
            grids={self.knob: grid_values},
            seeds=self.seeds,
            policies=list(self.policies),
            baseline=self.baseline,
        )


def _parse(key: str, text: str) -> Any:
    if key == "knob":
        if text not in SWEEP_KNOBS:
            raise ValueError(f"must be one of {', '.join(SWEEP_KNOBS)}")
        return text
    if key == "preset":
        if text not in PRESETS or text == "mmc":
            raise ValueError(f"must be one of {', '.join(p for p in PRESETS if p != 'mmc')}")
        return text
    if key in ("values", "baseline", "jobs", "dask"):
        return text
    if key == "policies":
        return parse_policy_names(text)
    if key in SETTINGS:
        return SETTINGS[key].read(text)
    if key == "run":
        return text in ("1", "true", "yes")
    raise ValueError("unknown parameter")


def vet_link(settings: SweepSettings, lim: Limits) -> tuple[SweepSettings, list[str], str]:
    """What a link may not decide, taken out of its settings: (settings, notices, offered address).

    A link never names a Dask scheduler that is used without a click (its results are pickles:
    whoever runs the scheduler runs code here), never sets more worker processes than the
    limit, and in demo mode never starts a sweep, names a scheduler or sets workers at all.
    Outside demo mode the address comes back as ``offered``, for the page to show and confirm."""
    notes: list[str] = []
    offered = ""
    if settings.dask:
        if lim.allow_dask:
            offered = settings.dask
        else:
            notes.append(ignored("dask", settings.dask, "this demo never connects to a Dask scheduler"))
    if settings.workers and (lim.demo or settings.workers > lim.max_workers):
        why = "this demo sets its own worker count" if lim.demo else f"at most {lim.max_workers} (max_workers)"
        notes.append(f"link parameter workers={settings.workers} ignored: {why}")
        settings = replace(settings, workers=0)
    if settings.run and lim.demo:
        notes.append("link parameter run=1 ignored: in this demo a sweep starts only when you press Run sweep")
    if settings.run and (lim.demo or offered):
        settings = replace(settings, run=False)
    return replace(settings, dask=""), notes, offered


def widget_values(s: SweepSettings) -> dict[str, Any]:
    return {
        keys.S_PRESET.name: s.preset,
        keys.S_JOBS.name: s.jobs,
        keys.S_KNOB.name: s.knob,
        keys.S_VALUES.name: s.values,
        keys.S_POLICIES.name: list(s.policies),
        keys.S_BASELINE.name: s.baseline,
        keys.S_SEEDS.name: s.seeds,
        keys.S_WORKERS.name: s.workers,
        keys.S_DASK.name: s.dask,
        keys.SWEEP_RAN_FOR.name: replace(s, run=False) if s.run else None,
    }


def from_widgets(values: Mapping[str, Any]) -> SweepSettings:
    policies = tuple(keys.S_POLICIES.maybe(values) or ("fifo",))
    baseline = keys.S_BASELINE.maybe(values)
    return SweepSettings(
        preset=str(keys.S_PRESET.get(values, "demo")),
        jobs=str(keys.S_JOBS.get(values, "")).strip(),
        knob=str(keys.S_KNOB.get(values, SweepSettings.knob)),
        values=str(keys.S_VALUES.get(values, "")).strip(),
        policies=policies,
        baseline=baseline if baseline is not None and baseline in policies else policies[0],
        seeds=int(keys.S_SEEDS.get(values, 3)),
        workers=int(keys.S_WORKERS.get(values, 0)),
        dask=str(keys.S_DASK.get(values, "")).strip(),
    )


def trio_metrics(baseline: str) -> tuple[tuple[str, str], ...]:
    """(row column, label) of the trio against ``baseline``, as the sweep rows name it."""
    return tuple((versus(key, baseline), f"{TRIO_LABELS[key]} vs baseline (%)") for key in TRIO_KEYS)


P95_METRICS = (("TE_slowdown_p95", "TE p95 slowdown"), ("BE_slowdown_p95", "BE p95 slowdown"))


def metric_frame(rows: pd.DataFrame, knob: str, metrics: Sequence[str]) -> pd.DataFrame:
    """Mean over seeds and its interval :func:`simcore.analysis.stats.bootstrap_mean` (named on screen by
    ``BOOTSTRAP_NAME``, the dashboard's spread of every mean over seeds) per (knob value, policy, metric): columns value, policy, metric, n, mean, lo,
    hi (lo = hi = mean when a single seed gives no interval)."""
    records = []
    for (value, policy), group in rows.groupby([knob, "policy"], sort=False):
        for metric in metrics:
            n, mean, lo, hi = bootstrap_mean(group[metric].to_numpy(dtype=float))  # lo = hi = mean for one value
            records.append(
                {"value": value, "policy": policy, "metric": metric, "n": n, "mean": mean, "lo": lo, "hi": hi}
            )
    return pd.DataFrame.from_records(records, columns=["value", "policy", "metric", "n", "mean", "lo", "hi"])


def pareto_points(rows: pd.DataFrame, knob: str) -> pd.DataFrame:
    """Mean TE and BE p95 slowdown over seeds per (policy, knob value)."""
    grouped = rows.groupby(["policy", knob], sort=False)[["TE_slowdown_p95", "BE_slowdown_p95"]].mean().reset_index()
    return pd.DataFrame(
        {
            "policy": grouped["policy"],
            "value": grouped[knob].to_numpy(dtype=float),
            "te_p95": grouped["TE_slowdown_p95"].to_numpy(dtype=float),
            "be_p95": grouped["BE_slowdown_p95"].to_numpy(dtype=float),
        }
    )


def pareto_mask(x: Iterable[float], y: Iterable[float]) -> np.ndarray:
    """True for points no other point beats on both x and y (lower is better on both)."""
    xs, ys = np.asarray(list(x), float), np.asarray(list(y), float)
    mask = np.zeros(len(xs), dtype=bool)
    for i in range(len(xs)):
        if not (np.isfinite(xs[i]) and np.isfinite(ys[i])):
            continue
        dominated = (xs <= xs[i]) & (ys <= ys[i]) & ((xs < xs[i]) | (ys < ys[i]))
        mask[i] = not dominated.any()
    return mask
