"""Waiting on a condition, never on the clock: poll until it holds, with a deadline that only
bounds a hang (a loaded machine waits longer, it never fails a test by being slow)."""

from __future__ import annotations

import time
from collections.abc import Callable

HANG_SECONDS = 300.0  # a deadline that only bounds a hang, never the machine's speed


def wait_until(condition: Callable[[], bool], what: str, seconds: float = HANG_SECONDS) -> None:
    """Return once ``condition()`` holds; fail naming ``what`` if it never does within ``seconds``."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"still waiting for {what}"
        time.sleep(0.02)  # the polling interval
