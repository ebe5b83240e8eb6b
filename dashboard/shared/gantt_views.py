"""Pure builders of what the Gantt chart draws (no Streamlit, no Plotly): lanes, bars,
preemption signals, the default and stepped time windows, the work each interruption lost, and
when a node was down (DESIGN rule 12: across all its lanes) with the drain and failure marks.

Every node is drawn as its GPU lanes (:mod:`simcore.analysis.gantt` assigns a job's pieces to lanes);
the page holds the chosen policy, nodes and window (:mod:`dashboard.shared.state`) and the figure is
drawn by :mod:`dashboard.shared.gantt_charts`. Windows are in hours, the run's times in seconds.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from dashboard.shared import gantt_queues, views
from dashboard.shared.down_views import DOWN_BAR_COLUMNS
from dashboard.shared.gantt_queues import ByQueue
from dashboard.shared.views import HOUR
from simcore.analysis import gantt
from simcore.core.model import ClusterSpec

GANTT_EPOCH = pd.Timestamp("2000-01-01")  # the Gantt's date axis reads elapsed time: day 1 00:00 = t 0
GANTT_GAP = 0.6  # blank rows between two nodes' lanes
#: the latest time (s) the Gantt draws: Plotly's date axis ends with the year 9999, 8,000 years
#: after GANTT_EPOCH (a workload's times may reach 2^53 s, about 285 million years)
GANTT_MAX_SECONDS = (pd.Timestamp("9999-12-31") - GANTT_EPOCH).total_seconds()


def beyond_axis(last: float) -> str | None:
    """Why a run whose last piece ends at ``last`` seconds is not drawn on a Gantt, or None when it can be."""
    if last <= GANTT_MAX_SECONDS:
        return None
    years = GANTT_MAX_SECONDS / (365.2425 * 24 * HOUR)
    return (
        f"This run lasts {last / (365.2425 * 24 * HOUR):,.0f} years: longer than the Gantt's time axis, which "
        f"shows {years:,.0f} years. The other tabs show it."
    )


def default_gantt_nodes(cluster: ClusterSpec, max_lanes: int) -> list[str]:
    """The first nodes whose GPU lanes (a CPU-only node counts as one) add up to ``max_lanes``;
    at least one."""
    out: list[str] = []
    used = 0
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
    GPUs, see :mod:`simcore.analysis.gantt`) and a ``cpu`` lane when it ran CPU-only jobs; the layout
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
    bars: pd.DataFrame  # job_id, job_class, kind, node, lanes, start, end, y, height (seconds; y in rows), why
    preempts: pd.DataFrame  # job_id, node, time, y
    layout: pd.DataFrame  # node, lane, y
    total: int  # bars in the window before the cap
    lost: pd.DataFrame  # LOST_BAR_COLUMNS: the lost part of each interrupted run bar (none unless asked for)
    #: DOWN_BAR_COLUMNS: a node's down time across all its lanes (none unless given)
    down: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=list(DOWN_BAR_COLUMNS)))
    #: job_id, node, time, y, event: the drain signals and the failures (``drain``, ``fail`` rows) in the window
    marks: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=["job_id", "node", "time", "y", "event"]))


@dataclass(frozen=True)
class GanttView:
    """What the Gantt chart draws: one panel per policy on a shared time window (seconds)."""

    panels: tuple[GanttPanel, ...]
    window: tuple[float, float]  # seconds: the data drawn
    focus: tuple[float, float]  # seconds: the initial zoom (the window, or around a preemption)
    selected: dict[str, Any] | None  # the chosen preemption: policy, time, job_id, node
    truncated: bool
    by_queue: ByQueue | None = None  # bars coloured and/or lanes grouped by queue (a run with queues)


def gantt_bars(segments: pd.DataFrame, layout: pd.DataFrame, window: tuple[float, float]) -> pd.DataFrame:
    """The bars of the segments inside ``window`` (seconds) on the layout's nodes.

    A job's whole-GPU pieces on adjacent lanes merge into one tall bar (an 8-GPU job is one
    bar, not eight); a fractional piece is a thinner bar at its place in the lane; CPU-only
    jobs share their node's ``cpu`` lane (drawn over each other).
    """
    t0, t1 = window
    place = [c for c in ("queue", "node", "lane") if c in layout.columns]  # a grouped layout's rows are per queue
    ys = layout.set_index(place)["y"]
    seg = segments[(segments["end"] > t0) & (segments["start"] < t1) & segments["node"].isin(set(layout["node"]))]
    seg = seg.assign(y=ys.reindex(pd.MultiIndex.from_frame(seg[place])).to_numpy(float))
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
        workers=("workers", "first"),
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
            "workers": merged["workers"],
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
            "workers": part["workers"],
        }
    )
    bars = pd.concat([bars_whole, bars_part], ignore_index=True)
    # drawn inside the window, but the hover tells the segment's real start and end
    bars["seg_start"], bars["seg_end"] = bars["start"], bars["end"]
    bars["start"] = bars["start"].clip(lower=t0)
    bars["end"] = bars["end"].clip(upper=t1)
    return bars.sort_values(["start", "y"], kind="stable", ignore_index=True)


LOST_BAR_COLUMNS = ("job_id", "job_class", "node", "lanes", "start", "end", "y", "height", "lost", "cause")


def lost_bars(bars: pd.DataFrame, lost: pd.DataFrame) -> pd.DataFrame:
    """The part of each interrupted run bar whose work the interruption discarded: the last ``lost``
    seconds before it (``lost``: one row per interruption, job_id, time, lost seconds, cause, as
    :func:`simcore.analysis.interruptions.lost_work` gives the run's record), drawn inside the bar's window.
    A bar interrupted in a checkpoint's pause ends in a ``checkpoint`` piece and gets none."""
    runs = bars[bars["kind"] == "run"]
    hit = runs.merge(lost[lost["lost"] > 0], left_on=["job_id", "seg_end"], right_on=["job_id", "time"])
    start = np.maximum(hit["time"] - hit["lost"], hit["start"])  # clipped to the window, as the bar is
    hit = hit.assign(start=start)[start < hit["end"]]
    return hit[list(LOST_BAR_COLUMNS)].reset_index(drop=True)


def _on_bars(
    events: pd.DataFrame, bars: pd.DataFrame, layout: pd.DataFrame, kinds_ending: Sequence[str]
) -> pd.DataFrame:
    """``events`` (time, job_id, node) placed on the job's bar that ends at that instant on that node (a
    bar of one of ``kinds_ending``), else at the node's first lane: job_id, node, time, y."""
    ends = bars[bars["kind"].isin(kinds_ending)][["job_id", "node", "end", "y", "height"]]
    at = events.merge(ends, left_on=["job_id", "node", "time"], right_on=["job_id", "node", "end"], how="left")
    fallback = layout.groupby("node")["y"].min()
    y = at["y"].fillna(at["node"].map(fallback)).to_numpy(float)
    out = pd.DataFrame({"job_id": at["job_id"], "node": at["node"], "time": at["time"], "y": y})
    return out.drop_duplicates(["job_id", "node", "time", "y"], ignore_index=True)


#: what ends where a signal falls: the run (or restore, or checkpoint) piece before the grace period
_SIGNALLED = ("run", "restore", "checkpoint")


def gang_note(workers: int) -> str:
    """What a bar's hover adds for a gang: its worker count (nothing for a single-worker job)."""
    return f" (gang of {workers} workers, on every node it holds)" if workers > 1 else ""


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
    why: Mapping[str, Mapping[str, str]] | None = None,
    lost: Mapping[str, pd.DataFrame] | None = None,
    down: Mapping[str, pd.DataFrame] | None = None,
    by_queue: ByQueue | None = None,
) -> GanttView:
    """The Gantt of ``runs`` (policy -> (segments, events)) on ``nodes`` in a window (hours);
    with ``lost`` (policy -> its run's lost work per interruption), the lost part of each interrupted
    bar too (:func:`lost_bars`); with ``down`` (policy -> its run's down stretches), each node's down
    time across its lanes (:func:`~dashboard.shared.down_views.down_bars`). Drain signals and failures are marked where their bar ends.
    With ``by_queue``, each bar carries its job's ``queue``, and with its ``group`` the lanes are grouped by
    queue (:func:`dashboard.shared.gantt_queues.grouped_layout`).

    ``why`` (policy -> job id -> its longest wait's reason, :func:`dashboard.shared.views.why_by_job`)
    fills each bar's ``why`` (empty for a job that never waited, or a policy not given).

    At most ``max_bars`` bars are drawn, shared equally by the panels: each keeps its
    earliest bars, so what is drawn is complete up to some time and the rest of the window
    is left empty (``truncated``; the page says so).
    """
    window = (window_h[0] * HOUR, window_h[1] * HOUR)
    per_panel = max(max_bars // max(len(runs), 1), 1)
    panels = []
    truncated = False
    for policy, (segments, events) in runs.items():
        if by_queue is not None:
            segments = gantt_queues.with_queues(segments, by_queue)
        if by_queue is not None and by_queue.group:
            layout = gantt_queues.grouped_layout(segments, nodes, by_queue.names, GANTT_GAP)
        else:
            layout = lane_layout(segments, cluster, nodes)
        bars = gantt_bars(segments, layout, window)
        if by_queue is not None:
            bars = gantt_queues.with_queues(bars, by_queue)
        reasons = (why or {}).get(policy, {})
        bars["why"] = [reasons.get(str(j), "") for j in bars["job_id"]]
        total = len(bars)
        truncated |= total > per_panel
        inside = (events["time"] >= window[0]) & (events["time"] <= window[1]) & events["node"].isin(set(nodes))
        # the signal sits on the victim's bar: its run (or restore) piece that ends at the signal
        preempts = _on_bars(preemption_list(events[inside]), bars, layout, _SIGNALLED)
        marks = []
        for event, ending in (("drain", _SIGNALLED), ("fail", (*_SIGNALLED, "grace"))):  # a job fails in grace too
            rows = events[inside & (events["event"] == event)][["time", "job_id", "node"]]
            marks.append(_on_bars(rows, bars, layout, ending).assign(event=event))
        shown = bars.head(per_panel)
        losses = lost_bars(shown, lost[policy]) if lost is not None else pd.DataFrame(columns=list(LOST_BAR_COLUMNS))
        downs = (
            gantt_queues.down_in_layout(down[policy], layout, window)
            if down is not None
            else pd.DataFrame(columns=list(DOWN_BAR_COLUMNS))
        )
        marked = pd.concat(marks, ignore_index=True)
        panels.append(GanttPanel(policy, shown, preempts, layout, total, losses, downs, marked))
    return GanttView(tuple(panels), window, focus or window, selected, truncated, by_queue)


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
    """The control's window (:func:`fit_window`) of ``width_h`` hours inside [0, span] around
    ``time`` (seconds): the time falls in its middle half, or as near as the run's ends allow."""
    width = min(float(width_h), span_h)
    lo = min(max(time / HOUR - width / 2, 0.0), span_h - width)
    return fit_window((lo, lo + width), span_h)


def preemption_events(events: pd.DataFrame, chosen: Mapping[str, Any]) -> pd.DataFrame:
    """What happened around one preemption: every event at its instant and the victim's own
    events, in order, with a column saying why each row is shown; the time as a day and a clock
    (:func:`dashboard.shared.views.instants`)."""
    same_time = events["time"] == chosen["time"]
    victim = events["job_id"] == chosen["job_id"]
    out = events[same_time | victim].copy()
    out.insert(0, "why", np.where(out["job_id"] == chosen["job_id"], "the victim", "same instant"))
    name, when = views.instants("time", out.pop("time").to_numpy(float))
    out.insert(1, name, when.to_numpy())
    return out.reset_index(drop=True)


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


# the window lengths offered (hours: label), each shown only when shorter than the run; the whole run is last
WINDOW_LENGTHS = {1.0: "1 h", 4.0: "4 h", 8.0: "8 h", 24.0: "1 d", 168.0: "1 week"}
WINDOW_STEPS = 4  # start positions per window length: a step moves the window by a quarter of it
#: the most start positions one length offers: a length whose quarter steps would be more (a run of
#: years, 1 h windows) is not offered, so the slider (and the page's memory) stays small whatever the run
MAX_STARTS = 10_000


def window_lengths(span: float) -> list[float]:
    """The window lengths (hours) offered for a run of ``span`` hours: those shorter whose start
    positions are at most :data:`MAX_STARTS`, then the whole run."""
    return [h for h in WINDOW_LENGTHS if h < span and span / (h / WINDOW_STEPS) <= MAX_STARTS] + [span]


def window_starts(length: float, span: float) -> list[float]:
    """The window's possible starts (hours): every quarter of ``length`` up to ``span - length``,
    which is always the last, so that the run's end can be reached."""
    last, step = max(span - length, 0.0), length / WINDOW_STEPS
    starts = [k * step for k in range(math.ceil(last / step))]
    return [*starts, last]


def fit_window(window: Sequence[float], span: float) -> tuple[float, float]:
    """``window`` (hours, inside [0, span]) as the control can show it: the shortest offered length
    that holds it, from the last offered start not after its own."""
    lo, hi = float(window[0]), float(window[1])
    length = next(h for h in window_lengths(span) if h >= hi - lo or h == span)
    start = max(s for s in window_starts(length, span) if s <= lo or s == 0.0)
    return start, start + length
