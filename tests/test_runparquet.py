"""A run's jobs and events as Parquet (simcore/io/runparquet.py, issue 36): the CSV's columns and
values, typed, a row group at a time. The check: the Parquet file read back and written by the CSV
writer gives the very bytes of the run's CSV (a null is the CSV's empty cell)."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from simcore.cli import main
from simcore.core.downtime import NodeEvents
from simcore.core.model import ClusterSpec, JobTable, Node, Resources, SimConfig
from simcore.core.result import SimResult
from simcore.engine import simulate
from simcore.io import runparquet
from simcore.io.csvsafe import csv_bytes
from simcore.io.runparquet import write_parquet_columns, write_run_parquet
from simcore.workload.presets import generate


def _read_back(path) -> dict[str, np.ndarray]:
    """The columns of a Parquet file as arrays: text with None for null, numbers as stored."""
    table = pq.read_table(path)
    return {
        name: col.to_numpy(zero_copy_only=False) for name, col in zip(table.column_names, table.columns, strict=True)
    }


def _hand_made() -> SimResult:
    """Ids and a node name a spreadsheet would read as formulas, a failure window (node rows without
    a job), fractional times, and a job whose instants are NaN."""
    ids = ["=cmd|' /C calc'!A0", "+1", 'q"t,a', "plain7", "-5"]
    table = JobTable(
        job_id=np.array(ids, dtype=object),
        submit_time=np.array([0.1, 1 / 3, 1e-05, 2.5, 7.125]),
        duration=np.array([3.3, 1.7, 9, 0.01, 5]),
        request=np.ones((5, 3)),
        is_te=np.array([True, False, False, True, False]),
    )
    cluster = ClusterSpec((Node("=n0;x", Resources(1.0, 1.0, 1.0)), Node("n1", Resources(1.0, 1.0, 1.0))))
    cluster = cluster.with_node_events(NodeEvents.of([("n1", 1.05, 4.75, "failure")]))
    result = simulate(table, cluster, SimConfig(policy="fitgpp"))
    finish = result.finish.copy()
    finish[-1] = np.nan
    return dataclasses.replace(result, finish=finish)


def _preset(preset: str, policy: str) -> SimResult:
    wl = generate(preset, 0, {"jobs": 300})
    return simulate(wl.table, wl.cluster, SimConfig(policy=policy))


@pytest.mark.parametrize(
    "make",
    [
        _hand_made,
        lambda: _preset("teams", "fitgpp"),  # the queue column
        lambda: _preset("paper-gang", "k8s"),  # a start row per worker
        lambda: _preset("mmc", "fifo"),  # fractional times
    ],
)
def test_parquet_holds_the_csv_values_in_row_groups(make, tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runparquet, "ROWS_PER_GROUP", 7)
    result = make()
    jobs, events = tmp_path / "jobs.parquet", tmp_path / "events.parquet"
    write_run_parquet(result, jobs, events)
    for path, columns in ((jobs, result.job_columns()), (events, result.event_columns())):
        back = _read_back(path)
        assert list(back) == list(columns)
        assert csv_bytes(back) == csv_bytes(columns)
        rows = len(next(iter(back.values())))
        assert pq.ParquetFile(path).metadata.num_row_groups == math.ceil(rows / 7)
    texts = _read_back(events)
    submit = texts["event"] == "submit"
    assert all(node is None for node in texts["node"][submit])  # the CSV's empty cell is a null
    if make is _hand_made:
        assert "=cmd|' /C calc'!A0" in set(texts["job_id"])  # stored as it is: no formula rule
        assert pq.read_schema(jobs).field("submit_time").type == pa.float64()
        assert pq.read_schema(jobs).field("preemptions").type == pa.int64()


def test_a_file_without_rows_keeps_its_columns(tmp_path) -> None:
    path = tmp_path / "none.parquet"
    write_parquet_columns(path, {"time": np.array([]), "job_id": (np.array(["a"], dtype=object), np.array([], int))})
    table = pq.read_table(path)
    assert table.num_rows == 0 and table.schema.names == ["time", "job_id"]
    assert table.schema.field("job_id").type == pa.string()
    with pytest.raises(ValueError, match="different lengths"):
        write_parquet_columns(path, {"a": np.zeros(2), "b": np.zeros(3)})


def test_simcore_run_picks_the_format_by_extension(tmp_path, capsys) -> None:
    wl = tmp_path / "w.csv"
    main(["generate", "--preset", "demo", "--set", "jobs=60", "--out", str(wl)])
    csvs = [tmp_path / "jobs.csv", tmp_path / "events.csv"]
    mixed = [tmp_path / "jobs.parquet", tmp_path / "events.csv"]
    for jobs, events in (csvs, mixed):
        rc = main(["run", str(wl), "--policy", "k8s", "--jobs-out", str(jobs), "--events-out", str(events)])
        assert rc == 0
    capsys.readouterr()
    assert (tmp_path / "events.csv").read_bytes()  # written by the CSV writer both times
    assert csv_bytes(_read_back(mixed[0])) == csvs[0].read_bytes()
