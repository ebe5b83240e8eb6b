"""The look every figure shares: one colour, dash and marker per policy, the template and the
legend on top, so a reader can move between charts without re-reading legends."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypedDict

import plotly.graph_objects as go

TEMPLATE = "plotly_white"
PLOT_CONFIG = {"displaylogo": False}  # st.plotly_chart's config: no Plotly logo in the mode bar
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


def policy_colors(policies: Sequence[str]) -> dict[str, str]:
    spare = iter(SPARE_COLORS * (1 + len(policies) // len(SPARE_COLORS)))
    return {p: POLICY_COLORS.get(p) or next(spare) for p in policies}


class PolicyStyle(TypedDict):
    color: str
    dash: str
    symbol: str
    size: int  # marker size (px)


def policy_styles(policies: Sequence[str]) -> dict[str, PolicyStyle]:
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


def finish_layout(fig: go.Figure, height: int, **kwargs: object) -> go.Figure:
    fig.update_layout(
        template=TEMPLATE,
        height=height,
        margin={"l": 10, "r": 10, "t": 80, "b": 10},
        legend={"orientation": "h", "yanchor": "bottom", "y": 1.1, "x": 0},
        hoverlabel={"namelength": -1},
        **kwargs,
    )
    return fig
