"""Synthetic presets: determinism, the shape DESIGN.md section 7 asks for, parameter checks,
and the sample_workloads/ files regenerating byte-identically."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from helpers.paths import ROOT

from simcore.core.errors import UserError
from simcore.workload import load_workload, write_workload
from simcore.workload.presets import PRESETS, generate, resolve_params
from simcore.workload.samples import SAMPLES, write_samples


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_same_seed_same_bytes_other_seed_other_bytes(preset: str, tmp_path: Path) -> None:
    small = {"jobs": 300}
    paths = []
    for i, seed in enumerate((5, 5, 6)):
        gen = generate(preset, seed, small)
        paths.append(tmp_path / f"{i}.csv")
        write_workload(gen.table, paths[-1])
    a, b, c = (p.read_bytes() for p in paths)
    assert a == b
    assert a != c


def test_string_and_value_overrides_are_the_same() -> None:
    a = generate("demo", 3, {"jobs": "50", "be_gpu_w": "0.25,0.25,0.25,0.25", "load": "0.8"})
    b = generate("demo", 3, {"jobs": 50, "be_gpu_w": [0.25, 0.25, 0.25, 0.25], "load": 0.8})
    assert a.params == b.params
    np.testing.assert_array_equal(a.table.request, b.table.request)
    np.testing.assert_array_equal(a.table.submit_time, b.table.submit_time)


def test_paper_shape() -> None:
    gen = generate("paper", 1)
    t = gen.table
    assert len(t) == 4000 and len(gen.cluster.nodes) == 16
    assert gen.cluster.nodes[0].capacity.gpu == 8 and gen.cluster.nodes[0].capacity.cpu == 64
    assert t.is_te.sum() == round(0.3 * 4000)
    assert t.submit_time[0] == 0 and np.all(np.diff(t.submit_time) >= 0)
    for arr in (t.submit_time, t.duration, t.request[:, 0], t.request[:, 1]):
        assert np.all(arr == np.round(arr)), "whole seconds and integer resources"
    te_d, be_d = t.duration[t.is_te], t.duration[~t.is_te]
    assert te_d.min() >= 30 and te_d.max() <= 7200
    assert be_d.min() >= 300 and be_d.max() <= 3 * 86400
    assert abs(np.median(te_d) - 1200) < 150 and abs(np.median(be_d) - 28800) < 2500
    gpu = t.request[:, 2]
    assert set(np.unique(gpu[t.is_te])) == {1, 2}
    assert set(np.unique(gpu[~t.is_te])) <= {1, 4, 8}  # weight 0 for 2 GPUs
    assert abs(np.mean(gpu[~t.is_te] == 8) - 0.9) < 0.03
    per_gpu_cpu, per_gpu_mem = t.request[:, 0] / gpu, t.request[:, 1] / gpu
    assert per_gpu_cpu.min() == 4 and per_gpu_cpu.max() == 8
    assert per_gpu_mem.min() == 16 and per_gpu_mem.max() == 64
    assert gen.params["be_max_s"] == 3 * 86400


def test_realised_load_near_target_over_many_jobs() -> None:
    for load in (0.5, 0.9):
        gen = generate("paper", 2, {"jobs": 40000, "load": load})
        assert gen.offered_load == pytest.approx(load, rel=0.03)


def test_mmc_shape_and_load() -> None:
    gen = generate("mmc", 0, {"nodes": 10, "jobs": 50000, "load": 0.8})
    t = gen.table
    assert not t.is_te.any()
    assert np.all(t.request == 1.0)
    assert all(n.capacity.cpu == 1 and n.capacity.mem_gb == 1 and n.capacity.gpu == 1 for n in gen.cluster.nodes)
    assert t.duration.mean() == pytest.approx(1000, rel=0.02)
    assert not np.all(t.duration == np.round(t.duration)), "mmc durations are not rounded"
    assert gen.offered_load == pytest.approx(0.8, rel=0.03)
    gaps = np.diff(t.submit_time)
    assert gaps.std() / gaps.mean() == pytest.approx(1.0, abs=0.03), "exponential gaps"


def test_be_max_follows_median_unless_set() -> None:
    assert resolve_params("paper", {"be_median_s": 86400})["be_max_s"] == 6 * 86400
    assert resolve_params("paper", {"be_max_s": 1000})["be_max_s"] == 1000


def test_clip_bounds_hold_with_wide_sigma() -> None:
    gen = generate(
        "demo", 0, {"te_sigma": 4, "be_sigma": 4, "te_min_s": 60, "te_max_s": 600, "be_min_s": 700, "be_max_s": 900}
    )
    t = gen.table
    assert t.duration[t.is_te].min() == 60 and t.duration[t.is_te].max() == 600
    assert t.duration[~t.is_te].min() == 700 and t.duration[~t.is_te].max() == 900


def test_te_share_extremes() -> None:
    assert generate("demo", 0, {"te_share": 0}).table.is_te.sum() == 0
    assert generate("demo", 0, {"te_share": 1}).table.is_te.all()


@pytest.mark.parametrize(
    ("preset", "overrides", "message"),
    [
        ("nope", {}, "unknown preset 'nope' (known: paper, demo, paper-gang, teams, mmc)"),
        ("paper", {"jobz": 1}, "unknown parameter 'jobz'"),
        ("paper", {"jobs": 0}, "parameter jobs: 0 is out of range (1 to 10000000)"),
        ("paper", {"jobs": "1.5"}, "parameter jobs: '1.5' is not a whole number"),
        ("paper", {"load": 0}, "parameter load: 0 is out of range (> 0 and <= 1000)"),
        ("paper", {"load": "inf"}, "parameter load: inf is not a finite number"),
        ("paper", {"load": "abc"}, "parameter load: 'abc' is not a number"),
        ("paper", {"te_share": 1.5}, "parameter te_share: 1.5 is out of range (0 to 1)"),
        (
            "paper",
            {"be_gpu_w": "0.5,0.5"},
            "parameter be_gpu_w: 2 weights for 4 GPU counts in be_gpu (lengths must match)",
        ),
        (
            "paper",
            {"be_gpu_w": "0.5,0.5,0.5,0"},
            "parameter be_gpu_w: weights 0.5,0.5,0.5,0 sum to 1.5 (they must sum to 1)",
        ),
        ("paper", {"te_gpu_w": "1.2,-0.2"}, "parameter te_gpu_w: 1.2 is out of range (each value 0 to 1)"),
        ("paper", {"te_gpu": "1,x"}, "parameter te_gpu: '1,x' is not a comma-separated list of numbers"),
        ("paper", {"te_gpu": ""}, "parameter te_gpu: '' is not a comma-separated list of numbers"),
        (
            "paper",
            {"te_min_s": 100, "te_max_s": 50},
            "parameter te_min_s: 100 is above te_max_s = 50 (the clip range is empty)",
        ),
        ("paper", {"node_gpu": 4}, "parameter be_gpu: a 8-GPU job asks for up to 8 GPUs, more than node_gpu = 4"),
        ("paper", {"node_cpu": 32}, "a 8-GPU job asks for up to 64 CPU cores, more than node_cpu = 32"),
        ("paper", {"cpu_per_gpu_min": 9}, "parameter cpu_per_gpu_min: 9 is above cpu_per_gpu_max = 8"),
        ("mmc", {"mean_s": -1}, "parameter mean_s: -1 is out of range (> 0 and <= 1e9)"),
        ("mmc", {"te_share": 0.5}, "unknown parameter 'te_share'"),
    ],
)
def test_bad_parameters_are_named(preset: str, overrides: dict[str, object], message: str) -> None:
    with pytest.raises(UserError) as err:
        generate(preset, 0, overrides)
    assert message in str(err.value)


def test_bad_seed() -> None:
    with pytest.raises(UserError, match="seed"):
        generate("demo", -1)


def test_generated_files_load_back(tmp_path: Path) -> None:
    for preset in PRESETS:
        gen = generate(preset, 0, {"jobs": 200})
        write_workload(gen.table, tmp_path / "w.csv")
        back = load_workload(tmp_path / "w.csv").table
        np.testing.assert_array_equal(back.submit_time, gen.table.submit_time)
        np.testing.assert_array_equal(back.duration, gen.table.duration)
        np.testing.assert_array_equal(back.request, gen.table.request)
        np.testing.assert_array_equal(back.is_te, gen.table.is_te)


def test_sample_workloads_regenerate_byte_identically(tmp_path: Path) -> None:
    written = write_samples(tmp_path)
    committed = ROOT / "sample_workloads"
    assert {p.name for p in written} >= {name for name, *_ in SAMPLES} | {"README.md", "demo_cluster.yaml"}
    for path in written:
        relative = path.relative_to(tmp_path)
        assert path.read_bytes() == (committed / relative).read_bytes(), relative
        assert path.stat().st_size < 1_000_000


def test_demo_sample_and_its_cluster_file() -> None:
    from simcore.workload import load_cluster

    cluster = load_cluster(ROOT / "sample_workloads" / "demo_cluster.yaml").cluster
    assert len(cluster.nodes) == 4
    assert all((n.capacity.cpu, n.capacity.mem_gb, n.capacity.gpu) == (64, 512, 8) for n in cluster.nodes)
    assert len(load_workload(ROOT / "sample_workloads" / "demo.csv").table) == 400
    assert math.isfinite(generate("demo", 0).offered_load)
