"""The Queues tab's figures (thin Plotly drawing): each queue's GPUs against its quota over time, and
the ledger as a timeline of who gained and who paid. Frames in (:mod:`dashboard.explore.queue_views`,
:func:`simcore.analysis.queue_metrics.usage_over_time`), figures out; the look is the shared one.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from dashboard.explore.queue_views import ledger_words, queue_names
from dashboard.shared.chart_style import finish_layout
from dashboard.shared.plain import chart_text
from dashboard.shared.views import HOUR
from simcore.core import fmt

USED_COLOR = "#2E86AB"
QUOTA_COLOR = "#E4572E"
LIMIT_COLOR = "#7F7F7F"
GAINED_COLOR = "#2CA02C"
PAID_COLOR = "#D62728"
PANEL_HEIGHT = 150  # px per queue panel


def _title(name: str, quota: float) -> str:
    return chart_text(f"{name}: quota {'unlimited' if math.isinf(quota) else fmt.number(quota) + ' GPUs'}")


def usage_figure(usage: pd.DataFrame, limits: dict[str, float] | None = None) -> go.Figure:
    """One panel per queue (file order): the GPUs its jobs hold (U, a step line: held from each instant
    to the next), its quota as a dashed line and, when finite, quota + borrow limit (``limits``: queue ->
    borrow limit in GPUs) as a dotted one. Time in hours on a shared axis."""
    names = queue_names(usage)
    end = float(usage["time"].max()) / HOUR if len(usage) else 0.0
    first = {n: float(usage.loc[usage["queue"] == n, "quota"].iloc[0]) for n in names}
    fig = make_subplots(
        rows=len(names),
        cols=1,
        shared_xaxes=True,
        vertical_spacing=min(0.08, 0.3 / max(len(names), 1)),
        subplot_titles=[_title(n, first[n]) for n in names],
    )
    for row, name in enumerate(names, start=1):
        part = usage[usage["queue"] == name]
        hours = part["time"].to_numpy(dtype=float) / HOUR
        label = chart_text(name)
        fig.add_trace(
            go.Scatter(
                x=hours,
                y=part["used"],
                mode="lines",
                line={"color": USED_COLOR, "shape": "hv", "width": 1.5},
                fill="tozeroy",
                name="GPUs held",
                legendgroup="used",
                showlegend=row == 1,
                hovertemplate=f"{label}<br>%{{x:.2f}} h<br>%{{y:.4g}} GPUs held<extra></extra>",
            ),
            row=row,
            col=1,
        )
        quota = first[name]
        span = [0.0, max(end, float(hours[-1]) if len(hours) else 0.0)]
        borrow = (limits or {}).get(name, math.inf)
        for level, legend, color, dash, width in (
            (quota, "quota", QUOTA_COLOR, "dash", 1.5),
            (quota + borrow, "quota + borrow limit", LIMIT_COLOR, "dot", 1.0),
        ):
            if math.isfinite(level):  # an unlimited quota or borrow limit draws no line
                fig.add_trace(
                    go.Scatter(
                        x=span,
                        y=[level, level],
                        mode="lines",
                        line={"color": color, "dash": dash, "width": width},
                        name=legend,
                        legendgroup=legend,
                        showlegend=row == 1,
                        hovertemplate=f"{label}: {legend} %{{y:.4g}} GPUs<extra></extra>",
                    ),
                    row=row,
                    col=1,
                )
        fig.update_yaxes(title_text="GPUs", row=row, col=1)
    fig.update_xaxes(title_text="time (h)", row=len(names), col=1)
    return finish_layout(fig, 100 + PANEL_HEIGHT * len(names))


def ledger_figure(rows: Sequence[dict[str, Any]], queues: Sequence[str]) -> go.Figure:
    """The ledger as a timeline: per decision, a green triangle on the queue that gained (its
    preemptor's), a red cross on each queue that paid, joined by a line; one row per queue (file
    order), time in hours; the hover says it in words."""
    gained_x, gained_y, gained_text = [], [], []
    paid_x, paid_y, paid_text = [], [], []
    link_x: list[float | None] = []
    link_y: list[str | None] = []
    for row in rows:
        t = row["time"] / HOUR
        words = chart_text(ledger_words(row))
        gained_x.append(t)
        gained_y.append(chart_text(row["queue"]))
        gained_text.append(words)
        for q in dict.fromkeys(row["victim_queues"]):
            paid_x.append(t)
            paid_y.append(chart_text(q))
            paid_text.append(words)
            link_x += [t, t, None]
            link_y += [chart_text(row["queue"]), chart_text(q), None]
    order = [chart_text(q) for q in queues]
    fig = go.Figure()
    fig.add_trace(
        go.Scatter(
            x=link_x,
            y=link_y,
            mode="lines",
            line={"color": LIMIT_COLOR, "width": 1},
            hoverinfo="skip",
            showlegend=False,
        )
    )
    for name, xs, ys, texts, color, symbol in (
        ("gained (preemptor's queue)", gained_x, gained_y, gained_text, GAINED_COLOR, "triangle-up"),
        ("paid (victims' queues)", paid_x, paid_y, paid_text, PAID_COLOR, "x"),
    ):
        fig.add_trace(
            go.Scatter(
                x=xs,
                y=ys,
                mode="markers",
                marker={"color": color, "symbol": symbol, "size": 10},
                name=name,
                text=texts,
                hovertemplate="%{text}<extra></extra>",
            )
        )
    fig.update_yaxes(type="category", categoryorder="array", categoryarray=order[::-1], title_text="queue")
    fig.update_xaxes(title_text="time (h)", range=_time_range(gained_x))
    return finish_layout(fig, 160 + 40 * len(queues))


def _time_range(hours: Sequence[float]) -> list[float] | None:
    if not hours:
        return None
    lo, hi = float(np.min(hours)), float(np.max(hours))
    pad = max((hi - lo) * 0.03, 0.5)
    return [lo - pad, hi + pad]
