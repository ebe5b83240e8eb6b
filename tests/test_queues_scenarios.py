"""Hand-made scenarios with queues: exact event logs derived by hand from ../shared/DESIGN-queues.md.

Conventions (as tests/test_scenarios.py): "prop" jobs and nodes (cpu = mem_gb = gpu), so "g" alone
describes a request or a node; knobs are the defaults unless a test says otherwise (grace 30,
restore 60, on_preempt, greedy backfill, best_fit, P 2, s inf); event rows are (time, job_id,
event, node). Queues are written (name, quota[, borrow_limit[, weight]]), borrow_limit inf when
left out. U(q): GPUs q's jobs hold running or preempting; R(q): running, not preempting; N(q):
requested by its nominated jobs; share = max(0, U - quota) / weight.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from helpers import assert_events, cluster_of, job, prop_cluster, te

from simcore.core.model import JobTable, SimConfig
from simcore.core.queues import QueueSpec
from simcore.engine import simulate
from simcore.policies import decision

PREEMPTIVE = ["k8s", "lrtp", "random", "fitgpp", "fitdelay"]


def qrun(jobs, cluster, queues, **knobs):
    return simulate(
        JobTable.from_jobs(jobs), cluster.with_queues(QueueSpec.of(queues)), SimConfig(**knobs), record_decisions=True
    )


def with_victims(result) -> list[dict]:
    return [d for d in result.decisions if d["victims"]]


# --------------------------------------------------------------------------- point 7: the order


def test_a_within_quota_be_job_goes_before_a_te_job_of_a_borrowing_team():
    # One node of 8. A (quota 2) runs a1 (6 GPUs: it borrows 4), B (quota 6) runs b0 (2); at t=0
    # b0 is within quota (2 <= 6) and a1 is not (6 > 2), so b0 is tried (and starts) first.
    # t=10 tA (A, TE, 2) and bB (B, BE, 2) arrive; nothing fits (free 0); priority never preempts.
    # t=50 b0 finishes (free 2). At the start of the pass: A holds 6 > 2, so tA is not within quota
    # (group 1); B holds 0, so bB (2 <= 6 - 0) is within (group 0): bB goes first and takes the
    # 2 GPUs, although priority alone would put the TE job first. tA waits.
    # t=60 bB finishes: tA fits (the quota condition holds: borrow_limit inf) and starts; ends 70.
    jobs = [
        job("a1", 0, 100, 6, queue="A"),
        job("b0", 0, 50, 2, queue="B"),
        te("tA", 10, 10, 2, queue="A"),
        job("bB", 10, 10, 2, queue="B"),
    ]
    r = qrun(jobs, prop_cluster(8), [("A", 2), ("B", 6)], policy="priority")
    assert_events(
        r,
        [
            (0, "a1", "submit", ""),
            (0, "b0", "submit", ""),
            (0, "b0", "start", "n0"),
            (0, "a1", "start", "n0"),
            (10, "tA", "submit", ""),
            (10, "bB", "submit", ""),
            (50, "b0", "finish", "n0"),
            (50, "bB", "start", "n0"),
            (60, "bB", "finish", "n0"),
            (60, "tA", "start", "n0"),
            (70, "tA", "finish", "n0"),
            (100, "a1", "finish", "n0"),
        ],
    )


def test_borrowers_go_by_share_then_rank_before_class():
    # One node of 12; every queue has quota 0 (all jobs borrow: group 1), weights A 1, B 2, C 1.
    # t=0: a0 (A, 5, ends 50), b0 (B, 4), c0 (C, 3) start: shares A 5, B 4/2 = 2, C 3.
    # t=1 cT (C, TE, 5) and t=2 bL (B, BE, 5) arrive; nothing fits.
    # t=50 a0 finishes (free 5); shares at the start of the pass: A 0, B 2, C 3. B's lower share
    # puts bL before cT, though cT is a TE job submitted earlier (priority's own order): bL starts.
    # t=60 bL finishes (shares B 2, C 3 again): cT starts; ends 70. b0 and c0 end at 100.
    jobs = [
        job("a0", 0, 50, 5, queue="A"),
        job("b0", 0, 100, 4, queue="B"),
        job("c0", 0, 100, 3, queue="C"),
        te("cT", 1, 10, 5, queue="C"),
        job("bL", 2, 10, 5, queue="B"),
    ]
    r = qrun(
        jobs, prop_cluster(12), [("A", 0, math.inf, 1), ("B", 0, math.inf, 2), ("C", 0, math.inf, 1)], policy="priority"
    )
    assert_events(
        r,
        [
            (0, "a0", "submit", ""),
            (0, "b0", "submit", ""),
            (0, "c0", "submit", ""),
            (0, "a0", "start", "n0"),
            (0, "b0", "start", "n0"),
            (0, "c0", "start", "n0"),
            (1, "cT", "submit", ""),
            (2, "bL", "submit", ""),
            (50, "a0", "finish", "n0"),
            (50, "bL", "start", "n0"),
            (60, "bL", "finish", "n0"),
            (60, "cT", "start", "n0"),
            (70, "cT", "finish", "n0"),
            (100, "b0", "finish", "n0"),
            (100, "c0", "finish", "n0"),
        ],
    )


def test_equal_shares_interleave_the_queues_by_rank():
    # One node of 4, quotas 0 (group 1), equal weights. t=0 x0 (X, 4) runs to 10. Pending at 10:
    # y1 (Y, submitted 1), x1 (X, 2), y2 (Y, 3), 2 GPUs each. At t=10 every share is 0, so the order
    # is the rank across queues: y1, x1 start (free 0); y2 waits until y1 ends at 20.
    jobs = [
        job("x0", 0, 10, 4, queue="X"),
        job("y1", 1, 10, 2, queue="Y"),
        job("x1", 2, 10, 2, queue="X"),
        job("y2", 3, 10, 2, queue="Y"),
    ]
    r = qrun(jobs, prop_cluster(4), [("X", 0), ("Y", 0)], policy="fifo")
    starts = [(t, j) for t, j, e, _ in r.events_frame.itertuples(index=False) if e == "start"]
    assert starts == [(0.0, "x0"), (10.0, "y1"), (10.0, "x1"), (20.0, "y2")]


# --------------------------------------------------------------------------- point 6: the quota condition


def test_a_job_that_fails_the_quota_condition_waits_and_never_stops_the_pass():
    # backfill none. One node of 8. A: quota 2, borrow_limit 2 (at most 4); B: quota 0, unlimited.
    # t=0 a0 (A, 4) and b0 (B, 2) start: U(A) = 4, shares A (4-2)/1 = 2, B 2.
    # t=1 a1 (A, 2): U + N + 2 = 6 > 4: it waits for its queue although 2 GPUs are free.
    # t=2 b1 (B, 2): equal shares, so a1 (rank 1) is tried first; it fails the quota condition,
    #   which does not stop the pass (backfill none stops only at a job that waits for room): b1 starts.
    # t=3 b2 (B, 4): the quota condition holds, it does not fit: the pass stops at it.
    # t=4 b3 (B, 1) would fit (free 0 until 12, then 2) but b2, ahead of it, blocks it (strict).
    # t=12 b1 ends: free 2; b2 still does not fit: it blocks b3 again.
    # t=100 a0, b0 end (free 8). A: U = 0, a1 within quota (2 <= 2): group 0, starts first; then
    #   b2 and b3 (group 1, share 0) start. a1 ends 110, b3 105, b2 110.
    jobs = [
        job("a0", 0, 100, 4, queue="A"),
        job("b0", 0, 100, 2, queue="B"),
        job("a1", 1, 10, 2, queue="A"),
        job("b1", 2, 10, 2, queue="B"),
        job("b2", 3, 10, 4, queue="B"),
        job("b3", 4, 5, 1, queue="B"),
    ]
    r = qrun(jobs, prop_cluster(8), [("A", 2, 2), ("B", 0)], policy="fifo", backfill="none")
    assert_events(
        r,
        [
            (0, "a0", "submit", ""),
            (0, "b0", "submit", ""),
            (0, "a0", "start", "n0"),
            (0, "b0", "start", "n0"),
            (1, "a1", "submit", ""),
            (2, "b1", "submit", ""),
            (2, "b1", "start", "n0"),
            (3, "b2", "submit", ""),
            (4, "b3", "submit", ""),
            (12, "b1", "finish", "n0"),
            (100, "a0", "finish", "n0"),
            (100, "b0", "finish", "n0"),
            (100, "a1", "start", "n0"),
            (100, "b2", "start", "n0"),
            (100, "b3", "start", "n0"),
            (105, "b3", "finish", "n0"),
            (110, "a1", "finish", "n0"),
            (110, "b2", "finish", "n0"),
        ],
    )


@pytest.mark.parametrize("policy", PREEMPTIVE)
def test_a_te_job_short_of_its_limit_takes_its_own_team_s_job_where_it_already_fits(policy):
    # One node of 8. A: quota 2, borrow_limit 2. t=0 a1 (A, BE, 4) starts: U(A) = 4 = the limit.
    # t=5 tA (A, TE, 2): 4 free GPUs, but U + N + 2 = 6 > 4: it fails the quota condition, so it is
    # not within quota and searches (b) alone; a set must free 2 GPUs of A's usage, and the node where
    # it already fits counts: a1 is the victim (cause te_first). Signal at 5, release at 35
    # (U(A) = 0), tA starts at 35; a1 rejoins but fails the quota condition (2 + 4 > 4) until tA ends
    # at 45, then restarts (restore 60): 5 s of work kept, 60 + 95 to go, ends 200.
    jobs = [job("a1", 0, 100, 4, queue="A"), te("tA", 5, 10, 2, queue="A")]
    r = qrun(jobs, prop_cluster(8), [("A", 2, 2)], policy=policy)
    assert_events(
        r,
        [
            (0, "a1", "submit", ""),
            (0, "a1", "start", "n0"),
            (5, "tA", "submit", ""),
            (5, "a1", "preempt", "n0"),
            (35, "a1", "release", "n0"),
            (35, "tA", "start", "n0"),
            (45, "tA", "finish", "n0"),
            (45, "a1", "start", "n0"),
            (200, "a1", "finish", "n0"),
        ],
    )
    (d,) = with_victims(r)
    assert (d["search"], d["cause"], d["victim_queues"], d["victim_gpus"]) == ("te_first", "te_first", ["A"], [4.0])
    # U, R, share: the victim still holds its GPUs in grace (U), but no longer runs (R)
    assert d["usage_before"] == {"A": [4.0, 4.0, 2.0]}
    assert d["usage_after"] == {"A": [4.0, 0.0, 2.0]}


# --------------------------------------------------------------------------- points 8-9: reclaim


@pytest.mark.parametrize("policy", PREEMPTIVE)
def test_a_be_job_within_quota_reclaims_from_a_borrower(policy):
    # One node of 8, A and B quota 4 each. t=0 a1 and a2 (A, BE, 4 each) start: A borrows 4
    # (R(A) = 8 > 4). t=10 b1 (B, BE, 4): within quota (0 + 4 <= 4), nothing free: reclaim (a).
    # Candidates: a1, a2 (A is over quota). Every policy takes one job (one frees 4; any single
    # victim of a queue over quota is eligible: 8 - 4 + 4 > 4). Which one: k8s reprieves the longest
    # running first, ties by rank, so a1 is given back and a2 taken; lrtp takes the longest remaining
    # (equal: by rank, a1), fitgpp and fitdelay the job order's first among equals (a1); random draws.
    # The victim releases at 40 and b1 starts; it ends at 140. A's usage then is 4 = its quota.
    jobs = [job("a1", 0, 1000, 4, queue="A"), job("a2", 0, 1000, 4, queue="A"), job("b1", 10, 100, 4, queue="B")]
    r = qrun(jobs, prop_cluster(8), [("A", 4), ("B", 4)], policy=policy)
    (d,) = with_victims(r)
    victim = d["victims"][0]
    if policy != "random":
        assert victim == {"k8s": "a2"}.get(policy, "a1")
    assert (d["te_job"], d["job_class"], d["queue"], d["search"], d["cause"]) == ("b1", "BE", "B", "reclaim", "reclaim")
    assert (d["victim_queues"], d["victim_gpus"]) == (["A"], [4.0])
    assert d["usage_before"] == {"B": [0.0, 0.0, 0.0], "A": [8.0, 8.0, 4.0]}
    assert d["usage_after"] == {"B": [0.0, 0.0, 0.0], "A": [8.0, 4.0, 4.0]}
    rows = [e for e in r.events_frame.itertuples(index=False) if e.time in (10.0, 40.0)]
    assert [(e.time, e.job_id, e.event) for e in rows] == [
        (10.0, "b1", "submit"),
        (10.0, victim, "preempt"),
        (40.0, victim, "release"),
        (40.0, "b1", "start"),
    ]


@pytest.mark.parametrize("policy", ["fifo", "priority"])
def test_fifo_and_priority_never_preempt_with_queues(policy):
    jobs = [job("a1", 0, 1000, 4, queue="A"), job("a2", 0, 1000, 4, queue="A"), te("b1", 10, 100, 4, queue="B")]
    r = qrun(jobs, prop_cluster(8), [("A", 4), ("B", 4)], policy=policy)
    assert int(r.preemptions.sum()) == 0 and r.decisions == () and r.ledger == ()
    assert float(r.first_start[2]) == 1000.0


def _lenders(quota_a: float):
    # n0 (4) holds a1, a2 (A, 2 each), n1 (4) holds a3 (A, 2) and c0 (C, 2; C quota 2: not over).
    # t=0 every job is within quota at the start of the pass (2 <= quota - 0), so in rank order:
    # a1 -> n0, a2 -> n0 (best fit), a3 -> n1 (n0 full), c0 -> n1. R(A) = 6.
    # t=10 b1 (B, BE, 4): within quota, fits nowhere: reclaim (a) from A (over quota).
    jobs = [
        job("a1", 0, 1000, 2, queue="A"),
        job("a2", 0, 1000, 2, queue="A"),
        job("a3", 0, 1000, 2, queue="A"),
        job("c0", 0, 1000, 2, queue="C"),
        job("b1", 10, 100, 4, queue="B"),
    ]
    return jobs, [("A", quota_a), ("B", 4), ("C", 2)]


@pytest.mark.parametrize("policy", PREEMPTIVE)
def test_eligibility_stops_a_reclaim_that_would_take_a_lender_a_whole_job_below_quota(policy):
    # A's quota 4: on n0 b1 needs a1 and a2; without a2 A still runs a1 + a3 = 4 (<= 4 is not over
    # quota): R(A) - (2 + 2) + 2 = 4 > 4 is false, the set is ineligible. n1's only candidate a3 frees
    # 2 of the 4 b1 needs: not feasible. So no victims; b1 waits until room (t=1000).
    jobs, queues = _lenders(4)
    r = qrun(jobs, prop_cluster(4, 4), queues, policy=policy)
    assert int(r.preemptions.sum()) == 0 and r.ledger == ()
    assert float(r.first_start[4]) == 1000.0
    reasons = {d["reason"] for d in r.decisions}
    assert reasons == {decision.NO_NODE_FEASIBLE}


@pytest.mark.parametrize("policy", PREEMPTIVE)
def test_a_lender_may_end_below_its_quota_by_less_than_one_job(policy):
    # A's quota 3: R(A) - 4 + 2 = 4 > 3: eligible; a1 and a2 are signalled at 10 (A then runs 2,
    # 1 below its quota: less than one job), release at 40, b1 starts on n0.
    jobs, queues = _lenders(3)
    r = qrun(jobs, prop_cluster(4, 4), queues, policy=policy)
    (d,) = with_victims(r)
    assert (d["node"], sorted(d["victims"]), d["cause"]) == ("n0", ["a1", "a2"], "reclaim")
    assert d["usage_before"]["A"] == [6.0, 6.0, 3.0] and d["usage_after"]["A"] == [6.0, 2.0, 3.0]
    assert float(r.first_start[4]) == 40.0


def _own_or_other(te_job: bool, quota_a: float):
    # n0 (4) holds a1 (A, BE, 4), n1 (4) holds b1 (B, BE, 4, started later: k8s would prefer it);
    # B's quota 0, so B is over quota. t=20 x (A, 4) arrives.
    jobs = [
        job("a1", 0, 1000, 4, queue="A"),
        job("b1", 5, 1000, 4, queue="B"),
        job("x", 20, 10, 4, queue="A", te=te_job),
    ]
    return jobs, [("A", quota_a), ("B", 0)]


def test_a_te_job_not_within_quota_searches_only_its_own_team():
    # A's quota 2: U(A) + 4 = 8 > 2, x is not within quota: it searches (b) alone and takes a1
    # (te_first), though b1 borrows and k8s alone would take b1 (the latest start).
    jobs, queues = _own_or_other(True, 2)
    (d,) = with_victims(qrun(jobs, prop_cluster(4, 4), queues, policy="k8s"))
    assert (d["victims"], d["search"], d["cause"]) == (["a1"], "te_first", "te_first")
    # without queues the same jobs lose b1
    plain = simulate(JobTable.from_jobs(jobs), prop_cluster(4, 4), SimConfig(policy="k8s"), record_decisions=True)
    assert [v for d in plain.decisions for v in d["victims"]] == ["b1"]


def test_a_be_job_not_within_quota_never_preempts():
    jobs, queues = _own_or_other(False, 2)
    r = qrun(jobs, prop_cluster(4, 4), queues, policy="k8s")
    assert int(r.preemptions.sum()) == 0 and r.decisions == ()


def test_a_te_job_within_quota_reclaims_first():
    # A's quota 8: U(A) + 4 = 8 <= 8: within quota: (a) first, which takes b1 (reclaim).
    jobs, queues = _own_or_other(True, 8)
    (d,) = with_victims(qrun(jobs, prop_cluster(4, 4), queues, policy="k8s"))
    assert (d["victims"], d["search"], d["cause"]) == (["b1"], "reclaim", "reclaim")


@pytest.mark.parametrize("policy", PREEMPTIVE)
def test_a_te_job_within_quota_whose_reclaim_finds_nothing_takes_its_own_team_s_job(policy):
    # n0 (4): a1 (A, BE, 4); n1 (4): b1 (B, BE, 2; B quota 0: over) and c1 (C, 2; C quota 2: not over).
    # t=20 tA (A, TE, 4), A's quota 8: within. (a): b1 frees only 2 on n1: nothing. TE, so (a)+(b):
    # a1 frees n0 (te_first). Only the deciding search is recorded. (Released at 50, a1 is within
    # A's quota (4 + 4 <= 8) and asks to reclaim from B in its turn: nothing feasible.)
    jobs = [
        job("a1", 0, 1000, 4, queue="A"),
        job("b1", 0, 1000, 2, queue="B"),
        job("c1", 0, 1000, 2, queue="C"),
        te("tA", 20, 10, 4, queue="A"),
    ]
    r = qrun(jobs, prop_cluster(4, 4), [("A", 8), ("B", 0), ("C", 2)], policy=policy)
    d = r.decisions[0]
    assert (d["victims"], d["search"], d["cause"]) == (["a1"], "reclaim and te_first", "te_first")
    assert [(x["te_job"], x["search"], x["reason"]) for x in r.decisions[1:]] == [
        ("a1", "reclaim", decision.NO_NODE_FEASIBLE)
    ]


def test_p_and_s_limit_only_the_te_first_candidates():
    # fitgpp with P = 0 caps every candidate of (b), never one of (a): the within-quota TE job of
    # test_a_te_job_within_quota_reclaims_first still reclaims b1; the one not within quota finds
    # every candidate of its own team capped. With s = 1 a 2-GPU TE job caps jobs of more than 2 GPUs,
    # own only: b1 (4 GPUs, B over quota) is reclaimed all the same.
    jobs, queues = _own_or_other(True, 8)
    (d,) = qrun(jobs, prop_cluster(4, 4), queues, policy="fitgpp", P=0).decisions
    assert (d["victims"], d["cause"]) == (["b1"], "reclaim")
    jobs, queues = _own_or_other(True, 2)
    reasons = {d["reason"] for d in qrun(jobs, prop_cluster(4, 4), queues, policy="fitgpp", P=0).decisions}
    assert reasons == {decision.CAPPED_BY_P}
    jobs = [job("a1", 0, 1000, 4, queue="A"), job("b1", 5, 1000, 4, queue="B"), te("x", 20, 10, 2, queue="A")]
    (d,) = [d for d in qrun(jobs, prop_cluster(4, 4), [("A", 8), ("B", 0)], policy="fitgpp", s=1.0).decisions]
    assert (d["victims"], d["cause"]) == (["b1"], "reclaim")


def test_min_runtime_protects_a_borrower_until_its_instant():
    # As test_a_be_job_within_quota_reclaims_from_a_borrower (k8s), with min_runtime 60: at 10 both
    # of A's jobs are protected (reason: within min_runtime); at 60 their segments reach it, a pass
    # runs at that instant and b1 reclaims a2 there; release 90, b1 starts at 90.
    jobs = [job("a1", 0, 1000, 4, queue="A"), job("a2", 0, 1000, 4, queue="A"), job("b1", 10, 100, 4, queue="B")]
    r = qrun(jobs, prop_cluster(8), [("A", 4), ("B", 4)], policy="k8s", min_runtime=60)
    assert r.decisions[0]["reason"] == decision.WITHIN_MIN_RUNTIME
    (d,) = with_victims(r)
    assert (d["time"], d["victims"]) == (60.0, ["a2"])
    assert float(r.first_start[2]) == 90.0


def test_the_budget_counts_reclaims():
    # preempt_budget 1: b1's reclaim at 10 spends it; tB's TE-first decision at 20 waits until the
    # window ends at 3610 (reason: budget spent).
    jobs = [
        job("a1", 0, 5000, 4, queue="A"),
        job("a2", 0, 5000, 4, queue="A"),
        job("b1", 10, 5000, 4, queue="B"),
        te("tB", 20, 10, 4, queue="B"),
    ]
    r = qrun(jobs, prop_cluster(8), [("A", 4), ("B", 4)], policy="k8s", preempt_budget=1)
    assert [d["reason"] for d in r.decisions][:2] == [None, decision.BUDGET_SPENT]
    (first, second) = with_victims(r)
    assert (first["time"], first["cause"]) == (10.0, "reclaim")
    assert second["time"] == 3610.0


# --------------------------------------------------------------------------- gangs


@pytest.mark.parametrize(("quota_a", "reclaimed"), [(4, False), (3, True)])
def test_a_gang_s_later_worker_counts_the_victims_of_the_earlier_ones(quota_a, reclaimed):
    # n0 and n1 (4 each) run a1 and a2 (A, BE, 4 each). t=10 g (B, TE, 2 workers of 4; B quota 8:
    # within). Worker 0: (a) takes a1 (8 - 4 + 4 > quota). Worker 1: a2 is a candidate only if a1
    # and a2 together are eligible: 8 - 8 + 4 > quota(A): no with quota 4 (then (a)+(b): B runs no
    # BE job: the gang is not satisfied, nobody is signalled), yes with quota 3 (both reclaimed).
    jobs = [
        job("a1", 0, 1000, 4, queue="A"),
        job("a2", 0, 1000, 4, queue="A"),
        job("g", 10, 10, 4, queue="B", te=True, workers=2),
    ]
    r = qrun(jobs, prop_cluster(4, 4), [("A", quota_a), ("B", 8)], policy="k8s")
    if reclaimed:
        assert [sorted(d["victims"]) for d in with_victims(r)] == [["a1"], ["a2"]]
        assert [entry[2] for entry in r.ledger] == [(0, 1)]
        assert float(r.first_start[2]) == 40.0
    else:
        assert r.ledger == () and int(r.preemptions.sum()) == 0
        assert r.decisions[0]["reason"] == decision.GANG_UNSATISFIED


def test_under_strict_backfill_a_nominated_job_behind_the_stop_still_starts():
    # backfill none, k8s, one node of 4; E and L quota 2 each. t=0 e1..e4 (E, BE, 1 each; all within
    # quota at the start of the pass) start: E borrows 2. t=5 tE (E, TE, 4): not within quota, (b):
    # k8s takes all four (no reprieve frees enough); signals at 5, releases at 35.
    # t=6 tL (L, TE, 1): within quota, no room (the victims hold it), no reclaim (E runs nothing) and L
    #   runs no BE job: it waits for room and stops the pass.
    # t=35 the victims release: tE's reservation is whole, but tE is in group 1 (U + N = 4 > 2) behind
    #   tL (group 0), which the reservation keeps out and which stops the pass again. Stopping there
    #   would leave both waiting for ever; the nominated tE is still tried, to start: it starts at 35.
    # t=45 tE ends: tL, then e1, e2, e3 start (restore 60, 95 s left: they end at 200); e4 waits (strict).
    # t=55 tL ends: e4 starts, ends 210.
    jobs = [
        *(job(f"e{i}", 0, 100, 1, queue="E") for i in range(1, 5)),
        te("tE", 5, 10, 4, queue="E"),
        te("tL", 6, 10, 1, queue="L"),
    ]
    r = qrun(jobs, prop_cluster(4), [("E", 2), ("L", 2)], policy="k8s", backfill="none")
    assert_events(
        r,
        [
            *((0, f"e{i}", "submit", "") for i in range(1, 5)),
            *((0, f"e{i}", "start", "n0") for i in range(1, 5)),
            (5, "tE", "submit", ""),
            *((5, f"e{i}", "preempt", "n0") for i in range(1, 5)),
            (6, "tL", "submit", ""),
            *((35, f"e{i}", "release", "n0") for i in range(1, 5)),
            (35, "tE", "start", "n0"),
            (45, "tE", "finish", "n0"),
            (45, "tL", "start", "n0"),
            (45, "e1", "start", "n0"),
            (45, "e2", "start", "n0"),
            (45, "e3", "start", "n0"),
            (55, "tL", "finish", "n0"),
            (55, "e4", "start", "n0"),
            *((200, f"e{i}", "finish", "n0") for i in range(1, 4)),
            (210, "e4", "finish", "n0"),
        ],
    )


@pytest.mark.parametrize(("quota", "reclaims"), [(4, False), (math.inf, True)])
def test_a_job_without_gpus_is_within_quota_only_in_an_unlimited_queue(quota, reclaims):
    # n0 (4 CPU, 4 GiB, 4 GPUs) runs b1 (B, quota 0: over quota, all 4 CPUs). t=10 c (A, BE, 4 CPU,
    # 4 GiB, no GPU) fits nowhere. With A's quota 4, c has no GPUs: never within quota (point 4), so
    # it never reclaims and waits for b1 (t=100). With A's quota inf it is within and reclaims b1.
    jobs = [job("b1", 0, 100, 4, queue="B"), job("c", 10, 10, 0, cpu=4, mem=4, queue="A")]
    r = qrun(jobs, cluster_of((4, 4, 4)), [("A", quota), ("B", 0)], policy="k8s")
    if reclaims:
        (d,) = with_victims(r)
        assert (d["te_job"], d["victims"], d["cause"]) == ("c", ["b1"], "reclaim")
        assert float(r.first_start[1]) == 40.0
    else:
        assert r.decisions == () and float(r.first_start[1]) == 100.0


@pytest.mark.parametrize("policy", ["k8s", "lrtp", "fitgpp", "fitdelay"])  # random may add a to x's set
def test_a_nominated_job_without_gpus_stays_in_the_second_group(policy):
    # n0: 2 CPU, 3 GiB, 1 GPU; one queue A, quota 1, borrow_limit 0. t=0 a (BE, 1 CPU, 1 GiB, 1 GPU)
    # is within quota (1 <= 1 - 0) and starts first; b (BE, 1 CPU, 2 GiB, no GPU) is never within a
    # finite quota (point 4): second, and it fits.
    # t=10 x (TE, 1 CPU, 2 GiB, no GPU) and y (TE, 1 CPU, 1 GiB, 1 GPU), x first by rank: both are
    # in the second group (U 1: y would need 1 + 1 <= 1). x meets the quota condition (1 + 0 <= 1)
    # and does not fit: only b frees 2 GiB, so b is its one victim. y fails the
    # quota condition by 1 GPU: its set must free A's GPU: a. N(A) = 1 (y).
    # t=15 (grace 5) a and b release (job order). Pass: U 0, N 1; y, nominated with 1 GPU, is within quota
    # (0 + 1 <= 1, its own nomination once): first group; x, nominated without GPUs, is not:
    # second group. So y starts before x, although x goes first by rank.
    jobs = [
        job("a", 0, 1000, 1, cpu=1, mem=1, queue="A"),
        job("b", 0, 1000, 0, cpu=1, mem=2, queue="A"),
        te("x", 10, 10, 0, cpu=1, mem=2, queue="A"),
        te("y", 10, 10, 1, cpu=1, mem=1, queue="A"),
    ]
    r = qrun(jobs, cluster_of((2, 3, 1)), [("A", 1, 0)], policy=policy, grace=5.0)
    early = [e for e in r.events_frame.itertuples(index=False, name=None) if e[0] <= 15]
    assert early == [
        (0.0, "a", "submit", ""),
        (0.0, "b", "submit", ""),
        (0.0, "a", "start", "n0"),
        (0.0, "b", "start", "n0"),
        (10.0, "x", "submit", ""),
        (10.0, "y", "submit", ""),
        (10.0, "b", "preempt", "n0"),
        (10.0, "a", "preempt", "n0"),
        (15.0, "a", "release", "n0"),
        (15.0, "b", "release", "n0"),
        (15.0, "y", "start", "n0"),
        (15.0, "x", "start", "n0"),
    ]


def test_a_nominated_job_whose_victims_released_and_that_cannot_start_is_tried_afresh():
    # k8s; n0 and n1 of 4; A: quota 4, borrow_limit 0 (at most 4); B: quota 0 (a borrower).
    # t=0 a1 (A, 2) is within quota, tried first: n0; then b1 (B, 2) -> n0 (best fit), b2 (B, 4) -> n1.
    # t=10 j (A, BE, 2): within (2 + 2 <= 4), no room: reclaims b1 on n0 (k8s: one victim on either
    #   node, both started at 0: the lower index). N(A) = 2.
    # t=20 t (A, TE, 2): 2 + 2 + 2 = 6 > 4, it fails the quota condition by 2: TE first alone, a set
    #   must free 2 of A's GPUs: a1 on n0 (where, with a1 gone, it fits). N(A) = 4.
    # t=40 b1 releases. Pass (A: U 2, N 4: both nominated A jobs are in group 1, share 0; b1 group 1,
    #   share of B 4): t (TE first) fails the quota condition (2 + 4 > 4) with a1 in grace: it waits;
    #   j fails it too, and all its victims have released: its nomination is returned (point 10) and it
    #   is tried afresh: 2 + 2 + 2 > 4 again, not within quota: a BE job, it waits. b1 fits in the room
    #   j gave back on n0: it starts.
    # t=50 a1 releases (t's reservation on n0 is topped up to 2). A: U 0, N 2: t, a1, j in group 0: t
    #   starts on n0; a1 (within, no room) reclaims from B: b1 (started at 40: k8s's latest start)
    #   rather than b2; j fails the quota condition (2 + 2 + 2 > 4).
    # t=60 t ends: a1 starts on n0 (its node has room); j is within quota (2 + 2 <= 4), no room: it
    #   reclaims b2 on n1.
    # t=80 b1 releases: j, nominated on n1 (b2 still in grace), fits on n0 first: it starts there
    #   (rule 5, its reservation returned). b1 waits (n0 is full, b2 still holds n1).
    # t=90 b2 releases: b1 (rank before b2, both of B) starts on n1; b2 (4) does not fit.
    jobs = [
        job("a1", 0, 1000, 2, queue="A"),
        job("b1", 0, 1000, 2, queue="B"),
        job("b2", 0, 1000, 4, queue="B"),
        job("j", 10, 100, 2, queue="A"),
        te("t", 20, 10, 2, queue="A"),
    ]
    r = qrun(jobs, prop_cluster(4, 4), [("A", 4, 0), ("B", 0)], policy="k8s")
    early = [e for e in r.events_frame.itertuples(index=False, name=None) if e[0] <= 90]
    assert early == [
        (0.0, "a1", "submit", ""),
        (0.0, "b1", "submit", ""),
        (0.0, "b2", "submit", ""),
        (0.0, "a1", "start", "n0"),
        (0.0, "b1", "start", "n0"),
        (0.0, "b2", "start", "n1"),
        (10.0, "j", "submit", ""),
        (10.0, "b1", "preempt", "n0"),
        (20.0, "t", "submit", ""),
        (20.0, "a1", "preempt", "n0"),
        (40.0, "b1", "release", "n0"),
        (40.0, "b1", "start", "n0"),
        (50.0, "a1", "release", "n0"),
        (50.0, "t", "start", "n0"),
        (50.0, "b1", "preempt", "n0"),
        (60.0, "t", "finish", "n0"),
        (60.0, "a1", "start", "n0"),
        (60.0, "b2", "preempt", "n1"),
        (80.0, "b1", "release", "n0"),
        (80.0, "j", "start", "n0"),
        (90.0, "b2", "release", "n1"),
        (90.0, "b1", "start", "n1"),
    ]
    assert [(t, r.jobs.job_id[j], [r.jobs.job_id[v] for v in vs]) for t, j, vs, *_ in r.ledger] == [
        (10.0, "j", ["b1"]),
        (20.0, "t", ["a1"]),
        (50.0, "a1", ["b1"]),
        (60.0, "j", ["b2"]),
    ]


def test_random_spends_its_draws_when_the_additions_end_without_a_set():
    # n0 (4): a1, a2 (A, 2 each); n1 (4): a3 (A, 2) and o (B, BE, 2). A's quota 4 (R 6), B's 8.
    # t=10 tB (B, TE, 4) is within quota. Reclaim (a): only n0 is searched (removing a1 and a2 makes
    # room; n1's a3 alone does not); the draw picks it, the shuffle adds one of a1, a2 and skips the
    # other (both together leave A at 6 - 4 + 2 = 4, not above 4): no set, the draws are spent. Then
    # (a)+(b): n0 and n1 are searched; a second draw picks one: n0 gives no set again, n1 gives a3 and
    # o (o, of tB's own queue, is exempt from eligibility; a3 alone keeps A at 6 - 2 + 2 > 4).
    jobs = [
        job("a1", 0, 1000, 2, queue="A"),
        job("a2", 0, 1000, 2, queue="A"),
        job("a3", 0, 1000, 2, queue="A"),
        job("o", 0, 1000, 2, queue="B"),
        te("tB", 10, 10, 4, queue="B"),
    ]
    seen = set()
    for seed in range(8):
        rng = np.random.default_rng(seed)
        rng.integers(1), rng.permutation(2)  # reclaim: n0 drawn, its shuffle spent
        second = int(rng.integers(2))  # reclaim and TE first: n0 (0) or n1 (1)
        seen.add(second)
        r = qrun(jobs, prop_cluster(4, 4), [("A", 4), ("B", 8)], policy="random", seed=seed)
        d = r.decisions[0]
        assert (d["time"], d["search"]) == (10.0, "reclaim and te_first")
        if second == 1:
            assert (d["node"], sorted(d["victims"]), d["cause"]) == ("n1", ["a3", "o"], "te_first")
        else:
            assert d["victims"] == [] and d["reason"] == decision.NO_NODE_FEASIBLE
    assert seen == {0, 1}
