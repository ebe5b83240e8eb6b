"""Explore's One job tab (layout only): pick a job of a run, then its story, its waits and their
reasons, its pieces highlighted on the GPU-lane Gantt, counterfactuals, and "When would my job start?".

The data are :mod:`dashboard.explore.job_views`' (pure), the chart
:func:`dashboard.explore.job_charts.job_gantt_figure`; the what-if answers come from
:mod:`simcore.analysis.whatif` in a worker process, through :mod:`dashboard.runs.data` (shared, bounded,
counted in the budget like any run). Job ids and node names may come from an upload: they are shown
as plain text (``st.text``, table cells, :func:`~dashboard.shared.plain.md`), never as Markdown.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any

import numpy as np
import streamlit as st

from dashboard.explore import job_charts, job_state, job_views
from dashboard.runs import budget, compute, data, worker
from dashboard.runs.compute import Run
from dashboard.runs.runkeys import cluster_hash, config_json
from dashboard.shared import gantt_views, keys, notices, remembered, state, tables, views
from dashboard.shared.chart_style import PLOT_CONFIG
from dashboard.shared.demo import limits
from dashboard.shared.knob_widgets import FLOAT_FORMAT as FLOAT
from dashboard.shared.scenario import Scenario
from dashboard.shared.views import HOUR
from simcore.core.errors import UserError
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
        # labels, not a closure over the run: the widget's function outlives this script run
        format_func={j: job_views.job_label(run.jobs, j) for j in options}.__getitem__,
        help=f"the first {job_views.MAX_OPTIONS} ids that match the filter; the tab opens on the run's first preempted job",
    )
    if len(comparison.seeds) > 1:
        st.caption(views.seed_note(comparison.seeds))  # the what-ifs re-simulate the shown seed's workload
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
    tables.show(job_views.job_row(run.jobs, job_id, panel.waits))
    left, right = st.columns([2, 3])
    with left:
        st.markdown("**Its story**")
        st.text("\n".join(job_views.story_lines(panel.story)))  # ids and node names may be an upload's: plain
    with right:
        view = job_views.job_gantt(run.segments, run.events, run.jobs, comparison.cluster, policy, job_id)
        too_long = gantt_views.beyond_axis(float(run.segments["end"].max())) if view is not None else None
        if view is None:
            st.text(f"Job {job_id} never ran in this run.")
        elif too_long:
            st.info(too_long, icon=":material/timeline:")
        else:
            waits = job_views.wait_stretches(panel.waits, view.window)
            st.plotly_chart(job_charts.job_gantt_figure(view, job_id, waits), config=PLOT_CONFIG, key="job_gantt")
            st.caption(
                "The nodes the job held, over its life: its own pieces outlined in black (a gang on every node it "
                "holds), every other job faded; the top row is when it waited (hover: why). A preempted job is "
                "shown around its first preemption: double-click the chart for its whole life."
            )
    if panel.waits:
        st.markdown("**Why it waited**: one dominant reason per stretch, from the engine's own state")
        tables.show(job_views.waits_frame(panel.waits))
    _counterfactual(scenario, comparison, policy, job_id, workload_file)
    _forecast(scenario, comparison, policy, workload_file)


def _counterfactual(
    scenario: Scenario, comparison: data.Comparison, policy: str, job_id: str, workload_file: str
) -> None:
    """One change to the job (or the policy), re-simulated: the job's delta, the trio's, the jobs it moved."""
    session = st.session_state
    run, table = comparison.runs[policy], comparison.workload.table
    gpu = float(table.request[int(np.flatnonzero(table.job_id == job_id)[0]), 2])
    st.markdown("**What if?** One change, the run simulated again")
    choices = job_views.change_choices(run.jobs, job_id, gpu)
    state.keep_choice(session, keys.JOB_CHANGE, choices, choices[0])
    others = [p for p in POLICIES if p != policy]
    state.keep_choice(session, keys.JOB_OTHER_POLICY, others, others[0])
    span_h = max(float(np.ceil(run.segments["end"].max() / HOUR)), 1.0) if len(run.segments) else 1.0
    submit_h = float(run.jobs.loc[run.jobs["job_id"].astype(str) == job_id, "submit_time"].iloc[0]) / HOUR
    job_state.keep_in_range(session, keys.JOB_SUBMIT_AT, 0.0, span_h, round(min(submit_h, span_h), 2))
    most = job_views.max_fewer_gpus(gpu)
    job_state.keep_in_range(session, keys.JOB_GPUS, 1, most, max(most // 2, 1))
    c1, c2, c3 = st.columns([2, 2, 1], vertical_alignment="bottom")
    kind = c1.radio("Change", choices, format_func=job_views.CHANGE_LABELS.get, key=keys.JOB_CHANGE.name)
    if kind == "submit_at":
        c2.number_input("submitted at t (h)", 0.0, span_h, step=0.25, key=keys.JOB_SUBMIT_AT.name, format=FLOAT)
    elif kind == "gpus":
        c2.number_input(f"GPUs per worker (1 to {most})", 1, most, step=1, key=keys.JOB_GPUS.name)
    elif kind == "policy":
        c2.selectbox("Policy", others, key=keys.JOB_OTHER_POLICY.name, help="the whole run under it, same knobs")
    c3.button("Simulate", on_click=job_state.ask_change, args=(session, policy, job_id), key="job_whatif")
    change = job_state.asked_change(session, policy, job_id)
    if change is None:
        return
    config = scenario.config(policy)
    what = ("whatif", job_id, "--policy", policy, *job_views.change_args(change))
    answer = ask(
        comparison,
        config,
        ("change", job_id, change),
        (compute.counterfactual, (table, comparison.cluster, config, job_id, change)),
        compute.COUNTERFACTUAL_RUNS,
        budget.explore_command(scenario, workload_file, what),
        "Simulating the change...",
    )
    if answer is None:
        return
    st.text(f"Job {job_id} {job_views.change_words(answer.change)}: {job_views.delta_words(answer.job)}.")
    left, right = st.columns(2)
    with left:
        tables.show(job_views.delta_frame(answer.job))
    with right:
        tables.show(job_views.trio_frame(answer.trio_before, answer.trio_after))
    n = len(answer.touched)
    order = f"the {job_views.TOUCHED_SHOWN} that moved most" if n > job_views.TOUCHED_SHOWN else "largest move first"
    st.caption(f"{n:,} other jobs moved (start or finish)" + (f"; {order}:" if n else "."))
    if answer.touched:
        tables.show(job_views.touched_frame(answer.touched))


def _forecast(scenario: Scenario, comparison: data.Comparison, policy: str, workload_file: str) -> None:
    """ "When would my job start?": a job described in a form, added to the run at a time, simulated forward."""
    session = st.session_state
    cluster, run = comparison.cluster, comparison.runs[policy]
    top = job_views.node_maxima(cluster)
    span_h = max(float(np.ceil(run.segments["end"].max() / HOUR)), 1.0) if len(run.segments) else 1.0
    state.fill_defaults(session, job_views.form_defaults(top, span_h, keys.FORECAST_FIELD.prefix))
    st.markdown(f"**When would my job start?** Added to the {policy} run at a time of your choice")
    with st.form("job_forecast", border=True):
        f = keys.FORECAST_FIELD
        c = st.columns(7)
        c[0].number_input(
            "duration (min)", 1.0, job_views.MAX_MINUTES, step=10.0, key=f("duration_min").name, format=FLOAT
        )
        c[1].number_input("CPU cores", 0.0, top["cpu"], step=1.0, key=f("cpu").name, format=FLOAT)
        c[2].number_input("memory (GiB)", 0.0, top["mem_gb"], step=8.0, key=f("mem_gb").name, format=FLOAT)
        c[3].number_input("GPUs", 0.0, top["gpu"], step=1.0, key=f("gpu").name, format=FLOAT)
        c[4].selectbox("class", ("TE", "BE"), key=f("job_class").name)
        c[5].number_input("workers", 1, job_views.MAX_WORKERS, step=1, key=f("workers").name)
        c[6].number_input("submitted at (h)", 0.0, span_h, step=0.25, key=f("submit_h").name, format=FLOAT)
        st.form_submit_button("When would it start?", on_click=job_state.ask_forecast, args=(session, policy))
    fields = job_state.asked_forecast(session, policy)
    if fields is None:
        return
    job, at = job_views.forecast_job(fields)
    config = scenario.config(policy)
    what = ("whatif", "--policy", policy, "--add", job_views.add_spec(job, at))
    answer = ask(
        comparison,
        config,
        ("forecast", tuple(job.items()), at),
        (compute.forecast, (comparison.workload.table, cluster, config, job, at)),
        compute.FORECAST_RUNS,
        budget.explore_command(scenario, workload_file, what),
        "Simulating with your job...",
    )
    if answer is None:
        return
    st.text(
        "\n".join(job_views.forecast_lines(answer.start, answer.submit, answer.nodes, answer.victims, answer.caveat))
    )
    if answer.waits:
        tables.show(job_views.waits_frame(answer.waits))


def _opening_job(run: Run, options: list[str]) -> str:
    """The run's first preempted job when the filter lets it through, else the first option."""
    first = job_views.default_job(run.jobs, run.events)
    return first if first in options else options[0]


def why_waited(
    scenario: Scenario, comparison: data.Comparison, policies: Sequence[str], workload_file: str
) -> dict[str, dict[str, str]] | None:
    """Why each job waited in the runs of ``policies`` (policy -> job id -> its longest wait's words,
    :func:`dashboard.runs.compute.why_waited`): one computation for every panel that asks, shared
    and remembered like the what-ifs; None after showing why not (over the budget, stopped)."""
    configs = [scenario.config(p) for p in policies]
    table, cluster = comparison.workload.table, comparison.cluster
    commands = [
        budget.explore_command(scenario, workload_file, ("explain", "--all-waits", "--policy", p)) for p in policies
    ]
    answers = ask_each(
        comparison,
        configs,
        ("why_waited",),
        lambda missing: (compute.why_waited, (table, cluster, tuple(configs[i] for i in missing))),
        compute.ALL_WAITS_RUNS,
        "\n".join(dict.fromkeys(line for c in commands for line in c.split("\n"))),  # one generate step
        f"Reading why each job of the {' and '.join(policies)} run{'s' if len(policies) > 1 else ''} waited...",
    )
    return None if answers is None else {p: a.by_job for p, a in zip(policies, answers, strict=True)}


def ask(
    comparison: data.Comparison,
    config: Any,
    question: tuple[Hashable, ...],
    call: tuple[Callable[..., Any], tuple[Any, ...]],
    simulations: int,
    command: str,
    waiting: str,
) -> Any:
    """One what-if's answer, ``call`` = (its function, its arguments) (:func:`ask_each`), or None after
    showing why not."""
    fn, args = call
    answers = ask_each(
        comparison, [config], question, lambda _: (compute.alone, (fn, args)), simulations, command, waiting
    )
    return None if answers is None else answers[0]


def ask_each(
    comparison: data.Comparison,
    configs: Sequence[Any],
    question: tuple[Hashable, ...],
    work: Callable[[list[int]], tuple[Callable[..., Any], tuple[Any, ...]]],
    simulations: int,
    command: str,
    waiting: str,
) -> list[Any] | None:
    """``question``'s answer on the run of each config, through the budget (``simulations`` per config)
    and the line of computations; those not given yet are computed together in one worker process by
    ``work(their positions)`` (:func:`dashboard.runs.data.fetch`). Each answer, or a stop at a limit,
    is remembered for the session (:mod:`dashboard.shared.remembered`). None after showing why not."""
    lim = limits()
    session = st.session_state
    workers = budget.workers_of(comparison.workload.table)
    where = ("whatif", comparison.workload.key, cluster_hash(comparison.cluster))
    asked = [(*where, config_json(c), *question) for c in configs]
    answers = [remembered.recall(session, k) for k in asked]
    stopped = next((a for a in answers if isinstance(a, remembered.Stopped)), None)
    if stopped is not None:  # shown again, not computed again
        notices.error(stopped.notice)
        return None
    missing = [i for i, a in enumerate(answers) if a is None]
    try:
        budget.check_whatif(workers, simulations * len(missing), lim, command)
        if missing:
            with notices.progress(waiting) as heartbeat:
                values = data.fetch(
                    [asked[i] for i in missing],
                    lambda positions: work([missing[i] for i in positions]),
                    heartbeat,
                    command,
                    beside=True,  # the page holds the comparison
                )
            for i, value in zip(missing, values, strict=True):
                answers[i] = value
                remembered.remember(session, asked[i], value)
        return answers
    except (worker.TimedOut, worker.OutOfMemory) as exc:  # a notice made anew: it holds no frame
        if isinstance(exc, worker.TimedOut):
            notice: UserError = budget.timed_out("This what-if", lim, command, exc.wall)
        else:
            notice = worker.OutOfMemory(str(exc))
        for i in missing:
            remembered.remember(session, asked[i], remembered.Stopped(notice))
        notices.error(notice)
    except UserError as exc:
        notices.error(exc)
    except worker.Cancelled:
        st.stop()
    return None
