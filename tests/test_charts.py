"""Unit tests of the dashboard's pure parts: frame builders, figures (traces and axes) and the
scenario's URL form. No Streamlit runtime is involved."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from dashboard import charts, sweeps, views
from dashboard.scenario import Scenario, from_widgets, widget_values
from simcore.model import JobTable, SimConfig


def _summary(te_p95: float, be_p50: float, be_p95: float) -> dict:
    def stats(p50: float, p95: float) -> dict:
        return {"mean": p50, "p50": p50, "p90": p95, "p95": p95, "p99": p95 * 1.5}

    return {
        "classes": {
            "TE": {"count": 2, "slowdown": stats(1.0, te_p95)},
            "BE": {"count": 3, "slowdown": stats(be_p50, be_p95)},
            "all": {"count": 5, "slowdown": stats(1.0, be_p95)},
        },
        "preemptions": 3,
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
    assert overview["GPU-hours"].iloc[2] == pytest.approx(400 / 3600)


def test_trio_frame_mean_and_spread_skip_missing_values() -> None:
    per_seed = [
        {"k8s": {"TE_p95_slowdown_pct": -90.0, "BE_p50_slowdown_pct": 10.0, "BE_p95_slowdown_pct": None}},
        {"k8s": {"TE_p95_slowdown_pct": -80.0, "BE_p50_slowdown_pct": 20.0, "BE_p95_slowdown_pct": None}},
    ]
    frame = views.trio_frame(per_seed).set_index("metric")
    assert frame.loc["TE_p95_slowdown_pct", "mean"] == pytest.approx(-85.0)
    assert frame.loc["TE_p95_slowdown_pct", "std"] == pytest.approx(np.std([-90, -80], ddof=1))
    assert frame.loc["BE_p50_slowdown_pct", "min"] == 10.0
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
    assert fig.data[0].line.color == charts.POLICY_COLORS["fifo"]


def test_percentile_frame_table_and_figure() -> None:
    summaries = {"fifo": _summary(40.0, 2.0, 5.0), "fitgpp": _summary(1.5, 2.2, 6.0)}
    tidy = views.percentile_frame(summaries)
    assert len(tidy) == 2 * 2 * 3
    table = views.percentile_table(summaries)
    assert list(table.index) == ["fifo", "fitgpp"]
    assert table.loc["fitgpp", "TE p95"] == 1.5 and table.loc["fifo", "BE p99"] == 7.5
    fig = charts.percentile_figure(tidy)
    assert len(fig.data) == 6  # 3 percentiles x 2 classes
    assert fig.layout.barmode == "group" and fig.layout.yaxis.type == "log"
    te_p95 = next(t for t in fig.data if t.name == "p95" and t.xaxis == "x")
    assert list(te_p95.x) == ["fifo", "fitgpp"] and list(te_p95.y) == [40.0, 1.5]


def _segments() -> tuple[pd.DataFrame, pd.DataFrame]:
    h = views.HOUR
    seg = pd.DataFrame(
        {
            "job_id": ["b1", "t1", "b1", "b1", "b2", "late"],
            "job_class": ["BE", "TE", "BE", "BE", "BE", "BE"],
            "node": ["n0", "n0", "n0", "n0", "n1", "n1"],
            "start": [0, 2 * h, 1.9 * h, 3 * h, 0, 50 * h],
            "end": [1.9 * h, 3 * h, 2 * h, 3.1 * h, 4 * h, 60 * h],
            "kind": ["run", "run", "grace", "restore", "run", "run"],
        }
    )
    ev = pd.DataFrame(
        {"time": [1.9 * h, 0.0], "job_id": ["b1", "t1"], "event": ["preempt", "submit"], "node": ["n0", ""]}
    )
    return seg, ev


def test_gantt_view_windows_caps_and_keeps_preemptions() -> None:
    seg, ev = _segments()
    view = views.gantt_view(seg, ev, (0.0, 10.0), ["n0", "n1"])
    assert view.total == 5 and not view.truncated  # the segment at 50 h is outside
    assert list(view.preempts["time_h"]) == [pytest.approx(1.9)]
    capped = views.gantt_view(seg, ev, (0.0, 10.0), ["n0", "n1"], max_bars=2)
    assert len(capped.segments) == 2 and capped.truncated and capped.total == 5
    only_n1 = views.gantt_view(seg, ev, (0.0, 100.0), ["n1"])
    assert set(only_n1.segments["node"]) == {"n1"} and only_n1.preempts.empty
    clipped = views.gantt_view(seg, ev, (55.0, 58.0), ["n1"])
    assert list(clipped.segments[["start_h", "end_h"]].iloc[0]) == [55.0, 58.0]


def test_gantt_figure_lanes_colours_and_hover() -> None:
    seg, ev = _segments()
    fig = charts.gantt_figure(views.gantt_view(seg, ev, (0.0, 10.0), ["n0", "n1"]))
    names = {t.name for t in fig.data}
    assert names == {"TE run", "BE run", "BE grace", "BE restore", "preemption"}
    te = next(t for t in fig.data if t.name == "TE run")
    assert te.orientation == "h" and te.marker.color == charts.CLASS_COLORS["TE"]
    assert list(te.base) == [2.0] and list(te.x) == [1.0]
    assert "t1" in str(te.customdata[0][0]) and "customdata[0]" in te.hovertemplate
    grace = next(t for t in fig.data if t.name == "BE grace")
    assert grace.marker.pattern.shape == "x"
    assert list(fig.layout.yaxis.categoryarray) == ["n1", "n0"]  # n0 on top
    assert list(fig.layout.xaxis.range) == [0.0, 10.0]


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
    summaries = {"fitgpp": _summary(1, 1, 1)}
    jobs = {"fitgpp": _jobs([1.0], [1.0, 2.0])}
    frame = views.preemption_frame(summaries, jobs)
    row = frame.iloc[0]
    assert row["preemptions"] == 3 and row["BE jobs preempted"] == 1 and row["lost work (h)"] == 2.0


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
            "mean": [2.0, 3.0, 1.5, 2.5],
            "lo": [1.5, 2.5, 1.0, 2.0],
            "hi": [2.5, 3.5, 2.0, 3.0],
        }
    )
    fig = charts.sweep_figure(sweep, "P", [("te_p95", "TE p95 slowdown")])
    assert len(fig.data) == 2 and fig.layout.xaxis.title.text == "P"
    assert list(fig.data[0].error_y.array) == [0.5, 0.5]
    points = pd.DataFrame(
        {"policy": ["a", "a", "b"], "value": [1, 2, 1], "te_p95": [1.0, 2.0, 3.0], "be_p95": [5.0, 1.0, 6.0]}
    )
    assert list(views.pareto_mask(points["te_p95"], points["be_p95"])) == [True, True, False]
    pfig = charts.pareto_figure(points, "P")
    assert [t.name for t in pfig.data] == ["a", "b", "Pareto front"]
    assert pfig.layout.xaxis.type == "log"


def test_policy_colours_are_stable_and_distinct() -> None:
    colors = charts.policy_colors(["fitgpp", "mine", "other"])
    assert colors["fitgpp"] == charts.POLICY_COLORS["fitgpp"]
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
    seg, ev = _segments()
    span, window = views.gantt_default_window(seg, ev, 8.0)
    assert span == 60.0 and window == (0.0, 8.0)  # first preemption at 1.9 h: start an hour before, at 0
    late = ev.assign(time=ev["time"] + 20 * views.HOUR)
    assert views.gantt_default_window(seg, late, 8.0)[1] == (20.0, 28.0)
    assert views.clamp_window((50, 90), 60.0) == (50.0, 60.0) and views.clamp_window((70, 90), 60.0) is None
    assert views.gantt_default_policy(["fifo", "k8s", "fitgpp"], {"k8s": True, "fitgpp": True}) == "fitgpp"
    assert views.gantt_default_policy(["fifo", "k8s"], {"k8s": True}) == "k8s"
    assert views.gantt_default_policy(["fifo"], {}) == "fifo"


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
    assert values["x_k_s"] == "4.0"
    back, problems = from_widgets(values, Scenario(), {"format": "auto"})
    assert problems == [] and back == s
    values["x_gen_more"] = "nonsense"
    values["x_k_P"] = -1
    back, problems = from_widgets(values, Scenario(), {})
    assert len(problems) == 2 and back.knobs.P == 2 and back.knobs.s == 4.0


def test_sweep_settings_url_and_frames() -> None:
    s = sweeps.SweepSettings(knob="load", values="0.8,1.0", policies=("fifo", "fitgpp"), seeds=2, run=True)
    q = s.to_query()
    assert q == {"knob": "load", "values": "0.8,1.0", "policies": "fifo,fitgpp", "seeds": "2", "run": "1"}
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
    assert first["mean"] == 2.0 and first["n"] == 2 and first["lo"] < 2.0 < first["hi"]
    assert frame.iloc[1]["lo"] == frame.iloc[1]["hi"] == 2.0  # no spread, no interval
    points = sweeps.pareto_points(rows, "load")
    assert list(points["te_p95"]) == [2.0, 2.0] and list(points["be_p95"]) == [6.0, 6.0]
