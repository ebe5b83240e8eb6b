"""Counting the computations a page starts: every call of the worker path
(:func:`dashboard.runs.worker.run_within`) recorded as (its function, its arguments), under the
local limits, with a fresh shared store and line before and after."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest

from dashboard.runs import data, worker
from dashboard.shared import demo

Started = list[tuple[Any, tuple[Any, ...]]]


def counted(monkeypatch: pytest.MonkeyPatch, **limits: Any) -> Iterator[Started]:
    """For a fixture: yields the list the computations started are appended to; ``limits`` change
    the local limits (``max_computations=1``...)."""
    monkeypatch.delenv(demo.ENV_VAR, raising=False)
    monkeypatch.setattr(demo, "LOCAL", replace(demo.LOCAL, **limits))
    data._shared_slots.clear()
    data._shared_store.clear()
    seen: Started = []
    real = worker.run_within

    def run_within(lim: demo.Limits, fn: Any, args: tuple[Any, ...], heartbeat: Any) -> Any:
        seen.append((fn, args))
        return real(lim, fn, args, heartbeat)

    monkeypatch.setattr(worker, "run_within", run_within)
    yield seen
    data._shared_slots.clear()
    data._shared_store.clear()
