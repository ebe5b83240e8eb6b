"""Explore's Gantt tab (layout only): the policy, nodes and window widgets, the chart, and the
chosen preemption with its decision view.

What the session holds and its defaults are :mod:`dashboard.shared.state`'s; the chart's data is
:func:`dashboard.shared.gantt_views.gantt_view`, drawn by :func:`dashboard.shared.gantt_charts.gantt_figure`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import streamlit as st

from dashboard.explore import decision_view, explore_job
from dashboard.runs import data
from dashboard.shared import gantt_charts, gantt_queue_charts, gantt_queues, gantt_views, keys, state, tables, views
from dashboard.shared.chart_style import PLOT_CONFIG
from dashboard.shared.scenario import Scenario
from simcore.core import fmt
from simcore.policies import POLICIES

GANTT_ZOOMS = {120.0: "2 min", 600.0: "10 min", 3600.0: "1 h", 4 * 3600.0: "4 h"}


def show(scenario: Scenario, comparison: data.Comparison, workload_file: str) -> None:
    """Draw the Gantt tab; the view the visitor settles on goes into the link (``workload_file``: the
    workload's name in a refusal's command). A bar's hover names why its job waited longest."""
    runs, cluster = comparison.runs, comparison.cluster
    last = max((float(r.segments["end"].max()) for r in runs.values() if len(r.segments)), default=0.0)
    too_long = gantt_views.beyond_axis(last)
    if too_long:
        st.info(too_long, icon=":material/timeline:")
        return
    session = st.session_state
    setup = state.gantt_setup(
        session,
        scenario,
        (comparison.workload.key, views.cluster_key(cluster)),
        cluster,
        runs,
        {p: POLICIES[p].preemptive for p in POLICIES},
    )
    c1, c2, c3 = st.columns([1, 1, 3])
    policy = c1.selectbox("Policy", scenario.policies, key=keys.GANTT_POLICY.name)
    c2.selectbox(
        "Stacked with",
        state.gantt_second_options(scenario.policies, policy),
        key=keys.GANTT_WITH.name,
        help="a second policy drawn below, on the same time axis",
    )
    c3.multiselect("Nodes", cluster.names, key=keys.GANTT_NODES.name)
    by_queue = _by_queue(scenario, comparison)
    w0, w1 = st.columns([1, 4], vertical_alignment="bottom")  # a wide start slider: its steps can be told apart
    lo, hi = keys.GANTT_WINDOW.read(session)  # the window the control shows, set by gantt_setup or a step
    keys.GANTT_LENGTH.set(session, hi - lo)
    keys.GANTT_START.set(session, lo)
    w0.selectbox(
        "Window length",
        gantt_views.window_lengths(setup.span),
        format_func=lambda h: gantt_views.WINDOW_LENGTHS.get(h, "whole run"),
        key=keys.GANTT_LENGTH.name,
        on_change=_window_moved,
        args=(session, setup.span),
        help="how much of the run the chart loads; zoom inside it by dragging on the chart (down to seconds)",
    )
    w1.select_slider(
        "Window start",
        gantt_views.window_starts(hi - lo, setup.span),
        format_func=lambda h: fmt.clock(h * views.HOUR),
        key=keys.GANTT_START.name,
        on_change=_window_moved,
        args=(session, setup.span),
        help="where the window starts; each step (or arrow key) moves it by a quarter of its length",
    )
    # the window in the units of the chart's time axis (day 1 = the run's first 24 hours)
    st.caption(
        f"Window: {fmt.clock(lo * views.HOUR)} to {fmt.clock(hi * views.HOUR)} ({fmt.duration((hi - lo) * views.HOUR)}) "
        f"of a run of {fmt.duration(setup.span * views.HOUR)}."
    )
    w2, w3, w4, _ = st.columns([1, 1, 1, 2], vertical_alignment="bottom")
    w2.selectbox(
        "Zoom around a preemption",
        list(GANTT_ZOOMS),
        format_func=lambda zoom: GANTT_ZOOMS[zoom],
        key=keys.GANTT_ZOOM.name,
        help="how much time the chart shows around the chosen preemption",
    )
    for box, label, icon, direction in (
        (w3, "Previous preemption", ":material/skip_previous:", -1),
        (w4, "Next preemption", ":material/skip_next:", 1),
    ):
        box.button(
            label,
            icon=icon,
            on_click=state.gantt_step,
            args=(session, setup, direction),
            disabled=setup.preempts.empty,
            width="stretch",
        )
    choice = state.gantt_choice(session)
    # one computation for both panels; refused or stopped: the notice is shown, and the hovers give no reason
    why = explore_job.why_waited(scenario, comparison, choice.policies, workload_file) or {}
    gantt = gantt_views.gantt_view(
        {p: (runs[p].segments, runs[p].events) for p in choice.policies},
        cluster,
        choice.nodes,
        choice.window,
        choice.focus,
        choice.chosen,
        why=why,
        down={p: runs[p].down for p in choice.policies},
        by_queue=by_queue,
    )
    st.plotly_chart(gantt_charts.gantt_figure(gantt), config=PLOT_CONFIG, key="gantt")
    note = ""
    if gantt.truncated:
        shown_bars = sum(len(p.bars) for p in gantt.panels)
        total_bars = sum(p.total for p in gantt.panels)
        note = f" Showing the earliest {shown_bars:,} of {total_bars:,} bars in this window: narrow the window or the nodes."
    st.caption(
        "Each node is drawn as its GPU lanes; a job covers the lanes it holds (CPU-only jobs share a `cpu` lane). "
        f"{gantt_queue_charts.colours_note(by_queue)}; yellow dotted = restoring after a preemption, grey crossed = grace period, "
        "× = preemption signal; a bar's hover says why its job waited longest. "
        f"{down_note()}Drag on the chart to zoom (down to seconds); "
        f"double-click to reset. {views.seed_note(comparison.seeds)}{note}"
    )
    message = state.take_gantt_note(session)
    if message:
        st.info(message, icon=":material/info:")
    if choice.chosen is not None:
        _chosen(scenario, comparison, policy, choice.chosen, len(setup.preempts))
    else:
        st.caption(
            f"{len(setup.preempts):,} preemptions in this run. Use Previous / Next preemption to step through them."
        )
    state.publish_gantt_view(scenario, setup, choice)


def _by_queue(scenario: Scenario, comparison: data.Comparison) -> gantt_queues.ByQueue | None:
    """The queue controls (a run with queues): bars coloured by queue, lanes grouped by queue; else a note."""
    spec = comparison.cluster.queues
    state.gantt_queue_setup(st.session_state, scenario, spec is not None)
    if spec is None:
        st.caption(
            "These runs have no queues, so the Gantt cannot be coloured or grouped by queue: give the teams' "
            "quotas in the sidebar's Queues table, or generate the teams preset."
        )
        return None
    q1, q2, _ = st.columns([1, 1, 2])  # wide enough for "Group lanes by queue" on a laptop
    colour = q1.toggle("Colour by queue", key=keys.GANTT_QUEUE_COLOUR.name, help="each bar in its job's queue's colour")
    group = q2.toggle(
        "Group lanes by queue",
        key=keys.GANTT_QUEUE_GROUP.name,
        help="one band per queue, holding the GPU lanes its jobs used in the run (a lane shared over time is in each band)",
    )
    jobs = next(iter(comparison.runs.values())).jobs  # every run has the same jobs, each in its queue
    return gantt_queues.by_queue(spec, jobs, colour, group)


def down_note() -> str:
    """The caption's words on down time and checkpoint pauses, from the chart's own styles."""
    fail, maintenance = (gantt_charts.down_words(k) for k in ("failure", "maintenance"))
    color, pattern = gantt_charts.GANTT_KINDS["checkpoint"]
    marks = gantt_charts.MARKS
    return (
        f"A node that is down is covered across its lanes ({fail}: a failure; {maintenance}: maintenance); "
        f"{marks['fail'][2]} marks a job its node's failure stopped, {marks['drain'][2]} a maintenance drain's "
        f"signal; {gantt_charts.COLOR_NAMES[color]} with {gantt_charts.PATTERN_NAMES[pattern]} is a checkpoint's pause. "
    )


def _window_moved(session: keys.Session, span: float) -> None:
    """The visitor changed the window's length or start: the window follows (from the same start,
    moved back if the longer window would pass the run's end)."""
    length = keys.GANTT_LENGTH.read(session)
    start = min(keys.GANTT_START.read(session), span - length)
    keys.GANTT_WINDOW.set(session, gantt_views.fit_window((start, start + length), span))


def _chosen(scenario: Scenario, comparison: data.Comparison, policy: str, chosen: Mapping[str, Any], n: int) -> None:
    """The chosen preemption in words, why its victim was taken, and its events."""
    st.text(  # ids and node names may come from an upload: plain text
        f"Preemption {chosen['index'] + 1} of {n} ({policy}): BE job {chosen['job_id']} "
        f"signalled on node {chosen['node']} at {fmt.clock(chosen['time'])} "
        f"(t = {chosen['time']:,.0f} s)."
    )
    decision_view.show(comparison.workload, comparison.cluster, scenario, comparison.runs, policy, chosen)
    events = comparison.runs[policy].events
    tables.show(gantt_views.preemption_events(events, chosen), height=180)
