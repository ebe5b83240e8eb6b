"""Run one computation of a visit in a child process that can always be stopped; pure.

The server's own process never simulates: a computation runs in a child process (its own
process group, so the pool processes a sweep starts go with it) and the page waits for it in
short steps. Each step calls ``heartbeat``, which draws progress, which is where Streamlit
stops a script whose visitor reran or left; it may also raise :class:`Cancelled` itself.
Whatever ends the wait (the result, an error, the wall-clock limit, a stop), the ``finally``
kills the child's process group: nothing outlives the wait.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import time
import traceback
import types
from collections.abc import Callable
from multiprocessing import forkserver, get_context
from multiprocessing.connection import Connection
from typing import Any

from simcore.errors import UserError

POLL_SECONDS = 0.25
# The forkserver imports these once and every child forks from it warm. "__main__" is the
# server's own script (``streamlit``): imported there once, so no child imports it again.
PRELOAD = [
    "__main__",
    "simcore.engine",
    "simcore.metrics",
    "simcore.presets",
    "simcore.sweep",
    "dashboard.shared.compute",
]


class Cancelled(Exception):
    """The visitor is gone or asked for something else: the computation was stopped."""


class TimedOut(UserError):
    """The computation went past the wall-clock limit and was stopped."""


class Failed(UserError):
    """The computation ended without a result (an unexpected error, or the process died)."""


def run(
    fn: Callable[..., Any],
    args: tuple[Any, ...],
    *,
    timeout: float,
    heartbeat: Callable[[float | None], None],
) -> Any:
    """``fn(*args, progress)`` in a child process; returns its result.

    ``progress(fraction)`` in the child reaches ``heartbeat(fraction)`` here; between messages
    ``heartbeat(None)`` is called every :data:`POLL_SECONDS`. Raises :class:`TimedOut` past
    ``timeout`` seconds, :class:`Failed`, or the child's :class:`UserError` (its message)."""
    context = _context()
    receiver, sender = context.Pipe(duplex=False)
    # not a daemon: a sweep's pool needs children of its own; the finally below always ends it
    child = context.Process(target=_child_main, args=(fn, args, sender, os.getpid()), daemon=False)
    child.start()
    sender.close()
    deadline = time.monotonic() + timeout
    try:
        while True:
            if time.monotonic() > deadline:
                raise TimedOut(f"stopped after {timeout:g} s")
            if receiver.poll(POLL_SECONDS):
                try:
                    kind, payload = receiver.recv()
                except EOFError:
                    raise Failed("the computation stopped without a result") from None
                if kind == "progress":
                    heartbeat(payload)
                    continue
                if kind == "done":
                    return payload
                if kind == "user_error":
                    raise UserError(payload)
                raise Failed(f"the computation failed: {payload}")
            if not child.is_alive() and not receiver.poll(0):
                raise Failed("the computation stopped without a result (out of memory?)")
            heartbeat(None)
    finally:
        receiver.close()
        stop(child)


def _context() -> Any:
    context = get_context("forkserver")
    context.set_forkserver_preload(PRELOAD)
    return context


def start() -> None:
    """Start the forkserver now, if it is not running: it imports :data:`PRELOAD` in its own
    process, alongside the server's imports, instead of when the first computation is asked for."""
    _context()
    forkserver.ensure_running()


def stop(child: Any) -> None:
    """Kill the child and everything it started (its process group), and reap it."""
    if child.pid is None:
        return
    with contextlib.suppress(ProcessLookupError, PermissionError):  # a finished child's group may remain
        os.killpg(child.pid, signal.SIGKILL)
    if child.exitcode is None:
        child.kill()  # it may not have made its group yet
    child.join(5)


def _watch(server: int) -> None:
    """End this process group if the server process is gone (killed, crashed): no orphans."""
    while True:
        time.sleep(1.0)
        try:
            os.kill(server, 0)
        except ProcessLookupError:
            os.killpg(0, signal.SIGKILL)


def _child_main(fn: Callable[..., Any], args: tuple[Any, ...], conn: Connection, server: int) -> None:
    os.setpgrp()  # the group the parent kills: pool processes started below belong to it
    # a sweep's pool processes would import the server's main script again each: they need none
    sys.modules["__main__"] = types.ModuleType("__main__")
    threading.Thread(target=_watch, args=(server,), daemon=True).start()

    def progress(fraction: float) -> None:
        conn.send(("progress", float(fraction)))

    try:
        message: tuple[str, Any] = ("done", fn(*args, progress))
    except UserError as exc:
        message = ("user_error", str(exc))
    except MemoryError:
        message = ("error", "out of memory")
    except Exception as exc:  # reported to the parent as text: no traceback reaches a visitor
        message = ("error", f"{type(exc).__name__}: {exc}")
        traceback.print_exc()  # the server log keeps the details
    try:
        conn.send(message)
    except Exception as exc:  # the result could not be sent (it does not pickle)
        conn.send(("error", f"{type(exc).__name__}: {exc}"))
    conn.close()
