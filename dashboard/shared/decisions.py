"""Decision records for the Explore page's decision view, as they run in a worker process; pure.

The dashboard's runs do not keep decision records (recording costs time and memory on every
run); when a visitor opens a preemption, the policies concerned run again on the same jobs
with ``record_decisions=True`` (:func:`simcore.engine.simulate`), which gives the same events.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from simcore.engine import simulate
from simcore.model import ClusterSpec, JobTable, SimConfig


def records(
    table: JobTable, cluster: ClusterSpec, configs: Sequence[SimConfig], progress: Callable[[float], None]
) -> list[tuple[dict[str, Any], ...]]:
    """The decision records of each config's run, in the order of ``configs``."""
    out = []
    for i, config in enumerate(configs):
        out.append(simulate(table, cluster, config, record_decisions=True).decisions)
        progress((i + 1) / len(configs))
    return out
