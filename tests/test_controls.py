"""Saves that fail (``save_time``, ``save_failure``) and the preemption budget (``preempt_budget``), on
hand-made scenarios with exact event logs and lost work. Default knobs: grace 30 s, restore 60 s,
on_preempt. The saves' draws are derived here from the documented rule (docs/policies.md): numpy's
``default_rng(SeedSequence(seed, spawn_key=(0,)))``, one ``random()`` per signalled job in signal
order, the save failing when the draw is below ``save_failure``."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import assert_events, assert_jobs, events_of, job, prop_cluster, run, te

from simcore.core.model import JobTable, SimConfig
from simcore.engine import simulate

PREEMPTIVE = ["k8s", "lrtp", "random", "fitgpp", "fitdelay"]


def draws(seed: int, n: int) -> list[float]:
    """The first n draws of the saves' generator of `seed`, as docs/policies.md states it."""
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(0,))).random(n).tolist()


def seed_where(p: float, *fails: bool) -> int:
    """The smallest seed whose first saves fail (True) or succeed (False) in this order, at save_failure p."""
    return next(s for s in range(1000) if [u < p for u in draws(s, len(fails))] == list(fails))


def _one_victim() -> list:
    # B (the whole node) runs from 0; T (the whole node) arrives at 100 and preempts it.
    return [job("B", 0, 1000, 4), te("T", 100, 50, 4)]


def row(result, job_id: str) -> tuple:
    """(first_start, finish, preemptions, lost_work, node) of one job, as assert_jobs compares them."""
    r = result.jobs_frame.set_index("job_id").loc[job_id]
    return float(r.first_start), float(r.finish), int(r.preemptions), float(r.lost_work), str(r.node)


@pytest.mark.parametrize("policy", PREEMPTIVE)
def test_a_save_that_needs_longer_than_the_grace_period_fails(policy):
    # The save needs 45 s > grace 30 s: it fails, B loses its 100 s and restarts from scratch at 180,
    # restoring until 240 (every start after a preemption restores), and ends 240 + 1000 = 1240.
    r = run(_one_victim(), prop_cluster(4), policy=policy, save_time=45)
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
            (1240, "B", "finish", "n0"),
        ],
    )
    assert_jobs(r, {"B": (0, 1240, 1, 100, "n0"), "T": (130, 180, 0, 0, "n0")})
    # a save that needs exactly the grace period succeeds: 900 s left, 240 + 900 = 1140
    assert row(run(_one_victim(), prop_cluster(4), policy=policy, save_time=30), "B") == (0, 1140, 1, 0, "n0")


@pytest.mark.parametrize("policy", PREEMPTIVE)
def test_a_failed_draw_loses_the_work_and_a_good_one_keeps_it(policy):
    failing, saving = seed_where(0.5, True), seed_where(0.5, False)
    assert draws(failing, 1)[0] < 0.5 <= draws(saving, 1)[0]
    lost = run(_one_victim(), prop_cluster(4), policy=policy, save_failure=0.5, seed=failing)
    kept = run(_one_victim(), prop_cluster(4), policy=policy, save_failure=0.5, seed=saving)
    assert (row(lost, "B"), row(kept, "B")) == ((0, 1240, 1, 100, "n0"), (0, 1140, 1, 0, "n0"))


@pytest.mark.parametrize(
    ("fails", "finish", "lost"),
    [
        # saved at 100 (100 s kept); at 400 the save fails: the 160 s since the restore end (240) are lost,
        # the 100 s saved are not; B restarts at 480, restores until 540 and needs 900 s: 1440
        ((False, True), 1440, 160),
        # the first save fails (100 s lost, nothing kept); the second keeps 160 s: 540 + 840 = 1380
        ((True, False), 1380, 100),
        # both fail: 100 + 160 lost, nothing kept: 540 + 1000 = 1540
        ((True, True), 1540, 260),
    ],
)
def test_lost_work_counts_from_the_last_successful_save(fails, finish, lost):
    seed = seed_where(0.5, *fails)
    jobs = [job("B", 0, 1000, 4), te("T1", 100, 50, 4), te("T2", 400, 50, 4)]
    r = run(jobs, prop_cluster(4), policy="k8s", save_failure=0.5, seed=seed)
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
            (400, "T2", "submit", ""),
            (400, "B", "preempt", "n0"),
            (430, "B", "release", "n0"),
            (430, "T2", "start", "n0"),
            (480, "T2", "finish", "n0"),
            (480, "B", "start", "n0"),
            (finish, "B", "finish", "n0"),
        ],
    )
    assert row(r, "B") == (0, finish, 2, lost, "n0")


def test_a_preemption_while_restoring_loses_nothing_even_when_the_save_fails():
    # B restarts at 180 and restores until 240; T2 at 200 signals it while restoring: no progress to lose.
    jobs = [job("B", 0, 1000, 4), te("T1", 100, 50, 4), te("T2", 200, 50, 4)]
    r = run(jobs, prop_cluster(4), policy="k8s", save_time=60)
    # 100 lost at 100; at 200 nothing; B restarts at 280, restores until 340, needs 1000 s
    assert row(r, "B") == (0, 1340, 2, 100, "n0")


def _contended() -> list:
    """Two nodes of 4, four BE jobs of 2 and TE jobs that preempt them again and again."""
    bes = [job(f"B{i}", i, 900 + 100 * i, 2) for i in range(4)]
    tes = [te(f"T{i}", 50 + 130 * i, 40, 2 + 2 * (i % 2)) for i in range(6)]
    return bes + tes


@pytest.mark.parametrize("policy", PREEMPTIVE)
@pytest.mark.parametrize("knobs", [{"save_failure": 1.0}, {"save_time": 31.0}])
def test_saves_that_always_fail_lose_what_no_checkpoint_loses(policy, knobs):
    # a sure failure loses the work since the start (no save ever succeeds), as checkpoint none does,
    # and every policy (fitgpp's lost work, fitdelay's pricing) sees the same losses: the same run
    sure = run(_contended(), prop_cluster(4, 4), policy=policy, **knobs)
    none = run(_contended(), prop_cluster(4, 4), policy=policy, checkpoint="none")
    assert events_of(sure) == events_of(none)
    assert sure.jobs_frame.equals(none.jobs_frame) and sure.jobs_frame["lost_work"].sum() > 0


def test_the_saves_draw_from_their_own_generator_so_random_keeps_its_choices():
    # B1 on n0 and B2 on n1; T1 and T2 each need a whole node and random draws one of the two.
    # The saves' draws come from another stream: the same victims, failed saves or not.
    jobs = [job("B1", 0, 10000, 4), job("B2", 0, 10000, 4), te("T1", 100, 50, 4), te("T2", 1000, 50, 4)]
    for seed in range(8):
        victims = []
        for p in (0.0, 0.5):
            ev = run(jobs, prop_cluster(4, 4), policy="random", save_failure=p, seed=seed).events_frame
            victims.append(ev[ev["event"] == "preempt"][["time", "job_id", "node"]].values.tolist())
        assert victims[0] == victims[1], seed


def test_fitdelay_takes_the_victim_with_the_least_expected_loss_where_fitgpp_takes_the_tightest():
    # n0: A (2 GPUs, running since 0) beside X (TE, 2 GPUs); n1: B (4 GPUs, since 9900). T (2 GPUs) at 10000.
    # fitgpp: A's place fits T exactly (slack 0 < B's 3 x 2/4 = 1.5). With save_failure 0.5 fitdelay prices
    # A at 0.5 x 10000 + grace 30 + restore 60 = 5090 s and B at 0.5 x 100 + 90 + reentry 1800 x 1.5 = 2840 s.
    jobs = [job("A", 0, 50000, 2), te("X", 0, 50000, 2), job("B", 9900, 50000, 4), te("T", 10000, 50, 2)]
    table, cluster = JobTable.from_jobs(jobs), prop_cluster(4, 4)

    def first_decision(policy: str, p: float) -> dict:
        r = simulate(table, cluster, SimConfig(policy=policy, save_failure=p), record_decisions=True)
        return r.decisions[0]

    assert first_decision("fitgpp", 0.5)["victims"] == ["A"]
    assert first_decision("fitdelay", 0.0)["victims"] == ["A"]  # saves never fail: fitdelay is fitgpp
    d = first_decision("fitdelay", 0.5)
    assert d["victims"] == ["B"] and d["node"] == "n1"
    assert [(c["job_id"], c["delay"]) for c in d["candidates"]] == [(["B"], 2840.0), (["A"], 5090.0)]


# --------------------------------------------------------------------------- the preemption budget

BUDGET_JOBS = [job("B", 0, 10000, 4), te("T1", 100, 50, 4), te("T2", 500, 50, 4), te("T3", 1000, 50, 4)]


@pytest.mark.parametrize("policy", ["k8s", "lrtp", "random"])
def test_the_budget_refuses_the_third_decision_in_the_hour_and_allows_it_after(policy):
    # budget 2: decisions at 100 and 500; T3 at 1000 finds both in (1000 - 3600, 1000] and waits. The one
    # at 100 leaves the window at 3700 (an instant of its own, no event row): T3 preempts B then.
    # B keeps 100 + 260 + 3060 s; it restarts at 3780, restores until 3840 and ends 3840 + 6580.
    r = simulate(
        JobTable.from_jobs(BUDGET_JOBS),
        prop_cluster(4),
        SimConfig(policy=policy, preempt_budget=2),
        record_decisions=True,
    )
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
            (500, "T2", "submit", ""),
            (500, "B", "preempt", "n0"),
            (530, "B", "release", "n0"),
            (530, "T2", "start", "n0"),
            (580, "T2", "finish", "n0"),
            (580, "B", "start", "n0"),
            (1000, "T3", "submit", ""),
            (3700, "B", "preempt", "n0"),
            (3730, "B", "release", "n0"),
            (3730, "T3", "start", "n0"),
            (3780, "T3", "finish", "n0"),
            (3780, "B", "start", "n0"),
            (10420, "B", "finish", "n0"),
        ],
    )
    assert [(d["time"], d["te_job"], d["victims"], d["reason"]) for d in r.decisions] == [
        (100, "T1", ["B"], None),
        (500, "T2", ["B"], None),
        (1000, "T3", [], "preemption budget spent"),
        (3700, "T3", ["B"], None),
    ]
    refused = r.decisions[2]
    assert refused["node"] is None and refused["candidates"] == []


def test_without_a_budget_the_third_decision_is_made_at_once_and_zero_never_preempts():
    r = run(BUDGET_JOBS, prop_cluster(4), policy="k8s")
    assert r.events_frame.query("event == 'preempt'")["time"].tolist() == [100, 500, 1000]
    r0 = run(BUDGET_JOBS, prop_cluster(4), policy="k8s", preempt_budget=0)
    assert r0.events_frame.query("event == 'preempt'").empty
    assert events_of(r0) == events_of(run(BUDGET_JOBS, prop_cluster(4), policy="priority"))


@pytest.mark.parametrize("bad", ["1.5", "-1", "nan"])
def test_the_budget_is_a_whole_number_or_inf(bad):
    with pytest.raises(ValueError, match="^knob preempt_budget: must be a whole number >= 0"):
        SimConfig().with_knobs({"preempt_budget": bad})
    assert SimConfig().with_knobs({"preempt_budget": "3"}).preempt_budget == 3
