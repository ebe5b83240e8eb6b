"""``--queues`` on the command line (DESIGN-queues points 2, 3, 12): run's files (jobs CSV's last
column, the summary's blocks, the ledger CSV), compare's per-queue table, explain and whatif naming
queues, sweep rows per queue, and the errors naming file, row and column."""

from __future__ import annotations

import csv
import json

import pandas as pd
import pytest
from helpers.two_teams import NODE, QUEUES, WORKLOAD

from simcore.analysis.queue_metrics import LEDGER_COLUMNS
from simcore.cli import main
from simcore.core.result import JOB_COLUMNS


@pytest.fixture()
def files(tmp_path):
    wl, q = tmp_path / "w.csv", tmp_path / "q.csv"
    wl.write_text(WORKLOAD)
    q.write_text(QUEUES)
    return wl, q


def test_run_writes_the_queue_column_the_summary_blocks_and_the_ledger(files, tmp_path, capsys):
    wl, q = files
    jobs, summ, led = tmp_path / "j.csv", tmp_path / "s.json", tmp_path / "l.csv"
    args = ["run", str(wl), "--policy", "k8s", *NODE, "--queues", str(q)]
    assert main([*args, "--jobs-out", str(jobs), "--summary-json", str(summ), "--ledger-out", str(led)]) == 0
    frame = pd.read_csv(jobs)
    assert list(frame.columns) == [*JOB_COLUMNS, "queue"]
    assert frame["queue"].tolist() == ["A", "A", "B", "B"]
    summary = json.loads(summ.read_text())
    assert list(summary["queues"]) == ["A", "B"] and summary["queue_warnings"] == []
    b = summary["queues"]["B"]
    assert (b["gpu"], b["borrow_limit"], b["weight"], b["jobs"]) == (4.0, "inf", 1.0, 2)
    assert b["preemptions_caused"] == {"reclaim": 1, "te_first": 1}
    assert b["preemptions_suffered"] == {"reclaim": 0, "te_first": 1}
    assert summary["queues"]["A"]["preemptions_suffered"] == {"reclaim": 1, "te_first": 0}
    # the ledger: one row per decision, lists joined by ;, per-queue values as queue=value
    with open(led, newline="") as fh:
        rows = list(csv.reader(fh))
    assert rows[0] == list(LEDGER_COLUMNS)
    assert rows[1] == [
        "10.0", "reclaim", "B", "b1", "BE", "a2", "A", "4",
        "B=0;A=8", "B=0;A=8", "B=0;A=8", "B=0;A=4", "B=0;A=4", "B=0;A=4",
    ]  # fmt: skip
    assert rows[2][:8] == ["40.0", "te_first", "B", "t1", "TE", "b1", "B", "4"]
    out = capsys.readouterr().out
    assert "reclaimed" in out and out.splitlines()[-3].startswith("A ")


def test_ledger_out_needs_queues(files, capsys):
    wl, _ = files
    assert main(["run", str(wl), "--policy", "k8s", *NODE, "--ledger-out", "x.csv"]) == 2
    assert "--ledger-out lists the preemptions between queues: give --queues FILE too" in capsys.readouterr().err


def test_a_job_of_an_unknown_queue_is_refused_by_row_and_column(files, tmp_path, capsys):
    wl, _ = files
    q = tmp_path / "onlyA.csv"
    q.write_text("queue,gpu\nA,8\n")
    assert main(["run", str(wl), *NODE, "--queues", str(q)]) == 2
    err = capsys.readouterr().err
    assert f"{wl}: refused: 2 job(s) name a queue that {q} does not define (known: A)" in err
    assert "row 4, column queue: queue 'B' is not in the queues file" in err
    assert "Traceback" not in err


def test_a_bad_queues_file_is_refused_by_row_and_column(files, tmp_path, capsys):
    wl, _ = files
    q = tmp_path / "bad.csv"
    q.write_text("queue,gpu,weight\nA,-4,1\nB,4,0\n")
    assert main(["run", str(wl), *NODE, "--queues", str(q)]) == 2
    err = capsys.readouterr().err
    assert "row 2, column gpu: must be >= 0" in err and "row 3, column weight: must be a finite number > 0" in err


def test_overcommitted_quotas_and_jobs_above_their_limit_are_said_on_stderr(files, tmp_path, capsys):
    wl, _ = files
    q = tmp_path / "over.csv"
    q.write_text("queue,gpu,borrow_limit\nA,6,0\nB,3,0\n")  # 9 > 8 GPUs; b1 (4 GPUs) is above B's 3
    summ = tmp_path / "s.json"
    assert main(["run", str(wl), *NODE, "--queues", str(q), "--summary-json", str(summ)]) == 0
    err = capsys.readouterr().err
    assert "warning: the queues' quotas add up to 9 GPUs, more than the cluster's 8" in err
    assert "warning: 1 job(s) are above its queue's limit and were not simulated: b1" in err
    summary = json.loads(summ.read_text())
    assert summary["unschedulable_reasons"] == {"b1": "above its queue's limit"}
    assert summary["queue_warnings"][0].startswith("the queues' quotas add up to 9 GPUs")


def test_compare_prints_a_table_per_queue_and_policy(files, capsys):
    wl, q = files
    assert main(["compare", str(wl), "--policies", "fifo,k8s", *NODE, "--queues", str(q)]) == 0
    lines = capsys.readouterr().out.splitlines()
    head = next(i for i, x in enumerate(lines) if x.startswith("queue "))
    assert [x.split()[:2] for x in lines[head + 1 : head + 5]] == [
        ["A", "fifo"],
        ["A", "k8s"],
        ["B", "fifo"],
        ["B", "k8s"],
    ]


def test_explain_names_the_queues_of_a_reclaim(files, capsys):
    wl, q = files
    assert main(["explain", str(wl), "a2", "--policy", "k8s", *NODE, "--queues", str(q)]) == 0
    out = capsys.readouterr().out
    assert "in queue 'A' (quota 4 GPUs, borrow limit inf)" in out
    assert "to make room for BE job b1 of queue 'B' (a reclaim: 'B' was within its quota of 4 GPUs" in out
    assert "'A' ran 8 GPUs against its quota of 4)" in out


def test_whatif_adds_a_job_to_a_queue(files, capsys):
    wl, q = files
    spec = "duration=30,cpu=2,mem_gb=2,gpu=2,class=TE,queue=A"
    assert main(["whatif", str(wl), "--add", spec + ",submit=5", "--policy", "k8s", *NODE, "--queues", str(q)]) == 0
    assert "starts at" in capsys.readouterr().out


def test_a_sweep_over_a_file_with_queues_keeps_per_queue_columns(files, tmp_path):
    wl, q = files
    out = tmp_path / "s.parquet"
    args = ["sweep", "--workload", str(wl), *NODE, "--queues", str(q), "--policies", "fifo,k8s", "--out", str(out)]
    assert main([*args, "--workers", "1", "--no-progress"]) == 0
    rows = pd.read_parquet(out)
    assert rows.loc[rows["policy"] == "k8s", "queue_B_reclaims"].tolist() == [1.0]
    assert "queue_A_TE_slowdown_p95" in rows.columns


def test_report_runs_with_the_queues_and_its_command_names_them(files, tmp_path):
    wl, q = files
    out = tmp_path / "r.html"
    assert main(["report", str(wl), "--policies", "fifo,k8s", *NODE, "--queues", str(q), "--out", str(out)]) == 0
    assert f"--queues {q}" in out.read_text()


def test_the_report_has_a_queues_section(files, tmp_path):
    """The per-queue table of each policy, the usage figure and the ledger (fifo: none; k8s: b1
    reclaims a2 at 10 s, t1 takes its own team's b1 at 40 s); without queues no such section."""
    wl, q = files
    out, plain = tmp_path / "r.html", tmp_path / "plain.html"
    assert main(["report", str(wl), "--policies", "fifo,k8s", *NODE, "--queues", str(q), "--out", str(out)]) == 0
    html = out.read_text()
    section = html.split("<h2>Queues</h2>")[1]
    assert "<td>k8s</td><td>B</td><td>4</td><td>inf</td><td>1</td><td>2</td>" in section  # quota, limit, weight, jobs
    assert 'id="chart-queues-usage"' in section
    ledger = section.split("<h4>k8s</h4>")[1]
    assert (
        "<td>day 1 00:00:10</td><td>reclaim</td><td>B</td><td>b1</td><td>BE</td><td>job a2 of A (4 GPUs)</td>" in ledger
    )
    assert (
        "<td>day 1 00:00:40</td><td>te_first</td><td>B</td><td>t1</td><td>TE</td><td>job b1 of B (4 GPUs)</td>"
        in ledger
    )
    assert "<p>fifo: no preemption.</p>" in section
    assert main(["report", str(wl), "--policies", "fifo,k8s", *NODE, "--out", str(plain)]) == 0
    assert "<h2>Queues</h2>" not in plain.read_text()
