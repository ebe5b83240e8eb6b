"""End to end in headless Chromium: the real Streamlit server, the real front end.

Runs with Debian's ``chromium`` through Playwright (``playwright install`` is not needed).
Screenshots go to the test artifacts directory (``$ARTIFACTS_DIR`` or ``test-artifacts/``);
with ``UPDATE_SCREENSHOT=1`` the Explore one also replaces the README's
docs/screenshot-explore.png.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import socket
import statistics
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
def serve(
    env: dict[str, str] | None = None,
    log_name: str = "streamlit-server.log",
    script: str = "dashboard/streamlit_app.py",
) -> Iterator[str]:
    """``streamlit run script`` (the dashboard by default) on a free port of 127.0.0.1; yields its
    URL once healthy."""
    port = _free_port()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    log_path = ARTIFACTS / log_name
    log = log_path.open("w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", script, "--server.address", "127.0.0.1",
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


def _wait_idle(page: object, charts: int = 0, cards: int = 0) -> None:
    """Wait until the app is connected, not running, and shows at least ``charts`` charts and
    ``cards`` metric cards (Explore's results come from a worker process, on a later rerun than
    the workload's own charts)."""
    page.wait_for_selector('[data-testid="stApp"]', timeout=TIMEOUT_MS)
    page.wait_for_function(
        """([n, m]) => {
            const running = document.querySelector('[data-testid="stStatusWidget"]');
            const busy = running && /Running|Connecting/i.test(running.innerText);
            return !busy && document.querySelectorAll('.js-plotly-plot').length >= n
                && document.querySelectorAll('[data-testid="stMetric"]').length >= m;
        }""",
        arg=[charts, cards],
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
    _wait_idle(page, charts=2, cards=12)
    first_render = time.perf_counter() - start

    # the default scenario: four trio cards of three metrics, the open tab's charts, no exception
    metrics = _metrics(page)
    assert len(metrics) == 12 and page.get_by_text("TE p95 slowdown", exact=True).first.is_visible()
    assert page.locator('[data-testid="stPlotlyChart"]').count() == 2
    _assert_no_exception(page)
    time.sleep(1.5)  # fonts and Plotly transitions settle before the picture
    page.screenshot(path=str(ARTIFACTS / "explore-default.png"))

    # every other tab draws its content when opened (beside the trio: the percentile chart)
    for tab, charts in (("Gantt", 2), ("Utilisation and queue", 2), ("Preemptions", 1), ("Slowdown", 2)):
        page.get_by_role("tab", name=tab).click()
        _wait_idle(page, charts=charts)
        _assert_no_exception(page)
        # the previous tab's charts stay (marked stale) until the rerun is done: slow on a loaded machine
        page.wait_for_function(
            """n => !document.querySelector('[data-stale="true"]')
                   && document.querySelectorAll('[data-testid="stPlotlyChart"]').length === n""",
            arg=charts,
            timeout=TIMEOUT_MS,
        )
        assert page.locator('[data-testid="stPlotlyChart"]').count() == charts, tab
        page.screenshot(path=str(ARTIFACTS / f"explore-{tab.split()[0].lower()}.png"))
        if tab == "Gantt":  # the README's picture: the Gantt centred on the first preemption
            _choose(page, "Zoom around a preemption", "4 h")
            _wait_idle(page, charts=2)
            page.get_by_role("button", name="Next preemption").click()
            _wait_idle(page, charts=2)
            page.wait_for_selector("text=Preemption 1 of", timeout=TIMEOUT_MS)
            _assert_no_exception(page)
            page.set_viewport_size({"width": 1400, "height": 2000})
            time.sleep(1.5)
            SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(ARTIFACTS / SCREENSHOT.name))
            if os.environ.get("UPDATE_SCREENSHOT") == "1":  # refresh the README's picture on request only
                shutil.copy(ARTIFACTS / SCREENSHOT.name, SCREENSHOT)
            page.set_viewport_size({"width": 1400, "height": 1500})

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
    page.wait_for_function("""() => !document.querySelector('[data-stale="true"]')""", timeout=TIMEOUT_MS)
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
    _wait_idle(page, charts=2, cards=12)
    assert len(_metrics(page)) == 12
    _assert_no_exception(page)
    page.screenshot(path=str(ARTIFACTS / "explore-after-upload.png"))
    assert not errors, errors
    (ARTIFACTS / "explore-first-render-seconds.txt").write_text(f"{first_render:.2f}\n")


def test_learn_link_opens_the_scenario_in_explore(server: str, browser: object) -> None:
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(f"{server}/learn")
    _wait_idle(page, charts=2)  # the lesson's two charts: the page's run is over
    _assert_no_exception(page)
    page.get_by_text("Open the paper regime with backfill = none").click()
    _wait_idle(page, charts=2, cards=12)
    assert "backfill=none" in page.url and "preset=paper" in page.url
    assert len(_metrics(page)) == 12
    _assert_no_exception(page)


def test_a_link_with_the_save_and_budget_knobs_fills_their_widgets(server: str, browser: object) -> None:
    """save_failure and preempt_budget (widgets derived from simcore.knobs) travel in a link, show in the
    Knobs box and the runs complete with them."""
    page = browser.new_page(viewport={"width": 1400, "height": 1500})
    page.goto(f"{server}/?save_failure=0.5&preempt_budget=1")
    _wait_idle(page, charts=2, cards=12)
    _assert_no_exception(page)
    page.get_by_text("Knobs", exact=True).click()
    assert float(page.get_by_role("spinbutton", name="save_failure").input_value()) == 0.5
    assert page.get_by_role("textbox", name="preempt_budget").input_value() == "1"
    assert "save_failure=0.5" in page.url and "preempt_budget=1" in page.url
    assert len(_metrics(page)) == 12


def _chart_below_the_fold(page: object) -> float:
    """Top of the first drawn Plotly chart, in pixels from the top of the window."""
    page.wait_for_selector(".js-plotly-plot .main-svg", timeout=TIMEOUT_MS)
    return float(page.locator(".js-plotly-plot").first.bounding_box()["y"])


def test_a_chart_is_in_sight_on_a_1400_by_900_window(server: str, browser: object) -> None:
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    page.goto(server)
    _wait_idle(page, charts=2)
    _assert_no_exception(page)
    assert _chart_below_the_fold(page) < 900 - 250  # the percentile chart, beside the trio
    time.sleep(1.0)
    page.screenshot(path=str(ARTIFACTS / "explore-1400x900.png"))
    page.goto(f"{server}/sweep?run=1&seeds=2&jobs=100&values=0.8,1.2&policies=fifo,k8s,fitgpp")
    _wait_idle(page, charts=3)
    _assert_no_exception(page)
    assert _chart_below_the_fold(page) < 900 - 250  # p95 slowdown and the trade-off, side by side
    time.sleep(1.0)
    page.screenshot(path=str(ARTIFACTS / "sweep-1400x900.png"))


def _first_chart_seconds(browser: object, url: str) -> float:
    """Page open to the first Plotly chart drawn (its SVG in the page), in a fresh tab."""
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    start = time.perf_counter()
    page.goto(url)
    page.wait_for_selector(".js-plotly-plot .main-svg", timeout=TIMEOUT_MS)
    seconds = time.perf_counter() - start
    page.close()
    return seconds


def test_speed_benchmark_first_chart_against_a_bare_page(server: str, browser: object) -> None:
    """A benchmark, not a timed test: it records the times (artifact and stdout), asserts nothing
    about them. The bare page has as many Plotly charts as the default Explore page (two)."""
    loads = 5
    with serve({"SIMCORE_DEMO": "0"}, "streamlit-bare.log", "tests/bare_plotly_app.py") as bare:
        _first_chart_seconds(browser, bare)  # warm both servers (imports, the simulations' cache)
        _first_chart_seconds(browser, server)
        times: dict[str, list[float]] = {"explore": [], "bare": []}
        for _ in range(loads):  # alternate, so background load hits both alike
            times["explore"].append(_first_chart_seconds(browser, server))
            times["bare"].append(_first_chart_seconds(browser, bare))
    medians = {k: statistics.median(v) for k, v in times.items()}
    report = {"loads": loads, "seconds": times, "median": medians, "ratio": medians["explore"] / medians["bare"]}
    (ARTIFACTS / "speed-first-chart.json").write_text(json.dumps(report, indent=2) + "\n")
    print(f"first chart drawn, median of {loads}: explore {medians['explore']:.2f} s, bare {medians['bare']:.2f} s, "
          f"ratio {report['ratio']:.2f}")  # fmt: skip
    assert all(t > 0 for v in times.values() for t in v)


LEARN_SCREENSHOT = ROOT / "docs" / "screenshot-learn.png"


def test_walk_each_lesson_to_its_end(server: str, browser: object) -> None:
    from dashboard.learn import lesson_views, lessons
    from dashboard.shared import compute

    page = browser.new_page(viewport={"width": 1400, "height": 1300})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(f"{server}/learn")
    _wait_idle(page, charts=2)
    for item in lessons.LESSONS:
        _choose(page, "Lesson", item.title)
        _wait_idle(page, charts=2)
        variant = item.variants[-1]  # the preemptive end of each lesson
        page.get_by_role("radiogroup", name="Run it with").get_by_text(variant.label, exact=True).first.click()
        _wait_idle(page, charts=2)
        n = len(lesson_views.instants(compute.full_run(*lessons.load(item), variant.config).events))
        page.get_by_text(f"(instant 1 of {n})").wait_for(timeout=TIMEOUT_MS)
        for i in range(2, n + 1):  # step by step, as a class would
            page.get_by_role("button", name="Next").click()
            page.get_by_text(f"(instant {i} of {n})").wait_for(timeout=TIMEOUT_MS)
            _wait_idle(page, charts=2)
            _assert_no_exception(page)
            if i == 3:  # mid-lesson: the preemption (or the blocked queue) is on screen
                page.wait_for_function("""() => !document.querySelector('[data-stale="true"]')""", timeout=TIMEOUT_MS)
                page.get_by_text("Step through it: lessons").scroll_into_view_if_needed()
                time.sleep(1.0)
                page.screenshot(path=str(ARTIFACTS / f"learn-lesson-{item.key}-step3.png"))
        assert page.get_by_text("finishes on").count() >= 1
        if item.key == "hol":  # play from the start: it reaches the end and stops by itself
            page.get_by_role("button", name="First").click()
            page.get_by_text(f"(instant 1 of {n})").wait_for(timeout=TIMEOUT_MS)
            _wait_idle(page, charts=2)
            page.get_by_role("button", name="Play").click()
            page.get_by_role("button", name="Pause").wait_for(timeout=TIMEOUT_MS)
            page.get_by_text(f"(instant {n} of {n})").wait_for(timeout=TIMEOUT_MS)
            page.get_by_role("button", name="Play").wait_for(timeout=TIMEOUT_MS)
            _assert_no_exception(page)
        page.get_by_text("Step through it: lessons").scroll_into_view_if_needed()
        time.sleep(1.0)
        page.screenshot(path=str(ARTIFACTS / f"learn-lesson-{item.key}-end.png"))
        if item.key == "victim":
            page.get_by_role("button", name="First").click()
            _wait_idle(page, charts=2)
            for i in range(2, 6):  # to instant 5: the TE job arrives and fitgpp preempts
                page.get_by_role("button", name="Next").click()
                page.get_by_text(f"(instant {i} of ").wait_for(timeout=TIMEOUT_MS)
                _wait_idle(page, charts=2)
            page.wait_for_function("""() => !document.querySelector('[data-stale="true"]')""", timeout=TIMEOUT_MS)
            page.get_by_text("Run it with").scroll_into_view_if_needed()
            page.mouse.wheel(0, 200)
            time.sleep(1.0)
            page.screenshot(path=str(ARTIFACTS / LEARN_SCREENSHOT.name))
            if os.environ.get("UPDATE_SCREENSHOT") == "1":
                shutil.copy(ARTIFACTS / LEARN_SCREENSHOT.name, LEARN_SCREENSHOT)
    assert not errors, errors


def test_open_a_decision_from_the_gantt(server: str, browser: object) -> None:
    page = browser.new_page(viewport={"width": 1400, "height": 2200})
    page.goto(f"{server}/?tab=Gantt")
    _wait_idle(page, charts=2)
    page.get_by_role("button", name="Next preemption").click()
    _wait_idle(page, charts=2)
    page.wait_for_selector("text=Why this victim?", timeout=TIMEOUT_MS)
    page.get_by_text("chosen because").first.wait_for(timeout=TIMEOUT_MS)
    words = page.get_by_text("chosen because").first.inner_text()
    assert "fitgpp took node" in words and "k8s" in words
    _assert_no_exception(page)
    page.get_by_text("Why this victim?").scroll_into_view_if_needed()
    time.sleep(1.0)
    page.screenshot(path=str(ARTIFACTS / "explore-decision.png"), full_page=True)


def test_worth_panel_opens_a_decision_on_the_gantt(server: str, browser: object) -> None:
    page = browser.new_page(viewport={"width": 1400, "height": 2200})
    page.goto(f"{server}/?tab=Was+it+worth+it%3F")
    _wait_idle(page, charts=2)  # the percentile chart and the panel's
    page.wait_for_selector("text=The worst decisions", timeout=TIMEOUT_MS)
    _assert_no_exception(page)
    page.get_by_text("The worst decisions").scroll_into_view_if_needed()
    time.sleep(1.0)
    page.screenshot(path=str(ARTIFACTS / "explore-worth.png"), full_page=True)
    page.get_by_role("button", name="Show on the Gantt").click()
    _wait_idle(page, charts=2)
    page.wait_for_selector("text=Why this victim?", timeout=TIMEOUT_MS)
    assert "tab=Gantt" in page.url
    page.get_by_text(re.compile(r"^Preemption \d+ of \d+ \((k8s|fitgpp)\)")).first.wait_for(timeout=TIMEOUT_MS)
    _assert_no_exception(page)
