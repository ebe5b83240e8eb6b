"""The CSV rule of DESIGN.md section 6 (``simcore/io/csvsafe.py``) and the writer that applies it.

A text cell with a formula start gets a leading ``'``; a text holding ``;``, ``,``, a quote or a
line break is quoted; and every place inside a text where a reader splitting on ``;``, tabs or
lines starts a cell gets a ``'`` before a formula character or a quote, so no such reader finds a
formula. The vectorised writer equals the per-cell rule on any text, prints floats exactly as
``repr`` does, and writes what pandas wrote for frames of plain text (the recorded outputs).
"""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st

from simcore.cli import main
from simcore.core.model import ClusterSpec, JobTable, Node, Resources, SimConfig
from simcore.engine import simulate
from simcore.io import csvsafe
from simcore.io.csvsafe import (
    CELL_BREAKS,
    FORMULA_START,
    _float_cells,
    _text_cells,
    csv_bytes,
    escape_text,
    quote_cell,
    text_cell,
    to_csv_text,
)
from simcore.workload import write_workload
from simcore.workload.presets import generate
from simcore.workload.writer import write_cluster_csv

SEMI = "a;=cmd|' /C calc'!A0"  # issue 16's id
SEMI_OUT = "\"a;'=cmd|' /C calc'!A0\""  # as every CSV writes it
#: texts built from the characters that matter to the rule, and a few that do not
HOSTILE_TEXT = st.text(alphabet=st.sampled_from(list("=+-@\t\r\n;,\"' a1.")), max_size=12)


def _column(path: Path, column: str) -> list[str]:
    with open(path, newline="", encoding="utf-8") as fh:
        return [row[column] for row in csv.DictReader(fh)]


@pytest.mark.parametrize(
    ("text", "cell"),
    [
        ("plain", "plain"),
        ("job-3", "job-3"),
        ("-5", "-5"),  # a plain decimal number holds no formula
        ("-0.5", "-0.5"),
        ("-5+3", "'-5+3"),
        ("=1+1", "'=1+1"),
        ("@a", "'@a"),
        ("\ttab", "'\ttab"),
        ("a;=1+1", '"a;\'=1+1"'),
        ("a;b", '"a;b"'),  # quoted, nothing to escape after the ";"
        ("a;-5", '"a;\'-5"'),  # inside a text a number gets no exception: its cell runs on
        ('a;"=1', '"a;\'""=1"'),  # a quote after a break: a reader would open a quoted cell there
        ("c\t=3", "c\t'=3"),  # a tab is no reason to quote, but the cell after it is escaped
        ("x\n-y", '"x\n\'-y"'),
        ("x\r\n=y", '"x\r\n\'=y"'),
        ('q"1', '"q""1"'),
        ("n,1", '"n,1"'),
        ("a=b", "a=b"),
        ("", ""),
    ],
)
def test_text_cell_writes_each_text_by_the_rule(text: str, cell: str) -> None:
    assert text_cell(text) == cell


@given(HOSTILE_TEXT)
def test_escaping_only_adds_quotes_before_formula_starts(text: str) -> None:
    escaped = escape_text(text)
    assert escaped.replace("'", "") == text.replace("'", "")  # only single quotes were added
    starts = [0] + [i + 1 for i, c in enumerate(escaped) if c in CELL_BREAKS]
    for i in starts[1:]:
        assert not escaped[i:].startswith((*FORMULA_START, '"'))
    assert not escaped.startswith(FORMULA_START) or (escaped == text and re.fullmatch(r"-[0-9]+(\.[0-9]+)?", text))
    # a ","-splitting reader reads the escaped text back from its cell
    assert next(csv.reader(io.StringIO(quote_cell(escaped) + ",x\n"), strict=True)) == [escaped, "x"]


@given(st.lists(HOSTILE_TEXT, max_size=8))
def test_the_vectorised_text_cells_are_the_rule_cell_by_cell(texts: list[str]) -> None:
    assert _text_cells(np.array(texts, dtype=object)).to_pylist() == [text_cell(t) for t in texts]
    assert _text_cells(pa.array(texts, pa.string())).to_pylist() == [text_cell(t) for t in texts]


FLOATS = st.floats(allow_nan=True, allow_infinity=True) | st.sampled_from(
    [0.0, -0.0, 1e-4, 9.999999999999999e-05, 1e9, 999999999.9999999, 1e10 + 0.5, 1e16, 30.0, -2.5, 1 / 3]
)


@given(st.lists(FLOATS, max_size=30), st.integers(0, 3))
def test_float_cells_are_repr_and_nan_is_empty(values: list[float], repeat: int) -> None:
    column = np.repeat(np.array(values, dtype=float), repeat + 1)  # runs of one value are printed once
    assert _float_cells(column).to_pylist() == ["" if v != v else repr(v) for v in column.tolist()]


PLAIN_TEXT = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters=';,"\r\n\t=+-@'), max_size=6)


@given(
    st.lists(
        st.tuples(FLOATS, st.integers(-(2**62), 2**62), st.booleans(), PLAIN_TEXT | st.none(), PLAIN_TEXT),
        max_size=20,
    )
)
def test_frames_without_formula_text_are_written_as_pandas_writes_them(rows: list[tuple]) -> None:
    frame = pd.DataFrame(rows, columns=["f", "i", "b", "t", "s"]).astype({"f": float, "i": np.int64, "b": bool})
    frame["s"] = frame["s"].astype("string")
    frame["o"] = np.array([r[1] if k % 2 else r[4] for k, r in enumerate(rows)], dtype=object)  # text and numbers
    assert to_csv_text(frame) == frame.to_csv(index=False, lineterminator="\n")


def test_coded_columns_write_their_labels_and_minus_one_as_empty() -> None:
    coded = (np.array(["n0", "=x;y"], dtype=object), np.array([1, -1, 0, 1]))
    assert csv_bytes({"node": coded, "t": np.arange(4.0)}).decode() == (
        'node,t\n"\'=x;y",0.0\n,1.0\nn0,2.0\n"\'=x;y",3.0\n'
    )
    assert csv_bytes({"only": np.array(["", "a"], dtype=object)}) == b'only\n""\na\n'  # a lone empty field is quoted


@given(
    st.integers(0, 400),
    st.lists(
        st.sampled_from(["one float", "minus zero", "one int", "one bool", "coded", "floats", "text"]), max_size=7
    ),
)
def test_constant_and_coded_neighbours_joined_write_each_cell_as_alone(n: int, kinds: list[str]) -> None:
    """Columns of one value and adjacent coded columns with few pairs of labels are joined before the
    rows are (csvsafe._joined): each row holds the cells each column writes alone."""
    rows = np.arange(n)
    make = {
        "one float": lambda: np.full(n, 2.5),
        "minus zero": lambda: np.full(n, -0.0),
        "one int": lambda: np.full(n, 7, dtype=np.int64),
        "one bool": lambda: np.ones(n, dtype=bool),
        "coded": lambda: (np.array(["n0", "=b;c", "x"], dtype=object), np.where(rows % 5 == 0, -1, rows % 3)),
        "floats": lambda: rows / 3,
        "text": lambda: np.array([f"j{i}" for i in rows], dtype=object),
    }
    columns = {f"{k}{i}": make[k]() for i, k in enumerate(kinds)}
    alone = [csvsafe._cells(csvsafe._Picks.of(*c) if isinstance(c, tuple) else c).to_pylist() for c in columns.values()]
    lines = [",".join(name for name in columns)] + [",".join(cells) for cells in zip(*alone, strict=True)] * bool(alone)
    if len(columns) == 1:
        lines[1:] = [c or '""' for c in lines[1:]]
    assert csv_bytes(columns).decode() == "".join(line + "\n" for line in lines)


def test_a_run_of_constant_and_coded_columns_is_joined_into_one() -> None:
    n = 640  # 4 node cells (with the empty one) x 2 x 2 x 4 pairs: within a tenth of the rows
    node = csvsafe._Picks.of(np.array(["n0", "n1", "n2"], dtype=object), np.arange(n) % 3)
    ready = [csvsafe._one_value(c) for c in (np.arange(n) / 3, node, np.zeros(n), np.ones(n, dtype=np.int64), node)]
    joined = csvsafe._joined(ready, n)
    assert len(joined) == 2 and joined[0] is ready[0] and len(joined[1].cells) == 4 * 2 * 2 * 4
    assert csvsafe._cells(joined[1]).to_pylist()[:2] == ["n0,0.0,1,n0", "n1,0.0,1,n1"]
    assert len(csvsafe._joined(ready, 10 * 4 * 2 * 2 * 4 - 1)) == 3  # the last node: a pair too many for the rows


def test_columns_of_different_lengths_and_codes_without_labels_are_refused() -> None:
    with pytest.raises(ValueError, match="different lengths"):
        csv_bytes({"a": np.arange(2), "b": np.arange(3)})
    with pytest.raises(ValueError, match="codes from -1 to 2 for 2 labels"):
        csv_bytes({"a": (np.array(["x", "y"], dtype=object), np.array([-1, 2]))})


@pytest.mark.parametrize("coded_last", [False, True])  # a coded last column holds each line's end
def test_a_long_file_is_written_in_chunks_that_join_up(monkeypatch: pytest.MonkeyPatch, coded_last: bool) -> None:
    columns = {"id": (np.array(["a", "=b;c"], dtype=object), np.arange(10) % 2), "t": np.arange(10) / 4}
    if coded_last:
        columns = {"t": columns["t"], "id": columns["id"]}
    whole = csv_bytes(columns)
    monkeypatch.setattr(csvsafe, "_ROWS_PER_CHUNK", 3)
    assert csv_bytes(columns) == whole and whole.count(b"\n") == 11
    assert whole.split(b"\n")[2] == (b'0.25,"\'=b;c"' if coded_last else b'"\'=b;c",0.25')


def test_run_escapes_an_id_and_a_node_name_holding_a_semicolon(
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
    node = '"p;\'=x-0"'
    assert jobs.read_text().splitlines()[1] == f"{SEMI_OUT},BE,0.0,100.0,0.0,100.0,0.0,100.0,1.0,0,0.0,{node},1"
    assert jobs.read_text().splitlines()[2].startswith("plain,TE,")  # nothing else is quoted
    assert events.read_text().splitlines()[1:3] == [f"0.0,{SEMI_OUT},submit,", f"0.0,{SEMI_OUT},start,{node}"]
    for path in (jobs, events, gantt):
        assert escape_text(SEMI) in _column(path, "job_id") and "p;'=x-0" in _column(path, "node")


def test_the_workload_and_cluster_writers_escape_semicolons(tmp_path: Path) -> None:
    ids = [SEMI, "=a;b", "plain", 'q"1', "c\rr"]
    table = JobTable(
        job_id=np.array(ids, dtype=object),
        submit_time=np.arange(5.0),
        duration=np.full(5, 10.0),
        request=np.ones((5, 3)),
        is_te=np.zeros(5, dtype=bool),
        extra={"user": np.array(["u;=1", "ok", None, "ok", "ok"], dtype=object)},
    )
    out = tmp_path / "w.csv"
    write_workload(table, out)
    assert out.read_bytes().decode().split("\n")[1:6] == [
        f'{SEMI_OUT},0,10,1,1,1,BE,"u;\'=1"',
        '"\'=a;b",1,10,1,1,1,BE,ok',
        "plain,2,10,1,1,1,BE,",
        '"q""1",3,10,1,1,1,BE,ok',
        '"c\rr",4,10,1,1,1,BE,ok',
    ]
    assert _column(out, "job_id") == [escape_text(i) for i in ids]
    nodes = tmp_path / "n.csv"
    write_cluster_csv(ClusterSpec(tuple(Node(f"p;=x-{i}", Resources(4, 8, 1)) for i in range(2))), nodes)
    assert nodes.read_text() == 'name,cpu,mem_gb,gpu\n"p;\'=x-0",4,8,1\n"p;\'=x-1",4,8,1\n'


def test_the_dropped_rows_file_escapes_a_reason_holding_a_semicolon(tmp_path: Path) -> None:
    wl = tmp_path / "w.csv"
    wl.write_text("job_id,submit_time,duration,cpu,mem_gb,gpu,job_class\nok,0,10,1,1,1,BE\nbad,0,x;=y,1,1,1,BE\n")
    dropped = tmp_path / "d.csv"
    out = tmp_path / "o.csv"
    argv = ["convert", str(wl), "--format", "csv", "--drop-invalid", "--dropped-out", str(dropped), "--out", str(out)]
    assert main(argv) == 0
    assert dropped.read_text().splitlines()[1] == "row 3,duration,\"not a number: 'x;'=y'\""


def test_dashboard_downloads_escape_semicolons_and_leave_other_cells_alone() -> None:
    """The Jobs, Events and sweep-rows downloads are ``to_csv_text`` of their frames."""
    frame = pd.DataFrame({"job_id": [SEMI, "x", "=a;b", "c\rr", "n,1"], "wait": [1.0, -2.5, 3.0, None, 5.0]})
    text = to_csv_text(frame)
    assert text.split("\n") == ["job_id,wait", f"{SEMI_OUT},1.0", "x,-2.5", '"\'=a;b",3.0', '"c\rr",', '"n,1",5.0', ""]
    back = pd.read_csv(io.StringIO(text), dtype={"job_id": str})["job_id"].tolist()
    assert back == [escape_text(t) for t in frame["job_id"]]


@pytest.mark.parametrize(("preset", "policy"), [("paper", "fitgpp"), ("mmc", "fifo"), ("paper-gang", "k8s")])
def test_run_outputs_are_what_pandas_writes_for_plain_ids(preset: str, policy: str) -> None:
    """The columnar jobs and events CSVs equal pandas' ``to_csv`` of the frames (the writer before)."""
    wl = generate(preset, 0, {"jobs": 400})
    result = simulate(wl.table, wl.cluster, SimConfig(policy=policy, checkpoint="periodic", checkpoint_interval=700.5))
    assert result.preemptions.sum() > 0 or policy == "fifo"
    for columns, frame in ((result.job_columns(), result.jobs_frame), (result.event_columns(), result.events_frame)):
        assert csv_bytes(columns).decode() == frame.to_csv(index=False, lineterminator="\n")
