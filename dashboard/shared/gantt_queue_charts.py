"""The Gantt by queue, drawn (thin Plotly parts of :mod:`dashboard.shared.gantt_charts`): the queues' legend,
each bar's queue in its trace's name, outline and hover, and the bands of lanes grouped by queue with their
labels, from :mod:`dashboard.shared.gantt_queues`. Queue names are visitor text: each goes through
:func:`~dashboard.shared.plain.chart_text`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd
import plotly.graph_objects as go

from dashboard.shared import gantt_queues
from dashboard.shared.gantt_queues import ByQueue
from dashboard.shared.plain import chart_text

CLASS_TEXT = {"TE": "white", "BE": "#0B3C5D"}  # a job id on a bar in its class colour


def colours_note(by: ByQueue | None) -> str:
    """The words under a Gantt on its bars' colours and, grouped by queue, on its bands."""
    if by is None or not by.colour:
        words = "Red = TE, blue = BE"
    else:
        words = "Each bar in its job's queue's colour (the legend names the queues), a TE bar outlined in black"
    if by is not None and by.group:
        words += "; the lanes are grouped by queue, one band each, labelled with its quota in GPUs"
    return words


def group_of(queue: str) -> str:
    """The legend group of a queue's bars (its legend entry hides or shows them all)."""
    return f"queue {chart_text(queue)}"


def legend_trace(queue: str, tint: str) -> go.Scatter:
    """A queue's legend entry: a square of its colour, drawn nowhere."""
    return go.Scatter(
        x=[None],
        y=[None],
        mode="markers",
        name=chart_text(queue),
        legendgroup=group_of(queue),
        marker={"symbol": "square", "size": 12, "color": tint},
        hoverinfo="skip",
    )


def queue_parts(bars: pd.DataFrame, by: ByQueue | None) -> list[tuple[str | None, pd.DataFrame]]:
    """The bars by queue when they are coloured by queue (in the queues' order), else all of them at once."""
    if by is None or not by.colour:
        return [(None, bars)]
    return [(queue, bars[bars["queue"] == queue]) for queue in by.names]


def bar_names(cls: str, kind: str, queue: str | None, row: int) -> dict[str, Any]:
    """A bar trace's legend: by class and kind; coloured by queue, in its queue's group (named by its legend trace)."""
    if queue is None:
        return {"name": f"{cls} {kind}", "legendgroup": f"{cls} {kind}", "showlegend": row == 1}
    return {"name": chart_text(queue), "legendgroup": group_of(queue), "showlegend": False}


def id_color(cls: str, tint: str, queue: str | None) -> str:
    """The colour of the job ids written on a bar: by its class, or coloured by queue, readable on its fill."""
    return CLASS_TEXT[cls] if queue is None else gantt_queues.text_color(tint)


def outline(cls: str, queue: str | None) -> dict[str, Any]:
    """A bar's outline: white; coloured by queue, a TE bar's is black (its colour no longer tells the class)."""
    if queue is not None and cls == "TE":
        return {"width": 1.5, "color": "#111111"}
    return {"width": 0.6, "color": "white"}


def queue_lines(bars: pd.DataFrame) -> list[str]:
    """Each bar's hover line naming its job's queue (none when the Gantt is not by queue)."""
    if "queue" not in bars.columns:
        return [""] * len(bars)
    return [f"<br>queue {chart_text(q)}" if isinstance(q, str) else "" for q in bars["queue"]]


def band_lines(bands: pd.DataFrame, axis: str) -> list[dict[str, object]]:
    """A line across the panel above each queue's band but the first (``axis``: the panel's axis suffix)."""
    return [
        {
            "type": "line",
            "xref": f"x{axis} domain",
            "yref": f"y{axis}",
            "x0": 0,
            "x1": 1,
            "y0": top - gantt_queues.BAND_GAP / 2 - 0.5,
            "y1": top - gantt_queues.BAND_GAP / 2 - 0.5,
            "line": {"width": 1.5, "color": "#333333"},
        }
        for top in bands["top"].iloc[1:]
    ]


def band_labels(bands: pd.DataFrame, labels: Mapping[str, str], axis: str) -> list[dict[str, object]]:
    """Each band's label (its queue and quota) over its first lane, at the panel's right edge."""
    return [
        {
            "xref": f"x{axis} domain",
            "yref": f"y{axis}",
            "x": 1,
            "y": top - 0.5,
            "text": f"<b>{chart_text(labels.get(queue, queue))}</b>",
            "showarrow": False,
            "xanchor": "right",
            "yanchor": "bottom",
            "font": {"size": 11, "color": "#333333"},
            "bgcolor": "rgba(255,255,255,0.8)",
        }
        for queue, top in zip(bands["queue"], bands["top"], strict=True)
    ]
