"""The default Explore scenario warmed at start-up: its runs computed in a background thread, as a
visitor's computation would be (claimed in the shared store, in a computation slot, in a worker
process), so the first visitor finds them there or waits for them rather than computing them again.

Streamlit runs no app code before a first visitor: :func:`dashboard.shared.data.warm_default`
(cached once per server process) starts this at the first script run of any page.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Hashable
from typing import Any

from dashboard.shared import compute, slots, worker
from dashboard.shared.store import BoundedStore, deep_size


def start(
    keys: tuple[Hashable, ...],
    args: tuple[Any, ...],
    store: BoundedStore,
    line: slots.ComputeSlots,
    run_seconds: float,
) -> threading.Thread:
    """A daemon thread computing ``compute.comparison(*args)`` into ``store`` under ``keys``."""
    thread = threading.Thread(
        target=warm, args=(keys, args, store, line, run_seconds), name="warm-default", daemon=True
    )
    thread.start()
    return thread


def warm(
    keys: tuple[Hashable, ...],
    args: tuple[Any, ...],
    store: BoundedStore,
    line: slots.ComputeSlots,
    run_seconds: float,
) -> None:
    """The runs of ``keys`` computed and stored, unless they are there already or a visitor is
    computing them (a visitor asking meanwhile waits for this computation instead)."""
    if all(store.get(k) is not None for k in keys) or store.claim(keys) is not None:
        return
    try:
        with slots.turn(line, lambda _place: None, worker.POLL_SECONDS) as ticket:
            values = worker.run(
                compute.comparison, args, timeout=run_seconds, heartbeat=lambda _fraction: line.touch(ticket)
            )
        for key, value in zip(keys, values, strict=True):
            store.put(key, value, deep_size(value))
    except Exception:  # a warm-up that fails costs nothing: the first visitor computes the runs
        logging.getLogger(__name__).exception("warming the default scenario failed")
    finally:
        store.release(keys)
