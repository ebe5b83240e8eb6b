"""Learn's session rules for predict, then reveal: a question's answer and the answer checked, what
happened shown unanswered, and the seeded exercise's seed between its widget and the link. The page
(:mod:`dashboard.learn.quiz_page`) only reads the session; these write it (as
:mod:`dashboard.shared.state` does for the other pages' settings). They take the session as a mapping,
so they are tested on a plain dict."""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterable, Mapping

import streamlit as st

from dashboard.shared import keys
from dashboard.shared.keys import Key, Session


def quiz_keys(scope: str, question: str) -> tuple[Key[str | float | None], Key[str | float]]:
    """The session keys of a question's answer widget and of the answer checked."""
    name = f"{scope}_{question}"
    return keys.QUIZ_ANSWER(name), keys.QUIZ_CHECKED(name)


def quiz_check(session: Session, scope: str, question: str) -> None:
    """The Check button: keep the widget's answer as the one checked (none chosen: nothing to check)."""
    answer, checked = quiz_keys(scope, question)
    given = answer.maybe(session)
    if given is None:
        checked.drop(session)
    else:
        checked.set(session, given)


def quiz_show(session: Session, name: str) -> None:
    """The "Show what happened" button of ``name`` (a lesson variant, an exercise): shown unanswered."""
    keys.QUIZ_SHOWN(name).set(session, True)


def quiz_revealed(session: Session, name: str, asked: Mapping[str, Iterable[str]]) -> bool:
    """May what happened in ``name`` be shown (its Gantt and outcome give the answers away): every
    question of ``asked`` (scope -> its questions' keys) checked, or its Show what happened pressed?"""
    checked = all(quiz_keys(scope, q)[1].maybe(session) is not None for scope, qs in asked.items() for q in qs)
    return checked or bool(keys.QUIZ_SHOWN(name).get(session, False))


def exercise_from_link(session: Session, raw: str | None, parse: Callable[[str], int]) -> None:
    """Put the link's seed into the seed widget when the link is new (a later widget change wins);
    ``parse`` raises UserError on a bad seed."""
    if raw is None or raw == keys.EXERCISE_LINKED.maybe(session):
        return
    keys.EXERCISE_LINKED.set(session, raw)
    keys.EXERCISE_SEED.set(session, parse(raw))


def new_exercise(session: Session, seed_max: int) -> None:
    """The New exercise button: a fresh seed (the link then reproduces it)."""
    keys.EXERCISE_SEED.set(session, secrets.randbelow(seed_max + 1))


def publish_exercise(session: Session, param: str, seed: int | None) -> None:
    """The shown exercise's seed into the Learn page's link."""
    if seed is None:
        return
    keys.EXERCISE_LINKED.set(session, str(seed))
    if st.query_params.get(param) != str(seed):
        st.query_params[param] = str(seed)
