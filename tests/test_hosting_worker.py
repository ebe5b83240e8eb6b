"""The pure parts of hosting in public: the stoppable worker process, the bounded shared store,
the budget checks and the local commands they name, and plain-text escaping."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import threading
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import psutil
import pytest
from helpers import HANG_SECONDS, wait_until
from helpers.hosting import live_workers

from dashboard.runs import budget, worker
from dashboard.runs.store import BoundedStore
from dashboard.shared import demo
from dashboard.shared.plain import md
from dashboard.shared.scenario import Scenario
from simcore.cli import build_parser
from simcore.core.errors import UserError
from simcore.experiments.sweep import build_spec

# --- functions the worker runs (importable by the child process) ------------------------------


def add(a: int, b: int, progress: object) -> list[int]:
    progress(0.5)  # type: ignore[operator]
    return [a + b]


def sleep_with_grandchild(seconds: float, pid_file: str, progress: object) -> None:
    """Start a grandchild (as a sweep's pool would), note its pid, then work for a long time."""
    grandchild = subprocess.Popen([sys.executable, "-c", f"import threading; threading.Event().wait({seconds})"])
    Path(pid_file + ".tmp").write_text(str(grandchild.pid))
    os.replace(pid_file + ".tmp", pid_file)  # whole or absent: the test reads it while this runs
    threading.Event().wait(seconds)  # nothing sets it: the worker is stopped before it ends


def spin(progress: object) -> None:
    """Uses CPU time until it is stopped."""
    while True:
        pass


def idle_until(path: str, progress: Callable[[float], None]) -> list[int]:
    """Says it has started (its imports done), then waits, using almost no CPU time, until ``path`` exists."""
    progress(0.0)
    while not Path(path).exists():
        threading.Event().wait(0.05)  # nothing sets it: a pause between two looks
    return [7]


def refuse(progress: object) -> None:
    raise UserError("row 3, column gpu: -1 is negative")


def crash(progress: object) -> None:
    raise KeyError("/srv/secret/path.py")


def _descendants() -> list[psutil.Process]:
    """Live worker processes: everything below this process except multiprocessing's own servers
    (the forkserver and the resource tracker); a worker is forked from the forkserver, so it is
    found below it (with the forkserver's command line)."""
    return live_workers(psutil.Process())


def test_worker_returns_the_result_and_reports_progress() -> None:
    seen: list[float | None] = []
    assert worker.run(add, (2, 3), timeout=HANG_SECONDS, heartbeat=seen.append) == [5]
    assert 0.5 in seen


def _gone(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def test_worker_past_the_time_limit_is_killed_with_everything_it_started(tmp_path: Path) -> None:
    pid_file = tmp_path / "grandchild.pid"

    def started(_: float | None) -> None:
        # under CPU load the child may take longer than the limit to start its grandchild: the
        # wait holds the limit's check back until there is a grandchild to kill
        wait_until(pid_file.exists, "the worker to start its grandchild")

    with pytest.raises(worker.TimedOut) as info:
        worker.run(sleep_with_grandchild, (600, str(pid_file)), timeout=1.0, cpu_seconds=60, heartbeat=started)
    assert info.value.wall  # it slept: the wall-clock limit stopped it
    grandchild = int(pid_file.read_text())
    wait_until(lambda: not _descendants(), "the worker to be gone")
    wait_until(lambda: _gone(grandchild), "the grandchild to be gone")  # killed with the child's group


def test_a_worker_is_stopped_at_its_cpu_time_not_at_the_wall_clock_time_it_waited(tmp_path: Path) -> None:
    with pytest.raises(worker.TimedOut, match="of CPU time") as info:  # CPU time used: stopped at it
        worker.run(spin, (), timeout=HANG_SECONDS, cpu_seconds=0.5, heartbeat=lambda _: None)
    assert not info.value.wall
    wait_until(lambda: not _descendants(), "the worker to be gone")
    flag, beats = tmp_path / "go", []

    def beat(fraction: float | None) -> None:  # from its start on, one every POLL_SECONDS at least
        if fraction is not None or beats:
            beats.append(fraction)
        if len(beats) == 25:  # 6 s of waiting at least, past the CPU limit of 5 s (its imports included)
            flag.touch()

    # waiting costs no CPU time: a computation that waits longer than its CPU limit is not stopped
    assert worker.run(idle_until, (str(flag),), timeout=HANG_SECONDS, cpu_seconds=5, heartbeat=beat) == [7]
    assert worker.cpu_time(os.getpid()) > 0 and worker.cpu_time(None) == 0


def test_worker_is_killed_when_the_page_stops_waiting(tmp_path: Path) -> None:
    pid_file = tmp_path / "grandchild.pid"
    calls = []

    def beat(_: float | None) -> None:
        calls.append(1)
        if pid_file.exists():  # the visitor left: Streamlit raises in the script thread
            raise worker.Cancelled

    with pytest.raises(worker.Cancelled):
        worker.run(sleep_with_grandchild, (600, str(pid_file)), timeout=HANG_SECONDS, heartbeat=beat)
    grandchild = int(pid_file.read_text())
    wait_until(lambda: not _descendants(), "the worker to be gone")
    wait_until(lambda: _gone(grandchild), "the grandchild to be gone")


def test_worker_errors_reach_the_page_as_messages_without_tracebacks() -> None:
    with pytest.raises(UserError, match="row 3, column gpu"):
        worker.run(refuse, (), timeout=HANG_SECONDS, heartbeat=lambda _: None)
    with pytest.raises(worker.Failed) as info:
        worker.run(crash, (), timeout=HANG_SECONDS, heartbeat=lambda _: None)
    assert "Traceback" not in str(info.value) and "KeyError" in str(info.value)


# --- the store --------------------------------------------------------------------------------


def test_store_stays_under_its_size_dropping_the_least_recently_used() -> None:
    store = BoundedStore(max_bytes=100, max_age=1e9)
    for i in range(10):
        store.put(i, f"v{i}", 30)
        assert store.bytes <= 100
    assert len(store) == 3 and store.get(9) == "v9" and store.get(0) is None
    store.get(7)  # used: now the most recent
    store.put("new", "x", 30)
    assert store.get(7) == "v7" and store.get(8) is None
    store.put("huge", "y", 101)  # larger than the whole store: not kept, nothing else lost
    assert store.get("huge") is None and store.get(7) == "v7"


def test_store_forgets_entries_older_than_its_age() -> None:
    now = [0.0]
    store = BoundedStore(max_bytes=1000, max_age=60, clock=lambda: now[0])
    store.put("a", 1, 10)
    now[0] = 59
    assert store.get("a") == 1
    now[0] = 61
    assert store.get("a") is None and store.bytes == 0


def test_store_lets_one_visitor_compute_while_the_others_wait() -> None:
    store = BoundedStore(max_bytes=1000, max_age=60)
    assert store.claim("k") is None  # the first computes
    flight = store.claim("k")
    assert flight is not None and not flight.is_set()  # the second waits
    threading.Timer(0.1, lambda: (store.put("k", 42, 1), store.release("k"))).start()
    assert flight.wait(5) and store.get("k") == 42
    assert store.claim("k") is None  # free again (and found in the store by then)


# --- budget -------------------------------------------------------------------------------------


def _cli_accepts(command: str) -> None:
    for line in command.splitlines():
        args = shlex.split(line)
        assert args[0] == "simcore"
        build_parser().parse_args(args[1:])  # exits (SystemExit) on an unknown option


@pytest.mark.parametrize(
    ("scenario", "limit"),
    [
        (Scenario(cluster="custom", nodes=1000), "max_nodes"),
        (Scenario(source="generate", gen=(("jobs", "1000000"),)), "max_jobs"),
        (Scenario(source="generate", gen=(("nodes", "1000"),)), "max_nodes"),
        (Scenario(source="generate", seeds=6), "max_seeds"),
        (Scenario(source="generate", gen=(("jobs", "20000"),), seeds=5), "budget"),
    ],
)
def test_demo_refuses_scenarios_over_a_limit_naming_it_and_a_local_command(scenario: Scenario, limit: str) -> None:
    with pytest.raises(budget.Refused) as info:
        budget.check_scenario(scenario, demo.DEMO)
    message = str(info.value)
    assert f": more than {getattr(demo.DEMO, limit):,}" in message and limit not in message  # in words
    command = "\n".join(line for line in message.splitlines() if line.startswith("simcore "))
    _cli_accepts(command)


def test_the_budget_counts_jobs_policies_and_seeds() -> None:
    lim = demo.DEMO
    jobs = lim.budget // (4 * 5)  # exactly on the budget with 4 policies and 5 seeds
    at_budget = Scenario(source="generate", gen=(("jobs", str(jobs)),), seeds=5)
    budget.check_scenario(at_budget, lim)
    with pytest.raises(budget.Refused, match=r"job-runs \(jobs x policies x seeds\): more than 200,000"):
        budget.check_scenario(replace(at_budget, gen=(("jobs", str(jobs + 1)),)), lim)
    with pytest.raises(budget.Refused, match="20,001 jobs: more than 20,000"):
        budget.check_run(Scenario(source="upload"), lim.max_jobs + 1, 4, lim)


def test_the_budget_counts_a_gang_once_per_worker() -> None:
    lim = demo.DEMO
    # paper-gang expects 0.3 x 1.05 + 0.7 x (1 + 0.9 x 0.6) = 1.393 workers per job: 20,000 jobs
    # with 4 policies and 2 seeds are 222,880 worker-runs, over the 200,000 budget (160,000 jobs' worth)
    gang = Scenario(source="generate", preset="paper-gang", gen=(("jobs", "20000"),), seeds=2)
    with pytest.raises(budget.Refused, match="222,880 job-runs"):
        budget.check_scenario(gang, lim)
    budget.check_scenario(replace(gang, preset="paper"), lim)
    budget.check_run(Scenario(source="upload"), 100, 4, lim, workers=lim.max_jobs)
    with pytest.raises(budget.Refused, match=r"20,001 workers of the jobs: more than 20,000"):
        budget.check_run(Scenario(source="upload"), 100, 4, lim, workers=lim.max_jobs + 1)


def test_the_pooled_bound_counts_as_one_more_policy() -> None:
    lim = demo.DEMO
    jobs = lim.budget // ((4 + 1) * 2)  # exactly on the budget with 4 policies, the bound and 2 seeds
    two = Scenario(source="generate", seeds=2)
    budget.check_bound(two, jobs, lim)
    with pytest.raises(budget.Refused, match="pooled bound"):
        budget.check_bound(two, jobs + 1, lim)


@pytest.mark.parametrize(
    ("grid", "fixed", "limit"),
    [
        ({"nodes": [2, 1000]}, {}, "max_nodes"),
        ({"P": [0, 1]}, {"jobs": "1e6"}, "max_jobs"),
        ({"load": [0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.1]}, {}, "max_sweep_values"),
        ({"jobs": [20000, 19000]}, {}, "budget"),
    ],
)
def test_demo_refuses_sweeps_over_a_limit(grid: dict[str, list[object]], fixed: dict[str, str], limit: str) -> None:
    spec = build_spec(preset="demo", fixed=fixed, grids=grid, seeds=3, policies="fifo,fitgpp")
    knob, values = next(iter(grid.items()))
    text = ",".join(map(str, values))
    with pytest.raises(budget.Refused, match=f": more than {getattr(demo.DEMO, limit):,}") as info:
        budget.check_sweep(spec, list(fixed.items()), knob, text, demo.DEMO)
    _cli_accepts("\n".join(line for line in str(info.value).splitlines() if line.startswith("simcore ")))


def test_every_limit_is_tighter_in_demo_mode() -> None:
    for name in ("budget", "max_jobs", "max_nodes", "max_seeds", "max_sweep_values", "upload_bytes", "upload_rows"):
        assert getattr(demo.DEMO, name) < getattr(demo.LOCAL, name), name
    assert demo.DEMO.run_seconds < demo.LOCAL.run_seconds and not demo.DEMO.allow_dask
    assert demo.DEMO.wall_seconds < demo.LOCAL.wall_seconds


# --- plain text ------------------------------------------------------------------------------------


def test_md_escapes_every_punctuation_character_and_nothing_else() -> None:
    text = "![i](x.png) [x](y) <b>*_`$:red[a]:material/home: $x$"
    escaped = md(text)
    assert escaped.replace("\\", "") == text
    assert re.fullmatch(r"(\\[!-/:-@\[-`{-~]|[^!-/:-@\[-`{-~])*", escaped)  # every punctuation mark escaped
    assert md("job 42 ok") == "job 42 ok"


@pytest.mark.parametrize("text", ["see http://127.0.0.1:1/t.png", "www.a.io", "x@y.io", "`a`` http://b ``c`"])
def test_md_puts_text_that_could_autolink_in_a_code_span(text: str) -> None:
    shown = md(text)
    fence = re.match("`+", shown).group(0)
    assert shown.startswith(fence) and shown.endswith(fence) and "`" * len(fence) not in shown[len(fence) : -len(fence)]
    assert shown[len(fence) : -len(fence)].strip() == text.strip()


def test_the_hosting_doc_lists_every_limit_as_defined() -> None:
    doc = (Path(__file__).resolve().parent.parent / "docs" / "hosting.md").read_text()
    assert demo.limits_table() in doc
    assert set(demo.MEANING) == {f for f in demo.Limits.__dataclass_fields__ if f != "demo"}
