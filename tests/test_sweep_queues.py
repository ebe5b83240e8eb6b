"""The summary of a sweep whose rows carry metric columns beyond the flat record's (queues, gangs, down
time): it groups by the grid's axes only, and with queues prints a per-queue table (issue 34)."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest

from simcore.analysis.metrics import QUEUE_FLAT, queue_column
from simcore.cli import main as cli_main
from simcore.cli.sweep_tables import QUEUE_NOTE, QUEUE_SHOWN, format_queue_summary, format_summary
from simcore.core import fmt
from simcore.experiments import sweep
from simcore.experiments.sweep.summary import queue_names
from simcore.workload.presets import PRESETS, resolve_params

LESSONS = Path(__file__).resolve().parent.parent / "sample_workloads" / "lessons"
POINTS = ("0,0", "8,8")
POLICIES = ("fifo", "fitgpp")
QUEUES = ("a", "b_x")  # a name with an underscore, as queue_<name>_<field> has them too
#: t(0.975, 2) / sqrt(3): the half-width of the 95% CI of three values whose sd is 1
HALF = 4.302653 / math.sqrt(3)


def k(point: int, policy: int, queue: int) -> int:
    """The hand table's scale of a (point, policy, queue): seeds 0, 1, 2 hold 1k, 2k, 3k (mean 2k, sd k)."""
    return 1 + point + 10 * policy + 100 * queue


def hand_rows() -> pd.DataFrame:
    """Two points (a borrow limit per queue), two policies, three seeds, two queues: every metric the seed's
    multiple of :func:`k` (GPU-seconds lost in hours of it), and a parameter (jobs) the same everywhere."""
    rows = []
    for i, limit in enumerate(POINTS):
        for seed in range(3):
            for j, policy in enumerate(POLICIES):
                row = {"point_id": f"p{i}", "seed": seed, "policy": policy, "borrow_limit": limit, "jobs": 300}
                row["TE_slowdown_p95"] = float(seed + 1 + i)
                for q, name in enumerate(QUEUES):
                    for field in QUEUE_FLAT:
                        unit = 3600.0 if field == "gpu_seconds_lost_to_reclaims" else 1.0
                        row[queue_column(name, field)] = (seed + 1) * k(i, j, q) * unit
                rows.append(row)
    return pd.DataFrame(rows)


def test_queue_names_are_read_back_from_the_columns():
    rows = hand_rows()
    assert queue_names(list(rows.columns)) == list(QUEUES)
    # a queue missing one of its fields is not a queue's set of columns
    assert queue_names([queue_column("c", f) for f in list(QUEUE_FLAT)[:-1]]) == []


def test_the_summary_groups_by_the_axes_not_by_the_queue_columns():
    agg = sweep.aggregate(hand_rows())
    assert list(agg.columns) == ["borrow_limit", "policy", "metric", "n", "mean", "sd", "ci_low", "ci_high"]
    assert agg[["borrow_limit", "policy"]].drop_duplicates().values.tolist() == [
        ["0,0", "fifo"],
        ["0,0", "fitgpp"],
        ["8,8", "fifo"],
        ["8,8", "fitgpp"],
    ]
    assert (agg["n"] == 3).all()
    # 8,8 fitgpp, queue b_x: k = 1 + 1 + 10 + 100 = 112; values 112, 224, 336
    rec = agg.set_index(["borrow_limit", "policy", "metric"]).loc[("8,8", "fitgpp", "queue_b_x_BE_slowdown_p50")]
    assert rec["mean"] == pytest.approx(224) and rec["sd"] == pytest.approx(112)
    assert rec["ci_low"] == pytest.approx(224 - 112 * HALF) and rec["ci_high"] == pytest.approx(224 + 112 * HALF)
    # and so is every queue field of every group: mean 2k, sd k
    for (i, limit), (j, policy), (q, name) in (
        (p, c, n) for p in enumerate(POINTS) for c in enumerate(POLICIES) for n in enumerate(QUEUES)
    ):
        got = agg[
            (agg.borrow_limit == limit) & (agg.policy == policy) & (agg.metric == queue_column(name, "reclaimed"))
        ]
        assert got[["mean", "sd"]].values.tolist() == [[pytest.approx(2 * k(i, j, q)), pytest.approx(k(i, j, q))]]


def test_the_policy_table_has_one_row_per_point_and_policy():
    lines = format_summary(sweep.aggregate(hand_rows()), "fifo").splitlines()
    assert lines[1].split()[:3] == ["borrow_limit", "policy", "seeds"]
    # TE p95 of point 0: 1, 2, 3 -> 2 ± 2.5; of point 1: 2, 3, 4 -> 3 ± 2.5
    assert [line.split()[:6] for line in lines[2:]] == [
        ["0,0", "fifo", "3", "2", "±", "2.5"],
        ["0,0", "fitgpp", "3", "2", "±", "2.5"],
        ["8,8", "fifo", "3", "3", "±", "2.5"],
        ["8,8", "fitgpp", "3", "3", "±", "2.5"],
    ]


def test_the_per_queue_table_by_hand():
    lines = format_queue_summary(sweep.aggregate(hand_rows())).splitlines()
    assert lines[0] == QUEUE_NOTE
    assert lines[1].split("  ")[:4] == ["borrow_limit", "queue", "policy", "seeds"]
    assert [label for _, label, _ in QUEUE_SHOWN] == [
        "TE p95 sd",
        "BE p50 sd",
        "BE p95 sd",
        "GPU-h lost to reclaims",
        "reclaimed",
    ]
    body = [line.split() for line in lines[2:]]
    # per point, then queue, then policy
    assert [b[:3] for b in body] == [[p, q, c] for p in POINTS for q in QUEUES for c in POLICIES]
    for row, (i, q, j) in zip(body, [(i, q, j) for i in range(2) for q in range(2) for j in range(2)], strict=True):
        # every cell 2k ± 2.484k, the GPU-hours too (their seconds divided by 3600)
        want = fmt.half_width(2 * k(i, j, q), 2 * k(i, j, q) - k(i, j, q) * HALF, 2 * k(i, j, q) + k(i, j, q) * HALF)
        assert row[3] == "3" and " ".join(row[4:]) == " ".join([want] * 5)
    assert body[0][4:7] == ["2", "±", "2.5"] and body[-1][4:7] == ["224", "±", "2.8e+02"]


def test_the_per_queue_table_takes_the_bootstrap_spread_of_a_resampled_file():
    lines = format_queue_summary(sweep.aggregate(hand_rows()), resampled=True).splitlines()
    # point 0, queue a, fifo: k = 1, mean 2, sd 1: 2 ± 1.96
    assert lines[2].split()[3:7] == ["3", "2", "±", "2"]


def test_without_queues_there_is_no_per_queue_table_and_the_policy_table_is_as_before():
    rows = hand_rows()[["point_id", "seed", "policy", "borrow_limit", "jobs", "TE_slowdown_p95"]]
    agg = sweep.aggregate(rows)
    assert format_queue_summary(agg) == ""
    assert format_summary(agg, "fifo") == (
        "mean ± 95% CI half-width over seeds (sd = slowdown)\n"
        "borrow_limit  policy  seeds  TE p95 sd  BE p50 sd  BE p95 sd  TE p95 % vs fifo  BE p50 % vs fifo  "
        "BE p95 % vs fifo\n"
        "0,0           fifo    3      2 ± 2.5    n/a        n/a        n/a               n/a               n/a             \n"
        "0,0           fitgpp  3      2 ± 2.5    n/a        n/a        n/a               n/a               n/a             \n"
        "8,8           fifo    3      3 ± 2.5    n/a        n/a        n/a               n/a               n/a             \n"
        "8,8           fitgpp  3      3 ± 2.5    n/a        n/a        n/a               n/a               n/a             "
    )


@pytest.mark.parametrize(
    ("preset", "fixed"),
    [("teams", {"jobs": 120, "mtbf": 86400}), ("paper-gang", {"jobs": 80, "nodes": 4, "mtbf": 86400})],
)
def test_every_column_a_run_adds_is_a_metric_or_a_parameter(preset, fixed):
    """Queues, gangs and down time add metric columns: none of them may be taken for a grid axis."""
    spec = sweep.build_spec(preset=preset, fixed=fixed, seeds="1", policies="fifo,k8s")
    rows = pd.DataFrame(sweep.run_task(spec.tasks()[0]))
    metrics = set(sweep.metric_columns(rows))
    assert ("queue_vision_reclaimed" in metrics) == (preset == "teams")
    assert ("workers_stopped" in metrics) == (preset == "paper-gang")
    assert {"failure_count", "be_interruptions"} <= metrics
    parameters = {*sweep.ID_COLUMNS, *sweep.KNOB_NAMES, *resolve_params(preset)}
    assert set(rows.columns) - metrics <= parameters


def _tables(out: str) -> tuple[list[list[str]], list[list[str]]]:
    """The policy table's and the per-queue table's rows (cells split on runs of two spaces)."""
    text = out.split("(sd = slowdown)\n", 1)[1]
    policy, _, queues = text.partition(f"\n\n{QUEUE_NOTE}\n")
    split = [[c.strip() for c in line.split("  ") if c.strip()] for line in policy.strip().splitlines()]
    per_queue = [[c.strip() for c in line.split("  ") if c.strip()] for line in queues.strip().splitlines()]
    return split, per_queue


def test_a_teams_sweep_prints_one_row_per_point_and_policy(tmp_path, capsys):
    summary = tmp_path / "summary.csv"
    argv = ["sweep", "--preset", "teams", "--seeds", "2", "--set", "jobs=150", "--grid", "borrow_limit=0,0,0;8,8,8"]
    argv += ["--policies", "fifo,fitgpp", "--workers", "1", "--no-progress", "--out", str(tmp_path / "o.parquet")]
    assert cli_main([*argv, "--summary-csv", str(summary)]) == 0
    policy, per_queue = _tables(capsys.readouterr().out)
    assert policy[0][:3] == ["borrow_limit", "policy", "seeds"] and len(policy[0]) == 9
    assert [r[:3] for r in policy[1:]] == [[p, c, "2"] for p in ("0,0,0", "8,8,8") for c in POLICIES]
    teams = ("vision", "nlp", "research")
    assert per_queue[0] == ["borrow_limit", "queue", "policy", "seeds", *(label for _, label, _ in QUEUE_SHOWN)]
    assert [r[:4] for r in per_queue[1:]] == [
        [p, q, c, "2"] for p in ("0,0,0", "8,8,8") for q in teams for c in POLICIES
    ]
    # the cells are the summary CSV's numbers (long form: one metric per queue and field)
    agg = pd.read_csv(summary, dtype={"borrow_limit": str})
    assert list(agg.columns[:2]) == ["borrow_limit", "policy"]
    by = agg.set_index(["borrow_limit", "policy", "metric"])
    for row in per_queue[1:]:
        for cell, (field, _, unit) in zip(row[4:], QUEUE_SHOWN, strict=True):
            rec = by.loc[(row[0], row[2], queue_column(row[1], field))]
            assert cell == fmt.half_width(rec["mean"] / unit, rec["ci_low"] / unit, rec["ci_high"] / unit)
    # no borrowing, no reclaim
    assert all(r[-1] == "0 ± 0" for r in per_queue[1:] if r[0] == "0,0,0")


def test_a_workload_file_with_queues_sweeps_with_its_per_queue_table(tmp_path, capsys):
    """The quota lesson (tests/test_queue_lesson.py): k8s takes nlp's job 6 back for vision's TE job 8,
    whatever the grace; fifo never preempts."""
    argv = ["sweep", "--workload", str(LESSONS / "quota_reclaim.csv"), "--cluster", str(LESSONS / "two_nodes.yaml")]
    argv += ["--queues", str(LESSONS / "quota_reclaim.queues.csv"), "--grid", "grace=0,300", "--policies", "fifo,k8s"]
    assert cli_main([*argv, "--workers", "1", "--no-progress", "--out", str(tmp_path / "q.parquet")]) == 0
    policy, per_queue = _tables(capsys.readouterr().out)
    assert [r[:3] for r in policy[1:]] == [[g, c, "1"] for g in ("0", "300") for c in ("fifo", "k8s")]
    reclaimed = {(r[0], r[1], r[2]): r[-1] for r in per_queue[1:]}
    assert len(reclaimed) == 2 * 3 * 2
    assert {key: v for key, v in reclaimed.items() if v != "0"} == {
        ("0", "nlp", "k8s"): "1",
        ("300", "nlp", "k8s"): "1",
    }


def test_sweep_help_lists_every_preset(capsys):
    with pytest.raises(SystemExit):
        cli_main(["sweep", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert f"synthetic workload preset ({', '.join(PRESETS)}; default paper)" in text
    assert {"teams", "paper-gang"} <= set(PRESETS)
