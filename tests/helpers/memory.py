"""Peak memory allocated by a block of code (tracemalloc, which numpy reports to): a
machine-independent stand-in for "refused before any work" where a wall-clock bound would
depend on the machine's speed and load."""

from __future__ import annotations

import contextlib
import tracemalloc
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from dashboard.runs import compute
from dashboard.shared.scenario import Scenario
from simcore.workload import presets

#: jobs of the small comparison the memory tests measure
SMALL_JOBS = 2000


@dataclass
class Peak:
    mb: float = 0.0


@contextlib.contextmanager
def allocation_peak() -> Iterator[Peak]:
    """Yields a Peak whose ``mb`` is set, on exit, to the most memory allocated at once inside
    the block (in MB, above what was allocated on entry)."""
    peak = Peak()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    try:
        yield peak
    finally:
        peak.mb = (tracemalloc.get_traced_memory()[1] - base) / 1e6
        tracemalloc.stop()


def small_comparison(policies: tuple[str, ...]) -> list[Any]:
    """The runs of ``policies`` on a generated workload of :data:`SMALL_JOBS` jobs (demo preset)."""
    scenario = Scenario(source="generate", gen=(("jobs", str(SMALL_JOBS)),), policies=policies)
    gen = presets.generate(scenario.preset, 2000, dict(scenario.gen))
    configs = [scenario.config(p) for p in policies]
    return list(compute.comparison(gen.table, gen.cluster, configs, (), lambda _: None))
