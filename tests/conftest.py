"""Shared pytest set-up: the hypothesis profiles, the xdist grouping, and the fixtures of the
browser tests (one dashboard server and one Chromium shared by a module's tests).

Plain helper functions live in the ``helpers`` package next to this file (importable as
``helpers``: this directory is put on ``sys.path``).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

try:
    from _pytest.nodeid import NodeId
except ImportError:  # pytest before 9.2: pytest-xdist's own group suffix works
    NodeId = None

_TESTS = str(Path(__file__).resolve().parent)
if _TESTS not in sys.path:
    sys.path.insert(0, _TESTS)

# Hypothesis profiles (docs/testing.md explains the numbers). deadline=None everywhere: a slow
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


@pytest.hookimpl(wrapper=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> Iterator[None]:
    """Make ``--dist loadgroup`` group again: pytest-xdist marks a test of an ``xdist_group`` by a
    ``@group`` suffix of its node id, written where pytest 9.2 no longer reads it, so the groups were
    silently ignored (pytest-xdist issue #1386). Add the suffix where pytest reads it, after every
    other hook (selection included); a no-op once pytest-xdist does it itself."""
    yield
    if NodeId is None or not getattr(config.option, "loadgroup", False):
        return
    for item in items:
        names = {
            str(m.args[0] if m.args else m.kwargs.get("name", "default")) for m in item.iter_markers("xdist_group")
        }
        if names and "@" not in item.nodeid:
            item._id = NodeId.parse(f"{item.nodeid}@{'_'.join(sorted(names))}")


# Module scope, not session: a session-long server would stay a child of the xdist worker while
# other modules run there, and tests/test_hosting_worker.py checks that the test process has no
# child processes left.
@pytest.fixture(scope="module")
def dashboard_server() -> Iterator[str]:
    """The dashboard (demo mode off) served for a module's tests; yields its URL."""
    from helpers import browser as web  # Playwright only where a browser test runs

    with web.serve({"SIMCORE_DEMO": "0"}) as url:
        yield url


@pytest.fixture(scope="module")
def chromium() -> Iterator[object]:
    """One headless Chromium for a module's tests; each test opens its own pages in it (module
    scope also because Playwright's sync API runs one instance at a time in a thread, and
    tests/test_hosting_browser.py, on the same worker, starts its own)."""
    from helpers import browser as web
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = web.launch(pw)
        yield b
        b.close()
