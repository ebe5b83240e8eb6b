"""Explore's sidebar: the scenario's widgets, on a session's first run drawn after the first chart.

The page reads its scenario from the session before any of these widgets is drawn (on a rerun a
widget's value is the session's, which the browser set; on a first visit or a shared link
:func:`dashboard.shared.state.restore` put it there), so a session's first run can send the first
chart before the sidebar's widgets and the scripts the browser fetches for them, or without them
(:mod:`dashboard.explore.first_chart`). :func:`settle` applies, before the scenario is read, the
rules the widgets' options need; :class:`Sidebar` draws the widgets once: first on every later run;
on a first run after the trio, when the run starts waiting for a computation, or at the latest
when the run ends, however it ends (an upload not given yet, an error shown), unless the run ends
held after its first chart.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import streamlit as st

from dashboard.explore import down_sidebar, queue_sidebar
from dashboard.runs import data
from dashboard.shared import keys, knob_widgets, state, upload_widgets, uploads
from dashboard.shared.demo import Limits
from dashboard.shared.keys import Key, Session
from dashboard.shared.scenario import CLUSTER_MODES, MAX_SEEDS, SOURCES, Scenario, gen_defaults, gen_fields
from simcore.analysis.stats import BOOTSTRAP_NAME
from simcore.policies import POLICIES, POLICY_HELP
from simcore.workload.presets import PRESETS

SOURCE_LABELS = {"sample": "bundled sample", "generate": "synthetic generator", "upload": "upload a file"}
CLUSTER_LABELS = {"workload": "the workload's own", "custom": "uniform nodes", "upload": "upload a node list"}
WORKLOAD_FILE = "upload_workload"  # the file uploaders' keys (their files are not in the scenario)
CLUSTER_FILE = "upload_cluster"
SEEDS_MIN = 1
# the uniform cluster's inputs: key, label, lowest value (what the input shows when the session has none), step
NODE_INPUTS: tuple[tuple[Key[Any], str, float, float], ...] = (
    (keys.NODES, "nodes", 1, 1),
    (keys.NODE_CPU, "CPU cores per node", 0.0, 8.0),
    (keys.NODE_MEM_GB, "memory per node (GiB)", 0.0, 64.0),
    (keys.NODE_GPU, "GPUs per node", 0.0, 1.0),
)


def settle(session: Session) -> None:
    """Make the session hold, for every widget the sidebar will draw, the value that widget will
    show, before the scenario is read from it: choices that must stay valid, a preset's fields, and
    for a widget drawn again after a run without it (Streamlit then dropped its value) what the
    widget starts from."""
    source = keys.SOURCE.read(session)
    if source == "sample":
        names = data.sample_names()
        state.keep_choice(session, keys.SAMPLE, names, names[0] if names else None)
    elif source == "generate":
        state.fill_defaults(session, {keys.PRESET.name: next(iter(PRESETS)), keys.SEEDS.name: SEEDS_MIN})
        state.fill_defaults(session, {keys.GEN_MORE.name: ""})
        preset = keys.PRESET.read(session)
        defaults = gen_defaults(preset)
        state.preset_fields(session, preset, {name: defaults[name] for name in gen_fields(preset)})
    else:
        state.fill_defaults(session, upload_widgets.option_defaults(keys.UPLOAD_OPTION))
    if keys.CLUSTER.read(session) == "custom":
        state.fill_defaults(session, {key.name: low for key, _, low, _ in NODE_INPUTS})
    state.fill_defaults(session, {keys.QUEUES.name: ""})
    chosen = keys.POLICIES.read(session) or ["fifo"]
    state.keep_choice(session, keys.BASELINE, chosen, chosen[0])


def files(session: Session) -> tuple[uploads.UploadedFile | None, uploads.UploadedFile | None]:
    """The uploaded workload and cluster files the scenario uses (None when not asked for or not
    given yet); their bytes are read only after the size check."""
    workload = session.get(WORKLOAD_FILE) if keys.SOURCE.read(session) == "upload" else None
    cluster = session.get(CLUSTER_FILE) if keys.CLUSTER.read(session) == "upload" else None
    return workload, cluster


class Sidebar:
    """The sidebar's widgets, drawn by the first call of :meth:`draw`."""

    def __init__(self, lim: Limits, scenario: Scenario) -> None:
        self.lim = lim
        self.scenario = scenario  # the scenario read from these widgets' values (the queues editor's table)
        self.drawn = False

    def draw(self) -> None:
        if not self.drawn:
            self.drawn = True
            _draw(self.lim, self.scenario)

    def then(self, heartbeat: Callable[[float | None], None]) -> Callable[[float | None], None]:
        """``heartbeat`` that first draws the sidebar: a run that waits for a computation shows it."""

        def beat(fraction: float | None) -> None:
            self.draw()
            heartbeat(fraction)

        return beat


def _draw(lim: Limits, scenario: Scenario) -> None:
    with st.sidebar:
        st.header("Scenario")
        with st.expander("Workload", expanded=True):
            st.radio("Source", SOURCES, format_func=SOURCE_LABELS.get, key=keys.SOURCE.name, horizontal=True)
            source = keys.SOURCE.read(st.session_state)
            if source == "sample":
                st.selectbox(
                    "Sample",
                    data.sample_names(),
                    key=keys.SAMPLE.name,
                    help="small workloads generated by the presets (sample_workloads/)",
                )
            elif source == "generate":
                _generator()
            else:
                _upload()
        with st.expander("Cluster", expanded=False):
            st.radio("Nodes", CLUSTER_MODES, format_func=CLUSTER_LABELS.get, key=keys.CLUSTER.name)
            if keys.CLUSTER.read(st.session_state) == "custom":
                for key, label, low, step in NODE_INPUTS:
                    most = f"at most {lim.max_nodes:,} here" if key is keys.NODES else None
                    shown = None if isinstance(low, int) else knob_widgets.FLOAT_FORMAT  # 64, not 64.00
                    st.number_input(label, min_value=low, step=step, format=shown, key=key.name, help=most)
            elif keys.CLUSTER.read(st.session_state) == "upload":
                st.file_uploader("Cluster file", type=list(uploads.CLUSTER_TYPES), key=CLUSTER_FILE)
        with st.expander("Queues", expanded=queue_sidebar.expanded(scenario)):
            queue_sidebar.draw(lim, scenario)
        with st.expander("Policies", expanded=True):
            st.multiselect(
                "Compare",
                list(POLICIES),
                key=keys.POLICIES.name,
                help="\n".join(f"- **{name}**: {text}" for name, text in POLICY_HELP.items()),
            )
            st.selectbox(
                "Baseline",
                keys.POLICIES.read(st.session_state) or ["fifo"],
                key=keys.BASELINE.name,
                help="the trio is the percent change against this policy",
            )
        with st.expander("Knobs", expanded=False):
            knob_widgets.render(st, skip=down_sidebar.RANDOM_FAILURES)
        with st.expander("Failures and maintenance", expanded=bool(keys.NODE_EVENTS.get(st.session_state, ()))):
            down_sidebar.draw(lim)


def _generator() -> None:
    st.selectbox(
        "Preset",
        list(PRESETS),
        key=keys.PRESET.name,
        help="; ".join(f"**{p.name}**: {p.description}" for p in PRESETS.values()),
    )
    preset = keys.PRESET.read(st.session_state)
    params = PRESETS[preset].params
    for name in gen_fields(preset):
        integer = params[name].kind == "int"
        st.number_input(
            name,
            min_value=1 if integer else 0.0,
            step=1 if integer else 0.05,
            format="%d" if integer else knob_widgets.FLOAT_FORMAT,
            key=keys.GEN_PARAM(name).name,
            help=params[name].help,
        )
    st.text_area(
        "More parameters (KEY=VALUE per line)",
        key=keys.GEN_MORE.name,
        height=68,
        help="Any preset parameter: " + ", ".join(params),
    )
    st.number_input(
        "Seeds",
        min_value=SEEDS_MIN,
        max_value=MAX_SEEDS,
        key=keys.SEEDS.name,
        help=f"Run the scenario on this many generated workloads (seeds seed .. seed+n-1) and show the trio as the mean with its {BOOTSTRAP_NAME}.",
    )


def _upload() -> None:
    upload_widgets.render(st, WORKLOAD_FILE, keys.UPLOAD_OPTION)
