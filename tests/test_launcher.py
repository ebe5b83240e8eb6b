"""``python -m dashboard`` (dashboard/__main__.py, what ``make run`` starts): it warms the default
page before serving, serves the app, and still serves when the warm-up fails."""

from __future__ import annotations

import ast
import gc
import logging
import textwrap
import urllib.request
import weakref
from pathlib import Path
from typing import Any

import pytest
from helpers.browser import ARTIFACTS, MAKE_RUN, serve
from streamlit.testing.v1 import AppTest
from streamlit.web import bootstrap

import dashboard.__main__ as launcher
from dashboard.runs import data, warmup, worker

FAILED = "warm-up before serving failed (RuntimeError: no warm-up today); starting the server anyway"
# the launcher with a warm-up that fails, as a command (python -c)
FAIL = "import dashboard.__main__ as m\ndef boom():\n    raise RuntimeError('no warm-up today')\nm.prepare = boom\nm.main()\n"


def test_the_modules_a_script_imports_are_found_by_name(tmp_path: Path) -> None:
    script = tmp_path / "page.py"
    script.write_text(
        textwrap.dedent(
            """\
            import numpy as np
            from dashboard.explore import charts, explore_results
            from simcore.core.errors import UserError
            from . import sibling
            def later():
                import scipy
            """
        )
    )
    assert launcher.imported_modules(script) == [
        "numpy",
        "dashboard.explore",
        "dashboard.explore.charts",
        "dashboard.explore.explore_results",
        "simcore.core.errors",  # UserError is a name in it, not a module
    ]


def test_the_page_warmed_is_the_apps_default_page() -> None:
    calls = [n for n in ast.walk(ast.parse(launcher.APP.read_text(encoding="utf-8"))) if isinstance(n, ast.Call)]
    defaults = [
        c.args[0].value  # type: ignore[attr-defined]
        for c in calls
        if any(k.arg == "default" and isinstance(k.value, ast.Constant) and k.value.value is True for k in c.keywords)
    ]
    assert [launcher.APP.parent / page for page in defaults] == [launcher.DEFAULT_PAGE]


def test_prepare_fills_the_store_before_any_visitor(fresh_store: None) -> None:
    launcher.prepare()
    found = data.default_scenario()
    assert found is not None
    keys, _args = warmup.work(*found)
    assert all(data._store().get(k) is not None for k in keys)
    thread = data.warm_default()  # what the app's first script run calls: the same, done
    assert thread is not None and not thread.is_alive()


def test_a_visit_after_the_warm_up_asks_no_worker_for_anything(
    fresh_store: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The default Explore page after the warm-up: its runs come from the store (no worker call,
    so no simulation) and its first render draws its two charts."""
    launcher.prepare()
    asked: list[Any] = []
    monkeypatch.setattr(worker, "run", lambda fn, *_args, **_kwargs: asked.append(fn))
    at = AppTest.from_file(str(launcher.APP), default_timeout=120).run()
    assert not at.exception, [e.value for e in at.exception]
    assert asked == []
    assert [c.proto.id for c in at.get("plotly_chart")] and len(at.get("plotly_chart")) == 2


def test_settle_freezes_what_the_warm_up_leaves_and_keeps_no_result_alive(fresh_store: None) -> None:
    """After the warm-up nothing alive is scanned by the collector again, and a stored run replaced
    afterwards is freed at once, by reference counting alone (the collector off): frozen, it is
    not kept."""
    try:
        launcher.prepare()
        found = data.default_scenario()
        assert found is not None
        keys, _args = warmup.work(*found)
        store = data._store()
        runs = [weakref.ref(store.get(k)) for k in keys]
        launcher.settle()
        assert gc.get_freeze_count() > 10_000 and not gc.get_objects(generation=2)  # all moved out of its scans
        assert all(run() is not None for run in runs)
        gc.disable()
        for key in keys:
            store.put(key, "replaced", 1)  # the run leaves the store: freed unless something holds it
        assert [run() for run in runs] == [None] * len(keys)
        assert store.elsewhere() == 0
    finally:
        gc.enable()
        gc.unfreeze()


def test_a_failing_warm_up_logs_one_line_and_the_server_starts(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    order: list[Any] = []

    def boom() -> None:
        order.append("warm-up")
        raise RuntimeError("no warm-up today")

    monkeypatch.setattr(launcher, "prepare", boom)
    monkeypatch.setattr(bootstrap, "run", lambda script, *_args, **_kw: order.append(("serve", script)))
    with caplog.at_level(logging.WARNING, logger="dashboard"), pytest.raises(SystemExit) as end:
        launcher.main(["--server.headless", "true"])
    assert end.value.code == 0
    assert order == ["warm-up", ("serve", str(launcher.APP))]  # streamlit run's own call, after the warm-up
    assert [r.getMessage() for r in caplog.records if r.name == "dashboard"] == [FAILED]


def _page(url: str) -> int:
    with urllib.request.urlopen(url, timeout=30) as response:
        return int(response.status)


@pytest.mark.parametrize(("command", "log"), [(MAKE_RUN, "launcher.log"), (("-c", FAIL), "launcher-failing.log")])
def test_the_launcher_serves_the_app(command: tuple[str, ...], log: str) -> None:
    """A server started as ``make run`` starts it answers its health check (serve waits for it) and
    serves the app, also when its warm-up fails."""
    with serve({"SIMCORE_DEMO": "0"}, log, command) as url:
        assert _page(url) == 200
        assert _page(f"{url}/_stcore/health") == 200
    lines = (ARTIFACTS / log).read_text().splitlines()
    failed = [line for line in lines if "warm-up" in line]
    assert failed == ([] if command == MAKE_RUN else [FAILED])
