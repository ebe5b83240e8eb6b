"""Predict, then reveal, on Learn: the questions of a run (:mod:`dashboard.learn.exercises`) with
an answer widget and a Check button; right/wrong feedback and the explanation appear only once
the visitor has answered. Also the fresh exercise drawn from a seed, and the knob mapping table."""

from __future__ import annotations

import streamlit as st

from dashboard.learn import exercises, knob_map
from dashboard.runs import data, worker
from dashboard.shared import keys, notices, state, tables
from dashboard.shared.knob_widgets import FLOAT_FORMAT
from simcore.core import fmt
from simcore.core.errors import UserError


def ask(questions: tuple[exercises.Question, ...], scope: str) -> None:
    """Each question, its answer widget and, once checked, the feedback and the explanation.
    ``scope`` tells apart the questions of different runs (a lesson and variant, an exercise)."""
    for q in questions:
        answer, checked = state.quiz_keys(scope, q.key)
        with st.container(border=True):
            if q.kind == "choice":
                st.radio(q.prompt, q.options, index=None, horizontal=True, key=answer.name, format_func=q.option_text)
            else:
                st.number_input(q.prompt, min_value=0.0, value=None, step=0.5, key=answer.name, format=FLOAT_FORMAT)
            st.button(
                "Check", key=f"check_{answer.name}", on_click=state.quiz_check, args=(st.session_state, scope, q.key)
            )
            given = checked.maybe(st.session_state)
            if given is None:
                continue
            shown = q.option_text(given) if q.kind == "choice" else f"{fmt.number(float(given))} min"
            if exercises.is_right(q, given):
                st.success(f"Right: {q.answer}.", icon=":material/check_circle:")
            else:
                st.error(f"Not quite: you said {shown}; the simulation says {q.answer}.", icon=":material/cancel:")
            st.markdown(q.explanation)


def show_exercise() -> None:
    """The New exercise button, the seed (kept in the link) and the drawn exercise's questions."""
    session = st.session_state
    try:
        state.exercise_from_link(session, st.query_params.get(exercises.SEED_PARAM), exercises.parse_seed)
    except UserError as exc:
        notices.error(exc)
    left, right = st.columns([1, 2])
    left.button(
        "New exercise", icon=":material/casino:", on_click=state.new_exercise, args=(session, exercises.SEED_MAX)
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
    state.publish_exercise(session, exercises.SEED_PARAM, int(seed))
    nodes = len(ex.cluster.nodes)
    st.markdown(
        f"**Exercise {ex.seed}**: {nodes} node{'s' if nodes > 1 else ''} of {fmt.number(exercises.NODE.gpu)} GPUs, "
        f"full of BE jobs when the TE jobs arrive. Predict what each policy does, then check."
    )
    table = ex.table.to_frame()[["job_id", "job_class", "submit_time", "duration", "gpu"]]
    tables.show(
        table.assign(
            submit_time=table["submit_time"].map(fmt.clock), duration=table["duration"].map(fmt.duration)
        ).rename(columns={"submit_time": "arrives", "duration": "run time", "gpu": "GPUs"}),
        width="content",
    )
    for policy, run in ex.runs.items():
        ask(exercises.questions(run.jobs, run.events, policy), f"ex{ex.seed}_{policy}")
    with st.expander("The limit: how short could the TE waits be?"):
        st.markdown(
            f"**{exercises.BOUND_LABEL}** is the pooled bound: the same jobs on one node holding the whole "
            "cluster, preempting for free (no grace, no restore). **TE jobs alone** runs only the TE jobs on "
            "this cluster: no policy can make a TE job wait less than that."
        )
        tables.show(ex.limits, width="content")


def show_knob_map() -> None:
    st.markdown(knob_map.markdown())
