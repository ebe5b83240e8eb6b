"""Integer resource units (DESIGN.md section 2): rounding on load, the note, exact use.

CPU counts in millicores, memory in MiB, GPUs in thousandths; each value is rounded to the
nearest unit, ties to even. The tie values below are exact halves in float64 after scaling
(x * 1000 or x * 1024 is exactly k + 0.5), so the expected units are certain.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from helpers import cluster_of, job, run

from simcore.analysis.metrics import summarize
from simcore.cli import main as cli_main
from simcore.core import units
from simcore.core.errors import UserError


@pytest.mark.parametrize(
    ("value", "dim", "expected"),
    [
        # ties go to the even unit
        (0.0005, 0, 0),
        (0.0015, 0, 2),
        (0.0025, 0, 2),
        (0.0035, 0, 4),
        (0.5 / 1024, 1, 0),
        (1.5 / 1024, 1, 2),
        (2.5 / 1024, 1, 2),
        (0.0005, 2, 0),
        (0.0015, 2, 2),
        # ordinary rounding to the nearest unit
        (0.0004, 0, 0),
        (0.0006, 0, 1),
        (127.599, 0, 127599),
        (0.1, 1, 102),
        (0.333, 2, 333),
        # whole values are exact
        (64.0, 0, 64000),
        (512.0, 1, 524288),
        (8.0, 2, 8000),
        (0.25, 2, 250),
    ],
)
def test_requests_round_to_nearest_unit_ties_to_even(value, dim, expected):
    v = np.zeros((1, 3))
    v[0, dim] = value
    u = units.requests(v)
    assert u.dtype == np.int64
    assert int(u[0, dim]) == expected
    assert units.capacities(v)[0, dim] == expected
    assert units.rounded(v)[0, dim] == expected / units.SCALE[dim]


def test_count_rounded_counts_each_changed_value():
    v = np.array([[0.0005, 1.0, 0.001], [1.0004, 0.1, 0.5], [64.0, 512.0, 8.0]])
    # changed: 0.0005 (-> 0), 1.0004 (-> 1.0), 0.1 GiB (-> 102 MiB); 0.001 GPU and 0.5 are whole units
    assert units.count_rounded(v) == 3
    assert units.count_rounded(np.zeros((0, 3))) == 0


def test_rounding_note_says_how_many_values_changed():
    whole = np.array([[4.0, 16.0, 1.0], [0.5, 0.25, 0.125]])
    assert units.rounding_note(whole, np.array([[64.0, 512.0, 8.0]])) is None
    note = units.rounding_note(np.array([[0.0004, 1.0, 1.0], [1.0, 0.1, 1.0]]), np.array([[64.0001, 512.0, 8.0]]))
    assert note is not None
    assert note.startswith("2 job request values and 1 node capacity value rounded to whole units")
    assert "millicores" in note and "MiB" in note and "thousandths of a GPU" in note
    assert units.rounding_note(np.array([[0.0004, 1.0, 1.0]])).startswith("1 job request value rounded")


def test_inverse_capacity_is_zero_for_zero_capacity():
    inv = units.inverse(np.array([[64000, 0, 8000]], dtype=np.int64))
    assert inv[0, 1] == 0.0
    assert inv[0, 0] == 1.0 / 64000 and inv[0, 2] == 1.0 / 8000


def test_capacity_above_the_supported_range_is_refused_and_huge_requests_are_unschedulable():
    with pytest.raises(UserError, match=r"big-0: cpu capacity 1e\+20 is above the largest supported"):
        units.capacities(np.array([[1e20, 1.0, 1.0]]), ["big-0"])
    assert units.requests(np.array([[1e300, 0.0, 0.0]]))[0, 0] == units.TOO_BIG
    r = run([job("huge", 0, 10, 1, cpu=1e300), job("ok", 0, 10, 1)], cluster_of((64, 512, 8)))
    assert r.unschedulable == ("huge",)


def test_simulation_uses_the_rounded_values():
    # A node of 64 CPU. 64.0004 CPU rounds to 64000 millicores: it fits; 64.0006 (64001) does not.
    # Two jobs of 32.0004 (32000 each) fit together exactly: they run side by side.
    r = run([job("a", 0, 10, 0, cpu=64.0004), job("b", 0, 10, 0, cpu=64.0006)], cluster_of((64, 512, 8)))
    assert r.unschedulable == ("b",)
    r = run([job("a", 0, 10, 0, cpu=32.0004), job("b", 0, 10, 0, cpu=32.0004)], cluster_of((64, 512, 8)))
    assert r.jobs_frame["first_start"].tolist() == [0.0, 0.0]
    # a capacity below half a unit is zero: a request of one unit there never fits
    r = run([job("g", 0, 10, 0.001)], cluster_of((64, 512, 0.0004)))
    assert r.unschedulable == ("g",)


def test_utilisation_counts_what_the_engine_allocated():
    # One node of 2 CPU, 1 GPU; one job of 1.0004 CPU (allocated: 1 core) and 0.0004 GPU
    # (allocated: 0) for 10 s. cpu_utilization = 1 x 10 / (2 x 10); GPU: nothing allocated.
    s = summarize(run([job("a", 0, 10, 0.0004, cpu=1.0004, mem=1)], cluster_of((2, 4, 1))))
    assert s["cpu_utilization"] == 0.5
    assert s["gpu_utilization"] == 0.0 and s["gpu_useful_utilization"] == 0.0


def test_cli_prints_the_rounding_note_on_stderr(tmp_path, capsys):
    wl = tmp_path / "w.csv"
    wl.write_text(
        "job_id,submit_time,duration,cpu,mem_gb,gpu,job_class\n"
        "1,0,10,0.0004,1,1,BE\n"  # cpu changes
        "2,0,10,1,0.1,0.0005,TE\n"  # mem (102.4 MiB) and gpu (half a thousandth) change
        "3,0,10,1,1,1,BE\n"
    )
    out = tmp_path / "s.json"
    args = [
        "run",
        str(wl),
        "--policy",
        "fifo",
        "--nodes",
        "1",
        "--node-cpu",
        "8.0001",
        "--node-mem-gb",
        "64",
        "--node-gpu",
        "8",
        "--summary-json",
        str(out),
    ]
    assert cli_main(args) == 0
    err = capsys.readouterr().err
    assert "note: 3 job request values and 1 node capacity value rounded to whole units" in err
    assert json.loads(out.read_text())["classes"]["all"]["count"] == 3
    # whole values: no note
    wl.write_text("job_id,submit_time,duration,cpu,mem_gb,gpu,job_class\n1,0,10,0.5,0.25,1,BE\n")
    assert cli_main(["run", str(wl), "--nodes", "1"]) == 0
    assert "rounded" not in capsys.readouterr().err


def test_cli_refuses_a_capacity_beyond_the_supported_range(tmp_path, capsys):
    wl = tmp_path / "w.csv"
    wl.write_text("job_id,submit_time,duration,cpu,mem_gb,gpu,job_class\n1,0,10,1,1,1,BE\n")
    assert cli_main(["run", str(wl), "--nodes", "1", "--node-cpu", "1e20"]) == 2
    # the CLI's own range (1e9 cores) refuses it first; units.capacities guards the library API
    assert "error: --node-cpu: 1e+20 must be a finite number >= 0 and <= 1e9" in capsys.readouterr().err


def test_scalar_twins_give_the_same_doubles_as_the_vectorised_rules():
    """``l1_one`` / ``norm_round_one`` (victim searches over a few sets) against ``l1`` / ``norm_round``,
    bit for bit, on random rows, capacities from tiny to the largest supported, and exact halves of 1e-9."""
    rng = np.random.default_rng(7)
    cap = rng.integers(1, units.MAX_UNITS, size=(2000, 3), endpoint=True) // rng.integers(1, 10**12, size=(2000, 3))
    cap[::7, 2] = 0  # a zero capacity: 1/capacity 0
    inv = units.inverse(cap)
    diff = rng.integers(-(2**40), 2**40, size=(2000, 3)) // rng.integers(1, 10**9, size=(2000, 3))
    vector = units.norm_round(units.l1(diff, inv))
    scalar = [units.norm_round_one(units.l1_one(d, i)) for d, i in zip(diff.tolist(), inv.tolist(), strict=True)]
    assert np.array_equal(vector, np.array(scalar)) and all(type(v) is float for v in scalar)
    halves = [0.5e-9, 1.5e-9, 2.5e-9, 1e-9 * (2**52 + 0.5)]  # ties go to the even count, as rint does
    assert [units.norm_round_one(v) for v in halves] == units.norm_round(np.array(halves)).tolist()
