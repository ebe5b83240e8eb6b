"""The default Explore scenario's runs, shipped with the dashboard: the simulation records of its
four runs in ``dashboard/shipped/default_runs.npz``, read instead of simulating when the scenario is
exactly the one they were recorded for (:mod:`dashboard.runs.warmup`).

The file is a zip of ``.npy`` arrays (``numpy.load(..., allow_pickle=False)`` reads it; no
pickle): ``keys`` (the runs' store keys as JSON: workload content hash, cluster hash, config) and,
per run ``i``, the arrays of :class:`simcore.core.result.SimResult` as ``i/<field>.npy``. The frames the
pages read are derived from these records by the code that derives a fresh run's
(:func:`dashboard.runs.compute.run_of`), so a shipped run equals a fresh one; only its
``wall_seconds`` is 0 (it was not simulated here). When the engine's output changes,
``tests/test_shipped.py`` fails and the file is regenerated with :data:`REGENERATE`.
"""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Hashable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from dashboard.runs.compute import Run, run_of
from simcore.core.model import ClusterSpec, JobTable, SimConfig
from simcore.core.result import SimResult

FILE = Path(__file__).resolve().parent.parent / "shipped" / "default_runs.npz"
REGENERATE = "python -m dashboard.runs.ship"
#: the records of a run that the shipped file holds (the rest is the scenario's: jobs, cluster, config)
FIELDS = (
    "first_start",
    "finish",
    "preemptions",
    "lost_work",
    "node",
    "ev_time",
    "ev_job",
    "ev_code",
    "ev_node",
    "signal_lost",
    "nominations",
)
_DATE = (1980, 1, 1, 0, 0, 0)  # a fixed member date: the same runs give the same bytes


def keys_text(keys: Sequence[Hashable]) -> str:
    """The runs' store keys (tuples of text, :func:`dashboard.runs.runkeys.run_key`) as JSON."""
    return json.dumps([list(k) for k in keys])  # type: ignore[call-overload]


def encode(keys: Sequence[Hashable], results: Sequence[SimResult]) -> bytes:
    """The shipped file's bytes for the runs ``results`` stored under ``keys``."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        _member(z, "keys", np.array(keys_text(keys)))
        for i, result in enumerate(results):
            if result.unschedulable or result.decisions:  # the loader rebuilds neither
                raise ValueError("shipped runs must have every job simulated and no decision records")
            for name in FIELDS:
                _member(z, f"{i}/{name}", getattr(result, name))
    return out.getvalue()


def _member(z: zipfile.ZipFile, name: str, array: np.ndarray) -> None:
    buffer = io.BytesIO()
    np.lib.format.write_array(buffer, np.asarray(array), allow_pickle=False)
    info = zipfile.ZipInfo(f"{name}.npy", date_time=_DATE)
    info.compress_type = zipfile.ZIP_DEFLATED
    z.writestr(info, buffer.getvalue())


def read(keys: Sequence[Hashable]) -> dict[str, Any] | None:
    """The shipped file's arrays by member name when it holds the runs of ``keys``, or None when the
    file is missing or holds other runs (the default scenario changed: see :data:`REGENERATE`)."""
    if not FILE.is_file():
        return None
    with np.load(FILE, allow_pickle=False) as npz:
        if str(npz["keys"]) != keys_text(keys):
            return None
        return {name: npz[name] for name in npz.files}


def runs(arrays: dict[str, Any], table: JobTable, cluster: ClusterSpec, configs: Sequence[SimConfig]) -> list[Run]:
    """The runs of ``configs`` on ``table`` and ``cluster`` from the arrays :func:`read` returned."""
    results = [
        SimResult(
            config=config,
            cluster=cluster,
            jobs=table,
            unschedulable=(),
            wall_seconds=0.0,
            **{name: arrays[f"{i}/{name}"] for name in FIELDS},
        )
        for i, config in enumerate(configs)
    ]
    return [run_of(r) for r in results]


def load(
    keys: Sequence[Hashable], table: JobTable, cluster: ClusterSpec, configs: Sequence[SimConfig]
) -> list[Run] | None:
    """The shipped runs of ``keys`` (``configs`` on ``table`` and ``cluster``), or None when the
    file is missing or holds other runs."""
    arrays = read(keys)
    return None if arrays is None else runs(arrays, table, cluster, configs)
