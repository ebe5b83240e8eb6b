"""Hosting in public, through AppTest from the entry point: crafted links, demo mode on and off.

The exploit of issue 12 (a Dask address in a share link made the server unpickle a hostile
scheduler's results) is a regression test here: a listener on 127.0.0.1 must never be contacted.
"""

from __future__ import annotations

import ast
import re
import time
import tomllib
from collections.abc import Iterator
from dataclasses import replace

import pytest
from helpers.hosting import Listener
from helpers.paths import APP, ROOT
from streamlit.runtime.scriptrunner import magic
from streamlit.testing.v1 import AppTest

from dashboard.runs import data, worker
from dashboard.shared import demo

TABS = ("Slowdown", "Gantt", "Utilisation and queue", "Preemptions", "One job", "Jobs and downloads")
MARKDOWN_KINDS = ("markdown", "caption", "warning", "error", "info", "success", "toast", "title", "subheader")


@pytest.fixture(params=[True, False], ids=["demo", "local"])
def demo_mode(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> bool:
    if request.param:
        monkeypatch.setenv(demo.ENV_VAR, "1")
    else:
        monkeypatch.delenv(demo.ENV_VAR, raising=False)
    return bool(request.param)


@pytest.fixture
def demo_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(demo.ENV_VAR, "1")


def open_page(page: str, **query: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params.update(query)
    if page != "explore":
        at.switch_page(f"app_pages/{page}.py")
    return at.run()


def assert_no_exception(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]


def plain(value: str) -> str:
    return re.sub(r"\\(.)", r"\1", value)


@pytest.fixture
def listener() -> Iterator[Listener]:
    lst = Listener()
    yield lst
    lst.close()


# --- 1. never deserialize from a place a visitor names ------------------------------------------


def test_a_dask_address_in_a_link_is_never_contacted(demo_mode: bool, listener: Listener) -> None:
    address = f"tcp://127.0.0.1:{listener.port}"
    link = dict(run="1", dask=address, knob="grace", values="0,600", seeds="1", policies="fifo", jobs="60")
    at = open_page("sweep", **link)
    assert_no_exception(at)
    assert not at.get("plotly_chart")  # a link with an address starts nothing
    codes = [c.value for c in at.code]
    if demo_mode:
        assert any(f"dask={address!r} ignored" in c for c in codes)
        assert not [b for b in at.button if b.label == "Use this Dask scheduler"]
        assert "s_dask" not in [t.key for t in at.text_input] and "s_workers" not in [n.key for n in at.number_input]
    else:
        assert address in codes  # shown in full, as plain text, before anyone accepts it
        assert [b for b in at.button if b.label == "Use this Dask scheduler"]
        assert at.text_input(key="s_dask").value == ""
    # the visitor runs the sweep without accepting the address: it runs here, on local processes
    next(b for b in at.button if b.label == "Run sweep").click().run()
    assert_no_exception(at)
    assert len(at.get("plotly_chart")) == 3
    # the run above has ended, sweep included: any connection it made has been counted
    assert listener.connections == 0


def test_outside_demo_mode_an_address_from_a_link_is_used_only_after_a_click(
    monkeypatch: pytest.MonkeyPatch, listener: Listener
) -> None:
    monkeypatch.delenv(demo.ENV_VAR, raising=False)
    address = f"tcp://127.0.0.1:{listener.port}"
    at = open_page("sweep", dask=address, knob="grace", values="0,600", seeds="1", policies="fifo", jobs="61")
    assert at.text_input(key="s_dask").value == ""
    next(b for b in at.button if b.label == "Use this Dask scheduler").click().run()
    assert_no_exception(at)
    assert at.text_input(key="s_dask").value == address  # accepted: the field now holds it
    assert not [b for b in at.button if b.label == "Use this Dask scheduler"]
    assert any(address in plain(c.value) for c in at.caption)  # "on the Dask scheduler tcp://..."
    assert not at.get("plotly_chart") and listener.connections == 0  # still waiting for Run sweep


def test_demo_mode_ignores_worker_counts_and_scheduler_fields(demo_on: None, listener: Listener) -> None:
    at = open_page("sweep", workers="64", dask="local")
    assert_no_exception(at)
    notice = next(c.value for c in at.code if "ignored" in c.value)
    assert "workers=64 ignored" in notice and "dask='local' ignored" in notice
    assert any("Sweeps run in one process of this server here." in c.value for c in at.caption)


# --- 2. bounded work: refused before it starts, with the limit and the local command -------------


@pytest.mark.parametrize(
    ("page", "query", "limit"),
    [
        ("explore", {"cluster": "custom", "nodes": "1000"}, "max_nodes"),
        ("explore", {"source": "generate", "g.jobs": "1e6"}, "max_jobs"),
        ("explore", {"source": "generate", "g.nodes": "1000"}, "max_nodes"),
        ("explore", {"source": "generate", "seeds": "10"}, "max_seeds"),
        ("explore", {"source": "generate", "g.jobs": "20000", "seeds": "3"}, "budget"),
        ("sweep", {"knob": "nodes", "values": "2,1000"}, "max_nodes"),
        ("sweep", {"jobs": "1000000"}, "max_jobs"),
        ("sweep", {"knob": "load", "values": "0.5,0.6,0.7,0.8,0.9,1,1.1"}, "max_sweep_values"),
        ("sweep", {"jobs": "20000", "seeds": "5", "run": "1"}, "budget"),
    ],
)
def test_crafted_links_are_refused_quickly_in_demo_mode(
    demo_on: None, page: str, query: dict[str, str], limit: str
) -> None:
    start = time.monotonic()
    at = open_page(page, **query)
    assert time.monotonic() - start < 30  # refused before any work: a 1e9-node cluster would take minutes
    assert_no_exception(at)
    message = plain(at.error[0].value)
    assert f": more than {getattr(demo.DEMO, limit):,}" in message and limit not in message  # in words
    assert any(c.value.startswith("simcore ") for c in at.code)  # the command that runs it locally
    assert not at.metric and not at.get("plotly_chart")


@pytest.mark.parametrize(
    ("page", "query", "said"),
    [
        ("explore", {"cluster": "custom", "nodes": "1000000000"}, "nodes='1000000000' ignored"),
        ("explore", {"source": "generate", "g.jobs": "1e8"}, "g.jobs='1e8' ignored"),
        ("explore", {"source": "generate", "g.nodes": "1e9"}, "g.nodes='1e9' ignored"),
        ("sweep", {"knob": "nodes", "values": "2,1000000000"}, "nodes"),
        ("sweep", {"jobs": "100000000"}, "jobs"),
    ],
)
def test_links_beyond_simcores_own_ranges_are_neutralised_quickly(
    demo_on: None, page: str, query: dict[str, str], said: str
) -> None:
    """Values no simcore command accepts either (1e9 nodes, 1e8 jobs) are not refused with a
    local command to run: the link parameter is ignored, quoting the range this demo runs (Explore, issue
    33: not the command line's), or simcore's range is named (a sweep's value)."""
    start = time.monotonic()
    at = open_page(page, **query)
    assert time.monotonic() - start < 30
    assert_no_exception(at)
    shown = " ".join(plain(x.value) for x in (*at.warning, *at.error, *at.code, *at.text))
    assert said in shown
    if page == "explore":
        assert "this demo runs 1 to 256 nodes" in shown or "this demo runs 1 to 20,000 jobs" in shown, shown
    else:
        assert "100,000" in shown or "10,000,000" in shown or "100000" in shown or "10000000" in shown


def test_sweeps_never_start_from_a_link_in_demo_mode_but_a_finished_one_is_shared(demo_on: None) -> None:
    link = dict(run="1", knob="grace", values="0,300", seeds="1", policies="fifo,k8s", jobs="70")
    first = open_page("sweep", **link)
    assert_no_exception(first)
    assert not first.get("plotly_chart") and any("run=1 ignored" in c.value for c in first.code)
    next(b for b in first.button if b.label == "Run sweep").click().run()
    assert len(first.get("plotly_chart")) == 3
    # a second visitor of the same link sees the stored result at once, and starts nothing
    runs = []
    second = AppTest.from_file(APP, default_timeout=120)
    second.query_params.update(link)
    second.switch_page("app_pages/sweep.py")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(worker, "run", lambda *a, **k: runs.append(1) or pytest.fail("recomputed"))
        second.run()
    assert_no_exception(second)
    assert len(second.get("plotly_chart")) == 3 and runs == []


def test_a_computation_over_the_time_limit_is_stopped_cleanly(demo_on: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(demo, "DEMO", replace(demo.DEMO, run_seconds=0.5, cache_mb=7))
    at = open_page("explore", source="generate", **{"g.jobs": "8000"}, seed="4242")
    assert_no_exception(at)
    message = plain(at.error[0].value)
    assert "needed more than 0.5 s of CPU time, the most this demo gives a computation" in message
    assert "stopped" in message
    assert any(c.value.startswith("simcore generate") for c in at.code)
    assert not at.metric


def test_identical_scenarios_are_computed_once_for_every_visitor(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(demo.ENV_VAR, raising=False)
    calls = []
    real = worker.run

    def counting(*args: object, **kwargs: object) -> object:
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(worker, "run", counting)
    query = {"source": "generate", "g.jobs": "90", "seed": "5150", "policies": "fifo,fitgpp"}
    first = open_page("explore", **query)
    second = open_page("explore", **query)  # another session, same scenario
    assert_no_exception(second)
    assert calls == [1]
    assert [m.value for m in first.metric] == [m.value for m in second.metric]
    third = open_page("explore", **{**query, "policies": "fifo,fitgpp,k8s"})  # only k8s is new
    assert_no_exception(third)
    assert len(calls) == 2 and len(third.metric) == 9


def test_memory_stays_bounded_across_many_distinct_scenarios(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(demo.ENV_VAR, "1")
    monkeypatch.setattr(demo, "DEMO", replace(demo.DEMO, cache_mb=3))
    # uncapped, one scenario stores about 3.9 MB (9 entries) and four 8.8 MB (24): the 3 MB cap is at
    # work from the first scenario on, so four are enough (docs/history/test-suite.md#the-other-tests-cost-round-6)
    for seed in range(4):
        at = open_page("explore", source="generate", **{"g.jobs": "300"}, seed=str(900 + seed))
        assert_no_exception(at)
        assert len(at.metric) == 12
        assert 0 < data._store().bytes <= 3_000_000
    assert len(data._store()) < 20  # older runs were dropped (24 entries uncapped)


# --- 4. no injection, no disclosure --------------------------------------------------------------


def _markdown_texts(at: AppTest) -> list[str]:
    return [str(e.value) for kind in MARKDOWN_KINDS for e in at.get(kind)]


@pytest.mark.parametrize(
    ("page", "query"),
    [
        ("explore", {"P": "[x](http://127.0.0.1:1/t.png)", "tab": "![i](http://127.0.0.1:1/i.png)"}),
        ("explore", {"source": "generate", "g.jobs": "![i](http://127.0.0.1:1/i.png)", "g.te_share": "www.a.io"}),
        ("explore", {"gantt_nodes": "[x](http://127.0.0.1:1/n)", "baseline": "<img src=http://127.0.0.1:1/b>"}),
        ("sweep", {"values": "[x](http://127.0.0.1:1/t.png)", "knob": "grace"}),
        ("sweep", {"jobs": "![i](http://127.0.0.1:1/i.png)", "policies": "fifo,[x](http://127.0.0.1:1/p)"}),
    ],
)
def test_link_text_is_never_rendered_as_markdown(demo_mode: bool, page: str, query: dict[str, str]) -> None:
    at = open_page(page, **query)
    assert_no_exception(at)
    for text in _markdown_texts(at):
        bare = re.sub(r"(`+).+?\1", "", text)  # code spans show their text as it is
        assert "http://" not in bare and "](" not in bare and "<img" not in bare and "www.a" not in bare, text
    shown = " ".join(plain(t) for t in _markdown_texts(at)) + " ".join(c.value for c in at.code)
    assert "http://127.0.0.1:1/" in shown or "www.a.io" in shown  # still shown, as plain text


def test_error_details_are_off_in_the_deployed_config() -> None:
    """``"none"``: Streamlit's value that shows no type, message or trace of an uncaught error
    (``false``, its legacy value, means "stacktrace": the trace with its server paths)."""
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert config["client"]["showErrorDetails"] == "none"


# each page's first call into the project, made to fail with a message naming a server path
FAILING = {
    "explore": ("dashboard.shared.state", "restore"),
    "sweep": ("dashboard.shared.state", "restore"),
    "learn": ("dashboard.learn.learn_numbers", "learn_numbers"),
}


@pytest.mark.parametrize("page", list(FAILING))
def test_an_uncaught_error_shows_no_path_or_source_line(page: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """An error no page catches, under the served config (AppTest reads ``.streamlit/config.toml``
    from the project root, like ``streamlit run``): the page shows Streamlit's generic notice,
    without the error's type, message (here a server path) or any traceback line."""
    import importlib

    from streamlit import config

    assert config.get_option("client.showErrorDetails") == "none"  # read from the project's file
    secret = f"{ROOT}/simcore/secret.py, line 12"

    def fail(*args: object, **kwargs: object) -> None:
        raise RuntimeError(f"cannot read {secret}")

    module, name = FAILING[page]
    monkeypatch.setattr(importlib.import_module(module), name, fail)
    at = open_page(page)
    [shown] = at.exception
    assert "error" in shown.message and not shown.stack_trace and not shown.proto.type
    assert str(ROOT) not in str(shown.proto) and "line 12" not in str(shown.proto)


def test_magic_is_off_and_no_page_would_show_anything_through_it() -> None:
    """Magic is off (a lone visitor's pages are compiled again, docs/dashboard.md#speed), which
    changes no page: Streamlit's own rewrite finds no expression to display in the entry point
    or any page (one that relied on magic would show nothing now)."""
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert config["runner"]["magicEnabled"] is False
    scripts = [ROOT / "dashboard" / "streamlit_app.py", *sorted((ROOT / "dashboard" / "app_pages").glob("*.py"))]
    assert len(scripts) == 4
    for script in scripts:
        rewritten = ast.dump(magic.add_magic(script.read_text(encoding="utf-8"), str(script)))
        assert magic.MAGIC_MODULE_NAME in rewritten  # the rewrite ran (its import)
        assert "transparent_write" not in rewritten, f"{script.name} relies on magic"


DEGENERATE = {
    "unschedulable": {"cluster": "custom", "nodes": "4", "node_cpu": "0", "node_gpu": "0"},  # no job schedulable
    "no-TE": {"source": "generate", "g.te_share": "0", "g.jobs": "60"},
    "no-BE": {"source": "generate", "g.te_share": "1", "g.jobs": "60"},
    "no-preemption": {"policies": "fifo,priority"},
    "one-job": {"source": "generate", "g.jobs": "1", "policies": "fifo,fitgpp"},
}


@pytest.mark.parametrize(
    ("case", "tab"),
    [
        pytest.param(case, tab, id=f"{name}-{tab}")
        for name, case in DEGENERATE.items()
        # with no job schedulable the page says so and stops before its tabs: one tab asked for is
        # enough, the others would run the same lines (docs/history/test-suite.md#round-7)
        for tab in (TABS[-1:] if name == "unschedulable" else TABS)
    ],
)
def test_degenerate_scenarios_show_every_tab_without_an_exception(case: dict[str, str], tab: str) -> None:
    at = open_page("explore", **case, tab=tab)
    assert_no_exception(at)
    assert not at.error, [e.value for e in at.error]
    if case.get("node_gpu") == "0":
        assert any("No job fits on any node" in i.value for i in at.info)
        assert not at.tabs  # stopped before the tabs: none is drawn, whichever the link asks for
    else:
        assert at.metric
