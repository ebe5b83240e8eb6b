"""``simcore report`` and its builder: the plugin seam, the sections, the checksum, the command
that reproduces it, plain text for visitor text, and the size cap on the demo sample."""

from __future__ import annotations

import hashlib
import html
import json
import os
import re
import shlex
import subprocess
import sys
from importlib.metadata import EntryPoint
from pathlib import Path

import pandas as pd
import pytest
from helpers.decisions import CONTRAST
from helpers.report import (
    DEMO_ARGS,
    HOSTILE,
    PLUGIN,
    REPORT_CAP_BYTES,
    ROOT,
    SECTIONS,
    demo_report,
    report_data,
    run,
)

from simcore import cli
from simcore.cli import plugins as cli_plugins
from simcore.core.errors import UserError
from simcore.policies.glossary import TERMS, label


def test_the_demo_report_has_every_section_the_checksum_and_stays_under_the_cap():
    text = demo_report()
    headings = re.findall(r"<h2>(.*?)</h2>", text)
    assert headings == list(SECTIONS)
    digest = hashlib.sha256((ROOT / "sample_workloads/demo.csv").read_bytes()).hexdigest()
    assert report_data(text)["sha256"] == digest and digest in text
    assert "cdn.plot.ly" not in re.sub(r"<script>.*?</script>", "", text, flags=re.S)  # no script from elsewhere
    assert len(text.encode()) < REPORT_CAP_BYTES
    assert html.escape("fitgpp is our reconstruction of the paper's approach") in text
    assert text.count("<li>") == 60 + 60  # the decision log: k8s and fitgpp, each capped at 60


def test_the_decision_log_tells_fitgpp_against_k8s_on_the_same_state():
    """Issue 33: each fitgpp decision in the log says what k8s would take on the very same state; "the
    same" only where it is, else the key that separated the two sets with both values."""
    text = demo_report()
    log = text[text.index("<h2>Decision log</h2>") : text.index("<h2>Preemption accounting</h2>")]
    lines = [html.unescape(line) for item in re.findall(r"<li>(.*?)</li>", log, re.S) for line in item.split("<br>")]
    said = [line for line in lines if line.startswith("On the same state, k8s would take")]
    assert len(said) == sum(line.startswith("fitgpp took node") for line in lines) > 0
    differ = [line for line in said if not line.startswith("On the same state, k8s would take the same")]
    assert differ  # the demo sample has decisions where k8s takes another job
    keys = "|".join(re.escape(label(n)) for n in TERMS)
    for line in differ:
        assert re.search(CONTRAST.format(keys=keys), line), line


def test_the_command_reproduces_the_trio_and_the_file(tmp_path, monkeypatch, capsys):
    """Parse the report's command back: the report command itself writes the same bytes (no
    clock, fixed chart ids), and ``simcore compare`` with its options gives the same trio."""
    monkeypatch.chdir(ROOT)
    first = tmp_path / "a.html"
    assert run(["report", *DEMO_ARGS, "--set", "grace=30", "--policies", "fifo,fitgpp:P=1", "--out", str(first)]) == 0
    written = first.read_bytes()
    data = report_data(written.decode())
    words = shlex.split(data["command"])
    assert words[:2] == ["simcore", "report"] and "--set" in words and "grace=30" in words
    assert run(words[1:]) == 0  # the same --out: the file is written again, byte for byte
    assert first.read_bytes() == written
    out = words.index("--out")
    compare = ["compare", *words[2:out], *words[out + 2 :], "--json", str(tmp_path / "c.json")]
    assert cli.main(compare) == 0
    assert json.loads((tmp_path / "c.json").read_text())["vs_baseline"] == data["trio"]
    assert data["trio"]["fitgpp:P=1"]["TE_p95_slowdown_pct"] < 0


def hostile_scenario(tmp_path: Path) -> tuple[Path, Path]:
    """Two one-GPU nodes held by BE jobs, then a TE job: fitgpp preempts one, so every id is
    in the Gantt, the preemption steps and the decision log. Ids and node names are hostile."""
    jobs = pd.DataFrame(
        {
            "job_id": [HOSTILE[0], HOSTILE[1], "<b>te</b>"],
            "submit_time": [0, 0, 100],
            "duration": [1000, 1000, 50],
            "cpu": [1, 1, 1],
            "mem_gb": [1, 1, 1],
            "gpu": [1, 1, 1],
            "job_class": ["BE", "BE", "TE"],
        }
    )
    workload = tmp_path / "<img src=x onerror=alert(2)>.csv"
    jobs.to_csv(workload, index=False)
    cluster = tmp_path / "nodes.csv"
    pd.DataFrame({"name": list(HOSTILE), "cpu": [4, 4], "mem_gb": [8, 8], "gpu": [1, 1]}).to_csv(cluster, index=False)
    return workload, cluster


def test_visitor_text_is_plain_text_only(tmp_path):
    workload, cluster = hostile_scenario(tmp_path)
    out = tmp_path / "r.html"
    assert (
        run(["report", str(workload), "--cluster", str(cluster), "--policies", "fifo,k8s,fitgpp", "--out", str(out)])
        == 0
    )
    text = out.read_text(encoding="utf-8")
    for hostile in (*HOSTILE, "<b>te</b>", "<img src=x onerror=alert(2)>"):
        assert hostile not in text
        assert html.escape(hostile, quote=False) in text or html.escape(hostile) in text
    assert "took node &lt;" in text  # the decision log names the hostile node, as text
    assert "alert(1)" in text and "CLICK" in text  # the ids are there, shown as text
    assert "&amp;lt;" not in text  # escaped once: a second escape would show the entity itself


def test_a_missing_plugin_is_a_clear_error_naming_the_extra(tmp_path):
    for points, why in (
        ([], "no package here provides it"),
        (
            [EntryPoint("report", "no_such_module_xyz:register", cli_plugins.GROUP)],
            "its plugin .* could not be imported",
        ),
    ):
        with pytest.raises(
            UserError, match=rf"simcore report needs the dashboard extra, and {why}.*simcore\[dashboard\]"
        ):
            run(["report", "x.csv", "--out", str(tmp_path / "y.html")], points)


def test_simcore_finds_the_report_through_its_entry_point(tmp_path):
    """In a fresh process, ``python -m simcore report`` is found only through package metadata
    (a dist-info on PYTHONPATH declaring the entry point), as pip's install makes it."""
    info = tmp_path / "simcore_report_plugin-0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: simcore-report-plugin\nVersion: 0\n")
    (info / "entry_points.txt").write_text(f"[{cli_plugins.GROUP}]\nreport = {PLUGIN.value}\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)])}
    out = tmp_path / "r.html"
    done = subprocess.run(
        [sys.executable, "-m", "simcore", "report", *DEMO_ARGS, "--policies", "fifo,fitgpp", "--out", str(out)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"wrote {out}")
    assert out.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
