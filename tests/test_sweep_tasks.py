"""One sweep task (simcore.experiments.sweep.tasks) against the compare routine it shares with `simcore compare`."""

from __future__ import annotations

import math

import numpy as np
import pytest

from simcore.analysis import accounting
from simcore.analysis.compare import compare_results, configure, run_policies
from simcore.analysis.metrics import TRIO_KEYS
from simcore.core.model import SimConfig
from simcore.engine import simulate
from simcore.experiments import sweep
from simcore.policies.spec import parse_policies
from simcore.workload.presets import generate


def test_a_task_row_is_the_compare_json_of_the_same_workload():
    spec = sweep.build_spec(
        preset="demo",
        fixed={"jobs": 80, "nodes": 2, "grace": 0},
        seeds="5",
        policies="fifo,k8s,fitgpp:P=1",
        baseline="fifo,k8s",
    )
    task = spec.tasks()[0]
    rows = sweep.run_task(task)
    # the same workload and knobs through `simcore compare`'s routine
    gen = generate("demo", 0, {"jobs": 80, "nodes": 2})
    results = run_policies(gen.table, gen.cluster, configure(parse_policies("fifo,k8s,fitgpp:P=1"), SimConfig(grace=0)))
    assert [r["policy"] for r in rows] == list(results)
    for baseline in ("fifo", "k8s"):
        versus = compare_results(results, baseline)
        for row in rows:
            summary = versus["policies"][row["policy"]]
            assert row["TE_slowdown_p95"] == summary["classes"]["TE"]["slowdown"]["p95"]
            assert row["preemptions"] == summary["preemptions"] and row["grace"] == 0
            for key in TRIO_KEYS:
                want = versus["vs_baseline"][row["policy"]][key]
                got = row[f"{key}_vs_{baseline}"]
                assert (math.isnan(got) and want is None) or got == pytest.approx(want, abs=0, rel=0)
    assert all(row[f"{k}_vs_fifo"] == 0 for row in rows[:1] for k in TRIO_KEYS)


def test_run_policies_reports_each_result_in_order():
    gen = generate("demo", 1, {"jobs": 20, "nodes": 1})
    seen = []
    results = run_policies(
        gen.table,
        gen.cluster,
        configure(parse_policies("priority,fifo"), SimConfig()),
        lambda label, r: seen.append(label),
    )
    assert seen == list(results) == ["priority", "fifo"]
    assert [r.config.policy for r in results.values()] == ["priority", "fifo"]


def test_a_gang_task_row_holds_the_single_runs_accounting_exactly():
    # paper-gang (DESIGN section 7): gangs of several workers; periodic checkpoints so preemptions lose work
    fixed = {"jobs": 200, "nodes": 8, "checkpoint": "periodic"}
    spec = sweep.build_spec(preset="paper-gang", fixed=fixed, seeds="1", policies="fifo,k8s,fitgpp,fitdelay")
    task = spec.tasks()[0]
    rows = sweep.run_task(task)
    gen = generate("paper-gang", task.seed, {"jobs": 200, "nodes": 8})
    assert gen.table.has_gangs
    gangs_stopped = 0
    for row in rows:
        config = SimConfig(policy=row["policy"], checkpoint="periodic", seed=task.seed)
        result = simulate(gen.table, gen.cluster, config)
        gangs_stopped += int(np.asarray(result.preemptions)[np.asarray(result.jobs.workers) > 1].sum())
        single = accounting.flat(accounting.summary(result))
        got = {k: row[k] for k in accounting.FLAT_ACCOUNTING}
        assert got.keys() == single.keys()
        for key, want in single.items():  # exact, NaN (no BE job preempted) included
            assert got[key] == want or (math.isnan(got[key]) and math.isnan(want)), (row["policy"], key)
    preempting = [r for r in rows if r["policy"] != "fifo"]
    # the case in point: a gang victim's costs count every worker (fitgpp stops one gang here)
    assert gangs_stopped > 0
    assert all(r["preemption_decisions"] > 0 for r in preempting) and any(r["gpu_seconds_lost"] > 0 for r in preempting)
