"""A run's jobs and events CSV written together (simcore/io/runcsv.py) are the very bytes of each
written apart from the run's own columns: the job ids and the instants they share are printed once,
and a job's instant that its row of the log does not hold is printed from its own value."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from helpers import POLICIES, clusters, configs, contended, workloads
from hypothesis import given
from hypothesis import strategies as st

from simcore.core.model import SimConfig
from simcore.core.result import SimResult
from simcore.engine import simulate
from simcore.io.csvsafe import Labels, csv_bytes
from simcore.io.runcsv import INSTANTS, run_columns, write_run_csvs
from simcore.workload.presets import generate


def assert_written_as_apart(result: SimResult) -> None:
    jobs, events = run_columns(result)
    assert csv_bytes(jobs) == csv_bytes(result.job_columns())
    assert csv_bytes(events) == csv_bytes(result.event_columns())


@pytest.mark.parametrize(
    ("preset", "policy", "knobs"),
    [
        ("mmc", "fifo", {}),  # fractional times
        ("paper", "fitgpp", {"checkpoint": "periodic", "checkpoint_interval": 700.5}),  # restarts, lost work
        ("paper-gang", "k8s", {}),  # a row per worker
        ("demo", "fitgpp", {"grace": 0}),
    ],
)
def test_the_files_written_together_are_those_written_apart(preset: str, policy: str, knobs: dict) -> None:
    wl = generate(preset, 0, {"jobs": 400})
    result = simulate(wl.table, wl.cluster, SimConfig(policy=policy, **knobs))
    assert_written_as_apart(result)
    jobs, events = run_columns(result)
    instants, rows = events["time"]
    assert isinstance(instants, Labels) and len(instants.cells) - 1 == len(np.unique(result.ev_time))
    for name in INSTANTS:  # each of a job's instants is one of the log's: no label of its own
        labels, codes = jobs[name]
        assert labels is instants and codes.max() < len(instants.cells) - 1
    assert jobs["job_id"][0] is events["job_id"][0]


@pytest.mark.parametrize("kind", ["plain", "contended"])
@given(data=st.data())
def test_random_runs(kind: str, data: st.DataObject) -> None:
    if kind == "contended":
        table, cluster = data.draw(contended())
    else:
        cluster = data.draw(clusters())
        table = data.draw(workloads(cluster))
    config = data.draw(configs(data.draw(st.sampled_from(POLICIES))))
    assert_written_as_apart(simulate(table, cluster, config))


def test_an_instant_the_log_does_not_hold_is_printed_from_its_own_value() -> None:
    # 0.1 + 0.2 is not 0.3: a job's first start moved off its start row's time, another's to -0.0
    # (equal to 0.0, not the same bits), a finish to NaN (an empty cell): each gets a label of its own
    wl = generate("demo", 1, {"jobs": 30})
    result = simulate(wl.table, wl.cluster, SimConfig(policy="k8s"))
    first_start, finish = result.first_start.copy(), result.finish.copy()
    first_start[3] += 0.1 + 0.2
    first_start[5] = -0.0 if first_start[5] == 0 else first_start[5] + 0.3
    finish[7] = np.nan
    changed = dataclasses.replace(result, first_start=first_start, finish=finish)
    assert_written_as_apart(changed)
    jobs, _ = run_columns(changed)
    instants = jobs["finish"][0]
    assert isinstance(instants, Labels)
    assert len(instants.cells) - 1 == len(np.unique(result.ev_time)) + 3
    assert instants.cells[int(jobs["finish"][1][7])].as_py() == ""


def test_write_run_csvs_writes_the_files_asked_for(tmp_path) -> None:
    wl = generate("mmc", 0, {"jobs": 50})
    result = simulate(wl.table, wl.cluster, SimConfig())
    jobs, events = tmp_path / "j.csv", tmp_path / "e.csv"
    write_run_csvs(result, None, events)
    assert not jobs.exists() and events.read_bytes() == csv_bytes(result.event_columns())
    write_run_csvs(result, jobs, None)
    assert jobs.read_bytes() == csv_bytes(result.job_columns())
