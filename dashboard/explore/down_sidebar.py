"""Explore's sidebar section "Failures and maintenance" (layout only): the node-events table and the
random failures' knobs (DESIGN rule 12).

The table's rows live in the session (:mod:`dashboard.shared.node_events_table` applies the editor's
edits to them), so the scenario read before the sidebar is drawn already has them; they are checked
against the cluster before any run, and refused with their row and column. ``checkpoint_cost`` stays
with the other checkpoint knobs (the Knobs section).
"""

from __future__ import annotations

import streamlit as st

from dashboard.shared import keys, knob_widgets, node_events_table
from dashboard.shared.demo import Limits
from simcore.core.downtime import KINDS
from simcore.core.model import MAX_TIME

#: the knobs of random failures, shown here rather than among the other knobs
RANDOM_FAILURES = ("mtbf", "repair")


def draw(lim: Limits) -> None:
    rows = keys.NODE_EVENTS.get(st.session_state, ())
    st.caption(
        "Down windows of nodes, as a node-events file has them: **node** (a name of the cluster), **start** and "
        "**end** in seconds of the run, **kind**: *failure* (every job there stops at once, no grace) or "
        "*maintenance* (its jobs are signalled `grace` seconds before, as by a preemption). The first row is row 1. "
        f"At most {lim.max_node_events:,} rows here; each window also counts in the work budget."
    )
    editor = node_events_table.editor_key(rows)
    st.data_editor(
        node_events_table.frame(rows),
        key=editor.name,
        num_rows="dynamic",
        hide_index=True,
        width="stretch",
        on_change=node_events_table.edited,
        args=(st.session_state, editor),
        column_config={  # narrow columns (pixels): all four in sight in the sidebar, kind scrolled to when it is narrow
            "node": st.column_config.TextColumn("node", help="a node of the cluster, by name", width=58),
            "start": st.column_config.NumberColumn(
                "start (s)", min_value=0.0, max_value=MAX_TIME, format="%g", width=52
            ),
            "end": st.column_config.NumberColumn("end (s)", min_value=0.0, max_value=MAX_TIME, format="%g", width=52),
            "kind": st.column_config.SelectboxColumn("kind", options=list(KINDS), width=92),
        },
    )
    if rows:
        st.download_button(
            "Table as a node-events file",
            node_events_table.csv_text(rows),
            node_events_table.FILE_NAME,
            "text/csv",
            icon=":material/download:",
            on_click="ignore",
            help="the same windows for `simcore run ... --node-events node_events.csv`",
        )
    knob_widgets.render(st, only=RANDOM_FAILURES)
