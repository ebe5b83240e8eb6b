"""Gang jobs (DESIGN.md rule 10, DESIGN-gangs.md): exact event logs derived by hand.

Conventions as in test_scenarios.py: "prop" jobs and nodes (cpu = mem_gb = gpu), default
knobs (grace 30, restore 60, on_preempt, greedy backfill, best_fit) unless a test says
otherwise; a gang's rows come once per worker, in worker order. Best fit on equal slacks takes
the lowest node index.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from helpers import assert_events, assert_jobs, job, prop_cluster, te

from simcore.analysis.gantt import segments
from simcore.core.model import Job, JobTable, SimConfig
from simcore.engine import simulate
from simcore.policies.decision import GANG_UNSATISFIED, NO_RUNNING_BE

PREEMPTIVE = ["k8s", "lrtp", "random", "fitgpp", "fitdelay"]


def gang(job_id: str, submit: float, duration: float, gpu: float, workers: int, *, is_te: bool = False) -> Job:
    return replace(job(job_id, submit, duration, gpu, te=is_te), workers=workers)


def run(jobs: list[Job], cluster, decisions: bool = False, **knobs):
    return simulate(JobTable.from_jobs(jobs), cluster, SimConfig(**knobs), record_decisions=decisions)


def workers_of(r) -> dict[str, int]:
    return dict(zip(r.jobs_frame["job_id"], r.jobs_frame["workers"].tolist(), strict=True))


# --------------------------------------------------------------------------- placement (point 1)


def test_fit_across_nodes_in_worker_order():
    # n0 holds 8, n1 holds 4. Worker 0 (4): slack n0 (8-4)/8 = 0.5, n1 0 -> n1. Worker 1: n1 is
    # full, n0 -> n0. The start rows follow worker order (n1 first), one per worker.
    r = run([gang("G", 0, 100, 4, 2)], prop_cluster(8, 4), policy="fifo")
    assert_events(
        r,
        [
            (0, "G", "submit", ""),
            (0, "G", "start", "n1"),
            (0, "G", "start", "n0"),
            (100, "G", "finish", "n1"),
            (100, "G", "finish", "n0"),
        ],
    )
    assert_jobs(r, {"G": (0, 100, 0, 0, "n1")})  # node: worker 0's
    assert workers_of(r) == {"G": 2}


def test_workers_may_share_a_node():
    r = run([gang("G", 0, 100, 4, 2)], prop_cluster(8), policy="fifo")
    assert_events(
        r,
        [
            (0, "G", "submit", ""),
            (0, "G", "start", "n0"),
            (0, "G", "start", "n0"),
            (100, "G", "finish", "n0"),
            (100, "G", "finish", "n0"),
        ],
    )


def test_no_partial_placement_singles_backfill():
    # n0, n1 of 4. A (2) starts on n0 (tie -> n0). G (2 x 3) at 1: worker 0 fits n1 only, then
    # worker 1 finds n0 (2 free) and n1 (1 free) too small: nothing is placed, G waits. C (1) at 2
    # backfills: best fit n0 (slack 1/4) before n1 (3/4). At 100 A ends: G's workers on n0, n1.
    jobs = [job("A", 0, 100, 2), gang("G", 1, 50, 3, 2), job("C", 2, 10, 1)]
    r = run(jobs, prop_cluster(4, 4), policy="fifo")
    assert_events(
        r,
        [
            (0, "A", "submit", ""),
            (0, "A", "start", "n0"),
            (1, "G", "submit", ""),
            (2, "C", "submit", ""),
            (2, "C", "start", "n0"),
            (12, "C", "finish", "n0"),
            (100, "A", "finish", "n0"),
            (100, "G", "start", "n0"),
            (100, "G", "start", "n1"),
            (150, "G", "finish", "n0"),
            (150, "G", "finish", "n1"),
        ],
    )


def test_gang_that_fits_nowhere_whole_is_unschedulable():
    # 3 workers of 3 on two nodes of 4: each node holds one worker only
    r = run([gang("big", 0, 10, 3, 3), gang("ok", 0, 10, 4, 2)], prop_cluster(4, 4), policy="fifo")
    assert list(r.unschedulable) == ["big"]
    assert list(r.jobs_frame["job_id"]) == ["ok"]


# --------------------------------------------------------------------------- victims


def _gang_victim_jobs():
    # G (2 x 4) holds n0 and n1 from 0; T (TE, 2) at 10 fits nowhere.
    return [gang("G", 0, 1000, 4, 2), te("T", 10, 50, 2)]


@pytest.mark.parametrize("policy", PREEMPTIVE)
def test_a_gang_victim_frees_every_node_it_holds(policy):
    # Every policy: G is the only candidate, on n0 and n1 alike; n0 is taken (lowest index, or
    # random's draw). T is nominated to n0 (reserving 0), G is signalled on both nodes and releases
    # both at 40 (grace 30), topping T up to 2 on n0. T starts on n0 at 40. G (4 per worker) then
    # finds n1 for worker 0 but no room for worker 1 (n0 has 2): it waits for T (ends 90), restarts
    # on n0, n1, restores 60 s and runs its remaining 990 s: 90 + 60 + 990 = 1140.
    r = run(_gang_victim_jobs(), prop_cluster(4, 4), decisions=True, policy=policy, seed=1)
    assert_events(
        r,
        [
            (0, "G", "submit", ""),
            (0, "G", "start", "n0"),
            (0, "G", "start", "n1"),
            (10, "T", "submit", ""),
            (10, "G", "preempt", "n0"),
            (10, "G", "preempt", "n1"),
            (40, "G", "release", "n0"),
            (40, "G", "release", "n1"),
            (40, "T", "start", "n0"),
            (90, "T", "finish", "n0"),
            (90, "G", "start", "n0"),
            (90, "G", "start", "n1"),
            (1140, "G", "finish", "n0"),
            (1140, "G", "finish", "n1"),
        ],
    )
    assert_jobs(r, {"G": (0, 1140, 1, 0, "n0"), "T": (40, 90, 0, 0, "n0")})
    (d,) = r.decisions
    assert d["victims"] == ["G"] and d["nodes"] == ["n0", "n1"]


def test_gang_gantt_segments_on_every_node_it_holds():
    r = run(_gang_victim_jobs(), prop_cluster(4, 4), policy="k8s")
    g = segments(r)
    g = g[g["job_id"] == "G"]
    per_node = {
        n: sorted({(s, e, k) for s, e, k in zip(f["start"], f["end"], f["kind"], strict=True)})
        for n, f in g.groupby("node")
    }
    expected = [(0.0, 10.0, "run"), (10.0, 40.0, "grace"), (90.0, 150.0, "restore"), (150.0, 1140.0, "run")]
    assert per_node == {"n0": expected, "n1": expected}
    assert len(g) == 2 * 4 * len(expected)  # two workers, four GPU lanes each, four pieces
    # per worker, the run segments add up to duration + lost work
    assert g[g["kind"] == "run"].eval("end - start").sum() == 2 * 4 * 1000


def _sizes_jobs():
    # S (4, single) holds n2 from 0; G (2 x 4, from 1) holds n0 and n1; T (TE, 2) at 10.
    return [job("S", 0, 1000, 4), gang("G", 1, 1000, 4, 2), te("T", 10, 50, 2)]


@pytest.mark.parametrize("policy", ["k8s", "lrtp", "fitgpp", "fitdelay"])
def test_a_victim_set_counts_workers(policy):
    # Counted in jobs every node needs one victim, and G (the latest start) would win k8s's and
    # fitgpp's next key. Counted in workers G stops 2, S 1: every policy takes S on n2.
    r = run(_sizes_jobs(), prop_cluster(4, 4, 4), decisions=True, policy=policy)
    assert_events(
        r,
        [
            (0, "S", "submit", ""),
            (0, "S", "start", "n0"),
            (1, "G", "submit", ""),
            (1, "G", "start", "n1"),
            (1, "G", "start", "n2"),
            (10, "T", "submit", ""),
            (10, "S", "preempt", "n0"),
            (40, "S", "release", "n0"),
            (40, "T", "start", "n0"),
            (90, "T", "finish", "n0"),
            (90, "S", "start", "n0"),
            (1001, "G", "finish", "n1"),
            (1001, "G", "finish", "n2"),
            (1140, "S", "finish", "n0"),
        ],
    )
    (d,) = r.decisions
    assert "nodes" not in d and d["victims"] == ["S"]
    assert [c["victims"] for c in d["candidates"]] == [1, 2, 2]


@pytest.mark.parametrize("policy", ["k8s", "lrtp", "fitgpp", "fitdelay"])
def test_a_gang_beats_four_single_victims(policy):
    # n2 holds four single jobs of 1: the TE job (4) needs all four there (4 workers), or G
    # (2 workers) on n0 or n1; every policy takes G on n0 (equal keys: the lower index).
    jobs = [gang("G", 0, 1000, 4, 2), *[job(f"S{i}", 0, 1000, 1) for i in range(4)], te("T", 10, 50, 4)]
    r = run(jobs, prop_cluster(4, 4, 4), decisions=True, policy=policy)
    ev = [e for e in r.events_frame.itertuples(index=False) if e.time == 10 and e.event == "preempt"]
    assert [(e.job_id, e.node) for e in ev] == [("G", "n0"), ("G", "n1")]
    assert r.jobs_frame.set_index("job_id").loc["T", "first_start"] == 40.0


@pytest.mark.parametrize("policy", ["fitgpp", "fitdelay"])
def test_fitgpp_two_single_jobs_beat_a_three_worker_gang(policy):
    # Point 5: G (3 x 4) holds n0-n2; n3 holds S1 and S2 (2 each). On n0 the 1-job set {G} stops
    # 3 workers, on n3 the 2-job set {S1, S2} stops 2: fitgpp's search over jobs takes n3.
    jobs = [gang("G", 0, 1000, 4, 3), job("S1", 0, 1000, 2), job("S2", 0, 1000, 2), te("T", 10, 50, 4)]
    r = run(jobs, prop_cluster(4, 4, 4, 4), decisions=True, policy=policy)
    (d,) = r.decisions
    assert d["node"] == "n3" and d["victims"] == ["S1", "S2"]
    assert [(c["node"], c["victims"]) for c in d["candidates"]] == [("n3", 2), ("n0", 3), ("n1", 3), ("n2", 3)]


def test_random_draws_among_nodes_a_gang_holds():
    # random: feasible nodes n0, n1 (G), n2 (S); integers(3) from default_rng(seed) picks one.
    for seed in range(6):
        pick = int(np.random.default_rng(seed).integers(3))
        r = run(_sizes_jobs(), prop_cluster(4, 4, 4), decisions=True, policy="random", seed=seed)
        (d,) = r.decisions
        assert d["node"] == ["n0", "n1", "n2"][pick]
        assert d["victims"] == (["S"] if pick == 0 else ["G"])
        assert d.get("nodes") == (None if pick == 0 else ["n1", "n2"])


# --------------------------------------------------------------------------- TE gangs (points 6-13)


def test_te_gang_that_cannot_be_satisfied_signals_nobody():
    # A (BE, 4) on n0, B (TE, 4) on n1. T (TE, 2 x 3) at 5: worker 0 would get A's room on n0
    # (4, taking 3), but worker 1 then finds 1 on n0 and none elsewhere, and no other candidate:
    # nobody is signalled. A ends at 1000 (T: worker 1 still has no room, no BE job runs), B at
    # 1001: T starts on n0 and n1.
    jobs = [job("A", 0, 1000, 4), te("B", 1, 1000, 4), gang("T", 5, 50, 3, 2, is_te=True)]
    r = run(jobs, prop_cluster(4, 4), decisions=True, policy="k8s")
    assert_events(
        r,
        [
            (0, "A", "submit", ""),
            (0, "A", "start", "n0"),
            (1, "B", "submit", ""),
            (1, "B", "start", "n1"),
            (5, "T", "submit", ""),
            (1000, "A", "finish", "n0"),
            (1001, "B", "finish", "n1"),
            (1001, "T", "start", "n0"),
            (1001, "T", "start", "n1"),
            (1051, "T", "finish", "n0"),
            (1051, "T", "finish", "n1"),
        ],
    )
    assert [(d["time"], d["victims"], d["reason"]) for d in r.decisions] == [
        (5.0, [], GANG_UNSATISFIED),
        (1000.0, [], NO_RUNNING_BE),
    ]


def test_te_gang_nominated_on_two_nodes_with_a_victim_each():
    # A on n0, B on n1 (BE, 4 each). T (TE, 2 x 3) at 10: worker 0's search takes A on n0 (equal
    # keys: n0), leaving 1 there; worker 1's search (A excluded) takes B on n1. Both signalled in
    # that order; each worker reserves 0, topped up to 3 by the release at 40, when T starts on
    # n0 and n1. A and B wait for T's end at 90, restore and run their remaining 990 s.
    jobs = [job("A", 0, 1000, 4), job("B", 0, 1000, 4), gang("T", 10, 50, 3, 2, is_te=True)]
    r = run(jobs, prop_cluster(4, 4), decisions=True, policy="k8s")
    assert_events(
        r,
        [
            (0, "A", "submit", ""),
            (0, "B", "submit", ""),
            (0, "A", "start", "n0"),
            (0, "B", "start", "n1"),
            (10, "T", "submit", ""),
            (10, "A", "preempt", "n0"),
            (10, "B", "preempt", "n1"),
            (40, "A", "release", "n0"),
            (40, "B", "release", "n1"),
            (40, "T", "start", "n0"),
            (40, "T", "start", "n1"),
            (90, "T", "finish", "n0"),
            (90, "T", "finish", "n1"),
            (90, "A", "start", "n0"),
            (90, "B", "start", "n1"),
            (1140, "A", "finish", "n0"),
            (1140, "B", "finish", "n1"),
        ],
    )
    assert [(d["node"], d["victims"]) for d in r.decisions] == [("n0", ["A"]), ("n1", ["B"])]


def test_te_gang_reserves_for_a_worker_that_fits():
    # n0 (A, 4), n1 (B, 4), n2 (C, 1; 3 free). T (TE, 2 x 3) at 10 does not fit whole. Worker 0
    # fits on n2; worker 1's search takes A on n0. At nomination worker 0 reserves 3 on n2 (point
    # 11), so D (BE, 2) at 20 finds no room (it would fit n2 without the reservation). A releases
    # at 40; T starts on n2 and n0 (worker order). At 90 T ends: A (submit 0) restarts on n0, D on
    # n2 (slack 1/4 against none elsewhere).
    jobs = [
        job("A", 0, 1000, 4),
        job("B", 0, 1000, 4),
        job("C", 0, 1000, 1),
        gang("T", 10, 50, 3, 2, is_te=True),
        job("D", 20, 5, 2),
    ]
    r = run(jobs, prop_cluster(4, 4, 4), policy="k8s")
    assert_events(
        r,
        [
            (0, "A", "submit", ""),
            (0, "B", "submit", ""),
            (0, "C", "submit", ""),
            (0, "A", "start", "n0"),
            (0, "B", "start", "n1"),
            (0, "C", "start", "n2"),
            (10, "T", "submit", ""),
            (10, "A", "preempt", "n0"),
            (20, "D", "submit", ""),
            (40, "A", "release", "n0"),
            (40, "T", "start", "n2"),
            (40, "T", "start", "n0"),
            (90, "T", "finish", "n2"),
            (90, "T", "finish", "n0"),
            (90, "A", "start", "n0"),
            (90, "D", "start", "n2"),
            (95, "D", "finish", "n2"),
            (1000, "B", "finish", "n1"),
            (1000, "C", "finish", "n2"),
            (1140, "A", "finish", "n0"),
        ],
    )


def test_te_gang_grace_zero_releases_follow_preempts():
    # As the two-node nomination with grace 0: the victims are signalled and released in the same
    # pass (preempts in signal order, then releases), T starts at 10 and A, B restart at 60.
    jobs = [job("A", 0, 1000, 4), job("B", 0, 1000, 4), gang("T", 10, 50, 3, 2, is_te=True)]
    r = run(jobs, prop_cluster(4, 4), policy="fitgpp", grace=0, restore=0)
    assert_events(
        r,
        [
            (0, "A", "submit", ""),
            (0, "B", "submit", ""),
            (0, "A", "start", "n0"),
            (0, "B", "start", "n1"),
            (10, "T", "submit", ""),
            (10, "A", "preempt", "n0"),
            (10, "B", "preempt", "n1"),
            (10, "A", "release", "n0"),
            (10, "B", "release", "n1"),
            (10, "T", "start", "n0"),
            (10, "T", "start", "n1"),
            (60, "T", "finish", "n0"),
            (60, "T", "finish", "n1"),
            (60, "A", "start", "n0"),
            (60, "B", "start", "n1"),
            (1050, "A", "finish", "n0"),
            (1050, "B", "finish", "n1"),
        ],
    )


def test_lost_work_is_per_job_and_useful_utilisation_counts_workers():
    # checkpoint none: G loses its 10 s of progress once (per job, in run time)
    from simcore.analysis.metrics import utilization

    r = run(_gang_victim_jobs(), prop_cluster(4, 4), policy="k8s", checkpoint="none")
    jf = r.jobs_frame.set_index("job_id")
    assert (jf.loc["G", "preemptions"], jf.loc["G", "lost_work"]) == (1, 10.0)
    u = utilization(r)
    makespan = u["makespan"]
    assert u["gpu_useful_utilization"] == pytest.approx((1000 * 4 * 2 + 50 * 2) / (8 * makespan))
