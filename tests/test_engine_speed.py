"""The speed changes of issue 21's compiled round (docs/testing.md#the-compiled-engine-second-round):
each faster form against what it replaces."""

from __future__ import annotations

import gc

import numpy as np
import pytest

from simcore.engine import simulate
from simcore.engine.queue_order import _has_equal
from simcore.model import SimConfig
from simcore.presets import generate
from simcore.workload.fit import _shapes


@pytest.mark.parametrize("n", [1, 2, 3, 50, 2000])
@pytest.mark.parametrize("high", [1, 3, 10**12])
def test_shapes_are_numpys_unique_rows(n, high):
    rng = np.random.default_rng(n + high)
    req = rng.integers(0, high, size=(n, 3), dtype=np.int64)
    shapes, inverse = _shapes(req)
    want, want_inverse = np.unique(req, axis=0, return_inverse=True)
    assert shapes.tolist() == want.tolist()
    assert inverse.tolist() == want_inverse.reshape(-1).tolist()


@pytest.mark.parametrize("keys", [[5], [1, 2, 3], [3, 1, 3], [-1, 0, 1, -1], list(range(1000)) + [999]])
def test_has_equal_says_whether_a_key_repeats(keys):
    key = np.array(keys, dtype=np.int64)
    assert _has_equal(key) == (len(np.unique(key)) < len(key))


@pytest.mark.parametrize("enabled", [True, False])
def test_a_run_leaves_the_collector_as_it_found_it(enabled):
    wl = generate("paper", 0, {"jobs": 50})
    was = gc.isenabled()
    try:
        gc.enable() if enabled else gc.disable()
        simulate(wl.table, wl.cluster, SimConfig(policy="fitgpp"))
        assert gc.isenabled() == enabled
    finally:
        gc.enable() if was else gc.disable()


def _cycles_left(preset: str, jobs: int, policy: str, grace: float) -> int:
    """Objects in reference cycles a run leaves behind (the collector is off during runs)."""
    wl = generate(preset, 0, {"jobs": jobs})
    gc.collect()
    was = gc.isenabled()
    gc.disable()
    try:
        simulate(wl.table, wl.cluster, SimConfig(policy=policy, grace=grace))
        return gc.collect()
    finally:
        if was:
            gc.enable()


@pytest.mark.parametrize(
    "preset,policy,grace", [("paper", "fitgpp", 0.0), ("paper", "random", 30.0), ("paper-gang", "lrtp", 30.0)]
)
def test_a_run_makes_no_cycles_per_event(preset, policy, grace):
    """The collector is off while a run steps: that is safe because the garbage in cycles a run
    leaves does not grow with its length (a few objects per run, none per event)."""
    assert _cycles_left(preset, 200, policy, grace) == _cycles_left(preset, 2000, policy, grace)
