"""Speed of the first chart (issue 19), side by side in one run, median of ``--loads`` (5):

- **bare**: a bare Streamlit page with as many Plotly charts as the default Explore page
  (``tests/bare_plotly_app.py``), on a warm server;
- **warm**: the default Explore page on a warm server (its default scenario already computed
  once by an earlier visitor), loads alternating with the bare page so background load hits
  both alike;
- **cold**: the first visitor after a server start (a fresh ``streamlit run`` per load, so the
  default scenario is computed for that visitor).

Each load opens a fresh tab in headless Chromium (Debian's /usr/bin/chromium, or ``$CHROMIUM``)
and times page open to the first Plotly chart drawn (its SVG) and, for Explore, to the first
result card. Servers listen on free ports of 127.0.0.1 and are stopped at the end. Prints a JSON
report; the aims are warm within 1.3x bare and cold within 2x bare (docs/dashboard.md "Speed").

    nice .venv/bin/python bench/first_chart_warm.py [--loads 5] [--out report.json]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

from playwright.sync_api import Browser, sync_playwright

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"]
CHART = ".js-plotly-plot .main-svg"
CARD = '[data-testid="stMetric"]'
TIMEOUT_MS = 600_000
START_TIMEOUT_S = 120


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def serve(script: str) -> Iterator[str]:
    """``streamlit run script`` on a free port of 127.0.0.1 (full mode, not demo); its URL once healthy."""
    port = free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "streamlit",
            "run",
            script,
            "--server.headless",
            "true",
            "--server.port",
            str(port),
            "--server.address",
            "127.0.0.1",
            "--browser.gatherUsageStats",
            "false",
        ],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "SIMCORE_DEMO": "0"},
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            with contextlib.suppress(OSError), urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                if r.status == 200:
                    break
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"streamlit run {script} did not start")
            time.sleep(0.2)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()


def load(browser: Browser, url: str, cards: bool) -> dict[str, float]:
    """Seconds from opening ``url`` in a fresh tab to its first chart (and first result card)."""
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    try:
        start = time.perf_counter()
        page.goto(url)
        page.wait_for_selector(CHART, timeout=TIMEOUT_MS)
        times = {"chart": time.perf_counter() - start}
        if cards:
            page.wait_for_selector(CARD, timeout=TIMEOUT_MS)
            times["results"] = time.perf_counter() - start
        return times
    finally:
        page.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--loads", type=int, default=5, help="loads per variant, 1 to 20 (median reported)")
    parser.add_argument("--out", type=Path, help="also write the JSON report here")
    args = parser.parse_args()
    if not 1 <= args.loads <= 20:
        parser.error("--loads must be between 1 and 20")
    runs: dict[str, list[dict[str, float]]] = {"bare": [], "warm": [], "cold": []}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            with serve("tests/bare_plotly_app.py") as bare, serve("dashboard/streamlit_app.py") as app:
                load(browser, bare, cards=False)  # warm both: imports, and the default scenario's runs
                load(browser, app, cards=True)
                for _ in range(args.loads):
                    runs["warm"].append(load(browser, app, cards=True))
                    runs["bare"].append(load(browser, bare, cards=False))
                for _ in range(args.loads):  # a fresh server each time: its first visitor
                    with serve("dashboard/streamlit_app.py") as fresh:
                        runs["cold"].append(load(browser, fresh, cards=True))
        finally:
            browser.close()
    median = {f"{k} {m}": statistics.median(r[m] for r in v) for k, v in runs.items() for m in v[0]}
    report = {
        "loads": args.loads,
        "seconds": runs,
        "median": median,
        "warm / bare (first chart)": median["warm chart"] / median["bare chart"],
        "cold / bare (first chart)": median["cold chart"] / median["bare chart"],
        "cold / bare (results)": median["cold results"] / median["bare chart"],
    }
    text = json.dumps(report, indent=2)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
