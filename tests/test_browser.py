"""End to end in headless Chromium: the real Streamlit server, the real front end.

Runs with Debian's ``chromium`` through Playwright (``playwright install`` is not needed). The
tests share the dashboard servers and one Chromium (fixtures in tests/conftest.py; each server's
tests one xdist group, so one worker runs them). A check is reached by a click on a page a test
already opens wherever it can be: a page load costs about three reruns' CPU
(docs/history/test-suite.md#round-9-chromium). Screenshots go to the test artifacts directory
(``$ARTIFACTS_DIR`` or ``test-artifacts/``); with ``UPDATE_SCREENSHOT=1`` the Explore one also
replaces the README's docs/screenshot-explore.png and docs/screenshot-why-victim.png (the decision
view where fitgpp and k8s differ), and the Learn walk docs/screenshot-learn.png. The first-chart timing against a bare page is
a benchmark, not a test: ``make bench-browser`` (bench/first_chart.py).
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
from collections.abc import Callable
from typing import Any

import pytest
from helpers.paths import ROOT

sync_api = pytest.importorskip("playwright.sync_api")

from helpers.browser import (  # noqa: E402  (after the skip when Playwright is missing)
    ARTIFACTS,
    BROWSER_TESTS,
    HELD,
    IDLE,
    RUNNING,
    TIMEOUT_MS,
    assert_no_exception,
    choose,
    click_one,
    settle,
    wait_idle,
)
from helpers.decisions import assert_contrastive, default_sample_steps  # noqa: E402
from playwright.sync_api import TimeoutError as PlaywrightTimeout  # noqa: E402

SCREENSHOT = ROOT / "docs" / "screenshot-explore.png"
WHY_SCREENSHOT = ROOT / "docs" / "screenshot-why-victim.png"
LOG_TICKS = {f"{step * 10**k:,}" for k in range(6) for step in (1, 2, 5)}  # 1, 2, 5, 10, ..., 500,000

pytestmark = BROWSER_TESTS


def _metrics(page: Any) -> list[str]:
    return page.locator('[data-testid="stMetric"]').all_inner_texts()


def _idle(page: Any, selector: str) -> None:
    """Wait for the rerun a click just asked for (as ``wait_idle``), for ``selector`` in the page, for
    the app to stop running, and for ``selector`` again in the page the run left: an element of the
    page before the rerun satisfies the first look, not the second."""
    with contextlib.suppress(PlaywrightTimeout):
        page.wait_for_function(RUNNING, timeout=500)
    page.wait_for_selector(selector, state="attached", timeout=TIMEOUT_MS)  # grid headers are not drawn as text
    page.wait_for_function(
        f"""() => ({IDLE})() && !document.querySelector('[data-stale="true"]')""", timeout=TIMEOUT_MS
    )
    page.wait_for_selector(selector, state="attached", timeout=TIMEOUT_MS)


def _texts(page: Any, selector: str) -> list[str]:
    return [t.strip() for t in page.locator(selector).all_text_contents()]


def _no_stale(page: Any) -> None:
    """The run a click started is over and no element of the previous one is left."""
    wait_idle(page)
    page.wait_for_function("""() => !document.querySelector('[data-stale="true"]')""", timeout=TIMEOUT_MS)


def _why_this_victim(page: Any, records: list[dict]) -> None:
    """On the Gantt at its first preemption: Next preemption to the first decision where fitgpp and
    k8s take different victims on the same state, whose *Why this victim?* says, as a visitor sees it,
    what k8s would take there and the key value that made fitgpp take another set, with both values
    (issue 33); the first decision, where they agree, says "the same"."""
    assert_contrastive(_decision_text(page), records[0], "k8s")
    step = next(i for i, r in enumerate(records) if sorted(r["victims"]) != sorted(r["same_state"]["k8s"]["victims"]))
    record = records[step]
    for i in range(2, step + 2):
        page.get_by_role("button", name="Next preemption").click()
        _no_stale(page)
        page.get_by_text(f"Preemption {i} of").first.wait_for(timeout=TIMEOUT_MS)
    page.get_by_text(f"TE job {record['te_job']} needed").first.wait_for(timeout=TIMEOUT_MS)
    text = _decision_text(page)
    assert_contrastive(text, record, "k8s")
    assert_contrastive(text, record, "lrtp")
    assert "In k8s's own run on the same jobs (a second view" in text
    assert_no_exception(page)
    page.get_by_text("Why this victim?").scroll_into_view_if_needed()
    settle(page)
    page.screenshot(path=str(ARTIFACTS / WHY_SCREENSHOT.name))
    if os.environ.get("UPDATE_SCREENSHOT") == "1":  # docs/dashboard.md's picture of the decision view
        shutil.copy(ARTIFACTS / WHY_SCREENSHOT.name, WHY_SCREENSHOT)


def _decision_text(page: Any) -> str:
    """The decision's words as drawn (an ``st.text`` block)."""
    block = page.locator('[data-testid="stText"]').filter(has_text="fitted on no node").first
    block.wait_for(timeout=TIMEOUT_MS)
    return block.inner_text()


def test_explore_end_to_end(dashboard_server: str, new_page: Callable[..., Any]) -> None:
    """The default Explore page, one page load walked by clicks, as a visitor would: its cards, charts
    and readable log axes; every tab drawn when opened; on the Gantt the window in days and hours, the
    zoom, Next preemption and *Why this victim?* against k8s on the same state; the jobs table's units;
    the worth panel's decision opened on the Gantt; a bad upload refused, a good one run, its cluster
    notice and the one-click cluster sized from it."""
    records = default_sample_steps(5)
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
    # log axes of the percentile chart: major ticks only, in increasing order, the slowdown axis from 1
    _idle(page, ".st-key-percentiles .ytick text")
    for axis in ("y", "y2"):
        ticks = _texts(page, f".st-key-percentiles .{axis}tick text")
        assert ticks and ticks[0] == "1" and set(ticks) <= LOG_TICKS, (axis, ticks)
        values = [float(t.replace(",", "")) for t in ticks]
        assert values == sorted(values), (axis, ticks)
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
        if tab == "Gantt":
            _gantt(page, records)

    # units in the jobs table's headers (the grid's accessible column headers)
    page.get_by_role("tab", name="Jobs and downloads").click()
    # the jobs table's own header (the lazy tab draws it on the click's rerun), whatever its unit
    _idle(page, '[data-testid="stDataFrame"] [role="columnheader"]:has-text("submit")')
    headers = _texts(page, '[data-testid="stDataFrame"] [role="columnheader"]')
    for name in ("run time", "wait", "JCT", "lost work"):  # durations: a unit each, in the header
        assert any(re.fullmatch(rf"{name} \((s|min|h|d)\)", h) for h in headers), (name, headers)
    assert {"submit", "first start", "finish"} <= set(headers), headers  # instants: day and clock
    assert_no_exception(page)

    # the worth panel: its worst decisions, one of them opened on the Gantt with its decision record
    page.get_by_role("tab", name="Was it worth it?").click()
    wait_idle(page, charts=2)  # the percentile chart and the panel's
    page.wait_for_selector("text=The worst decisions", timeout=TIMEOUT_MS)
    page.wait_for_function("() => location.search.includes('tab=Was')", timeout=TIMEOUT_MS)
    assert_no_exception(page)
    page.get_by_text("The worst decisions").scroll_into_view_if_needed()
    settle(page)
    page.screenshot(path=str(ARTIFACTS / "explore-worth.png"), full_page=True)
    page.get_by_role("button", name="Show on the Gantt").click()
    wait_idle(page, charts=2)
    page.wait_for_selector("text=Why this victim?", timeout=TIMEOUT_MS)
    assert "tab=Gantt" in page.url, page.url
    page.get_by_text(re.compile(r"^Preemption \d+ of \d+ \((k8s|fitgpp)\)")).first.wait_for(timeout=TIMEOUT_MS)
    assert_no_exception(page)

    # upload a bad file (a friendly error), then a good one: new results, on the cluster its notice names
    page.get_by_text("upload a file", exact=True).click()
    wait_idle(page)
    uploader = page.locator('[data-testid="stFileUploader"] input[type="file"]').first
    bad = b"job_id,submit_time,duration,cpu,mem_gb,gpu,job_class\n1,0,60,1,1,1,TE\n2,5,-3,1,1,1,BE\n"
    uploader.set_input_files({"name": "broken.csv", "mimeType": "text/csv", "buffer": bad})
    page.wait_for_selector('[data-testid="stAlertContentError"]', timeout=TIMEOUT_MS)
    error_text = page.locator('[data-testid="stAlertContentError"]').first.inner_text()
    assert "broken.csv" in error_text and "row 3" in error_text
    assert_no_exception(page)
    good = (ROOT / "sample_workloads" / "demo.csv").read_bytes()
    uploader.set_input_files({"name": "my_lab.csv", "mimeType": "text/csv", "buffer": good})
    page.wait_for_selector("text=upload my_lab.csv", timeout=TIMEOUT_MS)
    # the upload's runs take a worker process: wait for the cards to change from the default's
    page.wait_for_function(
        """before => { const cards = Array.from(document.querySelectorAll('[data-testid="stMetric"]'));
                      return cards.length === 12 && cards.map(m => m.innerText).join('|') !== before; }""",
        arg="|".join(metrics),
        timeout=TIMEOUT_MS,
    )
    wait_idle(page, charts=2, cards=12)
    _idle(page, ".st-key-upload_cluster")
    assert len(_metrics(page)) == 12 and _metrics(page) != metrics
    assert_no_exception(page)
    notice = page.locator(".st-key-upload_cluster").inner_text()
    assert "brings no cluster" in notice and "16 nodes x (64 CPU, 512 GiB, 8 GPU)" in notice, notice
    nodes = int(re.search(r"(\d+) such nodes give an offered GPU load of", notice).group(1))
    page.screenshot(path=str(ARTIFACTS / "readable-upload-notice.png"))
    page.get_by_role("button", name=re.compile(f"Use {nodes} nodes")).click()
    page.wait_for_selector(f"text={nodes} nodes, {8 * nodes} GPUs", timeout=TIMEOUT_MS)
    _idle(page, '[data-testid="stMetric"]')
    wait_idle(page, charts=2, cards=12)
    assert page.locator(".st-key-upload_cluster").count() == 0  # a chosen cluster needs no notice
    assert_no_exception(page)
    page.screenshot(path=str(ARTIFACTS / "explore-after-upload.png"))
    assert not errors, errors


def _gantt(page: Any, records: list[dict]) -> None:
    """Explore's Gantt tab, open: its window in the time axis' words and its start slider's range, the
    zoom around a preemption and Next preemption moving the window onto it, the first decision's *Why
    this victim?* (fitgpp's choice beside k8s's), the README's picture, then on to the first decision
    where the two differ (:func:`_why_this_victim`)."""
    from simcore.core import fmt

    # the window's start slider runs from the run's start to one window (8 h) before its end
    caption = page.get_by_text("Window: day").first
    assert re.fullmatch(
        r"Window: day \d+ \d\d:00:00 to day \d+ \d\d:00:00 \(8\.0 h\) of a run of \d+ d( \d+ h)?\.",
        caption.inner_text(),
    ), caption.inner_text()
    run = re.search(r"of a run of (\d+) d(?: (\d+) h)?\.", caption.inner_text())
    assert run, caption.inner_text()
    start = page.locator('[data-testid="stSlider"]', has=page.get_by_text("Window start"))
    ends = [e.strip() for e in start.get_by_test_id("stSliderTickBar").inner_text().split("\n") if e.strip()]
    assert ends == ["day 1 00:00:00", fmt.clock((int(run[1]) * 24 + int(run[2] or 0) - 8) * 3600)], ends
    choose(page, "Zoom around a preemption", "4 h")
    wait_idle(page, charts=2)
    page.get_by_role("button", name="Next preemption").click()
    _no_stale(page)
    page.wait_for_selector("text=Preemption 1 of", timeout=TIMEOUT_MS)
    assert_no_exception(page)
    # the window moved onto the preemption: the slider's thumb says where it starts, as the caption does
    thumb = start.get_by_test_id("stSliderThumbValue").inner_text()
    assert thumb == "day 1 02:00:00" and caption.inner_text().startswith(f"Window: {thumb} to "), thumb
    # the first preemption's decision opens under the Gantt, fitgpp's choice beside k8s's
    page.get_by_text("Why this victim?").wait_for(timeout=TIMEOUT_MS)
    first = _decision_text(page)
    assert "fitgpp took node" in first and "On the same state, k8s would take" in first, first
    # the README's picture: the Gantt centred on the first preemption, its decision below
    page.set_viewport_size({"width": 1400, "height": 2000})
    settle(page)
    page.screenshot(path=str(ARTIFACTS / SCREENSHOT.name))
    if os.environ.get("UPDATE_SCREENSHOT") == "1":  # refresh the README's picture on request only
        shutil.copy(ARTIFACTS / SCREENSHOT.name, SCREENSHOT)
    page.get_by_text("Why this victim?").scroll_into_view_if_needed()
    settle(page)
    page.screenshot(path=str(ARTIFACTS / "explore-decision.png"), full_page=True)
    page.set_viewport_size({"width": 1400, "height": 1500})
    _why_this_victim(page, records)


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


def _chart_below_the_fold(page: Any) -> float:
    """Top of the first drawn Plotly chart, in pixels from the top of the window."""
    page.wait_for_selector(CHART, timeout=TIMEOUT_MS)
    return float(page.locator(".js-plotly-plot").first.bounding_box()["y"])


def test_the_first_chart_is_drawn_before_the_sidebar_comes_by_itself(
    dashboard_server: str, new_page: Callable[..., Any]
) -> None:
    """A fresh page of a warm server: the first chart is drawn while the page holds no sidebar widget
    (only the component waiting for it), then the sidebar's widgets and the rest come without any user
    action, and the widgets work. With it, the layout of the pages a visitor opens first: a chart in
    sight on a 1400 x 900 window (Explore, then Sweep), and Explore on a 390 px phone."""
    page = new_page(1400, 900)
    page.goto(dashboard_server)
    wait_idle(page, charts=2, cards=12)  # the default scenario's runs in the server's store
    assert_no_exception(page)
    assert _chart_below_the_fold(page) < 900 - 250, "Explore: no chart in sight"  # the percentile chart
    settle(page)
    page.screenshot(path=str(ARTIFACTS / "explore-1400x900.png"))

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

    # a 390 px phone: the trio grid keeps its columns (header and values side by side), nothing overflows;
    # the page loaded afresh at the phone's size (the same page object: its renderer is warm)
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(dashboard_server)
    _idle(page, '.st-key-trio [data-testid="stMetric"]')
    row = page.locator('.st-key-trio [data-testid="stHorizontalBlock"]').nth(1)
    boxes = [c.bounding_box() for c in row.locator('[data-testid="stColumn"]').all()]
    # one row, not four stacked cells: left to right, and every cell's height spans a common band
    # (the cells are centred vertically, so their tops differ with their heights and the fonts)
    lefts = [b["x"] for b in boxes]
    assert len(boxes) == 4 and lefts == sorted(set(lefts)), ("phone: the trio's row", boxes)
    assert max(b["y"] for b in boxes) < min(b["y"] + b["height"] for b in boxes), ("phone: the trio's row", boxes)
    main = page.evaluate(
        """() => { const m = document.querySelector('[data-testid="stMain"]');
                   return [m.scrollWidth, m.clientWidth]; }"""
    )
    assert main[0] <= main[1], ("phone: the page overflows", main)
    page.screenshot(path=str(ARTIFACTS / "readable-phone-390.png"))
    assert_no_exception(page)

    page.set_viewport_size({"width": 1400, "height": 900})
    page.goto(f"{dashboard_server}/sweep?run=1&seeds=2&jobs=100&values=0.8,1.2&policies=fifo,k8s,fitgpp")
    wait_idle(page, charts=3)
    assert_no_exception(page)
    assert _chart_below_the_fold(page) < 900 - 250, "Sweep: no chart in sight"  # p95 slowdown and the trade-off
    settle(page)
    page.screenshot(path=str(ARTIFACTS / "sweep-1400x900.png"))


def test_a_link_with_the_save_and_budget_knobs_fills_their_widgets(
    dashboard_server: str, new_page: Callable[..., Any]
) -> None:
    """save_failure and preempt_budget (widgets derived from simcore.core.knobs) travel in a link, show in the
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


def _lost_work_and_whole_variant_names(page: Any, price: Any) -> None:
    """The lesson on the price of preemption, just chosen: its Gantt hatches the lost work, named in
    the legend, and every variant's name is whole, as its panel's title inside the chart."""
    _idle(page, '.js-plotly-plot .legendtext:text-is("lost work")')
    gantt = page.locator(".js-plotly-plot", has=page.locator('.legendtext:text-is("lost work")'))
    assert gantt.count() == 1
    titles = {(t.text_content() or "").strip(): t for t in gantt.locator(".annotation-text").all()}  # SVG text
    box = gantt.locator(".main-svg").first.bounding_box()
    for variant in price.variants:
        assert variant.label in titles, (variant.label, list(titles))
        title = titles[variant.label].bounding_box()
        assert box["x"] <= title["x"] and title["x"] + title["width"] <= box["x"] + box["width"], variant.label
    gantt.scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "readable-lesson-lost-work.png"))


#: what stops a running job: a preemption, and the interruptions nobody chose (lessons (f) and (g))
STOPS = ("preempt", "fail", "drain")


def preemptive(item: Any, runs: dict[str, Any], last: bool) -> Any:
    """The lesson's first variant whose run stops a job (its default where that one does: no click, no
    rerun), or its last (the gang lesson's default, k8s, does not stop the gang; fitgpp (s = 1) does)."""
    order = reversed(item.variants) if last else item.variants
    return next(v for v in order if runs[v.label]["event"].isin(STOPS).any())


def _answered_screenshot(page: Any, item: Any) -> None:
    """docs/screenshot-learn.png: lesson (b) under fitgpp, its questions answered and checked, the
    explanation by the key that decided and the sets fitgpp weighed, the step-through below."""
    page.get_by_role("radiogroup", name="Run it with").get_by_text("fitgpp", exact=True).first.click()
    wait_idle(page)
    radio = page.locator(".st-key-quiz_answer_victim_fitgpp_victim")
    click_one(page, radio.locator("label").filter(has=page.get_by_role("radio", name="job 1", exact=True)))
    click_one(page, page.locator(".st-key-check_quiz_answer_victim_fitgpp_victim button"))
    page.get_by_text("Right: job 1.", exact=True).wait_for(timeout=TIMEOUT_MS)
    wait = page.locator(".st-key-quiz_answer_victim_fitgpp_te_wait input")
    wait.fill("0.5")
    wait.press("Enter")
    wait_idle(page)
    click_one(page, page.locator(".st-key-check_quiz_answer_victim_fitgpp_te_wait button"))
    page.get_by_text("Right: 30 s.", exact=True).wait_for(timeout=TIMEOUT_MS)
    wait_idle(page, charts=2)  # both checked: the step-through, k8s's (shown before) beside fitgpp's
    page.wait_for_function("""() => !document.querySelector('[data-stale="true"]')""", timeout=TIMEOUT_MS)
    page.get_by_text("Under fitgpp, TE job 7 finds no room").first.scroll_into_view_if_needed()
    page.mouse.wheel(0, -120)
    settle(page)
    page.screenshot(path=str(ARTIFACTS / LEARN_SCREENSHOT.name))
    shutil.copy(ARTIFACTS / LEARN_SCREENSHOT.name, LEARN_SCREENSHOT)


LEARN_SCREENSHOT = ROOT / "docs" / "screenshot-learn.png"
#: the lessons the Learn walk steps to instant 3 in Chromium: the first (one job preempted) and the
#: gang (four workers signalled at once); the others' instant 3 is the AppTests' (each rerun of a
#: step costs about 1.2 s of CPU in Chromium and the server, docs/history/test-suite.md#round-8)
STEPPED = ("hol", "gang")
#: the lessons walked to their end in Chromium: those with a front-end behaviour of their own (the
#: stepping and Play, the gang's four nodes, the price lesson's lost work and whole variant names);
#: the others draw the same components, so Chromium only opens each (its questions), and every
#: instant of every variant is drawn by the AppTests (tests/test_lessons.py)
WALKED = ("hol", "price", "gang")


def test_each_lesson_steps_jumps_and_plays_to_its_end(demo_server: str, new_page: Callable[..., Any]) -> None:
    """Each lesson opened in the real front end; the lessons of :data:`WALKED` at their preemptive end
    (the first variant that stops a job; on the lessons of :data:`STEPPED` the last: the variant radio
    clicked), drawn at its first instant and, by Last, at its end (the price lesson, when chosen, also its lost work and
    whole variant names: :func:`_lost_work_and_whole_variant_names`); on the lessons of :data:`STEPPED` also Next to
    instant 3 (the preemption on screen; on the gang lesson, the gang signalled on each of its four
    nodes); on the first lesson Previous twice, then Play runs to the end and stops by itself (the
    page's own timer, 1.5 s a tick: two ticks, not the six from the start). Every instant of every
    variant, and Play's ticks one by one, are walked by the AppTests of tests/test_lessons.py. On the
    demo-mode server, as the public sees Learn (its lessons are far inside every limit), which also
    puts it in the other browser group than Explore's tests."""
    from dashboard.learn import lesson_views, lessons
    from dashboard.runs import compute

    page = new_page(1400, 1300)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(f"{demo_server}/learn")
    wait_idle(page)
    assert page.locator(".js-plotly-plot").count() == 0  # nothing drawn before the questions are checked
    update = os.environ.get("UPDATE_SCREENSHOT") == "1"

    def step(button: str, label: str) -> None:
        click_one(page, page.get_by_role("button", name=button))  # a rerun briefly shows the stale stepper too
        page.get_by_text(label).first.wait_for(timeout=TIMEOUT_MS)
        wait_idle(page, charts=2)
        assert_no_exception(page)

    def choose_variant(label: str, n: int = 0) -> None:  # no rerun when it is the lesson's first variant, shown
        page.get_by_role("radiogroup", name="Run it with").get_by_text(label, exact=True).first.click()
        wait_idle(page)
        show = page.get_by_role("button", name="Show what happened")
        if show.count():  # the step-through is hidden until the questions are checked: shown unanswered
            click_one(page, show)
        wait_idle(page, charts=2)
        if n:
            page.get_by_text(f"(instant 1 of {n})").first.wait_for(timeout=TIMEOUT_MS)  # each variant on its own

    def shot(name: str, scroll: int = 0) -> None:
        page.wait_for_function("""() => !document.querySelector('[data-stale="true"]')""", timeout=TIMEOUT_MS)
        page.get_by_text("Run it with" if scroll else "Step through it: lessons").scroll_into_view_if_needed()
        if scroll:
            page.mouse.wheel(0, scroll)
        settle(page)
        page.screenshot(path=str(ARTIFACTS / name))

    for item in lessons.LESSONS:
        choose(page, "Lesson", item.title)
        wait_idle(page)
        if item.key not in WALKED and not (item.key == "victim" and update):
            page.get_by_role("radiogroup", name="Run it with").first.wait_for(timeout=TIMEOUT_MS)
            assert_no_exception(page)  # its questions shown; its charts are the walked lessons' components
            continue
        if item.key == "price":  # every variant shown beside the others
            for v in item.variants:
                choose_variant(v.label)
            _lost_work_and_whole_variant_names(page, item)
        runs = {v.label: compute.full_run(*lessons.load_variant(item, v), v.config).events for v in item.variants}
        variant = preemptive(item, runs, last=item.key in STEPPED)
        times = lesson_views.instants(runs[variant.label])
        n = len(times)
        choose_variant(variant.label, n)
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
            click_one(page, page.get_by_role("button", name="Play"))
            page.get_by_role("button", name="Pause").first.wait_for(timeout=TIMEOUT_MS)
            page.get_by_text(f"(instant {n} of {n})").first.wait_for(timeout=TIMEOUT_MS)
            sync_api.expect(page.get_by_role("button", name="Play")).to_have_count(
                1, timeout=TIMEOUT_MS
            )  # stopped by itself at the end
            assert_no_exception(page)
        shot(f"learn-lesson-{item.key}-end.png")
        if item.key == "victim" and update:  # the Learn screenshot: fitgpp's victim answered, explained
            _answered_screenshot(page, item)
    assert not errors, errors
