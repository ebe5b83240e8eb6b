"""When a node was down, as the Gantt draws it (DESIGN rule 12): one bar across all the node's lanes per
down stretch; pure (no Streamlit, no Plotly). The stretches are the run's
(:func:`simcore.analysis.interruptions.down_stretches`: from each ``node_down`` row to its ``node_up``), the
lanes :func:`dashboard.shared.gantt_views.lane_layout`'s."""

from __future__ import annotations

import numpy as np
import pandas as pd

#: the columns of :func:`down_bars`: a node's down stretch in the window (``seg_start``/``seg_end`` its real
#: ends), ``kind`` the kinds of its windows (:func:`simcore.analysis.interruptions.down_stretches`)
DOWN_BAR_COLUMNS = ("node", "kind", "start", "end", "seg_start", "seg_end", "y", "height")


def down_bars(down: pd.DataFrame, layout: pd.DataFrame, window: tuple[float, float]) -> pd.DataFrame:
    """The down stretches (node, start, end, kind) that reach into ``window`` (seconds) on the layout's
    nodes, each as one bar across all the node's lanes, clipped to the window (:data:`DOWN_BAR_COLUMNS`)."""
    t0, t1 = window
    here = down[(down["end"] > t0) & (down["start"] < t1) & down["node"].isin(set(layout["node"]))]
    span = layout.groupby("node", sort=False)["y"].agg(["min", "max"])
    lo, hi = span["min"].reindex(here["node"]).to_numpy(float), span["max"].reindex(here["node"]).to_numpy(float)
    return pd.DataFrame(
        {
            "node": here["node"].to_numpy(),
            "kind": here["kind"].to_numpy(),
            "start": np.maximum(here["start"].to_numpy(float), t0),
            "end": np.minimum(here["end"].to_numpy(float), t1),
            "seg_start": here["start"].to_numpy(float),
            "seg_end": here["end"].to_numpy(float),
            "y": (lo + hi) / 2,
            "height": hi - lo + 0.9,
        },
        columns=list(DOWN_BAR_COLUMNS),
    )
