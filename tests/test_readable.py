"""Numbers and charts a person can read: log axes with major ticks fitted to the data, neutral
changes, units in headers (figures by their layout, frames by their columns; no Streamlit)."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from dashboard.explore import charts
from dashboard.shared import chart_style, views
from dashboard.sweep import sweep_charts
from simcore.analysis.metrics import TRIO_KEYS
from simcore.core import fmt


def _slowdown_summary(value: float) -> dict:
    """A flat record with every slowdown statistic equal to ``value``."""
    return {f"{c}_slowdown_{s}": value for c in ("TE", "BE", "all") for s in ("mean", "p50", "p90", "p95", "p99")}


def test_log_axis_has_major_ticks_only_in_increasing_order_from_one() -> None:
    axis = chart_style.log_axis([1.06, 3.0, 30.0], floor=1.0)
    assert axis["tickvals"] == [1.0, 2.0, 5.0, 10.0, 20.0]
    assert axis["ticktext"] == ["1", "2", "5", "10", "20"]
    assert axis["range"][0] == 0.0  # clamped at log10(1): a slowdown axis never starts below 1
    assert 10 ** axis["range"][1] > 30.0


def test_log_axis_over_many_decades_keeps_powers_of_ten() -> None:
    axis = chart_style.log_axis([1.0, 20_000.0], floor=1.0)
    assert axis["ticktext"] == ["1", "10", "100", "1,000", "10,000"]
    below_one = chart_style.log_axis([0.01, 0.4])
    assert below_one["ticktext"] == ["0.01", "0.02", "0.05", "0.1", "0.2"]


def test_equal_slowdowns_give_an_axis_from_one_with_one_and_two() -> None:
    """An upload on a large cluster: every slowdown 1. The old axis ran 0.1 to 10 with ticks
    out of order (0.1, 2, 5, 1, 2, 5, 10)."""
    summaries = {p: _slowdown_summary(1.0) for p in ("fifo", "fitgpp")}
    fig = charts.percentile_figure(views.percentile_frame([summaries]))
    for axis in (fig.layout.yaxis, fig.layout.yaxis2):
        assert axis.type == "log" and axis.range[0] == 0.0
        assert list(axis.ticktext) == ["1", "2"]


def test_cdf_and_sweep_axes_start_at_one_or_above() -> None:
    jobs = pd.DataFrame(
        {
            "job_id": ["0", "1", "2", "3"],
            "job_class": ["TE", "TE", "BE", "BE"],
            "slowdown": [1.0, 7.0, 1.5, 3000.0],
            "preemptions": [0] * 4,
            "lost_work": [0.0] * 4,
        }
    )
    fig = charts.cdf_figure(views.cdf_frame({"fifo": jobs}))
    assert list(fig.layout.xaxis.ticktext) == ["1", "2", "5"]
    assert list(fig.layout.xaxis2.ticktext) == ["1", "10", "100", "1,000"]  # 1 .. 3000: 1-2-5 would be 11 labels
    assert fig.layout.xaxis2.range[0] == 0.0
    sweep = pd.DataFrame(
        {"value": [1, 2], "policy": ["a", "a"], "metric": ["m", "m"], "n": [3, 3]}
        | {"mean": [4.0, 8.0], "lo": [3.0, 6.0], "hi": [5.0, 11.0]}
    )
    sfig = sweep_charts.sweep_figure(sweep, "load", [("m", "TE p95 slowdown")], log_y=True)
    assert list(sfig.layout.yaxis.ticktext) == ["5", "10"]
    assert 10 ** sfig.layout.yaxis.range[0] <= 3.0 and 10 ** sfig.layout.yaxis.range[1] >= 11.0


@pytest.mark.parametrize(
    ("delta", "flat"),
    [("+0.0%", True), ("-0.0% [-0.1, +0.0]", True), ("+0.1%", False), ("-10.0% [-12.0, -8.0]", False), (None, False)],
)
def test_a_change_that_rounds_to_zero_is_neutral(delta: str | None, flat: bool) -> None:
    assert views.neutral(delta) is flat


def test_equal_policies_get_a_neutral_card() -> None:
    summaries = [{p: _slowdown_summary(1.0) for p in ("fifo", "k8s")}]
    trios = [{"fifo": dict.fromkeys(TRIO_KEYS), "k8s": dict.fromkeys(TRIO_KEYS, 0.0)}]
    cards = views.trio_cards(views.trio_frame(trios), views.absolute_trio(summaries), ["fifo", "k8s"], "fifo")
    assert [delta for _, _, delta in cards[1]] == ["+0.0%"] * 3
    assert all(views.neutral(delta) for _, _, delta in cards[1])


def test_tick_labels_are_plain_numbers() -> None:
    assert [fmt.tick(x) for x in (0.5, 1.0, 20.0, 1000.0, 2e9)] == ["0.5", "1", "20", "1,000", "2e+09"]
    assert not math.isnan(chart_style.log_axis([])["range"][0])


def test_the_chart_guide_is_written_from_the_charts_constants() -> None:
    from dashboard.learn.chart_guide import chart_guide, color_name
    from dashboard.shared import gantt_charts
    from simcore.analysis.gantt import CPU_LANE
    from simcore.analysis.stats import BOOTSTRAP_NAME

    text = chart_guide()
    assert color_name("TE") == "red" and color_name("BE") == "light blue"  # GANTT_CLASS_COLORS, named
    flat = " ".join(text.split())
    for color, pattern in gantt_charts.GANTT_KINDS.values():
        if color:  # restore and grace: their colour and pattern, named
            assert f"{gantt_charts.COLOR_NAMES[color]} with {gantt_charts.PATTERN_NAMES[pattern]}" in flat
    assert "red for TE" in flat and "light blue for BE" in flat and "one lane per GPU" in flat
    assert f"(its lost work) is covered with {gantt_charts.PATTERN_NAMES[gantt_charts.GANTT_LOST[0]]}" in flat
    assert f"`{CPU_LANE}` lane" in flat and flat.count(BOOTSTRAP_NAME) == 2
    assert "1, 2, 5, 10, 20, 50, ..." in flat
    for stale in ("orange", "standard deviation", "one lane per node"):  # the old charts
        assert stale not in flat


def test_the_learn_page_shows_the_chart_guide() -> None:
    from pathlib import Path

    from streamlit.testing.v1 import AppTest

    from dashboard.learn.chart_guide import chart_guide

    app = Path(__file__).resolve().parent.parent / "dashboard" / "streamlit_app.py"
    at = AppTest.from_file(str(app), default_timeout=120)
    at.switch_page("app_pages/learn.py").run()
    assert not at.exception
    assert chart_guide().strip() in [m.value.strip() for m in at.markdown]


def test_duration_units_follow_the_median() -> None:
    assert fmt.duration_unit([30.0, 90.0, 100.0]) == ("s", 1.0)
    assert fmt.duration_unit([0.0, 600.0, 700.0, 50.0]) == ("min", 60.0)  # zeros (no wait) are left out
    assert fmt.duration_unit([3 * 3600.0] * 3) == ("h", 3600.0)
    assert fmt.duration_unit([5 * 86400.0]) == ("d", 86400.0)
    assert fmt.duration_unit([]) == ("s", 1.0)
    # no raw seconds above a day: a column of short waits with one of half a day reads in minutes, one of two
    # days in hours (below 1,000 of a unit, else the next)
    assert fmt.duration_unit([10.0] * 99 + [43_200.0]) == ("min", 60.0)
    assert fmt.duration_unit([10.0] * 99 + [172_800.0]) == ("h", 3600.0)
    assert fmt.duration_unit([10.0] * 99 + [999.0]) == ("s", 1.0)
    assert fmt.duration_unit([60.0] * 9 + [3_600_000.0]) == ("d", 86400.0)  # 60,000 min, 1,000 h: days


def test_a_table_number_has_three_significant_digits_and_three_decimals_at_most() -> None:
    assert [fmt.short(x) for x in (13.4573, 1.0319, 0.0667, 1152544.0, -0.0001)] == [13.5, 1.03, 0.067, 1150000.0, 0.0]
    assert [fmt.figure(x) for x in (13.4573, 0.0667, 1152544.0, 2.0)] == ["13.5", "0.067", "1,150,000", "2"]
    assert fmt.gpu_hours(240.0) == "0.067 GPU-h" and fmt.gpu_hours(7200.0) == "2 GPU-h"
    frame = views.readable(pd.DataFrame({"x": [1.0319, 13.4573], "n": [3, 4], "t": ["a", "b"]}))
    assert frame["x"].tolist() == [1.03, 13.5] and frame["n"].tolist() == [3, 4]  # counts and text as they are


def test_the_jobs_table_names_a_unit_in_every_time_header() -> None:
    jobs = pd.DataFrame(
        {
            "job_id": ["1", "2"],
            "job_class": ["TE", "BE"],
            "submit_time": [0.0, 7200.0],
            "duration": [600.0, 900.0],
            "first_start": [0.0, 9000.0],
            "finish": [600.0, 9900.0],
            "wait": [0.0, 1800.0],
            "jct": [600.0, 2700.0],
            "slowdown": [1.0, 3.0],
            "preemptions": [0, 1],
            "lost_work": [0.0, 300.0],
            "node": ["n0", "n1"],
        }
    )
    table = views.jobs_table(jobs)
    assert list(table.columns) == [
        "job",
        "class",
        "submit",
        "run time (min)",
        "first start",
        "finish",
        "wait (min)",
        "JCT (min)",
        "slowdown (x run time)",
        "preemptions",
        "lost work (min)",
        "node",
    ]
    assert list(table["wait (min)"]) == [0.0, 30.0]
    # instants: the grid writes them as the Gantt's axis does, day 1 02:45:00 (from views.ORIGIN, 1 January)
    assert list(table["finish"]) == [pd.Timestamp("2001-01-01 00:10:00"), pd.Timestamp("2001-01-01 02:45:00")]
    long_run = views.jobs_table(jobs.assign(finish=[600.0, 400 * 86400.0]))  # beyond a year of days: in days
    assert long_run["finish (d)"].tolist() == [600.0 / 86400.0, 400.0]


def test_knobs_are_shown_with_their_meaning() -> None:
    from dashboard.shared.knob_widgets import KNOB_WIDGETS
    from dashboard.sweep.sweeps import knob_label
    from simcore.core.knobs import KNOBS

    assert KNOBS["P"].label == "max preemptions per BE job (P)"
    assert KNOBS["grace"].label == "grace period (grace, s)"
    assert all(k.title for k in KNOBS.values())  # every knob has its words
    assert KNOB_WIDGETS["P"].label == KNOBS["P"].label and knob_label("P") == KNOBS["P"].label
    assert knob_label("load") == "load"  # a workload parameter, not a run knob


def _gantt_run():
    from helpers import job, prop_cluster, run, te

    from simcore.analysis import gantt

    # one 4-GPU node: A (BE, 4 GPUs) runs 0..10, grace 10..40; T (TE, 2 GPUs) runs 40..60; A restores 60..120
    r = run([job("A", 0, 100, 4), te("T", 10, 20, 2)], prop_cluster(4), policy="k8s")
    return r, gantt.segments(r), r.events_frame


def test_the_gantt_hover_gives_the_real_end_not_the_windows_edge() -> None:
    from dashboard.shared import gantt_charts, gantt_views

    r, seg, ev = _gantt_run()
    view = gantt_views.gantt_view({"k8s": (seg, ev)}, r.cluster, ["n0"], (0.0, 50 / 3600))  # the window ends at 50 s
    fig = gantt_charts.gantt_figure(view)
    te_run = next(t for t in fig.data if t.name == "TE run")
    (custom,) = te_run.customdata
    # T runs 40..60, drawn to 50; then a gang's workers (empty for one worker), why it waited (no reasons given)
    # and its queue (none: the Gantt is not drawn by queue)
    assert list(custom[3:]) == ["day 1 00:00:40", "day 1 00:01:00", "20 s", "", "", ""]
    assert te_run.x[0] == pytest.approx(10_000.0)  # the drawn bar stops at the window's edge (ms)


def test_zoomed_in_bars_carry_their_job_id() -> None:
    from dashboard.shared import gantt_charts, gantt_views

    r, seg, ev = _gantt_run()
    view = gantt_views.gantt_view({"k8s": (seg, ev)}, r.cluster, ["n0"], (0.0, 1.0), focus=(35.0, 45.0))
    labels = gantt_charts.focus_labels(view.panels[0].bars, view.focus, view.window)
    assert labels[["job_id", "x", "y"]].values.tolist() == [
        ["T", 42.5, 0.5]
    ]  # T's visible part 40..45; A's grace is not a run
    fig = gantt_charts.gantt_figure(view)
    (text,) = [t for t in fig.data if t.type == "scatter" and t.mode == "text"]
    assert list(text.text) == ["T"] and text.hoverinfo == "skip"
    te_run = next(t for t in fig.data if t.name == "TE run")
    assert list(te_run.text) == [""]  # written once: in its visible part, not also in the bar's middle
    unzoomed = gantt_views.gantt_view({"k8s": (seg, ev)}, r.cluster, ["n0"], (0.0, 1.0))
    assert not any(t.type == "scatter" and t.mode == "text" for t in gantt_charts.gantt_figure(unzoomed).data)


def test_the_lesson_queue_counts_waiting_from_the_jobs_last_event() -> None:
    """Lesson (c), checkpoint none: BE job 1 runs from 0, is preempted at 2700 when TE job 2 arrives,
    released at 2730 and waits until 3330. At 2730 it has waited 0 s, not 2730 s since its submit."""
    from dashboard.learn import lesson_views, lessons
    from dashboard.runs import compute

    item = next(i for i in lessons.LESSONS if i.key == "price")
    variant = next(v for v in item.variants if v.label == "checkpoint none")
    run = compute.full_run(*lessons.load(item), variant.config)

    def queue(t: float) -> list[list[str]]:
        return lesson_views.snapshot(run.jobs, run.events, run.segments, run.lost, t).queue.values.tolist()

    assert queue(2700.0) == [["2", "TE", "0 s"]]
    assert queue(2730.0) == [["1", "BE", "0 s"]]
    assert queue(3000.0) == [["1", "BE", "4.5 min"]]  # 270 s since its release
    assert queue(3330.0) == []
