"""The One job tab through AppTest from the entry point: the story, each counterfactual and the
"When would my job start?" form, every number checked against :mod:`simcore.analysis.whatif` called here
directly on the same jobs, cluster and knobs; a hostile job id stays plain text."""

from __future__ import annotations

import re

import pandas as pd
import pytest
from helpers.apptest import APP, chart_spec
from streamlit.testing.v1 import AppTest

from dashboard.explore import job_views
from dashboard.runs import data
from dashboard.shared import demo, keys, views
from dashboard.shared.scenario import Scenario
from simcore.analysis import whatif
from simcore.engine import simulate

HOSTILE = '<a href="http://127.0.0.1:9/x">CLICK</a>'
MARKDOWN_KINDS = ("markdown", "caption", "warning", "error", "info", "success", "toast", "title", "subheader")


def _tab(**query: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=240)
    at.query_params.update({"tab": "One job", **query})
    return at.run()


def _clean(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def _frame(at: AppTest, first_column: str, column: str) -> pd.DataFrame:
    """The shown table whose columns start with ``first_column`` and include ``column``."""
    found = [d.value for d in at.dataframe if d.value.columns[0] == first_column and column in d.value.columns]
    assert len(found) == 1, [list(d.value.columns) for d in at.dataframe]
    return found[0].reset_index(drop=True)


def _same(shown: pd.DataFrame, expected: pd.DataFrame) -> None:
    pd.testing.assert_frame_equal(shown.reset_index(drop=True), expected.reset_index(drop=True))


@pytest.fixture(scope="session")  # once per process: the first test runs first (helpers.order)
def inputs():
    """The default scenario's jobs, cluster and fitgpp knobs, as the page runs them."""
    scenario = Scenario()
    workload = data.sample_workload(scenario.sample)
    return workload.table, workload.cluster, scenario.config("fitgpp")


def test_story_counterfactuals_and_forecast_match_simcore_whatif(inputs, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(demo.ENV_VAR, raising=False)
    table, cluster, config = inputs
    at = _tab()
    _clean(at)
    base = simulate(table, cluster, config, record_decisions=True)  # the story names the deciding criterion
    job = job_views.default_job(base.jobs_frame, base.events_frame)
    assert at.selectbox(key=keys.JOB_ID.name).value == job
    assert job is not None and int(base.jobs_frame.set_index("job_id").loc[job, "preemptions"]) > 0
    # the story, each waiting stretch with its reason
    waits = whatif.blocking_reasons(table, cluster, config, job)
    story = whatif.job_story(base, job, waits)
    assert at.text[0].value == "\n".join(job_views.story_lines(story))
    assert any(s.kind == "preempted" for s in story)
    _same(_frame(at, "from", "why"), job_views.waits_frame(waits))
    longest = views.longest_wait(waits)
    assert longest is not None
    assert _frame(at, "job", "why it waited")["why it waited"].tolist() == [longest.text]

    # each counterfactual: the job's delta and the trio, as simcore.analysis.whatif computes them
    radio = at.radio(key=keys.JOB_CHANGE.name)
    assert radio.options == list(job_views.CHANGE_LABELS.values())  # a preempted 8-GPU job: all four
    for kind, widget, value, change in (
        ("not_preempted", None, None, whatif.Change("not_preempted")),
        ("submit_at", keys.JOB_SUBMIT_AT, 2.5, whatif.Change("submit_at", 2.5 * 3600.0)),
        ("gpus", keys.JOB_GPUS, 4, whatif.Change("gpus", 4.0)),
        ("policy", keys.JOB_OTHER_POLICY, "k8s", whatif.Change("policy", "k8s")),
    ):
        at.radio(key=keys.JOB_CHANGE.name).set_value(kind).run()
        if widget is not None:
            element = at.selectbox(key=widget.name) if kind == "policy" else at.number_input(key=widget.name)
            element.set_value(value).run()
        at.button(key="job_whatif").click().run()
        _clean(at)
        answer = whatif.counterfactual(table, cluster, config, job, change)
        said = f"Job {job} {job_views.change_words(change)}: {job_views.delta_words(answer.job)}."
        assert any(t.value == said for t in at.text), kind
        _same(_frame(at, "", "change"), job_views.delta_frame(answer.job))
        _same(_frame(at, "", "change (points)"), job_views.trio_frame(answer.trio_before, answer.trio_after))
        if answer.touched:
            _same(_frame(at, "job", "start before"), job_views.touched_frame(answer.touched))

    # the form: a described job added at a time
    fields = {"duration_min": 90.0, "cpu": 16.0, "mem_gb": 128.0, "gpu": 2.0, "job_class": "TE", "workers": 1}
    fields["submit_h"] = 3.0
    for name, value in fields.items():
        element = (
            at.selectbox(key=keys.FORECAST_FIELD(name).name)
            if name == "job_class"
            else at.number_input(key=keys.FORECAST_FIELD(name).name)
        )
        element.set_value(value)
    next(b for b in at.button if b.label == "When would it start?").click().run()
    _clean(at)
    described, t = job_views.forecast_job(fields)
    forecast = whatif.when_would_it_start(table, cluster, config, described, t)
    lines = job_views.forecast_lines(forecast.start, forecast.submit, forecast.nodes, forecast.victims, forecast.caveat)
    assert at.text[-1].value == "\n".join(lines)
    assert forecast.start is not None and lines[0].startswith("Submitted at day 1 03:00:00, it would start at")


def test_a_hostile_job_id_is_shown_as_plain_text(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(demo.ENV_VAR, raising=False)
    # one 8-GPU node: the hostile BE job holds it, a TE job preempts it
    csv = (
        "job_id,submit_time,duration,cpu,mem_gb,gpu,job_class\n"
        f'"{HOSTILE.replace(chr(34), chr(34) * 2)}",0,3600,8,64,8,BE\nte1,60,600,8,64,8,TE\n'
    )
    at = _tab(source="upload", cluster="custom", nodes="1", policies="fifo,fitgpp", baseline="fifo")
    at.file_uploader(key="upload_workload").set_value(("hostile.csv", csv.encode(), "text/csv")).run()
    _clean(at)
    assert at.selectbox(key=keys.JOB_ID.name).value == HOSTILE
    assert _frame(at, "job", "why it waited")["job"].tolist() == [HOSTILE]  # a table cell: plain text
    at.button(key="job_whatif").click().run()  # had it not been preempted
    _clean(at)
    assert any(t.value.startswith(f"Job {HOSTILE} had it not been preempted: ") for t in at.text)  # st.text: plain
    for kind in MARKDOWN_KINDS:
        for element in at.get(kind):
            bare = re.sub(r"(`+).+?\1", "", str(element.value))
            assert "<a href" not in bare and "](" not in bare, element.value


def test_a_row_of_the_jobs_table_opens_its_job_in_the_one_job_tab(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(demo.ENV_VAR, raising=False)
    at = _tab(tab="Jobs and downloads")
    _clean(at)
    assert at.main.caption[-1].value.startswith("Select a row to open its job in the One job tab.")
    at.session_state["jobs_table"] = {"selection": {"rows": [3], "columns": [], "cells": []}}  # the 4th row
    at.run()
    assert [t.value for t in at.text] == ["Selected: job 3 of the fifo run."]
    next(b for b in at.button if b.label == "Open in One job").click().run()
    _clean(at)
    assert at.selectbox(key=keys.JOB_POLICY.name).value == "fifo"
    assert at.selectbox(key=keys.JOB_ID.name).value == "3"
    assert at.text_input(key=keys.JOB_FILTER.name).value == "3"
    assert [c.key for c in at.get("plotly_chart")][-1] == "job_gantt"


def test_the_jobs_table_and_the_gantt_hover_say_why_every_job_waited(inputs, monkeypatch: pytest.MonkeyPatch) -> None:
    # the "why it waited" column of every row, and the Gantt bars' hover, equal simcore.analysis.whatif's answer
    # computed here on the same jobs, cluster and knobs (one watched run per policy shown)
    monkeypatch.delenv(demo.ENV_VAR, raising=False)
    table, cluster, _ = inputs
    scenario = Scenario()
    why = {p: views.why_by_job(whatif.all_waits(table, cluster, scenario.config(p))) for p in ("fifo", "fitgpp")}
    assert sum(1 for text in why["fifo"].values() if text) > 100  # most jobs of the sample wait
    at = _tab(tab="Jobs and downloads")
    _clean(at)
    shown = _frame(at, "job", views.WHY_WAITED)
    assert at.selectbox(key="jobs_policy").value == "fifo"
    assert shown[views.WHY_WAITED].tolist() == [why["fifo"][str(j)] for j in shown["job"]]

    at = _tab(tab="Gantt")
    _clean(at)
    assert at.selectbox(key="x_gantt_policy").value == "fitgpp" and at.selectbox(key="gantt_with").value == "fifo"
    spec = chart_spec(at, "gantt")
    line = "<br>why it waited (longest wait): "
    bars = [t for t in spec["data"] if t["type"] == "bar"]
    assert bars and all("%{customdata[7]}" in t["hovertemplate"] for t in bars)
    for t in bars:
        policy = "fitgpp" if t.get("yaxis", "y") == "y" else "fifo"  # the first panel, then the one stacked below
        for c in t["customdata"]:
            text = why[policy][c[0]]
            assert c[7] == (line + text if text else ""), (policy, c[0])
    assert any(c[7] for t in bars for c in t["customdata"])  # a hover names a reason
