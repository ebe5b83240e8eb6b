"""The dashboard through Streamlit's AppTest (every page from the entry point), plus the pure
upload handling it relies on."""

from __future__ import annotations

import math
import re
from typing import Any

import pytest
from helpers.apptest import APP, DEMO, assert_clean, chart_spec
from helpers.decisions import assert_contrastive, default_sample_steps
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.runtime.forward_msg_queue import ForwardMsgQueue
from streamlit.testing.v1 import AppTest
from streamlit.testing.v1.element_tree import Widget

from dashboard.explore import first_chart
from dashboard.learn.learn_content import regime_facts
from dashboard.learn.learn_numbers import learn_numbers
from dashboard.runs import data
from dashboard.shared import decision_text, keys, uploads, views
from dashboard.shared.scenario import Scenario, from_widgets
from dashboard.sweep import sweeps
from simcore.analysis.stats import BOOTSTRAP_NAME, bootstrap_mean
from simcore.core import fmt
from simcore.core.errors import UserError

BAD_ROW = b"job_id,submit_time,duration,cpu,mem_gb,gpu,job_class\n1,0,60,1,1,1,TE\n2,5,-3,1,1,1,BE\n"


def app(**query: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params.update(query)
    return at.run()


def cards(at: AppTest) -> dict[tuple[int, str], tuple[str, str]]:
    """(card index, label) -> (value, delta) of the trio metric cards."""
    return {(i // 3, m.label): (m.value, m.delta) for i, m in enumerate(at.metric)}


def shown(element: object) -> str:
    """An element's text as the visitor reads it (visitor text is backslash-escaped Markdown)."""
    return re.sub(r"\\(.)", r"\1", element.value)


def test_default_run_shows_the_trio_and_every_chart() -> None:
    at = app()
    assert_clean(at)
    assert len(at.metric) == 4 * 3  # fifo, priority, k8s, fitgpp x the trio
    trio = cards(at)
    assert trio[(0, "TE p95 slowdown")][1] in ("", None)  # the baseline has no delta
    assert trio[(3, "TE p95 slowdown")][1].startswith("-")  # fitgpp cuts TE p95 against fifo
    assert len(at.get("plotly_chart")) == 2  # CDF and percentiles: only the open tab is drawn
    assert at.dataframe  # the percentile table
    assert any("sample demo_seed1.csv" in shown(c) for c in at.caption)
    assert any("One run" in c.value for c in at.caption)  # single runs are flagged as chaotic
    assert dict(at.query_params) == {}  # the default scenario keeps the URL clean


def test_changing_a_knob_changes_the_result_and_the_url() -> None:
    at = app()
    before = cards(at)
    at.selectbox(key="x_k_backfill").set_value("none").run()
    assert_clean(at)
    assert cards(at) != before
    assert at.query_params["backfill"] == ["none"] or at.query_params["backfill"] == "none"


def test_url_restores_the_scenario() -> None:
    at = app(
        source="generate", preset="demo", **{"g.jobs": "150"}, policies="fifo,fitgpp", P="1", seeds="2", grace="10"
    )
    assert_clean(at)
    assert at.radio(key="x_source").value == "generate"
    assert at.number_input(key="x_gen_jobs").value == 150
    assert at.multiselect(key="x_policies").value == ["fifo", "fitgpp"]
    assert at.number_input(key="x_k_P").value == 1 and at.number_input(key="x_k_grace").value == 10
    assert len(at.metric) == 2 * 3
    assert any("Mean over 2 seeds" in c.value for c in at.caption)
    assert any("150 jobs" in c.value for c in at.caption)


def sidebar_scenario(at: AppTest) -> tuple[Scenario, Scenario]:
    """The scenario the page used, and the one its sidebar's widgets show once drawn."""
    used = at.session_state[keys.PAGE_SETTINGS("explore").name]
    shown = {n.key: n.value for n in at.sidebar if isinstance(n, Widget) and (n.key or "").startswith(keys.EXPLORE)}
    return used, from_widgets(shown, used, uploads.UPLOAD_DEFAULTS)[0]


def record_sent(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, str]]:
    """From now on, every element the app sends: (root container: 0 main, 1 sidebar; element type),
    in sending order."""
    sent: list[tuple[int, str]] = []
    enqueue = ForwardMsgQueue.enqueue

    def record(queue: ForwardMsgQueue, msg: ForwardMsg) -> None:
        if msg.WhichOneof("type") == "delta" and msg.delta.WhichOneof("type") == "new_element":
            sent.append((msg.metadata.delta_path[0], msg.delta.new_element.WhichOneof("type")))
        enqueue(queue, msg)

    monkeypatch.setattr(ForwardMsgQueue, "enqueue", record)
    return sent


def test_the_first_chart_is_sent_before_the_sidebar(monkeypatch: pytest.MonkeyPatch) -> None:
    """A session's first warm run sends the percentile chart before any of the sidebar's elements (whole,
    as AppTests get it), a later run the sidebar first; the widgets, drawn after the scenario was read
    from the session, show the scenario the page used: on a first visit, from a link, on a rerun."""
    warm = app()  # the first run leaves the default scenario's runs in the store: the next one is warm
    assert sidebar_scenario(warm)[0] == Scenario() and sidebar_scenario(warm)[1] == Scenario()
    sent = record_sent(monkeypatch)
    at = app()
    assert_clean(at)
    chart_at = sent.index((0, "plotly_chart"))
    sidebar = [i for i, (root, _) in enumerate(sent) if root == 1]
    assert sidebar and chart_at < sidebar[0]
    assert [kind for root, kind in sent[: sidebar[0]]].count("metric") == 4 * 3  # the trio too
    assert sent[sidebar[-1] + 1 :].count((0, "plotly_chart")) == 1  # the open tab's CDF after the sidebar
    sent.clear()
    at.multiselect(key="x_policies").set_value(["fifo", "fitgpp"]).run()  # a rerun: the browser's value
    assert sidebar_scenario(at)[0].policies == ("fifo", "fitgpp") and len(at.metric) == 2 * 3
    assert sent[0][0] == 1  # the sidebar first
    link = app(source="generate", **{"g.jobs": "150"}, seeds="2", cluster="custom", nodes="3", baseline="k8s", P="1")
    used, shown_scenario = sidebar_scenario(link)
    assert used == shown_scenario and (used.nodes, used.baseline, used.gen, used.seeds) == (
        3,
        "k8s",
        (("jobs", "150"),),
        2,
    )


def sidebar_widgets(at: AppTest) -> list[Widget]:
    return [n for n in at.sidebar if isinstance(n, Widget)]


def test_a_sessions_first_run_holds_the_rest_until_the_first_chart_is_drawn(monkeypatch: pytest.MonkeyPatch) -> None:
    """As in a browser (no SIMCORE_WHOLE_PAGE): a session's first warm run of Explore sends the title,
    the workload line, the toggle, the trio with the percentile chart and last the component that
    answers once the chart is drawn, and not one sidebar element; the next run (its answer's) sends
    the whole page, the component gone, and the widgets show the scenario the first run used."""
    app()  # the default scenario's runs in the store: the next session's first run waits for nothing
    monkeypatch.delenv(first_chart.WHOLE_PAGE_ENV)  # raises if tests/conftest.py spelled it otherwise
    sent = record_sent(monkeypatch)
    at = app()
    assert_clean(at)
    assert all(root != 1 for root, _ in sent) and not sidebar_widgets(at)
    main = [kind for root, kind in sent if root == 0]
    assert main.count("plotly_chart") == 1 and main.count("metric") == 4 * 3 and main.count("checkbox") == 1
    assert main[-1] == "bidi_component" and main.count("bidi_component") == 1
    assert not at.get("download_button") and not at.dataframe and not at.tabs
    assert any("sample demo_seed1.csv" in shown(c) for c in at.caption)  # the workload line
    sent.clear()
    at.run()
    assert_clean(at)
    assert not at.get("bidi_component") and "bidi_component" not in [kind for _, kind in sent]
    assert sidebar_widgets(at) and len(at.get("plotly_chart")) == 2 and at.dataframe and len(at.metric) == 4 * 3
    used, shown_scenario = sidebar_scenario(at)
    assert used == shown_scenario == Scenario()
    at.run()  # and so on: only the first run is held
    assert sidebar_widgets(at) and not at.get("bidi_component")


def test_a_held_first_runs_link_warnings_stay_when_the_rest_comes(monkeypatch: pytest.MonkeyPatch) -> None:
    """A link with an ignored parameter, opened in a browser on a warm server: the held first run
    warns about it, and the run its answer starts warns again (the link was applied by then, so its
    restore finds nothing to warn about: without the carried warnings the page drew the warning and
    took it away a moment later); a later run of the session no longer repeats it."""
    query = {"g.jobs": "abc"}
    app(**query)  # its runs in the store: the next session's first run waits for nothing
    monkeypatch.delenv(first_chart.WHOLE_PAGE_ENV)
    at = app(**query)
    assert_clean(at)
    assert at.get("bidi_component"), "the first run was not held"

    def warned() -> bool:
        return any("link were ignored" in w.value for w in at.warning)

    assert warned()
    at.run()  # the answer's run: the whole page
    assert_clean(at)
    assert not at.get("bidi_component") and warned()
    at.run()
    assert not warned()


def test_a_first_run_without_a_chart_or_that_waited_is_not_held(monkeypatch: pytest.MonkeyPatch) -> None:
    """As in a browser: a session's first run is sent whole, sidebar included, when it shows no chart
    (an upload not given yet, a refusal) or waited for a computation (a progress beat)."""
    from dashboard.runs import data
    from dashboard.shared import demo

    app()  # warm, so only the waiting below makes the third case wait
    monkeypatch.delenv(first_chart.WHOLE_PAGE_ENV)
    upload = app(source="upload")
    assert upload.info and sidebar_widgets(upload) and not upload.get("bidi_component")
    monkeypatch.setenv(demo.ENV_VAR, "1")
    refused = app(cluster="custom", nodes="1000")
    assert refused.error and sidebar_widgets(refused) and not refused.get("bidi_component")
    monkeypatch.delenv(demo.ENV_VAR)
    compare = data.compare

    def waited(*args: Any) -> data.Comparison:  # as a computation does: the progress bar beats first
        args[3](None)
        return compare(*args)

    monkeypatch.setattr(data, "compare", waited)
    computed = app()
    assert_clean(computed)
    assert sidebar_widgets(computed) and len(computed.get("plotly_chart")) == 2
    assert not computed.get("bidi_component")


def _gantt_span(at: AppTest) -> float:
    """Hours of the shown policy's run, rounded up: the end of its last segment."""
    from dashboard.runs import compute, data

    scenario = Scenario()
    workload = data.sample_workload(scenario.sample)
    cluster = data.resolve_cluster(scenario, workload, None)
    run = compute.full_run(workload.table, cluster, scenario.config(at.selectbox(key="x_gantt_policy").value))
    return float(math.ceil(run.segments["end"].max() / 3600))


@pytest.mark.parametrize(
    ("tab", "what"),
    [("Gantt", "gantt"), ("Utilisation and queue", "timeline"), ("Preemptions", None), ("Jobs and downloads", None)],
)
def test_each_result_tab_opens_from_the_url(tab: str, what: str | None) -> None:
    at = app(tab=tab, gantt_window="100,110", gantt_policy="k8s")
    assert_clean(at)
    charts = at.get("plotly_chart")
    assert [c.key for c in charts] == ["percentiles"] + ([what] if what else [])  # beside the trio, then the tab
    if tab == "Gantt":
        # the old link's 10 h window, shown as the control's nearest: 1 d from its quarter-day step (hour 96)
        span = _gantt_span(at)
        assert at.selectbox(key="x_gantt_length").value == 24.0
        assert at.selectbox(key="x_gantt_length").options == ["1 h", "4 h", "8 h", "1 d", "1 week", "whole run"]
        start = at.select_slider(key="x_gantt_start")
        assert start.value == 96.0 and start.options[:3] == ["day 1 00:00:00", "day 1 06:00:00", "day 1 12:00:00"]
        assert start.options[-1] == fmt.clock((span - 24) * 3600)  # the last start ends the window at the run's end
        assert any("Window: day 5 00:00:00 to day 6 00:00:00 (1 d) of a run of" in c.value for c in at.caption)
        assert at.selectbox(key="x_gantt_policy").value == "k8s"
        at.selectbox(key="x_gantt_length").set_value(4.0).run()  # a shorter window, from the same start
        assert_clean(at)
        start = at.select_slider(key="x_gantt_start")
        assert start.value == 96.0 and start.options[1] == "day 1 01:00:00"  # steps of an hour
        assert len(start.options) == span - 4 + 1
        assert at.query_params["gantt_window"] in ("96,100", ["96,100"])
        assert any("Window: day 5 00:00:00 to day 5 04:00:00 (4.0 h) of a run of" in c.value for c in at.caption)
        at.select_slider(key="x_gantt_start").set_value(span - 4).run()
        at.selectbox(key="x_gantt_length").set_value(168.0).run()  # a week from there passes the end: moved back
        assert_clean(at)
        assert at.select_slider(key="x_gantt_start").value == span - 168
        assert at.query_params["gantt_window"] in (f"{span - 168:g},{span:g}", [f"{span - 168:g},{span:g}"])
    if tab == "Jobs and downloads":
        assert len(at.get("download_button")) == 1 + 3 and at.dataframe  # the report's, then the tab's
    if tab == "Preemptions":
        assert at.dataframe


def test_workload_details_open_on_request() -> None:
    at = app()
    at.session_state["workload_details"] = True
    at.run()
    assert_clean(at)
    assert len(at.get("plotly_chart")) == 3  # the histograms join the open tab's two charts


def test_a_bad_url_is_ignored_with_a_notice() -> None:
    at = app(P="many", seeds="99", grace="5")
    assert_clean(at)
    assert at.number_input(key="x_k_P").value == 2 and at.number_input(key="x_k_grace").value == 5
    notice = next(c.value for c in at.code if "ignored" in c.value).splitlines()  # plain text, one a line
    assert len(notice) == 2 and "P='many'" in notice[0] and "seeds='99'" in notice[1]
    assert "ignored" in at.warning[0].value


def test_uploading_a_bad_then_a_good_workload() -> None:
    at = app(source="upload")
    assert_clean(at)
    assert at.info and not at.metric
    at.file_uploader(key="upload_workload").set_value(("broken.csv", BAD_ROW, "text/csv")).run()
    assert not at.exception
    message = at.error[0].value
    assert "broken" in message and "row 3" in message and "duration" in message
    assert not at.metric
    at.file_uploader(key="upload_workload").set_value(("demo.csv", DEMO, "text/csv")).run()
    assert_clean(at)
    assert len(at.metric) == 12
    assert any("upload demo.csv" in shown(c) for c in at.caption)


def test_uploading_a_cluster_file() -> None:
    at = app(cluster="upload")
    at.file_uploader(key="upload_cluster").set_value(
        ("c.yaml", b"nodes: [{count: 2, cpu: 64, mem_gb: 512, gpu: 8}]", "text/yaml")
    ).run()
    assert_clean(at)
    assert any("2 nodes, 16 GPUs" in c.value for c in at.caption)
    at.file_uploader(key="upload_cluster").set_value(("c.yaml", b"nodes: [{count: -1}]", "text/yaml")).run()
    assert not at.exception and "c.yaml" in shown(at.error[0])


def test_parse_workload_upload_directly() -> None:
    table, notes = uploads.parse_workload_upload("demo.csv", DEMO, {})
    assert len(table) == 400 and notes == []
    with pytest.raises(UserError, match="row 3"):
        uploads.parse_workload_upload("broken.csv", BAD_ROW, {})
    table, notes = uploads.parse_workload_upload("broken.csv", BAD_ROW, {"bad_rows": "drop"})
    assert len(table) == 1 and notes
    with pytest.raises(UserError, match="compress arrivals"):
        uploads.parse_workload_upload("demo.csv", DEMO, {"compress": "fast"})
    with pytest.raises(UserError):
        uploads.parse_workload_upload("x.bin", b"\xff\xfe\x00garbage", {})


def test_learn_page_links_each_regime_fact_to_explore() -> None:
    at = AppTest.from_file(APP, default_timeout=60)
    at.switch_page("app_pages/learn.py").run()
    assert_clean(at)
    text = " ".join(m.value for m in at.markdown) + " ".join(i.value for i in at.info)
    assert "reconstruction of the paper's approach" in text and "1902.01613" in text
    facts = regime_facts(learn_numbers())
    assert len(at.get("page_link")) == len(facts)
    for fact in facts:
        scenario, warnings = Scenario.from_query(fact.query)
        assert warnings == [] and scenario == fact.scenario


def test_sweep_page_waits_for_the_button_then_runs_from_a_link() -> None:
    at = AppTest.from_file(APP, default_timeout=120)
    at.switch_page("app_pages/sweep.py").run()
    assert_clean(at)
    assert at.info and not at.get("plotly_chart")
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params.update(
        run="1", knob="grace", values="0,600", seeds="2", workers="1", policies="fifo,k8s", jobs="120"
    )
    at.switch_page("app_pages/sweep.py").run()
    assert_clean(at)
    assert len(at.get("plotly_chart")) == 3  # trio lines, p95 lines, Pareto
    assert at.text_input(key="s_values").value == "0,600"


def test_sweep_page_reports_bad_values() -> None:
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params.update(knob="load", values="0.5,-1")
    at.switch_page("app_pages/sweep.py").run()
    assert not at.exception and at.error


def gantt_spec(at: AppTest) -> str:
    return next(c for c in at.get("plotly_chart") if c.key == "gantt").proto.spec


def test_gantt_steps_through_preemptions_and_stacks_two_policies() -> None:
    at = app(tab="Gantt")
    assert_clean(at)
    assert at.selectbox(key="x_gantt_policy").value == "fitgpp"
    assert at.selectbox(key="gantt_with").value == "fifo"  # the baseline below, on the same time axis
    fig = gantt_spec(at)
    assert '"yaxis2"' in fig and '"fitgpp"' in fig and '"fifo"' in fig
    prev, nxt = at.button
    assert prev.label == "Previous preemption" and nxt.label == "Next preemption"
    window = at.session_state["x_gantt_window"]
    # by default 8 h from an hour before the first preemption's hour (day 1 07:xx), on the window's 2 h steps
    assert at.selectbox(key="x_gantt_length").value == 8.0 and window == (6.0, 14.0)
    assert at.select_slider(key="x_gantt_start").options[:2] == ["day 1 00:00:00", "day 1 02:00:00"]
    assert "Window: day 1 06:00:00 to day 1 14:00:00 (8.0 h) of a run of 32 d 18 h." in [c.value for c in at.caption]
    nxt.click().run()
    assert_clean(at)
    chosen = at.session_state["_gantt_preemption"]
    assert chosen["index"] == 0 and chosen["policy"] == "fitgpp"
    assert 7 * 3600 <= chosen["time"] < 8 * 3600  # the first preemption from the window's start
    lo, hi = at.session_state["x_gantt_window"]
    assert lo * 3600 <= chosen["time"] <= hi * 3600 and hi - lo == window[1] - window[0]  # moved onto it
    assert (lo, hi) == (2.0, 10.0)  # centred it would start in [3, 4) h: down to the 2 h step, in its middle half
    assert at.select_slider(key="x_gantt_start").value == lo and at.selectbox(key="x_gantt_length").value == hi - lo
    assert at.text[0].value.startswith("Preemption 1 of ") and f"BE job {chosen['job_id']}" in at.text[0].value
    table = at.dataframe[-1].value
    assert {"the victim", "same instant"} >= set(table["why"]) and "preempt" in set(table["event"])
    at.button[1].click().run()
    assert at.session_state["_gantt_preemption"]["index"] == 1
    last = _gantt_span(at) - (hi - lo)
    at.select_slider(key="x_gantt_start").set_value(last).run()  # the window moved away, to the run's end
    assert at.session_state["x_gantt_window"] == (last, last + hi - lo) and last * 3600 > chosen["time"]
    at.button[0].click().run()
    assert at.session_state["_gantt_preemption"]["index"] == 0
    assert at.session_state["x_gantt_window"] == (lo, hi)  # back onto the chosen preemption
    at.button[0].click().run()  # nothing before the first: a notice, the choice stays
    assert_clean(at)
    assert at.session_state["_gantt_preemption"]["index"] == 0 and "No preemption before" in at.info[0].value
    at.selectbox(key="gantt_zoom").set_value(3600.0).run()
    assert_clean(at)
    import pandas as pd

    from dashboard.shared.gantt_views import GANTT_EPOCH

    t = at.session_state["_gantt_preemption"]["time"]
    shown = [pd.Timestamp(x) for x in chart_spec(at, "gantt")["layout"]["xaxis"]["range"]]
    assert shown == [GANTT_EPOCH + pd.Timedelta(seconds=t - 1800), GANTT_EPOCH + pd.Timedelta(seconds=t + 1800)]
    at.selectbox(key="gantt_with").set_value("(none)").run()
    assert '"yaxis2"' not in gantt_spec(at)  # one policy alone
    at.selectbox(key="x_gantt_policy").set_value("k8s").run()  # another policy: the choice is dropped
    assert_clean(at)
    assert at.session_state["_gantt_preemption"] is None
    at.multiselect(key="x_gantt_nodes").set_value(["demo-1"]).run()
    assert_clean(at)
    assert at.query_params["gantt_nodes"] in ("demo-1", ["demo-1"])


def test_several_seeds_show_their_spread_and_name_the_seed_of_single_runs() -> None:
    at = app(source="generate", preset="demo", **{"g.jobs": "120"}, policies="fifo,fitgpp", seeds="3")
    assert_clean(at)
    bars = chart_spec(at, "percentiles")["data"]
    te_p95 = next(t for t in bars if t["name"] == "p95" and t.get("xaxis", "x") == "x")
    assert "arrayminus" in te_p95["error_y"]  # whiskers: lowest to highest seed
    lows = [y - m for y, m in zip(te_p95["y"], te_p95["error_y"]["arrayminus"], strict=True)]
    assert min(lows) >= 1.0
    captions = " ".join(c.value for c in at.caption)
    assert "mean over 3 seeds" in captions and "Seed 0 shown" in captions  # the CDF is one seed's
    assert f"in brackets its {BOOTSTRAP_NAME}" in captions  # the cards name their spread
    fitgpp = [m.delta for m in at.metric][3:]  # fifo's three cards, then fitgpp's
    assert all(re.fullmatch(r"[+-]\d+\.\d% \[[+-]\d+\.\d, [+-]\d+\.\d\]", d) for d in fitgpp), fitgpp
    at = app(source="generate", preset="demo", **{"g.jobs": "120"}, policies="fifo,fitgpp", seeds="3", tab="Gantt")
    assert any("Seed 0 shown" in c.value for c in at.caption)


def test_sweep_defaults_to_load_and_log_axes_can_be_switched_off() -> None:
    at = AppTest.from_file(APP, default_timeout=120)
    at.switch_page("app_pages/sweep.py").run()
    assert at.selectbox(key="s_knob").value == "load"
    at = AppTest.from_file(APP, default_timeout=180)
    at.query_params.update(run="1", values="0.8,1.2", seeds="2", workers="1", policies="fifo,fitgpp", jobs="100")
    at.switch_page("app_pages/sweep.py").run()
    assert_clean(at)
    assert [c.key for c in at.get("plotly_chart")] == ["sweep_p95", "pareto", "sweep_trio"]
    p95 = chart_spec(at, "sweep_p95")
    assert p95["layout"]["yaxis"]["type"] == "log" and chart_spec(at, "pareto")["layout"]["xaxis"]["type"] == "log"
    # the rows the page drew (the server's shared store): the whiskers are simcore.analysis.stats' interval of their mean
    rows = data.stored_sweep(sweeps.SweepSettings.from_query(dict(at.query_params))[0].spec())
    assert rows is not None
    for trace in p95["data"]:
        metric = "TE_slowdown_p95" if trace.get("xaxis", "x") == "x" else "BE_slowdown_p95"
        for value, y, up, down in zip(
            trace["x"], trace["y"], trace["error_y"]["array"], trace["error_y"]["arrayminus"], strict=True
        ):
            seeds = rows[(rows["policy"] == trace["name"]) & (rows["load"] == value)][metric]
            _n, mean, lo, hi = bootstrap_mean(seeds)
            assert (y, y - down, y + up) == pytest.approx((mean, lo, hi))
    assert any(BOOTSTRAP_NAME in c.value for c in at.caption) and BOOTSTRAP_NAME in p95["data"][0]["hovertemplate"]
    at.toggle(key="sweep_log").set_value(False).run()
    assert_clean(at)
    assert chart_spec(at, "sweep_p95")["layout"]["yaxis"].get("type") != "log"
    assert chart_spec(at, "pareto")["layout"]["xaxis"]["type"] == "linear"


def test_an_upload_over_the_demo_byte_cap_is_refused_by_its_size(monkeypatch: pytest.MonkeyPatch) -> None:
    from dashboard.shared import demo

    monkeypatch.setenv(demo.ENV_VAR, "1")
    at = app(source="upload")
    too_big = DEMO + b"#" * (demo.DEMO.upload_bytes - len(DEMO) + 1)  # one byte over the cap
    at.file_uploader(key="upload_workload").set_value(("big.csv", too_big, "text/csv")).run()
    assert not at.exception
    refusal = " ".join(shown(e) for e in at.error)
    assert f"({demo.DEMO.upload_bytes} bytes)" in refusal and "big.csv" in refusal  # the file and the limit
    assert "simcore compare big.csv" in refusal  # and the command that runs it locally
    assert not at.metric


def test_decision_view_explains_each_preemption_by_contrast() -> None:
    """The default sample's first 8 fitgpp preemptions (issue 33): each is told against k8s's choice on
    the same state, "the same" only where it is, else with the key value that separated them and both
    values; not one credits the earliest start where the past preemptions told the sets apart."""
    records = default_sample_steps(8)
    at = app(tab="Gantt")
    differ = 0
    for record in records:
        next(b for b in at.button if b.label == "Next preemption").click().run()
        assert_clean(at)
        chosen = at.session_state["_gantt_preemption"]
        assert (chosen["job_id"], chosen["node"]) == (record["victims"][0], record["node"])
        text = at.text[1].value
        words = text.splitlines()
        assert re.fullmatch(
            rf"TE job {record['te_job']} needed (1 GPU|\d+ GPUs) and fitted on no node at {fmt.clock(record['time'])}\.",
            words[0],
        )
        assert words[1].startswith(f"fitgpp took node {record['node']}: 1 victim (BE job {chosen['job_id']})")
        assert_contrastive(text, record, "k8s")
        assert_contrastive(text, record, "lrtp")
        differ += sorted(record["same_state"]["k8s"]["victims"]) != sorted(record["victims"])
        # one row per set, the chosen one first, each other told apart from it
        candidates = next(d.value for d in at.dataframe if "against the chosen set" in d.value.columns)
        assert candidates["chosen"].tolist()[0] and candidates["node"].iloc[0] == record["node"]
        assert (candidates["against the chosen set"].iloc[1:] != "").all()
    assert differ >= 2  # preemptions 2 and 3: k8s takes the job fitgpp spares for its past preemption
    other = at.selectbox(key="decision_other").value
    assert other == "k8s" and at.text[1].value.splitlines()[-2].startswith("In k8s's own run")
    glossary = next(d.value for d in at.dataframe if "principle" in d.value.columns)  # each key value, defined
    assert glossary["value"].tolist() == [c for c in candidates.columns if c not in decision_text.SET_COLUMNS]


def test_the_generator_offers_paper_gang() -> None:
    at = app(source="generate", preset="paper-gang", **{"g.jobs": "150", "g.nodes": "4"}, policies="fifo,fitgpp")
    assert_clean(at)
    assert "paper-gang" in at.selectbox(key="x_preset").options
    assert at.selectbox(key="x_preset").value == "paper-gang"
    assert len(at.metric) == 2 * 3


def test_worth_panel_plots_every_policy_and_jumps_to_a_decision_on_the_gantt() -> None:
    at = app(tab="Was it worth it?")
    assert_clean(at)
    points = {t["name"]: (t["x"][0], t["y"][0]) for t in chart_spec(at, "worth")["data"]}
    assert list(points) == ["fifo", "priority", "k8s", "fitgpp"]
    assert points["fifo"] == (0.0, 0.0)  # the baseline saves nothing and preempts nobody
    assert points["priority"][0] == 0.0 and points["fitgpp"][1] > points["priority"][1] > 0  # TE waits saved
    assert points["fitgpp"][0] > 0  # grace and restore of its preemptions (on_preempt loses no work)
    worst = at.dataframe[0].value
    assert 0 < len(worst) <= 10 and set(worst["policy"]) <= {"k8s", "fitgpp"}
    # wasted ones first (the default sample has one), then the most excess GPUs
    wasted = worst["wasted"].tolist()
    assert wasted == sorted(wasted, reverse=True) and wasted.count(True) == 1
    excess = worst.loc[~worst["wasted"], "excess GPUs"].tolist()
    assert excess == sorted(excess, reverse=True)
    second = worst.iloc[1]  # its instant as the Gantt's time axis reads it, not raw seconds
    at_s = (second["time"] - views.ORIGIN).total_seconds()  # the table's instant: a day and a clock on the page
    assert at.selectbox(key="worth_decision").options[1] == f"2. {second['policy']} at {fmt.clock(at_s)}"
    at.selectbox(key="worth_decision").set_value(1).run()
    next(b for b in at.button if b.label == "Show on the Gantt").click().run()
    assert_clean(at)
    chosen, row = at.session_state["_gantt_preemption"], worst.iloc[1]
    assert at.session_state["x_tab"] == "Gantt" and at.selectbox(key="x_gantt_policy").value == row["policy"]
    assert chosen["time"] == at_s and chosen["job_id"] == row["victims"].split(", ")[0]
    assert at.text[0].value.startswith("Preemption ") and f"({row['policy']})" in at.text[0].value
    words = at.text[1].value.splitlines()
    assert words[0].startswith(f"TE job {row['TE job']} ")  # its decision record
    assert words[-1].startswith(f"This decision freed {row['excess GPUs']:g} GPUs more than the TE job lacked")


def test_pooled_bound_toggle_draws_dashed_reference_lines() -> None:
    at = app(tab="Slowdown")
    at.toggle(key="x_bound").set_value(True).run()
    assert_clean(at)
    bound = [t for t in chart_spec(at, "percentiles")["data"] if t["name"].startswith("ideal (bound)")]
    assert [t["name"] for t in bound if t.get("xaxis", "x") == "x"] == [
        f"ideal (bound) {s}" for s in ("p50", "p95", "p99")
    ]
    assert all(t["line"]["dash"] == "dash" and len(set(t["y"])) == 1 for t in bound)
    cdf = [t for t in chart_spec(at, "cdf")["data"] if t["name"] == "ideal (bound)"]
    assert len(cdf) == 2 and all(t["line"]["dash"] == "dash" for t in cdf)
