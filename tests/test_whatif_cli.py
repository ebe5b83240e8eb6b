"""``simcore explain`` and ``simcore whatif``: text and JSON output on a tiny workload, and bad input
(a clear error, exit code 2, no traceback)."""

from __future__ import annotations

import json
import re

import pytest
from helpers.decisions import default_sample_steps
from helpers.paths import ROOT

from simcore.analysis import contrast
from simcore.cli import main

# one 8-GPU node (cpu = mem_gb = gpu): BE A (8 GPUs) from 0; TE T (1 GPU) at 100. Under fitgpp
# A is signalled at 100, releases at 130 when T starts; T ends at 180, A resumes at 180, restores
# until 240 and ends at 240 + 900 = 1140 (the scenario of tests/test_whatif.py).
WORKLOAD = """job_id,submit_time,duration,cpu,mem_gb,gpu,job_class
A,0,1000,8,8,8,BE
T,100,50,1,1,1,TE
"""
CLUSTER = ["--nodes", "1", "--node-cpu", "8", "--node-mem-gb", "8", "--node-gpu", "8", "--policy", "fitgpp"]


@pytest.fixture()
def wl(tmp_path):
    path = tmp_path / "w.csv"
    path.write_text(WORKLOAD)
    return str(path)


def _json(capsys, argv):
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def test_explain_prints_the_story_and_the_reason_at_an_instant(wl, capsys):
    assert main(["explain", wl, "A", *CLUSTER, "--at", "150"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "job A under fitgpp on 1 node:"
    assert [line.split()[3] for line in out[1:8]] == [
        "submitted",
        "started",
        "signalled",
        "preempted",
        "waited",
        "resumed",
        "finished",
    ]
    assert out[8] == "why it waited:"
    assert out[-1].startswith("at day 1 00:02:30: no_room: no node has room for its request")


def test_explain_json(wl, capsys):
    out = _json(capsys, ["explain", wl, "T", *CLUSTER, "--json", "--at", "10"])
    assert [(s["time"], s["kind"], s["other"]) for s in out["story"]] == [
        (100, "submitted", None),
        (100, "waited", "A"),
        (130, "started", None),
        (180, "finished", None),
    ]
    assert out["waits"] == [
        {
            "start": 100,
            "end": 130,
            "reason": "waiting_for_grace",
            "text": "its victims (A) are checkpointing in their grace period",
            "blocker": "A",
        }
    ]
    assert out["at"] == {"time": 10, "wait": None}  # not yet submitted


def test_whatif_not_preempted_json(wl, capsys):
    # A exempt: T waits for A's finish at 1000 and runs until 1050 (tests/test_whatif.py derives the trio)
    out = _json(capsys, ["whatif", wl, "A", *CLUSTER, "--not-preempted", "--json"])
    assert out["change"] == {"kind": "not_preempted", "value": None}
    assert out["job"] == {"job_id": "A", "jct_before": 1140, "jct_after": 1000, "start_before": 0, "start_after": 0}
    assert out["touched_count"] == 1
    assert out["touched"] == [
        {"job_id": "T", "jct_before": 80, "jct_after": 950, "start_before": 130, "start_after": 1000}
    ]
    assert out["baseline"] == "fifo" and out["trio_after"]["TE_p95_slowdown_pct"] == 0


def test_whatif_text_lists_the_delta_and_the_touched_jobs(wl, capsys):
    assert main(["whatif", wl, "T", *CLUSTER, "--under", "fifo"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "job T, change policy fifo:"
    assert out[2].split() == ["start", "2.2", "min", "16.7", "min", "14.5", "min"]  # 130 s -> 1000 s
    assert out[-2] == "1 other job(s) moved:"
    assert out[-1].split()[0] == "A"


def test_whatif_add_json(wl, capsys):
    # a TE job of 1 GPU added at 200, while T runs (130-180 done) and A is back: it preempts A
    # (resumed at 180) and starts after the grace period, at 230
    spec = "job_id=N,submit=200,duration=60,cpu=1,mem_gb=1,gpu=1,class=TE"
    out = _json(capsys, ["whatif", wl, *CLUSTER, "--add", spec, "--json"])
    assert (out["job_id"], out["submit"], out["start"], out["nodes"], out["victims"]) == ("N", 200, 230, ["n0"], ["A"])
    assert [w["reason"] for w in out["waits"]] == ["waiting_for_grace"]
    assert out["caveat"].startswith("a forecast")


def test_explain_all_waits_text_and_json(wl, capsys):
    # A waits 130-180 (released, T holds a GPU), T waits 100-130 for A's grace
    assert main(["explain", wl, *CLUSTER, "--all-waits"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "2 of 2 jobs waited under fitgpp:",
        "  A            day 1 00:02:10 - day 1 00:03:00 (50 s)  no_room: no node has room for its request "
        "(most GPUs free on one node: 7); it fits on the empty cluster",
        "  T            day 1 00:01:40 - day 1 00:02:10 (30 s)  waiting_for_grace: its victims (A) are "
        "checkpointing in their grace period",
    ]
    out = _json(capsys, ["explain", wl, *CLUSTER, "--all-waits", "--json"])
    assert out["policy"] == "fitgpp" and list(out["jobs"]) == ["A", "T"]
    assert [(w["start"], w["end"], w["reason"], w["blocker"]) for w in out["jobs"]["T"]] == [
        (100, 130, "waiting_for_grace", "A")
    ]


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["explain", "{wl}", "Z"], "no job 'Z' in the workload"),
        (["explain", "{wl}", "A", "--at", "soon"], "--at: 'soon' is not a number"),
        (["explain", "{wl}"], "give the JOB_ID to explain (or --all-waits"),
        (["explain", "{wl}", "A", "--all-waits"], "give no JOB_ID and no --at with it"),
        (["whatif", "{wl}", "A", "--gpus", "9"], "ask for fewer, at least 1"),
        (["whatif", "{wl}", "A", "--submit-at", "-5"], "must be a finite number >= 0"),
        (["whatif", "{wl}", "A", "--under", "nope"], "unknown policy 'nope'"),
        (["whatif", "{wl}", "--not-preempted"], "give the JOB_ID to change"),
        (["whatif", "{wl}", "A", "--add", "duration=5"], "--add describes a new job: give no JOB_ID"),
        (["whatif", "{wl}", "--add", "submit=1,colour=red"], "unknown field 'colour'"),
        (["whatif", "{wl}", "--add", "submit=1,duration"], "'duration' is not KEY=VALUE"),
        (["whatif", "{wl}", "--add", "submit=1,duration=-1,cpu=1,mem_gb=1,gpu=1,class=TE"], "duration: must be > 0"),
        (["whatif", "{wl}", "--add", "submit=1,duration=5,cpu=1,mem_gb=1,gpu=1"], "missing field(s) job_class"),
    ],
)
def test_bad_input_is_a_clear_error_with_exit_code_2(wl, capsys, args, words):
    argv = [a.format(wl=wl) for a in args] + CLUSTER
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert words in err and "Traceback" not in err


def test_explain_tells_a_victim_why_fitgpp_spared_what_k8s_would_take(capsys):
    """The default sample's fitgpp preemptions where k8s would take another job on the same state
    (issue 33): the victim's story says why fitgpp chose it over k8s's choice, by the key value that
    separated them with both values."""
    records = default_sample_steps(3)
    differ = [r for r in records if sorted(r["same_state"]["k8s"]["victims"]) != sorted(r["victims"])]
    assert len(differ) >= 2  # preemptions 2 and 3
    files = ROOT / "sample_workloads"
    for record in differ:
        victim, alt = record["victims"][0], record["same_state"]["k8s"]
        argv = ["explain", str(files / "demo_seed1.csv"), victim, "--cluster", str(files / "demo_cluster.yaml")]
        story = _json(capsys, [*argv, "--policy", "fitgpp", "--json"])["story"]
        step = next(s for s in story if s["kind"] == "signalled" and s["time"] == record["time"])
        why = step["text"].split(f"over k8s's choice, {contrast.jobs_text(alt['victims'])} on node {alt['node']}: ")
        assert len(why) == 2, step["text"]
        assert re.match(
            r"(tied on [^;]*; )?[a-z ]+ \S.* against \S.* \(.*(fewer|less|lower|earlier|more|higher|later) is better",
            why[1],
        ), why[1]
        assert "k8s would take the same" not in step["text"]
