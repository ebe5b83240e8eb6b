"""A run's jobs and events CSV written together (simcore/io/runcsv.py) are the very bytes of each
written apart from the run's own columns: the job ids and the instants they share are printed once,
and a job's instant that its row of the log does not hold is printed from its own value."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from helpers import POLICIES, clusters, configs, contended, job, workloads
from hypothesis import given
from hypothesis import strategies as st

from simcore.core.downtime import NodeEvents
from simcore.core.model import ClusterSpec, JobTable, Node, Resources, SimConfig
from simcore.core.result import SimResult
from simcore.engine import simulate
from simcore.io.csvsafe import Labels, csv_bytes, text_cell
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


def _cell(labels_or_value, code=None) -> str:
    """One cell by the written rule, independent of the vectorised writer: repr for a float (NaN
    empty), str for an integer, True/False, text by csvsafe.text_cell; a code picks its label (-1: empty)."""
    value = labels_or_value if code is None else ("" if code < 0 else labels_or_value[code])
    if isinstance(value, (float, np.floating)):
        return "" if np.isnan(value) else repr(float(value))
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    return text_cell(str(value))


def reference_csv(columns: dict) -> bytes:
    """The CSV of `columns` row by row and cell by cell (no Arrow, no shared labels)."""
    first = next(iter(columns.values()))
    n = len(first[1] if isinstance(first, tuple) else first)
    lines = [",".join(text_cell(k) for k in columns)]
    for i in range(n):
        lines.append(
            ",".join(_cell(c[0], int(c[1][i])) if isinstance(c, tuple) else _cell(c[i]) for c in columns.values())
        )
    return "".join(line + "\n" for line in lines).encode()


def test_a_hand_made_run_with_formula_ids_node_rows_and_fractional_times(tmp_path) -> None:
    # ids and a node name a spreadsheet would read as formulas, or that hold a quote or a comma;
    # times that are not whole (0.1, a third, 1e-05 printed by repr); a failure window, whose node
    # rows have no job (code -1); a job never started (its instants NaN: empty cells)
    ids = ["=cmd|' /C calc'!A0", "+1", "-x", "@sum", 'q"t,a', "plain7", "-5"]
    submits = [0.1, 1 / 3, 1e-05, 2.5, 2.5, 7.125, 1e21]
    jobs = [
        job(i, s, d, 1, te=(k % 3 == 0))
        for k, (i, s, d) in enumerate(zip(ids, submits, [3.3, 1.7, 9, 0.01, 5, 2, 1], strict=True))
    ]
    cluster = ClusterSpec((Node("=n0;x", Resources(1.0, 1.0, 1.0)), Node("n1", Resources(1.0, 1.0, 1.0))))
    cluster = cluster.with_node_events(NodeEvents.of([("n1", 1.05, 4.75, "failure")]))
    result = simulate(JobTable.from_jobs(jobs), cluster, SimConfig(policy="fitgpp"))
    finish, first_start = result.finish.copy(), result.first_start.copy()
    finish[-1] = first_start[-1] = np.nan  # as if the last job never ran
    result = dataclasses.replace(result, finish=finish, first_start=first_start)
    assert (result.ev_job == -1).any() and (result.ev_time != np.round(result.ev_time)).any()
    jobs_csv, events_csv = tmp_path / "jobs.csv", tmp_path / "events.csv"
    write_run_csvs(result, jobs_csv, events_csv)
    assert jobs_csv.read_bytes() == reference_csv(result.job_columns())
    assert events_csv.read_bytes() == reference_csv(result.event_columns())
    lines = events_csv.read_text().splitlines()
    assert "0.1,'=cmd|' /C calc'!A0,submit," in lines and "1.05,,node_down,n1" in lines
    assert "1e+21,-5,submit," in lines  # a plain decimal number is no formula
    assert jobs_csv.read_text().splitlines()[7].startswith("-5,TE,1e+21,1.0,,,,,,0,")
