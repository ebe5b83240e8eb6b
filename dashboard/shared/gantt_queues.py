"""The Gantt by queue (issue 34), pure (no Streamlit, no Plotly): each bar's queue, each queue's colour,
and the lanes grouped by queue.

A run with queues (DESIGN rule 11) can be drawn with its bars coloured by their job's queue (the legend
names the queues) and/or its lanes grouped by queue: one band per queue, in the queues' order, holding
the GPU lanes (``node``, ``lane``) that queue's jobs used in the whole run (so the layout does not move
with the window), nodes in the chosen order, lanes in their order. A lane used by two queues at different
times is drawn in each band: every bar is still on its real node and GPU lane.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pandas as pd

from dashboard.shared.down_views import DOWN_BAR_COLUMNS, down_bars
from simcore.analysis import gantt
from simcore.core import fmt
from simcore.core.queues import QueueSpec

#: the queues' colours, in the queues' order (Okabe-Ito's, then darker tones): none is the Gantt's TE red,
#: restore yellow or grace grey; the 10th queue takes the 1st colour again (the legend and hover name each)
QUEUE_COLORS = (
    "#0072B2",
    "#E69F00",
    "#CC79A7",
    "#009E73",
    "#56B4E9",
    "#D55E00",
    "#7B4F9D",
    "#8C6D31",
    "#393B79",
)
BAND_GAP = 2.0  # blank rows above each queue's band, holding its label (a node's lanes are GANTT_GAP apart)


@dataclass(frozen=True)
class ByQueue:
    """How the Gantt shows a run's queues: ``names`` in the queues' order, each job's queue (``of_job``),
    a label per queue (its quota, with the unit), and whether bars are coloured and lanes grouped."""

    names: tuple[str, ...]
    of_job: Mapping[str, str]
    labels: Mapping[str, str]
    colour: bool
    group: bool


def by_queue(spec: QueueSpec, jobs: pd.DataFrame, colour: bool, group: bool) -> ByQueue | None:
    """The Gantt's queue view for a run with queues ``spec`` whose jobs frame has a ``queue`` column; None
    when neither colouring nor grouping is asked for."""
    if not (colour or group):
        return None
    labels = {
        q.name: f"{q.name}: quota {fmt.number(q.gpu)} GPUs" if math.isfinite(q.gpu) else f"{q.name}: no quota"
        for q in spec.queues
    }
    of_job = dict(zip(jobs["job_id"].astype(str), jobs["queue"].astype(str), strict=True))
    return ByQueue(tuple(spec.names), of_job, labels, colour, group)


def colors(names: Sequence[str]) -> dict[str, str]:
    """Each queue's colour: the ``i``-th queue takes the ``i``-th of :data:`QUEUE_COLORS` (cycling)."""
    return {name: QUEUE_COLORS[i % len(QUEUE_COLORS)] for i, name in enumerate(names)}


def text_color(fill: str) -> str:
    """The colour of a job id written on a bar of ``fill`` (``#RRGGBB``): white on a dark fill, else near black."""
    r, g, b = (int(fill[i : i + 2], 16) / 255 for i in (1, 3, 5))
    return "white" if 0.2126 * r + 0.7152 * g + 0.0722 * b < 0.5 else "#111111"


def with_queues(segments: pd.DataFrame, by: ByQueue) -> pd.DataFrame:
    """``segments`` (or bars) with each row's job's ``queue``."""
    return segments.assign(queue=segments["job_id"].astype(str).map(by.of_job))


def grouped_layout(segments: pd.DataFrame, nodes: Sequence[str], names: Sequence[str], gap: float) -> pd.DataFrame:
    """Rows of a Gantt panel grouped by queue, top to bottom: queue, node, lane, y. Each queue's band holds the
    (node, lane) pairs its jobs used (``segments`` with a ``queue`` column), nodes in the order of ``nodes``,
    then GPU lanes by number, the ``cpu`` lane last, ``gap`` blank rows between two nodes' lanes (as in
    :func:`~dashboard.shared.gantt_views.lane_layout`); a queue whose jobs used none of these nodes has no band."""
    position = {name: i for i, name in enumerate(nodes)}
    used = segments.loc[segments["node"].isin(set(nodes)), ["queue", "node", "lane"]].drop_duplicates()
    rows: list[dict[str, object]] = []
    y = BAND_GAP
    for queue in names:
        mine = used[used["queue"] == queue]
        if mine.empty:
            continue
        order = sorted(
            zip(mine["node"], mine["lane"], strict=True),
            key=lambda nl: (position[nl[0]], nl[1] == gantt.CPU_LANE, nl[1] if nl[1] != gantt.CPU_LANE else 0),
        )
        last = None
        for node, lane in order:
            if last is not None and node != last:
                y += gap
            rows.append({"queue": queue, "node": node, "lane": lane, "y": y})
            y += 1.0
            last = node
        y += gap + BAND_GAP
    return pd.DataFrame(rows, columns=["queue", "node", "lane", "y"])


def bands(layout: pd.DataFrame) -> pd.DataFrame:
    """Each queue's band of a grouped layout: queue, its top and bottom row (y), in the layout's order."""
    span = layout.groupby("queue", sort=False)["y"].agg(["min", "max"])
    return pd.DataFrame({"queue": span.index, "top": span["min"].to_numpy(), "bottom": span["max"].to_numpy()})


def down_in_layout(down: pd.DataFrame, layout: pd.DataFrame, window: tuple[float, float]) -> pd.DataFrame:
    """A node's down stretches across its lanes (:func:`~dashboard.shared.down_views.down_bars`): in a grouped
    layout once per band that shows the node, across the node's lanes in that band."""
    if "queue" not in layout.columns:
        return down_bars(down, layout, window)
    parts = [down_bars(down, band, window) for _, band in layout.groupby("queue", sort=False)]
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=list(DOWN_BAR_COLUMNS))
