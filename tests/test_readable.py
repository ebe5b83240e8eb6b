"""Numbers and charts a person can read: log axes with major ticks fitted to the data, neutral
changes, units in headers (figures by their layout, frames by their columns; no Streamlit)."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from dashboard.explore import charts
from dashboard.shared import chart_style, views
from dashboard.sweep import sweep_charts
from simcore import fmt
from simcore.metrics import TRIO_KEYS


def _slowdown_summary(value: float) -> dict:
    stats = {"mean": value, "p50": value, "p90": value, "p95": value, "p99": value}
    classes = {c: {"count": 2, "slowdown": dict(stats)} for c in ("TE", "BE", "all")}
    return {"classes": classes}


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
