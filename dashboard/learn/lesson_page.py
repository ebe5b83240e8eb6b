"""The step-through lessons on Learn: choose a lesson and a variant, predict, then step through its instants.

The setup and the jobs come first, then the variant's questions (:mod:`dashboard.learn.quiz_page`);
what happened (the variant's outcome, the time control, the Gantt and the outcome table) is shown once
they are checked, with the other variants already answered beside it: before, it would give the
answers away.

The time control (first, previous, play/pause, next, last and a slider over the instants) keeps
its position in the session per lesson and variant (:mod:`dashboard.shared.state`); *play* advances
one instant per tick of a Streamlit fragment until the last instant. The cluster at the
instant is drawn as GPU grids next to the Gantt of every variant, with a line at the instant.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import streamlit as st

from dashboard.learn import exercises, lesson_charts, lesson_views, lessons, queue_questions, quiz_page, quiz_state
from dashboard.runs import data, worker
from dashboard.runs.compute import Run
from dashboard.shared import keys, notices, state, tables, views
from dashboard.shared.chart_style import PLOT_CONFIG
from simcore.core import fmt
from simcore.core.errors import UserError
from simcore.core.model import ClusterSpec

PLAY_SECONDS = 1.5  # one instant per tick while playing


def show() -> None:
    """The lessons section of the Learn page: the setup, the jobs, the questions, then (once answered)
    what happened, step by step."""
    item = lessons.lesson(
        st.selectbox(
            "Lesson",
            [x.key for x in lessons.LESSONS],
            format_func=lambda k: lessons.lesson(k).title,
            key=keys.LESSON.name,
        )
    )
    st.markdown(item.setup)
    label = st.radio(
        "Run it with", [v.label for v in item.variants], horizontal=True, key=keys.LESSON_VARIANT(item.key).name
    )
    try:
        with notices.progress("Simulating the lesson...") as heartbeat:
            table, cluster = lessons.load(item)
            wanted = lessons.variant_configs(item, cluster)
            runs = data.lesson_runs(table, wanted, heartbeat)
            found = data.computed(("lesson_evidence", item.key), exercises.evidences, (table, wanted), heartbeat)
    except UserError as exc:
        notices.error(exc)
        return
    except worker.Cancelled:
        st.stop()
    tables.show(exercises.jobs_table(table), width="content")
    st.markdown("**Predict first**: answer, then check; the answers come from this very run.")
    asked = {v.label: _questions(item, runs, v, found[v.label]) for v in item.variants}
    scope = f"{item.key}_{label}"
    quiz_page.ask(asked[label], scope)
    if not quiz_page.revealed(scope, {scope: asked[label]}):
        return
    session = st.session_state
    shown = [
        v
        for v in item.variants
        if quiz_state.quiz_revealed(
            session, f"{item.key}_{v.label}", {f"{item.key}_{v.label}": [q.key for q in asked[v.label]]}
        )
    ]
    st.markdown(" ".join([*(v.outcome for v in shown), *([item.summary] if len(shown) == len(item.variants) else [])]))
    if len(shown) < len(item.variants):
        st.caption("The other variants appear beside this one once their questions are answered.")
    ticking = state.lesson_playing(session) == (item.key, label)
    revealed = {v.label: runs[v.label] for v in shown}
    st.fragment(run_every=PLAY_SECONDS if ticking else None)(_stepper)(item, label, cluster, revealed, ticking)


def _questions(
    item: lessons.Lesson, runs: dict[str, Run], variant: lessons.Variant, found: exercises.Evidence
) -> tuple[exercises.Question, ...]:
    """A variant's questions: the run's, the lesson's own (``item.ask``), and with queues who borrows and
    who pays (:mod:`.queue_questions`)."""
    run = runs[variant.label]
    asked = exercises.questions(run.jobs, run.events, variant.label, found)
    if item.ask is not None:
        asked += item.ask(runs, variant.label)
    if variant.queues is not None and run.usage is not None and run.ledger is not None:
        asked += queue_questions.questions(run.jobs, run.events, run.usage, run.ledger, variant.queues, variant.label)
    return asked


def _stepper(item: lessons.Lesson, label: str, cluster: ClusterSpec, runs: dict[str, Run], ticking: bool) -> None:
    """The time control and the cluster at the chosen instant of ``label``'s run, beside the Gantt and the
    outcome of ``runs`` (the variants revealed): a fragment that reruns on its own every PLAY_SECONDS
    while ``ticking`` (playing)."""
    run = runs[label]
    times = lesson_views.instants(run.events)
    last = len(times) - 1
    key = state.lesson_step_key(item.key, label)
    who = (item.key, label)
    playing = state.lesson_playing(st.session_state) == who
    if playing != ticking:
        # Play or Pause was pressed inside the fragment: only a full rerun starts or stops the ticks
        st.rerun()
    if playing and state.lesson_tick(st.session_state, key, last):  # the last instant: playing stops
        st.rerun()

    cols = st.columns([1, 1.25, 1, 1, 1, 3.5])
    session, move = st.session_state, state.lesson_move
    buttons: tuple[tuple[str, str, str, Callable[..., None], tuple[Any, ...]], ...] = (
        # (key suffix, label, icon, callback, its arguments)
        ("first", "First", ":material/first_page:", move, (session, key, last, 0)),
        ("prev", "Previous", ":material/chevron_left:", move, (session, key, last, None, -1)),
        (
            "play",
            "Pause" if playing else "Play",
            ":material/pause:" if playing else ":material/play_arrow:",
            state.lesson_toggle_play,
            (session, who),
        ),
        ("next", "Next", ":material/chevron_right:", move, (session, key, last, None, 1)),
        ("last", "Last", ":material/last_page:", move, (session, key, last, last)),
    )
    for col, (name, text, icon, callback, args) in zip(cols, buttons, strict=False):
        col.button(text, icon=icon, key=f"{key.name}_{name}", on_click=callback, args=args, width="stretch")
    index = cols[5].select_slider(
        "Instant",
        options=list(range(len(times))),
        format_func=lambda i: f"{i + 1}/{len(times)} · {fmt.clock(times[i])}",
        key=key.name,
        label_visibility="collapsed",
    )
    t = times[int(index)]
    snap = lesson_views.snapshot(run.jobs, run.events, run.segments, run.lost, t)

    left, right = st.columns([2, 3])
    with left:
        st.markdown(f"**{label}, at {fmt.clock(t)}** (instant {int(index) + 1} of {len(times)})")
        st.markdown("\n".join(f"- {line}" for line in snap.story))
        st.plotly_chart(
            lesson_charts.gpu_grid_figure(lesson_views.grid_frame(snap, cluster)),
            config=PLOT_CONFIG,
            key=f"{key.name}_grid",
        )
        st.caption("Queue (waiting jobs, longest waiting first)")
        if snap.queue.empty:
            st.caption("empty")
        else:
            tables.show(snap.queue)
    with right:
        quiz_page.runs_gantt(runs, cluster, t, f"{key.name}_gantt")
    tables.show(  # the whole width, the variant's name in full ("checkpoint on_preempt")
        lesson_views.outcome_table(runs),
        # the variant's name and the last finish ("day 1 02:56:30") whole, the numbers in what is left
        # ("large" for the name left the last column cut on a 1400 px window)
        {
            "variant": st.column_config.TextColumn(width=views.text_width(list(runs))),
            "last finish": st.column_config.DatetimeColumn(format=tables.DAY_CLOCK, width="medium"),
        },
    )
