"""Which engine a process runs: the per-event modules compiled with mypyc, or their ``.py`` sources.

The build (``setup.py``, the build backend's hook: docs/testing.md#the-compiled-engine) compiles
:data:`MODULES` into one shared library (:data:`GROUP`) and a small extension beside each ``.py``
file, which Python's default finder would prefer, and then writes :data:`RECORD` last: the
SHA-256 of each source it compiled and the files it wrote. :func:`select` runs once per process,
from ``simcore/engine/__init__.py`` before any engine module is imported (so also for a direct
``import simcore.engine.loop``), and keeps every engine module on its ``.py`` file, through
:class:`SourceFinder` first on ``sys.meta_path``, unless the build is complete and was made from
the sources present:

- ``SIMCORE_PURE=1`` in the environment: the sources, the reference;
- no record (no build, a build under way or one that failed): the sources, silently;
- a record of other sources (an engine file edited since the build: a stale build): the sources,
  and one line on stderr. A digest, not a file time: a wheel's installer writes its files in
  any order, and a checkout of another branch changes times without changing the sources.

The decision is made once, so a build finishing while a process runs never mixes compiled and
source modules in it. This module is never compiled and imports only the standard library:
``setup.py`` loads it by its path, before the package's dependencies are installed.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from importlib.util import spec_from_file_location

#: the modules compiled: those that carry the work of every event, and the watch of every job, which
#: reads the run after every pass (issue 31: all the waits within 3x the plain run)
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
    "watch",
)
#: the shared library mypyc builds for them, inside the package (``simcore/engine/native__mypyc...``):
#: at the root it would import only where the root is on ``sys.path``, never from another directory
GROUP = "simcore.engine.native"
#: what a finished build leaves beside the sources, written last (:func:`write_record`)
RECORD = "native-build.json"
PURE_ENV = "SIMCORE_PURE"
ENGINE = os.path.dirname(os.path.abspath(__file__))
_PREFIX = "simcore.engine."
_decided = False


def source_digests(engine: str = ENGINE) -> dict[str, str]:
    """The SHA-256 of each compiled module's source (a missing source: an empty string)."""
    digests = {}
    for m in MODULES:
        try:
            with open(os.path.join(engine, m + ".py"), "rb") as f:
                digests[m] = hashlib.sha256(f.read()).hexdigest()
        except FileNotFoundError:
            digests[m] = ""
    return digests


def write_record(engine: str, digests: dict[str, str], files: list[str]) -> None:
    """Record a finished build: the digests of the sources it compiled (taken before the compile)
    and the file names it wrote into ``engine``; written whole or not at all (a rename)."""
    path = os.path.join(engine, RECORD)
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        json.dump({"sources": digests, "files": sorted(files)}, f, indent=1, sort_keys=True)
    os.replace(path + ".tmp", path)


def build_state(engine: str = ENGINE) -> str:
    """``"fresh"`` (a whole build of these sources), ``"stale"`` (a build of other sources) or
    ``"none"`` (no record, an unreadable one, or a file it names gone)."""
    try:
        with open(os.path.join(engine, RECORD), encoding="utf-8") as f:
            record = json.load(f)
        digests, files = record["sources"], record["files"]
    except (OSError, ValueError, KeyError, TypeError):
        return "none"
    if not isinstance(files, list) or not all(os.path.isfile(os.path.join(engine, str(n))) for n in files):
        return "none"
    return "fresh" if digests == source_digests(engine) else "stale"


class SourceFinder:
    """Finds an engine module's ``.py`` file before the default finder, which prefers an extension."""

    @staticmethod
    def find_spec(name: str, path: Sequence[str] | None = None, target: object = None) -> ModuleSpec | None:
        if not name.startswith(_PREFIX) or not path:
            return None
        for entry in path:
            source = os.path.join(entry, name.rpartition(".")[2] + ".py")
            if os.path.isfile(source):
                return spec_from_file_location(name, source)
        return None


def select() -> None:
    """Keep this process's engine modules on their sources unless a fresh build is there (see the
    module text); the first call decides, later ones change nothing."""
    global _decided
    if _decided:
        return
    _decided = True
    if os.environ.get(PURE_ENV) != "1":
        state = build_state()
        if state == "fresh":
            return
        if state == "stale":
            print(
                "simcore: the compiled engine was built from other sources than these; running pure Python"
                " (rebuild: make install)",
                file=sys.stderr,
            )
    sys.meta_path.insert(0, SourceFinder())


def compiled() -> bool:
    """Does this process run the engine compiled with mypyc (not its ``.py`` sources)?"""
    from simcore.engine import loop

    return not (loop.__file__ or "").endswith(".py")
