"""Node-events files and ``--node-events FILE`` (DESIGN rule 12): the reader's errors (file, row,
column, why), the option on every command that runs a scenario, and the outputs it adds."""

from __future__ import annotations

import csv
import json

import pytest

from simcore.cli import main
from simcore.core.downtime import NodeEvents, NodeWindow
from simcore.core.model import ClusterSpec
from simcore.workload import WorkloadError
from simcore.workload.node_events import load_node_events

WORKLOAD = """job_id,submit_time,duration,cpu,mem_gb,gpu,job_class
a,0,100,8,8,8,BE
b,0,100,8,8,8,BE
t,10,20,1,1,1,TE
"""
CLUSTER = ["--nodes", "2", "--node-cpu", "8", "--node-mem-gb", "8", "--node-gpu", "8"]
TWO = ClusterSpec.uniform(2, 8, 8, 8)


@pytest.fixture()
def files(tmp_path):
    wl = tmp_path / "wl.csv"
    wl.write_text(WORKLOAD)
    ev = tmp_path / "down.csv"
    ev.write_text("node,start,end,kind\nn1,50,80,failure\nn0,200,300,Maintenance\n")
    return wl, ev


def test_the_file_reads_to_windows_in_file_order(files):
    _, ev = files
    events = load_node_events(ev, TWO)
    assert events == NodeEvents((NodeWindow("n1", 50, 80, "failure"), NodeWindow("n0", 200, 300, "maintenance")))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("node,start,end\nn0,1,2\n", "row 1 (the header), column kind: required column missing"),
        ("node,start,end,kind,why\nn0,1,2,failure,x\n", "row 1 (the header), column why: unknown column"),
        ("node,start,end,kind\nn7,1,2,failure\n", "row 2, column node: no node of the cluster is named 'n7'"),
        ("node,start,end,kind\n,1,2,failure\n", "row 2, column node: empty"),
        ("node,start,end,kind\nn0,x,2,failure\n", "row 2, column start: must be a number of seconds (got 'x')"),
        ("node,start,end,kind\nn0,-1,2,failure\n", "row 2, column start: must be a finite number >= 0 (got -1)"),
        ("node,start,end,kind\nn0,1,inf,failure\n", "row 2, column end: must be a finite number >= 0 (got inf)"),
        ("node,start,end,kind\nn0,5,5,failure\n", "row 2, column end: must be after start (5 <= 5)"),
        ("node,start,end,kind\nn0,1,1e300,failure\n", "row 2, column end: must be at most 2^53 s"),
        ("node,start,end,kind\nn0,1,2,repair\n", "row 2, column kind: must be failure or maintenance (got 'repair')"),
        ("node,start,end,kind\nn0,1,2,failure\n\nn1,3,2,failure\n", "row 4, column end: must be after start"),
        ("node,start,end,kind\nn0,1,2\n", "row 2: has 3 values but the header has 4 columns"),
    ],
)
def test_a_bad_file_is_refused_naming_file_row_and_column(tmp_path, text, expected):
    p = tmp_path / "bad.csv"
    p.write_text(text)
    with pytest.raises(WorkloadError) as caught:
        load_node_events(p, TWO)
    assert str(caught.value).startswith(f"{p}: refused") and expected in str(caught.value)


def test_run_with_node_events_writes_the_new_rows_and_columns(files, tmp_path, capsys):
    # a on n0, b on n1 (8 GPUs each); t (TE) waits. n1 fails over [50, 80): b fails at 50, restarts at 80
    # (before t: fifo) and ends at 80 + 60 + 100 = 240; t runs on n0 from 100 (a's end) to 120. n0's
    # maintenance [200, 300): its drain at 170 finds n0 empty, it goes down at 200 (written: before
    # the run's end at 240), and comes up after it (not written).
    wl, ev = files
    jobs, events, summ = tmp_path / "j.csv", tmp_path / "e.csv", tmp_path / "s.json"
    args = ["run", str(wl), "--policy", "fifo", *CLUSTER, "--node-events", str(ev)]
    rc = main([*args, "--jobs-out", str(jobs), "--events-out", str(events), "--summary-json", str(summ)])
    assert rc == 0
    assert "drains 0, failures 1, node-hours down" in capsys.readouterr().out
    rows = list(csv.DictReader(events.open()))
    assert [(r["time"], r["job_id"], r["event"], r["node"]) for r in rows if r["event"] in ("node_down", "fail")] == [
        ("50.0", "", "node_down", "n1"),
        ("50.0", "b", "fail", "n1"),
        ("200.0", "", "node_down", "n0"),
    ]
    assert "node_up" in {r["event"] for r in rows if r["time"] == "80.0"} and rows[-1]["time"] == "240.0"
    header = jobs.read_text().splitlines()[0].split(",")
    assert header[-3:] == ["workers", "failures", "drains"]
    summary = json.loads(summ.read_text())
    assert summary["downtime"]["interruptions"]["failure"]["count"] == 1
    assert list(summary)[list(summary).index("accounting") + 1] == "downtime"


@pytest.mark.parametrize("command", ["run", "compare", "explain", "whatif"])
def test_every_command_that_runs_a_scenario_takes_node_events(files, tmp_path, command, capsys):
    wl, ev = files
    extra = {"run": [], "compare": ["--policies", "fifo,k8s"], "explain": ["b"], "whatif": ["b", "--no-change"]}
    rc = main([command, str(wl), *extra[command], *CLUSTER, "--node-events", str(ev)])
    out = capsys.readouterr()
    assert rc == 0, out.err


def test_a_bad_node_events_file_is_a_clear_error_not_a_traceback(files, tmp_path, capsys):
    wl, _ = files
    bad = tmp_path / "bad.csv"
    bad.write_text("node,start,end,kind\nn9,1,2,failure\n")
    rc = main(["run", str(wl), *CLUSTER, "--node-events", str(bad)])
    err = capsys.readouterr().err
    assert rc == 2 and f"error: {bad}: refused" in err and "row 2, column node" in err and "Traceback" not in err


def test_a_job_that_cannot_progress_between_failures_ends_the_command_with_an_error(files, tmp_path, capsys):
    wl, _ = files
    rc = main(["run", str(wl), *CLUSTER, "--set", "mtbf=1", "--set", "repair=1"])
    err = capsys.readouterr().err
    assert rc == 2 and "was stopped by node failures more than 1,000 times" in err


def test_sweep_of_a_workload_file_takes_node_events_into_its_resume_key(files, tmp_path):
    from simcore.experiments.sweep.filesource import file_source

    wl, ev = files
    plain = file_source(wl, wl.read_bytes(), None, TWO)  # type: ignore[arg-type]
    down = file_source(wl, wl.read_bytes(), None, TWO.with_node_events(load_node_events(ev, TWO)))  # type: ignore[arg-type]
    assert plain.cluster_digest != down.cluster_digest
    rows = tmp_path / "rows.csv"
    rc = main(
        ["sweep", "--workload", str(wl), *CLUSTER, "--node-events", str(ev), "--policies", "fifo", "--workers", "1"]
        + ["--no-progress", "--out", str(tmp_path / "s.parquet"), "--csv", str(rows)]
    )
    assert rc == 0 and "failure_count" in rows.read_text().splitlines()[0]
