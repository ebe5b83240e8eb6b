"""Checkpoints that cost time (knob ``checkpoint_cost``, DESIGN-failures.md point 9), derived by hand.

With checkpoint periodic, interval c and cost k, a checkpoint is taken each time the attained
service reaches a positive multiple of c below the duration and above what the job has kept; it
holds the resources k seconds without progress and counts only after its pause ends (an
interruption at any instant of the pause, first and last included, keeps the previous one).
Conventions as tests/test_scenarios.py (prop jobs and nodes, default knobs otherwise).
"""

from __future__ import annotations

import pytest
from helpers import assert_events, assert_jobs, job, prop_cluster, te

from simcore.analysis import gantt
from simcore.core import checkpoints
from simcore.core.downtime import NodeEvents
from simcore.core.model import JobTable, SimConfig
from simcore.engine import simulate

PERIODIC = {"checkpoint": "periodic", "checkpoint_interval": 30, "checkpoint_cost": 5}


def run(jobs, cluster, record=False, **knobs):
    return simulate(JobTable.from_jobs(jobs), cluster, SimConfig(**knobs), record_decisions=record)


@pytest.mark.parametrize(
    ("duration", "pauses"),
    [(100, 3), (90, 2), (30, 0), (31, 1), (20, 0)],  # checkpoints at 30, 60, 90 below 100; at 30, 60 below 90 ...
)
def test_one_job_alone_finishes_at_duration_plus_its_checkpoints_times_the_cost(duration, pauses):
    r = run([job("A", 0, duration, 4)], prop_cluster(4), **PERIODIC)
    assert_jobs(r, {"A": (0, duration + 5 * pauses, 0, 0, "n0")})
    seg = gantt.segments(r)
    ckpt = seg[(seg.kind == "checkpoint") & (seg.lane == 0)]
    assert list(zip(ckpt.start, ckpt.end, strict=True)) == [(35 * i - 5, 35 * i) for i in range(1, pauses + 1)]
    assert checkpoints.count(0.0, duration, 30) == pauses


@pytest.mark.parametrize(
    ("at", "lost", "finish"),
    [
        # T at 30: the first instant of the first pause (its work reached 30): the previous checkpoint (none)
        # is kept, 30 s lost. A releases at 60, T runs 60-70, A restarts at 70: 70 + 60 + 100 + 15 = 245.
        (30, 30, 245),
        # T at 35: the last instant of the pause, still not counted: 30 s lost; 75 + 60 + 115 = 250
        (35, 30, 250),
        # T at 36: the checkpoint at 30 counted; attained 31, 1 s lost. A resumes from 30: no checkpoint at
        # the resume point, two ahead (60, 90): 76 + 60 + 70 + 10 = 216
        (36, 1, 216),
    ],
)
def test_a_checkpoint_counts_only_after_its_pause(at, lost, finish):
    # One node of 4, k8s; A (4, 100 s) at 0 with c = 30, k = 5: pauses over [30, 35], [65, 70], [100, 105].
    r = run([job("A", 0, 100, 4), te("T", at, 10, 4)], prop_cluster(4), policy="k8s", **PERIODIC)
    assert_events(
        r,
        [
            (0, "A", "submit", ""),
            (0, "A", "start", "n0"),
            (at, "T", "submit", ""),
            (at, "A", "preempt", "n0"),
            (at + 30, "A", "release", "n0"),
            (at + 30, "T", "start", "n0"),
            (at + 40, "T", "finish", "n0"),
            (at + 40, "A", "start", "n0"),
            (finish, "A", "finish", "n0"),
        ],
    )
    assert_jobs(r, {"A": (0, finish, 1, lost, "n0"), "T": (at + 30, at + 40, 0, 0, "n0")})
    seg = gantt.segments(r)
    mine = seg[(seg.job_id == "A") & (seg.lane == 0)]
    # run segments add up to duration + lost work; the pauses are checkpoint segments, not run
    assert (mine[mine.kind == "run"].end - mine[mine.kind == "run"].start).sum() == 100 + lost


def test_a_failure_in_a_pause_keeps_the_previous_checkpoint():
    # A (4, 100 s), c = 30, k = 5; n0 fails over [70, 80): 70 is the last instant of the second pause
    # (its work reached 60 at 65): the checkpoint at 30 is kept, 30 s lost. A restarts at 80 from 30:
    # checkpoints at 60 and 90 ahead: 80 + 60 + 70 + 10 = 220.
    cluster = prop_cluster(4).with_node_events(NodeEvents.of([("n0", 70, 80, "failure")]))
    r = run([job("A", 0, 100, 4)], cluster, **PERIODIC)
    assert_jobs(r, {"A": (0, 220, 0, 30, "n0")})


def test_lrtp_ranks_by_remaining_work_without_the_pauses():
    # c = 100, k = 50. A (4, 1000 s) at 0 on n0: at 200 it has worked 150 s (its pause 100-150):
    # 850 s of work left, 8 checkpoints ahead (at 200 .. 900). B (4, 940 s) at 105 on n1: at 200 it
    # has worked 95 s: 845 s left, 9 checkpoints ahead. T (TE, 4) at 200: one victim either way;
    # lrtp keeps the node whose victim has the most remaining work: A's 850 > 845 (with the pauses
    # B would be longer: 845 + 450 > 850 + 400).
    knobs = {"policy": "lrtp", "checkpoint": "periodic", "checkpoint_interval": 100, "checkpoint_cost": 50}
    r = run([job("A", 0, 1000, 4), job("B", 105, 940, 4), te("T", 200, 10, 4)], prop_cluster(4, 4), True, **knobs)
    first = r.decisions[0]
    assert first["victims"] == ["A"] and first["candidates"][0]["min_remaining"] == 850.0


@pytest.mark.parametrize(("cost", "preempts"), [(0, False), (5, True)])
def test_fitdelay_waits_only_for_a_job_that_really_finishes_within_grace(cost, preempts):
    # One node of 4, fitdelay, c = 30. A (4, 100 s) at 0; T (TE, 4) at 80. A has 20 s of work left
    # without pauses (k = 0: it ends at 100, within the grace of 30: fitdelay waits and T starts at 100).
    # With k = 5 A has worked 70 s at 80 (pauses at 30-35, 65-70), 30 s of work left but one more pause
    # (at 90): it really ends at 115, 35 s away, beyond the grace: fitdelay preempts it.
    knobs = {"policy": "fitdelay", "checkpoint": "periodic", "checkpoint_interval": 30, "checkpoint_cost": cost}
    r = run([job("A", 0, 100, 4), te("T", 80, 10, 4)], prop_cluster(4), **knobs)
    assert (r.preemptions[0] == 1) == preempts
    assert r.first_start[1] == (110 if preempts else 100)


@pytest.mark.parametrize(
    ("elapsed", "attained", "kept"),
    [(0, 0, 0), (29, 29, 0), (30, 30, 0), (35, 30, 0), (35.5, 30.5, 30), (65, 60, 30), (70, 60, 30), (71, 61, 60)],
)
def test_the_attained_service_and_the_kept_work_of_a_segment(elapsed, attained, kept):
    # the arithmetic alone: duration 100, c = 30, k = 5, resuming from 0
    assert checkpoints.at(elapsed, 0.0, 100.0, 30.0, 5.0) == (attained, kept)


def test_a_segment_resuming_from_a_checkpoint_takes_none_at_its_resume_point():
    # resuming from 60 of 100 with c = 30: one checkpoint ahead (90), none at 60
    assert checkpoints.count(60.0, 100.0, 30.0) == 1
    assert checkpoints.pauses(60.0, 100.0, 30.0, 5.0) == [(30.0, 35.0)]
    assert checkpoints.busy(60.0, 100.0, 30.0, 5.0) == 45.0
