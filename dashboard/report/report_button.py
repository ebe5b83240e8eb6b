"""Explore's "Download report (HTML)" button (UI): the report of the scenario on the page, built
when the visitor clicks, from the runs the page has already computed.

Nothing runs on a page rerun: Streamlit calls the builder only on a click. The one extra piece
of work, the decision records of the preemptive policies, goes through
:func:`dashboard.runs.data.decision_records` (a worker process under the demo's time limit,
shared with the decision view); over the limit, the report is written without the decision log
and says so. Uploaded workloads are in the file (their checksum and results), which a link cannot carry.
"""

from __future__ import annotations

import hashlib
import tempfile
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import streamlit as st

from dashboard.report.builder import ReportInput, build_report
from dashboard.report.cli import report_command
from dashboard.runs import data, held
from dashboard.shared.scenario import Scenario
from simcore.core.errors import UserError
from simcore.policies import POLICIES
from simcore.policies.alternatives import same_state_for
from simcore.workload import samples, write_workload


def _checksum(scenario: Scenario, comparison: data.Comparison, upload: tuple[str, bytes] | None) -> str:
    """sha256 of the workload file: the upload, the sample, or the CSV ``simcore generate`` writes."""
    if upload is not None:
        return hashlib.sha256(upload[1]).hexdigest()
    if scenario.source == "sample":
        name = next(f for f, *_ in samples.SAMPLES if Path(f).stem == scenario.sample)
        return hashlib.sha256((data.SAMPLE_DIR / name).read_bytes()).hexdigest()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "workload.csv"
        write_workload(comparison.workload.table, path)
        return hashlib.sha256(path.read_bytes()).hexdigest()


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
    """The report of the scenario on the page (called by Streamlit on a click, outside the script run)."""
    configs = {p: scenario.config(p) for p in scenario.policies}
    preemptive = [p for p in scenario.policies if POLICIES[p].preemptive]
    note = ""
    try:
        recorded = data.decision_records(
            comparison.workload,
            comparison.cluster,
            tuple((configs[p], same_state_for(p, preemptive)) for p in preemptive),
            lambda _: None,
        )
    except UserError as exc:  # over the time limit: the rest of the report is still worth having
        recorded, note = [], f"The decision log is not in this report: {exc}"
    report = ReportInput(
        title=comparison.workload.label,
        command=report_command(command, cluster_options(scenario, cluster_file)),
        checksum=_checksum(scenario, comparison, upload),
        jobs=comparison.workload.table,
        cluster=comparison.cluster,
        configs=configs,
        baseline=scenario.baseline,
        runs=comparison.runs,
        seed_flats=comparison.seed_flats,
        records=dict(zip(preemptive, recorded, strict=False)),
        records_note=note,
    )
    return build_report(report).encode()


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
) -> Callable[[], str | bytes]:
    """The button's deferred data: the comparison without its runs (its workload and summaries),
    the runs held weakly (:mod:`dashboard.runs.held`), so a page left open keeps no run in memory."""
    rest = replace(comparison, runs={})
    return held.deferred(
        comparison.runs, lambda runs: report_bytes(scenario, replace(rest, runs=runs), upload, command, cluster_file)
    )
