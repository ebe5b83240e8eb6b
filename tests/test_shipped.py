"""The default scenario's shipped runs (dashboard/shipped/default_runs.npz, dashboard.runs.shipped):
the file is what a fresh simulation writes, its runs equal fresh ones, it is read only for the runs
it holds, and the default page shows the same numbers from it as from a fresh simulation."""

from __future__ import annotations

import io
import zipfile
from dataclasses import fields, replace

import pandas as pd
import pytest
from helpers.paths import APP
from helpers.waiting import HANG_SECONDS
from streamlit.testing.v1 import AppTest

from dashboard.runs import compute, data, shipped, warmup, worker
from dashboard.runs.compute import Run
from simcore.analysis.compare import Configured, run_policies

STALE = f"{shipped.FILE} is not what the engine writes now: regenerate it with `{shipped.REGENERATE}` and commit it"


@pytest.fixture(scope="module")
def default() -> tuple:
    """The default scenario's store keys and the arguments of compute.comparison."""
    found = data.default_scenario()
    assert found is not None, "the default sample is not in sample_workloads/"
    return warmup.work(*found)


def members(content: bytes) -> dict[str, bytes]:
    """The file's arrays by name, uncompressed (the compressor's own bytes may vary by zlib build)."""
    with zipfile.ZipFile(io.BytesIO(content)) as z:
        return {name: z.read(name) for name in z.namelist()}


def test_the_shipped_file_is_what_a_fresh_simulation_writes(default: tuple) -> None:
    keys, (table, cluster, configs, _extra) = default
    results = run_policies(table, cluster, [Configured(str(i), c) for i, c in enumerate(configs)])
    fresh = members(shipped.encode(keys, list(results.values())))
    held = members(shipped.FILE.read_bytes())
    assert list(held) == list(fresh), STALE
    for name in fresh:
        assert held[name] == fresh[name], f"{name}: {STALE}"
    assert len(fresh) == 1 + len(configs) * len(shipped.FIELDS)
    assert shipped.FILE.stat().st_size < 60_000  # small enough to ship


def assert_same_run(got: Run, expected: Run) -> None:
    for f in fields(Run):
        a, b = getattr(got, f.name), getattr(expected, f.name)
        if isinstance(a, pd.DataFrame):
            pd.testing.assert_frame_equal(a, b, check_exact=True, obj=f.name)
        elif isinstance(a, dict):  # repr: NaN equals NaN; the shipped run was not simulated here: no time
            assert repr(a) == repr(b | ({"wall_seconds": 0.0} if "wall_seconds" in b else {})), f.name
        else:
            assert a == b, f.name


def test_the_shipped_runs_equal_fresh_runs(default: tuple) -> None:
    keys, (table, cluster, configs, _extra) = default
    runs = shipped.load(keys, table, cluster, configs)
    assert runs is not None and len(runs) == len(configs) == 4
    for run, config in zip(runs, configs, strict=True):
        assert_same_run(run, compute.full_run(table, cluster, config))


def test_other_runs_are_not_read_from_the_file(default: tuple, monkeypatch: pytest.MonkeyPatch) -> None:
    keys, (table, cluster, configs, _extra) = default
    assert shipped.load(keys[:3], table, cluster, configs[:3]) is None  # three of the four runs
    other = (("run", "another workload", *keys[0][2:]), *keys[1:])
    assert shipped.load(other, table, cluster, configs) is None
    monkeypatch.setattr(shipped, "FILE", shipped.FILE.with_name("missing.npz"))
    assert shipped.load(keys, table, cluster, configs) is None


def test_encode_refuses_runs_it_could_not_rebuild(default: tuple) -> None:
    keys, (table, cluster, configs, _extra) = default
    result = run_policies(table, cluster, [Configured("k8s", configs[2])])["k8s"]
    with pytest.raises(ValueError, match="every job simulated"):
        shipped.encode(keys[:1], [replace(result, unschedulable=("x",))])


def page_numbers(at: AppTest) -> dict[str, object]:
    """What the default page shows: the trio cards, the percentile table, the captions."""
    assert not at.exception, [e.value for e in at.exception]
    return {
        "cards": [(m.label, m.value, m.delta) for m in at.metric],
        "table": at.dataframe[0].value.to_dict(),
        "captions": [c.value for c in at.caption],
    }


def test_the_default_page_shows_the_same_numbers_from_the_shipped_runs(
    fresh_store: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    with monkeypatch.context() as m:  # no shipped file: the warm-up simulates, in a worker process
        m.setattr(shipped, "FILE", shipped.FILE.with_name("missing.npz"))
        thread = data.warm_default()
        assert thread is not None
        thread.join(HANG_SECONDS)
        simulated = page_numbers(AppTest.from_file(APP, default_timeout=120).run())
    data.warm_default.clear()
    data._shared_store.clear()

    def no_computation(*_: object, **__: object) -> None:
        raise AssertionError("the shipped runs were not used")

    monkeypatch.setattr(worker, "run", no_computation)
    thread = data.warm_default()
    assert thread is not None
    thread.join(HANG_SECONDS)
    from_file = page_numbers(AppTest.from_file(APP, default_timeout=120).run())
    assert from_file == simulated
    assert len(from_file["cards"]) == 12  # type: ignore[arg-type]
