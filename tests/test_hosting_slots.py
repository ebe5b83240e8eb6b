"""The server-wide cap on simultaneous computations (issue 16): the line of
:mod:`dashboard.runs.slots` on its own, then driven through the real worker path
(``data._compute``) with the cap at 1 and 2, and the time limit's stop path end to end.

Every wait here is on a condition (a file written, a count reached) with a generous deadline
that only bounds a hang; nothing assumes how fast the machine is."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import psutil
import pytest
from helpers import HANG_SECONDS, wait_until
from helpers.paths import APP
from streamlit.testing.v1 import AppTest

from dashboard.runs import budget, compute, data, worker
from dashboard.runs.slots import ComputeSlots, Full, turn
from dashboard.runs.store import deep_size
from dashboard.shared import demo, notices

# --- functions the worker runs (importable by the child process) ------------------------------


def hold(started: str, gate: str, progress: object) -> list[str]:
    """Note that this computation runs, then run until the test opens ``gate``."""
    Path(started).write_text(str(os.getpid()))
    wait_until(lambda: Path(gate).exists(), "the test to open the gate")  # the child waits on the test's condition
    return [gate]


def _grandchild_file(seed: int) -> Path:
    return Path(tempfile.gettempdir()) / f"simcore-slow-{seed}.pids"


def slow_comparison(table: Any, cluster: Any, configs: Any, extra: Any, progress: object) -> None:
    """Stands in for ``compute.comparison``: starts a grandchild (as a sweep's pool would),
    writes both pids, and outlives any time limit."""
    grandchild = subprocess.Popen([sys.executable, "-c", "import threading; threading.Event().wait(600)"])
    path = _grandchild_file(configs[0].seed)
    Path(f"{path}.tmp").write_text(f"{os.getpid()} {grandchild.pid}")
    os.replace(f"{path}.tmp", path)  # whole or absent
    threading.Event().wait(600)  # nothing sets it: only the time limit's stop ends this process


def _gone(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


# --- the line on its own ----------------------------------------------------------------------


def test_the_line_is_served_in_order_of_arrival_and_refuses_past_its_length() -> None:
    line = ComputeSlots(capacity=1, max_waiting=3)
    a, b, c, d = (line.enter() for _ in range(4))
    assert [line.place(t) for t in (a, b, c, d)] == [0, 1, 2, 3]
    with pytest.raises(Full):
        line.enter()
    line.leave(a)  # a finished: b runs, the others move up
    assert [line.place(t) for t in (b, c, d)] == [0, 1, 2]
    line.leave(c)  # c gave up waiting: d moves up, b keeps its slot
    assert [line.place(t) for t in (b, d)] == [0, 1]
    e = line.enter()
    assert line.place(e) == 2 and (line.running, line.waiting) == (1, 2)


def test_with_two_slots_two_run_and_a_newcomer_never_overtakes_the_line() -> None:
    line = ComputeSlots(capacity=2, max_waiting=2)
    a, b, c = line.enter(), line.enter(), line.enter()
    assert [line.place(t) for t in (a, b, c)] == [0, 0, 1]
    line.leave(a)
    d = line.enter()
    assert [line.place(t) for t in (c, d)] == [0, 1]  # c first: it came first


def test_zero_places_in_line_means_a_free_slot_or_a_refusal() -> None:
    line = ComputeSlots(capacity=1, max_waiting=0)
    line.enter()
    with pytest.raises(Full):
        line.enter()


def test_a_turn_gives_its_slot_back_when_it_finishes_or_fails() -> None:
    line = ComputeSlots(capacity=1, max_waiting=1)
    with turn(line, _cancel, 0.01):
        assert line.running == 1
    assert (line.running, line.waiting) == (0, 0)
    with pytest.raises(RuntimeError), turn(line, _cancel, 0.01):
        raise RuntimeError("the computation failed")
    assert (line.running, line.waiting) == (0, 0)


def test_a_visitor_who_leaves_the_line_gives_its_place_back() -> None:
    line = ComputeSlots(capacity=1, max_waiting=1)
    holder = line.enter()
    with pytest.raises(worker.Cancelled), turn(line, _cancel, 0.01):
        pytest.fail("it never had a slot")
    assert (line.running, line.waiting) == (1, 0) and line.place(holder) == 0


def _cancel(place: int) -> None:
    raise worker.Cancelled  # what the page's heartbeat raises once the visitor has gone


def test_abandoned_tickets_lose_their_slot_and_their_place() -> None:
    now = [0.0]
    line = ComputeSlots(capacity=1, max_waiting=2, stale_after=60, clock=lambda: now[0])
    gone_running, gone_waiting, alive = line.enter(), line.enter(), line.enter()
    now[0] = 50
    assert line.wait(alive, 0) == 2
    now[0] = 70  # the first two were last touched 70 s ago, alive 20 s ago
    assert line.wait(alive, 0) == 0  # both abandoned tickets dropped: alive runs
    assert (line.running, line.waiting) == (1, 0)
    assert line.wait(gone_waiting, 0) == 1  # its holder came back: the end of the line
    line.touch(alive)
    now[0] = 125  # alive touched at 70; gone_waiting at 70: neither stale yet
    assert (line.place(alive), line.place(gone_waiting)) == (0, 1)
    assert line.place(gone_running) == -1  # not in line any more


def test_the_waiting_notice_names_the_place_the_limits_in_words_and_the_wait_to_expect() -> None:
    text = notices.line_text(3, 2, demo.DEMO, expected=90.0)
    assert "number 3 in line (2 visitors ahead of you)" in text
    assert "This demo runs 2 computations at once, each stopped after 60 s of CPU time or 10.0 min in all" in text
    # 3rd in line with 2 slots: its turn comes when 2 slots have freed, each within 10 min
    assert "Expected wait: about 90 s, from how long the last computations took here (at most 20.0 min)." in text
    assert "1 visitor ahead of you" in notices.line_text(2, 2, demo.DEMO)  # one visitor, not "1 visitors"
    first = notices.line_text(1, 1, demo.DEMO)
    assert "nobody is ahead of you" in first and "No computation has ended here yet" in first
    assert "at most 10.0 min" in first
    # no limit's code name reaches a visitor (docs/hosting.md names them; the page says them in words)
    for name in demo.MEANING:
        assert name not in text and name not in first


def test_the_expected_wait_is_the_turn_times_the_median_of_the_last_computations() -> None:
    now = [0.0]
    line = ComputeSlots(capacity=2, max_waiting=5, clock=lambda: now[0])
    assert line.expected_wait(1) is None  # nothing has ended yet: nothing to go by
    for took in (10.0, 30.0, 20.0):  # three computations, one after the other
        ticket = line.enter()
        now[0] += took
        line.leave(ticket)
    waiting = line.enter()  # got a slot at once: leaving it waiting in line is not counted
    line.leave(waiting)
    # the median of 10, 30, 20 and 0 s is 15 s; the 3rd in line waits for 2 turns of 2 slots
    assert line.expected_wait(1) == 15.0 and line.expected_wait(2) == 15.0 and line.expected_wait(3) == 30.0


def test_the_store_counts_the_memory_a_value_holds_not_its_pickle() -> None:
    ids = np.array([f"job-{i}" for i in range(1000)], dtype=object)  # as a JobTable holds its ids
    assert deep_size(ids) == sys.getsizeof(ids) + sum(sys.getsizeof(i) for i in ids)
    assert deep_size(ids) > 2 * len(pickle.dumps(ids))  # one small object per id against a few bytes
    frame = pd.DataFrame({"job_id": ids, "x": np.zeros(1000)})
    assert deep_size(frame) == int(frame.memory_usage(index=True, deep=True).sum())
    assert deep_size([frame, frame]) == sys.getsizeof([frame, frame]) + deep_size(frame)  # each object once
    assert deep_size(np.zeros(1000)) == sys.getsizeof(np.zeros(1000)) >= 8000


# --- through the real worker path --------------------------------------------------------------


@pytest.fixture
def capped(monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> Iterator[ComputeSlots]:
    """The local limits with ``max_computations`` = the test's parameter and one place in line."""
    monkeypatch.delenv(demo.ENV_VAR, raising=False)
    monkeypatch.setattr(demo, "LOCAL", replace(demo.LOCAL, max_computations=request.param, max_waiting=1))
    data._shared_slots.clear()
    yield data._slots()
    data._shared_slots.clear()


@pytest.mark.parametrize("capped", [1, 2], indirect=True, ids=["cap1", "cap2"])
def test_concurrent_computations_wait_their_turn_on_the_real_worker_path(capped: ComputeSlots, tmp_path: Path) -> None:
    cap = capped.capacity
    results: dict[int, object] = {}
    errors: list[BaseException] = []

    def visit(i: int) -> None:
        try:
            fn_args = (str(tmp_path / f"started{i}"), str(tmp_path / f"gate{i}"))
            results[i] = data._compute((("test-slot", str(tmp_path), i),), hold, fn_args, lambda _: None, "simcore x")
        except BaseException as exc:  # reported by the main thread
            errors.append(exc)

    threads = [threading.Thread(target=visit, args=(i,)) for i in range(cap + 1)]
    for i, thread in enumerate(threads[:cap]):
        thread.start()
        wait_until((tmp_path / f"started{i}").exists, f"computation {i} to start")
    threads[cap].start()  # one more: waits in line
    wait_until(lambda: capped.waiting == 1, "the newcomer to wait in line")
    with pytest.raises(budget.Refused) as info:  # the line is full: told at once, naming the limit
        data._compute((("test-slot", str(tmp_path), 99),), hold, ("x", "y"), lambda _: None, "simcore x")
    assert "as many as the dashboard lets wait (1)" in str(info.value) and "simcore x" in str(info.value)
    assert not (tmp_path / f"started{cap}").exists() and capped.running == cap  # the cap holds
    (tmp_path / "gate0").touch()  # the first computation ends: the one in line starts
    wait_until((tmp_path / f"started{cap}").exists, "the waiting computation to start")
    for i in range(1, cap + 1):
        (tmp_path / f"gate{i}").touch()
    for thread in threads:
        thread.join(HANG_SECONDS)
    assert errors == []
    assert results == {i: [str(tmp_path / f"gate{i}")] for i in range(cap + 1)}
    assert (capped.running, capped.waiting) == (0, 0)


@pytest.mark.parametrize("capped", [1], indirect=True, ids=["cap1"])
def test_a_stopped_or_failed_computation_gives_its_slot_to_the_next(capped: ComputeSlots, tmp_path: Path) -> None:
    def leave(_: float | None) -> None:
        if (tmp_path / "started").exists():
            raise worker.Cancelled  # the visitor left while its computation ran

    with pytest.raises(worker.Cancelled):
        data._compute((("test-slot", "cancel", str(tmp_path)),), hold, (str(tmp_path / "started"), "never"), leave, "")
    assert capped.running == 0
    with pytest.raises(worker.Failed):  # a computation that fails: the slot is free again
        data._compute((("test-slot", "fail", str(tmp_path)),), hold, (None, None), lambda _: None, "")
    assert (capped.running, capped.waiting) == (0, 0)


# --- the time limit's stop path ---------------------------------------------------------------


def test_a_computation_past_the_time_limit_is_stopped_with_its_grandchildren_and_the_page_says_so(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seed = 700_000 + os.getpid() % 100_000  # a scenario no other test has stored
    pids_file = _grandchild_file(seed)
    pids_file.unlink(missing_ok=True)
    monkeypatch.setenv(demo.ENV_VAR, "1")
    # the stand-in waits without using CPU time: the wall-clock limit is the one that stops it
    monkeypatch.setattr(demo, "DEMO", replace(demo.DEMO, wall_seconds=1.0))
    monkeypatch.setattr(compute, "comparison", slow_comparison)
    real_run = worker.run

    def run_once_started(fn: Any, args: Any, *, heartbeat: Callable[[float | None], None], **limits: Any) -> Any:
        def beat(fraction: float | None) -> None:
            # on a loaded machine the worker may need longer than the limit to start its
            # grandchild: the stop path is only tested once there is one to stop
            wait_until(pids_file.exists, "the worker to start its grandchild")
            heartbeat(fraction)

        return real_run(fn, args, heartbeat=beat, **limits)

    monkeypatch.setattr(worker, "run", run_once_started)
    at = AppTest.from_file(APP, default_timeout=HANG_SECONDS)
    at.query_params.update({"source": "generate", "g.jobs": "50", "seed": str(seed), "policies": "fifo"})
    at.run()
    assert not at.exception
    message = at.error[0].value.replace("\\", "")
    assert "took longer than 1 s, the longest this demo lets a computation last" in message and "stopped" in message
    assert any(c.value.startswith("simcore generate") for c in at.code)  # the command to run it locally
    child, grandchild = map(int, pids_file.read_text().split())
    pids_file.unlink()
    wait_until(lambda: _gone(child) and _gone(grandchild), "the worker and its grandchild to be killed")
    assert (data._slots().running, data._slots().waiting) == (0, 0)
