"""The teams section of RESULTS.md (simcore.experiments.study.teams) on hand-made rows: each cell derived
by hand (two seeds: the Student t interval is mean +- 12.706 x sd / sqrt 2; equal differences: no spread)."""

from __future__ import annotations

import pandas as pd

from simcore.experiments.study import QUICK, teams

FIELDS = (
    "TE_slowdown_p95",
    "BE_slowdown_p50",
    "BE_slowdown_p95",
    "reclaims",
    "reclaimed",
    "gpu_seconds_lost_to_reclaims",
    "gpu_seconds_grace_of_reclaims",
    "gpu_seconds_restore_of_reclaims",
    "gpu_seconds_above_quota",
)


def _rows() -> pd.DataFrame:
    """fifo and k8s, two seeds, research's three borrow limits. Every queue's numbers are 1 (costs 0)
    except: research's BE p95 10 and 14 (seeds 0, 1) at 96 and 15 and 19 at 0 under k8s; vision
    reclaims 3 and 5 times under k8s at 96, each time research pays 1800 s grace and 3600 s restore."""
    rows = []
    for limit in teams.LIMITS:
        for policy in ("fifo", "k8s"):
            for seed in (0, 1):
                row = {"point_id": limit, "seed": seed, "policy": policy, "borrow_limit": limit, "jobs_simulated": 300}
                for q in teams.QUEUES:
                    for f in FIELDS:
                        row[teams.col(q, f)] = 0.0 if f.startswith(("gpu_seconds", "reclaim")) else 1.0
                if policy == "k8s":
                    row[teams.col("research", "BE_slowdown_p95")] = (10.0, 14.0)[seed] + (
                        5 if limit == "72,24,0" else 0
                    )
                    if limit == teams.LIMITS[0]:
                        made = (3.0, 5.0)[seed]
                        row[teams.col("vision", "reclaims")] = row[teams.col("research", "reclaimed")] = made
                        row[teams.col("research", "gpu_seconds_grace_of_reclaims")] = 1800.0 * made
                        row[teams.col("research", "gpu_seconds_restore_of_reclaims")] = 3600.0 * made
                rows.append(row)
    return pd.DataFrame(rows)


def test_the_plan_runs_teams_for_every_policy_and_three_borrow_limits() -> None:
    from simcore.policies import POLICIES

    assert teams.grid(QUICK) == {
        "preset": "teams",
        "set": {"jobs": 300},
        "seeds": 3,
        "policies": list(POLICIES),
        "baseline": ["fifo"],
        "grid": {"borrow_limit": ["72,24,96", "72,24,32", "72,24,0"]},
    }


def test_the_cells_from_hand_made_rows() -> None:
    text = teams.section(_rows())
    assert text.startswith(teams.HEADING + "\n") and "**300 jobs** per workload, 2 seeds" in text
    # research's BE p95 under k8s at 96: mean 12, sd 2.828, half width 12.706 x 2 = 25.4
    assert (
        "| k8s | 1 [1, 1] | 1 [1, 1] | 1 [1, 1] | 1 [1, 1] | 1 [1, 1] | 1 [1, 1] | 1 [1, 1] | 1 [1, 1] | 12 [-13.4, 37.4] |"
        in text
    )
    # k8s - fifo, paired: research's BE p95 9 and 13 -> 11 [-14.4, 36.4]
    assert text.split("| k8s - fifo |")[1].splitlines()[0].endswith("| 11 [-14.4, 36.4] |")
    # reclaims 3 and 5 (mean 4, half width 12.7); GPU-h (1800 + 3600) x made / 3600 = 4.5, 7.5 -> 6 [-13.1, 25.1]
    reclaim_row = text.split("### What the reclaims cost")[1].split("| k8s |")[1].splitlines()[0]
    assert (
        reclaim_row
        == " 4 [-8.71, 16.7] | 6 [-13.1, 25.1] | 0 [0, 0] / 0 [0, 0] | 0 [0, 0] / 0 [0, 0] | 4 [-8.71, 16.7] / 6 [-13.1, 25.1] |"
    )
    # research's borrow limit 0 against 96 under k8s: BE p95 +5 on both seeds; the reclaims' GPU-hours -4.5 and -7.5
    limit_row = text.split("| k8s, 0 (vs 96) |")[1].splitlines()[0]
    assert "| 5 [5, 5] |" in limit_row and limit_row.endswith("| -6 [-25.1, 13.1] |")
    assert "research's BE p95 higher (5)" in text
    assert "No work is lost to a reclaim" in text
    assert "`results/rows_teams.parquet`" in text
