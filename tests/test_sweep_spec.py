"""The sweep's plan (simcore.experiments.sweep.spec) alone: grid files, values, points and their ids, without running a task."""

from __future__ import annotations

import pytest

from simcore.core.errors import UserError
from simcore.core.model import MAX_SEED
from simcore.experiments.sweep import spec as sp

DEMO = {"jobs": 60, "nodes": 2}


def build(**kw):
    return sp.build_spec(**{"preset": "demo", "fixed": DEMO, "seeds": 1, "policies": "fifo", "baseline": "fifo", **kw})


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"preset": "demo", "sed": 3}, "unknown key(s) sed (known: preset, alibaba, set, grid"),
        ({"set": ["jobs=10"]}, "'set' must be a mapping KEY: VALUE"),
        ({"grid": "load=1"}, "'grid' must be a mapping KEY: [values] or a list of such mappings"),
        ({"grid": [{"load": [1]}, 3]}, "'grid' must be a mapping"),
        (["preset", "demo"], "expected a mapping with keys preset, alibaba"),
    ],
)
def test_grid_file_mapping_errors_name_the_key_and_the_file(data, message):
    with pytest.raises(UserError) as err:
        sp.spec_from_mapping(data, "grid file g.yaml")
    assert str(err.value).startswith("grid file g.yaml: ") and message in str(err.value)


def test_grid_file_mapping_to_build_spec_arguments():
    kw = sp.spec_from_mapping(
        {
            "preset": "demo",
            "set": {"jobs": 60},
            "grid": {"load": [1]},
            "seeds": 2,
            "policies": ["fifo"],
            "baseline": "fifo",
        }
    )
    assert kw == {
        "preset": "demo",
        "seeds": 2,
        "policies": ["fifo"],
        "baseline": "fifo",
        "fixed": {"jobs": 60},
        "grids": [{"load": [1]}],
    }


@pytest.mark.parametrize(
    ("kw", "message"),
    [
        ({"grids": {"load": 0.8}}, "grid load: expected a non-empty list of values, got 0.8"),
        ({"grids": {"grace": [5, True]}}, "value True: booleans are not grid values"),
        ({"grids": {"policy": ["fifo"]}}, "'policy' cannot be a grid or set key"),
        ({"fixed": {"seed": 3}}, "'seed' cannot be a grid or set key"),
        ({"seeds": MAX_SEED + 1}, f"{MAX_SEED + 1} seeds, more than the limit"),
        ({"seeds": f"{MAX_SEED}-{MAX_SEED + 1}"}, f"{MAX_SEED + 1} is above the largest seed"),
        ({"seeds": "1,1"}, "seeds must be distinct"),
        ({"baseline": "priority"}, "baseline 'priority' is not among the policies (fifo)"),
    ],
)
def test_plan_errors_name_what_is_wrong(kw, message):
    with pytest.raises(UserError) as err:
        build(**kw)
    assert message in str(err.value)


def test_too_many_tasks_is_refused_before_expanding():
    axes = {k: list(range(1, 101)) for k in ("jobs", "grace", "restore")}  # 10^6 points, never built
    with pytest.raises(UserError, match=r"up to 1000000 points x 1 seeds = 1000000 tasks, above the limit of 100000"):
        build(grids=axes)


def test_equal_values_are_one_point_with_one_id():
    # load=1 and load=1.0 are one value; grace=30 is the default, so the same point as no grace at all
    spec = build(grids=[{"load": [1, "1.0"]}, {"grace": [30]}, {"load": ["0.5"]}])
    assert spec.points == (tuple(sorted(DEMO.items())), (*sorted(DEMO.items())[:1], ("load", 0.5), ("nodes", 2)))
    ids = [sp.point_id(spec.source, p) for p in spec.points]
    assert len(set(ids)) == 2 and all(len(i) == 12 for i in ids)
    # the id hashes the source too: the same point on another preset is another task
    assert sp.point_id(sp.Source("preset", "paper"), spec.points[0]) != ids[0]


def test_tasks_are_points_by_seeds_in_spec_order():
    spec = build(grids={"load": [0.5, 1]}, seeds="3-4", policies="fifo,priority")
    tasks = spec.tasks()
    assert [(t.order, t.seed) for t in tasks] == [((0, 0), 3), ((0, 1), 4), ((1, 0), 3), ((1, 1), 4)]
    assert [t.key for t in tasks] == [(sp.point_id(spec.source, p), s) for p in spec.points for s in (3, 4)]
    assert spec.n_simulations == 2 * 2 * 2


def test_split_params_separates_knobs_from_workload_parameters():
    assert sp.split_params({"grace": 0, "load": 1, "P": 3, "jobs": 5}) == ({"grace": 0, "P": 3}, {"load": 1, "jobs": 5})


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"window_days": "two"}, "alibaba source: window_days: 'two' is not a number"),
        ({"window_start": "yesterday"}, "alibaba source: window_start: 'yesterday' is not a time"),
        ({"include_running": "maybe"}, "alibaba source: include_running: 'maybe' is not 0 or 1"),
        ({"nodes": 0}, "alibaba source: nodes 0 must be at least 1"),
        ({"jobs": 10}, "alibaba source: unknown parameter(s) jobs"),
    ],
)
def test_alibaba_source_parameter_errors_name_the_parameter(params, message):
    # checked before the trace directory is looked at
    with pytest.raises(UserError) as err:
        sp.build_spec(alibaba="/nonexistent/trace", fixed=params, seeds=1, policies="fifo", baseline="fifo")
    assert message in str(err.value)
