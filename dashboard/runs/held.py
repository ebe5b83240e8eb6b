"""What a page leaves behind for later (a deferred download, a button's callback): weak references
to its runs, never the runs themselves.

The runs live in the shared store (:mod:`dashboard.runs.store`), counted against ``cache_mb``. A
callable or a callback argument that held a run would keep it in memory for as long as the
visitor's page shows, past the store's cap and unseen by it: with a few visitors on distinct
large scenarios, that is most of the server's memory. So a page hands them weak references; once
the store has dropped a run (and no page is being drawn with it), a download says so instead of
keeping it alive.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Mapping

from dashboard.runs.compute import Run

#: What a download holds when its runs have left the server's memory since the page was drawn.
EXPIRED = (
    "These results are no longer in the server's memory (the results every visitor shares are capped, "
    "oldest first out). Reload the page to compute them again, then download."
)


def weak(runs: Mapping[str, Run]) -> Callable[[], dict[str, Run] | None]:
    """A getter of ``runs`` (label -> run) that does not keep them alive: None once any is gone."""
    refs = {label: weakref.ref(run) for label, run in runs.items()}

    def get() -> dict[str, Run] | None:
        out: dict[str, Run] = {}
        for label, ref in refs.items():
            run = ref()
            if run is None:
                return None
            out[label] = run
        return out

    return get


def deferred(runs: Mapping[str, Run], make: Callable[[dict[str, Run]], str | bytes]) -> Callable[[], str | bytes]:
    """A deferred download's callable: ``make(runs)``, or :data:`EXPIRED` once the runs are gone.
    ``make`` must not itself hold a run (a module-level function, or a closure over small values)."""
    get = weak(runs)

    def data() -> str | bytes:
        found = get()
        return EXPIRED if found is None else make(found)

    return data
