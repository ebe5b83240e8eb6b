"""The compiled engine (mypyc, ``build_engine.py``) against its pure-Python reference.

Both paths must write the same bytes; when a build exists its extensions are what ``import``
loads (a silently broken build fails here); ``SIMCORE_PURE=1`` loads the ``.py`` sources. CI builds
the compiled path (``make install``), so there a missing build fails rather than skips.
See docs/testing.md#the-compiled-engine.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib.machinery import EXTENSION_SUFFIXES
from importlib.util import module_from_spec, spec_from_file_location
from pathlib import Path

import pytest
from helpers.paths import ROOT

ENGINE = ROOT / "simcore" / "engine"


def _build_script():
    spec = spec_from_file_location("build_engine", ROOT / "build_engine.py")
    assert spec is not None and spec.loader is not None
    module = module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


MODULES: tuple[str, ...] = _build_script().MODULES
BUILT = [m for m in MODULES if any((ENGINE / (m + s)).exists() for s in EXTENSION_SUFFIXES)]
IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")

# Runs of the CLI covering the engine's branches: every policy, a seeded random, grace 0 and > 0,
# min_runtime, the checkpoint modes, strict backfill, a placement rule, gangs, decisions recorded, down time.
PAPER = ["paper_1000.csv", "--nodes", "16", "--node-cpu", "64", "--node-mem-gb", "512", "--node-gpu", "8"]
GANG = ["GANG", "--nodes", "8", "--node-cpu", "64", "--node-mem-gb", "512", "--node-gpu", "8"]
RUNS: dict[str, list[str]] = {
    "fifo": [*PAPER, "--policy", "fifo"],
    "fifo-strict": [*PAPER, "--policy", "fifo", "--set", "backfill=none"],
    "k8s-grace0": [*PAPER, "--policy", "k8s", "--set", "grace=0"],
    "lrtp-ckpt-none": [*PAPER, "--policy", "lrtp", "--set", "checkpoint=none"],
    "random-seed3": [*PAPER, "--policy", "random", "--set", "seed=3"],
    "fitgpp": [*PAPER, "--policy", "fitgpp"],
    "fitgpp-periodic-mr600": [
        *PAPER,
        *("--policy", "fitgpp", "--set", "checkpoint=periodic", "--set", "checkpoint_interval=600"),
        *("--set", "min_runtime=600"),
    ],
    "fitdelay-worst-fit": [*PAPER, "--policy", "fitdelay", "--set", "placement=worst_fit"],
    "gang-fitgpp": [*GANG, "--policy", "fitgpp"],
    "gang-k8s-grace0-mr600": [*GANG, "--policy", "k8s", "--set", "grace=0", "--set", "min_runtime=600"],
    "gang-fifo-strict": [*GANG, "--policy", "fifo", "--set", "backfill=none"],
    # down time (DESIGN rule 12): random failures, checkpoint pauses
    "fitgpp-failures-cost": [
        *PAPER,
        *("--policy", "fitgpp", "--set", "checkpoint=periodic", "--set", "checkpoint_cost=60"),
        *("--set", "mtbf=200000", "--set", "repair=1800"),
    ],
    "gang-k8s-failures": [*GANG, "--policy", "k8s", "--set", "mtbf=100000"],
}

# The child: generate the gang workload, then each run writes its four files (the summary without
# its wall-clock field, the one value that may differ between two runs).
_CHILD = """
import json, sys
from pathlib import Path
from simcore.cli import main
from simcore.engine import compiled
out, samples, runs = Path(sys.argv[1]), Path(sys.argv[2]), json.loads(sys.argv[3])
gang = out / "gang.csv"
args = ["generate", "--preset", "paper-gang", "--seed", "0", "--set", "jobs=300", "--set", "nodes=8"]
assert main([*args, "--out", str(gang)]) == 0
for name, argv in runs.items():
    src = str(gang) if argv[0] == "GANG" else str(samples / argv[0])
    files = {f"--{k}-out": str(out / f"{name}.{k}") for k in ("jobs", "events", "decisions")}
    files["--summary-json"] = str(out / f"{name}.summary")
    assert main(["run", src, *argv[1:], *(x for kv in files.items() for x in kv)]) == 0, name
    path = Path(files["--summary-json"])
    summary = json.loads(path.read_text())
    summary.pop("wall_seconds", None)
    path.write_text(json.dumps(summary, indent=2, sort_keys=True))
print(json.dumps(compiled()))
"""


def _child_env(pure: bool) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "SIMCORE_PURE"}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [env.get("PYTHONPATH")])])
    if pure:
        env["SIMCORE_PURE"] = "1"
    return env


def _python(code: str, *args: str, pure: bool) -> str:
    done = subprocess.run(
        [sys.executable, "-c", code, *args], env=_child_env(pure), cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-4000:]
    return done.stdout


_WHICH = """
import json, sys, simcore.engine as e
mods = [sys.modules.get(f"simcore.engine.{m}") or __import__(f"simcore.engine.{m}", fromlist=["x"]) for m in sys.argv[1:]]
print(json.dumps([e.compiled(), {m.__name__.rpartition(".")[2]: m.__file__ for m in mods}]))
"""


def _which(pure: bool) -> tuple[bool, dict[str, str]]:
    compiled, files = json.loads(_python(_WHICH, *MODULES, pure=pure).splitlines()[-1])
    return compiled, files


def test_the_build_is_what_import_loads() -> None:
    """(b) With a build, every compiled module imports as its extension; in CI the build must exist."""
    if not BUILT:
        if IN_CI:
            pytest.fail("CI=true but the engine is not compiled: `make install` runs build_engine.py")
        pytest.skip("the engine is not compiled here (python build_engine.py builds it)")
    assert BUILT == list(MODULES), f"a partial build: only {BUILT}"
    compiled, files = _which(pure=False)
    assert compiled
    for m, f in files.items():
        # the extension (mypyc names its __file__ from the shared library's directory)
        assert Path(f).name.startswith(f"{m}.") and f.endswith(tuple(EXTENSION_SUFFIXES)), (m, f)


def test_the_build_imports_from_anywhere(tmp_path: Path) -> None:
    """The build lies wholly inside the package: `simcore` found on a path that holds only the
    package (as an installed or `pip install -e` copy is found), run from another directory,
    still loads the compiled engine (a shared library at the repository root would not import)."""
    if not BUILT:
        pytest.skip("the engine is not compiled here")
    (tmp_path / "path").mkdir()
    (tmp_path / "path" / "simcore").symlink_to(ROOT / "simcore", target_is_directory=True)
    env = {k: v for k, v in os.environ.items() if k not in ("SIMCORE_PURE", "PYTHONPATH")}
    env["PYTHONPATH"] = str(tmp_path / "path")
    code = "import simcore.engine as e; print(e.compiled())"
    done = subprocess.run([sys.executable, "-c", code], env=env, cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["True"]


def test_simcore_pure_loads_the_sources() -> None:
    """(c) SIMCORE_PURE=1: every engine module from its .py file, with or without a build."""
    compiled, files = _which(pure=True)
    assert not compiled
    assert files == {m: str(ENGINE / f"{m}.py") for m in MODULES}


@pytest.mark.skipif(not BUILT and not IN_CI, reason="the engine is not compiled here: both paths are the sources")
def test_compiled_and_pure_write_the_same_bytes(tmp_path: Path) -> None:
    """(a) Each run of RUNS writes byte-identical jobs, events, decisions and summary files on both paths."""
    outs = {}
    for pure in (True, False):
        out = tmp_path / ("pure" if pure else "compiled")
        out.mkdir()
        ran_compiled = json.loads(
            _python(_CHILD, str(out), str(ROOT / "sample_workloads"), json.dumps(RUNS), pure=pure).splitlines()[-1]
        )
        assert ran_compiled is not pure
        outs[pure] = {p.name: p.read_bytes() for p in sorted(out.iterdir())}
    pure_files, compiled_files = outs[True], outs[False]
    assert len(pure_files) == 4 * len(RUNS) + 1
    assert sorted(pure_files) == sorted(compiled_files)
    differ = [name for name in pure_files if pure_files[name] != compiled_files[name]]
    assert not differ, differ
    # not vacuous: victims were chosen, decisions recorded, gangs preempted
    assert all(b",preempt," in pure_files[f"{run}.events"] for run in ("k8s-grace0", "fitgpp", "gang-fitgpp"))
    assert pure_files["fitgpp-periodic-mr600.decisions"] and pure_files["gang-k8s-grace0-mr600.decisions"]
