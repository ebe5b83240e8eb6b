"""Queues with down time (DESIGN-failures point 11): exact event logs derived by hand, and invariants
on random runs with queues and down windows together.

Point 11: a drained job stops counting in its queue's R at the drain signal, like a victim (it still
holds U until its release); a failed job leaves U and R at once (a job failing in its grace period
left R at its signal); drains and failures are not decisions: no ledger row, not in the per-queue
preemption counts. Conventions as tests/test_queues_scenarios.py and tests/test_failures.py: "prop"
jobs and nodes, default knobs (grace 30, restore 60, on_preempt, greedy backfill, best_fit) unless a
test says otherwise; queues (name, quota[, borrow_limit]), borrow limit inf when left out; rows are
(time, job_id, event, node), node rows with an empty job_id.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from helpers import assert_events, job, prop_cluster, te
from helpers.downtime_cases import check_down_time, scenario
from helpers.queue_checks import check_queues

from simcore.analysis import accounting, queue_metrics
from simcore.analysis.metrics import summarize
from simcore.core.downtime import NodeEvents
from simcore.core.model import ClusterSpec, JobTable, SimConfig
from simcore.core.queues import QueueSpec, with_queues
from simcore.core.result import DRAIN, FAIL, PREEMPT
from simcore.engine import simulate
from simcore.policies import decision


def qrun(jobs, cluster, queues, *windows, **knobs):
    """`jobs` on `cluster` shared by `queues`, with the (node, start, end, kind) down `windows`."""
    shared = cluster.with_queues(QueueSpec.of(queues)).with_node_events(NodeEvents.of(windows))
    return simulate(JobTable.from_jobs(jobs), shared, SimConfig(**knobs), record_decisions=True)


def preemption_counts(r) -> dict[str, tuple[int, int]]:
    """queue -> (preemptions suffered, caused), both causes summed, from the summary's queues block."""
    return {
        q: (sum(e["preemptions_suffered"].values()), sum(e["preemptions_caused"].values()))
        for q, e in summarize(r)["queues"].items()
    }


# --------------------------------------------------------------------------- a drain leaves R at its signal


def test_a_drained_borrower_stops_counting_in_r_so_its_queue_lends_nothing():
    # Nodes n0, n1 of 4; queues A (quota 4) and B (quota 4); k8s. t=0 b1 (B, 4) on n0 (best_fit, the
    # lowest index on a tie), t=1 b2 (B, 4) on n1: U(B) = R(B) = 8 > 4, B borrows 4.
    # n0's maintenance [100, 200): the drain signal at 100 - 30 = 70 [DESIGN-failures 7]: b1 stops
    # counting in R (point 11): R(B) = 4, U(B) = 8.
    # t=80 a (A, BE, 4, 50 s) is within quota (0 + 4 <= 4) and fits nowhere (n0 draining, n1 full).
    # Reclaim candidates are BE jobs of other queues over quota (R > quota): R(B) = 4 is not, so a
    # has none and, a BE job, waits (counted in R, B would be over quota and a would take b2).
    # t=100 b1 releases (U(B) = 4), n0 goes down; a still fits nowhere, B is not over quota.
    # t=200 n0 comes up: a (within quota, first) starts there, ends 250; b1 (B: 4 + 4 > 4, not
    # within quota) waits for room. t=250 b1 restarts on n0: its drain saved its 70 s, so 930 s are
    # left after the 60 s restore: ends 250 + 60 + 930 = 1240. b2 ends at 1001.
    r = qrun(
        [job("b1", 0, 1000, 4, queue="B"), job("b2", 1, 1000, 4, queue="B"), job("a", 80, 50, 4, queue="A")],
        prop_cluster(4, 4),
        [("A", 4), ("B", 4)],
        ("n0", 100, 200, "maintenance"),
        policy="k8s",
    )
    assert_events(
        r,
        [
            (0, "b1", "submit", ""),
            (0, "b1", "start", "n0"),
            (1, "b2", "submit", ""),
            (1, "b2", "start", "n1"),
            (70, "b1", "drain", "n0"),
            (80, "a", "submit", ""),
            (100, "b1", "release", "n0"),
            (100, "", "node_down", "n0"),
            (200, "", "node_up", "n0"),
            (200, "a", "start", "n0"),
            (250, "a", "finish", "n0"),
            (250, "b1", "start", "n0"),
            (1001, "b2", "finish", "n1"),
            (1240, "b1", "finish", "n0"),
        ],
    )
    # a drain is no decision: no record, no ledger row, no preemption counted for any queue
    assert r.decisions == () and r.ledger == ()
    assert preemption_counts(r) == {"A": (0, 0), "B": (0, 0)}
    # B's usage curve: R leaves at the signal (70), U at the release (100)
    curve = queue_metrics.usage_over_time(r)
    b = curve[curve["queue"] == "B"].set_index("time")
    assert (b.loc[1.0, "used"], b.loc[1.0, "running"]) == (8.0, 8.0)
    assert (b.loc[70.0, "used"], b.loc[70.0, "running"]) == (8.0, 4.0)
    assert (b.loc[100.0, "used"], b.loc[100.0, "running"]) == (4.0, 4.0)


def test_a_drained_te_job_leaves_r_and_its_queue_still_lends_its_running_be_job():
    # Nodes n0, n1 of 4; queues A (quota 4), B (quota 0: everything B runs is borrowed); k8s.
    # t=0 bT (B, TE, 4) on n0; t=1 b1 (B, BE, 4) on n1: R(B) = 8 > 0.
    # n0's maintenance [100, 200): drain at 70 signals bT, TE jobs too [7]; R(B) = 4 > 0: B is still
    # over quota with a running BE job (b1), so it still lends (a drained TE job takes nothing from
    # B's count of running BE jobs).
    # t=80 a (A, BE, 4, 50 s), within quota, fits nowhere: reclaim (point 9a): b1 is the only
    # candidate, eligible as R(B) - 4 + 4 = 4 > 0; n1 is not draining: a is nominated there and b1
    # signalled (its save keeps its 79 s); b1 releases at 110.
    # t=100 bT releases on n0, n0 goes down; bT (B, TE, not within quota 0) may take its own queue's
    # BE jobs only (9b): none runs. t=110 b1 releases; a starts on n1 (its reserved room), ends 160.
    # t=160 bT and b1 (both group 1, B's share the same) in the policy's order, TE first: bT starts on
    # n1 (its drain saved 70 s: 930 left after restore 60): ends 160 + 60 + 930 = 1150.
    # t=200 n0 comes up: b1 starts there, 921 s left after restore: ends 200 + 60 + 921 = 1181.
    r = qrun(
        [te("bT", 0, 1000, 4, queue="B"), job("b1", 1, 1000, 4, queue="B"), job("a", 80, 50, 4, queue="A")],
        prop_cluster(4, 4),
        [("A", 4), ("B", 0)],
        ("n0", 100, 200, "maintenance"),
        policy="k8s",
    )
    assert_events(
        r,
        [
            (0, "bT", "submit", ""),
            (0, "bT", "start", "n0"),
            (1, "b1", "submit", ""),
            (1, "b1", "start", "n1"),
            (70, "bT", "drain", "n0"),
            (80, "a", "submit", ""),
            (80, "b1", "preempt", "n1"),
            (100, "bT", "release", "n0"),
            (100, "", "node_down", "n0"),
            (110, "b1", "release", "n1"),
            (110, "a", "start", "n1"),
            (160, "a", "finish", "n1"),
            (160, "bT", "start", "n1"),
            (200, "", "node_up", "n0"),
            (200, "b1", "start", "n0"),
            (1150, "bT", "finish", "n1"),
            (1181, "b1", "finish", "n0"),
        ],
    )
    # the one decision is the reclaim; the ledger's usage counts bT out of R since its drain
    (rec,) = queue_metrics.ledger_records(r)
    assert (rec["time"], rec["cause"], rec["queue"], rec["job"], rec["victims"]) == (80.0, "reclaim", "A", "a", ["b1"])
    assert rec["usage_before"] == {"A": 0.0, "B": 8.0} and rec["running_before"] == {"A": 0.0, "B": 4.0}
    assert rec["usage_after"] == {"A": 0.0, "B": 8.0} and rec["running_after"] == {"A": 0.0, "B": 0.0}
    assert preemption_counts(r) == {"A": (0, 1), "B": (1, 0)}


# --------------------------------------------------------------------------- a failure leaves U and R at once


def test_a_failed_job_leaves_its_queues_usage_at_once():
    # Nodes n0, n1 of 4; queue A (quota 4, borrow limit 0: it may hold 4 GPUs); fifo.
    # t=0 a1 (4, 100 s) on n0. t=10 a2 (4, 100 s): n1 is free but U(A) + 4 = 8 > 4: a2 waits for
    # its queue (point 6). n0 fails over [50, 500) [6]: a1 fails at 50 and leaves U(A) at once
    # (point 11): U(A) = 0. The pass of 50: a1 (submitted first) meets the quota condition (0 + 4)
    # and fits n1: it starts there (no save was made: its 50 s are lost; restore 60): ends
    # 50 + 60 + 100 = 210. a2 waits for its queue again. t=210 a2 starts on n1, ends 310; the run
    # ends there, so n0's coming up at 500 is not written [3].
    r = qrun(
        [job("a1", 0, 100, 4, queue="A"), job("a2", 10, 100, 4, queue="A")],
        prop_cluster(4, 4),
        [("A", 4, 0)],
        ("n0", 50, 500, "failure"),
        policy="fifo",
    )
    assert_events(
        r,
        [
            (0, "a1", "submit", ""),
            (0, "a1", "start", "n0"),
            (10, "a2", "submit", ""),
            (50, "", "node_down", "n0"),
            (50, "a1", "fail", "n0"),
            (50, "a1", "start", "n1"),
            (210, "a1", "finish", "n1"),
            (210, "a2", "start", "n1"),
            (310, "a2", "finish", "n1"),
        ],
    )
    assert r.ledger == () and preemption_counts(r) == {"A": (0, 0)}


def test_a_reclaim_victim_failing_in_grace_leaves_u_and_its_reclaimers_nomination_ends():
    # Nodes n0, n1 of 4; queues A (quota 4), B (quota 4); k8s. t=0 b1 (B, BE, 4) on n0; t=1 bT (B,
    # TE, 4) on n1: R(B) = 8 > 4, and B runs a BE job: it lends.
    # t=100 a (A, BE, 4, 50 s), within quota, fits nowhere: it reclaims b1, the only candidate (TE
    # jobs never are), eligible as R(B) - 4 + 4 = 8 > 4; a is nominated to n0 (N(A) = 4), b1
    # signalled (R(B) = 4, U(B) = 8 while it checkpoints): one ledger row.
    # n0 fails over [110, 300): a's nomination ends (its node went down [5]: N(A) = 0, it is an
    # ordinary pending job again) and b1 fails in grace (its save is lost [6]); b1 leaves U at once
    # (point 11), not R a second time: U(B) = R(B) = 4 (bT). Pass of 110: a (within quota, first) fits
    # nowhere and B (R 4, not over quota) lends nothing; b1 (B: 4 + 4 > 4, not within quota) waits.
    # t=300 n0 comes up: a starts there, ends 350. t=350 b1 restarts on n0 with nothing kept (the
    # failure undid its save), restore 60: ends 350 + 60 + 1000 = 1410. bT ends at 501.
    r = qrun(
        [job("b1", 0, 1000, 4, queue="B"), te("bT", 1, 500, 4, queue="B"), job("a", 100, 50, 4, queue="A")],
        prop_cluster(4, 4),
        [("A", 4), ("B", 4)],
        ("n0", 110, 300, "failure"),
        policy="k8s",
    )
    assert_events(
        r,
        [
            (0, "b1", "submit", ""),
            (0, "b1", "start", "n0"),
            (1, "bT", "submit", ""),
            (1, "bT", "start", "n1"),
            (100, "a", "submit", ""),
            (100, "b1", "preempt", "n0"),
            (110, "", "node_down", "n0"),
            (110, "b1", "fail", "n0"),
            (300, "", "node_up", "n0"),
            (300, "a", "start", "n0"),
            (350, "a", "finish", "n0"),
            (350, "b1", "start", "n0"),
            (501, "bT", "finish", "n1"),
            (1410, "b1", "finish", "n0"),
        ],
    )
    (rec,) = queue_metrics.ledger_records(r)  # the failure adds no row
    assert (rec["time"], rec["cause"], rec["victims"]) == (100.0, "reclaim", ["b1"])
    assert rec["usage_after"] == {"A": 0.0, "B": 8.0} and rec["running_after"] == {"A": 0.0, "B": 4.0}
    block = summarize(r)["queues"]
    assert block["B"]["preemptions_suffered"] == {"reclaim": 1, "te_first": 0}
    assert block["A"]["preemptions_caused"] == {"reclaim": 1, "te_first": 0}
    # b1 was held in grace from its signal to its failure: 10 s x 4 GPUs, charged to the reclaim
    assert block["B"]["gpu_seconds_grace"] == {"reclaim": 40.0, "te_first": 0.0}
    # the decision's nominee lost its node: wasted, cause node down
    (d,) = [d for d in accounting.annotated_decisions(r) if d["victims"]]
    assert (d["cause"], d["wasted"], d["wasted_cause"]) == ("reclaim", True, accounting.NODE_DOWN)
    curve = queue_metrics.usage_over_time(r)
    b = curve[curve["queue"] == "B"].set_index("time")
    assert (b.loc[100.0, "used"], b.loc[100.0, "running"]) == (8.0, 4.0)
    assert (b.loc[110.0, "used"], b.loc[110.0, "running"]) == (4.0, 4.0)


def test_a_reclaim_search_whose_candidates_are_all_on_draining_nodes_says_so():
    # Nodes n0, n1 of 4; queues A (quota 4), B (quota 0); k8s. b1 (B, 4) on n0 from 0, b2 (B, 4) on
    # n1 from 1. n0's maintenance [100, 200) drains b1 at 70 (R(B) = 4 > 0, b2 still lends); n1's
    # maintenance [120, 200) begins draining at 90. t=80 a (A, 4) reclaims: its one candidate b2 is
    # on n1, which drains by the time a victim signalled now releases (90 <= 80 + 30) [5]: the search
    # skips it and finds nothing; its record says every candidate was on such a node.
    r = qrun(
        [job("b1", 0, 1000, 4, queue="B"), job("b2", 1, 1000, 4, queue="B"), job("a", 80, 50, 4, queue="A")],
        prop_cluster(4, 4),
        [("A", 4), ("B", 0)],
        ("n0", 100, 200, "maintenance"),
        ("n1", 120, 200, "maintenance"),
        policy="k8s",
    )
    first = next(d for d in r.decisions if d["te_job"] == "a")
    assert (first["time"], first["victims"], first["reason"]) == (80.0, [], decision.ON_CLOSED_NODES)
    assert (first["queue"], first["search"]) == ("A", "reclaim")
    assert r.ledger == ()


# --------------------------------------------------------------------------- random runs


CASES = 48


def queued_scenario(seed: int) -> tuple[JobTable, ClusterSpec, SimConfig]:
    """:func:`helpers.downtime_cases.scenario` with its jobs over queues: half the seeds two queues
    sharing the GPUs equally, the early jobs in one and the late in the other (the first borrows, the
    second reclaims); the others 1-3 queues of random quotas, borrow limits and weights."""
    jobs, cluster, config = scenario(seed)
    rng = np.random.default_rng((seed, 11))
    gpus = float(cluster.capacity_matrix()[:, 2].sum())
    if seed % 2 == 0:
        spec = QueueSpec.of([("early", gpus / 2), ("late", gpus / 2, math.inf, float(rng.choice([1.0, 2.0])))])
        cut = float(np.median(jobs.submit_time))
        names = ["early" if t < cut else "late" for t in jobs.submit_time.tolist()]
    else:
        n = int(rng.integers(1, 4))
        spec = QueueSpec.of(
            [
                (
                    f"q{i}",
                    float(rng.choice([0, 4, 8, 16, math.inf])),
                    float(rng.choice([0, 4, 8, math.inf])),
                    float(rng.choice([1.0, 2.0, 4.0])),
                )
                for i in range(n)
            ]
        )
        names = [f"q{int(rng.integers(n))}" for _ in range(len(jobs))]
    return with_queues(jobs, names), cluster.with_queues(spec), config


@pytest.mark.parametrize("seed", range(CASES))
def test_runs_with_queues_and_down_time_keep_every_invariant(seed):
    jobs, cluster, config = queued_scenario(seed)
    r = simulate(jobs, cluster, config, record_decisions=True)
    check_down_time(r, config)
    check_queues(r, config)
    # every record with victims is a preemption decision: its victims' preempt rows, never a drain's
    recorded = sorted((d["time"], v) for d in r.decisions for v in d["victims"])
    ledger = sorted((rec["time"], v) for rec in queue_metrics.ledger_records(r) for v in rec["victims"])
    assert recorded == ledger


@pytest.mark.parametrize("seed", range(0, CASES, 4))
def test_one_unlimited_queue_with_down_time_is_the_run_without_queues(seed):
    jobs, cluster, config = scenario(seed)
    jobs = with_queues(jobs, ["default"] * len(jobs))
    plain = simulate(jobs, cluster, config)
    one = simulate(jobs, cluster.with_queues(QueueSpec.of([("default", math.inf)])), config)
    assert one.events_frame.equals(plain.events_frame)


def test_the_random_cases_see_reclaims_drains_and_failures_together():
    """The cases above are not vacuous: runs where queues reclaim and nodes drain and fail."""
    seen: dict[str, int] = {"reclaim": 0, "drain": 0, "fail": 0, "all three": 0, "failed in grace": 0}
    for seed in range(CASES):
        jobs, cluster, config = queued_scenario(seed)
        r = simulate(jobs, cluster, config)
        kinds = set(r.events_frame.event)
        reclaims = any(rec["cause"] == "reclaim" for rec in queue_metrics.ledger_records(r))
        seen["reclaim"] += reclaims
        seen["drain"] += "drain" in kinds
        seen["fail"] += "fail" in kinds
        seen["all three"] += reclaims and {"drain", "fail"} <= kinds
        last: dict[int, int] = {}  # job -> its last row's event other than fail
        in_grace = False
        for j, c in zip(r.ev_job.tolist(), r.ev_code.tolist(), strict=True):
            in_grace |= c == FAIL and last.get(j) in (PREEMPT, DRAIN)
            if c != FAIL:
                last[j] = c
        seen["failed in grace"] += in_grace
    assert min(seen.values()) >= 3, seen
