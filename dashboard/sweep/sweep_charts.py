"""Figures of a sweep (thin Plotly drawing): the metrics against the knob and the TE/BE
trade-off, from the frames of :mod:`dashboard.sweep.sweeps`."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from dashboard.shared.chart_style import SLOWDOWN_FLOOR, finish_layout, log_axis, policy_styles
from dashboard.shared.plain import chart_text, chart_texts
from dashboard.sweep.sweeps import pareto_mask
from simcore.analysis.stats import BOOTSTRAP_NAME


def sweep_figure(
    sweep: pd.DataFrame, knob: str, metrics: Sequence[tuple[str, str]], log_y: bool = False, height: int = 360
) -> go.Figure:
    """Metrics against a knob: one panel per metric, one line per policy (its own colour, dash
    and marker), whiskers = the mean's interval over seeds (``BOOTSTRAP_NAME``).

    ``sweep`` columns: value (the knob), policy, metric, n, mean, lo, hi. ``log_y`` for
    slowdowns (the bootstrap interval stays inside the seeds' values, so it stays on the axis).
    """
    fig = make_subplots(rows=1, cols=len(metrics), subplot_titles=[chart_text(label) for _, label in metrics])
    knob = chart_text(knob)
    styles = policy_styles(list(dict.fromkeys(sweep["policy"])))
    for col, (metric, _label) in enumerate(metrics, start=1):
        part = sweep[sweep["metric"] == metric]
        for policy, line in part.groupby("policy", sort=False):
            line = line.sort_values("value")
            style = styles[str(policy)]
            label = chart_text(str(policy))
            fig.add_trace(
                go.Scatter(
                    x=line["value"] if pd.api.types.is_numeric_dtype(line["value"]) else chart_texts(line["value"]),
                    y=line["mean"],
                    mode="lines+markers",
                    line={"color": style["color"], "dash": style["dash"]},
                    marker={"symbol": style["symbol"], "size": style["size"]},
                    error_y={
                        "type": "data",
                        "symmetric": False,
                        "array": line["hi"] - line["mean"],
                        "arrayminus": line["mean"] - line["lo"],
                        "thickness": 1,
                    },
                    customdata=np.stack([line["lo"], line["hi"], line["n"]], axis=-1),
                    name=label,
                    legendgroup=label,
                    showlegend=col == 1,
                    hovertemplate=f"{label}<br>{knob} = %{{x}}<br>mean %{{y:.4g}}"
                    f"<br>{BOOTSTRAP_NAME} %{{customdata[0]:.4g}} to %{{customdata[1]:.4g}} (%{{customdata[2]}} seeds)<extra></extra>",
                ),
                row=1,
                col=col,
            )
        fig.update_xaxes(title_text=knob, row=1, col=col)
        if log_y:
            bounds = [*part["mean"], *part["lo"], *part["hi"]]
            fig.update_yaxes(log_axis(bounds, floor=SLOWDOWN_FLOOR), row=1, col=col)
    return finish_layout(fig, height)


def pareto_figure(points: pd.DataFrame, knob: str, log: bool = True, height: int = 420) -> go.Figure:
    """TE p95 against BE p95 slowdown, one point per (policy, knob value), a policy's points
    joined in knob order; the front is dotted. No text labels (they overlap): the hover names
    the knob value, the legend the policy.

    ``points`` columns: policy, value (the knob), te_p95, be_p95 (means over seeds).
    """
    fig = go.Figure()
    styles = policy_styles(list(dict.fromkeys(points["policy"])))
    knob = chart_text(knob)
    for policy, part in points.groupby("policy", sort=False):
        part = part.sort_values("value")
        style = styles[str(policy)]
        fig.add_trace(
            go.Scatter(
                x=part["te_p95"],
                y=part["be_p95"],
                mode="lines+markers",
                line={"color": style["color"], "dash": style["dash"], "width": 1},
                marker={"color": style["color"], "symbol": style["symbol"], "size": style["size"] + 1},
                customdata=part["value"],
                name=chart_text(policy),
                hovertemplate=f"{chart_text(policy)}, {knob} = %{{customdata:g}}<br>TE p95 %{{x:.3g}}<br>BE p95 %{{y:.3g}}<extra></extra>",
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
    scale = "log" if log else "linear"
    x_axis = log_axis(points["te_p95"], floor=SLOWDOWN_FLOOR) if log else {"type": scale}
    y_axis = log_axis(points["be_p95"], floor=SLOWDOWN_FLOOR) if log else {"type": scale}
    fig.update_xaxes(x_axis, title_text=f"TE p95 slowdown ({scale}, lower is better)")
    fig.update_yaxes(y_axis, title_text=f"BE p95 slowdown ({scale}, lower is better)")
    return finish_layout(fig, height)
