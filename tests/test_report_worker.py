"""The Explore page's HTML report is built in a worker process like every other computation
(issue 31): not in the server's process, in line, stopped at the limits, counted in the budget,
shared in the store, and byte for byte the report ``simcore report`` writes of the same runs."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import replace

import pytest
from helpers import HANG_SECONDS, job, prop_cluster, te, wait_until
from helpers.computations import Started, counted

from dashboard.report import gather, report_button
from dashboard.report.builder import ReportInput, build_report
from dashboard.runs import budget, data
from dashboard.runs.slots import ComputeSlots
from dashboard.shared import demo
from dashboard.shared.scenario import Scenario
from dashboard.shared.views import workload_key
from simcore.core.model import JobTable

SCENARIO = Scenario(policies=("fifo", "k8s"))
UPLOAD = ("two.csv", b"job_id,submit_time")  # what the checksum is of
COMMAND = "simcore compare two.csv --policies fifo,k8s --baseline fifo"


@pytest.fixture
def started(monkeypatch: pytest.MonkeyPatch) -> Iterator[Started]:
    """Every computation started in a worker (its function, its arguments), with the local limits (one slot),
    a fresh store and line."""
    yield from counted(monkeypatch, max_computations=1, max_waiting=5)


def _quiet(_fraction: float) -> None:
    """No progress to show."""


def _comparison() -> data.Comparison:
    """A's 4 GPUs taken for TE job T under k8s: a run with a decision to write out."""
    table = JobTable.from_jobs([job("A", 0, 100, 4), te("T", 10, 20, 2)])
    cluster = prop_cluster(4)
    runs, _ = gather.runs_and_records(table, cluster, {p: SCENARIO.config(p) for p in SCENARIO.policies}, _quiet)
    workload = data.Workload(table, None, "two jobs", (), workload_key(table))
    summaries, flats = [{p: r.summary for p, r in runs.items()}], [{p: r.flat for p, r in runs.items()}]
    return data.Comparison(workload, cluster, runs, summaries, flats, [0])


def _report() -> str:
    return report_button.report_bytes(SCENARIO, _comparison(), UPLOAD, COMMAND).decode()


def test_built_in_a_worker_as_simcore_report_builds_it_and_shared(started, monkeypatch: pytest.MonkeyPatch) -> None:
    comparison = _comparison()
    configs = {p: SCENARIO.config(p) for p in SCENARIO.policies}
    # what simcore report writes of these jobs (dashboard/report/cli.py: the same runs and records)
    runs, records = gather.runs_and_records(comparison.workload.table, comparison.cluster, configs, _quiet)
    page = report_button.report_bytes(SCENARIO, comparison, UPLOAD, COMMAND)
    assert "<pre id='command'>simcore report two.csv --policies fifo,k8s --baseline fifo" in page.decode()
    expected = ReportInput(
        "two jobs",
        report_button.report_command(COMMAND),
        report_button._checksum(SCENARIO, UPLOAD),
        comparison.workload.table,
        comparison.cluster,
        configs,
        "fifo",
        runs,
        comparison.seed_flats,
        records,
    )
    assert page == build_report(expected).encode()
    assert [fn for fn, _ in started] == [gather.report_html]
    # not in this process: a builder that fails here changes nothing; a second click takes it from the store
    monkeypatch.setattr(gather, "build_report", lambda _inp: pytest.fail("the report was built in the server"))
    assert report_button.report_bytes(SCENARIO, comparison, UPLOAD, COMMAND) == page
    data._shared_store.clear()
    assert report_button.report_bytes(SCENARIO, comparison, UPLOAD, COMMAND) == page
    assert [fn for fn, _ in started] == [gather.report_html, gather.report_html]


def test_counted_in_the_budget(started, monkeypatch: pytest.MonkeyPatch) -> None:
    # 2 jobs x (2 runs + the decision records of k8s) = 6 job-runs
    assert gather.simulations({p: SCENARIO.config(p) for p in SCENARIO.policies}) == 3
    monkeypatch.setattr(demo, "LOCAL", replace(demo.LOCAL, budget=5))
    text = _report()
    assert "6 job-runs of this report (jobs x simulations): more than 5" in text
    assert "simcore report two.csv --policies fifo,k8s --baseline fifo --out report.html" in text
    assert started == []  # refused before any computation
    monkeypatch.setattr(demo, "LOCAL", replace(demo.LOCAL, budget=6))
    assert "<h2>Decision log</h2>" in _report()


@pytest.mark.parametrize(
    ("limit", "words"),
    [
        (
            {"run_seconds": 0.01},
            "This report needed more than 0.01 s of CPU time, the most the dashboard gives a computation",
        ),
        ({"worker_mb": 1}, "it needed more than 1 MB of memory, the most one computation may use here"),
    ],
)
def test_stopped_at_the_limits(started, monkeypatch: pytest.MonkeyPatch, limit: dict, words: str) -> None:
    monkeypatch.setattr(demo, "LOCAL", replace(demo.LOCAL, **limit))
    text = _report()
    assert words in text and "<h2>" not in text
    assert [fn for fn, _ in started] == [gather.report_html]


def test_in_line_with_every_other_computation(started) -> None:
    line: ComputeSlots = data._slots()
    busy = line.enter()  # another visitor's computation holds the only slot
    got: list[str] = []
    click = threading.Thread(target=lambda: got.append(_report()))
    click.start()
    wait_until(lambda: line.waiting == 1, "the report to wait in line")
    assert started == []
    line.leave(busy)
    click.join(HANG_SECONDS)
    assert not click.is_alive() and "<h2>Decision log</h2>" in got[0]
    assert (line.running, line.waiting) == (0, 0)


def test_budget_words_name_the_report() -> None:
    with pytest.raises(budget.Refused, match=r"job-runs of this report \(jobs x simulations\)"):
        budget.check_whatif(10, 3, replace(demo.LOCAL, budget=29), "simcore report w.csv", "this report")
