"""Bounded load test of the dashboard in demo mode on loopback (docs/hosting.md).

Starts ``streamlit run`` with ``SIMCORE_DEMO=1`` on a free port of 127.0.0.1, then drives
headless Chromium (Debian's /usr/bin/chromium, or ``$CHROMIUM``):

1. ``--sessions`` concurrent visits of the default Explore page;
2. ``--sessions`` concurrent visits of one shared Sweep link, each pressing "Run sweep" (demo
   mode never starts a sweep from a link): the sweep is computed once and shared;
3. ``--scenarios`` distinct generated scenarios (``--parallel`` pages at a time, each closed
   once its trio cards show), after which the server's resident memory is read.

With ``--visitors N`` it runs instead (after the warm-up visit) the crowd of issue 16: N visitors
each opening a distinct generated scenario (``--jobs`` jobs, seed 2000 + i, ``--policies``) at
once. For each it records when the page first showed its trio cards ("served"), its place in line
(the notice of dashboard/runs/slots.py: "told"), a refusal naming a limit ("told") or the
progress bar of a computation that started without waiting ("computing"), and
whether it was served before ``--deadline``; the peak RSS of the server plus all its descendant
(worker) processes, sampled every 0.1 s, and the 1-minute load average are reported with them.

Reports the time from opening a page to its first chart (median and max), the server
process's peak RSS (sampled every 0.1 s) and its RSS after the distinct scenarios. Every count
is bounded and the whole run stops after ``--deadline`` seconds, the server with it.

    .venv/bin/python bench/load_dashboard.py [--sessions 10] [--scenarios 100] [--jobs 3000]
    .venv/bin/python bench/load_dashboard.py --visitors 30 --jobs 2000 [--policies fifo,k8s]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Awaitable
from pathlib import Path

import psutil  # type: ignore[import-untyped]
from playwright.async_api import Browser, async_playwright
from playwright.async_api import Error as PlaywrightError

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from emit import emit  # noqa: E402  (bench/emit.py: a script's own folder is on sys.path)

from dashboard.shared.demo import DEMO  # noqa: E402  (the project root, as for `streamlit run`)

T0 = time.perf_counter()
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"]
SWEEP_LINK = "/sweep?knob=grace&values=0,600&seeds=2&policies=fifo,fitgpp&run=1"
CHART = ".js-plotly-plot"
CARDS = '[data-testid="stMetric"]'
PAGE_TIMEOUT_MS = 600_000
IN_LINE = "you are number"  # dashboard/shared/notices.py line_text
REFUSED = '[data-testid="stAlertContentError"]'  # budget.busy, budget.timed_out: each names its limit
COMPUTING = '[data-testid="stProgress"]'  # dashboard/shared/notices.py progress
POLL_S = 0.2


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class RssSampler:
    """The server's resident memory, sampled on a thread: the peak, and the value when asked."""

    def __init__(self, pid: int) -> None:
        self.proc = psutil.Process(pid)
        self.peak = 0
        self.peak_with_workers = 0
        self.load_max = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def now(self) -> int:
        return self.proc.memory_info().rss

    def with_children(self) -> int:
        """The server's resident memory plus that of every process it started (forkserver, workers)."""
        return self.now() + sum(c.memory_info().rss for c in self.proc.children(recursive=True))

    def _run(self) -> None:
        while not self._stop.wait(0.1):
            try:
                own = self.now()
                total = self.with_children()
            except psutil.Error:
                continue
            self.peak = max(self.peak, own)
            self.peak_with_workers = max(self.peak_with_workers, total)
            self.load_max = max(self.load_max, os.getloadavg()[0])

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()


async def first_chart(browser: Browser, url: str, click_run: bool = False, until: str = CHART) -> float | None:
    """Seconds from opening ``url`` in a new page to its first drawn chart, or to the first
    element matching ``until`` (None: not in time)."""
    page = await browser.new_page(viewport={"width": 1400, "height": 1000})
    page.set_default_timeout(PAGE_TIMEOUT_MS)
    try:
        start = time.perf_counter()
        await page.goto(url, wait_until="commit", timeout=PAGE_TIMEOUT_MS)
        if click_run:
            button = page.get_by_role("button", name="Run sweep")
            await button.wait_for(timeout=PAGE_TIMEOUT_MS)
            if not await page.locator(CHART).count():  # not already shown from the shared store
                await button.click()
        await page.wait_for_selector(until, timeout=PAGE_TIMEOUT_MS)
        return time.perf_counter() - start
    except PlaywrightError as exc:
        print(f"no chart: {url}: {str(exc).splitlines()[0]}", file=sys.stderr)
        return None
    finally:
        await page.close()


async def visitor(browser: Browser, url: str, stop_at: float) -> dict[str, object]:
    """One visitor of the crowd: seconds to the first sign of service or of being told (its
    place in line or a refusal), what that was, and the seconds to its trio cards (None: not
    served before ``stop_at``, a ``time.perf_counter`` value)."""
    page = await browser.new_page(viewport={"width": 1400, "height": 1000})
    start = time.perf_counter()
    row: dict[str, object] = {"first": None, "first_s": None, "served_s": None, "refused": None}
    try:
        await page.goto(url, wait_until="commit", timeout=PAGE_TIMEOUT_MS)
        while time.perf_counter() < stop_at:
            now = round(time.perf_counter() - start, 1)
            if await page.locator(CARDS).count():
                row["served_s"] = now
                seen = "served"
            elif await page.get_by_text(IN_LINE).count():
                seen = "in line"
            elif await page.locator(COMPUTING).count():
                seen = "computing"  # its computation started at once: a progress bar, no line
            elif await page.locator(REFUSED).count():
                text = await page.locator(REFUSED).first.inner_text()  # the icon's name, then the text
                row["refused"] = next((line for line in text.splitlines() if "limit" in line), text)[:200]
                seen = "refused"
            else:
                seen = ""
            if seen and row["first"] is None:
                row["first"], row["first_s"] = seen, now
            if seen in ("served", "refused"):
                break
            await asyncio.sleep(POLL_S)
    except PlaywrightError as exc:
        row["error"] = str(exc).splitlines()[0]
    finally:
        await page.close()
    return row


def crowd_table(rows: list[dict[str, object]]) -> str:
    lines = [f"{'visitor':>7}  {'first shown':<11} {'at s':>6}  {'served at s':>11}  refusal"]
    for i, r in enumerate(rows):
        first_s = "-" if r["first_s"] is None else f"{r['first_s']:.1f}"
        served = "-" if r["served_s"] is None else f"{r['served_s']:.1f}"
        lines.append(
            f"{i:>7}  {r['first'] or 'nothing':<11} {first_s:>6}  {served:>11}  {r['refused'] or r.get('error') or ''}"
        )
    return "\n".join(lines)


async def crowd(url: str, rss: RssSampler, args: argparse.Namespace, out: Results) -> None:
    """N visitors, each a distinct generated scenario, all opened at once."""
    out["rss_idle_mb"] = round(rss.now() / 1e6)
    out["load_avg_before"] = [round(x, 1) for x in os.getloadavg()]
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        out["warm_up"] = summary([await first_chart(browser, url)])
        out["rss_after_warm_up_mb"] = round(rss.now() / 1e6)  # the server's base after a first visit
        out["rss_after_warm_up_with_children_mb"] = round(rss.with_children() / 1e6)  # and its forkserver
        rss.peak = rss.peak_with_workers = 0
        rss.load_max = 0.0
        policies = f"&policies={args.policies}" if args.policies else ""
        links = [f"{url}/?source=generate&g.jobs={args.jobs}&seed={2000 + i}{policies}" for i in range(args.visitors)]
        start = time.perf_counter()
        stop_at = start + args.deadline - (time.perf_counter() - T0) - 20  # leave time to report
        rows = await asyncio.gather(*(visitor(browser, link, stop_at) for link in links))
        wall = round(time.perf_counter() - start, 1)
        await browser.close()
    told = [float(str(r["first_s"])) for r in rows if r["first"] in ("in line", "refused")]
    first = [float(str(r["first_s"])) for r in rows if r["first_s"] is not None]
    served = [float(str(r["served_s"])) for r in rows if r["served_s"] is not None]
    print(crowd_table(rows), file=sys.stderr)
    out["crowd"] = {
        "visitors": args.visitors,
        "jobs": args.jobs,
        "policies": args.policies or "fifo,priority,k8s,fitgpp (default)",
        "served_or_told": len(first),
        "max_s_to_served_or_told": max(first, default=None),
        "told_first": len(told),
        "computing_first": sum(r["first"] == "computing" for r in rows),
        "max_s_to_told": max(told, default=None),
        "refused": sum(r["first"] == "refused" or r["refused"] is not None for r in rows),
        "served_by_end": len(served),
        "last_served_s": max(served, default=None),
        "never_anything": sum(r["first"] is None for r in rows),
        "wall_s": wall,
        "load_avg_max_1min": round(rss.load_max, 1),
        "load_avg_after": [round(x, 1) for x in os.getloadavg()],
        "rss_peak_server_mb": round(rss.peak / 1e6),
        "rss_peak_server_and_workers_mb": round(rss.peak_with_workers / 1e6),
    }


async def bounded(coros: list, parallel: int) -> list:
    gate = asyncio.Semaphore(parallel)

    async def one(coro: Awaitable[object]) -> object:
        async with gate:
            return await coro

    return await asyncio.gather(*(one(c) for c in coros))


def summary(times: list[float | None]) -> dict[str, float]:
    ok = [t for t in times if t is not None]
    if not ok:
        return {"n": len(times), "failed": len(times)}
    return {
        "median_s": round(statistics.median(ok), 2),
        "max_s": round(max(ok), 2),
        "n": len(times),
        "failed": len(times) - len(ok),
    }


class Results(dict):
    """The measurements so far; each is also printed as it is taken (a deadline keeps them)."""

    def __setitem__(self, key: str, value: object) -> None:
        super().__setitem__(key, value)
        print(json.dumps({key: value}), file=sys.stderr, flush=True)


async def drive(url: str, rss: RssSampler, args: argparse.Namespace, out: Results) -> None:
    out["rss_idle_mb"] = round(rss.now() / 1e6)
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        out["warm_up"] = summary([await first_chart(browser, url)])  # first visit: imports, worker start
        out["default_scenario"] = summary(
            await asyncio.gather(*(first_chart(browser, url) for _ in range(args.sessions)))
        )
        out["shared_sweep_link"] = summary(
            await asyncio.gather(*(first_chart(browser, url + SWEEP_LINK, True) for _ in range(args.sessions)))
        )
        out["rss_peak_mb_during_sessions"] = round(rss.peak / 1e6)
        links = [f"{url}/?source=generate&g.jobs={args.jobs}&seed={1000 + i}" for i in range(args.scenarios)]
        start = time.perf_counter()
        # the server's work is done once the trio cards show: the charts need not be drawn here
        times = await bounded([first_chart(browser, link, until=CARDS) for link in links], args.parallel)
        out["distinct_scenarios"] = {**summary(times), "wall_s": round(time.perf_counter() - start, 1)}
        await browser.close()
    await asyncio.sleep(2)
    out["rss_after_distinct_scenarios_mb"] = round(rss.now() / 1e6)
    out["rss_peak_mb"] = round(rss.peak / 1e6)
    out["rss_peak_with_workers_mb"] = round(rss.peak_with_workers / 1e6)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=10, help="concurrent browser sessions (default 10)")
    parser.add_argument("--scenarios", type=int, default=100, help="distinct scenarios (default 100)")
    parser.add_argument("--parallel", type=int, default=3, help="pages at a time for the distinct scenarios")
    parser.add_argument("--jobs", type=int, default=3000, help="jobs of each distinct scenario (default 3000)")
    parser.add_argument("--deadline", type=float, default=1800, help="stop everything after this many seconds")
    parser.add_argument("--visitors", type=int, help="run only the crowd: this many distinct scenarios at once")
    parser.add_argument("--policies", help="the crowd's policies, comma-separated (default: the page's four)")
    parser.add_argument("--out", type=Path, help="also write the results as JSON")
    args = parser.parse_args()
    if args.visitors is not None and not 1 <= args.visitors <= 60:
        parser.error("--visitors must be between 1 and 60")
    for name, most in (("sessions", 50), ("scenarios", 1000), ("parallel", 10), ("jobs", DEMO.max_jobs)):
        if not 1 <= getattr(args, name) <= most:
            parser.error(f"--{name} must be between 1 and {most}")
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # stop the server on the way out
    port = free_port()
    log = (ROOT / "test-artifacts").resolve()
    log.mkdir(exist_ok=True)
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "streamlit",
            "run",
            "dashboard/streamlit_app.py",
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
        env={**os.environ, "SIMCORE_DEMO": "1"},
        stdout=(log / "load-dashboard-server.log").open("w"),
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    rss = None
    results = Results()
    try:
        for _ in range(200):
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2):
                    break
            except OSError:
                time.sleep(0.3)
        rss = RssSampler(server.pid)
        try:
            run = crowd if args.visitors else drive
            asyncio.run(asyncio.wait_for(run(url, rss, args, results), args.deadline))
        except TimeoutError:
            results["stopped"] = f"deadline of {args.deadline:g} s reached"
    finally:
        if rss is not None:
            rss.stop()
        server.terminate()
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()
    names = ("visitors", "jobs", "policies") if args.visitors else ("sessions", "scenarios", "parallel", "jobs")
    results["settings"] = {k: getattr(args, k) for k in names}
    return emit(results, args.out)


if __name__ == "__main__":
    sys.exit(main())
