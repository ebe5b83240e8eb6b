"""simcore.analysis.whatif.blocking_reasons: one hand-made scenario per reason code (WAIT_REASONS), each
wait derived by hand in its comment. Default knobs: grace 30 s, restore 60 s, on_preempt; nodes
from prop_cluster have cpu = mem_gb = gpu."""

from __future__ import annotations

import math

import pytest
from helpers import cluster_of, job, prop_cluster, te

from simcore.analysis.whatif import WAIT_REASONS, blocking_reasons, reason_at
from simcore.core.errors import UserError
from simcore.core.model import JobTable, SimConfig

INF = math.inf


def _waits(jobs, cluster, job_id, **knobs):
    return [(w.start, w.end, w.reason, w.blocker) for w in _raw(jobs, cluster, job_id, **knobs)]


def _raw(jobs, cluster, job_id, **knobs):
    return blocking_reasons(JobTable.from_jobs(jobs), cluster, SimConfig(**knobs), job_id)


def test_no_room():
    # A holds the 8-GPU node 0-100; B (8 GPUs, at 10) waits until A finishes
    jobs = [job("A", 0, 100, 8), job("B", 10, 100, 8)]
    waits = _raw(jobs, prop_cluster(8), "B")
    assert [(w.start, w.end, w.reason, w.blocker) for w in waits] == [(10, 100, "no_room", None)]
    assert "most GPUs free on one node: 0" in waits[0].text and "fits on the empty cluster" in waits[0].text


def test_head_of_line_then_no_room():
    # backfill none. A (4 GPUs) runs 0-100; B (8, at 1) fits nowhere and heads the queue; C (2, at 2)
    # has room but may not pass B. At 100 B starts (all 8 GPUs, until 200): C is the head, no room.
    jobs = [job("A", 0, 100, 4), job("B", 1, 100, 8), job("C", 2, 10, 2)]
    assert _waits(jobs, prop_cluster(8), "C", backfill="none") == [
        (2, 100, "head_of_line", "B"),
        (100, 200, "no_room", None),
    ]


def test_behind_te():
    # priority (TE first, no preemption), backfill none. A (4) runs 0-100; TE T (8, at 1) heads the
    # queue without room; BE C (2, at 2) waits behind it. T runs 100-110, then C starts.
    jobs = [job("A", 0, 100, 4), te("T", 1, 10, 8), job("C", 2, 10, 2)]
    assert _waits(jobs, prop_cluster(8), "C", policy="priority", backfill="none") == [
        (2, 100, "behind_te", "T"),
        (100, 110, "no_room", None),
    ]


def test_reserved_for_other_and_waiting_for_grace():
    # fitgpp. A (6) runs from 0; TE T (4, at 100) fits nowhere: A is signalled, T is nominated and
    # reserves the 2 free GPUs. C (2, at 110) would fit in them: reserved for T until A releases at
    # 130, when T (4) and then C (2) start.
    jobs = [job("A", 0, 1000, 6), te("T", 100, 50, 4), job("C", 110, 10, 2)]
    assert _waits(jobs, prop_cluster(8), "C", policy="fitgpp") == [(110, 130, "reserved_for_other", "T")]
    assert _waits(jobs, prop_cluster(8), "T", policy="fitgpp") == [(100, 130, "waiting_for_grace", "A")]


def test_min_runtime():
    # fitgpp, min_runtime 300: A (8) started at 0 is no candidate before 300; T (1, at 100) waits, then
    # preempts A at 300 and waits out its grace period until 330
    jobs = [job("A", 0, 1000, 8), te("T", 100, 50, 1)]
    assert _waits(jobs, prop_cluster(8), "T", policy="fitgpp", min_runtime=300) == [
        (100, 300, "min_runtime", None),
        (300, 330, "waiting_for_grace", "A"),
    ]


def test_capped_by_p():
    # fitgpp P=1. T1 (at 100) preempts A (8): A releases at 130, T1 runs 130-180, A resumes at 180,
    # restores until 240 and ends at 240 + 900 = 1140. T2 (at 200) finds A at its one preemption.
    jobs = [job("A", 0, 1000, 8), te("T1", 100, 50, 1), te("T2", 200, 50, 1)]
    assert _waits(jobs, prop_cluster(8), "T2", policy="fitgpp", P=1) == [(200, 1140, "capped_by_P", None)]


def test_capped_by_s():
    # fitgpp s=0.5: A's dominant share (1) is above 0.5 x T's (1/8); T waits for A's finish at 1000
    jobs = [job("A", 0, 1000, 8), te("T", 100, 50, 1)]
    assert _waits(jobs, prop_cluster(8), "T", policy="fitgpp", s=0.5) == [(100, 1000, "capped_by_s", None)]


def test_frees_soon():
    # fitdelay with checkpoint none (a signal loses work): A (8) ends at 110, within T's grace period
    # (100 + 30), so T waits for it instead of preempting
    jobs = [job("A", 0, 110, 8), te("T", 100, 50, 1)]
    assert _waits(jobs, prop_cluster(8), "T", policy="fitdelay", checkpoint="none") == [(100, 110, "frees_soon", None)]


def test_no_victims_then_grace():
    # fitgpp. TE B (4) runs 0-1000 beside BE A (4); TE T (8, at 100): even without A only 4 GPUs are
    # free, so no victim set makes room. At 1000 B ends: A is signalled, T starts at 1030.
    jobs = [job("A", 0, 5000, 4), te("B", 0, 1000, 4), te("T", 100, 50, 8)]
    assert _waits(jobs, prop_cluster(8), "T", policy="fitgpp") == [
        (100, 1000, "no_victims", None),
        (1000, 1030, "waiting_for_grace", "A"),
    ]


def test_no_room_for_a_te_job_with_no_be_job_running():
    # fitgpp: only TE B (8) runs, 0-1000: T (at 100) has nobody to preempt
    jobs = [te("B", 0, 1000, 8), te("T", 100, 50, 1)]
    waits = _raw(jobs, prop_cluster(8), "T", policy="fitgpp")
    assert [(w.start, w.end, w.reason) for w in waits] == [(100, 1000, "no_room")]
    assert waits[0].text.endswith("no running BE job to preempt")


def test_preempt_budget():
    # fitgpp, one decision per rolling hour. T1 (at 100) preempts A (A and B tie: job order); A is back
    # at 180. T2 (at 200) finds the budget spent until 100 + 3600 = 3700, then preempts B (fewer past
    # preemptions than A) and waits for its grace period until 3730
    jobs = [job("A", 0, 10000, 4), job("B", 0, 10000, 4), te("T1", 100, 50, 4), te("T2", 200, 50, 4)]
    assert _waits(jobs, prop_cluster(8), "T2", policy="fitgpp", preempt_budget=1) == [
        (200, 3700, "preempt_budget", None),
        (3700, 3730, "waiting_for_grace", "B"),
    ]


def test_next_pass_after_a_release_within_the_pass():
    # grace 0, first_fit. A (1 CPU, 8 GiB, 8 GPUs) runs on n0 (16 CPU); n1 (1 CPU, 8 GiB, 8 GPUs) is
    # empty. TE T (16 CPU, at 100) fits only on n0: A is preempted and released within the pass, T
    # starts; A, rejoining after the pass, has room on n1 but waits for the next pass: T's finish at 150.
    jobs = [job("A", 0, 1000, 8, cpu=1, mem=8), te("T", 100, 50, 0, cpu=16, mem=0)]
    cluster = cluster_of((16, 8, 8), (1, 8, 8))
    assert _waits(jobs, cluster, "A", policy="fitgpp", grace=0, placement="first_fit") == [
        (100, 150, "next_pass", None)
    ]


def test_queue_limit_names_the_queue_its_quota_and_usage():
    # queues: A has quota 2 and borrow limit 2. a0 (A, 4 GPUs) runs 0-100; a1 (A, 2, at 10) has room
    # (4 GPUs free on the 8-GPU node) but 4 + 2 > 2 + 2: it waits for its own team until a0 ends.
    from simcore.core.queues import QueueSpec

    jobs = [job("a0", 0, 100, 4, queue="A"), job("a1", 10, 10, 2, queue="A")]
    cluster = prop_cluster(8).with_queues(QueueSpec.of([("A", 2, 2)]))
    waits = _raw(jobs, cluster, "a1")
    assert [(w.start, w.end, w.reason, w.blocker) for w in waits] == [(10, 100, "queue_limit", None)]
    assert waits[0].text == (
        "its queue 'A' (quota 2 GPUs, borrow limit 2) holds 4 GPUs and its nominated jobs wait for 0 more: "
        "with this job it would pass its quota + borrow limit, so it waits for its own team"
    )


def test_every_reason_code_has_a_scenario_here():
    tested = {
        "no_room",
        "head_of_line",
        "behind_te",
        "reserved_for_other",
        "waiting_for_grace",
        "min_runtime",
        "capped_by_P",
        "capped_by_s",
        "frees_soon",
        "no_victims",
        "preempt_budget",
        "next_pass",
        "queue_limit",
    }
    assert tested == set(WAIT_REASONS)


def test_reason_at_picks_the_wait_of_an_instant():
    jobs = [job("A", 0, 100, 4), job("B", 1, 100, 8), job("C", 2, 10, 2)]
    waits = _raw(jobs, prop_cluster(8), "C", backfill="none")
    assert reason_at(waits, 2).reason == "head_of_line"
    assert reason_at(waits, 99.5).blocker == "B"
    assert reason_at(waits, 100).reason == "no_room"
    assert reason_at(waits, 200) is None and reason_at(waits, 1) is None


def test_a_job_that_never_waits_has_no_waits_and_an_unknown_one_is_an_error():
    jobs = [job("A", 0, 100, 4)]
    assert _waits(jobs, prop_cluster(8), "A") == []
    with pytest.raises(UserError, match="no job 'Z'"):
        _waits(jobs, prop_cluster(8), "Z")


def test_a_te_gang_waits_for_the_grace_of_its_one_victim():
    # fitgpp, two 8-GPU nodes held by BE A (n0) and B (n1). TE gang G (2 workers x 4 GPUs, at 100):
    # worker 0 preempts A (n0, job order on a tie); worker 1 then fits in the rest of n0 (A counts as
    # released), so only A is signalled and G starts at 130, after A's grace period
    from simcore.core.model import Job

    a, b = job("A", 0, 1000, 8), job("B", 0, 1000, 8)
    g = Job("G", 100.0, 50.0, job("x", 0, 1, 4).request, te("x", 0, 1, 4).job_class, workers=2)
    assert _waits([a, b, g], prop_cluster(8, 8), "G", policy="fitgpp") == [(100, 130, "waiting_for_grace", "A")]


def test_a_be_gang_without_room_says_so():
    # fifo, two 8-GPU nodes; A (8) holds n0 until 100; gang G (2 x 8 GPUs, at 10) waits for it
    from simcore.core.model import Job

    g = Job("G", 10.0, 50.0, job("x", 0, 1, 8).request, job("x", 0, 1, 8).job_class, workers=2)
    waits = _raw([job("A", 0, 100, 8), g], prop_cluster(8, 8), "G")
    assert [(w.start, w.end, w.reason) for w in waits] == [(10, 100, "no_room")]
    assert waits[0].text.startswith("no set of nodes has room for its 2 workers (most GPUs free on one node: 8)")


def test_docs_cli_shows_every_reason_with_its_definition():
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[1] / "docs" / "cli.md").read_text(encoding="utf-8")
    section = doc.split("#### Wait reasons", 1)[1].split("###", 1)[0]
    rows = [r for r in section.splitlines() if r.startswith("| `")]
    assert rows == [f"| `{k}` | {v} |" for k, v in WAIT_REASONS.items()]


@pytest.mark.parametrize("policy", ["fifo", "priority", "k8s", "lrtp", "random", "fitgpp", "fitdelay"])
@pytest.mark.parametrize("backfill", ["greedy", "none"])
def test_watching_a_job_changes_nothing_in_the_run(policy, backfill):
    # the waits are read from a run with decision records and the observer: it must be the run itself
    # (grace 0 with backfill none, so that releases within a pass are watched too)
    from pathlib import Path

    from simcore.analysis.whatif.reasons import watched_run
    from simcore.core.model import ClusterSpec
    from simcore.engine import simulate
    from simcore.workload import load_workload

    jobs = load_workload(Path(__file__).resolve().parents[1] / "sample_workloads" / "demo.csv").table
    cluster, config = (
        ClusterSpec.uniform(4, 64, 512, 8),
        SimConfig(policy=policy, backfill=backfill, grace=0 if backfill == "none" else 30),
    )
    plain = simulate(jobs, cluster, config)
    watched, waits = watched_run(jobs, cluster, config, "9")
    assert watched.events_frame.equals(plain.events_frame) and watched.jobs_frame.equals(plain.jobs_frame)
