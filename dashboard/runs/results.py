"""What the data layer (:mod:`dashboard.runs.data`) hands the pages: a workload ready to run, every
policy of a scenario run on it, and the pooled bound beside them. Plain frozen values."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from dashboard.runs.compute import Run
from simcore.core.model import ClusterSpec, JobTable


@dataclass(frozen=True, eq=False)
class Workload:
    """Jobs ready to simulate, the cluster they come with (if any) and what to tell the user."""

    table: JobTable
    cluster: ClusterSpec | None
    label: str
    notes: tuple[str, ...]
    key: str  # content hash of the jobs


@dataclass(frozen=True, eq=False)
class Comparison:
    """Every policy of a scenario on its workload(s): full runs for the first seed, summaries
    for all seeds (the trio's spread)."""

    workload: Workload
    cluster: ClusterSpec
    runs: dict[str, Run]
    seed_summaries: list[dict[str, dict[str, Any]]]  # per seed: policy -> nested summary (its unschedulable ids)
    seed_flats: list[dict[str, dict[str, Any]]]  # per seed: policy -> flat record, what the tables and charts read
    seeds: list[int]


@dataclass(frozen=True, eq=False)
class Bound:
    """The pooled bound beside a comparison: a full run on the first seed's workload, a summary per seed."""

    run: Run
    seed_flats: list[dict[str, Any]]  # per seed: the flat record (simcore.analysis.metrics.flat_summary)
