"""Every CSV the CLI and the dashboard write quotes a text cell holding ``;``, ``,``, a quote or
a line break (DESIGN.md section 6), so a spreadsheet that splits on ``;`` cannot start a formula
cell inside an id; the leading-``'`` escape of formula text stays."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from simcore.cli import main
from simcore.core.model import ClusterSpec, JobTable, Node, Resources
from simcore.io.csvsafe import csv_line, quote_cell, to_csv_text
from simcore.workload import write_workload
from simcore.workload.writer import write_cluster_csv

SEMI = "a;=cmd|' /C calc'!A0"  # issue 16's id


def _semicolon_cells(path: Path) -> list[str]:
    """The cells a spreadsheet splitting on ``;`` (and honouring quotes) reads from the file."""
    with open(path, newline="", encoding="utf-8") as fh:
        return [cell for row in csv.reader(fh, delimiter=";") for cell in row]


def _column(path: Path, column: str) -> list[str]:
    with open(path, newline="", encoding="utf-8") as fh:
        return [row[column] for row in csv.DictReader(fh)]


def test_run_quotes_an_id_and_a_node_name_holding_a_semicolon(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    wl = tmp_path / "w.csv"
    wl.write_text(
        f'job_id,submit_time,duration,cpu,mem_gb,gpu,job_class\n"{SEMI}",0,100,1,1,1,BE\nplain,5,50,1,1,1,TE\n'
    )
    cluster = tmp_path / "c.json"
    cluster.write_text('{"nodes": [{"count": 1, "cpu": 4, "mem_gb": 4, "gpu": 4, "name": "p;=x"}]}')
    jobs, events, gantt = tmp_path / "j.csv", tmp_path / "e.csv", tmp_path / "g.csv"
    args = ["run", str(wl), "--policy", "fifo", "--cluster", str(cluster), "--jobs-out", str(jobs)]
    assert main([*args, "--events-out", str(events), "--gantt-out", str(gantt)]) == 0
    capsys.readouterr()
    assert jobs.read_text().splitlines()[1] == f'"{SEMI}",BE,0.0,100.0,0.0,100.0,0.0,100.0,1.0,0,0.0,"p;=x-0",1'
    assert jobs.read_text().splitlines()[2].startswith("plain,TE,")  # nothing else is quoted
    assert events.read_text().splitlines()[1:3] == [f'0.0,"{SEMI}",submit,', f'0.0,"{SEMI}",start,"p;=x-0"']
    for path in (jobs, events, gantt):
        assert SEMI in _column(path, "job_id") and "p;=x-0" in _column(path, "node")
    # the id opens each jobs line: a reader splitting on ";" keeps the quoted id in one cell
    assert _semicolon_cells(jobs)[1].startswith(SEMI + ",BE,")


def test_the_workload_and_cluster_writers_quote_semicolons(tmp_path: Path) -> None:
    ids = [SEMI, "=a;b", "plain", 'q"1', "c\rr"]
    table = JobTable(
        job_id=np.array(ids, dtype=object),
        submit_time=np.arange(5.0),
        duration=np.full(5, 10.0),
        request=np.ones((5, 3)),
        is_te=np.zeros(5, dtype=bool),
        extra={"user": np.array(["u;=1", "ok", "ok", "ok", "ok"], dtype=object)},
    )
    out = tmp_path / "w.csv"
    write_workload(table, out)
    assert out.read_bytes().decode().split("\n")[1:6] == [
        f'"{SEMI}",0,10,1,1,1,BE,"u;=1"',
        '"\'=a;b",1,10,1,1,1,BE,ok',
        "plain,2,10,1,1,1,BE,ok",
        '"q""1",3,10,1,1,1,BE,ok',
        '"c\rr",4,10,1,1,1,BE,ok',
    ]
    assert _column(out, "job_id") == [SEMI, "'=a;b", "plain", 'q"1', "c\rr"]
    nodes = tmp_path / "n.csv"
    write_cluster_csv(ClusterSpec(tuple(Node(f"p;=x-{i}", Resources(4, 8, 1)) for i in range(2))), nodes)
    assert nodes.read_text() == 'name,cpu,mem_gb,gpu\n"p;=x-0",4,8,1\n"p;=x-1",4,8,1\n'


def test_the_dropped_rows_file_quotes_a_reason_holding_a_semicolon(tmp_path: Path) -> None:
    wl = tmp_path / "w.csv"
    wl.write_text("job_id,submit_time,duration,cpu,mem_gb,gpu,job_class\nok,0,10,1,1,1,BE\nbad,0,x;=y,1,1,1,BE\n")
    dropped = tmp_path / "d.csv"
    out = tmp_path / "o.csv"
    argv = ["convert", str(wl), "--format", "csv", "--drop-invalid", "--dropped-out", str(dropped), "--out", str(out)]
    assert main(argv) == 0
    assert dropped.read_text().splitlines()[1] == "row 3,duration,\"not a number: 'x;=y'\""


def test_dashboard_downloads_quote_semicolons_and_leave_other_cells_alone() -> None:
    """The Jobs, Events and sweep-rows downloads are ``to_csv_text`` of their frames."""
    frame = pd.DataFrame({"job_id": [SEMI, "x", "=a;b", "c\rr", "n,1"], "wait": [1.0, -2.5, 3.0, None, 5.0]})
    text = to_csv_text(frame)
    assert text.split("\n") == [
        "job_id,wait",
        f'"{SEMI}",1.0',
        "x,-2.5",
        '"\'=a;b",3.0',
        '"c\rr",',
        '"n,1",5.0',
        "",
    ]
    assert pd.read_csv(io.StringIO(text), dtype={"job_id": str})["job_id"].tolist() == [
        SEMI,
        "x",
        "'=a;b",
        "c\rr",
        "n,1",
    ]
    # a text that happens to look like the placeholder the writer uses is written as it is
    tricky = pd.DataFrame({"job_id": ["csvsafe0x0_", "s;t"], "n": [1, 2]})
    assert to_csv_text(tricky) == 'job_id,n\ncsvsafe0x0_,1\n"s;t",2\n'


@pytest.mark.parametrize(
    ("cells", "line"),
    [
        (["a", "b;c", 'd"e', "f\ng", "", None, 3, 1.5], 'a,"b;c","d""e","f\ng",,,3,1.5\n'),
        ([""], '""\n'),
        (["x y", "tab\there"], "x y,tab\there\n"),
    ],
)
def test_csv_line_quotes_exactly_the_cells_that_need_it(cells: list[object], line: str) -> None:
    assert csv_line(cells) == line
    assert quote_cell("plain") == "plain" and quote_cell("a;b") == '"a;b"'
