"""The Alibaba GPU trace 2023 adapter: every option on a hand-made pod list, then the real trace
(read from ../shared/traces, skipped when absent) against the counts its README states."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from simcore.core.errors import UserError
from simcore.workload import Problem, WorkloadError, load_cluster, load_workload, offered_load
from simcore.workload.alibaba import AlibabaOptions, parse_trace_time

TRACE = Path(__file__).resolve().parents[2] / "shared" / "traces" / "alibaba-gpu-2023"
PODS = TRACE / "openb_pod_list_default.csv"
GPU_NODES = TRACE / "openb_node_list_gpu_node.csv"
ALL_NODES = TRACE / "openb_node_list_all_node.csv"

HEADER = "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time"
#           name  cpu   mem   gpu milli  spec qos  phase    created deleted scheduled
SMALL = [
    "p-run,  8000, 16384, 1, 1000, , LS, Running,   0,   5000, 100",  # running at 1000: 4000 s left
    "p-te,   4000,  2048, 1,  500, , BE, Failed, 1000,   1600, 1100",  # 500 s, 1 GPU (shared: 0.5)
    "p-big, 16000, 65536, 8, 1000, , LS, Succeeded, 1200, 9000, 1200",  # 7800 s, 8 GPUs -> BE by size
    "p-pend, 1000,  1024, 1, 1000, , BE, Pending, 1300, 1400,",  # never scheduled
    "p-cpu,  2000,  4096, 0,    0, , Burstable, Running, 1400, 2000, 1400",  # CPU-only
    "p-zero, 1000,  1024, 1, 1000, , LS, Failed, 1500, 1500, 1500",  # ran 0 s
    "p-late, 1000,  1024, 2, 1000, , Guaranteed, Succeeded, 3000, 3100, 3000",  # created at 3000
    "p-old,  1000,  1024, 1, 1000, , LS, Succeeded, 0, 900, 0",  # ended before 1000
]


def small(**options: object) -> tuple[dict[str, tuple[float, float, float, float, bool]], list[str], dict[str, int]]:
    data = ("\n".join([HEADER, *(r.replace(" ", "") for r in SMALL)]) + "\n").encode()
    loaded = load_workload(data, name="pods.csv", alibaba_options=AlibabaOptions(**options))  # type: ignore[arg-type]
    t = loaded.table
    jobs = {
        j: (
            float(t.submit_time[i]),
            float(t.duration[i]),
            float(t.request[i, 2]),
            float(t.request[i, 0]),
            bool(t.is_te[i]),
        )
        for i, j in enumerate(t.job_id)
    }
    return jobs, loaded.notes, loaded.counts


def test_auto_detected_defaults() -> None:
    jobs, notes, counts = small()
    assert list(jobs) == ["p-run", "p-old", "p-te", "p-big", "p-late"]  # arrival order
    assert jobs["p-te"] == (1000, 500, 1, 4, True)  # cpu_milli / 1000; TE: 1 GPU and <= 1 h
    assert jobs["p-big"] == (1200, 7800, 8, 16, False)
    assert jobs["p-late"][4] is False  # 2 GPUs: BE by size
    assert counts["never_scheduled"] == 1 and counts["cpu_only"] == 1 and counts["zero_duration"] == 1
    text = "\n".join(notes)
    assert "skipped 1 never-scheduled pods (no scheduled_time; 1 of them Pending)" in text
    assert "dropped 1 CPU-only pods" in text and "left out 1 pods that ran 0 s" in text


def test_memory_units() -> None:
    data = ("\n".join([HEADER, SMALL[1].replace(" ", "")]) + "\n").encode()
    t = load_workload(data, name="pods.csv").table
    assert t.request[0].tolist() == [4.0, 2.0, 1.0]  # 2048 MiB = 2 GiB


def test_window_running_pods_and_compress() -> None:
    jobs, notes, counts = small(window_start=1000, window_end=3000, compress=2)
    assert jobs["p-run"] == (0, 4000, 1, 8, False)  # remaining 5000 - 1000; class from its full 4900 s run
    assert jobs["p-te"][0] == 0 and jobs["p-big"][0] == 100  # (1200 - 1000) / 2
    assert "p-late" not in jobs and "p-old" not in jobs
    assert counts["running_at_start"] == 1 and counts["in_window"] == 2
    text = "\n".join(notes)
    assert "included 1 pods running at the window start at t=0" in text
    assert "left out 1 pods that ended before the window start" in text
    assert "left out 1 pods created at or after the window end" in text
    assert "arrival times divided by 2" in text
    jobs, notes, _ = small(window_start=1000, include_running=False)
    assert "p-run" not in jobs and any("running at the window start (--no-include-running)" in n for n in notes)


def test_class_map_qos_shared_gpus_and_cpu_only() -> None:
    jobs, _, _ = small(class_map="qos", gpu_accounting="shared", keep_cpu_only=True)
    assert jobs["p-te"][2] == 0.5 and jobs["p-te"][4] is False  # QoS BE -> BE
    assert jobs["p-big"][2] == 8 and jobs["p-big"][4] is True  # LS -> TE
    assert jobs["p-cpu"][2] == 0 and jobs["p-cpu"][4] is True


def test_size_thresholds_and_max_duration() -> None:
    jobs, _, _ = small(te_max_gpu=8, te_max_hours=3)
    assert jobs["p-big"][4] is True
    jobs, notes, _ = small(max_duration=6000)
    assert "p-big" not in jobs and any("ran longer than 6000 s" in n for n in notes)


def test_bad_pod_rows_name_row_and_column() -> None:
    rows = [
        "a,1000,1024,1,1000,,LS,Running,10,5,20",  # deleted before scheduled
        "b,-1,1024,1,1000,,LS,Running,10,50,20",
        "c,1000,1024,1,1500,,LS,Running,10,50,20",
        "d,1000,1024,1,1000,,LS,Running,10,50,5",
        "e,1000,1024,1,1000,,LS,Running,10,50,20",
    ]
    data = ("\n".join([HEADER, *rows]) + "\n").encode()
    with pytest.raises(WorkloadError) as err:
        load_workload(data, name="pods.csv")
    assert err.value.problems == (
        Problem("row 2", "deletion_time", "5 is before scheduled_time 20"),
        Problem("row 3", "cpu_milli", "must be >= 0 (got '-1')"),
        Problem("row 4", "gpu_milli", "must be <= 1000 (got '1500')"),
        Problem("row 5", "scheduled_time", "5 is before creation_time 10"),
    )
    assert "refused: 4 of 5 rows are invalid" in str(err.value)
    kept = load_workload(data, name="pods.csv", drop_invalid=True)
    assert list(kept.table.job_id) == ["e"] and len(kept.dropped) == 4


def test_nothing_left_is_an_error() -> None:
    data = ("\n".join([HEADER, SMALL[3].replace(" ", "")]) + "\n").encode()
    with pytest.raises(WorkloadError, match="no pods left after the adapter's filters"):
        load_workload(data, name="pods.csv")


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"class_map": "user"}, "--class-map: 'user' must be size or qos"),
        ({"gpu_accounting": "half"}, "--gpu-accounting: 'half' must be whole or shared"),
        ({"compress": 0}, "--compress: 0 must be a number > 0"),
        ({"te_max_hours": -1}, "--te-max-hours: -1 must be a number > 0"),
        ({"window_start": 100, "window_end": 50}, "--window-end: 50 s must be after the window start (100 s)"),
    ],
)
def test_bad_options(options: dict[str, object], message: str) -> None:
    with pytest.raises(UserError, match=message.replace("(", r"\(").replace(")", r"\)")):
        AlibabaOptions(**options)  # type: ignore[arg-type]


def test_parse_trace_time() -> None:
    assert parse_trace_time("137d", "--window-start") == 137 * 86400
    assert parse_trace_time("11836800", "--window-start") == 11836800
    assert parse_trace_time("0.5d", "x") == 43200
    for bad in ("137x", "-1", "d", "1e999"):
        with pytest.raises(UserError, match="--window-start"):
            parse_trace_time(bad, "--window-start")


def test_node_list_filters() -> None:
    data = b"sn,cpu_milli,memory_mib,gpu,model\nc0,32000,262144,0,\ng0,64000,262144,2,P100\ng1,96000,786432,8,G2\ng2,96000,393216,8,G2\n"
    c = load_cluster(data, name="nodes.csv").cluster
    assert c.names == ["c0", "g0", "g1", "g2"] and c.nodes[2].capacity.mem_gb == 768
    c = load_cluster(data, name="nodes.csv", gpu_nodes_only=True).cluster
    assert c.names == ["g0", "g1", "g2"]
    c = load_cluster(data, name="nodes.csv", gpu_per_node=8, first_n=1).cluster
    assert c.names == ["g1"] and c.nodes[0].capacity.cpu == 96
    with pytest.raises(WorkloadError, match="--first-n: asked for 3 nodes but only 2 match"):
        load_cluster(data, name="nodes.csv", gpu_per_node=8, first_n=3)


# --- the real trace ----------------------------------------------------------------------------

needs_trace = pytest.mark.skipif(not PODS.exists(), reason=f"Alibaba trace not found at {TRACE}")


@needs_trace
def test_trace_counts_from_its_readme() -> None:
    loaded = load_workload(PODS, alibaba_options=AlibabaOptions(keep_cpu_only=True))
    c = loaded.counts
    assert c["pods"] == 8152
    assert c["never_scheduled"] == 897
    assert c["zero_duration"] == 0  # the README's one zero-length pod never ran (it is Pending)
    assert c["jobs"] == 8152 - 897
    # 1088 CPU-only rows in all; 36 of them never ran, so 1052 are dropped by default
    assert c["cpu_only"] == 1052 and int((loaded.table.request[:, 2] == 0).sum()) == 1052
    default = load_workload(PODS)
    assert default.counts["jobs"] == 8152 - 897 - 1052
    assert any("skipped 897 never-scheduled pods" in n for n in default.notes)
    assert any("dropped 1052 CPU-only pods" in n for n in default.notes)
    # right-censored: 34 pods end at the last timestamp, 32 of them GPU pods
    assert any("32 pods were still running at the end of the trace" in n for n in default.notes)


@needs_trace
def test_trace_qos_mapping() -> None:
    loaded = load_workload(PODS, alibaba_options=AlibabaOptions(class_map="qos"))
    t = loaded.table
    assert t.request[~t.is_te, 2].max() <= 1  # README: every BE pod asks for at most 1 GPU
    shared = load_workload(PODS, alibaba_options=AlibabaOptions(class_map="qos", gpu_accounting="shared")).table
    assert shared.request[:, 2].sum() < t.request[:, 2].sum()
    assert ((shared.request[:, 2] % 1) != 0).any()


@needs_trace
def test_recipe_a() -> None:
    loaded = load_workload(PODS, alibaba_options=AlibabaOptions(window_start=parse_trace_time("137d", "w")))
    assert loaded.counts["in_window"] == 2635 and loaded.counts["running_at_start"] == 42
    t = loaded.table
    at_zero = t.submit_time == 0
    assert int(t.request[at_zero, 2].sum()) >= 49
    cluster = load_cluster(GPU_NODES, gpu_per_node=8, first_n=7).cluster
    assert len(cluster.nodes) == 7 and cluster.total().gpu == 56
    assert offered_load(t, cluster) == pytest.approx(0.87, abs=0.01)


@needs_trace
def test_recipe_b() -> None:
    options = AlibabaOptions(
        window_start=parse_trace_time("115d", "w"), max_duration=86400, compress=8, include_running=False
    )
    loaded = load_workload(PODS, alibaba_options=options)
    assert len(loaded.table) == 6121
    cluster = load_cluster(GPU_NODES, gpu_per_node=8, first_n=8).cluster
    assert offered_load(loaded.table, cluster) == pytest.approx(0.89, abs=0.01)
    uncompressed = load_workload(
        PODS,
        alibaba_options=AlibabaOptions(window_start=options.window_start, max_duration=86400, include_running=False),
    )
    np.testing.assert_allclose(loaded.table.submit_time * 8, uncompressed.table.submit_time)


@needs_trace
def test_trace_node_lists() -> None:
    assert len(load_cluster(GPU_NODES).cluster.nodes) == 1213
    all_nodes = load_cluster(ALL_NODES).cluster
    assert len(all_nodes.nodes) == 1523 and all_nodes.total().gpu == 6212
    assert len(load_cluster(ALL_NODES, gpu_nodes_only=True).cluster.nodes) == 1213
    assert len(load_cluster(GPU_NODES, gpu_per_node=8).cluster.nodes) == 617
