"""In headless Chromium: gangs on the Explore Gantt and the gang lesson (issue 17).

Explore generates a small ``paper-gang`` workload; the Gantt's figure is read from the page (the
Plotly div's ``data``), so the checks are on what the visitor's browser draws: a gang's bars on
every node it holds, in one colour with its own label, the hover naming its worker count, and a
preempted gang stopped on every node at the same instant. Lesson (e), the gang's, is stepped in
Chromium by tests/test_browser.py's Learn walk (the gang signalled on each of its four nodes).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

sync_api = pytest.importorskip("playwright.sync_api")

from helpers.browser import ARTIFACTS, CHROMIUM, PLOTLY_ARRAYS, figures_on  # noqa: E402

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"no Chromium at {CHROMIUM}"),
]

#: a paper-gang workload small enough for a quick run that still stops a gang under fitgpp in its first day
EXPLORE = "/?source=generate&preset=paper-gang&g.jobs=100&g.nodes=4&policies=fifo,fitgpp&tab=Gantt"

#: every bar and preemption marker of the Gantt figure, as the browser holds them
_GANTT = """() => {
    const plot = [...document.querySelectorAll('.js-plotly-plot')]
        .find(p => (p.data || []).some(t => t.name === 'preemption signal'));
    if (!plot) return null;
    const ms = v => typeof v === 'number' ? v : Date.parse(v);
    /* PLOTLY_ARRAYS */
    const bars = [], signals = [];
    for (const t of plot.data) {
        if (t.type === 'bar') {
            const base = arr(t.base), x = arr(t.x);
            for (let i = 0; i < t.customdata.length; i++) {
                const c = t.customdata[i];
                bars.push({trace: t.name, color: t.marker.color, job: c[0], node: c[1], note: c[6],
                           text: t.text ? t.text[i] : null, start: ms(base[i]), end: ms(base[i]) + x[i],
                           hover: t.hovertemplate});
            }
        } else if (t.name === 'preemption signal') {
            for (let i = 0; i < t.customdata.length; i++) {
                signals.push({job: t.customdata[i][0], node: t.customdata[i][1], time: ms(arr(t.x)[i])});
            }
        }
    }
    return {bars, signals};
}""".replace("/* PLOTLY_ARRAYS */", PLOTLY_ARRAYS)


def test_a_gang_on_the_explore_gantt(dashboard_server: str, new_page: Callable[..., Any]) -> None:
    page = new_page(1400, 1500)
    drawn = figures_on(page, dashboard_server + EXPLORE, _GANTT, charts=1)
    bars, signals = drawn["bars"], drawn["signals"]
    gangs = {b["job"]: int(b["note"].split("gang of ")[1].split(" ")[0]) for b in bars if b["note"]}
    assert gangs, "the paper-gang workload shows no gang"
    for job, workers in gangs.items():
        mine = [b for b in bars if b["job"] == job]
        runs = [b for b in mine if b["trace"].endswith(" run")]
        # one colour (the trace's class colour) and the job's own label on every bar it draws
        assert len({b["color"] for b in runs}) == 1 and {b["text"] for b in runs} <= {job, ""}
        assert all("customdata[6]" in b["hover"] for b in mine)  # the hover shows the worker count
        assert all(b["note"] == f" (gang of {workers} workers, on every node it holds)" for b in mine)
    # a preempted gang: one signal per worker, all at one instant, each on a node where its run stops then
    by_stop: dict[tuple[str, float], list[dict[str, Any]]] = defaultdict(list)
    for s in signals:
        by_stop[(s["job"], s["time"])].append(s)
    stopped = {key: rows for key, rows in by_stop.items() if key[0] in gangs}
    assert stopped, "no gang preempted in the Gantt's window"
    for (job, at), rows in stopped.items():
        assert len(rows) == gangs[job]  # every worker signalled at the same instant
        ending = {b["node"] for b in bars if b["job"] == job and b["trace"].endswith(" run") and b["end"] == at}
        assert ending == {s["node"] for s in rows} and len(ending) > 1  # stopped everywhere at once
    page.screenshot(path=str(ARTIFACTS / "explore-gang-gantt.png"))
