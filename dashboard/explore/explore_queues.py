"""Explore's Queues tab (issue 34), drawn thinly: per queue its waits, slowdowns, usage and preemptions
for every policy; one run's usage against each quota over time; its preemption ledger as a timeline and
a table whose rows open the decision record and the jobs on the One job tab."""

from __future__ import annotations

import streamlit as st

from dashboard.explore import decision_view, job_state, queue_charts, queue_views
from dashboard.runs import data
from dashboard.shared import keys, queue_table, state, tables, views
from dashboard.shared.chart_style import PLOT_CONFIG
from dashboard.shared.demo import limits
from dashboard.shared.plain import md
from dashboard.shared.scenario import Scenario
from simcore.core.model import ClusterSpec
from simcore.core.queues import DEFAULT_QUEUE, job_queue_names

NO_QUEUES = (
    "These runs have no queues. Give the teams' quotas in the sidebar's **Queues** table, or generate "
    "the **teams** preset, whose three teams bring their own."
)


def show(scenario: Scenario, comparison: data.Comparison, job_tab: str) -> None:
    runs = comparison.runs
    with_queues = [p for p in scenario.policies if runs[p].usage is not None]
    if not with_queues:
        st.info(NO_QUEUES, icon=":material/groups:")
        return
    st.markdown("**Per queue, every policy**")
    tables.show(queue_views.queue_frame({p: runs[p].summary for p in with_queues}))
    st.caption(
        "Waits and slowdowns of each queue's jobs; mean use averages the GPUs its jobs hold over the run; "
        "preemptions are counted per job stopped: reclaimed from it (by another queue), stopped by its own "
        "TE jobs, and the reclaims its jobs made. GPU-h paid to reclaims: lost, in grace and restoring. "
        + views.seed_note(comparison.seeds)
    )
    policy = st.selectbox("Run shown", with_queues, key="queues_policy")
    run = runs[policy]
    assert run.usage is not None and run.ledger is not None
    spec = comparison.cluster.queues
    limits = {q.name: q.borrow_limit for q in spec.queues} if spec is not None else {}
    st.markdown("**GPUs held against each quota**")
    st.plotly_chart(queue_charts.usage_figure(run.usage, limits), config=PLOT_CONFIG, key="queues_usage")
    rows = queue_views.ledger_rows(run.ledger)
    st.markdown("**The preemption ledger: who paid, who gained**")
    if not rows:
        st.caption(f"No preemption in the {policy} run.")
        return
    names = queue_views.queue_names(run.usage)
    st.plotly_chart(queue_charts.ledger_figure(rows, names), config=PLOT_CONFIG, key="queues_ledger")
    table = tables.show(
        queue_views.ledger_table(rows), height=300, on_select="rerun", selection_mode="single-row", key="ledger_table"
    )
    picked = table.selection.rows
    if not picked:
        st.caption(f"Select a row for its decision record and to open its jobs in the {job_tab} tab.")
        return
    row = rows[picked[0]]
    st.text(queue_views.ledger_words(row))  # job ids and queue names may be an upload's: plain text
    left, right = st.columns(2)
    left.button(
        f"Open job {row['job']} (gained) in {job_tab}",
        on_click=job_state.open_job,
        args=(st.session_state, policy, row["job"], job_tab),
        key="ledger_open_gained",
    )
    right.button(
        f"Open job {row['victims'][0]} (paid) in {job_tab}",
        on_click=job_state.open_job,
        args=(st.session_state, policy, row["victims"][0], job_tab),
        key="ledger_open_paid",
    )
    chosen = {"job_id": row["victims"][0], "time": row["time"]}
    decision_view.show(comparison.workload, comparison.cluster, scenario, runs, policy, chosen)


def notice(scenario: Scenario, workload: data.Workload, cluster: ClusterSpec) -> None:
    """Under the workload's caption: the queues the runs use (the sidebar's Queues table shows them, the
    preset's own included, to edit), or, for a workload whose ``queue`` column names teams but has no queues yet, a table to start from."""
    spec = cluster.queues
    if spec is not None:
        st.caption(md(queue_views.queues_caption(spec, own=not scenario.queues)))  # the sidebar's table edits them
        return
    names = sorted(set(job_queue_names(workload.table).tolist()))
    if names == [DEFAULT_QUEUE]:
        return
    shown = names[: limits().max_queues]
    with st.container(key="queues_from_upload"):
        st.info(
            f"The workload's `queue` column names {len(names)} queues ({md(', '.join(shown))}"
            f"{' ...' if len(shown) < len(names) else ''}), but no quotas are given: every job runs in one "
            "queue without quota. Give each team its quota in the sidebar's Queues table.",
            icon=":material/groups:",
        )
        if len(shown) == len(names):
            st.button(
                "Fill the Queues table (the GPUs shared equally)",
                on_click=state.set_widgets,
                args=({keys.QUEUES.name: queue_table.text_of(queue_table.proposal(names, cluster.total().gpu))},),
                key="queues_fill",
            )
