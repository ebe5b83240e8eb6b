"""The gang-trace adapters (simcore/workload/traces/): detection by exact header or --format, the column
mapping of each trace, its TE/BE map option, time origin, durations, per-worker requests, the
jobs left out and counted, and bad rows named; on hand-made rows and on the synthetic samples."""

from __future__ import annotations

import argparse
import csv
from pathlib import Path

import numpy as np
import pytest
from helpers.paths import ROOT

from simcore.cli import inputs
from simcore.core.errors import UserError
from simcore.workload import WorkloadError, load_workload
from simcore.workload.traces import TraceOptions
from simcore.workload.traces.formats import HELIOS_HEADER, KALOS_HEADER, PAI_HEADER, SEREN_HEADER, SPOT_HEADER

SAMPLES = ROOT / "sample_workloads" / "traces"


def _file(header: tuple[str, ...] | None, *rows: str) -> bytes:
    lines = ([",".join(header)] if header else []) + list(rows)
    return ("\n".join(lines) + "\n").encode()


# --- Alibaba spot-GPU trace 2026 -----------------------------------------------------------------

SPOT = _file(
    SPOT_HEADER,
    "239255,13,A10,20,1,1,100,2764799,HP",
    "437260,57,A100-SXM4-80GB,15,1,16,9589663,41060,Spot",
    "437261,57,A100-SXM4-80GB,12,8,4,9589700,3000,spot",
    "437262,58,A10,4,0,1,9589800,50,HP",
    "437263,58,A10,4,1,2,9589900,0,Spot",
)


def test_spot_trace_is_detected_and_mapped() -> None:
    loaded = load_workload(SPOT, name="job_info_df.csv")
    t = loaded.table
    assert loaded.fmt == "spot2026"
    assert t.job_id.tolist() == ["239255", "437260", "437261"]  # CPU-only and 0 s jobs left out
    assert t.submit_time.tolist() == [0, 9589563, 9589600]  # the first kept job arrives at 0
    assert t.duration.tolist() == [2764799, 41060, 3000]
    np.testing.assert_array_equal(t.request, [[20, 0, 1], [15, 0, 1], [12, 0, 8]])  # per worker, no memory
    assert t.workers.tolist() == [1, 16, 4]  # type: ignore[union-attr]
    assert t.is_te.tolist() == [True, False, False]  # HP -> TE, Spot -> BE (case-insensitive)
    assert t.extra["user"].tolist() == ["13", "57", "57"]
    assert loaded.counts == {"no_run_time": 0, "zero_duration": 1, "cpu_only": 1, "jobs": 3, "gangs": 2}
    assert any("left out 1 jobs: CPU-only" in n for n in loaded.notes)


def test_spot_trace_size_map_counts_gpus_over_all_workers() -> None:
    options = TraceOptions(class_map="size", te_max_gpu=16, te_max_hours=12, keep_cpu_only=True)
    t = load_workload(SPOT, name="s.csv", trace_options=options).table
    # 1 GPU for 768 h: too long; 16 x 1 GPU for 11.4 h: TE; 4 x 8 = 32 GPUs: too wide; CPU-only 50 s: TE
    assert t.is_te.tolist() == [False, True, False, True]


def test_spot_trace_bad_rows_are_named() -> None:
    bad = _file(SPOT_HEADER, "1,1,A10,4,1,1,0,10,HP", "2,1,A10,4,1,0,5,10,Spot", "3,1,A10,4,1,2,5,10,Preemptible")
    with pytest.raises(WorkloadError) as err:
        load_workload(bad, name="j.csv")
    message = str(err.value)
    assert "j.csv: refused: 2 of 3 rows are invalid" in message
    assert "row 3, column worker_num: must be >= 1 and <= 1,000,000 (got '0')" in message
    assert "row 4, column job_type: must be HP or Spot, case-insensitive (got 'Preemptible')" in message


# --- Helios and Acme ---------------------------------------------------------------------------------


HELIOS = _file(
    HELIOS_HEADER,
    "1425511,uXBbc,vcJkd,1,1,1,COMPLETED,2020-06-09 18:41:01,2020-06-09 18:41:01,2020-06-10 04:55:09,36848,0",
    "1425512,uVMrF,vchbv,16,64,2,FAILED,2020-06-09 18:41:27,2020-06-09 18:41:27,2020-06-09 18:45:36,249,0",
    "1425513,uzqls,vcpDC,0,8,0,CANCELLED,2020-06-09 18:41:28,2020-06-09 18:41:28,2020-06-17 14:15:21,675233,0",
    "1425514,uzqls,vcpDC,3,6,2,COMPLETED,2020-06-09 18:42:01,2020-06-09 18:42:01,2020-06-09 18:43:01,60,0",
)


def test_helios_splits_the_job_over_its_nodes() -> None:
    loaded = load_workload(HELIOS, name="cluster_log.csv")
    t = loaded.table
    assert loaded.fmt == "helios"
    assert t.job_id.tolist() == ["1425511", "1425512", "1425514"]  # the CPU-only job is left out
    assert t.submit_time.tolist() == [0, 26, 60]  # seconds after the first submission
    assert t.duration.tolist() == [36848, 249, 60]
    np.testing.assert_array_equal(t.request, [[1, 0, 1], [32, 0, 8], [3, 0, 1.5]])  # total / node_num
    assert t.workers.tolist() == [1, 2, 2]  # type: ignore[union-attr]
    assert t.is_te.tolist() == [False, False, False]  # size map: 1 GPU but 10.2 h; 16 GPUs; 3 GPUs
    assert any("1 jobs' GPUs do not divide evenly" in n for n in loaded.notes)
    short = TraceOptions(te_max_gpu=16, te_max_hours=1)
    assert load_workload(HELIOS, name="c.csv", trace_options=short).table.is_te.tolist() == [False, True, True]


def test_acme_seren_and_kalos_read_utc_offsets_and_pod_memory() -> None:
    seren = _file(
        SEREN_HEADER,
        "5778432,u5907,1,8,128,Other,FAILED,2023-03-01 00:18:22+08:00,2023-03-01 00:18:54+08:00,"
        "2023-03-01 00:20:51+08:00,117,32,936.0",
        "5778469,u5907,2,16,128,Other,COMPLETED,2023-02-28 16:28:22+00:00,2023-03-01 00:24:11+08:00,"
        "2023-03-01 01:09:04+08:00,2693,13,43088.0",
    )
    t = load_workload(seren, name="trace_seren.csv").table
    assert t.submit_time.tolist() == [0, 600]  # 16:28:22 UTC is 00:28:22 at +08:00
    np.testing.assert_array_equal(t.request, [[128, 0, 8], [64, 0, 8]])
    kalos = _file(
        tuple(c if c != "mem_per_pod_gb" else "mem_per_pod_GB" for c in KALOS_HEADER),
        "dlctk696s0jbvitv,uf794,8,64,960,1000,100.0,Other,FAILED,2023-05-17 11:00:58+00:00,"
        "2023-05-17 11:01:08+00:00,2023-05-17 11:01:16+00:00,2023-05-17 11:01:16+00:00,,18,10.0,1152.0",
    )
    loaded = load_workload(kalos, name="trace_kalos.csv")
    assert loaded.fmt == "acme"
    np.testing.assert_array_equal(loaded.table.request, [[120, 1000, 8]])  # per pod: 960 / 8 cores, 1000 GiB
    assert loaded.table.workers.tolist() == [8]  # type: ignore[union-attr]


def test_slurm_bad_rows_are_named() -> None:
    bad = _file(
        HELIOS_HEADER,
        "1,u,vc,8,8,1,COMPLETED,yesterday,,,100,0",
        "2,u,vc,8,8,0,COMPLETED,2020-06-09 18:41:01,,,100,0",
        "3,u,vc,8,8,1.5,COMPLETED,2020-06-09 18:41:01,,,100,0",
        "4,u,vc,8,8,1,COMPLETED,\x1f,,,100,0",  # white space to Python, not to the schema: a text given
    )
    with pytest.raises(WorkloadError) as err:
        load_workload(bad, name="c.csv")
    message = str(err.value)
    assert "row 5, column submit_time: not a date-time: '\\x1f'" in message
    assert "row 2, column submit_time: not a date-time: 'yesterday'" in message
    assert "row 3, column node_num: 0 nodes for a job of 8 GPUs" in message
    assert "row 4, column node_num: must be a whole number >= 1 written as digits" in message


# --- Alibaba PAI 2020 ----------------------------------------------------------------------------


PAI_ROWS = (
    "4f057009a5d481acec67b088,tensorflow,1.0,Terminated,1739162.0,1739200.0,600.0,29.296875,50.0,MISC",
    "4f057009a5d481acec67b088,ps,2.0,Terminated,1739100.0,1739300.0,400.0,10.0,,MISC",
    "af724763f4f5d0beef445849,worker,4.0,Terminated,1739170.0,1740170.0,800.0,20.0,100.0,V100",
    "af724763f4f5d0beef445849,evaluator,1.0,Running,1739180.0,,100.0,1.0,25.0,T4",
)


@pytest.mark.parametrize("header", [None, PAI_HEADER])
def test_pai_task_table_with_or_without_its_header(header: tuple[str, ...] | None) -> None:
    loaded = load_workload(_file(header, *PAI_ROWS), name="pai_task_table.csv", fmt="pai2020")
    t = loaded.table
    assert t.job_id.tolist() == ["4f057009a5d481acec67b088/tensorflow", "af724763f4f5d0beef445849/worker"]
    assert t.submit_time.tolist() == [0, 8]  # arrival = the task's start_time; the ps task (CPU-only) is out
    assert t.duration.tolist() == [38, 1000]
    np.testing.assert_array_equal(t.request, [[6, 29.296875, 0.5], [8, 20, 1]])  # percent -> cores, GPUs
    assert t.workers.tolist() == [1, 4]  # type: ignore[union-attr]
    assert loaded.counts["no_run_time"] == 1 and loaded.counts["cpu_only"] == 1


def test_pai_with_its_header_is_detected_and_bad_lines_are_numbered_as_lines() -> None:
    assert load_workload(_file(PAI_HEADER, *PAI_ROWS), name="t.csv").fmt == "pai2020"
    bad = _file(None, PAI_ROWS[0], "j,worker,1.0,Terminated,1739500.0,1739400.0,100.0,1.0,100.0,T4", PAI_ROWS[0])
    with pytest.raises(WorkloadError) as err:
        load_workload(bad, name="t.csv", fmt="pai2020")
    message = str(err.value)
    assert "the file has no header: rows are numbered as its lines, the first is row 1" in message
    assert "row 2, column end_time: 1.7394e+06 is before start_time 1.7395e+06" in message
    assert "row 3, column task_name: duplicate task 4f057009a5d481acec67b088/tensorflow" in message


# --- options, the CLI and the samples ------------------------------------------------------------


def test_a_class_map_the_trace_does_not_have_is_refused() -> None:
    with pytest.raises(UserError, match="--trace-class-map job_type: the helios format has size"):
        load_workload(HELIOS, name="c.csv", trace_options=TraceOptions(class_map="job_type"))
    with pytest.raises(UserError, match="--compress"):
        TraceOptions(compress=0)


def test_compress_divides_arrival_times() -> None:
    t = load_workload(HELIOS, name="c.csv", trace_options=TraceOptions(compress=2)).table
    assert t.submit_time.tolist() == [0, 13, 30]


def test_cli_options_reach_the_adapter() -> None:
    parser = argparse.ArgumentParser()
    inputs.add_workload_options(parser)
    args = parser.parse_args(["x.csv", "--trace-class-map", "size", "--te-max-gpu", "4", "--compress", "3"])
    assert inputs.trace_options_from_args(args) == TraceOptions("size", 4.0, 1.0, False, 3.0)


@pytest.mark.parametrize(
    ("name", "fmt", "jobs", "gangs"),
    [
        ("spot2026_job_info_df.csv", "spot2026", 38, 21),
        ("helios_cluster_log.csv", "helios", 37, 10),
        ("acme_trace_seren.csv", "acme", 37, 17),
        ("pai2020_pai_task_table.csv", "pai2020", 25, 9),
    ],
)
def test_the_synthetic_samples_load(name: str, fmt: str, jobs: int, gangs: int) -> None:
    loaded = load_workload(SAMPLES / name, fmt=fmt if fmt == "pai2020" else "auto")
    assert loaded.fmt == fmt
    assert (len(loaded.table), loaded.counts["gangs"]) == (jobs, gangs)


@pytest.mark.parametrize("name", ["helios_cluster_log.csv", "acme_trace_seren.csv"])
def test_splitting_over_nodes_keeps_every_gpu_second(name: str) -> None:
    with open(SAMPLES / name, newline="") as fh:
        rows = list(csv.DictReader(fh))
    by_hand = sum(float(r["gpu_num"]) * float(r["duration"]) for r in rows)  # CPU-only and 0 s rows add 0
    t = load_workload(SAMPLES / name).table
    assert float(np.sum(t.workers * t.request[:, 2] * t.duration)) == pytest.approx(by_hand, rel=1e-12)


def test_dashboard_upload_reads_a_gang_trace_with_its_class_map_option() -> None:
    from dashboard.shared import uploads

    table, notes = uploads.parse_workload_upload("job_info_df.csv", SPOT, {})
    assert table.is_te.tolist() == [True, False, False] and any("job_type map" in n for n in notes)
    sized = {"trace_class_map": "size", "te_max_gpu": "16", "te_max_hours": "12", "cpu_only": "keep"}
    table, _ = uploads.parse_workload_upload("job_info_df.csv", SPOT, sized)
    assert table.is_te.tolist() == [False, True, False, True]
    assert uploads.workload_command("j.csv", sized).startswith("simcore compare j.csv --trace-class-map size")


def test_convert_names_the_jobs_too_wide_for_the_cluster(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from simcore.cli import main

    out = tmp_path / "spot.csv"
    assert main(["convert", str(SAMPLES / "spot2026_job_info_df.csv"), "--out", str(out), "--nodes", "1"]) == 0
    printed = capsys.readouterr().out
    t = load_workload(out).table
    # one node of 8 GPUs and 64 cores: a gang fits when its workers' GPUs and cores both fit there
    wide = int(np.sum((t.workers * t.request[:, 2] > 8) | (t.workers * t.request[:, 0] > 64)))
    assert wide > 0 and f"note: {wide} jobs cannot be placed on this cluster even empty" in printed
    assert t.workers.tolist() == load_workload(SAMPLES / "spot2026_job_info_df.csv").table.workers.tolist()  # type: ignore[union-attr]


# --- date-times a pandas timestamp cannot hold -------------------------------------------------

FAR_HELIOS = _file(
    HELIOS_HEADER,
    "1,u,vc,8,8,1,COMPLETED,1500-01-01 00:00:00,,,100,0",
    "2,u,vc,8,8,1,COMPLETED,1678-01-01 00:00:00,,,100,0",
    "3,u,vc,8,8,1,COMPLETED,2261-12-31 23:59:59,,,100,0",
    "4,u,vc,8,8,1,COMPLETED,2300-06-01 00:00:00,,,100,0",
    "5,u,vc,8,8,1,COMPLETED,-0,,,100,0",  # pandas reads the year 0
)
FAR_ACME = _file(
    SEREN_HEADER,
    "1,u,1,8,128,Other,COMPLETED,2023-03-01 00:18:22+08:00,,,117,32,936.0",
    "2,u,1,8,128,Other,COMPLETED,0999-03-01 00:18:22+08:00,,,117,32,936.0",
    "3,u,1,8,128,Other,COMPLETED,2262-04-12 00:00:00+00:00,,,117,32,936.0",
)
FAR_REASONS = {
    "helios": [
        "row 2, column submit_time: the year is outside 1678 to 2261: '1500-01-01 00:00:00'",
        "row 5, column submit_time: the year is outside 1678 to 2261: '2300-06-01 00:00:00'",
        "row 6, column submit_time: the year is outside 1678 to 2261: '-0'",
    ],
    "acme": [
        "row 3, column submit_time: the year is outside 1678 to 2261: '0999-03-01 00:18:22+08:00'",
        "row 4, column submit_time: the year is outside 1678 to 2261: '2262-04-12 00:00:00+00:00'",
    ],
}


@pytest.mark.parametrize(("fmt", "data", "kept"), [("helios", FAR_HELIOS, ["2", "3"]), ("acme", FAR_ACME, ["1"])])
def test_dates_beyond_a_timestamp_are_named_or_dropped(fmt: str, data: bytes, kept: list[str]) -> None:
    """pandas holds a time as int64 nanoseconds (1677-09-21 to 2262-04-11): a date-time outside
    the whole years 1678 to 2261 is a row problem naming row, column and value, not a pandas
    traceback. The first and last allowed years load: 1678-01-01 to 2261-12-31 23:59:59 is 584
    years with 141 leap days (1700, 1800, 1900, 2100 and 2200 are not leap years), 213,300 days
    less one second: 18,429,206,399 s."""
    with pytest.raises(WorkloadError) as err:
        load_workload(data, name="trace.csv")
    message = str(err.value)
    assert message.startswith("trace.csv: refused") and all(r in message for r in FAR_REASONS[fmt])
    loaded = load_workload(data, name="trace.csv", drop_invalid=True)
    assert loaded.table.job_id.tolist() == kept
    assert [str(p) for p in loaded.dropped] == FAR_REASONS[fmt]
    if fmt == "helios":
        assert loaded.table.submit_time.tolist() == [0.0, 18_429_206_399.0]


@pytest.mark.parametrize("command", ["run", "compare", "convert"])
@pytest.mark.parametrize("drop", [False, True])
def test_cli_names_a_date_beyond_a_timestamp(
    command: str, drop: bool, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from simcore.cli import main

    trace = tmp_path / "cluster_log.csv"
    trace.write_bytes(FAR_HELIOS)
    out = ["--out", str(tmp_path / "w.csv")] if command == "convert" else []
    code = main([command, str(trace), "--nodes", "2", *out, *(["--drop-invalid"] if drop else [])])
    printed = capsys.readouterr()
    said = printed.out + printed.err  # convert's notes go to stdout
    assert code == (0 if drop else 2) and "Traceback" not in said
    assert all(r in said for r in FAR_REASONS["helios"])
    assert ("dropped 3 invalid rows of 5" if drop else "refused: 3 of 5 rows are invalid") in said


def test_dashboard_upload_names_a_date_beyond_a_timestamp() -> None:
    from dashboard.shared import uploads

    with pytest.raises(WorkloadError) as err:
        uploads.parse_workload_upload("trace_seren.csv", FAR_ACME, {})
    assert str(err.value).startswith("trace_seren.csv: refused") and all(
        r in str(err.value) for r in FAR_REASONS["acme"]
    )
    table, notes = uploads.parse_workload_upload("trace_seren.csv", FAR_ACME, {"bad_rows": "drop"})
    assert table.job_id.tolist() == ["1"] and any(FAR_REASONS["acme"][0] in n for n in notes)
