"""What a report shows, computed from the workload in one process: the policies' runs, the decision
records of the preemptive ones, and the HTML built from them (:mod:`dashboard.report.builder`); pure.

``simcore report`` calls it in its own process (:mod:`dashboard.report.cli`). The Explore page's
button sends it to a worker process (:mod:`dashboard.runs.worker`) like every other computation:
in line, under ``run_seconds``, ``wall_seconds`` and ``worker_mb``, counted in the budget
(:func:`simulations`), never in the server's own process (issue 31). The worker simulates the runs
again rather than receiving the page's: sending them would pickle a whole comparison at once in
the server, which the demo's memory budget never allows (docs/hosting.md).
"""

from __future__ import annotations

import hashlib
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dashboard.report.builder import ReportInput, build_report
from dashboard.runs import compute
from dashboard.runs.compute import Progress, Run
from dashboard.shared import decisions
from simcore.core.model import ClusterSpec, JobTable, SimConfig
from simcore.policies import POLICIES
from simcore.policies.alternatives import same_state_for
from simcore.workload import write_workload

Records = tuple[dict[str, Any], ...]


def preemptive(configs: Mapping[str, SimConfig]) -> list[str]:
    """The labels of the policies whose decisions the report writes out."""
    return [label for label, config in configs.items() if POLICIES[config.policy].preemptive]


def simulations(configs: Mapping[str, SimConfig]) -> int:
    """Simulations a report runs, which the budget counts: a run per policy, then one more per
    preemptive policy for its decision records."""
    return len(configs) + len(preemptive(configs))


def runs_and_records(
    jobs: JobTable, cluster: ClusterSpec, configs: Mapping[str, SimConfig], progress: Progress
) -> tuple[dict[str, Run], dict[str, Records]]:
    """The full run of each policy (label -> :class:`~dashboard.runs.compute.Run`, as the Explore page
    computes it) and the decision records of the preemptive ones, in the order of ``configs``, each
    asked of the other policies on the same states (the log tells each decision by contrast)."""
    labels, recorded = list(configs), preemptive(configs)
    steps = simulations(configs)
    made = compute.comparison(jobs, cluster, list(configs.values()), (), lambda f: progress(f * len(labels) / steps))
    runs = dict(zip(labels, made, strict=True))
    names = [configs[p].policy for p in recorded]  # each decision told against k8s, lrtp, fitgpp and these
    records = decisions.records(
        jobs,
        cluster,
        [(configs[p], same_state_for(configs[p].policy, names)) for p in recorded],
        lambda f: progress((len(labels) + f * len(recorded)) / steps),
    )
    return runs, dict(zip(recorded, records, strict=True))


@dataclass(frozen=True)
class PageFacts:
    """What the page adds to the runs: small values only (the worker gets them pickled)."""

    title: str  # the workload's label
    command: str  # the command(s) that reproduce the report
    checksum: str | None  # sha256 of the workload file's bytes (None: of the CSV ``simcore generate`` writes)
    baseline: str
    seed_flats: Sequence[Mapping[str, Mapping[str, Any]]]  # per seed: policy -> flat record


def report_html(
    jobs: JobTable, cluster: ClusterSpec, configs: Mapping[str, SimConfig], page: PageFacts, progress: Progress
) -> Iterator[bytes]:
    """The report as UTF-8 HTML, one value (the worker's protocol: :func:`dashboard.runs.worker.run`)."""
    runs, records = runs_and_records(jobs, cluster, configs, progress)
    checksum = page.checksum or generated_checksum(jobs)
    inp = ReportInput(
        page.title, page.command, checksum, jobs, cluster, configs, page.baseline, runs, page.seed_flats, records
    )
    yield build_report(inp).encode()


def generated_checksum(jobs: JobTable) -> str:
    """sha256 of the workload CSV ``simcore generate`` writes for ``jobs``."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "workload.csv"
        write_workload(jobs, path)
        return hashlib.sha256(path.read_bytes()).hexdigest()
