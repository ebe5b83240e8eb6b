"""The demo's messages, finished (issue 33, point 5): a link's notice quotes the range of the demo, not of the
command line; no limit's code name reaches a visitor; counts take their plural; the refusal of a sweep names
every limit it is over at once. Through AppTest on the pages, and the message builders on their own."""

from __future__ import annotations

import re

import pytest
from helpers.apptest import APP, DEMO, chart_spec
from helpers.readable import codes, text_problems
from streamlit.testing.v1 import AppTest

from dashboard.runs import budget, data
from dashboard.shared import demo, uploads
from dashboard.sweep import sweeps, uploaded


@pytest.fixture
def demo_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(demo.ENV_VAR, "1")


def _open(page: str | None = None, **query: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=300)
    if page:
        at.switch_page(page)
    at.query_params.update(query)
    return at.run()


def _said(at: AppTest) -> str:
    """Everything the page says in its notices, errors and code blocks, as plain text."""
    kinds = ("error", "warning", "info", "caption", "code", "markdown")
    return re.sub(r"\\(.)", r"\1", "\n".join(str(e.value) for kind in kinds for e in at.get(kind)))


def test_a_links_numbers_beyond_the_demo_are_ignored_with_the_demos_range(demo_on: None) -> None:
    """The review's link (g.jobs=100000000 on the generator) said "1 to 10000000", the command line's range,
    where the demo runs 20,000 jobs; a value the page could take but the demo cannot is refused, in words,
    with the command that runs it elsewhere."""
    at = _open(source="generate", seeds="11", **{"g.jobs": "100000000", "g.nodes": "1e9"})
    notice = next(c.value for c in at.code if "ignored" in c.value)
    assert "link parameter g.jobs='100000000' ignored: this demo runs 1 to 20,000 jobs" in notice
    assert "link parameter seeds='11' ignored: this demo runs 1 to 5 seeds" in notice
    assert "link parameter g.nodes='1e9' ignored: this demo runs 1 to 256 nodes" in notice
    assert "1 to 10000000" not in notice and not at.error  # the rest of the link ran: the generator's defaults
    assert len(at.metric) == 12
    refused = _said(_open(source="generate", seeds="10"))
    assert "Over the limits of this demo:\n\n- 10 seeds: more than 5" in refused and "max_seeds" not in refused
    sweep = _open("app_pages/sweep.py", seeds="11")
    assert "link parameter seeds='11' ignored: this demo runs 1 to 5 seeds" in _said(sweep)


def test_the_sweep_refusal_names_every_limit_it_is_over_in_words(demo_on: None) -> None:
    """Seven values (the limit 6), six seeds (5), 50,000 nodes (256) and the job-runs (200,000), at once."""
    at = _open("app_pages/sweep.py")
    at.selectbox(key="s_knob").set_value("nodes").run()
    at.text_input(key="s_values").set_value("1,2,3,4,5,6,50000").run()
    at.number_input(key="s_seeds").set_value(6).run()
    at.text_input(key="s_jobs").set_value("20000").run()
    refusal = _said(at)
    assert "Over the limits of this demo:" in refusal
    for line in (
        "- 7 sweep values: more than 6",
        "- 6 seeds: more than 5",
        "- 50,000 nodes: more than 256",
        "job-runs (jobs x policies x seeds x values): more than 200,000",
    ):
        assert line in refusal, line
    assert "simcore sweep --preset demo --set jobs=20000 --grid nodes=1,2,3,4,5,6,50000 --seeds 6" in refusal
    assert [c for c in codes() if c in refusal] == [] and text_problems([refusal]) == []


def test_no_limit_is_named_by_its_code_in_what_a_visitor_reads() -> None:
    """Every builder of a message about a limit, at the demo's limits."""
    lim = demo.DEMO
    messages = [
        str(budget.busy(lim, 2, 40, "simcore compare x.csv")),
        str(budget.busy(lim, 1, 1, "")),
        str(budget.timed_out("This sweep", lim, "simcore sweep", wall=True)),
        str(budget.timed_out("This sweep", lim, "simcore sweep", wall=False)),
        demo.reach(lim),
        demo.in_range_here("link parameter g.jobs='1e9' ignored: parameter jobs: 1e+09 is out of range", lim),
    ]
    with pytest.raises(budget.Refused) as refused:
        budget.check_run(sweeps_scenario(), 30_000, 300, lim)
    messages.append(str(refused.value))
    for message in messages:
        assert [name for name in demo.MEANING if "_" in name and name in message] == [], message
    assert "1 computation running and 1 visitor waiting in line" in messages[1]  # no "1 visitors"
    assert "2 computations running and 40 visitors waiting in line, as many as this demo lets wait (40)" in messages[0]
    assert "took longer than 10.0 min, the longest this demo lets a computation last" in messages[2]
    assert "needed more than 60 s of CPU time, the most this demo gives a computation" in messages[3]


def sweeps_scenario():  # an upload compared under 7 policies: over two limits
    from dashboard.shared.scenario import Scenario

    return Scenario(source="upload", policies=("fifo",) * 7)


def test_the_sweep_page_sweeps_an_uploaded_file_with_an_interval_from_resampling_it() -> None:
    """Your own workload on the Sweep page: its cluster's size over a list around the size it is busy on,
    each seed a bootstrap of its jobs; the whiskers run from the lowest to the highest of the draws."""
    at = _open("app_pages/sweep.py")
    at.radio(key="s_source").set_value("upload").run()
    assert at.selectbox(key="s_knob").value == "nodes" and at.text_input(key="s_values").value == ""
    at.file_uploader(key="sweep_upload").set_value(("my_lab.csv", DEMO, "text/csv")).run()
    at.multiselect(key="s_policies").set_value(["fifo", "fitgpp"]).run()
    at.number_input(key="s_seeds").set_value(2).run()
    next(b for b in at.button if b.label == "Run sweep").click().run()
    assert not at.exception and not at.error, [e.value for e in (*at.exception, *at.error)]
    caption = next(c.value for c in at.caption if "my\\_lab" in c.value or "my_lab" in c.value)
    # 400 jobs of the demo sized to an offered GPU load of 0.9 on 8-GPU nodes: 4 nodes; around it 3 to 6
    assert "400 jobs, drawn again for each seed" in caption and "{3,4,5,6}" in re.sub(r"\\(.)", r"\1", caption)
    assert any("a bootstrap" in c.value and "lowest to the highest" in c.value for c in at.caption)
    settings, _ = sweeps.SweepSettings.from_query(dict(at.query_params))
    assert settings.source == "upload" and "run" in dict(at.query_params)
    assert any("The uploaded file is not in it" in c.value for c in at.caption)  # the link says so
    p95 = chart_spec(at, "sweep_p95")
    fitgpp = next(t for t in p95["data"] if t["name"] == "fitgpp" and t.get("xaxis", "x") == "x")
    assert fitgpp["x"] == [3, 4, 5, 6]
    # the rows the page drew (the shared store), the whiskers the lowest and the highest of the two draws
    table, _ = uploads.parse_workload_upload("my_lab.csv", DEMO, {})
    source = uploaded.upload_source("my_lab.csv", DEMO, table, settings, 4)
    rows = data.stored_sweep(settings.spec(source, uploaded.sized_values(4)))
    assert rows is not None and set(rows["seed"]) == {0, 1}
    bars = fitgpp["error_y"]
    for x, y, up, down in zip(fitgpp["x"], fitgpp["y"], bars["array"], bars["arrayminus"], strict=True):
        draws = rows[(rows["policy"] == "fitgpp") & (rows["nodes"] == x)]["TE_slowdown_p95"]
        assert (y, y - down, y + up) == pytest.approx((draws.mean(), draws.min(), draws.max())), x
    numbers = at.dataframe[-1].value
    assert set(numbers["policy"]) == {"fifo", "fitgpp"} and list(numbers.columns[:2]) == ["nodes", "policy"]
