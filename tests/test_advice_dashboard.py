"""The checkpoint advisor on the Sweep page (issue 35): its settings read and ranged as knobs, the chart with
both optima marked (read back by its traces), the same advice as simcore.experiments.advisor gives for the
same runs, nothing run before the button, and the demo's limits."""

from __future__ import annotations

import math

import pandas as pd
import pytest
from helpers.apptest import APP, assert_clean, chart_spec
from helpers.apptest import DEMO as DEMO_CSV
from streamlit.testing.v1 import AppTest

from dashboard.runs import budget, compute
from dashboard.shared import keys
from dashboard.shared.demo import DEMO, Refused
from dashboard.sweep import advice_charts, advice_views
from simcore.core.errors import UserError
from simcore.experiments import advisor


def test_the_settings_are_read_as_knobs_and_refused_by_their_field() -> None:
    values = advice_views.widget_defaults(("fifo", "fitgpp"))
    settings = advice_views.read(values, "demo", "", 3)
    assert (settings.policy, settings.checkpoint_cost, settings.mtbf, settings.repair) == (
        "fitgpp",
        60.0,
        172800.0,
        3600.0,
    )
    assert settings.intervals == (600.0, 1800.0, 3600.0, 7200.0, 14400.0)
    assert settings.knobs() == (("checkpoint_cost", "60"), ("mtbf", "172800"))  # repair at its default: left out
    assert settings.config().checkpoint_cost == 60.0 and settings.config().policy == "fitgpp"
    again = advice_views.read({**values, keys.ADV_INTERVALS.name: "3600, 600,3600"}, "demo", "", 3)
    assert again.intervals == (600.0, 3600.0)  # sorted, each once
    for key, text, field in (
        (keys.ADV_MTBF, "0", "mean time between failures"),
        (keys.ADV_MTBF, "soon", "mean time between failures"),
        (keys.ADV_INTERVALS, "600,x", "checkpoint intervals"),
        (keys.ADV_INTERVALS, "600,0", "checkpoint intervals"),
    ):
        with pytest.raises(UserError, match=field):
            advice_views.read({**values, key.name: text}, "demo", "", 3)


def _advice(yd: float) -> advisor.Advice:
    table = pd.DataFrame(
        {
            "interval": [600.0, 1800.0, 3600.0],
            "BE_slowdown_p50": [3.0, 2.0, 2.5],
            "BE_slowdown_p95": [9.0, 6.0, 7.0],
            "gpu_hours_lost": [1.0, 2.0, 4.0],
            "interruptions": [10, 10, 10],
            "mean_time_between_interruptions": [5000.0, 5000.0, 5000.0],
        }
    )
    return advisor.Advice(table, 1800.0, yd, 5000.0, 60.0, False, ("a reason",), 3, 600.0)


def test_the_chart_marks_the_simulated_best_and_young_daly_across_both_panels() -> None:
    figure = advice_charts.advice_figure(_advice(774.6))
    marks = {t.name: t for t in figure.data if t.mode == "lines" and len(t.x) == 2 and t.x[0] == t.x[1]}
    assert sorted(marks) == ["Young/Daly: 12.9 min", "simulated best: 30.0 min"]
    best = [t for t in figure.data if t.name == "simulated best: 30.0 min"]
    assert [list(t.x) for t in best] == [[1800.0, 1800.0]] * 2  # on both panels
    assert [list(t.y) for t in best] == [[2.0, 9.0], [1.0, 4.0]]  # each panel's data range
    assert figure.layout.xaxis.type == "log" and figure.layout.xaxis2.type == "log"
    no_yd = advice_charts.advice_figure(_advice(math.inf))
    assert not any(t.name and t.name.startswith("Young/Daly") for t in no_yd.data)
    words = advice_views.verdict(_advice(774.6))
    assert "**30.0 min**" in words and "**12.9 min**" in words and "a reason" in words
    shown = advice_views.table(_advice(774.6))
    assert (
        shown["interval"].tolist() == ["10.0 min", "30.0 min", "60.0 min"] and shown[""].tolist()[1] == "simulated best"
    )


def test_the_demo_refuses_an_advice_over_its_limits_with_the_local_command() -> None:
    command = budget.advice_command("demo", (), 3, "fitgpp", (("mtbf", "172800"),), (600.0, 1800.0))
    assert command == (
        "simcore checkpoint-advice demo --policy fitgpp --set mtbf=172800 --intervals 600,1800 --seeds 3"
    )
    budget.check_advice("demo", (), 3, 5, 100, DEMO, command)  # (400 + 100 x 40) x 5 x 3 = 66,000 job-runs
    with pytest.raises(Refused) as caught:
        budget.check_advice("demo", (("jobs", "2000"),), 5, 7, 1000, DEMO, command)
    text = str(caught.value)
    assert "7 intervals: more than 6" in text and "job-runs ((jobs + down windows x their cost)" in text
    assert text.endswith(command)


def _sweep_page() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=300)
    at.switch_page("app_pages/sweep.py")
    at.run()
    at.text_input(key=keys.S_JOBS.name).set_value("120")
    at.number_input(key=keys.S_SEEDS.name).set_value(2)
    return at.run()


def test_the_sweep_page_runs_the_advisor_after_its_button_and_marks_both_optima() -> None:
    at = _sweep_page()
    assert_clean(at)
    assert not [c for c in at.get("plotly_chart") if c.key == "advice"]  # nothing before the button
    at.text_input(key=keys.ADV_INTERVALS.name).set_value("600,3600,14400")
    next(b for b in at.button if b.label == "Run the advisor").click().run()
    assert_clean(at)
    settings = advice_views.read(at.session_state, "demo", "120", 2)
    expected = compute.advice("demo", settings.gen(), 2, settings.config(), settings.intervals)
    names = {t["name"]: t for t in chart_spec(at, "advice")["data"]}
    best = names[f"simulated best: {advice_views.fmt.duration(expected.best_interval)}"]
    assert best["x"] == [expected.best_interval] * 2
    if 0 < expected.young_daly < math.inf:
        yd = names[f"Young/Daly: {advice_views.fmt.duration(expected.young_daly)}"]
        assert yd["x"] == [pytest.approx(expected.young_daly)] * 2
    assert advice_views.verdict(expected) in [m.value for m in at.markdown]
    assert any("simcore checkpoint-advice demo --policy fitgpp --set jobs=120" in c.value for c in at.caption)


def test_a_bad_interval_is_said_and_nothing_runs() -> None:
    at = _sweep_page()
    at.text_input(key=keys.ADV_INTERVALS.name).set_value("600,-1")
    next(b for b in at.button if b.label == "Run the advisor").click().run()
    assert not at.exception
    assert any("checkpoint intervals" in e.value for e in at.error)
    assert not [c for c in at.get("plotly_chart") if c.key == "advice"]


def test_on_an_uploaded_workload_the_advisor_names_the_command_and_offers_no_button() -> None:
    at = AppTest.from_file(APP, default_timeout=300)
    at.switch_page("app_pages/sweep.py")
    at.run()
    at.radio(key=keys.S_SOURCE.name).set_value("upload").run()
    at.file_uploader(key="sweep_upload").set_value(("my_lab.csv", DEMO_CSV, "text/csv")).run()
    assert_clean(at)
    assert not [b for b in at.button if b.label == "Run the advisor"]
    (said,) = [c.value for c in at.caption if "The advisor runs on a preset" in c.value]
    assert "Workload: a generator preset" in said and "simcore checkpoint-advice FILE --policy NAME" in said
