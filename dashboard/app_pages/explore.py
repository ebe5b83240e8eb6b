"""Explore: one scenario, several policies side by side (widgets and layout only)."""

from __future__ import annotations

import numpy as np
import streamlit as st

from dashboard.explore import (
    charts,
    explore_gantt,
    explore_job,
    explore_queues,
    explore_results,
    explore_sidebar,
    explore_worth,
    first_chart,
)
from dashboard.report import report_button
from dashboard.runs import budget, data, drawing, worker
from dashboard.shared import demo, keys, notices, sizing, state, tables, uploads, views
from dashboard.shared.chart_style import PLOT_CONFIG
from dashboard.shared.demo import limits
from dashboard.shared.plain import md
from dashboard.shared.scenario import Scenario, from_widgets
from simcore.core import fmt
from simcore.core.errors import UserError
from simcore.workload import offered_load

JOB_TAB = "One job"  # the tab a row of the jobs table opens
TABS = (
    "Slowdown",
    "Gantt",
    "Utilisation and queue",
    "Preemptions",
    "Queues",
    "Was it worth it?",
    JOB_TAB,
    "Jobs and downloads",
)

lim = limits()
first = first_chart.first_run(st.session_state)  # the session's first run may hold the rest (below)
link_warnings = first_chart.warnings(
    st.session_state,
    state.restore("explore", keys.SOURCE.name, demo.vetted(Scenario.from_query, lim), state.explore_widget_values),
)

# the scenario is read from the session before the sidebar's widgets are drawn (explore_sidebar.py):
# the first chart reaches the browser ahead of them
explore_sidebar.settle(st.session_state)
upload_file, cluster_file = explore_sidebar.files(st.session_state)
previous = state.last_settings("explore") or Scenario()
scenario, problems = from_widgets(state.widget_state(), previous, uploads.UPLOAD_DEFAULTS)
sidebar = explore_sidebar.Sidebar(lim, scenario)
state.publish("explore", scenario, scenario.to_query())
if not first:  # only a session's first run sends its first chart ahead of the sidebar
    sidebar.draw()


def results() -> bool:
    """The results of ``scenario``; returns early when there is nothing (more) to show, True when
    this run ends after the first chart (first_chart.py: its answer starts the run that draws the rest)."""
    link_note = "This link restores every setting except uploaded files."
    if scenario.source == "upload" and upload_file is not None:
        link_note = (
            f"The uploaded file {md(upload_file.name)} is not in this link: whoever opens it must upload the file "
            "again. Every other setting is in the link."
        )
    state.title_with_link("Explore: one scenario, several policies", scenario.to_query(), link_note)
    st.caption(f"{views.INTRO} {demo.reach(lim)}")  # the first screen says what the words and this page are
    notices.link_warnings(link_warnings)
    for problem in problems:
        st.warning(md(problem))

    if scenario.source == "upload" and upload_file is None:
        st.info(
            "Upload a workload file in the sidebar: CSV, JSON records or Parquet with the canonical columns, "
            "or an Alibaba GPU trace pod list.",
            icon=":material/upload_file:",
        )
        return False
    if scenario.cluster == "upload" and cluster_file is None:
        st.info(
            "Upload a cluster file in the sidebar: YAML/JSON pools or a node list CSV.", icon=":material/upload_file:"
        )
        return False
    try:
        budget.check_scenario(scenario, lim)  # before any workload is built
        upload = uploads.upload_content(upload_file) if upload_file is not None else None
        cluster_upload = uploads.upload_content(cluster_file, "cluster") if cluster_file is not None else None
        workload = data.load_workload(scenario, upload)
        cluster = data.resolve_cluster(scenario, workload, cluster_upload)
        workload_file = upload[0] if upload else budget.WORKLOAD_FILE
        workers = int(workload.table.workers.sum())  # type: ignore[union-attr]
        windows = budget.down_windows(scenario, workload.table, len(cluster.nodes))
        queued = cluster.queues is not None
        budget.check_run(
            scenario, len(workload.table), len(cluster.nodes), lim, workload_file, workers, windows, queued
        )
        with notices.progress("Simulating...") as heartbeat:
            command = budget.explore_command(scenario, workload_file)
            comparison = data.compare(scenario, workload, cluster, sidebar.then(heartbeat), command)
    except UserError as exc:
        notices.error(exc)
        return False
    except worker.Cancelled:
        return False
    runs = comparison.runs
    baseline = scenario.baseline

    # --- the workload -------------------------------------------------------------------------------
    table = workload.table
    load = offered_load(table, cluster)
    unschedulable = runs[baseline].summary["unschedulable"]
    ran = ~np.isin(table.job_id, unschedulable)  # only the jobs that were simulated are counted
    ran_jobs, te_jobs = int(ran.sum()), int((table.is_te & ran).sum())
    not_run = f" · {len(table) - ran_jobs:,} not simulated (fit on no node)" if ran_jobs < len(table) else ""
    st.caption(
        f"**{md(workload.label)}** · {ran_jobs:,} jobs ({te_jobs:,} TE, {ran_jobs - te_jobs:,} BE){not_run} · "
        f"{len(cluster.nodes)} nodes, {cluster.total().gpu:g} GPUs · offered GPU load {fmt.load(load)}"
    )
    for note in workload.notes:
        st.caption(md(note))
    explore_queues.notice(scenario, workload, cluster)
    if scenario.source == "upload" and scenario.cluster == "workload":  # nobody chose this cluster: say so
        proposal = sizing.propose(table, cluster)
        with st.container(key="upload_cluster"):
            st.info(sizing.cluster_notice(cluster, load, proposal), icon=":material/dns:")
            if proposal is not None:
                st.button(
                    f"Use {proposal.nodes} nodes (offered GPU load {fmt.load(proposal.load)})",
                    on_click=state.set_widgets,
                    args=(proposal.widgets(),),
                    key="size_cluster",
                )
    if sizing.all_equal({p: r.flat for p, r in runs.items()}, scenario.policies):
        st.warning(sizing.equal_warning(load), icon=":material/balance:")
    if unschedulable:
        shown = ", ".join(unschedulable[:20]) + (" ..." if len(unschedulable) > 20 else "")
        st.warning(f"{len(unschedulable)} jobs fit on no node of this cluster and were not simulated: {md(shown)}")
    if len(unschedulable) == len(table):
        st.info(
            "No job fits on any node of this cluster, so nothing ran: give the nodes more CPU, memory or GPUs.",
            icon=":material/info:",
        )
        return False
    details = st.expander("Workload details", key="workload_details", on_change="rerun")
    if details.open:  # drawn only when opened: the first render stays fast
        with details:
            left, right = st.columns([2, 3])
            with left:
                tables.show(views.workload_overview(table))
            right.plotly_chart(
                charts.workload_figure(views.workload_jobs(table)), config=PLOT_CONFIG, key="workload_hist"
            )

    # --- the trio and the charts -------------------------------------------------------------------
    bound = None
    if st.toggle(
        "Pooled bound",
        key=keys.BOUND.name,
        help="draw the pooled bound 'ideal' (the same jobs on one node with the "
        "cluster's resources, k8s, no grace or restore: the limit TE waits can approach) as dashed lines",
    ):
        try:
            budget.check_bound(scenario, len(table), lim, workload_file)
            with notices.progress("Simulating the pooled bound...") as heartbeat:
                bound = data.bound(
                    scenario, comparison, sidebar.then(heartbeat), budget.explore_command(scenario, workload_file)
                )
        except UserError as exc:
            notices.error(exc)
        except worker.Cancelled:
            return False
    explore_results.trio(scenario, comparison, bound)
    if first_chart.holds(first, waited=sidebar.drawn):  # a progress beat drew the sidebar: it waited
        first_chart.answer_when_drawn(st.session_state, link_warnings)
        return True
    sidebar.draw()  # after the first chart and the trio
    report_button.show(scenario, comparison, upload, command, cluster_upload[0] if cluster_upload else None)
    state.keep_choice(st.session_state, keys.TAB, TABS, TABS[0])
    # only the open tab is computed and drawn ("rerun" on switch): five charts at once are slow to draw
    tab_sd, tab_gantt, tab_time, tab_pre, tab_queues, tab_worth, tab_job, tab_jobs = st.tabs(
        TABS, key=keys.TAB.name, on_change="rerun"
    )
    # drawn in one of the server's max_drawing places (dashboard/runs/drawing.py)
    with drawing.page_turn(data.drawing_places(lim.max_drawing)):
        if tab_sd.open:
            with tab_sd:
                explore_results.slowdown(comparison, bound)
        if tab_gantt.open:
            with tab_gantt:
                explore_gantt.show(scenario, comparison, workload_file)
        if tab_time.open:
            with tab_time:
                explore_results.timeline(comparison)
        if tab_pre.open:
            with tab_pre:
                explore_results.preemptions(comparison)
        if tab_queues.open:
            with tab_queues:
                explore_queues.show(scenario, comparison, JOB_TAB)
        if tab_worth.open:
            with tab_worth:
                explore_worth.show(scenario, comparison, TABS[1])
        if tab_job.open:
            with tab_job:
                explore_job.show(scenario, comparison, workload_file)
        if tab_jobs.open:
            with tab_jobs:
                explore_results.jobs(scenario, comparison, JOB_TAB, workload_file)
    return False


held = False
try:
    held = results()
finally:  # however the run ends, the sidebar is drawn, unless it waits for the first chart
    if not held:
        sidebar.draw()
