"""The One job tab's pure parts (dashboard.explore.job_views, job_charts) on hand-made runs: which job
opens, the picker's filter, the job's Gantt (its nodes, its window) and the highlight trace, whose bars
are exactly the job's Gantt segments."""

from __future__ import annotations

from dataclasses import replace

import pandas as pd
from helpers import job, prop_cluster, run, te

from dashboard.explore import job_charts, job_views
from dashboard.shared.gantt_charts import GANTT_EPOCH
from simcore import gantt


def _frames(result):
    return gantt.segments(result), result.events_frame, result.jobs_frame


def _preempted_run():
    # one 4-GPU node: A (BE, 4 GPUs) from 0; T (TE, 2 GPUs) at 10 preempts it (k8s, grace 30 -> release at
    # 40), T runs 40..60 on lanes 0-1, A restores 60..120 and runs 120..210 (tests/test_gantt.py)
    return run([job("A", 0, 100, 4), te("T", 10, 20, 2), job("B", 500, 10, 1)], prop_cluster(4), policy="k8s")


def _bar_spans(trace) -> list[tuple[float, float, float]]:
    starts = (pd.to_datetime(trace.base) - GANTT_EPOCH).total_seconds()
    return sorted((float(s), float(s + w / 1000.0), float(y)) for s, w, y in zip(starts, trace.x, trace.y, strict=True))


def test_the_tab_opens_on_the_first_preempted_job_and_filters_ids() -> None:
    segments, events, jobs = _frames(_preempted_run())
    assert job_views.default_job(jobs, events) == "A"
    assert job_views.job_options(jobs, "") == ["A", "T", "B"]
    assert job_views.job_options(jobs, " t ") == ["T"]  # any case, spaces trimmed
    assert job_views.job_options(jobs, "zz") == []
    assert job_views.job_label(jobs, "A") == "A (BE, preempted 1 time, waited 0 s)"
    assert job_views.job_label(jobs, "T") == "T (TE, waited 30 s)"
    # without preemptions: the longest wait (c waits 10 s for a)
    fifo = run([job("a", 0, 10, 4), job("c", 0, 5, 4), job("d", 0, 1, 1, cpu=0)], prop_cluster(4), policy="fifo")
    assert job_views.default_job(fifo.jobs_frame, fifo.events_frame) == "d"


def test_the_highlight_trace_draws_exactly_the_jobs_gantt_segments() -> None:
    result = _preempted_run()
    segments, events, jobs = _frames(result)
    view = job_views.job_gantt(segments, events, jobs, result.cluster, "k8s", "A")
    assert view is not None
    # its window: 10% of its life (0..210 s) or 5 min before and after, whichever is longer
    assert view.window == (0.0, 510.0)
    rows = view.panels[0].layout.set_index("lane")["y"]
    mine = segments[segments["job_id"] == "A"]
    expected = sorted(
        (float(s), float(e), (float(rows[lo]) + float(rows[hi])) / 2)
        for (s, e), part in mine.groupby(["start", "end"])
        for lo, hi in [(part["lane"].min(), part["lane"].max())]
    )
    waits = job_views.wait_rows([(10.0, 20.0, "no room: <a href='x'>7</a>")], view.window)
    fig = job_charts.job_gantt_figure(view, "A", waits)
    by_name = {t.name: t for t in fig.data}
    assert _bar_spans(by_name["job A"]) == expected  # run 0-10, grace 10-40, restore 60-120, run 120-210, 4 lanes
    assert list(by_name["job A"].width) == [3.9] * 4
    assert all(t.opacity == job_charts.FADED for t in fig.data if t.name not in ("job A", "waiting"))
    # the waiting row: its stretch, and the reason as plain text in the hover
    assert _bar_spans(by_name["waiting"]) == [(10.0, 20.0, job_charts.WAIT_Y)]
    assert by_name["waiting"].customdata[0] == (
        "waited day 1 00:00:10 to day 1 00:00:20 (10 s): no room: &lt;a href='x'&gt;7&lt;/a&gt;"
    )
    assert fig.layout.yaxis.ticktext[0] == "waiting"


def test_a_gang_is_highlighted_on_every_node_it_holds() -> None:
    # two 4-GPU nodes and a 2-worker gang of 4 GPUs each (one worker per node), behind x
    gang = replace(job("G", 1, 100, 4), workers=2)
    result = run([job("x", 0, 50, 1), gang], prop_cluster(4, 4), policy="fifo")
    segments, events, jobs = _frames(result)
    assert job_views.job_nodes(segments, result.cluster, "G") == ["n0", "n1"]
    view = job_views.job_gantt(segments, events, jobs, result.cluster, "fifo", "G")
    assert view is not None
    bars = job_views.job_bars(view, "G")
    assert sorted(bars["node"]) == ["n0", "n1"]
    assert set(bars["start"]) == {50.0} and set(bars["end"]) == {150.0}  # waits for x, then 100 s
    fig = job_charts.job_gantt_figure(view, "G", [])
    assert len(_bar_spans(next(t for t in fig.data if t.name == "job G"))) == 2
    assert "waiting" not in {t.name for t in fig.data}


def test_a_job_that_never_ran_has_no_gantt() -> None:
    result = _preempted_run()
    segments, events, jobs = _frames(result)
    assert job_views.job_gantt(segments[segments["job_id"] != "B"], events, jobs, result.cluster, "k8s", "B") is None
    # a stretch outside the window is left out, one across its edge cut to it
    rows = job_views.wait_rows([(0.0, 5.0, "a"), (8.0, 30.0, "b")], (10.0, 20.0))
    assert [(r.start, r.end) for r in rows] == [(10.0, 20.0)] and rows[0].text.startswith("waited day 1 00:00:08")
