"""`simcore sweep --workload FILE`: a workload file (gangs included) as a sweep source."""

from __future__ import annotations

import hashlib
import json
import math
import shutil
from pathlib import Path

import pandas as pd
import pytest

from simcore import cli
from simcore.analysis import accounting
from simcore.analysis.metrics import TRIO_KEYS, versus

LESSONS = Path(__file__).resolve().parent.parent / "sample_workloads" / "lessons"
GANG, FIVE = LESSONS / "gang_victim.csv", LESSONS / "five_nodes.yaml"
POLICIES = "fifo,k8s,fitgpp:s=1,fitdelay,random"


def _sweep(capsys, *args: str) -> str:
    code = cli.main(["sweep", *args, "--workers", "1", "--no-progress"])
    out = capsys.readouterr()
    assert code == 0, out.err
    return out.out


def _error(capsys, *args: str) -> str:
    code = cli.main(list(args))
    assert code == 2
    return capsys.readouterr().err


def _compare(tmp_path: Path, capsys, *extra: str) -> dict:
    out = tmp_path / "compare.json"
    argv = ["compare", str(GANG), "--cluster", str(FIVE), "--policies", POLICIES, *extra, "--json", str(out)]
    assert cli.main(argv) == 0
    capsys.readouterr()
    return json.loads(out.read_text())


def test_file_sweep_rows_equal_single_compare_runs(tmp_path, capsys):
    out = tmp_path / "s.parquet"
    text = _sweep(
        capsys,
        "--workload", str(GANG), "--cluster", str(FIVE), "--policies", POLICIES,
        "--set", "checkpoint=none", "--seeds", "0-1", "--out", str(out),
    )  # fmt: skip
    assert "2 seed(s)" in text and "the seed feeds only the random policy" in text
    rows = pd.read_parquet(out)
    sha = hashlib.sha256(GANG.read_bytes()).hexdigest()
    assert set(rows["workload"]) == {"gang_victim.csv"} and set(rows["workload_sha256"]) == {sha}
    assert set(rows["cluster"]) == {"five_nodes.yaml"}
    for seed in (0, 1):
        ran = _compare(tmp_path, capsys, "--set", "checkpoint=none", "--set", f"seed={seed}")
        for _, row in rows[rows["seed"] == seed].iterrows():
            label = row["policy"]
            summary = ran["policies"][label]
            assert row["TE_slowdown_p95"] == summary["classes"]["TE"]["slowdown"]["p95"]
            for key in TRIO_KEYS:
                assert row[versus(key, "fifo")] == ran["vs_baseline"][label][key], (label, key)
            for key, want in accounting.flat(summary["accounting"]).items():
                got = row[key]
                assert got == want or (math.isnan(got) and math.isnan(want)), (label, key)
    # the lesson's hand-derived costs (sample_workloads/lessons/README.md, lesson e): k8s stops the
    # single 4-GPU job (2980 s done: 11,920 GPU-s lost), fitgpp with s = 1 the 4-worker gang
    # (2380 s done x 4 workers x 1 GPU: 9,520 GPU-s), fitdelay nobody
    first = rows[rows["seed"] == 0].set_index("policy")
    assert first.loc[["k8s", "fitgpp:s=1", "fitdelay"], "workers_stopped"].tolist() == [1, 4, 0]
    assert first.loc[["k8s", "fitgpp:s=1", "fitdelay"], "gpu_seconds_lost"].tolist() == [11920, 9520, 0]
    # a fixed file: only the drawing policy may differ between seeds
    fixed = rows[rows["policy"] != "random"].drop(columns=["seed", "point_id"])
    assert fixed.iloc[:4].reset_index(drop=True).equals(fixed.iloc[4:].reset_index(drop=True))


def test_resume_reuses_rows_until_the_file_changes(tmp_path, capsys):
    work = tmp_path / "w.csv"
    shutil.copy(GANG, work)
    out = tmp_path / "s.parquet"
    args = ("--workload", str(work), "--cluster", str(FIVE), "--policies", "fifo,k8s", "--out", str(out))
    assert "ran 1 task(s)" in _sweep(capsys, *args)
    assert "ran 0 task(s)" in _sweep(capsys, *args)
    # the last TE job now runs 1200 s instead of 600 s: new checksum, new key, the task runs again
    work.write_text(work.read_text().replace("7,2980,600,", "7,2980,1200,"))
    assert "ran 1 task(s)" in _sweep(capsys, *args)
    rows = pd.read_parquet(out)
    assert rows["point_id"].nunique() == 2 and rows["workload_sha256"].nunique() == 2
    new = rows[rows["workload_sha256"] == hashlib.sha256(work.read_bytes()).hexdigest()]
    assert len(new) == 2
    # another cluster is another workload too
    assert "ran 1 task(s)" in _sweep(capsys, *args[:2], "--nodes", "5", *args[4:])


def test_bad_files_and_sources_are_refused_clearly(tmp_path, capsys):
    missing = tmp_path / "none.csv"
    assert f"{missing}: cannot read the file" in _error(capsys, "sweep", "--workload", str(missing))
    bad = tmp_path / "bad.csv"
    bad.write_text(GANG.read_text().replace("6,600,7200,8,64,1,BE,4", "6,600,7200,8,64,1,BE,0"))
    err = _error(capsys, "sweep", "--workload", str(bad), "--cluster", str(FIVE), "--out", str(tmp_path / "x.pq"))
    # the loader's own message (file, row, column), as compare prints it
    assert err == _error(capsys, "compare", str(bad), "--cluster", str(FIVE))
    assert "bad.csv" in err and "workers" in err and "row" in err
    assert not (tmp_path / "x.pq").exists()
    with pytest.raises(SystemExit):  # argparse: --workload not allowed with --preset
        cli.main(["sweep", "--preset", "demo", "--workload", str(GANG)])
    assert "not allowed with argument" in capsys.readouterr().err
    grid = tmp_path / "g.yaml"
    grid.write_text("preset: demo\n")
    err = _error(capsys, "sweep", str(grid), "--workload", str(GANG))
    assert "--workload: the grid file already names a workload source (preset demo)" in err
    assert "--nodes, --cluster: only with --workload FILE" in _error(
        capsys, "sweep", "--preset", "demo", "--nodes", "2", "--cluster", str(FIVE)
    )
    err = _error(capsys, "sweep", "--workload", str(GANG), "--cluster", str(FIVE), "--grid", "jobs=1,2")
    assert "unknown knob(s) 'jobs'; a workload file has no workload parameters" in err


def test_a_gang_trace_sweeps_with_its_adapter_options(tmp_path, capsys):
    trace = LESSONS.parent / "traces" / "spot2026_job_info_df.csv"
    out = tmp_path / "t.parquet"
    args = ("--workload", str(trace), "--nodes", "8", "--policies", "fifo,k8s,fitgpp", "--out", str(out))
    code = cli.main(["sweep", *args, "--workers", "1", "--no-progress"])
    printed = capsys.readouterr()
    assert code == 0 and "on 8 x (64 CPU, 512 GiB, 8 GPU)" in printed.out
    # up front, as compare says it (DESIGN rule 8)
    assert "warning: 2 job(s) fit on no node and were not simulated: 230034, 230340" in printed.err
    compare = tmp_path / "c.json"
    argv = ["compare", str(trace), "--nodes", "8", "--policies", "fifo,k8s,fitgpp", "--json", str(compare)]
    assert cli.main(argv) == 0
    capsys.readouterr()
    ran = json.loads(compare.read_text())
    rows = pd.read_parquet(out).set_index("policy")
    for label in ("k8s", "fitgpp"):
        for key in TRIO_KEYS:
            assert rows.loc[label, versus(key, "fifo")] == ran["vs_baseline"][label][key]
    # 2 of the 38 jobs fit on no node (as compare warns); another class map is another workload
    assert set(rows["unschedulable"]) == {2} and set(rows["jobs_simulated"]) == {36}
    assert "ran 1 task(s)" in _sweep(capsys, *args, "--trace-class-map", "size")
    assert pd.read_parquet(out)["point_id"].nunique() == 2


def test_drop_invalid_sweeps_the_valid_rows(tmp_path, capsys):
    bad = tmp_path / "bad.csv"
    bad.write_text(GANG.read_text().replace("6,600,7200,8,64,1,BE,4", "6,600,7200,8,64,1,BE,0"))
    out = tmp_path / "d.parquet"
    args = ("--workload", str(bad), "--cluster", str(FIVE), "--policies", "fifo", "--out", str(out))
    _sweep(capsys, *args, "--drop-invalid")
    assert pd.read_parquet(out)["jobs_simulated"].tolist() == [6]


def test_a_process_pool_writes_the_same_bytes(tmp_path, capsys):
    # the loaded jobs travel with each task to the pool's processes
    args = ["sweep", "--workload", str(GANG), "--cluster", str(FIVE), "--policies", "fifo,random", "--seeds", "3"]
    for name, workers in (("serial", "1"), ("pool", "2")):
        assert cli.main([*args, "--out", str(tmp_path / f"{name}.parquet"), "--workers", workers, "--no-progress"]) == 0
    assert (tmp_path / "serial.parquet").read_bytes() == (tmp_path / "pool.parquet").read_bytes()
