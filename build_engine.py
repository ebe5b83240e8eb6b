"""Compile the engine's per-event modules with mypyc, in place (docs/testing.md#the-compiled-engine).

Run by ``make install`` (so ``make test``, ``make run``, ``make bench`` and CI get it). Each module
below gets a C extension beside its ``.py`` file, which Python then imports instead; the ``.py``
sources stay the reference (``SIMCORE_PURE=1`` selects them, :mod:`simcore`). The build never
fails ``make``: without a compiler (or on any error) it removes what it left, prints one line
saying the engine runs in pure Python, and exits 0; the compiler's output goes to
``build/engine-compile.log``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

ROOT = Path(__file__).resolve().parent
ENGINE = ROOT / "simcore" / "engine"
#: the modules compiled: those that carry the work of every event (watch.py only reads, once per pass)
MODULES = (
    "loop",
    "clock",
    "pending",
    "cluster",
    "timeline",
    "eventlog",
    "jobstate",
    "running",
    "reservations",
    "gang",
    "ask",
    "queue_order",
    "budget",
    "quota",
    "queue_walk",
    "teams",
)
# the shared library mypyc builds for them, inside the package (simcore/engine/native__mypyc...):
# at the root it would import only where the root is on sys.path, never from another directory
GROUP = "simcore.engine.native"
LOG = ROOT / "build" / "engine-compile.log"


def compiled_files() -> list[Path]:
    """What a build left in the source tree: an extension per module and the shared library."""
    ext = [ENGINE / (m + s) for m in MODULES for s in EXTENSION_SUFFIXES]
    return (
        [f for f in ext if f.exists()]
        + sorted(ENGINE.glob(f"{GROUP.rpartition('.')[2]}__mypyc*"))
        + sorted(ROOT.glob("simcore_engine__mypyc*"))
    )


def build() -> None:
    """Compile :data:`MODULES` in place (raises on any failure)."""
    from mypyc.build import mypycify
    from setuptools import setup

    os.chdir(ROOT)  # mypyc names modules by their path from here
    paths = [f"simcore/engine/{m}.py" for m in MODULES]
    setup(
        name="simcore-engine-compiled",
        packages=[],
        ext_modules=mypycify(paths, opt_level="3", group_name=GROUP),
        script_args=["build_ext", "--inplace", "--force"],  # --force: fresh files, newer than their sources
    )


def main() -> int:
    for f in compiled_files():  # never leave an older build behind: on failure, pure Python runs
        f.unlink()
    LOG.parent.mkdir(exist_ok=True)
    t0 = time.perf_counter()
    with open(LOG, "w") as log:  # a child process, so the compiler's own output goes to the log too
        done = subprocess.run([sys.executable, __file__, "--build"], stdout=log, stderr=subprocess.STDOUT, check=False)
    ok = done.returncode == 0 and all(any((ENGINE / (m + s)).exists() for s in EXTENSION_SUFFIXES) for m in MODULES)
    if not ok:
        for f in compiled_files():
            f.unlink()
        print(f"simcore: compiled engine not built (see {LOG.relative_to(ROOT)}); the pure-Python engine runs")
        return 0
    print(f"simcore: engine compiled with mypyc in {time.perf_counter() - t0:.0f} s (pure Python: SIMCORE_PURE=1)")
    return 0


if __name__ == "__main__":
    if sys.argv[1:] == ["--build"]:
        build()
    else:
        sys.exit(main())
