"""Preemption accounting (DESIGN.md section 5) on hand-made scenarios, every figure derived by hand.

Conventions: "prop" jobs and nodes (cpu = mem_gb = gpu, helpers.job / helpers.prop_cluster);
default knobs unless a test says otherwise (grace 30, restore 60, checkpoint on_preempt); the
policy is ``k8s`` (no cap, so a job can be preempted again). A GPU-second figure is
seconds x gpu x workers (workers 1 here but in the gang victim's case).
"""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest
from helpers import job, prop_cluster, te

from simcore.analysis import accounting
from simcore.analysis.metrics import FLAT_FIELDS, flat_summary, summarize
from simcore.cli import main as cli_main
from simcore.core.model import JobTable, SimConfig
from simcore.engine import simulate
from simcore.policies import POLICIES


def _run(jobs, cluster, **knobs):
    return simulate(JobTable.from_jobs(jobs), cluster, SimConfig(policy="k8s", **knobs), record_decisions=True)


def _excess_scenario():
    # one node of 4; BE A (3 GPUs, 1000 s) from t=0; TE T (2 GPUs, 50 s) at t=100
    return [job("A", 0, 1000, 3), te("T", 100, 50, 2)], prop_cluster(4)


def test_excess_grace_and_restore_on_preempt():
    """At t=100 T finds 1 GPU free and lacks 1; k8s signals A, which frees 3: excess 3 - 1 = 2.
    A holds its 3 GPUs through the grace period 100-130: grace 30 x 3 = 90 GPU-s. T runs
    130-180; A restarts at 180 and restores 60 s on 3 GPUs: 180 GPU-s. on_preempt loses
    nothing. One BE job, preempted: evicted share 1. T started where it was nominated: not
    wasted. A is preempted once: not repreempted."""
    r = _run(*_excess_scenario())
    assert summarize(r)["accounting"] == {
        "preemption_decisions": 1,
        "gpu_seconds_lost": 0.0,
        "gpu_seconds_grace": 90.0,
        "gpu_seconds_restore": 180.0,
        "evicted_share": 1.0,
        "excess_gpus": 2.0,
        "wasted_preemptions": {
            "count": 0,
            "gpu_seconds_lost": 0.0,
            "gpu_seconds_grace": 0.0,
            "gpu_seconds_restore": 0.0,
        },
        "repreempted": 0,
    }
    [record] = accounting.annotated_decisions(r)
    assert record["victims"] == ["A"] and record["node"] == "n0"
    assert {k: record[k] for k in accounting.DECISION_FIELDS} == {
        "excess_gpus": 2.0,
        "gpu_seconds_lost": 0.0,
        "gpu_seconds_grace": 90.0,
        "gpu_seconds_restore": 180.0,
        "wasted": False,
    }


@pytest.mark.parametrize(
    ("knobs", "lost"),
    [
        # none: A's 100 s of progress are all lost: 100 x 3
        ({"checkpoint": "none"}, 300.0),
        # periodic every 40 s: floor(100 / 40) x 40 = 80 s kept, 20 s lost: 20 x 3
        ({"checkpoint": "periodic", "checkpoint_interval": 40}, 60.0),
    ],
)
def test_lost_work_gpu_seconds_by_checkpoint_mode(knobs, lost):
    """The same scenario: the signal at t=100 ends A's first segment after 100 s of progress."""
    r = _run(*_excess_scenario(), **knobs)
    acc = summarize(r)["accounting"]
    assert acc["gpu_seconds_lost"] == lost
    assert r.lost_work.tolist() == [lost / 3, 0.0]  # the jobs CSV's lost_work agrees
    assert accounting.annotated_decisions(r)[0]["gpu_seconds_lost"] == lost


def test_wasted_preemption_the_te_job_starts_elsewhere_first():
    """Nodes n0 (4) and n1 (2). BE A (4 GPUs, 1000 s) on n0 and BE C (2 GPUs, 110 s) on n1 from
    t=0. At t=100 TE T (2 GPUs) fits nowhere; k8s weighs one victim on each node, both started
    at 0, so the lowest index wins: A on n0 is signalled and T is nominated there, lacking
    2 GPUs (A frees 4: excess 2). At t=110 C finishes and T fits on n1 first: it starts there
    (rule 5), so the decision was wasted. A still holds n0 until 130 (grace 30 x 4 = 120 GPU-s),
    restarts at once and restores 60 s (60 x 4 = 240 GPU-s), all of it wasted."""
    jobs = [job("A", 0, 1000, 4), job("C", 0, 110, 2), te("T", 100, 50, 2)]
    r = _run(jobs, prop_cluster(4, 2))
    ev = r.events_frame
    assert ev[(ev.job_id == "T") & (ev.event == "start")][["time", "node"]].values.tolist() == [[110.0, "n1"]]
    acc = summarize(r)["accounting"]
    assert acc["wasted_preemptions"] == {
        "count": 1,
        "gpu_seconds_lost": 0.0,
        "gpu_seconds_grace": 120.0,
        "gpu_seconds_restore": 240.0,
    }
    assert acc["excess_gpus"] == 2.0
    assert acc["evicted_share"] == 0.5  # A of the two BE jobs
    [record] = accounting.annotated_decisions(r)
    assert record["node"] == "n0" and record["wasted"] is True and record["excess_gpus"] == 2.0


@pytest.mark.parametrize(
    ("second", "repreempted", "restore"),
    [
        # A restarted at 180, restored until 240; at 1000 it has run 760 s < 3600: repreempted.
        # Restores: 60 s after each preemption (restarts at 180 and 1080): 2 x 60 x 4
        (1000, 1, 480.0),
        # at 5000 it has run 4760 s >= 3600: not repreempted
        (5000, 0, 480.0),
        # at 200 A is still restoring (180-240): 0 s of run, repreempted; that restore was cut
        # short after 20 s, the next one (from 280, when T2 ends) is whole: (20 + 60) x 4
        (200, 1, 320.0),
    ],
)
def test_repreempted_within_an_hour_of_run_after_the_restore(second, repreempted, restore):
    """One node of 4; BE A (4 GPUs, 10000 s) from t=0. TE T1 (4 GPUs, 50 s) at 100 preempts A
    (release 130; T1 runs 130-180; A restarts at 180). TE T2 (4 GPUs, 50 s) preempts A again.
    Each decision frees exactly what the TE job lacked (4): excess 0. Grace 2 x 30 x 4 = 240."""
    jobs = [job("A", 0, 10000, 4), te("T1", 100, 50, 4), te("T2", second, 50, 4)]
    acc = summarize(_run(jobs, prop_cluster(4)))["accounting"]
    assert (acc["preemption_decisions"], acc["repreempted"]) == (2, repreempted)
    assert (acc["gpu_seconds_grace"], acc["gpu_seconds_restore"], acc["excess_gpus"]) == (240.0, restore, 0.0)


def test_no_preemption_no_cost_and_a_run_without_be_jobs_has_no_share():
    r = _run([te("T", 0, 10, 1)], prop_cluster(2))
    acc = summarize(r)["accounting"]
    assert acc["preemption_decisions"] == 0 and acc["evicted_share"] is None and acc["excess_gpus"] == 0.0


def test_flat_record_carries_the_accounting_in_its_field_order():
    r = _run(*_excess_scenario())
    flat = flat_summary(r)
    assert list(flat) == list(FLAT_FIELDS)
    assert {k: flat[k] for k in accounting.FLAT_ACCOUNTING} == {
        "preemption_decisions": 1,
        "gpu_seconds_lost": 0.0,
        "gpu_seconds_grace": 90.0,
        "gpu_seconds_restore": 180.0,
        "evicted_share": 1.0,
        "excess_gpus": 2.0,
        "wasted_preemptions": 0,
        "wasted_gpu_seconds_lost": 0.0,
        "wasted_gpu_seconds_grace": 0.0,
        "wasted_gpu_seconds_restore": 0.0,
        "repreempted": 0,
    }


def test_gang_victim_costs_count_every_worker_and_excess_every_node_it_holds():
    """Nodes n0 and n1 of 4 GPUs. BE gang G (2 workers of 3 GPUs, 1000 s) from t=0 holds 3 on
    each node. TE T (2 GPUs, 50 s) at t=100 finds 1 GPU free on each node: k8s's only victim is G,
    seen on both nodes (size 2 workers, same start), so the lowest index wins: T is nominated to
    n0, reserving its 1 free GPU and lacking 1. G frees 3 GPUs on each node it holds: excess
    3 x 2 - 1 = 5. checkpoint none: G's 100 s of progress are lost on both workers:
    100 x 3 x 2 = 600 GPU-s (the jobs CSV keeps 100 s per job). G holds both nodes through the
    grace period 100-130: 30 x 3 x 2 = 180. T runs on n0 130-180; G needs 3 GPUs on each of two
    nodes, so it restarts only at 180, restoring 60 s: 60 x 3 x 2 = 360. T started where it was
    nominated: not wasted."""
    g = JobTable.from_jobs([job("G", 0, 1000, 3), te("T", 100, 50, 2)])
    jobs = replace(g, workers=np.array([2, 1]))
    r = simulate(jobs, prop_cluster(4, 4), SimConfig(policy="k8s", checkpoint="none"), record_decisions=True)
    ev = r.events_frame
    assert ev[ev.job_id == "G"][["time", "event", "node"]].values.tolist() == [
        [0.0, "submit", ""],
        [0.0, "start", "n0"],
        [0.0, "start", "n1"],
        [100.0, "preempt", "n0"],
        [100.0, "preempt", "n1"],
        [130.0, "release", "n0"],
        [130.0, "release", "n1"],
        [180.0, "start", "n0"],
        [180.0, "start", "n1"],
        [1240.0, "finish", "n0"],
        [1240.0, "finish", "n1"],
    ]
    assert r.lost_work.tolist() == [100.0, 0.0] and r.signal_lost.tolist() == [100.0]
    assert r.nominations[:, 1:].tolist() == [[1, 0, 1000]]  # T on n0, lacking 1 GPU (thousandths)
    acc = summarize(r)["accounting"]
    assert acc == {
        "preemption_decisions": 1,
        "gpu_seconds_lost": 600.0,
        "gpu_seconds_grace": 180.0,
        "gpu_seconds_restore": 360.0,
        "evicted_share": 1.0,
        "excess_gpus": 5.0,
        "wasted_preemptions": {
            "count": 0,
            "gpu_seconds_lost": 0.0,
            "gpu_seconds_grace": 0.0,
            "gpu_seconds_restore": 0.0,
        },
        "repreempted": 0,
    }
    [record] = accounting.annotated_decisions(r)
    assert (record["victims"], record["node"], record["nodes"]) == (["G"], "n0", ["n0", "n1"])
    assert {k: record[k] for k in accounting.DECISION_FIELDS} == {
        "excess_gpus": 5.0,
        "gpu_seconds_lost": 600.0,
        "gpu_seconds_grace": 180.0,
        "gpu_seconds_restore": 360.0,
        "wasted": False,
    }


def test_te_gang_nominated_worker_by_worker_and_the_budget_checked_once():
    """Nodes n0 and n1 of 4 GPUs; BE A (3 GPUs) on n0 and BE B (4 GPUs) on n1 from t=0. TE gang T
    (2 workers of 2 GPUs, 50 s) at t=100 fits nowhere. Worker 0: k8s weighs A on n0 and B on n1
    (one victim each, both started at 0): the lowest index, n0; it reserves n0's 1 free GPU and
    lacks 1. Worker 1: A's room counts as free, so n0 holds it too; it reserves the 0 GPUs left
    unreserved there and lacks 2. One nomination row per worker, in worker order, both before A's
    preempt row; A frees 3 GPUs, exactly the 1 + 2 lacked: excess 0. With preempt_budget 0 the
    policy is never asked: one record, the budget's reason, no nomination."""
    jobs = replace(
        JobTable.from_jobs([job("A", 0, 1000, 3), job("B", 0, 1000, 4), te("T", 100, 50, 2)]),
        workers=np.array([1, 1, 2]),
    )
    r = simulate(jobs, prop_cluster(4, 4), SimConfig(policy="k8s"), record_decisions=True)
    preempt_row = int(r.events_frame.index[r.events_frame.event == "preempt"][0])
    assert r.nominations.tolist() == [[preempt_row, 2, 0, 1000], [preempt_row, 2, 0, 2000]]
    [record] = accounting.annotated_decisions(r)
    assert (record["victims"], record["excess_gpus"], record["wasted"]) == (["A"], 0.0, False)
    spent = simulate(jobs, prop_cluster(4, 4), SimConfig(policy="k8s", preempt_budget=0), record_decisions=True)
    assert [d["reason"] for d in spent.decisions] == ["preemption budget spent"]
    assert spent.nominations.tolist() == [] and spent.first_start.tolist()[2] == 1000.0


def _decisions_one_by_one(result, pre_rows, gpu_w):
    """The per-decision loop :func:`accounting._decisions` replaced: its values, bit for bit."""
    from simcore.core import units

    nom = result.nominations
    decision_rows, first = np.unique(nom[:, 0], return_index=True)
    bounds = [*first.tolist(), len(nom)]
    decision_of = np.searchsorted(decision_rows, pre_rows, side="right") - 1
    mine_of = decision_of >= 0
    freed = np.bincount(
        decision_of[mine_of], weights=gpu_w[result.ev_job[pre_rows]][mine_of], minlength=len(decision_rows)
    )
    excess, wasted = np.zeros(len(decision_rows)), np.zeros(len(decision_rows), dtype=bool)
    for d in range(len(decision_rows)):
        mine = nom[bounds[d] : bounds[d + 1]]
        excess[d] = (freed[d] - mine[:, 3].sum()) / units.SCALE[2]
        started = [
            int(n)
            for n, c, j in zip(result.ev_node, result.ev_code, result.ev_job, strict=True)
            if c == accounting.START and j == mine[0, 1]
        ]
        wasted[d] = started != mine[:, 2].tolist()
    return decision_of, excess, wasted


@pytest.mark.parametrize(("preset", "policy"), [("paper", "k8s"), ("paper", "fitgpp"), ("paper-gang", "lrtp")])
def test_decisions_are_the_one_by_one_values(preset, policy, monkeypatch):
    from simcore.workload.presets import generate

    gen = generate(preset, 3, {"jobs": 800})
    seen = []
    real = accounting._decisions

    def both(result, pre_rows, gpu_w):
        got = real(result, pre_rows, gpu_w)
        want = _decisions_one_by_one(result, pre_rows, gpu_w)
        seen.append((len(got[1]), len(result.nominations)))
        for g, w in zip(got[:3], want, strict=True):
            assert g.dtype == w.dtype and g.tobytes() == w.tobytes()
        assert not got[3].any()  # no nomination ends without down time (DESIGN rule 12)
        return got

    monkeypatch.setattr(accounting, "_decisions", both)
    summarize(simulate(gen.table, gen.cluster, SimConfig(policy=policy)))
    decisions, nominated = seen[0]
    assert decisions > 10 and (nominated > decisions) == (preset == "paper-gang")  # gangs: a row per worker


def test_te_gang_decision_split_over_its_records_by_hand():
    """One node of 4 GPUs; BE A (2 GPUs) from t=0 and BE B (2 GPUs) from t=50, 1000 s each; TE gang
    T (3 workers of 1 GPU, 50 s) at t=100; checkpoint none. Worker 0 fits nowhere: k8s spares A
    (the earlier start) and takes B; its room (2) counts as free, worker 0 takes 1 of it. Worker 1
    fits in the 1 left (no search, no record). Worker 2 fits nowhere: k8s takes A. One decision
    (one nomination row per worker, all on n0, each lacking 1 GPU: nothing was free), two records:
    [B] then [A]. The 3 GPUs lacked on n0 count against the records in order: B frees 2 and makes
    up 2 (excess 0); A frees 2 and makes up the 1 left (excess 1); the decision's excess 4 - 3 = 1.
    Lost work: B ran 50 s, A 100 s, on 2 GPUs: 100 and 200 GPU-s. Grace 100-130: 30 x 2 = 60 each.
    T runs 130-180; A and B restart at 180 and restore 60 s on 2 GPUs: 120 each. T starts on n0
    as nominated: not wasted."""
    jobs = replace(
        JobTable.from_jobs([job("A", 0, 1000, 2), job("B", 50, 1000, 2), te("T", 100, 50, 1)]),
        workers=np.array([1, 1, 3]),
    )
    r = simulate(jobs, prop_cluster(4), SimConfig(policy="k8s", checkpoint="none"), record_decisions=True)
    assert r.nominations[:, 1:].tolist() == [[2, 0, 1000]] * 3
    records = accounting.annotated_decisions(r)
    assert [(d["time"], d["te_job"], d["victims"]) for d in records] == [(100.0, "T", ["B"]), (100.0, "T", ["A"])]
    assert [{k: d[k] for k in accounting.DECISION_FIELDS} for d in records] == [
        {
            "excess_gpus": 0.0,
            "gpu_seconds_lost": 100.0,
            "gpu_seconds_grace": 60.0,
            "gpu_seconds_restore": 120.0,
            "wasted": False,
        },
        {
            "excess_gpus": 1.0,
            "gpu_seconds_lost": 200.0,
            "gpu_seconds_grace": 60.0,
            "gpu_seconds_restore": 120.0,
            "wasted": False,
        },
    ]
    acc = summarize(r)["accounting"]
    assert (acc["preemption_decisions"], acc["excess_gpus"], acc["gpu_seconds_lost"]) == (1, 1.0, 300.0)
    assert (acc["gpu_seconds_grace"], acc["gpu_seconds_restore"]) == (120.0, 240.0)


@pytest.mark.parametrize("policy", sorted(n for n, p in POLICIES.items() if p.preemptive))
def test_run_writes_decision_records_of_a_te_gang_whose_two_workers_need_victims(policy, tmp_path, capsys):
    """Issue 31's reproducer: one node of 2 GPUs held by BE a and b (1 GPU each, from t=0); TE gang
    T (2 workers of 1 GPU) at t=100. Each worker searches and takes one of them: one decision, two
    records, one victim each (the order is the policy's). Per record: grace 30 s x 1 GPU = 30,
    restore 60 x 1 = 60 (both restart at 630, when T ends), nothing lost (on_preempt), the 1 GPU
    each worker lacked made up exactly (excess 0); T starts where it was nominated."""
    wl = tmp_path / "w.csv"
    wl.write_text(
        "job_id,submit_time,duration,cpu,mem_gb,gpu,job_class,workers\n"
        "a,0,10000,1,8,1,BE,1\nb,0,10000,1,8,1,BE,1\nT,100,500,1,8,1,TE,2\n"
    )
    out = tmp_path / "d.jsonl"
    cluster = ["--nodes", "1", "--node-cpu", "8", "--node-mem-gb", "64", "--node-gpu", "2"]
    assert cli_main(["run", str(wl), *cluster, "--policy", policy, "--decisions-out", str(out)]) == 0
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert sorted(v for d in records for v in d["victims"]) == ["a", "b"]
    for d in records:
        assert (d["time"], d["te_job"], len(d["victims"])) == (100.0, "T", 1)
        assert {k: d[k] for k in accounting.DECISION_FIELDS} == {
            "excess_gpus": 0.0,
            "gpu_seconds_lost": 0.0,
            "gpu_seconds_grace": 30.0,
            "gpu_seconds_restore": 60.0,
            "wasted": False,
        }
