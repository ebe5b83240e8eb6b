"""Decision records for the Explore page's decision view, as they run in a worker process; pure.

The dashboard's runs do not keep decision records (recording costs time and memory on every
run); when a visitor opens a preemption, the policies concerned run again on the same jobs
with ``record_decisions=True`` (:func:`simcore.engine.simulate`), which gives the same events; a run
may also ask another policy, on every recorded view, what it would take there (``same_state``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from simcore.core.model import ClusterSpec, JobTable, SimConfig
from simcore.engine import simulate

#: a run whose decisions are recorded: its config and the policy asked on the same states (or None)
Recorded = tuple[SimConfig, str | None]


def records(
    table: JobTable, cluster: ClusterSpec, runs: Sequence[Recorded], progress: Callable[[float], None]
) -> list[tuple[dict[str, Any], ...]]:
    """The decision records of each run, in the order of ``runs``."""
    out = []
    for i, (config, other) in enumerate(runs):
        out.append(simulate(table, cluster, config, record_decisions=True, same_state=other).decisions)
        progress((i + 1) / len(runs))
    return out
