"""Hand-made scenarios with exact event logs, derived by hand from DESIGN.md sections 2-4.

Conventions used in the derivations below:
- "prop" jobs/nodes: cpu = mem_gb = gpu (helpers.job / helpers.prop_cluster), so every
  dimension has the same normalised share and "g" alone describes a request or a node.
- Knobs are the defaults unless a test says otherwise: grace 30, restore 60, checkpoint
  on_preempt, backfill greedy, placement best_fit, P 2, s inf.
- Event rows are (time, job_id, event, node); runs of finishes / releases / submits at the
  same instant are compared as sets (DESIGN fixes only the order of the kinds), decisions
  (start, preempt, and the in-pass release of grace = 0) in exact order.
- Jobs-frame rows are job_id -> (first_start, finish, preemptions, lost_work, node).
"""

from __future__ import annotations

import math

import pytest
from helpers import assert_events, assert_jobs, cluster_of, events_of, job, prop_cluster, run, te

PREEMPTIVE = ["k8s", "fitgpp", "lrtp", "random"]


# --------------------------------------------------------------------------- backfill


def _hol_jobs():
    # one node of 4; A takes 3 until t=100; B (2) cannot fit before 100; C (1) fits at once.
    return [job("A", 0, 100, 3), job("B", 1, 50, 2), job("C", 2, 10, 1)]


def test_fifo_head_of_line_blocking_backfill_none():
    # t=0  A starts (free 1).  t=1  B does not fit: with backfill=none the pass stops.
    # t=2  C would fit in the free GPU but B heads the queue and blocks it (rule 3).
    # t=100 A finishes; the pass places B (free 4 -> 2) then C (free 2 -> 1).
    # C ends at 110, B at 150.
    r = run(_hol_jobs(), prop_cluster(4), policy="fifo", backfill="none")
    assert_events(
        r,
        [
            (0, "A", "submit", ""),
            (0, "A", "start", "n0"),
            (1, "B", "submit", ""),
            (2, "C", "submit", ""),
            (100, "A", "finish", "n0"),
            (100, "B", "start", "n0"),
            (100, "C", "start", "n0"),
            (110, "C", "finish", "n0"),
            (150, "B", "finish", "n0"),
        ],
    )
    assert_jobs(
        r,
        {
            "A": (0, 100, 0, 0, "n0"),
            "B": (100, 150, 0, 0, "n0"),
            "C": (100, 110, 0, 0, "n0"),
        },
    )
    assert list(r.unschedulable) == []


def test_fifo_greedy_backfill_same_workload():
    # Same workload, backfill=greedy: at t=2 the pass skips B (does not fit) and starts C,
    # which ends at 12, long before A frees the node at 100 for B.
    r = run(_hol_jobs(), prop_cluster(4), policy="fifo", backfill="greedy")
    assert_events(
        r,
        [
            (0, "A", "submit", ""),
            (0, "A", "start", "n0"),
            (1, "B", "submit", ""),
            (2, "C", "submit", ""),
            (2, "C", "start", "n0"),
            (12, "C", "finish", "n0"),
            (100, "A", "finish", "n0"),
            (100, "B", "start", "n0"),
            (150, "B", "finish", "n0"),
        ],
    )
    assert_jobs(
        r,
        {
            "A": (0, 100, 0, 0, "n0"),
            "B": (100, 150, 0, 0, "n0"),
            "C": (2, 12, 0, 0, "n0"),
        },
    )


def test_priority_puts_te_first_fifo_does_not():
    # One node of 1. A (BE) runs 0..100. At t=5 B (BE) and at t=6 T (TE) queue up.
    # fifo: queue by submit time -> B at 100, T at 110. priority: TE first -> T at 100,
    # B at 110. Neither preempts A.
    jobs = [job("A", 0, 100, 1), job("B", 5, 10, 1), te("T", 6, 10, 1)]
    r = run(jobs, prop_cluster(1), policy="fifo")
    assert_jobs(r, {"A": (0, 100, 0, 0, "n0"), "B": (100, 110, 0, 0, "n0"), "T": (110, 120, 0, 0, "n0")})
    r = run(jobs, prop_cluster(1), policy="priority")
    assert_jobs(r, {"A": (0, 100, 0, 0, "n0"), "T": (100, 110, 0, 0, "n0"), "B": (110, 120, 0, 0, "n0")})
    assert "preempt" not in {e for _, _, e, _ in events_of(r)}


# --------------------------------------------------------------------------- basic preemption


def _one_victim_jobs():
    # Two nodes of 4. X (TE, 4) arrives first and takes n0 (empty nodes tie -> lowest index);
    # B (BE, 4) takes n1 at t=10. T (TE, 1) arrives at t=100 and fits nowhere.
    return [te("X", 0, 5000, 4), job("B", 10, 1000, 4), te("T", 100, 50, 1)]


@pytest.mark.parametrize("policy", PREEMPTIVE)
def test_te_preempts_one_be_job_with_grace_and_takes_its_node(policy):
    # t=100: the only candidate is B (X is TE, never a victim; n0 is out). B is signalled
    #   (progress stops: 90 s done), T is nominated to n1 with reservation min(0, 1) = 0.
    # t=130 (grace 30): B releases n1 and re-queues (keeps submit time 10). The pass:
    #   T (TE first) fits on n1 -> start. B (4) does not fit (n1 has 3 free) -> waits.
    # t=180: T ends; B restarts on n1: restore 60, then the remaining 910 s -> ends 1150.
    r = run(_one_victim_jobs(), prop_cluster(4, 4), policy=policy)
    assert_events(
        r,
        [
            (0, "X", "submit", ""),
            (0, "X", "start", "n0"),
            (10, "B", "submit", ""),
            (10, "B", "start", "n1"),
            (100, "T", "submit", ""),
            (100, "B", "preempt", "n1"),
            (130, "B", "release", "n1"),
            (130, "T", "start", "n1"),
            (180, "T", "finish", "n1"),
            (180, "B", "start", "n1"),
            (1150, "B", "finish", "n1"),
            (5000, "X", "finish", "n0"),
        ],
    )
    assert_jobs(
        r,
        {
            "X": (0, 5000, 0, 0, "n0"),
            "B": (10, 1150, 1, 0, "n1"),
            "T": (130, 180, 0, 0, "n1"),
        },
    )


@pytest.mark.parametrize("policy", ["fifo", "priority"])
def test_non_preemptive_policies_make_te_wait(policy):
    # Same workload: nobody is preempted; T waits until B ends at 1010 on n1.
    r = run(_one_victim_jobs(), prop_cluster(4, 4), policy=policy)
    assert_events(
        r,
        [
            (0, "X", "submit", ""),
            (0, "X", "start", "n0"),
            (10, "B", "submit", ""),
            (10, "B", "start", "n1"),
            (100, "T", "submit", ""),
            (1010, "B", "finish", "n1"),
            (1010, "T", "start", "n1"),
            (1060, "T", "finish", "n1"),
            (5000, "X", "finish", "n0"),
        ],
    )


# --------------------------------------------------------------------------- reservation


@pytest.mark.parametrize("policy", ["k8s", "fitgpp", "lrtp"])
def test_reservation_holds_free_space_for_nominated_te(policy):
    # One node of 4. B1 (3) runs from 0. T (TE, 4) at 100 fits nowhere: victim B1 (only
    # candidate). Nomination reserves min(unreserved free 1, request 4) = 1 (rule 5).
    # t=101: B3 (BE, 1) would fit in the 1 free GPU, but "fits" subtracts T's reservation
    #   (rule 4): 1 - 1 = 0 -> B3 waits.
    # t=130: B1 releases (reservation topped up to 4); T starts. B1 (3) and B3 (1) wait: 0 free.
    # t=180: T ends. Queue B1 (submit 0), B3 (101): both start (3 + 1 = 4).
    #   B3 ends at 190; B1 restores 60 and runs its remaining 900 -> 1140.
    jobs = [job("B1", 0, 1000, 3), te("T", 100, 50, 4), job("B3", 101, 10, 1)]
    r = run(jobs, prop_cluster(4), policy=policy)
    assert_events(
        r,
        [
            (0, "B1", "submit", ""),
            (0, "B1", "start", "n0"),
            (100, "T", "submit", ""),
            (100, "B1", "preempt", "n0"),
            (101, "B3", "submit", ""),
            (130, "B1", "release", "n0"),
            (130, "T", "start", "n0"),
            (180, "T", "finish", "n0"),
            (180, "B1", "start", "n0"),
            (180, "B3", "start", "n0"),
            (190, "B3", "finish", "n0"),
            (1140, "B1", "finish", "n0"),
        ],
    )
    assert_jobs(
        r,
        {
            "B1": (0, 1140, 1, 0, "n0"),
            "T": (130, 180, 0, 0, "n0"),
            "B3": (180, 190, 0, 0, "n0"),
        },
    )


@pytest.mark.parametrize("policy", ["k8s", "fitgpp", "lrtp"])
def test_space_freed_by_a_non_victim_during_grace_is_not_reserved(policy):
    # One node of 4. B1 (2) from 0, B2 (1) from 1 (ends 115). Free 1.
    # t=100: T (TE, 3). Victim set {B1} for every policy (k8s: reprieve B1 first -> free 2 < 3,
    #   so B1 stays a victim; reprieve B2 -> free 3 fits. fitgpp: {B2} infeasible, {B1} fits
    #   exactly. lrtp: B1 has the longest remaining work and suffices). Reservation min(1, 3) = 1.
    # t=101: B3 (1) waits (1 free - 1 reserved = 0).
    # t=115: B2 finishes (not a victim: only victims' releases top the reservation up, rule 5).
    #   T does not fit yet (2 free < 3) and does not block; B3: 2 free - 1 reserved = 1 -> starts.
    # t=125: B3 ends. t=130: B1 releases; reservation 1 + 2 = 3; T fits (4 free) -> starts.
    #   B1 (2) does not fit (1 free). t=180: T ends; B1 restarts: 180 + 60 + 900 = 1140.
    jobs = [job("B1", 0, 1000, 2), job("B2", 1, 114, 1), te("T", 100, 50, 3), job("B3", 101, 10, 1)]
    r = run(jobs, prop_cluster(4), policy=policy)
    assert_events(
        r,
        [
            (0, "B1", "submit", ""),
            (0, "B1", "start", "n0"),
            (1, "B2", "submit", ""),
            (1, "B2", "start", "n0"),
            (100, "T", "submit", ""),
            (100, "B1", "preempt", "n0"),
            (101, "B3", "submit", ""),
            (115, "B2", "finish", "n0"),
            (115, "B3", "start", "n0"),
            (125, "B3", "finish", "n0"),
            (130, "B1", "release", "n0"),
            (130, "T", "start", "n0"),
            (180, "T", "finish", "n0"),
            (180, "B1", "start", "n0"),
            (1140, "B1", "finish", "n0"),
        ],
    )


@pytest.mark.parametrize("policy", ["k8s", "fitgpp"])
def test_nominated_job_placed_on_another_node_that_frees_first(policy):
    # Two nodes of 4. X (TE, 4, ends 110) takes n0; B (BE, 4) takes n1 at t=1.
    # t=100: T (TE, 4): n0 has only TE -> out; victim B on n1; T nominated to n1 (reserves 0).
    # t=110: X finishes. T does not fit on n1 (B still holds it in its grace period) but fits
    #   on n0 -> placed there by the placement rule, its n1 reservation returned (rule 5).
    # t=130: B still releases (victims are not called back) and, n1 being unreserved, B
    #   restarts at once: restore 60 + remaining 1000 - 99 = 901 -> ends 1091.
    jobs = [te("X", 0, 110, 4), job("B", 1, 1000, 4), te("T", 100, 50, 4)]
    r = run(jobs, prop_cluster(4, 4), policy=policy)
    assert_events(
        r,
        [
            (0, "X", "submit", ""),
            (0, "X", "start", "n0"),
            (1, "B", "submit", ""),
            (1, "B", "start", "n1"),
            (100, "T", "submit", ""),
            (100, "B", "preempt", "n1"),
            (110, "X", "finish", "n0"),
            (110, "T", "start", "n0"),
            (130, "B", "release", "n1"),
            (130, "B", "start", "n1"),
            (160, "T", "finish", "n0"),
            (1091, "B", "finish", "n1"),
        ],
    )
    assert_jobs(
        r,
        {
            "X": (0, 110, 0, 0, "n0"),
            "B": (1, 1091, 1, 0, "n1"),
            "T": (110, 160, 0, 0, "n0"),
        },
    )


@pytest.mark.parametrize("policy", ["k8s", "fitgpp"])
def test_backfill_none_nominated_te_does_not_block(policy):
    # backfill=none, three nodes of 4.
    # t=0 D (3) -> n0 (empty nodes tie). t=1 B1 (4) -> n1 (n0 has 1 free; n1, n2 tie).
    # t=2 B2 (3) -> n2. Free: n0 1, n1 0, n2 1.
    # t=100: T (TE, 2) and C (BE, 1) arrive. Queue: T, C. T fits nowhere. k8s: one victim on
    #   every node, the latest victim start wins -> B2 (start 2) on n2; fitgpp: every 1-victim
    #   set leaves slack (1 + 3 - 2)/4 or (0 + 4 - 2)/4 = 0.5 per dim, lost work 0, no past
    #   preemptions, then the latest start -> B2 too. T reserves min(1, 2) = 1 on n2.
    #   A TE job that triggered a preemption does not stop the pass: C fits on n0 -> starts.
    # t=105 C ends. t=110 F (1) arrives: T is nominated and waiting, it does not block: F -> n0.
    # t=130: B2 releases; T fits on n2 -> starts. B2 (3) fits nowhere -> pass stops.
    # t=180: T ends; B2 restarts on n2: 180 + 60 + (1000 - 98) = 1142.
    jobs = [
        job("D", 0, 5000, 3),
        job("B1", 1, 5000, 4),
        job("B2", 2, 1000, 3),
        te("T", 100, 50, 2),
        job("C", 100, 5, 1),
        job("F", 110, 5, 1),
    ]
    r = run(jobs, prop_cluster(4, 4, 4), policy=policy, backfill="none")
    assert_events(
        r,
        [
            (0, "D", "submit", ""),
            (0, "D", "start", "n0"),
            (1, "B1", "submit", ""),
            (1, "B1", "start", "n1"),
            (2, "B2", "submit", ""),
            (2, "B2", "start", "n2"),
            (100, "T", "submit", ""),
            (100, "C", "submit", ""),
            (100, "B2", "preempt", "n2"),
            (100, "C", "start", "n0"),
            (105, "C", "finish", "n0"),
            (110, "F", "submit", ""),
            (110, "F", "start", "n0"),
            (115, "F", "finish", "n0"),
            (130, "B2", "release", "n2"),
            (130, "T", "start", "n2"),
            (180, "T", "finish", "n2"),
            (180, "B2", "start", "n2"),
            (1142, "B2", "finish", "n2"),
            (5000, "D", "finish", "n0"),
            (5001, "B1", "finish", "n1"),
        ],
    )


# --------------------------------------------------------------------------- grace = 0


@pytest.mark.parametrize("policy", ["k8s", "fitgpp", "lrtp"])
def test_grace_zero_preempt_release_start_in_one_pass(policy):
    # n0 (cpu 8, mem 8, gpu 4), n1 (cpu 2, mem 8, gpu 4); first_fit; grace 0.
    # t=0 B (gpu 4, cpu 1, mem 1) -> n0 (first fit).
    # t=100 T (TE, gpu 1, cpu 4, mem 1): n0 has no GPU free, n1 too few CPUs. Victim B on n0.
    #   grace = 0: B is signalled and releases inside this pass, T is placed at once on n0.
    #   B rejoins the queue only from the next pass on, so although it would fit on n1 now it
    #   does not start at 100.
    # t=120 C (BE, gpu 0, cpu 1, mem 1) arrives -> a pass: B (submit 0) first: n0 has 3 GPUs
    #   free -> n1 (first fit): restore 60 + remaining 900 -> ends 1080. C fits n0 -> 120..125.
    # t=150 T ends.
    cl = cluster_of((8, 8, 4), (2, 8, 4))
    jobs = [
        job("B", 0, 1000, 4, cpu=1, mem=1),
        te("T", 100, 50, 1, cpu=4, mem=1),
        job("C", 120, 5, 0, cpu=1, mem=1),
    ]
    r = run(jobs, cl, policy=policy, grace=0, placement="first_fit")
    assert_events(
        r,
        [
            (0, "B", "submit", ""),
            (0, "B", "start", "n0"),
            (100, "T", "submit", ""),
            (100, "B", "preempt", "n0"),
            (100, "B", "release", "n0"),
            (100, "T", "start", "n0"),
            (120, "C", "submit", ""),
            (120, "B", "start", "n1"),
            (120, "C", "start", "n0"),
            (125, "C", "finish", "n0"),
            (150, "T", "finish", "n0"),
            (1080, "B", "finish", "n1"),
        ],
    )
    assert_jobs(
        r,
        {
            "B": (0, 1080, 1, 0, "n1"),
            "T": (100, 150, 0, 0, "n0"),
            "C": (120, 125, 0, 0, "n0"),
        },
    )


# --------------------------------------------------------------------------- P and s caps


def _two_te_jobs():
    # One node of 4. B (4) from 0, duration 1000. T1 (TE, 4) at 100, T2 (TE, 4) at 300.
    return [job("B", 0, 1000, 4), te("T1", 100, 50, 4), te("T2", 300, 50, 4)]


_FIRST_PREEMPTION = [
    (0, "B", "submit", ""),
    (0, "B", "start", "n0"),
    (100, "T1", "submit", ""),
    (100, "B", "preempt", "n0"),
    (130, "B", "release", "n0"),
    (130, "T1", "start", "n0"),
    (180, "T1", "finish", "n0"),
    (180, "B", "start", "n0"),
    (300, "T2", "submit", ""),
]


def test_fitgpp_P1_does_not_preempt_twice():
    # t=100: B (0 preemptions < P=1) is preempted after 100 s of progress; T1 runs 130..180;
    # B restarts at 180 (restore until 240). t=300: B has 1 preemption = P -> not a candidate:
    # no victims, T2 waits. B ends 240 + 900 = 1140; T2 runs 1140..1190.
    r = run(_two_te_jobs(), prop_cluster(4), policy="fitgpp", P=1)
    assert_events(
        r,
        _FIRST_PREEMPTION
        + [
            (1140, "B", "finish", "n0"),
            (1140, "T2", "start", "n0"),
            (1190, "T2", "finish", "n0"),
        ],
    )
    assert_jobs(r, {"B": (0, 1140, 1, 0, "n0"), "T1": (130, 180, 0, 0, "n0"), "T2": (1140, 1190, 0, 0, "n0")})


@pytest.mark.parametrize(("policy", "P"), [("fitgpp", 2), ("k8s", 2), ("k8s", 0), ("lrtp", 0)])
def test_second_preemption_without_cap(policy, P):
    # fitgpp with P=2, and the baselines (no cap whatever P says): at t=300 B is running
    # again (restore ended at 240, progress 100 + 60 = 160) and is preempted again.
    # T2 runs 330..380; B restarts at 380, restores until 440, runs its remaining 840 -> 1280.
    r = run(_two_te_jobs(), prop_cluster(4), policy=policy, P=P)
    assert_events(
        r,
        _FIRST_PREEMPTION
        + [
            (300, "B", "preempt", "n0"),
            (330, "B", "release", "n0"),
            (330, "T2", "start", "n0"),
            (380, "T2", "finish", "n0"),
            (380, "B", "start", "n0"),
            (1280, "B", "finish", "n0"),
        ],
    )
    assert_jobs(r, {"B": (0, 1280, 2, 0, "n0"), "T1": (130, 180, 0, 0, "n0"), "T2": (330, 380, 0, 0, "n0")})


def test_fitgpp_P0_never_preempts():
    # P=0: no BE job is ever a candidate. T1 waits for B (ends 1000), T2 for T1 (ends 1050).
    r = run(_two_te_jobs(), prop_cluster(4), policy="fitgpp", P=0)
    assert_jobs(r, {"B": (0, 1000, 0, 0, "n0"), "T1": (1000, 1050, 0, 0, "n0"), "T2": (1050, 1100, 0, 0, "n0")})


_WHOLE_NODE = [
    # node (cpu 64, mem 512, gpu 8). B: dominant share max(8/64, 64/512, 8/8) = 1.
    # T: max(1/64, 8/512, 1/8) = 0.125.
    job("B", 0, 1000, 8, cpu=8, mem=64),
    te("T", 100, 50, 1, cpu=1, mem=8),
]


@pytest.mark.parametrize("s", [math.inf, 10.0, 8.0])
def test_fitgpp_s_cap_allows(s):
    # s x 0.125 >= 1 for s = inf, 10 and 8 (the boundary: "at most s times") -> B is a
    # candidate: preempted at 100, T runs 130..180, B restarts 180 + 60 + 900 = 1140.
    r = run(_WHOLE_NODE, cluster_of((64, 512, 8)), policy="fitgpp", s=s)
    assert_events(
        r,
        [
            (0, "B", "submit", ""),
            (0, "B", "start", "n0"),
            (100, "T", "submit", ""),
            (100, "B", "preempt", "n0"),
            (130, "B", "release", "n0"),
            (130, "T", "start", "n0"),
            (180, "T", "finish", "n0"),
            (180, "B", "start", "n0"),
            (1140, "B", "finish", "n0"),
        ],
    )


@pytest.mark.parametrize("s", [4.0, 7.9])
def test_fitgpp_s_cap_protects_big_victim(s):
    # s x 0.125 < 1 -> B is protected; T waits until B ends at 1000.
    r = run(_WHOLE_NODE, cluster_of((64, 512, 8)), policy="fitgpp", s=s)
    assert_events(
        r,
        [
            (0, "B", "submit", ""),
            (0, "B", "start", "n0"),
            (100, "T", "submit", ""),
            (1000, "B", "finish", "n0"),
            (1000, "T", "start", "n0"),
            (1050, "T", "finish", "n0"),
        ],
    )


def test_s_cap_belongs_to_fitgpp_only():
    # k8s ignores s (and P): B is preempted even with s = 4.
    r = run(_WHOLE_NODE, cluster_of((64, 512, 8)), policy="k8s", s=4.0, P=0)
    assert (100.0, "B", "preempt", "n0") in events_of(r)


# --------------------------------------------------------------------------- checkpoints


def _ckpt_jobs():
    # One node of 4. B (4, duration 1000) from 0; T1 (TE, 1) at 250; T2 (TE, 4) at 500.
    return [job("B", 0, 1000, 4), te("T1", 250, 50, 1), te("T2", 500, 50, 4)]


@pytest.mark.parametrize(
    ("mode", "finish", "lost"),
    [
        # on_preempt: nothing lost. Progress 250 (0..250) + 110 (390..500) = 360; the last
        # run restores 580..640 and does the remaining 640 -> 1280.
        ("on_preempt", 1280, 0),
        # periodic, interval 100: at 250 attained 250, kept 200, lost 50. Second run restores
        # 330..390, runs 390..500: attained 200 + 110 = 310, kept 300, lost 10. Last run:
        # 640 + 700 = 1340. Lost 60.
        ("periodic", 1340, 60),
        # none: lost 250, then lost 110, restart from scratch: 640 + 1000 = 1640. Lost 360.
        ("none", 1640, 360),
    ],
)
@pytest.mark.parametrize("policy", ["k8s", "fitgpp", "lrtp"])
def test_checkpoint_modes_lose_exact_work(mode, finish, lost, policy):
    # t=250: T1 fits nowhere (B holds all 4) -> B preempted (its only candidate), release 280,
    #   T1 runs 280..330 (B needs 4, waits while T1 holds 1). B restarts at 330 (restore till 390).
    # t=500: T2 (4) -> B preempted again (fitgpp: 1 < P=2), release 530, T2 runs 530..580,
    #   B restarts at 580, restores until 640, then runs what it has left.
    r = run(_ckpt_jobs(), prop_cluster(4), policy=policy, checkpoint=mode, checkpoint_interval=100)
    assert_events(
        r,
        [
            (0, "B", "submit", ""),
            (0, "B", "start", "n0"),
            (250, "T1", "submit", ""),
            (250, "B", "preempt", "n0"),
            (280, "B", "release", "n0"),
            (280, "T1", "start", "n0"),
            (330, "T1", "finish", "n0"),
            (330, "B", "start", "n0"),
            (500, "T2", "submit", ""),
            (500, "B", "preempt", "n0"),
            (530, "B", "release", "n0"),
            (530, "T2", "start", "n0"),
            (580, "T2", "finish", "n0"),
            (580, "B", "start", "n0"),
            (finish, "B", "finish", "n0"),
        ],
    )
    assert_jobs(
        r,
        {
            "B": (0, finish, 2, lost, "n0"),
            "T1": (280, 330, 0, 0, "n0"),
            "T2": (530, 580, 0, 0, "n0"),
        },
    )


# --------------------------------------------------------------------------- restore


@pytest.mark.parametrize(
    ("restore", "checkpoint", "finish", "lost"),
    [
        # restore 60, on_preempt: progress 100 (0..100); restart at 180 restoring until 240;
        # preempted at 200 DURING restore (progress 0); restart at 280 pays restore again:
        # 280 + 60 + 900 = 1240.
        (60, "on_preempt", 1240, 0),
        # checkpoint none: 100 lost at t=100; nothing more lost at 200 (no progress);
        # the last run restores 280..340 then runs 1000 -> 1340.
        (60, "none", 1340, 100),
        # restore 0: progress 100 + 20 (180..200); last run 280 + 880 = 1160.
        (0, "on_preempt", 1160, 0),
    ],
)
@pytest.mark.parametrize("policy", ["k8s", "fitgpp", "lrtp"])
def test_restore_paid_on_every_restart_and_again_after_preemption_during_restore(
    restore, checkpoint, finish, lost, policy
):
    # One node of 4. B (4) from 0 (first start: no restore). T1 (TE, 4) at 100 preempts B;
    # release 130; T1 130..180; B restarts 180. T2 (TE, 4) at 200 preempts B again (it is
    # running, even if restoring; fitgpp: 1 < P=2); release 230; T2 230..280; B restarts 280.
    jobs = [job("B", 0, 1000, 4), te("T1", 100, 50, 4), te("T2", 200, 50, 4)]
    r = run(jobs, prop_cluster(4), policy=policy, restore=restore, checkpoint=checkpoint)
    assert_events(
        r,
        [
            (0, "B", "submit", ""),
            (0, "B", "start", "n0"),
            (100, "T1", "submit", ""),
            (100, "B", "preempt", "n0"),
            (130, "B", "release", "n0"),
            (130, "T1", "start", "n0"),
            (180, "T1", "finish", "n0"),
            (180, "B", "start", "n0"),
            (200, "T2", "submit", ""),
            (200, "B", "preempt", "n0"),
            (230, "B", "release", "n0"),
            (230, "T2", "start", "n0"),
            (280, "T2", "finish", "n0"),
            (280, "B", "start", "n0"),
            (finish, "B", "finish", "n0"),
        ],
    )
    assert_jobs(
        r,
        {
            "B": (0, finish, 2, lost, "n0"),
            "T1": (130, 180, 0, 0, "n0"),
            "T2": (230, 280, 0, 0, "n0"),
        },
    )


# --------------------------------------------------------------------------- victim rules


def _three_rules_jobs():
    # Two nodes of 8. X (TE, 8, ends 5) holds n0 so that C (2, t=1) and D (6, t=2) go to n1;
    # A (8) takes n0 at t=10. At t=100 T (TE, 2) fits nowhere.
    return [
        te("X", 0, 5, 8),
        job("C", 1, 2000, 2),
        job("D", 2, 3000, 6),
        job("A", 10, 1000, 8),
        te("T", 100, 50, 2),
    ]


_THREE_RULES_PREFIX = [
    (0, "X", "submit", ""),
    (0, "X", "start", "n0"),
    (1, "C", "submit", ""),
    (1, "C", "start", "n1"),
    (2, "D", "submit", ""),
    (2, "D", "start", "n1"),
    (5, "X", "finish", "n0"),
    (10, "A", "submit", ""),
    (10, "A", "start", "n0"),
    (100, "T", "submit", ""),
]


def test_k8s_victim_latest_start_node():
    # k8s on n0: {A}. On n1: all of {C, D} fit T; reprieve longest-running first: C (start 1)
    #   comes back (free 6 >= 2), D (start 2) cannot (free 0) -> {D}.
    # Node choice: both 1 victim; latest earliest-victim-start: A (10) > D (2) -> n0, victim A.
    # A preempted after 90 s; release 130; T on n0 130..180; A restarts 180 + 60 + 910 = 1150.
    r = run(_three_rules_jobs(), prop_cluster(8, 8), policy="k8s")
    assert_events(
        r,
        _THREE_RULES_PREFIX
        + [
            (100, "A", "preempt", "n0"),
            (130, "A", "release", "n0"),
            (130, "T", "start", "n0"),
            (180, "T", "finish", "n0"),
            (180, "A", "start", "n0"),
            (1150, "A", "finish", "n0"),
            (2001, "C", "finish", "n1"),
            (3002, "D", "finish", "n1"),
        ],
    )


def test_fitgpp_victim_tightest_fit():
    # fitgpp: 1-victim sets, L1 over 3 dims of (free + victims - T)/cap:
    #   {A} on n0: 3 x (0 + 8 - 2)/8 = 2.25; {C} on n1: 3 x (0 + 2 - 2)/8 = 0;
    #   {D} on n1: 3 x (6 - 2)/8 = 1.5.  -> {C} (shaped like T) on n1.
    # C preempted after 99 s; release 130; T on n1 130..180; C restarts on n1 at 180
    # (n0 is full with A): 180 + 60 + 1901 = 2141. A ends 1010, D 3002.
    r = run(_three_rules_jobs(), prop_cluster(8, 8), policy="fitgpp")
    assert_events(
        r,
        _THREE_RULES_PREFIX
        + [
            (100, "C", "preempt", "n1"),
            (130, "C", "release", "n1"),
            (130, "T", "start", "n1"),
            (180, "T", "finish", "n1"),
            (180, "C", "start", "n1"),
            (1010, "A", "finish", "n0"),
            (2141, "C", "finish", "n1"),
            (3002, "D", "finish", "n1"),
        ],
    )


def test_lrtp_victim_longest_remaining_node():
    # lrtp: remaining work at 100: A 910, C 1901, D 2902. n0: {A} (min remaining 910).
    #   n1: add D (longest) -> free 6 >= 2 fits -> {D} (min remaining 2902).
    #   Both 1 victim; the largest minimum remaining -> n1, victim D.
    # D preempted at 100; release 130; T on n1 (6 free) 130..180; D (6) waits for T (4 free),
    # restarts 180: 180 + 60 + 2902 = 3142. A ends 1010, C 2001.
    r = run(_three_rules_jobs(), prop_cluster(8, 8), policy="lrtp")
    assert_events(
        r,
        _THREE_RULES_PREFIX
        + [
            (100, "D", "preempt", "n1"),
            (130, "D", "release", "n1"),
            (130, "T", "start", "n1"),
            (180, "T", "finish", "n1"),
            (180, "D", "start", "n1"),
            (1010, "A", "finish", "n0"),
            (2001, "C", "finish", "n1"),
            (3142, "D", "finish", "n1"),
        ],
    )


def test_lrtp_reprieves_unneeded_candidates():
    # One node of 8: F (2, remaining 4900 at t=100), E (4, remaining 2901), G (2, remaining 902).
    # T (TE, 4) at 100. lrtp adds F (free 2 < 4), then E (free 6 >= 4): fits. Reprieve in
    # reverse order: E is needed (without it free 2), F is not (free 4 without F) -> {E}.
    # E: release 130, T 130..180, E restarts 180 + 60 + 2901 = 3141.
    jobs = [job("F", 0, 5000, 2), job("E", 1, 3000, 4), job("G", 2, 1000, 2), te("T", 100, 50, 4)]
    r = run(jobs, prop_cluster(8), policy="lrtp")
    assert_events(
        r,
        [
            (0, "F", "submit", ""),
            (0, "F", "start", "n0"),
            (1, "E", "submit", ""),
            (1, "E", "start", "n0"),
            (2, "G", "submit", ""),
            (2, "G", "start", "n0"),
            (100, "T", "submit", ""),
            (100, "E", "preempt", "n0"),
            (130, "E", "release", "n0"),
            (130, "T", "start", "n0"),
            (180, "T", "finish", "n0"),
            (180, "E", "start", "n0"),
            (1002, "G", "finish", "n0"),
            (3141, "E", "finish", "n0"),
            (5000, "F", "finish", "n0"),
        ],
    )


def test_k8s_reprieves_longest_running_first():
    # One node of 8: P1 (4, start 0), P2 (2, start 1), P3 (2, start 2). T (TE, 6) at 100.
    # Remove all: free 8. Reprieve P1 (earliest): free 4 < 6 -> victim. P2: free 6 -> reprieved.
    # P3: free 4 -> victim. Victims {P1, P3}: the reprieve order keeps P2 (the earlier start)
    # and lets P3 go, although both are the same size.
    jobs = [job("P1", 0, 1000, 4), job("P2", 1, 1000, 2), job("P3", 2, 1000, 2), te("T", 100, 50, 6)]
    r = run(jobs, prop_cluster(8), policy="k8s")
    ev = events_of(r)
    pre = sorted(j for t, j, e, _ in ev if e == "preempt")
    assert pre == ["P1", "P3"], ev


def test_fitgpp_prefers_fewer_victims_then_least_past_preemptions():
    # Two nodes of 4. n0: B0 (4, t=0). n1: B1 (4, t=1). T1 (TE, 4) at 100: one victim either
    # node; ties (slack 0, lost 0, no past preemptions) -> the latest earliest start: B1 (n1).
    # B1 releases at 130, T1 runs on n1 130..140; B1 restarts on n1 at 140 (restore until 200).
    # T2 (TE, 4) at 300: B0 (0 past preemptions, start 0) vs B1 (1 past preemption, current
    # segment start 140): rule 4 says fewer past preemptions first -> B0 on n0, although B1
    # started later.
    jobs = [job("B0", 0, 5000, 4), job("B1", 1, 5000, 4), te("T1", 100, 10, 4), te("T2", 300, 10, 4)]
    r = run(jobs, prop_cluster(4, 4), policy="fitgpp")
    pre = [(t, j, n) for t, j, e, n in events_of(r) if e == "preempt"]
    assert pre == [(100.0, "B1", "n1"), (300.0, "B0", "n0")]


# --------------------------------------------------------------------------- random


def _random_jobs(with_blocked_te: bool):
    # n0 (cpu 128) holds X (TE, cpu 100) for a long time; n1 and n2 (cpu 64) hold B0, B1 (gpu 4).
    # T (TE, gpu 1) at 100: feasible nodes n1 and n2, one candidate each -> victim by the seed.
    # With with_blocked_te, T0 (TE, cpu 100) at 50 can only ever go on n0, whose only job is TE:
    # no node is feasible for it, so the generator must not be drawn from (DESIGN 4, random).
    jobs = [
        te("X", 0, 10000, 4, cpu=100, mem=1),
        job("B0", 1, 1000, 4, cpu=1, mem=1),
        job("B1", 2, 1000, 4, cpu=1, mem=1),
        te("T", 100, 50, 1, cpu=1, mem=1),
    ]
    if with_blocked_te:
        jobs.append(te("T0", 50, 10, 0, cpu=100, mem=1))
    return jobs


_RANDOM_CLUSTER = ((128, 512, 4), (64, 512, 4), (64, 512, 4))


def _victim(r):
    pre = [(j, n) for _, j, e, n in events_of(r) if e == "preempt"]
    assert len(pre) == 1, pre
    return pre[0]


def test_random_deterministic_and_seeded():
    cl = cluster_of(*_RANDOM_CLUSTER)
    victims = set()
    for seed in range(16):
        a = run(_random_jobs(False), cl, policy="random", seed=seed, placement="first_fit")
        b = run(_random_jobs(False), cl, policy="random", seed=seed, placement="first_fit")
        assert a.events_frame.equals(b.events_frame)
        assert a.jobs_frame.equals(b.jobs_frame)
        v = _victim(a)
        assert v in {("B0", "n1"), ("B1", "n2")}
        victims.add(v)
        # the victim's node hosts T (it frees first) and the victim restarts there at 180
        assert (130.0, "T", "start", v[1]) in events_of(a)
        assert (180.0, v[0], "start", v[1]) in events_of(a)
    # a uniform pick over two nodes: 16 seeds giving one node only would be a 2**-15 event
    assert victims == {("B0", "n1"), ("B1", "n2")}


def test_random_draws_only_when_some_node_is_feasible():
    cl = cluster_of(*_RANDOM_CLUSTER)
    for seed in range(16):
        plain = run(_random_jobs(False), cl, policy="random", seed=seed, placement="first_fit")
        blocked = run(_random_jobs(True), cl, policy="random", seed=seed, placement="first_fit")
        assert _victim(plain) == _victim(blocked), f"seed {seed}: infeasible searches consumed randomness"
        t0 = blocked.jobs_frame.set_index("job_id").loc["T0"]
        assert (t0.first_start, t0.node) == (10000.0, "n0")


# --------------------------------------------------------------------------- unschedulable


@pytest.mark.parametrize("policy", ["fifo", "k8s", "fitgpp"])
def test_unschedulable_jobs_listed_and_not_simulated(policy):
    # n0 (cpu 8, mem 64, gpu 0), n1 (cpu 2, mem 64, gpu 4).
    # U1 (gpu 8) fits no node; U2 (cpu 4, gpu 1) fits neither (n0 has no GPU, n1 too few CPUs)
    # although the cluster's sum would hold it. A (gpu 1, cpu 1) -> n1; Z (cpu 4, gpu 0) -> n0.
    cl = cluster_of((8, 64, 0), (2, 64, 4))
    jobs = [
        job("A", 0, 10, 1, cpu=1, mem=1),
        te("U1", 1, 10, 8, cpu=1, mem=1),
        job("U2", 2, 10, 1, cpu=4, mem=1),
        job("Z", 5, 10, 0, cpu=4, mem=1),
    ]
    r = run(jobs, cl, policy=policy)
    assert sorted(r.unschedulable) == ["U1", "U2"]
    assert_events(
        r,
        [
            (0, "A", "submit", ""),
            (0, "A", "start", "n1"),
            (5, "Z", "submit", ""),
            (5, "Z", "start", "n0"),
            (10, "A", "finish", "n1"),
            (15, "Z", "finish", "n0"),
        ],
    )
    assert_jobs(r, {"A": (0, 10, 0, 0, "n1"), "Z": (5, 15, 0, 0, "n0")})


# --------------------------------------------------------------------------- event order


@pytest.mark.parametrize("policy", ["k8s", "fitgpp"])
def test_event_order_within_an_instant(policy):
    # One node of 8. B (BE, 4) from 0; F (TE, 3) from 1, ends 130. T (TE, 4) at 100: free 1
    # -> victim B (the only BE job); T reserves min(1, 4) = 1.
    # t=130: F finishes, B releases (grace 30), S (BE, 3) arrives -- logged in that order --
    #   then one pass: T (TE first; reservation topped up to 4, free 8) starts; B (submit 0,
    #   4) fits the remaining 4 and restarts (restore) -> 130 + 60 + 900 = 1090; S (3) waits.
    # t=180: T ends; S starts, ends 190.
    jobs = [job("B", 0, 1000, 4), te("F", 1, 129, 3), te("T", 100, 50, 4), job("S", 130, 10, 3)]
    r = run(jobs, prop_cluster(8), policy=policy)
    assert_events(
        r,
        [
            (0, "B", "submit", ""),
            (0, "B", "start", "n0"),
            (1, "F", "submit", ""),
            (1, "F", "start", "n0"),
            (100, "T", "submit", ""),
            (100, "B", "preempt", "n0"),
            (130, "F", "finish", "n0"),
            (130, "B", "release", "n0"),
            (130, "S", "submit", ""),
            (130, "T", "start", "n0"),
            (130, "B", "start", "n0"),
            (180, "T", "finish", "n0"),
            (180, "S", "start", "n0"),
            (190, "S", "finish", "n0"),
            (1090, "B", "finish", "n0"),
        ],
    )


def test_finish_processed_before_arrival_at_same_instant():
    # fifo, one node of 2, backfill none. A (2) runs 0..100. B (2) arrives exactly at 100:
    # the finish is processed first, so B starts at 100 with wait 0.
    r = run([job("A", 0, 100, 2), job("B", 100, 10, 2)], prop_cluster(2), policy="fifo", backfill="none")
    assert_events(
        r,
        [
            (0, "A", "submit", ""),
            (0, "A", "start", "n0"),
            (100, "A", "finish", "n0"),
            (100, "B", "submit", ""),
            (100, "B", "start", "n0"),
            (110, "B", "finish", "n0"),
        ],
    )


# --------------------------------------------------------------------------- queue order


def _starts(r):
    return [j for _, j, e, _ in events_of(r) if e == "start"]


def test_queue_order_numeric_ids():
    # One node of 1. "1" runs 0..100; "10", "9", "100" arrive together at 5. Every id is an
    # integer -> numeric order 9, 10, 100 (starts 100, 110, 120).
    jobs = [job(1, 0, 100, 1), job(10, 5, 10, 1), job(9, 5, 10, 1), job(100, 5, 10, 1)]
    r = run(jobs, prop_cluster(1), policy="fifo")
    assert _starts(r) == ["1", "9", "10", "100"]
    assert_jobs(
        r,
        {
            "1": (0, 100, 0, 0, "n0"),
            "9": (100, 110, 0, 0, "n0"),
            "10": (110, 120, 0, 0, "n0"),
            "100": (120, 130, 0, 0, "n0"),
        },
    )


def test_queue_order_string_ids():
    # Same, plus "a": not every id is an integer -> string order "10" < "100" < "9" < "a".
    jobs = [job(1, 0, 100, 1), job(10, 5, 10, 1), job(9, 5, 10, 1), job(100, 5, 10, 1), job("a", 5, 10, 1)]
    r = run(jobs, prop_cluster(1), policy="fifo")
    assert _starts(r) == ["1", "10", "100", "9", "a"]


@pytest.mark.parametrize(
    ("policy", "order"), [("fifo", ["1", "9", "10", "100"]), ("priority", ["1", "100", "9", "10"])]
)
def test_queue_order_class_first_except_fifo(policy, order):
    # "100" is TE: priority puts it first (class, then submit, then id); fifo does not.
    jobs = [job(1, 0, 100, 1), job(10, 5, 10, 1), job(9, 5, 10, 1), te(100, 5, 10, 1)]
    r = run(jobs, prop_cluster(1), policy=policy)
    assert _starts(r) == order


def test_preempted_job_keeps_submit_time_in_queue():
    # k8s, one node of 4. B (4) from 0; L (BE, 4) queued at 50; T (TE, 4) at 100 preempts B.
    # T runs 130..180; at 180 B (submit 0) is ahead of L (submit 50) -> B restarts first
    # (180 + 60 + 900 = 1140), L waits until 1140 and ends 1150.
    jobs = [job("B", 0, 1000, 4), job("L", 50, 10, 4), te("T", 100, 50, 4)]
    r = run(jobs, prop_cluster(4), policy="k8s")
    assert_jobs(r, {"B": (0, 1140, 1, 0, "n0"), "L": (1140, 1150, 0, 0, "n0"), "T": (130, 180, 0, 0, "n0")})


# --------------------------------------------------------------------------- placement


@pytest.mark.parametrize(("placement", "node"), [("first_fit", "n1"), ("best_fit", "n2"), ("worst_fit", "n3")])
def test_placement_rules_and_ties(placement, node):
    # Nodes of 1, 8, 4, 16, 16, 4 (prop). J (2): n0 too small.
    # Slack (free - 2)/cap: n1 0.75, n2 0.5, n3 0.875, n4 0.875, n5 0.5.
    # first_fit -> n1; best_fit -> least 0.5, tie n2/n5 -> n2; worst_fit -> 0.875, tie n3/n4 -> n3.
    r = run([job("J", 0, 10, 2)], prop_cluster(1, 8, 4, 16, 16, 4), placement=placement)
    assert_events(r, [(0, "J", "submit", ""), (0, "J", "start", node), (10, "J", "finish", node)])


def test_best_fit_uses_max_over_dimensions():
    # n0 (cpu 10, mem 10, gpu 4), n1 (cpu 4, mem 4, gpu 8); J (cpu 2, mem 2, gpu 2).
    # n0: max(8/10, 8/10, 2/4) = 0.8; n1: max(2/4, 2/4, 6/8) = 0.75 -> best_fit n1, worst_fit n0.
    cl = cluster_of((10, 10, 4), (4, 4, 8))
    assert _placed(run([job("J", 0, 10, 2)], cl, placement="best_fit")) == "n1"
    assert _placed(run([job("J", 0, 10, 2)], cl, placement="worst_fit")) == "n0"


def _placed(r):
    return next(n for _, _, e, n in events_of(r) if e == "start")


def test_worst_fit_tie_rounded_to_1e9():
    # Two nodes of 1 (prop), worst_fit. a (0.3) -> n0 (tie). b1 (0.1) -> n1 (slack 0.9 > 0.6).
    # b2 (0.2) -> n1 (0.7 > 0.5). Now free n0 = 1 - 0.3, n1 = 1 - 0.1 - 0.2 (= 0.7 up to one
    # ulp). J (0.5): slacks 0.2 and 0.2 + ~1e-16: equal once rounded to 1e-9 -> lowest index n0.
    jobs = [job("a", 0, 100, 0.3), job("b1", 1, 100, 0.1), job("b2", 2, 100, 0.2), job("J", 3, 10, 0.5)]
    r = run(jobs, prop_cluster(1, 1), placement="worst_fit")
    placed = {j: n for _, j, e, n in events_of(r) if e == "start"}
    assert placed == {"a": "n0", "b1": "n1", "b2": "n1", "J": "n0"}


# --------------------------------------------------------------------------- more preemption rules


@pytest.mark.parametrize("policy", ["k8s", "fitgpp"])
def test_two_te_jobs_in_one_pass_pick_distinct_victims(policy):
    # One node of 4: B1 (2, start 0), B2 (2, start 1). T1 (TE, 2, 50 s) and T2 (TE, 2, 60 s)
    # arrive at 100; queue T1, T2 (same class and time, id order).
    # T1: k8s removes both, reprieves B1 (earliest start; free 2 fits), B2 cannot come back
    #   -> {B2}; fitgpp: {B1} and {B2} tie on slack, lost work and past preemptions, the latest
    #   start wins -> {B2}. T1 reserves min(0, 2) = 0.
    # T2: B2 is preempting: not a candidate and its resources count as used (rule 4). Removing
    #   B1 gives 2 free, T1 reserves nothing yet -> {B1}.
    # t=130: both release; T1 and T2 start. t=180 T1 ends: B1 (submit 0) restarts
    #   180 + 60 + 900 = 1140. t=190 T2 ends: B2 restarts 190 + 60 + 901 = 1151.
    jobs = [job("B1", 0, 1000, 2), job("B2", 1, 1000, 2), te("T1", 100, 50, 2), te("T2", 100, 60, 2)]
    r = run(jobs, prop_cluster(4), policy=policy)
    assert_events(
        r,
        [
            (0, "B1", "submit", ""),
            (0, "B1", "start", "n0"),
            (1, "B2", "submit", ""),
            (1, "B2", "start", "n0"),
            (100, "T1", "submit", ""),
            (100, "T2", "submit", ""),
            (100, "B2", "preempt", "n0"),
            (100, "B1", "preempt", "n0"),
            (130, "B1", "release", "n0"),
            (130, "B2", "release", "n0"),
            (130, "T1", "start", "n0"),
            (130, "T2", "start", "n0"),
            (180, "T1", "finish", "n0"),
            (180, "B1", "start", "n0"),
            (190, "T2", "finish", "n0"),
            (190, "B2", "start", "n0"),
            (1140, "B1", "finish", "n0"),
            (1151, "B2", "finish", "n0"),
        ],
    )


@pytest.mark.parametrize("policy", ["k8s", "fitgpp", "lrtp", "random"])
def test_preempting_job_is_not_a_candidate_for_a_second_te(policy):
    # One node of 4: B (4). T1 and T2 (TE, 2 each) at 100. T1 takes B as victim (reserves 0).
    # T2: the only BE job is preempting -> no victims, T2 simply waits (not nominated).
    # t=130: B releases; T1's reservation is topped up to 2 and T1 starts; the other 2 GPUs
    # are free and unreserved, so T2 starts too. B waits for T1 and T2 (ends 180 and 190):
    # 190 + 60 + 900 = 1150.
    jobs = [job("B", 0, 1000, 4), te("T1", 100, 50, 2), te("T2", 100, 60, 2)]
    r = run(jobs, prop_cluster(4), policy=policy)
    assert_events(
        r,
        [
            (0, "B", "submit", ""),
            (0, "B", "start", "n0"),
            (100, "T1", "submit", ""),
            (100, "T2", "submit", ""),
            (100, "B", "preempt", "n0"),
            (130, "B", "release", "n0"),
            (130, "T1", "start", "n0"),
            (130, "T2", "start", "n0"),
            (180, "T1", "finish", "n0"),
            (190, "T2", "finish", "n0"),
            (190, "B", "start", "n0"),
            (1150, "B", "finish", "n0"),
        ],
    )


@pytest.mark.parametrize("policy", ["k8s", "fitgpp", "lrtp", "random"])
def test_nominated_te_triggers_no_further_preemption(policy):
    # Two nodes of 4: B1 (4) on n0 from 0, B2 (4) on n1 from 1. T (TE, 4) at 100 takes one
    # victim. At 110 C (BE, 1) arrives and a pass runs: T is nominated and waiting, so it must
    # not preempt the other BE job. Exactly one preemption; T starts at 130.
    jobs = [job("B1", 0, 1000, 4), job("B2", 1, 1000, 4), te("T", 100, 50, 4), job("C", 110, 5, 1)]
    r = run(jobs, prop_cluster(4, 4), policy=policy)
    ev = events_of(r)
    pre = [(t, j) for t, j, e, _ in ev if e == "preempt"]
    assert len(pre) == 1 and pre[0][0] == 100.0, pre
    assert r.jobs_frame.set_index("job_id").loc["T", "first_start"] == 130.0


@pytest.mark.parametrize(("backfill", "b_start"), [("none", 100), ("greedy", 20)])
def test_te_without_victims_blocks_under_backfill_none(backfill, b_start):
    # One node of 4, k8s. X (TE, 3) runs 0..100. T (TE, 2) at 10: does not fit, and the node
    # holds only TE work -> no victims; T waits. B (BE, 1) at 20 would fit in the free GPU:
    # backfill=none stops the pass at T, so B waits until 100 (then T and B start);
    # backfill=greedy skips T and starts B at 20.
    jobs = [te("X", 0, 100, 3), te("T", 10, 50, 2), job("B", 20, 5, 1)]
    r = run(jobs, prop_cluster(4), policy="k8s", backfill=backfill)
    jf = r.jobs_frame.set_index("job_id")
    assert jf.loc["T", "first_start"] == 100.0
    assert jf.loc["B", "first_start"] == b_start
    assert "preempt" not in {e for _, _, e, _ in events_of(r)}


@pytest.mark.parametrize("policy", PREEMPTIVE)
def test_finish_at_arrival_instant_avoids_preemption(policy):
    # One node of 4: B (4) ends exactly at 100 when T (TE, 4) arrives. Finishes are processed
    # before arrivals, so the pass finds the node free: T starts at 100, nobody is preempted.
    r = run([job("B", 0, 100, 4), te("T", 100, 50, 4)], prop_cluster(4), policy=policy)
    assert_events(
        r,
        [
            (0, "B", "submit", ""),
            (0, "B", "start", "n0"),
            (100, "B", "finish", "n0"),
            (100, "T", "submit", ""),
            (100, "T", "start", "n0"),
            (150, "T", "finish", "n0"),
        ],
    )


def _two_victim_jobs():
    # One node of 8: J1 (1, start 0), J2 (2, start 1), J3 (3, start 2), J4 (2, start 3), all
    # 1000 s; T (TE, 4) at 100. No single job frees 4: two victims are needed.
    return [
        job("J1", 0, 1000, 1),
        job("J2", 1, 1000, 2),
        job("J3", 2, 1000, 3),
        job("J4", 3, 1000, 2),
        te("T", 100, 50, 4),
    ]


def _preempted(r):
    return sorted(j for _, j, e, _ in events_of(r) if e == "preempt")


def test_fitgpp_two_victim_set_tightest_then_latest_start():
    # fitgpp pairs freeing >= 4: {J1,J3} = 4 and {J2,J4} = 4 (slack 0), {J2,J3}, {J3,J4} = 5
    # (slack 1/8 per dim). The two exact ones tie on lost work and past preemptions; the
    # latest earliest start: {J1,J3} -> 0, {J2,J4} -> 1 -> {J2, J4}.
    # Both release at 130; T runs 130..180; J2 (submit 1) and J4 (submit 3) restart at 180:
    # J2 180 + 60 + 901 = 1141, J4 180 + 60 + 903 = 1143.
    r = run(_two_victim_jobs(), prop_cluster(8), policy="fitgpp")
    assert _preempted(r) == ["J2", "J4"]
    assert_jobs(
        r,
        {
            "J1": (0, 1000, 0, 0, "n0"),
            "J2": (1, 1141, 1, 0, "n0"),
            "J3": (2, 1002, 0, 0, "n0"),
            "J4": (3, 1143, 1, 0, "n0"),
            "T": (130, 180, 0, 0, "n0"),
        },
    )


def test_k8s_two_victims_by_reprieve_order():
    # k8s: remove all (free 8); reprieve J1 (free 7), J2 (free 5); J3 cannot come back
    # (free 2), nor J4 (free 3) -> {J3, J4}. T 130..180 (1 GPU left over); J3 (3) restarts at
    # 180 (180 + 60 + 902 = 1142), then J4 (2) fits too (1143).
    r = run(_two_victim_jobs(), prop_cluster(8), policy="k8s")
    assert _preempted(r) == ["J3", "J4"]
    assert_jobs(
        r,
        {
            "J1": (0, 1000, 0, 0, "n0"),
            "J2": (1, 1001, 0, 0, "n0"),
            "J3": (2, 1142, 1, 0, "n0"),
            "J4": (3, 1143, 1, 0, "n0"),
            "T": (130, 180, 0, 0, "n0"),
        },
    )


def test_fitgpp_more_than_two_victims_greedy():
    # One node of 8 with eight 1-GPU BE jobs; T (TE, 3) needs three victims: no 1- or 2-set is
    # feasible, the greedy build (then reprieve) gives exactly 3; T starts when they release.
    jobs = [job(f"b{i}", i, 1000, 1) for i in range(8)] + [te("T", 100, 50, 3)]
    r = run(jobs, prop_cluster(8), policy="fitgpp")
    assert len(_preempted(r)) == 3
    assert r.jobs_frame.set_index("job_id").loc["T", "first_start"] == 130.0


@pytest.mark.parametrize(
    ("checkpoint", "victim", "a_finish", "b_finish", "lost"),
    [
        # periodic (interval 100) at t=210: A attained 210 -> would lose 10; B attained 190 ->
        # would lose 90. Criterion 3 (least lost work) -> A. A: release 240, T 240..290,
        # A restarts 290 + 60 + 800 = 1150; B ends 1020.
        ("periodic", "A", 1150, 1020, 10),
        # on_preempt: no loss either way; past preemptions tie; the latest start -> B:
        # B restarts 290 + 60 + 810 = 1160; A ends 1000.
        ("on_preempt", "B", 1000, 1160, 0),
        # none: A would lose 210, B 190 -> B: 290 + 60 + 1000 = 1350, lost 190.
        ("none", "B", 1000, 1350, 190),
    ],
)
def test_fitgpp_least_lost_work(checkpoint, victim, a_finish, b_finish, lost):
    # One node of 4 (prop): A (2) from 0, B (2) from 20, both 1000 s. T (TE, 2) at 210.
    # {A} and {B} tie on victims (1) and slack (0).
    jobs = [job("A", 0, 1000, 2), job("B", 20, 1000, 2), te("T", 210, 50, 2)]
    r = run(jobs, prop_cluster(4), policy="fitgpp", checkpoint=checkpoint, checkpoint_interval=100)
    assert _preempted(r) == [victim]
    exp = {"A": (0, a_finish, 0, 0, "n0"), "B": (20, b_finish, 0, 0, "n0"), "T": (240, 290, 0, 0, "n0")}
    s0, f, _, _, n = exp[victim]
    exp[victim] = (s0, f, 1, lost, n)
    assert_jobs(r, exp)


def test_fewest_victims_node_wins():
    # Two nodes of 4 (best_fit): A1 (2) -> n0 at 0, A2 (2) -> n0 at 1 (tighter), C (4) -> n1 at 2.
    # T (TE, 4) at 100: n0 needs both A1 and A2 (2 victims), n1 only C (1) -> C, for every
    # deterministic preemptive policy (fewest victims is the first node criterion of each).
    jobs = [job("A1", 0, 1000, 2), job("A2", 1, 1000, 2), job("C", 2, 1000, 4), te("T", 100, 50, 4)]
    for policy in ("k8s", "fitgpp", "lrtp"):
        r = run(jobs, prop_cluster(4, 4), policy=policy)
        assert _preempted(r) == ["C"], policy


def test_fewest_victims_beats_latest_start():
    # Two nodes of 4, first_fit: C (4) -> n0 at 0; A1 (2), A2 (2) -> n1 at 1 and 2.
    # T (TE, 4) at 100: n0 {C} (1 victim, start 0) vs n1 {A1, A2} (2 victims, later starts).
    # Fewest victims comes before the start-time tie-breaks -> C.
    jobs = [job("C", 0, 1000, 4), job("A1", 1, 1000, 2), job("A2", 2, 1000, 2), te("T", 100, 50, 4)]
    for policy in ("k8s", "fitgpp", "lrtp"):
        r = run(jobs, prop_cluster(4, 4), policy=policy, placement="first_fit")
        assert _preempted(r) == ["C"], policy


# --------------------------------------------------------------------------- exact resources and order (issue 11)


def test_fitgpp_greedy_tie_takes_the_latest_started():
    # One node (100 CPU, 100 GiB, 4 GPU). BE 1..4 (1 CPU, 1 GiB, 1 GPU) start at 0, 1, 2, 3.
    # TE 5 (3 GPUs) at 10: the GPUs are full, and no 1- or 2-victim set frees 3 GPUs, so the
    # greedy step runs. Every candidate covers the same deficit (1 of the 3 missing GPUs:
    # 0.25 normalised); lost work (0, on_preempt) and past preemptions (0) tie; the latest
    # segment start wins: 4, then 3, then 2. Nothing can be reprieved. Signals go in job order.
    # 40: releases; 5 starts (free GPU 1 + 3). 140: 5 ends; 2, 3, 4 restart (restore 60) with
    # 991, 992, 993 s left (they ran 9, 8, 7 s). Job 1 is untouched and ends at 1000.
    jobs = [job(i, i - 1, 1000, 1, cpu=1, mem=1) for i in (1, 2, 3, 4)] + [te(5, 10, 100, 3, cpu=1, mem=1)]
    r = run(jobs, cluster_of((100, 100, 4)), policy="fitgpp")
    assert_events(
        r,
        [
            (0, "1", "submit", ""),
            (0, "1", "start", "n0"),
            (1, "2", "submit", ""),
            (1, "2", "start", "n0"),
            (2, "3", "submit", ""),
            (2, "3", "start", "n0"),
            (3, "4", "submit", ""),
            (3, "4", "start", "n0"),
            (10, "5", "submit", ""),
            (10, "2", "preempt", "n0"),
            (10, "3", "preempt", "n0"),
            (10, "4", "preempt", "n0"),
            (40, "2", "release", "n0"),
            (40, "3", "release", "n0"),
            (40, "4", "release", "n0"),
            (40, "5", "start", "n0"),
            (140, "5", "finish", "n0"),
            (140, "2", "start", "n0"),
            (140, "3", "start", "n0"),
            (140, "4", "start", "n0"),
            (1000, "1", "finish", "n0"),
            (1191, "2", "finish", "n0"),
            (1192, "3", "finish", "n0"),
            (1193, "4", "finish", "n0"),
        ],
    )


def test_fitgpp_greedy_tie_least_lost_work_before_latest_start():
    # One node of 4 (prop), checkpoint=periodic (100 s). b0, b1, x, y (1 GPU) start at 0, 10,
    # 155, 205. T (TE, 3) at 250: attained 250, 240, 95, 45 -> a signal would lose 50, 40,
    # 95, 45. No 1- or 2-set frees 3 GPUs; greedy (equal cover) by least lost work: b1, y, b0.
    # (Job order alone would take b0, b1, x; latest start alone y, x, b1.)
    jobs = [job("b0", 0, 1000, 1), job("b1", 10, 1000, 1), job("x", 155, 1000, 1), job("y", 205, 1000, 1)]
    r = run(
        [*jobs, te("T", 250, 50, 3)], prop_cluster(4), policy="fitgpp", checkpoint="periodic", checkpoint_interval=100
    )
    assert _preempted(r) == ["b0", "b1", "y"]


def test_fitgpp_greedy_tie_fewer_past_preemptions_before_latest_start():
    # One node of 4 (prop). w (4) runs 0..5; b0..b3 (1 GPU, submitted 1..4) all start at 5.
    # t1 (TE, 1) at 10: the 1-victim sets tie on every criterion but job order -> b0; it is
    # released at 40, t1 runs 40..50, b0 restarts at 50. T (TE, 3) at 100: greedy, equal
    # cover, no loss (on_preempt); fewer past preemptions puts b0 (1) last, so b1, b2, b3
    # (equal starts: job order). Job order or latest start alone would have taken b0 first.
    jobs = [job("w", 0, 5, 4)] + [job(f"b{i}", i + 1, 1000, 1) for i in range(4)]
    r = run([*jobs, te("t1", 10, 10, 1), te("T", 100, 50, 3)], prop_cluster(4), policy="fitgpp")
    assert [(t, j) for t, j, e, _ in events_of(r) if e == "preempt"] == [
        (10, "b0"),
        (100, "b1"),
        (100, "b2"),
        (100, "b3"),
    ]


def test_queue_order_ids_beyond_int64_are_numeric():
    # One node of 1. Three ids arrive together at 0; every id matches -?[0-9]+, so they compare
    # as numbers of any size: 5 < 99999999999999999999 < 100000000000000000000 (as text the
    # 1000... id would come first). Each runs 10 s in turn.
    big, bigger = "99999999999999999999", "100000000000000000000"
    r = run([job(bigger, 0, 10, 1), job(big, 0, 10, 1), job(5, 0, 10, 1)], prop_cluster(1), policy="fifo")
    assert_events(
        r,
        [
            (0, bigger, "submit", ""),
            (0, big, "submit", ""),
            (0, "5", "submit", ""),
            (0, "5", "start", "n0"),
            (10, "5", "finish", "n0"),
            (10, big, "start", "n0"),
            (20, big, "finish", "n0"),
            (20, bigger, "start", "n0"),
            (30, bigger, "finish", "n0"),
        ],
    )


@pytest.mark.parametrize(
    ("ids", "order"),
    [
        # "+5" and "5.0" are text, so every id compares as a string
        (["+5", "10", "9"], ["+5", "10", "9"]),
        (["5.0", "10", "9"], ["10", "5.0", "9"]),
        # negative integers are numbers; equal values ("07", "7") go by their text
        (["-3", "7", "07", "-20"], ["-20", "-3", "07", "7"]),
    ],
)
def test_queue_order_integer_ids_only_when_every_id_is_an_integer(ids, order):
    r = run([job(i, 0, 10, 1) for i in ids], prop_cluster(1), policy="fifo")
    assert _starts(r) == order


def test_best_fit_true_tie_is_not_broken_by_float_drift():
    # Two nodes of 128 CPU / 1024 GiB / 8 GPU, fifo, best_fit. At 0: a (0.1 CPU, 1024 GiB,
    # 8 GPU) -> n0 (tie); b (0.3 CPU) -> n0 (slack 127.6/128 < 1 on n1); c (0.4 CPU, 1024 GiB,
    # 8 GPU) -> n1 (n0 has no memory left). Both nodes now have exactly 127.6 CPU free and
    # nothing else. At 1, d (127.599 CPU) leaves 1 millicore on either: equal slacks, so the
    # lowest index, n0. In float arithmetic 128 - 0.1 - 0.3 and 128 - 0.4 differ by an ulp,
    # the slack 0.001/128 (7812.5e-9) sits on a rounding half-point, and n1 used to win.
    jobs = [
        job("a", 0, 100, 8, cpu=0.1, mem=1024),
        job("b", 0, 100, 0, cpu=0.3, mem=0),
        job("c", 0, 100, 8, cpu=0.4, mem=1024),
        job("d", 1, 10, 0, cpu=127.599, mem=0),
    ]
    r = run(jobs, cluster_of((128, 1024, 8), (128, 1024, 8)), policy="fifo")
    assert_events(
        r,
        [
            (0, "a", "submit", ""),
            (0, "b", "submit", ""),
            (0, "c", "submit", ""),
            (0, "a", "start", "n0"),
            (0, "b", "start", "n0"),
            (0, "c", "start", "n1"),
            (1, "d", "submit", ""),
            (1, "d", "start", "n0"),
            (11, "d", "finish", "n0"),
            (100, "a", "finish", "n0"),
            (100, "b", "finish", "n0"),
            (100, "c", "finish", "n1"),
        ],
    )


@pytest.mark.parametrize(
    "ids",
    [
        ["10", "9", "-1", "0"],  # integers: numeric
        ["5\n6", "10", "9"],  # an id holding a newline is text
        ["-", "10", "9"],
        ["5-", "10", "9"],
        ["--5", "10", "9"],
        ["", "10", "9"],
        [" 5", "10", "9"],
        ["٣", "10", "9"],  # a non-ASCII digit is text
        ["100000000000000000000", "-99999999999999999999", "7", "07"],  # any size, then text
    ],
)
def test_job_order_matches_rule_2(ids):
    import re

    from simcore.core.model import JobTable
    from simcore.engine import job_order

    table = JobTable.from_jobs([job(i, 0, 10, 1) for i in ids])
    numeric = all(re.fullmatch(r"-?[0-9]+", i) for i in ids)
    expected = sorted(ids, key=(lambda i: (int(i), i)) if numeric else None)
    rank = job_order(table, te_first=False)
    assert [ids[k] for k in sorted(range(len(ids)), key=lambda k: rank[k])] == expected
