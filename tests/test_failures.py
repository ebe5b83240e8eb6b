"""Node failures and maintenance (DESIGN rule 12, DESIGN-failures.md): exact event logs derived by hand.

Conventions as tests/test_scenarios.py: "prop" jobs and nodes (cpu = mem_gb = gpu), default knobs
(grace 30, restore 60, checkpoint on_preempt, best_fit) unless a test says otherwise; rows are
(time, job_id, event, node), node rows with an empty job_id. Each expected log is derived from the
text of DESIGN-failures.md in the comments, never from the engine. The numbers in brackets name the
points of DESIGN-failures.md a step relies on.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import assert_events, assert_jobs, events_of, job, prop_cluster, te

from simcore.analysis import accounting, gantt, interruptions
from simcore.analysis.metrics import summarize
from simcore.core.downtime import NodeEvents
from simcore.core.model import JobTable, SimConfig
from simcore.engine import simulate


def down(cluster, *windows):
    """`cluster` with the (node, start, end, kind) windows of a node-events file."""
    return cluster.with_node_events(NodeEvents.of(windows))


def run(jobs, cluster, record=False, **knobs):
    return simulate(JobTable.from_jobs(jobs), cluster, SimConfig(**knobs), record_decisions=record)


def counts(r) -> dict[str, tuple[int, int]]:
    """job_id -> (failures, drains) from the jobs frame."""
    return {str(x.job_id): (int(x.failures), int(x.drains)) for x in r.jobs_frame.itertuples(index=False)}


# --------------------------------------------------------------------------- a failure, each checkpoint mode


@pytest.mark.parametrize(
    ("mode", "lost", "finish"),
    [
        # on_preempt: no save was ever made (a failure has none [6]): everything since the start is lost
        ("on_preempt", 50.0, 230.0),
        # periodic, c = 20: the last checkpoint taken is floor(50 / 20) x 20 = 40 [6, 9]: 10 s lost, 60 left
        ("periodic", 10.0, 190.0),
        # none: everything [6]
        ("none", 50.0, 230.0),
    ],
)
def test_a_failure_stops_the_job_at_once_and_loses_the_work_since_its_last_kept_point(mode, lost, finish):
    # One node of 4. A (4 GPUs, 100 s) starts at 0. n0 fails over [50, 70).
    # t=50: node_down n0, then A's fail row [4]; A is pending for the pass of 50 [6], fits nowhere.
    # t=70: node_up n0; A starts again and restores 60 s [8]: it ends at 70 + 60 + (100 - kept).
    cluster = down(prop_cluster(4), ("n0", 50, 70, "failure"))
    r = run([job("A", 0, 100, 4)], cluster, checkpoint=mode, checkpoint_interval=20)
    assert_events(
        r,
        [
            (0, "A", "submit", ""),
            (0, "A", "start", "n0"),
            (50, "", "node_down", "n0"),
            (50, "A", "fail", "n0"),
            (70, "", "node_up", "n0"),
            (70, "A", "start", "n0"),
            (finish, "A", "finish", "n0"),
        ],
    )
    assert_jobs(r, {"A": (0, finish, 0, lost, "n0")})
    assert counts(r) == {"A": (1, 0)}


def test_on_preempt_a_failure_keeps_what_the_last_successful_save_kept():
    # One node of 4, k8s. A (4, 1000 s) at 0; T (TE, 4, 50 s) at 100 preempts A: the save during
    # A's grace keeps its 100 s. A releases at 130, T runs 130-180, A restarts at 180 and restores
    # until 240. n0 fails over [300, 310): A loses the 60 s since 240 [6], keeps the saved 100 s.
    # t=310: A restarts (restore 60) with 900 s left: 310 + 60 + 900 = 1270.
    cluster = down(prop_cluster(4), ("n0", 300, 310, "failure"))
    r = run([job("A", 0, 1000, 4), te("T", 100, 50, 4)], cluster, policy="k8s")
    assert_events(
        r,
        [
            (0, "A", "submit", ""),
            (0, "A", "start", "n0"),
            (100, "T", "submit", ""),
            (100, "A", "preempt", "n0"),
            (130, "A", "release", "n0"),
            (130, "T", "start", "n0"),
            (180, "T", "finish", "n0"),
            (180, "A", "start", "n0"),
            (300, "", "node_down", "n0"),
            (300, "A", "fail", "n0"),
            (310, "", "node_up", "n0"),
            (310, "A", "start", "n0"),
            (1270, "A", "finish", "n0"),
        ],
    )
    assert_jobs(r, {"A": (0, 1270, 1, 60, "n0"), "T": (130, 180, 0, 0, "n0")})
    assert counts(r) == {"A": (1, 0), "T": (0, 0)}


def test_te_jobs_fail_too_and_restore_on_their_next_start():
    # One node of 4; T (TE, 2, 100 s) at 0; n0 fails over [50, 60) [6: TE jobs too]. No save: 50 s lost.
    # It restarts at 60 and restores 60 s [8: TE jobs included]: 60 + 60 + 100 = 220. Not a preemption.
    r = run([te("T", 0, 100, 2)], down(prop_cluster(4), ("n0", 50, 60, "failure")), policy="fitgpp")
    assert_events(
        r,
        [
            (0, "T", "submit", ""),
            (0, "T", "start", "n0"),
            (50, "", "node_down", "n0"),
            (50, "T", "fail", "n0"),
            (60, "", "node_up", "n0"),
            (60, "T", "start", "n0"),
            (220, "T", "finish", "n0"),
        ],
    )
    assert_jobs(r, {"T": (0, 220, 0, 50, "n0")})


# --------------------------------------------------------------------------- maintenance


def test_maintenance_drains_from_start_minus_grace_and_places_nothing_there():
    # One node of 4. A (2, 200 s) at 0. Maintenance of n0 over [100, 150), grace 30: n0 drains
    # from 70 [5, 7]. t=70: A's drain row (a signal as by a preemption: the on_preempt save keeps
    # its 70 s; A still holds its GPUs). t=80: B (1, 10 s) submits; 2 GPUs are free but nothing is
    # placed on a draining node [5]: B waits. t=100: A's release row (at the window's start
    # exactly [7]), then node_down n0 [4: releases before nodes going down]; A is pending, n0 down.
    # t=150: node_up; the pass places A (restore 60, 130 s left: 150 + 60 + 130 = 340) then B (160).
    cluster = down(prop_cluster(4), ("n0", 100, 150, "maintenance"))
    r = run([job("A", 0, 200, 2), job("B", 80, 10, 1)], cluster)
    assert_events(
        r,
        [
            (0, "A", "submit", ""),
            (0, "A", "start", "n0"),
            (70, "A", "drain", "n0"),
            (80, "B", "submit", ""),
            (100, "A", "release", "n0"),
            (100, "", "node_down", "n0"),
            (150, "", "node_up", "n0"),
            (150, "A", "start", "n0"),
            (150, "B", "start", "n0"),
            (160, "B", "finish", "n0"),
            (340, "A", "finish", "n0"),
        ],
    )
    assert_jobs(r, {"A": (0, 340, 0, 0, "n0"), "B": (150, 160, 0, 0, "n0")})
    assert counts(r) == {"A": (0, 1), "B": (0, 0)}
    s = summarize(r)
    assert s["preemptions"] == 0 and s["accounting"]["evicted_share"] == 0.0  # a drain is not a preemption [10]
    drain = s["downtime"]["interruptions"]["drain"]
    # grace held 70 -> 100 with 2 GPUs; A's restore at 150, 60 s x 2 GPUs, charged to the drain [10]
    assert (drain["count"], drain["gpu_seconds_grace"], drain["gpu_seconds_restore"]) == (1, 60.0, 120.0)


def test_maintenance_with_grace_zero_releases_at_the_drain_itself():
    # grace 0: the drain begins at the window's start, 100 [5]; B (1, 10 s) at 80 is placed (n0 is
    # not draining yet) and ends at 90. t=100: A's drain row and, its release immediate, its release
    # row right after it [7], then node_down. The save keeps 100 s: A ends at 150 + 60 + 100 = 310.
    cluster = down(prop_cluster(4), ("n0", 100, 150, "maintenance"))
    r = run([job("A", 0, 200, 2), job("B", 80, 10, 1)], cluster, grace=0)
    assert_events(
        r,
        [
            (0, "A", "submit", ""),
            (0, "A", "start", "n0"),
            (80, "B", "submit", ""),
            (80, "B", "start", "n0"),
            (90, "B", "finish", "n0"),
            (100, "A", "drain", "n0"),
            (100, "A", "release", "n0"),
            (100, "", "node_down", "n0"),
            (150, "", "node_up", "n0"),
            (150, "A", "start", "n0"),
            (310, "A", "finish", "n0"),
        ],
    )


def test_te_jobs_are_drained_too_never_counted_as_preempted():
    # One node of 4; T (TE, 2, 100 s); maintenance [50, 60), grace 30: T drained at 20 [7: TE too],
    # the save keeps 20 s; release at 50, down 50-60, T restarts at 60 (restore 60): 60 + 60 + 80 = 200.
    r = run([te("T", 0, 100, 2)], down(prop_cluster(4), ("n0", 50, 60, "maintenance")), policy="fitgpp")
    assert_events(
        r,
        [
            (0, "T", "submit", ""),
            (0, "T", "start", "n0"),
            (20, "T", "drain", "n0"),
            (50, "T", "release", "n0"),
            (50, "", "node_down", "n0"),
            (60, "", "node_up", "n0"),
            (60, "T", "start", "n0"),
            (200, "T", "finish", "n0"),
        ],
    )
    assert_jobs(r, {"T": (0, 200, 0, 0, "n0")})
    assert counts(r) == {"T": (0, 1)}


# --------------------------------------------------------------------------- gangs


def test_a_failure_stops_a_gang_on_every_node_it_holds():
    # Three nodes of 4. G (gang of 2 workers x 4 GPUs, 100 s) at 0: worker 0 on n0, worker 1 on n1
    # (equal empty nodes: the lowest index); X (4, 300 s) on n2. n1 fails over [40, 60): G's fail
    # rows on n0 and n1, in worker order [4, 6: a gang, all its workers, everywhere]; X runs on.
    # G waits (it needs two nodes, one is down) until 60, then restores: 60 + 60 + 100 = 220.
    jobs = JobTable.from_jobs([job("G", 0, 100, 4), job("X", 0, 300, 4)])
    jobs = type(jobs)(**{**jobs.__dict__, "workers": np.array([2, 1])})
    cluster = down(prop_cluster(4, 4, 4), ("n1", 40, 60, "failure"))
    r = simulate(jobs, cluster, SimConfig())
    assert_events(
        r,
        [
            (0, "G", "submit", ""),
            (0, "X", "submit", ""),
            (0, "G", "start", "n0"),
            (0, "G", "start", "n1"),
            (0, "X", "start", "n2"),
            (40, "", "node_down", "n1"),
            (40, "G", "fail", "n0"),
            (40, "G", "fail", "n1"),
            (60, "", "node_up", "n1"),
            (60, "G", "start", "n0"),
            (60, "G", "start", "n1"),
            (220, "G", "finish", "n0"),
            (220, "G", "finish", "n1"),
            (300, "X", "finish", "n2"),
        ],
    )
    assert counts(r) == {"G": (1, 0), "X": (0, 0)}
    seg = gantt.segments(r)
    run_g = seg[(seg.job_id == "G") & (seg.kind == "run")]
    # per worker, run segments add up to duration + lost work: 100 + 40 on each of 4 lanes x 2 nodes
    assert (run_g.end - run_g.start).sum() == pytest.approx((100 + 40) * 4 * 2)


# --------------------------------------------------------------------------- overlapping windows, the run's end


def test_overlapping_windows_make_one_down_time_and_stop_nothing_while_down():
    # One node of 4, checkpoint none; A (4, 100 s) at 0. Windows of n0: failure [20, 50), failure
    # [40, 60), maintenance [55, 70) (grace 30: its drain begins at 25, while n0 is down: it signals
    # nobody [1]), failure [80, 90), failure [150, 160) and failure [160, 170) (back to back).
    # n0 is down over the union [20, 70) u [80, 90) u [150, 170) [1]: one node_down / node_up pair each.
    # t=20: A fails, 20 s lost. t=40 (a failure while down) stops nothing [1]. t=70: up; A restarts
    # (restore until 130). t=80: A fails while restoring: no progress, nothing more lost. t=90: up,
    # A restarts, restores until 150. t=150: A fails at the end of its restore: nothing lost.
    # t=170: up; A restarts: 170 + 60 + 100 = 330.
    cluster = down(
        prop_cluster(4),
        ("n0", 20, 50, "failure"),
        ("n0", 40, 60, "failure"),
        ("n0", 55, 70, "maintenance"),
        ("n0", 80, 90, "failure"),
        ("n0", 150, 160, "failure"),
        ("n0", 160, 170, "failure"),
    )
    r = run([job("A", 0, 100, 4)], cluster, checkpoint="none")
    assert_events(
        r,
        [
            (0, "A", "submit", ""),
            (0, "A", "start", "n0"),
            (20, "", "node_down", "n0"),
            (20, "A", "fail", "n0"),
            (70, "", "node_up", "n0"),
            (70, "A", "start", "n0"),
            (80, "", "node_down", "n0"),
            (80, "A", "fail", "n0"),
            (90, "", "node_up", "n0"),
            (90, "A", "start", "n0"),
            (150, "", "node_down", "n0"),
            (150, "A", "fail", "n0"),
            (170, "", "node_up", "n0"),
            (170, "A", "start", "n0"),
            (330, "A", "finish", "n0"),
        ],
    )
    assert_jobs(r, {"A": (0, 330, 0, 20, "n0")})
    assert counts(r) == {"A": (3, 0)}
    hours = interruptions.node_hours_down(r)
    assert hours == {"n0": pytest.approx((50 + 10 + 20) / 3600)}


def test_node_events_after_the_last_finish_are_not_written():
    # A (4, 100 s) on n0 ends at 100 [3]. n1 is down over [50, 200): its node_down at 50 is written,
    # its node_up at 200 is not, nor anything of the later window [300, 400). Node-hours down count
    # n1's down time within the makespan: 50 s.
    cluster = down(prop_cluster(4, 4), ("n1", 50, 200, "failure"), ("n1", 300, 400, "maintenance"))
    r = run([job("A", 0, 100, 4)], cluster)
    assert_events(
        r,
        [(0, "A", "submit", ""), (0, "A", "start", "n0"), (50, "", "node_down", "n1"), (100, "A", "finish", "n0")],
    )
    assert summarize(r)["downtime"]["node_hours_down_per_node"] == {"n0": 0.0, "n1": pytest.approx(50 / 3600)}


# --------------------------------------------------------------------------- the order within an instant


def test_the_order_of_events_within_an_instant():
    # Five nodes of 4; k8s. D, F, K, R (4 GPUs each) at 0 go to n0, n1, n2, R n3 (job order D < F < K
    # < R, equal empty nodes by index); n4 is down over [50, 100). X (TE, 4, 10 s) at 70 fits nowhere:
    # the search skips n2, whose drain (maintenance [130, 200), grace 30) begins at 100 <= 70 + 30
    # [5]; of n0, n1, n3 (one victim each, all started at 0) k8s takes n0: D, released at 100.
    # At t=100 [4]: F finishes (n1); D's release (n0); K's drain (n2); n3 fails ([100, 150)):
    # node_down n3, R's fail; n4 comes up; S (BE, 4, 10 s) submits; then the pass: X starts on n0
    # (its node), D on n1 (n1 and n4 both empty: the lowest index), R on n4; S waits.
    # t=110: X ends, S starts on n0, ends 120. t=130: K's release, node_down n2, K starts on n0.
    # D ends at 100 + 60 + 930 = 1090 (its save kept 70); K at 130 + 60 + 900 = 1090; R (no save:
    # 100 s lost) at 100 + 60 + 1000 = 1160. n3 comes up at 150, n2 at 200.
    jobs = [job(x, 0, 1000 if x != "F" else 100, 4) for x in "DFKR"] + [te("X", 70, 10, 4), job("S", 100, 10, 4)]
    cluster = down(
        prop_cluster(4, 4, 4, 4, 4),
        ("n4", 50, 100, "failure"),
        ("n2", 130, 200, "maintenance"),
        ("n3", 100, 150, "failure"),
    )
    r = run(jobs, cluster, policy="k8s")
    assert_events(
        r,
        [
            *[(0, x, "submit", "") for x in "DFKR"],
            *[(0, x, "start", f"n{i}") for i, x in enumerate("DFKR")],
            (50, "", "node_down", "n4"),
            (70, "X", "submit", ""),
            (70, "D", "preempt", "n0"),
            (100, "F", "finish", "n1"),
            (100, "D", "release", "n0"),
            (100, "K", "drain", "n2"),
            (100, "", "node_down", "n3"),
            (100, "R", "fail", "n3"),
            (100, "", "node_up", "n4"),
            (100, "S", "submit", ""),
            (100, "X", "start", "n0"),
            (100, "D", "start", "n1"),
            (100, "R", "start", "n4"),
            (110, "X", "finish", "n0"),
            (110, "S", "start", "n0"),
            (120, "S", "finish", "n0"),
            (130, "K", "release", "n2"),
            (130, "", "node_down", "n2"),
            (130, "K", "start", "n0"),
            (150, "", "node_up", "n3"),
            (200, "", "node_up", "n2"),
            (1090, "D", "finish", "n1"),
            (1090, "K", "finish", "n0"),
            (1160, "R", "finish", "n4"),
        ],
    )
    assert counts(r) == {"D": (0, 0), "F": (0, 0), "K": (0, 1), "R": (1, 0), "X": (0, 0), "S": (0, 0)}


# --------------------------------------------------------------------------- nominations and victim searches


def test_a_nomination_ends_when_its_node_goes_down():
    # Two nodes of 4; k8s. A on n0, B on n1 (4 GPUs, 1000 s). T (TE, 4, 50 s) at 100: k8s takes A
    # on n0 (lowest index); A's save keeps 100 s. n0 fails over [110, 200): at 110, node_down n0,
    # then A's fail (in its grace period: it loses the save it was making [6], its 100 s; it counts
    # as released for T), then T's nomination ends [5] and T is an ordinary pending job: the pass
    # of 110 preempts B on n1 (n0 is closed). B releases at 140, T runs 140-190. At 190 A (first in
    # job order) starts on n1: 190 + 60 + 1000 = 1250. n0 up at 200: B starts there, its save kept
    # 110 s: 200 + 60 + 890 = 1150.
    cluster = down(prop_cluster(4, 4), ("n0", 110, 200, "failure"))
    r = run([job("A", 0, 1000, 4), job("B", 0, 1000, 4), te("T", 100, 50, 4)], cluster, record=True, policy="k8s")
    assert_events(
        r,
        [
            (0, "A", "submit", ""),
            (0, "B", "submit", ""),
            (0, "A", "start", "n0"),
            (0, "B", "start", "n1"),
            (100, "T", "submit", ""),
            (100, "A", "preempt", "n0"),
            (110, "", "node_down", "n0"),
            (110, "A", "fail", "n0"),
            (110, "B", "preempt", "n1"),
            (140, "B", "release", "n1"),
            (140, "T", "start", "n1"),
            (190, "T", "finish", "n1"),
            (190, "A", "start", "n1"),
            (200, "", "node_up", "n0"),
            (200, "B", "start", "n0"),
            (1150, "B", "finish", "n0"),
            (1250, "A", "finish", "n1"),
        ],
    )
    assert_jobs(r, {"A": (0, 1250, 1, 100, "n1"), "B": (0, 1150, 1, 0, "n0"), "T": (140, 190, 0, 0, "n1")})
    assert counts(r) == {"A": (1, 0), "B": (0, 0), "T": (0, 0)}
    records = accounting.annotated_decisions(r)
    assert [(d["victims"], d["wasted"], d["wasted_cause"]) for d in records] == [
        (["A"], True, "node down"),
        (["B"], False, None),
    ]
    s = summarize(r)
    assert (
        s["accounting"]["wasted_preemptions"]["count"] == 1 and s["accounting"]["wasted_preemptions"]["node_down"] == 1
    )
    by = s["downtime"]["interruptions"]
    # lost: the failure's 100 s (the save) x 4 GPUs; grace: A 10 s + B 30 s, x 4; restore: A's start
    # at 190 follows its failure, B's at 200 its preemption: 60 s x 4 each [10]
    assert by["failure"] == {
        "count": 1,
        "gpu_seconds_lost": 400.0,
        "gpu_seconds_grace": 0.0,
        "gpu_seconds_restore": 240.0,
    }
    assert by["preemption"] == {
        "count": 2,
        "gpu_seconds_lost": 0.0,
        "gpu_seconds_grace": 160.0,
        "gpu_seconds_restore": 240.0,
    }
    assert (s["accounting"]["gpu_seconds_grace"], s["accounting"]["gpu_seconds_restore"]) == (160.0, 240.0)


def test_a_victim_search_skips_a_node_draining_by_the_time_the_victims_release():
    # Two nodes of 4; k8s. A on n0, B on n1 (4, 1000 s). Maintenance of n0 over [150, 300): its drain
    # begins at 120 <= 100 + 30, so T's search at 100 skips n0 [5] and takes B on n1 (k8s alone would
    # take n0, the lowest index). t=120: A drained. 130: B releases, T runs 130-180. 150: A's
    # release, node_down n0. 180: A (saved 120 s) starts on n1: 180 + 60 + 880 = 1120. 300: n0 up,
    # B (saved 100 s) starts there: 300 + 60 + 900 = 1260.
    cluster = down(prop_cluster(4, 4), ("n0", 150, 300, "maintenance"))
    r = run([job("A", 0, 1000, 4), job("B", 0, 1000, 4), te("T", 100, 50, 4)], cluster, policy="k8s")
    assert_events(
        r,
        [
            (0, "A", "submit", ""),
            (0, "B", "submit", ""),
            (0, "A", "start", "n0"),
            (0, "B", "start", "n1"),
            (100, "T", "submit", ""),
            (100, "B", "preempt", "n1"),
            (120, "A", "drain", "n0"),
            (130, "B", "release", "n1"),
            (130, "T", "start", "n1"),
            (150, "A", "release", "n0"),
            (150, "", "node_down", "n0"),
            (180, "T", "finish", "n1"),
            (180, "A", "start", "n1"),
            (300, "", "node_up", "n0"),
            (300, "B", "start", "n0"),
            (1120, "A", "finish", "n1"),
            (1260, "B", "finish", "n0"),
        ],
    )
    assert counts(r) == {"A": (0, 1), "B": (0, 0), "T": (0, 0)}


def test_a_search_whose_candidates_are_all_on_skipped_nodes_says_so():
    # One node of 4; A (4) runs on n0, whose maintenance [120, 200) drains from 90 <= 80 + 30: T (TE, 4)
    # at 80 finds its only candidate on a skipped node [5]: no victims, reason "all on nodes down or
    # draining". A is drained at 90, releases at 120; n0 is down until 200; then T (TE first) runs.
    cluster = down(prop_cluster(4), ("n0", 120, 200, "maintenance"))
    r = run([job("A", 0, 1000, 4), te("T", 80, 10, 4)], cluster, record=True, policy="fitgpp")
    assert r.decisions[0]["reason"] == "all on nodes down or draining" and r.decisions[0]["victims"] == []
    assert r.first_start.tolist() == [0.0, 200.0]


def test_a_te_gang_that_needs_victims_takes_no_tentative_room_on_a_node_draining_soon():
    # Three nodes of 4; k8s. A, B, X (4 GPUs; X 50 s) at 0 on n0, n1, n2; X ends at 50. Maintenance
    # of n2 over [150, 300): its drain begins at 120. G (TE gang, 2 workers x 4, 50 s) at 100 does
    # not fit (one worker fits, on n2); satisfied worker by worker, it takes no tentative room on
    # n2 (120 <= 100 + 30 [5]): worker 0 asks for victims (A on n0, the lowest index), worker 1 too
    # (B on n1). Both release at 130, G runs on n0 and n1 until 180; A and B (saved 100 s) restart
    # there: 180 + 60 + 900 = 1140. (Taking n2's room, G would have been nominated there and its
    # nomination would have ended at 120.)
    jobs = JobTable.from_jobs([job("A", 0, 1000, 4), job("B", 0, 1000, 4), job("X", 0, 50, 4), te("G", 100, 50, 4)])
    jobs = type(jobs)(**{**jobs.__dict__, "workers": np.array([1, 1, 1, 2])})
    cluster = down(prop_cluster(4, 4, 4), ("n2", 150, 300, "maintenance"))
    r = simulate(jobs, cluster, SimConfig(policy="k8s"))
    assert_events(
        r,
        [
            (0, "A", "submit", ""),
            (0, "B", "submit", ""),
            (0, "X", "submit", ""),
            (0, "A", "start", "n0"),
            (0, "B", "start", "n1"),
            (0, "X", "start", "n2"),
            (50, "X", "finish", "n2"),
            (100, "G", "submit", ""),
            (100, "A", "preempt", "n0"),
            (100, "B", "preempt", "n1"),
            (130, "A", "release", "n0"),
            (130, "B", "release", "n1"),
            (130, "G", "start", "n0"),
            (130, "G", "start", "n1"),
            (150, "", "node_down", "n2"),
            (180, "G", "finish", "n0"),
            (180, "G", "finish", "n1"),
            (180, "A", "start", "n0"),
            (180, "B", "start", "n1"),
            (300, "", "node_up", "n2"),
            (1140, "A", "finish", "n0"),
            (1140, "B", "finish", "n1"),
        ],
    )


def test_a_drain_signal_saves_as_a_preemption_does_and_its_save_can_fail():
    # As the maintenance test, with save_time 60 > grace 30: the save on A's drain signal at 70
    # fails [7], so A keeps nothing: 70 s lost; it restarts at 150 with its 200 s: 150 + 60 + 200 = 410.
    cluster = down(prop_cluster(4), ("n0", 100, 150, "maintenance"))
    r = run([job("A", 0, 200, 2)], cluster, save_time=60)
    assert_jobs(r, {"A": (0, 410, 0, 70, "n0")})
    assert counts(r) == {"A": (0, 1)}


# --------------------------------------------------------------------------- the 1,000 failures


def test_a_job_stopped_by_failures_more_than_1000_times_ends_the_run_with_an_error_naming_it():
    # One node; A needs 100 s but n0 fails every 10 s (windows [10k + 5, 10k + 10)): each start
    # runs 5 s at most. Its 1,001st failure ends the run [3].
    from simcore.engine.nodes_down import NoProgress

    windows = [("n0", 10 * k + 5, 10 * k + 10, "failure") for k in range(1200)]
    with pytest.raises(NoProgress, match=r"job A was stopped by node failures more than 1,000 times"):
        run([job("A", 0, 100, 4)], down(prop_cluster(4), *windows), restore=0)
    # 1,000 failures are allowed: with 1,000 windows A fails 1,000 times, then runs to its end
    r = run([job("A", 0, 100, 4)], down(prop_cluster(4), *windows[:1000]), restore=0)
    assert counts(r) == {"A": (1000, 0)} and r.finish[0] == 10_000 + 100


# --------------------------------------------------------------------------- random failures


def _expected_failures(seed, node, mtbf, repair, first, until):
    """DESIGN-failures point 2, written from its text: node i's stream is default_rng(SeedSequence(seed,
    spawn_key=(1, i))); the first failure at the first submit time + exponential(mtbf), down for repair
    seconds, each next failure at the end of the previous repair + exponential(mtbf)."""
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(1, node)))
    out, up = [], first
    while True:
        start = up + rng.exponential(mtbf)
        if start > until:
            return out
        out.append((start, start + repair))
        up = start + repair


@pytest.mark.parametrize("policy", ["fifo", "fitgpp"])
def test_random_failures_follow_the_seeded_stream_of_each_node(policy):
    # Three nodes; long jobs (checkpointing every 200 s) keep the run going; mtbf 2000, repair 300,
    # seed 11; the first submit at 5.
    jobs = [job(f"J{i}", 5 + i, 20_000, 4) for i in range(4)] + [te("T", 50, 100, 2)]
    knobs = {"checkpoint": "periodic", "checkpoint_interval": 200, "mtbf": 2000, "repair": 300, "seed": 11}
    r = run(jobs, prop_cluster(4, 4, 4), policy=policy, **knobs)
    end = float(np.max(r.finish))
    ev = [e for e in events_of(r) if e[2] in ("node_down", "node_up")]
    for i in range(3):
        expected = []
        for a, b in _expected_failures(11, i, 2000.0, 300.0, 5.0, end):
            expected.append((a, "", "node_down", f"n{i}"))
            if b <= end:
                expected.append((b, "", "node_up", f"n{i}"))
        assert [e for e in ev if e[3] == f"n{i}"] == expected
    assert sum(1 for e in ev if e[2] == "node_down") > 5  # the test sees failures


def test_random_failures_do_not_depend_on_the_policy_or_the_file():
    # the same seeded windows whatever the policy (within the shorter run) and whatever file windows
    # are added (by union: a file window on n1 changes n1's down time, never n0's or n2's draws)
    jobs = [job(f"J{i}", i, 9000, 4) for i in range(3)] + [te(f"T{i}", 100 * i, 300, 2) for i in range(1, 20)]
    a = run(jobs, prop_cluster(4, 4, 4), policy="fifo", mtbf=1500, repair=200, seed=3)
    b = run(jobs, prop_cluster(4, 4, 4), policy="k8s", mtbf=1500, repair=200, seed=3)
    c = run(
        jobs, down(prop_cluster(4, 4, 4), ("n1", 10, 20, "maintenance")), policy="k8s", mtbf=1500, repair=200, seed=3
    )
    end = min(float(np.max(x.finish)) for x in (a, b, c))

    def windows(r, node):
        return [w for w in r.downtime.windows_frame.itertuples(index=False) if w.node == node and w.start <= end]

    for node in range(3):
        assert windows(a, node) == windows(b, node)
        random_c = [w for w in windows(c, node) if w.kind == "failure"]
        assert random_c == windows(a, node)


# --------------------------------------------------------------------------- defaults


def test_without_down_time_the_outputs_have_no_new_column_or_row():
    r = run([job("A", 0, 100, 4)], prop_cluster(4))
    assert r.downtime is None and "failures" not in r.jobs_frame.columns
    s = summarize(r)
    assert "downtime" not in s and not {"checkpoint_cost", "mtbf", "repair"} & set(s["knobs"])
    assert "node_down" not in s["accounting"]["wasted_preemptions"]
    with_mtbf = summarize(run([job("A", 0, 100, 4)], prop_cluster(4), mtbf=1e12))
    assert with_mtbf["knobs"]["mtbf"] == 1e12 and "repair" not in with_mtbf["knobs"]
