"""A large workload is validated a slice of rows at a time (issue 36): the same table, notes,
dropped rows and refusals as validating the whole file at once. The slices are made small here
(``SLICE_ROWS`` lowered) so that a file of a dozen rows crosses several of them."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest

from simcore.workload import WorkloadError, load_workload, loader


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
