"""The One job tab's Gantt (pure Plotly, no Streamlit): the run's GPU-lane Gantt with every other job
faded, the job's own pieces drawn over them with a dark outline on every lane it held, and a
``waiting`` row above the nodes whose hover says why it waited.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from dashboard.explore.job_views import WaitRow, job_bars
from dashboard.shared.gantt_charts import GANTT_CLASS_COLORS, GANTT_KINDS, gantt_figure, gantt_time, segment_bars
from dashboard.shared.gantt_views import GanttView
from dashboard.shared.plain import chart_text, chart_texts
from simcore.core import fmt

FADED = 0.18  # opacity of every other job's bars and signals
WAIT_Y = -1.6  # the waiting row, above the first node's lanes (the axis is reversed)
WAIT_COLOR = "#7F7F7F"


def job_gantt_figure(view: GanttView, job_id: str, waits: Sequence[WaitRow]) -> go.Figure:
    """The view's Gantt with job ``job_id`` highlighted (trace ``job <id>``) and its waits (trace ``waiting``)."""
    fig = gantt_figure(view)
    for trace in fig.data:
        trace.update(opacity=FADED)
    mine = job_bars(view, job_id)
    if len(mine):
        fill = [
            GANTT_CLASS_COLORS[c] if k == "run" else GANTT_KINDS[k][0]
            for c, k in zip(mine["job_class"], mine["kind"], strict=True)
        ]
        fig.add_trace(
            segment_bars(
                mine,
                name=f"job {chart_text(job_id)}",
                marker={
                    "color": fill,
                    "pattern": {"shape": [GANTT_KINDS[k][1] for k in mine["kind"]], "size": 5},
                    "line": {"width": 2.5, "color": "#111"},
                },
                customdata=np.stack(
                    [
                        chart_texts(mine["node"]),
                        mine["lanes"],
                        list(mine["kind"]),
                        [fmt.clock(t) for t in mine["seg_start"]],
                        [fmt.clock(t) for t in mine["seg_end"]],
                        [fmt.duration(t) for t in mine["seg_end"] - mine["seg_start"]],
                    ],
                    axis=-1,
                ),
                hovertemplate=(
                    f"job {chart_text(job_id)}: %{{customdata[2]}}<br>node %{{customdata[0]}}, GPU lane %{{customdata[1]}}"
                    "<br>%{customdata[3]} to %{customdata[4]} (%{customdata[5]})<extra></extra>"
                ),
            ),
            row=1,
            col=1,
        )
    if waits:
        fig.add_trace(
            go.Bar(
                orientation="h",
                base=gantt_time(np.array([w.start for w in waits])),
                x=np.array([w.end - w.start for w in waits]) * 1000.0,
                y=[WAIT_Y] * len(waits),
                width=0.9,
                name="waiting",
                marker={"color": WAIT_COLOR, "pattern": {"shape": "/", "fgcolor": "white", "size": 6}},
                customdata=chart_texts(w.text for w in waits),
                hovertemplate=f"job {chart_text(job_id)} %{{customdata}}<extra></extra>",
            ),
            row=1,
            col=1,
        )
    axis = fig.layout.yaxis
    ticks, texts = list(axis.tickvals or ()), list(axis.ticktext or ())
    fig.update_yaxes(
        range=[axis.range[0], WAIT_Y - 0.6],
        tickvals=[WAIT_Y, *ticks],
        ticktext=["waiting", *texts],
        row=1,
        col=1,
    )
    return fig
