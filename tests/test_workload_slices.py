"""A large workload is validated a slice of rows at a time (issue 36): the same table, notes,
dropped rows and refusals as validating the whole file at once. The slices are made small here
(``SLICE_ROWS`` lowered) so that a file of a dozen rows crosses several of them."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simcore.workload import WorkloadError, load_workload, loader, readers
from simcore.workload.problems import RawTable

SAMPLES = Path(__file__).resolve().parent.parent / "sample_workloads" / "traces"


def _parquet(rows: list[tuple], extra: bool = True) -> bytes:
    frame = pd.DataFrame(rows, columns=["job_id", "submit_time", "duration", "cpu", "mem_gb", "gpu", "job_class"])
    frame["user"] = [f"u{i % 3}" for i in range(len(rows))]
    if extra:
        frame["comment"] = "x"
    out = io.BytesIO()
    frame.to_parquet(out, row_group_size=4)
    return out.getvalue()


GOOD = [(f"j{i}", float(i), 10.0 + i, 1.0, 2.0, float(i % 3), "TE" if i % 4 == 0 else "BE") for i in range(12)]
# a bad duration (row 4), an unknown class (row 7), j3 again (row 10: a duplicate across slices)
# and j9 twice on row 11 and 13 (the second one a duplicate within a later slice)
BAD = list(GOOD)
BAD[2] = ("j2", 2.0, -1.0, 1.0, 2.0, 0.0, "BE")
BAD[5] = ("j5", 5.0, 15.0, 1.0, 2.0, 2.0, "XX")
BAD[8] = ("j3", 8.0, 18.0, 1.0, 2.0, 2.0, "BE")
BAD[11] = ("j9", 11.0, 21.0, 1.0, 2.0, 2.0, "BE")


def _csv(rows: list[tuple]) -> bytes:
    """`rows` as CSV, with a blank line after the third row (row 5: the rows after it keep their
    numbers) and the sixth row (j5, row 8) cut short (refused while reading)."""
    lines = ["job_id,submit_time,duration,cpu,mem_gb,gpu,job_class,comment"]
    lines += [",".join(map(str, r)) + ",x" for r in rows]
    lines[6] = lines[6].rsplit(",", 2)[0]
    lines.insert(4, "")
    return ("\n".join(lines) + "\n").encode()


def _both(monkeypatch: pytest.MonkeyPatch, data: bytes, name: str = "w.parquet", **options):
    """The load of `data` whole and by slices of 5 rows: each a LoadedWorkload or the WorkloadError's text."""
    out = []
    for rows in (10**9, 5):
        monkeypatch.setattr(loader, "SLICE_ROWS", rows)
        try:
            out.append(load_workload(data, name=name, **options))
        except WorkloadError as exc:
            out.append(str(exc))
    return out


def _same_table(a, b) -> None:
    for field in ("job_id", "submit_time", "duration", "request", "is_te", "workers"):
        x, y = np.asarray(getattr(a.table, field)), np.asarray(getattr(b.table, field))
        assert x.dtype == y.dtype and x.tolist() == y.tolist(), field
    assert {k: v.tolist() for k, v in a.table.extra.items()} == {k: v.tolist() for k, v in b.table.extra.items()}
    assert (a.notes, a.dropped, a.fmt) == (b.notes, b.dropped, b.fmt)


def test_a_good_file_by_slices_is_the_same_table(monkeypatch: pytest.MonkeyPatch) -> None:
    whole, sliced = _both(monkeypatch, _parquet(GOOD))
    _same_table(whole, sliced)
    assert sliced.table.job_id.tolist() == [f"j{i}" for i in range(12)]
    assert sliced.notes == ["w.parquet: extra columns ignored: 'comment'"]


def test_bad_rows_refused_and_dropped_alike(monkeypatch: pytest.MonkeyPatch) -> None:
    whole, sliced = _both(monkeypatch, _parquet(BAD))
    assert isinstance(whole, str) and whole == sliced
    assert "4 of 12 rows are invalid" in sliced and "duplicate job_id 'j3' (first at row 5)" in sliced
    whole, sliced = _both(monkeypatch, _parquet(BAD), drop_invalid=True)
    _same_table(whole, sliced)
    assert [p.row for p in sliced.dropped] == ["row 4", "row 7", "row 10", "row 13"]
    assert sliced.table.job_id.tolist() == [f"j{i}" for i in (0, 1, 3, 4, 6, 7, 9, 10)]


def test_a_missing_column_is_refused_alike(monkeypatch: pytest.MonkeyPatch) -> None:
    frame = pd.DataFrame([r[:6] for r in GOOD], columns=["job_id", "submit_time", "duration", "cpu", "mem_gb", "gpu"])
    out = io.BytesIO()
    frame.to_parquet(out)
    whole, sliced = _both(monkeypatch, out.getvalue())
    assert isinstance(whole, str) and whole == sliced and "missing required column(s) job_class" in sliced


def test_csv_by_slices_keeps_its_row_numbers_and_read_problems(monkeypatch: pytest.MonkeyPatch) -> None:
    whole, sliced = _both(monkeypatch, _csv(BAD), name="w.csv")
    assert isinstance(whole, str) and whole == sliced
    assert "row 8: has 6 values but the header has 8 columns" in sliced
    assert "duplicate job_id 'j3' (first at row 6)" in sliced  # row 5 is the blank line
    whole, sliced = _both(monkeypatch, _csv(BAD), name="w.csv", drop_invalid=True)
    _same_table(whole, sliced)
    assert [p.row for p in sliced.dropped] == ["row 4", "row 8", "row 11", "row 14"]  # row 8: j5, short


# --- CSV read a slice at a time: the same result as the whole file, whatever the cuts ----------

HEADER = "job_id,submit_time,duration,cpu,mem_gb,gpu,job_class,name"


def _rows(n: int, start: int = 0) -> list[str]:
    return [f"j{i},{i}.5,{10 + i},1,2,{i % 3},{'TE' if i % 4 == 0 else 'BE'},n{i}" for i in range(start, start + n)]


def _text(lines: list[str], end: str = "\n") -> bytes:
    return (end.join(lines) + end).encode()


def _streamed(monkeypatch: pytest.MonkeyPatch, data: bytes, **options):
    """The load of `data` as one slice, as the reader has always parsed it, then a slice of 5 rows at a
    time, parsed in batches of 3 records from pieces of a few bytes: each a LoadedWorkload or the
    WorkloadError's text."""
    out = []
    for slice_rows, batch, piece in ((10**9, readers._BATCH, readers._PIECE), (5, 3, 8)):
        monkeypatch.setattr(loader, "SLICE_ROWS", slice_rows)
        monkeypatch.setattr(readers, "_BATCH", batch)
        monkeypatch.setattr(readers, "_PIECE", piece)
        try:
            out.append(load_workload(data, name="w.csv", **options))
        except WorkloadError as exc:
            out.append(str(exc))
    return out


def _alike(whole, sliced) -> None:
    if isinstance(whole, str):
        assert whole == sliced
    else:
        _same_table(whole, sliced)
        assert whole.rows.tolist() == sliced.rows.tolist() and whole.row_unit == sliced.row_unit


CRAFTED = {
    # a bad duration in the second slice, j3 again in the third, a short row at the end of the first slice
    "errors": [
        HEADER,
        *_rows(4),
        "j4,4,10,1,2",
        *_rows(3, 5),
        "j8,8,-1,1,2,0,BE,x",
        *_rows(3, 9),
        "j3,12,1,1,2,0,BE,y",
    ],
    # a row of the wrong width first in the second slice, blank lines on both sides of the cut
    "boundary": [HEADER, *_rows(5), "", "j5,5,10,1,2,0,BE,n5,extra", "", *_rows(6, 6)],
    # a name holding a line break and a comma, quoted: one record over two lines, in every slice
    "quoted": [HEADER, *[f'j{i},{i},5,1,2,0,BE,"first line\nsecond, {i}"' for i in range(13)]],
    "BOM": ["\ufeff" + HEADER, *_rows(12)],
    "duplicates only": [HEADER, *_rows(7), *_rows(7)],
    "a column missing": [
        "job_id,submit_time,duration,cpu,mem_gb,gpu",
        *[",".join(r.split(",")[:6]) for r in _rows(12)],
    ],
}


@pytest.mark.parametrize("name", sorted(CRAFTED))
@pytest.mark.parametrize("end", ["\n", "\r\n"])
@pytest.mark.parametrize("drop", [False, True])
def test_csv_streamed_is_the_whole_file(monkeypatch: pytest.MonkeyPatch, name: str, end: str, drop: bool) -> None:
    whole, sliced = _streamed(monkeypatch, _text(CRAFTED[name], end), drop_invalid=drop)
    _alike(whole, sliced)


def test_csv_streamed_finds_what_crosses_the_slices(monkeypatch: pytest.MonkeyPatch) -> None:
    whole, sliced = _streamed(monkeypatch, _text(CRAFTED["errors"]))
    assert whole == sliced
    assert "3 of 13 rows are invalid" in sliced and "row 6: has 5 values but the header has 8 columns" in sliced
    assert (
        "row 10, column duration: must be > 0" in sliced
        and "row 14, column job_id: duplicate job_id 'j3' (first at row 5)" in sliced
    )
    whole, sliced = _streamed(monkeypatch, _text(CRAFTED["boundary"]), drop_invalid=True)
    assert [p.row for p in sliced.dropped] == ["row 8"] and sliced.rows.tolist()[4:6] == [6, 10]
    whole, sliced = _streamed(monkeypatch, _text(CRAFTED["quoted"]))
    assert sliced.table.extra["name"].tolist()[12] == "first line\nsecond, 12"


@pytest.mark.parametrize(
    ("tail", "error"),
    [
        (b"j99,1,1,1,1,0,BE,\xff\n", "w.csv: row 13: byte 0xff (offset"),  # bad UTF-8 in the last slice
        (b'j99,1,1,1,1,0,BE,"' + b"x" * 200_000 + b'"\n', "w.csv: line 13: not readable as CSV (field larger than"),
        (_text(_rows(30, 100)), "w.csv: 31 rows or more, above the row cap of 30 rows"),
    ],
)
def test_a_read_error_after_the_first_slice_is_the_whole_file_s(
    monkeypatch: pytest.MonkeyPatch, tail: bytes, error: str
) -> None:
    """Raised after the first slices were validated, as when the file was read whole: even a
    missing column, found in the first slice, waits for the read error further on."""
    for head in (CRAFTED["errors"], CRAFTED["a column missing"]):
        whole, sliced = _streamed(monkeypatch, _text(head[:12]) + tail, max_rows=30)
        assert whole == sliced and sliced.startswith(error), sliced


def test_csv_slices_are_parsed_when_asked_for(monkeypatch: pytest.MonkeyPatch) -> None:
    """The reader yields a slice before it has read what follows (but the row after it): a bad byte
    in the second slice is met only when that slice is asked for (the text decoded a piece at a
    time, here of 8 bytes); a file of two full slices is two slices, the last one saying so."""
    monkeypatch.setattr(readers, "_PIECE", 8)
    monkeypatch.setattr(readers, "_BATCH", 3)
    slices = readers.read_csv_slices(_text([HEADER, *_rows(8)]) + b"j8,\xff\n", "w.csv", slice_rows=5)
    first, more = next(slices)
    assert more and first.numbers.tolist() == [2, 3, 4, 5, 6] and first.columns["job_id"] == [f"j{i}" for i in range(5)]
    with pytest.raises(WorkloadError, match="row 10: byte 0xff"):
        next(slices)
    whole = list(readers.read_csv_slices(_text([HEADER, *_rows(10)]), "w.csv", slice_rows=5))
    assert [(t.numbers.tolist(), more) for t, more in whole] == [([2, 3, 4, 5, 6], True), ([7, 8, 9, 10, 11], False)]


@pytest.mark.parametrize("name", ["spot2026_job_info_df.csv", "helios_cluster_log.csv", "acme_trace_seren.csv"])
def test_a_gang_trace_past_a_slice_is_adapted_whole(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    """A trace detected from its header is read by slices, joined, and adapted as one table."""
    whole, sliced = _streamed(monkeypatch, (SAMPLES / name).read_bytes())
    _same_table(whole, sliced)
    assert whole.fmt == sliced.fmt != "csv" and whole.counts == sliced.counts


def test_joined_slices_are_the_table() -> None:
    raw = readers.read_csv_raw(_text(CRAFTED["errors"]), "w.csv")
    parts = [raw.rows(0, 4), raw.rows(4, 5), raw.rows(5, 13)]
    joined = RawTable.joined(parts)
    assert joined.columns == raw.columns and joined.numbers.tolist() == raw.numbers.tolist()
    assert joined.problems == raw.problems == [(4, joined.problems[0][1])]


PIECES = [b",", b"\n", b"\r\n", b'"', b"\xff", b"\xef\xbb\xbf", b"", b"-1", b"TE", b"j3", b"x" * 40]


@st.composite
def mutated(draw: st.DrawFn) -> bytes:
    """A 14-row workload CSV with a few pieces inserted, deleted or overwritten anywhere."""
    data = bytearray(_text([HEADER, *_rows(14)]))
    for _ in range(draw(st.integers(1, 5))):
        pos = draw(st.integers(0, len(data)))
        piece = draw(st.sampled_from(PIECES) | st.binary(max_size=3))
        if draw(st.booleans()):
            data[pos:pos] = piece
        else:
            data[pos : pos + max(1, len(piece))] = piece
    return bytes(data)


@settings(max_examples=150, deadline=None)
@given(mutated(), st.booleans())
def test_any_mutated_csv_streamed_is_the_whole_file(data: bytes, drop: bool) -> None:
    with pytest.MonkeyPatch.context() as monkeypatch:
        whole, sliced = _streamed(monkeypatch, data, drop_invalid=drop, max_rows=20)
    _alike(whole, sliced)
