"""Decision records for the Explore page's decision view and the report, as they run in a worker
process; pure.

The dashboard's runs do not keep decision records (recording costs time and memory on every
run); when a visitor opens a preemption, the policies concerned run again on the same jobs
with ``record_decisions=True`` (:func:`simcore.engine.simulate`), which gives the same events. Such a
run also asks other policies, on every recorded view, what they would take there (``same_state``:
:func:`simcore.policies.alternatives.same_state_for`), so that a decision is explained against their
choices (:mod:`simcore.analysis.contrast`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from simcore.core.model import ClusterSpec, JobTable, SimConfig
from simcore.engine import simulate

#: a run whose decisions are recorded: its config and the policies asked on the same states
Recorded = tuple[SimConfig, tuple[str, ...]]


def records(
    table: JobTable, cluster: ClusterSpec, runs: Sequence[Recorded], progress: Callable[[float], None]
) -> list[tuple[dict[str, Any], ...]]:
    """The decision records of each run, in the order of ``runs``."""
    out = []
    for i, (config, others) in enumerate(runs):
        out.append(simulate(table, cluster, config, record_decisions=True, same_state=others).decisions)
        progress((i + 1) / len(runs))
    return out
