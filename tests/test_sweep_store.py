"""The sweep's store (simcore.experiments.sweep.store) on hand-made part files, and a resume that trusts them."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from simcore.core.errors import UserError
from simcore.experiments import sweep
from simcore.experiments.sweep import store

PID = "0123456789ab"
REQUIRED = ("TE_slowdown_p95",)


def rows(pid: str = PID, seed: int = 0, policies=("fifo", "priority"), value: float = 1.0) -> pd.DataFrame:
    return pd.DataFrame(
        {"point_id": pid, "seed": seed, "policy": list(policies), "TE_slowdown_p95": [value] * len(policies)}
    )


def write_part(out, df: pd.DataFrame, name: str | None = None):
    parts = store.parts_dir(out)
    parts.mkdir(exist_ok=True)
    path = parts / (name or f"{df['point_id'].iloc[0]}-{df['seed'].iloc[0]}.parquet")
    df.to_parquet(path, index=False)
    return path


def test_good_parts_and_the_merged_file_are_read_the_last_stored_winning(tmp_path):
    out = tmp_path / "rows.parquet"
    rows(value=1.0).to_parquet(out, index=False)
    write_part(out, rows(value=2.0, policies=("fifo",)))  # a newer row of the same id
    write_part(out, rows(seed=1, value=3.0))
    got, notes = store.load_store(out, REQUIRED)
    assert notes == []
    by_id = got.set_index(["seed", "policy"])["TE_slowdown_p95"].to_dict()
    assert by_id == {(0, "fifo"): 2.0, (0, "priority"): 1.0, (1, "fifo"): 3.0, (1, "priority"): 3.0}


@pytest.mark.parametrize(
    ("make", "why"),
    [
        (lambda: rows().drop(columns="TE_slowdown_p95"), "has the wrong columns (missing TE_slowdown_p95)"),
        (lambda: rows().iloc[:0], "has no rows"),
        (lambda: rows().assign(policy=["fifo", None]), "has rows without point_id, seed or policy"),
        (lambda: rows().assign(seed=[0.0, 0.5]), "has a seed column of type float64 (whole numbers expected)"),
        (lambda: rows(seed=7), "begins with rows of another task than its name says"),
    ],
)
def test_a_bad_part_is_set_aside_with_the_reason(tmp_path, make, why):
    out = tmp_path / "rows.parquet"
    good = write_part(out, rows(seed=1))
    bad = write_part(out, make(), name=f"{PID}-0.parquet")
    got, notes = store.load_store(out, REQUIRED)
    assert notes == [f"part file {bad} {why}: set aside as {bad.name}.bad; its task will run again"]
    assert set(got["seed"]) == {1} and good.exists()
    assert not bad.exists() and bad.with_name(bad.name + ".bad").exists()
    # merging removes the good parts and keeps the folder for the set-aside one
    store.remove_merged(out)
    assert [p.name for p in store.parts_dir(out).iterdir()] == [bad.name + ".bad"]


def test_a_part_of_several_tasks_is_named_after_its_first(tmp_path):
    out = tmp_path / "rows.parquet"
    write_part(out, pd.concat([rows(seed=0), rows(seed=1)], ignore_index=True))  # one unit's tasks
    late = write_part(out, pd.concat([rows(seed=2), rows(seed=3)], ignore_index=True), name=f"{PID}-3.parquet")
    got, notes = store.load_store(out, REQUIRED)
    assert notes == [
        f"part file {late} begins with rows of another task than its name says: set aside as {late.name}.bad; "
        "its task will run again"
    ]
    assert list(zip(got["seed"], got["policy"], strict=True)) == [
        (0, "fifo"),
        (0, "priority"),
        (1, "fifo"),
        (1, "priority"),
    ]


def test_a_part_with_another_name_is_set_aside(tmp_path):
    out = tmp_path / "rows.parquet"
    path = write_part(out, rows(), name="copy of part.parquet")
    _, notes = store.load_store(out, REQUIRED)
    assert notes == [
        f"part file {path} is not named <point_id>-<seed>.parquet: set aside as {path.name}.bad; "
        "its task will run again"
    ]


def test_a_damaged_merged_file_is_refused_not_set_aside(tmp_path):
    out = tmp_path / "rows.parquet"
    pd.DataFrame({"x": [1]}).to_parquet(out)
    with pytest.raises(UserError, match=r"has the wrong columns \(missing point_id, seed, policy\), so the sweep"):
        store.load_store(out)
    assert out.exists()


def test_mixed_parameter_columns_are_stored_as_text(tmp_path):
    path = tmp_path / "t.parquet"
    store.write_atomic(pd.DataFrame({"max_duration": [3600, "1d", None], "load": [1.0, math.nan, 2.0]}), path)
    back = pd.read_parquet(path)
    assert list(back["max_duration"][:2]) == ["3600", "1d"] and pd.isna(back["max_duration"][2])
    assert back["load"].dtype == float
    assert [p.name for p in tmp_path.iterdir()] == ["t.parquet"]  # no temporary file left


def test_resume_trusts_hand_made_parts_and_runs_only_the_rest(tmp_path):
    spec = sweep.build_spec(
        preset="demo", fixed={"jobs": 30, "nodes": 2}, seeds=2, policies="fifo,priority", baseline="fifo"
    )
    first, second = spec.tasks()
    out = tmp_path / "rows.parquet"
    real = sweep.run_task(first)
    # a part with the first task's rows, one value changed by hand: a resume must keep it, not recompute it
    made = pd.DataFrame(real)
    made.loc[made["policy"] == "priority", "TE_slowdown_p95"] = 12345.0
    write_part(out, made)
    ran = []
    report = sweep.run_sweep(spec, out, on_task=ran.append)
    assert (report.skipped_tasks, report.ran_tasks) == (1, 1) and [t.key for t in ran] == [second.key]
    stored = pd.read_parquet(out)
    assert list(zip(stored["seed"], stored["policy"], strict=True)) == [
        (0, "fifo"),
        (0, "priority"),
        (1, "fifo"),
        (1, "priority"),
    ]
    assert stored.loc[1, "TE_slowdown_p95"] == 12345.0
    assert not store.parts_dir(out).exists()
    # a part missing one of the spec's policies does not count as done
    out2 = tmp_path / "rows2.parquet"
    write_part(out2, made[made["policy"] == "fifo"])
    assert sweep.run_sweep(spec, out2).ran_tasks == 2
