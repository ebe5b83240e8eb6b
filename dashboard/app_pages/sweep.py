"""Sweep: what-if over one knob for the chosen policies (widgets and layout only)."""

from __future__ import annotations

from dataclasses import replace

import streamlit as st

from dashboard import charts, state, sweeps
from simcore.errors import UserError
from simcore.policies import POLICIES
from simcore.presets import PRESETS
from simcore.sweep import run_sweep

PLOT_CONFIG = {"displaylogo": False}

for warning in state.restore("sweep", "s_knob", sweeps.SweepSettings.from_query, sweeps.widget_values):
    st.toast(warning, icon=":material/link_off:")

with st.sidebar:
    st.header("Sweep")
    st.selectbox("Preset", [p for p in PRESETS if p != "mmc"], key="s_preset", help="the synthetic workload generator")
    st.text_input("jobs", key="s_jobs", placeholder="preset default", help="number of jobs per workload")
    st.selectbox(
        "Knob",
        list(sweeps.SWEEP_KNOBS),
        key="s_knob",
        help="\n".join(f"- **{k}**: {h}" for k, (_, h) in sweeps.SWEEP_KNOBS.items()),
        on_change=lambda: st.session_state.update(s_values=sweeps.SWEEP_KNOBS[st.session_state["s_knob"]][0]),
    )
    st.text_input("Values (comma-separated)", key="s_values", help=sweeps.SWEEP_KNOBS[st.session_state["s_knob"]][1])
    st.multiselect("Policies", list(POLICIES), key="s_policies")
    chosen = st.session_state["s_policies"] or ["fifo"]
    if st.session_state.get("s_baseline") not in chosen:
        st.session_state["s_baseline"] = chosen[0]
    st.selectbox("Baseline", chosen, key="s_baseline")
    st.number_input(
        "Seeds",
        1,
        sweeps.MAX_SEEDS,
        key="s_seeds",
        help="workloads per knob value; the lines show the mean and its 95% CI",
    )
    st.number_input("Local worker processes", 0, 64, key="s_workers", help="0 = one per core")
    st.text_input(
        "Dask scheduler (optional)",
        key="s_dask",
        placeholder="tcp://host:8786 or local",
        help="run the sweep on a Dask distributed cluster instead of local processes",
    )
    clicked = st.button("Run sweep", type="primary", icon=":material/play_arrow:", width="stretch")

current = sweeps.from_widgets(state.widget_state("s_"))
if clicked:
    st.session_state["_sweep_ran_for"] = current
# results show only for the settings last run, so a changed knob waits for the button
settings = replace(current, run=st.session_state.get("_sweep_ran_for") == current)
state.publish("sweep", settings, settings.to_query())

state.title_with_link(
    "Sweep: what if one knob changes?",
    settings.to_query(),
    "This link restores the sweep and re-runs it. Use the copy icon.",
)

try:
    spec = settings.spec()
except UserError as exc:
    st.error(str(exc), icon=":material/error:")
    st.stop()

where = f"Dask at {settings.dask}" if settings.dask else f"{settings.effective_workers()} local processes"
st.caption(
    f"Preset **{settings.preset}**, {settings.knob} in {{{settings.values}}}, {len(spec.seeds)} seeds, "
    f"{len(spec.policies)} policies: {spec.n_simulations} simulations on {where}."
)
if not settings.run:
    st.info("Choose the knob and its values in the sidebar, then press **Run sweep**.", icon=":material/tune:")
    st.stop()

results = st.session_state.setdefault("_sweep_results", {})
key = repr((spec, settings.workers, settings.dask))
if key not in results:
    bar = st.progress(0.0, text="Running the sweep...")
    done = []

    def advance(_task: object) -> None:
        done.append(1)
        bar.progress(len(done) / len(spec.tasks()), text=f"{len(done)} of {len(spec.tasks())} workloads done")

    try:
        report = run_sweep(spec, workers=settings.effective_workers(), dask=settings.dask or None, on_task=advance)
    except UserError as exc:
        bar.empty()
        st.error(str(exc), icon=":material/error:")
        st.stop()
    bar.empty()
    results[key] = report.rows
rows = results[key]

baseline = settings.baseline
trio_metrics = [
    (f"TE_p95_slowdown_pct_vs_{baseline}", "TE p95 slowdown vs baseline (%)"),
    (f"BE_p50_slowdown_pct_vs_{baseline}", "BE p50 slowdown vs baseline (%)"),
    (f"BE_p95_slowdown_pct_vs_{baseline}", "BE p95 slowdown vs baseline (%)"),
]
p95_metrics = [("TE_slowdown_p95", "TE p95 slowdown"), ("BE_slowdown_p95", "BE p95 slowdown")]
frame = sweeps.metric_frame(rows, settings.knob, [m for m, _ in trio_metrics + p95_metrics])
log_axes = st.toggle(
    "Log slowdown axes", value=True, key="sweep_log", help="slowdown spans orders of magnitude (fifo's TE tail)"
)
seeds_note = (
    f"Lines: mean over {len(spec.seeds)} seeds; whiskers: 95% bootstrap interval of the mean, which stays inside "
    "the seeds' range (a slowdown never below 1, a change never below -100%). Each policy has its own dash and marker."
    if len(spec.seeds) > 1
    else "One seed: no interval. Each policy has its own dash and marker."
)
# the slowdowns and their trade-off side by side, so a chart shows without scrolling
left, right = st.columns(2, gap="medium")
with left:
    st.subheader("TE and BE p95 slowdown")
    st.plotly_chart(
        charts.sweep_figure(frame, settings.knob, p95_metrics, log_y=log_axes, height=360),
        config=PLOT_CONFIG,
        key="sweep_p95",
    )
with right:
    st.subheader("Trade-off: TE p95 against BE p95")
    st.plotly_chart(
        charts.pareto_figure(sweeps.pareto_points(rows, settings.knob), settings.knob, log=log_axes, height=360),
        config=PLOT_CONFIG,
        key="pareto",
    )
st.caption(
    f"{seeds_note} Trade-off: each point is one policy at one knob value (hover for the value), mean over seeds, "
    "a policy's points joined in knob order; lower-left is better on both, the dotted line is the Pareto front."
)
st.subheader(f"The trio against {baseline}")
st.plotly_chart(charts.sweep_figure(frame, settings.knob, trio_metrics), config=PLOT_CONFIG, key="sweep_trio")
with st.expander("All rows"):
    st.dataframe(rows, hide_index=True)
    st.download_button("Rows CSV", lambda: rows.to_csv(index=False), "sweep.csv", "text/csv", on_click="ignore")
