"""Benchmark: a newcomer's first ``make run`` (issue 32), from a fresh clone to the first chart.

Clones ``--repo`` (default: this checkout; its committed HEAD) into a temporary directory, runs
``make run`` there on a free port and reports the seconds from the start of ``make run`` to:

- ``installed``: the packages installed (the venv and ``pip install``; make's stamp file written);
- ``serving``: the dashboard's health answer (``python -m dashboard`` warms the default page first);
- ``first chart``: the default Explore page's first chart drawn in a fresh tab of headless Chromium;
- ``compiled``: the end of the engine's compile, which ``make run`` starts in the background.

The aim: ``first chart`` within 120 s of ``installed`` on an idle 2-core machine. ``--cold-pip``
gives pip an empty cache (``PIP_CACHE_DIR``), so every package is downloaded. The clone is removed
at the end, and the processes ``make run`` started are stopped once the compile has ended.

    nice .venv/bin/python bench/first_run.py [--repo PATH] [--cold-pip]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # the one home of the serve-and-drive helpers
from first_chart import CHART  # noqa: E402
from helpers.browser import TIMEOUT_MS, _healthy, free_port, launch  # noqa: E402
from helpers.waiting import wait_until  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402

#: a generous bound on each step (a cold pip on a slow network, a compile on a loaded machine)
BOUND_SECONDS = 1800.0


def until(condition: Callable[[], bool], what: str, started: float) -> float:
    """Seconds from ``started`` until ``condition()`` holds."""
    wait_until(condition, what, BOUND_SECONDS)
    return time.perf_counter() - started


def first_chart(url: str) -> float:
    """Seconds from opening ``url`` in a fresh Chromium tab to its first chart drawn."""
    with sync_playwright() as pw:
        browser = launch(pw)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            start = time.perf_counter()
            page.goto(url)
            page.wait_for_selector(CHART, timeout=TIMEOUT_MS)
            return time.perf_counter() - start
        finally:
            browser.close()


def measure(repo: Path, cold_pip: bool) -> dict[str, float]:
    """Clone ``repo``, run ``make run`` in the clone, time its steps (see the module text)."""
    work = Path(tempfile.mkdtemp(prefix="first-run-"))
    clone = work / "p"
    subprocess.run(["git", "clone", "-q", str(repo), str(clone)], check=True)
    port = free_port()
    env = {
        **os.environ,
        "STREAMLIT_SERVER_PORT": str(port),
        "STREAMLIT_SERVER_HEADLESS": "true",
        "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false",
    }
    env.pop("VIRTUAL_ENV", None)
    if cold_pip:
        env["PIP_CACHE_DIR"] = str(work / "pip-cache")
    log = (work / "make-run.log").open("w")
    started = time.perf_counter()
    make = subprocess.Popen(
        ["make", "run"], cwd=clone, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
    )
    try:
        times = {"installed": until((clone / ".venv" / ".installed-stamp").exists, "install", started)}
        url = f"http://127.0.0.1:{port}"
        times["serving"] = until(lambda: make.poll() is not None or _healthy(url), "server", started)
        if make.poll() is not None:
            raise RuntimeError(f"make run stopped: {(work / 'make-run.log').read_text()[-3000:]}")
        chart = first_chart(url)
        times["first chart"] = time.perf_counter() - started
        times["page to chart"] = chart
        times["compiled"] = until((clone / ".venv" / ".engine-compiled-stamp").exists, "compile", started)
        last = (clone / "build" / "engine-compile.log").read_text().strip().splitlines()[-1]
        print(f"compile: {last}")
        return times
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(make.pid, signal.SIGTERM)  # make run's session: the server and its workers
        make.wait()
        log.close()
        shutil.rmtree(work, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", type=Path, default=ROOT, help="the repository to clone (default: this one)")
    parser.add_argument("--cold-pip", action="store_true", help="pip with an empty cache: every package downloaded")
    args = parser.parse_args()
    times = measure(args.repo, args.cold_pip)
    for name, seconds in times.items():
        print(f"{name:>14}: {seconds:7.1f} s")
    print(f"first chart after the install: {times['first chart'] - times['installed']:.1f} s (aim: 120 s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
