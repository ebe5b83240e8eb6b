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

from dashboard.views import CLASSES, GANTT_EPOCH, GANTT_GAP, PERCENTILES, GanttView, format_seconds, pareto_mask

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
# A dash and a marker per policy as well, so that two policies with identical results (their
# lines on top of each other) stay tellable apart.
DASHES = ("solid", "dash", "dot", "longdash", "dashdot", "longdashdot")
SYMBOLS = ("circle", "square", "diamond", "triangle-up", "cross", "x", "star", "pentagon")
STAT_COLORS = {"p50": "#A6BDDB", "p95": "#3690C0", "p99": "#034E7B"}  # light to dark: further into the tail
# The Gantt: TE in a strong colour, BE muted; restore and grace in colours of their own with a
# pattern in the class colour, so a piece reads as "restoring" or "in grace" and whose it is.
GANTT_CLASS_COLORS = {"TE": "#D62728", "BE": "#9CC3DA"}
GANTT_KINDS = {"run": ("", ""), "restore": ("#F2C14E", "."), "grace": ("#555555", "x")}
GANTT_LANE_PX = 11  # pixels per GPU lane: a one-GPU bar holds a 9-pixel label
GANTT_TICKS = [  # elapsed time labels at every zoom (day 1 = the first 24 hours of the run)
    {"dtickrange": [None, 1000], "value": "%H:%M:%S.%L<br>day %-j"},
    {"dtickrange": [1000, 60000], "value": "%H:%M:%S<br>day %-j"},
    {"dtickrange": [60000, 86400000], "value": "%H:%M<br>day %-j"},
    {"dtickrange": [86400000, None], "value": "day %-j"},
]


def policy_colors(policies: Sequence[str]) -> dict[str, str]:
    spare = iter(SPARE_COLORS * (1 + len(policies) // len(SPARE_COLORS)))
    return {p: POLICY_COLORS.get(p) or next(spare) for p in policies}


def policy_styles(policies: Sequence[str]) -> dict[str, dict[str, object]]:
    """Colour, dash, marker symbol and marker size per policy, in the order given; markers of
    later policies are smaller, so one drawn over an identical one leaves it visible."""
    colors = policy_colors(policies)
    return {
        p: {
            "color": colors[p],
            "dash": DASHES[i % len(DASHES)],
            "symbol": SYMBOLS[i % len(SYMBOLS)],
            "size": max(11 - 2 * i, 5),
        }
        for i, p in enumerate(policies)
    }


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
    styles = policy_styles(list(dict.fromkeys(cdf["policy"])))
    for col, cls in enumerate(CLASSES, start=1):
        part = cdf[cdf["job_class"] == cls]
        for policy, line in part.groupby("policy", sort=False):
            style = styles[policy]
            fig.add_trace(
                go.Scatter(
                    x=line["slowdown"],
                    y=line["fraction"],
                    mode="lines",
                    line={"color": style["color"], "dash": style["dash"], "shape": "hv", "width": 2},
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


def percentile_figure(pct: pd.DataFrame, height: int = 360) -> go.Figure:
    """p50/p95/p99 slowdown bars: one panel per class, grouped by policy, log y.

    With several seeds a bar is the mean and its whisker runs from the lowest to the highest
    seed (never below a slowdown of 1)."""
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
                    x=bars["policy"],
                    y=bars["value"],
                    name=stat,
                    legendgroup=stat,
                    showlegend=col == 1,
                    marker={"color": STAT_COLORS[stat]},
                    text=None if spread else [_short(v) for v in bars["value"]],
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
        fig.update_yaxes(type="log", row=1, col=col)
    fig.update_yaxes(title_text="slowdown (log)", row=1, col=1)
    return _layout(fig, height, barmode="group", uniformtext={"minsize": 8, "mode": "hide"})


def _gantt_time(seconds: pd.Series | np.ndarray | float) -> pd.DatetimeIndex | pd.Timestamp:
    """Seconds from the start of the run on the Gantt's date axis (which labels any zoom,
    from days down to seconds)."""
    return GANTT_EPOCH + pd.to_timedelta(seconds, unit="s")


def gantt_figure(view: GanttView) -> go.Figure:
    """One panel per policy on a shared time axis; each node drawn as its GPU lanes.

    Bars follow the evalys convention: a job covers the lanes it holds. TE bars are in a strong
    colour and drawn last (on top); restore and grace have their own colour and pattern; the
    preemption signal is a fixed-size marker, so all three stay distinct at any zoom. A bar
    carries its job id when it is wide enough to hold it.
    """
    heights = [max(float(p.layout["y"].max()) + 1, 1.0) if len(p.layout) else 1.0 for p in view.panels]
    height = int(min(max(GANTT_LANE_PX * sum(heights), 200) + 120, 1400))
    fig = make_subplots(
        rows=len(view.panels),
        cols=1,
        shared_xaxes=True,
        vertical_spacing=min(45 / height, 0.3) if len(view.panels) > 1 else 0.0,  # room for a panel's title
        row_heights=heights,
        subplot_titles=[p.policy for p in view.panels],
    )
    separators: list[dict[str, object]] = []
    for row, panel in enumerate(view.panels, start=1):
        for cls in ("BE", "TE"):  # TE last: on top
            for kind, (color, pattern) in GANTT_KINDS.items():
                part = panel.bars[(panel.bars["job_class"] == cls) & (panel.bars["kind"] == kind)]
                if part.empty:
                    continue
                fill = GANTT_CLASS_COLORS[cls] if kind == "run" else color
                fig.add_trace(
                    go.Bar(
                        orientation="h",
                        base=_gantt_time(part["start"].to_numpy(float)),
                        x=(part["end"] - part["start"]).to_numpy(float) * 1000.0,  # ms on a date axis
                        y=part["y"],
                        width=part["height"],
                        name=f"{cls} {kind}",
                        legendgroup=f"{cls} {kind}",
                        showlegend=row == 1,
                        text=part["job_id"] if kind == "run" else None,
                        textposition="inside",
                        insidetextanchor="middle",
                        textangle=0,
                        textfont={"color": "white" if cls == "TE" else "#0B3C5D"},
                        marker={
                            "color": fill,
                            "pattern": {"shape": pattern, "fgcolor": GANTT_CLASS_COLORS[cls], "size": 5}
                            if pattern
                            else {},
                            "line": {"width": 0.6, "color": "white"},
                        },
                        customdata=np.stack(
                            [
                                part["job_id"],
                                part["node"],
                                part["lanes"],
                                [format_seconds(t) for t in part["start"]],
                                [format_seconds(t) for t in part["end"]],
                                (part["end"] - part["start"]).round(1),
                            ],
                            axis=-1,
                        ),
                        hovertemplate=(
                            f"{cls} job %{{customdata[0]}}: {kind}<br>node %{{customdata[1]}}, GPU lane %{{customdata[2]}}"
                            "<br>%{customdata[3]} to %{customdata[4]} (%{customdata[5]} s)<extra></extra>"
                        ),
                    ),
                    row=row,
                    col=1,
                )
        if not panel.preempts.empty:
            fig.add_trace(
                go.Scatter(
                    x=_gantt_time(panel.preempts["time"].to_numpy(float)),
                    y=panel.preempts["y"],
                    mode="markers",
                    name="preemption signal",
                    legendgroup="preemption signal",
                    showlegend=row == 1,
                    marker={"symbol": "x", "size": 11, "color": "#111", "line": {"width": 1, "color": "white"}},
                    customdata=np.stack(
                        [panel.preempts["job_id"], panel.preempts["node"], [format_seconds(t) for t in panel.preempts["time"]]],
                        axis=-1,
                    ),
                    hovertemplate="preemption signal to BE job %{customdata[0]}<br>node %{customdata[1]}, %{customdata[2]}<extra></extra>",
                ),
                row=row,
                col=1,
            )
        layout = panel.layout
        centres = layout.groupby("node", sort=False)["y"].mean()
        fig.update_yaxes(
            autorange=False,
            range=[heights[row - 1] - 0.4, -0.6],  # reversed: the first node on top
            tickvals=list(centres.to_numpy()),
            ticktext=list(centres.index),
            showgrid=False,
            zeroline=False,
            row=row,
            col=1,
        )
        axis = "" if row == 1 else str(row)
        separators += [  # a thin line under each node's lanes (one layout update: add_hline is slow)
            {"type": "line", "xref": f"x{axis} domain", "yref": f"y{axis}", "x0": 0, "x1": 1, "y0": y, "y1": y,
             "line": {"width": 0.5, "color": "#bbb"}}
            for y in (layout.groupby("node", sort=False)["y"].max() + 0.5 + GANTT_GAP / 2)
        ]  # fmt: skip
    if view.selected is not None:
        at = _gantt_time(float(view.selected["time"]))
        separators.append(
            {"type": "line", "xref": "x", "yref": "paper", "x0": at, "x1": at, "y0": 0, "y1": 1,
             "line": {"width": 1.5, "color": "#111", "dash": "dot"}}
        )  # fmt: skip
    fig.update_layout(shapes=separators)
    fig.update_xaxes(
        type="date",
        range=[_gantt_time(view.focus[0]), _gantt_time(view.focus[1])],
        tickformatstops=GANTT_TICKS,
        showgrid=True,
    )
    # uirevision: a user's zoom survives reruns until the chosen preemption or the window changes
    revision = f"{view.window}|{view.focus}|{[p.policy for p in view.panels]}"
    return _layout(
        fig,
        height,
        barmode="overlay",
        uniformtext={"minsize": 9, "mode": "hide"},
        uirevision=revision,
    )


def timeline_figure(timeline: pd.DataFrame) -> go.Figure:
    """GPU utilisation and pending TE/BE jobs over time, one line per policy."""
    series = ("GPU utilisation", "pending TE", "pending BE")
    fig = make_subplots(rows=3, cols=1, shared_xaxes=True, vertical_spacing=0.06, subplot_titles=series)
    styles = policy_styles(list(dict.fromkeys(timeline["policy"])))
    for row, name in enumerate(series, start=1):
        part = timeline[timeline["series"] == name]
        for policy, line in part.groupby("policy", sort=False):
            fig.add_trace(
                go.Scatter(
                    x=line["time_h"],
                    y=line["value"],
                    mode="lines",
                    line={"color": styles[policy]["color"], "dash": styles[policy]["dash"], "width": 1.6},
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


def sweep_figure(
    sweep: pd.DataFrame, knob: str, metrics: Sequence[tuple[str, str]], log_y: bool = False, height: int = 360
) -> go.Figure:
    """Metrics against a knob: one panel per metric, one line per policy (its own colour, dash
    and marker), whiskers = the interval over seeds.

    ``sweep`` columns: value (the knob), policy, metric, n, mean, lo, hi. ``log_y`` for
    slowdowns, whose whiskers stay above 1 on a log axis.
    """
    fig = make_subplots(rows=1, cols=len(metrics), subplot_titles=[label for _, label in metrics])
    styles = policy_styles(list(dict.fromkeys(sweep["policy"])))
    for col, (metric, _label) in enumerate(metrics, start=1):
        part = sweep[sweep["metric"] == metric]
        for policy, line in part.groupby("policy", sort=False):
            line = line.sort_values("value")
            style = styles[policy]
            fig.add_trace(
                go.Scatter(
                    x=line["value"],
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
                    name=policy,
                    legendgroup=policy,
                    showlegend=col == 1,
                    hovertemplate=f"{policy}<br>{knob} = %{{x}}<br>mean %{{y:.4g}}"
                    "<br>95% interval %{customdata[0]:.4g} to %{customdata[1]:.4g} (%{customdata[2]} seeds)<extra></extra>",
                ),
                row=1,
                col=col,
            )
        fig.update_xaxes(title_text=knob, row=1, col=col)
        if log_y:
            fig.update_yaxes(type="log", row=1, col=col)
    return _layout(fig, height)


def pareto_figure(points: pd.DataFrame, knob: str, log: bool = True, height: int = 420) -> go.Figure:
    """TE p95 against BE p95 slowdown, one point per (policy, knob value), a policy's points
    joined in knob order; the front is dotted. No text labels (they overlap): the hover names
    the knob value, the legend the policy.

    ``points`` columns: policy, value (the knob), te_p95, be_p95 (means over seeds).
    """
    fig = go.Figure()
    styles = policy_styles(list(dict.fromkeys(points["policy"])))
    for policy, part in points.groupby("policy", sort=False):
        part = part.sort_values("value")
        style = styles[policy]
        fig.add_trace(
            go.Scatter(
                x=part["te_p95"],
                y=part["be_p95"],
                mode="lines+markers",
                line={"color": style["color"], "dash": style["dash"], "width": 1},
                marker={"color": style["color"], "symbol": style["symbol"], "size": style["size"] + 1},
                customdata=part["value"],
                name=policy,
                hovertemplate=f"{policy}, {knob} = %{{customdata:g}}<br>TE p95 %{{x:.3g}}<br>BE p95 %{{y:.3g}}<extra></extra>",
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
    fig.update_xaxes(type=scale, title_text=f"TE p95 slowdown ({scale}, lower is better)")
    fig.update_yaxes(type=scale, title_text=f"BE p95 slowdown ({scale}, lower is better)")
    return _layout(fig, height)


def _short(value: float) -> str:
    if value is None or not np.isfinite(value):
        return ""
    return f"{value:.3g}"


GRID_COLORS = {"idle": "#EEEEEE", "restore": GANTT_KINDS["restore"][0], "grace": GANTT_KINDS["grace"][0]}


def gpu_grid_figure(grid: pd.DataFrame) -> go.Figure:
    """The cluster at one instant: a square per GPU lane, one row per node, coloured as the
    Gantt colours the piece it holds (TE, BE, restoring, in grace, idle) and labelled by job."""
    nodes = list(dict.fromkeys(grid["node"]))
    fill = [
        GANTT_CLASS_COLORS[c] if k == "run" else GRID_COLORS[k]
        for c, k in zip(grid["job_class"], grid["kind"], strict=True)
    ]
    what = [f"{c} job {j}: {k}" if j else "idle" for j, c, k in zip(grid["job_id"], grid["job_class"], grid["kind"], strict=True)]
    fig = go.Figure(
        go.Scatter(
            x=grid["lane"].astype(str),
            y=grid["node"],
            mode="markers+text",
            marker={"symbol": "square", "size": 46, "color": fill, "line": {"width": 1, "color": "#888"}},
            text=grid["job_id"],
            textfont={"size": 14, "color": ["white" if k == "grace" or (k == "run" and c == "TE") else "#0B3C5D"
                                            for c, k in zip(grid["job_class"], grid["kind"], strict=True)]},
            customdata=np.stack([grid["node"], grid["lane"].astype(str), what], axis=-1),
            hovertemplate="%{customdata[0]}, GPU %{customdata[1]}<br>%{customdata[2]}<extra></extra>",
            showlegend=False,
        )
    )
    fig.update_xaxes(title_text="GPU", type="category", showgrid=False)
    fig.update_yaxes(type="category", categoryorder="array", categoryarray=nodes[::-1], showgrid=False)
    return _layout(fig, 90 + 70 * len(nodes)).update_layout(margin={"l": 10, "r": 10, "t": 10, "b": 10})
