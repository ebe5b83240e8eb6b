"""Explore's One job tab (layout only): pick a job of a run, then its story, its waits and their
reasons, its pieces highlighted on the GPU-lane Gantt, counterfactuals, and "When would my job start?".

The data are :mod:`dashboard.explore.job_views`' (pure), the chart
:func:`dashboard.explore.job_charts.job_gantt_figure`; the what-if answers come from
:mod:`simcore.whatif` in a worker process, through :mod:`dashboard.shared.data` (shared, bounded,
counted in the budget like any run). Job ids and node names may come from an upload: they are shown
as plain text (``st.text``, table cells, :func:`~dashboard.shared.plain.md`), never as Markdown.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

import streamlit as st

from dashboard.explore import job_charts, job_views
from dashboard.shared import budget, compute, data, gantt_views, keys, notices, state, worker
from dashboard.shared.chart_style import PLOT_CONFIG
from dashboard.shared.compute import Run
from dashboard.shared.demo import limits
from dashboard.shared.scenario import Scenario
from simcore.errors import UserError
from simcore.policies import POLICIES


def show(scenario: Scenario, comparison: data.Comparison, workload_file: str) -> None:
    """Draw the tab for the scenario's runs (``workload_file``: the workload's name in a refusal's command)."""
    runs = comparison.runs
    session = st.session_state
    preemptive = {p: POLICIES[p].preemptive for p in POLICIES}
    state.keep_choice(
        session, keys.JOB_POLICY, scenario.policies, gantt_views.gantt_default_policy(scenario.policies, preemptive)
    )
    c1, c2, c3 = st.columns([1, 1, 3], vertical_alignment="bottom")
    policy = c1.selectbox("Run", scenario.policies, key=keys.JOB_POLICY.name, help="the policy's run the job is from")
    run = runs[policy]
    c2.text_input("Filter job ids", key=keys.JOB_FILTER.name, placeholder="e.g. 17", help="ids containing this text")
    options = job_views.job_options(run.jobs, keys.JOB_FILTER.get(session, ""))
    if not options:
        st.info("No job id of this run contains that text.", icon=":material/search_off:")
        return
    state.keep_choice(session, keys.JOB_ID, options, _opening_job(run, options))
    job_id = c3.selectbox(
        "Job",
        options,
        key=keys.JOB_ID.name,
        format_func=lambda j: job_views.job_label(run.jobs, j),
        help=f"the first {job_views.MAX_OPTIONS} ids that match the filter; the tab opens on the run's first preempted job",
    )
    config = scenario.config(policy)
    explain = budget.explore_command(scenario, workload_file, ("explain", job_id, "--policy", policy))
    panel = ask(
        comparison,
        config,
        ("story", job_id),
        (compute.job_panel, (comparison.workload.table, comparison.cluster, config, job_id)),
        compute.JOB_PANEL_RUNS,
        explain,
        "Reading the job's story...",
    )
    if panel is None:
        return
    st.dataframe(job_views.job_row(run.jobs, job_id, panel.waits), hide_index=True, width="stretch")
    left, right = st.columns([2, 3])
    with left:
        st.markdown("**Its story**")
        st.text("\n".join(job_views.story_lines(panel.story)))  # ids and node names may be an upload's: plain
    with right:
        view = job_views.job_gantt(run.segments, run.events, run.jobs, comparison.cluster, policy, job_id)
        if view is None:
            st.text(f"Job {job_id} never ran in this run.")
        else:
            waits = job_views.wait_stretches(panel.waits, view.window)
            st.plotly_chart(job_charts.job_gantt_figure(view, job_id, waits), config=PLOT_CONFIG, key="job_gantt")
            st.caption(
                "The nodes the job held, over its life: its own pieces outlined in black (a gang on every node it "
                "holds), every other job faded; the top row is when it waited (hover: why)."
            )
    if panel.waits:
        st.markdown("**Why it waited**: one dominant reason per stretch, from the engine's own state")
        st.dataframe(job_views.waits_frame(panel.waits), hide_index=True, width="stretch")


def _opening_job(run: Run, options: list[str]) -> str:
    """The run's first preempted job when the filter lets it through, else the first option."""
    first = job_views.default_job(run.jobs, run.events)
    return first if first in options else options[0]


def ask(
    comparison: data.Comparison,
    config: Any,
    question: tuple[Hashable, ...],
    call: tuple[Callable[..., Any], tuple[Any, ...]],
    simulations: int,
    command: str,
    waiting: str,
) -> Any:
    """A what-if's answer through the budget and the line of computations, or None after showing why not."""
    lim = limits()
    table = comparison.workload.table
    workers = len(table) if table.workers is None else int(table.workers.sum())  # a gang counts once per worker
    try:
        budget.check_whatif(workers, simulations, lim, command)
        with notices.progress(waiting) as heartbeat:
            return data.what_if(comparison, config, question, call, heartbeat, command)
    except worker.TimedOut:
        notices.error(budget.timed_out("This what-if", lim, command))
    except UserError as exc:
        notices.error(exc)
    except worker.Cancelled:
        st.stop()
    return None
