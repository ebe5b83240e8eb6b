"""Explore's "Download report (HTML)" button: shown beside the trio, and the file it writes for an
uploaded workload (which no link can carry) holds the upload's checksum and results, as plain text."""

from __future__ import annotations

import argparse
import hashlib
import html
import re
import shlex

import pandas as pd
import pytest
from helpers.apptest import APP, DEMO, assert_clean
from helpers.report import HOSTILE, ROOT, SECTIONS, report_data, run
from streamlit.testing.v1 import AppTest

from dashboard.report.cli import report_command
from dashboard.report.report_button import cluster_options, report_bytes
from dashboard.runs import budget, compute, data
from dashboard.shared import uploads, views
from dashboard.shared.scenario import Scenario
from simcore.analysis import metrics
from simcore.cli import inputs


def test_the_button_is_beside_the_trio_for_an_upload():
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params.update({"source": "upload"})
    at.run()
    at.file_uploader(key="upload_workload").set_value(("demo.csv", DEMO, "text/csv")).run()
    assert_clean(at)
    assert [b.label for b in at.get("download_button")] == ["Download report (HTML)"]


def test_the_report_of_an_uploaded_workload_carries_it_as_plain_text():
    content = (
        pd.DataFrame(
            {
                "job_id": [HOSTILE[0], HOSTILE[1], "te"],
                "submit_time": [0, 0, 100],
                "duration": [1000, 1000, 50],
                "cpu": [1, 1, 1],
                "mem_gb": [1, 1, 1],
                "gpu": [1, 1, 1],
                "job_class": ["BE", "BE", "TE"],
            }
        )
        .to_csv(index=False)
        .encode()
    )
    name = "<b>mine</b>.csv"
    table, _ = uploads.parse_workload_upload(name, content, {})
    workload = data.Workload(table, None, f"upload {name}", (), views.workload_key(table))
    scenario = Scenario(
        source="upload", cluster="custom", nodes=2, node_cpu=4, node_mem_gb=8, node_gpu=1, policies=("fifo", "fitgpp")
    )
    cluster = data.resolve_cluster(scenario, workload, None)
    configs = [scenario.config(p) for p in scenario.policies]
    runs = dict(zip(scenario.policies, compute.comparison(table, cluster, configs, (), lambda _: None), strict=True))
    first = [{p: r.summary for p, r in runs.items()}], [{p: r.flat for p, r in runs.items()}]
    comparison = data.Comparison(workload, cluster, runs, *first, [0])
    command = budget.explore_command(scenario, name)
    text = report_bytes(scenario, comparison, (name, content), command).decode()
    assert re.findall(r"<h2>(.*?)</h2>", text) == list(SECTIONS)
    assert hashlib.sha256(content).hexdigest() in text
    for hostile in (*HOSTILE, name):
        assert hostile not in text
    assert html.escape(report_command(command)) in text
    assert "fitgpp took node" in text  # the decision log, from the shared decision records


def test_the_report_command_of_the_explore_command():
    assert report_command("simcore compare w.csv --policies fifo,k8s --baseline fifo") == (
        "simcore report w.csv --policies fifo,k8s --baseline fifo --out report.html"
    )
    gen = "simcore generate --preset demo --seed 0 --out workload.csv\nsimcore compare workload.csv --set grace=5"
    assert report_command(gen).splitlines() == [
        gen.splitlines()[0],
        "simcore report workload.csv --set grace=5 --out report.html",
    ]
    sweep = "simcore sweep --preset demo --seeds 0-2 --policies fifo --out scenario.parquet"
    assert report_command(sweep) == sweep


def test_the_report_command_of_a_sample_reproduces_the_page_trio(tmp_path, monkeypatch):
    """The page's command names the sample's own cluster file (without it the CLI would take its
    default cluster); so does the report's, and running it gives the trio the page shows."""
    scenario = Scenario(policies=("fifo", "fitgpp"))  # the default sample, demo_seed1
    workload = data.sample_workload(scenario.sample)
    cluster = data.resolve_cluster(scenario, workload, None)
    configs = [scenario.config(p) for p in scenario.policies]
    runs = dict(
        zip(scenario.policies, compute.comparison(workload.table, cluster, configs, (), lambda _: None), strict=True)
    )
    page_command = budget.explore_command(scenario)
    assert "--cluster sample_workloads/demo_cluster.yaml" in page_command
    command = report_command(page_command, cluster_options(scenario, None))
    assert command.count("--cluster") == 1
    words = shlex.split(command)
    words[words.index("--out") + 1] = str(tmp_path / "r.html")
    monkeypatch.chdir(ROOT)
    assert run(words[1:]) == 0
    page = {p: metrics.trio(r.flat, runs["fifo"].flat) for p, r in runs.items()}
    assert report_data((tmp_path / "r.html").read_text(encoding="utf-8"))["trio"] == page


def test_the_command_of_every_sample_names_the_cluster_the_page_runs_it_on():
    for name in data.sample_names():
        scenario = Scenario(sample=name, policies=("fifo",))
        cluster = data.resolve_cluster(scenario, data.sample_workload(name), None)
        words = shlex.split(budget.explore_command(scenario))
        parser = argparse.ArgumentParser()
        inputs.add_cluster_options(parser)
        args, _ = parser.parse_known_args(words)
        with pytest.MonkeyPatch.context() as mp:
            mp.chdir(ROOT)
            named = inputs.cluster_from_args(args, [])
        assert [n.capacity for n in named.nodes] == [n.capacity for n in cluster.nodes], name
