"""Serving a Streamlit script on loopback and driving its page in headless Chromium: used by
the browser tests (through the fixtures in tests/conftest.py, which share one :class:`Shared`)
and by bench/first_chart.py.

Debian's ``chromium`` (or ``$CHROMIUM``) through Playwright; ``playwright install`` is not needed.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import urllib.request
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import expect

from .waiting import wait_until

ROOT = Path(__file__).resolve().parents[2]
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
ARTIFACTS = Path(os.environ.get("ARTIFACTS_DIR", ROOT / "test-artifacts"))
# A browser test module's marks (``pytestmark = BROWSER_TESTS``): the marker ``browser`` and skipped
# without Chromium. tests/conftest.py gives each browser test its xdist group by the server it uses
# (:func:`browser_group`), so one worker runs a group back to back on its shared server and Chromium.
BROWSER_TESTS = [
    pytest.mark.browser,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"no Chromium at {CHROMIUM}"),
]
#: the xdist groups of the browser tests: those on the dashboard server (demo mode off), and those on
#: the demo-mode server or on no server (they share nothing with the first group)
BROWSER_GROUPS = ("browser", "browser_demo")


def browser_group(fixtures: list[str]) -> str:
    """The xdist group of a browser test that asks for ``fixtures``: the tests of one group share a
    worker, and so its server and Chromium; the two groups share nothing and run side by side."""
    return BROWSER_GROUPS[0] if "dashboard_server" in fixtures else BROWSER_GROUPS[1]


# Generous: a page's first run re-simulates, and a loaded 2-core machine stretches it many times.
TIMEOUT_MS = 180_000
STARTUP_SECONDS = 180.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def streamlit_run(script: str) -> tuple[str, ...]:
    """The Python arguments of ``streamlit run script``."""
    return ("-m", "streamlit", "run", script)


#: the dashboard as Streamlit Community Cloud starts it (its first visitor pays the imports)
STREAMLIT_RUN = streamlit_run("dashboard/streamlit_app.py")
#: the dashboard as ``make run`` starts it: ``python -m dashboard``, warm before it serves
MAKE_RUN = ("-m", "dashboard")


@contextlib.contextmanager
def serve(
    env: dict[str, str] | None = None,
    log_name: str = "streamlit-server.log",
    command: tuple[str, ...] = STREAMLIT_RUN,
) -> Iterator[str]:
    """A Streamlit server started by ``python command`` (``streamlit run`` of the dashboard by
    default) on a free port of 127.0.0.1; yields its URL once its health endpoint answers, and
    stops the server on exit."""
    port = free_port()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    log_path = ARTIFACTS / log_name
    log = log_path.open("w")
    proc = subprocess.Popen(
        [
            sys.executable,
            *command,
            "--server.address",
            "127.0.0.1",
            "--server.port",
            str(port),
            "--server.headless",
            "true",
            "--browser.gatherUsageStats",
            "false",
        ],
        cwd=ROOT,
        stdout=log,
        stderr=subprocess.STDOUT,
        env={**os.environ, **(env or {})},
    )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until(
            lambda: proc.poll() is not None or _healthy(url), f"streamlit to start (see {log_path})", STARTUP_SECONDS
        )
        if proc.poll() is not None:
            raise RuntimeError(f"streamlit stopped before it answered; see {log_path}")
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


def _healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
            return bool(r.status == 200)
    except OSError:
        return False


# The app's own run state, as Streamlit marks it on its root element (what Streamlit's own
# end-to-end tests wait on): ``data-test-script-state`` is "running" from the first message of a
# run on, and "notRunning" once it ends. (The status widget's "Running" text is no signal: the widget
# shows an icon and a Stop button, and only after half a second of running.)
_APP = "document.querySelector('[data-testid=\"stApp\"]')"
RUNNING = f"""() => {{ const a = {_APP};
                      return !!a && /^(running|rerunRequested|stopRequested)$/.test(a.dataset.testScriptState); }}"""
# A session's first Explore run may end after its first chart and leave the component whose answer
# starts the run that draws the rest (dashboard/explore/first_chart.py, its key): not idle until it goes.
HELD = ".st-key-first_chart_drawn"
IDLE = f"""() => {{ const a = {_APP};
                   return !!a && a.dataset.testScriptState === 'notRunning'
                       && a.dataset.testConnectionState === 'CONNECTED' && !document.querySelector('{HELD}'); }}"""


def wait_idle(page: Any, charts: int = 0, cards: int = 0) -> None:
    """Wait until the app is connected, its run is over (and no run waits to follow a first chart:
    :data:`HELD`), and it shows at least ``charts`` charts
    and ``cards`` metric cards (Explore's results come from a worker process, on a later rerun than
    the workload's own charts)."""
    page.wait_for_selector('[data-testid="stApp"]', timeout=TIMEOUT_MS)
    # A rerun just triggered by a click may not have reached the server yet: give it up to 0.5 s to
    # start (returns as soon as it does, or at once when a run is under way).
    with contextlib.suppress(PlaywrightTimeout):
        page.wait_for_function(RUNNING, timeout=500)
    page.wait_for_function(
        f"""([n, m]) => ({IDLE})()
            && document.querySelectorAll('.js-plotly-plot').length >= n
            && document.querySelectorAll('[data-testid="stMetric"]').length >= m""",
        arg=[charts, cards],
        timeout=TIMEOUT_MS,
    )


def click_one(page: Any, locator: Any, timeout: int = TIMEOUT_MS) -> None:
    """Click ``locator`` once the page shows one copy of it. A rerun briefly shows a widget twice (its
    stale copy beside the new one), and the rerun a click started may begin after a count of one was
    seen: a click that finds two waits for that rerun to end and tries again."""
    for _ in range(10):
        wait_idle(page)
        expect(locator).to_have_count(1, timeout=timeout)
        try:
            locator.click(timeout=timeout)
            return
        except PlaywrightError as e:
            if "strict mode violation" not in str(e):
                raise
    raise AssertionError(f"{locator} kept showing two copies")


def settle(page: Any) -> None:
    """Before a screenshot: no element marked stale, web fonts loaded, two frames painted."""
    page.wait_for_function(
        """() => !document.querySelector('[data-stale="true"]') && document.fonts.status === 'loaded'""",
        timeout=TIMEOUT_MS,
    )
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")


# Test-only, every page of the browser tests: no CSS animation or transition runs (an infinite
# spinner or skeleton pulse would repaint in software at every frame while a test waits on the
# server), and the page is told the visitor prefers reduced motion. Nothing a test checks moves.
NO_MOTION = """(() => { const style = document.createElement('style');
  style.textContent = `*, *::before, *::after { animation-duration: 0s !important; animation-delay: 0s !important;
    animation-iteration-count: 1 !important; transition-duration: 0s !important; transition-delay: 0s !important; }`;
  const put = () => { if (document.documentElement && !style.isConnected) document.documentElement.appendChild(style); };
  put();  // a document may have no root element yet: add the style as soon as it has one
  if (!style.isConnected) new MutationObserver((_, seen) => { put(); if (style.isConnected) seen.disconnect(); })
    .observe(document, {childList: true}); })();"""


def new_context(browser: Any, width: int, height: int) -> Any:
    """A fresh browser context of ``browser`` (no cookies, storage or session of another) with a
    ``width`` x ``height`` window, no motion (:data:`NO_MOTION`), and every wait without a bound of
    its own bounded by :data:`TIMEOUT_MS`, not Playwright's 30 s, which a loaded machine can exceed (a
    bound stops a stuck test, never judges speed)."""
    ctx = browser.new_context(viewport={"width": width, "height": height}, reduced_motion="reduce")
    ctx.add_init_script(NO_MOTION)
    ctx.set_default_timeout(TIMEOUT_MS)
    return ctx


def launch(pw: Any) -> Any:
    """Headless Chromium from a started ``sync_playwright()``."""
    return pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)


#: what a page loads without a request to any host: inline data, its own blobs, a blank page, a file
LOCAL_URL = ("data:", "blob:", "about:", "file:")


def outside_loopback(urls: Iterable[str]) -> list[str]:
    """The URLs of ``urls`` that would leave the machine: neither local (:data:`LOCAL_URL`) nor to
    127.0.0.1, where the test servers listen (the dashboard's promise: it loads nothing from
    elsewhere, docs/hosting.md)."""
    return [u for u in urls if not u.startswith(LOCAL_URL) and urlparse(u).hostname != "127.0.0.1"]


#: JavaScript defining ``arr(v)``: a Plotly figure's numeric array as a plain array (Plotly sends them as
#: base64 typed arrays, ``{dtype, bdata}``), for the scripts that read a figure from the page
PLOTLY_ARRAYS = """const kinds = {f8: Float64Array, f4: Float32Array, i4: Int32Array, u4: Uint32Array, i2: Int16Array,
                   u2: Uint16Array, i1: Int8Array, u1: Uint8Array};
    const arr = v => {
        if (!v || !v.bdata) return v;
        const bytes = Uint8Array.from(atob(v.bdata), c => c.charCodeAt(0));
        return Array.from(new kinds[v.dtype](bytes.buffer));
    };"""


def figures_on(page: Any, url: str, script: str, charts: int) -> Any:
    """Open ``url``, wait for its run and ``charts`` charts, and return what ``script`` (a JavaScript
    function returning null until the figures it reads are drawn) reads from the page."""
    page.goto(url)
    wait_idle(page, charts=charts)
    assert_no_exception(page)
    page.wait_for_function(f"() => ({script})() !== null", timeout=TIMEOUT_MS)
    return page.evaluate(script)


def assert_no_exception(page: Any) -> None:
    assert page.locator('[data-testid="stException"]').count() == 0


class Shared:
    """The dashboard servers, the one Chromium and its one reused page that a run of browser tests
    shares, each started on first use and kept until :meth:`close`: a second test on the same server
    finds its runs already simulated (the server's shared store), and nothing is started twice."""

    def __init__(self) -> None:
        self._stack = contextlib.ExitStack()
        self._servers: dict[bool, str] = {}
        self._browser: Any = None
        self._page: Any = None

    def server(self, demo: bool) -> str:
        """The URL of the dashboard served in demo mode (``SIMCORE_DEMO=1``) or not."""
        if demo not in self._servers:
            log = "streamlit-demo-server.log" if demo else "streamlit-server.log"
            self._servers[demo] = self._stack.enter_context(serve({"SIMCORE_DEMO": "1" if demo else "0"}, log))
        return self._servers[demo]

    def browser(self) -> Any:
        """The headless Chromium (Playwright's sync API, started here)."""
        if self._browser is None:
            from playwright.sync_api import sync_playwright

            self._browser = launch(self._stack.enter_context(sync_playwright()))
            self._stack.callback(self._browser.close)
        return self._browser

    def page(self, width: int, height: int) -> Any:
        """The reused page, ``width`` x ``height``, as :meth:`release_page` left it (blank, no cookie,
        storage or route of an earlier test). Reused because a page load in a page whose renderer has
        loaded the dashboard before costs about half the CPU of one in a fresh context
        (docs/history/test-suite.md#the-chromium-tests-cost-round-6)."""
        if self._page is None or self._page.is_closed():  # first use, or a test closed it
            if self._page is not None:
                self._page.context.close()
            self._page = new_context(self.browser(), width, height).new_page()
        self._page.set_viewport_size({"width": width, "height": height})
        return self._page

    def release_page(self) -> None:
        """After a test: leave its page (which ends its session on the server, as closing its context
        did), and clear what it could leave to the next test: storage, cookies, routes, its bound."""
        page = self._page
        if page is None or page.is_closed():
            return
        try:
            page.unroute_all(behavior="ignoreErrors")
            page.evaluate("() => { try { localStorage.clear(); sessionStorage.clear(); } catch (e) {} }")
            page.goto("about:blank")
            page.context.clear_cookies()
            page.set_default_timeout(TIMEOUT_MS)
        except PlaywrightError:  # a page that cannot be cleared (a test failed with it mid-way) is not reused
            page.context.close()
            self._page = None

    @property
    def running(self) -> bool:
        return bool(self._servers) or self._browser is not None

    def close(self) -> None:
        """Stop the browser, then the servers (the reverse of their start); ready to start again."""
        try:
            self._stack.close()
        finally:
            self._stack = contextlib.ExitStack()
            self._servers.clear()
            self._browser = None
            self._page = None


def choose(page: Any, label: str, option: str) -> None:
    """Pick ``option`` in the select box ``label``; retried, as a rerun may close the list."""
    box = page.get_by_role("combobox", name=label)
    for attempt in range(3):
        box.scroll_into_view_if_needed()
        box.click()
        try:
            page.get_by_role("option", name=option, exact=True).click(timeout=15_000)
            return
        except PlaywrightTimeout:
            if attempt == 2:
                raise
            page.keyboard.press("Escape")
            wait_idle(page)
