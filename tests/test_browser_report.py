"""The report opens offline in Chromium: from disk (file://), with no request other than the file
itself, and every chart drawn (each plot div holds a rendered ``.main-svg``).

In the shared Chromium of tests/conftest.py (no server: the file is opened from disk).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from helpers.browser import BROWSER_TESTS, TIMEOUT_MS
from helpers.report import demo_report

pytestmark = BROWSER_TESTS


def test_the_report_opens_offline_with_every_chart_drawn(tmp_path: Path, new_page: Callable[..., Any]) -> None:
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

    page = new_page(1280, 900)
    page.route("**/*", route)
    page.goto(url)
    divs = page.locator(".plotly-graph-div")
    names = [divs.nth(i).get_attribute("id") for i in range(divs.count())]
    assert names == ["chart-percentiles", "chart-cdf", "chart-gantt", "chart-worth"]
    for name in names:  # Plotly draws asynchronously: wait on the condition, never a sleep
        page.wait_for_selector(f"#{name} .main-svg", state="attached", timeout=TIMEOUT_MS)
    bars = page.locator("#chart-gantt .main-svg .trace.bars .point").count()
    assert bars > 100  # the Gantt has its bars, not only axes
    if os.environ.get("REPORT_SCREENSHOT"):  # docs/screenshot-report.png is taken this way
        page.screenshot(path=os.environ["REPORT_SCREENSHOT"], full_page=False)
    assert others == []
