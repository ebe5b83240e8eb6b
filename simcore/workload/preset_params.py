"""The parameters of the synthetic presets (DESIGN.md section 7): each one's default, kind, bounds
and help, declared once; :mod:`simcore.workload.presets` reads, checks and generates from them.
"""

from __future__ import annotations

from dataclasses import dataclass

from simcore.core.knobs import MAX_SECONDS, KnobRange
from simcore.core.model import MAX_RESOURCE
from simcore.workload import MAX_NODES

Value = int | float | tuple[float, ...] | None


@dataclass(frozen=True)
class Param:
    """One preset parameter: its default, how to read it, its rule and a one-line help."""

    name: str
    default: Value
    kind: str  # "int", "float" or "list" (comma-separated numbers)
    help: str
    minimum: float  # inclusive lower bound (for lists: of every element)
    exclusive: bool  # the lower bound is exclusive (> rather than >=)
    maximum: float  # inclusive upper bound: every parameter has one (nothing unbounded reaches numpy)

    @property
    def range(self) -> KnobRange:
        """The bounds of the value (of every element of a list), in the scheme of the knobs."""
        return KnobRange(self.minimum, self.maximum, low_open=self.exclusive, whole=self.kind == "int")

    def range_text(self) -> str:
        """The allowed values as the help states them (``1 to 10000000``, ``> 0 and <= 1000``)."""
        span = self.range.text()
        return f"at most {MAX_LIST} values, each {span}" if self.kind == "list" else span


#: Generator sizes: a workload of MAX_JOBS jobs takes about 10 GB to simulate (1 GB per million
#: jobs, see docs/benchmark.md); more is refused before anything is allocated.
MAX_JOBS = 10_000_000
MAX_LOAD = 1000.0  # offered load: 1000 x the cluster is already a queue that never drains
MAX_SIGMA = 10.0  # lognormal sigma: e^10 is a spread of 22,000x around the median
MAX_LIST = 64  # values in a list parameter (GPU counts, weights)


def _params(*ps: Param) -> dict[str, Param]:
    return {p.name: p for p in ps}


DAY = 86400.0

#: Parameters of the ``paper`` regime; ``demo`` is the same with fewer nodes and jobs.
PAPER_PARAMS: dict[str, Param] = _params(
    Param("nodes", 16, "int", "number of identical nodes", 1, False, MAX_NODES),
    Param("node_gpu", 8, "float", "GPUs per node", 0, True, MAX_RESOURCE),
    Param("node_cpu", 64, "float", "CPU cores per node", 0, True, MAX_RESOURCE),
    Param("node_mem_gb", 512, "float", "memory per node, GiB", 0, True, MAX_RESOURCE),
    Param("jobs", 4000, "int", "number of jobs", 1, False, MAX_JOBS),
    Param("te_share", 0.3, "float", "fraction of jobs that are TE", 0, False, 1),
    Param("load", 1.0, "float", "target offered GPU load (arrival rate follows from it)", 0, True, MAX_LOAD),
    Param("te_gpu", (1, 2), "list", "GPU counts of TE jobs", 0, True, MAX_RESOURCE),
    Param("te_gpu_w", (0.8, 0.2), "list", "weights of te_gpu (sum 1)", 0, False, 1),
    Param("te_median_s", 1200, "float", "TE lognormal duration median, s", 0, True, MAX_SECONDS),
    Param("te_sigma", 1.0, "float", "TE lognormal sigma", 0, False, MAX_SIGMA),
    Param("te_min_s", 30, "float", "TE duration clip, lower, s", 1, False, MAX_SECONDS),
    Param("te_max_s", 7200, "float", "TE duration clip, upper, s", 1, False, MAX_SECONDS),
    Param("be_gpu", (1, 2, 4, 8), "list", "GPU counts of BE jobs", 0, True, MAX_RESOURCE),
    Param("be_gpu_w", (0.05, 0.0, 0.05, 0.9), "list", "weights of be_gpu (sum 1)", 0, False, 1),
    Param("be_median_s", 28800, "float", "BE lognormal duration median, s", 0, True, MAX_SECONDS),
    Param("be_sigma", 0.8, "float", "BE lognormal sigma", 0, False, MAX_SIGMA),
    Param("be_min_s", 300, "float", "BE duration clip, lower, s", 1, False, MAX_SECONDS),
    Param(
        "be_max_s",
        None,
        "float",
        "BE duration clip, upper, s (default max(3 d, 6 x be_median_s))",
        1,
        False,
        MAX_SECONDS,
    ),
    Param(
        "cpu_per_gpu_min", 4, "int", "CPU cores per GPU, lower end of the uniform integer draw", 0, False, MAX_RESOURCE
    ),
    Param("cpu_per_gpu_max", 8, "int", "CPU cores per GPU, upper end (inclusive)", 0, False, MAX_RESOURCE),
    Param("mem_per_gpu_min", 16, "int", "GiB per GPU, lower end of the uniform integer draw", 0, False, MAX_RESOURCE),
    Param("mem_per_gpu_max", 64, "int", "GiB per GPU, upper end (inclusive)", 0, False, MAX_RESOURCE),
)

DEMO_PARAMS: dict[str, Param] = {
    **PAPER_PARAMS,
    "nodes": Param("nodes", 4, "int", "number of identical nodes", 1, False, MAX_NODES),
    "jobs": Param("jobs", 400, "int", "number of jobs", 1, False, MAX_JOBS),
}

MMC_PARAMS: dict[str, Param] = _params(
    Param("nodes", 64, "int", "number of one-GPU nodes (1 CPU, 1 GiB each): the c of M/M/c", 1, False, MAX_NODES),
    Param("jobs", 200000, "int", "number of jobs", 1, False, MAX_JOBS),
    Param("load", 0.9, "float", "target utilisation rho = arrival rate x mean_s / nodes", 0, True, MAX_LOAD),
    Param("mean_s", 1000, "float", "mean of the exponential durations, s", 0, True, MAX_SECONDS),
)


#: ``paper-gang``: the ``paper`` regime with distributed training. BE jobs of ``node_gpu`` GPUs
#: (whole-node jobs) run as ``be_workers`` workers of one whole node each, drawn with
#: ``be_workers_w``; ``te_gang_share`` of the TE jobs run as ``te_gang_workers`` workers.
PAPER_GANG_PARAMS: dict[str, Param] = {
    **PAPER_PARAMS,
    **_params(
        Param("be_workers", (1, 2, 4), "list", "workers of a whole-node BE job (one node each)", 1, False, MAX_NODES),
        Param("be_workers_w", (0.6, 0.3, 0.1), "list", "weights of be_workers (sum 1)", 0, False, 1),
        Param("te_gang_share", 0.05, "float", "fraction of TE jobs that run as gangs", 0, False, 1),
        Param("te_gang_workers", 2, "int", "workers of a TE gang (te_gpu GPUs each)", 1, False, MAX_NODES),
    ),
}


#: ``teams`` (simcore.workload.preset_teams): the ``paper`` cluster shared by teams through queues; the job
#: shapes of ``paper`` with shorter BE jobs, and per team (one value each, in team order: vision, nlp,
#: research) its queue, its share of the jobs, its TE share and its daily peak of arrivals
TEAMS_PARAMS: dict[str, Param] = {
    **{k: p for k, p in PAPER_PARAMS.items() if k not in ("te_share", "be_gpu_w", "be_median_s")},
    **_params(
        Param("be_gpu_w", (0.1, 0.1, 0.3, 0.5), "list", "weights of be_gpu (sum 1)", 0, False, 1),
        Param("be_median_s", 14400, "float", "BE lognormal duration median, s", 0, True, MAX_SECONDS),
        Param("quota_gpu", (56, 40, 32), "list", "per team: its queue's quota, GPUs", 0, False, MAX_RESOURCE),
        Param(
            "borrow_limit",
            (72, 24, 96),
            "list",
            "per team: GPUs its queue may hold above quota",
            0,
            False,
            MAX_RESOURCE,
        ),
        Param("weight", (1, 1, 2), "list", "per team: its queue's fair-sharing weight", 0, True, MAX_RESOURCE),
        Param("team_jobs_w", (0.4, 0.4, 0.2), "list", "per team: its share of the jobs (sum 1)", 0, False, 1),
        Param("te_share", (0.3, 0.5, 0.2), "list", "per team: fraction of its jobs that are TE", 0, False, 1),
        Param("peak_start", (0, 9, 18), "list", "per team: first hour of its daily peak (0-24)", 0, False, 24),
        Param(
            "peak_end", (24, 18, 6), "list", "per team: hour its peak ends (before start: past midnight)", 0, False, 24
        ),
        Param("peak_factor", (1, 4, 4), "list", "per team: arrival rate in its peak / outside it", 0, True, 1000),
    ),
}
