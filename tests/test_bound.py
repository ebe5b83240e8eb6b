"""The pooled bound ``ideal`` (DESIGN.md section 5): the same jobs on one node with the cluster's
summed resources, k8s, grace = restore = 0, on_preempt. Conventions as in test_scenarios.py
("prop" jobs and nodes, cpu = mem_gb = gpu; default knobs)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from helpers import assert_events, job, prop_cluster, te

from simcore.analysis.bound import BOUND_LABEL, POOLED_NODE, pooled, run_bound
from simcore.cli import main as cli_main
from simcore.core.model import JobTable, SimConfig
from simcore.engine import simulate
from simcore.policies import POLICIES

# two nodes of 4, each 3/4 full from t=0: TE T (2 GPUs) at 10 fits on neither node but fits the
# pooled node's 2 free GPUs
FRAGMENTED = [job("A", 0, 1000, 3), job("B", 0, 1000, 3), te("T", 10, 100, 2)]
# n0 (4) full with A; n1 (2) full with C until 110; TE T (2 GPUs) at 100 (test_accounting's wasted case)
WASTED = [job("A", 0, 1000, 4), job("C", 0, 110, 2), te("T", 100, 50, 2)]
# one node of 4 full with A; two TE jobs of 4 that each need the whole node
QUEUED = [job("A", 0, 5000, 4), te("T1", 100, 50, 4), te("T2", 120, 50, 4)]
CASES = {"fragmented": (FRAGMENTED, (4, 4)), "wasted": (WASTED, (4, 2)), "queued": (QUEUED, (4,))}


def test_the_pooled_node_holds_the_cluster_s_summed_resources():
    spec = pooled(prop_cluster(4, 2))
    assert spec.names == [POOLED_NODE] and spec.capacity_matrix().tolist() == [[6.0, 6.0, 6.0]]


def test_exact_bound_on_a_fragmented_cluster():
    """The pooled node has 8 GPUs; A and B take 6 at t=0, so T fits the 2 left at t=10 at once,
    with no preemption (on the real cluster every policy that preempts must evict A or B)."""
    r = run_bound(JobTable.from_jobs(FRAGMENTED), prop_cluster(4, 4), SimConfig(policy="fifo"))
    p = POOLED_NODE
    assert_events(
        r,
        [
            (0, "A", "submit", ""),
            (0, "B", "submit", ""),
            (0, "A", "start", p),
            (0, "B", "start", p),
            (10, "T", "submit", ""),
            (10, "T", "start", p),
            (110, "T", "finish", p),
            (1000, "A", "finish", p),
            (1000, "B", "finish", p),
        ],
    )
    assert r.config.policy == "k8s" and (r.config.grace, r.config.restore) == (0.0, 0.0)


@pytest.mark.parametrize("case", sorted(CASES))
def test_bound_te_waits_are_at_most_every_policy_s(case):
    """On one node with free preemption a TE job waits only for TE work ahead of it: in
    "fragmented" and "wasted" every TE job starts on arrival (wait 0); in "queued" T1 starts on
    arrival (A preempted, released at once) and T2 waits for T1 (100 -> 150: 30 s), which no policy
    beats because T1 holds the only node."""
    jobs, gpus = CASES[case]
    table, cluster = JobTable.from_jobs(jobs), prop_cluster(*gpus)
    bound = run_bound(table, cluster, SimConfig())
    wait = bound.first_start - table.submit_time
    expected = {"fragmented": [0.0], "wasted": [0.0], "queued": [0.0, 30.0]}[case]
    assert wait[table.is_te].tolist() == expected
    for name in POLICIES:
        r = simulate(table, cluster, SimConfig(policy=name))
        assert (wait[table.is_te] <= (r.first_start - table.submit_time)[table.is_te]).all(), name


def test_the_bound_runs_only_the_jobs_the_real_cluster_can_hold():
    # X (5 GPUs) fits the pooled 6 but no real node: left out, as the policies leave it out
    jobs = JobTable.from_jobs([job("A", 0, 10, 1), job("X", 0, 10, 5)])
    r = run_bound(jobs, prop_cluster(4, 2), SimConfig(), unschedulable=["X"])
    assert r.jobs.job_id.tolist() == ["A"]


def test_compare_bound_and_accounting(tmp_path, capsys):
    wl = tmp_path / "w.csv"
    wl.write_text(
        "job_id,submit_time,duration,cpu,mem_gb,gpu,job_class\n"
        + "".join(
            f"{j.job_id},{j.submit_time},{j.duration},{j.request.gpu},{j.request.gpu},"
            f"{j.request.gpu},{j.job_class.value}\n"
            for j in WASTED
        )
    )
    out = tmp_path / "c.json"
    argv = [
        "compare",
        str(wl),
        "--policies",
        "fifo,k8s",
        "--cluster",
        str(_cluster_file(tmp_path)),
        "--bound",
        "--accounting",
        "--json",
        str(out),
    ]
    assert cli_main(argv) == 0
    text = capsys.readouterr().out
    lines = text.splitlines()
    assert lines[4].startswith(f"{BOUND_LABEL} (bound) ")
    acct = lines[lines.index(next(x for x in lines if x.startswith("accounting"))) :]
    # k8s: one decision, wasted (test_accounting's derivation); the bound preempts C, 2 GPUs
    # for exactly the 2 T lacks, with no grace or restore
    assert acct[2].split() == ["k8s", "1", "0", "120", "240", "0.5", "2", "1", "0"]
    assert acct[3].split() == [BOUND_LABEL, "(bound)", "1", "0", "0", "0", "0.5", "0", "0", "0"]
    data = json.loads(out.read_text())
    assert list(data["policies"]) == ["fifo", "k8s"] and BOUND_LABEL not in data["vs_baseline"]
    assert data["bound"]["label"] == BOUND_LABEL and data["bound"]["summary"]["classes"]["TE"]["wait"]["p50"] == 0.0
    assert data["bound"]["vs_baseline"]["TE_p95_slowdown_pct"] == pytest.approx((1.0 - 1.2) / 1.2 * 100)
    assert data["policies"]["k8s"]["accounting"]["wasted_preemptions"]["count"] == 1


def _cluster_file(tmp_path):
    path = tmp_path / "c.json"
    path.write_text(
        json.dumps(
            {
                "nodes": [
                    {"name": "n", "count": 1, "cpu": 4, "mem_gb": 4, "gpu": 4},
                    {"name": "m", "count": 1, "cpu": 2, "mem_gb": 2, "gpu": 2},
                ]
            }
        )
    )
    return path


def test_sweep_marks_the_bound_rows(tmp_path):
    out = tmp_path / "s.parquet"
    argv = [
        "sweep",
        "--preset",
        "demo",
        "--set",
        "jobs=60",
        "--seeds",
        "2",
        "--policies",
        "fifo,fitgpp",
        "--bound",
        "--workers",
        "1",
        "--no-progress",
        "--out",
        str(out),
    ]
    assert cli_main(argv) == 0
    rows = pd.read_parquet(out).sort_values(["seed", "policy"])
    assert rows[["seed", "policy", "bound"]].values.tolist() == [
        [0, "fifo", False],
        [0, "fitgpp", False],
        [0, BOUND_LABEL, True],
        [1, "fifo", False],
        [1, "fitgpp", False],
        [1, BOUND_LABEL, True],
    ]
    ideal = rows[rows.policy == BOUND_LABEL]
    assert (ideal[["grace", "restore"]].to_numpy() == 0).all()
    assert np.isfinite(ideal["TE_p95_slowdown_pct_vs_fifo"]).all()


def test_grid_file_bound_key_and_its_simulation_count():
    from simcore.core.errors import UserError
    from simcore.experiments.sweep import build_spec, spec_from_mapping

    kw = spec_from_mapping({"preset": "demo", "seeds": 2, "policies": ["fifo", "k8s"], "bound": True})
    spec = build_spec(**kw)
    assert spec.bound and all(t.bound for t in spec.tasks()) and spec.n_simulations == 2 * (2 + 1)
    with pytest.raises(UserError, match="bound: expected true or false"):
        build_spec(**{**kw, "bound": "yes"})
