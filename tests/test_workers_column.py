"""The optional ``workers`` column (DESIGN-gangs point 2) in every workload format, the writer and
offered load with workers, and the unschedulable check for gangs (DESIGN-gangs point 1)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from simcore.core import units
from simcore.core.model import ClusterSpec, JobTable, Node, Resources
from simcore.workload import WorkloadError, load_workload, offered_load, write_workload
from simcore.workload.fit import fits_empty_cluster, workers_per_node

HEADER = "job_id,submit_time,duration,cpu,mem_gb,gpu,job_class,workers"


def csv_with_workers(*cells: str) -> bytes:
    rows = [f"j{i},{i},100,4,16,1,BE,{cell}" for i, cell in enumerate(cells)]
    return ("\n".join([HEADER, *rows]) + "\n").encode()


def test_absent_column_means_one_worker_each() -> None:
    table = load_workload(b"job_id,submit_time,duration,cpu,mem_gb,gpu,job_class\na,0,1,1,1,1,TE\n", name="w.csv").table
    assert table.workers.tolist() == [1]  # type: ignore[union-attr]
    assert not table.has_gangs


@pytest.mark.parametrize(("cell", "expected"), [("", 1), ("1", 1), ("2", 2), ("2.0", 2), (" 4 ", 4), ("007", 7)])
def test_accepted_forms(cell: str, expected: int) -> None:
    table = load_workload(csv_with_workers(cell), name="w.csv").table
    assert table.workers.tolist() == [expected]  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("cell", "reason"),
    [
        ("1e1", "written as digits, optionally followed by .0 (got '1e1')"),
        ("+2", "written as digits, optionally followed by .0 (got '+2')"),
        ("1_0", "written as digits, optionally followed by .0 (got '1_0')"),
        ("2.5", "written as digits, optionally followed by .0 (got '2.5')"),
        ("2.00", "written as digits, optionally followed by .0 (got '2.00')"),
        ("-1", "written as digits, optionally followed by .0 (got '-1')"),
        ("abc", "written as digits, optionally followed by .0 (got 'abc')"),
        ("0", "must be >= 1 and <= 1,000,000 (got '0')"),
        ("1000001", "must be >= 1 and <= 1,000,000 (got '1000001')"),
    ],
)
def test_refused_forms_name_file_row_and_column(cell: str, reason: str) -> None:
    with pytest.raises(WorkloadError) as err:
        load_workload(csv_with_workers("3", cell), name="gang.csv")
    message = str(err.value)
    assert message.startswith("gang.csv: refused: 1 of 2 rows are invalid")
    assert "row 3, column workers: " in message and reason in message.split("column workers: ")[1]


def test_json_records_take_numbers_and_refuse_fractions_and_booleans() -> None:
    base = {"submit_time": 0, "duration": 1, "cpu": 1, "mem_gb": 1, "gpu": 1, "job_class": "BE"}
    good = [{**base, "job_id": "a", "workers": 3}, {**base, "job_id": "b", "workers": 2.0}, {**base, "job_id": "c"}]
    table = load_workload(json.dumps(good).encode(), name="w.json").table
    assert table.workers.tolist() == [3, 2, 1]  # type: ignore[union-attr]
    bad = [{**base, "job_id": "a", "workers": 1.5}, {**base, "job_id": "b", "workers": True}]
    with pytest.raises(WorkloadError) as err:
        load_workload(json.dumps(bad).encode(), name="w.json")
    assert "record 1, column workers: must be a whole number >= 1 written as digits" in str(err.value)
    assert (
        "record 2, column workers: must be a whole number >= 1 written as digits, optionally followed by .0 (got 'true')"
        in str(err.value)
    )


def test_parquet_integer_column(tmp_path: Path) -> None:
    path = tmp_path / "w.parquet"
    columns = {
        "job_id": ["a", "b"],
        "submit_time": [0, 1],
        "duration": [5, 5],
        "cpu": [1, 1],
        "mem_gb": [1, 1],
        "gpu": [8, 8],
        "job_class": ["BE", "TE"],
        "workers": pa.array([4, 0], pa.int64()),
    }
    pq.write_table(pa.table(columns), path)
    with pytest.raises(WorkloadError, match="row 3, column workers: must be >= 1"):
        load_workload(path)
    columns["workers"] = pa.array([4, 1], pa.int64())
    pq.write_table(pa.table(columns), path)
    assert load_workload(path).table.workers.tolist() == [4, 1]  # type: ignore[union-attr]


def _table(workers: list[int], gpu: float = 2.0) -> JobTable:
    n = len(workers)
    return JobTable(
        job_id=np.array([f"j{i}" for i in range(n)], dtype=object),
        submit_time=np.arange(n, dtype=float) * 10,
        duration=np.full(n, 100.0),
        request=np.tile([1.0, 1.0, gpu], (n, 1)),
        is_te=np.zeros(n, dtype=bool),
        workers=np.array(workers, dtype=np.int64),
    )


def test_writer_adds_the_column_only_for_gangs_and_round_trips(tmp_path: Path) -> None:
    single, gang = tmp_path / "single.csv", tmp_path / "gang.csv"
    write_workload(_table([1, 1]), single)
    assert single.read_text().splitlines()[0] == "job_id,submit_time,duration,cpu,mem_gb,gpu,job_class"
    write_workload(_table([1, 3]), gang)
    lines = gang.read_text().splitlines()
    assert lines[0].endswith(",job_class,workers") and lines[2] == "j1,10,100,1,1,2,BE,3"
    assert load_workload(gang).table.workers.tolist() == [1, 3]  # type: ignore[union-attr]


def test_offered_load_counts_workers() -> None:
    # work = (1 + 3) workers x 2 GPUs x 100 s = 800 GPU-s over 8 GPUs x 10 s span -> 10
    assert offered_load(_table([1, 3]), ClusterSpec.uniform(1, 64, 512, 8)) == pytest.approx(10.0)


def test_a_gang_fits_when_the_empty_cluster_holds_every_worker() -> None:
    cluster = ClusterSpec.uniform(2, 64, 512, 8)  # two nodes of 8 GPUs, 64 cores
    requests = [[8, 8, 4], [8, 8, 4], [1, 1, 8], [0, 0, 0], [40, 1, 1], [1, 1, 9], [1, 1, 3]]
    workers = [4, 5, 3, 100, 3, 1, 4]
    jobs = JobTable(
        job_id=np.array(list("abcdefg"), dtype=object),
        submit_time=np.zeros(7),
        duration=np.ones(7),
        request=np.array(requests, dtype=float),
        is_te=np.zeros(7, dtype=bool),
        workers=np.array(workers, dtype=np.int64),
    )
    # a: 2 per node -> 4 fit; b: 5 > 4; c: one 8-GPU worker per node -> 2 < 3; d: asks for nothing;
    # e: 40 cores -> one per node -> 2 < 3; f: 9 GPUs fit no node; g: 3-GPU workers, 2 per node -> 4
    assert fits_empty_cluster(jobs, cluster).tolist() == [True, False, False, True, False, False, True]


@pytest.mark.parametrize("seed", range(20))
def test_fits_is_the_per_node_count_on_clusters_with_kinds_of_node(seed: int) -> None:
    """Counting each kind of node once (times its nodes) gives the node-by-node sum's answer."""
    rng = np.random.default_rng(seed)
    kinds = [(float(rng.integers(0, 65)), float(rng.integers(0, 513)), float(rng.integers(0, 9))) for _ in range(3)]
    picked = rng.integers(0, len(kinds), size=int(rng.integers(1, 12)))
    cluster = ClusterSpec(tuple(Node(f"n{i}", Resources(*kinds[k])) for i, k in enumerate(picked)))
    n = 300
    request = np.column_stack([rng.integers(0, 70, n), rng.integers(0, 600, n), rng.integers(0, 10, n)]) / 4
    jobs = JobTable(
        job_id=np.array([f"j{i}" for i in range(n)], dtype=object),
        submit_time=np.zeros(n),
        duration=np.ones(n),
        request=request,
        is_te=np.zeros(n, dtype=bool),
        workers=rng.integers(1, 40, n),
    )
    cap = units.capacities(cluster.capacity_matrix(), cluster.names)
    room = workers_per_node(units.requests(jobs.request), cap).sum(axis=1)
    assert fits_empty_cluster(jobs, cluster).tolist() == (room >= jobs.workers).tolist()
