"""simcore.analysis.stats: t intervals against tables and a coverage check, paired differences on hand-made
series, the bootstrap interval against a plain reference and the bounds it must respect."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from simcore.analysis import stats


def test_t_quantiles_match_tables():
    # two-sided 95% and 99% critical values from standard t tables
    table = {
        (0.975, 1): 12.7062,
        (0.975, 2): 4.3027,
        (0.975, 4): 2.7764,
        (0.975, 9): 2.2622,
        (0.975, 19): 2.0930,
        (0.975, 30): 2.0423,
        (0.995, 5): 4.0321,
        (0.995, 10): 3.1693,
    }
    for (p, df), value in table.items():
        assert stats.t_quantile(p, df) == pytest.approx(value, abs=5e-5)
    with pytest.raises(ValueError):
        stats.t_quantile(0.975, 0)


def test_mean_ci_by_hand_and_missing_values():
    # 1, 2, 3: mean 2, sd 1, half-width t(0.975, 2) / sqrt(3) = 4.302653 / 1.732051
    n, mean, sd, lo, hi = stats.mean_ci([3.0, None, 1.0, math.nan, 2.0])
    assert (n, mean, sd) == (3, 2.0, 1.0)
    assert hi - mean == pytest.approx(2.484138, abs=1e-6) and mean - lo == pytest.approx(hi - mean)
    n, mean, sd, lo, hi = stats.mean_ci([5.0])
    assert (n, mean) == (1, 5.0) and all(math.isnan(x) for x in (sd, lo, hi))
    assert stats.mean_ci([])[0] == 0 and math.isnan(stats.mean_ci([])[1])


def test_t_interval_covers_the_true_mean_95_percent_of_the_time():
    rng = np.random.default_rng(7)
    trials = 4000
    hits = sum(lo <= 10.0 <= hi for *_, lo, hi in (stats.mean_ci(rng.normal(10.0, 3.0, size=4)) for _ in range(trials)))
    # binomial sd of the coverage over 4000 trials is 0.0034: 4 sd either side
    assert abs(hits / trials - 0.95) < 0.014


def test_paired_diff_keeps_only_common_replicates_in_the_first_order():
    a = pd.Series([10.0, 20.0, 30.0], index=[("p", 2), ("p", 0), ("p", 1)])
    b = pd.Series([1.0, 2.0, 4.0], index=[("p", 0), ("p", 1), ("q", 0)])
    assert stats.paired_diff(a, b).tolist() == [19.0, 28.0]  # seeds 0 and 1 only, in a's order
    n, mean, *_ = stats.mean_ci(stats.paired_diff(a, b))
    assert (n, mean) == (2, 23.5)


def _reference_bootstrap(x: np.ndarray, resamples: int = 2000) -> tuple[float, float]:
    """The plain percentile bootstrap: resample with replacement, take the 2.5% and 97.5% means."""
    means = x[np.random.default_rng(0).integers(0, len(x), size=(resamples, len(x)))].mean(axis=1)
    lo, hi = np.quantile(means, [0.025, 0.975])
    return float(lo), float(hi)


@pytest.mark.parametrize("values", [[1.0, 1.0, 1.0, 30.0], [2.0, 5.0, 9.0], [-99.9, -99.0, -20.0, -50.0, 3.0]])
def test_bootstrap_is_the_percentile_bootstrap(values):
    n, mean, lo, hi = stats.bootstrap_mean(values)
    ref_lo, ref_hi = _reference_bootstrap(np.array(values))
    assert n == len(values) and mean == pytest.approx(np.mean(values), rel=1e-15)
    assert lo == pytest.approx(ref_lo, rel=1e-12) and hi == pytest.approx(ref_hi, rel=1e-12)
    assert stats.bootstrap_mean(values) == (n, mean, lo, hi)  # fixed resamples


def test_bootstrap_respects_the_bounds_a_t_interval_breaks():
    skewed = [1.0, 1.0, 1.0, 30.0]  # slowdowns: never below 1
    assert stats.mean_ci(skewed)[3] < 1.0
    _n, mean, lo, hi = stats.bootstrap_mean(skewed)
    assert 1.0 <= lo < mean < hi <= 30.0
    assert stats.bootstrap_mean([-99.9, -99.0, -20.0])[2] >= -99.9  # a percent change never below -100
    n, mean, lo, hi = stats.bootstrap_mean([0.1, 0.1, 0.1])  # equal values: no interval
    assert n == 3 and lo == mean == hi
    assert stats.bootstrap_mean([3.0]) == (1, 3.0, 3.0, 3.0)
    assert stats.bootstrap_mean([None, math.nan])[0] == 0


def test_the_cli_summary_names_its_spread():
    from simcore.cli.sweep import format_summary

    agg = pd.DataFrame(
        {
            "policy": ["fifo"],
            "metric": ["TE_slowdown_p95"],
            "n": [3],
            "mean": [2.0],
            "sd": [1.0],
            "ci_low": [0.5],
            "ci_high": [3.5],
        }
    )
    assert (
        format_summary(agg, "fifo").splitlines()[0]
        == f"mean ± {stats.SPREAD_NAME} half-width over seeds (sd = slowdown)"
    )


def test_bootstrap_interval_stays_inside_the_values() -> None:
    assert stats.bootstrap_mean([])[0] == 0 and math.isnan(stats.bootstrap_mean([None])[1])
    assert stats.bootstrap_mean([3.0]) == (1, 3.0, 3.0, 3.0)
    n, mean, lo, hi = stats.bootstrap_mean([1.0, 1.0, 1.0, 30.0])  # a t interval would reach below 1
    assert n == 4 and mean == 8.25 and 1.0 <= lo < mean < hi <= 30.0
    _n, _m, lo_pct, _hi = stats.bootstrap_mean([-99.9, -99.0, -20.0])
    assert lo_pct >= -99.9  # a percent change never below -100
    assert stats.bootstrap_mean([1.0, 3.0, float("nan")]) == stats.bootstrap_mean([3.0, 1.0][::-1])  # NaN dropped
    assert stats.bootstrap_mean([2.0, 5.0, 9.0]) == stats.bootstrap_mean([2.0, 5.0, 9.0])  # fixed resamples
