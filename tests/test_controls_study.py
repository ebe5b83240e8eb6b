"""The RESULTS.md section on saves that fail and the budget (simcore.experiments.study.controls), on hand-made rows whose
means and intervals are derived here."""

from __future__ import annotations

import math

import pandas as pd
from scipy import stats as sps

from simcore.experiments.study import controls

POLICIES = ("priority", *controls.PREEMPTIVE)


def rows(axis: str, values, value_of) -> pd.DataFrame:
    """Three seeds per point; `value_of(policy, v, seed)` gives the BE p50 percent change and slowdown."""
    out = []
    for i, v in enumerate(values):
        for seed in range(3):
            for p in POLICIES:
                x = 0.0 if p == "priority" else value_of(p, v, seed)
                out.append(
                    {
                        "point_id": f"pt{i}",
                        "seed": seed,
                        "policy": p,
                        axis: v,
                        "jobs": 40,
                        "nodes": 2,
                        "grace": 30.0,
                        "BE_p50_slowdown_pct_vs_priority": x,
                        "BE_p95_slowdown_pct_vs_priority": x,
                        "TE_p95_slowdown_pct_vs_priority": -50.0,
                        "TE_slowdown_p95": 1.5,
                        "BE_slowdown_p50": 2 + x / 100,
                        "BE_slowdown_p95": 3 + x / 100,
                        "lost_work": 3600.0 * (seed + 1),
                        "preemptions": 4.0,
                        "makespan": 1e5,
                    }
                )
    return pd.DataFrame(out)


def _fitgpp_grows(p, v, seed):
    # fitgpp: -5, -4, -3 at 0 (beats priority), 2v x 10 + seed - 1 above; the others 0 +- 1
    return (-5 + seed if v == 0 else 20 * v + seed - 1) if p == "fitgpp" else seed - 1.0


def test_where_a_policy_beats_priority_follows_the_intervals():
    r = rows("save_failure", controls.FAILURES, _fitgpp_grows)
    # at 0: mean -4 with sd 1 over 3 seeds: the t interval -4 +- 4.30 x 1/sqrt(3) = [-6.48, -1.52] < 0;
    # at 0.25: 5 +- 2.48 = [2.52, 7.48] > 0, and above as well
    assert controls.beating(r, "save_failure", controls.FAILURES, "fitgpp", "BE_p50_slowdown_pct") == (
        "better at 0; worse at 0.25, 0.5, 0.75, 1"
    )
    # k8s: -1, 0, 1: the interval holds 0 everywhere
    assert controls.beating(r, "save_failure", controls.FAILURES, "k8s", "BE_p50_slowdown_pct") == (
        "better at no value; worse at no value"
    )
    assert controls.te_moves(r, "save_failure", controls.FAILURES) == "0"  # -50% everywhere
    half = sps.t.ppf(0.975, 2) / math.sqrt(3)
    section = controls.section(r, _save_time_rows(r), _budget_rows())
    assert (
        f"| fitgpp | -4.0% [{-4 - half:+.1f}, {-4 + half:+.1f}] | +5.0% [{5 - half:+.1f}, {5 + half:+.1f}] |" in section
    )


def test_fitdelay_against_the_others_is_paired_by_seed():
    def f(p, v, seed):
        return -v * (10 + seed) if p == "fitdelay" else 0.0

    r = rows("save_failure", controls.FAILURES, f)
    # fitdelay - fitgpp in BE p50 slowdown: -v (10 + seed) / 100, mean -0.11 v +- 4.30 x 0.01 v / sqrt(3) < 0
    # for v > 0; at v = 0 exactly 0 (no interval below 0)
    said = controls.pays(r, "save_failure", controls.FAILURES, "fitgpp", "BE_slowdown_p50")
    assert said == "below fitgpp at 0.25, 0.5, 0.75, 1, above at no value, not told apart (CI holds 0) at 0"
    assert controls.pays(r, "save_failure", controls.FAILURES, "k8s", "lost_work") == (
        "below k8s at no value, above at no value, not told apart (CI holds 0) at 0, 0.25, 0.5, 0.75, 1"
    )


def _save_time_rows(failure: pd.DataFrame) -> pd.DataFrame:
    """save_time 30 = the save_failure 0 rows, 45 = the save_failure 1 rows."""
    parts = []
    for t, f in ((30.0, 0.0), (45.0, 1.0)):
        part = failure[failure["save_failure"] == f].drop(columns="save_failure").assign(save_time=t)
        parts.append(part)
    return pd.concat(parts, ignore_index=True)


def _budget_rows() -> pd.DataFrame:
    return rows("preempt_budget", controls.BUDGETS, lambda p, v, seed: 1.0)


def test_the_step_of_save_time_is_checked_not_assumed():
    r = rows("save_failure", controls.FAILURES, _fitgpp_grows)
    st = _save_time_rows(r)
    assert "`save_time = 30` gives exactly the runs" in controls.section(r, st, _budget_rows())
    moved = st.copy()
    moved.loc[moved["save_time"] == 45.0, "lost_work"] += 1
    text = controls.section(r, moved, _budget_rows())
    assert "`save_time = 45` **not** exactly those of `save_failure = 1`" in text
