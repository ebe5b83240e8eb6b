"""In headless Chromium: Explore's Queues tab on the ``teams`` preset and the sidebar's queues table (issue 34).

The figures are read from the page (the Plotly divs' ``data``): each queue's GPUs held against its
quota, the ledger's who-gained and who-paid markers; then the visitor types a table where research
may not borrow, and the page's link and its research panel follow it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

import pytest

sync_api = pytest.importorskip("playwright.sync_api")

from helpers.browser import (  # noqa: E402
    ARTIFACTS,
    CHROMIUM,
    PLOTLY_ARRAYS,
    TIMEOUT_MS,
    assert_no_exception,
    figures_on,
    wait_idle,
)

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"no Chromium at {CHROMIUM}"),
]

EXPLORE = "/?source=generate&preset=teams&g.jobs=300&policies=k8s&baseline=k8s&tab=Queues"
TABLE = "queue,gpu,borrow_limit,weight\nvision,56,72,1\nnlp,40,24,1\nresearch,32,0,2"

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

    page.locator('[data-testid="stSidebar"] summary', has_text="Queues").click()  # the expander, closed when empty
    box = page.locator('textarea[aria-label="Queues table (CSV)"]')
    box.fill(TABLE)
    box.press("Control+Enter")
    page.wait_for_function("() => location.search.includes('queues=')", timeout=TIMEOUT_MS)
    wait_idle(page, charts=2)
    assert_no_exception(page)
    assert parse_qs(urlparse(page.url).query)["queues"] == [TABLE]
    page.wait_for_function(
        f"""() => {{ const f = ({_FIGURES})();
            return f && Math.max(...f.usage.filter(t => t.name === 'GPUs held')[2].y) <= 32; }}""",
        timeout=TIMEOUT_MS,
    )
