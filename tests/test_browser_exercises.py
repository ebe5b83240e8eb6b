"""Chromium tests of Learn's predict-then-reveal (issue 33): a lesson shows no Gantt and no outcome
before its questions are checked, and then does; a seeded exercise opened from its link offers at least
two choices per question and hides its Gantt and limits until checked; its k8s victim question answered
wrong, then right, explained by the key value that decided; then, from the same page, a Learn link opens
its scenario in Explore (on the shared server and Chromium of tests/conftest.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from helpers.browser import ARTIFACTS, BROWSER_TESTS, TIMEOUT_MS, assert_no_exception, click_one, settle, wait_idle

from dashboard.learn import exercises, lessons
from dashboard.runs import compute
from simcore.core.model import SimConfig

SEED = 7

pytestmark = BROWSER_TESTS
sync_api = pytest.importorskip("playwright.sync_api")

GANTT = ".js-plotly-plot"  # a drawn Plotly chart (the lesson's GPU grid and Gantt, the exercise's Gantt)


def _radio(page: Any, key: str) -> Any:
    return page.locator(f".st-key-{key}")


def _option(page: Any, radio: Any, name: str) -> Any:
    """A radio option's label, found by its input."""
    return radio.locator("label").filter(has=page.get_by_role("radio", name=name, exact=True))


def _check(page: Any, key: str) -> None:
    click_one(page, page.locator(f".st-key-check_{key} button"))


def test_a_lesson_hides_what_happened_until_checked(dashboard_server: str, new_page: Callable[..., Any]) -> None:
    page = new_page(1400, 1200)
    page.goto(f"{dashboard_server}/learn")
    radio = _radio(page, "quiz_answer_hol_fifo_victim")
    radio.wait_for(timeout=TIMEOUT_MS)
    wait_idle(page)
    assert "the TE job waits behind" in lessons.lesson("hol").variant("fifo").outcome  # what is looked for
    body = page.locator("body").inner_text()
    # no answer is visible before Check: no chart, no outcome, no wait (118 min = 1.97 h)
    assert page.locator(GANTT).count() == 0, "a chart is drawn before the questions are checked"
    assert "the TE job waits behind" not in body and "118" not in body
    for key in ("quiz_answer_hol_fifo_victim",):  # every choice question offers two choices at least
        assert _radio(page, key).get_by_role("radio").count() >= 2
    page.screenshot(path=str(ARTIFACTS / "learn-before-check.png"), full_page=True)
    click_one(page, _option(page, radio, exercises.choice_label(exercises.NOBODY)))
    _check(page, "quiz_answer_hol_fifo_victim")
    page.get_by_text("fifo never looks for victims").wait_for(timeout=TIMEOUT_MS)
    wait = page.locator(".st-key-quiz_answer_hol_fifo_te_wait input")
    wait.fill("100")
    wait.press("Enter")
    wait_idle(page)
    _check(page, "quiz_answer_hol_fifo_te_wait")
    page.get_by_text("Not quite: you said 100 min").wait_for(timeout=TIMEOUT_MS)
    # both checked: the outcome, the step-through and the Gantt appear
    page.get_by_text("the TE job waits behind").first.wait_for(timeout=TIMEOUT_MS)
    wait_idle(page, charts=2)  # the GPU grid and the Gantt
    assert_no_exception(page)


def test_an_exercise_answered_wrong_then_right_in_chromium(dashboard_server: str, new_page: Callable[..., Any]) -> None:
    ex = exercises.generate(SEED)
    # the victim computed here, independently of the page's questions: k8s's first preemption
    events = compute.full_run(ex.table, ex.cluster, SimConfig(policy="k8s")).events
    right = str(events.loc[events["event"] == "preempt", "job_id"].iloc[0])
    asked = exercises.questions(ex.runs["k8s"].jobs, events, "k8s", ex.evidence["k8s"])
    options = next(q for q in asked if q.key == "victim").options
    wrong = next(j for j in options if j != right)
    page = new_page(1400, 900)
    page.goto(f"{dashboard_server}/learn?{exercises.SEED_PARAM}={SEED}")
    radio = _radio(page, f"quiz_answer_ex{SEED}_k8s_victim")
    radio.wait_for(timeout=TIMEOUT_MS)
    wait_idle(page)
    # before Check: every victim question offers two choices at least, and nothing tells the answers
    for policy in exercises.POLICIES:
        assert _radio(page, f"quiz_answer_ex{SEED}_{policy}_victim").get_by_role("radio").count() >= 3
    assert page.get_by_text("The limit: how short could the TE waits be?").count() == 0
    assert page.locator(GANTT).count() == 0  # neither the lesson's nor the exercise's Gantt

    click_one(page, _option(page, radio, exercises.choice_label(wrong)))
    _check(page, f"quiz_answer_ex{SEED}_k8s_victim")
    page.get_by_text(f"Not quite: you said {exercises.choice_label(wrong)}; the simulation says job {right}").wait_for(
        timeout=TIMEOUT_MS
    )
    click_one(page, _option(page, radio, f"job {right}"))
    _check(page, f"quiz_answer_ex{SEED}_k8s_victim")
    page.get_by_text(f"Right: job {right}.", exact=True).wait_for(timeout=TIMEOUT_MS)
    assert page.get_by_text("Not quite").count() == 0
    # explained with the key that decided: the sets k8s weighed are listed under the words
    page.get_by_text(f"k8s takes job {right}").first.wait_for(timeout=TIMEOUT_MS)
    settle(page)
    page.screenshot(path=str(ARTIFACTS / "learn-exercise-checked.png"), full_page=True)
    assert f"{exercises.SEED_PARAM}={SEED}" in page.url  # the link still reproduces the exercise
    assert_no_exception(page)

    # a Learn link (a regime fact's) opens its scenario in Explore: the paper regime, backfill = none
    page.get_by_text("Open the paper regime with backfill = none").click()
    wait_idle(page, charts=2, cards=12)
    assert "backfill=none" in page.url and "preset=paper" in page.url, page.url
    assert page.locator('[data-testid="stMetric"]').count() == 12
    assert_no_exception(page)
