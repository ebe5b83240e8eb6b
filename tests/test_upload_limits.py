"""Upload amplification (issue 12): files within the byte cap, or tiny, that would make the loader
build far more than they hold. Each is loaded in a fresh Python process, through the dashboard's
upload path (demo limits, ``SIMCORE_DEMO=1``) or the CLI's loader defaults; it must be refused
within seconds, with a bounded rise of the process's peak memory: the peak resident size
(``VmHWM``, what ``ru_maxrss`` reports, reset through ``/proc/self/clear_refs`` just before the
load) minus the resident size then, the file's bytes already in memory. The load must leave no thread
running (a pool left behind can abort the process at its exit), and the child must exit 0.

Run as a script (``python tests/test_upload_limits.py``) for the bench of the large cases that
are too slow for the suite: a 199 MB CSV (under the 200 MB cap) through the CLI's defaults.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from helpers import HANG_SECONDS
from helpers.paths import ROOT
from hypothesis import given, settings
from hypothesis import strategies as st

from dashboard.shared import demo, uploads
from simcore.cli import build_parser, inputs
from simcore.core.errors import UserError
from simcore.io import parquet_pages
from simcore.workload import DEFAULT_MAX_ROWS, MAX_NODES, MAX_POOLS, WorkloadError
from simcore.workload.alibaba import AlibabaOptions

HEADER = "job_id,submit_time,duration,cpu,mem_gb,gpu,job_class\n"
SECONDS = 5.0  # "quickly", in the loader's CPU seconds: every case here takes well under one (a load
# beside the test stretches its wall clock, which failed it once at 5.25 s: not its CPU time)
EXTRA_MB = 64.0  # "bounded": the largest, a CSV stopped at the demo's 100,000-row cap, takes ~53 MB

CHILD = r"""
import json, re, sys, time
from pathlib import Path
import pyarrow.parquet, yaml  # imported before the baseline, as the loader imports them lazily
from dashboard.shared import uploads
from simcore import workload

def kib(field):
    return int(re.search(field + r":\s+(\d+)", Path("/proc/self/status").read_text()).group(1))

how, path = sys.argv[1], Path(sys.argv[2])
data = path.read_bytes() if how.startswith("upload") else None
Path("/proc/self/clear_refs").write_text("5")  # the peak (VmHWM) restarts from the current size
before = kib("VmRSS")
threads = len(list(Path("/proc/self/task").iterdir()))
start = time.process_time()
try:
    if how == "upload-workload":
        uploads.parse_workload_upload(path.name, data, {})
    elif how == "upload-cluster":
        uploads.parse_cluster_upload(path.name, data)
    elif how == "cli-workload":
        workload.load_workload(path)
    else:
        workload.load_cluster(path)
    outcome = "loaded"
except workload.WorkloadError as exc:
    outcome = str(exc)
seconds = time.process_time() - start
extra_mb = (kib("VmHWM") - before) / 1024
new_threads = len(list(Path("/proc/self/task").iterdir())) - threads
print(json.dumps({"seconds": seconds, "extra_mb": extra_mb, "outcome": outcome, "new_threads": new_threads}))
"""


def load_in_child(how: str, path: Path, demo_mode: bool) -> dict[str, Any]:
    """Load ``path`` in a fresh process; its outcome (the refusal), CPU seconds and extra peak MB."""
    env = {"PATH": "/usr/bin:/bin", "SIMCORE_DEMO": "1" if demo_mode else "0", "HOME": str(path.parent)}
    done = subprocess.run(
        [sys.executable, "-c", CHILD, how, str(path)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=HANG_SECONDS,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def assert_refused_quickly(result: dict[str, Any], *message: str) -> None:
    for part in message:
        assert part in result["outcome"]
    assert result["seconds"] < SECONDS, result
    assert result["extra_mb"] < EXTRA_MB, result
    # a thread a read leaves behind (Arrow's pools) can abort the process at its exit, after its work
    # (apache/arrow#34314; simcore.io.parquet_read): a load starts none
    assert result["new_threads"] == 0, result


def write_csv(path: Path, rows: int) -> None:
    """A canonical CSV of ``rows`` jobs (about 30 bytes each), written in blocks."""
    with path.open("w") as fh:
        fh.write(HEADER)
        for start in range(0, rows, 100_000):
            fh.writelines(f"j{i},{i},600,4,16,1,BE\n" for i in range(start, min(rows, start + 100_000)))


# --- the amplification cases, each in its own process -------------------------------------------


def test_small_parquet_declaring_millions_of_rows(tmp_path: Path) -> None:
    rows = DEFAULT_MAX_ROWS + 1
    zeros = pa.array(np.zeros(rows, dtype=np.int32))
    columns = {"job_id": pa.DictionaryArray.from_arrays(zeros, pa.array(["j"]))}
    columns |= {c: pa.array(np.ones(rows)) for c in ("submit_time", "duration", "cpu", "mem_gb", "gpu")}
    columns["job_class"] = pa.DictionaryArray.from_arrays(zeros, pa.array(["BE"]))
    path = tmp_path / "rows.parquet"
    pq.write_table(pa.table(columns), path, compression="zstd")
    assert path.stat().st_size < 1_000_000  # the file: 0.57 MB that took the server to 6.1 GB
    assert_refused_quickly(
        load_in_child("upload-workload", path, demo_mode=True),
        f"rows.parquet: the file declares {rows:,} rows, above this public demo's limit of 100,000 rows.",
        "Run it on your own machine: simcore compare rows.parquet",
    )
    assert_refused_quickly(
        load_in_child("cli-workload", path, demo_mode=False),
        f"the file declares {rows:,} rows, above the row cap of {DEFAULT_MAX_ROWS:,} rows (raise it with --max-rows",
    )


def test_small_parquet_whose_dictionary_expands_to_gigabytes(tmp_path: Path) -> None:
    rows = 90_000  # under the demo's row cap: only the expansion gives it away
    columns = {"job_id": pa.array([f"j{i}" for i in range(rows)])}
    columns |= {c: pa.array(np.ones(rows)) for c in ("submit_time", "duration", "cpu", "mem_gb", "gpu")}
    columns["job_class"] = pa.array(["BE"] * rows)
    one_long_name = pa.array(["n" * 100_000])
    columns["name"] = pa.DictionaryArray.from_arrays(pa.array(np.zeros(rows, dtype=np.int32)), one_long_name)
    path = tmp_path / "names.parquet"
    pq.write_table(pa.table(columns), path, compression="zstd")
    assert path.stat().st_size < 2_000_000
    for how, demo_mode, limit in (
        ("upload-workload", True, "this public demo's limit of 10.0 MB"),
        ("cli-workload", False, "the size cap of 200.0 MB"),
    ):
        result = load_in_child(how, path, demo_mode)
        assert_refused_quickly(result, "names.parquet: its text columns expand to 9000.", limit)


def forged_footer(data: bytes, column: int, declared: int) -> bytes:
    """``data`` with the footer's uncompressed size of ``column`` (row group 0) replaced by
    ``declared``, written as a varint of the same length so that nothing else moves."""

    def varint(n: int) -> bytes:
        out = bytearray()
        while True:
            out.append((n & 0x7F) | (0x80 if n >> 7 else 0))
            n >>= 7
            if not n:
                return bytes(out)

    true = pq.ParquetFile(pa.BufferReader(data)).metadata.row_group(0).column(column).total_uncompressed_size
    footer = len(data) - 8 - int.from_bytes(data[-8:-4], "little")
    old, new = varint(true << 1), bytearray(varint(declared << 1))  # i64 fields are zigzag-encoded
    while len(new) < len(old):
        new[-1] |= 0x80
        new.append(0)
    at = data.index(old, footer)
    return data[:at] + bytes(new) + data[at + len(old) :]


def test_parquet_whose_footer_understates_its_pages(tmp_path: Path) -> None:
    """The footer says 100 bytes; the pages (checked from their own headers) expand to 100 MB."""
    rows = 20
    names = pa.array(["a" * 5_000_000 + str(i) for i in range(rows)])
    buffer = pa.BufferOutputStream()
    pq.write_table(pa.table({"job_id": [str(i) for i in range(rows)], "name": names}), buffer, compression="zstd")
    data = forged_footer(buffer.getvalue().to_pybytes(), column=1, declared=100)
    assert pq.ParquetFile(pa.BufferReader(data)).metadata.row_group(0).column(1).total_uncompressed_size == 100
    path = tmp_path / "forged.parquet"
    path.write_bytes(data)
    assert len(data) < 20_000
    assert_refused_quickly(
        load_in_child("upload-workload", path, demo_mode=True),
        "forged.parquet: its pages declare 100.0 MB (1000",
        "above this public demo's limit of 10.0 MB",
    )


@settings(max_examples=400, deadline=None)
@given(st.binary(max_size=300), st.integers(min_value=1, max_value=50))
def test_page_walker_sums_or_refuses_any_bytes(data: bytes, max_pages: int) -> None:
    try:
        total = parquet_pages.uncompressed_size(data, 0, len(data), max_pages)
    except parquet_pages.BadPage as exc:
        assert str(exc)
    else:
        assert total >= 0


def test_csv_over_the_row_cap_stops_at_the_cap(tmp_path: Path) -> None:
    path = tmp_path / "many.csv"
    write_csv(path, 320_000)
    assert 9_000_000 < path.stat().st_size < demo.DEMO.upload_bytes  # within the demo's byte cap
    assert_refused_quickly(
        load_in_child("upload-workload", path, demo_mode=True),
        "many.csv: 100,001 rows or more, above this public demo's limit of 100,000 rows.",
    )


def test_csv_of_200_mb_is_refused_before_it_is_read(tmp_path: Path) -> None:
    path = tmp_path / "big.csv"
    with path.open("wb") as fh:  # a sparse 200 MB file: the cap is checked on its size alone
        fh.truncate(200_000_001)
    assert_refused_quickly(
        load_in_child("cli-workload", path, demo_mode=False),
        "big.csv: the file is 200.0 MB (200000001 bytes), above the size cap of 200.0 MB",
    )


def test_yaml_with_200000_pools(tmp_path: Path) -> None:
    path = tmp_path / "pools.yaml"
    path.write_text("nodes:\n" + "- {cpu: 1, mem_gb: 1, gpu: 0}\n" * 200_000)
    assert 4_000_000 < path.stat().st_size < demo.DEMO.upload_bytes  # the 4.4 MB file
    assert_refused_quickly(
        load_in_child("upload-cluster", path, demo_mode=True),
        "pools.yaml: 257 pools (entries) or more, above this public demo's limit of 256 pools.",
        "simcore compare WORKLOAD.csv --cluster pools.yaml",
    )
    assert_refused_quickly(
        load_in_child("cli-cluster", path, demo_mode=False),
        f"{MAX_POOLS + 1:,} pools (entries) or more, above the pool cap of {MAX_POOLS:,} pools",
    )


def test_yaml_pool_of_a_billion_nodes(tmp_path: Path) -> None:
    path = tmp_path / "billion.yaml"
    path.write_text("nodes:\n- {count: 1000000000, cpu: 1, mem_gb: 1, gpu: 0}\n")
    assert_refused_quickly(
        load_in_child("upload-cluster", path, demo_mode=True),
        "billion.yaml: nodes[0].count is 1,000,000,000, above this public demo's limit of 256 nodes.",
    )
    assert_refused_quickly(
        load_in_child("cli-cluster", path, demo_mode=False),
        f"nodes[0].count is 1,000,000,000, above the node cap of {MAX_NODES:,} nodes",
    )


def test_json_records_over_the_row_cap(tmp_path: Path) -> None:
    path = tmp_path / "many.json"
    path.write_text(json.dumps([{"job_id": i} for i in range(300_000)]))
    assert path.stat().st_size < demo.DEMO.upload_bytes
    assert_refused_quickly(
        load_in_child("upload-workload", path, demo_mode=True),
        "many.json: 100,001 records or more, above this public demo's limit of 100,000 rows.",
    )


# --- the dashboard's messages -------------------------------------------------------------------


class FakeUpload:
    """An ``st.file_uploader`` result whose bytes must not be read."""

    def __init__(self, name: str, size: int) -> None:
        self.name, self.size = name, size

    def getvalue(self) -> bytes:
        raise AssertionError("the bytes were copied before the size was checked")


@pytest.mark.parametrize(
    ("demo_mode", "where", "cap"), [("1", "this public demo's", 10_000_000), ("0", "the dashboard's", 200_000_000)]
)
def test_upload_size_is_checked_before_the_bytes_are_copied(
    monkeypatch: pytest.MonkeyPatch, demo_mode: str, where: str, cap: int
) -> None:
    monkeypatch.setenv(demo.ENV_VAR, demo_mode)
    assert demo.limits().upload_bytes == cap
    with pytest.raises(WorkloadError) as err:
        uploads.upload_content(FakeUpload("my jobs.csv", cap + 1))
    assert str(err.value) == (
        f"my jobs.csv: the file is {(cap + 1) / 1e6:.1f} MB ({cap + 1} bytes), above {where} limit of "
        f"{cap / 1e6:.1f} MB ({cap} bytes). Run it on your own machine: simcore compare 'my jobs.csv'"
    )
    with pytest.raises(
        WorkloadError, match=r"Run it on your own machine: simcore compare WORKLOAD.csv --cluster c.yaml$"
    ):
        uploads.upload_content(FakeUpload("c.yaml", cap + 1), "cluster")


def test_upload_within_the_size_cap_is_read(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(demo.ENV_VAR, "1")

    class Small(FakeUpload):
        def getvalue(self) -> bytes:
            return b"data"

    assert uploads.upload_content(Small("w.csv", demo.DEMO.upload_bytes)) == ("w.csv", b"data")


def test_jobs_cap_and_the_local_command_keeps_the_chosen_options(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(demo.ENV_VAR, "1")
    jobs = demo.DEMO.max_jobs + 1
    data = (HEADER + "".join(f"j{i},{i},600,4,16,1,BE\n" for i in range(jobs)) + "bad,0,-1,1,1,1,BE\n").encode()
    options = {"bad_rows": "drop", "class_map": "qos", "window_start": "137d", "running": "exclude"}
    with pytest.raises(WorkloadError) as err:
        uploads.parse_workload_upload("w 1.csv", data, options)
    assert str(err.value) == (
        f"w 1.csv: {jobs:,} valid jobs, above this public demo's limit of {demo.DEMO.max_jobs:,} jobs. Run it on "
        "your own machine: simcore compare 'w 1.csv' --drop-invalid --class-map qos --window-start 137d "
        "--no-include-running"
    )
    table, _ = uploads.parse_workload_upload("w.csv", data.replace(b"j0,0,600", b"j0,0,-600", 1), {"bad_rows": "drop"})
    assert len(table) == demo.DEMO.max_jobs  # at the limit: accepted


def test_the_local_command_parses_as_the_cli_with_the_same_options() -> None:
    options = {"format": "alibaba", "bad_rows": "drop", "class_map": "qos", "te_max_gpu": "2", "te_max_hours": "3"}
    options |= {"gpu_accounting": "shared", "cpu_only": "keep", "window_start": "1d", "window_end": "2d"}
    options |= {"running": "exclude", "compress": "4", "trace_class_map": "size"}
    assert set(options) == set(uploads.UPLOAD_DEFAULTS)  # every option differs from its default
    words = shlex.split(uploads.workload_command("pods.csv", options))
    assert words[:3] == ["simcore", "compare", "pods.csv"]
    args = build_parser().parse_args(words[1:])
    assert args.format == "alibaba" and args.drop_invalid
    assert inputs.alibaba_options_from_args(args) == uploads.alibaba_options({**uploads.UPLOAD_DEFAULTS, **options})
    assert inputs.trace_options_from_args(args) == uploads.trace_options({**uploads.UPLOAD_DEFAULTS, **options})


@pytest.mark.parametrize(
    ("option", "text", "message"),
    [
        ("compress", "fast", "compress arrivals: 'fast' is not a number"),
        ("te_max_gpu", "", "TE max GPUs: '' is not a number"),
        ("window_end", "day 3", "window end: 'day 3' is not a time"),
    ],
)
def test_the_sidebar_options_go_through_simcores_parser_and_name_the_sidebar_label(option, text, message):
    assert uploads.alibaba_options(uploads.UPLOAD_DEFAULTS) == AlibabaOptions()
    chosen = uploads.alibaba_options({**uploads.UPLOAD_DEFAULTS, "cpu_only": "keep", "running": "exclude"})
    assert chosen == AlibabaOptions(keep_cpu_only=True, include_running=False)
    with pytest.raises(UserError) as err:
        uploads.alibaba_options({**uploads.UPLOAD_DEFAULTS, option: text})
    assert str(err.value).startswith(message)


def test_cluster_upload_caps_follow_the_mode(monkeypatch: pytest.MonkeyPatch) -> None:
    def pools(n: int) -> bytes:
        return ("nodes:\n" + "- {cpu: 1, mem_gb: 1, gpu: 1}\n" * n).encode()

    monkeypatch.setenv(demo.ENV_VAR, "1")
    assert len(uploads.parse_cluster_upload("c.yaml", pools(demo.DEMO.max_nodes)).nodes) == demo.DEMO.max_nodes
    with pytest.raises(
        WorkloadError, match="c.yaml: 257 pools .entries. or more, above this public demo's limit of 256"
    ):
        uploads.parse_cluster_upload("c.yaml", pools(demo.DEMO.max_nodes + 1))
    monkeypatch.setenv(demo.ENV_VAR, "0")
    assert len(uploads.parse_cluster_upload("c.yaml", pools(demo.DEMO.max_nodes + 1)).nodes) == 257


# --- bench: the cases too slow for the suite ----------------------------------------------------


def bench() -> None:
    """A 199 MB CSV (about 6.4 million rows, under the CLI's 200 MB cap) through the CLI's
    defaults: refused at the row cap; and the same file with the demo's limits."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "jobs.csv"
        started = time.perf_counter()
        write_csv(path, 6_400_000)
        print(f"wrote {path.stat().st_size / 1e6:.1f} MB in {time.perf_counter() - started:.0f} s")
        for how, demo_mode in (("cli-workload", False), ("upload-workload", True)):
            print(how, "demo" if demo_mode else "defaults", load_in_child(how, path, demo_mode))


if __name__ == "__main__":
    bench()


def test_jobs_cap_counts_a_gang_once_per_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(demo.ENV_VAR, "1")
    half = demo.DEMO.max_jobs // 2  # half as many 2-worker jobs are exactly at the cap
    rows = "".join(f"j{i},{i},600,4,16,1,BE,2\n" for i in range(half))
    data = (HEADER.replace("job_class\n", "job_class,workers\n") + rows).encode()
    table, _ = uploads.parse_workload_upload("g.csv", data, {})
    assert int(table.workers.sum()) == demo.DEMO.max_jobs  # type: ignore[union-attr]
    with pytest.raises(WorkloadError) as err:
        uploads.parse_workload_upload("g.csv", data + b"extra,1,600,4,16,1,BE,1\n", {})
    assert str(err.value).startswith(
        f"g.csv: {half + 1:,} valid jobs with {demo.DEMO.max_jobs + 1:,} workers, above this public demo's limit"
    )
