"""Unit tests of the dashboard's pure parts: frame builders, figures (traces and axes) and the
scenario's URL form. No Streamlit runtime is involved."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from helpers import cluster_of, job, prop_cluster, run, te

from dashboard.explore import charts
from dashboard.shared import chart_style, gantt_charts, gantt_views, views
from dashboard.shared.scenario import Scenario, from_widgets, widget_values
from dashboard.sweep import sweep_charts, sweeps
from simcore.analysis import gantt
from simcore.core import fmt
from simcore.core.model import JobTable, SimConfig


def _summary(te_p95: float, be_p50: float, be_p95: float) -> dict:
    """A flat record (simcore.analysis.metrics.flat_summary's fields that the views read)."""

    def stats(cls: str, p50: float, p95: float) -> dict:
        values = {"mean": p50, "p50": p50, "p90": p95, "p95": p95, "p99": p95 * 1.5}
        return {f"{cls}_slowdown_{s}": v for s, v in values.items()}

    return {
        **stats("TE", 1.0, te_p95),
        **stats("BE", be_p50, be_p95),
        **stats("all", 1.0, be_p95),
        "preemptions": 3,
        "preempted_jobs": 1,
        "max_preemptions_per_job": 2,
        "lost_work": 7200.0,
        "gpu_utilization": 0.8,
        "gpu_useful_utilization": 0.7,
        "makespan": 36000.0,
    }


def _jobs(slowdowns_te: list[float], slowdowns_be: list[float]) -> pd.DataFrame:
    cls = ["TE"] * len(slowdowns_te) + ["BE"] * len(slowdowns_be)
    n = len(cls)
    return pd.DataFrame(
        {
            "job_id": [str(i) for i in range(n)],
            "job_class": cls,
            "slowdown": slowdowns_te + slowdowns_be,
            "preemptions": [0] * len(slowdowns_te) + [1] + [0] * (len(slowdowns_be) - 1),
            "lost_work": [0.0] * n,
        }
    )


def test_workload_key_depends_on_content_only() -> None:
    a = JobTable.from_frame(
        pd.DataFrame(
            {
                "job_id": ["1", "2"],
                "submit_time": [0, 5],
                "duration": [10, 20],
                "cpu": [1, 2],
                "mem_gb": [1, 1],
                "gpu": [1, 0],
                "job_class": ["TE", "be"],
            }
        )
    )
    b = JobTable.from_frame(a.to_frame())
    c = JobTable.from_frame(a.to_frame().assign(duration=[10, 21]))
    assert views.workload_key(a) == views.workload_key(b)
    assert views.workload_key(a) != views.workload_key(c)


def test_workload_overview() -> None:
    table = JobTable.from_frame(
        pd.DataFrame(
            {
                "job_id": ["a", "b"],
                "submit_time": [0, 100],
                "duration": [100, 100],
                "cpu": [1, 1],
                "mem_gb": [1, 1],
                "gpu": [2, 2],
                "job_class": ["TE", "BE"],
            }
        )
    )
    overview = views.workload_overview(table)
    assert list(overview["class"]) == ["TE", "BE", "all"]
    assert list(overview["jobs"]) == [1, 1, 2]
    assert overview["GPU time (GPU-h)"].iloc[2] == 0.111  # 400 GPU-s, three digits
    assert list(overview["median run time (s)"]) == [100, 100, 100]  # below 2 min: seconds, named in the header


def test_trio_frame_mean_and_spread_skip_missing_values() -> None:
    per_seed = [
        {"k8s": {"TE_p95_slowdown_pct": -90.0, "BE_p50_slowdown_pct": 10.0, "BE_p95_slowdown_pct": None}},
        {"k8s": {"TE_p95_slowdown_pct": -80.0, "BE_p50_slowdown_pct": 20.0, "BE_p95_slowdown_pct": None}},
    ]
    frame = views.trio_frame(per_seed).set_index("metric")
    assert frame.loc["TE_p95_slowdown_pct", "mean"] == pytest.approx(-85.0)
    # the bootstrap over two seeds: a resampled mean is the lower value, the middle or the upper one with
    # chances 1/4, 1/2, 1/4, so the 2.5% and 97.5% percentiles are the two values (a t interval would
    # reach -85 - 12.7 x 5 = -148.5, below -100%)
    assert frame.loc["TE_p95_slowdown_pct", ["lo", "hi"]].tolist() == [-90.0, -80.0]
    assert frame.loc["BE_p50_slowdown_pct", ["lo", "hi"]].tolist() == [10.0, 20.0]
    assert math.isnan(frame.loc["BE_p95_slowdown_pct", "mean"])
    assert frame.loc["BE_p95_slowdown_pct", "n"] == 0


def test_cdf_frame_is_monotone_thinned_and_keeps_the_tail() -> None:
    jobs = {"fifo": _jobs(list(np.linspace(1, 50, 1000)), [1.0, 2.0, 3.0])}
    cdf = views.cdf_frame(jobs, max_points=100)
    te = cdf[cdf["job_class"] == "TE"]
    assert len(te) <= 100
    assert te["slowdown"].is_monotonic_increasing and te["fraction"].is_monotonic_increasing
    assert te["slowdown"].iloc[-1] == 50 and te["fraction"].iloc[-1] == 1.0
    be = cdf[cdf["job_class"] == "BE"]
    assert list(be["fraction"]) == pytest.approx([1 / 3, 2 / 3, 1.0])


def test_cdf_figure_has_one_line_per_policy_and_class_on_log_x() -> None:
    jobs = {"fifo": _jobs([1, 5, 9], [1, 2]), "fitgpp": _jobs([1, 1.1, 1.2], [1, 3])}
    fig = charts.cdf_figure(views.cdf_frame(jobs))
    assert len(fig.data) == 4
    assert {t.name for t in fig.data} == {"fifo", "fitgpp"}
    assert fig.layout.xaxis.type == "log" and fig.layout.xaxis2.type == "log"
    assert sum(t.showlegend for t in fig.data) == 2  # one legend entry per policy
    assert fig.data[0].line.color == chart_style.POLICY_COLORS["fifo"]


def test_percentile_frame_table_and_figure() -> None:
    summaries = {"fifo": _summary(40.0, 2.0, 5.0), "fitgpp": _summary(1.5, 2.2, 6.0)}
    tidy = views.percentile_frame([summaries])
    assert len(tidy) == 2 * 2 * 3 and set(tidy["n"]) == {1}
    table = views.percentile_table([summaries])
    assert list(table.index) == ["fifo", "fitgpp"]
    assert table.loc["fitgpp", "TE p95"] == 1.5 and table.loc["fifo", "BE p99"] == 7.5
    fig = charts.percentile_figure(tidy)
    assert len(fig.data) == 6  # 3 percentiles x 2 classes
    assert fig.layout.barmode == "group" and fig.layout.yaxis.type == "log"
    te_p95 = next(t for t in fig.data if t.name == "p95" and t.xaxis == "x")
    assert list(te_p95.x) == ["fifo", "fitgpp"] and list(te_p95.y) == [40.0, 1.5]
    assert list(te_p95.text) == ["40", "1.5"]  # labelled by fmt.number
    assert te_p95.error_y.array is None  # one seed: no whisker


def test_percentiles_over_seeds_are_mean_with_a_whisker_inside_the_seeds() -> None:
    seeds = [
        {"fifo": _summary(40.0, 2.0, 5.0), "fitgpp": _summary(1.0, 2.2, 6.0)},
        {"fifo": _summary(10.0, 2.0, 5.0), "fitgpp": _summary(1.5, 2.2, 6.0)},
        {"fifo": _summary(10.0, 2.0, 5.0)},  # a policy missing in one seed counts its own seeds
    ]
    tidy = views.percentile_frame(seeds).set_index(["policy", "job_class", "stat"])
    fifo = tidy.loc[("fifo", "TE", "p95")]
    assert (fifo["value"], fifo["lo"], fifo["hi"], fifo["n"]) == (20.0, 10.0, 40.0, 3)
    assert tidy.loc[("fitgpp", "TE", "p95"), "n"] == 2
    assert views.percentile_table(seeds).loc["fifo", "TE p95"] == 20.0
    fig = charts.percentile_figure(tidy.reset_index())
    te_p95 = next(t for t in fig.data if t.name == "p95" and t.xaxis == "x")
    assert list(te_p95.error_y.arrayminus) == [10.0, 0.25] and list(te_p95.error_y.array) == [20.0, 0.25]
    lows = np.array(te_p95.y) - np.array(te_p95.error_y.arrayminus)
    assert (lows >= 1.0).all()  # a slowdown whisker never below 1


def _gantt_run():
    # one 4-GPU node: A (BE, 4 GPUs) 0..10, signalled at 10 (grace to 40); T (TE, 2 GPUs) 40..60 on
    # lanes 0-1; A restores 60..120 and runs 120..210 on lanes 0-3
    r = run([job("A", 0, 100, 4), te("T", 10, 20, 2)], prop_cluster(4), policy="k8s")
    return r, gantt.segments(r), r.events_frame


def test_gantt_view_merges_lanes_marks_signals_and_caps() -> None:
    r, seg, ev = _gantt_run()
    view = gantt_views.gantt_view({"k8s": (seg, ev)}, r.cluster, ["n0"], (0.0, 1.0))
    (panel,) = view.panels
    assert list(panel.layout["lane"]) == [0, 1, 2, 3] and list(panel.layout["y"]) == [0, 1, 2, 3]
    bars = panel.bars
    got = bars[["job_id", "kind", "lanes", "start", "end", "y", "height"]].values.tolist()
    assert got == [
        ["A", "run", "0-3", 0.0, 10.0, 1.5, pytest.approx(3.9)],  # four lanes, one bar
        ["A", "grace", "0-3", 10.0, 40.0, 1.5, pytest.approx(3.9)],
        ["T", "run", "0-1", 40.0, 60.0, 0.5, pytest.approx(1.9)],
        ["A", "restore", "0-3", 60.0, 120.0, 1.5, pytest.approx(3.9)],
        ["A", "run", "0-3", 120.0, 210.0, 1.5, pytest.approx(3.9)],
    ]
    assert panel.preempts[["job_id", "time", "y"]].values.tolist() == [["A", 10.0, 1.5]]  # on the victim's bar
    assert view.window == (0.0, 3600.0) and view.focus == view.window and not view.truncated
    clipped = gantt_views.gantt_view({"k8s": (seg, ev)}, r.cluster, ["n0"], (0.0, 50 / 3600)).panels[0]
    assert clipped.bars["end"].max() == pytest.approx(50.0) and len(clipped.bars) == 3
    capped = gantt_views.gantt_view({"k8s": (seg, ev), "fifo": (seg, ev)}, r.cluster, ["n0"], (0.0, 1.0), max_bars=4)
    assert capped.truncated and [len(p.bars) for p in capped.panels] == [2, 2]
    assert [p.total for p in capped.panels] == [5, 5]
    assert list(capped.panels[0].bars["start"]) == [0.0, 10.0]  # the earliest bars are kept


def test_gantt_layout_fractions_extra_and_cpu_lanes() -> None:
    jobs = [job(i, 0, 10, 0.6, cpu=0.5) for i in range(3)] + [job("c", 0, 5, 0, cpu=1)]
    r = run(jobs, cluster_of((8, 8, 2), (8, 8, 2)), policy="fifo")
    seg = gantt.segments(r)
    layout = gantt_views.lane_layout(seg, r.cluster, ["n0", "n1"])
    n0 = layout[layout["node"] == "n0"]
    assert list(n0["lane"]) == [0, 1, 2, "cpu"]  # the extra lane of fragmented fractions, then cpu
    assert list(layout.loc[layout["node"] == "n1", "lane"]) == [0, 1]  # n1 ran nothing
    assert layout.loc[layout["node"] == "n1", "y"].iloc[0] == 4 + gantt_views.GANTT_GAP
    bars = gantt_views.gantt_bars(seg, layout, (0.0, 100.0)).set_index("job_id")
    assert bars.loc["0", "y"] == pytest.approx(0 - 0.5 + 0.3) and bars.loc["0", "height"] == pytest.approx(0.54)
    assert bars.loc["c", "y"] == 3.0 and bars.loc["c", "lanes"] == "cpu"
    assert gantt_views.default_gantt_nodes(r.cluster, 2) == ["n0"] and gantt_views.default_gantt_nodes(
        r.cluster, 4
    ) == ["n0", "n1"]
    assert gantt_views.default_gantt_nodes(r.cluster, 1) == ["n0"]  # at least one node


def test_stepping_through_preemptions() -> None:
    h = views.HOUR
    pre = pd.DataFrame({"time": [1 * h, 5 * h, 5 * h, 9 * h], "job_id": ["a", "b", "c", "a"], "node": ["n0"] * 4})
    assert gantt_views.step_preemption(pre, None, 1, (2.0, 8.0)) == 1  # the first from the window's start
    assert gantt_views.step_preemption(pre, None, -1, (2.0, 8.0)) == 2  # the last before its end
    assert gantt_views.step_preemption(pre, None, 1, (9.5, 12.0)) is None
    chosen = {"time": 5 * h, "job_id": "c", "node": "n0"}
    assert gantt_views.step_preemption(pre, chosen, 1, (0.0, 1.0)) == 3
    assert gantt_views.step_preemption(pre, chosen, -1, (0.0, 1.0)) == 1
    assert gantt_views.step_preemption(pre, {**chosen, "job_id": "zz"}, 0, (0.0, 0.0)) is None  # not in this run
    assert gantt_views.step_preemption(pre.head(0), None, 1, (0.0, 1.0)) is None
    assert gantt_views.step_preemption(pre, {"time": 9 * h, "job_id": "a", "node": "n0"}, 1, (0, 1)) is None
    assert gantt_views.centred_window(5 * h, 4.0, 100.0) == (3.0, 7.0)
    assert gantt_views.centred_window(0.5 * h, 4.0, 100.0) == (0.0, 4.0)
    assert gantt_views.centred_window(99 * h, 4.0, 100.0) == (96.0, 100.0)
    assert gantt_views.centred_window(5.4 * h, 1.0, 100.0) == (4.75, 5.75)  # on the quarter-hour steps
    assert gantt_views.centred_window(100 * h, 24.0, 400.0) == (84.0, 108.0)  # 6 h steps: 88 h moved back to 84 h
    assert fmt.clock(0) == "day 1 00:00:00"
    assert fmt.clock(86400 + 3 * 3600 + 4 * 60 + 5.25) == "day 2 03:04:05.25"


def test_preemption_events_show_the_victim_and_the_instant() -> None:
    _r, _seg, ev = _gantt_run()
    out = gantt_views.preemption_events(ev, {"time": 10.0, "job_id": "A", "node": "n0"})
    # the time an instant of the run (a day and a clock on the page): seconds from views.ORIGIN
    out = out.assign(time=(out["time"] - views.ORIGIN).dt.total_seconds())
    assert out[["why", "job_id", "event", "time"]].values.tolist() == [
        ["the victim", "A", "submit", 0.0],
        ["the victim", "A", "start", 0.0],
        ["same instant", "T", "submit", 10.0],
        ["the victim", "A", "preempt", 10.0],
        ["the victim", "A", "release", 40.0],
        ["the victim", "A", "start", 60.0],
        ["the victim", "A", "finish", 210.0],
    ]


def test_gantt_figure_panels_order_colours_and_focus() -> None:
    r, seg, ev = _gantt_run()
    chosen = {"policy": "k8s", "index": 0, "time": 10.0, "job_id": "A", "node": "n0"}
    view = gantt_views.gantt_view(
        {"k8s": (seg, ev), "fifo": (seg, ev)}, r.cluster, ["n0"], (0.0, 1.0), (0.0, 20.0), chosen
    )
    fig = gantt_charts.gantt_figure(view)
    top = [t for t in fig.data if t.yaxis == "y" and t.name]  # the zoomed view's job ids are unnamed text
    names = [t.name for t in top]
    assert names == ["BE run", "BE restore", "BE grace", "TE run", "preemption signal"]  # TE over BE, signals last
    te_bar = top[3]
    assert te_bar.marker.color == gantt_charts.GANTT_CLASS_COLORS["TE"] and list(te_bar.text) == ["T"]
    assert list(te_bar.x) == [20_000.0]  # 20 s as milliseconds on the date axis
    assert pd.Timestamp(te_bar.base[0]) == gantt_views.GANTT_EPOCH + pd.Timedelta(seconds=40)
    assert list(te_bar.width) == [pytest.approx(1.9)] and list(te_bar.y) == [0.5]
    grace = top[2]
    assert grace.marker.pattern.shape == "x" and grace.marker.color != gantt_charts.GANTT_CLASS_COLORS["BE"]
    assert top[1].marker.color != grace.marker.color  # restore and grace differ
    assert top[4].mode == "markers" and top[4].marker.size >= 10  # fixed-size: visible at any zoom
    assert {t.yaxis for t in fig.data} == {"y", "y2"} and [a.text for a in fig.layout.annotations] == ["k8s", "fifo"]
    assert fig.layout.xaxis2.matches == "x" or fig.layout.xaxis.matches == "x2"  # one shared time axis
    assert pd.Timestamp(fig.layout.xaxis.range[1]) == gantt_views.GANTT_EPOCH + pd.Timedelta(seconds=20)  # the focus
    assert list(fig.layout.yaxis.range) == [pytest.approx(4 - 0.4), -0.6]  # reversed: lane 0 on top
    assert list(fig.layout.yaxis.ticktext) == ["n0"]
    assert any(shape.line.dash == "dot" for shape in fig.layout.shapes)  # the chosen preemption
    assert fig.layout.uniformtext.mode == "hide"  # labels only where they fit


def test_resample_steps_is_a_time_weighted_mean() -> None:
    frame = pd.DataFrame({"time": [0.0, 3600.0, 7200.0], "gpu_util": [1.0, 0.0, 0.0]})
    out = views.resample_steps(frame, ["gpu_util"], bins=4)
    assert list(out["gpu_util"]) == pytest.approx([1.0, 1.0, 0.0, 0.0])
    one_bin = views.resample_steps(frame, ["gpu_util"], bins=1)
    assert one_bin["gpu_util"].iloc[0] == pytest.approx(0.5)
    assert one_bin["time_h"].iloc[0] == pytest.approx(1.0)


def test_timeline_figure_has_three_panels() -> None:
    util = {"fifo": pd.DataFrame({"time": [0.0, 100.0, 200.0], "gpu_util": [0.5, 1.0, 0.0]})}
    queue = {
        "fifo": pd.DataFrame(
            {"time": [0.0, 50.0, 200.0], "pending": [1, 3, 0], "pending_TE": [0, 1, 0], "pending_BE": [1, 2, 0]}
        )
    }
    tl = views.timeline_frame(util, queue, bins=10)
    assert set(tl["series"]) == {"GPU utilisation", "pending TE", "pending BE"}
    fig = charts.timeline_figure(tl)
    assert len(fig.data) == 3
    assert [t.yaxis for t in fig.data] == ["y", "y2", "y3"]
    assert fig.layout.yaxis.tickformat == ".0%"
    assert fig.layout.xaxis3.title.text == "time (h)"


def test_preemption_frame() -> None:
    frame = views.preemption_frame({"fitgpp": _summary(1, 1, 1)})
    row = frame.iloc[0]
    assert row["preemptions"] == 3 and row["BE jobs preempted"] == 1 and row["lost work (h)"] == 2.0
    assert row["max on one job"] == 2 and row["makespan (h)"] == 10.0


def test_workload_figure_histograms() -> None:
    table = JobTable.from_frame(
        pd.DataFrame(
            {
                "job_id": ["1", "2", "3"],
                "submit_time": [0, 1, 2],
                "duration": [60, 3600, 36000],
                "cpu": [1] * 3,
                "mem_gb": [1] * 3,
                "gpu": [1, 8, 8],
                "job_class": ["TE", "BE", "BE"],
            }
        )
    )
    fig = charts.workload_figure(views.workload_jobs(table))
    assert [t.type for t in fig.data] == ["histogram"] * 4
    assert list(fig.data[3].x) == pytest.approx([0.0, 1.0])  # BE durations on a log10 scale


def test_sweep_and_pareto_figures() -> None:
    sweep = pd.DataFrame(
        {
            "value": [1, 2, 1, 2],
            "policy": ["k8s", "k8s", "fitgpp", "fitgpp"],
            "metric": ["te_p95"] * 4,
            "n": [3] * 4,
            "mean": [2.0, 3.0, 2.0, 3.0],  # identical lines
            "lo": [1.5, 2.5, 1.5, 2.5],
            "hi": [2.5, 3.5, 2.5, 3.5],
        }
    )
    fig = sweep_charts.sweep_figure(sweep, "load", [("te_p95", "TE p95 slowdown")], log_y=True)
    assert len(fig.data) == 2 and fig.layout.xaxis.title.text == "load" and fig.layout.yaxis.type == "log"
    assert list(fig.data[0].error_y.array) == [0.5, 0.5]
    a, b = fig.data
    assert a.line.dash != b.line.dash and a.marker.symbol != b.marker.symbol  # identical lines stay tellable
    assert b.marker.size < a.marker.size  # the one drawn on top leaves the other visible
    assert sweep_charts.sweep_figure(sweep, "load", [("te_p95", "x")]).layout.yaxis.type != "log"
    points = pd.DataFrame(
        {"policy": ["a", "a", "b"], "value": [2, 1, 1], "te_p95": [2.0, 1.0, 3.0], "be_p95": [1.0, 5.0, 6.0]}
    )
    assert list(sweeps.pareto_mask(points["te_p95"], points["be_p95"])) == [True, True, False]
    pfig = sweep_charts.pareto_figure(points, "P")
    assert [t.name for t in pfig.data] == ["a", "b", "Pareto front"]
    assert pfig.layout.xaxis.type == "log" and pfig.layout.yaxis.type == "log"
    assert all(t.text is None for t in pfig.data)  # no labels to overlap: the hover names the value
    assert list(pfig.data[0].customdata) == [1, 2] and list(pfig.data[0].x) == [1.0, 2.0]  # joined in knob order
    assert "customdata" in pfig.data[0].hovertemplate
    assert sweep_charts.pareto_figure(points, "P", log=False).layout.xaxis.type == "linear"


def test_policy_colours_are_stable_and_distinct() -> None:
    colors = chart_style.policy_colors(["fitgpp", "mine", "other"])
    assert colors["fitgpp"] == chart_style.POLICY_COLORS["fitgpp"]
    assert len(set(colors.values())) == 3


def test_scenario_round_trips_through_the_url() -> None:
    s = Scenario(
        source="generate",
        preset="paper",
        gen=(("jobs", "800"), ("load", "0.9")),
        seeds=3,
        cluster="custom",
        nodes=8,
        policies=("fifo", "fitgpp"),
        knobs=SimConfig(P=1, s=math.inf, grace=10.0, checkpoint="periodic"),
        gantt_window=(1.0, 5.5),
        gantt_nodes=("n0", "n3"),
    )
    q = s.to_query()
    assert q["P"] == "1" and q["grace"] == "10" and "s" not in q and q["g.jobs"] == "800"
    back, warnings = Scenario.from_query(q)
    assert warnings == [] and back == s
    assert Scenario().to_query() == {}


def test_scenario_from_a_bad_url_keeps_the_good_parts() -> None:
    s, warnings = Scenario.from_query({"P": "x", "grace": "5", "seeds": "99", "source": "ftp", "bogus": "1", "s": "4"})
    assert s.knobs.grace == 5.0 and s.knobs.s == 4.0 and s.knobs.P == 2
    assert s.seeds == 1 and s.source == "sample"
    assert len(warnings) == 4 and any("P" in w for w in warnings)
    s3, w3 = Scenario.from_query({"policies": "fifo,nope", "preset": "huge"})
    assert s3.policies == Scenario().policies and s3.preset == "demo" and len(w3) == 2
    s2, w2 = Scenario.from_query({"policies": "k8s,fitgpp"})
    assert s2.baseline == "k8s" and len(w2) == 1


def test_gantt_defaults() -> None:
    _r, seg, ev = _gantt_run()
    late = ev.assign(time=ev["time"] + 20 * views.HOUR)
    span, window = gantt_views.gantt_default_window(seg.assign(end=seg["end"] + 59 * views.HOUR), late, 8.0)
    assert span == 60.0 and window == (19.0, 27.0)  # from an hour before the first preemption
    assert gantt_views.gantt_default_window(seg, ev, 8.0) == (1.0, (0.0, 1.0))
    assert gantt_views.clamp_window((50, 90), 60.0) == (50.0, 60.0) and gantt_views.clamp_window((70, 90), 60.0) is None
    assert gantt_views.gantt_default_policy(["fifo", "k8s", "fitgpp"], {"k8s": True, "fitgpp": True}) == "fitgpp"


def test_gantt_window_control() -> None:
    # lengths shorter than the run, then the whole run; starts every quarter length, the last ending the run
    assert gantt_views.window_lengths(786.0) == [1.0, 4.0, 8.0, 24.0, 168.0, 786.0]
    assert gantt_views.window_lengths(8.0) == [1.0, 4.0, 8.0] and gantt_views.window_lengths(1.0) == [1.0]
    assert gantt_views.window_starts(4.0, 10.0) == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
    assert gantt_views.window_starts(168.0, 400.0) == [0.0, 42.0, 84.0, 126.0, 168.0, 210.0, 232.0]
    assert gantt_views.window_starts(1.0, 2.0) == [0.0, 0.25, 0.5, 0.75, 1.0]
    assert gantt_views.window_starts(8.0, 8.0) == [0.0]
    # any window (an old link's) as the control shows it: the shortest length holding it, from a start not after it
    assert gantt_views.fit_window((100.0, 110.0), 786.0) == (96.0, 120.0)
    assert gantt_views.fit_window((13.0, 21.0), 786.0) == (12.0, 20.0)
    assert gantt_views.fit_window((231.5, 233.0), 400.0) == (231.0, 235.0)
    assert gantt_views.fit_window((780.0, 786.0), 786.0) == (778.0, 786.0)  # the last start
    assert gantt_views.fit_window((0.0, 0.5), 1.0) == (0.0, 1.0) and gantt_views.fit_window((3.0, 400.0), 400.0) == (
        0.0,
        400.0,
    )
    assert gantt_views.gantt_default_policy(["fifo", "k8s"], {"k8s": True}) == "k8s"
    assert gantt_views.gantt_default_policy(["fifo"], {}) == "fifo"


def test_widget_values_round_trip_to_the_same_scenario() -> None:
    s = Scenario(
        source="generate",
        preset="paper",
        gen=(("be_sigma", "0.5"), ("jobs", "800")),
        seeds=4,
        policies=("fifo", "lrtp"),
        baseline="lrtp",
        knobs=SimConfig(s=4.0, backfill="none"),
        upload_opts=(("format", "alibaba"),),
        tab="Gantt",
    )
    values = widget_values(s)
    assert values["x_gen_jobs"] == 800 and values["x_gen_load"] == 1 and values["x_gen_more"] == "be_sigma=0.5"
    assert values["x_k_s"] == "4"  # as a visitor writes it (knobs.to_text)
    back, problems = from_widgets(values, Scenario(), {"format": "auto"})
    assert problems == [] and back == s
    values["x_gen_more"] = "nonsense"
    values["x_k_P"] = -1
    back, problems = from_widgets(values, Scenario(), {})
    assert len(problems) == 2 and back.knobs.P == 2 and back.knobs.s == 4.0


def test_sweep_settings_url_and_frames() -> None:
    assert sweeps.SweepSettings().knob == "load"  # the default knob changes every policy
    s = sweeps.SweepSettings(knob="grace", values="0,60", policies=("fifo", "fitgpp"), seeds=2, run=True)
    q = s.to_query()
    assert q == {"knob": "grace", "values": "0,60", "policies": "fifo,fitgpp", "seeds": "2", "run": "1"}
    assert sweeps.SweepSettings.from_query(q) == (s, [])
    assert sweeps.SweepSettings.from_query({"knob": "grace"})[0].values == sweeps.SWEEP_KNOBS["grace"][0]
    assert len(sweeps.SweepSettings.from_query({"seeds": "0", "knob": "x", "policies": "zzz", "preset": "mmc"})[1]) == 4
    rows = pd.DataFrame(
        {
            "load": [0.8, 0.8, 1.0, 1.0],
            "policy": ["fitgpp"] * 4,
            "seed": [0, 1, 0, 1],
            "TE_slowdown_p95": [1.0, 3.0, 2.0, 2.0],
            "BE_slowdown_p95": [5.0, 7.0, 6.0, 6.0],
        }
    )
    frame = sweeps.metric_frame(rows, "load", ["TE_slowdown_p95"])
    first = frame.iloc[0]
    # two seeds: the bootstrap's bounds are the two values (see the trio test); a t interval would go to
    # 2 - 12.7 = -10.7, a slowdown below 1 that a log axis cannot show
    assert (first["n"], first["mean"], first["lo"], first["hi"]) == (2, 2.0, 1.0, 3.0)
    assert frame.iloc[1]["lo"] == frame.iloc[1]["hi"] == 2.0  # no spread, no interval
    points = sweeps.pareto_points(rows, "load")
    assert list(points["te_p95"]) == [2.0, 2.0] and list(points["be_p95"]) == [6.0, 6.0]


def test_gantt_hover_names_a_gangs_worker_count() -> None:
    # G (BE, 2 workers x 4 GPUs) holds n0 and n1: one bar per node, same label, the hover names the gang
    from dataclasses import replace

    r = run([replace(job("G", 0, 100, 4), workers=2), job("S", 0, 50, 2)], prop_cluster(4, 4, 4), policy="fifo")
    seg = gantt.segments(r)
    view = gantt_views.gantt_view({"fifo": (seg, r.events_frame)}, r.cluster, ["n0", "n1", "n2"], (0.0, 1.0))
    bars = view.panels[0].bars
    assert bars[["job_id", "node", "lanes", "workers"]].values.tolist() == [
        ["G", "n0", "0-3", 2],
        ["G", "n1", "0-3", 2],
        ["S", "n2", "0-1", 1],
    ]
    (be_run,) = [t for t in gantt_charts.gantt_figure(view).data if t.name == "BE run"]
    assert list(be_run.text) == ["G", "G", "S"]
    assert [c[6] for c in be_run.customdata] == [gantt_views.gang_note(2)] * 2 + [""]
    assert gantt_views.gang_note(2) == " (gang of 2 workers, on every node it holds)"
    assert "%{customdata[6]}" in be_run.hovertemplate
