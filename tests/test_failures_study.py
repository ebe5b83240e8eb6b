"""The RESULTS.md section on node failures and the checkpoint interval (issue 35): its grids, its cells from
hand-made rows (means and paired intervals worked out below), the advisor's verdict from sweep rows equal
to the advisor's own on the same runs, and the committed section equal to what its committed rows give."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from simcore.core.model import SimConfig
from simcore.experiments import advisor
from simcore.experiments.study import failures
from simcore.experiments.study.plan import QUICK
from simcore.experiments.sweep import build_spec, run_sweep
from simcore.workload import presets

ROOT = Path(__file__).resolve().parents[1]
DAY = 86400.0


def test_the_grids_run_every_policy_at_both_rates_and_the_advisors_intervals() -> None:
    from simcore.policies import POLICIES

    (by_policy, name), (advice, advice_name) = failures.grids(QUICK)
    assert (name, advice_name) == ("failures", "failures_advice")
    assert by_policy["set"] == {"jobs": 300, "nodes": 4, "checkpoint": "periodic", "checkpoint_cost": 60.0}
    assert by_policy["grid"] == {"mtbf": [math.inf, 30 * DAY, 7 * DAY]} and by_policy["policies"] == list(POLICIES)
    assert advice["grid"] == {"mtbf": [30 * DAY, 7 * DAY], "checkpoint_interval": list(advisor.DEFAULT_INTERVALS)}
    assert advice["policies"] == ["fifo", "k8s", "fitgpp"] and by_policy["seeds"] == advice["seeds"] == 3


def _row(policy: str, seed: int, mtbf: float, p50: float, **more: float) -> dict:
    down = {} if math.isinf(mtbf) else {"mtbf": mtbf, "preemption_gpu_seconds_lost": 0.0, "failure_count": 5}
    return {
        "point_id": f"{policy}{mtbf}",
        "seed": seed,
        "policy": policy,
        "jobs_simulated": 4000,
        "nodes": 16,
        "BE_slowdown_p50": p50,
        "BE_slowdown_p95": 10 * p50,
        "gpu_seconds_lost": 0.0,
        "failure_gpu_seconds_lost": 0.0 if math.isinf(mtbf) else 3600.0 * (seed + 1),
        **down,
        **more,
    }


def _failures() -> pd.DataFrame:
    """fifo's BE p50 on seeds 0 and 1: 2 and 4 without failures, 3 and 5 at 30 d, 4 and 8 at 7 d;
    k8s's one more everywhere."""
    rows = []
    for policy, plus in (("fifo", 0.0), ("k8s", 1.0)):
        for mtbf, values in ((math.inf, (2.0, 4.0)), (30 * DAY, (3.0, 5.0)), (7 * DAY, (4.0, 8.0))):
            rows += [_row(policy, seed, mtbf, v + plus) for seed, v in enumerate(values)]
    return pd.DataFrame(rows).assign(mtbf=lambda f: f["mtbf"].where(f["mtbf"].notna(), np.nan))


def _advice() -> pd.DataFrame:
    """fifo only, intervals 600, 1800 and 3600 s, every row 100,000 s of BE run over 10 interruptions (M =
    10,000 s, Young/Daly sqrt(2 x 60 x 10,000) = 1095 s: nearest 1800), each interrupted after 5,000 s (CV 0).
    BE p50 per interval: at 7 d 3, 2, 2.5 (best 1800: they agree); at 30 d 3, 2, 1.5 on seed 0 and
    3, 2, 1.5 on seed 1 (best 3600; the advisor's 1800 is 0.5 worse on both seeds)."""
    p50 = {7 * DAY: (3.0, 2.0, 2.5), 30 * DAY: (3.0, 2.0, 1.5)}
    exposure = {"be_run_seconds": 1e5, "be_interruptions": 10, "be_gap_seconds": 5e4, "be_gap_squares": 2.5e8}
    extra = {"max_preemptions_per_job": 0, "drain_gpu_seconds_lost": 0.0, **exposure}
    rows = [
        _row("fifo", seed, mtbf, values[i], checkpoint_interval=c, **extra)
        for mtbf, values in p50.items()
        for i, c in enumerate((600.0, 1800.0, 3600.0))
        for seed in (0, 1)
    ]
    return pd.DataFrame(rows)


def _line(text: str, start: str) -> list[str]:
    return next(x for x in text.splitlines() if x.startswith(start)).split(" | ")


def test_the_section_from_hand_made_rows() -> None:
    text = failures.section(_failures(), _advice())
    assert (
        text.startswith(failures.HEADING + "\n") and "**4000 jobs** per workload on 16 nodes x 8 GPUs, 2 seeds" in text
    )
    # without failures fifo's p50 is 2 and 4: 3 [3 +- 12.706 x 1.414 / 1.414] = 3 [-9.71, 15.7]; failures count 0
    lines = text.splitlines()
    at_7d = lines.index("**Failures at mtbf 7 d.**")
    fifo_7d = next(x for x in lines[at_7d:] if x.startswith("| fifo |")).split(" | ")
    assert fifo_7d[1] == "6 [-19.4, 31.4]"  # 4 and 8
    assert fifo_7d[4] == "1.5 [-4.85, 7.85]"  # GPU-h lost to failures: 1 and 2
    assert _line(text, "| fifo | 3 [")[5:] == ["0 [0, 0] |"]  # no failure without failures
    # what failures add, paired by seed: at 30 d 1 and 1; at 7 d 2 and 4
    added = _line(text, "| fifo | 1 [1, 1]")
    assert added[1:3] == ["1 [1, 1]", "10 [10, 10]"] and added[3] == "3 [-9.71, 15.7]"
    assert "- **k8s** minus fifo, BE p50 slowdown: no failures 1 [1, 1]; mtbf 30 d 1 [1, 1]; mtbf 7 d 1 [1, 1]." in text
    assert _line(text, "| fifo | mtbf 7 d |")[2:] == [
        "2.8 h",
        "18.3 min",
        "30.0 min",
        "30.0 min",
        "0 (the same interval) |",
    ]
    assert _line(text, "| fifo | mtbf 30 d |")[4:] == ["30.0 min", "60.0 min", "0.5 [0.5, 0.5] |"]
    assert "- **fifo, mtbf 7 d**: Young/Daly (18.3 min) points at the best interval swept." in text
    assert "the paired CI excludes 0: the advisor's interval is measurably worse" in text
    assert (
        "interruptions are regular, not memoryless (coefficient of variation of the run times between them 0.00" in text
    )
    # the shortest interval's p50 against the best: 3 / 1.5 = 2 at 30 d, 3 / 2 = 1.5 at 7 d; its pauses 1.1 x
    assert "stretch a job by 1.1 x; the BE p50 slowdown there is 1.5 to 2 x its best" in text
    assert "every pause also holds GPUs the queue is waiting for" in text


def test_the_advisor_from_sweep_rows_is_the_advisors_own_on_the_same_runs() -> None:
    config = SimConfig(policy="fitgpp", checkpoint="periodic", checkpoint_cost=60.0, mtbf=3 * DAY)
    intervals = (600.0, 3600.0, 14400.0)
    made = [presets.generate("paper", s, {"jobs": 150, "nodes": 4}) for s in (0, 1)]
    own = advisor.advise([(g.table, g.cluster, s) for s, g in enumerate(made)], config, intervals)
    spec = build_spec(
        preset="paper",
        fixed={"jobs": 150, "nodes": 4, "checkpoint": "periodic", "checkpoint_cost": 60.0, "mtbf": 3 * DAY},
        grids={"checkpoint_interval": list(intervals)},
        seeds=2,
        policies="fitgpp",
        baseline="fitgpp",
    )
    rows = run_sweep(spec, workers=0).rows.sort_values(["checkpoint_interval", "seed"], kind="stable")
    judged = advisor.judge(advisor.trials_from_rows(rows, config.P), config)
    assert judged.best_interval == own.best_interval and judged.nearest == own.nearest and judged.agree == own.agree
    assert judged.young_daly == pytest.approx(own.young_daly) and judged.runs == own.runs == 6
    pd.testing.assert_frame_equal(judged.table, own.table, check_exact=False, rtol=1e-12)
    assert judged.reasons == own.reasons


def test_the_committed_section_is_what_its_committed_rows_give() -> None:
    found = failures.load(ROOT / "docs" / "results")
    assert found is not None, "docs/results/rows_failures*.parquet"
    section = failures.section(*found)
    doc = (ROOT / "docs" / "RESULTS.md").read_text(encoding="utf-8")
    assert section.rstrip() in doc
    rows, advice = found
    assert rows["seed"].nunique() == advice["seed"].nunique() == 20 and int(rows["jobs_simulated"].iloc[0]) == 4000
