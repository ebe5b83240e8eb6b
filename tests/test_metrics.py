"""Metrics: summaries against a direct recomputation, utilisation by hand, the trio, time series."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import job, prop_cluster, run, te

from simcore.analysis import gantt, metrics
from simcore.core.model import SimConfig
from simcore.engine import simulate
from simcore.workload.presets import generate


def _small():
    # one 4-GPU node. A (BE, 4 GPUs) 0..100; T (TE, 2 GPUs) arrives at 10, preempts A under k8s
    # (grace 30 -> released at 40), runs 40..60; A restarts at 60 with 60 s restore -> ends 60+60+90=210.
    return run([job("A", 0, 100, 4), te("T", 10, 20, 2)], prop_cluster(4), policy="k8s")


def test_summary_matches_recomputation_on_demo():
    wl = generate("demo", 3)
    r = simulate(wl.table, wl.cluster, SimConfig(policy="fitgpp"))
    s = metrics.summarize(r)
    jf = r.jobs_frame
    for cls, frame in (("TE", jf[jf.job_class == "TE"]), ("BE", jf[jf.job_class == "BE"]), ("all", jf)):
        assert s["classes"][cls]["count"] == len(frame)
        for col in ("slowdown", "wait", "jct"):
            got = s["classes"][cls][col]
            assert got["mean"] == pytest.approx(frame[col].mean())
            for q in (50, 90, 95, 99):
                assert got[f"p{q}"] == pytest.approx(np.percentile(frame[col], q))
    assert s["preemptions"] == int(jf.preemptions.sum()) and s["lost_work"] == pytest.approx(jf.lost_work.sum())
    assert list(s) == [
        "policy",
        "classes",
        "preemptions",
        "lost_work",
        "accounting",
        "gpu_utilization",
        "gpu_useful_utilization",
        "cpu_utilization",
        "makespan",
        "unschedulable",
        "knobs",
        "wall_seconds",
    ]


def test_utilisation_counts_restore_and_grace_by_hand():
    r = _small()
    s = metrics.summarize(r)
    # A holds 4 GPUs 0..40 (incl. grace) and 60..210; T holds 2 GPUs 40..60. Makespan 210.
    held = 4 * 40 + 4 * 150 + 2 * 20
    assert s["makespan"] == 210
    assert s["gpu_utilization"] == pytest.approx(held / (4 * 210))
    assert s["gpu_useful_utilization"] == pytest.approx((4 * 100 + 2 * 20) / (4 * 210))
    assert s["preemptions"] == 1 and s["classes"]["TE"]["wait"]["mean"] == 30


def test_time_series_by_hand():
    r = _small()
    u = metrics.utilization_over_time(r)
    assert u[["time", "gpu_alloc"]].values.tolist() == [[0, 4], [40, 2], [60, 4], [210, 0]]
    q = metrics.queue_length_over_time(r)
    assert q[["time", "pending", "pending_TE", "pending_BE"]].values.tolist() == [
        [0, 0, 0, 0],
        [10, 1, 1, 0],
        [40, 1, 0, 1],
        [60, 0, 0, 0],
    ]
    seg = gantt.segments(r)
    seg = seg[seg["lane"] == 0]  # A holds lanes 0-3, T lanes 0-1
    rows = seg[["job_id", "start", "end", "kind"]].values.tolist()
    assert rows == [
        ["A", 0, 10, "run"],
        ["A", 10, 40, "grace"],
        ["T", 40, 60, "run"],
        ["A", 60, 120, "restore"],
        ["A", 120, 210, "run"],
    ]


def test_trio_and_nulls():
    base = {"classes": {"TE": {"slowdown": {"p95": 10.0}}, "BE": {"slowdown": {"p50": 2.0, "p95": 0.0}}}}
    pol = {"classes": {"TE": {"slowdown": {"p95": 1.0}}, "BE": {"slowdown": {"p50": 3.0, "p95": 5.0}}}}
    assert metrics.trio(metrics.slowdowns(pol), metrics.slowdowns(base)) == {
        "TE_p95_slowdown_pct": -90.0,
        "BE_p50_slowdown_pct": 50.0,
        "BE_p95_slowdown_pct": None,
    }
    empty = metrics.describe(np.array([]))
    assert empty == dict.fromkeys(("mean", "p50", "p90", "p95", "p99"))
    with pytest.raises(ValueError, match="baseline 'x'"):
        metrics.compare_summaries({"fifo": base}, "x")


def test_the_trio_of_flat_records_is_that_of_the_nested_summaries():
    """The trio is read from flat records (the dashboard, sweep rows) or from a nested summary's
    slowdowns (the compare JSON): the same numbers, a class with no jobs (no TE job here) a null in both."""
    # k8s preempts A for T (see _small); fifo lets T wait: BE slowdowns differ, TE ones too
    runs = {p: run([job("A", 0, 100, 4), te("T", 10, 20, 2)], prop_cluster(4), policy=p) for p in ("fifo", "k8s")}
    runs["be_only"] = run([job("A", 0, 100, 4), job("B", 10, 20, 2)], prop_cluster(4), policy="fifo")
    nested = {p: metrics.summarize(r) for p, r in runs.items()}
    flat = {p: metrics.flat_summary(r, nested[p]) for p, r in runs.items()}
    for p in runs:
        nested_trio = metrics.trio(metrics.slowdowns(nested[p]), metrics.slowdowns(nested["fifo"]))
        assert metrics.trio(flat[p], flat["fifo"]) == nested_trio
    k8s = metrics.trio(flat["k8s"], flat["fifo"])
    # fifo: T waits 10..100, slowdown (90 + 20) / 20 = 5.5; k8s: T runs 40..60, slowdown 50 / 20 = 2.5
    assert k8s["TE_p95_slowdown_pct"] == pytest.approx((2.5 - 5.5) / 5.5 * 100)
    assert metrics.trio(flat["be_only"], flat["fifo"])["TE_p95_slowdown_pct"] is None


def test_bounded_slowdown_tau():
    r = run([job("A", 0, 5, 1), job("B", 0, 100, 1)], prop_cluster(1), policy="fifo", tau=10)
    jf = r.jobs_frame.set_index("job_id")
    # A: jct 5 -> max(1, 5/max(5,10)) = 1; B waits 5: jct 105 -> 105/100.
    assert jf.loc["A", "slowdown"] == 1.0 and jf.loc["B", "slowdown"] == pytest.approx(1.05)


def test_the_trio_is_declared_once_and_every_layer_reads_it():
    import re
    from pathlib import Path

    from dashboard.shared import views
    from simcore.cli import sweep as cli_sweep
    from simcore.experiments import sweep
    from simcore.experiments.study import plan, tables

    assert metrics.TRIO_KEYS == ("TE_p95_slowdown_pct", "BE_p50_slowdown_pct", "BE_p95_slowdown_pct")
    assert list(metrics.TRIO_LABELS.values()) == ["TE p95 slowdown", "BE p50 slowdown", "BE p95 slowdown"]
    assert views.TRIO_KEYS is metrics.TRIO_KEYS
    assert views.TRIO_LABELS is metrics.TRIO_LABELS and tables.TRIO_LABELS is metrics.TRIO_LABELS
    assert views.TRIO_SOURCE is metrics.TRIO and list(plan.PAPER_TRIO) == list(metrics.TRIO_KEYS)
    header = cli_sweep.format_summary(
        sweep.aggregate(
            __import__("pandas").DataFrame(
                {
                    "point_id": ["p"],
                    "seed": [0],
                    "policy": ["fifo"],
                    "TE_slowdown_p95": [2.0],
                    "TE_p95_slowdown_pct_vs_fifo": [0.0],
                }
            )
        ),
        "fifo",
    ).splitlines()[1]
    assert "TE p95 sd" in header and "BE p95 % vs fifo" in header
    # one definition computes a trio's percent change (metrics.trio through pct_change); every other
    # module calls it or reads the rows' versus() columns it filled
    root = Path(__file__).resolve().parent.parent
    computing = [
        str(f.relative_to(root))
        for f in sorted([*(root / "simcore").rglob("*.py"), *(root / "dashboard").rglob("*.py")])
        if re.search(r"\bpct_change\(", f.read_text(encoding="utf-8"))
    ]
    assert computing == ["simcore/analysis/metrics.py"]
    # no other module writes its own table of trio keys: a module-level TRIO name bound to a literal
    literal = re.compile(r"^[A-Z_]*TRIO[A-Z_]*\s*(:[^=]*)?=\s*[{(\[]", re.M)
    for path in [*root.glob("simcore/**/*.py"), *root.glob("dashboard/**/*.py")]:
        if path.name != "metrics.py":
            assert not literal.search(path.read_text(encoding="utf-8")), f"{path} declares the trio again"
