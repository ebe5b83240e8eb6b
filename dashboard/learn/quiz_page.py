"""Predict, then reveal, on Learn: the questions of a run (:mod:`dashboard.learn.exercises`) with
an answer widget and a Check button; right/wrong feedback and the explanation (the key that decided,
with its values, and the sets the policy weighed) appear only once the visitor has answered. What
happened (a lesson's step-through, an exercise's Gantt and limits) stays hidden until every question
is checked or Show what happened is pressed: it gives the answers away. Also the fresh exercise drawn
from a seed, and the knob mapping table."""

from __future__ import annotations

import math
from collections.abc import Mapping

import streamlit as st

from dashboard.learn import exercises, knob_map, quiz_state
from dashboard.runs import data, worker
from dashboard.runs.compute import Run
from dashboard.shared import decision_text, gantt_charts, gantt_views, keys, notices, tables, views
from dashboard.shared.chart_style import PLOT_CONFIG
from dashboard.shared.knob_widgets import FLOAT_FORMAT
from simcore.core import fmt
from simcore.core.errors import UserError
from simcore.core.model import ClusterSpec

LESSON_LANE_PX = 30  # pixels per GPU lane in a lesson's or exercise's Gantt


def ask(questions: tuple[exercises.Question, ...], scope: str) -> None:
    """Each question, its answer widget and, once checked, the feedback, the explanation and the sets
    the decision weighed. ``scope`` tells apart the questions of different runs (a lesson and
    variant, an exercise and policy)."""
    for q in questions:
        answer, checked = quiz_state.quiz_keys(scope, q.key)
        with st.container(border=True):
            if q.kind == "choice":
                st.radio(q.prompt, q.options, index=None, horizontal=True, key=answer.name, format_func=_option(q.key))
            else:
                st.number_input(q.prompt, min_value=0.0, value=None, step=0.5, key=answer.name, format=FLOAT_FORMAT)
            st.button(
                "Check",
                key=f"check_{answer.name}",
                on_click=quiz_state.quiz_check,
                args=(st.session_state, scope, q.key),
            )
            given = checked.maybe(st.session_state)
            if given is None:
                continue
            shown = _option(q.key)(str(given)) if q.kind == "choice" else f"{fmt.number(float(given))} min"
            if exercises.is_right(q, given):
                st.success(f"Right: {q.answer}.", icon=":material/check_circle:")
            else:
                st.error(f"Not quite: you said {shown}; the simulation says {q.answer}.", icon=":material/cancel:")
            st.markdown(q.explanation)
            if q.record is not None:
                tables.show(decision_text.candidate_table(q.record))


def _option(key: str):
    """How a choice reads: a victim question's jobs and "nobody", a count of workers as it is."""
    return exercises.choice_label if key == "victim" else str


def revealed(name: str, asked: Mapping[str, tuple[exercises.Question, ...]]) -> bool:
    """Whether what happened in ``name`` may be shown (:func:`dashboard.learn.quiz_state.quiz_revealed`);
    until then a line says why it is hidden, with the button that shows it unanswered."""
    scopes = {scope: [q.key for q in qs] for scope, qs in asked.items()}
    if quiz_state.quiz_revealed(st.session_state, name, scopes):
        return True
    st.caption(
        "What happened is hidden until you check your answers above: the run's Gantt and outcome give them away."
    )
    st.button(
        "Show what happened",
        key=f"show_{name}",
        icon=":material/visibility:",
        on_click=quiz_state.quiz_show,
        args=(st.session_state, name),
    )
    return False


def runs_gantt(runs: Mapping[str, Run], cluster: ClusterSpec, t: float | None, key: str) -> None:
    """The Gantt of every run, the whole of it, with a line at ``t`` (None: none); lanes tall enough to
    read the job ids on the bars."""
    span_h = max(math.ceil(max(float(r.segments["end"].max()) for r in runs.values()) / views.HOUR * 4) / 4, 0.25)
    gantt = gantt_views.gantt_view(
        {name: (r.segments, r.events) for name, r in runs.items()},
        cluster,
        [n.name for n in cluster.nodes],
        (0.0, span_h),
        selected=None if t is None else {"time": t},
        lost={name: r.lost for name, r in runs.items()},
    )
    lanes = sum(len(p.layout) for p in gantt.panels)
    figure = gantt_charts.gantt_figure(gantt).update_layout(height=160 + LESSON_LANE_PX * lanes)
    st.plotly_chart(figure, config=PLOT_CONFIG, key=key)


def show_exercise() -> None:
    """The New exercise button, the seed (kept in the link), the drawn exercise's questions and, once
    answered, its Gantt and limits."""
    session = st.session_state
    try:
        quiz_state.exercise_from_link(session, st.query_params.get(exercises.SEED_PARAM), exercises.parse_seed)
    except UserError as exc:
        notices.error(exc)
    left, right = st.columns([1, 2])
    left.button(
        "New exercise", icon=":material/casino:", on_click=quiz_state.new_exercise, args=(session, exercises.SEED_MAX)
    )
    seed = right.number_input(
        "Exercise seed (in the link)",
        min_value=0,
        max_value=exercises.SEED_MAX,
        value=None,
        step=1,
        key=keys.EXERCISE_SEED.name,
    )
    if seed is None:
        st.caption("Press **New exercise** (or type a seed) to draw a small scenario to practise on.")
        return
    try:
        with notices.progress("Drawing the exercise...") as heartbeat:
            ex = data.computed(("exercise", int(seed)), exercises.generate, (int(seed),), heartbeat)
    except UserError as exc:
        notices.error(exc)
        return
    except worker.Cancelled:
        st.stop()
    quiz_state.publish_exercise(session, exercises.SEED_PARAM, int(seed))
    nodes = len(ex.cluster.nodes)
    st.markdown(
        f"**Exercise {ex.seed}**: {nodes} node{'s' if nodes > 1 else ''} of {fmt.number(exercises.NODE.gpu)} GPUs, "
        f"full of BE jobs when the TE jobs arrive. Predict what each policy does, then check."
    )
    tables.show(exercises.jobs_table(ex.table), width="content")
    asked = {
        f"ex{ex.seed}_{policy}": exercises.questions(run.jobs, run.events, policy, ex.evidence[policy])
        for policy, run in ex.runs.items()
    }
    for scope, qs in asked.items():
        ask(qs, scope)
    if not revealed(f"ex{ex.seed}", asked):
        return
    st.markdown("**What happened**: both runs, side by side.")
    runs_gantt(ex.runs, ex.cluster, None, f"ex{ex.seed}_gantt")
    with st.expander("The limit: how short could the TE waits be?"):
        st.markdown(
            f"**{exercises.BOUND_LABEL}** is the pooled bound: the same jobs on one node holding the whole "
            "cluster, preempting for free (no grace, no restore). **TE jobs alone** runs only the TE jobs on "
            "this cluster: no policy can make a TE job wait less than that."
        )
        tables.show(ex.limits, width="content")


def show_knob_map() -> None:
    st.markdown(knob_map.markdown())
