"""Explore's "Was it worth it?" tab (layout only): per policy, the TE wait it saved against the BE
GPU-seconds its preemptions cost, and the worst decisions, each a click away from its place on
the Gantt and its decision record.

The numbers are :mod:`dashboard.explore.worth_views`'s, drawn by
:func:`dashboard.explore.charts.worth_figure`; the jump reuses the Gantt tab's chosen preemption
(:func:`dashboard.shared.state.gantt_jump`). Job ids and node names may come from an upload: the
table is data, never Markdown.
"""

from __future__ import annotations

import weakref

import streamlit as st

from dashboard.explore import charts, worth_views
from dashboard.runs import data
from dashboard.shared import keys, state, tables, views
from dashboard.shared.chart_style import PLOT_CONFIG
from dashboard.shared.scenario import Scenario
from simcore.core import fmt
from simcore.policies import POLICIES


def show(scenario: Scenario, comparison: data.Comparison, gantt_tab: str) -> None:
    runs = comparison.runs
    worth = worth_views.worth_frame(comparison.seed_flats, scenario.baseline)
    st.plotly_chart(charts.worth_figure(worth), config=PLOT_CONFIG, key="worth")
    st.caption(
        f"Up is shorter TE waits than {scenario.baseline} (mean TE wait saved); right is more BE GPU-hours thrown "
        "away or held idle by preemptions: lost work (what a victim computed since its last checkpoint), grace "
        "(the GPUs it holds while it stops) and restore (the GPUs it holds while it reloads). Policies that lie on "
        f"one point share a label. {views.seed_note(comparison.seeds)}"
    )
    preemptive = [p for p in scenario.policies if POLICIES[p].preemptive]
    worst = worth_views.worst_decisions({p: runs[p].decisions for p in preemptive})
    if worst.empty:
        st.info("No preemption in these runs: nothing to account for.", icon=":material/info:")
        return
    st.markdown("**The worst decisions** (wasted first, then the most excess GPUs)")
    tables.show(worth_views.worst_table(worst))
    # an instant as the Gantt's time axis reads it, not raw seconds
    labels = [
        f"{i + 1}. {policy} at {fmt.clock(t)}"
        for i, (policy, t) in enumerate(zip(worst["policy"], worst["time"].to_numpy(float), strict=True))
    ]
    pick, go = st.columns([3, 1], vertical_alignment="bottom")
    picked = pick.selectbox("Decision", range(len(worst)), format_func=labels.__getitem__, key=keys.WORTH_DECISION.name)
    row = worst.iloc[int(picked)]
    go.button(
        "Show on the Gantt",
        icon=":material/open_in_new:",
        on_click=state.gantt_jump,
        # a weak reference: the button's arguments stay in the session (dashboard/runs/held.py)
        args=(
            st.session_state,
            row["policy"],
            weakref.ref(runs[row["policy"]]),
            comparison.cluster,
            row.to_dict(),
            gantt_tab,
        ),
        width="stretch",
        help="opens the Gantt tab on this decision's first preemption, with its decision record",
    )
    st.caption(
        "Wasted: the TE job started elsewhere before its victims released. Excess GPUs: what the "
        "victims freed beyond what the TE job lacked on its node. " + views.seed_note(comparison.seeds)
    )
