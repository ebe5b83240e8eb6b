"""Every page and tab as a visitor reads it (issue 33): no number with more than three decimals, no raw
seconds above a day, no code (``no_room``, ``max_computations``) in what the pages show, every float input
written without trailing zeros ("64", not "64.00"), every table through the one rule of
:mod:`dashboard.shared.tables`. The content through Streamlit's AppTest (what Chromium draws is
``tests/test_browser_readable.py``'s); the checks are :mod:`helpers.readable`'s, shared with it."""

from __future__ import annotations

import pandas as pd
import pytest
from helpers.apptest import APP, DEMO, assert_clean
from helpers.readable import table_problems, text_problems
from streamlit.proto.NumberInput_pb2 import NumberInput
from streamlit.testing.v1 import AppTest

from dashboard.explore import job_views
from dashboard.shared import demo, tables, views
from simcore.analysis.whatif import WAIT_REASONS

TEXT_KINDS = ("title", "header", "subheader", "markdown", "caption", "info", "warning", "error", "success", "text")
EXPLORE_TABS = (
    "Slowdown",
    "Gantt",
    "Utilisation and queue",
    "Preemptions",
    "Was it worth it?",
    "One job",
    "Jobs and downloads",
)


def problems(at: AppTest, where: str) -> list[str]:
    """Everything the page shows that breaks a rule: its texts, cards, choices, tables and number inputs."""
    texts = [str(e.value) for kind in TEXT_KINDS for e in at.get(kind)]
    texts += [f"{m.label} {m.value} {m.delta or ''}" for m in at.metric]
    texts += [str(o) for box in at.selectbox for o in box.options]
    texts += [str(o) for box in at.radio for o in box.options]
    found = text_problems(texts, where)
    for i, frame in enumerate(at.dataframe):
        shown: pd.DataFrame = frame.value.reset_index()
        found += table_problems({str(c): shown[c].tolist() for c in shown.columns}, f"{where} table {i}")
    for box in at.number_input:
        if box.proto.data_type == NumberInput.FLOAT and box.proto.format != "%g":
            found.append(f"{where}: the input {box.label!r} writes its float as {box.proto.format or '%.2f'}")
    return found


def app(page: str | None = None, **query: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=300)
    if page:
        at.switch_page(page)
    at.query_params.update(query)
    return at.run()


@pytest.mark.parametrize("tab", EXPLORE_TABS)
def test_every_explore_tab_shows_numbers_for_people(tab: str) -> None:
    at = app(tab=tab)
    assert_clean(at)
    found = problems(at, tab)
    if tab == "Gantt":  # and the first preemption's decision in words, its candidates and its events
        next(b for b in at.button if b.label == "Next preemption").click().run()
        assert_clean(at)
        assert any("On the same state, " in t.value for kind in ("markdown", "text", "caption") for t in at.get(kind))
        found += problems(at, "Gantt, a preemption chosen")
    if tab == "One job":  # and a counterfactual's tables
        next(b for b in at.button if b.label == "Simulate").click().run()
        assert_clean(at)
        found += problems(at, "One job, a counterfactual")
        # the reason of each wait in words, never its code
        reasons = next(f.value for f in at.dataframe if "reason" in f.value.columns)["reason"]
        assert set(reasons) <= set(job_views.REASON_WORDS.values()) and not set(reasons) & set(WAIT_REASONS)
    assert found == []


def test_an_upload_several_seeds_and_the_worth_panel_read_the_same_way() -> None:
    at = AppTest.from_file(APP, default_timeout=300)
    at.query_params.update({"source": "upload", "tab": "Jobs and downloads"})
    at.run()
    at.file_uploader(key="upload_workload").set_value(("my_lab.csv", DEMO, "text/csv")).run()
    assert_clean(at)
    found = problems(at, "upload, jobs")
    seeds = app(source="generate", seeds="3", tab="Was it worth it?", **{"g.jobs": "150"})
    assert_clean(seeds)
    assert found + problems(seeds, "3 seeds, worth") == []


def test_the_jobs_table_shows_instants_as_days_and_clocks_and_sorts_them_as_times() -> None:
    at = app(tab="Jobs and downloads")
    assert_clean(at)
    frame = at.dataframe[-1]
    shown = frame.value
    for column in ("submit", "first start", "finish"):  # instants: datetimes the grid writes "day 12 08:52:07"
        assert pd.api.types.is_datetime64_any_dtype(shown[column]), column
        assert (shown[column] >= views.ORIGIN).all()
    assert tables.DAY_CLOCK in frame.proto.columns  # the column configuration the grid draws them with
    assert shown["slowdown (x run time)"].map(lambda x: round(x, 3) == x).all()  # 13.4573 -> 13.5
    assert views.instants("t", [1152544.0])[1].iloc[0] == pd.Timestamp("2001-01-14 08:09:04")  # day 14 08:09:04


def test_sweep_and_learn_show_numbers_for_people() -> None:
    sweep = app("app_pages/sweep.py", run="1", seeds="2", jobs="80", values="0.8,1.2", policies="fifo,fitgpp")
    assert_clean(sweep)
    assert sweep.get("plotly_chart")  # it ran
    found = problems(sweep, "Sweep")
    learn = app("app_pages/learn.py", exercise="7")
    assert_clean(learn)
    found += problems(learn, "Learn, exercise 7")
    learn.selectbox(key="lesson").set_value("victim").run()
    assert_clean(learn)
    assert found + problems(learn, "Learn, lesson (b)") == []


def test_the_first_screen_says_what_te_be_and_slowdown_are_and_what_may_run_here(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(demo.ENV_VAR, "1")
    at = app()
    assert_clean(at)
    line = next(c.value for c in at.caption if c.value.startswith("TE (trial-and-error) jobs"))
    assert "BE (best-effort) jobs" in line and "slowdown" in line and "1 means it never waited" in line
    assert "This demo runs up to 20,000 jobs on up to 256 nodes, 6 policies and 5 seeds at once" in line
    assert text_problems([line]) == []
