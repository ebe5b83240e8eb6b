"""Keeps a page's widgets, the session and the URL in step.

The URL is the shareable copy of the settings. Widget state is (re)filled from it when the
widgets are new (first load, or back from another page) or when the URL changed from outside
(a link from the Learn page, the browser's back button). Navigating between pages may clear the
URL, so the last settings are also kept in the session and used when the URL is empty.

Every rule about what the session holds lives here, so the pages only lay out widgets: a
choice that must stay one of its options, the Gantt's policy, nodes and window (their defaults
come from :mod:`dashboard.shared.gantt_views`, and the view the visitor settles on goes into the link),
stepping through preemptions, a lesson's time control on Learn, and the Sweep's "run only after
the button" and Dask offer. The functions take the session as a mapping (the page passes
``st.session_state``), so they are tested on a plain dict.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, MutableMapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, TypeVar
from urllib.parse import urlencode

import pandas as pd
import streamlit as st

from dashboard.shared import gantt_views
from dashboard.shared.demo import Limits
from dashboard.shared.scenario import MAIN_GEN_PARAMS, Scenario
from dashboard.shared.scenario import widget_values as scenario_widgets
from dashboard.sweep import sweeps
from simcore.model import ClusterSpec

S = TypeVar("S")


def restore(
    page: str,
    probe_key: str,
    parse: Callable[[Mapping[str, Any]], tuple[S, list[str]]],
    widget_values: Callable[[S], dict[str, Any]],
) -> list[str]:
    """Fill the widget state of ``page`` from the URL or the session when needed.

    ``probe_key`` is a widget key that exists once the page's widgets have been drawn.
    Returns the warnings about ignored URL parameters."""
    query = st.query_params.to_dict()
    last_query = st.session_state.get(f"_{page}_query")
    last_settings = st.session_state.get(f"_{page}_settings")
    fresh = probe_key not in st.session_state
    if fresh and not query and last_settings is not None:
        settings, warnings = last_settings, []
    elif fresh or (last_query is not None and query != last_query):
        settings, warnings = parse(query)
    else:
        return []
    for key, value in widget_values(settings).items():
        st.session_state[key] = value
    return warnings


def publish(page: str, settings: Any, query: dict[str, str | list[str]]) -> None:
    """Write the settings to the URL (when they changed) and remember them in the session."""
    if st.query_params.to_dict() != query:
        st.query_params.from_dict(query)
    st.session_state[f"_{page}_query"] = query
    st.session_state[f"_{page}_settings"] = settings


def last_settings(page: str) -> Any | None:
    """The settings ``page`` last published in this session (None before its first run)."""
    return st.session_state.get(f"_{page}_settings")


def widget_state(prefix: str = "x_") -> dict[str, Any]:
    """The current values of the widgets whose key starts with ``prefix``."""
    return {k: v for k, v in st.session_state.items() if isinstance(k, str) and k.startswith(prefix)}


def title_with_link(title: str, query: Mapping[str, Any], caption: str) -> None:
    """The page title with a "Copy link" popover holding the URL that restores the settings."""
    head, share = st.columns([5, 1], vertical_alignment="bottom")
    head.title(title)
    with share.popover("Copy link", icon=":material/link:", width="stretch"):
        st.caption(caption)
        st.code(f"{st.context.url or ''}?{urlencode(query, doseq=True)}", language=None, wrap_lines=True)


Session = MutableMapping[str, Any]


def set_widgets(values: Mapping[str, Any]) -> None:
    """A button's callback: put widget ``values`` into the session before the rerun draws them
    (Explore's "Use N nodes" for an upload's cluster)."""
    st.session_state.update(values)


def keep_choice(session: Session, key: str, options: Sequence[Any], default: Any) -> None:
    """Keep a select widget's value one of ``options`` (they changed): else ``default``."""
    if session.get(key) not in options:
        session[key] = default


# --- Explore --------------------------------------------------------------------------------------

GANTT_HOURS = 8.0  # the default window: short enough that TE jobs (minutes long) are visible bars
GANTT_LANES = 32  # GPU lanes drawn per policy by default (the first nodes)
GANTT_ZOOM = 600.0  # seconds shown around a chosen preemption, until the visitor picks another
# what the Gantt keeps in the session; dropped when the workload or the cluster changes
GANTT_KEYS = ("x_gantt_policy", "x_gantt_window", "x_gantt_nodes", "gantt_with", "_gantt_preemption")


def explore_widget_values(s: Scenario) -> dict[str, Any]:
    """The Explore widgets' state for a scenario, the Gantt's view included."""
    values = scenario_widgets(s)
    values.update(
        {"x_gantt_policy": s.gantt_policy, "x_gantt_window": s.gantt_window, "x_gantt_nodes": list(s.gantt_nodes)}
    )
    return values


def fill_defaults(session: Session, values: Mapping[str, Any]) -> None:
    """Give widgets that have no value yet their default (a value already there stays)."""
    for key, value in values.items():
        session.setdefault(key, value)


def preset_fields(session: Session, preset: str, defaults: Mapping[str, Any]) -> None:
    """The generator's fields (``x_gen_<name>``): a newly chosen preset starts from its own
    defaults, the values of the one before are forgotten."""
    if session.get("_gen_preset", preset) != preset:
        for name in MAIN_GEN_PARAMS:
            session.pop(f"x_gen_{name}", None)
    session["_gen_preset"] = preset
    fill_defaults(session, {f"x_gen_{name}": value for name, value in defaults.items()})


@dataclass(frozen=True, eq=False)
class GanttSetup:
    """The Gantt's defaults for the current run and the shown policy's preemptions."""

    policy: str  # the policy shown first
    nodes: list[str]  # the first nodes up to GANTT_LANES lanes
    span: float  # hours of the shown run
    window: tuple[float, float]  # hours: from an hour before the first preemption
    preempts: pd.DataFrame  # time, job_id, node of the shown policy's preemptions


def gantt_setup(
    session: Session,
    scenario: Scenario,
    view_of: tuple[str, str],
    cluster: ClusterSpec,
    runs: Mapping[str, Any],
    preemptive: Mapping[str, bool],
) -> GanttSetup:
    """Make the Gantt's session state valid for this run, before its widgets are drawn.

    ``view_of`` names the workload and cluster: a new one starts from the default view, not
    the old run's window and nodes. Otherwise the session keeps what the visitor chose, else
    what the link asked for (``scenario``), else the default; a chosen preemption of another
    policy or run is forgotten."""
    if session.get("_gantt_for", view_of) != view_of:
        scenario = replace(scenario, gantt_policy="", gantt_window=None, gantt_nodes=())
        for key in GANTT_KEYS:
            session.pop(key, None)
    session["_gantt_for"] = view_of
    policies = scenario.policies
    default_policy = gantt_views.gantt_default_policy(policies, preemptive)
    keep_choice(session, "x_gantt_policy", policies, scenario.gantt_policy or default_policy)
    keep_choice(session, "x_gantt_policy", policies, default_policy)  # the link's was not chosen
    policy = session["x_gantt_policy"]
    keep_choice(session, "gantt_with", gantt_second_options(policies, policy), _second(scenario, policy))
    default_nodes = gantt_views.default_gantt_nodes(cluster, GANTT_LANES)
    picked = session.get("x_gantt_nodes") or list(scenario.gantt_nodes)
    session["x_gantt_nodes"] = [n for n in picked if n in cluster.names] or default_nodes
    run = runs[policy]
    span, default_window = gantt_views.gantt_default_window(run.segments, run.events, GANTT_HOURS)
    preempts = gantt_views.preemption_list(run.events)
    chosen = session.get("_gantt_preemption")
    if chosen is not None and (
        chosen["policy"] != policy or gantt_views.step_preemption(preempts, chosen, 0, (0.0, 0.0)) != chosen["index"]
    ):
        session["_gantt_preemption"] = None
    session.setdefault("gantt_zoom", GANTT_ZOOM)
    window = session.get("x_gantt_window") or scenario.gantt_window or default_window
    session["x_gantt_window"] = gantt_views.clamp_window(window, span) or default_window
    return GanttSetup(default_policy, default_nodes, span, default_window, preempts)


NO_SECOND = "(none)"


def gantt_second_options(policies: Sequence[str], policy: str) -> list[str]:
    """What the "Stacked with" box offers: no second panel, or another policy."""
    return [NO_SECOND] + [p for p in policies if p != policy]


def _second(scenario: Scenario, policy: str) -> str:
    return scenario.baseline if scenario.baseline != policy else NO_SECOND


def gantt_step(session: Session, setup: GanttSetup, direction: int) -> None:
    """Choose the next (+1) or previous (-1) preemption and centre the window on it; a note
    in the session when there is none (shown once)."""
    shown = tuple(session.get("x_gantt_window") or setup.window)
    i = gantt_views.step_preemption(setup.preempts, session.get("_gantt_preemption"), direction, shown)
    if i is None:
        session["_gantt_note"] = "No preemption " + ("after" if direction > 0 else "before") + " this one."
        return
    row = setup.preempts.iloc[i]
    session["_gantt_preemption"] = {
        "policy": session["x_gantt_policy"],
        "index": i,
        "time": float(row["time"]),
        "job_id": row["job_id"],
        "node": row["node"],
    }
    session["x_gantt_window"] = gantt_views.centred_window(float(row["time"]), shown[1] - shown[0], setup.span)
    if row["node"] not in session["x_gantt_nodes"]:
        session["x_gantt_nodes"] = [*session["x_gantt_nodes"], row["node"]]


@dataclass(frozen=True)
class GanttChoice:
    """What the visitor chose to see in the Gantt."""

    policies: list[str]  # the top panel's policy, then the stacked one (if any)
    nodes: list[str]
    window: tuple[float, float]  # hours
    chosen: dict[str, Any] | None  # the chosen preemption
    focus: tuple[float, float] | None  # seconds around the chosen preemption


def gantt_choice(session: Session) -> GanttChoice:
    """The Gantt's choices as its widgets left them."""
    policy, second = session["x_gantt_policy"], session["gantt_with"]
    chosen = session.get("_gantt_preemption")
    focus = None
    if chosen is not None:
        half = session["gantt_zoom"] / 2
        focus = (chosen["time"] - half, chosen["time"] + half)
    return GanttChoice(
        [policy] + ([] if second == NO_SECOND else [second]),
        list(session["x_gantt_nodes"]),
        tuple(session["x_gantt_window"]),
        chosen,
        focus,
    )


def gantt_in_link(scenario: Scenario, setup: GanttSetup, choice: GanttChoice) -> Scenario:
    """The scenario with the Gantt's view, what differs from the defaults, for the link."""
    policy = choice.policies[0]
    return replace(
        scenario,
        gantt_policy="" if policy == setup.policy else policy,
        gantt_window=None if choice.window == setup.window else choice.window,
        gantt_nodes=() if choice.nodes == setup.nodes else tuple(choice.nodes),
    )


def publish_gantt_view(scenario: Scenario, setup: GanttSetup, choice: GanttChoice) -> None:
    """Put the Gantt's view into Explore's link (known only once the run is drawn)."""
    linked = gantt_in_link(scenario, setup, choice)
    publish("explore", linked, linked.to_query())


# --- Learn: a lesson's time control -----------------------------------------------------------

PLAYING = "lesson_playing"  # the (lesson, variant) being played, or None


def lesson_step_key(lesson_key: str, label: str) -> str:
    """The session key of a lesson variant's instant (its slider's key)."""
    return f"lesson_step_{lesson_key}_{label}"


def lesson_move(session: Session, key: str, last: int, to: int | None = None, delta: int = 0) -> None:
    """Go to instant ``to``, or ``delta`` instants from the current one, inside 0..last."""
    here = int(session.get(key, 0))
    session[key] = min(max(to if to is not None else here + delta, 0), last)


def lesson_playing(session: Session) -> tuple[str, str] | None:
    return session.get(PLAYING)


def lesson_toggle_play(session: Session, who: tuple[str, str]) -> None:
    """Play ``who`` (lesson, variant), or pause it when it is playing."""
    session[PLAYING] = None if session.get(PLAYING) == who else who


def lesson_tick(session: Session, key: str, last: int) -> bool:
    """One instant on while playing; True when the last instant is reached (playing stops)."""
    lesson_move(session, key, last, delta=1)
    if int(session[key]) >= last:
        session[PLAYING] = None
        return True
    return False


# --- Sweep ----------------------------------------------------------------------------------------


def sweep_from_link(session: Session, query: Mapping[str, Any], lim: Limits) -> tuple[sweeps.SweepSettings, list[str]]:
    """A link's settings, less what a link may not decide (a Dask address is only offered)."""
    settings, warnings = sweeps.SweepSettings.from_query(query)
    settings, vetted, offered = sweeps.vet_link(settings, lim)
    session["_dask_offered"] = offered
    return settings, warnings + vetted


def dask_offered(session: Session, lim: Limits) -> str:
    """The Dask address a link offered, while the visitor has not accepted it ("" if none)."""
    return (session.get("_dask_offered") or "") if lim.allow_dask else ""


def accept_dask(session: Session) -> None:
    session.update(s_dask=session.get("_dask_offered") or "", _dask_offered=None)


def sweep_settings(session: Session, current: sweeps.SweepSettings, clicked: bool, lim: Limits) -> sweeps.SweepSettings:
    """The sweep to show: results only for the settings last run, so a changed knob waits for
    the button; a Dask scheduler or worker count only where the operator may name them."""
    if not lim.allow_dask:  # never from the session either: only the operator may name a scheduler
        current = replace(current, workers=0, dask="")
    if clicked:
        session["_sweep_ran_for"] = current
    return replace(current, run=session.get("_sweep_ran_for") == current)


def knob_values_reset(session: Session) -> None:
    """A newly chosen sweep knob starts from its own default values."""
    session["s_values"] = sweeps.SWEEP_KNOBS[session["s_knob"]][0]
