"""The "Was it worth it?" panel's pure parts and figures (traces), and the pooled bound's dashed
lines on the percentile and CDF figures: hand-made summaries and decision tables."""

from __future__ import annotations

import pandas as pd
import pytest
from helpers import job, prop_cluster, run, te

from dashboard.explore import charts, worth_views
from dashboard.shared import views
from simcore.analysis import accounting


def _summary(te_wait: float, lost: float, grace: float, restore: float, excess: float, wasted: int) -> dict:
    """The fields of a flat record (simcore.analysis.metrics.flat_summary) the panel reads."""
    return {
        "TE_wait_mean": te_wait,
        "gpu_seconds_lost": lost,
        "gpu_seconds_grace": grace,
        "gpu_seconds_restore": restore,
        "excess_gpus": excess,
        "wasted_preemptions": wasted,
    }


def test_worth_frame_means_over_seeds():
    # seed 0: fifo waits 600 s, fitgpp 60 s (saves 540) at 3600 + 1800 + 1800 GPU-s = 2 GPU-h;
    # seed 1: fifo 300, fitgpp 0 (saves 300) at 3600 GPU-s = 1 GPU-h: means 420 s and 1.5 GPU-h
    seeds = [
        {"fifo": _summary(600, 0, 0, 0, 0, 0), "fitgpp": _summary(60, 3600, 1800, 1800, 4, 1)},
        {"fifo": _summary(300, 0, 0, 0, 0, 0), "fitgpp": _summary(0, 0, 3600, 0, 2, 0)},
    ]
    frame = worth_views.worth_frame(seeds, "fifo").set_index("policy")
    assert frame.loc["fitgpp"].tolist() == [420.0, 1.5, 3.0, 0.5, 2]
    assert frame.loc["fifo"].tolist() == [0.0, 0.0, 0.0, 0.0, 2]
    fig = charts.worth_figure(frame.reset_index())
    assert [(t.name, t.x[0], t.y[0]) for t in fig.data] == [("fifo", 0.0, 0.0), ("fitgpp", 1.5, 7.0)]  # y in minutes


def test_worst_decisions_rank_wasted_then_excess_then_cost():
    def table(rows):
        return pd.DataFrame.from_records(rows, columns=list(accounting.DECISION_COLUMNS))

    def row(t, excess, grace, wasted):
        return {
            "time": t,
            "te_job": f"T{t}",
            "node": "n0",
            "victims": "A",
            "first_victim": "A",
            "victim_node": "n0",
            "excess_gpus": excess,
            "gpu_seconds_lost": 0.0,
            "gpu_seconds_grace": grace,
            "gpu_seconds_restore": 0.0,
            "wasted": wasted,
        }

    worst = worth_views.worst_decisions(
        {"k8s": table([row(1, 7, 3600, False), row(2, 0, 7200, True)]), "fitgpp": table([row(3, 7, 7200, False)])},
        limit=2,
    )
    # the wasted one first; then of the two with 7 excess GPUs the costlier (2 GPU-h)
    assert worst[["policy", "time", "gpu_hours"]].values.tolist() == [["k8s", 2, 2.0], ["fitgpp", 3, 2.0]]
    assert worth_views.worst_decisions({"k8s": table([])}).empty


def test_bound_lines_on_the_percentile_and_cdf_figures():
    r = run([job("A", 0, 100, 1), te("T", 0, 10, 1)], prop_cluster(2), policy="fifo")
    summaries = [{"fifo": {**_stats("TE", 2.0), **_stats("BE", 1.0)}}]
    bound = views.percentile_frame([{"bound": {**_stats("TE", 1.0), **_stats("BE", 1.0)}}])
    fig = charts.percentile_figure(views.percentile_frame(summaries), bound=bound)
    dashed = [t for t in fig.data if t.name.startswith(charts.BOUND_NAME)]
    assert len(dashed) == 6 and all(t.line.dash == "dash" and list(t.y) == [1.0] for t in dashed)
    cdf = charts.cdf_figure(views.cdf_frame({"fifo": r.jobs_frame}), views.cdf_frame({"b": r.jobs_frame}))
    ref = [t for t in cdf.data if t.name == charts.BOUND_NAME]
    assert len(ref) == 2 and [t.showlegend for t in ref] == [True, False] and ref[0].line.dash == "dash"
    assert not any(t.name == charts.BOUND_NAME for t in charts.cdf_figure(views.cdf_frame({"fifo": r.jobs_frame})).data)


def _stats(cls: str, v: float) -> dict:
    """A class's slowdown statistics, all ``v``, as flat record fields."""
    return {f"{cls}_slowdown_{s}": v for s in ("mean", "p50", "p90", "p95", "p99")}


def test_worth_figure_keeps_a_margin_around_its_points():
    frame = pd.DataFrame(
        {
            "policy": ["fifo", "k8s"],
            "te_wait_saved_s": [0.0, 60.0],
            "be_gpu_hours": [0.0, 10.0],
            "excess_gpus": [0.0, 3.0],
            "wasted": [0.0, 1.0],
            "n": [1, 1],
        }
    )
    assert list(charts.worth_figure(frame).layout.xaxis.range) == pytest.approx([-0.8, 11.2])
    assert list(charts.worth_figure(frame.assign(be_gpu_hours=0.0)).layout.xaxis.range) == pytest.approx([-0.08, 1.12])


def test_a_decision_s_accounting_in_words():
    from dashboard.shared import decision_text

    # test_accounting's wasted case: T nominated to n0 (A: 4 GPUs for the 2 it lacked), started on n1 first
    r = run([job("A", 0, 1000, 4), job("C", 0, 110, 2), te("T", 100, 50, 2)], prop_cluster(4, 2), policy="k8s")
    words = decision_text.accounting_words(accounting.decision_table(r), {"time": 100.0, "te_job": "T"})
    assert words == (
        "This decision freed 2 GPUs more than the TE job lacked; BE GPU time: 0 GPU-h lost, 0.033 GPU-h grace, "
        "0.067 GPU-h restore. "
        "Wasted: the TE job started on another node before its victims released."
    )
    assert decision_text.accounting_words(accounting.decision_table(r), {"time": 5.0, "te_job": "T"}) is None
