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

from simcore import fmt, gantt
from simcore.metrics import TRIO as TRIO_SOURCE
from simcore.metrics import TRIO_KEYS, TRIO_LABELS
from simcore.model import ClusterSpec, JobTable

HOUR = 3600.0
CLASSES = ("TE", "BE")
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


def percentile_frame(
    seed_summaries: Sequence[Mapping[str, Mapping[str, Any]]], metric: str = "slowdown"
) -> pd.DataFrame:
    """Tidy p50/p95/p99 of one metric over seeds: columns policy, job_class, stat, value (the
    mean over seeds), lo and hi (the lowest and highest seed: an interval that never leaves
    the range of the values, so a slowdown whisker never goes below 1) and n (seeds)."""
    rows = []
    policies = list(dict.fromkeys(p for s in seed_summaries for p in s))
    for policy in policies:
        for cls in CLASSES:
            for stat in PERCENTILES:
                vals = [s[policy]["classes"][cls][metric].get(stat) for s in seed_summaries if policy in s]
                x = np.array([v for v in vals if v is not None], dtype=float)
                rows.append(
                    {
                        "policy": policy,
                        "job_class": cls,
                        "stat": stat,
                        "value": float(x.mean()) if len(x) else np.nan,
                        "lo": float(x.min()) if len(x) else np.nan,
                        "hi": float(x.max()) if len(x) else np.nan,
                        "n": len(x),
                    }
                )
    return pd.DataFrame(rows, columns=["policy", "job_class", "stat", "value", "lo", "hi", "n"])


def percentile_table(seed_summaries: Sequence[Mapping[str, Mapping[str, Any]]]) -> pd.DataFrame:
    """The percentiles (mean over seeds) as a wide table: one row per policy, columns like ``TE p95``."""
    tidy = percentile_frame(seed_summaries)
    tidy["column"] = tidy["job_class"] + " " + tidy["stat"]
    wide = tidy.pivot(index="policy", columns="column", values="value")
    order = [f"{c} {s}" for c in CLASSES for s in PERCENTILES]
    return wide.reindex(index=list(dict.fromkeys(tidy["policy"])), columns=order)


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


GANTT_EPOCH = pd.Timestamp("2000-01-01")  # the Gantt's date axis reads elapsed time: day 1 00:00 = t 0
GANTT_GAP = 0.6  # blank rows between two nodes' lanes


def default_gantt_nodes(cluster: ClusterSpec, max_lanes: int) -> list[str]:
    """The first nodes whose GPU lanes (a CPU-only node counts as one) add up to ``max_lanes``;
    at least one."""
    out, used = [], 0
    for node in cluster.nodes:
        lanes = max(gantt.lane_count(node.capacity.gpu), 1)
        if out and used + lanes > max_lanes:
            break
        out.append(node.name)
        used += lanes
    return out


def lane_layout(segments: pd.DataFrame, cluster: ClusterSpec, nodes: Sequence[str]) -> pd.DataFrame:
    """Rows of one policy's Gantt panel, top to bottom: node, lane (GPU index or ``cpu``), y.

    Every node shows all its GPU lanes, any extra lane the run used (fragmented fractional
    GPUs, see :mod:`simcore.gantt`) and a ``cpu`` lane when it ran CPU-only jobs; the layout
    depends on the whole run, so it does not move when the time window does.
    """
    lanes_of = {n.name: gantt.lane_count(n.capacity.gpu) for n in cluster.nodes}
    gpu_rows = segments[segments["lane"] != gantt.CPU_LANE]
    used = gpu_rows.groupby("node")["lane"].max().to_dict() if len(gpu_rows) else {}
    has_cpu = set(segments.loc[segments["lane"] == gantt.CPU_LANE, "node"])
    rows, y = [], 0.0
    for name in nodes:
        lanes: list[int | str] = list(range(max(lanes_of.get(name, 0), int(used.get(name, -1)) + 1)))
        if name in has_cpu or not lanes:
            lanes.append(gantt.CPU_LANE)
        for lane in lanes:
            rows.append({"node": name, "lane": lane, "y": y})
            y += 1.0
        y += GANTT_GAP
    return pd.DataFrame(rows, columns=["node", "lane", "y"])


@dataclass(frozen=True)
class GanttPanel:
    """One policy's part of the Gantt: its bars, preemption signals and lane rows."""

    policy: str
    bars: pd.DataFrame  # job_id, job_class, kind, node, lanes, start, end, y, height (seconds; y in rows)
    preempts: pd.DataFrame  # job_id, node, time, y
    layout: pd.DataFrame  # node, lane, y
    total: int  # bars in the window before the cap


@dataclass(frozen=True)
class GanttView:
    """What the Gantt chart draws: one panel per policy on a shared time window (seconds)."""

    panels: tuple[GanttPanel, ...]
    window: tuple[float, float]  # seconds: the data drawn
    focus: tuple[float, float]  # seconds: the initial zoom (the window, or around a preemption)
    selected: dict[str, Any] | None  # the chosen preemption: policy, time, job_id, node
    truncated: bool


def gantt_bars(segments: pd.DataFrame, layout: pd.DataFrame, window: tuple[float, float]) -> pd.DataFrame:
    """The bars of the segments inside ``window`` (seconds) on the layout's nodes.

    A job's whole-GPU pieces on adjacent lanes merge into one tall bar (an 8-GPU job is one
    bar, not eight); a fractional piece is a thinner bar at its place in the lane; CPU-only
    jobs share their node's ``cpu`` lane (drawn over each other).
    """
    t0, t1 = window
    ys = layout.set_index(["node", "lane"])["y"]
    seg = segments[(segments["end"] > t0) & (segments["start"] < t1) & segments["node"].isin(set(layout["node"]))]
    seg = seg.assign(y=ys.reindex(pd.MultiIndex.from_frame(seg[["node", "lane"]])).to_numpy(float))
    seg = seg[np.isfinite(seg["y"])]
    whole = seg[seg["gpu"] == 1.0].sort_values(["node", "job_id", "start", "kind", "y"], kind="stable")
    key = ["node", "job_id", "start", "end", "kind"]
    # a new bar wherever the key changes or the next lane is not adjacent
    new_bar = (whole[key].ne(whole[key].shift()).any(axis=1)) | (whole["y"].diff() != 1.0)
    whole = whole.assign(bar=new_bar.cumsum())
    merged = whole.groupby("bar", sort=False).agg(
        job_id=("job_id", "first"),
        job_class=("job_class", "first"),
        kind=("kind", "first"),
        node=("node", "first"),
        lane_lo=("lane", "first"),
        lane_hi=("lane", "last"),
        start=("start", "first"),
        end=("end", "first"),
        y_lo=("y", "min"),
        y_hi=("y", "max"),
    )
    merged_lanes = [f"{a}" if a == b else f"{a}-{b}" for a, b in zip(merged["lane_lo"], merged["lane_hi"], strict=True)]
    bars_whole = pd.DataFrame(
        {
            "job_id": merged["job_id"],
            "job_class": merged["job_class"],
            "kind": merged["kind"],
            "node": merged["node"],
            "lanes": merged_lanes,
            "start": merged["start"],
            "end": merged["end"],
            "y": (merged["y_lo"] + merged["y_hi"]) / 2,
            "height": merged["y_hi"] - merged["y_lo"] + 0.9,
        }
    )
    part = seg[seg["gpu"] != 1.0]
    is_cpu = (part["lane"] == gantt.CPU_LANE).to_numpy()
    share = np.where(is_cpu, 1.0, part["gpu"].to_numpy(float))
    offset = np.where(is_cpu, 0.0, part["offset"].to_numpy(float))
    bars_part = pd.DataFrame(
        {
            "job_id": part["job_id"],
            "job_class": part["job_class"],
            "kind": part["kind"],
            "node": part["node"],
            "lanes": part["lane"].astype(str),
            "start": part["start"],
            "end": part["end"],
            "y": part["y"].to_numpy(float) - 0.5 + offset + share / 2,  # y grows downwards
            "height": share * 0.9,
        }
    )
    bars = pd.concat([bars_whole, bars_part], ignore_index=True)
    bars["start"] = bars["start"].clip(lower=t0)
    bars["end"] = bars["end"].clip(upper=t1)
    return bars.sort_values(["start", "y"], kind="stable", ignore_index=True)


def preemption_list(events: pd.DataFrame) -> pd.DataFrame:
    """The preemption signals of a run, in time (then generation) order: time, job_id, node."""
    pre = events[events["event"] == "preempt"]
    return pre[["time", "job_id", "node"]].sort_values("time", kind="stable", ignore_index=True)


def gantt_view(
    runs: Mapping[str, tuple[pd.DataFrame, pd.DataFrame]],
    cluster: ClusterSpec,
    nodes: Sequence[str],
    window_h: tuple[float, float],
    focus: tuple[float, float] | None = None,
    selected: dict[str, Any] | None = None,
    max_bars: int = 3000,
) -> GanttView:
    """The Gantt of ``runs`` (policy -> (segments, events)) on ``nodes`` in a window (hours).

    At most ``max_bars`` bars are drawn, shared equally by the panels: each keeps its
    earliest bars, so what is drawn is complete up to some time and the rest of the window
    is left empty (``truncated``; the page says so).
    """
    window = (window_h[0] * HOUR, window_h[1] * HOUR)
    per_panel = max(max_bars // max(len(runs), 1), 1)
    panels = []
    truncated = False
    for policy, (segments, events) in runs.items():
        layout = lane_layout(segments, cluster, nodes)
        bars = gantt_bars(segments, layout, window)
        total = len(bars)
        truncated |= total > per_panel
        pre = preemption_list(events)
        pre = pre[(pre["time"] >= window[0]) & (pre["time"] <= window[1]) & pre["node"].isin(set(nodes))]
        # the signal sits on the victim's bar: its run (or restore) piece that ends at the signal
        ends = bars[bars["kind"] != "grace"][["job_id", "node", "end", "y", "height"]]
        at = pre.merge(ends, left_on=["job_id", "node", "time"], right_on=["job_id", "node", "end"], how="left")
        fallback = layout.groupby("node")["y"].min()
        y = at["y"].fillna(at["node"].map(fallback)).to_numpy(float)
        preempts = pd.DataFrame({"job_id": at["job_id"], "node": at["node"], "time": at["time"], "y": y})
        preempts = preempts.drop_duplicates(["job_id", "node", "time", "y"], ignore_index=True)
        panels.append(GanttPanel(policy, bars.head(per_panel), preempts, layout, total))
    return GanttView(tuple(panels), window, focus or window, selected, truncated)


def step_preemption(
    preempts: pd.DataFrame, current: Mapping[str, Any] | None, step: int, window_h: tuple[float, float]
) -> int | None:
    """Index in ``preempts`` of the next (step +1) or previous (-1) preemption.

    From a chosen preemption, its neighbour in the list; with none chosen, the first one from
    the window's start (next) or the last one before its end (previous). None when there is
    no such preemption.
    """
    n = len(preempts)
    if n == 0:
        return None
    times = preempts["time"].to_numpy(float)
    here = None
    if current is not None:
        match = preempts[
            (preempts["time"] == current["time"])
            & (preempts["job_id"] == current["job_id"])
            & (preempts["node"] == current["node"])
        ]
        here = int(match.index[0]) if len(match) else None
    if here is None:
        if step > 0:
            i = int(np.searchsorted(times, window_h[0] * HOUR, side="left"))
            return i if i < n else None
        i = int(np.searchsorted(times, window_h[1] * HOUR, side="right")) - 1
        return i if i >= 0 else None
    i = here + step
    return i if 0 <= i < n else None


def centred_window(time: float, width_h: float, span_h: float) -> tuple[float, float]:
    """A window of ``width_h`` whole hours around ``time`` (seconds), inside [0, span]."""
    width = min(float(width_h), span_h)
    lo = math.floor(time / HOUR - width / 2)
    lo = float(min(max(lo, 0), max(span_h - width, 0)))
    return lo, lo + width


def preemption_events(events: pd.DataFrame, chosen: Mapping[str, Any]) -> pd.DataFrame:
    """What happened around one preemption: every event at its instant and the victim's own
    events, in order, with a column saying why each row is shown."""
    same_time = events["time"] == chosen["time"]
    victim = events["job_id"] == chosen["job_id"]
    out = events[same_time | victim].copy()
    out.insert(0, "why", np.where(out["job_id"] == chosen["job_id"], "the victim", "same instant"))
    return out.reset_index(drop=True)


def format_seconds(t: float) -> str:
    """``t`` (seconds from the start) as ``day d hh:mm:ss``, as the Gantt's axis reads it."""
    days, rest = divmod(float(t), 86400.0)
    hours, rest = divmod(rest, 3600.0)
    minutes, seconds = divmod(rest, 60.0)
    sec = f"{seconds:06.3f}".rstrip("0").rstrip(".") if seconds % 1 else f"{int(seconds):02d}"
    return f"day {int(days) + 1} {int(hours):02d}:{int(minutes):02d}:{sec.zfill(2)}"


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


def seed_note(seeds: Sequence[int]) -> str:
    """Names the seed a single-run chart shows when the scenario has several."""
    if len(seeds) <= 1:
        return ""
    return f"Seed {seeds[0]} shown (the first of seeds {seeds[0]}..{seeds[-1]})."


# --- the decision view: one preemption's decision record in words -------------------------------


def decision_for(records: Sequence[Mapping[str, Any]], chosen: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The decision record that signalled the chosen preemption (its time, its victim)."""
    job = str(chosen["job_id"])
    return next((r for r in records if r["time"] == chosen["time"] and job in r["victims"]), None)


def decision_of_te_job(records: Sequence[Mapping[str, Any]], te_job: str) -> Mapping[str, Any] | None:
    """A TE job's first decision that took victims in a run, else its first decision, else None."""
    mine = [r for r in records if r["te_job"] == te_job]
    return next((r for r in mine if r["victims"]), mine[0] if mine else None)


def _plural(n: int, word: str) -> str:
    return f"{n:g} {word}" + ("" if n == 1 else "s")


def _jobs(ids: Sequence[str]) -> str:
    return ("BE job " if len(ids) == 1 else "BE jobs ") + ", ".join(ids)


def _why(record: Mapping[str, Any]) -> str:
    """Why the chosen node won: the first entry of the policy's key where it beat the runner-up."""
    cands = record["candidates"]
    if len(cands) < 2:
        return "the only node where preempting made room"
    best, other = cands[0], cands[1]
    for name, better in record["key"]:
        a, b = best[name], other[name]
        if a != b:
            if better == "drawn":
                return f"a random draw ({a:g} against {b:g} for node {other['node']})"
            side = "lower" if better == "min" else "higher"
            return f"its {name.replace('_', ' ')} is {side}: {a:g} against {b:g} for node {other['node']}"
    return f"a tie on every value with node {other['node']}, broken by node order"


def decision_words(
    record: Mapping[str, Any],
    te_gpu: float,
    lost: float,
    other: str,
    other_record: Mapping[str, Any] | None,
) -> list[str]:
    """The decision in sentences: what the TE job needed, what was taken and why, what ``other``
    took for the same TE job in its own run (``other_record``: its record, None if it never asked)."""
    te, policy = record["te_job"], record["policy"]
    lines = [
        f"TE job {te} needed {_plural(te_gpu, 'GPU')} and fitted on no node at {format_seconds(record['time'])}.",
        f"{policy} took node {record['node']}: {_plural(len(record['victims']), 'victim')} "
        f"({_jobs(record['victims'])}), {fmt.duration(lost)} of work lost; chosen because {_why(record)}.",
    ]
    if other_record is None:
        lines.append(f"{other}, run on the same jobs, never had to preempt for TE job {te}: it found room in time.")
    elif other_record["victims"]:
        when = (
            "at the same instant"
            if other_record["time"] == record["time"]
            else f"at {format_seconds(other_record['time'])} (the two runs had diverged)"
        )
        lines.append(
            f"{other} would have taken {_jobs(other_record['victims'])} on node {other_record['node']}: "
            f"from {other}'s own run on the same jobs, where TE job {te} asked for room {when}."
        )
    else:
        lines.append(f"{other}, run on the same jobs, took no victim for TE job {te}: {other_record['reason']}.")
    return lines


def candidate_table(record: Mapping[str, Any]) -> pd.DataFrame:
    """The nodes the policy weighed, best first: node, victims and the values of its ordering key."""
    names = [name for name, _ in record["key"]]
    rows = [
        {"node": c["node"], "would take": ", ".join(c["job_id"]), **{n: c[n] for n in names}, "chosen": c["chosen"]}
        for c in record["candidates"]
    ]
    return pd.DataFrame(rows, columns=["node", "would take", *names, "chosen"])
