"""Sweep: what-if over one knob for the chosen policies, on a generator preset or your own workload file
(widgets and layout only)."""

from __future__ import annotations

import streamlit as st

from dashboard.runs import budget, data, worker
from dashboard.shared import demo, keys, knob_widgets, notices, state, tables, upload_widgets, uploads
from dashboard.shared.chart_style import PLOT_CONFIG
from dashboard.shared.demo import limits
from dashboard.shared.plain import md
from dashboard.sweep import sweep_charts, sweep_state, sweeps, uploaded
from simcore.analysis.stats import BOOTSTRAP_NAME
from simcore.core.errors import UserError
from simcore.io.csvsafe import to_csv_text
from simcore.policies import POLICIES
from simcore.workload.presets import PRESETS

lim = limits()
UPLOAD_FILE = "sweep_upload"  # the uploader's key (its file is not in the settings)


link_warnings = state.restore(
    "sweep",
    keys.S_KNOB.name,
    demo.vetted(lambda query: sweep_state.sweep_from_link(st.session_state, query, lim), lim),
    sweeps.widget_values,
)

upload_file = None
with st.sidebar:
    st.header("Sweep")
    st.radio(
        "Workload",
        sweeps.SOURCES,
        format_func=sweeps.SOURCE_LABELS.get,
        key=keys.S_SOURCE.name,
        on_change=sweep_state.source_changed,
        args=(st.session_state,),
    )
    from_file = keys.S_SOURCE.read(st.session_state) == "upload"
    if from_file:
        upload_file = upload_widgets.render(st, UPLOAD_FILE, keys.S_UPLOAD_OPTION)
        with st.expander("Cluster: identical nodes", expanded=False):
            st.number_input(
                "nodes (0 = sized from the workload)",
                0,
                lim.max_nodes,
                key=keys.S_NODES.name,
                help="when the knob is another: this many nodes; 0 = as many as give an offered GPU load of about 0.9",
            )
            float_format = knob_widgets.FLOAT_FORMAT
            st.number_input("CPU cores per node", 1.0, step=8.0, key=keys.S_NODE_CPU.name, format=float_format)
            st.number_input("memory per node (GiB)", 1.0, step=64.0, key=keys.S_NODE_MEM_GB.name, format=float_format)
            st.number_input("GPUs per node", 1.0, step=1.0, key=keys.S_NODE_GPU.name, format=float_format)
    else:
        st.selectbox(
            "Preset",
            [p for p in PRESETS if p != "mmc"],
            key=keys.S_PRESET.name,
            help="the synthetic workload generator",
        )
        st.text_input("jobs", key=keys.S_JOBS.name, placeholder="preset default", help="number of jobs per workload")
    st.selectbox(
        "Knob",
        list(sweeps.UPLOAD_KNOBS if from_file else sweeps.SWEEP_KNOBS),
        key=keys.S_KNOB.name,
        format_func=sweeps.knob_label,
        help="\n".join(f"- **{k}**: {h}" for k, (_, h) in sweeps.SWEEP_KNOBS.items()),
        on_change=sweep_state.knob_values_reset,
        args=(st.session_state,),
    )
    st.text_input(
        "Values (comma-separated)",
        key=keys.S_VALUES.name,
        placeholder="sized from the workload" if from_file else "",
        help=sweeps.SWEEP_KNOBS[keys.S_KNOB.read(st.session_state)][1],
    )
    st.multiselect("Policies", list(POLICIES), key=keys.S_POLICIES.name)
    chosen = keys.S_POLICIES.read(st.session_state) or ["fifo"]
    state.keep_choice(st.session_state, keys.S_BASELINE, chosen, chosen[0])
    st.selectbox("Baseline", chosen, key=keys.S_BASELINE.name)
    st.number_input(  # one label and help for both sources: a widget whose label changes starts afresh
        "Seeds",
        1,
        sweeps.MAX_SEEDS,
        key=keys.S_SEEDS.name,
        help=f"workloads per knob value: a preset generates one per seed (the lines: the mean and its "
        f"{BOOTSTRAP_NAME}); your file is drawn again for each seed, a bootstrap of its jobs (the whiskers: the "
        "lowest to the highest draw)",
    )
    if lim.allow_dask:  # the operator's own machine: workers and a Dask scheduler may be chosen
        st.number_input("Local worker processes", 0, lim.max_workers, key=keys.S_WORKERS.name, help="0 = one per core")
        st.text_input(
            "Dask scheduler (optional)",
            key=keys.S_DASK.name,
            placeholder="tcp://host:8786 or local",
            help="run the sweep on your own Dask cluster instead of local processes: a scheduler runs code "
            "and sends back pickles, so give only one you control",
        )
    else:
        where = "in one process" if lim.max_workers == 1 else f"on {lim.max_workers} local processes"
        st.caption(f"Sweeps run {where} of this server here.")
    clicked = st.button("Run sweep", type="primary", icon=":material/play_arrow:", width="stretch")

settings = sweep_state.sweep_settings(
    st.session_state, sweeps.from_widgets(state.widget_state(keys.SWEEP)), clicked, lim
)
state.publish("sweep", settings, settings.to_query())

link_note = "This link restores the sweep; " + (
    "whoever opens it runs it with one click." if lim.demo else "it re-runs once it has been run."
)
if from_file:
    link_note += " The uploaded file is not in it: whoever opens it must upload the file again."
state.title_with_link("Sweep: what if one knob changes?", settings.to_query(), link_note)
notices.link_warnings(link_warnings)
offered = sweep_state.dask_offered(st.session_state, lim)
if offered:
    st.warning(
        "This link asks to run the sweep on the Dask scheduler below. A scheduler runs code on its workers "
        "and this server unpickles what it sends back: accept only your own.",
        icon=":material/warning:",
    )
    st.code(offered, language=None, wrap_lines=True)
    st.button(
        "Use this Dask scheduler",
        icon=":material/check:",
        on_click=sweep_state.accept_dask,
        args=(st.session_state,),
    )
if from_file and upload_file is None:
    st.info(
        "Upload a workload file in the sidebar: the sweep runs it on identical nodes, each seed drawing its jobs "
        "again (a bootstrap), so every point has an interval.",
        icon=":material/upload_file:",
    )
    st.stop()

try:
    source, about, values = None, f"Preset **{settings.preset}**", None
    workload_args: list[str] = []
    if upload_file is not None:
        name, content = uploads.upload_content(upload_file)
        workload = data.uploaded_workload(name, content, settings.upload_opts)
        nodes = settings.nodes or uploaded.sized_nodes(workload.table, settings.node_gpu)
        source = uploaded.upload_source(name, content, workload.table, settings, nodes)
        values = uploaded.sized_values(nodes) if settings.knob == "nodes" else None
        workload_args = uploaded.source_args(settings, name, nodes)
        on = uploaded.cluster_words(settings, source.cluster_label)
        about = f"**{md(name)}** ({len(workload.table):,} jobs, drawn again for each seed) on {md(on)}"
    spec = settings.spec(source, values)
    shown_values = settings.values or values or ""
    budget.check_sweep(spec, settings.fixed(), settings.knob, shown_values, lim, workload_args)
except UserError as exc:
    notices.error(exc)
    st.stop()

workers = min(settings.effective_workers(), lim.max_workers)
where = f"the Dask scheduler {md(settings.dask)}" if settings.dask else f"{workers} local processes"
st.caption(
    f"{about}, {md(sweeps.knob_label(settings.knob))} in {{{md(shown_values)}}}, {len(spec.seeds)} seeds, "
    f"{len(spec.policies)} policies: {spec.n_simulations} simulations on {where}."
)
rows = data.stored_sweep(spec)  # a sweep someone already ran shows at once: nothing is started
if rows is None and not settings.run:
    st.info("Choose the knob and its values in the sidebar, then press **Run sweep**.", icon=":material/tune:")
    st.stop()
if rows is None:
    try:
        command = budget.sweep_command(spec, settings.fixed(), settings.knob, shown_values, workload_args)
        with notices.progress("Running the sweep...") as heartbeat:
            rows = data.sweep_rows(spec, workers, settings.dask if lim.allow_dask else "", heartbeat, command)
    except UserError as exc:
        notices.error(exc)
        st.stop()
    except worker.Cancelled:
        st.stop()

baseline = settings.baseline
trio_metrics = sweeps.trio_metrics(baseline)
p95_metrics = sweeps.P95_METRICS
frame = sweeps.metric_frame(rows, settings.knob, [m for m, _ in trio_metrics + p95_metrics], spread=from_file)
log_axes = st.toggle(
    "Log slowdown axes", value=True, key="sweep_log", help="slowdown spans orders of magnitude (fifo's TE tail)"
)
seeds_note = sweeps.spread_note(len(spec.seeds), from_file)
# the slowdowns and their trade-off side by side, so a chart shows without scrolling
left, right = st.columns(2, gap="medium")
with left:
    st.subheader("TE and BE p95 slowdown")
    st.plotly_chart(
        sweep_charts.sweep_figure(frame, settings.knob, p95_metrics, log_y=log_axes, height=360),
        config=PLOT_CONFIG,
        key="sweep_p95",
    )
with right:
    st.subheader("Trade-off: TE p95 against BE p95")
    st.plotly_chart(
        sweep_charts.pareto_figure(sweeps.pareto_points(rows, settings.knob), settings.knob, log=log_axes, height=360),
        config=PLOT_CONFIG,
        key="pareto",
    )
st.caption(
    f"{seeds_note} Trade-off: each point is one policy at one knob value (hover for the value), mean over seeds, "
    "a policy's points joined in knob order; lower-left is better on both, the dotted line is the Pareto front."
)
st.subheader(f"The trio against {baseline}")
st.plotly_chart(sweep_charts.sweep_figure(frame, settings.knob, trio_metrics), config=PLOT_CONFIG, key="sweep_trio")
shown_rows = rows  # not None here; a name of its own so the download's callback sees it typed
with st.expander("The numbers"):
    tables.show(sweeps.summary_table(frame, settings.knob, trio_metrics + p95_metrics))
    st.caption("Means over the seeds, as the charts draw them. The CSV holds every row: each seed and policy.")
    st.download_button("Rows CSV", lambda: to_csv_text(shown_rows), "sweep.csv", "text/csv", on_click="ignore")
