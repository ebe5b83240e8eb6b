"""The checkpoint advisor's chart (thin Plotly drawing): the outcome against the checkpoint interval,
with both optima marked, from a :class:`simcore.experiments.advisor.Advice`.

Two panels on a log interval axis: the BE slowdown (p50, the advisor's criterion, and p95) and the
GPU-hours of work lost. Each optimum is a vertical line across both panels, drawn as a trace (so its
name and its hover are in the figure's data): the simulated best, and Young/Daly's sqrt(2 x cost x M)
(none when it is 0 or infinite: no BE job interrupted, or free checkpoints).
"""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from dashboard.shared.chart_style import finish_layout
from simcore.core import fmt
from simcore.experiments.advisor import Advice

BEST_NAME, YOUNG_DALY_NAME = "simulated best", "Young/Daly"
MARKS = {BEST_NAME: ("#2CA02C", "solid"), YOUNG_DALY_NAME: ("#D62728", "dash")}
PANELS = ("BE slowdown", "work lost (GPU-h)")


def advice_figure(advice: Advice, height: int = 380) -> go.Figure:
    """The outcome against the interval, the simulated best and Young/Daly marked."""
    t = advice.table
    x = t["interval"].to_numpy(float)
    hover = [fmt.duration(v) for v in x]
    fig = make_subplots(rows=1, cols=2, subplot_titles=PANELS, horizontal_spacing=0.1)
    series = (
        (1, "BE p50 slowdown", t["BE_slowdown_p50"], "solid", "#1F77B4"),
        (1, "BE p95 slowdown", t["BE_slowdown_p95"], "dot", "#1F77B4"),
        (2, "work lost", t["gpu_hours_lost"], "solid", "#7F7F7F"),
    )
    for col, name, y, dash, color in series:
        fig.add_trace(
            go.Scatter(
                x=x,
                y=y.to_numpy(float),
                mode="lines+markers",
                name=name,
                line={"dash": dash, "color": color},
                customdata=hover,
                hovertemplate=f"every %{{customdata}}: {name} %{{y:.3g}}<extra></extra>",
            ),
            row=1,
            col=col,
        )
    marks = {BEST_NAME: advice.best_interval}
    if 0 < advice.young_daly < math.inf:
        marks[YOUNG_DALY_NAME] = advice.young_daly
    for name, at in marks.items():
        color, dash = MARKS[name]
        label = f"{name}: {fmt.duration(at)}"
        for col, column in ((1, ("BE_slowdown_p50", "BE_slowdown_p95")), (2, ("gpu_hours_lost",))):
            values = t[list(column)].to_numpy(float)
            values = values[np.isfinite(values)]
            lo, hi = (float(values.min()), float(values.max())) if len(values) else (0.0, 1.0)
            fig.add_trace(
                go.Scatter(
                    x=[at, at],
                    y=[lo, hi],
                    mode="lines",
                    name=label,
                    legendgroup=name,
                    showlegend=col == 1,
                    line={"color": color, "dash": dash, "width": 2},
                    hovertemplate=f"{label}<extra></extra>",
                ),
                row=1,
                col=col,
            )
    fig.update_xaxes(type="log", title_text="checkpoint interval (s, log)")
    fig.update_yaxes(title_text="slowdown", row=1, col=1)
    fig.update_yaxes(title_text="GPU-hours", rangemode="tozero", row=1, col=2)
    return finish_layout(fig, height)
