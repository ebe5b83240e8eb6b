"""Analytic check: FIFO on an M/M/c-shaped workload against Erlang C.

The workload is built here with numpy (not with the presets): c one-GPU nodes (1 CPU,
1 GiB), all jobs BE with 1 GPU / 1 CPU / 1 GiB, exponential service times of mean
1000 s, Poisson arrivals at rate lambda = rho * c * mu (first arrival at t = 0).

Two checks per configuration:
1. Exact: with identical one-slot jobs and one-slot nodes, FIFO is the textbook c-server
   FIFO queue, whose waits follow the recursion "start = max(arrival, earliest free
   server)". The simulated waits must equal it job for job (up to float noise).
2. Statistical: the mean wait after a warm-up against the Erlang-C formula
   Wq = C(c, a) / (c mu - lambda), a = lambda / mu, and the fraction of jobs that wait
   against C(c, a).

Tolerance, from the run length: waits are strongly autocorrelated, so the standard error
is estimated by batch means (B = 20 consecutive batches of the post-warm-up jobs; each
batch, thousands of jobs, spans hundreds of the queue's relaxation times, about
1 / (c mu (1 - sqrt(rho))^2) ~ 1e4 s at c = 8, rho = 0.8, so batch means are close to
independent). The batch-means statistic (mean - Wq) / SE follows roughly Student's t with
B - 1 = 19 degrees of freedom; |t| > 4.5 has probability about 3e-4, so asserting within
4.5 SE fails only when the simulator is off. With the run lengths chosen below the SE is
about 5-8% of Wq (measured over 60 seeds of the reference recursion, where the batch SE
also matched the seed-to-seed spread within ~20%), so a relative error of more than about
35% (c = 8) or 25% (c = 2) in the mean wait cannot pass. The seeds are fixed: the
test is deterministic.
"""

from __future__ import annotations

import heapq
import math

import numpy as np
import pytest

from simcore.core.model import ClusterSpec, JobTable, SimConfig
from simcore.engine import simulate

MEAN_SERVICE = 1000.0
BATCHES = 20
Z_MAX = 4.5


def mmc_workload(c: int, rho: float, n: int, seed: int) -> JobTable:
    rng = np.random.default_rng(seed)
    lam = rho * c / MEAN_SERVICE
    arrivals = np.cumsum(rng.exponential(1.0 / lam, n))
    arrivals -= arrivals[0]
    durations = rng.exponential(MEAN_SERVICE, n)
    return JobTable(
        job_id=np.array([str(i) for i in range(n)], dtype=object),
        submit_time=arrivals,
        duration=durations,
        request=np.ones((n, 3)),
        is_te=np.zeros(n, dtype=bool),
    )


def erlang_c(c: int, a: float) -> float:
    """Probability that an arrival waits in M/M/c with offered load a = lambda/mu < c."""
    top = a**c / math.factorial(c) * c / (c - a)
    return top / (sum(a**k / math.factorial(k) for k in range(c)) + top)


def fifo_waits_reference(submit: np.ndarray, duration: np.ndarray, c: int) -> np.ndarray:
    free = [0.0] * c
    waits = np.empty(len(submit))
    for i, (s, d) in enumerate(zip(submit, duration, strict=True)):
        f = heapq.heappop(free)
        start = max(f, s)
        waits[i] = start - s
        heapq.heappush(free, start + d)
    return waits


def batch_mean_and_se(x: np.ndarray) -> tuple[float, float]:
    means = np.array([b.mean() for b in np.array_split(x, BATCHES)])
    return float(x.mean()), float(means.std(ddof=1) / math.sqrt(BATCHES))


@pytest.mark.parametrize(
    ("c", "rho", "n", "seed"),
    [
        (8, 0.8, 50_000, 11),  # Wq ~ 286 s, P(wait) ~ 0.46
        (2, 0.6, 25_000, 12),  # Wq ~ 562 s, P(wait) ~ 0.45
    ],
)
def test_fifo_mmc_matches_erlang_c(c, rho, n, seed):
    jobs = mmc_workload(c, rho, n, seed)
    r = simulate(jobs, ClusterSpec.uniform(c, 1, 1, 1), SimConfig(policy="fifo"))
    jf = r.jobs_frame
    assert list(jf["job_id"]) == list(jobs.job_id)
    waits = jf["wait"].to_numpy()

    # 1. exact: the c-server FIFO recursion
    ref = fifo_waits_reference(jobs.submit_time, jobs.duration, c)
    bad = np.flatnonzero(~np.isclose(waits, ref, rtol=0, atol=1e-6))
    assert bad.size == 0, (
        f"{bad.size} waits differ from the FIFO recursion, first job {bad[0]}: {waits[bad[0]]} vs {ref[bad[0]]}"
    )
    np.testing.assert_allclose(jf["finish"] - jf["first_start"], jobs.duration, atol=1e-6)

    # 2. statistical: Erlang C, dropping the first 10% as warm-up (the queue starts empty)
    mu = 1.0 / MEAN_SERVICE
    lam = rho * c * mu
    p_wait = erlang_c(c, lam / mu)
    wq = p_wait / (c * mu - lam)
    w = waits[n // 10 :]
    mean, se = batch_mean_and_se(w)
    assert se < 0.1 * wq, f"run too short to be a meaningful check: SE {se:.1f} vs Wq {wq:.1f}"
    assert abs(mean - wq) < Z_MAX * se, f"mean wait {mean:.1f} vs Erlang-C {wq:.1f} (SE {se:.1f})"
    frac, se_frac = batch_mean_and_se((w > 0).astype(float))
    assert abs(frac - p_wait) < Z_MAX * se_frac, f"P(wait) {frac:.3f} vs Erlang-C {p_wait:.3f} (SE {se_frac:.4f})"


def test_erlang_c_formula_known_values():
    # M/M/1: C = rho; M/M/2 at a = 1 (rho 0.5): C = 1/3.
    assert erlang_c(1, 0.7) == pytest.approx(0.7)
    assert erlang_c(2, 1.0) == pytest.approx(1.0 / 3.0)
