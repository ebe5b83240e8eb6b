"""In headless Chromium: what issue 35 puts on screen, as the visitor's browser draws it.

- Explore, opened by a link with two node-events rows: each node's down time is one bar across that
  node's GPU lanes, on both panels, drawn where the axes put the window's start and end (its pixels
  checked against Plotly's own axes), the node's name at its middle; the checkpoint pauses drawn.
- The Sweep page's checkpoint advisor, run by its button: both optima drawn as vertical lines, the
  simulated best at the interval of the least BE p50 slowdown the chart itself shows, Young/Daly at the
  interval its label names.

The lessons (f) and (g) are stepped in Chromium by tests/test_browser.py's Learn walk (every lesson).
With ``UPDATE_SCREENSHOT=1`` the two charts also replace docs/screenshot-down-time.png and
docs/screenshot-advisor.png.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from typing import Any

import pytest

sync_api = pytest.importorskip("playwright.sync_api")

from helpers.browser import (  # noqa: E402  (after the skip when Playwright is missing)
    ARTIFACTS,
    BROWSER_TESTS,
    ROOT,
    TIMEOUT_MS,
    assert_no_exception,
    click_one,
    settle,
    wait_idle,
)

pytestmark = BROWSER_TESTS

FAILURE = (3600.0, 7200.0)  # demo-0 fails for an hour
MAINTENANCE = (10800.0, 18000.0)  # demo-1 is maintained for two
EXPLORE = (
    f"/?node_events=demo-0,{FAILURE[0]:g},{FAILURE[1]:g},failure%0Ademo-1,{MAINTENANCE[0]:g},{MAINTENANCE[1]:g},"
    "maintenance&checkpoint=periodic&checkpoint_cost=30&tab=Gantt&gantt_window=0,8"
)

#: every drawn element of the traces named ``names`` in the first chart holding one: its pixel box (relative
#: to the chart), and where Plotly's own axes put each of its data points (bars: base to base + x across
#: y +- width / 2; lines: their x), the trace's ticks (text and pixel) for the node names
_DRAWN = """(names) => {
    const plot = [...document.querySelectorAll('.js-plotly-plot')]
        .find(p => (p.data || []).some(t => names.includes(t.name)));
    if (!plot) return null;
    const kinds = {f8: Float64Array, f4: Float32Array, i4: Int32Array, u4: Uint32Array, i2: Int16Array,
                   u2: Uint16Array, i1: Int8Array, u1: Uint8Array};
    const arr = v => {
        if (v === undefined || v === null) return v;
        if (!v.bdata) return Array.isArray(v) ? v : [v];
        const bytes = Uint8Array.from(atob(v.bdata), c => c.charCodeAt(0));
        return Array.from(new kinds[v.dtype](bytes.buffer));
    };
    const box = plot.getBoundingClientRect();
    const out = [];
    for (const g of plot.querySelectorAll('g.trace')) {
        const cd = g.__data__, t = cd && cd[0] && cd[0].trace;
        if (!t || !names.includes(t.name)) continue;
        const xa = plot._fullLayout[t.xaxis.replace('x', 'xaxis')], ya = plot._fullLayout[t.yaxis.replace('y', 'yaxis')];
        const px = v => xa._offset + xa.l2p(xa.d2l(v)), py = v => ya._offset + ya.l2p(v);
        const drawn = [...g.querySelectorAll('path')].map(p => p.getBoundingClientRect())
            .filter(r => r.width > 0 || r.height > 0)
            .map(r => ({left: r.left - box.left, right: r.right - box.left, top: r.top - box.top, bottom: r.bottom - box.top}));
        const points = [];
        const x = arr(t.x), y = arr(t.y);
        if (t.type === 'bar') {
            const base = arr(t.base), width = arr(t.width);
            for (let i = 0; i < x.length; i++) {
                const w = width.length > 1 ? width[i] : width[0];
                const ys = [py(y[i] + w / 2), py(y[i] - w / 2)];  // the lanes' axis may run downwards
                points.push({left: px(base[i]), right: xa._offset + xa.l2p(xa.d2l(base[i]) + x[i]),
                             top: Math.min(...ys), bottom: Math.max(...ys), node: t.customdata[i][0]});
            }
        } else {
            for (let i = 0; i < x.length; i++) points.push({x: x[i], px: px(x[i]), y: y[i]});
        }
        const ticks = (ya.tickvals || []).map((v, i) => ({text: ya.ticktext[i], px: py(v)}));
        out.push({name: t.name, drawn, points, ticks, plot: {width: box.width, height: box.height}});
    }
    return out;
}"""


def _shoot(page: Any, trace: str, name: str) -> None:
    """A screenshot of the chart holding ``trace`` alone; with ``UPDATE_SCREENSHOT=1`` also the docs' copy."""
    index = page.evaluate(
        "(name) => [...document.querySelectorAll('.js-plotly-plot')].findIndex(p => (p.data || []).some(t => t.name === name))",
        trace,
    )
    settle(page)
    page.locator(".js-plotly-plot").nth(index).screenshot(path=str(ARTIFACTS / name))
    if os.environ.get("UPDATE_SCREENSHOT") == "1":  # refresh the docs' picture on request only
        shutil.copy(ARTIFACTS / name, ROOT / "docs" / name)


def _drawn(page: Any, names: list[str]) -> list[dict[str, Any]]:
    page.wait_for_function(f"(names) => ({_DRAWN})(names) !== null", arg=names, timeout=TIMEOUT_MS)
    return list(page.evaluate(_DRAWN, names))


def _near(a: float, b: float) -> bool:
    return abs(a - b) <= 2.0  # pixels


def test_down_time_is_drawn_across_the_nodes_lanes_on_the_explore_gantt(
    dashboard_server: str, new_page: Callable[..., Any]
) -> None:
    page = new_page(1400, 1500)
    page.goto(dashboard_server + EXPLORE)
    wait_idle(page, charts=1)
    assert_no_exception(page)
    traces = _drawn(page, ["node down: failure", "node down: maintenance", "BE checkpoint"])
    down = [t for t in traces if t["name"].startswith("node down")]
    assert {t["name"] for t in down} == {"node down: failure", "node down: maintenance"}
    assert len(down) == 4  # each kind on both panels (fitgpp over fifo): nodes fail whatever the policy
    for trace in down:
        (point,) = trace["points"]
        node, (start, end) = ("demo-0", FAILURE) if trace["name"].endswith("failure") else ("demo-1", MAINTENANCE)
        assert point["node"] == node
        # drawn where the axes put it: the window's start and end, the node's lanes from top to bottom
        (rect,) = [r for r in trace["drawn"] if _near(r["left"], point["left"]) and _near(r["right"], point["right"])]
        assert _near(rect["top"], point["top"]) and _near(rect["bottom"], point["bottom"])
        assert 0 <= rect["left"] < rect["right"] <= trace["plot"]["width"]  # inside the chart, not clipped away
        # an hour is a visible stretch, the two hours twice as wide; the node's name at the bar's middle
        hours = (end - start) / 3600
        assert rect["right"] - rect["left"] > 20 * hours
        (tick,) = [t for t in trace["ticks"] if t["text"] == node]
        assert rect["top"] < tick["px"] < rect["bottom"]
        assert rect["bottom"] - rect["top"] > 40  # the node's 8 lanes, not one
    widths = {t["name"]: t["drawn"][0]["right"] - t["drawn"][0]["left"] for t in down}
    assert widths["node down: maintenance"] == pytest.approx(2 * widths["node down: failure"], rel=0.02)
    pauses = [t for t in traces if t["name"] == "BE checkpoint"]
    assert pauses and any(t["drawn"] for t in pauses)  # checkpoint pauses drawn, 30 s each
    _shoot(page, "node down: failure", "screenshot-down-time.png")


def test_the_sweep_pages_advisor_draws_both_optima(dashboard_server: str, new_page: Callable[..., Any]) -> None:
    from simcore.core import fmt

    page = new_page(1400, 1500)
    page.goto(f"{dashboard_server}/sweep?jobs=100&seeds=2&policies=fifo,k8s,fitgpp")
    wait_idle(page)
    assert_no_exception(page)
    click_one(page, page.get_by_text("Checkpoint advisor: which interval do the interruptions call for?"))
    box = page.get_by_role("textbox", name="Checkpoint intervals (s, comma-separated)")
    box.fill("600,3600,14400")
    box.press("Enter")
    wait_idle(page)
    click_one(page, page.get_by_role("button", name="Run the advisor"))
    wait_idle(page)
    traces = _drawn(page, ["BE p50 slowdown"])  # the advisor's chart (the sweep has not run: no other chart)
    names = _all_names(page)
    best_name = next(n for n in names if n.startswith("simulated best: "))
    yd_name = next(n for n in names if n.startswith("Young/Daly: "))
    marks = _drawn(page, [best_name, yd_name])
    (p50,) = traces
    least = min(p50["points"], key=lambda p: p["y"])
    for mark in marks:
        xs = {p["x"] for p in mark["points"]}
        assert len(xs) == 1 and len(mark["points"]) == 2  # a vertical line
        (x,) = xs
        assert mark["name"].endswith(fmt.duration(float(x)))  # its label names where it stands
        (line,) = mark["drawn"]
        assert _near(line["left"], mark["points"][0]["px"]) and _near(line["right"], mark["points"][0]["px"])
        assert line["bottom"] - line["top"] > 20  # drawn across the panel's data, not a dot
        if mark["name"] == best_name:
            assert x == least["x"]  # the least BE p50 slowdown the chart shows
    assert sorted(m["name"] for m in marks) == sorted([best_name, yd_name, best_name, yd_name])  # both panels
    _shoot(page, "BE p50 slowdown", "screenshot-advisor.png")


def _all_names(page: Any) -> list[str]:
    """The trace names of the advisor's chart."""
    names = page.evaluate(
        """() => { const plot = [...document.querySelectorAll('.js-plotly-plot')]
                       .find(p => (p.data || []).some(t => t.name === 'BE p50 slowdown'));
                   return plot.data.map(t => t.name); }"""
    )
    return [str(n) for n in names]
