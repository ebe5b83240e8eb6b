"""The cluster's GPU grid at one instant of a lesson (thin Plotly drawing), from
:mod:`dashboard.learn.lesson_views`: coloured as the Gantt colours each piece
(:mod:`dashboard.shared.gantt_charts`), so the grid and the Gantt read alike."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from dashboard.shared.chart_style import finish_layout
from dashboard.shared.gantt_charts import DOWN_STYLES, GANTT_CLASS_COLORS, GANTT_KINDS
from dashboard.shared.plain import chart_text, chart_texts

GRID_COLORS = {
    "idle": "#EEEEEE",
    "down": DOWN_STYLES["failure"][0],
    **{kind: color for kind, (color, _) in GANTT_KINDS.items() if color},
}


def gpu_grid_figure(grid: pd.DataFrame) -> go.Figure:
    """The cluster at one instant: a square per GPU lane, one row per node, coloured as the
    Gantt colours the piece it holds (TE, BE, restoring, in grace, in a checkpoint's pause, idle, on a
    node that is down) and labelled by job."""
    nodes = chart_texts(dict.fromkeys(grid["node"]))
    fill = [
        GANTT_CLASS_COLORS[c] if k == "run" else GRID_COLORS[k]
        for c, k in zip(grid["job_class"], grid["kind"], strict=True)
    ]
    what = [
        f"{c} job {chart_text(j)}: {k}" if j else ("node down" if k == "down" else "idle")
        for j, c, k in zip(grid["job_id"], grid["job_class"], grid["kind"], strict=True)
    ]
    fig = go.Figure(
        go.Scatter(
            x=grid["lane"].astype(str),
            y=chart_texts(grid["node"]),
            mode="markers+text",
            marker={"symbol": "square", "size": 46, "color": fill, "line": {"width": 1, "color": "#888"}},
            text=chart_texts(grid["job_id"]),
            textfont={
                "size": 14,
                "color": [
                    "white" if k == "grace" or (k == "run" and c == "TE") else "#0B3C5D"
                    for c, k in zip(grid["job_class"], grid["kind"], strict=True)
                ],
            },
            customdata=np.stack([chart_texts(grid["node"]), grid["lane"].astype(str), what], axis=-1),
            hovertemplate="%{customdata[0]}, GPU %{customdata[1]}<br>%{customdata[2]}<extra></extra>",
            showlegend=False,
        )
    )
    fig.update_xaxes(title_text="GPU", type="category", showgrid=False)
    fig.update_yaxes(type="category", categoryorder="array", categoryarray=nodes[::-1], showgrid=False)
    return finish_layout(fig, 90 + 70 * len(nodes)).update_layout(margin={"l": 10, "r": 10, "t": 10, "b": 10})
