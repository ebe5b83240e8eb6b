"""The ``paper-gang`` preset (DESIGN.md section 7): the ``paper`` regime with gangs, load counted
over workers x GPUs x duration, the worker weights, determinism and its parameter checks."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from simcore.core.errors import UserError
from simcore.workload import load_workload, write_workload
from simcore.workload.presets import generate, mean_workers


def test_everything_but_workers_and_arrivals_is_drawn_as_in_paper() -> None:
    paper, gang = generate("paper", 3, {"jobs": 500}), generate("paper-gang", 3, {"jobs": 500})
    np.testing.assert_array_equal(paper.table.is_te, gang.table.is_te)
    np.testing.assert_array_equal(paper.table.duration, gang.table.duration)
    np.testing.assert_array_equal(paper.table.request, gang.table.request)  # the request is per worker
    assert not paper.table.has_gangs and gang.table.has_gangs


def test_realised_offered_load_counts_workers() -> None:
    gen = generate("paper-gang", 0)
    t = gen.table
    span = t.submit_time.max() - t.submit_time.min()
    by_hand = float(np.sum(t.workers * t.request[:, 2] * t.duration)) / (16 * 8 * span)
    assert gen.offered_load == pytest.approx(by_hand, rel=1e-12)
    # The rate uses the sample mean of workers x GPUs x duration, so the realised load is
    # load x n / (rate x span), where rate x span ~ Gamma(n - 1): relative sd 1 / sqrt(n) = 1.6%
    # at n = 4000; 5 sd = 8% keeps a false failure below 1e-6.
    assert abs(gen.offered_load - 1.0) < 0.08
    without_workers = float(np.sum(t.request[:, 2] * t.duration)) / (16 * 8 * span)
    assert without_workers < 0.8  # gangs carry a third of the work: ignoring workers would miss it


def test_worker_weights_and_te_gang_share() -> None:
    t = generate("paper-gang", 1, {"jobs": 20000}).table
    whole_node_be = ~t.is_te & (t.request[:, 2] == 8)
    assert set(t.workers[~t.is_te & ~whole_node_be].tolist()) == {1}  # smaller BE jobs stay single
    w = t.workers[whole_node_be]
    # about 0.7 x 0.9 x 20000 = 12,600 draws: the sd of a share p is sqrt(p(1-p)/12600) <= 0.0045;
    # a tolerance of 0.02 is 4.5 sd (false failure about 1e-5)
    for count, weight in ((1, 0.6), (2, 0.3), (4, 0.1)):
        assert abs(float(np.mean(w == count)) - weight) < 0.02
    te = t.workers[t.is_te]
    assert set(te.tolist()) == {1, 2}
    assert int(np.sum(te == 2)) == round(0.05 * len(te))  # exactly round(share x TE jobs), like te_share
    assert mean_workers(generate("paper-gang", 1, {"jobs": 10}).params) == pytest.approx(
        0.3 * 1.05 + 0.7 * (1 + 0.9 * 0.6)
    )
    assert mean_workers(generate("paper", 1, {"jobs": 10}).params) == 1.0


def test_same_seed_same_bytes_and_the_file_carries_workers(tmp_path: Path) -> None:
    paths = [tmp_path / f"{i}.csv" for i in range(3)]
    for path, seed in zip(paths, (7, 7, 8), strict=True):
        write_workload(generate("paper-gang", seed, {"jobs": 300}).table, path)
    assert paths[0].read_bytes() == paths[1].read_bytes() != paths[2].read_bytes()
    assert paths[0].read_text().splitlines()[0].endswith(",job_class,workers")
    again = load_workload(paths[0]).table
    np.testing.assert_array_equal(again.workers, generate("paper-gang", 7, {"jobs": 300}).table.workers)


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"nodes": 3}, "parameter be_workers: a 4-worker BE job needs 4 whole nodes, more than nodes = 3"),
        ({"be_workers_w": "0.5,0.5"}, "2 weights for 3 worker counts in be_workers"),
        ({"be_workers_w": "0.5,0.5,0.5"}, "weights 0.5,0.5,0.5 sum to 1.5"),
        ({"be_workers": "1,2.5,4"}, "parameter be_workers: 1,2.5,4 are not all whole numbers"),
        ({"te_gang_workers": 40, "nodes": 4}, "te_gang_workers: 40 workers of up to 2 GPUs do not fit on 4 nodes"),
        ({"te_gang_share": 1.5}, "parameter te_gang_share: 1.5 is out of range"),
    ],
)
def test_bad_gang_parameters_are_named(overrides: dict[str, object], message: str) -> None:
    with pytest.raises(UserError) as err:
        generate("paper-gang", 0, {"be_workers_w": "0.6,0.3,0.1", **overrides})
    assert message in str(err.value)


def test_a_four_node_cluster_still_takes_every_gang() -> None:
    gen = generate("paper-gang", 0, {"nodes": 4, "jobs": 400})
    assert int(gen.table.workers.max()) == 4 and math.isfinite(gen.offered_load)
