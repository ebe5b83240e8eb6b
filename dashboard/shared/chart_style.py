"""The look every figure shares: one colour, dash and marker per policy, the template and the
legend on top, so a reader can move between charts without re-reading legends."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import TypedDict

import plotly.graph_objects as go

from simcore.core import fmt

TEMPLATE = "plotly_white"
# st.plotly_chart's config: no mode bar, which covered the legends (on a phone and on wide charts alike); a chart
# still zooms by dragging on it and zooms out by a double-click, and Streamlit's own toolbar opens it full screen
PLOT_CONFIG = {"displaylogo": False, "displayModeBar": False}
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


#: Major ticks of a log axis per decade: 1, 2, 5, 10, 20, 50, ...; past MAX_TICKS labels only powers of ten.
LOG_STEPS = (1, 2, 5)
MAX_TICKS = 8
SLOWDOWN_FLOOR = 1.0  # a slowdown is never below 1 (completion time / run time)


def log_axis(values: Iterable[float], floor: float | None = None, headroom: float = 0.05) -> dict[str, object]:
    """A log axis fitted to ``values`` (non-finite and non-positive ones ignored): its range from the
    data (never below ``floor``), ``headroom`` of the span added on top (room for bar labels), and
    major ticks only, labelled in plain numbers."""
    finite = [v for v in values if math.isfinite(v) and v > 0]
    lo, hi = (min(finite), max(finite)) if finite else (1.0, 10.0)
    if floor is not None:
        lo, hi = max(lo, floor), max(hi, floor)
    lo_log, hi_log = math.log10(lo), math.log10(hi)
    hi_log = max(hi_log, lo_log + 0.3)  # equal values still get a 1-2 span
    span = hi_log - lo_log
    bottom = lo_log - 0.03 * span
    if floor is not None:
        bottom = max(bottom, math.log10(floor))
    top = hi_log + headroom * span
    ticks = _log_ticks(bottom, top, LOG_STEPS)
    if len(ticks) > MAX_TICKS:
        ticks = _log_ticks(bottom, top, (1,))
    return {
        "type": "log",
        "range": [bottom, top],
        "tickmode": "array",
        "tickvals": ticks,
        "ticktext": [fmt.tick(t) for t in ticks],
        "minor": {"showgrid": False, "ticks": ""},
    }


def _log_ticks(bottom: float, top: float, steps: Sequence[int]) -> list[float]:
    """The values ``step x 10^k`` with log10 in [bottom, top], in increasing order."""
    ticks = []
    for decade in range(math.floor(bottom), math.ceil(top) + 1):
        for step in steps:
            value = step * 10.0**decade
            if bottom - 1e-9 <= math.log10(value) <= top + 1e-9:
                ticks.append(float(f"{value:.12g}"))
    return ticks


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
    """The shared layout (``kwargs`` override it: a chart with a title under its axes needs more bottom margin)."""
    layout: dict[str, object] = {
        "template": TEMPLATE,
        "height": height,
        "margin": {"l": 10, "r": 10, "t": 80, "b": 10},
        "legend": {"orientation": "h", "yanchor": "bottom", "y": 1.1, "x": 0},
        "hoverlabel": {"namelength": -1},
    }
    fig.update_layout(**(layout | kwargs))
    return fig
