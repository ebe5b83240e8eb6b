"""Loading and validating workload and cluster files, and the CLI glue of inputs."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simcore import workload
from simcore.cli import build_parser, inputs
from simcore.core.errors import UserError
from simcore.core.model import ClusterSpec, JobTable
from simcore.io import jsonstream
from simcore.workload import (
    LimitExceeded,
    Problem,
    WorkloadError,
    format_numbers,
    load_cluster,
    load_workload,
    offered_load,
    readers,
    write_workload,
)

HEADER = "job_id,submit_time,duration,cpu,mem_gb,gpu,job_class"
GOOD = f"{HEADER}\n1,0,100,4,16,1,TE\n2,5.5,200,8,32,2,be\n"


def csv_bytes(*rows: str, header: str = HEADER) -> bytes:
    return ("\n".join([header, *rows]) + "\n").encode()


def refuse(data: bytes, name: str = "w.csv", **kw: object) -> WorkloadError:
    with pytest.raises(WorkloadError) as err:
        load_workload(data, name=name, **kw)  # type: ignore[arg-type]
    return err.value


# --- good files ---------------------------------------------------------------------------------


def test_good_csv_loads_with_case_insensitive_class() -> None:
    w = load_workload(GOOD.encode(), name="w.csv")
    t = w.table
    assert list(t.job_id) == ["1", "2"]
    np.testing.assert_array_equal(t.submit_time, [0, 5.5])
    np.testing.assert_array_equal(t.request, [[4, 16, 1], [8, 32, 2]])
    assert list(t.is_te) == [True, False]
    assert w.notes == [] and w.dropped == () and w.fmt == "csv"


def test_same_table_from_json_jsonl_and_parquet(tmp_path: Path) -> None:
    frame = pd.read_csv(pd.io.common.StringIO(GOOD))
    records = frame.to_dict("records")
    expected = load_workload(GOOD.encode(), name="w.csv").table
    sources = {
        "w.json": json.dumps(records).encode(),
        "w.jsonl": "\n".join(json.dumps(r) for r in records).encode(),
        "wrapped.json": json.dumps({"jobs": records}).encode(),
    }
    frame.to_parquet(tmp_path / "w.parquet")
    sources["w.parquet"] = (tmp_path / "w.parquet").read_bytes()
    for name, data in sources.items():
        for label in (name, "upload"):  # by extension, then by content
            t = load_workload(data, name=label).table
            assert list(t.job_id) == list(expected.job_id), (name, label)
            np.testing.assert_array_equal(t.request, expected.request)
            np.testing.assert_array_equal(t.is_te, expected.is_te)


def test_explicit_format_wins_over_extension() -> None:
    assert len(load_workload(GOOD.encode(), name="jobs.data", fmt="csv").table) == 2
    err = refuse(GOOD.encode(), name="jobs.csv", fmt="json")
    assert "not valid JSON" in str(err)


def test_extra_columns_kept_ignored_with_note_and_optional_columns() -> None:
    data = csv_bytes("1,0,100,4,16,1,TE,alice,exp-1,x", header=f"{HEADER},user,name,comment")
    w = load_workload(data, name="w.csv")
    assert w.notes == ["w.csv: extra columns ignored: 'comment'"]
    assert list(w.table.extra["user"]) == ["alice"] and list(w.table.extra["name"]) == ["exp-1"]


def test_header_names_are_trimmed_and_case_insensitive_and_bom_is_skipped() -> None:
    data = b"\xef\xbb\xbf" + csv_bytes(
        "1,0,100,4,16,1,TE", header=" Job_ID ,submit_time,Duration,cpu,mem_gb,gpu,JOB_CLASS"
    )
    assert len(load_workload(data, name="w.csv").table) == 1


def test_blank_lines_are_skipped_but_keep_row_numbers() -> None:
    data = csv_bytes("1,0,100,4,16,1,TE", "", "2,0,-1,4,16,1,TE")
    err = refuse(data)
    assert err.problems == (Problem("row 4", "duration", "must be > 0 (got '-1')"),)


# --- refusals: exact row, column and reason -------------------------------------------------------


@pytest.mark.parametrize(
    ("row", "column", "reason"),
    [
        ("x,0,100,4,16,1,TE", None, None),  # control: valid
        ("x,-1,100,4,16,1,TE", "submit_time", "must be >= 0 (got '-1')"),
        ("x,0,0,4,16,1,TE", "duration", "must be > 0 (got '0')"),
        ("x,0,-5,4,16,1,TE", "duration", "must be > 0 (got '-5')"),
        ("x,0,100,-4,16,1,TE", "cpu", "must be >= 0 (got '-4')"),
        ("x,0,100,4,nan,1,TE", "mem_gb", "must be a finite number (got 'nan')"),
        ("x,0,100,4,16,inf,TE", "gpu", "must be a finite number (got 'inf')"),
        ("x,0,1e999,4,16,1,TE", "duration", "must be a finite number (got '1e999')"),
        ("x,0,100,four,16,1,TE", "cpu", "not a number: 'four'"),
        ("x,0,,4,16,1,TE", "duration", "empty (a number is required)"),
        ("x,0,100,4,16,1,XE", "job_class", "must be TE or BE, case-insensitive (got 'XE')"),
        ("x,0,100,4,16,1,", "job_class", "must be TE or BE, case-insensitive (got '')"),
        (",0,100,4,16,1,TE", "job_id", "empty (a non-empty text is required)"),
        ("x,0,100,4,16,1", "", "has 6 values but the header has 7 columns"),
        ("x,0,100,4,16,1,TE,extra", "", "has 8 values but the header has 7 columns"),
    ],
)
def test_each_rule_names_row_column_reason(row: str, column: str | None, reason: str | None) -> None:
    data = csv_bytes("a,0,10,1,1,1,BE", row)
    if reason is None:
        assert len(load_workload(data, name="w.csv").table) == 2
        return
    err = refuse(data)
    assert err.problems == (Problem("row 3", column or "", reason),)
    text = str(err)
    assert text.startswith("w.csv: refused: 1 of 2 rows are invalid (rows are numbered as a spreadsheet shows them")
    assert f"row 3{', column ' + column if column else ''}: {reason}" in text


def test_duplicate_ids_point_at_the_first() -> None:
    err = refuse(csv_bytes("a,0,10,1,1,1,BE", "b,0,10,1,1,1,BE", "a,1,10,1,1,1,TE"))
    assert err.problems == (Problem("row 4", "job_id", "duplicate job_id 'a' (first at row 2)"),)


def test_many_problems_listed_then_counted() -> None:
    rows = [f"{i},0,-1,1,1,1,BE" for i in range(30)]
    err = refuse(csv_bytes(*rows))
    text = str(err)
    assert "refused: 30 of 30 rows are invalid" in text
    assert "row 21, column duration" in text and "row 22, column duration" not in text
    assert text.rstrip().endswith("... and 10 more problems")
    assert len(err.problems) == 30


def test_drop_invalid_keeps_valid_rows_and_lists_every_dropped_row() -> None:
    data = csv_bytes("a,0,10,1,1,1,BE", "b,0,-3,1,1,1,BE", "c,0,10,1,1,1,QQ", "a,0,10,1,1,1,TE", "d,1,10,1,1,1,TE")
    w = load_workload(data, name="w.csv", drop_invalid=True)
    assert list(w.table.job_id) == ["a", "d"]
    assert w.dropped == (
        Problem("row 3", "duration", "must be > 0 (got '-3')"),
        Problem("row 4", "job_class", "must be TE or BE, case-insensitive (got 'QQ')"),
        Problem("row 5", "job_id", "duplicate job_id 'a' (first at row 2)"),
    )
    assert w.notes[0].startswith("w.csv: dropped 3 invalid rows of 5")


def test_drop_invalid_with_nothing_valid_still_refuses() -> None:
    err = refuse(csv_bytes("a,0,-1,1,1,1,BE"), drop_invalid=True)
    assert "all 1 rows are invalid; nothing left to simulate" in str(err)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "w.csv: the file is empty"),
        (b"  \n\n", "w.csv: the file is empty"),
        (f"{HEADER}\n".encode(), "w.csv: the file has a header but no job rows"),
        (
            b"job_id;submit_time;duration;cpu;mem_gb;gpu;job_class\n1;0;1;1;1;1;TE\n",
            "separated by semicolons (;), not commas",
        ),
        (b"job_id\tsubmit_time\tduration\n1\t0\t1\n", "separated by tabs, not commas"),
        (
            b"job_id,submit_time\n1,0\n",
            "missing required column(s) duration, cpu, mem_gb, gpu, job_class; columns found: job_id, submit_time",
        ),
        (b"job_id,job_id,submit_time\n", "column 'job_id' appears twice"),
        (
            (HEADER + "\n").encode() + b"caf\xe9,0,1,1,1,1,TE\n",
            "w.csv: row 2: byte 0xe9 (offset 56) is not valid UTF-8",
        ),
        (b"\xff\xfej\x00o\x00b\x00", "the file is UTF-16 encoded; save it as UTF-8"),
    ],
)
def test_file_level_refusals(data: bytes, message: str) -> None:
    assert message in str(refuse(data))


def test_json_refusals_name_the_record() -> None:
    recs = [
        {"job_id": 1, "submit_time": 0, "duration": 5, "cpu": 1, "mem_gb": 1, "gpu": 1, "job_class": "TE"},
        {"job_id": 2, "submit_time": 0, "duration": 5, "cpu": 1, "mem_gb": 1, "gpu": True, "job_class": "TE"},
        {"job_id": 3, "submit_time": 0, "duration": 5, "cpu": [1], "mem_gb": 1, "job_class": "TE"},
        7,
    ]
    err = refuse(json.dumps(recs).encode(), name="w.json")
    assert err.problems == (
        Problem("record 2", "gpu", "not a number: 'true'"),
        Problem("record 3", "cpu", "not a number: [1]"),
        Problem("record 3", "gpu", "missing value"),
        Problem("record 4", "", "is a JSON int, not an object"),
    )
    assert "3 of 4 records are invalid (JSON records are numbered from 1)" in str(err)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"{", "not valid JSON at line 1"),
        (b"[" * 100000, "nested too deeply"),
        (b'{"a": 1}', "expected a list of job records (JSON objects), got a JSON dict"),
        (b"[]", "holds no job records"),
        (b"[1, 2]", "none of the 2 items is one"),
    ],
)
def test_json_file_refusals(data: bytes, message: str) -> None:
    assert message in str(refuse(data, name="w.json"))


def test_parquet_refusals(tmp_path: Path) -> None:
    assert "not a readable Parquet file" in str(refuse(b"PAR1garbage", name="w.parquet"))
    pd.DataFrame({c: pd.Series([], dtype=float) for c in HEADER.split(",")}).to_parquet(tmp_path / "e.parquet")
    assert "no job rows" in str(refuse((tmp_path / "e.parquet").read_bytes(), name="e.parquet"))
    frame = pd.read_csv(pd.io.common.StringIO(GOOD))
    frame.loc[1, "duration"] = -1
    frame.to_parquet(tmp_path / "b.parquet")
    err = refuse((tmp_path / "b.parquet").read_bytes(), name="b.parquet")
    assert err.problems == (Problem("row 3", "duration", "must be > 0 (got -1)"),)


def test_size_cap(tmp_path: Path) -> None:
    path = tmp_path / "w.csv"
    path.write_text(GOOD)
    size = path.stat().st_size
    assert len(load_workload(path, max_bytes=size).table) == 2
    with pytest.raises(
        WorkloadError, match=rf"is 0.0 MB \({size} bytes\), above the size cap of 0.0 MB \({size - 1} bytes\)"
    ):
        load_workload(path, max_bytes=size - 1)
    with pytest.raises(WorkloadError, match="above the size cap"):
        load_workload(GOOD.encode(), name="upload", max_bytes=10)


def test_missing_file_and_directory(tmp_path: Path) -> None:
    with pytest.raises(WorkloadError, match="cannot read the file"):
        load_workload(tmp_path / "nope.csv")
    with pytest.raises(WorkloadError, match="is a directory"):
        load_workload(tmp_path)


# --- caps: checked before or while a file is parsed ----------------------------------------------


def rows_csv(n: int) -> bytes:
    return csv_bytes(*(f"j{i},{i},10,1,1,1,BE" for i in range(n)))


def test_row_cap_counts_job_rows_while_parsing_csv() -> None:
    data = csv_bytes("", *(f"j{i},{i},10,1,1,1,BE" for i in range(5)), "")  # blank lines are not rows
    assert len(load_workload(data, name="w.csv", max_rows=5).table) == 5
    err = refuse(data, max_rows=4)
    assert isinstance(err, LimitExceeded) and (err.unit, err.limit) == ("row", 4)
    assert str(err) == (
        "w.csv: 5 rows or more, above the row cap of 4 rows (raise it with --max-rows if the file is right)"
    )


@pytest.mark.parametrize("shape", ["list", "jobs", "lines"])
def test_row_cap_counts_json_records_while_parsing(shape: str) -> None:
    recs = [dict(zip(HEADER.split(","), [f"j{i}", i, 10, 1, 1, 1, "TE"], strict=True)) for i in range(6)]
    doc = {"list": json.dumps(recs), "jobs": json.dumps({"note": [1, 2], "jobs": recs, "more": {}}), "lines": ""}
    text = doc[shape] or "\n".join(json.dumps(r) for r in recs)
    assert len(load_workload(text.encode(), name="w.json", max_rows=6).table) == 6
    err = refuse(text.encode(), name="w.json", max_rows=5)
    assert isinstance(err, LimitExceeded) and "w.json: 6 records or more, above the row cap of 5 rows" in str(err)


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=5), inner, max_size=5),
    max_leaves=30,
)


@settings(max_examples=150, deadline=None)
@given(JSON_VALUES, st.sampled_from([None, 0, 2]), st.integers(min_value=0, max_value=200))
def test_streamed_json_reads_what_json_loads_reads(doc: object, indent: int | None, cut: int) -> None:
    """The item-by-item reader gives json.loads's value for any document (with the "jobs" list
    of an object streamed too) and, for any cut-off prefix json.loads refuses, a JSONDecodeError
    or a first value with text after it (`1.` cut from `1.25e17` reads as 1 then `.`): the
    loader then reads the text as JSON Lines, which refuses it with its line."""
    for value in (doc, {"jobs": [doc, doc], "x": doc}):
        text = " " + json.dumps(value, indent=indent) + "\n"
        assert jsonstream.first_value(text, 10**6) == (json.loads(text), False)
        prefix = text[: cut % len(text)]
        if prefix.strip():
            try:
                json.loads(prefix)
            except json.JSONDecodeError:
                try:
                    _value, more = jsonstream.first_value(prefix, 10**6)
                except json.JSONDecodeError:
                    continue
                assert more, f"{prefix!r} read as one whole JSON value"


def test_streamed_reading_is_the_same_whatever_the_pieces(monkeypatch: pytest.MonkeyPatch) -> None:
    """CSV is decoded in pieces and parsed in batches; tiny ones must give the same table, the
    same row numbers and the same byte offsets as one piece (quoted newlines, CRLF, BOM)."""
    lines = [HEADER + ",name", "", '1,0,100,4,16,1,TE,"two\r\nlines"', "2,5.5,200,8,32,2,be,b", "3,1,1,1,1"]
    data = ("\ufeff" + "\r\n".join([*lines, "4,1,1,1,1,1,TE,\u00e9", ""])).encode()
    short = (Problem("row 5", "", "has 5 values but the header has 8 columns"),)  # a record is one row
    assert refuse(data).problems == short
    for piece, batch in ((7, 1), (16, 2), (1, 3)):
        monkeypatch.setattr(readers, "_PIECE", piece)
        monkeypatch.setattr(readers, "_BATCH", batch)
        assert refuse(data).problems == short
        kept = load_workload(data, name="w.csv", drop_invalid=True).table
        assert list(kept.job_id) == ["1", "2", "4"] and list(kept.extra["name"]) == ["two\r\nlines", "b", "\u00e9"]
        bad = data.replace(b"\xc3\xa9", b"\xe9")
        offset = bad.index(b"\xe9")
        assert f"w.csv: row 7: byte 0xe9 (offset {offset}) is not valid UTF-8" in str(refuse(bad))


def test_parquet_caps_from_metadata_before_any_column_is_read(tmp_path: Path) -> None:
    n = 3000
    columns = {
        "job_id": [f"job-{i:0200d}" for i in range(n)],  # 204 bytes each, plain-encoded: compresses well
        **{c: np.ones(n) for c in ("submit_time", "duration", "cpu", "mem_gb", "gpu")},
        "job_class": ["BE"] * n,
        "unused": np.zeros(n),
    }
    pq.write_table(pa.table(columns), tmp_path / "w.parquet", compression="zstd", use_dictionary=False)
    data = (tmp_path / "w.parquet").read_bytes()
    meta = pq.ParquetFile(tmp_path / "w.parquet").metadata
    declared = sum(meta.row_group(0).column(j).total_uncompressed_size for j in range(7))  # all but "unused"
    assert len(data) < declared / 10
    loaded = load_workload(data, name="w.parquet", max_rows=n, max_bytes=declared)
    assert len(loaded.table) == n and loaded.notes == ["w.parquet: extra columns ignored: 'unused'"]
    err = refuse(data, name="w.parquet", max_rows=n - 1)
    assert isinstance(err, LimitExceeded)
    assert "w.parquet: the file declares 3,000 rows, above the row cap of 2,999 rows" in str(err)
    err = refuse(data, name="w.parquet", max_bytes=declared - 1)
    assert isinstance(err, LimitExceeded)
    assert f"declares {declared / 1e6:.1f} MB ({declared} bytes) of uncompressed data" in str(err)


def test_parquet_dictionary_that_expands_past_the_size_cap_is_refused(tmp_path: Path) -> None:
    n = 3000
    columns = {c: np.ones(n) for c in ("submit_time", "duration", "cpu", "mem_gb", "gpu")}
    names = pa.DictionaryArray.from_arrays(pa.array(np.zeros(n, dtype=np.int32)), pa.array(["x" * 10_000]))
    jobs = pa.table({"job_id": [f"j{i}" for i in range(n)], **columns, "job_class": ["TE"] * n, "name": names})
    pq.write_table(jobs, tmp_path / "w.parquet")
    data = (tmp_path / "w.parquet").read_bytes()
    assert len(data) < 100_000
    err = refuse(data, name="w.parquet", max_bytes=1_000_000)
    text = n * 10_000 + sum(len(f"j{i}") for i in range(n)) + n * len("TE")  # every text value, repeated per row
    assert isinstance(err, LimitExceeded) and f"its text columns expand to 30.0 MB ({text} bytes)" in str(err)
    assert len(load_workload(data, name="w.parquet", max_bytes=31_000_000).table) == n


def test_parquet_nested_columns_are_refused_by_type(tmp_path: Path) -> None:
    frame = pd.read_csv(pd.io.common.StringIO(GOOD))
    table = pa.Table.from_pandas(frame, preserve_index=False).set_column(5, "gpu", pa.array([[1] * 1000, [2]]))
    pq.write_table(table, tmp_path / "w.parquet")
    err = refuse((tmp_path / "w.parquet").read_bytes(), name="w.parquet")
    assert str(err) == "w.parquet: column 'gpu' holds nested values (list<element: int64>); expected numbers or text"


def test_alibaba_header_in_csv_mode_gets_a_hint() -> None:
    data = b"name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n"
    assert "use --format alibaba" in str(refuse(data + b"p,1,1,1,1,,LS,Running,0,5,0\n", fmt="csv"))


# --- writer and load measure ---------------------------------------------------------------------


def test_format_numbers_is_canonical() -> None:
    assert format_numbers(np.array([0.0, 30.0, 1.5, 0.1, 1e20, 1 / 3])) == [
        "0",
        "30",
        "1.5",
        "0.1",
        "100000000000000000000",
        "0.3333333333333333",
    ]


def test_writer_round_trips_and_quotes(tmp_path: Path) -> None:
    t = JobTable(
        job_id=np.array(["a,b", 'q"x', "3"], dtype=object),
        submit_time=np.array([0.0, 0.25, 7.0]),
        duration=np.array([1.0, 2.5, 3.0]),
        request=np.array([[1, 2, 0.5], [1, 2, 1], [4, 8, 1]], dtype=float),
        is_te=np.array([True, False, True]),
        extra={"user": np.array(["u", None, "w"], dtype=object)},
    )
    write_workload(t, tmp_path / "w.csv")
    text = (tmp_path / "w.csv").read_text()
    assert text.splitlines()[0] == f"{HEADER},user"
    assert text.splitlines()[1] == '"a,b",0,1,1,2,0.5,TE,u'
    back = load_workload(tmp_path / "w.csv").table
    assert list(back.job_id) == list(t.job_id)
    np.testing.assert_array_equal(back.request, t.request)
    assert list(back.extra["user"]) == ["u", None, "w"]


def test_offered_load() -> None:
    t = load_workload(GOOD.encode(), name="w.csv").table  # 1*100 + 2*200 GPU-s over 5.5 s
    assert offered_load(t, ClusterSpec.uniform(2, 8, 8, 4)) == pytest.approx(500 / (8 * 5.5))


# --- clusters ----------------------------------------------------------------------------------


def test_cluster_pools_yaml_and_json(tmp_path: Path) -> None:
    yaml_text = "nodes:\n  - {count: 2, cpu: 64, mem_gb: 512, gpu: 8, name: big}\n  - {cpu: 8, mem_gb: 32, gpu: 1}\n"
    c = load_cluster(yaml_text.encode(), name="c.yaml").cluster
    assert c.names == ["big-0", "big-1", "pool1-0"]
    doc = {"nodes": [{"count": 3, "cpu": 1, "mem_gb": 1, "gpu": 1}]}
    assert load_cluster(json.dumps(doc).encode(), name="c.json").cluster.names == ["pool0-0", "pool0-1", "pool0-2"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("nodes:\n  - {count: 2, cpu: -1, mem_gb: 5, gpu: 1}\n", "nodes[0].cpu: must be >= 0 (got -1)"),
        ("nodes:\n  - {count: 0, cpu: 1, mem_gb: 5, gpu: 1}\n", "nodes[0].count: must be >= 1 (got 0)"),
        ("nodes:\n  - {cpu: 1, mem_gb: 5}\n", "nodes[0].gpu: missing value"),
        ("nodes:\n  - {cpu: 1, mem_gb: 5, gpu: 1, gpus: 2}\n", "nodes[0].gpus: unknown key"),
        ("nodes:\n  - {count: 1000000000, cpu: 1, mem_gb: 5, gpu: 1}\n", "nodes[0].count"),
        ("nodes: []\n", "invalid cluster file"),
        ("pools: []\n", "expected a mapping with a 'nodes' list"),
        ("nodes: [\n", "not readable as YAML/JSON"),
        ("a: &x [1]\nnodes: *x\n", "anchors and aliases"),
        (
            "nodes:\n  - {name: a, cpu: 1, mem_gb: 1, gpu: 1}\n  - {name: a, cpu: 1, mem_gb: 1, gpu: 1}\n",
            "pool names must differ",
        ),
    ],
)
def test_cluster_file_refusals(text: str, message: str) -> None:
    with pytest.raises(WorkloadError) as err:
        load_cluster(text.encode(), name="c.yaml")
    assert message in str(err.value) and str(err.value).startswith("c.yaml: ")


def test_node_list_csv() -> None:
    c = load_cluster(b"name,cpu,mem_gb,gpu\nx,8,32,1\ny,16,64,2\n", name="nodes.csv").cluster
    assert c.names == ["x", "y"] and c.nodes[1].capacity.gpu == 2
    with pytest.raises(WorkloadError) as err:
        load_cluster(b"name,cpu,mem_gb,gpu\nx,8,32,1\nx,-16,64,2\n", name="nodes.csv")
    assert err.value.problems == (Problem("row 3", "cpu", "must be >= 0 (got '-16')"),)
    with pytest.raises(WorkloadError, match="duplicate name 'x' \\(first at row 2\\)"):
        load_cluster(b"name,cpu,mem_gb,gpu\nx,8,32,1\nx,16,64,2\n", name="nodes.csv")


def pools_yaml(n: int, count: int = 1) -> bytes:
    pools = [f"  - {{count: {count}, cpu: 1, mem_gb: 1, gpu: 1, name: p{i}}}\n" for i in range(n)]
    return ("nodes:\n" + "".join(pools)).encode()


def test_cluster_caps_are_checked_before_nodes_are_built() -> None:
    assert len(load_cluster(pools_yaml(5, 2), name="c.yaml", max_nodes=10, max_pools=5).cluster.nodes) == 10
    with pytest.raises(LimitExceeded, match=r"^c.yaml: 6 pools \(entries\) or more, above the pool cap of 5 pools$"):
        load_cluster(pools_yaml(6), name="c.yaml", max_pools=5)
    with pytest.raises(LimitExceeded, match=r"^c.yaml: the pools add up to 12 nodes, above the node cap of 10 nodes$"):
        load_cluster(pools_yaml(6, 2), name="c.yaml", max_nodes=10)
    huge = b"nodes: [{cpu: 1, mem_gb: 1, gpu: 1}, {count: 1000000000, cpu: 1, mem_gb: 1, gpu: 1}]"
    with pytest.raises(LimitExceeded, match=r"^c.yaml: nodes\[1\].count is 1,000,000,000, above the node cap"):
        load_cluster(huge, name="c.yaml")
    wide = {"nodes": [{"cpu": 1, "mem_gb": 1, "gpu": 1}], **{f"k{i}": 0 for i in range(6)}}
    with pytest.raises(LimitExceeded, match="pool cap of 5 pools"):  # a mapping may hold as many entries
        load_cluster(json.dumps(wide).encode(), name="c.json", max_pools=5)
    with pytest.raises(WorkloadError, match="c.yaml: values nested more than 8 deep"):
        load_cluster(b"nodes: " + b"[" * 20 + b"]" * 20, name="c.yaml")
    nodes = b"name,cpu,mem_gb,gpu\n" + b"".join(b"n%d,1,1,1\n" % i for i in range(11))
    with pytest.raises(LimitExceeded, match=r"^nodes.csv: 11 node rows or more, above the node cap of 10 nodes$"):
        load_cluster(nodes, name="nodes.csv", max_nodes=10)
    with pytest.raises(LimitExceeded, match="above the size cap"):
        load_cluster(pools_yaml(1), name="c.yaml", max_bytes=10)


# --- CLI glue ----------------------------------------------------------------------------------


def harness(argv: list[str]) -> argparse.Namespace:
    """The command line's parse of ``argv``."""
    return build_parser().parse_args(argv)


def test_cli_generate_prints_load_and_counts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "d.csv"
    args = harness(
        [
            "generate",
            "--preset",
            "demo",
            "--seed",
            "0",
            "--out",
            str(out),
            "--set",
            "jobs=40",
            "--cluster-out",
            str(tmp_path / "c.csv"),
        ]
    )
    assert args.func(args) == 0
    printed = capsys.readouterr().out
    assert "40 jobs (12 TE, 28 BE) on 4 nodes; realised offered GPU load" in printed
    assert "--nodes 4 --node-cpu 64 --node-mem-gb 512 --node-gpu 8" in printed
    assert load_cluster(tmp_path / "c.csv").cluster.names == ["n0", "n1", "n2", "n3"]
    with pytest.raises(UserError, match="expected KEY=VALUE"):
        args = harness(["generate", "--preset", "demo", "--out", str(out), "--set", "jobs"])
        args.func(args)


def test_cli_run_options_load_workload_and_cluster(tmp_path: Path) -> None:
    (tmp_path / "w.csv").write_text(GOOD + "3,1,5,1,1,1,XX\n")
    args = harness(
        ["run", str(tmp_path / "w.csv"), "--drop-invalid", "--dropped-out", str(tmp_path / "d.csv"), "--nodes", "2"]
    )
    table, notes = inputs.workload_from_args(args)
    assert len(table) == 2 and any("dropped 1 invalid rows of 3" in n for n in notes)
    assert (
        tmp_path / "d.csv"
    ).read_text() == "row,column,reason\nrow 4,job_class,\"must be TE or BE, case-insensitive (got 'XX')\"\n"
    assert inputs.cluster_from_args(args).names == ["n0", "n1"]
    default = inputs.cluster_from_args(harness(["run", "w.csv"]))
    assert len(default.nodes) == 16 and default.nodes[0].capacity.gpu == 8 and default.nodes[0].capacity.mem_gb == 512


def test_cli_max_rows_reaches_the_loader(tmp_path: Path) -> None:
    (tmp_path / "w.csv").write_text(GOOD)
    assert harness(["run", "w.csv"]).max_rows == workload.DEFAULT_MAX_ROWS
    assert len(inputs.workload_from_args(harness(["run", str(tmp_path / "w.csv"), "--max-rows", "2"]))[0]) == 2
    with pytest.raises(LimitExceeded, match=r"w.csv: 2 rows or more, above the row cap of 1 row \(raise it with"):
        inputs.workload_from_args(harness(["run", str(tmp_path / "w.csv"), "--max-rows", "1"]))


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--nodes", "2", "--cluster", "c.yaml"], "choose one cluster"),
        (["--first-n", "3"], "apply to --cluster-trace only"),
        (["--node-gpu", "-1"], "--node-gpu: -1 must be a finite number >= 0"),
    ],
)
def test_cli_cluster_option_conflicts(argv: list[str], message: str) -> None:
    with pytest.raises(UserError, match=message):
        inputs.cluster_from_args(harness(["run", "w.csv", *argv]))


def test_cli_bad_option_values_exit_with_argparse_message(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["--window-start", "137x"], ["--compress", "0"], ["--max-bytes", "lots"]):
        with pytest.raises(SystemExit):
            harness(["run", "w.csv", *argv])
    assert "not a size" in capsys.readouterr().err
    assert inputs.parse_byte_size("50M") == 50_000_000


def test_cli_convert_canonical(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "w.json").write_text(json.dumps(pd.read_csv(pd.io.common.StringIO(GOOD)).to_dict("records")))
    args = harness(["convert", str(tmp_path / "w.json"), "--out", str(tmp_path / "o.csv"), "--nodes", "1"])
    assert args.func(args) == 0
    assert (tmp_path / "o.csv").read_text() == f"{HEADER}\n1,0,100,4,16,1,TE\n2,5.5,200,8,32,2,BE\n"
    assert "offered GPU load on 1 nodes (8 GPUs): 11.364" in capsys.readouterr().out


# --- times and resources float64 cannot hold (issue 12; issue 11 point 4) ----------------------


@pytest.mark.parametrize(
    ("row", "column", "reason"),
    [
        # 2^53 s = 9007199254740992: the last time float64 holds to the second
        ("x,9007199254740000,991,1,1,1,BE", None, None),  # control: ends one second before 2^53
        (
            "x,9007199254740000,992,1,1,1,BE",
            "duration",
            "submit_time + duration = 9007199254740992 s reaches 2^53 s = 9007199254740992, "
            "where float64 times stop being exact",
        ),
        (
            "x,9007199254740000,993,1,1,1,BE",
            "duration",  # the sum rounds to 2^53: still refused
            "submit_time + duration = 9007199254740992 s reaches 2^53 s = 9007199254740992, "
            "where float64 times stop being exact",
        ),
        (
            "x,1e16,1,1,1,1,BE",
            "submit_time",
            "must be at most 2^53 s = 9007199254740992, where float64 times stop being exact (got '1e16')",
        ),
        # at 1e12 s the clock ticks in 0.000122 s: a shorter job would take no time at all
        ("x,1e12,0.001,1,1,1,TE", None, None),  # control: one tick and more
        (
            "x,1e12,0.00001,1,1,1,TE",
            "duration",
            "duration 1e-05 s is below the clock's resolution at this submit time (submit_time + duration == "
            "submit_time in float64; the resolution at 1e+12 s is 0.000122 s)",
        ),
        (
            "x,0,1e-300,1,1,1,TE",
            "duration",
            "duration 1e-300 s is below the clock's resolution at this submit time (submit_time + duration == "
            "submit_time in float64; the resolution at 1 s, used below 1 s, is 2.22e-16 s)",
        ),
        ("x,0,100,1e9,1e9,1e9,BE", None, None),  # control: the largest request
        ("x,0,100,1000000001,1,1,BE", "cpu", "must be <= 1e9 (got '1000000001')"),
        ("x,0,100,1,1e300,1,BE", "mem_gb", "must be <= 1e9 (got '1e300')"),
        ("x,0,100,1,1,2e9,BE", "gpu", "must be <= 1e9 (got '2e9')"),
    ],
)
def test_values_float64_cannot_hold_are_refused_with_row_and_column(
    row: str, column: str | None, reason: str | None
) -> None:
    data = csv_bytes("a,0,10,1,1,1,BE", row)
    if reason is None:
        assert len(load_workload(data, name="w.csv").table) == 2
        return
    err = refuse(data)
    assert err.problems == (Problem("row 3", column, reason),)
    assert f"row 3, column {column}: {reason}" in str(err)


def test_clock_problems_are_dropped_like_any_bad_row_and_json_rows_are_numbered_from_1() -> None:
    data = csv_bytes("a,0,10,1,1,1,BE", "b,5e15,5e15,1,1,1,BE", "c,4e15,0.1,1,1,1,TE")
    loaded = load_workload(data, name="w.csv", drop_invalid=True)
    assert list(loaded.table.job_id) == ["a"]
    assert [(p.row, p.column) for p in loaded.dropped] == [("row 3", "duration"), ("row 4", "duration")]
    records = json.dumps(
        [{"job_id": "a", "submit_time": 1e15, "duration": 0.01, "cpu": 1, "mem_gb": 1, "gpu": 1, "job_class": "TE"}]
    ).encode()
    err = refuse(records, name="w.json")
    assert [(p.row, p.column) for p in err.problems] == [("record 1", "duration")]


def test_cluster_capacities_have_the_same_bound(tmp_path: Path) -> None:
    (tmp_path / "nodes.csv").write_text("name,cpu,mem_gb,gpu\na,64,512,8\nb,2e9,512,8\n")
    with pytest.raises(WorkloadError, match=r"row 3, column cpu: must be <= 1e9 \(got '2e9'\)"):
        load_cluster(tmp_path / "nodes.csv")
    (tmp_path / "pools.yaml").write_text("nodes: [{count: 2, cpu: 64, mem_gb: 1e12, gpu: 8}]\n")
    with pytest.raises(WorkloadError, match=r"nodes\[0\]\.mem_gb: must be <= 1e9"):
        load_cluster(tmp_path / "pools.yaml")
