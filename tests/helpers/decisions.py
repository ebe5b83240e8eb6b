"""A run with its decision records, and the hand-made full cluster the decision tests ask about:
its first decision under a policy."""

from __future__ import annotations

from simcore.core.model import JobTable, SimConfig
from simcore.engine import simulate

from .logs import job, prop_cluster, te


def record_run(jobs, cluster, **knobs):
    table = jobs if isinstance(jobs, JobTable) else JobTable.from_jobs(jobs)
    config = knobs.pop("config", None) or SimConfig(**knobs)
    return simulate(table, cluster, config, record_decisions=True)


# fit: 1 (3 GPUs) and 2 (1) fill n0 at t=0; 3 (2) goes to n1 at 0 and 4 (2) fills it at 2.
# A TE job of T_GPU GPUs comes at t=10. Checkpoint `none`: the work lost now is the progress.

DUR = {"1": 100, "2": 50, "3": 80, "4": 30}


def full_cluster(t_gpu: float) -> list:
    return [
        job("1", 0, DUR["1"], 3),
        job("2", 0, DUR["2"], 1),
        job("3", 0, DUR["3"], 2),
        job("4", 2, DUR["4"], 2),
        te("T", 10, 5, t_gpu),
    ]


def first(policy: str, t_gpu: float = 2, **knobs) -> dict:
    r = record_run(full_cluster(t_gpu), prop_cluster(4, 4), policy=policy, checkpoint="none", **knobs)
    assert r.decisions[0]["time"] == 10 and r.decisions[0]["te_job"] == "T"
    return r.decisions[0]
