"""The build hook: setuptools compiles the engine's per-event modules with mypyc when it builds the
package (``pip install .``, ``python -m build``; ``make`` builds in place with ``python setup.py
build_ext --inplace``). The metadata lives in pyproject.toml; docs/testing.md#the-compiled-engine.

The pure-Python package is always a valid result: with ``SIMCORE_COMPILE=0``, without mypyc, on
a type error mypyc reports, or without a C compiler (the extensions are optional: setuptools skips
a failed one with a warning) the build installs the ``.py`` sources alone, since without every
extension no build record is written and :mod:`simcore.engine.native` runs the sources. mypyc
runs only for the commands that build extensions: the metadata hooks pip calls first need none.

A build in place puts each file there by a rename (a library that a running process has mapped
is never rewritten under it) after removing the record, and writes the record last; one build at
a time (a lock in ``build/``), so ``make run``'s compile in the background and a ``make test``
started meanwhile take turns.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import sys
import time
from importlib.util import module_from_spec, spec_from_file_location
from pathlib import Path

from setuptools import setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent
ENGINE = ROOT / "simcore" / "engine"
LOCK = ROOT / "build" / "engine.lock"
#: the commands that build extensions (the rest, ``egg_info`` and ``dist_info`` above all, need none)
BUILDS = {"build", "build_ext", "bdist_wheel", "editable_wheel", "install"}


def _native():
    """simcore/engine/native.py by its path: importing ``simcore`` needs its dependencies."""
    spec = spec_from_file_location("simcore_engine_native", ENGINE / "native.py")
    assert spec is not None and spec.loader is not None
    module = module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


native = _native()


class Plan:
    """What this run of setup.py compiles: the extensions, the sources' digests taken before mypyc
    reads them (the build record's), and why nothing is compiled when nothing is."""

    def __init__(self) -> None:
        self.extensions: list = []
        self.digests: dict[str, str] = {}
        self.skipped = ""
        self.started = time.perf_counter()
        self.lock = None  # held until this process ends: mypyc writes its C files into build/

    def make(self) -> None:
        """mypycify the engine modules, or say why not."""
        if os.environ.get("SIMCORE_COMPILE", "1") == "0":
            self.skipped = "SIMCORE_COMPILE=0"
            return
        if not BUILDS.intersection(sys.argv[1:]):
            return
        try:
            from mypyc.build import mypycify
        except ImportError:
            self.skipped = "mypyc is not installed"
            return
        LOCK.parent.mkdir(exist_ok=True)
        self.lock = open(LOCK, "w")
        fcntl.flock(self.lock, fcntl.LOCK_EX)
        self.started = time.perf_counter()
        self.digests = native.source_digests(str(ENGINE))
        os.chdir(ROOT)  # mypyc names each module by its path from here
        try:
            paths = [f"simcore/engine/{m}.py" for m in native.MODULES]
            extensions = mypycify(paths, opt_level="3", group_name=native.GROUP)
        except (Exception, SystemExit) as exc:  # mypyc exits on a type error, after printing it
            self.skipped = f"mypyc failed: {type(exc).__name__} {exc}"
            return
        for ext in extensions:
            ext.optional = True  # no compiler: a warning, and the package stays pure Python
        self.extensions = extensions


PLAN = Plan()


class BuildEngine(build_ext):
    """``build_ext`` that records a whole build, and installs one in place file by file by rename."""

    def run(self) -> None:
        if self.inplace and self.extensions:  # processes started from now on run the sources
            (ENGINE / native.RECORD).unlink(missing_ok=True)
        super().run()
        if not self.inplace and self._built():
            target = Path(self.build_lib) / "simcore" / "engine"
            native.write_record(str(target), PLAN.digests, [Path(f).name for f, _ in self._built()])
        if self.inplace:
            self._say()

    def _built(self) -> list[tuple[str, str]]:
        """(built file, in-place file) for each extension, or nothing unless each was built from its
        C files as they are now (a failed compile leaves an older build's file in build/)."""
        pairs = []
        for ext in self.extensions:
            built = os.path.join(self.build_lib, self.get_ext_filename(ext.name))
            if not os.path.exists(built) or any(os.path.getmtime(c) > os.path.getmtime(built) for c in ext.sources):
                return []
            pairs.append((built, str(ROOT / self.get_ext_filename(ext.name))))
        return pairs

    def copy_extensions_to_source(self) -> None:
        built = self._built()
        for source, target in built:
            shutil.copyfile(source, target + ".tmp")  # a fresh file, dated now
            os.replace(target + ".tmp", target)
        if built:
            native.write_record(str(ENGINE), PLAN.digests, [Path(t).name for _, t in built])

    def _say(self) -> None:
        """One line: what the sources run as now (make prints it as the build's last line)."""
        if self._built():
            print(f"simcore: engine compiled with mypyc in {time.perf_counter() - PLAN.started:.0f} s")
            return
        why = PLAN.skipped or ("the C compile failed" if self.extensions else "nothing to build")
        fresh = native.build_state(str(ENGINE)) == "fresh"
        runs = "the earlier build in place still matches the sources" if fresh else "the pure-Python engine runs"
        print(f"simcore: engine not compiled ({why}); {runs}")


PLAN.make()
setup(ext_modules=PLAN.extensions, cmdclass={"build_ext": BuildEngine})
