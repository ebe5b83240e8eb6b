"""Explore's results (layout only): the trio cards beside the percentile chart, and the
Slowdown, Utilisation and queue, Preemptions and Jobs tabs. The Gantt tab is
:mod:`dashboard.explore.explore_gantt`.

Numbers and frames come from :mod:`dashboard.shared.views`; over several seeds every mean carries the
one spread of :mod:`simcore.analysis.stats`, named on screen.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping

import plotly.graph_objects as go
import streamlit as st

from dashboard.explore import charts, explore_job, job_state
from dashboard.runs import data, held
from dashboard.runs.compute import Run
from dashboard.shared import tables, views
from dashboard.shared.chart_style import PLOT_CONFIG
from dashboard.shared.scenario import Scenario
from simcore.analysis.metrics import TRIO_LABELS, compare_summaries
from simcore.io.csvsafe import to_csv_text

# The trio grid: a change's interval wraps instead of being cut ("[1.0..."), and on a phone the grid
# keeps its four columns (Streamlit stacks columns below 640 px, which parts values from their headers).
TRIO_CSS = """<style>
.st-key-trio [data-testid="stMetric"] * {
  white-space: normal !important; overflow: visible !important; text-overflow: clip !important; }
@media (max-width: 640px) {
  .st-key-trio [data-testid="stHorizontalBlock"] { flex-wrap: nowrap; gap: 0.3rem; }
  .st-key-trio [data-testid="stColumn"] { min-width: 0; width: auto; flex: 1 1 0; }
  .st-key-trio [data-testid="stMetricValue"] { font-size: 1.1rem; }
  .st-key-trio [data-testid="stMetricDelta"] { font-size: 0.7rem; }
}
</style>"""


def trio(scenario: Scenario, comparison: data.Comparison, bound: data.Bound | None = None) -> None:
    """The trio against the baseline as a grid of cards, beside the percentile chart."""
    baseline, seeds = scenario.baseline, comparison.seeds
    st.subheader(f"The trio against {baseline}")
    if len(seeds) == 1:
        st.caption(
            ":material/warning: One run: a single workload can swing a BE percentile by tens of percent between "
            "policies by chance. Use the synthetic generator with several seeds to see the spread."
        )
    else:
        st.caption(views.spread_note(seeds))
    # the trio as a compact grid beside the percentile chart, so a chart is in sight without scrolling
    trio_box, chart_box = st.columns([6, 5], gap="medium")
    with chart_box:  # filled first: the chart reaches the browser before the 12 numbers
        st.plotly_chart(percentile_chart(comparison, bound), config=PLOT_CONFIG, key="percentiles")
        n = len(seeds)
        st.caption(
            "Slowdown percentiles (log). "
            + (f"Bars: mean over {n} seeds; whiskers: lowest to highest seed." if n > 1 else "One run.")
            + (" Dashed: the pooled bound (mean over the seeds)." if bound is not None else "")
        )
    cards = views.trio_cards(
        views.trio_frame(views.seed_trios(comparison.seed_flats, baseline)),
        views.absolute_trio(comparison.seed_flats),
        scenario.policies,
        baseline,
    )
    with trio_box, st.container(key="trio"):
        st.html(TRIO_CSS)
        widths = [2, 3, 3, 3]
        for cell, text in zip(st.columns(widths), ["policy", *TRIO_LABELS.values()], strict=True):
            cell.caption(text)
        for policy, row in zip(scenario.policies, cards, strict=True):
            cells = st.columns(widths, vertical_alignment="center")
            cells[0].markdown(f"**{policy}**" + ("  \n(baseline)" if policy == baseline else ""))
            for cell, (label, value, delta) in zip(cells[1:], row, strict=True):
                flat = views.neutral(delta)  # equal values: no red "+0.0%"
                cell.metric(
                    label,
                    value,
                    delta,
                    delta_color="off" if flat else "inverse",
                    delta_arrow="off" if flat else "auto",
                    label_visibility="collapsed",
                )


def percentile_chart(comparison: data.Comparison, bound: data.Bound | None = None) -> go.Figure:
    """The percentile chart beside the trio: the first chart a visitor sees."""
    return charts.percentile_figure(
        views.percentile_frame(comparison.seed_flats),
        height=340,
        bound=None if bound is None else views.percentile_frame([{"bound": s} for s in bound.seed_flats]),
    )


def cdf_chart(comparison: data.Comparison, bound: data.Bound | None = None) -> go.Figure:
    """The slowdown CDF of the Slowdown tab, open on a first visit."""
    jobs = {p: r.jobs for p, r in comparison.runs.items()}
    reference = None if bound is None else views.cdf_frame({"bound": bound.run.jobs})
    return charts.cdf_figure(views.cdf_frame(jobs), reference)


def slowdown(comparison: data.Comparison, bound: data.Bound | None = None) -> None:
    st.plotly_chart(cdf_chart(comparison, bound), config=PLOT_CONFIG, key="cdf")
    st.caption(
        "Slowdown = job completion time / run time (1 = never waited). Lines further left are better; "
        "the tail is on the right. "
        + ("Dashed: the pooled bound. " if bound is not None else "")
        + views.seed_note(comparison.seeds)
    )
    tables.show(views.percentile_table(comparison.seed_flats), hide_index=False)
    if len(comparison.seeds) > 1:
        st.caption(f"Slowdown percentiles, mean over {len(comparison.seeds)} seeds.")


def timeline(comparison: data.Comparison) -> None:
    runs = comparison.runs
    frame = views.timeline_frame({p: r.util for p, r in runs.items()}, {p: r.queue for p, r in runs.items()})
    st.plotly_chart(charts.timeline_figure(frame), config=PLOT_CONFIG, key="timeline")
    st.caption(
        "Averages over equal time bins. Utilisation counts allocated GPUs, grace and restore time included. "
        + views.seed_note(comparison.seeds)
    )


def preemptions(comparison: data.Comparison) -> None:
    runs = comparison.runs
    tables.show(views.preemption_frame({p: r.flat for p, r in runs.items()}))
    st.caption(
        "Lost work is run time discarded by preemptions (zero with checkpoint = on_preempt). "
        "Useful utilisation counts only the jobs' own run time. " + views.seed_note(comparison.seeds)
    )


def jobs(scenario: Scenario, comparison: data.Comparison, job_tab: str, workload_file: str) -> None:
    """The jobs table of one run, with why each job waited (a row opens its job on the ``job_tab``
    tab), and the downloads (``workload_file``: the workload's name in a refusal's command)."""
    runs = comparison.runs
    shown = st.selectbox("Policy", scenario.policies, key="jobs_policy")
    if len(comparison.seeds) > 1:
        st.caption(views.seed_note(comparison.seeds))
    why = explore_job.why_waited(scenario, comparison, (shown,), workload_file)
    table = tables.show(
        views.jobs_table(runs[shown].jobs, None if why is None else why[shown]),
        height=320,
        on_select="rerun",
        selection_mode="single-row",
        key="jobs_table",
    )
    picked = table.selection.rows
    if picked:  # a row's position in the run's frame, however the visitor sorted the table
        job_id = str(runs[shown].jobs["job_id"].iloc[picked[0]])
        left, right = st.columns([3, 1], vertical_alignment="center")
        left.text(f"Selected: job {job_id} of the {shown} run.")  # an upload's id: plain text
        right.button(
            f"Open in {job_tab}",
            on_click=job_state.open_job,
            args=(st.session_state, shown, job_id, job_tab),
            key="jobs_open",
            help="its story, why it waited, its Gantt and what-ifs",
        )
    else:
        st.caption(
            f"Select a row to open its job in the {job_tab} tab. “{views.WHY_WAITED}”: the reason of the job's "
            "longest wait, from the engine's own state (empty: it never waited)."
        )
    d1, d2, d3 = st.columns(3)
    csv_of = csv_downloads(runs, shown)
    d1.download_button("Jobs CSV", csv_of["jobs"], f"jobs_{shown}.csv", "text/csv", on_click="ignore")
    d2.download_button("Events CSV", csv_of["events"], f"events_{shown}.csv", "text/csv", on_click="ignore")
    summaries = {p: r.summary for p, r in runs.items()}
    d3.download_button(
        "Compare JSON (all policies)",
        lambda: json.dumps(compare_summaries(summaries, scenario.baseline), indent=2, default=str),
        "compare.json",
        "application/json",
        on_click="ignore",
    )


def csv_downloads(runs: Mapping[str, Run], shown: str) -> dict[str, Callable[[], str | bytes]]:
    """The deferred "Jobs CSV" and "Events CSV" of ``shown``'s run: they hold the run weakly
    (:mod:`dashboard.runs.held`), so a page left open does not keep it in memory."""

    def csv(frame: str) -> Callable[[dict[str, Run]], str]:
        return lambda found: to_csv_text(getattr(found[shown], frame))

    return {frame: held.deferred({shown: runs[shown]}, csv(frame)) for frame in ("jobs", "events")}
