"""Shared pytest set-up: the hypothesis profiles, the xdist grouping, and the fixtures of the
browser tests (the dashboard servers and one Chromium, shared by consecutive browser tests).

Plain helper functions live in the ``helpers`` package next to this file (importable as
``helpers``: this directory is put on ``sys.path``).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import HealthCheck, settings

if TYPE_CHECKING:
    from helpers.browser import Shared

_TESTS = str(Path(__file__).resolve().parent)
if _TESTS not in sys.path:
    sys.path.insert(0, _TESTS)

# Hypothesis profiles (docs/testing.md#fast-and-never-flaky explains the numbers). deadline=None everywhere: a slow
# example on a loaded machine is never a failure. Tests that name their own max_examples keep it.
_COMMON = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow]}
# ci: what `make test` and CI load; the same examples on every run (derandomize) so a red run
# is reproducible and a green one is not luck.
settings.register_profile("ci", max_examples=100, derandomize=True, database=None, **_COMMON)
# dev: a quick loop while editing (fewer examples, still the same ones every run).
settings.register_profile("dev", max_examples=20, derandomize=True, database=None, **_COMMON)
# hunt: a long search for new counterexamples, fresh ones every run, failures kept in .hypothesis/.
settings.register_profile("hunt", max_examples=2000, derandomize=False, **_COMMON)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The longest tests first (``helpers.order.long_first``); the slow ones marked ``slow``: those
    ``helpers.order.is_slow`` names, every Chromium test (its server and browser started alone cost
    more than the threshold) and every pure_engine test (compiled, they share one child pytest of
    about a minute). Each browser test gets its xdist group from the server it uses
    (``helpers.browser.browser_group``), and the pure_engine tests one group (they run in one child
    pytest: ``pytest_pyfunc_call``). First among the hooks, so that pytest's selection by mark
    (``-m``) and pytest-xdist's hook, which turns each ``xdist_group`` mark into the scope ``--dist
    loadgroup`` schedules by, see these marks (docs/testing.md#fast-and-never-flaky: why pytest is
    below 9.2)."""
    from helpers.browser import browser_group
    from helpers.order import is_slow, long_first

    items[:] = long_first(items)
    for item in items:
        browser = item.get_closest_marker("browser") is not None
        pure = item.get_closest_marker("pure_engine") is not None
        if browser and item.get_closest_marker("xdist_group") is None:
            item.add_marker(pytest.mark.xdist_group(browser_group(list(getattr(item, "fixturenames", ())))))
        if pure:  # one worker, one child pytest for them all
            item.add_marker(pytest.mark.xdist_group(PURE_GROUP))
        if browser or pure or is_slow(item.nodeid):
            item.add_marker(pytest.mark.slow)


def pytest_collection_finish(session: pytest.Session) -> None:
    """Every AppTest scans all installed distributions' metadata for Streamlit components (about
    0.25 s of CPU, half of a small page's run; there are none here, and nothing is installed during
    a run): scan once per process. Only where a test module imported AppTest (so not in a child that
    has no use for Streamlit). Test-only: a served dashboard scans once at its start anyway."""
    if "streamlit.testing.v1" not in sys.modules:
        return
    import functools

    from streamlit.components.v2 import manifest_scanner

    scan = functools.cache(manifest_scanner.scan_component_manifests)
    # read by BidiComponentManager.discover_and_register_components at each call; a copy each time
    manifest_scanner.scan_component_manifests = lambda *args, **kwargs: list(scan(*args, **kwargs))


# The outcomes of the pure_engine tests, run together in one child pytest: {node id: (passed, report)}
_PURE: dict[str, tuple[bool, str]] | None = None
PURE_GROUP = "pure_engine"


def _bare(nodeid: str) -> str:
    """A node id without the ``@group`` suffix xdist's loadgroup adds (the child runs no xdist)."""
    return nodeid.removesuffix(f"@{PURE_GROUP}")


def _run_pure(session: pytest.Session) -> dict[str, tuple[bool, str]]:
    """Every pure_engine test of the session in one child pytest on the pure-Python engine: one
    start and collection instead of one per test (each costs about 5 s of CPU)."""
    import subprocess

    ids = [_bare(i.nodeid) for i in session.items if i.get_closest_marker("pure_engine") is not None]
    argv = [sys.executable, "-m", "pytest", "-q", "-rA", "-p", "no:cacheprovider", *ids]
    env = {**os.environ, "SIMCORE_PURE": "1"}
    done = subprocess.run(argv, cwd=session.config.rootpath, env=env, capture_output=True, text=True)
    passed = {line.removeprefix("PASSED ") for line in done.stdout.splitlines() if line.startswith("PASSED ")}
    return {i: (i in passed, done.stdout[-6000:]) for i in ids}


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> bool | None:
    """A test marked ``pure_engine`` patches the engine's classes, which compiled (mypyc) classes do
    not allow: when the engine is compiled it runs in a child pytest on the pure-Python engine
    (``SIMCORE_PURE=1``), with every other pure_engine test of the session (one xdist group, so one
    worker runs them), and passes or fails with its own outcome there
    (docs/testing.md#the-compiled-engine)."""
    global _PURE
    if pyfuncitem.get_closest_marker("pure_engine") is None:
        return None
    from simcore.engine import compiled

    if not compiled():
        return None
    if _PURE is None or _bare(pyfuncitem.nodeid) not in _PURE:
        _PURE = _run_pure(pyfuncitem.session)
    ok, report = _PURE[_bare(pyfuncitem.nodeid)]
    if not ok:
        pytest.fail(f"on the pure-Python engine (SIMCORE_PURE=1):\n{report}", pytrace=False)
    return True


# The browser tests' servers and Chromium: started by the first browser test, shared by every
# browser test that follows it on the same process, stopped as soon as the next test is not a
# browser test (or the run ends). So a run of Chromium tests (each browser xdist group runs its
# tests back to back on one worker) starts each server and Chromium once, while no other test ever
# runs beside them: tests/test_hosting_worker.py checks that the test process has no child
# processes left, and Playwright's sync API keeps an asyncio loop marked running in this thread
# between its calls.
_SHARED: Shared | None = None


def _shared() -> Shared:
    global _SHARED
    if _SHARED is None:
        from helpers.browser import Shared  # Playwright only where a browser test runs

        _SHARED = Shared()
    return _SHARED


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    """After a browser test's own teardown (its pages closed): stop the shared servers and Chromium
    unless the next test is a browser test too."""
    yield
    if _SHARED is not None and _SHARED.running and (nextitem is None or nextitem.get_closest_marker("browser") is None):
        _SHARED.close()


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Stop them also when the run ends early (a failure with -x, Ctrl-C): no server is left behind."""
    if _SHARED is not None:
        _SHARED.close()


@pytest.fixture(autouse=True)
def whole_explore_page(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """AppTest runs no JavaScript, so nothing would answer the component with which a session's first
    Explore run waits for its first chart before the rest of the page (dashboard/explore/first_chart.py):
    every test but the Chromium ones (their servers are real browsers' servers) sees the whole page on
    every run. A test of that first run itself deletes the variable again (``monkeypatch.delenv``)."""
    if request.node.get_closest_marker("browser") is None:
        monkeypatch.setenv("SIMCORE_WHOLE_PAGE", "1")  # first_chart.WHOLE_PAGE_ENV: no dashboard import here


@pytest.fixture
def fresh_store() -> Iterator[None]:
    """The dashboard's shared store empty and no warm-up started in this process, before the test
    and after it (a test that fills them leaves nothing to the next on the same worker)."""
    from dashboard.runs import data

    data.warm_default.clear()
    data._shared_store.clear()
    yield
    data.warm_default.clear()
    data._shared_store.clear()


@pytest.fixture
def dashboard_server() -> str:
    """The URL of the shared dashboard server, demo mode off."""
    return _shared().server(demo=False)


@pytest.fixture
def demo_server() -> str:
    """The URL of the shared dashboard server in demo mode (``SIMCORE_DEMO=1``: the public limits)."""
    return _shared().server(demo=True)


@pytest.fixture
def chromium() -> object:
    """The shared headless Chromium; open pages through ``new_page`` (a context of their own)."""
    return _shared().browser()


@pytest.fixture
def new_page(chromium: Any) -> Iterator[Callable[..., Any]]:
    """``new_page(width, height)``: a page of the shared Chromium. A test's first is the reused page
    of ``Shared.page`` (no cookie, storage, route or server session of an earlier test: only the
    browser's cache of the dashboard's static files and compiled scripts is kept), left after the
    test; any further one is in a fresh browser context (``helpers.browser.new_context``), closed
    after the test. Every page without motion, and every request of its browser context recorded:
    the test fails when one leaves loopback (the dashboard loads nothing from elsewhere; this guard
    covers every page and tab the browser tests open, docs/history/test-suite.md#round-7)."""
    from helpers.browser import new_context, outside_loopback

    contexts: list[Any] = []
    reused: list[Any] = []
    requests: list[str] = []

    def record(request: Any) -> None:
        requests.append(request.url)

    def make(width: int = 1400, height: int = 1000) -> Any:
        if not reused:
            reused.append(_shared().page(width, height))
            reused[0].context.on("request", record)
            return reused[0]
        contexts.append(new_context(chromium, width, height))
        contexts[-1].on("request", record)
        return contexts[-1].new_page()

    yield make
    for ctx in contexts:
        ctx.close()
    if reused:
        reused[0].context.remove_listener("request", record)  # the context outlives the test
        _shared().release_page()
    assert outside_loopback(requests) == [], "a page loaded something from outside the machine"
