"""One Chromium test of the exercises on Learn: open a seeded exercise from its link, answer the
k8s victim question wrong, then right, and read both feedbacks; then, from the same page, a Learn
link opens its scenario in Explore (on the shared server and Chromium of tests/conftest.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from helpers.browser import BROWSER_TESTS, TIMEOUT_MS, assert_no_exception, click_one, wait_idle

from dashboard.learn import exercises
from dashboard.runs import compute
from simcore.core.model import SimConfig

SEED = 7

pytestmark = BROWSER_TESTS
sync_api = pytest.importorskip("playwright.sync_api")


def test_an_exercise_answered_wrong_then_right_in_chromium(dashboard_server: str, new_page: Callable[..., Any]) -> None:
    ex = exercises.generate(SEED)
    # the victim computed here, independently of the page's questions: k8s's first preemption
    events = compute.full_run(ex.table, ex.cluster, SimConfig(policy="k8s")).events
    right = str(events.loc[events["event"] == "preempt", "job_id"].iloc[0])
    options = next(q for q in exercises.questions(ex.runs["k8s"].jobs, events, "k8s") if q.key == "victim").options
    wrong = next(j for j in options if j != right)
    page = new_page(1400, 900)
    page.goto(f"{dashboard_server}/learn?{exercises.SEED_PARAM}={SEED}")
    radio = page.locator(f".st-key-quiz_answer_ex{SEED}_k8s_victim")
    check = page.locator(f".st-key-check_quiz_answer_ex{SEED}_k8s_victim button")

    def option(name: str) -> Any:  # the option's label, found by its radio input
        return radio.locator("label").filter(has=page.get_by_role("radio", name=name, exact=True))

    click_one(page, option(f"job {wrong}"))
    click_one(page, check)
    page.get_by_text(f"Not quite: you said job {wrong}; the simulation says job {right}.").wait_for(timeout=TIMEOUT_MS)
    click_one(page, option(f"job {right}"))
    click_one(page, check)
    page.get_by_text(f"Right: job {right}.", exact=True).wait_for(timeout=TIMEOUT_MS)
    assert page.get_by_text("Not quite").count() == 0
    assert f"{exercises.SEED_PARAM}={SEED}" in page.url  # the link still reproduces the exercise
    assert_no_exception(page)

    # a Learn link (a regime fact's) opens its scenario in Explore: the paper regime, backfill = none
    page.get_by_text("Open the paper regime with backfill = none").click()
    wait_idle(page, charts=2, cards=12)
    assert "backfill=none" in page.url and "preset=paper" in page.url, page.url
    assert page.locator('[data-testid="stMetric"]').count() == 12
    assert_no_exception(page)
