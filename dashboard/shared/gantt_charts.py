"""The Gantt chart and the cluster's GPU grid at one instant (thin Plotly drawing), from
:mod:`dashboard.shared.gantt_views` and :mod:`dashboard.learn.lesson_views`.

TE in a strong colour, BE muted; restore and grace in colours of their own with a pattern in
the class colour, so a piece reads as "restoring" or "in grace" and whose it is.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from dashboard.shared import gantt_queue_charts, gantt_queues
from dashboard.shared.chart_style import finish_layout
from dashboard.shared.gantt_views import GANTT_EPOCH, GANTT_GAP, GanttView, gang_note
from dashboard.shared.plain import chart_text, chart_texts
from dashboard.shared.views import WHY_WAITED
from simcore.core import fmt

GANTT_CLASS_COLORS = {"TE": "#D62728", "BE": "#9CC3DA"}
GANTT_KINDS = {
    "run": ("", ""),
    "restore": ("#F2C14E", "."),
    "grace": ("#555555", "x"),
    "checkpoint": ("#6AA84F", "+"),  # a periodic checkpoint's pause (checkpoint_cost > 0)
}
#: a node's down time, across all its lanes, by the kind of its windows (fill, pattern, hatch colour)
DOWN_STYLES = {"failure": ("#F4CCCC", "\\", "#990000"), "maintenance": ("#D9D2E9", "|", "#5B3F99")}
#: the marks of a drain signal and of a failure on the bar they end (symbol, colour, in words)
MARKS = {"drain": ("x-open", "#5B3F99", "a purple open ×"), "fail": ("star", "#990000", "a dark red star")}
MARK_NAMES = {"drain": "drain signal (maintenance)", "fail": "node failure"}
#: How the Learn page names the Gantt's colours and patterns (its chart guide is written from these).
COLOR_NAMES = {
    "#D62728": "red",
    "#9CC3DA": "light blue",
    "#F2C14E": "yellow",
    "#555555": "dark grey",
    "#6AA84F": "green",
    "#F4CCCC": "pale red",
    "#D9D2E9": "pale purple",
}
PATTERN_NAMES = {
    ".": "dots",
    "x": "crosses",
    "/": "diagonal hatching",
    "+": "plus signs",
    "\\": "back hatching",
    "|": "vertical lines",
}


def down_words(style: str) -> str:
    """How a node's down time of ``style`` (failure, maintenance) is drawn, in words ("pale red with back hatching")."""
    fill, pattern, _ = DOWN_STYLES[style]
    return f"{COLOR_NAMES[fill]} with {PATTERN_NAMES[pattern]}"


#: the lost part of a preempted run bar: hatched over the bar's own colour (pattern, hatch colour)
GANTT_LOST = ("/", "#111111")
GANTT_LANE_PX = 11  # pixels per GPU lane: a one-GPU bar holds a 9-pixel label
GANTT_TICKS = [  # elapsed time labels at every zoom (day 1 = the first 24 hours of the run)
    {"dtickrange": [None, 1000], "value": "%H:%M:%S.%L<br>day %-j"},
    {"dtickrange": [1000, 60000], "value": "%H:%M:%S<br>day %-j"},
    {"dtickrange": [60000, 86400000], "value": "%H:%M<br>day %-j"},
    {"dtickrange": [86400000, None], "value": "day %-j"},
]


MAX_LABELS = 80  # job ids written in the zoomed view: more would cover each other


def focus_labels(bars: pd.DataFrame, focus: tuple[float, float], window: tuple[float, float]) -> pd.DataFrame:
    """When the first view is zoomed inside the window (around a preemption), the job ids of the run
    bars it shows, each at the middle of its visible part (a bar's own text sits at the middle of the
    whole bar, often out of sight), with the bar's index in ``bars``; none when not zoomed or too many."""
    none = pd.DataFrame(columns=["job_id", "x", "y", "bar"])
    if focus == window or bars.empty:
        return none
    lo, hi = bars["start"].clip(lower=focus[0]), bars["end"].clip(upper=focus[1])
    shown = bars[(lo < hi) & (bars["kind"] == "run")]
    if len(shown) > MAX_LABELS:
        return none
    middle = (lo[shown.index] + hi[shown.index]) / 2
    return pd.DataFrame({"job_id": shown["job_id"], "x": middle, "y": shown["y"], "bar": shown.index}).reset_index(
        drop=True
    )


def why_line(why: str) -> str:
    """A bar's hover line naming its job's longest wait's reason (none for a job that never waited);
    the reason names jobs, visitor text, so it goes through :func:`~dashboard.shared.plain.chart_text`."""
    return f"<br>{WHY_WAITED} (longest wait): {chart_text(why)}" if why else ""


def gantt_time(seconds: pd.Series | np.ndarray | float) -> pd.Series | pd.DatetimeIndex | pd.Timestamp:
    """Seconds from the start of the run on the Gantt's date axis (which labels any zoom,
    from days down to seconds)."""
    return GANTT_EPOCH + pd.to_timedelta(seconds, unit="s")


def segment_bars(part: pd.DataFrame, **trace: Any) -> go.Bar:
    """One horizontal bar per row of ``part`` (``start``/``end`` in seconds, lane ``y`` and
    ``height``) on the Gantt's date axis; ``trace`` holds the rest of the bar trace."""
    return go.Bar(
        orientation="h",
        base=gantt_time(part["start"].to_numpy(float)),
        x=(part["end"] - part["start"]).to_numpy(float) * 1000.0,  # ms on a date axis
        y=part["y"],
        width=part["height"],
        **trace,
    )


def gantt_figure(view: GanttView) -> go.Figure:
    """One panel per policy on a shared time axis; each node drawn as its GPU lanes.

    Bars follow the evalys convention: a job covers the lanes it holds. TE bars are in a strong
    colour and drawn last (on top); restore and grace have their own colour and pattern; the
    preemption signal is a fixed-size marker, so all three stay distinct at any zoom. A bar
    carries its job id when it is wide enough to hold it. Ids, node and policy names are visitor
    text: every one goes through :func:`~dashboard.shared.plain.chart_text`. A view by queue
    (``view.by_queue``) colours the bars by queue and/or bands the grouped lanes
    (:mod:`dashboard.shared.gantt_queue_charts`).
    """
    heights = [max(float(p.layout["y"].max()) + 1, 1.0) if len(p.layout) else 1.0 for p in view.panels]
    height = int(min(max(GANTT_LANE_PX * sum(heights), 200) + 120, 1400))
    fig = make_subplots(
        rows=len(view.panels),
        cols=1,
        shared_xaxes=True,
        vertical_spacing=min(45 / height, 0.3) if len(view.panels) > 1 else 0.0,  # room for a panel's title
        row_heights=heights,
        subplot_titles=[chart_text(p.policy) for p in view.panels],
    )
    separators: list[dict[str, object]] = []
    # the legend names the lost work once, on the first panel that has any
    lost_legend = next((row for row, p in enumerate(view.panels, start=1) if not p.lost.empty), 0)
    down_legend: set[str] = set()  # each kind of down time named once in the legend
    by = view.by_queue
    tints = gantt_queues.colors(by.names) if by is not None and by.colour else {}
    for name, tint in tints.items():  # the legend names the queues, each in its colour, once
        fig.add_trace(gantt_queue_charts.legend_trace(name, tint), row=1, col=1)
    for row, panel in enumerate(view.panels, start=1):
        labels = focus_labels(panel.bars, view.focus, view.window)
        labelled = set(labels["bar"])
        for kind, part in panel.down.groupby(panel.down["kind"].map(down_style), sort=True):  # under the jobs
            fig.add_trace(_down_trace(part, str(kind), str(kind) not in down_legend), row=row, col=1)
            down_legend.add(str(kind))
        for cls in ("BE", "TE"):  # TE last: on top
            for queue, mine in gantt_queue_charts.queue_parts(
                panel.bars[panel.bars["job_class"] == cls], view.by_queue
            ):
                for kind, (color, pattern) in GANTT_KINDS.items():
                    part = mine[mine["kind"] == kind]
                    if part.empty:
                        continue
                    tint = GANTT_CLASS_COLORS[cls] if queue is None else tints[queue]
                    ids = chart_texts(part["job_id"])
                    fig.add_trace(
                        segment_bars(
                            part,
                            **gantt_queue_charts.bar_names(cls, kind, queue, row),
                            # a bar's own text, unless its id is written in its visible part (focus_labels)
                            text=[("" if i in labelled else j) for i, j in zip(part.index, ids, strict=True)]
                            if kind == "run"
                            else None,
                            textposition="inside",
                            insidetextanchor="middle",
                            textangle=0,
                            textfont={"color": gantt_queue_charts.id_color(cls, tint, queue)},
                            marker={
                                "color": tint if kind == "run" else color,
                                "pattern": {"shape": pattern, "fgcolor": tint, "size": 5} if pattern else {},
                                "line": gantt_queue_charts.outline(cls, queue),
                            },
                            customdata=np.stack(
                                [
                                    ids,
                                    chart_texts(part["node"]),
                                    part["lanes"],
                                    [fmt.clock(t) for t in part["seg_start"]],
                                    [fmt.clock(t) for t in part["seg_end"]],
                                    [fmt.duration(t) for t in part["seg_end"] - part["seg_start"]],
                                    [gang_note(int(w)) for w in part["workers"]],
                                    [why_line(w) for w in part["why"]],
                                    gantt_queue_charts.queue_lines(part),
                                ],
                                axis=-1,
                            ),
                            hovertemplate=(
                                f"{cls} job %{{customdata[0]}}%{{customdata[6]}}: {kind}%{{customdata[8]}}<br>node %{{customdata[1]}}, GPU lane %{{customdata[2]}}"
                                "<br>%{customdata[3]} to %{customdata[4]} (%{customdata[5]})%{customdata[7]}<extra></extra>"
                            ),
                        ),
                        row=row,
                        col=1,
                    )
        if not panel.lost.empty:
            fig.add_trace(_lost_trace(panel.lost, row == lost_legend), row=row, col=1)
        if not labels.empty:  # zoomed in: a job's id in the visible part of its bar
            fig.add_trace(
                go.Scatter(
                    x=gantt_time(labels["x"].to_numpy(float)),
                    y=labels["y"],
                    mode="text",
                    text=chart_texts(labels["job_id"]),
                    textfont={"size": 10, "color": "#111"},
                    hoverinfo="skip",
                    showlegend=False,
                ),
                row=row,
                col=1,
            )
        if not panel.preempts.empty:
            fig.add_trace(
                go.Scatter(
                    x=gantt_time(panel.preempts["time"].to_numpy(float)),
                    y=panel.preempts["y"],
                    mode="markers",
                    name="preemption signal",
                    legendgroup="preemption signal",
                    showlegend=row == 1,
                    marker={"symbol": "x", "size": 11, "color": "#111", "line": {"width": 1, "color": "white"}},
                    customdata=np.stack(
                        [
                            chart_texts(panel.preempts["job_id"]),
                            chart_texts(panel.preempts["node"]),
                            [fmt.clock(t) for t in panel.preempts["time"]],
                        ],
                        axis=-1,
                    ),
                    hovertemplate="preemption signal to BE job %{customdata[0]}<br>node %{customdata[1]}, %{customdata[2]}<extra></extra>",
                ),
                row=row,
                col=1,
            )
        for event, (symbol, color, _) in MARKS.items():
            marks = panel.marks[panel.marks["event"] == event]
            if not marks.empty:
                fig.add_trace(_mark_trace(marks, event, symbol, color, event not in down_legend), row=row, col=1)
                down_legend.add(event)
        layout = panel.layout
        group = [c for c in ("queue", "node") if c in layout.columns]  # a grouped layout's nodes are per queue
        centres = layout.groupby(group, sort=False)["y"].mean()
        fig.update_yaxes(
            autorange=False,
            range=[heights[row - 1] - 0.4, -0.6],  # reversed: the first node on top
            tickvals=list(centres.to_numpy()),
            ticktext=chart_texts(centres.index.get_level_values("node")),
            showgrid=False,
            zeroline=False,
            row=row,
            col=1,
        )
        axis = "" if row == 1 else str(row)
        separators += [  # a thin line under each node's lanes (one layout update: add_hline is slow)
            {
                "type": "line",
                "xref": f"x{axis} domain",
                "yref": f"y{axis}",
                "x0": 0,
                "x1": 1,
                "y0": y,
                "y1": y,
                "line": {"width": 0.5, "color": "#bbb"},
            }
            for y in (layout.groupby(group, sort=False)["y"].max() + 0.5 + GANTT_GAP / 2)
        ]
        if "queue" in layout.columns:  # each queue's band: a line above it and its name with its quota
            separators += gantt_queue_charts.band_lines(gantt_queues.bands(layout), axis)
            for note in gantt_queue_charts.band_labels(gantt_queues.bands(layout), by.labels if by else {}, axis):
                fig.add_annotation(note)
    if view.selected is not None:
        at = gantt_time(float(view.selected["time"]))
        separators.append(
            {
                "type": "line",
                "xref": "x",
                "yref": "paper",
                "x0": at,
                "x1": at,
                "y0": 0,
                "y1": 1,
                "line": {"width": 1.5, "color": "#111", "dash": "dot"},
            }
        )
    fig.update_layout(shapes=separators)
    fig.update_xaxes(
        type="date",
        range=[gantt_time(view.focus[0]), gantt_time(view.focus[1])],
        tickformatstops=GANTT_TICKS,
        showgrid=True,
    )
    # uirevision: a user's zoom survives reruns until the chosen preemption or the window changes
    revision = chart_text(f"{view.window}|{view.focus}|{[p.policy for p in view.panels]}")
    return finish_layout(
        fig,
        height,
        barmode="overlay",
        uniformtext={"minsize": 9, "mode": "hide"},
        uirevision=revision,
    )


def down_style(kind: str) -> str:
    """The style a down stretch is drawn in: ``failure`` when any of its windows is one (the node stops
    without warning), else ``maintenance``."""
    return "failure" if "failure" in kind.split("+") else "maintenance"


def _down_trace(down: pd.DataFrame, style: str, legend: bool) -> go.Bar:
    """A node's down time: one bar across all its lanes, in the style of its kind."""
    fill, pattern, hatch = DOWN_STYLES[style]
    return segment_bars(
        down,
        name=f"node down: {style}",
        legendgroup=f"node down: {style}",
        showlegend=legend,
        marker={
            "color": fill,
            "pattern": {"shape": pattern, "fgcolor": hatch, "size": 8, "solidity": 0.2},
            "line": {"width": 1, "color": hatch},
        },
        customdata=np.stack(
            [
                chart_texts(down["node"]),
                [k.replace("+", " and ") for k in down["kind"]],
                [fmt.clock(t) for t in down["seg_start"]],
                [fmt.clock(t) for t in down["seg_end"]],
                [fmt.duration(t) for t in down["seg_end"] - down["seg_start"]],
            ],
            axis=-1,
        ),
        hovertemplate=(
            "node %{customdata[0]} down (%{customdata[1]})<br>%{customdata[2]} to %{customdata[3]} "
            "(%{customdata[4]}): it runs nothing<extra></extra>"
        ),
    )


def _mark_trace(marks: pd.DataFrame, event: str, symbol: str, color: str, legend: bool) -> go.Scatter:
    """The drain signals or the failures of a panel: a fixed-size marker where each job's bar ends."""
    what = "signalled to leave for maintenance" if event == "drain" else "stopped by the node's failure"
    return go.Scatter(
        x=gantt_time(marks["time"].to_numpy(float)),
        y=marks["y"],
        mode="markers",
        name=MARK_NAMES[event],
        legendgroup=MARK_NAMES[event],
        showlegend=legend,
        marker={"symbol": symbol, "size": 11, "color": color, "line": {"width": 1, "color": "white"}},
        customdata=np.stack(
            [chart_texts(marks["job_id"]), chart_texts(marks["node"]), [fmt.clock(t) for t in marks["time"]]], axis=-1
        ),
        hovertemplate=f"job %{{customdata[0]}} {what}<br>node %{{customdata[1]}}, %{{customdata[2]}}<extra></extra>",
    )


#: what each cause of lost work is called in a lost bar's hover
LOST_BY = {"preemption": "the preemption", "drain": "the maintenance drain", "failure": "the node's failure"}


def _lost_trace(lost: pd.DataFrame, legend: bool) -> go.Bar:
    """The lost work of interrupted bars: hatching over the end of each bar, its own legend entry."""
    pattern, hatch = GANTT_LOST
    return segment_bars(
        lost,
        name="lost work",
        legendgroup="lost work",
        showlegend=legend,
        marker={
            "color": "rgba(0,0,0,0)",
            "pattern": {"shape": pattern, "fgcolor": hatch, "size": 6, "solidity": 0.3},
            "line": {"width": 1, "color": hatch},
        },
        customdata=np.stack(
            [
                [f"{c} job {j}" for c, j in zip(lost["job_class"], chart_texts(lost["job_id"]), strict=True)],
                chart_texts(lost["node"]),
                lost["lanes"],
                [fmt.duration(t) for t in lost["lost"]],
                [LOST_BY[c] for c in lost["cause"]],
            ],
            axis=-1,
        ),
        hovertemplate=(
            "%{customdata[0]}: lost work<br>node %{customdata[1]}, GPU lane %{customdata[2]}"
            "<br>%{customdata[3]} of work since its last kept checkpoint, thrown away by %{customdata[4]}<extra></extra>"
        ),
    )
