"""Several sweeps run as one (simcore.experiments.sweep.run_sweeps, what ``simcore reproduce`` uses): a run two
sweeps ask for is simulated once and its rows are equal, configurations that differ by any one
knob are never merged, and every file is byte-identical to the sweep run alone, for any worker count."""

from __future__ import annotations

import pandas as pd
import pytest

from simcore import engine
from simcore.experiments import sweep
from simcore.experiments.sweep import KNOB_NAMES
from simcore.workload import presets

SIZE = {"jobs": 40, "nodes": 2}
#: a value other than the default for every knob a grid may vary
OTHER = {
    "grace": 0,
    "checkpoint": "none",
    "checkpoint_interval": 600,
    "restore": 0,
    "backfill": "none",
    "placement": "first_fit",
    "P": 1,
    "s": 2,
    "reentry": 600,
    "tau": 60,
    "min_runtime": 300,
    "save_time": 10,
    "save_failure": 0.5,
    "preempt_budget": 3,
    "checkpoint_cost": 60,
    "mtbf": 100_000,
    "repair": 600,
}


def two_sweeps() -> list[sweep.SweepSpec]:
    """A asks for fifo and k8s at the default point; B for the same two there (grace=30 is the
    default, so the same point) and at grace=0, plus fitgpp."""
    a = sweep.build_spec(preset="demo", fixed=SIZE, seeds="0-1", policies="fifo,k8s", baseline="fifo")
    b = sweep.build_spec(
        preset="demo", fixed=SIZE, grids={"grace": [30, 0]}, seeds="0-1", policies="k8s,fitgpp,fifo", baseline="fifo"
    )
    return [a, b]


@pytest.fixture
def counted(monkeypatch):
    """Count simulations and generated workloads (in this process: workers=1)."""
    calls = {"simulate": 0, "generate": 0}
    simulate, generate = engine.simulate, presets.generate

    def count_simulate(*args, **kw):
        calls["simulate"] += 1
        return simulate(*args, **kw)

    def count_generate(*args, **kw):
        calls["generate"] += 1
        return generate(*args, **kw)

    monkeypatch.setattr(engine, "simulate", count_simulate)
    monkeypatch.setattr(presets, "generate", count_generate)
    return calls


def test_a_run_two_sweeps_ask_for_is_simulated_once_and_its_rows_are_equal(tmp_path, counted):
    a, b = two_sweeps()
    ra, rb = sweep.run_sweeps([(a, tmp_path / "a.parquet"), (b, tmp_path / "b.parquet")], workers=1)
    # A: 2 seeds x 2 policies; B: 2 points x 2 seeds x 3 policies; fifo and k8s at the default point shared
    assert counted["simulate"] == 2 * 2 + 2 * 2 * 3 - 2 * 2
    assert counted["generate"] == 2  # one workload per seed: grace is a knob, not a workload parameter
    shared = rb.rows[rb.rows["grace"] == 30].set_index(["point_id", "seed", "policy"])
    mine = ra.rows.set_index(["point_id", "seed", "policy"])
    assert len(mine) == 4
    assert shared.loc[mine.index, mine.columns].equals(mine)  # every cell, NaN where NaN


def test_each_sweep_file_is_byte_identical_to_the_sweep_run_alone_for_any_worker_count(tmp_path):
    specs = two_sweeps()
    for i, spec in enumerate(specs):
        sweep.run_sweep(spec, tmp_path / f"alone-{i}.parquet", workers=1)
    for workers in (1, 2):
        outs = [tmp_path / f"together{workers}-{i}.parquet" for i in range(len(specs))]
        sweep.run_sweeps(list(zip(specs, outs, strict=True)), workers=workers)
        for i, out in enumerate(outs):
            assert out.read_bytes() == (tmp_path / f"alone-{i}.parquet").read_bytes(), (workers, i)
            assert not sweep.parts_dir(out).exists()


@pytest.mark.parametrize("knob", sorted(OTHER))
def test_configurations_that_differ_by_one_knob_are_never_merged(tmp_path, counted, knob):
    base = sweep.build_spec(preset="demo", fixed=SIZE, seeds=[3], policies="k8s", baseline="k8s")
    other = sweep.build_spec(
        preset="demo", fixed={**SIZE, knob: OTHER[knob]}, seeds=[3], policies="k8s", baseline="k8s"
    )
    assert base.points != other.points  # the value is not the default
    sweep.run_sweeps([(base, tmp_path / "a.parquet"), (other, tmp_path / "b.parquet")], workers=1)
    assert counted["simulate"] == 2 and counted["generate"] == 1


def test_every_knob_has_another_value_here():
    assert sorted(OTHER) == sorted(KNOB_NAMES)


def test_workloads_that_differ_by_one_parameter_or_the_seed_are_built_apart(tmp_path, counted):
    base = sweep.build_spec(preset="demo", fixed=SIZE, seeds=[0], policies="fifo", baseline="fifo")
    load = sweep.build_spec(preset="demo", fixed={**SIZE, "load": 0.5}, seeds=[0], policies="fifo", baseline="fifo")
    seed = sweep.build_spec(preset="demo", fixed=SIZE, seeds=[1], policies="fifo", baseline="fifo")
    sweep.run_sweeps([(s, tmp_path / f"{i}.parquet") for i, s in enumerate([base, load, seed])], workers=1)
    assert counted["generate"] == 3 and counted["simulate"] == 3


def test_resume_runs_only_what_a_sweep_lacks(tmp_path, counted):
    a, b = two_sweeps()
    outs = [tmp_path / "a.parquet", tmp_path / "b.parquet"]
    sweep.run_sweep(a, outs[0], workers=1)
    first = outs[0].read_bytes()
    counted["simulate"] = 0
    stored, ran = [], []
    ra, rb = sweep.run_sweeps(
        list(zip([a, b], outs, strict=True)),
        workers=1,
        on_stored=lambda i, n: stored.append((i, n)),
        on_task=lambda i, t: ran.append(i),
    )
    assert (ra.ran_tasks, ra.skipped_tasks, rb.ran_tasks) == (0, 2, 4)
    assert stored == [(0, 2), (1, 0)] and ran == [1, 1, 1, 1]  # what the study's progress is told
    assert counted["simulate"] == 2 * 2 * 3  # B's runs all, A's rows stored already
    assert outs[0].read_bytes() == first
    assert pd.read_parquet(outs[1]).equals(rb.rows)


def test_tasks_of_two_workloads_cannot_run_as_one():
    a = sweep.build_spec(preset="demo", fixed=SIZE, seeds="0-1", policies="fifo", baseline="fifo")
    with pytest.raises(ValueError, match="one workload"):
        sweep.run_tasks(a.tasks())


def test_units_are_submitted_longest_first(tmp_path, monkeypatch):
    from simcore.experiments.sweep import runner

    seen: list[int] = []
    real = runner.execute_units

    def record(fn, units, workers, dask):
        seen.extend(len(u) for u in units)
        return real(fn, units, workers, dask)

    monkeypatch.setattr(runner, "execute_units", record)
    small = sweep.build_spec(preset="demo", fixed={**SIZE, "load": 0.5}, seeds=[0], policies="fifo", baseline="fifo")
    big = sweep.build_spec(preset="demo", fixed=SIZE, seeds=[0], policies="fifo,k8s,fitgpp", baseline="fifo")
    grace = sweep.build_spec(preset="demo", fixed={**SIZE, "grace": 0}, seeds=[0], policies="fifo", baseline="fifo")
    sweep.run_sweeps([(small, tmp_path / "s.parquet"), (big, tmp_path / "b.parquet"), (grace, tmp_path / "g.parquet")])
    assert seen == [2, 1]  # the default-load workload (4 distinct runs) before the load=0.5 one (1)


class Interrupted(Exception):
    pass


def test_a_study_interrupted_after_a_unit_resumes_to_the_same_bytes(tmp_path):
    specs = two_sweeps()
    fresh = [tmp_path / f"fresh-{i}.parquet" for i in range(len(specs))]
    sweep.run_sweeps(list(zip(specs, fresh, strict=True)), workers=1)
    outs = [tmp_path / f"resumed-{i}.parquet" for i in range(len(specs))]
    sweeps = list(zip(specs, outs, strict=True))

    def stop(i, task):
        raise Interrupted  # the first unit (seed 0 of both sweeps) is stored by now

    with pytest.raises(Interrupted):
        sweep.run_sweeps(sweeps, workers=1, on_task=stop)
    # one part per sweep for the unit, named after its first task there, holding all its tasks' rows
    for spec, out in sweeps:
        (part,) = sweep.parts_dir(out).iterdir()
        unit = [t for t in spec.tasks() if t.seed == 0]
        assert part.name == f"{unit[0].point_id}-0.parquet"
        rows = pd.read_parquet(part)
        ids = list(zip(rows["point_id"], rows["seed"], rows["policy"], strict=True))
        assert ids == [(t.point_id, 0, p.label) for t in unit for p in spec.policies]
    ran: list[tuple[int, int]] = []
    reports = sweep.run_sweeps(sweeps, workers=1, on_task=lambda i, t: ran.append((i, t.seed)))
    assert sorted(ran) == [(0, 1), (1, 1), (1, 1)] and [r.skipped_tasks for r in reports] == [1, 2]
    for i, out in enumerate(outs):
        assert out.read_bytes() == fresh[i].read_bytes(), i
        assert not sweep.parts_dir(out).exists()
