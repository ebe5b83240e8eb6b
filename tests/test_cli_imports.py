"""What starting the command line imports (issue 31): ``import simcore`` and ``simcore --help`` none of
the simulator and no third-party package, and each command only what it uses; never scipy or plotly
for a run. Each case runs in a fresh interpreter (``bench/cli_imports.py`` measures the time)."""

from __future__ import annotations

import json
import subprocess
import sys

from helpers.paths import ROOT

PROBE = """
import contextlib, io, json, sys
from simcore.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    try:
        main(sys.argv[1:])
    except SystemExit:
        pass
print(json.dumps(sorted(sys.modules)))
"""
THIRD_PARTY = {
    "numpy",
    "pandas",
    "pyarrow",
    "pydantic",
    "simpy",
    "yaml",
    "scipy",
    "tqdm",
    "dask",
    "plotly",
    "streamlit",
}


def imported(*words: str) -> tuple[set[str], set[str]]:
    """(third-party packages, simcore modules) a fresh interpreter holds after ``simcore WORDS``."""
    out = subprocess.run([sys.executable, "-c", PROBE, *words], cwd=ROOT, capture_output=True, text=True, check=True)
    modules = set(json.loads(out.stdout.strip().splitlines()[-1]))
    return {m.split(".")[0] for m in modules} & THIRD_PARTY, {m for m in modules if m.split(".")[0] == "simcore"}


def test_help_imports_no_command_and_no_third_party_package():
    third, ours = imported("--help")
    assert third == set()
    assert ours == {"simcore", "simcore.cli", "simcore.cli.plugins", "simcore.core", "simcore.core.errors"}
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, simcore; print(sorted(m for m in sys.modules if m.split('.')[0] == 'simcore'))",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.strip() == "['simcore']"


def test_a_run_imports_what_it_reads_and_simulates_with_and_no_other_command():
    third, ours = imported("run", "sample_workloads/demo.csv", "--nodes", "4", "--policy", "fitgpp")
    assert third == {"numpy", "pandas", "pyarrow", "pydantic", "simpy"}  # reads a table, simulates
    others = ("simcore.experiments", "simcore.analysis.whatif", "simcore.cli.sweep", "simcore.cli.whatif")
    assert not {m for m in ours if m.startswith(others)}


def test_policies_reads_no_table_and_generate_simulates_nothing(tmp_path):
    third, ours = imported("policies")
    assert third == {"numpy"}
    third, ours = imported("generate", "--preset", "demo", "--out", str(tmp_path / "g.csv"))
    assert "simpy" not in third and not {m for m in ours if m.startswith("simcore.engine")}
    assert not third & {"scipy", "plotly", "streamlit"}
