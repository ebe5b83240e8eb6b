"""Statistics over replicates (seeds, trace windows): the one place every table and chart gets its spread.

Two intervals, each for what it suits (each named once, below):

- the Student-t interval of a mean (:func:`mean_ci`), for the CLI sweep summary, the paired
  differences and every number in RESULTS.md: quantiles from :mod:`scipy.stats`;
- the percentile-bootstrap interval of a mean (:func:`bootstrap_mean`), the dashboard's one
  spread over seeds (Explore's cards, the Sweep's whiskers) of skewed, bounded quantities
  (slowdown >= 1, a percent change >= -100): a resampled mean never leaves the values' range,
  where a t interval over a few seeds can.

Paired differences (:func:`paired_diff`) subtract two policies' values on the same workload
(same point and seed), which removes the workload-to-workload noise that dominates single runs.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable

import numpy as np
import pandas as pd

LEVEL = 0.95
#: What every "mean [spread]" of the CLI and RESULTS.md shows: the Student-t confidence interval
#: of the mean over the replicates at :data:`LEVEL` (:func:`mean_ci`).
SPREAD_NAME = f"{LEVEL:.0%} CI"
#: What the dashboard shows around a mean over seeds (Explore's cards, the Sweep's whiskers): the
#: percentile-bootstrap interval of :func:`bootstrap_mean`, which never leaves the values' range.
BOOTSTRAP_NAME = f"{LEVEL:.0%} bootstrap CI"


def _finite(values: Iterable[float | None]) -> np.ndarray:
    return np.asarray([v for v in values if v is not None and math.isfinite(v)], dtype=float)


@functools.lru_cache(maxsize=1024)
def t_quantile(p: float, df: int) -> float:
    """The ``p`` quantile of Student's t with ``df`` >= 1 degrees of freedom (remembered: scipy's
    ``ppf`` costs milliseconds a call, and a study asks for the same few thousands of times)."""
    from scipy import stats as sps  # a second to import: only once an interval is computed

    if df < 1 or not 0 < p < 1:
        raise ValueError("t_quantile needs df >= 1 and 0 < p < 1")
    return float(sps.t.ppf(p, df))


def mean_ci(values: Iterable[float | None], level: float = LEVEL) -> tuple[int, float, float, float, float]:
    """(n, mean, sd, ci_low, ci_high) over the finite values; sd and the CI are NaN when n < 2."""
    x = _finite(values)
    n = len(x)
    if n == 0:
        return 0, math.nan, math.nan, math.nan, math.nan
    mean = float(x.mean())
    if n < 2:
        return 1, mean, math.nan, math.nan, math.nan
    sd = float(x.std(ddof=1))
    half = t_quantile(0.5 + level / 2, n - 1) * sd / math.sqrt(n)
    return n, mean, sd, mean - half, mean + half


def paired_diff(a: pd.Series, b: pd.Series) -> np.ndarray:
    """``a - b`` on the index labels both have (a's order): each replicate against itself."""
    common = a.index.intersection(b.index)
    return a.loc[common].to_numpy(dtype=float) - b.loc[common].to_numpy(dtype=float)


def bootstrap_mean(
    values: Iterable[float | None], level: float = LEVEL, resamples: int = 2000
) -> tuple[int, float, float, float]:
    """(n, mean, lo, hi) over the finite values: the mean and its percentile-bootstrap interval.

    Resamples come from a fixed seed, so the same values give the same interval. lo = hi = mean
    for a single value or equal values; all NaN for none.
    """
    x = _finite(values)
    n = len(x)
    if n == 0:
        return 0, math.nan, math.nan, math.nan
    mean = float(x.mean())
    if x.min() == x.max():  # every resample is the same (scipy calls the data degenerate)
        return n, mean, mean, mean
    from scipy import stats as sps

    ci = sps.bootstrap(
        (x,),
        np.mean,
        n_resamples=resamples,
        confidence_level=level,
        method="percentile",
        rng=np.random.default_rng(0),
    ).confidence_interval
    lo, hi = float(ci.low), float(ci.high)
    # a mean of nearly equal values can round a hair past them: clip to the values' range
    return n, mean, float(max(min(lo, mean), x.min())), float(min(max(hi, mean), x.max()))
