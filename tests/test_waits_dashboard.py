"""Why every job waited, on the Explore page (issue 31): one computation per click for both Gantt
panels, counted in the budget at three runs per policy, and each answer, finished or stopped at a
limit, remembered for the session so that a rerun never computes it again. AppTest from the entry
point, every computation on the real worker path; the computations started are counted here."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest
from helpers.apptest import APP, assert_clean, chart_spec
from helpers.computations import Started, counted
from helpers.waiting import HANG_SECONDS
from streamlit.testing.v1 import AppTest

from dashboard.runs import compute, data, worker
from dashboard.shared import demo, keys, views

JOBS = 60


@pytest.fixture
def started(monkeypatch: pytest.MonkeyPatch) -> Iterator[Started]:
    """Every computation started in a worker (its function, its arguments), with the local limits,
    a fresh store and line."""
    yield from counted(monkeypatch)


def _asked(started: list[tuple[Any, tuple[Any, ...]]]) -> list[list[str]]:
    """The policies of each "why it waited" computation started."""
    return [[c.policy for c in args[2]] for fn, args in started if fn is compute.why_waited]


def _page(offset: int) -> AppTest:
    """Explore on a generated workload no other test stores, fifo and fitgpp, its comparison computed."""
    at = AppTest.from_file(APP, default_timeout=HANG_SECONDS)
    seed = 600_000 + 1000 * offset  # fixed: a seed whose runs have waits to explain (not every workload does)
    at.query_params.update({"source": "generate", "g.jobs": str(JOBS), "seed": str(seed), "policies": "fifo,fitgpp"})
    at.run()
    assert_clean(at)
    return at


def _errors(at: AppTest) -> list[str]:
    """The error notices, as their text reads (without Markdown's escapes)."""
    return [e.value.replace("\\", "") for e in at.error]


def _open(at: AppTest, tab: str) -> AppTest:
    at.session_state[keys.TAB.name] = tab
    return at.run()


def _hover_reasons(at: AppTest) -> dict[tuple[int, str], str]:
    """(panel, job id) -> the reason its Gantt bars' hover gives."""
    bars = [t for t in chart_spec(at, "gantt")["data"] if t["type"] == "bar"]
    return {(t.get("yaxis", "y") != "y", c[0]): c[7] for t in bars for c in t["customdata"]}


def test_one_click_on_the_gantt_tab_computes_both_panels_once_and_the_session_remembers(started) -> None:
    at = _page(1)
    _open(at, "Gantt")
    assert_clean(at)
    assert at.selectbox(key=keys.GANTT_POLICY.name).value == "fitgpp" and at.selectbox(key="gantt_with").value == "fifo"
    assert _asked(started) == [["fitgpp", "fifo"]]  # one computation for the two panels
    hovers = _hover_reasons(at)
    assert any(hovers.values())  # the hovers say why
    # the shared store drops everything (the comparison is computed again); the session still has the answers
    data._shared_store.clear()
    del started[:]
    at.run()
    assert_clean(at)
    assert _asked(started) == [] and [fn for fn, _ in started] == [compute.comparison]
    assert _hover_reasons(at) == hovers
    # the jobs table of either policy: answered already
    _open(at, "Jobs and downloads")
    assert_clean(at)
    shown = next(d.value for d in at.dataframe if views.WHY_WAITED in d.value.columns)
    assert _asked(started) == [] and shown[views.WHY_WAITED].astype(bool).any()


def test_a_stop_at_a_limit_is_shown_again_on_every_rerun_and_never_computed_again(
    started, monkeypatch: pytest.MonkeyPatch
) -> None:
    at = _page(2)
    counted = worker.run_within

    def stopped(lim: demo.Limits, fn: Any, args: tuple[Any, ...], heartbeat: Any) -> Any:
        if fn is compute.why_waited:  # as if it ran past run_seconds
            started.append((fn, args))
            raise worker.TimedOut(f"stopped after {lim.run_seconds:g} s of CPU time", wall=False)
        return counted(lim, fn, args, heartbeat)

    monkeypatch.setattr(worker, "run_within", stopped)
    _open(at, "Gantt")
    assert not at.exception and _asked(started) == [["fitgpp", "fifo"]]
    notice = _errors(at)
    assert (
        len(notice) == 1
        and "This what-if needed more than 30.0 min of CPU time, the most the dashboard gives" in notice[0]
    )
    for _ in range(2):
        at.run()
        assert _errors(at) == notice and _asked(started) == [["fitgpp", "fifo"]]
    _open(at, "Jobs and downloads")  # fifo's question was stopped too: the same notice, no computation
    assert _errors(at) == notice and _asked(started) == [["fitgpp", "fifo"]]


def test_the_budget_counts_three_runs_per_policy_not_yet_answered(started, monkeypatch: pytest.MonkeyPatch) -> None:
    # a budget that holds the comparison (2 x 60) and one policy's waits (3 x 60), not both panels' (6 x 60)
    monkeypatch.setattr(demo, "LOCAL", replace(demo.LOCAL, budget=2 * compute.ALL_WAITS_RUNS * JOBS - 1))
    at = _page(3)
    _open(at, "Gantt")
    assert not at.exception and _asked(started) == []
    refused = _errors(at)
    assert len(refused) == 1
    assert f"{2 * 3 * JOBS} job-runs of this what-if (jobs x simulations): more than {359:,}" in refused[0]
    assert "simcore explain" in at.code[-1].value and "--all-waits" in at.code[-1].value
    _open(at, "Jobs and downloads")  # fifo alone: 3 x 60 job-runs
    assert_clean(at)
    assert _asked(started) == [["fifo"]]
    _open(at, "Gantt")  # fifo is answered: only fitgpp's 3 x 60 are counted, and computed
    assert_clean(at)
    assert _asked(started) == [["fifo"], ["fitgpp"]]
