"""In headless Chromium: Explore's Queues tab on the ``teams`` preset and the sidebar's queues table, and its
Gantt by queue (issue 34).

The figures are read from the page (the Plotly divs' ``data``): each queue's GPUs held against its
quota, the ledger's who-gained and who-paid markers; then the visitor types a table where research
may not borrow, and the page's link and its research panel follow it. On the Gantt tab, both switches
by queue: the legend names the queues, each bar in its job's queue's colour, each band labelled with
its quota, and the link carries the switches.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

import pytest

sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect

from helpers.browser import (  # noqa: E402
    ARTIFACTS,
    CHROMIUM,
    PLOTLY_ARRAYS,
    TIMEOUT_MS,
    assert_no_exception,
    click_one,
    figures_on,
    wait_idle,
)

from dashboard.explore import queue_sidebar  # noqa: E402
from dashboard.shared import gantt_queues  # noqa: E402
from simcore.core import queues as core_queues  # noqa: E402
from simcore.workload import presets  # noqa: E402

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"no Chromium at {CHROMIUM}"),
]

EXPLORE = "/?source=generate&preset=teams&g.jobs=300&policies=k8s&baseline=k8s&tab=Queues"
TABLE = "queue,gpu,borrow_limit,weight\nvision,56,72,1\nnlp,40,24,1\nresearch,32,0,2\nspeech,0,inf,1"
EDITOR = '[data-testid="stSidebar"] [class*="st-key-queues_editor_"]'  # one key per table (queue_table.editor_key)
ROW_PX, MARKER_PX = 35, 33  # the editor's rows (header included) and its row-marker column, in pixels

#: the traces of the usage and ledger figures, numeric arrays decoded
_FIGURES = """() => {
    /* PLOTLY_ARRAYS */
    const plots = [...document.querySelectorAll('.js-plotly-plot')];
    const find = name => plots.find(p => (p.data || []).some(t => t.name === name));
    const usage = find('GPUs held'), ledger = find('gained (preemptor\\'s queue)');
    if (!usage || !ledger) return null;
    const traces = p => p.data.map(t => ({name: t.name, x: arr(t.x), y: arr(t.y), text: t.text}));
    return {usage: traces(usage), ledger: traces(ledger)};
}""".replace("/* PLOTLY_ARRAYS */", PLOTLY_ARRAYS)


#: the Gantt by queue: its legend entries by queue, its bars' queue, colour and job ids, its bands' labels
_GANTT = """() => {
    const byQueue = t => (t.legendgroup || '').startsWith('queue ');
    const gantt = [...document.querySelectorAll('.js-plotly-plot')].find(p => (p.data || []).some(byQueue));
    if (!gantt) return null;
    const queued = gantt.data.filter(byQueue);
    return {
        legend: queued.filter(t => t.showlegend !== false).map(t => [t.name, t.marker.color]),
        bars: queued.filter(t => t.type === 'bar').map(t => ({name: t.name, color: t.marker.color,
            run: t.hovertemplate.includes(': run%'), ids: (t.customdata || []).map(row => row[0])})),
        bands: (gantt.layout.annotations || []).map(a => a.text).filter(x => x.startsWith('<b>')),
    };
}"""


def _held(figures: dict[str, Any]) -> list[list[float]]:
    return [t["y"] for t in figures["usage"] if t["name"] == "GPUs held"]


def test_the_queues_tab_and_the_sidebar_table(dashboard_server: str, new_page: Callable[..., Any]) -> None:
    page = new_page(1400, 1800)
    drawn = figures_on(page, dashboard_server + EXPLORE, _FIGURES, charts=2)
    assert len(_held(drawn)) == 3  # vision, nlp, research
    quotas = [t["y"][0] for t in drawn["usage"] if t["name"] == "quota"]
    assert quotas == [56, 40, 32]
    assert max(_held(drawn)[2]) > 32  # research borrows beyond its quota (borrow limit 96)
    gained = next(t for t in drawn["ledger"] if (t["name"] or "").startswith("gained"))
    assert gained["y"] and set(gained["y"]) <= {"vision", "nlp", "research"}
    assert all(" reclaimed its quota" in w or "TE first" in w for w in gained["text"])
    page.screenshot(path=str(ARTIFACTS / "explore-queues.png"), full_page=True)

    # the editor shows the preset's own queues; a new row gets the defaults 0, inf, 1 and no name yet
    editor = page.locator(EDITOR)
    editor.scroll_into_view_if_needed()
    editor.hover()  # shows the editor's toolbar
    editor.get_by_role("button", name="Add row").click()
    wait_idle(page, charts=2)
    said = page.locator('[data-testid="stSidebar"] [data-testid="stAlert"]')
    expect(said).to_contain_text("row 4, column queue: empty (a queue name is required)")
    assert "queues=" not in page.url  # the runs keep the last table without a problem
    _edit(page, 3, "queue", "speech", "() => location.search.includes('speech')")
    wait_idle(page, charts=2)
    expect(said).to_have_count(0)
    research_lends = "() => (new URLSearchParams(location.search).get('queues') || '').includes('research,32,0,2')"
    _edit(page, 2, "borrow_limit", "0", research_lends)  # research may no longer borrow
    wait_idle(page, charts=2)
    assert_no_exception(page)
    assert parse_qs(urlparse(page.url).query)["queues"] == [TABLE]
    page.wait_for_function(
        f"""() => {{ const f = ({_FIGURES})();
            return f && f.usage.filter(t => t.name === 'GPUs held').length === 4
                && Math.max(...f.usage.filter(t => t.name === 'GPUs held')[2].y) <= 32; }}""",
        timeout=TIMEOUT_MS,
    )
    drawn = page.evaluate(_FIGURES)
    assert [t["y"][0] for t in drawn["usage"] if t["name"] == "quota"] == [56, 40, 32, 0]  # speech: quota 0 GPUs


def test_the_gantt_by_queue(dashboard_server: str, new_page: Callable[..., Any]) -> None:
    """One page load on the Gantt tab (the runs are the test above's first ones, in the server's store) and a
    click on each switch; the expected queues, colours, quotas and each job's queue come from simcore."""
    gen = presets.generate("teams", 0, {"jobs": 300})
    spec = gen.cluster.queues
    assert spec is not None
    names = list(spec.names)
    colours = gantt_queues.colors(names)
    queue_of = dict(zip(gen.table.job_id, core_queues.job_queue_names(gen.table), strict=True))
    page = new_page(1400, 1800)
    page.goto(dashboard_server + EXPLORE.replace("tab=Queues", "tab=Gantt"))
    wait_idle(page, charts=2)
    for key in ("gantt_queue_colour", "gantt_queue_group"):
        click_one(page, page.locator(f".st-key-{key} label"))
        wait_idle(page, charts=2)
    page.wait_for_function(
        f"() => new URLSearchParams(location.search).get('gantt_queue') === 'colour,group'"
        f" && ({_GANTT})() !== null && ({_GANTT})().bands.length > 0",
        timeout=TIMEOUT_MS,
    )
    assert_no_exception(page)
    drawn = page.evaluate(_GANTT)
    assert drawn["legend"] == [[n, colours[n]] for n in names], "the legend names the queues, each in its colour"
    labels = {q.name: f"<b>{q.name}: quota {q.gpu:g} GPUs</b>" for q in spec.queues}
    assert drawn["bands"] == [labels[n] for n in names], "one band per queue, in order, labelled with its quota"
    assert drawn["bars"] and {b["name"] for b in drawn["bars"]} == set(names)
    for bar in drawn["bars"]:
        assert {queue_of[j] for j in bar["ids"]} == {bar["name"]}, "a queue's trace holds its jobs' bars only"
        assert not bar["run"] or bar["color"] == colours[bar["name"]], "a running bar in its queue's colour"
    assert parse_qs(urlparse(page.url).query)["gantt_queue"] == ["colour,group"], "the share link keeps the switches"
    page.screenshot(path=str(ARTIFACTS / "explore-gantt-by-queue.png"), full_page=True)


def _edit(page: Any, row: int, column: str, text: str, done: str, tries: int = 3) -> None:
    """Type ``text`` into a cell until the page shows the edit took (``done``, a JavaScript condition):
    an edit typed while a rerun redraws the grid can be lost (it then shows nothing, no error), so it
    is typed again; each miss leaves a screenshot in the artifacts."""
    for attempt in range(tries):
        _type_in_cell(page, row, column, text)
        try:
            page.wait_for_function(done, timeout=TIMEOUT_MS // 4)
            return
        except sync_api.TimeoutError:
            page.screenshot(path=str(ARTIFACTS / f"queues-edit-missed-{column}-{attempt}.png"), full_page=True)
    page.wait_for_function(done, timeout=TIMEOUT_MS)


def _type_in_cell(page: Any, row: int, column: str, text: str) -> None:
    """Type ``text`` into the editor's cell (``row`` from 0) as a visitor does: click it (the grid is a canvas:
    the cell's place from the columns' widths), Enter opens its text box, which is filled, Enter commits. A
    click while the sidebar still moves (a rerun ending) may miss the cell: then it is measured and tried again."""
    columns = list(queue_sidebar.WIDTHS)
    left = MARKER_PX + sum(queue_sidebar.WIDTHS[c] for c in columns[: columns.index(column)])
    cell = page.locator("textarea.gdg-input")  # the grid's editor of the chosen cell
    for _ in range(5):
        wait_idle(page)
        grid = page.locator(EDITOR).locator("canvas").first
        grid.scroll_into_view_if_needed()
        box = grid.bounding_box()
        page.mouse.click(box["x"] + left + queue_sidebar.WIDTHS[column] / 2, box["y"] + ROW_PX * (row + 1) + ROW_PX / 2)
        page.keyboard.press("Enter")
        try:
            cell.wait_for(state="visible", timeout=5_000)
            break
        except sync_api.TimeoutError:
            page.keyboard.press("Escape")
    cell.fill(text)
    cell.press("Enter")
