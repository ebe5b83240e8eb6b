"""Benchmark: page open to the first Plotly chart drawn, the default Explore page against a bare
Streamlit page with the same number of Plotly charts (bench/bare_plotly_app.py), in headless
Chromium (Debian's /usr/bin/chromium, or ``$CHROMIUM``).

Both servers are warmed first (imports, the simulations' cache), then loaded alternately so that
background load hits both alike. Prints the times, their medians and the ratio, and writes them
to ``test-artifacts/speed-first-chart.json`` (or ``$ARTIFACTS_DIR``).

    .venv/bin/python bench/first_chart.py [--loads 5]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # the one home of the serve-and-drive helpers
from helpers.browser import ARTIFACTS, TIMEOUT_MS, launch, serve  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402


def first_chart_seconds(browser: Any, url: str) -> float:
    """Page open to the first Plotly chart drawn (its SVG in the page), in a fresh tab."""
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    start = time.perf_counter()
    page.goto(url)
    page.wait_for_selector(".js-plotly-plot .main-svg", timeout=TIMEOUT_MS)
    seconds = time.perf_counter() - start
    page.close()
    return seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--loads", type=int, default=5, help="timed loads of each page (default 5)")
    args = parser.parse_args()
    times: dict[str, list[float]] = {"explore": [], "bare": []}
    with (
        serve({"SIMCORE_DEMO": "0"}) as explore,
        serve({"SIMCORE_DEMO": "0"}, "streamlit-bare.log", "bench/bare_plotly_app.py") as bare,
        sync_playwright() as pw,
    ):
        browser = launch(pw)
        urls = {"explore": explore, "bare": bare}
        for url in urls.values():
            first_chart_seconds(browser, url)  # warm-up, not counted
        for _ in range(args.loads):
            for name, url in urls.items():
                times[name].append(first_chart_seconds(browser, url))
        browser.close()
    medians = {k: statistics.median(v) for k, v in times.items()}
    report = {"loads": args.loads, "seconds": times, "median": medians, "ratio": medians["explore"] / medians["bare"]}
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / "speed-first-chart.json").write_text(json.dumps(report, indent=2) + "\n")
    print(
        f"first chart drawn, median of {args.loads}: explore {medians['explore']:.2f} s, "
        f"bare {medians['bare']:.2f} s, ratio {report['ratio']:.2f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
