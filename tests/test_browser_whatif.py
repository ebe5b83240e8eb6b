"""In headless Chromium: Explore's One job tab opens on the first preempted job, tells its story and,
asked "had it not been preempted", shows the job's delta (issue 20). The expected words are computed
here from :mod:`simcore.analysis.whatif` on the default scenario, independently of the page. With
``UPDATE_SCREENSHOT=1`` the page also replaces docs/screenshot-whatif.png.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from helpers.paths import ROOT

sync_api = pytest.importorskip("playwright.sync_api")

from helpers.browser import ARTIFACTS, CHROMIUM, TIMEOUT_MS, assert_no_exception, settle, wait_idle  # noqa: E402

from dashboard.explore import job_views  # noqa: E402
from dashboard.runs import data  # noqa: E402
from dashboard.shared.scenario import Scenario  # noqa: E402
from simcore.analysis import whatif  # noqa: E402
from simcore.engine import simulate  # noqa: E402

SCREENSHOT = ROOT / "docs" / "screenshot-whatif.png"

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"no Chromium at {CHROMIUM}"),
]


def test_the_one_job_tab_tells_a_preempted_jobs_story_and_a_counterfactual(
    dashboard_server: str, new_page: Callable[..., Any]
) -> None:
    scenario = Scenario()
    workload = data.sample_workload(scenario.sample)
    table, cluster, config = workload.table, workload.cluster, scenario.config("fitgpp")
    base = simulate(table, cluster, config, record_decisions=True)
    job = job_views.default_job(base.jobs_frame, base.events_frame)
    assert job is not None
    story = whatif.job_story(base, job, whatif.blocking_reasons(table, cluster, config, job))
    preempted = next(s for s in story if s.kind == "preempted")
    answer = whatif.counterfactual(table, cluster, config, job, whatif.Change("not_preempted"))

    page = new_page(1400, 2600)
    page.goto(f"{dashboard_server}/?tab=One+job")
    wait_idle(page, charts=2)  # the trio's percentile chart and the job's Gantt
    story_box = page.locator('[data-testid="stText"]').filter(has_text=preempted.text)
    story_box.first.wait_for(timeout=TIMEOUT_MS)
    assert "\n".join(job_views.story_lines(story)) in story_box.first.inner_text()
    assert_no_exception(page)

    page.get_by_role("button", name="Simulate").click()
    said = f"Job {job} {job_views.change_words(answer.change)}: {job_views.delta_words(answer.job)}."
    page.get_by_text(said).first.wait_for(timeout=TIMEOUT_MS)
    wait_idle(page, charts=2)
    assert_no_exception(page)
    settle(page)
    # the picture: the tab from its row of tabs to the counterfactual's tables, without the sidebar
    tabs = page.get_by_role("tab", name="One job").bounding_box()
    assert tabs is not None
    clip = {"x": 330, "y": tabs["y"] - 12, "width": 1060, "height": 1380}
    page.screenshot(path=str(ARTIFACTS / SCREENSHOT.name), clip=clip, full_page=True)
    if os.environ.get("UPDATE_SCREENSHOT") == "1":  # refresh the docs' picture on request only
        shutil.copy(ARTIFACTS / SCREENSHOT.name, SCREENSHOT)
