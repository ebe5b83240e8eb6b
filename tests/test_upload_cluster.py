"""Uploads and sharing: the cluster an upload runs on and the one sized from it, the link's note,
loader messages in dashboard words, captions that count what ran, and refusals that list every
limit (pure parts directly, the page through AppTest from the entry point)."""

from __future__ import annotations

import re

import pandas as pd
import pytest
from helpers.paths import APP, ROOT
from streamlit.testing.v1 import AppTest

from dashboard.runs import budget
from dashboard.shared import demo, sizing, uploads
from dashboard.shared.scenario import Scenario
from simcore.core.model import ClusterSpec, JobTable
from simcore.workload import WorkloadError, nodes_for_load, offered_load

DEMO = (ROOT / "sample_workloads" / "demo.csv").read_bytes()
HEADER = "job_id,submit_time,duration,cpu,mem_gb,gpu,job_class\n"


def _table(rows: list[tuple[float, float, float]]) -> JobTable:
    """Jobs of (submit time, duration, GPUs), one CPU and 1 GiB each."""
    return JobTable.from_frame(
        pd.DataFrame(
            {
                "job_id": [str(i) for i in range(len(rows))],
                "submit_time": [r[0] for r in rows],
                "duration": [r[1] for r in rows],
                "cpu": [1] * len(rows),
                "mem_gb": [1] * len(rows),
                "gpu": [r[2] for r in rows],
                "job_class": ["TE"] * len(rows),
            }
        )
    )


def test_nodes_for_load_by_hand() -> None:
    # 2 jobs x 8 GPUs x 1 h over a 1 h arrival span = 16 GPU-hours per hour: 16 / (8 x 0.9) = 2.2 -> 2 nodes
    table = _table([(0, 3600, 8), (3600, 3600, 8)])
    assert nodes_for_load(table, 8, 0.9) == 2
    assert offered_load(table, ClusterSpec.uniform(2, 64, 512, 8)) == pytest.approx(1.0)
    assert nodes_for_load(table, 8, 0.1) == 20  # 16 / 0.8
    assert nodes_for_load(_table([(0, 60, 0)]), 8, 0.9) == 1  # no GPU time, one arrival: one node
    with pytest.raises(ValueError, match="target"):
        nodes_for_load(table, 8, 0.0)


def test_the_proposal_keeps_the_node_shape_and_states_its_load() -> None:
    table = _table([(0, 3600, 8), (3600, 3600, 8)])
    default = ClusterSpec.uniform(16, 64, 512, 8)
    proposal = sizing.propose(table, default)
    assert proposal is not None and (proposal.nodes, proposal.gpu, proposal.cpu) == (2, 8, 64)
    assert proposal.load == pytest.approx(1.0)
    text = sizing.cluster_notice(default, offered_load(table, default), proposal)
    assert "16 nodes x (64 CPU, 512 GiB, 8 GPU)" in text and "offered GPU load of 0.12" in text
    assert "2 such nodes give an offered GPU load of 1.000 (target 0.9)" in text
    assert sizing.propose(table, ClusterSpec.uniform(2, 64, 512, 8)) is None  # already that size


def test_all_equal_needs_two_policies_with_the_same_trio() -> None:
    def summary(te_p95: float) -> dict:  # the trio's fields of a flat record
        return {"TE_slowdown_p50": 1.0, "TE_slowdown_p95": te_p95, "BE_slowdown_p50": 1.0, "BE_slowdown_p95": 1.0}

    assert sizing.all_equal({"fifo": summary(1.0), "k8s": summary(1.0)}, ["fifo", "k8s"])
    assert not sizing.all_equal({"fifo": summary(1.0), "k8s": summary(1.5)}, ["fifo", "k8s"])
    assert not sizing.all_equal({"fifo": summary(1.0)}, ["fifo"])


def test_loader_messages_name_sidebar_settings_not_flags() -> None:
    bad = (HEADER + "1,0,60,1,1,1,TE\n2,5,-3,1,1,1,BE\n").encode()
    with pytest.raises(WorkloadError) as info:
        uploads.parse_workload_upload("bad.csv", bad, {})
    message = str(info.value)
    assert "“bad rows: drop” in the sidebar" in message and "--" not in message
    assert info.value.problems  # the rows' problems are kept
    said = uploads.in_dashboard_words("use --format alibaba, or --cluster-trace; --keep-cpu-only keeps them")
    assert said == (
        "use “format: alibaba” in the sidebar, or “Cluster: upload a node list”; "
        "“CPU-only pods: keep” in Trace options keeps them"
    )


def test_a_refusal_lists_every_limit_exceeded_and_no_source_path() -> None:
    scenario = Scenario(source="generate", gen=(("jobs", "1000000"), ("nodes", "1000")), seeds=6)
    with pytest.raises(budget.Refused) as info:
        budget.check_scenario(scenario, demo.DEMO)
    message = str(info.value)
    for limit in ("max_seeds", "max_jobs", "max_nodes", "budget"):
        assert f": more than {getattr(demo.DEMO, limit):,}" in message and limit not in message, limit
    assert "this demo" in message and not re.search(r"\w+/\w+\.py", message)
    with pytest.raises(budget.Refused) as info:
        budget.check_run(Scenario(source="upload", policies=("fifo",) * 7), 30_000, 300, demo.DEMO)
    assert [line[:2] for line in str(info.value).splitlines()].count("- ") == 4  # policies, jobs, nodes, budget


def _upload(content: bytes, name: str = "lab.csv", **query: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params.update(source="upload", **query)
    at.run()
    at.file_uploader(key="upload_workload").set_value((name, content, "text/csv")).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_an_upload_names_its_cluster_and_one_click_sizes_it() -> None:
    at = _upload(DEMO)
    info = next(i.value for i in at.info if "brings no cluster" in i.value)
    assert "16 nodes x (64 CPU, 512 GiB, 8 GPU)" in info and "offered GPU load of 0.24" in info
    nodes = int(re.search(r"Sized from the workload: (\d+) such nodes", info).group(1))
    button = at.button(key="size_cluster")
    assert f"Use {nodes} nodes" in button.label
    button.click().run()
    assert not at.exception
    assert at.session_state["x_cluster"] == "custom" and at.session_state["x_nodes"] == nodes
    caption = next(c.value for c in at.caption if "offered GPU load" in c.value)
    assert f"{nodes} nodes, {8 * nodes} GPUs" in caption
    assert not any("brings no cluster" in i.value for i in at.info)  # a chosen cluster needs no notice
    load = float(re.search(r"offered GPU load (\d\.\d\d)", caption).group(1))
    assert abs(load - sizing.TARGET_LOAD) < 0.15


def test_a_light_upload_warns_that_every_policy_is_equal_and_the_link_says_the_file_is_not_in_it() -> None:
    rows = "".join(f"{i},{i * 3600},600,1,1,1,{'TE' if i % 2 else 'BE'}\n" for i in range(6))
    at = _upload((HEADER + rows).encode())
    assert any("Every policy gives the same result" in w.value for w in at.warning)
    assert any("lab.csv is not in this link" in c.value.replace("\\", "") for c in at.caption)


def test_captions_count_only_the_jobs_that_ran_and_generated_workloads_have_one() -> None:
    rows = "1,0,600,1,1,1,TE\n2,10,600,1,1,1,BE\n3,20,600,1,1,99,BE\n"
    at = _upload((HEADER + rows).encode())
    caption = next(c.value for c in at.caption if "offered GPU load" in c.value)
    assert "2 jobs (1 TE, 1 BE) · 1 not simulated (fit on no node)" in caption
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params.update(source="generate", preset="demo", **{"g.jobs": "60"}, policies="fifo,fitgpp")
    at.run()
    assert [c.value for c in at.caption].count(next(c.value for c in at.caption if "60 jobs" in c.value)) == 1
    assert sum("60 jobs" in c.value for c in at.caption) == 1


def test_make_run_listens_on_this_machine_unless_told_otherwise() -> None:
    import shutil
    import subprocess

    if shutil.which("make") is None:
        pytest.skip("no make")

    def run_line(*args: str) -> str:
        out = subprocess.run(["make", "-n", "run", *args], cwd=ROOT, capture_output=True, text=True, check=True)
        # the line that starts the server: `python -m dashboard` (Streamlit's own CLI, warmed first)
        return next(line for line in out.stdout.splitlines() if "-m dashboard" in line)

    assert run_line().endswith("--server.address 127.0.0.1")
    assert run_line("ADDRESS=0.0.0.0").endswith("--server.address 0.0.0.0")
    assert "make run ADDRESS=0.0.0.0" in (ROOT / "docs" / "hosting.md").read_text()
