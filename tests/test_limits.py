"""Every number has a range: knobs, cluster sizes and generator sizes are refused with a clear
error before any work (no MemoryError, no non-finite JSON), and the ranges the help states are
the ones enforced (issue 12)."""

from __future__ import annotations

import json
import math
import re
from dataclasses import fields

import pytest
from helpers.memory import allocation_peak

from simcore.cli import main
from simcore.cli.common import write_json
from simcore.core.errors import UserError
from simcore.core.model import KNOB_HELP, KNOB_RANGES, MAX_SEED, SimConfig
from simcore.workload import MAX_NODES
from simcore.workload.presets import MAX_JOBS, PRESETS, generate

# "Refused before any work", by memory rather than by a wall clock that depends on the machine:
# a refusal allocates about 1.4 MB at most (lazy imports included), while the work it prevents
# takes gigabytes (100,000 generated jobs take 18 MB, a run on 100,000 nodes 42 MB).
REFUSED_MB = 10


def test_every_numeric_knob_has_a_range_stated_in_its_help():
    numeric = {f.name for f in fields(SimConfig) if f.type in ("int", "float")}
    assert numeric == set(KNOB_RANGES), "a numeric knob without a range (add it to KNOB_RANGES)"
    for name, allowed in KNOB_RANGES.items():
        assert f"; {allowed.text()})" in KNOB_HELP[name]
        default = getattr(SimConfig(), name)
        assert f"(default {default:g}" in KNOB_HELP[name] or f"(default {default}" in KNOB_HELP[name]


@pytest.mark.parametrize("name", sorted(KNOB_RANGES))
def test_range_ends_are_accepted_and_just_beyond_refused(name):
    allowed = KNOB_RANGES[name]
    low = (
        allowed.low if not allowed.low_open else (allowed.low + 1 if allowed.whole else math.nextafter(allowed.low, 1))
    )
    assert getattr(SimConfig().with_knobs({name: repr(low)}), name) == low
    assert getattr(SimConfig().with_knobs({name: str(allowed.high)}), name) == allowed.high
    below = allowed.low if allowed.low_open else allowed.low - (1 if allowed.whole else 1e-9)
    beyond = [below, "nan"] + ([] if math.isinf(allowed.high) else [allowed.high + (1 if allowed.whole else 1e9)])
    for value in beyond:
        with pytest.raises(ValueError, match=f"knob {name}: (must be|'nan' is not a whole number)"):
            SimConfig().with_knobs({name: str(value)})


def test_seed_parsing_is_exact_at_the_top_of_its_range():
    assert SimConfig().with_knobs({"seed": str(MAX_SEED)}).seed == MAX_SEED  # a float would round it up
    with pytest.raises(ValueError, match=re.escape(f"knob seed: must be an integer >= 0 and <= {MAX_SEED}")):
        SimConfig().with_knobs({"seed": str(MAX_SEED + 1)})


WORKLOAD = """job_id,submit_time,duration,cpu,mem_gb,gpu,job_class
1,0,1000,8,64,8,BE
2,10,20,1,8,1,TE
"""


@pytest.fixture()
def wl(tmp_path):
    p = tmp_path / "wl.csv"
    p.write_text(WORKLOAD)
    return p


@pytest.mark.parametrize(
    "knob", ["grace=1e308", "restore=1e308", "tau=1e308", "checkpoint_interval=1e-308", "P=1e308", "s=nan", "grace=inf"]
)
@pytest.mark.parametrize("command", ["run", "compare"])
def test_extreme_knobs_are_refused_before_any_file_is_written(wl, tmp_path, capsys, knob, command):
    out = tmp_path / "out.json"
    flag = "--summary-json" if command == "run" else "--json"
    assert main([command, str(wl), "--set", knob, flag, str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: knob {knob.split('=')[0]}: must be ") and "Traceback" not in err
    assert not out.exists()


def test_a_grid_file_with_huge_values_is_refused(tmp_path, capsys):
    grid = tmp_path / "grid.yaml"
    grid.write_text("preset: demo\nset: {grace: 1e308}\nseeds: 1\n")
    assert main(["sweep", str(grid), "--out", str(tmp_path / "o.parquet"), "--workers", "1"]) == 2
    assert "error: knob grace: must be a finite number >= 0 and <= 1e9 (got 1e+308)" in capsys.readouterr().err


def test_json_at_the_top_of_every_range_is_finite(tmp_path):
    # times near 2^52 s (where the clock's resolution is 1 s), the longest grace and restore, the
    # shortest periodic checkpoint, the largest tau: every number of the summary stays finite
    wl = tmp_path / "edge.csv"
    wl.write_text(
        "job_id,submit_time,duration,cpu,mem_gb,gpu,job_class\n"
        "1,4503599627370496,100000,1,1,8,BE\n2,4503599627370500,2,1,1,8,TE\n"
    )
    out = tmp_path / "s.json"
    rc = main(
        [
            "run",
            str(wl),
            "--policy",
            "k8s",
            "--nodes",
            "1",
            "--set",
            "grace=1e9",
            "--set",
            "restore=1e9",
            "--set",
            "checkpoint=periodic",
            "--set",
            "checkpoint_interval=0.001",
            "--set",
            "tau=1e9",
            "--summary-json",
            str(out),
        ]
    )
    assert rc == 0
    summary = json.loads(out.read_text(), parse_constant=lambda c: pytest.fail(f"non-finite {c} in the JSON"))
    assert summary["preemptions"] == 1 and summary["classes"]["BE"]["count"] == 1
    # the TE job waited the whole grace period, then ran 2 s: with tau = 1e9, slowdown = jct / tau
    assert summary["classes"]["TE"]["slowdown"]["p50"] == pytest.approx((1e9 + 2) / 1e9, rel=1e-15)


def test_the_json_writer_names_a_non_finite_field_and_writes_nothing(tmp_path):
    out = tmp_path / "x.json"
    with pytest.raises(UserError, match=r"x\.json: not written: classes\.TE\.slowdown\.p95 is not a finite number"):
        write_json(str(out), {"classes": {"TE": {"slowdown": {"p50": 1.0, "p95": math.inf}}}})
    with pytest.raises(UserError, match=r"items\.1 is not a finite number"):
        write_json(str(out), {"items": [1.0, math.nan]})
    assert not out.exists()


@pytest.mark.parametrize(
    "value, message",
    [
        ("10000000", f"argument --nodes: '10000000' is above the limit of {MAX_NODES}"),
        ("0", "argument --nodes: '0' must be > 0"),
    ],
)
def test_nodes_shorthand_limit_before_any_allocation(wl, capsys, value, message):
    with allocation_peak() as peak, pytest.raises(SystemExit) as exit_:
        main(["run", str(wl), "--nodes", value])
    assert exit_.value.code == 2 and message in capsys.readouterr().err
    assert peak.mb < REFUSED_MB


def test_node_shape_limit(wl, capsys):
    assert main(["run", str(wl), "--node-gpu", "1e300"]) == 2
    assert "error: --node-gpu: 1e+300 must be a finite number >= 0 and <= 1e9" in capsys.readouterr().err


@pytest.mark.parametrize("preset", sorted(PRESETS))
@pytest.mark.parametrize("param, value", [("jobs", "1e8"), ("jobs", "1e10"), ("nodes", "1e9"), ("nodes", "1e10")])
def test_generator_sizes_are_refused_before_generating(preset, param, value):
    with allocation_peak() as peak, pytest.raises(UserError) as err:
        generate(preset, 0, {param: value})
    limit = MAX_JOBS if param == "jobs" else MAX_NODES
    assert str(err.value) == f"parameter {param}: {float(value):g} is out of range (1 to {limit})"
    assert peak.mb < REFUSED_MB


def test_generate_and_sweep_commands_refuse_huge_sizes_quickly(tmp_path, capsys):
    with allocation_peak() as peak:
        assert main(["generate", "--preset", "paper", "--set", "jobs=1e9", "--out", str(tmp_path / "x.csv")]) == 2
        assert "error: parameter jobs: 1e+09 is out of range (1 to 10000000)" in capsys.readouterr().err
        assert main(["sweep", "--preset", "mmc", "--grid", "nodes=8,1e10", "--out", str(tmp_path / "s.parquet")]) == 2
        assert "error: parameter nodes: 1e+10 is out of range (1 to 100000)" in capsys.readouterr().err
        assert (
            main(["sweep", "--preset", "demo", "--seeds", "0-99999999999", "--out", str(tmp_path / "s.parquet")]) == 2
        )
        assert "100000000000 seeds, more than the limit of 100000" in capsys.readouterr().err
    assert peak.mb < REFUSED_MB
    assert not (tmp_path / "x.csv").exists() and not (tmp_path / "s.parquet").exists()


def test_a_generated_workload_beyond_the_float64_clock_is_refused():
    # one-in-1e-300 load: arrivals so far apart that the times pass 2^53 s
    with pytest.raises(UserError, match=r"preset mmc, seed 0: job \d+ reaches 2\^53 s"):
        generate("mmc", 0, {"jobs": 10, "nodes": 1, "load": 1e-300})


def test_ranges_in_the_generate_help(capsys):
    with pytest.raises(SystemExit):
        main(["generate", "--help"])
    help_text = capsys.readouterr().out
    assert re.search(r"\n    jobs +4000 +number of jobs \[1 to 10000000\]\n", help_text)
    assert re.search(r"\n    nodes +64 +number of one-GPU nodes .* \[1 to 100000\]\n", help_text)
    assert re.search(r"\n    load +1.0 +target offered GPU load .* \[> 0 and <= 1000\]\n", help_text)
    assert re.search(
        r"\n    te_gpu_w +0.8,0.2 +weights of te_gpu \(sum 1\) \[at most 64 values, each 0 to 1\]\n", help_text
    )


def test_a_grid_too_large_to_run_is_refused_before_any_point_is_built():
    from simcore.experiments import sweep

    grid = {"load": [round(0.001 * i, 3) for i in range(1, 1001)], "te_share": [i / 100 for i in range(100)]}
    with (
        allocation_peak() as peak,
        pytest.raises(
            UserError,
            match=r"^grid: up to 100000 points x 2 seeds = 200000 "
            r"tasks, above the limit of 100000 tasks$",
        ),
    ):
        sweep.build_spec(preset="demo", grids=grid, seeds=2)
    assert peak.mb < REFUSED_MB  # 200,000 tasks built one by one would take about 80 MB
    assert len(sweep.build_spec(preset="demo", grids={"load": grid["load"][:50]}, seeds=2).tasks()) == 100
