"""Keeps a page's widgets, the session and the URL in step.

The URL is the shareable copy of the settings. Widget state is (re)filled from it when the
widgets are new (first load, or back from another page) or when the URL changed from outside
(a link from the Learn page, the browser's back button). Navigating between pages may clear the
URL, so the last settings are also kept in the session and used when the URL is empty.

Every rule about what the session holds lives here, so the pages only lay out widgets: a
choice that must stay one of its options, the Gantt's policy, nodes, window and switches by queue (their
defaults come from :mod:`dashboard.shared.gantt_views`, and the view the visitor settles on goes into the link),
stepping through preemptions and a lesson's time control on Learn (the Sweep's "run only after the
button" and Dask offer are :mod:`dashboard.sweep.sweep_state`'s, beside the settings they keep). The functions take the session as a mapping (the page passes
``st.session_state``), so they are tested on a plain dict.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, TypeVar
from urllib.parse import urlencode

import pandas as pd
import streamlit as st

from dashboard.shared import gantt_views, keys, notices
from dashboard.shared.keys import Key, Session
from dashboard.shared.scenario import GANTT_QUEUE_VIEWS, MAIN_GEN_PARAMS, Scenario
from dashboard.shared.scenario import widget_values as scenario_widgets
from simcore.core.model import ClusterSpec

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
    last_query = keys.PAGE_QUERY(page).maybe(st.session_state)
    last_settings = keys.PAGE_SETTINGS(page).maybe(st.session_state)
    fresh = probe_key not in st.session_state
    settings: S
    warnings: list[str]
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
    keys.PAGE_QUERY(page).set(st.session_state, query)
    keys.PAGE_SETTINGS(page).set(st.session_state, settings)


def last_settings(page: str) -> Any | None:
    """The settings ``page`` last published in this session (None before its first run)."""
    return keys.PAGE_SETTINGS(page).maybe(st.session_state)


def widget_state(prefix: str = keys.EXPLORE) -> dict[str, Any]:
    """The current values of the widgets whose key starts with ``prefix``."""
    return {k: v for k, v in st.session_state.items() if isinstance(k, str) and k.startswith(prefix)}


def title_with_link(title: str, query: Mapping[str, Any], caption: str) -> None:
    """The page title with a "Copy link" popover holding the URL that restores the settings."""
    head, share = st.columns([5, 1], vertical_alignment="bottom")
    head.title(title)
    with share.popover("Copy link", icon=":material/link:", width="stretch"):
        st.caption(f"{caption} {notices.COPY_HOW}")
        st.code(f"{st.context.url or ''}?{urlencode(query, doseq=True)}", language=None, wrap_lines=True)


def set_widgets(values: Mapping[str, Any]) -> None:
    """A button's callback: put widget ``values`` (keyed by their ``keys.X.name``) into the session before
    the rerun draws them (Explore's "Use N nodes" for an upload's cluster)."""
    st.session_state.update(values)


def keep_choice(session: Session, key: Key[Any], options: Sequence[Any], default: Any) -> None:
    """Keep a select widget's value one of ``options`` (they changed): else ``default``."""
    if key.maybe(session) not in options:
        key.set(session, default)


# --- Explore --------------------------------------------------------------------------------------

GANTT_HOURS = 8.0  # the default window: short enough that TE jobs (minutes long) are visible bars
GANTT_LANES = 32  # GPU lanes drawn per policy by default (the first nodes)
GANTT_ZOOM = 600.0  # seconds shown around a chosen preemption, until the visitor picks another
# what the Gantt keeps in the session; dropped when the workload or the cluster changes
GANTT_KEYS: tuple[Key[Any], ...] = (
    keys.GANTT_POLICY,
    keys.GANTT_WINDOW,
    keys.GANTT_NODES,
    keys.GANTT_WITH,
    keys.GANTT_PREEMPTION,
)


def explore_widget_values(s: Scenario) -> dict[str, Any]:
    """The Explore widgets' state for a scenario, the Gantt's view included."""
    values = scenario_widgets(s)
    values.update(
        {
            keys.GANTT_POLICY.name: s.gantt_policy,
            keys.GANTT_WINDOW.name: s.gantt_window,
            keys.GANTT_NODES.name: list(s.gantt_nodes),
            **gantt_queue_switches(s.gantt_queue),
        }
    )
    return values


def fill_defaults(session: Session, values: Mapping[str, Any]) -> None:
    """Give widgets that have no value yet their default (a value already there stays)."""
    for key, value in values.items():
        session.setdefault(key, value)


def preset_fields(session: Session, preset: str, defaults: Mapping[str, Any]) -> None:
    """The generator's fields (``x_gen_<name>``): a newly chosen preset starts from its own
    defaults, the values of the one before are forgotten."""
    if keys.GEN_PRESET.get(session, preset) != preset:
        for name in MAIN_GEN_PARAMS:
            keys.GEN_PARAM(name).drop(session)
    keys.GEN_PRESET.set(session, preset)
    fill_defaults(session, {keys.GEN_PARAM(name).name: value for name, value in defaults.items()})


@dataclass(frozen=True, eq=False)
class GanttSetup:
    """The Gantt's defaults for the current run and the shown policy's preemptions."""

    policy: str  # the policy shown first
    nodes: list[str]  # the first nodes up to GANTT_LANES lanes
    span: float  # hours of the shown run
    window: tuple[float, float]  # hours: from an hour before the first preemption (as the control fits it)
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
    if keys.GANTT_FOR.get(session, view_of) != view_of:
        scenario = replace(scenario, gantt_policy="", gantt_window=None, gantt_nodes=())
        for key in GANTT_KEYS:
            key.drop(session)
    keys.GANTT_FOR.set(session, view_of)
    policies = scenario.policies
    default_policy = gantt_views.gantt_default_policy(policies, preemptive)
    keep_choice(session, keys.GANTT_POLICY, policies, scenario.gantt_policy or default_policy)
    keep_choice(session, keys.GANTT_POLICY, policies, default_policy)  # the link's was not chosen
    policy = keys.GANTT_POLICY.read(session)
    keep_choice(session, keys.GANTT_WITH, gantt_second_options(policies, policy), _second(scenario, policy))
    default_nodes = gantt_views.default_gantt_nodes(cluster, GANTT_LANES)
    picked = keys.GANTT_NODES.get(session, []) or list(scenario.gantt_nodes)
    keys.GANTT_NODES.set(session, [n for n in picked if n in cluster.names] or default_nodes)
    run = runs[policy]
    span, default_window = gantt_views.gantt_default_window(run.segments, run.events, GANTT_HOURS)
    default_window = gantt_views.fit_window(default_window, span)
    preempts = gantt_views.preemption_list(run.events)
    chosen = keys.GANTT_PREEMPTION.maybe(session)
    if chosen is not None and (
        chosen["policy"] != policy or gantt_views.step_preemption(preempts, chosen, 0, (0.0, 0.0)) != chosen["index"]
    ):
        keys.GANTT_PREEMPTION.set(session, None)
    session.setdefault(keys.GANTT_ZOOM.name, GANTT_ZOOM)
    window = keys.GANTT_WINDOW.maybe(session) or scenario.gantt_window or default_window
    inside = gantt_views.clamp_window(window, span)  # a link's window may be any length: the control's nearest
    keys.GANTT_WINDOW.set(session, default_window if inside is None else gantt_views.fit_window(inside, span))
    return GanttSetup(default_policy, default_nodes, span, default_window, preempts)


#: the Gantt's switches by queue, each by its word in the link
GANTT_QUEUE_KEYS = dict(zip(GANTT_QUEUE_VIEWS, (keys.GANTT_QUEUE_COLOUR, keys.GANTT_QUEUE_GROUP), strict=True))


def gantt_queue_switches(views: Sequence[str]) -> dict[str, bool]:
    """The switches' widget state for the link's ``gantt_queue`` words (those not named are off)."""
    return {key.name: word in views for word, key in GANTT_QUEUE_KEYS.items()}


def gantt_queue_setup(session: Session, scenario: Scenario, queues: bool) -> None:
    """Make the Gantt's switches by queue valid for this run before they are drawn: a run with ``queues``
    keeps the visitor's switches, else takes the link's (``scenario``: a switch's state is gone once its tab
    was left); a run without queues has no switches, and forgets them (its link does not carry them)."""
    for word, key in GANTT_QUEUE_KEYS.items():
        if queues:
            session.setdefault(key.name, word in scenario.gantt_queue)
        else:
            key.drop(session)


NO_SECOND = "(none)"


def gantt_second_options(policies: Sequence[str], policy: str) -> list[str]:
    """What the "Stacked with" box offers: no second panel, or another policy."""
    return [NO_SECOND] + [p for p in policies if p != policy]


def _second(scenario: Scenario, policy: str) -> str:
    return scenario.baseline if scenario.baseline != policy else NO_SECOND


def gantt_step(session: Session, setup: GanttSetup, direction: int) -> None:
    """Choose the next (+1) or previous (-1) preemption and centre the window on it; a note
    in the session when there is none (shown once)."""
    lo, hi = keys.GANTT_WINDOW.maybe(session) or setup.window  # the slider's value: a list or a tuple
    shown = (lo, hi)
    i = gantt_views.step_preemption(setup.preempts, keys.GANTT_PREEMPTION.maybe(session), direction, shown)
    if i is None:
        keys.GANTT_NOTE.set(session, "No preemption " + ("after" if direction > 0 else "before") + " this one.")
        return
    row = setup.preempts.iloc[i]
    nodes = keys.GANTT_NODES.read(session)
    keys.GANTT_PREEMPTION.set(
        session,
        {
            "policy": keys.GANTT_POLICY.read(session),
            "index": i,
            "time": float(row["time"]),
            "job_id": row["job_id"],
            "node": row["node"],
        },
    )
    keys.GANTT_WINDOW.set(session, gantt_views.centred_window(float(row["time"]), shown[1] - shown[0], setup.span))
    if row["node"] not in nodes:
        keys.GANTT_NODES.set(session, [*nodes, row["node"]])


def take_gantt_note(session: Session) -> str | None:
    """The note :func:`gantt_step` left, once (it is gone afterwards)."""
    return keys.GANTT_NOTE.drop(session)


def gantt_jump(
    session: Session, policy: str, ref: Callable[[], Any], cluster: ClusterSpec, decision: Mapping[str, Any], tab: str
) -> None:
    """Open the Gantt (tab ``tab``) on a decision of ``policy``'s run (``ref``: a weak reference,
    :mod:`dashboard.runs.held`; nothing once the run has left memory): its first preemption
    chosen, as Previous / Next preemption would choose it, with the window centred on it."""
    if (run := ref()) is None:
        return
    preempts = gantt_views.preemption_list(run.events)
    at = preempts[
        (preempts["time"] == decision["time"])
        & (preempts["job_id"] == decision["first_victim"])
        & (preempts["node"] == decision["victim_node"])
    ]
    if at.empty:  # not expected: every decision signals its victims
        return
    i = int(at.index[0])
    keys.GANTT_POLICY.set(session, policy)
    keys.GANTT_PREEMPTION.set(
        session,
        {
            "policy": policy,
            "index": i,
            "time": float(decision["time"]),
            "job_id": decision["first_victim"],
            "node": decision["victim_node"],
        },
    )
    span, window = gantt_views.gantt_default_window(run.segments, run.events, GANTT_HOURS)
    shown = keys.GANTT_WINDOW.maybe(session) or window
    keys.GANTT_WINDOW.set(session, gantt_views.centred_window(float(decision["time"]), shown[1] - shown[0], span))
    nodes = list(keys.GANTT_NODES.maybe(session) or gantt_views.default_gantt_nodes(cluster, GANTT_LANES))
    if decision["victim_node"] not in nodes:
        nodes = [*nodes, decision["victim_node"]]
    keys.GANTT_NODES.set(session, nodes)
    keys.TAB.set(session, tab)


@dataclass(frozen=True)
class GanttChoice:
    """What the visitor chose to see in the Gantt."""

    policies: list[str]  # the top panel's policy, then the stacked one (if any)
    nodes: list[str]
    window: tuple[float, float]  # hours
    chosen: dict[str, Any] | None  # the chosen preemption
    focus: tuple[float, float] | None  # seconds around the chosen preemption
    by_queue: tuple[str, ...] = ()  # the switches by queue that are on (words of the link's gantt_queue)


def gantt_choice(session: Session) -> GanttChoice:
    """The Gantt's choices as its widgets left them."""
    policy, second = keys.GANTT_POLICY.read(session), keys.GANTT_WITH.read(session)
    window = keys.GANTT_WINDOW.read(session)  # the slider's value: a list or a tuple
    chosen = keys.GANTT_PREEMPTION.maybe(session)
    focus = None
    if chosen is not None:
        half = keys.GANTT_ZOOM.read(session) / 2
        focus = (chosen["time"] - half, chosen["time"] + half)
    return GanttChoice(
        [policy] + ([] if second == NO_SECOND else [second]),
        list(keys.GANTT_NODES.read(session)),
        (window[0], window[1]),
        chosen,
        focus,
        tuple(word for word, key in GANTT_QUEUE_KEYS.items() if key.get(session, False)),
    )


def gantt_in_link(scenario: Scenario, setup: GanttSetup, choice: GanttChoice) -> Scenario:
    """The scenario with the Gantt's view, what differs from the defaults, for the link."""
    policy = choice.policies[0]
    return replace(
        scenario,
        gantt_policy="" if policy == setup.policy else policy,
        gantt_window=None if choice.window == setup.window else choice.window,
        gantt_nodes=() if choice.nodes == setup.nodes else tuple(choice.nodes),
        gantt_queue=choice.by_queue,
    )


def publish_gantt_view(scenario: Scenario, setup: GanttSetup, choice: GanttChoice) -> None:
    """Put the Gantt's view into Explore's link (known only once the run is drawn)."""
    linked = gantt_in_link(scenario, setup, choice)
    publish("explore", linked, linked.to_query())


# --- Learn: a lesson's time control -----------------------------------------------------------


def lesson_step_key(lesson_key: str, label: str) -> Key[int]:
    """The session key of a lesson variant's instant (its slider's key)."""
    return keys.LESSON_STEP(f"{lesson_key}_{label}")


def lesson_move(session: Session, key: Key[int], last: int, to: int | None = None, delta: int = 0) -> None:
    """Go to instant ``to``, or ``delta`` instants from the current one, inside 0..last."""
    here = int(key.get(session, 0))
    key.set(session, min(max(to if to is not None else here + delta, 0), last))


def lesson_playing(session: Session) -> tuple[str, str] | None:
    return keys.LESSON_PLAYING.maybe(session)


def lesson_toggle_play(session: Session, who: tuple[str, str]) -> None:
    """Play ``who`` (lesson, variant), or pause it when it is playing."""
    keys.LESSON_PLAYING.set(session, None if lesson_playing(session) == who else who)


def lesson_tick(session: Session, key: Key[int], last: int) -> bool:
    """One instant on while playing; True when the last instant is reached (playing stops)."""
    lesson_move(session, key, last, delta=1)
    if int(key.read(session)) >= last:
        keys.LESSON_PLAYING.set(session, None)
        return True
    return False
