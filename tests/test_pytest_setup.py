"""The suite's own machinery, on supported pytest and pytest-xdist means only
(docs/testing.md#fast-and-never-flaky): tests that share something stay on one worker, and no test
code reaches into pytest's internals.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

from helpers.paths import ROOT

# A small suite run with two workers: the tests of group "g" (four marked where they are written,
# four in a conftest hook as tests/conftest.py marks the browser and pure_engine tests) across two
# files, and eight other tests; each test writes the worker it ran on.
_CONFTEST = """
import pytest

@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    for item in items:
        if "late" in item.name:
            item.add_marker(pytest.mark.xdist_group("g"))
"""
_MODULE = """
import os
import pytest

def _ran(name):
    with open(os.path.join(os.environ["RAN_DIR"], name), "w") as f:
        f.write(os.environ["PYTEST_XDIST_WORKER"])

@pytest.mark.xdist_group("g")
@pytest.mark.parametrize("i", range(2))
def test_marked(i):
    _ran(f"{__name__}-marked-{i}")

@pytest.mark.parametrize("i", range(2))
def test_late(i):
    _ran(f"{__name__}-late-{i}")

@pytest.mark.parametrize("i", range(4))
def test_free(i):
    _ran(f"{__name__}-free-{i}")
"""


def test_xdist_groups_keep_their_tests_on_one_worker(tmp_path: Path) -> None:
    """``--dist loadgroup`` puts every test of an ``xdist_group``, marked in its module or by a
    conftest hook, on one worker, while the others spread over both (this pytest and pytest-xdist
    together: with pytest 9.2 and pytest-xdist 3.8 the groups are silently ignored)."""
    suite, ran = tmp_path / "suite", tmp_path / "ran"
    suite.mkdir()
    ran.mkdir()
    (suite / "conftest.py").write_text(_CONFTEST)
    for name in ("test_one.py", "test_two.py"):
        (suite / name).write_text(_MODULE)
    argv = [
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-p",
        "xdist",
        "-n",
        "2",
        "--dist",
        "loadgroup",
        "-p",
        "no:cacheprovider",
    ]
    # pytest-xdist alone: the other installed plugins (hypothesis, anyio, ...) only slow each worker's start
    env = {**os.environ, "RAN_DIR": str(ran), "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    done = subprocess.run([*argv, "--rootdir", str(suite), str(suite)], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-3000:]
    workers = {f.name: f.read_text() for f in ran.iterdir()}
    assert len(workers) == 16
    grouped = {w for name, w in workers.items() if "-free-" not in name}
    assert len(grouped) == 1, workers
    assert len(set(workers.values())) == 2, workers  # not vacuous: both workers ran tests


def test_no_test_code_imports_pytest_internals() -> None:
    """``_pytest`` is pytest's private package: tests, helpers and benchmarks use the public API."""
    found = []
    for path in sorted([*(ROOT / "tests").rglob("*.py"), *(ROOT / "bench").rglob("*.py")]):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            found += [f"{path.relative_to(ROOT)}:{node.lineno}" for n in names if n.split(".")[0] == "_pytest"]
    assert not found, found
