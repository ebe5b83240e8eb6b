"""The Sweep page's settings (one knob over a list of values) and its result frames; pure.

The sweep itself is :mod:`simcore.experiments.sweep`: this module only turns the page's settings into a
:class:`~simcore.experiments.sweep.SweepSpec` and the rows it returns into the frames the charts draw.
The workload is a generator preset (each seed a new workload of it) or the visitor's uploaded file on
identical nodes (:mod:`dashboard.sweep.uploaded`: each seed draws the file's jobs again, a bootstrap; the
whiskers are then the lowest and the highest value over those draws).
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, fields, replace
from typing import Any

import numpy as np
import pandas as pd

from dashboard.shared import keys, uploads
from dashboard.shared.demo import LOCAL, Limits
from dashboard.shared.scenario import UPLOAD_PREFIX, ignored, parse_policy_names
from simcore.analysis.metrics import TRIO_KEYS, TRIO_LABELS, versus
from simcore.analysis.stats import BOOTSTRAP_NAME, bootstrap_mean
from simcore.core import fmt
from simcore.core.errors import UserError
from simcore.core.knobs import KNOBS, Knob, KnobRange
from simcore.core.model import KNOB_HELP, MAX_RESOURCE
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


SOURCES = ("preset", "upload")
SOURCE_LABELS = {"preset": "a generator preset", "upload": "your workload file"}
#: what a sweep of an uploaded file varies: its cluster's size, or a run knob (a file has no load or TE share)
UPLOAD_KNOBS = ("nodes", *(k for k in SWEEP_KNOBS if k in KNOBS))
#: an upload's node shape unless the visitor sets one: the CLI's default node
NODE_SHAPE = {"node_cpu": 64.0, "node_mem_gb": 512.0, "node_gpu": 8.0}


def knob_label(name: str) -> str:
    """A sweep knob as the page shows it: a run knob with its meaning (``max preemptions per BE job (P)``)."""
    return KNOBS[name].label if name in KNOBS else name


MAX_POINTS = 100  # values a list may hold at all; the limits in force refuse fewer (dashboard.runs.budget)
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
    source: str = "preset"  # one of SOURCES
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
    upload_opts: tuple[tuple[str, str], ...] = ()  # an upload's loader options that differ from their defaults
    nodes: int = 0  # an upload's nodes when the knob is another: 0 = sized from the workload (uploaded.sized_nodes)
    node_cpu: float = NODE_SHAPE["node_cpu"]
    node_mem_gb: float = NODE_SHAPE["node_mem_gb"]
    node_gpu: float = NODE_SHAPE["node_gpu"]

    def to_query(self) -> dict[str, str | list[str]]:
        base = SweepSettings()
        q: dict[str, str | list[str]] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if value == getattr(base, f.name) or f.name == "upload_opts":
                continue
            q[f.name] = ",".join(value) if isinstance(value, tuple) else ("1" if value is True else fmt.setting(value))
        q.update({UPLOAD_PREFIX + name: text for name, text in self.upload_opts})
        if "knob" in q and "values" not in q:  # the default values belong to the default knob
            q["values"] = self.values
        return q

    @classmethod
    def from_query(cls, query: Mapping[str, Any]) -> tuple[SweepSettings, list[str]]:
        values: dict[str, Any] = {}
        warnings: list[str] = []
        opts: list[tuple[str, str]] = []
        for key, raw in query.items():
            text = (raw[-1] if isinstance(raw, list | tuple) and raw else str(raw)).strip()
            try:
                if key.startswith(UPLOAD_PREFIX):
                    opts.append((_upload_option(key[len(UPLOAD_PREFIX) :], text), text))
                else:
                    values[key] = _parse(key, text)
            except ValueError as exc:
                warnings.append(ignored(key, text, exc))
        values["upload_opts"] = tuple(sorted(opts))
        if "knob" in values and "values" not in values:
            values["values"] = SWEEP_KNOBS[values["knob"]][0]
        settings = cls(**values)
        if settings.baseline not in settings.policies:
            settings = replace(settings, baseline=settings.policies[0])
        if settings.source == "upload" and settings.knob not in UPLOAD_KNOBS:
            warnings.append(
                f"link parameter knob={settings.knob!r} ignored: a workload file sweeps {', '.join(UPLOAD_KNOBS)}"
            )
            settings = replace(settings, knob="nodes", values="")
        return settings, warnings

    def effective_workers(self) -> int:
        return self.workers or os.cpu_count() or 1

    def spec(self, source: sweep.Source | None = None, values: str | None = None) -> sweep.SweepSpec:
        """The sweep to run (an upload's: on ``source``, :func:`dashboard.sweep.uploaded.upload_source`;
        ``values``: the list for an empty one, :func:`dashboard.sweep.uploaded.sized_values`); raises UserError
        for a bad value list or parameter."""
        text = self.values if values is None or self.values.strip() else values
        grid_values = [sweep.parse_value(v) for v in text.split(",") if v.strip()]
        if not grid_values:
            raise UserError(f"{self.knob}: give at least one value")
        if len(grid_values) > MAX_POINTS:
            raise UserError(f"{self.knob}: at most {MAX_POINTS} values in the dashboard (use `simcore sweep` for more)")
        upload = self.source == "upload"
        if upload and source is None:
            raise UserError("upload a workload file in the sidebar")
        fixed = {"jobs": self.jobs} if self.jobs.strip() and not upload else {}
        return sweep.build_spec(
            preset=None if upload else self.preset,
            source=source if upload else None,
            fixed=fixed,
            grids={self.knob: grid_values},
            seeds=self.seeds,
            policies=list(self.policies),
            baseline=self.baseline,
        )

    def fixed(self) -> list[tuple[str, object]]:
        """The values every point shares, as ``--set`` gives them (a preset's jobs)."""
        return [("jobs", self.jobs)] if self.jobs and self.source == "preset" else []

    def shape(self) -> tuple[float, float, float]:
        """An upload's node: CPU cores, memory (GiB), GPUs."""
        return self.node_cpu, self.node_mem_gb, self.node_gpu


def _upload_option(name: str, text: str) -> str:
    """A link's loader option ``u.NAME``: a known option with one of its choices (free text for the others)."""
    option = next((o for o in uploads.UPLOAD_OPTIONS if o.name == name), None)
    if option is None:
        raise ValueError("unknown loader option")
    if option.choices and text not in option.choices:
        raise ValueError(f"must be one of {', '.join(option.choices)}")
    return name


def _parse(key: str, text: str) -> Any:
    if key == "source":
        if text not in SOURCES:
            raise ValueError(f"must be one of {', '.join(SOURCES)}")
        return text
    if key == "nodes":
        x = float(text)
        if not x.is_integer() or x < 0:
            raise ValueError("must be a whole number of nodes (0: sized from the workload)")
        return int(x)
    if key in NODE_SHAPE:
        x = float(text)
        if not (math.isfinite(x) and 0 < x <= MAX_RESOURCE):
            raise ValueError(f"must be a number above 0 and at most {MAX_RESOURCE:g}")
        return x
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
    opts = {**uploads.UPLOAD_DEFAULTS, **dict(s.upload_opts)}
    return {
        keys.S_SOURCE.name: s.source,
        **{keys.S_UPLOAD_OPTION(name).name: text for name, text in opts.items()},
        keys.S_NODES.name: s.nodes,
        keys.S_NODE_CPU.name: s.node_cpu,
        keys.S_NODE_MEM_GB.name: s.node_mem_gb,
        keys.S_NODE_GPU.name: s.node_gpu,
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
    given = ((name, str(keys.S_UPLOAD_OPTION(name).read(values))) for name in keys.S_UPLOAD_OPTION.names(values))
    return SweepSettings(
        source=str(keys.S_SOURCE.get(values, "preset")),
        upload_opts=tuple(sorted((n, t) for n, t in given if t != uploads.UPLOAD_DEFAULTS.get(n))),
        nodes=int(keys.S_NODES.get(values, 0)),
        node_cpu=float(keys.S_NODE_CPU.get(values, NODE_SHAPE["node_cpu"])),
        node_mem_gb=float(keys.S_NODE_MEM_GB.get(values, NODE_SHAPE["node_mem_gb"])),
        node_gpu=float(keys.S_NODE_GPU.get(values, NODE_SHAPE["node_gpu"])),
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


def metric_frame(rows: pd.DataFrame, knob: str, metrics: Sequence[str], spread: bool = False) -> pd.DataFrame:
    """Mean over seeds and its interval :func:`simcore.analysis.stats.bootstrap_mean` (named on screen by
    ``BOOTSTRAP_NAME``, the dashboard's spread of every mean over seeds) per (knob value, policy, metric): columns
    value, policy, metric, n, mean, lo, hi (lo = hi = mean when a single seed gives no interval). ``spread``: the
    seeds are draws of one workload (an upload's bootstrap), whose interval is where a value falls over them,
    the lowest to the highest, not where their mean is."""
    records = []
    for (value, policy), group in rows.groupby([knob, "policy"], sort=False):
        for metric in metrics:
            x = group[metric].to_numpy(dtype=float)
            n, mean, lo, hi = bootstrap_mean(x)  # lo = hi = mean for one value
            if spread and n:
                lo, hi = float(np.nanmin(x)), float(np.nanmax(x))
            records.append(
                {"value": value, "policy": policy, "metric": metric, "n": n, "mean": mean, "lo": lo, "hi": hi}
            )
    return pd.DataFrame.from_records(records, columns=["value", "policy", "metric", "n", "mean", "lo", "hi"])


def spread_note(seeds: int, resampled: bool) -> str:
    """What the lines and whiskers of the sweep's charts are."""
    if seeds < 2:
        return "One seed: no interval. Each policy has its own dash and marker."
    if resampled:
        return (
            f"Lines: mean over {seeds} workloads drawn from your file (each seed draws its jobs again with "
            f"replacement, a bootstrap); whiskers: the lowest to the highest of them, a range another such draw "
            f"falls in with probability {seeds - 1}/{seeds + 1} ({(seeds - 1) / (seeds + 1):.0%}). Each policy has "
            "its own dash and marker."
        )
    return (
        f"Lines: mean over {seeds} seeds; whiskers: its {BOOTSTRAP_NAME} (as on Explore's cards; it stays inside "
        "the seeds' values, so a slowdown's never goes below 1). Each policy has its own dash and marker."
    )


def summary_table(frame: pd.DataFrame, knob: str, metrics: Sequence[tuple[str, str]]) -> pd.DataFrame:
    """The means of :func:`metric_frame`, one row per (knob value, policy), a column per metric by its label."""
    wide = frame.pivot_table(index=["value", "policy"], columns="metric", values="mean", sort=False)
    labels = dict(metrics)
    wide = wide[[m for m, _ in metrics if m in wide.columns]].rename(columns=labels).reset_index()
    return wide.rename(columns={"value": knob_label(knob)}).rename_axis(columns=None)


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
