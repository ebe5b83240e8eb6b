"""The package's public API: every exported name resolves, and the example of its docstring runs
and gives what the same run through the CLI writes."""

from __future__ import annotations

import json
import re

from helpers.paths import ROOT

import simcore
from simcore.cli import main as cli_main


def test_every_exported_name_exists_and_is_documented() -> None:
    for name in simcore.__all__:
        assert hasattr(simcore, name), name
        assert f"{name}`" in simcore.__doc__ or name in {"DIMS", "Job", "JobClass", "Node", "Resources"}, name


def test_the_docstring_example_runs_and_matches_the_cli(tmp_path, monkeypatch) -> None:
    example = re.search(r"::\n\n((?:    .*\n|\n)+)", simcore.__doc__).group(1)
    code = "\n".join(line[4:] for line in example.splitlines())
    monkeypatch.chdir(ROOT)
    scope: dict = {}
    exec(compile(code.replace("print(", "shown = ("), "example", "exec"), scope)  # the docstring's own code
    out = tmp_path / "s.json"
    argv = [
        "run",
        "sample_workloads/demo.csv",
        "--policy",
        "fitgpp",
        "--set",
        "P=1",
        "--nodes",
        "4",
        "--node-cpu",
        "64",
        "--node-mem-gb",
        "512",
        "--node-gpu",
        "8",
        "--summary-json",
        str(out),
    ]
    assert cli_main(argv) == 0
    assert scope["shown"] == json.loads(out.read_text())["classes"]["TE"]["slowdown"]["p95"]
