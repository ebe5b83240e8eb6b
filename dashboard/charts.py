"""Pure Plotly figures: tidy DataFrames (built by :mod:`dashboard.views`) in, figures out.

Every figure uses the same colour per policy and per class, so a reader can move between
charts without re-reading legends.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from dashboard.views import CLASSES, PERCENTILES, GanttView, pareto_mask

TEMPLATE = "plotly_white"
CLASS_COLORS = {"TE": "#E4572E", "BE": "#2E86AB"}
# Fixed colours for the registered policies; others take the spare ones in order of appearance.
POLICY_COLORS = {
    "fifo": "#7F7F7F",
    "priority": "#17BECF",
    "k8s": "#9467BD",
    "lrtp": "#8C564B",
    "random": "#E377C2",
    "fitgpp": "#2CA02C",
}
SPARE_COLORS = ("#1F77B4", "#FF7F0E", "#D62728", "#BCBD22", "#393B79", "#637939")
STAT_COLORS = {"p50": "#A6BDDB", "p95": "#3690C0", "p99": "#034E7B"}  # light to dark: further into the tail
KIND_STYLE = {  # Gantt segment kinds: (opacity, pattern) on top of the class colour
    "run": (0.9, ""),
    "restore": (0.55, "."),
    "grace": (0.55, "x"),
}


def policy_colors(policies: Sequence[str]) -> dict[str, str]:
    spare = iter(SPARE_COLORS * (1 + len(policies) // len(SPARE_COLORS)))
    return {p: POLICY_COLORS.get(p) or next(spare) for p in policies}


def _layout(fig: go.Figure, height: int, **kwargs: object) -> go.Figure:
    fig.update_layout(
        template=TEMPLATE,
        height=height,
        margin={"l": 10, "r": 10, "t": 80, "b": 10},
        legend={"orientation": "h", "yanchor": "bottom", "y": 1.1, "x": 0},
        hoverlabel={"namelength": -1},
        **kwargs,
    )
    return fig


def cdf_figure(cdf: pd.DataFrame) -> go.Figure:
    """Slowdown CDF: one panel per class, one line per policy, log x."""
    fig = make_subplots(rows=1, cols=2, subplot_titles=[f"{c} jobs" for c in CLASSES], horizontal_spacing=0.08)
    colors = policy_colors(list(dict.fromkeys(cdf["policy"])))
    for col, cls in enumerate(CLASSES, start=1):
        part = cdf[cdf["job_class"] == cls]
        for policy, line in part.groupby("policy", sort=False):
            fig.add_trace(
                go.Scatter(
                    x=line["slowdown"],
                    y=line["fraction"],
                    mode="lines",
                    line={"color": colors[policy], "shape": "hv", "width": 2},
                    name=policy,
                    legendgroup=policy,
                    showlegend=col == 1,
                    hovertemplate=f"{policy} {cls}<br>slowdown %{{x:.3g}}<br>fraction %{{y:.1%}}<extra></extra>",
                ),
                row=1,
                col=col,
            )
        fig.update_xaxes(type="log", title_text="slowdown (JCT / duration, log)", row=1, col=col)
    fig.update_yaxes(title_text="fraction of jobs", range=[0, 1.02], tickformat=".0%", row=1, col=1)
    fig.update_yaxes(range=[0, 1.02], tickformat=".0%", row=1, col=2)
    return _layout(fig, 360)


def percentile_figure(pct: pd.DataFrame) -> go.Figure:
    """p50/p95/p99 slowdown bars: one panel per class, grouped by policy, log y."""
    fig = make_subplots(rows=1, cols=2, subplot_titles=[f"{c} jobs" for c in CLASSES], horizontal_spacing=0.08)
    for col, cls in enumerate(CLASSES, start=1):
        part = pct[pct["job_class"] == cls]
        for stat in PERCENTILES:
            bars = part[part["stat"] == stat]
            fig.add_trace(
                go.Bar(
                    x=bars["policy"],
                    y=bars["value"],
                    name=stat,
                    legendgroup=stat,
                    showlegend=col == 1,
                    marker={"color": STAT_COLORS[stat]},
                    text=[_short(v) for v in bars["value"]],
                    textposition="outside",
                    hovertemplate=f"%{{x}} {cls} {stat}: %{{y:.4g}}<extra></extra>",
                ),
                row=1,
                col=col,
            )
        fig.update_yaxes(type="log", row=1, col=col)
    fig.update_yaxes(title_text="slowdown (log)", row=1, col=1)
    return _layout(fig, 360, barmode="group", uniformtext={"minsize": 8, "mode": "hide"})


def gantt_figure(view: GanttView) -> go.Figure:
    """One lane per node; bars coloured by class, restore and grace segments hatched, preemption
    signals as black crosses; the hover names the job."""
    fig = go.Figure()
    seg = view.segments
    for cls in CLASSES:
        for kind, (opacity, pattern) in KIND_STYLE.items():
            part = seg[(seg["job_class"] == cls) & (seg["kind"] == kind)]
            if part.empty:
                continue
            fig.add_trace(
                go.Bar(
                    orientation="h",
                    y=part["node"],
                    base=part["start_h"],
                    x=part["end_h"] - part["start_h"],
                    name=f"{cls} {kind}",
                    marker={
                        "color": CLASS_COLORS[cls],
                        "opacity": opacity,
                        "pattern": {"shape": pattern, "fgcolor": "#222"} if pattern else {},
                        "line": {"width": 0.5, "color": "white"},
                    },
                    customdata=np.stack([part["job_id"], part["start_h"], part["end_h"]], axis=-1),
                    hovertemplate=(
                        f"job %{{customdata[0]}} ({cls}, {kind})<br>node %{{y}}"
                        "<br>%{customdata[1]:.2f} h to %{customdata[2]:.2f} h<extra></extra>"
                    ),
                )
            )
    if not view.preempts.empty:
        fig.add_trace(
            go.Scatter(
                x=view.preempts["time_h"],
                y=view.preempts["node"],
                mode="markers",
                name="preemption",
                marker={"symbol": "x-thin", "size": 11, "line": {"width": 2, "color": "#111"}, "color": "#111"},
                customdata=view.preempts["job_id"],
                hovertemplate="preempt job %{customdata}<br>node %{y}<br>%{x:.2f} h<extra></extra>",
            )
        )
    fig.update_xaxes(title_text="time (h)", range=list(view.window))
    fig.update_yaxes(
        categoryorder="array", categoryarray=list(reversed(view.nodes)), type="category", title_text="node"
    )
    lanes = max(len(view.nodes), 1)
    return _layout(fig, min(120 + 34 * lanes, 900), barmode="overlay", bargap=0.25)


def timeline_figure(timeline: pd.DataFrame) -> go.Figure:
    """GPU utilisation and pending TE/BE jobs over time, one line per policy."""
    series = ("GPU utilisation", "pending TE", "pending BE")
    fig = make_subplots(rows=3, cols=1, shared_xaxes=True, vertical_spacing=0.06, subplot_titles=series)
    colors = policy_colors(list(dict.fromkeys(timeline["policy"])))
    for row, name in enumerate(series, start=1):
        part = timeline[timeline["series"] == name]
        for policy, line in part.groupby("policy", sort=False):
            fig.add_trace(
                go.Scatter(
                    x=line["time_h"],
                    y=line["value"],
                    mode="lines",
                    line={"color": colors[policy], "width": 1.6},
                    name=policy,
                    legendgroup=policy,
                    showlegend=row == 1,
                    hovertemplate=f"{policy}<br>%{{x:.1f}} h: %{{y:.3g}}<extra>{name}</extra>",
                ),
                row=row,
                col=1,
            )
    fig.update_yaxes(tickformat=".0%", range=[0, 1.05], row=1, col=1)
    fig.update_yaxes(title_text="jobs", row=2, col=1)
    fig.update_yaxes(title_text="jobs", row=3, col=1)
    fig.update_xaxes(title_text="time (h)", row=3, col=1)
    return _layout(fig, 560)


def workload_figure(jobs: pd.DataFrame) -> go.Figure:
    """Histograms of the workload: GPUs per job and duration (log), per class."""
    fig = make_subplots(rows=1, cols=2, subplot_titles=["GPUs per job", "duration (h, log)"], horizontal_spacing=0.08)
    for cls in CLASSES:
        part = jobs[jobs["job_class"] == cls]
        if part.empty:
            continue
        fig.add_trace(
            go.Histogram(x=part["gpu"], name=cls, legendgroup=cls, marker_color=CLASS_COLORS[cls], opacity=0.75),
            row=1,
            col=1,
        )
        fig.add_trace(
            go.Histogram(
                x=np.log10(part["duration_h"].clip(lower=1e-6)),
                name=cls,
                legendgroup=cls,
                showlegend=False,
                marker_color=CLASS_COLORS[cls],
                opacity=0.75,
                nbinsx=40,
                hovertemplate="10^%{x} h: %{y} jobs<extra></extra>",
            ),
            row=1,
            col=2,
        )
    ticks = [-3, -2, -1, 0, 1, 2]
    fig.update_xaxes(tickvals=ticks, ticktext=[f"{10.0**t:g}" for t in ticks], row=1, col=2)
    fig.update_xaxes(title_text="GPUs", row=1, col=1)
    fig.update_yaxes(title_text="jobs", row=1, col=1)
    return _layout(fig, 280, barmode="overlay")


def sweep_figure(sweep: pd.DataFrame, knob: str, metrics: Sequence[tuple[str, str]]) -> go.Figure:
    """Metrics against a knob: one panel per metric, one line per policy, whiskers = spread.

    ``sweep`` columns: value (the knob), policy, metric, mean, lo, hi.
    """
    fig = make_subplots(rows=1, cols=len(metrics), subplot_titles=[label for _, label in metrics])
    colors = policy_colors(list(dict.fromkeys(sweep["policy"])))
    for col, (metric, _label) in enumerate(metrics, start=1):
        part = sweep[sweep["metric"] == metric]
        for policy, line in part.groupby("policy", sort=False):
            line = line.sort_values("value")
            fig.add_trace(
                go.Scatter(
                    x=line["value"],
                    y=line["mean"],
                    mode="lines+markers",
                    line={"color": colors[policy]},
                    error_y={
                        "type": "data",
                        "symmetric": False,
                        "array": line["hi"] - line["mean"],
                        "arrayminus": line["mean"] - line["lo"],
                        "thickness": 1,
                    },
                    name=policy,
                    legendgroup=policy,
                    showlegend=col == 1,
                    hovertemplate=f"{policy}<br>{knob} = %{{x}}<br>%{{y:.4g}}<extra></extra>",
                ),
                row=1,
                col=col,
            )
        fig.update_xaxes(title_text=knob, row=1, col=col)
    return _layout(fig, 360)


def pareto_figure(points: pd.DataFrame, knob: str) -> go.Figure:
    """TE p95 against BE p95 slowdown, one point per (policy, knob value); the front is lined.

    ``points`` columns: policy, value (the knob), te_p95, be_p95 (means over seeds).
    """
    fig = go.Figure()
    colors = policy_colors(list(dict.fromkeys(points["policy"])))
    for policy, part in points.groupby("policy", sort=False):
        fig.add_trace(
            go.Scatter(
                x=part["te_p95"],
                y=part["be_p95"],
                mode="markers+text",
                text=[f"{v:g}" for v in part["value"]],
                textposition="top center",
                marker={"color": colors[policy], "size": 10},
                name=policy,
                hovertemplate=f"{policy}, {knob} = %{{text}}<br>TE p95 %{{x:.3g}}<br>BE p95 %{{y:.3g}}<extra></extra>",
            )
        )
    front = points[pareto_mask(points["te_p95"], points["be_p95"])].sort_values("te_p95")
    if len(front) > 1:
        fig.add_trace(
            go.Scatter(
                x=front["te_p95"],
                y=front["be_p95"],
                mode="lines",
                line={"color": "#444", "dash": "dot", "width": 1},
                name="Pareto front",
                hoverinfo="skip",
            )
        )
    fig.update_xaxes(type="log", title_text="TE p95 slowdown (log, lower is better)")
    fig.update_yaxes(title_text="BE p95 slowdown (lower is better)")
    return _layout(fig, 420)


def _short(value: float) -> str:
    if value is None or not np.isfinite(value):
        return ""
    return f"{value:.3g}"
