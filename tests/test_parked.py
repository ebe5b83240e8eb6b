"""A page waiting in line for a computation beside its comparison (a what-if) holds no result while it
waits (dashboard/runs/parked.py, issue 16's gap in docs/hosting.md "Memory at the caps"): it parks
the question, lets its comparison go, and is served in turn. Every wait is on a condition."""

from __future__ import annotations

import gc
import os
import threading
import weakref
from collections.abc import Iterator
from dataclasses import replace

import pytest
from helpers import HANG_SECONDS, wait_until
from helpers.paths import APP
from streamlit.testing.v1 import AppTest

from dashboard.runs import compute, data
from dashboard.runs.slots import ComputeSlots
from dashboard.shared import demo, keys
from simcore.core.errors import UserError


class Filler:
    """A stored value that takes the whole store (weakly referable, like a run)."""


@pytest.fixture
def one_slot(monkeypatch: pytest.MonkeyPatch) -> Iterator[ComputeSlots]:
    """The local limits with one computation at a time, a fresh store and line."""
    monkeypatch.delenv(demo.ENV_VAR, raising=False)
    monkeypatch.setattr(demo, "LOCAL", replace(demo.LOCAL, max_computations=1, max_waiting=5))
    data._shared_slots.clear()
    data._shared_store.clear()
    yield data._slots()
    data._shared_slots.clear()
    data._shared_store.clear()


def test_a_page_waiting_in_line_for_a_what_if_holds_no_result_and_is_served_in_turn(one_slot: ComputeSlots) -> None:
    seed = 800_000 + os.getpid() % 100_000  # a scenario no other test has stored
    at = AppTest.from_file(APP, default_timeout=HANG_SECONDS)
    at.query_params.update({"source": "generate", "g.jobs": "60", "seed": str(seed), "policies": "fifo,fitgpp"})
    at.run()
    assert not at.exception
    store = data._store()
    runs = [weakref.ref(v) for v in store.values() if isinstance(v, compute.Run) and len(v.jobs) == 60]
    assert len(runs) == 2  # the comparison, in the store (beside the default scenario's runs, warmed)
    busy = one_slot.enter()  # another visitor's computation holds the only slot
    at.session_state[keys.TAB.name] = "One job"  # the tab opens on a job's story: a what-if, not stored yet
    page = threading.Thread(target=at.run)
    page.start()
    wait_until(lambda: one_slot.waiting == 1, "the page to wait in line for the job's story")
    # the store drops everything it holds meanwhile (least recently used first), the comparison too
    store.put("filler", Filler(), store.max_bytes)
    gc.collect()
    assert [r() for r in runs] == [None, None]  # nothing keeps it: the waiting page holds only its question
    assert store.elsewhere() < 20_000 and one_slot.waiting == 1  # and its workload of 60 jobs, no run
    one_slot.leave(busy)  # the slot frees: the page is served, computes its comparison again and draws
    page.join(HANG_SECONDS)
    assert not page.is_alive() and not at.exception
    assert any(m.value == "**Its story**" for m in at.markdown)
    assert not at.error and (one_slot.running, one_slot.waiting) == (0, 0)


def no_story(table: object, cluster: object, config: object, job_id: str) -> None:
    """Stands in for ``compute.job_panel`` (importable by the worker): a question that fails."""
    raise UserError(f"no story for job {job_id} here")


def test_a_parked_question_that_fails_is_shown_once_by_the_page_that_asked(
    one_slot: ComputeSlots, monkeypatch: pytest.MonkeyPatch
) -> None:
    seed = 900_000 + os.getpid() % 100_000
    at = AppTest.from_file(APP, default_timeout=HANG_SECONDS)
    at.query_params.update({"source": "generate", "g.jobs": "40", "seed": str(seed), "policies": "fifo"})
    at.run()
    monkeypatch.setattr(compute, "job_panel", no_story)
    busy = one_slot.enter()
    at.session_state[keys.TAB.name] = "One job"
    page = threading.Thread(target=at.run)
    page.start()
    wait_until(lambda: one_slot.waiting == 1, "the page to wait in line for the job's story")
    one_slot.leave(busy)
    page.join(HANG_SECONDS)
    assert not page.is_alive() and not at.exception  # served once, not parked again and again
    assert [e.value.startswith("no story for job") for e in at.error] == [True]
    assert keys.PARKED.name not in at.session_state and (one_slot.running, one_slot.waiting) == (0, 0)
