"""Run one computation of a visit in a child process that can always be stopped; pure.

The server's own process never simulates: a computation runs in a child process (its own
process group, so the pool processes a sweep starts go with it) and the page waits for it in
short steps. Each step calls ``heartbeat``, which draws progress, which is where Streamlit
stops a script whose visitor reran or left; it may also raise :class:`Cancelled` itself.
Whatever ends the wait (the result, an error, the CPU-time, wall-clock or memory limit, a stop), the
``finally`` kills the child's process group: nothing outlives the wait.

A computation yields its values one by one and each crosses the pipe as a message of its own, as
soon as it is made: neither process ever holds the whole result pickled, and a computation that
yields as it goes (:func:`dashboard.runs.compute.comparison`) keeps none of what it sent.
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
from collections.abc import Callable, Iterable
from multiprocessing import forkserver, get_context
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from dashboard.shared.demo import Limits
from simcore.core.errors import UserError

POLL_SECONDS = 0.25
# The forkserver imports these once and every child forks from it warm. "__main__" is the
# server's own script (``streamlit``): imported there once, so no child imports it again.
PRELOAD = [
    "__main__",
    "simcore.engine",
    "simcore.analysis.metrics",
    "simcore.workload.presets",
    "simcore.experiments.sweep",
    "dashboard.runs.compute",
]


class Cancelled(Exception):
    """The visitor is gone or asked for something else: the computation was stopped."""


class TimedOut(UserError):
    """The computation went past its CPU-time limit (``wall`` False) or its wall-clock limit and was stopped."""

    def __init__(self, message: str, *, wall: bool) -> None:
        super().__init__(message)
        self.wall = wall


class OutOfMemory(UserError):
    """The computation's worker went past its memory limit and was stopped."""


class Failed(UserError):
    """The computation ended without a result (an unexpected error, or the process died)."""


def run(
    fn: Callable[..., Iterable[Any]],
    args: tuple[Any, ...],
    *,
    timeout: float,
    heartbeat: Callable[[float | None], None],
    memory_mb: float = 0,
    cpu_seconds: float = 0,
) -> Any:
    """``fn(*args, progress)`` in a child process; returns the values it yields (or the list it
    returns), in order.

    ``progress(fraction)`` in the child reaches ``heartbeat(fraction)`` here; between messages
    ``heartbeat(None)`` is called every :data:`POLL_SECONDS`. Raises :class:`TimedOut` past
    ``timeout`` seconds of wall-clock time or once the child has used ``cpu_seconds`` of CPU time
    (0: no such limit; read at every step, so a busy machine makes a computation slower, not
    stopped sooner), :class:`OutOfMemory` once the child's resident memory, read at every
    step, is past ``memory_mb`` (0: no limit), :class:`Failed`, or the child's :class:`UserError`
    (its message)."""
    context = _context()
    receiver, sender = context.Pipe(duplex=False)
    # not a daemon: a sweep's pool needs children of its own; the finally below always ends it
    child = context.Process(target=_child_main, args=(fn, args, sender, os.getpid()), daemon=False)
    child.start()
    sender.close()
    deadline = time.monotonic() + timeout
    values: list[Any] = []
    try:
        while True:
            if time.monotonic() > deadline:
                raise TimedOut(f"stopped after {timeout:g} s", wall=True)
            if cpu_seconds and cpu_time(child.pid) > cpu_seconds:
                raise TimedOut(f"stopped after {cpu_seconds:g} s of CPU time", wall=False)
            if memory_mb and resident_mb(child.pid) > memory_mb:
                raise OutOfMemory(
                    f"stopped: it needed more than {memory_mb:,g} MB of memory, the most one computation may use here"
                )
            if receiver.poll(POLL_SECONDS):
                try:
                    kind, payload = receiver.recv()
                except EOFError:
                    raise Failed("the computation stopped without a result") from None
                if kind == "progress":
                    heartbeat(payload)
                    continue
                if kind == "value":
                    values.append(payload)
                    continue
                if kind == "done":
                    return values
                if kind == "user_error":
                    raise UserError(payload)
                raise Failed(f"the computation failed: {payload}")
            if not child.is_alive() and not receiver.poll(0):
                raise Failed("the computation stopped without a result (out of memory?)")
            heartbeat(None)
    finally:
        receiver.close()
        stop(child)


def run_within(
    lim: Limits, fn: Callable[..., Iterable[Any]], args: tuple[Any, ...], heartbeat: Callable[[float | None], None]
) -> Any:
    """:func:`run` under the limits ``lim``: ``run_seconds`` of CPU time, ``wall_seconds``, ``worker_mb``."""
    return run(
        fn, args, timeout=lim.wall_seconds, cpu_seconds=lim.run_seconds, heartbeat=heartbeat, memory_mb=lim.worker_mb
    )


def resident_mb(pid: int | None) -> float:
    """Resident memory of process ``pid`` in MB (Linux's /proc; 0 when it cannot be read)."""
    try:
        pages = int(Path(f"/proc/{pid}/statm").read_text().split()[1])
    except (OSError, ValueError, IndexError):
        return 0.0
    return pages * os.sysconf("SC_PAGE_SIZE") / 1e6


def cpu_time(pid: int | None) -> float:
    """CPU seconds process ``pid`` has used (user and system, its reaped children's included;
    Linux's /proc; 0 when it cannot be read)."""
    try:
        # the fields after the command's closing parenthesis: utime is the 12th, then stime, cutime, cstime
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
        ticks = sum(int(f) for f in fields[11:15])
    except (OSError, ValueError, IndexError):
        return 0.0
    return ticks / os.sysconf("SC_CLK_TCK")


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


def _child_main(fn: Callable[..., Iterable[Any]], args: tuple[Any, ...], conn: Connection, server: int) -> None:
    os.setpgrp()  # the group the parent kills: pool processes started below belong to it
    # a sweep's pool processes would import the server's main script again each: they need none
    sys.modules["__main__"] = types.ModuleType("__main__")
    threading.Thread(target=_watch, args=(server,), daemon=True).start()

    def progress(fraction: float) -> None:
        conn.send(("progress", float(fraction)))

    message: tuple[str, Any] = ("done", None)
    try:
        for value in fn(*args, progress):
            conn.send(("value", value))
            del value  # not kept while the next one is computed
    except UserError as exc:
        message = ("user_error", str(exc))
    except MemoryError:
        message = ("error", "out of memory")
    except Exception as exc:  # as text (a value that does not pickle too): no traceback reaches a visitor
        message = ("error", f"{type(exc).__name__}: {exc}")
        traceback.print_exc()  # the server log keeps the details
    conn.send(message)
    conn.close()
