"""Every CSV the command line writes, from a workload whose job ids, node names and file names
are hostile (``a;=1+1``, ``-x\\t@y``, quotes and line breaks), read the way spreadsheets read them:

- split on ``;``, on tabs (each honouring quotes where its cell begins) and naively at every
  ``;``, tab and line break: no cell begins with a formula character unless it is escaped (a
  leading ``'``) or opens with a plain decimal number (DESIGN.md section 6's exception);
- split on ``,``: every text reads back as the rule escaped it, row for row.

The commands: ``run`` (jobs, events and Gantt CSVs), ``convert`` (the workload and its dropped
rows) and ``sweep`` (rows, summary and paired CSVs, which name the workload and cluster files).
"""

from __future__ import annotations

import contextlib
import csv
import io
import re
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from simcore.cli import main
from simcore.io.csvsafe import FORMULA_START, escape_text
from simcore.workload import load_cluster, load_workload

_PLAIN_NUMBER = re.compile(r"-?[0-9]+(\.[0-9]+)?")
HOSTILE = st.text(alphabet=st.sampled_from(list("=+-@\t\r\n;,\"' a1")), min_size=1, max_size=8)
HEADER = ["job_id", "submit_time", "duration", "cpu", "mem_gb", "gpu", "job_class"]
NODE = ("8", "64", "2")  # cpu, mem_gb, gpu of each node: two 1-GPU BE jobs fill one, a 2-GPU TE job preempts


def _names(draw: st.DrawFn, count: int) -> list[str]:
    """``count`` hostile texts, distinct once the readers strip their blanks; a number keeps each
    one apart and non-blank (its start and middle stay hostile)."""
    return [f"{draw(HOSTILE)}{k}" for k in range(count)]


@st.composite
def scenarios(draw: st.DrawFn) -> tuple[list[str], list[str], str]:
    jobs, nodes = draw(st.integers(2, 6)), draw(st.integers(1, 3))
    return _names(draw, jobs), _names(draw, nodes), draw(HOSTILE).replace("\n", "").replace("\r", "")


def _write_csv(path: Path, header: list[str], rows: list[list[str]]) -> None:
    with open(path, "w", newline="", encoding="utf-8") as fh:
        csv.writer(fh, lineterminator="\r\n").writerows([header, *rows])  # "\r\n": a CR in a field is quoted too


def _cli(argv: list[str]) -> None:
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()) as err:
        code = main(argv)
    assert code == 0, err.getvalue()


def _safe_start(cell: str) -> bool:
    """A cell a spreadsheet does not run: no formula start, or a plain number before its first ``,``."""
    return not cell.startswith(FORMULA_START) or bool(_PLAIN_NUMBER.fullmatch(cell.split(",")[0]))


def _spreadsheet_cells(text: str) -> list[str]:
    """The cells of readers that split on ``;`` or on tabs (honouring quotes where a cell begins),
    and of one that starts a cell after every ``;``, tab and line break."""
    cells = re.split("[;\t\r\n]", text)
    for delimiter in (";", "\t"):
        cells += [c for row in csv.reader(io.StringIO(text, newline=""), delimiter=delimiter) for c in row]
    return cells


def _rows(path: Path) -> list[dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


@settings(max_examples=20)
@given(scenario=scenarios())
def test_no_spreadsheet_finds_a_formula_in_any_csv_from_hostile_names(scenario, tmp_path_factory) -> None:
    ids, node_names, file_stem = scenario
    tmp = tmp_path_factory.mktemp("hostile")
    workload, cluster = tmp / f"{file_stem}w.csv", tmp / f"{file_stem}n.csv"
    rows = [[i, "0", "1000", "1", "1", "1", "BE"] for i in ids[:-1]] + [[ids[-1], "10", "100", "1", "1", "2", "TE"]]
    _write_csv(workload, HEADER, rows)
    _write_csv(cluster, ["name", "cpu", "mem_gb", "gpu"], [[n, *NODE] for n in node_names])
    seen_ids = [str(i) for i in load_workload(workload).table.job_id]  # as the readers keep them
    seen_nodes = {escape_text(n) for n in load_cluster(cluster).cluster.names}
    out = {name: tmp / f"{name}.csv" for name in ("jobs", "events", "gantt", "converted", "dropped", "rows")}
    out |= {"summary": tmp / "summary.csv", "paired": tmp / "paired.csv"}
    common = [str(workload), "--cluster", str(cluster)]
    _cli(["run", *common, "--policy", "fitgpp", "--jobs-out", str(out["jobs"]), "--events-out", str(out["events"])])
    _cli(["run", *common, "--policy", "k8s", "--gantt-out", str(out["gantt"])])
    broken = tmp / "broken.csv"  # one row more, whose duration is hostile text: dropped, its reason quotes it
    _write_csv(broken, HEADER, [*rows, ["x", "0", f"x{ids[0]}", "1", "1", "1", "BE"]])
    convert = ["convert", str(broken), "--format", "csv", "--out", str(out["converted"])]
    _cli([*convert, "--drop-invalid", "--dropped-out", str(out["dropped"])])
    sweep = ["sweep", "--workload", *common, "--grid", "P=1,2", "--seeds", "1", "--policies", "fifo,fitgpp"]
    sweep += ["--workers", "1", "--no-progress", "--out", str(tmp / "rows.parquet"), "--csv", str(out["rows"])]
    _cli([*sweep, "--summary-csv", str(out["summary"]), "--paired-csv", str(out["paired"])])

    for path in out.values():
        text = path.read_text(encoding="utf-8")
        assert [c for c in _spreadsheet_cells(text) if not _safe_start(c)] == [], path.name
    escaped = [escape_text(i) for i in seen_ids]
    assert [r["job_id"] for r in _rows(out["jobs"])] == escaped
    assert [r["job_id"] for r in _rows(out["converted"])] == escaped
    assert {r["node"] for r in _rows(out["jobs"])} <= seen_nodes
    events = _rows(out["events"])
    assert sorted(r["job_id"] for r in events if r["event"] == "submit") == sorted(escaped)
    assert {r["node"] for r in events} <= seen_nodes | {""}
    gantt = _rows(out["gantt"])
    assert {r["job_id"] for r in gantt} <= set(escaped) and {r["node"] for r in gantt} <= seen_nodes
    reason = f"not a number: {'x' + ids[0]!r}"
    assert [(r["column"], r["reason"]) for r in _rows(out["dropped"])] == [("duration", escape_text(reason))]
    for row in _rows(out["rows"]):
        assert (row["workload"], row["cluster"]) == (escape_text(workload.name), escape_text(cluster.name))
