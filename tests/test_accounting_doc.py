"""Section 9 of RESULTS.md (simcore.experiments.study.accounting_doc) on hand-made rows: each cell derived by hand."""

from __future__ import annotations

import pandas as pd

from simcore.experiments.study import accounting_doc


def _rows() -> pd.DataFrame:
    base = {
        "point_id": "p",
        "jobs_simulated": 4000,
        "gpu_seconds_lost": 0.0,
        "gpu_seconds_restore": 0.0,
        "evicted_share": 0.5,
        "excess_gpus": 0.0,
        "wasted_preemptions": 0,
        "repreempted": 0,
        "preemption_decisions": 1,
        "TE_wait_mean": 60.0,
        "TE_wait_max": 60.0,
        "BE_slowdown_p50": 2.0,
        "BE_slowdown_p95": 3.0,
    }
    rows = []
    for seed, (fit, ideal) in enumerate(((2.0, 1.0), (4.0, 1.0))):
        rows.append({**base, "seed": seed, "policy": "fitgpp", "TE_slowdown_p95": fit, "gpu_seconds_grace": 7200.0})
        rows.append(
            {
                **base,
                "seed": seed,
                "policy": "k8s",
                "TE_slowdown_p95": fit,
                "gpu_seconds_grace": 3600.0 * (seed + 1),
                "excess_gpus": 7.0,
            }
        )
        rows.append({**base, "seed": seed, "policy": "ideal", "TE_slowdown_p95": ideal, "gpu_seconds_grace": 0.0})
    return pd.DataFrame(rows)


def test_section_cells():
    text = accounting_doc.render(_rows())
    lines = text.splitlines()
    assert lines[0] == accounting_doc.HEADING
    # grace GPU-h of k8s: 1 and 2 h, mean 1.5, CI 1.5 +- t(0.975, 1) x 0.707 / 1.414 = 1.5 +- 6.35
    k8s = next(x for x in lines if x.startswith("| k8s |")).split(" | ")
    assert k8s[3] == "1.5 [-4.85, 7.85]" and k8s[2] == "0 [0, 0]"  # equal values: an interval of width 0
    assert next(x for x in lines if x.startswith("| ideal (bound) |")).split(" | ")[3] == "0 [0, 0]"
    # fitgpp - bound, TE p95: differences 1 and 3: mean 2, CI 2 +- 12.706 x 1.414 / 1.414 = 2 +- 12.7
    row = next(x for x in lines if x.startswith("| fitgpp - bound |")).split(" | ")
    assert row[1] == "2 [-10.7, 14.7]" and row[2] == "0 s [0 s, 0 s]"
    assert "k8s -0.5 [-6.85, 5.85] GPU-h and 7 [7, 7] excess GPUs" in text  # k8s minus fitgpp, paired by seed
    assert "(the interval includes 0: no measurable distance)" in text
