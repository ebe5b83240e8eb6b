"""Benchmark: the speed of the first chart (issue 19), the default Explore page against a bare
Streamlit page with the same number of Plotly charts (bench/bare_plotly_app.py), side by side in
one run, in headless Chromium (Debian's /usr/bin/chromium, or ``$CHROMIUM``).

- **warm**: the default Explore page on a warm server (its default scenario already shown once);
- **cold**: the first visitor of a freshly started server (a new server per load, started as
  ``make run`` starts it: ``python -m dashboard``, which warms the default page before it serves;
  the seconds from its start to its health answer are reported beside).

Each load opens a fresh tab and times page open to the first Plotly chart drawn (its SVG); for
Explore also to the first result card; and the CPU seconds until that chart of the server (its
processes' user and system time) and of the browser (all of Chromium's processes, as Chromium
counts them): what load hardly stretches. Where the time goes: each load also
times the arrival of the first chart's figure (``chart message``: the server's part is done) and the
end of the download of Streamlit's Plotly code (``plotly code``, the largest script of the page,
fetched when the first chart arrives); the rest, to ``chart``, is the browser's. For Explore, ``sidebar``: its
sidebar's widgets in, looked for once the first card is (a session's first run sends them after the
first chart is drawn: dashboard/explore/first_chart.py; where they came first, it reads as the card's
time). Every Explore load is followed by
a load of the bare page (its server warm), so background load hits both alike. Prints, per mode, the medians of
``--loads`` loads, the bare page's median and the ratio (aims: warm within 1.3x bare, cold within
2x), and writes them to ``test-artifacts/speed-first-chart.json`` (or ``$ARTIFACTS_DIR``).

    nice .venv/bin/python bench/first_chart.py [--loads 5] [--mode warm|cold|both] [--start make-run|streamlit-run]

``--start streamlit-run`` starts the dashboard's servers with ``streamlit run``, as Streamlit
Community Cloud does, instead.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import psutil

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # the one home of the serve-and-drive helpers
from helpers.browser import ARTIFACTS, MAKE_RUN, STREAMLIT_RUN, TIMEOUT_MS, launch, serve, streamlit_run  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402

CHART = ".js-plotly-plot .main-svg"
FIGURE = b'{"data":['  # how a Plotly figure's JSON starts inside Streamlit's chart message
PLOTLY_CODE = "/PlotlyChart."  # Streamlit's script holding Plotly (static/js/PlotlyChart.<hash>.js)
CARD = '[data-testid="stMetric"]'
SIDEBAR = '[data-testid="stSidebar"] [data-testid="stWidgetLabel"]'
FULL = {"SIMCORE_DEMO": "0"}  # full mode: the limits of a hosted demo play no part here
BARE = "bench/bare_plotly_app.py"
AIMS = {"warm": 1.3, "cold": 2.0}
STARTS = {"make-run": MAKE_RUN, "streamlit-run": STREAMLIT_RUN}


def server_cpu(url: str) -> float:
    """CPU seconds used so far by the server listening at ``url`` and its processes (the
    forkserver, and the workers it has reaped): what a loaded machine hardly stretches."""
    port = url.rsplit(":", 1)[1]
    for proc in psutil.process_iter(["cmdline"]):
        cmd = proc.info["cmdline"] or []
        if "--server.port" in cmd and cmd[cmd.index("--server.port") + 1] == port:
            times = [p.cpu_times() for p in (proc, *proc.children(recursive=True))]
            return sum(t.user + t.system + t.children_user + t.children_system for t in times)
    raise RuntimeError(f"no server process on port {port}")


def browser_cpu(session: Any) -> dict[int, float]:
    """CPU seconds used so far by each of the browser's processes (Chromium's own count, through
    ``session``, a browser-level DevTools session), by process id."""
    return {p["id"]: p["cpuTime"] for p in session.send("SystemInfo.getProcessInfo")["processInfo"]}


def cpu_since(before: dict[int, float], now: dict[int, float]) -> float:
    """The CPU seconds the processes of ``now`` used since ``before`` (a process started since counts
    from zero; one that ended meanwhile is left out)."""
    return sum(cpu - before.get(pid, 0.0) for pid, cpu in now.items())


def load(browser: Any, session: Any, url: str, cards: bool) -> dict[str, float]:
    """Seconds from opening ``url`` in a fresh tab to its first chart (and first result card), and
    the server's and the browser's CPU seconds meanwhile (``server_cpu``, ``browser_cpu``;
    ``session``: a browser-level DevTools session)."""
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    marks: dict[str, float] = {}

    def mark(name: str) -> None:
        marks.setdefault(name, time.perf_counter() - start)

    def frame(payload: bytes | str) -> None:
        if isinstance(payload, bytes) and FIGURE in payload:
            mark("chart message")

    page.on("websocket", lambda ws: ws.on("framereceived", frame))
    page.on("requestfinished", lambda request: PLOTLY_CODE in request.url and mark("plotly code"))
    try:
        cpu, browser_before = server_cpu(url), browser_cpu(session)
        start = time.perf_counter()
        page.goto(url)
        page.wait_for_selector(CHART, timeout=TIMEOUT_MS)
        times = {
            "chart": time.perf_counter() - start,
            "server_cpu": server_cpu(url) - cpu,
            "browser_cpu": cpu_since(browser_before, browser_cpu(session)),
            **marks,
        }
        if cards:
            page.wait_for_selector(CARD, timeout=TIMEOUT_MS)
            times["results"] = time.perf_counter() - start
            page.wait_for_selector(SIDEBAR, timeout=TIMEOUT_MS)
            times["sidebar"] = time.perf_counter() - start
        return times
    finally:
        page.close()


def measure(
    browser: Any, session: Any, mode: str, loads: int, bare: str, start: tuple[str, ...]
) -> dict[str, list[dict[str, float]]]:
    """``loads`` Explore loads in ``mode``, each followed by one load of the bare page (cold: with
    the seconds each server took from its start to answering its health check, as ``startup``)."""
    runs: dict[str, list[dict[str, float]]] = {"explore": [], "bare": []}
    if mode == "warm":
        with serve(FULL, "streamlit-explore.log", start) as app:
            load(browser, session, app, cards=True)  # its first visitor: imports, the default scenario's runs
            for _ in range(loads):
                runs["explore"].append(load(browser, session, app, cards=True))
                runs["bare"].append(load(browser, session, bare, cards=False))
        return runs
    for _ in range(loads):
        started = time.perf_counter()
        with serve(FULL, "streamlit-explore.log", start) as fresh:  # a fresh server: its first visitor
            startup = time.perf_counter() - started
            runs["explore"].append({**load(browser, session, fresh, cards=True), "startup": startup})
        runs["bare"].append(load(browser, session, bare, cards=False))
    return runs


def medians(loads: list[dict[str, float]]) -> dict[str, float]:
    """Each measure's median over the loads that have it (a mark a load did not see is left out)."""
    names = dict.fromkeys(name for load in loads for name in load)
    return {name: statistics.median(load[name] for load in loads if name in load) for name in names}


def summary(mode: str, runs: dict[str, list[dict[str, float]]]) -> dict[str, Any]:
    explore, bare_marks = medians(runs["explore"]), medians(runs["bare"])
    bare = bare_marks["chart"]
    return {
        "seconds": runs,
        "explore": explore,
        "bare": bare,
        "bare server_cpu": bare_marks["server_cpu"],
        "bare browser_cpu": bare_marks["browser_cpu"],
        "bare marks": bare_marks,
        "ratio": explore["chart"] / bare,
        "aim": AIMS[mode],
    }


def marks_text(marks: dict[str, float]) -> str:
    return ", ".join(
        f"{name} {marks[name]:.2f} s" for name in ("chart message", "plotly code", "chart", "sidebar") if name in marks
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--loads", type=int, default=5, help="loads per mode, 1 to 20 (medians reported; default 5)")
    parser.add_argument("--mode", choices=("warm", "cold", "both"), default="both")
    parser.add_argument("--start", choices=tuple(STARTS), default="make-run", help="how the dashboard starts")
    args = parser.parse_args()
    if not 1 <= args.loads <= 20:
        parser.error("--loads must be between 1 and 20")
    modes = ["warm", "cold"] if args.mode == "both" else [args.mode]
    report: dict[str, Any] = {"loads": args.loads, "start": args.start, "load average": os.getloadavg()[0]}
    with serve(FULL, "streamlit-bare.log", streamlit_run(BARE)) as bare, sync_playwright() as pw:
        browser = launch(pw)
        session = browser.new_browser_cdp_session()
        try:
            load(browser, session, bare, cards=False)  # warm-up, not counted
            for mode in modes:
                report[mode] = summary(mode, measure(browser, session, mode, args.loads, bare, STARTS[args.start]))
        finally:
            browser.close()
    report["load average after"] = os.getloadavg()[0]
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / "speed-first-chart.json").write_text(json.dumps(report, indent=2) + "\n")
    print(f"load average {report['load average']:.1f} before, {report['load average after']:.1f} after")
    for mode in modes:
        r = report[mode]
        print(
            f"{mode}: first chart, median of {args.loads}: explore {r['explore']['chart']:.2f} s "
            f"(results {r['explore']['results']:.2f} s), bare {r['bare']:.2f} s, "
            f"ratio {r['ratio']:.2f} (aim {r['aim']:g}); server CPU meanwhile: explore "
            f"{r['explore']['server_cpu']:.2f} s, bare {r['bare server_cpu']:.2f} s; browser CPU: explore "
            f"{r['explore']['browser_cpu']:.2f} s, bare {r['bare browser_cpu']:.2f} s"
            + (f"; server start to health check {r['explore']['startup']:.2f} s" if mode == "cold" else "")
        )
        print(
            f"  {mode}, where the time goes (medians): "
            + "; ".join(f"{page} {marks_text(m)}" for page, m in (("explore", r["explore"]), ("bare", r["bare marks"])))
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
