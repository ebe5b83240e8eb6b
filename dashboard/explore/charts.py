"""Figures of one scenario's results (thin Plotly drawing): tidy frames from
:mod:`dashboard.shared.views` in, figures out. The sweep's figures are in :mod:`dashboard.sweep.sweep_charts`,
the Gantt and the GPU grid in :mod:`dashboard.shared.gantt_charts`; the shared look in
:mod:`dashboard.shared.chart_style`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from dashboard.explore.worth_views import point_labels
from dashboard.shared.chart_style import SLOWDOWN_FLOOR, finish_layout, log_axis, policy_styles
from dashboard.shared.plain import chart_text, chart_texts
from dashboard.shared.views import CLASSES, PERCENTILES
from simcore.analysis.bound import BOUND_LABEL
from simcore.core import fmt

CLASS_COLORS = {"TE": "#E4572E", "BE": "#2E86AB"}
STAT_COLORS = {"p50": "#A6BDDB", "p95": "#3690C0", "p99": "#034E7B"}  # light to dark: further into the tail
BOUND_COLOR = "#222222"
BOUND_NAME = f"{BOUND_LABEL} (bound)"  # a reference line, never a policy
CDF_X_TITLE = "slowdown (JCT / run time, log)"


def cdf_figure(cdf: pd.DataFrame, bound: pd.DataFrame | None = None) -> go.Figure:
    """Slowdown CDF: one panel per class, one line per policy, log x; the pooled bound's CDF
    (``bound``, the same columns) as a dashed reference line."""
    # one fraction axis for both panels: the right panel's labels sat against the left's last tick on a phone
    fig = make_subplots(
        rows=1, cols=2, subplot_titles=[f"{c} jobs" for c in CLASSES], horizontal_spacing=0.06, shared_yaxes=True
    )
    styles = policy_styles(list(dict.fromkeys(cdf["policy"])))
    for col, cls in enumerate(CLASSES, start=1):
        part = cdf[cdf["job_class"] == cls]
        for policy, line in part.groupby("policy", sort=False):
            style = styles[str(policy)]
            label = chart_text(str(policy))
            fig.add_trace(
                go.Scatter(
                    x=line["slowdown"],
                    y=line["fraction"],
                    mode="lines",
                    line={"color": style["color"], "dash": style["dash"], "shape": "hv", "width": 2},
                    name=label,
                    legendgroup=label,
                    showlegend=col == 1,
                    hovertemplate=f"{label} {cls}<br>slowdown %{{x:.3g}}<br>fraction %{{y:.1%}}<extra></extra>",
                ),
                row=1,
                col=col,
            )
        if bound is not None:
            line = bound[bound["job_class"] == cls]
            fig.add_trace(
                go.Scatter(
                    x=line["slowdown"],
                    y=line["fraction"],
                    mode="lines",
                    line={"color": BOUND_COLOR, "dash": "dash", "shape": "hv", "width": 1.5},
                    name=BOUND_NAME,
                    legendgroup=BOUND_NAME,
                    showlegend=col == 1,
                    hovertemplate=f"{BOUND_NAME} {cls}<br>slowdown %{{x:.3g}}<br>fraction %{{y:.1%}}<extra></extra>",
                ),
                row=1,
                col=col,
            )
        bounds = list(bound[bound["job_class"] == cls]["slowdown"]) if bound is not None else []  # in the axis too
        fig.update_xaxes(
            log_axis([SLOWDOWN_FLOOR, *part["slowdown"], *bounds], floor=SLOWDOWN_FLOOR),  # from 1: never waited
            row=1,
            col=col,
        )
    fig.update_yaxes(title_text="fraction of jobs", range=[0, 1.02], tickformat=".0%", row=1, col=1)
    # one title under both panels: a title under each overprinted its neighbour on a phone
    fig.add_annotation(
        text=CDF_X_TITLE, x=0.5, y=0, xref="paper", yref="paper", yanchor="top", yshift=-28, showarrow=False
    )
    return finish_layout(fig, 380, margin={"l": 10, "r": 10, "t": 80, "b": 52})


def percentile_figure(pct: pd.DataFrame, height: int = 360, bound: pd.DataFrame | None = None) -> go.Figure:
    """p50/p95/p99 slowdown bars: one panel per class, grouped by policy, log y.

    With several seeds a bar is the mean and its whisker runs from the lowest to the highest
    seed (never below a slowdown of 1). ``bound`` (the pooled bound's rows, the same columns)
    draws each of its percentiles as a dashed line across the policies."""
    fig = make_subplots(rows=1, cols=2, subplot_titles=[f"{c} jobs" for c in CLASSES], horizontal_spacing=0.08)
    for col, cls in enumerate(CLASSES, start=1):
        part = pct[pct["job_class"] == cls]
        for stat in PERCENTILES:
            bars = part[part["stat"] == stat]
            spread = "lo" in bars and (bars["n"] > 1).any()
            error = (
                {
                    "type": "data",
                    "symmetric": False,
                    "array": (bars["hi"] - bars["value"]).to_numpy(),
                    "arrayminus": (bars["value"] - bars["lo"]).to_numpy(),
                    "thickness": 1,
                    "color": "#333",
                }
                if spread
                else None
            )
            fig.add_trace(
                go.Bar(
                    x=chart_texts(bars["policy"]),
                    y=bars["value"],
                    name=stat,
                    legendgroup=stat,
                    showlegend=col == 1,
                    marker={"color": STAT_COLORS[stat]},
                    text=None if spread else [fmt.number(v) for v in bars["value"]],
                    textposition="outside",
                    error_y=error,
                    customdata=np.stack([bars["lo"], bars["hi"]], axis=-1) if spread else None,
                    hovertemplate=f"%{{x}} {cls} {stat}: %{{y:.4g}}"
                    + (" (seeds %{customdata[0]:.4g} to %{customdata[1]:.4g})" if spread else "")
                    + "<extra></extra>",
                ),
                row=1,
                col=col,
            )
            if bound is not None:
                level = bound[(bound["job_class"] == cls) & (bound["stat"] == stat)]["value"]
                fig.add_trace(
                    go.Scatter(
                        x=chart_texts(dict.fromkeys(part["policy"])),
                        y=[float(level.iloc[0]) if len(level) else np.nan] * part["policy"].nunique(),
                        mode="lines",
                        line={"color": STAT_COLORS[stat], "dash": "dash", "width": 1.5},
                        name=f"{BOUND_NAME} {stat}",
                        legendgroup=f"{BOUND_NAME} {stat}",
                        showlegend=col == 1,
                        hovertemplate=f"{BOUND_NAME} {cls} {stat}: %{{y:.4g}}<extra></extra>",
                    ),
                    row=1,
                    col=col,
                )
        tops = part["hi"] if "hi" in part else part["value"]
        levels = list(bound[bound["job_class"] == cls]["value"]) if bound is not None else []
        # bars grow from a slowdown of 1 (no wait), so their length reads as the slowdown
        bars_axis = log_axis([SLOWDOWN_FLOOR, *part["value"], *tops, *levels], floor=SLOWDOWN_FLOOR, headroom=0.15)
        fig.update_yaxes(bars_axis, row=1, col=col)
    fig.update_yaxes(title_text="slowdown (log)", row=1, col=1)
    return finish_layout(fig, height, barmode="group", uniformtext={"minsize": 8, "mode": "hide"})


def worth_figure(worth: pd.DataFrame) -> go.Figure:
    """Was it worth it? One marker per policy: the BE GPU-hours its preemptions cost (x) against
    the mean TE wait it saved against the baseline (y, minutes); policies on one point share a label
    (:func:`dashboard.explore.worth_views.point_labels`)."""
    fig = go.Figure()
    styles = policy_styles(list(worth["policy"]))
    shared = point_labels(worth)  # policies on one point share one label: two overprint
    for row in worth.to_dict("records"):
        style = styles[row["policy"]]
        label = chart_text(str(row["policy"]))
        fig.add_trace(
            go.Scatter(
                x=[row["be_gpu_hours"]],
                y=[row["te_wait_saved_s"] / 60.0],
                mode="markers+text",
                marker={"color": style["color"], "symbol": style["symbol"], "size": style["size"] + 2},
                text=[chart_text(shared[row["policy"]])],
                textposition="top center",
                name=label,
                hovertemplate=f"{label}<br>BE cost %{{x:.3g}} GPU-h<br>TE wait saved %{{y:.3g}} min"
                f"<br>excess GPUs {row['excess_gpus']:.3g}, wasted {row['wasted']:.3g}<extra></extra>",
            )
        )
    top = float(worth["be_gpu_hours"].max()) if len(worth) and worth["be_gpu_hours"].max() > 0 else 1.0
    # a margin on both sides, so a label over a point at either end is not cut by the frame
    # short titles: a phone's width holds them whole (the caption says what the cost adds up)
    fig.update_xaxes(title_text="BE GPU-hours its preemptions cost", range=[-0.08 * top, 1.12 * top])
    fig.update_yaxes(title_text="mean TE wait saved (min)")
    return finish_layout(fig, 360, showlegend=False)


def timeline_figure(timeline: pd.DataFrame) -> go.Figure:
    """GPU utilisation and pending TE/BE jobs over time, one line per policy."""
    series = ("GPU utilisation", "pending TE", "pending BE")
    fig = make_subplots(rows=3, cols=1, shared_xaxes=True, vertical_spacing=0.06, subplot_titles=series)
    styles = policy_styles(list(dict.fromkeys(timeline["policy"])))
    for row, name in enumerate(series, start=1):
        part = timeline[timeline["series"] == name]
        for policy, line in part.groupby("policy", sort=False):
            label = chart_text(policy)
            fig.add_trace(
                go.Scatter(
                    x=line["time_h"],
                    y=line["value"],
                    mode="lines",
                    line={"color": styles[str(policy)]["color"], "dash": styles[str(policy)]["dash"], "width": 1.6},
                    name=label,
                    legendgroup=label,
                    showlegend=row == 1,
                    hovertemplate=f"{label}<br>%{{x:.1f}} h: %{{y:.3g}}<extra>{name}</extra>",
                ),
                row=row,
                col=1,
            )
    fig.update_yaxes(tickformat=".0%", range=[0, 1.05], row=1, col=1)
    fig.update_yaxes(title_text="jobs", row=2, col=1)
    fig.update_yaxes(title_text="jobs", row=3, col=1)
    fig.update_xaxes(title_text="time (h)", row=3, col=1)
    return finish_layout(fig, 560)


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
    fig.update_xaxes(tickvals=ticks, ticktext=[fmt.setting(10.0**t) for t in ticks], row=1, col=2)
    fig.update_xaxes(title_text="GPUs", row=1, col=1)
    fig.update_yaxes(title_text="jobs", row=1, col=1)
    return finish_layout(fig, 280, barmode="overlay")
