"""Interruptions by cause on Explore (layout only): the table under the Preemptions tab and the cost
chart of "Was it worth it?", for runs with down time (node events or ``mtbf``: DESIGN rule 12).

The frames are :mod:`dashboard.explore.interruption_views`'s, the chart
:func:`dashboard.explore.charts.cause_figure`; every number is written by :mod:`simcore.core.fmt`.
Nothing is drawn for runs without down time.
"""

from __future__ import annotations

import streamlit as st

from dashboard.explore import charts, interruption_views
from dashboard.runs import data
from dashboard.shared import views
from dashboard.shared.chart_style import PLOT_CONFIG
from simcore.core import fmt


def table(comparison: data.Comparison) -> None:
    """Every interruption by cause: the policy's preemptions beside the drains and failures nobody chose."""
    flats = {p: r.flat for p, r in comparison.runs.items()}
    causes = interruption_views.cause_table(flats)
    if causes.empty:
        return
    st.markdown("**Interruptions by cause**")
    counts = interruption_views.CAUSE_COLUMNS[0][0]
    hours = [h for h, _ in interruption_views.CAUSE_COLUMNS[1:]]
    st.dataframe(
        causes.style.format(dict.fromkeys((counts, *hours), fmt.cell), na_rep=fmt.MISSING),
        hide_index=True,
        width="stretch",
    )
    down = interruption_views.node_hours_down(flats)
    st.caption(
        "A preemption is the policy's choice; a maintenance drain signals a node's jobs `grace` seconds before its "
        "window (as a preemption does), a node failure stops them at once. GPU-hours count every job's (TE jobs are "
        "drained and fail too): work thrown away, held in a grace period, spent restoring. "
        f"Nodes were down {fmt.number(down)} node-hours in all. {views.seed_note(comparison.seeds)}"
    )


def cost_chart(comparison: data.Comparison) -> None:
    """What each policy's interruptions cost, by cause, mean over the seeds."""
    costs = interruption_views.cost_by_cause(comparison.seed_flats)
    if costs.empty:
        return
    st.markdown("**What interruptions cost, by cause**")
    st.plotly_chart(charts.cause_figure(costs), config=PLOT_CONFIG, key="worth_causes")
    st.caption(
        "The point above counts only the preemptions, the policy's own choice. Drains and failures cost too, and "
        "a policy changes what they hit (which jobs run where, and what they kept); mean over the seeds, GPU-hours "
        "of every job, lost work + grace + restore."
    )
