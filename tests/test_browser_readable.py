"""Numbers a person can read and the upload's cluster, checked in Chromium on the running page:
log-axis tick labels, units in the jobs table's headers, the upload cluster notice and its one-click
proposal, the trio grid on a 390 px phone, the lost work on a lesson's Gantt with its variants' names
whole, and the Gantt's window in days and hours (on the shared server and Chromium of tests/conftest.py)."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from helpers.browser import ARTIFACTS, BROWSER_TESTS, IDLE, RUNNING, TIMEOUT_MS, choose
from playwright.sync_api import TimeoutError as PlaywrightTimeout

ROOT = Path(__file__).resolve().parent.parent
LOG_TICKS = {f"{step * 10**k:,}" for k in range(6) for step in (1, 2, 5)}  # 1, 2, 5, 10, ..., 500,000

pytestmark = BROWSER_TESTS


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


def _texts(page: object, selector: str) -> list[str]:
    return [t.strip() for t in page.locator(selector).all_text_contents()]


def test_readable_numbers_and_the_upload_cluster_in_chromium(
    dashboard_server: str, new_page: Callable[..., Any]
) -> None:
    page = new_page(1400, 900)

    # log axes: major ticks only, in increasing order, the slowdown axis from 1
    page.goto(dashboard_server)
    _idle(page, ".st-key-percentiles .ytick text")
    for axis in ("y", "y2"):
        ticks = _texts(page, f".st-key-percentiles .{axis}tick text")
        assert ticks and ticks[0] == "1" and set(ticks) <= LOG_TICKS, ticks
        values = [float(t.replace(",", "")) for t in ticks]
        assert values == sorted(values), ticks

    # units in the jobs table's headers (the grid's accessible column headers); a tab opened by a click,
    # not a page load: the same rerun a visitor makes
    page.get_by_role("tab", name="Jobs and downloads").click()
    # the jobs table's own header (the lazy tab draws it on the click's rerun), whatever its unit
    _idle(page, '[data-testid="stDataFrame"] [role="columnheader"]:has-text("submit")')
    headers = _texts(page, '[data-testid="stDataFrame"] [role="columnheader"]')
    for name in ("submit", "run time", "first start", "finish", "wait", "JCT", "lost work"):
        assert any(re.fullmatch(rf"{name} \((s|min|h|d)\)", h) for h in headers), (name, headers)

    # an upload: the cluster it runs on, and one click to the cluster sized from it
    page.get_by_text("upload a file", exact=True).click()
    _idle(page, '[data-testid="stFileUploader"] input[type="file"]')
    demo = (ROOT / "sample_workloads" / "demo.csv").read_bytes()
    page.locator('[data-testid="stFileUploader"] input[type="file"]').first.set_input_files(
        {"name": "my_lab.csv", "mimeType": "text/csv", "buffer": demo}
    )
    _idle(page, ".st-key-upload_cluster")
    notice = page.locator(".st-key-upload_cluster").inner_text()
    assert "brings no cluster" in notice and "16 nodes x (64 CPU, 512 GiB, 8 GPU)" in notice, notice
    nodes = int(re.search(r"(\d+) such nodes give an offered GPU load of", notice).group(1))
    page.screenshot(path=str(ARTIFACTS / "readable-upload-notice.png"))
    page.get_by_role("button", name=re.compile(f"Use {nodes} nodes")).click()
    page.wait_for_selector(f"text={nodes} nodes, {8 * nodes} GPUs", timeout=TIMEOUT_MS)
    _idle(page, '[data-testid="stMetric"]')
    assert page.locator(".st-key-upload_cluster").count() == 0  # a chosen cluster needs no notice

    # a 390 px phone: the trio grid keeps its columns (header and values side by side), nothing overflows;
    # the page loaded afresh at the phone's size (the same page object: its renderer is warm)
    phone = page
    phone.set_viewport_size({"width": 390, "height": 844})
    phone.goto(dashboard_server)
    _idle(phone, '.st-key-trio [data-testid="stMetric"]')
    row = phone.locator('.st-key-trio [data-testid="stHorizontalBlock"]').nth(1)
    boxes = [c.bounding_box() for c in row.locator('[data-testid="stColumn"]').all()]
    # one row, not four stacked cells: left to right, and every cell's height spans a common band
    # (the cells are centred vertically, so their tops differ with their heights and the fonts)
    lefts = [b["x"] for b in boxes]
    assert len(boxes) == 4 and lefts == sorted(set(lefts)), boxes
    assert max(b["y"] for b in boxes) < min(b["y"] + b["height"] for b in boxes), boxes
    main = phone.evaluate(
        """() => { const m = document.querySelector('[data-testid="stMain"]');
                   return [m.scrollWidth, m.clientWidth]; }"""
    )
    assert main[0] <= main[1], main
    phone.screenshot(path=str(ARTIFACTS / "readable-phone-390.png"))
    assert phone.locator('[data-testid="stException"]').count() == 0


def test_lost_work_whole_variant_names_and_the_gantt_window_in_chromium(
    dashboard_server: str, new_page: Callable[..., Any]
) -> None:
    from dashboard.learn import lessons

    price = lessons.lesson("price")
    url = dashboard_server
    page = new_page(1400, 1300)

    # the lesson on the price of preemption: its Gantt hatches the lost work, named in the legend
    page.goto(f"{url}/learn")
    _idle(page, ".js-plotly-plot .main-svg")
    choose(page, "Lesson", price.title)
    _idle(page, '.js-plotly-plot .legendtext:text-is("lost work")')
    gantt = page.locator(".js-plotly-plot", has=page.locator('.legendtext:text-is("lost work")'))
    assert gantt.count() == 1
    # every variant's name whole, as its panel's title inside the chart
    titles = {(t.text_content() or "").strip(): t for t in gantt.locator(".annotation-text").all()}  # SVG text
    box = gantt.locator(".main-svg").first.bounding_box()
    for variant in price.variants:
        assert variant.label in titles, (variant.label, list(titles))
        title = titles[variant.label].bounding_box()
        assert box["x"] <= title["x"] and title["x"] + title["width"] <= box["x"] + box["width"], variant.label
    gantt.scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "readable-lesson-lost-work.png"))

    # Explore's Gantt: its window in the time axis' words, the run's length in days and hours
    page.goto(f"{url}/?tab=Gantt")
    _idle(page, "text=Window: day")
    caption = page.get_by_text("Window: day").first.inner_text()
    assert re.fullmatch(
        r"Window: day \d+ \d\d:00:00 to day \d+ \d\d:00:00 \(8\.0 h\) of a run of \d+ d( \d+ h)?\.", caption
    ), caption
    assert page.locator('[data-testid="stException"]').count() == 0
