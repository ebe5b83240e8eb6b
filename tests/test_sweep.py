"""Sweeps: executors agree byte for byte, resume completes without duplicates, aggregation is exact,
bad grids get clear errors."""

from __future__ import annotations

import argparse
import math
import os
import signal
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from helpers import wait_until

from simcore.cli import build_parser
from simcore.core.errors import UserError
from simcore.experiments import sweep

SMALL = {"jobs": 60, "nodes": 2}
SAMPLES = Path(__file__).resolve().parent.parent / "sample_workloads"


def small_spec(**kw) -> sweep.SweepSpec:
    args = {
        "preset": "demo",
        "fixed": SMALL,
        "grids": {"load": [0.8, 1.0]},
        "seeds": 2,
        "policies": "fifo,priority,fitgpp,fitgpp:P=1",
        "baseline": "fifo,priority",
    }
    args.update(kw)
    return sweep.build_spec(**args)


@pytest.fixture(scope="session")  # once per process: the executors' test runs first (helpers.order)
def reference(tmp_path_factory) -> tuple[pd.DataFrame, bytes, bytes]:
    """The small grid run in this process: rows, Parquet bytes, CSV bytes."""
    d = tmp_path_factory.mktemp("ref")
    report = sweep.run_sweep(small_spec(), d / "rows.parquet", workers=1, csv=d / "rows.csv")
    return report.rows, (d / "rows.parquet").read_bytes(), (d / "rows.csv").read_bytes()


def test_rows_shape_and_trio(reference):
    rows, _, _ = reference
    assert len(rows) == 2 * 2 * 4
    assert list(rows["policy"][:4]) == ["fifo", "priority", "fitgpp", "fitgpp:P=1"]
    assert rows.duplicated(list(sweep.ID_COLUMNS)).sum() == 0
    assert "wall_seconds" not in rows.columns
    assert (rows["jobs_simulated"] == 60).all()
    # per-policy knobs land in the knob columns; the trio is recomputable from the same rows
    assert set(rows.loc[rows["policy"] == "fitgpp:P=1", "P"]) == {1}
    assert set(rows.loc[rows["policy"] == "fitgpp", "P"]) == {2}
    for (_pid, _seed), g in rows.groupby(["point_id", "seed"]):
        base = g.set_index("policy").loc["fifo", "TE_slowdown_p95"]
        for _, r in g.iterrows():
            expect = (r["TE_slowdown_p95"] - base) / base * 100
            assert r["TE_p95_slowdown_pct_vs_fifo"] == pytest.approx(expect, rel=1e-12)
        assert (g.loc[g["policy"] == "fifo", "BE_p50_slowdown_pct_vs_fifo"] == 0).all()


@pytest.mark.parametrize("executor", [{"workers": 2}, {"workers": 2, "dask": "local"}], ids=["pool", "dask"])
def test_executors_give_identical_rows(tmp_path, reference, executor):
    rows, parquet, csv = reference
    report = sweep.run_sweep(small_spec(), tmp_path / "rows.parquet", csv=tmp_path / "rows.csv", **executor)
    pd.testing.assert_frame_equal(report.rows, rows)
    assert (tmp_path / "rows.csv").read_bytes() == csv
    assert (tmp_path / "rows.parquet").read_bytes() == parquet


class Interrupted(Exception):
    pass


def test_resume_after_interruption_completes_without_duplicates(tmp_path, reference):
    rows, parquet, _ = reference
    out = tmp_path / "rows.parquet"
    seen = []

    def stop_after_three(task):
        seen.append(task.key)
        if len(seen) == 3:
            raise Interrupted

    with pytest.raises(Interrupted):
        sweep.run_sweep(small_spec(), out, workers=1, on_task=stop_after_three)
    # the interrupted run left its finished tasks as part files, and no merged file
    assert not out.exists()
    assert len(list(sweep.parts_dir(out).glob("*.parquet"))) == 3
    assert len(sweep.read_rows(out)) == 3 * 4

    report = sweep.run_sweep(small_spec(), out, workers=2)
    assert (report.skipped_tasks, report.ran_tasks) == (3, 1)
    assert not sweep.parts_dir(out).exists()
    stored = pd.read_parquet(out)
    assert stored.duplicated(list(sweep.ID_COLUMNS)).sum() == 0
    pd.testing.assert_frame_equal(stored, rows)
    assert out.read_bytes() == parquet

    again = sweep.run_sweep(small_spec(), out, workers=1)
    assert (again.skipped_tasks, again.ran_tasks) == (4, 0)
    assert out.read_bytes() == parquet


def test_limit_then_extend_grid(tmp_path, reference):
    out = tmp_path / "rows.parquet"
    first = sweep.run_sweep(small_spec(), out, workers=1, limit=1)
    assert first.ran_tasks == 1 and len(pd.read_parquet(out)) == 4
    # a larger grid reuses the stored tasks and keeps one row per (point, seed, policy)
    bigger = small_spec(grids={"load": [0.8, 1.0, 0.6]})
    report = sweep.run_sweep(bigger, out, workers=1)
    assert (report.skipped_tasks, report.ran_tasks) == (1, 5)
    stored = pd.read_parquet(out)
    assert len(stored) == 3 * 2 * 4 and stored.duplicated(list(sweep.ID_COLUMNS)).sum() == 0
    pd.testing.assert_frame_equal(
        report.rows[report.rows["load"] != 0.6].reset_index(drop=True), reference[0], check_dtype=False
    )


def hand_table() -> pd.DataFrame:
    """Two policies on one point, three seeds; values chosen to make the arithmetic easy by hand."""
    rows = []
    for seed, (a, b) in enumerate([(1.0, 2.0), (2.0, 4.0), (3.0, 6.5)]):
        for policy, value in (("a", a), ("b", b)):
            rows.append({"point_id": "p", "seed": seed, "policy": policy, "load": 1.0, "TE_slowdown_p95": value})
    return pd.DataFrame(rows)


def test_aggregate_on_a_hand_made_table():
    agg = sweep.aggregate(hand_table()).set_index("policy")
    # a: 1, 2, 3 -> mean 2, sd 1, half-width t(0.975, 2) x 1 / sqrt(3) = 4.302653 / 1.732051 = 2.484138
    a = agg.loc["a"]
    assert a["metric"] == "TE_slowdown_p95" and a["n"] == 3
    assert a["mean"] == pytest.approx(2.0) and a["sd"] == pytest.approx(1.0)
    assert a["ci_low"] == pytest.approx(2 - 2.484138, abs=1e-6) and a["ci_high"] == pytest.approx(
        2 + 2.484138, abs=1e-6
    )
    # b: 2, 4, 6.5 -> mean 4.166667, sd sqrt(((13/6)^2 + (1/6)^2 + (14/6)^2) / 2) = 2.254625, half 5.600799
    b = agg.loc["b"]
    assert b["mean"] == pytest.approx(25 / 6) and b["sd"] == pytest.approx(2.254625, abs=1e-6)
    assert b["ci_high"] - b["mean"] == pytest.approx(5.600799, abs=1e-5)


def test_paired_differences_on_a_hand_made_table():
    paired = sweep.paired_differences(hand_table(), "a")
    assert len(paired) == 1
    r = paired.iloc[0]
    # b - a: 1, 2, 3.5 -> mean 13/6, sd sqrt(57)/6 = 1.258306, half 4.302653 x 1.258306 / sqrt(3) = 3.125804
    assert (r["policy"], r["baseline"], r["n"]) == ("b", "a", 3)
    assert r["mean_diff"] == pytest.approx(13 / 6)
    assert r["sd"] == pytest.approx(math.sqrt(57) / 6)
    assert r["ci_low"] == pytest.approx(13 / 6 - 3.125804, abs=1e-5)
    assert r["ci_high"] == pytest.approx(13 / 6 + 3.125804, abs=1e-5)


def test_aggregate_over_a_grid_axis():
    t = hand_table()
    t["window"] = t["seed"]  # three windows of one seed each, as in the real-trace study
    t["point_id"] = "w" + t["window"].astype(str)
    t["seed"] = 0
    agg = sweep.aggregate(t, over="window").set_index("policy")
    assert agg.loc["a", "n"] == 3 and agg.loc["a", "mean"] == pytest.approx(2.0)
    assert "window" not in agg.columns
    assert sweep.paired_differences(t, "a", over="window").iloc[0]["mean_diff"] == pytest.approx(13 / 6)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"grids": {"load": []}}, "grid load: expected a non-empty list"),
        ({"grids": {"lod": [1.0]}}, "unknown parameter 'lod'"),
        ({"grids": {"grace": [-1]}}, "knob grace: must be a finite number >= 0"),
        ({"grids": {"checkpoint": ["sometimes"]}}, "knob checkpoint: must be one of"),
        ({"grids": {"seed": [1, 2]}}, "'seed' cannot be a grid or set key"),
        ({"fixed": {"te_share": "-1"}}, "parameter te_share"),
        ({"seeds": "5-2"}, "seeds '5-2'"),
        ({"seeds": "a,b"}, "seeds 'a,b'"),
        ({"seeds": 0}, "seeds 0"),
        ({"policies": "fifo,nope"}, "unknown policy 'nope'"),
        ({"policies": "fitgpp:P"}, "'P' is not KEY=VALUE"),
        ({"policies": "fitgpp:P=x"}, "knob P"),
        ({"policies": "fifo,fifo"}, "fifo listed twice"),
        ({"baseline": "k8s"}, "baseline 'k8s' is not among the policies"),
        ({"preset": "nosuch"}, "unknown preset 'nosuch'"),
        ({"preset": None, "alibaba": "/nonexistent/trace", "fixed": {}, "grids": {"nodes": [4]}}, "not found"),
        (
            {"preset": None, "alibaba": "/nonexistent/trace", "fixed": {}, "grids": {"jobs": [4]}},
            "unknown parameter(s) jobs",
        ),
        ({"preset": "demo", "alibaba": "/nonexistent/trace"}, "choose one workload source"),
    ],
)
def test_bad_specs_are_user_errors(kwargs, message):
    with pytest.raises(UserError) as err:
        small_spec(**kwargs)
    assert message in str(err.value)


@pytest.mark.parametrize(
    ("arg", "message"),
    [("load", "expected KEY=V1,V2"), ("load=", "empty value"), ("load=1,,2", "empty value"), ("=1,2", "expected KEY")],
)
def test_bad_grid_arguments(arg, message):
    with pytest.raises(UserError) as err:
        sweep.parse_grid_arg(arg)
    assert message in str(err.value)


def test_grid_argument_values():
    assert sweep.parse_grid_arg("load=0.8,1,1.0") == ("load", [0.8, 1, 1])
    assert sweep.parse_grid_arg("checkpoint=none,periodic") == ("checkpoint", ["none", "periodic"])
    assert sweep.parse_grid_arg("be_gpu_w=0.1,0,0.1,0.8;0.05,0,0.05,0.9") == (
        "be_gpu_w",
        ["0.1,0,0.1,0.8", "0.05,0,0.05,0.9"],
    )
    assert sweep.parse_seeds(3) == (0, 1, 2) and sweep.parse_seeds("4-6") == (4, 5, 6)
    assert sweep.parse_seeds("1,9") == (1, 9) and sweep.parse_seeds([2, 3]) == (2, 3)


def test_grid_file_errors(tmp_path):
    bad_key = tmp_path / "g.yaml"
    bad_key.write_text("preset: demo\ngrids: {load: [1]}\n")
    with pytest.raises(UserError, match="unknown key.*grids"):
        sweep.load_spec_file(bad_key)
    bad_yaml = tmp_path / "h.yaml"
    bad_yaml.write_text("grid: {load: [1\n")
    with pytest.raises(UserError, match="not valid YAML"):
        sweep.load_spec_file(bad_yaml)
    bad_json = tmp_path / "h.json"
    bad_json.write_text("{")
    with pytest.raises(UserError, match="not valid JSON"):
        sweep.load_spec_file(bad_json)
    with pytest.raises(UserError, match="grid file .*missing"):
        sweep.load_spec_file(tmp_path / "missing.yaml")
    not_list = tmp_path / "i.yaml"
    not_list.write_text("grid: [1, 2]\n")
    with pytest.raises(UserError, match="'grid' must be a mapping"):
        sweep.load_spec_file(not_list)


def test_union_of_grids_shares_the_centre():
    spec = small_spec(grids=[{"grace": [30, 120]}, {"restore": [60, 300]}, {"load": ["1.0", 0.5]}])
    # the centre (grace 30, restore 60, load 1 = the defaults, given explicitly in each curve) is one point
    assert len(spec.points) == 4
    assert len({sweep.point_id(spec.source, p) for p in spec.points}) == 4
    assert dict(spec.points[0]) == SMALL
    report = sweep.run_sweep(replace(spec, seeds=(0,), policies=spec.policies[:2]), None)
    agg = sweep.aggregate(report.rows, ["TE_slowdown_p95"])
    assert (agg["n"] == 1).all() and len(agg) == 4 * 2


def parser() -> argparse.ArgumentParser:
    return build_parser("sweep")


def test_cli_sweep_with_grid_file_and_outputs(tmp_path, capsys):
    grid = tmp_path / "grid.yaml"
    grid.write_text(
        "preset: demo\nset: {jobs: 60, nodes: 2}\ngrid: {load: [0.8, 1.0]}\nseeds: 2\n"
        "policies: [fifo, priority, fitgpp, 'fitgpp:P=1']\nbaseline: [fifo, priority]\n"
    )
    out = tmp_path / "rows.parquet"
    args = parser().parse_args(
        [
            "sweep",
            str(grid),
            "--out",
            str(out),
            "--workers",
            "1",
            "--no-progress",
            "--summary-csv",
            str(tmp_path / "s.csv"),
            "--paired-csv",
            str(tmp_path / "p.csv"),
        ]
    )
    assert args.func(args) == 0
    text = capsys.readouterr().out
    assert "2 point(s) x 2 seed(s) = 4 task(s)" in text and "16 simulations" in text
    assert "fitgpp:P=1" in text and "TE p95 % vs fifo" in text
    summary = pd.read_csv(tmp_path / "s.csv")
    assert set(summary["policy"]) == {"fifo", "priority", "fitgpp", "fitgpp:P=1"}
    # every metric has both seeds, except the victims' size where a policy preempted nothing
    assert set(summary.loc[summary["n"] != 2, "metric"]) <= {"victim_gpu_mean"}
    paired = pd.read_csv(tmp_path / "p.csv")
    assert set(paired["baseline"]) == {"fifo"}
    rows = pd.read_parquet(out)
    # the printed mean is the mean of the stored rows
    mean = rows.loc[(rows["policy"] == "fitgpp") & (rows["load"] == 1.0), "TE_p95_slowdown_pct_vs_fifo"].mean()
    got = summary[
        (summary["policy"] == "fitgpp")
        & (summary["load"] == 1.0)
        & (summary["metric"] == "TE_p95_slowdown_pct_vs_fifo")
    ]["mean"].item()
    assert got == pytest.approx(mean)

    # the same command again runs nothing; --grid on the command line adds an axis
    args = parser().parse_args(["sweep", str(grid), "--out", str(out), "--workers", "1", "--no-progress"])
    args.func(args)
    assert "ran 0 task(s) (0 simulations)" in capsys.readouterr().out
    args = parser().parse_args(["sweep", str(grid), "--grid", "load=0.5", "--out", str(out), "--workers", "1"])
    with pytest.raises(UserError, match="already an axis"):
        args.func(args)


def test_cli_sweep_grid_options(tmp_path, capsys):
    out = tmp_path / "rows.parquet"
    args = parser().parse_args(
        [
            "sweep",
            "--preset",
            "demo",
            "--set",
            "jobs=40",
            "--set",
            "nodes=2",
            "--grid",
            "grace=0,120",
            "--grid",
            "te_share=0.2,0.4",
            "--seeds",
            "3-4",
            "--policies",
            "fifo,k8s",
            "--out",
            str(out),
            "--workers",
            "1",
            "--no-progress",
            "--csv",
            str(tmp_path / "rows.csv"),
        ]
    )
    assert args.func(args) == 0
    rows = pd.read_csv(tmp_path / "rows.csv")
    assert len(rows) == 4 * 2 * 2
    assert sorted(set(rows["seed"])) == [3, 4]
    assert sorted(set(zip(rows["grace"], rows["te_share"], strict=True))) == [
        (0, 0.2),
        (0, 0.4),
        (120, 0.2),
        (120, 0.4),
    ]
    assert np.isfinite(rows["TE_p95_slowdown_pct_vs_fifo"]).all()


# --- a damaged store, and workers that die with the sweep -----------------------------------


def _interrupted_after_three(out):
    seen = []

    def stop(task):
        seen.append(task.key)
        if len(seen) == 3:
            raise Interrupted

    with pytest.raises(Interrupted):
        sweep.run_sweep(small_spec(), out, workers=1, on_task=stop)
    return sorted(sweep.parts_dir(out).glob("*.parquet"))


@pytest.mark.parametrize("damage", ["garbage", "wrong-schema", "other-task"])
def test_a_bad_part_is_set_aside_by_name_and_its_task_runs_again(tmp_path, reference, damage):
    rows, parquet, _ = reference
    out = tmp_path / "rows.parquet"
    parts = _interrupted_after_three(out)
    victim = parts[1]
    if damage == "garbage":
        victim.write_bytes(b"PAR1 this is not parquet \x00\xff" * 20)
    elif damage == "wrong-schema":  # readable Parquet, but not sweep rows: it used to be merged as a junk row
        pd.DataFrame({"a": [1], "b": ["x"]}).to_parquet(victim)
    else:  # sweep rows, but of the task another part holds
        pd.read_parquet(parts[0]).to_parquet(victim)
    notes = []
    report = sweep.run_sweep(small_spec(), out, workers=1, log=notes.append)
    # reported by name, renamed to NAME.bad next to it, and its task simply ran again
    why = {
        "garbage": "is not a readable Parquet file",
        "wrong-schema": "has the wrong columns (missing point_id, seed",
        "other-task": "begins with rows of another task than its name says",
    }[damage]
    assert notes == report.notes and len(notes) == 1
    assert notes[0].startswith(f"part file {victim} {why}") and f"set aside as {victim.name}.bad" in notes[0]
    assert (report.skipped_tasks, report.ran_tasks) == (2, 2)
    assert not victim.exists() and victim.with_name(victim.name + ".bad").exists()
    # the merged output is exactly the undamaged sweep's, the set-aside file stays for inspection
    assert out.read_bytes() == parquet
    pd.testing.assert_frame_equal(pd.read_parquet(out), rows)
    assert [p.name for p in sweep.parts_dir(out).iterdir()] == [victim.name + ".bad"]


def test_cli_warns_about_a_set_aside_part(tmp_path, capsys):
    out = tmp_path / "rows.parquet"
    parts = _interrupted_after_three(out)
    parts[0].write_bytes(b"garbage")
    args = parser().parse_args(
        [
            "sweep",
            "--preset",
            "demo",
            "--set",
            "jobs=60",
            "--set",
            "nodes=2",
            "--grid",
            "load=0.8,1.0",
            "--seeds",
            "2",
            "--policies",
            "fifo,priority,fitgpp,fitgpp:P=1",
            "--baseline",
            "fifo,priority",
            "--out",
            str(out),
            "--workers",
            "1",
            "--no-progress",
        ]
    )
    assert args.func(args) == 0
    err = capsys.readouterr().err
    assert f"warning: part file {parts[0]} is not a readable Parquet file" in err and "Traceback" not in err


def test_a_damaged_merged_output_refuses_to_resume_with_the_fix(tmp_path):
    out = tmp_path / "rows.parquet"
    out.write_bytes(b"not parquet at all")
    with pytest.raises(UserError) as err:
        sweep.run_sweep(small_spec(), out, workers=1)
    assert str(err.value).startswith(f"{out} is not a readable Parquet file")
    assert f"(mv {out} {out}.bad)" in str(err.value)
    assert out.read_bytes() == b"not parquet at all"  # never overwritten


def _processes() -> dict[int, tuple[int, str]]:
    """pid -> (parent pid, state) from /proc."""
    out = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as fh:
                    fields = fh.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            out[int(entry)] = (int(fields[1]), fields[0])
    return out


def _descendants(root: int) -> set[int]:
    procs, found, frontier = _processes(), set(), {root}
    while frontier:
        frontier = {p for p, (parent, _) in procs.items() if parent in frontier and p not in found}
        found |= frontier
    return found


def _cpu_seconds(pids: set[int]) -> float:
    """User plus system CPU time the processes have used so far, from /proc."""
    ticks = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        ticks += int(fields[11]) + int(fields[12])  # utime, stime
    return ticks / os.sysconf("SC_CLK_TCK")


def _running(pids: set[int]) -> set[int]:
    procs = _processes()
    return {p for p in pids if p in procs and procs[p][1] != "Z"}


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_pool_workers_die_when_the_sweep_is_killed(tmp_path):
    # tasks of 100,000 jobs x 2 policies run for many seconds, so the workers are busy when killed
    sweep_cmd = [
        sys.executable,
        "-m",
        "simcore",
        "sweep",
        "--preset",
        "paper",
        "--set",
        "jobs=100000",
        "--seeds",
        "4",
        "--workers",
        "2",
        "--policies",
        "fifo,priority",
        "--out",
        str(tmp_path / "k.parquet"),
        "--no-progress",
    ]
    proc = subprocess.Popen(sweep_cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=tmp_path)
    try:
        # wait (on a condition, however loaded the machine) until the pool's processes have done
        # 3 CPU seconds between them: past their initializer (imports) and computing
        wait_until(
            lambda: len(_descendants(proc.pid)) >= 3 and _cpu_seconds(_descendants(proc.pid)) >= 3,
            "the sweep's pool to start and compute",
        )
        family = _descendants(proc.pid)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    try:  # 60 s bounds a stuck worker, it is not a speed test: they go at once
        wait_until(lambda: not _running(family), "the pool's processes to exit after the sweep was killed", 60)
    finally:
        for pid in _running(family):  # do not leave them behind even when the test fails
            os.kill(pid, signal.SIGKILL)


# --- one policy-spec grammar for run, compare, sweep and the dashboard -------------------------


def _compare_json(tmp_path, policies: str, name: str) -> dict:
    import json

    from simcore.cli import main as cli_main

    out = tmp_path / f"{name}.json"
    argv = [
        "compare",
        str(SAMPLES / "demo.csv"),
        "--cluster",
        str(SAMPLES / "demo_cluster.yaml"),
        "--policies",
        policies,
        "--json",
        str(out),
    ]
    assert cli_main(argv) == 0
    data = json.loads(out.read_text())
    for summary in data["policies"].values():
        summary.pop("wall_seconds")
    return data


def test_spaced_and_compact_specs_are_one_policy_in_compare_and_sweep(tmp_path, reference):
    from simcore.policies.spec import parse_policy

    assert parse_policy(" fitgpp : P = 1 : s=4 ").label == parse_policy("fitgpp:P=1:s=4").label == "fitgpp:P=1:s=4"
    spaced = _compare_json(tmp_path, "fifo, fitgpp: P=1", "spaced")
    compact = _compare_json(tmp_path, "fifo,fitgpp:P=1", "compact")
    assert list(spaced["policies"]) == ["fifo", "fitgpp:P=1"] and spaced == compact
    assert spaced["policies"]["fitgpp:P=1"]["knobs"]["P"] == 1
    rows, _, _ = reference  # policies fifo,priority,fitgpp,fitgpp:P=1
    spaced_rows = sweep.run_sweep(
        small_spec(policies="fifo, priority ,fitgpp,fitgpp: P=1"), tmp_path / "s.parquet", workers=1
    ).rows
    pd.testing.assert_frame_equal(spaced_rows, rows)


def test_an_empty_knob_value_is_one_error_everywhere(tmp_path, capsys):
    from dashboard.shared.scenario import parse_policy_names
    from simcore.analysis.compare import parse_policy_list
    from simcore.cli import main as cli_main
    from simcore.core.model import SimConfig

    message = "policy 'fitgpp:P=': 'P=' is not KEY=VALUE"
    errors = []
    for call in (
        lambda: small_spec(policies="fifo,fitgpp:P="),
        lambda: parse_policy_list("fifo,fitgpp:P=", SimConfig()),
        lambda: parse_policy_names("fifo,fitgpp:P="),
    ):
        with pytest.raises(UserError) as err:
            call()
        errors.append(str(err.value))
    wl = [str(SAMPLES / "demo.csv"), "--cluster", str(SAMPLES / "demo_cluster.yaml")]
    for argv in (["run", *wl, "--policy", "fitgpp:P="], ["compare", *wl, "--policies", "fifo,fitgpp:P="]):
        assert cli_main(argv) == 2
        errors.append(capsys.readouterr().err.strip().removeprefix("error: "))
    assert errors == [message] * 5


def test_dashboard_policy_lists_take_names_only():
    from dashboard.shared.scenario import parse_policy_names

    assert parse_policy_names("fifo, fitgpp,fifo,") == ("fifo", "fitgpp")  # a URL may repeat a name
    with pytest.raises(ValueError, match="knob widgets"):
        parse_policy_names("fitgpp:P=1")
    with pytest.raises(ValueError, match="unknown policy 'nope'"):
        parse_policy_names("fifo,nope")
    with pytest.raises(ValueError, match="empty"):
        parse_policy_names(" , ")
