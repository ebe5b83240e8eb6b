"""Hosting in public, end to end: a demo-mode server (SIMCORE_DEMO=1) and headless Chromium.

A crafted link of each kind is refused or neutralised while another page of the same server keeps
being served; CSV downloads are escaped. That no request leaves loopback is checked on every page of
every browser test (the ``new_page`` fixture of tests/conftest.py).
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import psutil
import pytest
from helpers import wait_until
from helpers.browser import BROWSER_TESTS, TIMEOUT_MS, assert_no_exception, click_one, wait_idle
from helpers.hosting import Listener, live_workers

pytestmark = BROWSER_TESTS
# Waits on what the page shows, bounded only against a hang: a loaded machine may take its time.
# That a refusal comes before any work is checked by what it shows (no chart was drawn), not by a clock.
HANG_MS = 300_000


@pytest.fixture
def listener() -> Iterator[Listener]:
    lst = Listener()
    yield lst
    lst.close()


def _crafted(listener: Listener) -> list[tuple[str, str]]:
    """(link, text the answer shows) for a crafted link of issue 12 of each kind: a refusal on
    Explore and on Sweep (one message builder, ``budget._refuse_if``, for every limit: the other
    limits' links are refused in tests/test_hosting.py's AppTests, with the same query), a value
    beyond simcore's own ranges (ignored: the default scenario runs), a Dask address, and Markdown
    in a parameter on each page. All but the Explore links with Markdown in their parameters or
    values beyond simcore's own ranges start nothing."""
    host = f"127.0.0.1:{listener.port}"
    return [
        ("/?cluster=custom&nodes=1000", "1,000 nodes: more than 256"),
        ("/sweep?knob=nodes&values=2,1000", "1,000 nodes: more than 256"),
        # beyond what any simcore command accepts: the parameter is ignored, the default runs
        ("/?cluster=custom&nodes=1000000000", "nodes='1000000000' ignored"),
        (f"/sweep?run=1&workers=64&dask=tcp://{host}&knob=grace&values=0,600", "never connects to a Dask scheduler"),
        (f"/?P=[x](http://{host}/t.png)&grace=![i](http://{host}/i.png)", "ignored"),
        (f"/sweep?values=![i](http://{host}/i.png),[x](http://{host}/x)", f"http://{host}/i.png"),
    ]


def test_crafted_links_are_refused_or_neutralised_while_the_server_keeps_serving(
    demo_server: str, new_page: Callable[..., Any], listener: Listener
) -> None:
    """Each crafted link opened in a page of its own while another page of the same server (Learn,
    opened once) steps its lesson, a rerun of its own session, meanwhile; after the last link a new
    page of the server loads too. A rerun of an open session waits on the same server (its event
    loop, a script thread) as a new page's first run, at a fraction of a page load's CPU
    (docs/history/test-suite.md#the-chromium-tests-cost-round-6)."""
    crafted = new_page(1400, 1000)
    other = new_page(1400, 1000)
    for page in (crafted, other):
        page.set_default_timeout(HANG_MS)  # navigation included
    fetched: list[str] = []
    crafted.on("request", lambda r: fetched.append(r.url))
    other.goto(f"{demo_server}/learn")
    other.get_by_text("Two kinds of jobs").wait_for()
    # the lesson's step-through is hidden until its questions are checked: shown unanswered
    click_one(other, other.get_by_role("button", name="Show what happened"), HANG_MS)
    other.get_by_text(re.compile(r"\(instant 1 of \d+\)")).first.wait_for()
    for n, (link, answer) in enumerate(_crafted(listener)):
        crafted.goto(demo_server + link, wait_until="commit")
        _step_the_lesson(other, "Next" if n % 2 == 0 else "Previous", 2 if n % 2 == 0 else 1)  # meanwhile
        crafted.get_by_text(answer, exact=False).first.wait_for()
        wait_idle(crafted)
        assert_no_exception(crafted)
        # visitor text stays text: no link or image to the host it names was made or loaded
        assert crafted.locator(f'a[href*="{listener.port}"], img[src*="{listener.port}"]').count() == 0, link
        if "P=[x]" not in link and "ignored" not in answer:
            assert crafted.locator('[data-testid="stPlotlyChart"]').count() == 0, link  # nothing was run
    other.goto(f"{demo_server}/learn")  # and a new page of the server still loads
    other.get_by_text("Two kinds of jobs").wait_for()
    assert_no_exception(other)
    assert [u for u in fetched if urlparse(u).port == listener.port] == []
    # the pages' requests were seen (what new_page's loopback guard relies on): the scripts, the
    # styles, the bundled favicon (dashboard/static/favicon.png) ...
    assert len(fetched) > 10 and any("/media/" in u and u.endswith(".png") for u in fetched)
    assert listener.connections == 0  # neither the browser nor the server contacted it


def _step_the_lesson(page: Any, button: str, instant: int) -> None:
    """Press ``button`` of the open lesson's stepper and wait until it shows ``instant`` and its run
    is over."""
    click_one(page, page.get_by_role("button", name=button), HANG_MS)  # a rerun briefly shows the stale stepper too
    page.get_by_text(re.compile(rf"\(instant {instant} of \d+\)")).first.wait_for()
    wait_idle(page)  # its run over: the next press is not taken mid-run


def test_csv_downloads_escape_formulas(demo_server: str, new_page: Callable[..., Any], tmp_path: Path) -> None:
    page = new_page(1400, 1200)
    page.goto(f"{demo_server}/?source=upload&tab=Jobs+and+downloads")
    wait_idle(page)
    rows = ["job_id,submit_time,duration,cpu,mem_gb,gpu,job_class"]
    rows += ['"=HYPERLINK(""http://127.0.0.1:1/x"",""x"")",0,60,1,1,1,TE', "+cmd|' /C calc'!A0,5,600,1,1,1,BE"]
    rows += [f"j{i},{10 + i},300,1,1,1,BE" for i in range(5)]
    uploader = page.locator('[data-testid="stFileUploader"] input[type="file"]').first
    uploader.set_input_files({"name": "evil.csv", "mimeType": "text/csv", "buffer": "\n".join(rows).encode()})
    page.get_by_role("button", name="Jobs CSV").wait_for(timeout=TIMEOUT_MS)
    wait_idle(page)
    with page.expect_download(timeout=TIMEOUT_MS) as info:
        page.get_by_role("button", name="Jobs CSV").click()
    cells = [cell for row in csv.reader(io.StringIO(Path(info.value.path()).read_text())) for cell in row]
    assert '\'=HYPERLINK("http://127.0.0.1:1/x","x")' in cells and "'+cmd|' /C calc'!A0" in cells
    for cell in cells:  # no text cell a spreadsheet would run (negative numbers are numbers)
        assert not cell.startswith(("=", "+", "@", "\t", "\r")), cell
        assert not cell.startswith("-") or cell[1:].replace(".", "", 1).replace("e", "", 1).isdigit(), cell


def _workers_of(server_url: str) -> list[psutil.Process]:
    """The worker processes of the server at ``server_url``."""
    port = str(urlparse(server_url).port)
    return live_workers(next(p for p in psutil.Process().children() if port in p.cmdline()))


def test_a_visitor_who_leaves_stops_the_computation(demo_server: str, new_page: Callable[..., Any]) -> None:
    page = new_page()
    page.goto(f"{demo_server}/?source=generate&g.jobs=20000&seed=31337&tau=7")  # about 80,000 job-runs
    page.get_by_text("Simulating", exact=False).first.wait_for(timeout=TIMEOUT_MS)
    wait_until(lambda: bool(_workers_of(demo_server)), "a worker process to start", HANG_MS / 1000)
    page.close()  # the visitor leaves
    wait_until(lambda: not _workers_of(demo_server), "the worker to stop after the visitor left", HANG_MS / 1000)
