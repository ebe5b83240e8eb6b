"""A server-wide cap on pages drawing their charts at once (``max_drawing``, docs/hosting.md).

Drawing a tab of a large comparison builds frames and figures the size of its runs; results
from the shared store are drawn without any computation, so a class opening one shared link
would otherwise draw them all at once, each visitor's figures in memory together. The Explore
page draws its open tab inside :meth:`Places.turn`: at most ``capacity`` pages draw at a time, the
others wait a moment. A page that needs a computation while drawing (a tab's what-if) gives its
place back while it waits in line and computes (:func:`page_released`, used by
:func:`dashboard.runs.data.fetch`), so a place is held only while a page builds its figures.
The one :class:`Places` of a server is ``dashboard.runs.data.drawing_places`` (``st.cache_resource``).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager

import streamlit as st
from streamlit.runtime import Runtime
from streamlit.runtime.scriptrunner import get_script_run_ctx

from dashboard.runs.worker import POLL_SECONDS


class Places:
    """``capacity`` drawing places shared by every visitor's script thread."""

    def __init__(self, capacity: int) -> None:
        self._free = threading.BoundedSemaphore(capacity)
        self._mine = threading.local()  # does this script thread hold a place?

    @contextmanager
    def turn(self, poll: float, waiting: Callable[[], None]) -> Iterator[None]:
        """Hold a place for the body of the ``with``; ``waiting()`` is called every ``poll``
        seconds while the page waits for one (it may raise to give up)."""
        self._take(poll, waiting)
        try:
            yield
        finally:
            self._give()

    @contextmanager
    def released(self, poll: float, waiting: Callable[[], None]) -> Iterator[None]:
        """Give this thread's place (if it holds one) back for the body, then take one again."""
        if not getattr(self._mine, "held", False):
            yield
            return
        self._give()
        try:
            yield
        finally:
            self._take(poll, waiting)

    @property
    def held(self) -> bool:
        return bool(getattr(self._mine, "held", False))

    def _take(self, poll: float, waiting: Callable[[], None]) -> None:
        while not self._free.acquire(timeout=poll):
            waiting()
        self._mine.held = True

    def _give(self) -> None:
        if self.held:  # not when taking it back was given up
            self._mine.held = False
            self._free.release()


def visitor_present() -> bool:
    """False once the visitor's browser session is gone (closed tab): stop working for it."""
    ctx = get_script_run_ctx(suppress_warning=True)
    if ctx is None or not Runtime.exists():
        return True
    return Runtime.instance().is_active_session(ctx.session_id)


def _stop_if_gone() -> None:
    if not visitor_present():
        st.stop()


def page_turn(places: Places) -> AbstractContextManager[None]:
    """The page's body drawn in one of ``places`` (``dashboard.runs.data.drawing_places``)."""
    return places.turn(POLL_SECONDS, _stop_if_gone)


def page_released(places: Places) -> AbstractContextManager[None]:
    """The page's drawing place (if it holds one) given back for the body of the ``with``."""
    return places.released(POLL_SECONDS, _stop_if_gone)
