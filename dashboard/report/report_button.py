"""Explore's "Download report (HTML)" button (UI): the report of the scenario on the page, built
when the visitor clicks.

Nothing runs on a page rerun: Streamlit calls :func:`report_bytes` only on a click. It builds the
report in a worker process like every other computation (:func:`dashboard.report.gather.report_html`:
the runs, the decision records of the preemptive policies, the HTML), in line, under the limits and
counted in the budget, and shares it in the store; never in the server's own process (issue 31).
Over the budget, stopped at a limit or with the line full, the file says so and names the local
``simcore report`` command. Uploaded workloads are in the file (their checksum and results), which
a link cannot carry.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import streamlit as st

from dashboard.report import gather
from dashboard.report.cli import report_command
from dashboard.report.plain_html import text
from dashboard.runs import budget, data, worker
from dashboard.runs.runkeys import cluster_hash
from dashboard.shared.demo import limits
from dashboard.shared.scenario import Scenario
from simcore.core.errors import UserError
from simcore.workload import samples


def _checksum(scenario: Scenario, upload: tuple[str, bytes] | None) -> str | None:
    """sha256 of the workload file: the upload, the sample; None for a generated workload (the
    worker hashes the CSV ``simcore generate`` writes: :func:`dashboard.report.gather.report_html`)."""
    if upload is not None:
        return hashlib.sha256(upload[1]).hexdigest()
    if scenario.source == "sample":
        name = next(f for f, *_ in samples.SAMPLES if Path(f).stem == scenario.sample)
        return hashlib.sha256((data.SAMPLE_DIR / name).read_bytes()).hexdigest()
    return None


def cluster_options(scenario: Scenario, cluster_file: str | None) -> list[str]:
    """The CLI's cluster options for a cluster the page's command leaves out: an uploaded cluster
    file (by its name). A sample's own cluster is in the page's command already
    (:func:`dashboard.runs.budget.explore_command`)."""
    if scenario.cluster == "upload" and cluster_file:
        return ["--cluster", cluster_file]
    return []


def report_bytes(
    scenario: Scenario,
    comparison: data.Comparison,
    upload: tuple[str, bytes] | None,
    command: str,
    cluster_file: str | None = None,
) -> bytes:
    """The report of the scenario on the page, built in a worker process (called by Streamlit on a click,
    outside the script run, so no progress is drawn); or a page saying why there is none. It reads the
    comparison's workload and summaries, never its runs."""
    configs = {p: scenario.config(p) for p in scenario.policies}
    local = report_command(command, cluster_options(scenario, cluster_file))
    page = gather.PageFacts(
        comparison.workload.label, local, _checksum(scenario, upload), scenario.baseline, tuple(comparison.seed_flats)
    )
    lim, table, cluster = limits(), comparison.workload.table, comparison.cluster
    key = ("report", comparison.workload.key, cluster_hash(cluster), repr(configs), repr(page))
    try:
        budget.check_whatif(budget.workers_of(table), gather.simulations(configs), lim, local, "this report")
        work = (gather.report_html, (table, cluster, configs, page))
        return data.fetch([key], lambda _missing: work, lambda _fraction: None, local)[0]
    except worker.TimedOut as exc:
        return _notice(budget.timed_out("This report", lim, local, exc.wall))
    except UserError as exc:
        return _notice(exc)


def _notice(exc: UserError) -> bytes:
    """The downloaded file when there is no report: why, as plain text."""
    body = f"<p>There is no report:</p><pre>{text(str(exc))}</pre>"
    return f"<!DOCTYPE html>\n<html><head><meta charset='utf-8'><title>simcore report</title></head><body>{body}</body></html>\n".encode()


def show(
    scenario: Scenario,
    comparison: data.Comparison,
    upload: tuple[str, bytes] | None,
    command: str,
    cluster_file: str | None,
) -> None:
    """The button; ``command`` is the page's local command for this scenario, ``cluster_file``
    the name of an uploaded cluster file."""
    st.download_button(
        "Download report (HTML)",
        data=report_download(scenario, comparison, upload, command, cluster_file),
        file_name="simcore-report.html",
        mime="text/html",
        icon=":material/download:",
        on_click="ignore",
        help="One HTML file that opens offline in any browser: the scenario and its command, the trio, the charts, "
        "the Gantt with its preemptions, the decision log and the accounting. It carries uploaded workloads' "
        "results (and their checksum), which the link cannot.",
    )


def report_download(
    scenario: Scenario,
    comparison: data.Comparison,
    upload: tuple[str, bytes] | None,
    command: str,
    cluster_file: str | None,
) -> Callable[[], bytes]:
    """The button's deferred data: the comparison without its runs (its workload and summaries; the
    worker simulates what the report needs), so a page left open keeps no run in memory."""
    rest = replace(comparison, runs={})
    return lambda: report_bytes(scenario, rest, upload, command, cluster_file)
