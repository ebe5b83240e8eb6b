"""What a visitor sees, in headless Chromium (issue 33): every page and tab read for numbers a person can
read (no more than three decimals, no raw seconds above a day, no code: :mod:`helpers.readable`, the same
checks as the AppTest walk of ``tests/test_readable_pages.py``, here on the drawn page: its text, the
tables' cells, the charts' labels and the inputs); no chart label drawn over another, on a 390 px phone and
a 1440 px screen; no toolbar over a legend; and "Copy link" doing what its text says."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

pytest.importorskip("playwright.sync_api")

from helpers.browser import (  # noqa: E402  (after the skip when Playwright is missing)
    ARTIFACTS,
    BROWSER_TESTS,
    TIMEOUT_MS,
    assert_no_exception,
    click_one,
    settle,
    wait_idle,
)
from helpers.readable import table_problems, text_problems  # noqa: E402

pytestmark = BROWSER_TESTS

# Everything the page shows as text: the main area and the sidebar, every input's value, every chart's SVG
# text, and each table's cells by column header (Streamlit's grid draws on a canvas; its accessible table
# holds the cells the visitor sees).
SHOWN = """() => {
  const texts = [document.querySelector('[data-testid="stMain"]')?.innerText || '',
                 document.querySelector('[data-testid="stSidebar"]')?.innerText || ''];
  document.querySelectorAll('input, textarea').forEach(i => texts.push(i.value));
  document.querySelectorAll('.js-plotly-plot text').forEach(t => texts.push(t.textContent));
  const tables = [...document.querySelectorAll('[data-testid="stDataFrame"] table[role="grid"]')].map(t => {
    const heads = [...t.querySelectorAll('th[role="columnheader"]')].map(h => h.innerText);
    const cols = Object.fromEntries(heads.map(h => [h, []]));
    t.querySelectorAll('td[role="gridcell"]').forEach(c => {
      const head = heads[+c.getAttribute('aria-colindex') - 1];
      if (head !== undefined) cols[head].push(c.innerText); });
    return cols; });
  return {texts, tables}; }"""
# the labels of one chart (by its element key) and the boxes they are drawn in
LABELS = """key => [...document.querySelectorAll(`.st-key-${key} .js-plotly-plot`)].flatMap(chart =>
  [...chart.querySelectorAll('.xtitle, .ytitle, .annotation-text, .legendtext, .textpoint text, .gtitle,'
                             + ' .xtick text, .ytick text, .x2tick text, .y2tick text')]
    .filter(e => (e.textContent || '').trim())
    .map(e => { const b = e.getBoundingClientRect();
                return {text: e.textContent.trim(), x: b.x, y: b.y, w: b.width, h: b.height}; }))"""
# the boxes of every legend and every toolbar that could be drawn over it (Plotly's and Streamlit's)
BARS = """() => ({
  legends: [...document.querySelectorAll('.js-plotly-plot .legend')].map(e => e.getBoundingClientRect().toJSON()),
  bars: [...document.querySelectorAll('.modebar, [data-testid="stElementToolbar"]')]
          .filter(e => e.offsetParent !== null).map(e => e.getBoundingClientRect().toJSON()) })"""
TRAILING_ZEROS = re.compile(r"^-?\d+\.\d*0$")  # "64.00", "1800.0": a float input without the %g format


def _read(page: Any, where: str) -> list[str]:
    """The rules of :mod:`helpers.readable` over everything ``page`` shows now."""
    shown = page.evaluate(SHOWN)
    found = text_problems(shown["texts"], where)
    found += [f"{where}: an input shows {v!r}" for v in shown["texts"] if TRAILING_ZEROS.match(v.strip())]
    for i, table in enumerate(shown["tables"]):
        found += table_problems(table, f"{where} table {i}")
    return found


def _overlaps(boxes: list[dict]) -> list[tuple[str, str]]:
    """The pairs of labels whose boxes intersect (by more than a pixel each way: glyph boxes touch)."""
    pairs = []
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            if (
                min(a["x"] + a["w"], b["x"] + b["w"]) - max(a["x"], b["x"]) > 1
                and min(a["y"] + a["h"], b["y"] + b["h"]) - max(a["y"], b["y"]) > 1
            ):
                pairs.append((a["text"], b["text"]))
    return pairs


def _labels_apart(page: Any, key: str, width: int) -> list[dict]:
    """Chart ``key``'s labels: none drawn over another, each inside the window's width; returns them."""
    chart = page.locator(f".st-key-{key} .js-plotly-plot").first
    chart.scroll_into_view_if_needed()
    chart.hover()  # a toolbar shows while the pointer is over the chart
    boxes = page.evaluate(LABELS, key)
    assert boxes, key
    assert _overlaps(boxes) == [], (key, width, _overlaps(boxes))
    assert all(0 <= b["x"] and b["x"] + b["w"] <= width for b in boxes), (key, width, boxes)
    bars = page.evaluate(BARS)
    legends = [_box(b, "legend") for b in bars["legends"]]
    covered = [
        pair for bar in bars["bars"] for pair in _overlaps([*legends, _box(bar, "toolbar")]) if "toolbar" in pair
    ]
    assert covered == [], (key, width, bars)
    return boxes


def _box(rect: dict, text: str) -> dict:
    """A DOM rectangle as :func:`_overlaps` takes a label."""
    return {"text": text, "x": rect["x"], "y": rect["y"], "w": rect["width"], "h": rect["height"]}


def _tab(page: Any, name: str, charts: int) -> None:
    click_one(page, page.get_by_role("tab", name=name))
    wait_idle(page, charts=charts)
    page.wait_for_function("() => !document.querySelector('[data-stale=\"true\"]')", timeout=TIMEOUT_MS)


def test_every_page_and_tab_reads_as_numbers_for_people(dashboard_server: str, new_page: Callable[..., Any]) -> None:
    """Explore's every tab (the Gantt with a preemption chosen, its decision in words), the Sweep page with
    results and the Learn page, at 1440 x 900, read by the rules of :mod:`helpers.readable`."""
    page = new_page(1440, 900)
    page.goto(dashboard_server)
    wait_idle(page, charts=2, cards=12)
    found = _read(page, "Explore, Slowdown")
    for tab, charts in (("Gantt", 2), ("Utilisation and queue", 2), ("Preemptions", 1), ("Was it worth it?", 2)):
        _tab(page, tab, charts)
        assert_no_exception(page)
        found += _read(page, tab)
        if tab == "Gantt":
            click_one(page, page.get_by_role("button", name="Next preemption"))
            page.get_by_text("On the same state, ").first.wait_for(timeout=TIMEOUT_MS)
            wait_idle(page)
            found += _read(page, "Gantt, a preemption chosen")
    for tab in ("One job", "Jobs and downloads"):
        _tab(page, tab, 1)
        page.locator('[data-testid="stDataFrame"] [role="columnheader"]').first.wait_for(
            state="attached", timeout=TIMEOUT_MS
        )
        assert_no_exception(page)
        found += _read(page, tab)
    page.goto(f"{dashboard_server}/sweep?run=1&seeds=2&jobs=100&values=0.8,1.2&policies=fifo,k8s,fitgpp")
    wait_idle(page, charts=3)
    page.get_by_text("The numbers").click()
    page.locator('[data-testid="stDataFrame"] [role="columnheader"]').first.wait_for(state="attached")
    found += _read(page, "Sweep")
    page.goto(f"{dashboard_server}/learn?exercise=7")
    wait_idle(page)
    for hidden in ("show_hol_fifo", "show_ex7"):  # what happened, in the lesson and the exercise, unanswered
        click_one(page, page.locator(f".st-key-{hidden} button"))
    wait_idle(page, charts=3)  # the lesson's GPU grid and Gantt, the exercise's Gantt
    found += _read(page, "Learn")
    assert found == []


@pytest.mark.parametrize("width,height", [(390, 844), (1440, 900)], ids=["phone", "wide"])
def test_no_chart_label_is_drawn_over_another_nor_a_toolbar_over_a_legend(
    dashboard_server: str, new_page: Callable[..., Any], width: int, height: int
) -> None:
    """The slowdown CDF's two panels share one title (two overprinted on a phone), the percentile chart's
    labels stay apart, and in "Was it worth it?" k8s and fitgpp, on one point, share one label; no Plotly or
    Streamlit toolbar is drawn over a legend while the pointer is on the chart."""
    page = new_page(width, height)
    page.goto(dashboard_server)
    wait_idle(page, charts=2, cards=12)
    cdf = _labels_apart(page, "cdf", width)
    assert [b["text"] for b in cdf].count("slowdown (JCT / run time, log)") == 1
    _labels_apart(page, "percentiles", width)
    settle(page)
    page.screenshot(path=str(ARTIFACTS / f"readable-cdf-{width}.png"))
    _tab(page, "Was it worth it?", 2)
    labels = {b["text"] for b in _labels_apart(page, "worth", width)}
    assert {"fifo", "priority", "k8s, fitgpp"} <= labels and not {"k8s", "fitgpp"} & labels, labels
    settle(page)
    page.locator(".st-key-worth").screenshot(path=str(ARTIFACTS / f"readable-worth-{width}.png"))


def test_copy_link_copies_what_its_text_says(dashboard_server: str, new_page: Callable[..., Any]) -> None:
    """The popover says to select the address or press the copy button that shows on pointing at it, and
    that button puts the very address on the clipboard."""
    page = new_page(1440, 900)
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=dashboard_server)
    page.goto(f"{dashboard_server}/?tab=Gantt&grace=90")
    wait_idle(page, charts=2, cards=12)
    page.get_by_role("button", name="Copy link").click()
    popover = page.locator('[data-testid="stPopoverBody"]')
    popover.wait_for(timeout=TIMEOUT_MS)
    assert "copy icon" not in popover.inner_text()
    assert "Select the address below and copy it" in popover.inner_text()
    code = popover.locator('[data-testid="stCode"]')
    address = code.locator("code").inner_text().strip()
    assert address.startswith(dashboard_server) and "grace=90" in address, address
    code.hover()
    button = popover.get_by_role("button", name="Copy to clipboard")
    button.wait_for(state="visible", timeout=TIMEOUT_MS)  # what the text promises, shown on pointing
    settle(page)
    page.screenshot(path=str(ARTIFACTS / "readable-copy-link.png"))
    button.click()
    page.wait_for_function("a => navigator.clipboard.readText().then(t => t.trim() === a)", arg=address)
