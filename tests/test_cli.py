"""The command line: file contract of `run` and `compare` (DESIGN.md section 6), errors."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from simcore.cli import main
from simcore.core.model import JobTable, SimConfig
from simcore.core.result import EVENT_COLUMNS, JOB_COLUMNS
from simcore.engine import simulate
from simcore.io.csvsafe import to_csv_text
from simcore.workload import load_cluster, load_workload, write_workload

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
    rc = main(
        [
            "run",
            str(wl),
            "--policy",
            "fitgpp",
            "--nodes",
            "1",
            "--node-cpu",
            "64",
            "--node-mem-gb",
            "512",
            "--node-gpu",
            "8",
            "--set",
            "grace=0",
            "--jobs-out",
            str(jobs),
            "--events-out",
            str(events),
            "--summary-json",
            str(summ),
        ]
    )
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
    rc = main(
        [
            "compare",
            str(wl),
            "--policies",
            "fifo,k8s,fitgpp:P=0,fitgpp:P=1:s=4",
            "--nodes",
            "1",
            "--node-cpu",
            "64",
            "--node-mem-gb",
            "512",
            "--node-gpu",
            "8",
            "--json",
            str(out),
        ]
    )
    assert rc == 0
    c = json.loads(out.read_text())
    assert list(c["policies"]) == ["fifo", "k8s", "fitgpp:P=0", "fitgpp:P=1:s=4"]
    assert c["policies"]["fitgpp:P=0"]["knobs"]["P"] == 0 and c["policies"]["fitgpp:P=0"]["preemptions"] == 0
    assert c["policies"]["fitgpp:P=1:s=4"]["knobs"]["s"] == 4.0
    assert c["vs_baseline"]["fifo"] == {
        "TE_p95_slowdown_pct": 0.0,
        "BE_p50_slowdown_pct": 0.0,
        "BE_p95_slowdown_pct": 0.0,
    }
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
    p = subprocess.run(
        [sys.executable, "-m", "simcore", "run", str(wl), "--policy", "priority"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert p.returncode == 0 and "policy priority: 3 jobs" in p.stdout


# --- CSV outputs escape formula-like text (OWASP CSV injection) -------------------------------

HOSTILE = ['=HYPERLINK("http://x")', "+cmd|' /C calc'!A0", "-1x", "@a", "\ttab", "7"]


def _cells(path, column):
    with open(path, newline="", encoding="utf-8") as fh:
        return [row[column] for row in csv.DictReader(fh)]


def test_run_outputs_escape_hostile_ids_and_node_names(tmp_path, capsys):
    rows = "\n".join(
        f'"{i}",{k},100,1,1,1,{"TE" if k % 2 else "BE"}' for k, i in enumerate(x.replace('"', '""') for x in HOSTILE)
    )
    wl = tmp_path / "hostile.csv"
    wl.write_text(f"job_id,submit_time,duration,cpu,mem_gb,gpu,job_class\n{rows}\n")
    cluster = tmp_path / "c.yaml"
    cluster.write_text("nodes: [{name: '@pool', count: 1, cpu: 8, mem_gb: 8, gpu: 8}]\n")
    jobs, events, summ = tmp_path / "j.csv", tmp_path / "e.csv", tmp_path / "s.json"
    assert (
        main(
            [
                "run",
                str(wl),
                "--policy",
                "fitgpp",
                "--cluster",
                str(cluster),
                "--jobs-out",
                str(jobs),
                "--events-out",
                str(events),
                "--summary-json",
                str(summ),
            ]
        )
        == 0
    )
    capsys.readouterr()
    # the reader strips blanks around values, so the tab-led id arrives as "tab"; the rest get a quote
    escaped = ['\'=HYPERLINK("http://x")', "'+cmd|' /C calc'!A0", "'-1x", "'@a", "tab", "7"]
    assert _cells(jobs, "job_id") == escaped
    assert set(_cells(jobs, "node")) == {"'@pool-0"}
    assert set(_cells(events, "job_id")) == set(escaped)
    assert set(_cells(events, "node")) == {"", "'@pool-0"}
    # no cell of any CSV starts with a formula character unescaped
    for path in (jobs, events):
        with open(path, newline="", encoding="utf-8") as fh:
            assert not [
                c
                for row in csv.reader(fh)
                for c in row
                if c[:1] in ("=", "+", "@", "\t", "\r") or (c[:1] == "-" and not _is_number(c))
            ]
    # numbers are untouched: every other column is byte for byte the unescaped frame's
    result = simulate(load_workload(wl).table, load_cluster(cluster).cluster, SimConfig(policy="fitgpp"))
    plain = result.jobs_frame.drop(columns=["job_id", "node"]).to_csv(index=False)
    assert pd.read_csv(jobs, dtype=str).drop(columns=["job_id", "node"]).to_csv(index=False) == plain
    assert json.loads(summ.read_text())["classes"]["all"]["count"] == 6


def test_convert_escapes_text_and_plain_ids_and_negative_numbers_stay(tmp_path, capsys):
    table = JobTable(
        job_id=np.array(HOSTILE + ["\rcr", "job-3"], dtype=object),
        submit_time=np.arange(8.0),
        duration=np.full(8, 10.0),
        request=np.ones((8, 3)),
        is_te=np.zeros(8, dtype=bool),
        extra={"user": np.array(["=u", "ok"] * 4, dtype=object)},
    )
    out = tmp_path / "w.csv"
    write_workload(table, out)
    assert _cells(out, "job_id") == [
        '\'=HYPERLINK("http://x")',
        "'+cmd|' /C calc'!A0",
        "'-1x",
        "'@a",
        "'\ttab",
        "7",
        "'\rcr",
        "job-3",
    ]
    assert _cells(out, "user") == ["'=u", "ok"] * 4
    # csvsafe leaves plain ids and every number alone, so a frame without formula text is unchanged
    frame = pd.DataFrame(
        {"job_id": ["1", "17", "job-3", "a=b"], "wait": [-5.0, -0.5, 0.0, 1e-9], "preemptions": [-1, 0, 2, 3]}
    )
    assert to_csv_text(frame) == frame.to_csv(index=False, lineterminator="\n")
    assert to_csv_text(frame).splitlines()[1] == "1,-5.0,-1"


def _is_number(text):
    try:
        float(text)
    except ValueError:
        return False
    return True


def test_csvsafe_keeps_numeric_ids_and_quotes_text_with_a_carriage_return():
    # an id that is a plain decimal number holds no formula: "-5" stays an id, "-5+3" is escaped
    frame = pd.DataFrame({"job_id": ["-5", "-0.5", "-5+3", "a\rb"], "wait": [1.0, 2.0, 3.0, 4.0]})
    text = to_csv_text(frame)
    back = pd.read_csv(io.StringIO(text), dtype={"job_id": str})
    assert back["job_id"].tolist() == ["-5", "-0.5", "'-5+3", "a\rb"]  # the CR did not split its row
    assert back["wait"].tolist() == [1.0, 2.0, 3.0, 4.0]
    plain = pd.DataFrame({"job_id": ["-5", "x"], "wait": [1.0, 2.0]})
    assert to_csv_text(plain) == plain.to_csv(index=False, lineterminator="\n")  # minimal quoting otherwise
