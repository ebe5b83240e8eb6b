"""Pure builders of the tidy DataFrames the charts and tables show (no Streamlit, no Plotly).

Times are shown in hours: the simulator works in seconds, but BE jobs run for hours and a
seconds axis is unreadable.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from simcore.model import ClusterSpec, JobTable

HOUR = 3600.0
CLASSES = ("TE", "BE")
TRIO_KEYS = ("TE_p95_slowdown_pct", "BE_p50_slowdown_pct", "BE_p95_slowdown_pct")
TRIO_LABELS = {
    "TE_p95_slowdown_pct": "TE p95 slowdown",
    "BE_p50_slowdown_pct": "BE p50 slowdown",
    "BE_p95_slowdown_pct": "BE p95 slowdown",
}
# The absolute value behind each trio entry: (class, statistic) of the slowdown.
TRIO_SOURCE = {
    "TE_p95_slowdown_pct": ("TE", "p95"),
    "BE_p50_slowdown_pct": ("BE", "p50"),
    "BE_p95_slowdown_pct": ("BE", "p95"),
}
PERCENTILES = ("p50", "p95", "p99")


def workload_key(table: JobTable) -> str:
    """A content hash of a workload: equal jobs give equal keys, whatever file they came from."""
    h = hashlib.sha256()
    h.update("\x1f".join(map(str, table.job_id)).encode())
    for arr in (table.submit_time, table.duration, table.request, table.is_te):
        h.update(np.ascontiguousarray(arr).tobytes())
    return h.hexdigest()[:20]


def cluster_key(cluster: ClusterSpec) -> str:
    return ";".join(f"{n.name}:{n.capacity.cpu:g},{n.capacity.mem_gb:g},{n.capacity.gpu:g}" for n in cluster.nodes)


def workload_overview(table: JobTable) -> pd.DataFrame:
    """One row per class (TE, BE, all): jobs, GPU-hours, median duration and GPUs."""
    rows = []
    for name, mask in (("TE", table.is_te), ("BE", ~table.is_te), ("all", np.ones(len(table), dtype=bool))):
        dur = table.duration[mask]
        gpu = table.request[mask, 2]
        rows.append(
            {
                "class": name,
                "jobs": int(mask.sum()),
                "GPU-hours": float((gpu * dur).sum() / HOUR),
                "median duration (h)": float(np.median(dur) / HOUR) if len(dur) else np.nan,
                "median GPUs": float(np.median(gpu)) if len(gpu) else np.nan,
            }
        )
    return pd.DataFrame(rows)


def workload_jobs(table: JobTable) -> pd.DataFrame:
    """Per-job class, GPUs and duration in hours, for the size and duration histograms."""
    return pd.DataFrame(
        {
            "job_class": np.where(table.is_te, "TE", "BE"),
            "gpu": table.request[:, 2],
            "duration_h": table.duration / HOUR,
        }
    )


def trio_frame(trios: Sequence[Mapping[str, Mapping[str, float | None]]]) -> pd.DataFrame:
    """The trio over seeds: one row per (policy, metric) with mean, std, min, max and n.

    ``trios`` holds, per seed, ``{policy: {trio key: percent or None}}``; None values (baseline
    at 0) are left out of the statistics, and a metric with no value at all gets NaN.
    """
    rows = []
    policies = list(dict.fromkeys(p for t in trios for p in t))
    for policy in policies:
        for key in TRIO_KEYS:
            vals = np.array([t[policy][key] for t in trios if policy in t and t[policy].get(key) is not None], float)
            rows.append(
                {
                    "policy": policy,
                    "metric": key,
                    "label": TRIO_LABELS[key],
                    "mean": float(vals.mean()) if len(vals) else np.nan,
                    "std": float(vals.std(ddof=1)) if len(vals) > 1 else np.nan,
                    "min": float(vals.min()) if len(vals) else np.nan,
                    "max": float(vals.max()) if len(vals) else np.nan,
                    "n": len(vals),
                }
            )
    return pd.DataFrame(rows, columns=["policy", "metric", "label", "mean", "std", "min", "max", "n"])


def absolute_trio(summaries: Sequence[Mapping[str, Mapping[str, Any]]]) -> pd.DataFrame:
    """The slowdown values behind the trio, mean over seeds: one row per (policy, metric)."""
    rows = []
    policies = list(dict.fromkeys(p for s in summaries for p in s))
    for policy in policies:
        for key, (cls, stat) in TRIO_SOURCE.items():
            vals = [s[policy]["classes"][cls]["slowdown"][stat] for s in summaries if policy in s]
            vals = [v for v in vals if v is not None]
            rows.append({"policy": policy, "metric": key, "value": float(np.mean(vals)) if vals else np.nan})
    return pd.DataFrame(rows, columns=["policy", "metric", "value"])


def percentile_frame(summaries: Mapping[str, Mapping[str, Any]], metric: str = "slowdown") -> pd.DataFrame:
    """Tidy p50/p95/p99 of one metric: columns policy, job_class, stat, value."""
    rows = []
    for policy, summary in summaries.items():
        for cls in CLASSES:
            stats = summary["classes"][cls][metric]
            for stat in PERCENTILES:
                value = stats.get(stat)
                rows.append(
                    {"policy": policy, "job_class": cls, "stat": stat, "value": np.nan if value is None else value}
                )
    return pd.DataFrame(rows, columns=["policy", "job_class", "stat", "value"])


def percentile_table(summaries: Mapping[str, Mapping[str, Any]]) -> pd.DataFrame:
    """The percentiles as a wide table: one row per policy, columns like ``TE p95``."""
    tidy = percentile_frame(summaries)
    tidy["column"] = tidy["job_class"] + " " + tidy["stat"]
    wide = tidy.pivot(index="policy", columns="column", values="value")
    order = [f"{c} {s}" for c in CLASSES for s in PERCENTILES]
    return wide.reindex(index=list(summaries), columns=order)


def cdf_frame(jobs: Mapping[str, pd.DataFrame], max_points: int = 300) -> pd.DataFrame:
    """Empirical slowdown CDF per policy and class, thinned to at most ``max_points`` per line.

    Thinning keeps evenly spaced ranks plus the last one, so the tail (the part users read)
    is never cut off.
    """
    parts = []
    for policy, frame in jobs.items():
        for cls in CLASSES:
            values = np.sort(frame.loc[frame["job_class"] == cls, "slowdown"].to_numpy(float))
            n = len(values)
            if n == 0:
                continue
            idx = np.unique(np.linspace(0, n - 1, min(n, max_points)).round().astype(int))
            parts.append(
                pd.DataFrame({"policy": policy, "job_class": cls, "slowdown": values[idx], "fraction": (idx + 1) / n})
            )
    if not parts:
        return pd.DataFrame(columns=["policy", "job_class", "slowdown", "fraction"])
    return pd.concat(parts, ignore_index=True)


@dataclass(frozen=True)
class GanttView:
    """The part of a run a Gantt chart shows, and how much was left out."""

    segments: pd.DataFrame  # job_id, job_class, node, start_h, end_h, kind
    preempts: pd.DataFrame  # job_id, node, time_h
    nodes: tuple[str, ...]  # lanes, top to bottom
    window: tuple[float, float]  # hours
    total: int  # segments in the window before the cap
    truncated: bool


def gantt_view(
    segments: pd.DataFrame,
    events: pd.DataFrame,
    window: tuple[float, float],
    nodes: Sequence[str],
    max_bars: int = 1500,
) -> GanttView:
    """Segments and preemption signals inside a time window (hours) on the given nodes.

    At most ``max_bars`` segments are kept, the earliest first, so a large run stays
    responsive; ``truncated`` says when the window held more.
    """
    t0, t1 = window
    seg = segments[segments["node"].isin(nodes)]
    start_h = seg["start"].to_numpy(float) / HOUR
    end_h = seg["end"].to_numpy(float) / HOUR
    keep = (end_h > t0) & (start_h < t1)
    seg = seg.loc[keep].assign(start_h=np.clip(start_h[keep], t0, t1), end_h=np.clip(end_h[keep], t0, t1))
    seg = seg.sort_values(["start_h", "node"], kind="stable")
    total = len(seg)
    seg = seg.head(max_bars)[["job_id", "job_class", "node", "start_h", "end_h", "kind"]].reset_index(drop=True)
    pre = events[(events["event"] == "preempt") & events["node"].isin(nodes)]
    time_h = pre["time"].to_numpy(float) / HOUR
    pre = pre.loc[(time_h >= t0) & (time_h <= t1)].assign(time_h=lambda d: d["time"] / HOUR)
    pre = pre[["job_id", "node", "time_h"]].reset_index(drop=True)
    return GanttView(seg, pre, tuple(nodes), (t0, t1), total, total > max_bars)


def gantt_default_policy(policies: Sequence[str], preemptive: Mapping[str, bool]) -> str:
    """The policy a Gantt chart shows first: fitgpp, else the first that preempts, else the first."""
    if "fitgpp" in policies:
        return "fitgpp"
    return next((p for p in policies if preemptive.get(p)), policies[0])


def gantt_default_window(
    segments: pd.DataFrame, events: pd.DataFrame, hours: float
) -> tuple[float, tuple[float, float]]:
    """(span of the run in whole hours, default window): ``hours`` long from an hour before the
    first preemption, where the interesting part starts (or from 0 without preemptions)."""
    span = float(max(math.ceil(segments["end"].max() / HOUR) if len(segments) else 1, 1))
    preempts = events.loc[events["event"] == "preempt", "time"]
    start = float(max(math.floor(preempts.min() / HOUR) - 1, 0)) if len(preempts) else 0.0
    start = min(start, max(span - hours, 0.0))
    return span, (start, min(start + hours, span))


def clamp_window(window: Sequence[float], span: float) -> tuple[float, float] | None:
    """``window`` cut to [0, span], or None when nothing of it is left."""
    lo, hi = max(float(window[0]), 0.0), min(float(window[1]), span)
    return (lo, hi) if lo < hi else None


def resample_steps(frame: pd.DataFrame, columns: Sequence[str], bins: int = 400) -> pd.DataFrame:
    """Time-weighted mean of step functions over ``bins`` equal bins (time in hours).

    ``frame`` has a ``time`` column (seconds) and one row per change; each value holds until
    the next row. Averaging (not sampling) keeps short spikes visible in proportion, and bins
    bound the points drawn whatever the size of the run.
    """
    times = frame["time"].to_numpy(float)
    if len(times) < 2 or times[-1] <= times[0]:
        return pd.DataFrame({"time_h": times / HOUR, **{c: frame[c].to_numpy(float) for c in columns}})
    edges = np.linspace(times[0], times[-1], bins + 1)
    out = {"time_h": (edges[:-1] + edges[1:]) / 2 / HOUR}
    dt = np.diff(times)
    for c in columns:
        v = frame[c].to_numpy(float)
        area = np.concatenate([[0.0], np.cumsum(v[:-1] * dt)])  # integral up to each change
        at_edges = np.interp(edges, times, area)  # exact: the integral is piecewise linear
        out[c] = np.diff(at_edges) / np.diff(edges)
    return pd.DataFrame(out)


def timeline_frame(
    util: Mapping[str, pd.DataFrame], queue: Mapping[str, pd.DataFrame], bins: int = 400
) -> pd.DataFrame:
    """GPU utilisation and pending jobs over time per policy: policy, series, time_h, value."""
    parts = []
    for policy, frame in util.items():
        r = resample_steps(frame, ["gpu_util"], bins)
        parts.append(
            pd.DataFrame({"policy": policy, "series": "GPU utilisation", "time_h": r["time_h"], "value": r["gpu_util"]})
        )
    for policy, frame in queue.items():
        r = resample_steps(frame, ["pending_TE", "pending_BE"], bins)
        for col, name in (("pending_TE", "pending TE"), ("pending_BE", "pending BE")):
            parts.append(pd.DataFrame({"policy": policy, "series": name, "time_h": r["time_h"], "value": r[col]}))
    if not parts:
        return pd.DataFrame(columns=["policy", "series", "time_h", "value"])
    return pd.concat(parts, ignore_index=True)


def preemption_frame(summaries: Mapping[str, Mapping[str, Any]], jobs: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """Per policy: preemptions, BE jobs preempted, the most on one job, lost work, utilisation."""
    rows = []
    for policy, summary in summaries.items():
        frame = jobs[policy]
        pre = frame["preemptions"].to_numpy(int)
        rows.append(
            {
                "policy": policy,
                "preemptions": int(summary["preemptions"]),
                "BE jobs preempted": int((pre > 0).sum()),
                "max on one job": int(pre.max()) if len(pre) else 0,
                "lost work (h)": float(summary["lost_work"]) / HOUR,
                "GPU utilisation": summary["gpu_utilization"],
                "useful GPU utilisation": summary["gpu_useful_utilization"],
                "makespan (h)": float(summary["makespan"]) / HOUR,
            }
        )
    return pd.DataFrame(rows)


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
