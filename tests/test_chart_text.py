"""Visitor text never reaches a Plotly figure as HTML (issue 16): every figure the pages draw,
built from a run whose job ids, node names and policy labels hold tags, carries them as
entities (``&lt;a ...``), in text, hovers, tick labels, legend names and titles alike."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest

from dashboard.explore import charts
from dashboard.learn import lesson_charts, lesson_views
from dashboard.runs import compute
from dashboard.shared import gantt_charts, gantt_views, views
from dashboard.shared.plain import chart_text
from dashboard.sweep import sweep_charts
from simcore.core.model import ClusterSpec, JobTable, Node, Resources, SimConfig

LINK = '<a href="http://127.0.0.1:9/x">CLICK</a>'
BOLD = '<b style="color:red">BOLD</b>'
POLICY = "<i>fitgpp</i>"  # a panel or legend label as the figure receives it
# a tag Plotly would render: <a ...>, <b>, <i>, <span ...>, <em>, <sub>, <sup> (not our own <br>, <extra>)
TAG = re.compile(r"<\s*/?\s*(a|b|i|span|em|sub|sup|s|u|img)(\s|>|/|$)", re.IGNORECASE)


def _strings(value: Any) -> Iterator[str]:
    """Every string anywhere in a figure's dict (data and layout)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield str(k)
            yield from _strings(v)
    elif isinstance(value, np.ndarray):
        yield from _strings(value.tolist())
    elif isinstance(value, list | tuple):
        for v in value:
            yield from _strings(v)


def assert_plain(fig: go.Figure, *shown: str) -> None:
    texts = list(_strings(fig.to_dict()))
    assert not [t for t in texts if TAG.search(t)]
    for text in shown:  # still there, as entities Plotly shows as these characters
        assert any(chart_text(text) in t for t in texts), text


@pytest.fixture(scope="module")
def run() -> compute.Run:
    """fitgpp on one two-GPU node named by a tag: two BE jobs fill it, a TE job preempts one."""
    table = JobTable(
        job_id=np.array([LINK, BOLD, "&lt;te&gt;"], dtype=object),
        submit_time=np.array([0.0, 0.0, 100.0]),
        duration=np.array([1000.0, 1000.0, 100.0]),
        request=np.ones((3, 3)),
        is_te=np.array([False, False, True]),
    )
    cluster = ClusterSpec((Node(BOLD + "-0", Resources(8, 8, 2)),))
    return compute.full_run(table, cluster, SimConfig(policy="fitgpp", grace=0))


@pytest.fixture(scope="module")
def cluster(run: compute.Run) -> ClusterSpec:
    return ClusterSpec((Node(BOLD + "-0", Resources(8, 8, 2)),))


def test_the_run_really_holds_the_hostile_text(run: compute.Run) -> None:
    assert set(run.jobs["job_id"]) == {LINK, BOLD, "&lt;te&gt;"}
    assert (run.events["event"] == "preempt").sum() == 1


def test_gantt_and_its_decision_view_escape_ids_nodes_and_policies(run: compute.Run, cluster: ClusterSpec) -> None:
    preempt = run.events[run.events["event"] == "preempt"].iloc[0]
    selected = {"policy": POLICY, "time": float(preempt["time"]), "job_id": preempt["job_id"], "node": preempt["node"]}
    view = gantt_views.gantt_view({POLICY: (run.segments, run.events)}, cluster, [BOLD + "-0"], (0.0, 1.0))
    assert_plain(gantt_charts.gantt_figure(view), LINK, BOLD, POLICY, "&lt;te&gt;")
    chosen = gantt_views.gantt_view(
        {POLICY: (run.segments, run.events)}, cluster, [BOLD + "-0"], (0.0, 1.0), (50.0, 200.0), selected
    )
    assert_plain(gantt_charts.gantt_figure(chosen), LINK, BOLD)


def test_the_lessons_gpu_grid_escapes_ids_and_nodes(run: compute.Run, cluster: ClusterSpec) -> None:
    snap = lesson_views.snapshot(run.jobs, run.events, run.segments, run.lost, 100.0)
    assert_plain(lesson_charts.gpu_grid_figure(lesson_views.grid_frame(snap, cluster)), BOLD, "&lt;te&gt;")


def test_result_charts_escape_policy_labels(run: compute.Run) -> None:
    assert_plain(charts.cdf_figure(views.cdf_frame({POLICY: run.jobs, LINK: run.jobs})), POLICY, LINK)
    summaries = [{POLICY: run.flat, LINK: run.flat}]
    assert_plain(charts.percentile_figure(views.percentile_frame(summaries)), POLICY, LINK)
    timeline = views.timeline_frame({POLICY: run.util}, {POLICY: run.queue})
    assert_plain(charts.timeline_figure(timeline), POLICY)


def test_sweep_charts_escape_policies_knob_values_and_labels() -> None:
    frame = pd.DataFrame(
        {
            "value": [BOLD, "best_fit"] * 2,
            "policy": [POLICY, POLICY, LINK, LINK],
            "metric": ["m"] * 4,
            "n": [1] * 4,
            "mean": [1.0, 2.0, 3.0, 4.0],
            "lo": [1.0, 2.0, 3.0, 4.0],
            "hi": [1.0, 2.0, 3.0, 4.0],
        }
    )
    assert_plain(sweep_charts.sweep_figure(frame, BOLD, [("m", LINK)]), BOLD, POLICY, LINK)
    points = pd.DataFrame(
        {
            "policy": [POLICY, POLICY, LINK],
            "value": [0.0, 1.0, 0.0],
            "te_p95": [1.0, 2.0, 3.0],
            "be_p95": [3.0, 2.0, 1.0],
        }
    )
    assert_plain(sweep_charts.pareto_figure(points, BOLD), BOLD, POLICY, LINK)


def test_chart_text_replaces_exactly_the_three_characters() -> None:
    assert chart_text('<a href="x">A & B</a>') == '&lt;a href="x"&gt;A &amp; B&lt;/a&gt;'
    assert chart_text("job-3 (ok)") == "job-3 (ok)" and chart_text(7) == "7"


def test_worth_figure_shows_policy_labels_as_text() -> None:
    worth = pd.DataFrame(
        {"policy": ["fifo", POLICY], "be_gpu_hours": [0.0, 2.5], "te_wait_saved_s": [0.0, 600.0]}
        | {"excess_gpus": [0.0, 3.0], "wasted": [0.0, 1.0]}
    )
    assert_plain(charts.worth_figure(worth), POLICY)
