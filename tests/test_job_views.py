"""The One job tab's pure parts (dashboard.explore.job_views, job_charts, job_state) on hand-made runs:
which job opens, the picker's filter, the job's Gantt (its nodes, its window) and the highlight trace,
whose bars are exactly the job's Gantt segments; the counterfactuals' values and tables, the form, the
questions the session keeps and the budget a what-if counts."""

from __future__ import annotations

from dataclasses import replace

import pandas as pd
import pytest
from helpers import job, prop_cluster, run, te

from dashboard.explore import job_charts, job_state, job_views
from dashboard.runs import budget
from dashboard.shared import demo, keys
from dashboard.shared.gantt_charts import GANTT_EPOCH
from dashboard.shared.scenario import Scenario
from simcore.analysis import gantt, whatif


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
    ids = pd.DataFrame({"job_id": ["11", "1", "21", "2"]})
    assert job_views.job_options(ids, "1") == ["1", "11", "21"]  # the exact id first
    assert job_views.job_options(ids, "1", limit=1) == ["1"]
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
    # first shown around its preemption: 10 min before the signal (10 s) to 10 min after it ran again (60 s)
    assert job_views.first_preemption(segments, events, "A") == (0.0, 660.0)
    assert view.focus == (0.0, 510.0)  # cut to the window
    assert job_views.first_preemption(segments, events, "T") is None
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


def test_counterfactual_choices_values_and_tables() -> None:
    result = _preempted_run()
    jobs = result.jobs_frame
    assert job_views.change_choices(jobs, "A", 4.0) == ["not_preempted", "submit_at", "gpus", "policy"]
    assert job_views.change_choices(jobs, "T", 2.0) == ["submit_at", "gpus", "policy"]  # never preempted
    assert job_views.change_choices(jobs, "B", 1.0) == ["submit_at", "policy"]  # one GPU: none fewer
    assert [job_views.max_fewer_gpus(g) for g in (1.5, 2.0, 8.0)] == [1, 1, 7]
    assert job_views.change_of("submit_at", 2.5, 3, "k8s") == whatif.Change("submit_at", 9000.0)
    assert job_views.change_of("gpus", 2.5, 3, "k8s") == whatif.Change("gpus", 3.0)
    assert job_views.change_of("policy", 2.5, 3, "k8s") == whatif.Change("policy", "k8s")
    assert job_views.change_of("not_preempted", 2.5, 3, "k8s") == whatif.Change("not_preempted")
    assert job_views.change_args(whatif.Change("submit_at", 9000.0)) == ["--submit-at", "9000"]
    assert job_views.change_args(whatif.Change("policy", "k8s")) == ["--under", "k8s"]
    # A not preempted: it runs 0..100 (JCT 210 -> 100 s); in minutes, as its move (110 s) reads
    delta = whatif.JobDelta("A", 210.0, 100.0, 0.0, 0.0)
    assert job_views.delta_words(delta) == (
        "its completion time would be 100 s instead of 3.5 min (-110 s), its first start day 1 00:00:00 instead of "
        "day 1 00:00:00"
    )
    frame = job_views.delta_frame(delta)  # a duration in words, an instant as the Gantt's axis reads it
    assert frame.values.tolist() == [
        ["completion time (JCT)", "3.5 min", "100 s", "-110 s"],
        ["first start", "day 1 00:00:00", "day 1 00:00:00", "0 s"],
    ]
    later = job_views.delta_frame(whatif.JobDelta("A", 3600.0, 5400.0, 90_000.0, 91_800.0))
    assert later.values.tolist() == [
        ["completion time (JCT)", "60.0 min", "90.0 min", "+30.0 min"],
        ["first start", "day 2 01:00:00", "day 2 01:30:00", "+30.0 min"],
    ]
    trio = job_views.trio_frame(
        {"TE_p95_slowdown_pct": -50.0, "BE_p50_slowdown_pct": 10.0, "BE_p95_slowdown_pct": float("nan")},
        {"TE_p95_slowdown_pct": -40.0, "BE_p50_slowdown_pct": 10.0, "BE_p95_slowdown_pct": 5.0},
    )
    assert trio.values.tolist() == [
        ["TE p95 slowdown", "-50.0", "-40.0", "+10.0"],
        ["BE p50 slowdown", "+10.0", "+10.0", "+0.0"],
        ["BE p95 slowdown", "n/a", "+5.0", "n/a"],
    ]
    touched = job_views.touched_frame([whatif.JobDelta("T", 50.0, 20.0, 40.0, 10.0)])
    assert touched.values.tolist() == [["T", "day 1 00:00:40", "day 1 00:00:10", "50.0", "20.0", "-30.0"]]
    assert list(touched.columns)[3:] == ["JCT before (s)", "JCT after (s)", "JCT change (s)"]


def test_the_forecast_form_and_its_words() -> None:
    fields = {"duration_min": 90.0, "cpu": 16.0, "mem_gb": 128.0, "gpu": 2.0, "job_class": "TE", "workers": 2}
    job, at = job_views.forecast_job({**fields, "submit_h": 1.5})
    assert job == {"duration": 5400.0, "cpu": 16.0, "mem_gb": 128.0, "gpu": 2.0, "job_class": "TE", "workers": 2}
    assert at == 5400.0
    assert job_views.add_spec(job, at) == "submit=5400,duration=5400,cpu=16,mem_gb=128,gpu=2,workers=2,class=TE"
    lines = job_views.forecast_lines(6000.0, 5400.0, ("n0", "n1"), ("7",), "a forecast")
    assert lines == [
        "Submitted at day 1 01:30:00, it would start at day 1 01:40:00, after waiting 10.0 min, on n0, n1.",
        "To start, it would preempt BE job 7.",
        "Caveat: a forecast.",
    ]
    defaults = job_views.form_defaults({"cpu": 64.0, "mem_gb": 512.0, "gpu": 8.0}, 0.5, "p_")
    assert defaults == {
        "p_duration_min": 60.0,
        "p_cpu": 8.0,
        "p_mem_gb": 64.0,
        "p_gpu": 1.0,
        "p_job_class": "TE",
        "p_workers": 1,
        "p_submit_h": 0.5,
    }


def test_the_tab_keeps_the_question_asked_for_its_job_and_run() -> None:
    session: dict = {keys.JOB_CHANGE.name: "gpus", keys.JOB_GPUS.name: 2}
    job_state.ask_change(session, "fitgpp", "A")
    assert job_state.asked_change(session, "fitgpp", "A") == whatif.Change("gpus", 2.0)
    assert (
        job_state.asked_change(session, "k8s", "A") is None and job_state.asked_change(session, "fitgpp", "B") is None
    )
    job_state.keep_in_range(session, keys.JOB_GPUS, 1, 1, 1)  # the next job asks for 2 GPUs: 1 at most
    assert keys.JOB_GPUS.read(session) == 1
    session.update({keys.FORECAST_FIELD(name).name: i for i, name in enumerate(job_views.FORM_FIELDS)})
    job_state.ask_forecast(session, "fitgpp")
    assert job_state.asked_forecast(session, "fitgpp") == {name: i for i, name in enumerate(job_views.FORM_FIELDS)}
    assert job_state.asked_forecast(session, "k8s") is None
    job_state.open_job(session, "k8s", "T", "One job")
    assert [keys.JOB_POLICY.read(session), keys.JOB_FILTER.read(session), keys.JOB_ID.read(session)] == [
        "k8s",
        "T",
        "T",
    ]
    assert keys.TAB.read(session) == "One job"


def test_a_what_if_counts_every_simulation_in_the_budget() -> None:
    lim = replace(demo.limits(), budget=1_000)
    budget.check_whatif(250, 4, lim, "simcore whatif ...")  # exactly the budget
    with pytest.raises(budget.Refused, match=r"1,004 job-runs of this what-if \(jobs x simulations\)"):
        budget.check_whatif(251, 4, lim, "simcore whatif ...")
    scenario = Scenario()
    assert budget.explore_command(scenario, what=("explain", "4", "--policy", "fitgpp")).startswith(
        f"simcore explain sample_workloads/{scenario.sample}.csv 4 --policy fitgpp"
    )


def test_the_jobs_table_and_the_gantt_hover_name_each_jobs_longest_wait() -> None:
    # the run of _preempted_run: T waits 10..40 for A's grace; A, released at 40, waits 40..60 (T holds
    # 2 of the 4 GPUs); B never waits
    from dashboard.shared import gantt_charts, gantt_views, views
    from simcore.core.model import JobTable, SimConfig

    jobs = [job("A", 0, 100, 4), te("T", 10, 20, 2), job("B", 500, 10, 1)]
    result = _preempted_run()
    waits = whatif.all_waits(JobTable.from_jobs(jobs), prop_cluster(4), SimConfig(policy="k8s"))
    grace = "its victims (A) are checkpointing in their grace period"
    room = "no node has room for its request (most GPUs free on one node: 2); it fits on the empty cluster"
    assert views.why_by_job(waits) == {"A": room, "T": grace, "B": ""}
    table = views.jobs_table(result.jobs_frame, views.why_by_job(waits))
    assert table.columns[-1] == views.WHY_WAITED and table[views.WHY_WAITED].tolist() == [room, grace, ""]
    assert views.WHY_WAITED not in views.jobs_table(result.jobs_frame).columns  # no waits given: no column

    segments, events, _ = _frames(result)
    view = gantt_views.gantt_view(
        {"k8s": (segments, events)}, result.cluster, ["n0"], (0.0, 1.0), why={"k8s": views.why_by_job(waits)}
    )
    fig = gantt_charts.gantt_figure(view)
    hover = {
        (t.name, c[0]): c[7]
        for t in fig.data
        if t.customdata is not None and len(t.customdata[0]) > 7
        for c in t.customdata
    }
    line = "<br>why it waited (longest wait): "
    assert hover == {
        ("BE run", "A"): line + room,
        ("BE grace", "A"): line + room,
        ("BE restore", "A"): line + room,
        ("TE run", "T"): line + grace,
        ("BE run", "B"): "",
    }
    assert all("%{customdata[7]}" in t.hovertemplate for t in fig.data if t.type == "bar")
    # a reason names jobs, which may be an upload's: it shows as exactly its characters
    hostile = gantt_views.gantt_view(
        {"k8s": (segments, events)}, result.cluster, ["n0"], (0.0, 1.0), why={"k8s": {"T": "<b>x</b>"}}
    )
    (te_run,) = [t for t in gantt_charts.gantt_figure(hostile).data if t.name == "TE run"]
    assert te_run.customdata[0][7] == line + "&lt;b&gt;x&lt;/b&gt;"
