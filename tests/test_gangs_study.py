"""The gang columns of a run (simcore.analysis.accounting.gang_flat) on hand-made scenarios, and the gang section
of RESULTS.md (simcore.experiments.study.gangs) on hand-made rows: each cell derived by hand (t(0.975, 1) = 12.706)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
from helpers import job, prop_cluster, te

from simcore.analysis import accounting
from simcore.analysis.metrics import FLAT_FIELDS, flat_summary, versus
from simcore.core.model import JobTable, SimConfig
from simcore.engine import simulate
from simcore.experiments.study import QUICK, gangs


def _k8s(jobs: JobTable, *gpus: float):
    return simulate(jobs, prop_cluster(*gpus), SimConfig(policy="k8s"), record_decisions=True)


def test_a_gang_victim_counts_once_and_stops_every_worker():
    """Nodes n0, n1 of 4 GPUs; BE gang G (2 workers of 3 GPUs) holds 3 on each; TE T (2 GPUs) at
    t=100 lacks 1 on either node: k8s signals G, one preemption that stops 2 workers, for one TE job."""
    jobs = replace(JobTable.from_jobs([job("G", 0, 1000, 3), te("T", 100, 50, 2)]), workers=np.array([2, 1]))
    flat = flat_summary(_k8s(jobs, 4, 4))
    assert flat["preemptions"] == 1
    assert {k: flat[k] for k in accounting.GANG_FIELDS} == {
        "workers_stopped": 2,
        "gang_preemptions": 1,
        "te_served_by_preemption": 1,
    }


def test_a_te_gang_nominated_twice_is_one_job_served():
    """BE A (3 GPUs) on n0, BE B (4 GPUs) on n1; TE gang T (2 workers of 2 GPUs) at t=100: both its
    workers are nominated to n0 (two nomination rows) and k8s signals A alone: one single-worker
    preemption, one TE job served."""
    jobs = replace(
        JobTable.from_jobs([job("A", 0, 1000, 3), job("B", 0, 1000, 4), te("T", 100, 50, 2)]),
        workers=np.array([1, 1, 2]),
    )
    r = _k8s(jobs, 4, 4)
    assert len(r.nominations) == 2
    assert accounting.gang_flat(r) == {"workers_stopped": 1, "gang_preemptions": 0, "te_served_by_preemption": 1}


def test_a_workload_without_gangs_keeps_its_columns():
    r = _k8s(JobTable.from_jobs([job("A", 0, 1000, 3), te("T", 100, 50, 2)]), 4)
    assert tuple(flat_summary(r)) == FLAT_FIELDS


def test_the_plan_runs_paper_gang_for_every_policy():
    from simcore.policies import POLICIES

    assert gangs.grid(QUICK) == {
        "preset": "paper-gang",
        "set": {"jobs": 300, "nodes": 4},
        "seeds": 3,
        "policies": list(POLICIES),
        "baseline": ["fifo"],
    }


def _row(seed: int, policy: str, te_vs: float, be_vs: float, pre: int, stopped: int, gang: int, served: int, grace):
    return {
        "point_id": "p",
        "seed": seed,
        "policy": policy,
        "jobs_simulated": 4000,
        "nodes": 16,
        versus("TE_p95_slowdown_pct", "fifo"): te_vs,
        versus("BE_p50_slowdown_pct", "fifo"): be_vs,
        versus("BE_p95_slowdown_pct", "fifo"): 0.0,
        "TE_slowdown_p95": 1.0,
        "BE_slowdown_p50": 2.0,
        "BE_slowdown_p95": 3.0,
        "preemptions": pre,
        "workers_stopped": stopped,
        "gang_preemptions": gang,
        "te_served_by_preemption": served,
        "gpu_seconds_lost": 0.0,
        "gpu_seconds_grace": grace,
        "gpu_seconds_restore": 0.0,
    }


def _rows() -> pd.DataFrame:
    """Two seeds. k8s: 4 preemptions stopping 8 workers (2 of them gangs) for 2 TE jobs at 2 GPU-h,
    then 2 stopping 2 workers for 2 TE jobs at 4 GPU-h. fitgpp: 4 stopping 4 for 4 TE jobs at 2 GPU-h,
    then 2 stopping 2 for 1 TE job at 1.5 GPU-h."""
    return pd.DataFrame(
        [
            _row(0, "fifo", 0.0, 0.0, 0, 0, 0, 0, 0.0),
            _row(1, "fifo", 0.0, 0.0, 0, 0, 0, 0, 0.0),
            _row(0, "k8s", -90.0, 10.0, 4, 8, 2, 2, 7200.0),
            _row(1, "k8s", -80.0, -10.0, 2, 2, 0, 2, 14400.0),
            _row(0, "fitgpp", -90.0, 5.0, 4, 4, 0, 4, 7200.0),
            _row(1, "fitgpp", -90.0, 5.0, 2, 2, 0, 1, 5400.0),
        ]
    )


def _line(text: str, start: str) -> list[str]:
    return next(x for x in text.splitlines() if x.startswith(start)).split(" | ")


def test_section_cells_from_hand_made_rows():
    text = gangs.section(_rows())
    assert text.startswith(gangs.HEADING + "\n") and "**4000 jobs** per workload on 16 nodes x 8 GPUs, 2 seeds" in text
    # trio vs fifo, k8s TE p95: -90 and -80: mean -85, CI -85 +- 12.706 x 7.071 / 1.414 = -85 +- 63.5
    assert _line(text, "| k8s | -")[1:3] == ["-85.0% [-148.5, -21.5]", "+0.0% [-127.1, +127.1]"]
    assert _line(text, "| fitgpp | -")[1:3] == ["-90.0% [-90.0, -90.0]", "+5.0% [+5.0, +5.0]"]
    assert "- **k8s** against fifo: TE p95 slowdown lower; BE p50 slowdown no difference measured" in text
    assert "- **fitgpp** against fifo: TE p95 slowdown lower; BE p50 slowdown higher;" in text
    # costs: k8s workers per preemption 2 and 1 (mean 1.5 +- 6.35), gang share 0.5 and 0 (0.25 +- 3.18),
    # GPU-h 2 and 4, per TE job served 1 and 2; fitgpp per TE job 0.5 and 1.5
    k8s = _line(text, "| k8s | 3 ")
    assert k8s[2:4] == ["1.5 [-4.85, 7.85]", "0.25 [-2.93, 3.43]"]
    assert k8s[5:] == ["0 [0, 0]", "3 [-9.71, 15.7]", "0 [0, 0]", "1.5 [-4.85, 7.85] |"]
    assert _line(text, "| fitgpp | 3 ")[-1] == "1 [-5.35, 7.35] |"
    assert "No work is lost" in text and "fitdelay chooses exactly" not in text
    # paired fitgpp - k8s: per TE job -0.5 both seeds; workers per preemption -1 and 0
    pair = _line(text, "| fitgpp - k8s |")
    assert pair[5] == "-0.5 [-6.85, 5.85]" and pair[-1] == "-0.5 [-0.5, -0.5] |"
    assert "fitgpp (1 GPU-h); paired by seed, fitgpp minus each other rule: against k8s -0.5 GPU-h, lower." in text
    assert (
        "- fitgpp against k8s: BE GPU-h per TE job served lower; workers stopped per preemption no difference "
        "measured (the CI includes 0)" in text
    )


def test_fitdelay_equal_to_fitgpp_is_said():
    rows = _rows()
    same = rows[rows["policy"] == "fitgpp"].assign(policy="fitdelay")
    text = gangs.section(pd.concat([rows, same], ignore_index=True))
    assert "fitdelay chooses exactly as fitgpp here" in text
    assert _line(text, "| fitdelay - fitgpp |")[-1] == "0 [0, 0] |"
    assert "fitgpp (with fitdelay, equal) (1 GPU-h); paired by seed, fitgpp minus each other rule: against k8s" in text
