"""End to end in headless Chromium: the real Streamlit server, the real front end.

Runs with Debian's ``chromium`` through Playwright (``playwright install`` is not needed). The
tests share one dashboard server and one Chromium (fixtures in tests/conftest.py; one
xdist group, so one worker runs them all). Screenshots go to the test artifacts directory
(``$ARTIFACTS_DIR`` or ``test-artifacts/``); with ``UPDATE_SCREENSHOT=1`` the Explore one also
replaces the README's docs/screenshot-explore.png. The first-chart timing against a bare page is
a benchmark, not a test: ``make bench-browser`` (bench/first_chart.py).
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

sync_api = pytest.importorskip("playwright.sync_api")

from helpers.browser import (  # noqa: E402  (after the skip when Playwright is missing)
    ARTIFACTS,
    BROWSER_TESTS,
    HELD,
    TIMEOUT_MS,
    assert_no_exception,
    choose,
    settle,
    wait_idle,
)

ROOT = Path(__file__).resolve().parent.parent
SCREENSHOT = ROOT / "docs" / "screenshot-explore.png"

pytestmark = BROWSER_TESTS


def _metrics(page: Any) -> list[str]:
    return page.locator('[data-testid="stMetric"]').all_inner_texts()


def test_explore_end_to_end(dashboard_server: str, new_page: Callable[..., Any]) -> None:
    page = new_page(1400, 1500)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(dashboard_server)
    wait_idle(page, charts=2, cards=12)

    # the default scenario: four trio cards of three metrics, the open tab's charts, no exception
    metrics = _metrics(page)
    assert len(metrics) == 12 and page.get_by_text("TE p95 slowdown", exact=True).first.is_visible()
    assert page.locator('[data-testid="stPlotlyChart"]').count() == 2
    assert_no_exception(page)
    settle(page)
    page.screenshot(path=str(ARTIFACTS / "explore-default.png"))

    # every other tab draws its content when opened (beside the trio: the percentile chart)
    for tab, charts in (("Gantt", 2), ("Utilisation and queue", 2), ("Preemptions", 1), ("Slowdown", 2)):
        page.get_by_role("tab", name=tab).click()
        wait_idle(page, charts=charts)
        assert_no_exception(page)
        # the previous tab's charts stay (marked stale) until the rerun is done: slow on a loaded machine
        page.wait_for_function(
            """n => !document.querySelector('[data-stale="true"]')
                   && document.querySelectorAll('[data-testid="stPlotlyChart"]').length === n""",
            arg=charts,
            timeout=TIMEOUT_MS,
        )
        assert page.locator('[data-testid="stPlotlyChart"]').count() == charts, tab
        page.screenshot(path=str(ARTIFACTS / f"explore-{tab.split()[0].lower()}.png"))
        if tab == "Gantt":  # the README's picture: the Gantt centred on the first preemption
            from simcore import fmt

            # the window's start slider runs from the run's start to one window (8 h) before its end
            caption = page.get_by_text("Window: day").first
            run = re.search(r"of a run of (\d+) d(?: (\d+) h)?\.", caption.inner_text())
            assert run, caption.inner_text()
            start = page.locator('[data-testid="stSlider"]', has=page.get_by_text("Window start"))
            ends = [e.strip() for e in start.get_by_test_id("stSliderTickBar").inner_text().split("\n") if e.strip()]
            assert ends == ["day 1 00:00:00", fmt.clock((int(run[1]) * 24 + int(run[2] or 0) - 8) * 3600)], ends
            choose(page, "Zoom around a preemption", "4 h")
            wait_idle(page, charts=2)
            page.get_by_role("button", name="Next preemption").click()
            wait_idle(page, charts=2)
            page.wait_for_selector("text=Preemption 1 of", timeout=TIMEOUT_MS)
            assert_no_exception(page)
            # the window moved onto the preemption: the slider's thumb says where it starts, as the caption does
            thumb = start.get_by_test_id("stSliderThumbValue").inner_text()
            assert thumb == "day 1 02:00:00" and caption.inner_text().startswith(f"Window: {thumb} to "), thumb
            page.set_viewport_size({"width": 1400, "height": 2000})
            settle(page)
            SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(ARTIFACTS / SCREENSHOT.name))
            if os.environ.get("UPDATE_SCREENSHOT") == "1":  # refresh the README's picture on request only
                shutil.copy(ARTIFACTS / SCREENSHOT.name, SCREENSHOT)
            page.set_viewport_size({"width": 1400, "height": 1500})

    # change a knob: the results change, and so does the URL
    page.get_by_text("Knobs", exact=True).click()
    choose(page, "backfill", "none")
    wait_idle(page, charts=2)
    page.wait_for_function("() => location.search.includes('backfill=none')", timeout=TIMEOUT_MS)
    # the new runs take a worker process (about a second): wait for the cards to change
    page.wait_for_function(
        """before => Array.from(document.querySelectorAll('[data-testid="stMetric"]'))
                         .map(m => m.innerText).join('|') !== before""",
        arg="|".join(metrics),
        timeout=TIMEOUT_MS,
    )
    wait_idle(page, charts=2)
    page.wait_for_function("""() => !document.querySelector('[data-stale="true"]')""", timeout=TIMEOUT_MS)
    assert_no_exception(page)

    # upload a bad file (a friendly error), then a good one (results again)
    page.get_by_text("upload a file", exact=True).click()
    wait_idle(page)
    uploader = page.locator('[data-testid="stFileUploader"] input[type="file"]').first
    bad = b"job_id,submit_time,duration,cpu,mem_gb,gpu,job_class\n1,0,60,1,1,1,TE\n2,5,-3,1,1,1,BE\n"
    uploader.set_input_files({"name": "broken.csv", "mimeType": "text/csv", "buffer": bad})
    page.wait_for_selector('[data-testid="stAlertContentError"]', timeout=TIMEOUT_MS)
    error_text = page.locator('[data-testid="stAlertContentError"]').first.inner_text()
    assert "broken.csv" in error_text and "row 3" in error_text
    assert_no_exception(page)
    good = (ROOT / "sample_workloads" / "demo_seed1.csv").read_bytes()
    uploader.set_input_files({"name": "demo_seed1.csv", "mimeType": "text/csv", "buffer": good})
    page.wait_for_selector("text=upload demo_seed1.csv", timeout=TIMEOUT_MS)
    wait_idle(page, charts=2, cards=12)
    assert len(_metrics(page)) == 12
    assert_no_exception(page)
    page.screenshot(path=str(ARTIFACTS / "explore-after-upload.png"))
    assert not errors, errors


CHART = ".js-plotly-plot .main-svg"  # a drawn Plotly chart
SIDEBAR_WIDGET = '[data-testid="stSidebar"] [data-testid="stWidgetLabel"]'
# Polled every frame from page open until a sidebar widget is in: the number of sidebar widgets in the
# first frame with the first chart drawn, and whether the component holding the rest was ever in the page.
UNTIL_THE_SIDEBAR = f"""() => {{
    const seen = window.firstChartSeen ??= {{held: false}};
    seen.held ||= !!document.querySelector('{HELD}');
    if (seen.widgets === undefined && document.querySelector('{CHART}'))
        seen.widgets = document.querySelectorAll('{SIDEBAR_WIDGET}').length;
    return seen.widgets !== undefined && !!document.querySelector('{SIDEBAR_WIDGET}') && seen; }}"""


def test_the_first_chart_is_drawn_before_the_sidebar_comes_by_itself(
    dashboard_server: str, new_page: Callable[..., Any]
) -> None:
    """A fresh page of a warm server: the first chart is drawn while the page holds no sidebar widget
    (only the component waiting for it), then the sidebar's widgets and the rest come without any user
    action, and the widgets work."""
    page = new_page(1400, 900)
    page.goto(dashboard_server)
    wait_idle(page, charts=2, cards=12)  # the default scenario's runs in the server's store
    page.goto(dashboard_server)  # a fresh page: a new session, whose first run finds them there
    seen = page.wait_for_function(UNTIL_THE_SIDEBAR, polling="raf", timeout=TIMEOUT_MS).json_value()
    assert seen == {"held": True, "widgets": 0}, seen  # and nothing was clicked meanwhile
    wait_idle(page, charts=2, cards=12)
    assert page.locator(HELD).count() == 0 and page.get_by_role("tab", name="Gantt").count() == 1
    assert_no_exception(page)
    choose(page, "Baseline", "k8s")  # a widget of the sidebar sent after the chart
    page.wait_for_function("() => location.search.includes('baseline=k8s')", timeout=TIMEOUT_MS)
    page.get_by_text("The trio against k8s").wait_for(timeout=TIMEOUT_MS)
    wait_idle(page, charts=2, cards=12)
    assert_no_exception(page)


def test_learn_link_opens_the_scenario_in_explore(dashboard_server: str, new_page: Callable[..., Any]) -> None:
    page = new_page(1400, 1000)
    page.goto(f"{dashboard_server}/learn")
    wait_idle(page, charts=2)  # the lesson's two charts: the page's run is over
    assert_no_exception(page)
    page.get_by_text("Open the paper regime with backfill = none").click()
    wait_idle(page, charts=2, cards=12)
    assert "backfill=none" in page.url and "preset=paper" in page.url
    assert len(_metrics(page)) == 12
    assert_no_exception(page)


def test_a_link_with_the_save_and_budget_knobs_fills_their_widgets(
    dashboard_server: str, new_page: Callable[..., Any]
) -> None:
    """save_failure and preempt_budget (widgets derived from simcore.knobs) travel in a link, show in the
    Knobs box and the runs complete with them."""
    page = new_page(1400, 1500)
    page.goto(f"{dashboard_server}/?save_failure=0.5&preempt_budget=1")
    wait_idle(page, charts=2, cards=12)
    assert_no_exception(page)
    page.get_by_text("Knobs", exact=True).click()
    assert float(page.get_by_role("spinbutton", name="save_failure").input_value()) == 0.5
    assert page.get_by_role("textbox", name="preempt_budget").input_value() == "1"
    assert "save_failure=0.5" in page.url and "preempt_budget=1" in page.url
    assert len(_metrics(page)) == 12


def _chart_below_the_fold(page: Any) -> float:
    """Top of the first drawn Plotly chart, in pixels from the top of the window."""
    page.wait_for_selector(CHART, timeout=TIMEOUT_MS)
    return float(page.locator(".js-plotly-plot").first.bounding_box()["y"])


def test_a_chart_is_in_sight_on_a_1400_by_900_window(dashboard_server: str, new_page: Callable[..., Any]) -> None:
    page = new_page(1400, 900)
    page.goto(dashboard_server)
    wait_idle(page, charts=2)
    assert_no_exception(page)
    assert _chart_below_the_fold(page) < 900 - 250  # the percentile chart, beside the trio
    settle(page)
    page.screenshot(path=str(ARTIFACTS / "explore-1400x900.png"))
    page.goto(f"{dashboard_server}/sweep?run=1&seeds=2&jobs=100&values=0.8,1.2&policies=fifo,k8s,fitgpp")
    wait_idle(page, charts=3)
    assert_no_exception(page)
    assert _chart_below_the_fold(page) < 900 - 250  # p95 slowdown and the trade-off, side by side
    settle(page)
    page.screenshot(path=str(ARTIFACTS / "sweep-1400x900.png"))


LEARN_SCREENSHOT = ROOT / "docs" / "screenshot-learn.png"
#: the lessons the Learn walk steps to instant 3 in Chromium: the first (one job preempted) and the
#: gang (four workers signalled at once); the others' instant 3 is the AppTests' (each rerun of a
#: step costs about 1.2 s of CPU in Chromium and the server, docs/testing.md#round-8)
STEPPED = ("hol", "gang")


def test_each_lesson_steps_jumps_and_plays_to_its_end(demo_server: str, new_page: Callable[..., Any]) -> None:
    """Each lesson's preemptive end (its last variant that preempts) in the real front end, drawn at
    its first instant and, by Last, at its end; on the lessons of :data:`STEPPED` also Next to
    instant 3 (the preemption on screen; on the gang lesson, the gang signalled on each of its four
    nodes); on the first lesson Previous twice, then Play runs to the end and stops by itself (the
    page's own timer, 1.5 s a tick: two ticks, not the six from the start). Every instant of every
    variant, and Play's ticks one by one, are walked by the AppTests of tests/test_lessons.py. On the
    demo-mode server, as the public sees Learn (its lessons are far inside every limit), which also
    puts it in the other browser group than Explore's tests."""
    from dashboard.learn import lesson_views, lessons
    from dashboard.shared import compute

    page = new_page(1400, 1300)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(f"{demo_server}/learn")
    wait_idle(page, charts=2)
    update = os.environ.get("UPDATE_SCREENSHOT") == "1"

    def one(button: str) -> Any:  # a rerun briefly shows the stale stepper too: wait until one is left
        target = page.get_by_role("button", name=button)
        sync_api.expect(target).to_have_count(1, timeout=TIMEOUT_MS)
        return target

    def step(button: str, label: str) -> None:
        one(button).click()
        page.get_by_text(label).first.wait_for(timeout=TIMEOUT_MS)
        wait_idle(page, charts=2)
        assert_no_exception(page)

    def shot(name: str, scroll: int = 0) -> None:
        page.wait_for_function("""() => !document.querySelector('[data-stale="true"]')""", timeout=TIMEOUT_MS)
        page.get_by_text("Run it with" if scroll else "Step through it: lessons").scroll_into_view_if_needed()
        if scroll:
            page.mouse.wheel(0, scroll)
        settle(page)
        page.screenshot(path=str(ARTIFACTS / name))

    for item in lessons.LESSONS:
        choose(page, "Lesson", item.title)
        wait_idle(page, charts=2)
        runs = {v.label: compute.full_run(*lessons.load(item), v.config).events for v in item.variants}
        variant = next(v for v in reversed(item.variants) if (runs[v.label]["event"] == "preempt").any())
        page.get_by_role("radiogroup", name="Run it with").get_by_text(variant.label, exact=True).first.click()
        wait_idle(page, charts=2)
        times = lesson_views.instants(runs[variant.label])
        n = len(times)
        page.get_by_text(f"(instant 1 of {n})").first.wait_for(timeout=TIMEOUT_MS)
        if item.key in STEPPED:
            for i in (2, 3):  # step as a class would, to the preemption
                step("Next", f"(instant {i} of {n})")
            events = runs[variant.label]
            signalled = events[(events["event"] == "preempt") & (events["time"] == times[2])]
            assert len(signalled) == (4 if item.key == "gang" else 1), signalled  # the gang: its four workers
            for _, row in signalled.iterrows():  # each told on its node at the instant it is signalled
                page.get_by_text(f"BE job {row['job_id']} on {row['node']} is preempted").first.wait_for(
                    timeout=TIMEOUT_MS
                )
            shot(f"learn-lesson-{item.key}-step3.png")
        step("Last", f"(instant {n} of {n})")
        assert page.get_by_text("finishes on").count() >= 1
        if item.key == "hol":  # play from two instants before the end: it reaches the end and stops by itself
            for i in (n - 1, n - 2):
                step("Previous", f"(instant {i} of {n})")
            one("Play").click()
            page.get_by_role("button", name="Pause").first.wait_for(timeout=TIMEOUT_MS)
            page.get_by_text(f"(instant {n} of {n})").first.wait_for(timeout=TIMEOUT_MS)
            one("Play")  # stopped by itself at the end
            assert_no_exception(page)
        shot(f"learn-lesson-{item.key}-end.png")
        if item.key == "victim" and update:  # the Learn screenshot: instant 7, the TE job arrives and fitgpp preempts
            step("First", f"(instant 1 of {n})")
            for i in range(2, 8):
                step("Next", f"(instant {i} of {n})")
            shot(LEARN_SCREENSHOT.name, scroll=200)
            shutil.copy(ARTIFACTS / LEARN_SCREENSHOT.name, LEARN_SCREENSHOT)
    assert not errors, errors


def test_worth_panel_opens_a_decision_on_the_gantt(dashboard_server: str, new_page: Callable[..., Any]) -> None:
    page = new_page(1400, 2200)
    page.goto(f"{dashboard_server}/?tab=Was+it+worth+it%3F")
    wait_idle(page, charts=2)  # the percentile chart and the panel's
    page.wait_for_selector("text=The worst decisions", timeout=TIMEOUT_MS)
    assert_no_exception(page)
    page.get_by_text("The worst decisions").scroll_into_view_if_needed()
    settle(page)
    page.screenshot(path=str(ARTIFACTS / "explore-worth.png"), full_page=True)
    page.get_by_role("button", name="Show on the Gantt").click()
    wait_idle(page, charts=2)
    page.wait_for_selector("text=Why this victim?", timeout=TIMEOUT_MS)
    assert "tab=Gantt" in page.url
    page.get_by_text(re.compile(r"^Preemption \d+ of \d+ \((k8s|fitgpp)\)")).first.wait_for(timeout=TIMEOUT_MS)
    assert_no_exception(page)
