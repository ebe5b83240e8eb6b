"""What the tests of ``simcore report`` share: the report plugin, the CLI run through it, the demo
sample's report (built once per process), the sections it has and the visitor text it must
show as plain text."""

from __future__ import annotations

import argparse
import functools
import json
import os
import re
import tempfile
from importlib.metadata import EntryPoint
from pathlib import Path

from simcore.cli import plugins as cli_plugins

from .apptest import decode_arrays
from .paths import ROOT

DEMO_ARGS = ["sample_workloads/demo.csv", "--cluster", "sample_workloads/demo_cluster.yaml"]
PLUGIN = EntryPoint("report", "dashboard.report.cli:register", cli_plugins.GROUP)
#: the documented cap of the demo sample's report (docs/cli.md)
REPORT_CAP_BYTES = 6_000_000
SECTIONS = (
    "Scenario",
    "The trio",
    "Slowdown percentiles",
    "Slowdown CDFs",
    "GPU lanes (Gantt)",
    "Preemption steps",
    "Decision log",
    "Preemption accounting",
)
HOSTILE = ('<a href="http://127.0.0.1:9/x">CLICK</a>', "<script>alert(1)</script>")


def parser(points: list[EntryPoint]) -> argparse.ArgumentParser:
    """``simcore``'s parser with the given plugins (the installed ones are not consulted)."""
    p = argparse.ArgumentParser(prog="simcore")
    cli_plugins.add_plugin_commands(p.add_subparsers(dest="command", required=True), points)
    return p


def run(argv: list[str], points: list[EntryPoint] | None = None) -> int:
    args = parser([PLUGIN] if points is None else points).parse_args(argv)
    return int(args.func(args))


def report_data(text: str) -> dict:
    found = re.search(r'<script type="application/json" id="report-data">(.*?)</script>', text, re.S)
    assert found
    return json.loads(found.group(1))


@functools.cache
def demo_report() -> str:
    """The demo sample's report with the default policies (built once per test session)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "report.html"
        cwd = os.getcwd()
        os.chdir(ROOT)
        try:
            assert run(["report", *DEMO_ARGS, "--out", str(out)]) == 0
        finally:
            os.chdir(cwd)
        return out.read_text(encoding="utf-8")


def report_figure(text: str, name: str) -> tuple[list[dict], dict]:
    """The traces and layout of the report's figure ``chart-<name>`` as Plotly's call in the file holds
    them, numeric arrays decoded."""
    found = re.search(r'Plotly\.newPlot\(\s*"chart-' + re.escape(name) + r'",\s*', text)
    assert found, f"no figure chart-{name}"
    reader = json.JSONDecoder()
    data, end = reader.raw_decode(text, found.end())
    comma = re.compile(r",\s*").match(text, end)
    assert comma
    layout, _ = reader.raw_decode(text, comma.end())
    return decode_arrays(data), decode_arrays(layout)
