"""Pool workers that die with the process that started them.

A killed sweep (SIGKILL, an OOM kill, a closed terminal) gets no chance to stop its process pool,
and a worker in the middle of a long simulation would go on computing rows nobody will read.
:func:`die_with` is the pool's initializer: it asks Linux to kill the worker when its parent
exits (``PR_SET_PDEATHSIG``; with the forkserver start method the parent is the fork server,
which itself exits when the sweep's process is gone), and starts a watchdog thread that ends
the worker once the sweep's process has died or the worker has been re-parented: the fallback
on other systems, and on Linux a second guard. :func:`pool` starts such a pool: the sweeps' and the
study document's figures'.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context

PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>
POLL_SECONDS = 0.5
#: what the fork server imports once, so that every worker forks from it warm
PRELOAD = [
    "simcore.experiments.sweep.tasks",
    "simcore.engine",
    "simcore.analysis.metrics",
    "simcore.workload.presets",
    "simcore.experiments.workers",
]


def pool(processes: int) -> ProcessPoolExecutor:
    """A pool of at most ``processes`` workers that die with this process, even when it is killed
    (SIGKILL leaves no time to stop them)."""
    # forkserver: workers start clean (no inherited threads, e.g. tqdm's monitor); the server
    # imports the simulator once and every worker forks from it warm (0.1 s instead of ~1 s each).
    # One server serves every pool of this process: the first pool's preload is the one that counts.
    context = get_context("forkserver")
    context.set_forkserver_preload(PRELOAD)
    return ProcessPoolExecutor(max_workers=processes, mp_context=context, initializer=die_with, initargs=(os.getpid(),))


def die_with(owner_pid: int) -> None:
    """Pool initializer: end this process when ``owner_pid`` (the sweep) or its parent dies."""
    parent = os.getppid()
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent or not alive(owner_pid):  # died before the signal was armed
        os._exit(1)
    threading.Thread(target=_watch, args=(owner_pid, parent), name="die-with-owner", daemon=True).start()


def _watch(owner_pid: int, parent: int) -> None:
    while os.getppid() == parent and alive(owner_pid):
        time.sleep(POLL_SECONDS)
    os._exit(1)  # no clean-up: the work is abandoned, and the pool's queues are gone


def alive(pid: int) -> bool:
    """True while ``pid`` runs (a zombie, dead but not yet reaped, counts as dead)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return True  # no /proc (not Linux): the signal test above is all there is
