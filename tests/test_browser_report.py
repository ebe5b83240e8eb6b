"""The report opens offline in Chromium: from disk (file://), with no request other than the file
itself, and every chart drawn (each plot div holds a rendered ``.main-svg``).

Runs with Debian's ``chromium`` through Playwright (``playwright install`` is not needed).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.test_report import demo_report

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu"]
pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(shutil.which(CHROMIUM) is None and not Path(CHROMIUM).exists(), reason="no chromium"),
]
sync_api = pytest.importorskip("playwright.sync_api")


def test_the_report_opens_offline_with_every_chart_drawn(tmp_path):
    path = tmp_path / "report.html"
    path.write_text(demo_report(), encoding="utf-8")
    url = path.as_uri()
    others: list[str] = []

    def route(r):
        if r.request.url == url:
            r.continue_()
        else:  # anything else would leave the file: count it and refuse it
            others.append(r.request.url)
            r.abort()

    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.route("**/*", route)
            page.goto(url)
            divs = page.locator(".plotly-graph-div")
            names = [divs.nth(i).get_attribute("id") for i in range(divs.count())]
            assert names == ["chart-percentiles", "chart-cdf", "chart-gantt", "chart-worth"]
            for name in names:  # Plotly draws asynchronously: wait on the condition, never a sleep
                page.wait_for_selector(f"#{name} .main-svg", state="attached", timeout=60_000)
            bars = page.locator("#chart-gantt .main-svg .trace.bars .point").count()
            assert bars > 100  # the Gantt has its bars, not only axes
            if os.environ.get("REPORT_SCREENSHOT"):  # docs/screenshot-report.png is taken this way
                page.screenshot(path=os.environ["REPORT_SCREENSHOT"], full_page=False)
        finally:
            browser.close()
    assert others == []
