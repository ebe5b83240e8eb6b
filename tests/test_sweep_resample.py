"""A workload file swept with an interval (issue 33, point 4): each seed draws the file's jobs again (the
bootstrap of :mod:`simcore.workload.resample`), and its cluster's size may be swept (``nodes`` on identical
nodes). On the command line (``simcore sweep --workload FILE --resample bootstrap --grid nodes=...``), every
row equal to a run of the drawn jobs on that many nodes, computed here apart from the sweep."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from simcore import cli
from simcore.analysis.metrics import flat_summary, summarize
from simcore.core.model import ClusterSpec, SimConfig
from simcore.engine import simulate
from simcore.workload import load_workload
from simcore.workload.resample import bootstrap

SAMPLES = Path(__file__).resolve().parent.parent / "sample_workloads"
DEMO = SAMPLES / "demo.csv"
GANG = SAMPLES / "lessons" / "gang_victim.csv"
SHAPE = ("--node-cpu", "64", "--node-mem-gb", "512", "--node-gpu", "8")


def test_the_bootstrap_draws_as_many_jobs_with_replacement_by_its_seed_alone() -> None:
    table = load_workload(DEMO).table
    drawn = bootstrap(table, 5)
    assert len(drawn) == len(table) and len(set(drawn.job_id)) == len(drawn)  # ids stay unique
    assert (bootstrap(table, 5).job_id == drawn.job_id).all() and not (bootstrap(table, 6).job_id == drawn.job_id).all()
    assert np.all(np.diff(drawn.submit_time) >= 0)  # in submit order
    # each drawn row is a job of the file, whole: its copies named <id>~2, ~3, ... in the order drawn
    original = pd.DataFrame({"id": table.job_id, "t": table.submit_time, "d": table.duration}).set_index("id")
    base = [j.split("~")[0] for j in drawn.job_id]
    assert (original.loc[base, "t"].to_numpy() == drawn.submit_time).all()
    assert (original.loc[base, "d"].to_numpy() == drawn.duration).all()
    copies = [j for j in drawn.job_id if "~" in j]
    assert copies and all(j.split("~")[1].isdigit() and int(j.split("~")[1]) >= 2 for j in copies)
    # with replacement: some jobs twice, some not at all (400 draws of 400: about 37% left out)
    assert 0.25 < 1 - len(set(base)) / len(table) < 0.5


def test_a_gang_is_drawn_whole() -> None:
    table = load_workload(GANG).table
    drawn = bootstrap(table, 1)
    by_id = dict(zip(table.job_id, table.workers, strict=True))
    assert [by_id[j.split("~")[0]] for j in drawn.job_id] == list(drawn.workers)


def test_a_resampled_file_swept_over_its_cluster_size_gives_the_runs_of_its_draws(tmp_path, capsys) -> None:
    out = tmp_path / "rs.parquet"
    argv = ["sweep", "--workload", str(DEMO), "--nodes", "4", *SHAPE, "--grid", "nodes=3,5", "--resample", "bootstrap"]
    argv += ["--seeds", "0-1", "--policies", "fifo,fitgpp", "--out", str(out), "--workers", "1", "--no-progress"]
    assert cli.main(argv) == 0
    text = capsys.readouterr().out
    assert "its jobs drawn again for each seed (bootstrap)" in text
    assert "mean ± 1.96 sd over the resampled workloads (a bootstrap 95% interval of the metric on this file)" in text
    rows = pd.read_parquet(out)
    assert len(rows) == 2 * 2 * 2 and set(rows["resample"]) == {"bootstrap"}
    assert set(zip(rows["nodes"], rows["cluster"], strict=True)) == {
        (3, "3 x (64 CPU, 512 GiB, 8 GPU)"),
        (5, "5 x (64 CPU, 512 GiB, 8 GPU)"),
    }
    table = load_workload(DEMO).table
    for _, row in rows.iterrows():
        cluster = ClusterSpec.uniform(int(row["nodes"]), 64, 512, 8)
        result = simulate(
            bootstrap(table, int(row["seed"])), cluster, SimConfig(policy=row["policy"], seed=row["seed"])
        )
        flat = flat_summary(result, summarize(result))
        for metric in ("TE_slowdown_p95", "BE_slowdown_p50", "preemptions", "makespan"):
            assert row[metric] == pytest.approx(flat[metric], nan_ok=True), (row["seed"], row["nodes"], metric)
    # the seeds differ now: the file's draws are not the same workload
    fifo = rows[(rows["policy"] == "fifo") & (rows["nodes"] == 3)]
    assert fifo["TE_slowdown_p95"].nunique() == 2


def test_without_resampling_a_file_sweep_keeps_its_rows_and_its_resume_keys(tmp_path, capsys) -> None:
    """No --resample and no nodes: the rows and resume keys of a file sweep are what they were."""
    from simcore.experiments.sweep.filesource import FILE_COLUMNS, file_source

    data = DEMO.read_bytes()
    table, cluster = load_workload(DEMO).table, ClusterSpec.uniform(4, 64, 512, 8)
    plain, drawn = (
        file_source(DEMO, data, table, cluster),
        file_source(DEMO, data, table, cluster, resample="bootstrap"),
    )
    assert plain.key() == ["file", "demo.csv", plain.sha256, plain.options, plain.cluster_digest]
    assert drawn.key() == [*plain.key(), "resample=bootstrap"]
    jobs, _, params, _ = plain.load({}, seed=3)
    assert jobs is table and list(params) == list(FILE_COLUMNS)  # the file as it is, whatever the seed


MIXED = "nodes:\n  - {name: big, count: 1, cpu: 64, mem_gb: 512, gpu: 8}\n  - {name: small, count: 2, cpu: 32, mem_gb: 256, gpu: 4}\n"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--workload", str(DEMO), "--cluster", "MIXED", "--grid", "nodes=2,4"], "has nodes of different sizes"),
        (["--preset", "demo", "--resample", "bootstrap"], "--resample: only with --workload FILE"),
        (["--workload", str(DEMO), "--grid", "nodes=0,2"], "nodes 0: expected a whole number of nodes from 1"),
        (["--workload", str(DEMO), "--grid", "jobs=10"], "unknown knob(s) 'jobs'; a workload file has no workload"),
    ],
)
def test_what_a_file_sweep_refuses(tmp_path, capsys, argv: list[str], message: str) -> None:
    mixed = tmp_path / "mixed.yaml"
    mixed.write_text(MIXED)
    argv = [str(mixed) if a == "MIXED" else a for a in argv]
    out = tmp_path / "never.parquet"
    assert cli.main(["sweep", *argv, "--workers", "1", "--no-progress", "--out", str(out)]) == 2
    assert message in capsys.readouterr().err and not out.exists()  # refused before anything ran
