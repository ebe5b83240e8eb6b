"""The command line: file contract of `run` and `compare` (DESIGN.md section 6), errors."""

from __future__ import annotations

import json
import subprocess
import sys

import pandas as pd
import pytest

from simcore.cli import main
from simcore.result import EVENT_COLUMNS, JOB_COLUMNS

WORKLOAD = """job_id,submit_time,duration,cpu,mem_gb,gpu,job_class
1,0,100,8,64,8,BE
2,10,20,1,8,1,TE
3,20,50,1,8,2,be
4,30,10,1,8,16,TE
"""


@pytest.fixture()
def wl(tmp_path):
    p = tmp_path / "wl.csv"
    p.write_text(WORKLOAD)
    return p


def test_run_writes_the_three_files(wl, tmp_path, capsys):
    jobs, events, summ = tmp_path / "j.csv", tmp_path / "e.csv", tmp_path / "s.json"
    rc = main(["run", str(wl), "--policy", "fitgpp", "--nodes", "1", "--node-cpu", "64", "--node-mem-gb", "512",
               "--node-gpu", "8", "--set", "grace=0", "--jobs-out", str(jobs), "--events-out", str(events),
               "--summary-json", str(summ)])  # fmt: skip
    out = capsys.readouterr()
    assert rc == 0
    # job 4 asks for 16 GPUs on an 8-GPU node: unschedulable, warned about, not simulated
    assert "1 job(s) fit on no node" in out.err and ": 4" in out.err
    jf = pd.read_csv(jobs)
    assert list(jf.columns) == JOB_COLUMNS and sorted(jf.job_id) == [1, 2, 3]
    ev = pd.read_csv(events, keep_default_na=False)
    assert list(ev.columns) == EVENT_COLUMNS
    assert set(ev.event) == {"submit", "start", "preempt", "release", "finish"}
    assert (ev[ev.event == "submit"].node == "").all()
    s = json.loads(summ.read_text())
    assert s["unschedulable"] == ["4"] and s["policy"] == "fitgpp" and s["knobs"]["grace"] == 0
    assert s["preemptions"] == 1 and s["classes"]["TE"]["count"] == 1
    assert "policy fitgpp: 3 jobs (1 TE, 2 BE)" in out.out


def test_compare_json_with_per_policy_knobs(wl, tmp_path, capsys):
    out = tmp_path / "c.json"
    rc = main(["compare", str(wl), "--policies", "fifo,k8s,fitgpp:P=0,fitgpp:P=1:s=4", "--nodes", "1",
               "--node-cpu", "64", "--node-mem-gb", "512", "--node-gpu", "8", "--json", str(out)])  # fmt: skip
    assert rc == 0
    c = json.loads(out.read_text())
    assert list(c["policies"]) == ["fifo", "k8s", "fitgpp:P=0", "fitgpp:P=1:s=4"]
    assert c["policies"]["fitgpp:P=0"]["knobs"]["P"] == 0 and c["policies"]["fitgpp:P=0"]["preemptions"] == 0
    assert c["policies"]["fitgpp:P=1:s=4"]["knobs"]["s"] == 4.0
    assert c["vs_baseline"]["fifo"] == {"TE_p95_slowdown_pct": 0.0, "BE_p50_slowdown_pct": 0.0,
                                        "BE_p95_slowdown_pct": 0.0}  # fmt: skip
    te_fifo = c["policies"]["fifo"]["classes"]["TE"]["slowdown"]["p95"]
    te_k8s = c["policies"]["k8s"]["classes"]["TE"]["slowdown"]["p95"]
    assert c["vs_baseline"]["k8s"]["TE_p95_slowdown_pct"] == pytest.approx((te_k8s - te_fifo) / te_fifo * 100)
    table = capsys.readouterr().out
    assert "fitgpp:P=1:s=4" in table and "trio in % vs fifo" in table


@pytest.mark.parametrize(
    "args, words",
    [
        (["--policy", "nosuch"], "unknown policy 'nosuch'"),
        (["--set", "grace=-3"], "knob grace: must be a finite number >= 0"),
        (["--set", "grace"], "expected KEY=VALUE"),
        (["--policy", "fitgpp:P"], "is not KEY=VALUE"),
    ],
)
def test_user_errors_exit_2_without_traceback(wl, capsys, args, words):
    assert main(["run", str(wl), *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and words in err and "Traceback" not in err


def test_missing_file_and_bad_baseline(tmp_path, wl, capsys):
    assert main(["run", str(tmp_path / "absent.csv")]) == 2
    assert "absent.csv" in capsys.readouterr().err
    assert main(["compare", str(wl), "--policies", "k8s,fitgpp", "--baseline", "fifo"]) == 2
    assert "--baseline 'fifo' is not in --policies" in capsys.readouterr().err


def test_python_m_simcore_is_the_same_command(wl):
    p = subprocess.run([sys.executable, "-m", "simcore", "run", str(wl), "--policy", "priority"],
                       capture_output=True, text=True, timeout=120)  # fmt: skip
    assert p.returncode == 0 and "policy priority: 3 jobs" in p.stdout
