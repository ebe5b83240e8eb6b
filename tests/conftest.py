"""Shared pytest set-up: the hypothesis profiles, and the fixtures shared by several modules
(one Streamlit server and one Chromium per xdist worker for the browser tests).

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


@pytest.fixture(scope="session")
def dashboard_server() -> Iterator[str]:
    """The dashboard (demo mode off) served once per worker; yields its URL."""
    from helpers import browser as web  # Playwright only where a browser test runs

    with web.serve({"SIMCORE_DEMO": "0"}) as url:
        yield url


@pytest.fixture(scope="session")
def chromium() -> Iterator[object]:
    """One headless Chromium per worker; each test opens its own pages in it."""
    from helpers import browser as web
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = web.launch(pw)
        yield b
        b.close()
