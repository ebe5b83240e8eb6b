"""End to end in headless Chromium: the real Streamlit server, the real front end.

Runs with Debian's ``chromium`` through Playwright (``playwright install`` is not needed).
Screenshots go to the test artifacts directory (``$ARTIFACTS_DIR`` or ``test-artifacts/``);
with ``UPDATE_SCREENSHOT=1`` the Explore one also replaces the README's
docs/screenshot-explore.png.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
SCREENSHOT = ROOT / "docs" / "screenshot-explore.png"
ARTIFACTS = Path(os.environ.get("ARTIFACTS_DIR", ROOT / "test-artifacts"))
TIMEOUT_MS = 90_000

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"no Chromium at {CHROMIUM}"),
]
sync_api = pytest.importorskip("playwright.sync_api")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def serve(env: dict[str, str] | None = None, log_name: str = "streamlit-server.log") -> Iterator[str]:
    """`streamlit run` the dashboard on a free port of 127.0.0.1; yields its address."""
    port = _free_port()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    log_path = ARTIFACTS / log_name
    log = log_path.open("w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "dashboard/streamlit_app.py", "--server.address", "127.0.0.1",
         "--server.port", str(port), "--server.headless", "true", "--browser.gatherUsageStats", "false"],
        cwd=ROOT,
        stdout=log,
        stderr=subprocess.STDOUT,
        env={**os.environ, **(env or {})},
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"streamlit did not start; see {log_path}")
            time.sleep(0.3)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    with serve({"SIMCORE_DEMO": "0"}) as url:
        yield url


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    with sync_api.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


def _wait_idle(page: object, charts: int = 0) -> None:
    """Wait until the app is connected, not running, and shows at least ``charts`` charts."""
    page.wait_for_selector('[data-testid="stApp"]', timeout=TIMEOUT_MS)
    page.wait_for_function(
        """n => {
            const running = document.querySelector('[data-testid="stStatusWidget"]');
            const busy = running && /Running|Connecting/i.test(running.innerText);
            return !busy && document.querySelectorAll('.js-plotly-plot').length >= n;
        }""",
        arg=charts,
        timeout=TIMEOUT_MS,
    )
    time.sleep(0.5)  # let a rerun that was just triggered announce itself
    page.wait_for_function(
        """() => { const s = document.querySelector('[data-testid="stStatusWidget"]');
                   return !(s && /Running|Connecting/i.test(s.innerText)); }""",
        timeout=TIMEOUT_MS,
    )


def _choose(page: object, label: str, option: str) -> None:
    """Pick ``option`` in the select box ``label``; retried, as a rerun may close the list."""
    box = page.get_by_role("combobox", name=label)
    for attempt in range(3):
        box.scroll_into_view_if_needed()
        box.click()
        try:
            page.get_by_role("option", name=option, exact=True).click(timeout=5_000)
            return
        except sync_api.TimeoutError:
            if attempt == 2:
                raise
            page.keyboard.press("Escape")
            _wait_idle(page)


def _metrics(page: object) -> list[str]:
    return page.locator('[data-testid="stMetric"]').all_inner_texts()


def _assert_no_exception(page: object) -> None:
    assert page.locator('[data-testid="stException"]').count() == 0


def test_explore_end_to_end(server: str, browser: object) -> None:
    page = browser.new_page(viewport={"width": 1400, "height": 1500})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    start = time.perf_counter()
    page.goto(server)
    _wait_idle(page, charts=2)
    first_render = time.perf_counter() - start

    # the default scenario: four trio cards of three metrics, the open tab's charts, no exception
    metrics = _metrics(page)
    assert len(metrics) == 12 and "TE p95 slowdown" in metrics[0]
    assert page.locator('[data-testid="stPlotlyChart"]').count() == 2
    _assert_no_exception(page)
    time.sleep(1.5)  # fonts and Plotly transitions settle before the picture
    SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / SCREENSHOT.name))
    if os.environ.get("UPDATE_SCREENSHOT") == "1":  # refresh the README's picture on request only
        shutil.copy(ARTIFACTS / SCREENSHOT.name, SCREENSHOT)

    # every other tab draws its content when opened
    for tab, charts in (("Gantt", 1), ("Utilisation and queue", 1), ("Preemptions", 0), ("Slowdown", 2)):
        page.get_by_role("tab", name=tab).click()
        _wait_idle(page, charts=charts)
        _assert_no_exception(page)
        assert page.locator('[data-testid="stPlotlyChart"]').count() == charts, tab
        page.screenshot(path=str(ARTIFACTS / f"explore-{tab.split()[0].lower()}.png"))

    # change a knob: the results change, and so does the URL
    page.get_by_text("Knobs", exact=True).click()
    _choose(page, "backfill", "none")
    _wait_idle(page, charts=2)
    page.wait_for_function("() => location.search.includes('backfill=none')", timeout=TIMEOUT_MS)
    # the new runs take a worker process (about a second): wait for the cards to change
    page.wait_for_function(
        """before => Array.from(document.querySelectorAll('[data-testid="stMetric"]'))
                         .map(m => m.innerText).join('|') !== before""",
        arg="|".join(metrics),
        timeout=TIMEOUT_MS,
    )
    _wait_idle(page, charts=2)
    _assert_no_exception(page)

    # upload a bad file (a friendly error), then a good one (results again)
    page.get_by_text("upload a file", exact=True).click()
    _wait_idle(page)
    uploader = page.locator('[data-testid="stFileUploader"] input[type="file"]').first
    bad = b"job_id,submit_time,duration,cpu,mem_gb,gpu,job_class\n1,0,60,1,1,1,TE\n2,5,-3,1,1,1,BE\n"
    uploader.set_input_files({"name": "broken.csv", "mimeType": "text/csv", "buffer": bad})
    page.wait_for_selector('[data-testid="stAlertContentError"]', timeout=TIMEOUT_MS)
    error_text = page.locator('[data-testid="stAlertContentError"]').first.inner_text()
    assert "broken.csv" in error_text and "row 3" in error_text
    _assert_no_exception(page)
    good = (ROOT / "sample_workloads" / "demo_seed1.csv").read_bytes()
    uploader.set_input_files({"name": "demo_seed1.csv", "mimeType": "text/csv", "buffer": good})
    page.wait_for_selector("text=upload demo_seed1.csv", timeout=TIMEOUT_MS)
    _wait_idle(page, charts=2)
    assert len(_metrics(page)) == 12
    _assert_no_exception(page)
    page.screenshot(path=str(ARTIFACTS / "explore-after-upload.png"))
    assert not errors, errors
    (ARTIFACTS / "explore-first-render-seconds.txt").write_text(f"{first_render:.2f}\n")


def test_learn_link_opens_the_scenario_in_explore(server: str, browser: object) -> None:
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(f"{server}/learn")
    _wait_idle(page)
    _assert_no_exception(page)
    page.get_by_text("Open the paper regime with backfill = none").click()
    _wait_idle(page, charts=2)
    assert "backfill=none" in page.url and "preset=paper" in page.url
    assert len(_metrics(page)) == 12
    _assert_no_exception(page)
