"""The compiled engine (mypyc, built by ``setup.py``) against its pure-Python reference, and the
build itself.

Both paths must write the same bytes; when a build exists its extensions are what ``import``
loads (a silently broken build fails here); ``SIMCORE_PURE=1`` loads the ``.py`` sources, and so
does a stale build (one whose sources changed since). CI builds the compiled path (``make test``
runs ``make install``'s build first), so there a missing build fails rather than skips. The build
hook itself is run on a small copy of the package that compiles one module (:func:`_mini`), so
that it costs seconds, not the full build's minute. See docs/testing.md#the-compiled-engine.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

import pytest
from helpers.paths import ROOT

from simcore.engine import native

ENGINE = ROOT / "simcore" / "engine"
MODULES = native.MODULES
BUILT = native.build_state() == "fresh"
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
            pytest.fail(
                f"CI=true but the engine is not compiled (state: {native.build_state()}): `make install` builds it"
            )
        pytest.skip("the engine is not compiled here (make install builds it)")
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
    """(c) SIMCORE_PURE=1: every engine module from its .py file, with or without a build, also
    when the first import names an engine module itself rather than the package."""
    compiled, files = _which(pure=True)
    assert not compiled
    assert files == {m: str(ENGINE / f"{m}.py") for m in MODULES}
    direct = "import simcore.engine.clock as c, sys; print(c.__file__, sys.modules['simcore.engine.loop'].__file__)"
    assert _python(direct, pure=True).split() == [str(ENGINE / "clock.py"), str(ENGINE / "loop.py")]


def test_a_stale_or_unrecorded_build_is_never_used(tmp_path: Path) -> None:
    """A copy of the built package whose engine source changed since the build runs every engine
    module from its ``.py`` file and says so in one line; one without the build's record (a build
    under way or one that failed) runs the sources silently."""
    if not BUILT:
        pytest.skip("the engine is not compiled here")
    stale = tmp_path / "stale"
    shutil.copytree(ROOT / "simcore", stale / "simcore", ignore=shutil.ignore_patterns("__pycache__"))
    with open(stale / "simcore" / "engine" / "clock.py", "a", encoding="utf-8") as f:
        f.write("# edited after the build\n")
    unrecorded = tmp_path / "unrecorded"
    shutil.copytree(stale / "simcore", unrecorded / "simcore")
    shutil.copy(ENGINE / "clock.py", unrecorded / "simcore" / "engine" / "clock.py")
    (unrecorded / "simcore" / "engine" / native.RECORD).unlink()
    code = "import simcore.engine.loop as l, simcore.engine as e; print(e.native.build_state(), l.__file__)"
    for copy, state, says in ((stale, "stale", True), (unrecorded, "none", False)):
        env = {k: v for k, v in os.environ.items() if k not in ("SIMCORE_PURE", "PYTHONPATH")}
        env["PYTHONPATH"] = str(copy)
        done = subprocess.run([sys.executable, "-c", code], env=env, cwd=tmp_path, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr[-2000:]
        assert done.stdout.split() == [state, str(copy / "simcore" / "engine" / "loop.py")]
        assert ("built from other sources" in done.stderr) is says, done.stderr


def test_build_state_reads_the_record(tmp_path: Path) -> None:
    """The record decides: fresh only with the same source digests and every file it names present."""
    for m in MODULES:
        (tmp_path / f"{m}.py").write_text(f"# {m}\n")
    assert native.build_state(str(tmp_path)) == "none"
    (tmp_path / "loop.x.so").write_bytes(b"")
    native.write_record(str(tmp_path), native.source_digests(str(tmp_path)), ["loop.x.so"])
    assert native.build_state(str(tmp_path)) == "fresh"
    (tmp_path / "gang.py").write_text("# gang, edited\n")
    assert native.build_state(str(tmp_path)) == "stale"
    (tmp_path / "gang.py").write_text("# gang\n")
    assert native.build_state(str(tmp_path)) == "fresh"
    (tmp_path / "loop.x.so").unlink()
    assert native.build_state(str(tmp_path)) == "none"
    (tmp_path / native.RECORD).write_text("{not json")
    assert native.build_state(str(tmp_path)) == "none"


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


def _mini(root: Path) -> Path:
    """A small copy of the package for the build hook: the real ``setup.py``, ``pyproject.toml`` and
    ``native.py`` (its list cut to ``budget``, an engine module that imports only the standard
    library, so mypyc checks and compiles it in seconds), the real ``budget.py``, an engine package
    that only selects, and an empty ``loop.py`` (what :func:`native.compiled` reads)."""
    engine = root / "simcore" / "engine"
    engine.mkdir(parents=True)
    for name in ("setup.py", "pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, root / name)
    (root / "simcore" / "__init__.py").write_text("")
    (engine / "__init__.py").write_text("from simcore.engine import native\n\nnative.select()\n")
    (engine / "loop.py").write_text("")
    shutil.copy(ENGINE / "budget.py", engine / "budget.py")
    source, count = re.subn(r"MODULES = \([^)]*\)", 'MODULES = ("budget",)', (ENGINE / "native.py").read_text())
    assert count == 1
    (engine / "native.py").write_text(source)
    return root


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("SIMCORE_PURE", "SIMCORE_COMPILE", "PYTHONPATH")}
    return {**env, **extra}


def _build(root: Path, **extra: str) -> str:
    """``python setup.py build_ext --inplace`` (what make runs) in ``root``: its last line."""
    argv = [sys.executable, "setup.py", "build_ext", "--inplace"]
    cache = str(root.parent / "mypy-cache")  # one for the copies of a test: the standard library's types read once
    done = subprocess.run(argv, cwd=root, env=_env(MYPY_CACHE_DIR=cache, **extra), capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done.stdout.splitlines()[-1]


def _budget(path: Path, cwd: Path) -> tuple[str, str, str]:
    """With ``path`` first on sys.path: the file ``simcore.engine.budget`` loads from, the build's
    state as that copy's own ``native`` reads it, and stderr."""
    code = "import simcore.engine.budget as b, simcore.engine as e; print(b.__file__, e.native.build_state())"
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=cwd, env=_env(PYTHONPATH=str(path)), capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-2000:]
    file, state = done.stdout.split()
    return Path(file).name, state, done.stderr


def _inodes(engine: Path) -> dict[str, int]:
    return {f.name: f.stat().st_ino for f in engine.iterdir() if f.name.endswith(tuple(EXTENSION_SUFFIXES))}


@pytest.mark.slow
def test_the_build_hook_compiles_records_and_replaces_by_rename(tmp_path: Path) -> None:
    """The hook in place: a build is recorded and imported; an edit since makes it stale (the
    sources run, one line says so); a rebuild puts every file there anew by a rename (a running
    process keeps the library it mapped) and is used again; a wheel built from the same tree
    carries the extensions and the record, and its installed copy runs compiled."""
    root = _mini(tmp_path / "src")
    engine = root / "simcore" / "engine"
    assert _build(root).startswith("simcore: engine compiled with mypyc in ")
    name, state, _ = _budget(root, tmp_path)
    assert state == "fresh"
    assert name.startswith("budget.") and name.endswith(tuple(EXTENSION_SUFFIXES))
    before = _inodes(engine)
    assert len(before) == 2  # budget's extension and the group's shared library

    with open(engine / "budget.py", "a", encoding="utf-8") as f:
        f.write("# edited after the build\n")
    file, state, stderr = _budget(root, tmp_path)
    assert (file, state) == ("budget.py", "stale")
    assert "built from other sources" in stderr

    assert _build(root).startswith("simcore: engine compiled with mypyc in ")
    after = _inodes(engine)
    assert sorted(after) == sorted(before) and all(after[f] != before[f] for f in before)
    assert not list(engine.glob("*.tmp"))
    assert _budget(root, tmp_path)[:2] == (name, "fresh")

    wheel = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "-q",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            str(tmp_path / "w"),
            ".",
        ],
        cwd=root,
        env=_env(MYPY_CACHE_DIR=str(tmp_path / "mypy-cache")),
        capture_output=True,
        text=True,
    )
    assert wheel.returncode == 0, wheel.stderr[-3000:]
    (whl,) = (tmp_path / "w").glob("*.whl")
    names = set(zipfile.ZipFile(whl).namelist())
    assert {f"simcore/engine/{f}" for f in [*before, native.RECORD]} <= names
    target = tmp_path / "installed"
    installed = subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target), str(whl)],
        env=_env(),
        capture_output=True,
        text=True,
    )
    assert installed.returncode == 0, installed.stderr[-3000:]
    assert _budget(target, tmp_path)[:2] == (name, "fresh")  # whatever order pip wrote the files in


def test_the_build_hook_falls_back_to_the_sources(tmp_path: Path) -> None:
    """Never a failed install: opted out, without a C compiler, or on a type error mypyc reports,
    the build says why in its last line, leaves no record, and the sources run."""
    cases = {
        "opted out": ({"SIMCORE_COMPILE": "0"}, "", "(SIMCORE_COMPILE=0)"),
        "no compiler": ({"CC": "/bin/false", "LDSHARED": "/bin/false"}, "", "(the C compile failed)"),
        "type error": ({}, "\nWRONG: int = 'text'\n", "(mypyc failed: SystemExit 1)"),
    }
    for case, (extra, appended, why) in cases.items():
        root = _mini(tmp_path / case.replace(" ", "-"))
        engine = root / "simcore" / "engine"
        with open(engine / "budget.py", "a", encoding="utf-8") as f:
            f.write(appended)
        assert _build(root, **extra) == f"simcore: engine not compiled {why}; the pure-Python engine runs", case
        assert _inodes(engine) == {}, case
        assert _budget(root, tmp_path) == ("budget.py", "none", ""), case
