"""Explore's sidebar section "Queues" (layout only): the queues table as a ``st.data_editor`` (issue 34).

The editor is drawn over the scenario's table, or, while that is empty, over the queues the workload
brings itself (the ``teams`` preset's three), so an edit of those makes them the table's. Its edits
become the table's canonical text in the session before the scenario is read
(:func:`dashboard.shared.queue_table.edited`), so the runs and the link follow them; edits with a
problem stay in the editor and are said under it, naming row and column, while the runs keep the
last table without one.
"""

from __future__ import annotations

import streamlit as st

from dashboard.shared import queue_table, table_edits
from dashboard.shared.demo import LOCAL, Limits
from dashboard.shared.plain import md
from dashboard.shared.scenario import Scenario
from simcore.core.model import MAX_RESOURCE
from simcore.core.queues import QUEUE_COLUMNS, QueueSpec

#: the editor's columns: the queues file's names, so a problem's column is the one the table shows
COLUMN_HELP = {
    "queue": "the team's name, as the workload's `queue` column gives it",
    "gpu": "the quota: GPUs guaranteed to the team (a number >= 0, or inf)",
    "borrow_limit": "GPUs the team may hold above its quota (a number >= 0; inf or empty = no limit; 0 = never borrows)",
    "weight": "fair-sharing weight (> 0): borrowers are served in the order of their usage over weight",
}

#: the columns' widths (pixels): narrow, so that the sidebar shows most of the table
WIDTHS = {"queue": 60, "gpu": 40, "borrow_limit": 56, "weight": 46}


def expanded(scenario: Scenario) -> bool:
    """The section starts open when the runs have queues (the table's or the workload's own)."""
    return bool(scenario.queues) or _own(scenario) is not None


def draw(lim: Limits, scenario: Scenario) -> None:
    own = None if scenario.queues else _own(scenario)
    # the scenario's table is canonical under the local limits (a link's may hold more rows than the demo's)
    rows = queue_table.rows_of(own if own is not None else queue_table.parse(scenario.queues, LOCAL.max_queues))
    st.caption(
        "Teams sharing the cluster (DESIGN rule 11), one row each: **gpu** its quota and **borrow_limit** what it "
        "may hold above it, in GPUs (a number, or `inf`: no limit); **weight** its fair-sharing weight. Jobs name "
        f"their queue in the workload's `queue` column. The first row is row 1; at most {lim.max_queues} rows here."
    )
    if own is not None:
        st.caption("These are the teams preset's own queues: an edit makes them this table's (and the link's).")
    editor = queue_table.editor_key(rows)
    st.data_editor(
        queue_table.frame(rows),
        key=editor.name,
        num_rows="dynamic",
        hide_index=True,
        width="stretch",
        placeholder="",  # a new row's name not typed yet: empty, not "None"
        on_change=queue_table.edited,
        args=(st.session_state, editor, rows, lim.max_queues),
        column_config={
            "queue": st.column_config.TextColumn(
                "queue", help=COLUMN_HELP["queue"], max_chars=200, width=WIDTHS["queue"]
            ),
            "gpu": st.column_config.TextColumn(
                "gpu", help=COLUMN_HELP["gpu"], default="0", max_chars=40, width=WIDTHS["gpu"]
            ),
            "borrow_limit": st.column_config.TextColumn(
                "borrow_limit",
                help=COLUMN_HELP["borrow_limit"],
                default="inf",
                max_chars=40,
                width=WIDTHS["borrow_limit"],
            ),
            "weight": st.column_config.NumberColumn(
                "weight",
                help=COLUMN_HELP["weight"],
                default=1.0,
                min_value=0.0,
                max_value=MAX_RESOURCE,
                format="%g",
                width=WIDTHS["weight"],
            ),
        },
    )
    problem = queue_table.pending_problem(st.session_state, editor, rows, lim.max_queues)
    if problem:
        st.warning(f"{md(problem)}\n\nThe runs use the last table without a problem.", icon=":material/table_edit:")
    elif own is not None and not table_edits.apply_edits(rows, editor.get(st.session_state, {}), QUEUE_COLUMNS):
        st.caption("An empty table means the workload's own queues: the preset's three stay in use.")
    elif not scenario.queues and own is None:
        st.caption("No queues: every job runs in one queue without a quota.")


def _own(scenario: Scenario) -> QueueSpec | None:
    return queue_table.own_queues(scenario.source, scenario.preset, dict(scenario.gen))
